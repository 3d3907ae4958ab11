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
	"  -a, --all            every instance (the default)\n"
	"  -j, --json           as JSON\n"
	"  -h, --help           this help\n";

static const struct option show_opts[] = {
	{ "instance", required_argument, NULL, 'B' },
	{ "all", no_argument, NULL, 'a' },
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
		char *tab = strchr(*e, '\t'), *perr = strchr(tab + 1, '\t');

		fprintf(f, "    %.*s: %.*s", (int)(tab - *e), *e,
			perr ? (int)(perr - tab - 1) : (int)strlen(tab + 1),
			tab + 1);
		if (perr)
			fprintf(f, "  (refused by the kernel, not applied: %s)",
				perr + 1);
		fputc('\n', f);
	}
}

static void show_json(struct kt_json *j,
		      const struct ktrace_inst_state *st)
{
	kt_json_object_begin(j);
	kt_jstr(j, "instance", st->name);
	kt_jbool(j, "owned", st->owned);
	kt_jbool(j, "tracing_on", st->tracing_on);
	kt_jint(j, "buffer_size_kb", st->buffer_size_kb);
	kt_json_key(j, "enabled");
	kt_json_array_begin(j);
	for (char **e = st->enabled; *e; e++)
		kt_json_string(j, *e);
	kt_json_array_end(j);
	kt_json_key(j, "filters");
	kt_json_array_begin(j);
	for (char **e = st->filters; *e; e++) {
		char *tab = strchr(*e, '\t'), *perr = strchr(tab + 1, '\t');

		*tab = '\0';
		if (perr)
			*perr = '\0';
		kt_json_object_begin(j);
		kt_jstr(j, "event", *e);
		kt_jstr(j, "filter", tab + 1);
		kt_jbool(j, "applied", !perr);
		if (perr)
			kt_jstr(j, "kernel_error", perr + 1);
		kt_json_object_end(j);
		*tab = '\t';
		if (perr)
			*perr = '\t';
	}
	kt_json_array_end(j);
	kt_json_object_end(j);
}

static int show_one(struct kt_ctx *ctx, const char *name)
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
		return kt_error(ctx, KT_FAIL, "cannot read instance '%s': %s%s",
				name ? name : "top", strerror(-ret),
				kt_priv_hint(-ret));
	}
	if (ctx->json) {
		show_json(ctx->jw, &st);
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

	while ((opt = getopt_long(argc, argv, "+:B:ajh", show_opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'B':
			iname = optarg;
			break;
		case 'a':
			iname = NULL;
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			fputs(show_usage, ctx->out);
			return KT_OK;
		default:
			return kt_bad_option(ctx, show_usage, opt,
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
	if (ctx->json) {
		if (!kt_json(ctx))
			return kt_error(ctx, KT_FAIL, "out of memory");
		kt_json_array_begin(ctx->jw);
	}
	if (iname) {
		ret = show_one(ctx, iname);
	} else {
		ret = show_one(ctx, NULL);
		names = ktrace_inst_list(ctx->tfs);
		for (char **n = names; !ret && n && *n; n++)
			ret = show_one(ctx, *n);
		ktrace_strv_free(names);
	}
	/* after an error the writer has closed the array already */
	if (ctx->json && !ret)
		kt_json_array_end(ctx->jw);
	return ret;
}
