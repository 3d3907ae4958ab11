// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ktrace.h"
#include "ktrace_cmd.h"

/*
 * A standard descriptor closed by the caller (ktrace >&-) would be the
 * next file or perf fd opened, and output meant for stdout would land in
 * it: hold 0, 1 and 2 with /dev/null first, opened the wrong way round
 * (stdin for writing, stdout and stderr for reading) so that using them
 * still fails with EBADF, as it would on the closed descriptor, and a
 * lost output is said at exit (coreutils' rule).
 */
static bool stdout_held;

static void hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		n = open("/dev/null", fd ? O_RDONLY : O_WRONLY);
		stdout_held |= fd == STDOUT_FILENO && n >= 0;
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

	kt_signals_hold();
	hold_std_fds();
	ret = ktrace_main(&ctx, argc, argv);
	ktrace_tfs_free(ctx.tfs);
	/*
	 * The output lost (a full disk, /dev/full, a closed pipe or stdout)
	 * is said once: a command that said it cleared the stream's error.
	 */
	werr = ferror(stdout) ? EIO : 0;
	if (fclose(stdout) != 0)
		werr = errno;
	else if (werr && stdout_held)
		werr = EBADF;	/* the error of a write a command flushed */
	if (werr) {
		fprintf(stderr, "ktrace: writing the output failed: %s\n",
			strerror(werr));
		if (!ret)
			ret = KT_FAIL;
	}
	return ret;
}
