// SPDX-License-Identifier: GPL-2.0-only
/* ktrace reset: disable events and clear filters of one instance. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"

static const char reset_usage[] =
	"Usage: ktrace reset [-B INSTANCE]\n"
	"Disable every event and clear every filter of the top instance or of\n"
	"INSTANCE, and remove INSTANCE if ktrace created it. Dynamic events\n"
	"(kprobes, uprobes...) are never removed: use `ktrace probe del`.\n"
	"\n"
	"  -B, --instance NAME  reset instance NAME\n"
	"  -j, --json           report as JSON\n"
	"  -h, --help           this help\n";

static const struct option reset_opts[] = {
	{ "instance", required_argument, NULL, 'B' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_reset(struct kt_ctx *ctx, int argc, char **argv)
{
	const char *iname = NULL;
	struct ktrace_inst *inst;
	bool removed = false;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+:B:jh", reset_opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'B':
			iname = optarg;
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			fputs(reset_usage, ctx->out);
			return KT_OK;
		default:
			return kt_bad_option(ctx, reset_usage, opt,
					     argv[optind - 1]);
		}
	}
	if (optind < argc)
		return kt_usage_error(ctx, reset_usage,
				      "unexpected argument '%s'", argv[optind]);
	if (kt_instance_name_check(ctx, iname))
		return KT_USAGE;
	if (!kt_tfs(ctx))
		return KT_FAIL;
	inst = kt_instance_open(ctx, iname, false);
	if (!inst)
		return KT_FAIL;
	ret = ktrace_inst_reset(inst);
	if (ret) {
		ktrace_inst_free(inst);
		return kt_error(ctx, KT_FAIL, "cannot reset instance '%s': %s%s",
				iname ? iname : "top", strerror(-ret),
				kt_priv_hint(-ret));
	}
	if (iname && ktrace_inst_owned(inst)) {
		ret = ktrace_inst_destroy(inst);
		if (ret) {
			ktrace_inst_free(inst);
			return kt_error(ctx, KT_FAIL,
					"cannot remove instance '%s': %s",
					iname, strerror(-ret));
		}
		removed = true;
	}
	if (ctx->json) {
		struct kt_json *j = kt_json(ctx);

		if (j) {
			kt_json_object_begin(j);
			kt_jstr(j, "reset", iname);
			kt_jbool(j, "removed", removed);
			kt_json_object_end(j);
		}
	} else {
		fprintf(ctx->out, "reset %s%s%s\n",
			iname ? "instance " : "the top instance",
			iname ? iname : "", removed ? " (removed)" : "");
	}
	ktrace_inst_free(inst);
	return KT_OK;
}
