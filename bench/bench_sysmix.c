// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmark workload of bench/hist-vm.sh: exactly N getppid() and M 1-byte
 * read()s of /dev/zero (argv[1], argv[2]; default 1e6 and 1e5), both made
 * with syscall(2) so that no libc wrapper caches or merges them. Built
 * static, so that no dynamic loader makes reads of its own: the only read
 * system calls of the process are these M.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench_rusage.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
	long m = argc > 2 ? strtol(argv[2], NULL, 10) : 100000;
	char c;
	int fd;

	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("bench_sysmix: /dev/zero");
		return 1;
	}
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (long i = 0; i < m; i++)
		if (syscall(SYS_read, fd, &c, 1) != 1) {
			perror("bench_sysmix: read");
			return 1;
		}
	close(fd);
	bench_rusage_report();
	return 0;
}
