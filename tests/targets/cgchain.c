// SPDX-License-Identifier: GPL-2.0-only
/*
 * A call chain with a known split of the work, for report --children,
 * --callers, --callees and --diff: main -> alpha -> beta -> gamma, each
 * spinning in its own body (no helper to hold the time) for 1, 2 and 4
 * units a round (self 1/7, 2/7, 4/7; children 7/7, 6/7, 4/7), for MS
 * milliseconds of CPU time. "cgchain MS alpha" swaps the ends: alpha 4,
 * gamma 1 (the hot function moves from gamma to alpha). noipa keeps every
 * frame and every loop where it is written.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define UNIT 20000

static int units_alpha = 1, units_gamma = 4;

/* the spin, written out in each function's own body */
#define SPIN(units) do { \
		for (volatile long i_ = 0; i_ < (long)(units) * UNIT; i_++) \
			; \
	} while (0)

/* libm's gamma() is a builtin; this one is ours (no libm linked) */
#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"
__attribute__((noipa)) void gamma(void)
{
	SPIN(units_gamma);
}

__attribute__((noipa)) void beta(void)
{
	SPIN(2);
	gamma();
}

__attribute__((noipa)) void alpha(void)
{
	SPIN(units_alpha);
	beta();
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 1000;

	if (argc > 2 && !strcmp(argv[2], "alpha")) {
		units_alpha = 4;
		units_gamma = 1;
	}
	while (cpu_ms() < ms)
		alpha();
	return 0;
}
