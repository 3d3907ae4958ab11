// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU-bound for sampling tests: main -> outer_spin -> inner_spin, busy
 * for MS milliseconds of its own CPU time (default 1000).
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

__attribute__((noipa)) void inner_spin(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i;
}

__attribute__((noipa)) void outer_spin(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		inner_spin();
}

int main(int argc, char **argv)
{
	outer_spin(argc > 1 ? atof(argv[1]) : 1000);
	return 0;
}
