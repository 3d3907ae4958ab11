// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktrace latency: the time between two events, paired and measured in the
 * kernel. A synthetic event of ktrace's own carries each pair's latency
 * (µs) from the end event's trigger (onmatch(START).trace()), the start
 * event's trigger keeps its timestamp by the match key, a hist trigger on
 * the synthetic event draws the distribution, and the end event's
 * onmax().save() keeps the worst case with its context. All of it in an
 * instance of ktrace's own, removed with the synthetic event and any
 * inline probe at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"
#include "tracefs/synth.h"

static const char latency_usage[] =
	"Usage: ktrace latency --from EVENT --to EVENT [--match FIELD[=FIELD]]\n"
	"                      [--from-filter EXPR] [--to-filter EXPR] [options]\n"
	"       ktrace latency --wakeup | --syscall NAME|all | -f FUNC [-x BINARY] [options]\n"
	"options: [-k KEY[,KEY...]] [--buckets USECS] [-p PID... | -a | -- CMD ARGS...]\n"
	"         [-d SECS] [-I MS] [--json] [--record [--threshold DUR] [-g]]\n"
	"The distribution of the time (microseconds) between each start event and\n"
	"the end event that matches it, paired and counted in the kernel, and the\n"
	"worst case with its context. Events: tracepoints, probes, inline probes as\n"
	"in record.\n"
	"\n"
	"      --from EVENT        the start event\n"
	"      --to EVENT          the end event\n"
	"      --match F1[=F2]     pair a start whose F1 equals the end's F2\n"
	"                          (default common_pid: the same task)\n"
	"      --from-filter EXPR  only start events matching EXPR\n"
	"      --to-filter EXPR    only end events matching EXPR\n"
	"      --wakeup            run-queue latency: sched_waking to the task's\n"
	"                          sched_switch in (runqlat, perf sched latency)\n"
	"      --syscall NAME|all  a system call's latency, entry to exit\n"
	"  -f, --func FUNC         a kernel function's latency (kprobe to kretprobe);\n"
	"                          with -x a user function's (uprobe to uretprobe)\n"
	"  -x, --exe BINARY        the binary or library of -f's function\n"
	"  -k, --key KEYS          split by keys: pid, common_pid.execname, cpu, comm\n"
	"                          (--wakeup), id.syscall (--syscall all), a field of\n"
	"                          the end event\n"
	"      --buckets USECS     linear buckets of USECS instead of log2\n"
	"      --size N            entries of each table: tasks (or match values)\n"
	"                          in flight, pairs' keys (the kernel's default 2048)\n"
	"  -p, --pid PID           only these processes (and their threads)\n"
	"  -a, --all-cpus          system-wide (the default without CMD or -p)\n"
	"  -d, --duration SECS     stop after SECS seconds\n"
	"  -I, --interval MS       print the distribution of each interval\n"
	"      --record            print each pair as a record as it comes (read\n"
	"                          from ktrace's instance: perf cannot open\n"
	"                          synthetic events), then the distribution\n"
	"      --threshold DUR     --record only pairs that took DUR or longer\n"
	"                          (100us, 2ms; microseconds without a unit)\n"
	"  -g, --call-graph        --record: the kernel stack where each pair\n"
	"                          ended (the end event's context)\n"
	"  -j, --json              JSON output\n"
	"  -h, --help              this help\n";

enum {
	OPT_FROM = 256, OPT_TO, OPT_MATCH, OPT_FROM_FILTER, OPT_TO_FILTER,
	OPT_WAKEUP, OPT_SYSCALL, OPT_BUCKETS, OPT_SIZE, OPT_RECORD,
	OPT_THRESHOLD,
};

static const struct option latency_opts[] = {
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "match", required_argument, NULL, OPT_MATCH },
	{ "from-filter", required_argument, NULL, OPT_FROM_FILTER },
	{ "to-filter", required_argument, NULL, OPT_TO_FILTER },
	{ "wakeup", no_argument, NULL, OPT_WAKEUP },
	{ "syscall", required_argument, NULL, OPT_SYSCALL },
	{ "func", required_argument, NULL, 'f' },
	{ "exe", required_argument, NULL, 'x' },
	{ "key", required_argument, NULL, 'k' },
	{ "buckets", required_argument, NULL, OPT_BUCKETS },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "interval", required_argument, NULL, 'I' },
	{ "json", no_argument, NULL, 'j' },
	{ "record", no_argument, NULL, OPT_RECORD },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "call-graph", no_argument, NULL, 'g' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One end of the pair. */
struct lat_end {
	char *spec;			/* as given, or made from a question */
	const char *filter;
	char *match;			/* the field compared */
	char name[160];			/* "system:event" */
	char *sys, *ev;
	char *trigger;			/* the line written on it */
	bool started;
	uint64_t dropped_said;		/* its table's drops, said */
};

struct lat_cmd {
	struct kt_ctx *ctx;
	struct kt_capture_opts co;	/* the target, -d (-e unused) */
	struct lat_end from, to;
	const char *question;		/* "wakeup", "syscall", "func" */
	const char *syscall, *func, *exe;
	struct kt_strv keys;
	unsigned int buckets;
	unsigned int size;		/* --size: of the three tables */
	long interval;
	struct kt_inline inl;
	struct kt_signals sigs;
	char what[512];
	char synth[64];			/* the synthetic event's name */
	bool synth_made;
	char *synth_trigger;
	bool synth_started;
	const char *pid_field;		/* the end event's field of the task */
	char pid_type[64];		/* its type */
	char *wake_filter;		/* --wakeup of a target: its tasks */
	char *save;			/* onmax().save()'s fields */
	struct kt_strv extra;		/* end-event fields carried (keys) */
	struct kt_strv extra_types;
	struct kt_hrun hr;
	struct kt_rawrec rec;	/* --record */
	bool sum_lat;		/* export: lat summed too (_sum) */
	/* --wakeup -- CMD: the command's tree, from a hist of its forks */
	bool tree, tree_key;	/* counted by pid, pid key of ktrace's */
	char *fork_trigger;
	bool fork_started;
	int *tree_pids, ntree;	/* sorted */
	uint64_t fork_dropped;
};

static int set_str(struct kt_ctx *ctx, char **dst, const char *s)
{
	free(*dst);
	*dst = strdup(s);
	return *dst ? KT_OK : kt_error(ctx, KT_FAIL, "out of memory");
}

static int buckets_parse(struct kt_ctx *ctx, const char *arg,
			 unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > 100000000)
		return kt_usage_error(ctx, NULL,
				      "bad --buckets '%s' (microseconds, 1 to 100000000)",
				      arg);
	*out = v;
	return KT_OK;
}

/* One question a run: --wakeup, --syscall, -f. */
static int set_question(struct lat_cmd *lc, const char *q)
{
	if (lc->question && strcmp(lc->question, q))
		return kt_usage_error(lc->ctx, NULL,
				      "one question at a time: --%s and --%s",
				      lc->question, q);
	if (lc->question)
		return kt_usage_error(lc->ctx, NULL, "--%s given twice", q);
	lc->question = q;
	return KT_OK;
}

static int lat_opt(struct lat_cmd *lc, int opt, const char *arg)
{
	struct kt_ctx *ctx = lc->ctx;
	int ret;

	switch (opt) {
	case OPT_FROM:
		return set_str(ctx, &lc->from.spec, arg);
	case OPT_TO:
		return set_str(ctx, &lc->to.spec, arg);
	case OPT_MATCH: {
		const char *eq = strchr(arg, '=');

		ret = set_str(ctx, &lc->from.match, arg);
		if (!ret && eq)
			lc->from.match[eq - arg] = '\0';
		return ret ? ret : set_str(ctx, &lc->to.match, eq ? eq + 1 :
					   arg);
	}
	case OPT_FROM_FILTER:
		lc->from.filter = arg;
		return KT_OK;
	case OPT_TO_FILTER:
		lc->to.filter = arg;
		return KT_OK;
	case OPT_WAKEUP:
		return set_question(lc, "wakeup");
	case OPT_SYSCALL:
		lc->syscall = arg;
		return set_question(lc, "syscall");
	case 'f':
		lc->func = arg;
		return set_question(lc, "func");
	case OPT_SIZE:
		return kt_hist_size_parse(ctx, arg, &lc->size);
	case 'x':
		lc->exe = arg;
		return KT_OK;
	case 'k':
		return kt_strv_add_list(ctx, &lc->keys, "key", arg);
	case OPT_BUCKETS:
		return buckets_parse(ctx, arg, &lc->buckets);
	case 'I':
		return kt_interval_parse(ctx, arg, &lc->interval);
	case 'j':
		ctx->json = true;
		return KT_OK;
	case OPT_RECORD:
		lc->rec.on = true;
		return KT_OK;
	case OPT_THRESHOLD:
		return kt_duration_parse(ctx, "--threshold", arg, "us",
					 &lc->rec.threshold);
	case 'g':
		lc->rec.stacks = true;
		return KT_OK;
	}
	ret = kt_capture_opt(ctx, &lc->co, opt, arg);
	if (ret < 0)
		ret = kt_usage_error(ctx, latency_usage, "bad option");
	return ret;
}

/* The ready-made questions as start and end events. */
static int lat_question(struct lat_cmd *lc)
{
	struct kt_ctx *ctx = lc->ctx;
	char *a = NULL, *b = NULL;
	int ret = KT_OK;

	if (!strcmp(lc->question, "wakeup")) {
		a = strdup("sched:sched_waking");
		b = strdup("sched:sched_switch");
		lc->from.match = strdup("pid");
		lc->to.match = strdup("next_pid");
	} else if (!strcmp(lc->question, "syscall")) {
		if (!strcmp(lc->syscall, "all")) {
			a = strdup("raw_syscalls:sys_enter");
			b = strdup("raw_syscalls:sys_exit");
		} else if (kt_name_check(lc->syscall)) {
			return kt_usage_error(ctx, NULL,
					      "bad system call name '%s'",
					      lc->syscall);
		} else if (asprintf(&a, "syscalls:sys_enter_%s",
				    lc->syscall) < 0 ||
			   asprintf(&b, "syscalls:sys_exit_%s",
				    lc->syscall) < 0) {
			a = b = NULL;
		}
	} else if (lc->exe) {
		if (asprintf(&a, "uprobe:%s:%s", lc->exe, lc->func) < 0 ||
		    asprintf(&b, "uretprobe:%s:%s", lc->exe, lc->func) < 0)
			a = b = NULL;
	} else if (asprintf(&a, "kprobe:%s", lc->func) < 0 ||
		   asprintf(&b, "kretprobe:%s", lc->func) < 0) {
		a = b = NULL;
	}
	if (!a || !b)
		ret = kt_error(ctx, KT_FAIL, "out of memory");
	lc->from.spec = a;
	lc->to.spec = b;
	return ret;
}

static int lat_parse(struct lat_cmd *lc, int argc, char **argv)
{
	struct kt_ctx *ctx = lc->ctx;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+:f:x:k:p:ad:I:jgh",
				  latency_opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(latency_usage, ctx->out);
			return KT_OK;
		}
		if (opt == '?' || opt == ':')
			return kt_bad_option(ctx, latency_usage, opt,
					     argv[optind - 1]);
		ret = lat_opt(lc, opt, optarg);
		if (ret)
			return ret;
	}
	ret = kt_target_check(ctx, &lc->co.tg, argc - optind, argv + optind);
	if (ret)
		return ret;
	if ((lc->rec.threshold || lc->rec.stacks) && !lc->rec.on)
		return kt_usage_error(ctx, NULL,
				      "--threshold and -g are options of --record");
	if (lc->exe && !lc->func)
		return kt_usage_error(ctx, NULL,
				      "-x BINARY names where -f's function is");
	if (lc->co.tg.npids > 64 && lc->question &&
	    !strcmp(lc->question, "wakeup"))
		return kt_usage_error(ctx, NULL,
				      "--wakeup follows at most 64 -p tasks");
	if (lc->question && (lc->from.spec || lc->to.spec))
		return kt_usage_error(ctx, NULL,
				      "--%s or --from/--to, not both",
				      lc->question);
	if (lc->question && (lc->from.match || lc->from.filter ||
			     lc->to.filter) && !strcmp(lc->question, "wakeup"))
		return kt_usage_error(ctx, NULL,
				      "--wakeup pairs by itself: no --match or filters");
	if (lc->question)
		return lat_question(lc) ? KT_FAIL : -1;
	if (!lc->from.spec || !lc->to.spec)
		return kt_usage_error(ctx, latency_usage,
				      "which events? (--from and --to, or a question: --wakeup, --syscall, -f)");
	return -1;
}

/* ------------------------------------------------------------ setup */

static int add_end(void *arg, int i, const char *name)
{
	struct lat_cmd *lc = arg;
	struct lat_end *e = i ? &lc->to : &lc->from;

	if (e->name[0])
		return kt_error(lc->ctx, KT_USAGE,
				"latency pairs two events: '%s' names %s, %s...",
				e->spec, e->name, name);
	snprintf(e->name, sizeof(e->name), "%s", name);
	return KT_OK;
}

static int split_name(struct kt_ctx *ctx, struct lat_end *e)
{
	const char *colon = strchr(e->name, ':');

	e->sys = strndup(e->name, colon - e->name);
	e->ev = strdup(colon + 1);
	if (!e->match)
		e->match = strdup("common_pid");
	return e->sys && e->ev && e->match ? KT_OK :
	       kt_error(ctx, KT_FAIL, "out of memory");
}

/* The synthetic type of an end-event field: its own type (the kernel
 * compares the names: common_pid is "int", next_pid "pid_t"), "char[N]"
 * for a char array; NULL for what a synthetic event cannot carry. */
static const char *synth_type(const struct ktrace_field *f, char *buf,
			      size_t len)
{
	const char *br = strchr(f->type, '[');

	if (strstr(f->type, "__data_loc") || strchr(f->type, '*'))
		return NULL;
	if (br && !strncmp(f->type, "char", 4)) {
		snprintf(buf, len, "char[%d]", f->size);
		return buf;
	}
	if (br || f->size > 8)
		return NULL;	/* arrays, structs */
	snprintf(buf, len, "%s", f->type);
	return buf;
}

/* Which end-event field a key names, as carried by the synthetic event:
 * NULL for the ones it has anyway (pid, cpu, common_pid) or lat. */
static const char *key_base(struct lat_cmd *lc, const char *key, char *buf,
			    size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(key, "."), key);
	if (!strcmp(buf, "pid") || !strcmp(buf, "cpu") ||
	    !strcmp(buf, "common_pid") || !strcmp(buf, "lat"))
		return NULL;
	if (!strcmp(buf, "comm") && lc->question &&
	    !strcmp(lc->question, "wakeup"))
		return "next_comm";
	return buf;
}

/* The end event's fields the keys need, with their synthetic types. */
static int carried_fields(struct lat_cmd *lc)
{
	const char *glob = lc->to.name;
	struct ktrace_events *evs = ktrace_events_alloc(lc->ctx->tfs, &glob, 1,
							NULL);
	const struct ktrace_event *e = NULL;
	int ret = KT_OK;

	if (evs && ktrace_events_load_formats(evs) >= 0 &&
	    ktrace_events_count(evs) == 1)
		e = ktrace_events_get(evs, 0);
	for (int f = 0; e && f < e->nr_fields; f++) {
		char tbuf[64];

		if (!strcmp(e->fields[f].name, lc->pid_field) &&
		    synth_type(&e->fields[f], tbuf, sizeof(tbuf)))
			snprintf(lc->pid_type, sizeof(lc->pid_type), "%s",
				 tbuf);
	}
	for (int k = 0; !ret && k < lc->keys.n; k++) {
		char base[130], tbuf[64];
		const char *src = key_base(lc, lc->keys.v[k], base,
					   sizeof(base)), *type = NULL;

		if (!src)
			continue;
		for (int f = 0; e && f < e->nr_fields; f++)
			if (!strcmp(e->fields[f].name, src))
				type = synth_type(&e->fields[f], tbuf,
						  sizeof(tbuf));
		if (!type) {
			ret = kt_usage_error(lc->ctx, NULL,
					     "key '%s': %s has no field '%s' a synthetic event can carry (numbers and char arrays)",
					     lc->keys.v[k], lc->to.name, src);
			break;
		}
		ret = kt_strv_add_list(lc->ctx, &lc->extra, "key", src);
		if (!ret)
			ret = kt_strv_add_list(lc->ctx, &lc->extra_types,
					       "key", type);
	}
	ktrace_events_free(evs);
	return ret;
}

/* The type and size of field in event (SYS:EV): KT_OK, KT_FAIL when the
 * event's format cannot be read, -1 when it has no such field. */
static int field_type(struct lat_cmd *lc, const char *event,
		      const char *field, char *type, size_t len, int *size)
{
	struct ktrace_events *evs = ktrace_events_alloc(lc->ctx->tfs, &event,
							1, NULL);
	const struct ktrace_event *e;
	int ret = -1;

	if (!evs || ktrace_events_load_formats(evs) < 0 ||
	    ktrace_events_count(evs) != 1) {
		ktrace_events_free(evs);
		return kt_error(lc->ctx, KT_FAIL, "cannot read the format of %s",
				event);
	}
	e = ktrace_events_get(evs, 0);
	for (int f = 0; e && f < e->nr_fields && ret; f++) {
		if (strcmp(e->fields[f].name, field))
			continue;
		snprintf(type, len, "%s", e->fields[f].type);
		*size = e->fields[f].size;
		ret = KT_OK;
	}
	ktrace_events_free(evs);
	return ret;
}

/*
 * The two match fields hold the same kind of value: the kernel takes a
 * pairing of an int with a string and then never matches. Unknown fields
 * are left to the kernel, which says so with its caret.
 */
static int match_check(struct lat_cmd *lc)
{
	char ta[96], tb[96];
	int sa = 0, sb = 0, ra, rb;
	bool stra, strb;

	ra = field_type(lc, lc->from.name, lc->from.match, ta, sizeof(ta),
			&sa);
	rb = field_type(lc, lc->to.name, lc->to.match, tb, sizeof(tb), &sb);
	if (ra > 0 || rb > 0)
		return KT_FAIL;
	if (ra < 0 || rb < 0)
		return KT_OK;
	stra = strstr(ta, "char") && (strchr(ta, '[') || strchr(ta, '*'));
	strb = strstr(tb, "char") && (strchr(tb, '[') || strchr(tb, '*'));
	if (stra != strb || (!stra && sa != sb))
		return kt_usage_error(lc->ctx, NULL,
				      "--match %s=%s: %s's %s (%s) and %s's %s (%s) are not the same kind of value",
				      lc->from.match, lc->to.match,
				      lc->from.name, lc->from.match, ta,
				      lc->to.name, lc->to.match, tb);
	return KT_OK;
}

/* "NAME u64 lat; pid_t pid; TYPE FIELD..." */
static char *synth_def(struct lat_cmd *lc)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fprintf(f, "%s u64 lat; %s pid", lc->synth,
		lc->pid_type[0] ? lc->pid_type : "int");
	for (int i = 0; i < lc->extra.n; i++) {
		const char *t = lc->extra_types.v[i];

		if (!strncmp(t, "char[", 5))
			fprintf(f, "; char %s%s", lc->extra.v[i], t + 4);
		else
			fprintf(f, "; %s %s", t, lc->extra.v[i]);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* A trigger line of kt_hist_trigger_text() with the parts it does not
 * build (variables, actions) after the keys. */
static char *trigger_with(const char *key, const char *parts,
			  const char *filter, unsigned int size)
{
	const char *keys[] = { key };
	struct kt_hist_def d = { .keys = keys, .nkeys = 1, .extra = parts,
				 .filter = filter, .size = size };

	return kt_hist_trigger_text(&d);
}

/* The three trigger lines: the start keeps its time by the match key, the
 * end makes the synthetic event (and keeps the worst), the synthetic
 * event's hist draws the distribution. */
static int lat_triggers(struct lat_cmd *lc)
{
	static const char *const lat_val[] = { "lat" };
	char *end = NULL, *params = NULL, keybuf[160];
	struct kt_strv keys = { 0 };
	struct kt_hist_def d = { 0 };
	int ret = KT_OK;

	lc->from.trigger = trigger_with(lc->from.match,
					"ts0=common_timestamp.usecs",
					lc->from.filter, lc->size);
	params = kt_strv_join(&lc->extra, ",", ",");
	if (params && asprintf(&end,
			       "lat=common_timestamp.usecs-$ts0:onmatch(%s.%s).trace(%s,$lat,%s%s):onmax($lat).save(%s)",
			       lc->from.sys, lc->from.ev, lc->synth,
			       lc->pid_field, params, lc->save) < 0)
		end = NULL;
	lc->to.trigger = end ? trigger_with(lc->to.match, end, lc->to.filter,
					    lc->size) : NULL;
	if (lc->tree) {
		lc->tree_key = true;
		for (int k = 0; k < lc->keys.n; k++)
			if (!strncmp(lc->keys.v[k], "pid", 3) &&
			    strchr(".", lc->keys.v[k][3]))
				lc->tree_key = false;
		if (lc->tree_key)
			ret = kt_strv_add_list(lc->ctx, &keys, "key", "pid");
		lc->fork_trigger = trigger_with("child_pid", NULL, NULL,
						lc->size);
		if (!lc->fork_trigger)
			ret = kt_error(lc->ctx, KT_FAIL, "out of memory");
	}
	for (int k = 0; !ret && k < lc->keys.n; k++) {
		char base[130];
		const char *src = key_base(lc, lc->keys.v[k], base,
					   sizeof(base));
		const char *mod = lc->keys.v[k] + strcspn(lc->keys.v[k], ".");

		snprintf(keybuf, sizeof(keybuf), "%s%s",
			 src ? src : base, mod);
		ret = kt_strv_add_list(lc->ctx, &keys, "key", keybuf);
	}
	if (lc->buckets)
		snprintf(keybuf, sizeof(keybuf), "lat.buckets=%u",
			 lc->buckets);
	else
		snprintf(keybuf, sizeof(keybuf), "lat.log2");
	if (!ret)
		ret = kt_strv_add_list(lc->ctx, &keys, "key", keybuf);
	d.keys = (const char *const *)keys.v;
	d.nkeys = keys.n;
	d.size = lc->size;
	d.vals = lc->sum_lat ? lat_val : NULL;
	d.nvals = lc->sum_lat;
	lc->synth_trigger = ret ? NULL : kt_hist_trigger_text(&d);
	if (!ret && (!lc->from.trigger || !lc->to.trigger ||
		     !lc->synth_trigger))
		ret = kt_usage_error(lc->ctx, NULL,
				     "bad match field, key or filter: no ':', spaces or newlines in names, a filter is one line");
	kt_strv_free(&keys);
	free(params);
	free(end);
	return ret;
}

/* Start one trigger of the run; errors printed with the kernel's caret. */
static int start_one(struct lat_cmd *lc, const char *sys, const char *ev,
		     const char *text, bool *started)
{
	struct ktrace_err err = { .pos = -1 };
	int ret;

	if (!kt_hist_start(lc->ctx->tfs, lc->hr.inst, sys, ev, text, &err)) {
		*started = true;
		return KT_OK;
	}
	ret = kt_error_detail(lc->ctx, KT_FAIL, &err);
	ktrace_err_clear(&err);
	return ret;
}

static int by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * --wakeup -- CMD: the tasks of the command's tree, its own and every
 * child and thread forked since (the instance's set_event_pid lets their
 * forks through), read from the kernel's hist of sched_process_fork.
 * set_event_pid cannot pick the wakeups: it lets a sched_waking through
 * when the waker is one of them too, so the pairs are counted by woken
 * pid and those outside the tree left out here.
 */
static int tree_load(struct lat_cmd *lc)
{
	struct kt_hist_file *f = NULL;
	struct kt_hist_table *t;
	int ret = kt_hist_read(lc->hr.inst, "sched", "sched_process_fork", &f);
	int *v;

	if (ret)
		return kt_error(lc->ctx, KT_FAIL,
				"cannot read the command's forks: %s",
				strerror(-ret));
	t = f && f->n ? &f->t[0] : NULL;
	v = realloc(lc->tree_pids, ((t ? t->n : 0) + 1) * sizeof(*v));
	if (!v) {
		kt_hist_file_free(f);
		return kt_error(lc->ctx, KT_FAIL, "out of memory");
	}
	lc->tree_pids = v;
	lc->ntree = 0;
	v[lc->ntree++] = lc->co.tg.pids[0];
	for (size_t i = 0; t && i < t->n; i++)
		if (t->nkeys == 1 && t->v[i].keys[0].is_num)
			v[lc->ntree++] = (int)t->v[i].keys[0].num;
	qsort(v, lc->ntree, sizeof(*v), by_int);
	if (t && t->dropped > lc->fork_dropped) {
		fprintf(lc->ctx->err,
			"ktrace: %" PRIu64 " forks of the command were not kept (the table is full: raise --size); their tasks' wakeups are left out\n",
			t->dropped);
		lc->fork_dropped = t->dropped;
	}
	kt_hist_file_free(f);
	return KT_OK;
}

static bool in_tree(const struct lat_cmd *lc, uint64_t pid)
{
	int p = (int)pid;

	return pid == (uint64_t)p &&
	       bsearch(&p, lc->tree_pids, lc->ntree, sizeof(p), by_int);
}

/* A record of --record: the pair of a task of the tree? The forks read
 * again for a pid not seen yet (a child forks before its first wakeup). */
static bool tree_keep(void *arg, const struct kt_raw_rec *r)
{
	struct lat_cmd *lc = arg;
	unsigned long long pid;

	if (kt_raw_field(lc->rec.raw, r, "pid", &pid, NULL))
		return false;
	if (in_tree(lc, pid))
		return true;
	return !tree_load(lc) && in_tree(lc, pid);
}

static void tree_free_table(struct kt_hist_table *o)
{
	for (size_t i = 0; o->v && i < o->n; i++) {
		free(o->v[i].keys);
		free(o->v[i].vals);
	}
	free(o->v);
	free(o->keys);
}

/* The entries of t whose pid is one of the tree's into *o (keys and
 * values copied, texts borrowed from t), without the pid key when it is
 * ktrace's own, merging the entries it told apart. Free with
 * tree_free_table(), also after a failure. */
static int tree_table(struct lat_cmd *lc, const struct kt_hist_table *t,
		      struct kt_hist_table *o)
{
	int pk = -1, nk;

	for (int k = 0; k < t->nkeys; k++)
		if (!strcmp(t->keys[k].name, "pid"))
			pk = k;
	*o = *t;
	o->n = o->entries = o->hits = 0;
	o->v = calloc(t->n + 1, sizeof(*o->v));
	o->keys = calloc(t->nkeys + 1, sizeof(*o->keys));
	if (!o->v || !o->keys || pk < 0)
		return -ENOMEM;
	nk = 0;
	for (int k = 0; k < t->nkeys; k++)
		if (k != pk || !lc->tree_key)
			o->keys[nk++] = t->keys[k];
	o->nkeys = nk;
	for (size_t i = 0; i < t->n; i++) {
		const struct kt_hist_entry *e = &t->v[i];
		struct kt_hist_entry *m = NULL;
		struct kt_hist_key kk[17];
		int n = 0;

		if (!in_tree(lc, e->keys[pk].num))
			continue;
		for (int k = 0; k < t->nkeys && n < 16; k++)
			if (k != pk || !lc->tree_key)
				kk[n++] = e->keys[k];
		for (size_t j = 0; j < o->n && !m; j++) {
			m = &o->v[j];
			for (int k = 0; k < n && m; k++)
				if (strcmp(m->keys[k].text, kk[k].text))
					m = NULL;
		}
		if (!m) {
			m = &o->v[o->n++];
			m->raw = e->raw;
			m->keys = calloc(n + 1, sizeof(*m->keys));
			m->vals = calloc(t->nvals + 1, sizeof(*m->vals));
			if (!m->keys || !m->vals)
				return -ENOMEM;
			memcpy(m->keys, kk, n * sizeof(*kk));
		}
		for (int v = 0; v < t->nvals; v++)
			m->vals[v] += e->vals[v];
		o->hits += t->nvals ? e->vals[0] : 0;
	}
	o->entries = o->n;
	return 0;
}

/* --record: the synthetic event enabled in the instance, under
 * --threshold's filter (lat is in microseconds: at least the threshold
 * rounded up). */
static int lat_record_start(struct lat_cmd *lc)
{
	uint64_t us = (lc->rec.threshold + 999) / 1000;

	if (us && asprintf(&lc->rec.filter, "lat >= %" PRIu64, us) < 0) {
		lc->rec.filter = NULL;
		return kt_error(lc->ctx, KT_FAIL, "out of memory");
	}
	if (lc->tree) {
		lc->rec.keep = tree_keep;
		lc->rec.keep_arg = lc;
	}
	return kt_rawrec_start(&lc->rec, lc->ctx, lc->hr.inst, "synthetic",
			       lc->synth, lc->rec.filter);
}

static int lat_tick(void *arg, bool final)
{
	struct lat_cmd *lc = arg;

	return kt_rawrec_read(&lc->rec, final);
}

/* Define the synthetic event, then its hist, the start's and the end's
 * triggers (the end's action needs the other two). */
static int lat_start(struct lat_cmd *lc)
{
	struct ktrace_err err = { .pos = -1 };
	char *def = synth_def(lc);
	int ret;

	if (!def)
		return kt_error(lc->ctx, KT_FAIL, "out of memory");
	if (kt_synth_create(lc->ctx->tfs, def, &err)) {
		ret = kt_error_detail(lc->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		free(def);
		return ret;
	}
	free(def);
	lc->synth_made = true;
	ret = lc->tree ? start_one(lc, "sched", "sched_process_fork",
				   lc->fork_trigger, &lc->fork_started) : 0;
	if (!ret)
		ret = start_one(lc, "synthetic", lc->synth, lc->synth_trigger,
			&lc->synth_started);
	if (!ret && lc->rec.on)
		ret = lat_record_start(lc);
	if (!ret)
		ret = start_one(lc, lc->from.sys, lc->from.ev,
				lc->from.trigger, &lc->from.started);
	if (!ret)
		ret = start_one(lc, lc->to.sys, lc->to.ev, lc->to.trigger,
				&lc->to.started);
	return ret;
}

static int lat_print(void *arg, const struct kt_hist_table *t, double at);

/*
 * --wakeup -p: the wakeups of those threads. set_event_pid lets a
 * sched_waking through when the waker is one of them too, so the start
 * is filtered on the task woken. (A command's tree, whose pids are not
 * known in advance, is told apart by tree_load() instead.)
 */
static int wakee_filter(struct lat_cmd *lc)
{
	struct kt_target *tg = &lc->co.tg;
	size_t len;
	FILE *f = open_memstream(&lc->wake_filter, &len);

	if (!f)
		return kt_error(lc->ctx, KT_FAIL, "out of memory");
	for (int i = 0; i < tg->npids && i < 64; i++)
		fprintf(f, "%spid == %d", i ? " || " : "", tg->pids[i]);
	if (fclose(f))
		return kt_error(lc->ctx, KT_FAIL, "out of memory");
	lc->from.filter = lc->wake_filter;
	return KT_OK;
}

static int lat_setup(struct lat_cmd *lc)
{
	struct kt_ctx *ctx = lc->ctx;
	char *specs[2] = { lc->from.spec, lc->to.spec };
	bool wakeup = lc->question && !strcmp(lc->question, "wakeup");
	struct ktrace_err err = { .pos = -1 };
	int ret;

	ktrace_probe_cleanup_stale(ctx->tfs);
	ret = kt_events_expand(ctx, &lc->inl, specs, 2, add_end, lc);
	if (!ret)
		ret = split_name(ctx, &lc->from);
	if (!ret)
		ret = split_name(ctx, &lc->to);
	if (ret)
		return ret;
	lc->pid_field = wakeup ? "next_pid" : "common_pid";
	lc->save = strdup(wakeup ? "next_comm,prev_pid,prev_comm,common_cpu" :
			  "common_cpu");
	if (!lc->save)
		return kt_error(ctx, KT_FAIL, "out of memory");
	ret = match_check(lc);
	if (!ret)
		ret = carried_fields(lc);
	if (!ret)
		ret = kt_target_prepare(ctx, &lc->co.tg, !lc->co.tg.argc);
	if (ret)
		return ret;
	kt_target_describe(&lc->co.tg, lc->what, sizeof(lc->what));
	lc->tree = wakeup && lc->co.tg.argc;
	if (wakeup && lc->co.tg.npids && !lc->tree) {
		ret = wakee_filter(lc);
		if (ret)
			return ret;
	}
	/* a kernel without hist triggers: said before anything is made */
	if (kt_hist_check(kt_tfs_top(ctx->tfs), lc->to.sys, lc->to.ev, &err)) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	lc->hr = (struct kt_hrun){
		.ctx = ctx, .tg = &lc->co.tg, .duration = lc->co.duration,
		.interval = lc->interval, .what = lc->what, .sys = "synthetic",
		.print = lat_print, .arg = lc, .pidfd = -1,
		.tick = lc->rec.on ? lat_tick : NULL,
	};
	lc->hr.inst = kt_own_inst_create(ctx->tfs);
	if (!lc->hr.inst)
		return kt_error(ctx, KT_FAIL, "cannot create an instance: %s%s",
				strerror(errno), kt_priv_hint(errno));
	/* the synthetic event is the instance's namesake: one owner */
	snprintf(lc->synth, sizeof(lc->synth), "%s",
		 kt_inst_name(lc->hr.inst));
	lc->hr.ev = lc->synth;
	ret = lat_triggers(lc);
	if (!ret)
		ret = kt_hrun_limit(&lc->hr);
	if (!ret)
		ret = lat_start(lc);
	lc->hr.trigger = lc->synth_trigger;
	return ret;
}

/* ------------------------------------------------------------ output */

static const char *usecs_text(uint64_t us, char *buf, size_t len)
{
	if (us < 1000)
		snprintf(buf, len, "%" PRIu64 " us", us);
	else if (us < 1000000)
		snprintf(buf, len, "%.2f ms", us / 1e3);
	else
		snprintf(buf, len, "%.2f s", us / 1e6);
	return buf;
}

static const char *var_of(const struct kt_hist_entry *e, const char *name)
{
	for (int i = 0; i < e->nvars; i++)
		if (!strcmp(e->vars[i].name, name))
			return e->vars[i].value;
	return NULL;
}

/* The end event's entry with the largest onmax() value, or NULL (none
 * yet, or no table). f is the end event's read. */
static const struct kt_hist_entry *worst(struct lat_cmd *lc,
					 struct kt_hist_file *f, uint64_t *max)
{
	const struct kt_hist_entry *w = NULL;

	*max = 0;
	for (int t = 0; f && t < f->n; t++) {
		for (size_t i = 0; i < f->t[t].n; i++) {
			const char *v = var_of(&f->t[t].v[i], "max");
			uint64_t m = v ? strtoull(v, NULL, 10) : 0;

			if (lc->tree &&
			    !in_tree(lc, f->t[t].v[i].keys[0].num))
				continue;
			if (v && (!w || m > *max)) {
				w = &f->t[t].v[i];
				*max = m;
			}
		}
	}
	return w;
}

static void worst_text(struct lat_cmd *lc, const struct kt_hist_entry *w,
		       uint64_t max)
{
	FILE *f = lc->ctx->out;
	const char *cpu = var_of(w, "common_cpu");
	char buf[32];

	fprintf(f, "max %s: ", usecs_text(max, buf, sizeof(buf)));
	if (var_of(w, "next_comm"))
		fprintf(f, "%s [%s]", var_of(w, "next_comm"), w->keys[0].text);
	else if (!strcmp(lc->to.match, "common_pid"))
		fprintf(f, "pid %s", w->keys[0].text);
	else	/* the match key, whatever it is */
		fprintf(f, "%s %s", lc->to.match, w->keys[0].text);
	if (cpu)
		fprintf(f, " on CPU %s", cpu);
	if (var_of(w, "prev_comm"))
		fprintf(f, ", after %s [%s] ran", var_of(w, "prev_comm"),
			var_of(w, "prev_pid") ? var_of(w, "prev_pid") : "?");
	fputc('\n', f);
}

static void worst_json(struct kt_json *j, const struct kt_hist_entry *w,
		       uint64_t max, const char *match)
{
	kt_json_key(j, "max");
	if (!w) {
		kt_json_null(j);
		return;
	}
	kt_json_object_begin(j);
	kt_juint(j, "usecs", max);
	kt_json_key(j, match);	/* the end event's match field */
	if (w->keys[0].is_num)
		kt_json_uint(j, w->keys[0].num);
	else
		kt_json_string(j, w->keys[0].text);
	for (int i = 0; i < w->nvars; i++) {
		char *end;
		unsigned long long v;

		if (!strcmp(w->vars[i].name, "max"))
			continue;
		kt_json_key(j, w->vars[i].name);
		v = strtoull(w->vars[i].value, &end, 10);
		if (*w->vars[i].value && !*end)
			kt_json_uint(j, v);
		else
			kt_json_string(j, w->vars[i].value);
	}
	kt_json_object_end(j);
}

/* Pairs lost to a full start or end table (tasks or match values in
 * flight), said once each on stderr: the distribution does not show
 * them. */
static void say_full(struct lat_cmd *lc, struct lat_end *e,
		     struct kt_hist_file *f)
{
	uint64_t d = f && f->n ? f->t[0].dropped : 0;

	if (d <= e->dropped_said)
		return;
	fprintf(lc->ctx->err,
		"ktrace: %" PRIu64 " events of %s were not paired: its table is full (%" PRIu64 " entries; raise --size)\n",
		d, e->name, f->t[0].entries);
	e->dropped_said = d;
}

static int lat_print(void *arg, const struct kt_hist_table *t, double at)
{
	struct lat_cmd *lc = arg;
	struct kt_hist_file *f = NULL, *ff = NULL;
	struct kt_hist_table tt = { 0 };
	const struct kt_hist_entry *w;
	uint64_t max;
	int ret = kt_hist_read(lc->hr.inst, lc->to.sys, lc->to.ev, &f);

	if (ret)
		return kt_error(lc->ctx, KT_FAIL, "cannot read the hist of %s: %s",
				lc->to.name, strerror(-ret));
	if (lc->tree) {
		ret = tree_load(lc);
		if (!ret && tree_table(lc, t, &tt))
			ret = kt_error(lc->ctx, KT_FAIL, "out of memory");
		if (ret) {
			tree_free_table(&tt);
			kt_hist_file_free(f);
			return ret;
		}
		t = &tt;
	}
	w = worst(lc, f, &max);
	say_full(lc, &lc->to, f);
	if (!kt_hist_read(lc->hr.inst, lc->from.sys, lc->from.ev, &ff))
		say_full(lc, &lc->from, ff);
	kt_hist_file_free(ff);
	if (lc->ctx->json) {
		struct kt_json *j = kt_json(lc->ctx);

		if (j) {
			kt_json_object_begin(j);
			if (lc->interval) {
				kt_json_key(j, "time");
				kt_json_double(j, at);
			}
			kt_jstr(j, "from", lc->from.name);
			kt_jstr(j, "to", lc->to.name);
			kt_jstr(j, "unit", "usecs");
			kt_jstr(j, "target", lc->what);
			kt_histview_json(j, t, NULL);
			worst_json(j, w, max, lc->to.match);
			kt_json_object_end(j);
		}
	} else {
		FILE *o = lc->ctx->out;

		if (lc->interval)
			fprintf(o, "\n%.6f  %s -> %s\n", at, lc->from.name,
				lc->to.name);
		else
			fprintf(o, "\nlatency %s -> %s (%s), microseconds, measured in the kernel\n\n",
				lc->from.name, lc->to.name, lc->what);
		kt_histview_text(o, t);
		if (w)
			worst_text(lc, w, max);
	}
	tree_free_table(&tt);
	kt_hist_file_free(f);
	return KT_OK;
}

/* ------------------------------------------------------------- run */

/* Take back what the run made, the users first: the end's trigger (its
 * action uses the other two), the start's, the synthetic event's hist;
 * the instance, then the synthetic event. The inline probes after. */
static int lat_teardown(struct lat_cmd *lc)
{
	struct { const char *sys, *ev, *text; bool on; } t[] = {
		{ "sched", "sched_process_fork", lc->fork_trigger,
		  lc->fork_started },
		{ lc->to.sys, lc->to.ev, lc->to.trigger, lc->to.started },
		{ lc->from.sys, lc->from.ev, lc->from.trigger,
		  lc->from.started },
		{ "synthetic", lc->synth, lc->synth_trigger,
		  lc->synth_started },
	};
	int ret = kt_rawrec_stop(&lc->rec), r;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (!t[i].on)
			continue;
		r = kt_hist_stop(lc->hr.inst, t[i].sys, t[i].ev, t[i].text);
		if (r)
			ret = kt_error(lc->ctx, KT_FAIL,
				       "cannot remove the trigger on %s:%s: %s",
				       t[i].sys, t[i].ev, strerror(-r));
	}
	if (kt_hrun_destroy(&lc->hr))
		ret = KT_FAIL;
	if (lc->synth_made) {
		r = kt_synth_destroy(lc->ctx->tfs, lc->synth);
		if (r)
			ret = kt_error(lc->ctx, KT_FAIL,
				       "cannot remove synthetic event %s: %s",
				       lc->synth, strerror(-r));
	}
	return ret;
}

static void end_free(struct lat_end *e)
{
	free(e->spec);
	free(e->match);
	free(e->sys);
	free(e->ev);
	free(e->trigger);
}

static void lat_free(struct lat_cmd *lc)
{
	end_free(&lc->from);
	end_free(&lc->to);
	kt_strv_free(&lc->keys);
	kt_strv_free(&lc->extra);
	kt_strv_free(&lc->extra_types);
	free(lc->synth_trigger);
	free(lc->save);
	free(lc->wake_filter);
	kt_rawrec_free(&lc->rec);
	free(lc->fork_trigger);
	free(lc->tree_pids);
	kt_capture_opts_free(&lc->co);
}

int cmd_latency(struct kt_ctx *ctx, int argc, char **argv)
{
	struct lat_cmd lc = { .ctx = ctx, .co = KT_CAPTURE_OPTS_INIT,
			      .hr = { .pidfd = -1 } };
	struct kt_target *tg = &lc.co.tg;
	bool stopped = false;
	int ret, status;

	ret = lat_parse(&lc, argc, argv);
	if (ret >= 0)
		goto out;
	if (!kt_tfs(ctx)) {
		ret = KT_FAIL;
		goto out;
	}
	kt_signals_install(&lc.sigs);
	ret = lat_setup(&lc);
	if (!ret)
		ret = kt_hrun_loop(&lc.hr, &stopped);
	kt_inline_report_misses(ctx, &lc.inl);
out:
	status = kt_target_finish(tg, kt_stop_signal || ret || stopped);
	if (lat_teardown(&lc) && !ret)
		ret = KT_FAIL;
	kt_inline_destroy(ctx, &lc.inl);
	kt_signals_restore(&lc.sigs);
	lat_free(&lc);
	return kt_target_status(tg, ret, status, stopped);
}

/* ------------------------------------------------------------ export */

struct kt_lat {
	struct lat_cmd lc;
};

int kt_lat_export_start(struct kt_ctx *ctx, int argc, char **argv,
			struct kt_lat **out)
{
	struct kt_lat *l = calloc(1, sizeof(*l));
	struct lat_cmd *lc;
	int ret;

	*out = l;
	if (!l)
		return kt_error(ctx, KT_FAIL, "out of memory");
	lc = &l->lc;
	*lc = (struct lat_cmd){ .ctx = ctx, .co = KT_CAPTURE_OPTS_INIT,
				.hr = { .pidfd = -1 }, .sum_lat = true };
	optind = 0;	/* a second getopt run in this process */
	ret = lat_parse(lc, argc, argv);
	if (ret == KT_OK)	/* --help */
		return kt_usage_error(ctx, NULL,
				      "--latency takes ktrace latency's question, not --help");
	if (ret > 0)
		return ret;
	if (lc->co.tg.argc || lc->interval || lc->rec.on || ctx->json ||
	    lc->co.duration)
		return kt_usage_error(ctx, NULL,
				      "--latency takes the question and its keys: no command, -I, -d, --record or --json");
	lc->hr.tg = &lc->co.tg;
	return lat_setup(lc);
}

int kt_lat_export_read(struct kt_lat *l, struct kt_hist_file **f,
		       struct kt_hist_table **t)
{
	struct lat_cmd *lc = &l->lc;
	int ret = kt_hist_read(lc->hr.inst, "synthetic", lc->synth, f);

	*t = NULL;
	if (ret)
		return ret;
	*t = (*f)->n == 1 ? &(*f)->t[0] : kt_hist_find(*f, lc->synth_trigger);
	return *t ? 0 : -ENOENT;
}

struct ktrace_inst *kt_lat_export_inst(struct kt_lat *l)
{
	return l->lc.hr.inst;
}

void kt_lat_export_describe(struct kt_lat *l, char *buf, size_t len)
{
	snprintf(buf, len, "%s to %s, microseconds, paired in the kernel",
		 l->lc.from.name, l->lc.to.name);
}

int kt_lat_export_stop(struct kt_lat *l)
{
	int ret;

	if (!l)
		return KT_OK;
	ret = lat_teardown(&l->lc);
	kt_inline_destroy(l->lc.ctx, &l->lc.inl);
	lat_free(&l->lc);
	free(l);
	return ret;
}
