// SPDX-License-Identifier: GPL-2.0-only
/* ktrace enable / ktrace disable: switch events in an ftrace instance. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"

static const char enable_usage[] =
	"Usage: ktrace enable|disable [-B INSTANCE] GLOB...\n"
	"Enable or disable every event matching GLOB (fnmatch on SYSTEM:EVENT)\n"
	"in the top ftrace instance or in INSTANCE (created by enable when it\n"
	"does not exist; `ktrace reset -B INSTANCE` removes it again).\n"
	"\n"
	"  -B, --instance NAME  work on the ftrace instance NAME\n"
	"  -j, --json           report as JSON\n"
	"  -h, --help           this help\n";

static const struct option enable_opts[] = {
	{ "instance", required_argument, NULL, 'B' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int enable_common(struct kt_ctx *ctx, int argc, char **argv, bool on)
{
	const char *iname = NULL;
	struct ktrace_inst *inst;
	struct ktrace_events *evs;
	unsigned int *hits;
	int opt, n, matched, ret = KT_OK;

	while ((opt = getopt_long(argc, argv, "+:B:jh", enable_opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'B':
			iname = optarg;
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			fputs(enable_usage, ctx->out);
			return KT_OK;
		default:
			return kt_bad_option(ctx, enable_usage, opt,
					     argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return kt_usage_error(ctx, enable_usage,
				      "missing event pattern");
	if (kt_instance_name_check(ctx, iname))
		return KT_USAGE;
	if (kt_globs_check(ctx, argc, argv))
		return KT_USAGE;
	if (!kt_tfs(ctx))
		return KT_FAIL;
	/* Check every pattern matches before touching anything. */
	hits = calloc(argc, sizeof(*hits));
	if (!hits)
		return kt_error(ctx, KT_FAIL, "out of memory");
	evs = ktrace_events_alloc(ctx->tfs, (const char *const *)argv, argc,
				  hits);
	if (!evs) {
		free(hits);
		return kt_error(ctx, KT_FAIL, "cannot list events: %s%s",
				strerror(errno),
				kt_priv_hint(errno));
	}
	matched = ktrace_events_count(evs);
	ktrace_events_free(evs);
	for (int i = 0; i < argc; i++) {
		if (!hits[i]) {
			free(hits);
			return kt_error(ctx, KT_FAIL, "no event matches '%s'",
					argv[i]);
		}
	}
	free(hits);
	inst = kt_instance_open(ctx, iname, on);
	if (!inst)
		return KT_FAIL;
	n = ktrace_inst_enable(inst, (const char *const *)argv, argc, on,
			       NULL);
	if (n < 0) {
		ret = kt_error(ctx, KT_FAIL, "cannot %s events: %s",
			       on ? "enable" : "disable", strerror(-n));
		/* Leave no instance behind that only this failure made. */
		if (ktrace_inst_is_new(inst))
			ktrace_inst_destroy(inst);
	} else if (ctx->json) {
		struct kt_json *j = kt_json(ctx);

		if (j) {
			kt_json_object_begin(j);
			kt_jint(j, on ? "enabled" : "disabled", n);
			kt_jint(j, on ? "already_enabled" : "already_disabled",
				matched > n ? matched - n : 0);
			kt_jstr(j, "instance", iname);
			kt_json_object_end(j);
		}
	} else {
		fprintf(ctx->out, "%s %d event%s%s%s", on ? "enabled" : "disabled",
			n, n == 1 ? "" : "s", iname ? " in instance " : "",
			iname ? iname : "");
		if (matched > n)
			fprintf(ctx->out, " (%d already %s)", matched - n,
				on ? "enabled" : "disabled");
		fputc('\n', ctx->out);
	}
	ktrace_inst_free(inst);
	return ret;
}

int cmd_enable(struct kt_ctx *ctx, int argc, char **argv)
{
	return enable_common(ctx, argc, argv, true);
}

int cmd_disable(struct kt_ctx *ctx, int argc, char **argv)
{
	return enable_common(ctx, argc, argv, false);
}
