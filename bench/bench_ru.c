// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_ru OUTFILE CMD [ARGS...]: run CMD, wait for it, and write to OUTFILE
 * one line "wall_us user_us sys_us maxrss_kb status" where the CPU times are
 * getrusage(RUSAGE_CHILDREN): CMD plus every descendant it waited for (the
 * traced workload, trace-cmd's per-CPU recorders), and maxrss is the largest
 * single process among them (the kernel's ru_maxrss, not a sum).
 * stdin/stdout/stderr pass through; the exit status is CMD's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long tv_us(struct timeval tv)
{
	return tv.tv_sec * 1000000LL + tv.tv_usec;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status = 0;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fputs("usage: bench_ru OUTFILE CMD [ARGS...]\n", stderr);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("bench_ru: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "bench_ru: cannot run %s: %s\n", argv[2],
			strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("bench_ru: waitpid");
			return 127;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_CHILDREN, &ru);
	f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 127;
	}
	fprintf(f, "%lld %lld %lld %ld %d\n",
		(t1.tv_sec - t0.tv_sec) * 1000000LL +
		(t1.tv_nsec - t0.tv_nsec) / 1000,
		tv_us(ru.ru_utime), tv_us(ru.ru_stime), ru.ru_maxrss,
		WIFEXITED(status) ? WEXITSTATUS(status) :
		128 + WTERMSIG(status));
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
