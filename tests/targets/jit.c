// SPDX-License-Identifier: GPL-2.0-only
/*
 * A "JIT": machine code made at run time in anonymous memory, named in
 * /tmp/perf-PID.map as JIT runtimes do (python -X perf, node
 * --perf-basic-prof). jitted_getppid does syscall(getppid), N times.
 * "jit N del": 0.1 s between calls, and the map deleted before the
 * exit, as some JITs do.
 * x86-64 code; elsewhere it exits 77 (skip).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* mov eax, 110 (getppid); syscall; ret */
	static const unsigned char code[] = {
		0xb8, 0x6e, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3,
	};
	int n = argc > 1 ? atoi(argv[1]) : 1;
	char path[64];
	long (*fn)(void);
	void *mem;
	FILE *f;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jitted_getppid\n", (unsigned long)mem,
		sizeof(code));
	fclose(f);
	fn = (long (*)(void))mem;
	for (int i = 0; i < n; i++) {
		fn();
		/* del: 0.1 s a call, a run short enough that its records
		 * are named after it ended */
		if (argc > 2)
			usleep(100000);
	}
	/* the map stays for the tracer (perf's convention, the test
	 * removes it), unless asked */
	if (argc > 2 && !strcmp(argv[2], "del"))
		unlink(path);
	return 0;
#else
	(void)argc;
	(void)argv;
	return 77;
#endif
}
