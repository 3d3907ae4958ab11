// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktrace hist: let the kernel count. A hist trigger on one event, in an
 * instance of ktrace's own (so other tools' triggers are neither counted
 * nor changed), limited to a command or processes by the instance's
 * set_event_pid; the kernel's table read and shown at the end (and every
 * -I interval as the change since the last one), then the trigger, the
 * instance and any inline probe removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ktrace_cmd.h"

static const char hist_usage[] =
	"Usage: ktrace hist -e EVENT [-k KEY[,KEY...]] [-v VALUE[,VALUE...]] [-s FIELD[-desc]...]\n"
	"                   [--filter EXPR] [--size N] [-p PID... | -a | -- CMD ARGS...]\n"
	"                   [-d SECS] [-I MS] [--json]\n"
	"       ktrace hist -r RECIPE [options]     ktrace hist --list-recipes\n"
	"Count an event in the kernel with a hist trigger: no event is copied to\n"
	"user space. EVENT is a tracepoint or probe (SYSTEM:EVENT) or an inline probe\n"
	"('kprobe:SPEC', 'uprobe:BINARY:SYMBOL' as in record, removed at the end).\n"
	"A KEY is a field with the kernel's modifiers: .sym, .sym-offset, .hex,\n"
	".execname, .syscall, .log2, .buckets=N, .usecs; common_pid; 'stack' (the\n"
	"kernel stack). A .log2 or .buckets key is drawn as a histogram. Without -k,\n"
	"one total. VALUEs are numeric fields summed; hitcount is always counted.\n"
	"\n"
	"  -e, --event EVENT     the event to count\n"
	"  -k, --key KEYS        keys (repeatable, comma lists)\n"
	"  -v, --value VALUES    fields to sum (repeatable, comma lists)\n"
	"  -s, --sort FIELD      sort by a key or value, FIELD-desc for descending\n"
	"                        (default: hitcount-desc)\n"
	"      --filter EXPR     count only events matching EXPR (event filter syntax)\n"
	"      --size N          table entries (the kernel's default 2048)\n"
	"  -p, --pid PID         only these processes (and their threads)\n"
	"  -a, --all-cpus        system-wide (the default without CMD or -p)\n"
	"  -d, --duration SECS   stop after SECS seconds\n"
	"  -I, --interval MS     print the counts of each interval\n"
	"  -r, --recipe NAME     start from a recipe (a NAME.hist file, see --list-recipes)\n"
	"      --list-recipes    the recipes installed\n"
	"  -j, --json            JSON output\n"
	"  -h, --help            this help\n";

enum { OPT_FILTER = 'f', OPT_SIZE = 256, OPT_LIST_RECIPES };

static const struct option hist_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "key", required_argument, NULL, 'k' },
	{ "value", required_argument, NULL, 'v' },
	{ "sort", required_argument, NULL, 's' },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "interval", required_argument, NULL, 'I' },
	{ "recipe", required_argument, NULL, 'r' },
	{ "list-recipes", no_argument, NULL, OPT_LIST_RECIPES },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct hist_cmd {
	struct kt_ctx *ctx;
	struct kt_capture_opts co;	/* -e, --filter, the target, -d */
	struct kt_strv keys, vals, sort;
	unsigned int size;
	long interval;			/* -I, ms; 0: none */
	bool total_only;		/* no -k: one total */
	struct kt_inline inl;
	struct kt_signals sigs;
	char event[160];		/* "system:event" */
	char *sys, *ev;
	bool *key_is_str;		/* per key: a string field */
	char *trigger;			/* the line written */
	bool started;
	char what[512];
	struct kt_hrun hr;		/* the run: instance, loop, reads */
	struct kt_recipe *recipes;	/* their text, which options point to */
	/* options a recipe set (by code, < 512): the command line's own
	 * replace them rather than add to them */
	bool in_recipe;
	bool from_recipe[512];
};

/* -s FIELD[-desc|-asc] as the kernel writes it: FIELD[.descending]. */
static int sort_add(struct kt_ctx *ctx, struct hist_cmd *hc, const char *arg)
{
	struct kt_strv *s = &hc->sort;
	int ret = kt_strv_add_list(ctx, s, "sort field", arg);

	for (int i = 0; !ret && i < s->n; i++) {
		char *f = s->v[i], *dash = strrchr(f, '-');

		if (!dash || (strcmp(dash, "-desc") && strcmp(dash, "-asc")))
			continue;
		*dash = '\0';
		if (!strcmp(dash + 1, "desc") &&
		    asprintf(&s->v[i], "%s.descending", f) < 0) {
			s->v[i] = f;
			return kt_error(ctx, KT_FAIL, "out of memory");
		}
		if (s->v[i] != f)
			free(f);
	}
	if (!ret && s->n > 2)
		return kt_usage_error(ctx, NULL,
				      "the kernel sorts by at most 2 fields");
	return ret;
}

int kt_hist_size_parse(struct kt_ctx *ctx, const char *arg, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	/* the kernel rounds up to a power of two and takes 128 to 128Ki */
	if (errno || end == arg || *end || v < 128 || v > (1u << 17))
		return kt_usage_error(ctx, NULL,
				      "bad --size '%s' (table entries, 128 to 131072)",
				      arg);
	*out = v;
	return KT_OK;
}

/* An option a recipe set, given again on the command line: the
 * recipe's value goes. */
static void recipe_override(struct hist_cmd *hc, int opt)
{
	if (hc->in_recipe || opt < 0 || opt >= 512 || !hc->from_recipe[opt])
		return;
	hc->from_recipe[opt] = false;
	if (opt == 'k')
		kt_strv_free(&hc->keys);
	else if (opt == 'v')
		kt_strv_free(&hc->vals);
	else if (opt == 's')
		kt_strv_free(&hc->sort);
	else if (opt == 'e')	/* its --filter goes with it */
		kt_capture_opts_free(&hc->co);
	else if (opt == OPT_FILTER && hc->co.nspecs)
		hc->co.filters[0] = NULL;
}

/* One option of hist's own, or of the shared capture ones. */
static int hist_opt(struct hist_cmd *hc, int opt, const char *arg)
{
	struct kt_ctx *ctx = hc->ctx;
	int ret;

	recipe_override(hc, opt);
	if (hc->in_recipe && opt >= 0 && opt < 512)
		hc->from_recipe[opt] = true;
	switch (opt) {
	case 'k':
		return kt_strv_add_list(ctx, &hc->keys, "key", arg);
	case 'v':
		return kt_strv_add_list(ctx, &hc->vals, "value", arg);
	case 's':
		return sort_add(ctx, hc, arg);
	case OPT_SIZE:
		return kt_hist_size_parse(ctx, arg, &hc->size);
	case 'I':
		return kt_interval_parse(ctx, arg, &hc->interval);
	case 'j':
		ctx->json = true;
		return KT_OK;
	case 'e':
		if (hc->co.nspecs)
			return kt_usage_error(ctx, NULL,
					      "hist counts one event: one -e");
		break;
	}
	ret = kt_capture_opt(ctx, &hc->co, opt, arg);
	if (ret < 0)
		ret = kt_usage_error(ctx, hist_usage, "bad option");
	return ret;
}

static int hist_recipe_opt(void *arg, int opt, const char *val)
{
	struct hist_cmd *hc = arg;

	if (opt == 'p' || opt == 'a' || opt == 'r' || opt == 'h' ||
	    opt == OPT_LIST_RECIPES)
		return kt_usage_error(hc->ctx, NULL,
				      "a recipe says what to count, not whom or how long: no '%c' in it",
				      opt < 128 ? opt : '-');
	return hist_opt(hc, opt, val);
}

static int hist_parse(struct hist_cmd *hc, int argc, char **argv)
{
	struct kt_ctx *ctx = hc->ctx;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+:e:k:v:s:p:ad:I:r:jh",
				  hist_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(hist_usage, ctx->out);
			return KT_OK;
		case 'r':
			hc->in_recipe = true;
			ret = kt_recipe_apply(ctx, optarg, hist_opts,
					      hist_recipe_opt, hc, &hc->recipes);
			hc->in_recipe = false;
			if (ret)
				return ret;
			continue;
		case OPT_LIST_RECIPES:
			return kt_recipe_list(ctx, "hist");
		case '?':
		case ':':
			return kt_bad_option(ctx, hist_usage, opt,
					     argv[optind - 1]);
		}
		ret = hist_opt(hc, opt, optarg);
		if (ret)
			return ret;
	}
	ret = kt_target_check(ctx, &hc->co.tg, argc - optind, argv + optind);
	if (ret)
		return ret;
	if (!hc->co.nspecs)
		return kt_usage_error(ctx, hist_usage,
				      "which event? (-e SYSTEM:EVENT)");
	return -1;
}

/* ------------------------------------------------------------ setup */

static int add_event(void *arg, int i, const char *name)
{
	struct hist_cmd *hc = arg;

	(void)i;
	if (hc->event[0])
		return kt_error(hc->ctx, KT_USAGE,
				"hist counts one event: '%s' names %s, %s...",
				hc->co.specs[0], hc->event, name);
	snprintf(hc->event, sizeof(hc->event), "%s", name);
	return KT_OK;
}

/* Which keys are string fields (a comm of digits is still a string). */
static int key_types(struct hist_cmd *hc)
{
	const char *glob = hc->event;
	struct ktrace_events *evs = ktrace_events_alloc(hc->ctx->tfs, &glob,
							1, NULL);
	const struct ktrace_event *e;
	int n = hc->keys.n;

	hc->key_is_str = calloc(n + 1, sizeof(*hc->key_is_str));
	if (!evs || !hc->key_is_str || ktrace_events_load_formats(evs) < 0 ||
	    ktrace_events_count(evs) != 1) {
		ktrace_events_free(evs);
		return hc->key_is_str ? KT_OK : kt_error(hc->ctx, KT_FAIL,
							 "out of memory");
	}
	e = ktrace_events_get(evs, 0);
	for (int k = 0; k < n; k++) {
		size_t len = strcspn(hc->keys.v[k], ".");

		for (int f = 0; e && f < e->nr_fields; f++)
			if (strlen(e->fields[f].name) == len &&
			    !strncmp(e->fields[f].name, hc->keys.v[k], len))
				hc->key_is_str[k] =
					strstr(e->fields[f].type, "char") &&
					strchr(e->fields[f].type, '[');
	}
	ktrace_events_free(evs);
	return KT_OK;
}

/* The trigger line: the keys ("stack" is the kernel's stacktrace), the
 * values, the sort (hitcount descending unless a histogram or the user
 * says otherwise), size and filter. */
static int build_trigger(struct hist_cmd *hc)
{
	static const char *const total_key[] = { "common_type" };
	static const char *const by_hits[] = { "hitcount.descending" };
	struct kt_hist_def d = { 0 };
	bool hist_key = false;

	for (int k = 0; k < hc->keys.n; k++) {
		char *key = hc->keys.v[k];

		if (!strcmp(key, "stack")) {
			free(key);
			key = hc->keys.v[k] = strdup("stacktrace");
			if (!key)
				return kt_error(hc->ctx, KT_FAIL, "out of memory");
		}
		if (strstr(key, ".log2") || strstr(key, ".buckets")) {
			if (hist_key)
				return kt_usage_error(hc->ctx, NULL,
						      "one histogram key (.log2 or .buckets) at a time");
			hist_key = true;
		}
	}
	hc->total_only = !hc->keys.n;
	d.keys = hc->keys.n ? (const char *const *)hc->keys.v : total_key;
	d.nkeys = hc->keys.n ? hc->keys.n : 1;
	d.vals = (const char *const *)hc->vals.v;
	d.nvals = hc->vals.n;
	d.sort = hc->sort.n ? (const char *const *)hc->sort.v :
		 hist_key || hc->total_only ? NULL : by_hits;
	d.nsort = hc->sort.n ? hc->sort.n : d.sort ? 1 : 0;
	d.size = hc->size;
	d.filter = hc->co.filters ? hc->co.filters[0] : NULL;
	hc->trigger = kt_hist_trigger_text(&d);
	if (!hc->trigger)
		return errno == EINVAL ?
		       kt_usage_error(hc->ctx, NULL,
				      "bad key, value or filter: no ':', spaces or newlines in names, a filter is one line") :
		       kt_error(hc->ctx, KT_FAIL, "out of memory");
	return KT_OK;
}

static void print_totals_only(FILE *f, const struct kt_hist_table *t)
{
	uint64_t v;

	for (int j = 0; j < t->nvals; j++) {
		v = 0;
		for (size_t i = 0; i < t->n; i++)
			v += t->v[i].vals[j];
		fprintf(f, "%20" PRIu64 "  %s\n", v, t->vals[j]);
	}
}

static void print_json(struct hist_cmd *hc, const struct kt_hist_table *t,
		       double at)
{
	struct kt_json *j = kt_json(hc->ctx);
	struct kt_hist_table shown = *t;

	if (!j)
		return;
	if (hc->total_only)
		shown.nkeys = 0;	/* the hidden one-value key */
	kt_json_object_begin(j);
	if (hc->interval) {
		kt_json_key(j, "time");
		kt_json_double(j, at);
	}
	kt_jstr(j, "event", hc->event);
	kt_jstr(j, "trigger", hc->trigger);
	kt_jstr(j, "target", hc->what);
	kt_histview_json(j, &shown, hc->key_is_str);
	kt_json_object_end(j);
}

static void print_text(struct hist_cmd *hc, const struct kt_hist_table *t,
		       double at)
{
	FILE *f = hc->ctx->out;

	if (hc->interval)
		fprintf(f, "\n%.6f  %s\n", at, hc->event);
	else
		fprintf(f, "\n%s (%s) counted in the kernel: %s\n\n",
			hc->event, hc->what, hc->trigger);
	if (hc->total_only)
		print_totals_only(f, t);
	else
		kt_histview_text(f, t);
	if (hc->total_only)
		fprintf(f, "\nTotals: %" PRIu64 " hits, %" PRIu64
			" dropped\n", t->hits, t->dropped);
}

static int hist_print(void *arg, const struct kt_hist_table *t, double at)
{
	struct hist_cmd *hc = arg;

	if (hc->ctx->json)
		print_json(hc, t, at);
	else
		print_text(hc, t, at);
	return KT_OK;
}

static int hist_setup(struct hist_cmd *hc)
{
	struct kt_ctx *ctx = hc->ctx;
	struct ktrace_err err = { .pos = -1 };
	char *colon;
	int ret;

	/* what a killed ktrace left: its instance, then its probes */
	ktrace_probe_cleanup_stale(ctx->tfs);
	ret = kt_events_expand(ctx, &hc->inl, hc->co.specs, 1, add_event, hc);
	if (ret)
		return ret;
	colon = strchr(hc->event, ':');
	hc->sys = strndup(hc->event, colon - hc->event);
	hc->ev = strdup(colon + 1);
	if (!hc->sys || !hc->ev)
		return kt_error(ctx, KT_FAIL, "out of memory");
	ret = build_trigger(hc);
	if (!ret)
		ret = key_types(hc);
	if (!ret)
		ret = kt_target_prepare(ctx, &hc->co.tg, !hc->co.tg.argc);
	if (ret)
		return ret;
	kt_target_describe(&hc->co.tg, hc->what, sizeof(hc->what));
	/* a kernel without hist triggers: said before anything is made */
	if (kt_hist_check(kt_tfs_top(ctx->tfs), hc->sys, hc->ev, &err)) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	hc->hr = (struct kt_hrun){
		.ctx = ctx, .tg = &hc->co.tg, .duration = hc->co.duration,
		.interval = hc->interval, .what = hc->what, .sys = hc->sys,
		.ev = hc->ev, .trigger = hc->trigger, .print = hist_print,
		.arg = hc, .pidfd = -1,
	};
	hc->hr.inst = kt_own_inst_create(ctx->tfs);
	if (!hc->hr.inst)
		return kt_error(ctx, KT_FAIL, "cannot create an instance: %s%s",
				strerror(errno), kt_priv_hint(errno));
	ret = kt_hrun_limit(&hc->hr);
	if (ret)
		return ret;
	if (kt_hist_start(ctx->tfs, hc->hr.inst, hc->sys, hc->ev, hc->trigger,
			  &err)) {
		/* refused without a word in error_log: say what it counts */
		if (!err.klog && err.msg && (hc->keys.n > 3 || hc->vals.n > 2)) {
			char *m;

			if (asprintf(&m, "%s (the kernel takes at most 3 keys and 3 values, hitcount included)",
				     err.msg) >= 0) {
				free(err.msg);
				err.msg = m;
			}
		}
		ret = kt_error_detail(ctx, err.syntax ? KT_USAGE : KT_FAIL,
				      &err);
		ktrace_err_clear(&err);
		return ret;
	}
	hc->started = true;
	return KT_OK;
}

static int hist_run(struct hist_cmd *hc, bool *stopped)
{
	int ret = hist_setup(hc);

	if (ret)
		return ret;
	ret = kt_hrun_loop(&hc->hr, stopped);
	kt_inline_report_misses(hc->ctx, &hc->inl);
	return ret;
}

/* Take back what the run made: the trigger (by its text), the instance;
 * the inline probes after them (kt_inline_destroy()). */
static int hist_teardown(struct hist_cmd *hc)
{
	int ret = KT_OK, r;

	if (hc->started) {
		r = kt_hist_stop(hc->hr.inst, hc->sys, hc->ev, hc->trigger);
		if (r)
			ret = kt_error(hc->ctx, KT_FAIL,
				       "cannot remove the hist trigger on %s: %s",
				       hc->event, strerror(-r));
	}
	if (kt_hrun_destroy(&hc->hr))
		ret = KT_FAIL;
	return ret;
}

static void hist_free(struct hist_cmd *hc)
{
	kt_strv_free(&hc->keys);
	kt_strv_free(&hc->vals);
	kt_strv_free(&hc->sort);
	free(hc->sys);
	free(hc->ev);
	free(hc->key_is_str);
	free(hc->trigger);
	kt_capture_opts_free(&hc->co);
	kt_recipe_free(hc->recipes);
}

int cmd_hist(struct kt_ctx *ctx, int argc, char **argv)
{
	struct hist_cmd hc = { .ctx = ctx, .co = KT_CAPTURE_OPTS_INIT,
			       .hr = { .pidfd = -1 } };
	struct kt_target *tg = &hc.co.tg;
	bool stopped = false;
	int ret, status;

	ret = hist_parse(&hc, argc, argv);
	if (ret >= 0)
		goto out;
	if (!kt_tfs(ctx)) {
		ret = KT_FAIL;
		goto out;
	}
	kt_signals_install(&hc.sigs);
	ret = hist_run(&hc, &stopped);
out:
	status = kt_target_finish(tg, kt_stop_signal || ret || stopped);
	/* the trigger holds its event: it goes before the inline probes */
	if (hist_teardown(&hc) && !ret)
		ret = KT_FAIL;
	kt_inline_destroy(ctx, &hc.inl);
	kt_signals_restore(&hc.sigs);
	hist_free(&hc);
	return kt_target_status(tg, ret, status, stopped);
}

/* The histogram key's field ("ret" of "ret.log2"), or NULL. */
static const char *hist_key_field(const struct kt_strv *keys, size_t *len)
{
	for (int k = 0; k < keys->n; k++)
		if (strstr(keys->v[k], ".log2") ||
		    strstr(keys->v[k], ".buckets")) {
			*len = strcspn(keys->v[k], ".");
			return keys->v[k];
		}
	return NULL;
}

int kt_hist_recipe_load(struct kt_ctx *ctx, const char *name,
			struct kt_inline *inl, struct kt_hist_recipe *out)
{
	struct hist_cmd hc = { .ctx = ctx, .co = KT_CAPTURE_OPTS_INIT };
	const char *hkey;
	size_t len = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	hc.in_recipe = true;
	ret = kt_recipe_apply(ctx, name, hist_opts, hist_recipe_opt, &hc,
			      &hc.recipes);
	if (!ret && !hc.co.nspecs)
		ret = kt_usage_error(ctx, NULL, "recipe '%s' names no event",
				     name);
	if (!ret)
		ret = kt_events_expand(ctx, inl, hc.co.specs, 1, add_event,
				       &hc);
	hkey = hist_key_field(&hc.keys, &len);
	/* the field summed too: the histogram's _sum, exact */
	if (!ret && hkey && asprintf(&out->sum, "%.*s", (int)len, hkey) < 0)
		ret = kt_error(ctx, KT_FAIL, "out of memory");
	for (int v = 0; !ret && out->sum; v++) {
		if (v == hc.vals.n) {
			ret = kt_strv_add_list(ctx, &hc.vals, "value",
					       out->sum);
			break;
		}
		if (!strcmp(hc.vals.v[v], out->sum))
			break;
	}
	if (!ret)
		ret = build_trigger(&hc);
	if (!ret) {
		out->event = strdup(hc.event);
		out->trigger = hc.trigger;
		hc.trigger = NULL;
		out->total_only = hc.total_only;
		if (!out->event)
			ret = kt_error(ctx, KT_FAIL, "out of memory");
	}
	hist_free(&hc);
	if (ret)
		kt_hist_recipe_free(out);
	return ret;
}

void kt_hist_recipe_free(struct kt_hist_recipe *r)
{
	free(r->event);
	free(r->trigger);
	free(r->sum);
	memset(r, 0, sizeof(*r));
}
