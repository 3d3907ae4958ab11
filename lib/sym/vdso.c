// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The vdso as a file: every process of one ABI maps the same image the
 * kernel gives ktrace itself, so ktrace's own copy (AT_SYSINFO_EHDR) names
 * and unwinds the [vdso] frames of the traced ones, as perf does with the
 * copy it writes to its build-id cache.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sym/symtab.h"

static int vdso_fd = -1;
static char vdso_path[64];
static pthread_once_t vdso_once = PTHREAD_ONCE_INIT;

/* The size of ktrace's own [vdso] mapping, from /proc/self/maps. */
static size_t vdso_size(unsigned long base)
{
	char line[512];
	size_t size = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base) {
			size = hi - lo;
			break;
		}
	}
	fclose(f);
	return size;
}

static void vdso_init(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	size_t size = base ? vdso_size(base) : 0;
	int fd;

	if (!size)
		return;
	fd = memfd_create("ktrace-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, (const void *)base, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	vdso_fd = fd;
	snprintf(vdso_path, sizeof(vdso_path), "/proc/self/fd/%d", fd);
}

const char *kt_vdso_path(void)
{
	pthread_once(&vdso_once, vdso_init);
	return vdso_fd >= 0 ? vdso_path : NULL;
}
