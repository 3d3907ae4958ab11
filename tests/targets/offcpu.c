// SPDX-License-Identifier: GPL-2.0-only
/*
 * Target for off-CPU tests (record --off-cpu). Usage: offcpu [wait]
 * main waits in three known places, each in a noipa function of its own:
 *	wait_pipe:  read(2) of a pipe that a thread writes 300 ms later
 *	wait_sleep: nanosleep(2) for 100 ms
 *	wait_futex: FUTEX_WAIT on a word that a thread wakes 50 ms later
 * The threads that write and wake are named "waker" (their own sleeps are
 * theirs, not main's). Each wait's length as main saw it (around the
 * call, CLOCK_MONOTONIC) goes to stdout, "NAME USECS".
 * "wait": first block until SIGUSR1 arrives (for -p tests).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int pipefd[2];
static atomic_int word;
static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts))
		;
}

static void *write_later(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "waker");
	sleep_ms(300);
	if (write(pipefd[1], "x", 1) != 1)
		perror("write");
	return NULL;
}

static void *wake_later(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "waker");
	sleep_ms(50);
	atomic_store(&word, 1);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return NULL;
}

__attribute__((noipa)) void wait_pipe(void)
{
	char c;

	if (read(pipefd[0], &c, 1) != 1)
		perror("read");
}

__attribute__((noipa)) void wait_sleep(void)
{
	sleep_ms(100);
}

__attribute__((noipa)) void wait_futex(void)
{
	while (!atomic_load(&word))
		syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL,
			0);
}

static long usecs_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000000 +
	       (b.tv_nsec - a->tv_nsec) / 1000;
}

/* fn, with the thread that ends its wait (NULL: none), timed. */
static void timed(const char *name, void (*fn)(void), void *(*ender)(void *))
{
	struct timespec a;
	pthread_t t;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if (ender && pthread_create(&t, NULL, ender, NULL)) {
		perror("pthread_create");
		return;
	}
	fn();
	printf("%s %ld\n", name, usecs_since(&a));
	if (ender)
		pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		sigset_t none, usr1;

		/* blocked until sigsuspend() waits: none is missed */
		sigemptyset(&none);
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		signal(SIGUSR1, on_usr1);
		printf("ready\n");
		fflush(stdout);
		while (!go)
			sigsuspend(&none);
	}
	if (pipe(pipefd)) {
		perror("pipe");
		return 1;
	}
	timed("wait_pipe", wait_pipe, write_later);
	timed("wait_sleep", wait_sleep, NULL);
	timed("wait_futex", wait_futex, wake_later);
	return 0;
}
