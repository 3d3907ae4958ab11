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
	"Usage: ktrace stat [-e EVENT...] [-p PID | -a] [-C CPUS] [-I MS] [--json] [-- CMD ARGS...]\n"
	"Count events: tracepoints and probes (SYSTEM:EVENT, globs allowed), inline\n"
	"probes for this run ('kprobe:SPEC', 'uprobe:BINARY:SYMBOL' as in record) and the\n"
	"generic counters task-clock, context-switches, cpu-migrations, page-faults,\n"
	"cycles, instructions, cache-misses, branch-misses... Counters the machine\n"
	"lacks print 'not supported'. Without -e: the software counters and\n"
	"cycles/instructions.\n"
	"\n"
	"  -e, --event EVENT    event or counter (repeatable, comma lists allowed)\n"
	"  -p, --pid PID        an existing process (and its threads)\n"
	"  -a, --all-cpus       system-wide (default without CMD or -p)\n"
	"  -C, --cpu CPUS       only these CPUs (0,2-3), system-wide\n"
	"  -I, --interval MS    print the counts every MS milliseconds\n"
	"  -d, --duration SECS  stop after SECS seconds\n"
	"  -j, --json           JSON output\n"
	"  -h, --help           this help\n";

static const struct option stat_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "interval", required_argument, NULL, 'I' },
	{ "duration", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *const default_events[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"cycles", "instructions", NULL,
};

/*
 * Print the counts; with interval, the change since the previous interval
 * (prev, one entry per event, updated), as perf stat -I does.
 */
static void print_counts(struct kt_ctx *ctx, struct ktrace_stat *st,
			 double at, uint64_t *prev, const char *what)
{
	int n = ktrace_stat_count(st), nuser = 0;
	bool interval = prev != NULL;

	if (ctx->json) {
		struct kt_json *j = kt_json(ctx);

		if (!j)
			return;
		/* one document per interval (one line each), as perf does */
		kt_json_object_begin(j);
		kt_json_key(j, interval ? "time" : "elapsed");
		kt_json_double(j, at);
		kt_json_key(j, "counters");
		kt_json_array_begin(j);
		for (int i = 0; i < n; i++) {
			uint64_t v, en, run;
			int r = ktrace_stat_read(st, i, &v, &en, &run);

			if (!r && prev) {
				uint64_t d = v - prev[i];

				prev[i] = v;
				v = d;
			}

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
		return;
	}
	if (!interval)
		fprintf(ctx->out, "\n Performance counter stats for %s:\n\n",
			what);
	for (int i = 0; i < n; i++) {
		uint64_t v;
		int r = ktrace_stat_read(st, i, &v, NULL, NULL);
		char name[192];

		/* user space only, as perf stat marks it */
		snprintf(name, sizeof(name), "%s%s", ktrace_stat_name(st, i),
			 ktrace_stat_user_only(st, i) ? ":u" : "");
		nuser += ktrace_stat_user_only(st, i);

		if (!r && prev) {
			uint64_t d = v - prev[i];

			prev[i] = v;
			v = d;
		}

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

struct stat_add {
	struct kt_ctx *ctx;
	struct ktrace_stat *st;
};

static int add_one(void *arg, int i, const char *name)
{
	struct stat_add *sa = arg;
	struct ktrace_err err = { .pos = -1 };
	int ret;

	(void)i;
	if (ktrace_stat_add(sa->st, name, &err) < 0) {
		ret = kt_error_detail(sa->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	return KT_OK;
}

/* What stat's capture loop needs from round to round. */
struct stat_loop {
	struct kt_ctx *ctx;
	struct ktrace_stat *st;
	int pidfd;		/* of the process counted, or -1 */
	long interval;		/* -I, ms; 0: none */
	double duration, last;
	struct timespec t0;
	uint64_t *prev;		/* the counts at the last interval */
	const char *what;
};

/* A round: wait for the process's end or the next interval, and print
 * the interval's counts when it is due. */
static int stat_round(void *arg, bool *gone)
{
	struct stat_loop *sl = arg;
	struct pollfd pfd = { .fd = sl->pidfd, .events = POLLIN };
	int wait_ms = sl->interval ? (int)sl->interval : 1000;
	double now;

	if (sl->duration > 0 && sl->duration * 1000 < wait_ms)
		wait_ms = sl->duration * 1000;
	poll(&pfd, pfd.fd >= 0, pfd.fd >= 0 ? wait_ms : 10);
	now = kt_elapsed(&sl->t0);
	if (sl->interval && (now - sl->last) * 1000 >= sl->interval) {
		print_counts(sl->ctx, sl->st, now, sl->prev, sl->what);
		sl->last = now;
	}
	*gone = pfd.fd >= 0 && poll(&pfd, 1, 0) > 0;
	return 0;
}

int cmd_stat(struct kt_ctx *ctx, int argc, char **argv)
{
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_stat *st = NULL;
	struct kt_signals sigs = { 0 };
	struct kt_target tg = KT_TARGET_INIT;
	struct kt_inline inl = { 0 };
	struct stat_add sa = { .ctx = ctx };
	char **events = NULL, what[512];
	int nev = 0, ndef = 0, opt, ret = KT_OK, status, pid;
	double duration = 0;
	bool stopped = false;
	struct timespec t0;
	struct stat_loop sl = { .ctx = ctx, .pidfd = -1 };

	tg.max_pids = 1;	/* the counters follow one process */
	while ((opt = getopt_long(argc, argv, "+e:p:aC:I:d:jh", stat_opts,
				  NULL)) != -1) {
		char *end, *save = NULL, *tok, *copy;

		switch (opt) {
		case 'e':
			/* every name of a list is there: '' or 'a,,b' is a
			 * typo, not "the default counters" */
			if (!*optarg || (!kt_inline_is(optarg) &&
					 (*optarg == ',' || strstr(optarg, ",,") ||
					  optarg[strlen(optarg) - 1] == ','))) {
				ret = kt_usage_error(ctx, NULL,
						     "bad event list '%s': an empty event name",
						     optarg);
				goto out;
			}
			copy = strdup(optarg);
			/* Lists split at commas; an inline probe is whole. */
			for (tok = kt_inline_is(optarg) ? copy :
				   strtok_r(copy, ",", &save); tok;
			     tok = kt_inline_is(optarg) ? NULL :
				   strtok_r(NULL, ",", &save)) {
				char **nv = realloc(events, (nev + 2) *
							    sizeof(*nv));

				if (!nv)
					break;
				events = nv;
				events[nev++] = strdup(tok);
				events[nev] = NULL;
			}
			free(copy);
			break;
		case 'p':
		case 'a':
		case 'C':
			ret = kt_target_opt(ctx, &tg, opt, optarg);
			if (ret)
				goto out;
			break;
		case 'I':
			errno = 0;
			sl.interval = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end ||
			    sl.interval < 10 || sl.interval > 3600000) {
				ret = kt_usage_error(ctx, NULL,
						     "bad interval '%s' (milliseconds, 10 to 3600000)",
						     optarg);
				goto out;
			}
			break;
		case 'd':
			ret = kt_seconds_parse(ctx, optarg, &duration);
			if (ret)
				goto out;
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'h': {
			const char *const *c = ktrace_stat_counter_names();

			fputs(stat_usage, ctx->out);
			fputs("\nCounters:", ctx->out);
			for (int i = 0; c[i]; i++)
				fprintf(ctx->out, "%s %s", i ? "," : "", c[i]);
			fputs(" (hardware ones need a PMU)\n", ctx->out);
			goto out;
		}
		default:
			ret = kt_usage_error(ctx, stat_usage, "bad option '%s'",
					     argv[optind - 1]);
			goto out;
		}
	}
	argc -= optind;
	argv += optind;
	ret = kt_target_check(ctx, &tg, argc, argv);
	if (ret)
		goto out;
	if (tg.ncpus && (tg.argc || tg.npids)) {
		ret = kt_usage_error(ctx, NULL,
				     "-C counts CPUs system-wide: not with a command or -p");
		goto out;
	}
	if (!kt_tfs(ctx)) {
		ret = KT_FAIL;
		goto out;
	}
	kt_signals_install(&sigs);
	st = ktrace_stat_alloc(ctx->tfs);
	if (!st) {
		ret = kt_error(ctx, KT_FAIL, "out of memory");
		goto out;
	}
	sa.st = st;
	if (!nev) {
		while (default_events[ndef])
			ndef++;
	}
	ret = kt_events_expand(ctx, &inl, nev ? events :
			       (char **)default_events, nev ? nev : ndef,
			       add_one, &sa);
	if (ret)
		goto out;
	ret = kt_target_prepare(ctx, &tg, false);
	if (ret)
		goto out;
	pid = tg.npids ? tg.pids[0] : -1;
	kt_target_describe(&tg, what, sizeof(what));
	sl.prev = calloc(ktrace_stat_count(st) + 1, sizeof(*sl.prev));
	if (!sl.prev) {
		ret = kt_error(ctx, KT_FAIL, "out of memory");
		goto out;
	}
	if (ktrace_stat_open(st, pid, tg.cpus, tg.ncpus, pid > 0, tg.argc > 0,
			     &err) < 0) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		goto out;
	}
	if (!tg.argc)
		ktrace_stat_enable(st);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = kt_target_start(ctx, &tg);
	if (ret)
		goto out;
	/* Wake up when the child exits (pidfd), an interval ends or a
	 * signal comes. */
	sl.pidfd = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	sl.st = st;
	sl.t0 = t0;
	sl.duration = duration;
	sl.what = what;
	stopped = kt_loop_run(&tg, &t0, duration, stat_round, &sl) ==
		  KT_LOOP_DURATION;
	ktrace_stat_disable(st);
	if (sl.pidfd >= 0)
		close(sl.pidfd);
	print_counts(ctx, st, kt_elapsed(&t0), NULL, what);
	kt_inline_report_misses(ctx, &inl);
out:
	/* A workload still running after -d or a signal is stopped. */
	status = kt_target_finish(&tg, kt_stop_signal || ret || stopped);
	ktrace_stat_free(st);	/* the counters go before their probes */
	kt_inline_destroy(ctx, &inl);
	kt_signals_restore(&sigs);
	free(sl.prev);
	ktrace_err_clear(&err);
	for (int i = 0; i < nev; i++)
		free(events[i]);
	free(events);
	/* The workload's exit status, unless -d/-c ended it on purpose. */
	ret = kt_target_status(&tg, ret, status, stopped);
	return ret;
}
