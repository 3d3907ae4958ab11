// SPDX-License-Identifier: GPL-2.0-only
/*
 * Target for the --strings tests. Usage: pathcalls OPEN UNLINK [EXEC]
 * Calls openat(AT_FDCWD, OPEN, O_RDONLY) and unlinkat(AT_FDCWD, UNLINK, 0)
 * through syscall(2), so that these very system calls are made whatever
 * libc prefers, then execs EXEC (no arguments) when given. Exits 0 when
 * both calls did what was asked, else 1.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long fd, un;

	if (argc < 3)
		return 2;
	fd = syscall(SYS_openat, AT_FDCWD, argv[1], O_RDONLY);
	if (fd >= 0)
		close((int)fd);
	un = syscall(SYS_unlinkat, AT_FDCWD, argv[2], 0);
	if (argc > 3) {
		char *args[] = { argv[3], NULL };

		execv(argv[3], args);
		return 1;
	}
	return fd >= 0 && un == 0 ? 0 : 1;
}
