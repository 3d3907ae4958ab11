// SPDX-License-Identifier: GPL-2.0-only
/* ktrace show: enabled events, filters, buffer size and tracing_on. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"

static const char show_usage[] =
	"Usage: ktrace show [-B INSTANCE | -a]\n"
	"Show, per ftrace instance, tracing_on, the per-CPU buffer size, the\n"
	"enabled events and every event filter. Default: the top instance and\n"
	"every named instance.\n"
	"\n"
	"  -B, --instance NAME  only instance NAME\n"
	"  -j, --json           as JSON\n"
	"  -h, --help           this help\n";

static const struct option show_opts[] = {
	{ "instance", required_argument, NULL, 'B' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void show_text(FILE *f, const struct ktrace_inst_state *st)
{
	fprintf(f, "instance: %s%s\n", st->name ? st->name : "(top)",
		st->owned ? " (created by ktrace)" : "");
	fprintf(f, "  tracing_on: %d\n", st->tracing_on);
	fprintf(f, "  buffer_size_kb: %ld per cpu\n", st->buffer_size_kb);
	fprintf(f, "  enabled events:%s\n", st->enabled[0] ? "" : " none");
	for (char **e = st->enabled; *e; e++)
		fprintf(f, "    %s\n", *e);
	fprintf(f, "  filters:%s\n", st->filters[0] ? "" : " none");
	for (char **e = st->filters; *e; e++) {
		char *tab = strchr(*e, '\t');

		fprintf(f, "    %.*s: %s\n", (int)(tab - *e), *e, tab + 1);
	}
}

static void show_json(FILE *f, const struct ktrace_inst_state *st)
{
	fputs("{\"instance\": ", f);
	kt_json_str(f, st->name);
	fprintf(f, ", \"owned\": %s, \"tracing_on\": %s, \"buffer_size_kb\": %ld, \"enabled\": [",
		st->owned ? "true" : "false", st->tracing_on ? "true" : "false",
		st->buffer_size_kb);
	for (char **e = st->enabled; *e; e++) {
		if (e != st->enabled)
			fputs(", ", f);
		kt_json_str(f, *e);
	}
	fputs("], \"filters\": [", f);
	for (char **e = st->filters; *e; e++) {
		char *tab = strchr(*e, '\t');

		*tab = '\0';
		fputs(e != st->filters ? ", {\"event\": " : "{\"event\": ", f);
		kt_json_str(f, *e);
		fputs(", \"filter\": ", f);
		kt_json_str(f, tab + 1);
		fputs("}", f);
		*tab = '\t';
	}
	fputs("]}", f);
}

static int show_one(struct kt_ctx *ctx, const char *name, bool first)
{
	struct ktrace_inst_state st;
	struct ktrace_inst *inst;
	int ret;

	inst = kt_instance_open(ctx, name, false);
	if (!inst)
		return KT_FAIL;
	ret = ktrace_inst_state_read(inst, &st);
	if (ret) {
		ktrace_inst_state_clear(&st);
		ktrace_inst_free(inst);
		return kt_error(ctx, KT_FAIL, "cannot read instance '%s': %s",
				name ? name : "top", strerror(-ret));
	}
	if (ctx->json) {
		fputs(first ? "\n" : ",\n", ctx->out);
		show_json(ctx->out, &st);
	} else {
		show_text(ctx->out, &st);
	}
	ktrace_inst_state_clear(&st);
	ktrace_inst_free(inst);
	return KT_OK;
}

int cmd_show(struct kt_ctx *ctx, int argc, char **argv)
{
	const char *iname = NULL;
	char **names = NULL;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+B:jh", show_opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'B':
			iname = optarg;
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			fputs(show_usage, ctx->out);
			return KT_OK;
		default:
			return kt_usage_error(ctx, show_usage, "bad option '%s'",
					      argv[optind - 1]);
		}
	}
	if (optind < argc)
		return kt_usage_error(ctx, show_usage,
				      "unexpected argument '%s'", argv[optind]);
	if (kt_instance_name_check(ctx, iname))
		return KT_USAGE;
	if (!kt_tfs(ctx))
		return KT_FAIL;
	if (ctx->json)
		fputs("[", ctx->out);
	if (iname) {
		ret = show_one(ctx, iname, true);
	} else {
		ret = show_one(ctx, NULL, true);
		names = ktrace_inst_list(ctx->tfs);
		for (char **n = names; !ret && n && *n; n++)
			ret = show_one(ctx, *n, false);
		ktrace_strv_free(names);
	}
	if (ctx->json)
		fputs("\n]\n", ctx->out);
	return ret;
}
