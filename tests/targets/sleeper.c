// SPDX-License-Identifier: GPL-2.0-only
/*
 * Target for latency tests. Usage: sleeper N [wait]
 * Calls the noipa function nap() N times for each of 20 ms, 45 ms and
 * 100 ms (clock_nanosleep), in that order: durations well inside the log2
 * buckets (16K, 32K], (32K, 64K] and (64K, 128K] microseconds, so timer
 * slack and a loaded emulator (qemu TCG) do not move them across a
 * border.
 * Each nap's duration as the program itself saw it (around the call,
 * CLOCK_MONOTONIC) goes to stdout, "nap USECS", so a test can hold the
 * kernel's measure against it whatever the load did to the sleeps.
 * "wait": first block until SIGUSR1 arrives (for -p tests).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

__attribute__((noipa)) void nap(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts))
		;
}

static void timed_nap(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	nap(us);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("nap %ld\n", (long)((b.tv_sec - a.tv_sec) * 1000000 +
				   (b.tv_nsec - a.tv_nsec) / 1000));
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;

	if (argc > 2 && !strcmp(argv[2], "wait")) {
		signal(SIGUSR1, on_usr1);
		while (!go)
			pause();
	}
	for (long i = 0; i < n; i++)
		timed_nap(20000);
	for (long i = 0; i < n; i++)
		timed_nap(45000);
	for (long i = 0; i < n; i++)
		timed_nap(100000);
	return 0;
}
