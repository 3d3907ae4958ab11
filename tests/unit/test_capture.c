// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the capture loop record, stat and top share (cmd/capture.c). */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_ends),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_exited),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_parse_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
