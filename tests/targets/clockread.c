// SPDX-License-Identifier: GPL-2.0-only
/*
 * Time spent in the vdso, for [vdso] frames: main -> reader ->
 * clock_gettime (libc) -> __vdso_clock_gettime, N times.
 */
#include <stdlib.h>
#include <time.h>

volatile long sink;

__attribute__((noipa)) void reader(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	sink += t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;

	for (long i = 0; i < n; i++)
		reader();
	return 0;
}
