// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmark workload of bench/latency-vm.sh: two threads pass a token back
 * and forth through a futex, exactly N round trips (argv[1], default 1e5):
 * the main thread hands it over and sleeps until it comes back, the other
 * thread ("bench_pong") sleeps until it has it and hands it back. Each
 * thread is thus woken by the other up to N times, 2N wakeups in all.
 *
 * Both threads are SCHED_BATCH (argv[2] "normal" keeps SCHED_OTHER): a
 * batch task's wakeup does not preempt the waker, so the waker runs on to
 * its own futex wait and every hand-over finds the other thread asleep,
 * one wakeup each, and no thread is preempted in the middle (which
 * perf sched latency would count and a wakeup latency does not). A tick
 * can still preempt a thread between its hand-over and its wait; the
 * hand-over then wakes no one, so the wakeups each thread received are
 * counted from FUTEX_WAKE's return value and printed on stderr at exit:
 *   bench_pingpong: n=N pid=P tid=T main_woken=A pong_woken=B
 * (P the main thread, T the other; A and B the wakeups by the other
 * thread, at most N each). Other wakeups of the process, not counted
 * there: the tracer's release of the command before exec, and the main
 * thread's wait for the other's exit (pthread_join) when it has to sleep.
 * Built static: no dynamic loader in the run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench_rusage.h"

static _Atomic int turn;	/* 0: the main thread's, 1: the other's */
static long rounds;
static long woken[2];		/* wakeups each thread got from the other */
static pid_t pong_tid;

static long futex(_Atomic int *addr, int op, int val)
{
	return syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

/* Sleep until the token is me's. */
static void wait_turn(int me)
{
	int v;

	while ((v = atomic_load(&turn)) != me)
		if (futex(&turn, FUTEX_WAIT_PRIVATE, v) < 0 &&
		    errno != EAGAIN && errno != EINTR) {
			perror("bench_pingpong: FUTEX_WAIT");
			exit(1);
		}
}

/* Give the token to the other thread and wake it if it sleeps. */
static void pass(int me)
{
	long n;

	atomic_store(&turn, !me);
	n = futex(&turn, FUTEX_WAKE_PRIVATE, 1);
	if (n < 0) {
		perror("bench_pingpong: FUTEX_WAKE");
		exit(1);
	}
	woken[!me] += n;
}

static void *pong(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "bench_pong");
	pong_tid = (pid_t)syscall(SYS_gettid);
	for (long i = 0; i < rounds; i++) {
		wait_turn(1);
		pass(1);
	}
	return NULL;
}

static int set_policy(int policy)
{
	struct sched_param sp = { .sched_priority = 0 };

	return sched_setscheduler(0, policy, &sp);
}

int main(int argc, char **argv)
{
	int policy = SCHED_BATCH;
	pthread_t t;
	int err;

	rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
	if (argc > 2 && !strcmp(argv[2], "normal"))
		policy = SCHED_OTHER;
	if (rounds < 1 || argc > 3) {
		fputs("usage: bench_pingpong [N [normal]]\n", stderr);
		return 2;
	}
	/* the new thread inherits the policy */
	if (set_policy(policy)) {
		perror("bench_pingpong: sched_setscheduler");
		return 1;
	}
	atomic_store(&turn, 0);
	err = pthread_create(&t, NULL, pong, NULL);
	if (err) {
		fprintf(stderr, "bench_pingpong: pthread_create: %s\n",
			strerror(err));
		return 1;
	}
	for (long i = 0; i < rounds; i++) {
		pass(0);
		wait_turn(0);
	}
	pthread_join(t, NULL);
	bench_rusage_report();
	fprintf(stderr,
		"bench_pingpong: n=%ld pid=%d tid=%d main_woken=%ld pong_woken=%ld\n",
		rounds, (int)getpid(), (int)pong_tid, woken[0], woken[1]);
	return 0;
}
