// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ktrace.h"
#include "ktrace_cmd.h"

/*
 * A standard descriptor closed by the caller (ktrace >&-) would be the
 * next file or perf fd opened, and output meant for stdout would land in
 * it: hold 0, 1 and 2 with /dev/null first.
 */
static void hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
		if (n >= 0 && n != fd) {
			dup2(n, fd);
			close(n);
		}
	}
}

int main(int argc, char **argv)
{
	struct kt_ctx ctx = { .out = stdout, .err = stderr };
	int ret, werr;

	hold_std_fds();
	ret = ktrace_main(&ctx, argc, argv);
	ktrace_tfs_free(ctx.tfs);
	/* the output lost (a full disk, /dev/full, a closed pipe) is said */
	werr = ferror(stdout) ? EIO : 0;
	if (fflush(stdout) != 0)
		werr = errno;
	if (werr) {
		fprintf(stderr, "ktrace: writing the output failed: %s\n",
			strerror(werr));
		if (!ret)
			ret = KT_FAIL;
	}
	return ret;
}
