// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_ru OUTFILE CMD [ARGS...]: run CMD, wait for it, and write to OUTFILE
 * one line "wall_us user_us sys_us maxrss_kb status" where the CPU times are
 * getrusage(RUSAGE_CHILDREN): CMD plus every descendant it waited for (the
 * traced workload, trace-cmd's per-CPU recorders), and maxrss is the largest
 * single process among them (the kernel's ru_maxrss, not a sum); then
 * "self_us waited_us": CMD's own user+sys and that of the descendants it
 * waited for, read from its /proc stat as a zombie (clock ticks). A tool
 * that lets the kernel reap its workload (SIGCHLD ignored: perf trace) has
 * the workload in neither, and RUSAGE_CHILDREN cannot tell: these can.
 * stdin/stdout/stderr pass through; the exit status is CMD's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long tv_us(struct timeval tv)
{
	return tv.tv_sec * 1000000LL + tv.tv_usec;
}

/* Once pid has exited (not reaped): its own and its waited-for
 * descendants' user+sys from /proc/PID/stat fields 14-17, in us. */
static void zombie_times(pid_t pid, long long *self, long long *waited)
{
	unsigned long long ut, st, cut, cst;
	long hz = sysconf(_SC_CLK_TCK);
	char path[64], buf[1024], *p;
	siginfo_t si;
	FILE *f;

	*self = *waited = -1;
	while (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			return;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	/* after "(comm)": state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime cutime cstime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 &ut, &st, &cut, &cst) != 4 || hz <= 0)
		return;
	*self = (long long)(ut + st) * 1000000 / hz;
	*waited = (long long)(cut + cst) * 1000000 / hz;
}

int main(int argc, char **argv)
{
	long long self_us, waited_us;
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
	zombie_times(pid, &self_us, &waited_us);
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
	fprintf(f, "%lld %lld %lld %ld %d %lld %lld\n",
		(t1.tv_sec - t0.tv_sec) * 1000000LL +
		(t1.tv_nsec - t0.tv_nsec) / 1000,
		tv_us(ru.ru_utime), tv_us(ru.ru_stime), ru.ru_maxrss,
		WIFEXITED(status) ? WEXITSTATUS(status) :
		128 + WTERMSIG(status), self_us, waited_us);
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
