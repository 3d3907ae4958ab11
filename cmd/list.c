// SPDX-License-Identifier: GPL-2.0-only
/* ktrace list: tracepoints and dynamic events matching fnmatch globs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"

static const char list_usage[] =
	"Usage: ktrace list [OPTIONS] [GLOB...]\n"
	"List events as SYSTEM:EVENT, sorted. GLOB is an fnmatch pattern on\n"
	"SYSTEM:EVENT ('irq:*', '*:*open*'); a bare 'irq' means the whole system,\n"
	"a bare event name ('irq_handler_entry') that event in any system.\n"
	"\n"
	"  -v, --fields    show each event's fields (type, name, size, signedness)\n"
	"  -f, --format    show each event's print format\n"
	"  -k, --kind KIND only events of KIND (tracepoint, kprobe, kretprobe,\n"
	"                  uprobe, uretprobe, synthetic, eprobe, fprobe)\n"
	"  -j, --json      a JSON array of {system, name, id, kind, fields}\n"
	"  -h, --help      this help\n";

static const struct option list_opts[] = {
	{ "fields", no_argument, NULL, 'v' },
	{ "format", no_argument, NULL, 'f' },
	{ "kind", required_argument, NULL, 'k' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void print_json_event(struct kt_json *j,
			     const struct ktrace_event *e, bool fmt)
{
	kt_json_object_begin(j);
	kt_jstr(j, "system", e->system);
	kt_jstr(j, "name", e->name);
	kt_jint(j, "id", e->id);
	kt_jstr(j, "kind", ktrace_kind_name(e->kind));
	if (e->definition)
		kt_jstr(j, "definition", e->definition);
	if (fmt)
		kt_jstr(j, "print_fmt", e->print_fmt);
	kt_json_key(j, "fields");
	kt_json_array_begin(j);
	for (int i = 0; i < e->nr_fields; i++) {
		const struct ktrace_field *fl = &e->fields[i];

		kt_json_object_begin(j);
		kt_jstr(j, "name", fl->name);
		kt_jstr(j, "type", fl->type);
		kt_jint(j, "offset", fl->offset);
		kt_jint(j, "size", fl->size);
		kt_jbool(j, "signed", fl->is_signed);
		kt_jbool(j, "common", fl->is_common);
		kt_json_object_end(j);
	}
	kt_json_array_end(j);
	kt_json_object_end(j);
}

/*
 * The plain listing's lines gather here and go out in large writes: two
 * thousand lines through stdio cost more than reading and sorting them.
 */
struct line_buf {
	size_t len;
	char b[16384];
};

static void lb_flush(struct line_buf *lb, FILE *f)
{
	if (lb->len)
		fwrite_unlocked(lb->b, 1, lb->len, f);
	lb->len = 0;
}

/* "system:name\n"; false when it does not fit even an empty buffer */
static bool lb_put(struct line_buf *lb, FILE *f, const char *sys, size_t ls,
		   const char *name, size_t ln)
{
	if (ls + ln + 2 > sizeof(lb->b) - lb->len)
		lb_flush(lb, f);
	if (ls + ln + 2 > sizeof(lb->b))
		return false;
	memcpy(lb->b + lb->len, sys, ls);
	lb->b[lb->len + ls] = ':';
	memcpy(lb->b + lb->len + ls + 1, name, ln);
	lb->b[lb->len + ls + 1 + ln] = '\n';
	lb->len += ls + ln + 2;
	return true;
}

/* "system:name", and the kind of a dynamic event, through stdio */
static void print_name(FILE *f, const char *sys, const char *name,
		       enum ktrace_kind kind)
{
	if (kind == KTRACE_KIND_TRACEPOINT)
		fprintf(f, "%s:%s\n", sys, name);
	else
		fprintf(f, "%s:%s [%s]\n", sys, name, ktrace_kind_name(kind));
}

/* A plain listing's line: a tracepoint's goes through lb. */
static void print_brief(FILE *f, struct line_buf *lb,
			const struct ktrace_event_brief *b)
{
	if (b->kind == KTRACE_KIND_TRACEPOINT &&
	    lb_put(lb, f, b->system, b->system_len, b->name, b->name_len))
		return;
	lb_flush(lb, f);
	print_name(f, b->system, b->name, b->kind);
}

static void print_text_event(FILE *f, const struct ktrace_event *e,
			     bool fields, bool fmt)
{
	print_name(f, e->system, e->name, e->kind);
	if (fields) {
		for (int i = 0; i < e->nr_fields; i++) {
			const struct ktrace_field *fl = &e->fields[i];

			if (fl->is_common)
				continue;
			fprintf(f, "    %-28s %-24s size:%d %s\n", fl->type,
				fl->name, fl->size,
				fl->is_signed ? "signed" : "unsigned");
		}
	}
	if (fmt && e->print_fmt)
		fprintf(f, "    print fmt: %s\n", e->print_fmt);
}

static int parse_kind(const char *s, int *kind)
{
	for (int k = KTRACE_KIND_TRACEPOINT; k <= KTRACE_KIND_OTHER; k++) {
		if (!strcmp(s, ktrace_kind_name(k))) {
			*kind = k;
			return 0;
		}
	}
	return -EINVAL;
}

/* What to show: -v, -f, -k. */
struct list_cmd {
	bool fields, fmt;
	int kind;			/* -1: every kind */
};

/* The options into lc; argc and argv are left on the globs. -1 to go on,
 * else the exit status (--help, a usage error). */
static int list_parse(struct kt_ctx *ctx, struct list_cmd *lc, int *argc,
		      char ***argv)
{
	int opt;

	while ((opt = getopt_long(*argc, *argv, "+:vfk:jh", list_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'v':
			lc->fields = true;
			break;
		case 'f':
			lc->fmt = true;
			break;
		case 'k':
			if (parse_kind(optarg, &lc->kind))
				return kt_usage_error(ctx, NULL,
						      "unknown event kind '%s'",
						      optarg);
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			fputs(list_usage, ctx->out);
			return KT_OK;
		default:
			return kt_bad_option(ctx, list_usage, opt,
					     (*argv)[optind - 1]);
		}
	}
	*argc -= optind;
	*argv += optind;
	return -1;
}

/* The events the globs match (all without one) into *evs; every glob
 * must match one. KT_OK, or the error (printed). */
static int list_events(struct kt_ctx *ctx, int argc, char **argv,
		       struct ktrace_events **evs)
{
	unsigned int *hits = NULL;
	int ret = KT_OK;

	if (argc) {
		hits = calloc(argc, sizeof(*hits));
		if (!hits)
			return kt_error(ctx, KT_FAIL, "out of memory");
	}
	*evs = ktrace_events_alloc(ctx->tfs, (const char *const *)argv, argc,
				   hits);
	if (!*evs) {
		free(hits);
		return kt_error(ctx, KT_FAIL, "cannot list events in %s: %s%s",
				ktrace_tfs_dir(ctx->tfs), strerror(errno),
				kt_priv_hint(errno));
	}
	for (int i = 0; i < argc; i++) {
		if (!hits[i]) {
			ret = kt_error(ctx, KT_FAIL, "no event matches '%s'",
				       argv[i]);
			break;
		}
	}
	free(hits);
	return ret;
}

/* The events of -k's kind: names (a plain listing's tracepoints through
 * one line buffer), with -v/-f their fields and format, or JSON. */
static int list_print(struct kt_ctx *ctx, const struct list_cmd *lc,
		      struct ktrace_events *evs)
{
	bool detail = lc->fields || lc->fmt;
	struct line_buf *lb = NULL;
	struct kt_json *j = NULL;
	int n = ktrace_events_count(evs), ret = KT_OK;

	if (ctx->json) {
		j = kt_json(ctx);
		if (!j)
			return kt_error(ctx, KT_FAIL, "out of memory");
		kt_json_array_begin(j);
	} else {
		lb = malloc(sizeof(*lb));
		if (!lb)
			return kt_error(ctx, KT_FAIL, "out of memory");
		lb->len = 0;
	}
	for (int i = 0; i < n; i++) {
		struct ktrace_event_brief b;

		ktrace_events_brief(evs, i, &b);
		if (lc->kind >= 0 && (int)b.kind != lc->kind)
			continue;
		if (lb && !detail)
			print_brief(ctx->out, lb, &b);
		else if (lb)
			print_text_event(ctx->out, ktrace_events_get(evs, i),
					 lc->fields, lc->fmt);
		else
			print_json_event(j, ktrace_events_get(evs, i), lc->fmt);
	}
	if (lb)
		lb_flush(lb, ctx->out);
	free(lb);
	/* none of -k's kind is an empty list, as perf probe -l has it */
	if (j)
		kt_json_array_end(j);
	return ret;
}

int cmd_list(struct kt_ctx *ctx, int argc, char **argv)
{
	struct list_cmd lc = { .kind = -1 };
	struct ktrace_events *evs = NULL;
	int ret;

	ret = list_parse(ctx, &lc, &argc, &argv);
	if (ret >= 0)
		return ret;
	if (kt_globs_check(ctx, argc, argv))
		return KT_USAGE;
	if (!kt_tfs(ctx))
		return KT_FAIL;
	ret = list_events(ctx, argc, argv, &evs);
	if (ret)
		goto out;
	if ((ctx->json || lc.fields || lc.fmt) &&
	    ktrace_events_load_formats(evs)) {
		ret = kt_error(ctx, KT_FAIL, "cannot read event formats: %s",
			       strerror(errno));
		goto out;
	}
	ret = list_print(ctx, &lc, evs);
out:
	ktrace_events_free(evs);
	return ret;
}
