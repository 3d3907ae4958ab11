// SPDX-License-Identifier: GPL-2.0-only
/* ktrace stat: count events without a ring buffer, like perf stat -e. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktrace_cmd.h"

static const char stat_usage[] =
	"Usage: ktrace stat [-e EVENT...] [-p PID | -a] [-C CPUS] [-I MS] [-o FILE] [--json] [-- CMD ARGS...]\n"
	"Count events: tracepoints and probes (SYSTEM:EVENT, globs allowed), inline\n"
	"probes for this run ('kprobe:SPEC', 'uprobe:BINARY:SYMBOL' as in record) and the\n"
	"generic counters task-clock, context-switches, cpu-migrations, page-faults,\n"
	"cycles, instructions, cache-misses, branch-misses... Counters the machine\n"
	"lacks print 'not supported'. Without -e: the software counters and\n"
	"cycles/instructions. The counts go to standard error, as perf stat's do (the\n"
	"command's output stays its own), or to FILE with -o.\n"
	"\n"
	"  -e, --event EVENT    event or counter (repeatable, comma lists allowed)\n"
	"  -p, --pid PID        an existing process (and its threads)\n"
	"  -a, --all-cpus       system-wide (default without CMD or -p)\n"
	"  -C, --cpu CPUS       only these CPUs (0,2-3), system-wide\n"
	"  -I, --interval MS    print the counts every MS milliseconds\n"
	"  -d, --duration SECS  stop after SECS seconds\n"
	"  -o, --output FILE    write the counts (text or JSON) to FILE\n"
	"  -j, --json           JSON output\n"
	"  -h, --help           this help\n";

static const struct option stat_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "interval", required_argument, NULL, 'I' },
	{ "duration", required_argument, NULL, 'd' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static char *const default_events[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"cycles", "instructions",
};

/* A run of stat: its options, then what it opened. */
struct stat_cmd {
	struct kt_ctx *ctx;
	struct kt_capture_opts co;	/* -e (comma lists), the target, -d */
	long interval;			/* -I, ms; 0: none */
	const char *output;		/* -o FILE, or NULL: stderr */
	FILE *res;			/* where the counts go (owned when
					 * output), ctx->out while stat runs */
	FILE *out;			/* ctx->out before it */
	struct ktrace_stat *st;
	struct kt_inline inl;
	struct kt_signals sigs;
	char what[512];			/* the target, for the report */
	/* the capture loop's */
	int pidfd;			/* of the process counted, or -1 */
	bool gone;			/* it ended before pidfd_open() */
	struct timespec t0;
	double last;			/* seconds since t0 of the last -I */
	uint64_t *prev;			/* count, enabled, running at the
					 * last -I, three a counter */
};

/*
 * Counter i (count, time enabled and running), with -I (prev: three
 * entries a counter) what the last interval added to each. 0, or
 * non-zero when the counter is not supported.
 */
static int read_count(struct ktrace_stat *st, int i, uint64_t *prev,
		      uint64_t *v, uint64_t *en, uint64_t *run)
{
	uint64_t now[3];
	int r = ktrace_stat_read(st, i, &now[0], &now[1], &now[2]);

	if (!r && prev) {
		for (int k = 0; k < 3; k++) {
			uint64_t d = now[k] - prev[3 * i + k];

			prev[3 * i + k] = now[k];
			now[k] = d;
		}
	}
	*v = now[0];
	if (en)
		*en = now[1];
	if (run)
		*run = now[2];
	return r;
}

/* --json: one document per interval (one line each), as perf does. */
static void print_counts_json(struct kt_ctx *ctx, struct ktrace_stat *st,
			      double at, uint64_t *prev)
{
	struct kt_json *j = kt_json(ctx);

	if (!j)
		return;
	kt_json_object_begin(j);
	kt_json_key(j, prev ? "time" : "elapsed");
	kt_json_double(j, at);
	kt_json_key(j, "counters");
	kt_json_array_begin(j);
	for (int i = 0; i < ktrace_stat_count(st); i++) {
		uint64_t v, en, run;
		int r = read_count(st, i, prev, &v, &en, &run);

		kt_json_object_begin(j);
		kt_jstr(j, "event", ktrace_stat_name(st, i));
		kt_jbool(j, "user_only", ktrace_stat_user_only(st, i));
		if (r) {
			kt_json_key(j, "count");
			kt_json_null(j);
			kt_jbool(j, "supported", false);
		} else {
			kt_juint(j, "count", v);
			kt_jbool(j, "supported", true);
			kt_juint(j, "enabled_ns", en);
			kt_juint(j, "running_ns", run);
		}
		kt_json_object_end(j);
	}
	kt_json_array_end(j);
	kt_json_object_end(j);
	fflush(ctx->out);
}

/* The table perf stat prints; with -I (prev) a line per counter stamped
 * with the time. */
static void print_counts_text(struct kt_ctx *ctx, struct ktrace_stat *st,
			      double at, uint64_t *prev, const char *what)
{
	bool interval = prev != NULL;
	int nuser = 0;

	if (!interval)
		fprintf(ctx->out, "\n Performance counter stats for %s:\n\n",
			what);
	for (int i = 0; i < ktrace_stat_count(st); i++) {
		uint64_t v;
		int r = read_count(st, i, prev, &v, NULL, NULL);
		char name[192];

		/* user space only, as perf stat marks it */
		snprintf(name, sizeof(name), "%s%s", ktrace_stat_name(st, i),
			 ktrace_stat_user_only(st, i) ? ":u" : "");
		nuser += ktrace_stat_user_only(st, i);
		if (interval)
			fprintf(ctx->out, "%14.6f ", at);
		if (r)
			fprintf(ctx->out, "%20s      %s\n", "<not supported>",
				name);
		else if (!strcmp(ktrace_stat_name(st, i), "task-clock"))
			fprintf(ctx->out, "%20.2f msec %s\n", v / 1e6, name);
		else
			fprintf(ctx->out, "%20llu      %s\n",
				(unsigned long long)v, name);
	}
	if (!interval)
		fprintf(ctx->out, "\n %14.9f seconds time elapsed\n\n", at);
	if (!interval && nuser)
		fprintf(ctx->out, " (:u: user space only; the kernel's side needs root or CAP_PERFMON, or a lower /proc/sys/kernel/perf_event_paranoid)\n\n");
	fflush(ctx->out);
}

/*
 * Print the counts; with interval, the change since the previous interval
 * (prev, one entry per event, updated), as perf stat -I does.
 */
static void print_counts(struct kt_ctx *ctx, struct ktrace_stat *st,
			 double at, uint64_t *prev, const char *what)
{
	if (ctx->json)
		print_counts_json(ctx, st, at, prev);
	else
		print_counts_text(ctx, st, at, prev, what);
}

static int add_one(void *arg, int i, const char *name)
{
	struct stat_cmd *sc = arg;
	struct ktrace_err err = { .pos = -1 };
	int ret;

	(void)i;
	if (ktrace_stat_add(sc->st, name, &err) < 0) {
		ret = kt_error_detail(sc->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	return KT_OK;
}

/* A round: wait for the process's end or the next interval, and print
 * the interval's counts when it is due. */
static int stat_round(void *arg, bool *gone)
{
	struct stat_cmd *sc = arg;
	struct pollfd pfd = { .fd = sc->pidfd, .events = POLLIN };
	int wait_ms = sc->interval ? (int)sc->interval : 1000;
	double now, duration = sc->co.duration;

	if (duration > 0 && duration * 1000 < wait_ms)
		wait_ms = duration * 1000;
	poll(&pfd, pfd.fd >= 0, pfd.fd >= 0 ? wait_ms : 10);
	now = kt_elapsed(&sc->t0);
	if (sc->interval && (now - sc->last) * 1000 >= sc->interval) {
		print_counts(sc->ctx, sc->st, now, sc->prev, sc->what);
		sc->last = now;
	}
	*gone = sc->gone || (pfd.fd >= 0 && poll(&pfd, 1, 0) > 0);
	return 0;
}

static void stat_help(struct kt_ctx *ctx)
{
	const char *const *c = ktrace_stat_counter_names();

	fputs(stat_usage, ctx->out);
	fputs("\nCounters:", ctx->out);
	for (int i = 0; c[i]; i++)
		fprintf(ctx->out, "%s %s", i ? "," : "", c[i]);
	fputs(" (hardware ones need a PMU)\n", ctx->out);
}

/* The command line into sc. -1 to go on, else the exit status (--help,
 * a usage error). */
static int stat_parse(struct stat_cmd *sc, int argc, char **argv)
{
	struct kt_ctx *ctx = sc->ctx;
	struct kt_target *tg = &sc->co.tg;
	int opt, ret;
	char *end;

	while ((opt = getopt_long(argc, argv, "+:e:p:aC:I:d:o:jh", stat_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'o':
			sc->output = optarg;
			continue;
		case 'I':
			errno = 0;
			sc->interval = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end ||
			    sc->interval < 10 || sc->interval > 3600000)
				return kt_usage_error(ctx, NULL,
						      "bad interval '%s' (milliseconds, 10 to 3600000)",
						      optarg);
			continue;
		case 'j':
			ctx->json = true;
			continue;
		case 'h':
			stat_help(ctx);
			return KT_OK;
		}
		ret = kt_capture_opt(ctx, &sc->co, opt, optarg);
		if (ret < 0)
			ret = kt_bad_option(ctx, stat_usage, opt,
					    argv[optind - 1]);
		if (ret)
			return ret;
	}
	ret = kt_target_check(ctx, tg, argc - optind, argv + optind);
	if (ret)
		return ret;
	if (tg->ncpus && (tg->argc || tg->npids))
		return kt_usage_error(ctx, NULL,
				      "-C counts CPUs system-wide: not with a command or -p");
	return -1;
}

/* The counters of -e (or the default ones), inline probes made, opened
 * for the target; the command is forked and waits to be started. */
static int stat_open(struct stat_cmd *sc)
{
	struct kt_target *tg = &sc->co.tg;
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_stat_opts so = { 0 };
	int ret, pid;

	sc->st = ktrace_stat_alloc(sc->ctx->tfs);
	if (!sc->st)
		return kt_error(sc->ctx, KT_FAIL, "out of memory");
	if (sc->co.nspecs)
		ret = kt_events_expand(sc->ctx, &sc->inl, sc->co.specs,
				       sc->co.nspecs, add_one, sc);
	else
		ret = kt_events_expand(sc->ctx, &sc->inl, default_events,
				       sizeof(default_events) /
				       sizeof(*default_events), add_one, sc);
	if (ret)
		return ret;
	ret = kt_target_prepare(sc->ctx, tg, false);
	if (ret)
		return ret;
	pid = tg->npids ? tg->pids[0] : -1;
	kt_target_describe(tg, sc->what, sizeof(sc->what));
	sc->prev = calloc(3 * ktrace_stat_count(sc->st) + 1,
			  sizeof(*sc->prev));
	if (!sc->prev)
		return kt_error(sc->ctx, KT_FAIL, "out of memory");
	so.pid = pid;
	so.cpus = tg->cpus;
	so.nr_cpus = tg->ncpus;
	so.inherit = pid > 0;
	so.enable_on_exec = tg->argc > 0;
	if (ktrace_stat_open(sc->st, &so, &err) < 0) {
		ret = kt_error_detail(sc->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
	}
	return ret;
}

/*
 * The counts' stream: stderr, as perf stat's (the command's output on
 * stdout stays its own), or -o FILE. It is ctx->out while stat runs, so
 * that its text and JSON (the counts, or an error under --json) go there.
 */
static int results_open(struct stat_cmd *sc)
{
	struct kt_ctx *ctx = sc->ctx;

	sc->res = sc->output ? fopen(sc->output, "we") : ctx->err;
	if (!sc->res)
		return kt_error(ctx, KT_FAIL, "cannot create '%s': %s",
				sc->output, strerror(errno));
	sc->out = ctx->out;
	ctx->out = sc->res;
	return KT_OK;
}

/* ctx->out as it was; the counts' JSON closed, -o's file too. ret, or
 * KT_FAIL when they could not be written. */
static int results_close(struct stat_cmd *sc, int ret)
{
	struct kt_ctx *ctx = sc->ctx;
	int werr;

	if (!sc->res)
		return ret;
	werr = kt_json_free(ctx->jw) < 0 ? EIO : 0;
	ctx->jw = NULL;
	if (fflush(sc->res) == EOF)
		werr = errno;
	else if (ferror(sc->res))	/* a flush of the counts failed */
		werr = EIO;
	ctx->out = sc->out;
	if (sc->output && fclose(sc->res) && !werr)
		werr = errno;
	if (werr && sc->output)
		return kt_error(ctx, KT_FAIL, "cannot write '%s': %s",
				sc->output, strerror(werr));
	return ret;
}

int cmd_stat(struct kt_ctx *ctx, int argc, char **argv)
{
	struct stat_cmd sc = { .ctx = ctx, .co = KT_CAPTURE_OPTS_INIT,
			       .pidfd = -1 };
	struct kt_target *tg = &sc.co.tg;
	bool stopped = false;
	int ret, status, pid;

	tg->max_pids = 1;	/* the counters follow one process */
	sc.co.lists = true;
	ret = stat_parse(&sc, argc, argv);
	if (ret >= 0)
		goto out;
	ret = results_open(&sc);
	if (ret)
		goto out;
	if (!kt_tfs(ctx)) {
		ret = KT_FAIL;
		goto out;
	}
	kt_signals_install(&sc.sigs);
	ret = stat_open(&sc);
	if (ret)
		goto out;
	if (!tg->argc)
		ktrace_stat_enable(sc.st);
	clock_gettime(CLOCK_MONOTONIC, &sc.t0);
	ret = kt_target_start(ctx, tg);
	if (ret)
		goto out;
	/* Wake up when the child exits (pidfd), an interval ends or a
	 * signal comes. */
	pid = tg->npids ? tg->pids[0] : -1;
	sc.pidfd = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	/* gone before it could be watched: its end is now, not never */
	sc.gone = pid > 0 && sc.pidfd < 0 && errno == ESRCH;
	stopped = kt_loop_run(tg, &sc.t0, sc.co.duration, stat_round, &sc) ==
		  KT_LOOP_DURATION;
	ktrace_stat_disable(sc.st);
	print_counts(ctx, sc.st, kt_elapsed(&sc.t0), NULL, sc.what);
	kt_inline_report_misses(ctx, &sc.inl);
out:
	/* A workload still running after -d or a signal is stopped. */
	status = kt_target_finish(tg, kt_stop_signal || ret || stopped);
	if (sc.pidfd >= 0)
		close(sc.pidfd);
	ktrace_stat_free(sc.st);	/* the counters go before their probes */
	kt_inline_destroy(ctx, &sc.inl);
	kt_signals_restore(&sc.sigs);
	free(sc.prev);
	kt_capture_opts_free(&sc.co);
	ret = results_close(&sc, ret);
	/* The workload's exit status, unless -d ended it on purpose. */
	return kt_target_status(tg, ret, status, stopped);
}
