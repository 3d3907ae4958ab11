// SPDX-License-Identifier: GPL-2.0-only
/*
 * Target for stack-passed kernel arguments. Usage: mmapper
 * Maps one page of its own binary at file offset 3 pages (the kernel's
 * do_mmap() then gets pgoff = 3, its 7th parameter, passed on the stack
 * on x86-64) and one page at offset 0, then exits.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/exe", O_RDONLY);
	void *a, *b;

	if (fd < 0 || lseek(fd, 0, SEEK_END) < 4 * page) {
		fprintf(stderr, "mmapper: binary too small\n");
		return 1;
	}
	a = mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 3 * page);
	b = mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0);
	if (a == MAP_FAILED || b == MAP_FAILED) {
		perror("mmapper: mmap");
		return 1;
	}
	printf("mapped %p %p\n", a, b);
	return 0;
}
