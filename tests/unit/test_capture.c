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
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'e', "a:b,c:d"), KT_OK);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'f', "pid == 1"), KT_OK);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'f', "pid == 2"),
			 KT_USAGE);
	assert_string_equal(diag_text(&d),
		"ktrace: two --filter for -e 'a:b,c:d'\n");
	assert_int_equal(co.nspecs, 2);
	assert_string_equal(co.specs[0], "sched:*");
	assert_string_equal(co.specs[1], "a:b,c:d");	/* not a list here */
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
	assert_int_equal(kt_capture_opt(&d.ctx, &co, 'I', "100"), -1);
	assert_int_equal(kt_capture_opt(&d.ctx, &co, '?', NULL), -1);
	kt_target_finish(&co.tg, false);
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
		cmocka_unit_test(test_opts_target_duration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
