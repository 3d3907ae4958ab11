// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktrace top: a live view, refreshed every interval, like perf top.
 *
 * Sampling events (cpu-clock by default) are sampled through the rings and
 * make a profile of the hottest symbols (overhead, samples, shared object,
 * symbol), decayed by 7/8 each refresh as perf top does (-z: zeroed).
 * Tracepoints and probes are counted, not sampled (perf counters read each
 * refresh, no record crosses to user space): events a second, totals.
 * The screen is drawn with ANSI escapes (cmd/term.c); --stdio prints the
 * same tables to standard output each interval instead.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ktrace_cmd.h"

static const char top_usage[] =
	"Usage: ktrace top [-e EVENT...] [-F HZ | -c PERIOD] [-p PID | -a | -C CPUS]\n"
	"                  [-I MS] [-d SECS] [-n ROWS] [-z] [--stdio]\n"
	"A live view, refreshed every second, like perf top: for sampling events\n"
	"(default cpu-clock) the hottest symbols; for tracepoints and probes\n"
	"(-e 'syscalls:sys_enter_*', inline probes as in record) events a second\n"
	"and totals, counted in the kernel.\n"
	"\n"
	"  -e, --event EVENT     sampling event, tracepoint glob or probe (repeatable)\n"
	"  -F, --freq HZ         samples a second (default 4000)\n"
	"  -c, --count PERIOD    a sample every PERIOD events\n"
	"  -p, --pid PID         one process and its threads\n"
	"  -a, --all-cpus        system-wide (the default)\n"
	"  -C, --cpu CPUS        only these CPUs (0,2-3)\n"
	"  -I, --interval MS     refresh every MS milliseconds (default 1000; perf\n"
	"                        top's -d)\n"
	"  -d, --duration SECS   stop after SECS seconds\n"
	"  -n, --rows N          at most N rows per table\n"
	"  -z, --zero            start each interval from zero (no decay)\n"
	"  -s, --sort KEY        count (overhead, events a second), total or name\n"
	"      --stdio           print the tables each interval instead of a screen\n"
	"  -h, --help            this help\n"
	"\n"
	"Keys: q quit, p pause/resume, s next sort column.\n";

static const struct option top_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "interval", required_argument, NULL, 'I' },
	{ "duration", required_argument, NULL, 'd' },
	{ "rows", required_argument, NULL, 'n' },
	{ "zero", no_argument, NULL, 'z' },
	{ "sort", required_argument, NULL, 's' },
	{ "stdio", no_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Sort columns: the count (overhead / events a second), the total
 * (samples / count since start), the name (symbol / event). */
enum top_sort { TS_COUNT, TS_TOTAL, TS_NAME, TS_NR };
static const char *const sort_names[TS_NR] = { "count", "total", "name" };

struct top_ev {
	int stat_idx;
	uint64_t last, total;
	double rate;
};

/* A run of top: its options, what it opened, the screen's state. */
struct top_run {
	struct kt_ctx *ctx;
	struct kt_capture_opts co;	/* -e, the target, -d, -F, -c */
	struct ktrace_record_opts ro;
	struct kt_inline inl;
	struct kt_signals sigs;
	struct ktrace_record *rec;	/* sampling events, or NULL */
	struct ktrace_stat *st;		/* counted events, or NULL */
	struct kt_profile prof;
	struct top_ev *evs;
	int nevs;
	enum top_sort sort;
	int rows;			/* 0: as many as fit */
	bool stdio, zero, paused;
	struct kt_term term;		/* the screen, when active */
	unsigned long long samples_iv;	/* samples this interval */
	double rate_samples;
	uint64_t lost;
	uint64_t upto;			/* records handed out up to (ns) */
	char what[256];
	int error;
	/* the capture loop's */
	struct timespec t0;
	double now, last;	/* seconds since t0; of the last interval */
	long interval;		/* -I, ms */
	int pid;		/* -p, or -1 */
};

static int add_one(void *arg, int i, const char *name)
{
	struct top_run *run = arg;
	struct ktrace_err err = { .pos = -1 };
	int ret;

	(void)i;
	if (strchr(name, ':')) {
		struct top_ev *nv;

		if (!run->st && !(run->st = ktrace_stat_alloc(run->ctx->tfs)))
			return kt_error(run->ctx, KT_FAIL, "out of memory");
		ret = ktrace_stat_add(run->st, name, &err);
		if (ret >= 0) {
			nv = realloc(run->evs, (run->nevs + 1) * sizeof(*nv));
			if (!nv)
				return kt_error(run->ctx, KT_FAIL,
						"out of memory");
			run->evs = nv;
			run->evs[run->nevs++] = (struct top_ev){ .stat_idx = ret };
		}
	} else {
		if (!run->rec &&
		    !(run->rec = ktrace_record_alloc(run->ctx->tfs)))
			return kt_error(run->ctx, KT_FAIL, "out of memory");
		ktrace_record_set_stop(run->rec, &kt_stop_signal);
		ret = ktrace_record_add_event(run->rec, name, NULL, &err);
	}
	if (ret < 0) {
		ret = kt_error_detail(run->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	return KT_OK;
}

/* A sample: its own address, symbolized, into the profile. */
static int on_sample(void *arg, const struct ktrace_sample *s)
{
	struct top_run *run = arg;
	struct ktrace_frame fr;
	char *key;

	if (s->type != KTRACE_SAMPLE_EVENT)
		return 0;
	if (ktrace_record_frames(run->rec, s, &fr, 1) != 1)
		return 0;
	if (asprintf(&key, "%s\t%s", fr.sym, fr.dso) < 0)
		return run->error = -ENOMEM;
	run->samples_iv++;
	run->error = kt_profile_add(&run->prof, key, s->period ? s->period : 1);
	return run->error;
}

/* The counted events' totals and their rates over dt seconds. */
static void read_counts(struct top_run *run, double dt)
{
	for (int i = 0; i < run->nevs; i++) {
		struct top_ev *e = &run->evs[i];
		uint64_t v = 0;

		if (ktrace_stat_read(run->st, e->stat_idx, &v, NULL, NULL))
			continue;
		e->total = v;
		e->rate = dt > 0 ? (v - e->last) / dt : 0;
		e->last = v;
	}
	run->rate_samples = dt > 0 ? run->samples_iv / dt : 0;
	if (run->rec) {
		struct ktrace_record_stats rs;

		ktrace_record_stats(run->rec, &rs);
		run->lost = rs.lost;
		/*
		 * The samples came over the time the records were handed out
		 * in, not over the wall clock's interval: records wait for
		 * the merge and for a binary being read.
		 */
		if (rs.upto_ns > run->upto)
			run->rate_samples = run->samples_iv /
					    ((rs.upto_ns - run->upto) / 1e9);
		run->upto = rs.upto_ns;
	}
	run->samples_iv = 0;
}

static enum top_sort g_sort;	/* for the qsort comparators below */

static int prow_cmp(const void *a, const void *b)
{
	const struct kt_prow *x = a, *y = b;

	if (g_sort == TS_NAME)
		return strcmp(x->key, y->key);
	if (g_sort == TS_TOTAL && x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return kt_prow_by_period(a, b);
}

static struct top_run *g_run;

static int ev_cmp(const void *a, const void *b)
{
	const struct top_ev *x = a, *y = b;
	const char *nx = ktrace_stat_name(g_run->st, x->stat_idx);
	const char *ny = ktrace_stat_name(g_run->st, y->stat_idx);

	if (g_sort == TS_COUNT && x->rate != y->rate)
		return x->rate < y->rate ? 1 : -1;
	if (g_sort != TS_NAME && x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(nx, ny);
}

/* One line of output: a screen row or a line of standard output. */
static void put_line(struct top_run *run, int *y, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put_line(struct top_run *run, int *y, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (run->term.active) {
		if (*y < run->term.rows - 1)
			kt_term_line(&run->term, *y, line);
	} else {
		fprintf(run->ctx->out, "%s\n", line);
	}
	(*y)++;
}

static void draw(struct top_run *run, double elapsed)
{
	int y = 0, max, sample_rows;
	struct kt_prow *rows = NULL;
	size_t n = 0;

	g_sort = run->sort;
	g_run = run;
	if (run->term.active)
		kt_term_begin(&run->term);
	max = run->rows ? run->rows : run->term.active ? run->term.rows : 20;
	/* on a screen, the events' table keeps its place below the
	 * samples: their rows give way, down to one */
	sample_rows = max;
	if (run->term.active && run->nevs) {
		int room = run->term.rows - 4 - (run->nevs + 3) - 1;

		if (room < sample_rows)
			sample_rows = room > 1 ? room : 1;
	}
	put_line(run, &y, "ktrace top: %s, %.0f s%s", run->what, elapsed,
		 run->paused ? "  [paused]" : "");
	if (run->rec) {
		put_line(run, &y, "samples: %.0f/s, lost: %llu", run->rate_samples,
			 (unsigned long long)run->lost);
		put_line(run, &y, "%s", "");
		put_line(run, &y, "%9s  %8s  %-24s  %s", "Overhead", "Samples",
			 "Shared Object", "Symbol");
		rows = malloc((run->prof.n + 1) * sizeof(*rows));
		for (size_t i = 0; rows && i < run->prof.cap; i++)
			if (run->prof.v[i].key)
				rows[n++] = run->prof.v[i];
		if (rows)
			qsort(rows, n, sizeof(*rows), prow_cmp);
		for (size_t i = 0; i < n && (int)i < sample_rows; i++) {
			const char *tab = strchr(rows[i].key, '\t');
			const char *dso = tab ? tab + 1 : "";
			const char *base = strrchr(dso, '/');
			double pct = run->prof.period ?
				     100.0 * rows[i].period / run->prof.period : 0;

			put_line(run, &y, "%8.2f%%  %8llu  %-24.24s  %.*s", pct,
				 rows[i].samples, base ? base + 1 : dso,
				 (int)(tab ? tab - rows[i].key :
				       (long)strlen(rows[i].key)), rows[i].key);
		}
		free(rows);
	}
	if (run->nevs) {
		struct top_ev *v = malloc(run->nevs * sizeof(*v));
		double sum = 0;

		put_line(run, &y, "%s", "");
		put_line(run, &y, "%12s  %14s  %s", "Events/s", "Total", "Event");
		if (v) {
			memcpy(v, run->evs, run->nevs * sizeof(*v));
			qsort(v, run->nevs, sizeof(*v), ev_cmp);
			for (int i = 0; i < run->nevs; i++) {
				sum += v[i].rate;
				if (i < max)
					put_line(run, &y, "%12.0f  %14llu  %s",
						 v[i].rate,
						 (unsigned long long)v[i].total,
						 ktrace_stat_name(run->st,
								  v[i].stat_idx));
			}
			free(v);
		}
		put_line(run, &y, "%12.0f  %14s  %s", sum, "", "(all events)");
	}
	if (run->term.active) {
		struct kt_term *t = &run->term;
		char status[64];

		kt_term_clear(t, y < t->rows - 1 ? y : t->rows - 1);
		snprintf(status, sizeof(status), "q quit  p %s  s sort: %s",
			 run->paused ? "resume" : "pause",
			 sort_names[run->sort]);
		kt_term_line(t, t->rows - 1, status);
		kt_term_flush(t);
	} else {
		put_line(run, &y, "%s", "");
		fflush(run->ctx->out);
	}
}

/* Keys of the screen; true when q was pressed. */
static bool keys(struct top_run *run, double elapsed)
{
	int c;

	while ((c = kt_term_key()) != KT_KEY_NONE) {
		switch (c) {
		case 'q':
		case 'Q':
			return true;
		case 'p':
		case 'P':
			run->paused = !run->paused;
			draw(run, elapsed);
			break;
		case 's':
		case 'S':
			run->sort = (run->sort + 1) % TS_NR;
			draw(run, elapsed);
			break;
		case KT_KEY_RESIZE:
			draw(run, elapsed);
			break;
		}
	}
	return false;
}

static int parse_num(struct kt_ctx *ctx, const char *arg, long min, long max,
		     const char *what, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *out < min || *out > max)
		return kt_usage_error(ctx, NULL, "bad %s '%s'", what, arg);
	return KT_OK;
}

/*
 * A round of the capture loop: the samples of the last 50 ms, the keys
 * pressed, and the screen (or a stdio table) at each interval.
 */
static int top_round(void *arg, bool *gone)
{
	struct top_run *run = arg;

	if (run->rec) {
		long n = ktrace_record_poll(run->rec, 50, gone, on_sample,
					    run);

		if (n < 0 && !run->error)
			run->error = (int)n;
		if (run->error)
			return -1;
	} else {
		usleep(50000);
	}
	run->now = kt_elapsed(&run->t0);
	if (run->term.active && keys(run, run->now))
		return 1;
	if ((run->now - run->last) * 1000 >= run->interval) {
		read_counts(run, run->now - run->last);
		run->last = run->now;
		if (!run->paused)
			draw(run, run->now);
		if (run->zero)
			kt_profile_free(&run->prof);
		else
			kt_profile_decay(&run->prof, 7, 8);
	}
	/* counters alone have no ring to hang up */
	if (run->pid > 0 && kill(run->pid, 0) && errno == ESRCH)
		*gone = true;
	return 0;
}

/* An option of top's own (not shared with record and stat): KT_OK, a
 * usage error, or -1 when it is none of them. */
static int top_opt(struct top_run *run, int opt, const char *arg)
{
	struct kt_ctx *ctx = run->ctx;
	long v;
	int ret;

	switch (opt) {
	case 'I':
		return parse_num(ctx, arg, 100, 3600000,
				 "interval (milliseconds, at least 100)",
				 &run->interval);
	case 'n':
		ret = parse_num(ctx, arg, 1, 100000, "row count", &v);
		run->rows = v;
		return ret;
	case 'z':
		run->zero = true;
		return KT_OK;
	case 's':
		for (v = 0; v < TS_NR && strcmp(arg, sort_names[v]); v++)
			;
		if (v == TS_NR)
			return kt_usage_error(ctx, NULL,
					      "bad sort key '%s': count, total or name",
					      arg);
		run->sort = v;
		return KT_OK;
	case 'S':
		run->stdio = true;
		return KT_OK;
	}
	return -1;
}

/* The command line into run. -1 to go on, else the exit status (--help,
 * a usage error). */
static int top_parse(struct top_run *run, int argc, char **argv)
{
	struct kt_ctx *ctx = run->ctx;
	struct kt_target *tg = &run->co.tg;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+:e:F:c:p:aC:I:d:n:zs:h",
				  top_opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(top_usage, ctx->out);
			return KT_OK;
		}
		ret = kt_capture_opt(ctx, &run->co, opt, optarg);
		if (ret < 0)
			ret = top_opt(run, opt, optarg);
		if (ret < 0)
			ret = kt_bad_option(ctx, top_usage, opt,
					    argv[optind - 1]);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return kt_usage_error(ctx, top_usage,
				      "top watches running processes: no command ('%s')",
				      argv[optind]);
	ret = kt_target_check(ctx, tg, 0, NULL);
	if (ret)
		return ret;
	if (tg->ncpus && tg->npids)
		return kt_usage_error(ctx, NULL,
				      "-C watches CPUs system-wide: not with -p");
	return -1;
}

/* The events of -e (cpu-clock without one): sampling ones into the rings,
 * the others counted; opened for the target. */
static int top_open(struct top_run *run)
{
	static char *const default_events[] = { "cpu-clock" };
	struct kt_ctx *ctx = run->ctx;
	struct kt_target *tg = &run->co.tg;
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_stat_opts so = { 0 };
	int ret;

	if (run->co.nspecs)
		ret = kt_events_expand(ctx, &run->inl, run->co.specs,
				       run->co.nspecs, add_one, run);
	else
		ret = kt_events_expand(ctx, &run->inl, default_events, 1,
				       add_one, run);
	if (ret)
		return ret;
	ret = kt_target_prepare(ctx, tg, true);
	if (ret)
		return ret;
	kt_target_describe(tg, run->what, sizeof(run->what));
	run->pid = tg->npids ? tg->pids[0] : -1;
	so.pid = run->pid;
	so.cpus = tg->cpus;
	so.nr_cpus = tg->ncpus;
	so.inherit = run->pid > 0;
	if (run->st && ktrace_stat_open(run->st, &so, &err) < 0)
		goto fail;
	if (run->rec) {
		run->ro.pids = tg->pids;
		run->ro.nr_pids = tg->npids;
		run->ro.inherit = tg->npids > 0;
		run->ro.cpus = tg->cpus;
		run->ro.nr_cpus = tg->ncpus;
		run->ro.sample_freq = run->co.sample_freq;
		run->ro.sample_period = run->co.sample_period;
		if (ktrace_record_open(run->rec, &run->ro, &err) < 0)
			goto fail;
	}
	return KT_OK;
fail:
	ret = kt_error_detail(ctx, KT_FAIL, &err);
	ktrace_err_clear(&err);
	return ret;
}

/* After the loop: the screen closed, or (--stdio) the last part interval
 * printed; why it ended when that is worth saying. */
static void top_finish(struct top_run *run, int ret)
{
	struct kt_ctx *ctx = run->ctx;

	if (run->term.active) {
		kt_term_stop(&run->term);
	} else if (ret == KT_OK && (run->now - run->last) * 1000 >= 100) {
		/* the last part interval: what the screen would have shown */
		read_counts(run, run->now - run->last);
		draw(run, run->now);
	}
	if (ret == KT_FAIL)
		kt_error(ctx, KT_FAIL, "reading the rings: %s",
			 strerror(run->error ? -run->error : EIO));
	else if (run->stdio && !kt_stop_signal && run->co.tg.npids &&
		 run->co.duration <= 0)
		fprintf(ctx->err, "ktrace top: process %d exited\n", run->pid);
	kt_inline_report_misses(ctx, &run->inl);
}

int cmd_top(struct kt_ctx *ctx, int argc, char **argv)
{
	struct top_run run = { .ctx = ctx, .co = KT_CAPTURE_OPTS_INIT,
			       .interval = 1000 };
	struct kt_target *tg = &run.co.tg;
	int ret;

	tg->max_pids = 1;
	ret = top_parse(&run, argc, argv);
	if (ret >= 0)
		goto out;
	if (!kt_tfs(ctx)) {
		ret = KT_FAIL;
		goto out;
	}
	kt_signals_install(&run.sigs);
	ret = top_open(&run);
	if (!ret && !run.stdio)
		ret = kt_term_start(ctx, &run.term);
	if (ret)
		goto out;
	if (run.st)
		ktrace_stat_enable(run.st);
	if (run.rec) {
		struct ktrace_record_stats rs;

		ktrace_record_enable(run.rec);
		ktrace_record_stats(run.rec, &rs);
		run.upto = rs.upto_ns;
	}
	clock_gettime(CLOCK_MONOTONIC, &run.t0);
	if (kt_loop_run(tg, &run.t0, run.co.duration, top_round, &run) ==
	    KT_LOOP_FAILED)
		ret = KT_FAIL;
	top_finish(&run, ret);
out:
	kt_target_finish(tg, true);
	/* the perf fds go before the probes they use */
	ktrace_record_free(run.rec);
	ktrace_stat_free(run.st);
	kt_inline_destroy(ctx, &run.inl);
	kt_signals_restore(&run.sigs);
	kt_profile_free(&run.prof);
	free(run.evs);
	kt_capture_opts_free(&run.co);
	return ret;
}
