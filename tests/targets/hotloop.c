// SPDX-License-Identifier: GPL-2.0-only
/*
 * For ktrace annotate: nearly all of its CPU time in one loop of one
 * function, hot_loop(), whose whole loop is one source line. Busy for MS
 * milliseconds of its own CPU time (default 1000); `hotloop line` prints
 * that line's number (the tests compare annotate's hottest line with it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static const int hot_line = __LINE__ + 7;

__attribute__((noipa)) unsigned long hot_loop(unsigned long n)
{
	unsigned long x = n;

	/* a chain of multiplies and divisions: the loop is the time */
	for (unsigned long i = 1; i <= n; i++) x = x * 2654435761u / i + (x >> 7);
	return x;
}

int main(int argc, char **argv)
{
	double end;

	if (argc > 1 && !strcmp(argv[1], "line")) {
		printf("%d\n", hot_line);
		return 0;
	}
	end = cpu_ms() + (argc > 1 ? atof(argv[1]) : 1000);
	while (cpu_ms() < end)
		sink += hot_loop(200000);
	return 0;
}
