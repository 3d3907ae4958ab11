// SPDX-License-Identifier: GPL-2.0-only
#include "ktrace.h"
#include "ktrace_cmd.h"

int main(int argc, char **argv)
{
	struct kt_ctx ctx = { .out = stdout, .err = stderr };
	int ret = ktrace_main(&ctx, argc, argv);

	ktrace_tfs_free(ctx.tfs);
	if (fflush(stdout) != 0 && !ret)
		ret = KT_FAIL;
	return ret;
}
