// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared by the benchmark workloads: at exit, write the process's own CPU
 * time ("user_us sys_us", getrusage(RUSAGE_SELF)) to $BENCH_RUSAGE when it
 * is set. That is the workload's share, in-kernel tracing work done in its
 * context included; bench/run.sh subtracts it from the tracer's total.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static void bench_rusage_report(void)
{
	const char *path = getenv("BENCH_RUSAGE");
	struct rusage ru;
	FILE *f;

	if (!path || !*path || getrusage(RUSAGE_SELF, &ru))
		return;
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "%lld %lld\n",
		ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec,
		ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec);
	fclose(f);
}
