// SPDX-License-Identifier: GPL-2.0-only
/*
 * A known call chain for stack tests, built the way Debian builds its
 * binaries (-O2, no frame pointers): main -> alpha_fn -> beta_fn ->
 * gamma_fn -> syscall(getppid), N times. noipa keeps every frame.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile long sink;

__attribute__((noipa)) void gamma_fn(void)
{
	sink += syscall(SYS_getppid);
}

__attribute__((noipa)) void beta_fn(void)
{
	gamma_fn();
	sink++;
}

__attribute__((noipa)) void alpha_fn(void)
{
	beta_fn();
	sink++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++)
		alpha_fn();
	return 0;
}
