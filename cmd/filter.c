// SPDX-License-Identifier: GPL-2.0-only
/* ktrace filter: set or clear one event's filter, checked first. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"

static const char filter_usage[] =
	"Usage: ktrace filter [-B INSTANCE] SYSTEM:EVENT 'EXPR'\n"
	"       ktrace filter [-B INSTANCE] SYSTEM:EVENT --clear\n"
	"Set the event's filter (kernel filter syntax: 'prev_pid == 1 && prio < 100').\n"
	"The expression is checked against the event's fields before it is\n"
	"written; when the kernel refuses it, the previous filter stays.\n"
	"\n"
	"  -B, --instance NAME  work on the ftrace instance NAME\n"
	"  -c, --clear          remove the event's filter\n"
	"  -j, --json           report as JSON\n"
	"  -h, --help           this help\n";

static const struct option filter_opts[] = {
	{ "instance", required_argument, NULL, 'B' },
	{ "clear", no_argument, NULL, 'c' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_filter(struct kt_ctx *ctx, int argc, char **argv)
{
	struct ktrace_err err = { .pos = -1 };
	const char *iname = NULL, *event, *expr = NULL;
	struct ktrace_inst *inst;
	bool clear = false;
	int opt, ret = KT_OK;

	/* No '+': "--clear" may follow the event, as in the usage. */
	while ((opt = getopt_long(argc, argv, ":B:cjh", filter_opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'B':
			iname = optarg;
			break;
		case 'c':
			clear = true;
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			fputs(filter_usage, ctx->out);
			return KT_OK;
		default:
			return kt_bad_option(ctx, filter_usage, opt,
					     argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return kt_usage_error(ctx, filter_usage, "missing event");
	event = argv[0];
	if (clear && argc > 1)
		return kt_usage_error(ctx, filter_usage,
				      "--clear takes no expression");
	if (!clear && argc != 2)
		return kt_usage_error(ctx, filter_usage, argc < 2 ?
				      "missing filter expression (or --clear)" :
				      "too many arguments: quote the filter expression");
	if (!clear)
		expr = argv[1];
	{
		const char *c = strchr(event, ':');
		char *sys = c ? strndup(event, c - event) : NULL;
		bool bad = !c || kt_name_check(sys) ||
			   kt_name_check(c + 1);

		free(sys);
		if (bad)
			return kt_usage_error(ctx, NULL,
					      "bad event name '%s': expected SYSTEM:EVENT of letters, digits, '_', '-' and '.'",
					      event);
	}
	if (kt_instance_name_check(ctx, iname))
		return KT_USAGE;
	if (expr && !*expr)
		return kt_usage_error(ctx, NULL,
				      "empty filter expression: use --clear to remove a filter");
	if (!kt_tfs(ctx))
		return KT_FAIL;
	inst = kt_instance_open(ctx, iname, !clear);
	if (!inst)
		return KT_FAIL;
	if (ktrace_inst_filter_set(inst, event, expr, &err) < 0) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		if (ktrace_inst_is_new(inst))
			ktrace_inst_destroy(inst);
	} else if (ctx->json) {
		struct kt_json *j = kt_json(ctx);

		if (j) {
			kt_json_object_begin(j);
			kt_jstr(j, "event", event);
			kt_jstr(j, "filter", expr);
			kt_json_object_end(j);
		}
	} else if (expr) {
		fprintf(ctx->out, "filter on %s: %s\n", event, expr);
	} else {
		fprintf(ctx->out, "filter on %s cleared\n", event);
	}
	ktrace_err_clear(&err);
	ktrace_inst_free(inst);
	return ret;
}
