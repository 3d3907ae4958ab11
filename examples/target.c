// SPDX-License-Identifier: GPL-2.0-only
/*
 * A small program to trace, used by examples/walkthrough.sh and
 * examples/hello_trace.c.
 *
 *   target [ROUNDS]
 *
 * Each round calls order(item, qty) for a few items; order() is a real
 * (not inlined) function, so a uprobe can be put on it and its arguments
 * read by name from the debug info:
 *
 *   ktrace record -e 'uprobe:build/examples/target:order item qty' -- build/examples/target
 *
 * Every order also makes one getppid() system call, which the
 * syscalls:sys_enter_getppid tracepoint sees:
 *
 *   ktrace record -e syscalls:sys_enter_getppid -- build/examples/target
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

/* noinline keeps the compiler from inlining order() into main(). */
__attribute__((noinline)) int order(const char *item, int qty)
{
	/* A real system call each time (libc may not cache it). */
	syscall(SYS_getppid);
	return qty * (int)strlen(item);	/* the "price" */
}

int main(int argc, char **argv)
{
	static const char *const items[] = { "apple", "bread", "cheese" };
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	long total = 0;

	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < 3; i++)
			total += order(items[i], i + 1);
	printf("target: %d orders, total %ld\n", rounds * 3, total);
	return 0;
}
