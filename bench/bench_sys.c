// SPDX-License-Identifier: GPL-2.0-only
/* Benchmark workload: exactly N getppid() system calls (argv[1], default 1e5). */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench_rusage.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	bench_rusage_report();
	return 0;
}
