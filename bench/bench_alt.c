// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_alt N CMD1 [ARGS...] -- CMD2 [ARGS...] [-- ...]: run the commands
 * in turn, N rounds (one run of each per round, so that a slow spell of the
 * machine falls on all of them alike; each round starts with the next
 * command, since the first of a round runs slower), their output to
 * /dev/null. Prints a
 * line per command: "median_wall_us median_cpu_us failed_runs", where CPU
 * is the child's user + system time (wait4). Medians, not means: a run
 * delayed by another process does not move them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 8

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	char **cmds[MAX_CMDS];
	double *wall, *cpu;
	int n, ncmds = 1, failed[MAX_CMDS] = { 0 }, devnull;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: bench_alt N CMD [ARGS...] [-- CMD [ARGS...]]...\n");
		return 2;
	}
	cmds[0] = argv + 2;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--"))
			continue;
		if (ncmds == MAX_CMDS || i + 1 == argc) {
			fprintf(stderr, "bench_alt: 1 to %d commands\n", MAX_CMDS);
			return 2;
		}
		argv[i] = NULL;
		cmds[ncmds++] = argv + i + 1;
	}
	wall = calloc((size_t)n * ncmds, sizeof(*wall));
	cpu = calloc((size_t)n * ncmds, sizeof(*cpu));
	devnull = open("/dev/null", O_RDWR);
	if (!wall || !cpu || devnull < 0) {
		perror("bench_alt");
		return 1;
	}
	for (int r = 0; r < n; r++) {
		for (int j = 0; j < ncmds; j++) {
			int c = (r + j) % ncmds;
			struct rusage ru;
			double t0 = now_us();
			int status;
			pid_t pid = fork();

			if (pid < 0) {
				perror("bench_alt: fork");
				return 1;
			}
			if (!pid) {
				dup2(devnull, STDOUT_FILENO);
				dup2(devnull, STDERR_FILENO);
				execvp(cmds[c][0], cmds[c]);
				_exit(127);
			}
			if (wait4(pid, &status, 0, &ru) < 0) {
				perror("bench_alt: wait4");
				return 1;
			}
			wall[c * n + r] = now_us() - t0;
			cpu[c * n + r] = ru.ru_utime.tv_sec * 1e6 +
					 ru.ru_utime.tv_usec +
					 ru.ru_stime.tv_sec * 1e6 +
					 ru.ru_stime.tv_usec;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				failed[c]++;
		}
	}
	for (int c = 0; c < ncmds; c++)
		printf("%.1f %.1f %d\n", median(wall + c * n, n),
		       median(cpu + c * n, n), failed[c]);
	free(wall);
	free(cpu);
	return 0;
}
