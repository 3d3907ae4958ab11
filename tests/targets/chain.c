// SPDX-License-Identifier: GPL-2.0-only
/*
 * A known call chain for stack tests, built the way Debian builds its
 * binaries (-O2, no frame pointers): main -> alpha_fn -> beta_fn ->
 * gamma_fn -> syscall(getppid), N times. noipa keeps every frame.
 * "chain N alt": every other call goes through delta_fn instead of
 * alpha_fn, a twin with the same frame: the two paths reach the syscall
 * with the same registers and differ only in a return address on the
 * stack (what an unwinder's cache must not confuse).
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

__attribute__((noipa)) void delta_fn(void)
{
	beta_fn();
	sink++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	int alt = argc > 2 && argv[2][0] == 'a';

	for (int i = 0; i < n; i++) {
		if (alt && (i & 1))
			delta_fn();
		else
			alpha_fn();
	}
	return 0;
}
