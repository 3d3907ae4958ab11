// SPDX-License-Identifier: GPL-2.0-only
/* Benchmark workload: calls bench_hit() exactly N times (argv[1], default 1e5). */
#include <stdlib.h>

#include "bench_rusage.h"

volatile long bench_sink;

__attribute__((noinline, used)) void bench_hit(long i)
{
	bench_sink += i;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;

	for (long i = 0; i < n; i++)
		bench_hit(i);
	bench_rusage_report();
	return 0;
}
