// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for what record, stat and top share (cmd/capture.c): the
 * capture loop, the options parser, -m's ring sizes. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "ktrace_cmd.h"

/* A round that says what it was told to, counting its calls. */
struct script {
	int rounds;
	int stop_at;		/* this round returns ret; 0: never */
	int ret;
	int gone_at;		/* from this round on, gone; 0: never */
	int signal_at;		/* this round sets kt_stop_signal; 0: never */
};

static int scripted(void *arg, bool *gone)
{
	struct script *s = arg;

	s->rounds++;
	if (s->gone_at && s->rounds >= s->gone_at)
		*gone = true;
	if (s->signal_at && s->rounds == s->signal_at)
		kt_stop_signal = SIGINT;
	return s->stop_at && s->rounds == s->stop_at ? s->ret : 0;
}

static enum kt_loop_end run(struct kt_target *t, struct script *s,
			    double duration)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	kt_stop_signal = 0;
	return kt_loop_run(t, &t0, duration, scripted, s);
}

/* The round's own stop and failure end the loop at once. */
static void test_round_ends(void **state)
{
	struct kt_target t = KT_TARGET_INIT;
	struct script s = { .stop_at = 3, .ret = 1 };

	(void)state;
	assert_int_equal(run(&t, &s, 0), KT_LOOP_COMMAND);
	assert_int_equal(s.rounds, 3);
	s = (struct script){ .stop_at = 2, .ret = -1 };
	assert_int_equal(run(&t, &s, 0), KT_LOOP_FAILED);
	assert_int_equal(s.rounds, 2);
}

/* A signal ends it after the round that saw it. */
static void test_signal(void **state)
{
	struct kt_target t = KT_TARGET_INIT;
	struct script s = { .signal_at = 4 };

	(void)state;
	assert_int_equal(run(&t, &s, 0), KT_LOOP_SIGNAL);
	assert_int_equal(s.rounds, 4);
	kt_stop_signal = 0;
}

/*
 * "Every traced process is gone" ends a -p run; with a command, the end
 * is the command's exit (a ring hangs up before the exit is seen), and
 * system-wide nothing is traced by pid.
 */
static void test_gone(void **state)
{
	int pid = 1;
	char *argv[] = { "true", NULL };
	struct kt_target t = KT_TARGET_INIT;
	struct script s = { .gone_at = 2 };

	(void)state;
	t.pids = &pid;
	t.npids = 1;
	assert_int_equal(run(&t, &s, 0), KT_LOOP_GONE);
	assert_int_equal(s.rounds, 2);
	/* a command (its pid in pids, as kt_target_prepare leaves it) */
	t.argc = 1;
	t.argv = argv;
	s = (struct script){ .gone_at = 1, .stop_at = 5, .ret = 1 };
	assert_int_equal(run(&t, &s, 0), KT_LOOP_COMMAND);
	assert_int_equal(s.rounds, 5);
	/* system-wide */
	t = (struct kt_target)KT_TARGET_INIT;
	t.all = true;
	s = (struct script){ .gone_at = 1, .stop_at = 5, .ret = 1 };
	assert_int_equal(run(&t, &s, 0), KT_LOOP_COMMAND);
}

/* The command's exit ends it, and the command is reaped. */
static void test_exited(void **state)
{
	struct kt_target t = KT_TARGET_INIT;
	struct script s = { 0 };
	pid_t pid = fork();

	(void)state;
	assert_true(pid >= 0);
	if (!pid)
		_exit(7);
	t.wl.pid = pid;
	t.argc = 1;
	assert_int_equal(run(&t, &s, 0), KT_LOOP_EXITED);
	assert_true(s.rounds >= 1);
	assert_true(WIFEXITED(t.wl.status) && WEXITSTATUS(t.wl.status) == 7);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
}

/* -d: the loop ends once the duration has passed, not before. */
static void test_duration(void **state)
{
	struct kt_target t = KT_TARGET_INIT;
	struct script s = { 0 };
	struct timespec t0;

	(void)state;
	t.all = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kt_stop_signal = 0;
	assert_int_equal(kt_loop_run(&t, &t0, 0.05, scripted, &s),
			 KT_LOOP_DURATION);
	assert_true(kt_elapsed(&t0) >= 0.05);
	assert_true(s.rounds > 1);
}

static void test_parse_pages(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = 0;

	(void)state;
	assert_int_equal(kt_ring_pages_parse("256", &n), 0);
	assert_int_equal(n, 256);
	/* pages: a power of two, as the usage says; sizes round up */
	assert_int_equal(kt_ring_pages_parse("100", &n), -EINVAL);
	assert_int_equal(kt_ring_pages_parse("3", &n), -EINVAL);
	assert_int_equal(kt_ring_pages_parse("1", &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(kt_ring_pages_parse("12K", &n), 0);
	assert_int_equal(n, page == 4096 ? 4 : 1);
	assert_int_equal(kt_ring_pages_parse("4M", &n), 0);
	assert_int_equal(n, (4 << 20) / page);
	assert_int_equal(kt_ring_pages_parse("512k", &n), 0);
	assert_int_equal(n, (512 << 10) / page);
	assert_int_equal(kt_ring_pages_parse("1KiB", &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(kt_ring_pages_parse("0", &n), -EINVAL);
	assert_int_equal(kt_ring_pages_parse("", &n), -EINVAL);
	assert_int_equal(kt_ring_pages_parse("-4", &n), -EINVAL);
	assert_int_equal(kt_ring_pages_parse("4X", &n), -EINVAL);
	assert_int_equal(kt_ring_pages_parse("4Mx", &n), -EINVAL);
	assert_int_equal(kt_ring_pages_parse("2G", &n), -ERANGE);
	assert_int_equal(kt_ring_pages_parse("99999999999999999999", &n),
			 -ERANGE);
}

/* A context whose diagnostics go to a memory buffer. */
struct diag {
	struct kt_ctx ctx;
	char *buf;
	size_t len;
};

static void diag_open(struct diag *d)
{
	*d = (struct diag){ 0 };
	d->ctx.err = open_memstream(&d->buf, &d->len);
	d->ctx.out = d->ctx.err;
	assert_non_null(d->ctx.err);
}

/* What was printed since the last call, then forgotten. */
static const char *diag_text(struct diag *d)
{
	static char last[512];

	fclose(d->ctx.err);
	snprintf(last, sizeof(last), "%s", d->buf);
	free(d->buf);
	diag_open(d);
	return last;
}

static void diag_close(struct diag *d)
{
	fclose(d->ctx.err);
	free(d->buf);
}

/* -e keeps its events in order, as copies; --filter goes with the -e
 * before it, once. */
static void test_opts_events_filters(void **state)
{
	struct kt_capture_opts co = KT_CAPTURE_OPTS_INIT;
	char arg[] = "sched:*";
	struct diag d;

	(void)state;
	diag_open(&d);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'f', "x == 1"), KT_USAGE);
	assert_string_equal(diag_text(&d),
		"ktrace: --filter must follow the -e it applies to\n");
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'e', arg), KT_OK);
	arg[0] = 'X';
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'e', "a:b"), KT_OK);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'f', "pid == 1"), KT_OK);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'f', "pid == 2"),
			 KT_USAGE);
	assert_string_equal(diag_text(&d),
		"ktrace: two --filter for -e 'a:b'\n");
	assert_int_equal(co.nspecs, 2);
	assert_string_equal(co.specs[0], "sched:*");
	assert_string_equal(co.specs[1], "a:b");
	assert_null(co.filters[0]);
	assert_string_equal(co.filters[1], "pid == 1");
	kt_capture_opts_free(&co);
	assert_int_equal(co.nspecs, 0);
	assert_null(co.specs);
	diag_close(&d);
}

/* With lists (stat), -e splits at commas, except an inline probe; an
 * empty name anywhere in a list is refused. */
static void test_opts_lists(void **state)
{
	static const char *const bad[] = { "", ",a", "a,", "a,,b" };
	struct kt_capture_opts co = KT_CAPTURE_OPTS_INIT;
	struct diag d;

	(void)state;
	diag_open(&d);
	co.lists = true;
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'e', "cycles,x:y"),
			 KT_OK);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'e',
					 "uprobe:/bin/sh:main a=%di,b"), KT_OK);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'e', "task-clock"),
			 KT_OK);
	assert_int_equal(co.nspecs, 4);
	assert_string_equal(co.specs[0], "cycles");
	assert_string_equal(co.specs[1], "x:y");
	assert_string_equal(co.specs[2], "uprobe:/bin/sh:main a=%di,b");
	assert_string_equal(co.specs[3], "task-clock");
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char want[128];

		assert_int_equal(kt_capture_opt(&d.ctx, &co, 'e', bad[i]),
				 KT_USAGE);
		snprintf(want, sizeof(want),
			 "ktrace: bad event list '%s': an empty event name\n",
			 bad[i]);
		assert_string_equal(diag_text(&d), want);
	}
	assert_int_equal(co.nspecs, 4);
	kt_capture_opts_free(&co);
	diag_close(&d);
}

/* Each -e is an inline probe, a perf event's name or a SYSTEM:EVENT
 * glob; anything else is refused as it is parsed, a list's names one by
 * one (without lists a comma is no list: refused too). */
static void test_opts_event_check(void **state)
{
	static const char *const good[] = {
		"sched:sched_*", "cpu-clock", "sys*:*enter_[rw]*",
		"kprobe:do_sys_open+0x10 fd=%di", "uretprobe:/bin/sh:main",
	};
	static const char *const bad[] = {
		"a b", "a:b:c", "x:[ab", "x/y", "a..b:c", "a:b,c:d",
	};
	static const char fmt[] =
		"ktrace: bad event '%s': expected SYSTEM:EVENT (globs allowed), a perf event (cpu-clock...) or kprobe:/kretprobe:/uprobe:/uretprobe:SPEC\n";
	struct kt_capture_opts co = KT_CAPTURE_OPTS_INIT;
	char want[256];
	struct diag d;

	(void)state;
	diag_open(&d);
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		assert_int_equal(kt_capture_opt(&d.ctx, &co, 'e', good[i]),
				 KT_OK);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(kt_capture_opt(&d.ctx, &co, 'e', bad[i]),
				 KT_USAGE);
		snprintf(want, sizeof(want), fmt, bad[i]);
		assert_string_equal(diag_text(&d), want);
	}
	assert_int_equal(co.nspecs, 5);
	co.lists = true;
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'e', "cycles,a b,x:y"),
			 KT_USAGE);
	snprintf(want, sizeof(want), fmt, "a b");
	assert_string_equal(diag_text(&d), want);
	assert_int_equal(co.nspecs, 6);	/* cycles, before the bad one */
	assert_string_equal(co.specs[5], "cycles");
	kt_capture_opts_free(&co);
	diag_close(&d);
}

/* The target's options and -d; anything else is not the parser's. */
static void test_opts_target_duration(void **state)
{
	struct kt_capture_opts co = KT_CAPTURE_OPTS_INIT;
	struct diag d;

	(void)state;
	diag_open(&d);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'p', "12,34"), KT_OK);
	assert_int_equal(co.tg.npids, 2);
	assert_int_equal(co.tg.pids[1], 34);
	co.tg.max_pids = 1;
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'p', "12,34"), KT_USAGE);
	assert_string_equal(diag_text(&d),
		"ktrace: bad pid list '12,34' (one pid here)\n");
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'C', "0,2-3"), KT_OK);
	assert_int_equal(co.tg.ncpus, 3);
	assert_int_equal(co.tg.cpus[2], 3);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'a', NULL), KT_OK);
	assert_true(co.tg.all);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'd', "0.25"), KT_OK);
	assert_true(co.duration == 0.25);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'd', "0"), KT_USAGE);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'd', "inf"), KT_USAGE);
	/* decimal with an optional unit: no hex, no exponent, no blank */
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'd', "0x10"), KT_USAGE);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'd', "1e9"), KT_USAGE);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'd', " 5"), KT_USAGE);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'd', "1000000001"),
			 KT_USAGE);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'd', "250ms"), KT_OK);
	assert_true(co.duration == 0.25);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'd', "2"), KT_OK);
	assert_true(co.duration == 2);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'I', "100"), -1);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, '?', NULL), -1);
	kt_target_finish(&co.tg, false);
	kt_capture_opts_free(&co);
	diag_close(&d);
}

/* kernel.perf_event_max_sample_rate as the kernel says it now: the
 * highest -F (INT32_MAX, the sysctl's own bound, without /proc). */
static unsigned long long max_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long long v = INT32_MAX;

	if (f) {
		assert_int_equal(fscanf(f, "%llu", &v), 1);
		fclose(f);
	}
	return v;
}

/* What -F or -c says of arg. */
static const char *sample_refused(int opt, const char *arg,
				  unsigned long long max)
{
	static char want[192];

	if (opt == 'F')
		snprintf(want, sizeof(want),
			 "ktrace: bad frequency '%s' (samples a second, 1 to %llu: kernel.perf_event_max_sample_rate)\n",
			 arg, max);
	else
		snprintf(want, sizeof(want),
			 "ktrace: bad period '%s' (events per sample, 1 to 2^63-1)\n",
			 arg);
	return want;
}

/*
 * -F at the kernel's highest rate and one above. The kernel lowers the
 * rate when samples take too long (a tracer elsewhere on the machine):
 * false when it moved during the try.
 */
static bool rate_bounds(struct kt_capture_opts *co, struct diag *d)
{
	unsigned long long max = max_rate();
	char at[32], above[32];
	int ok, refused;
	const char *msg;

	snprintf(at, sizeof(at), "%llu", max);
	snprintf(above, sizeof(above), "%llu", max + 1);
	ok = kt_capture_opt(&d->ctx, co, 'F', at);
	refused = kt_capture_opt(&d->ctx, co, 'F', above);
	msg = diag_text(d);
	if (max_rate() != max)
		return false;
	assert_int_equal(ok, KT_OK);
	assert_int_equal(refused, KT_USAGE);
	assert_string_equal(msg, sample_refused('F', above, max));
	assert_int_equal(co->sample_freq, max);
	assert_int_equal(co->sample_period, 0);
	return true;
}

/* -F HZ and -c PERIOD: the last one given wins; 1 to the kernel's
 * highest rate, 1 to 2^63-1 (the kernel refuses bit 63 of a period);
 * nothing but digits. A refused one leaves the last good one. */
static void test_opts_sample_rate(void **state)
{
	static const char *const bad[] = {
		"0", "", "12x", "x", "-5", " 5", "+5", "0x10", "1e3", "1.5",
		"18446744073709551616",	/* ERANGE */
		"18446744073709551617",	/* 1 after wrapping */
	};
	struct kt_capture_opts co = KT_CAPTURE_OPTS_INIT;
	unsigned long long max = max_rate();
	int tries = 0;
	struct diag d;

	(void)state;
	diag_open(&d);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'F', "99"), KT_OK);
	assert_int_equal(co.sample_freq, 99);
	assert_int_equal(co.sample_period, 0);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'c', "1"), KT_OK);
	assert_int_equal(co.sample_freq, 0);
	assert_int_equal(co.sample_period, 1);
	while (!rate_bounds(&co, &d))
		assert_true(++tries < 10);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'c',
					 "9223372036854775807"), KT_OK);
	assert_true(co.sample_period == INT64_MAX);
	assert_int_equal(co.sample_freq, 0);
	assert_string_equal(diag_text(&d), "");

	/* 1 once cut to the unsigned int it is kept in */
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'F', "4294967297"),
			 KT_USAGE);
	max = max_rate();
	assert_string_equal(diag_text(&d),
			    sample_refused('F', "4294967297", max));
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'c',
					 "9223372036854775808"), KT_USAGE);
	assert_string_equal(diag_text(&d),
			    sample_refused('c', "9223372036854775808", max));
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(kt_capture_opt(&d.ctx, &co, 'F', bad[i]),
				 KT_USAGE);
		max = max_rate();
		assert_string_equal(diag_text(&d),
				    sample_refused('F', bad[i], max));
		assert_int_equal(kt_capture_opt(&d.ctx, &co, 'c', bad[i]),
				 KT_USAGE);
		assert_string_equal(diag_text(&d),
				    sample_refused('c', bad[i], max));
	}
	assert_true(co.sample_period == INT64_MAX);
	assert_int_equal(co.sample_freq, 0);
	kt_capture_opts_free(&co);
	diag_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_ends),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_exited),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_parse_pages),
		cmocka_unit_test(test_opts_events_filters),
		cmocka_unit_test(test_opts_lists),
		cmocka_unit_test(test_opts_event_check),
		cmocka_unit_test(test_opts_target_duration),
		cmocka_unit_test(test_opts_sample_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
