// SPDX-License-Identifier: GPL-2.0-only
/*
 * Target for record/stat tests. Usage: syscaller N [EXIT] [WAIT]
 * Makes exactly N getppid() system calls through syscall(2) (libc cannot
 * cache or elide them), from the noinline function burst(), then exits
 * with status EXIT (default 0).
 * WAIT: "wait" first blocks until SIGUSR1 arrives (for -p tests: start the
 * target, attach, then signal it); "loop" repeats the N calls every 10 ms
 * until SIGTERM/SIGINT (for -a, -C and signal tests).
 *
 * Built with frame pointers (the pragma below) so that the user call
 * stacks of -g reach main().
 */
#pragma GCC optimize("no-omit-frame-pointer")
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static volatile sig_atomic_t go, stop;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

__attribute__((noinline)) long burst(long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++)
		sum += syscall(SYS_getppid);
	return sum;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 1000;
	int status = argc > 2 ? atoi(argv[2]) : 0;
	const char *mode = argc > 3 ? argv[3] : "";
	struct sigaction sa;
	sigset_t mask, old;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	if (!strcmp(mode, "wait")) {
		/* Block SIGUSR1 first so that a signal sent before the wait
		 * is not lost. */
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, NULL);
		sigemptyset(&mask);
		sigaddset(&mask, SIGUSR1);
		sigprocmask(SIG_BLOCK, &mask, &old);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		while (!go)
			sigsuspend(&old);
		sigprocmask(SIG_SETMASK, &old, NULL);
		burst(n);
	} else if (!strcmp(mode, "loop")) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		sa.sa_handler = on_stop;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		while (!stop) {
			burst(n);
			nanosleep(&ts, NULL);
		}
	} else {
		burst(n);
	}
	return status;
}
