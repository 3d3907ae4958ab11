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
	"Usage: ktrace stat [-e EVENT...] [-p PID | -a] [-I MS] [--json] [-- CMD ARGS...]\n"
	"Count events: tracepoints and probes (SYSTEM:EVENT, globs allowed) and the\n"
	"generic counters task-clock, context-switches, cpu-migrations, page-faults,\n"
	"cycles, instructions, cache-misses, branch-misses... Counters the machine\n"
	"lacks print 'not supported'. Without -e: the software counters and\n"
	"cycles/instructions.\n"
	"\n"
	"  -e, --event EVENT    event or counter (repeatable, comma lists allowed)\n"
	"  -p, --pid PID        an existing process (and its threads)\n"
	"  -a, --all-cpus       system-wide (default without CMD or -p)\n"
	"  -I, --interval MS    print the counts every MS milliseconds\n"
	"  -d, --duration SECS  stop after SECS seconds\n"
	"  -j, --json           JSON output\n"
	"  -h, --help           this help\n";

static const struct option stat_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
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

static volatile sig_atomic_t stat_stop;

static void stat_signal(int sig)
{
	stat_stop = sig;
}

static double elapsed_s(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * Print the counts; with interval, the change since the previous interval
 * (prev, one entry per event, updated), as perf stat -I does.
 */
static void print_counts(struct kt_ctx *ctx, struct ktrace_stat *st,
			 double at, uint64_t *prev, const char *what)
{
	int n = ktrace_stat_count(st);
	bool interval = prev != NULL;

	if (ctx->json) {
		fprintf(ctx->out, "{%s%.6f, \"counters\": [",
			interval ? "\"time\": " : "\"elapsed\": ", at);
		for (int i = 0; i < n; i++) {
			uint64_t v, en, run;
			int r = ktrace_stat_read(st, i, &v, &en, &run);

			if (!r && prev) {
				uint64_t d = v - prev[i];

				prev[i] = v;
				v = d;
			}

			fputs(i ? ", {\"event\": " : "{\"event\": ", ctx->out);
			kt_json_str(ctx->out, ktrace_stat_name(st, i));
			if (r)
				fprintf(ctx->out, ", \"count\": null, \"supported\": false}");
			else
				fprintf(ctx->out, ", \"count\": %llu, \"supported\": true, \"enabled_ns\": %llu, \"running_ns\": %llu}",
					(unsigned long long)v,
					(unsigned long long)en,
					(unsigned long long)run);
		}
		fputs("]}\n", ctx->out);
		fflush(ctx->out);
		return;
	}
	if (!interval)
		fprintf(ctx->out, "\n Performance counter stats for %s:\n\n",
			what);
	for (int i = 0; i < n; i++) {
		uint64_t v;
		int r = ktrace_stat_read(st, i, &v, NULL, NULL);

		if (!r && prev) {
			uint64_t d = v - prev[i];

			prev[i] = v;
			v = d;
		}

		if (interval)
			fprintf(ctx->out, "%14.6f ", at);
		if (r)
			fprintf(ctx->out, "%20s      %s\n", "<not supported>",
				ktrace_stat_name(st, i));
		else if (!strcmp(ktrace_stat_name(st, i), "task-clock"))
			fprintf(ctx->out, "%20.2f msec %s\n", v / 1e6,
				ktrace_stat_name(st, i));
		else
			fprintf(ctx->out, "%20llu      %s\n",
				(unsigned long long)v,
				ktrace_stat_name(st, i));
	}
	if (!interval)
		fprintf(ctx->out, "\n %14.9f seconds time elapsed\n\n", at);
	fflush(ctx->out);
}

/* Add one -e item: a counter name, an exact event or a glob. */
static int add_event(struct kt_ctx *ctx, struct ktrace_stat *st,
		     const char *name)
{
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_events *evs;
	unsigned int hit = 0;
	int ret;

	if (!strchr(name, ':') || !strpbrk(name, "*?[")) {
		if (ktrace_stat_add(st, name, &err) < 0) {
			ret = kt_error_detail(ctx, KT_FAIL, &err);
			ktrace_err_clear(&err);
			return ret;
		}
		return KT_OK;
	}
	if (ktrace_glob_check(name))
		return kt_usage_error(ctx, NULL, "bad event pattern '%s'", name);
	evs = ktrace_events_alloc(ctx->tfs, &name, 1, &hit);
	if (!evs || !hit) {
		ktrace_events_free(evs);
		return kt_error(ctx, KT_FAIL, "no event matches '%s'", name);
	}
	for (int i = 0; i < ktrace_events_count(evs); i++) {
		const struct ktrace_event *e = ktrace_events_get(evs, i);
		char full[160];

		snprintf(full, sizeof(full), "%s:%s", e->system, e->name);
		if (ktrace_stat_add(st, full, &err) < 0) {
			ret = kt_error_detail(ctx, KT_FAIL, &err);
			ktrace_err_clear(&err);
			ktrace_events_free(evs);
			return ret;
		}
	}
	ktrace_events_free(evs);
	return KT_OK;
}

int cmd_stat(struct kt_ctx *ctx, int argc, char **argv)
{
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_stat *st = NULL;
	struct sigaction sa, oi, ot, oh;
	char **events = NULL, what[512];
	int nev = 0, opt, ret = KT_OK, go[2] = { -1, -1 }, status = 0;
	long pid = -1, interval = 0;
	double duration = 0, last = 0;
	bool all = false, sigs = false;
	pid_t child = -1;
	struct timespec t0;
	struct pollfd pfd = { .fd = -1 };
	uint64_t *prev = NULL;

	while ((opt = getopt_long(argc, argv, "+e:p:aI:d:jh", stat_opts,
				  NULL)) != -1) {
		char *end, *save = NULL, *tok, *copy;

		switch (opt) {
		case 'e':
			copy = strdup(optarg);
			for (tok = strtok_r(copy, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
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
			pid = strtol(optarg, &end, 10);
			if (*end || pid <= 0) {
				ret = kt_usage_error(ctx, NULL,
						     "bad pid '%s' (stat takes one pid)",
						     optarg);
				goto out;
			}
			break;
		case 'a':
			all = true;
			break;
		case 'I':
			interval = strtol(optarg, &end, 10);
			if (*end || interval < 10) {
				ret = kt_usage_error(ctx, NULL,
						     "bad interval '%s' (milliseconds, at least 10)",
						     optarg);
				goto out;
			}
			break;
		case 'd':
			duration = strtod(optarg, &end);
			if (*end || duration <= 0) {
				ret = kt_usage_error(ctx, NULL,
						     "bad duration '%s'", optarg);
				goto out;
			}
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			fputs(stat_usage, ctx->out);
			goto out;
		default:
			ret = kt_usage_error(ctx, stat_usage, "bad option '%s'",
					     argv[optind - 1]);
			goto out;
		}
	}
	argc -= optind;
	argv += optind;
	if ((argc && (pid > 0 || all)) || (pid > 0 && all)) {
		ret = kt_usage_error(ctx, NULL,
				     "give one target: a command, -p PID or -a");
		goto out;
	}
	if (!kt_tfs(ctx)) {
		ret = KT_FAIL;
		goto out;
	}
	st = ktrace_stat_alloc(ctx->tfs);
	if (!st) {
		ret = kt_error(ctx, KT_FAIL, "out of memory");
		goto out;
	}
	for (int i = 0; i < nev; i++)
		if ((ret = add_event(ctx, st, events[i])))
			goto out;
	for (int i = 0; !nev && default_events[i]; i++)
		if ((ret = add_event(ctx, st, default_events[i])))
			goto out;
	if (argc) {
		if (pipe2(go, O_CLOEXEC) < 0) {
			ret = kt_error(ctx, KT_FAIL, "pipe: %s", strerror(errno));
			goto out;
		}
		fflush(ctx->out);
		child = fork();
		if (child < 0) {
			ret = kt_error(ctx, KT_FAIL, "fork: %s", strerror(errno));
			goto out;
		}
		if (child == 0) {
			char c;

			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(127);
			execvp(argv[0], argv);
			fprintf(stderr, "ktrace stat: cannot run '%s': %s\n",
				argv[0], strerror(errno));
			_exit(127);
		}
		close(go[0]);
		go[0] = -1;
		pid = child;
		snprintf(what, sizeof(what), "'%s%s'", argv[0],
			 argc > 1 ? " ..." : "");
	} else if (pid > 0) {
		snprintf(what, sizeof(what), "process id '%ld'", pid);
	} else {
		snprintf(what, sizeof(what), "'system wide'");
	}
	prev = calloc(ktrace_stat_count(st) + 1, sizeof(*prev));
	if (!prev) {
		ret = kt_error(ctx, KT_FAIL, "out of memory");
		goto out;
	}
	if (ktrace_stat_open(st, pid, NULL, 0, pid > 0, child > 0, &err) < 0) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stat_signal;
	sigemptyset(&sa.sa_mask);
	stat_stop = 0;
	sigaction(SIGINT, &sa, &oi);
	sigaction(SIGTERM, &sa, &ot);
	sigaction(SIGHUP, &sa, &oh);
	sigs = true;
	if (child < 0)
		ktrace_stat_enable(st);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (child > 0) {
		if (write(go[1], "g", 1) != 1) {
			ret = kt_error(ctx, KT_FAIL, "cannot start '%s'",
				       argv[0]);
			goto out;
		}
		close(go[1]);
		go[1] = -1;
	}
	/* Wake up when the child exits (pidfd), an interval ends or a
	 * signal comes. */
	pfd.fd = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	pfd.events = POLLIN;
	while (!stat_stop) {
		double now;
		int wait_ms = interval ? (int)interval : 1000;

		if (duration > 0 && duration * 1000 < wait_ms)
			wait_ms = duration * 1000;
		poll(&pfd, pfd.fd >= 0, pfd.fd >= 0 ? wait_ms : 10);
		now = elapsed_s(&t0);
		if (interval && (now - last) * 1000 >= interval) {
			print_counts(ctx, st, now, prev, what);
			last = now;
		}
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child = -child;
			break;
		}
		/* -p: the process is gone. */
		if (child < 0 && pfd.fd >= 0 && poll(&pfd, 1, 0) > 0)
			break;
		if (duration > 0 && now >= duration)
			break;
	}
	ktrace_stat_disable(st);
	if (pfd.fd >= 0)
		close(pfd.fd);
	print_counts(ctx, st, elapsed_s(&t0), NULL, what);
out:
	if (sigs) {
		sigaction(SIGINT, &oi, NULL);
		sigaction(SIGTERM, &ot, NULL);
		sigaction(SIGHUP, &oh, NULL);
	}
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	if (child > 0) {
		if (stat_stop)
			kill(child, SIGTERM);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		child = -child;
	}
	ktrace_stat_free(st);
	free(prev);
	ktrace_err_clear(&err);
	for (int i = 0; i < nev; i++)
		free(events[i]);
	free(events);
	if (!ret && child < -1) {
		if (WIFEXITED(status))
			ret = WEXITSTATUS(status);
		else if (WIFSIGNALED(status))
			ret = 128 + WTERMSIG(status);
	}
	return ret;
}
