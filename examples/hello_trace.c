// SPDX-License-Identifier: GPL-2.0-only
/*
 * hello_trace: libktrace in one page. Uses only the public header
 * lib/ktrace.h. Run as root:
 *
 *   hello_trace GLOB EVENT N [CMD ARGS...]
 *
 * 1. lists the events matching GLOB ("sched:sched_process_*"),
 * 2. records EVENT ("syscalls:sys_enter_getppid") of CMD, or of this very
 *    program when there is no CMD (it then makes N getppid() calls
 *    itself), and prints the first N records, one line each,
 * 3. prints how many records were captured and lost.
 *
 * Build against an installed libktrace:
 *   cc -o hello_trace hello_trace.c $(pkg-config --cflags --libs libktrace)
 * or in the tree: make examples (links build/libktrace.a); then for instance
 *   build/examples/hello_trace 'syscalls:sys_*_getppid' syscalls:sys_enter_getppid 3
 *   build/examples/hello_trace sched syscalls:sys_enter_getppid 5 build/examples/target 2
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* pipe2() */
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "ktrace.h"

/* What the record callback needs. */
struct printer {
	struct ktrace_record *rec;
	long want;	/* stop after this many event records */
	long seen;
	int first_tid;	/* the task of the first event record */
};

/*
 * Called for every record, in time order across CPUs. A record is either
 * an event or a note that the kernel dropped some (the ring was full).
 * Returning non-zero stops the current poll/drain.
 */
static int print_record(void *ctx, const struct ktrace_sample *s)
{
	struct printer *p = ctx;
	size_t len;
	const char *line;

	if (p->seen >= p->want)
		return 1;
	/* One line like `perf script` (or JSON with true instead of false). */
	line = ktrace_record_format(p->rec, s, false, &len);
	if (!line)
		return -1;	/* out of memory */
	printf("%.*s\n", (int)len, line);
	if (s->type == KTRACE_SAMPLE_EVENT && !p->seen++)
		p->first_tid = s->tid;
	return p->seen >= p->want;
}

/* Step 1: print the events whose "system:event" matches glob. */
static int list_events(struct ktrace_tfs *tfs, const char *glob)
{
	unsigned int hits = 0;
	struct ktrace_events *evs = ktrace_events_alloc(tfs, &glob, 1, &hits);

	if (!evs) {
		fprintf(stderr, "hello_trace: cannot list '%s': %s\n", glob,
			strerror(errno));
		return -1;
	}
	printf("events matching '%s': %u\n", glob, hits);
	for (int i = 0; i < ktrace_events_count(evs); i++) {
		const struct ktrace_event *e = ktrace_events_get(evs, i);

		printf("  %s:%s (%s)\n", e->system, e->name,
		       ktrace_kind_name(e->kind));
	}
	ktrace_events_free(evs);
	return 0;
}

/*
 * Start cmd stopped at a pipe: it runs (exec) only once we write to *go,
 * so that the recording is open before its first instruction.
 */
static pid_t start_command(char **cmd, int *go)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;

		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		fprintf(stderr, "hello_trace: cannot run '%s': %s\n", cmd[0],
			strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

int main(int argc, char **argv)
{
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_record_opts opts = { 0 };
	struct ktrace_record_stats st;
	struct ktrace_record *rec = NULL;
	struct ktrace_tfs *tfs = NULL;
	struct printer p = { 0 };
	pid_t target = -1;
	int go = -1, status = 0, ret = 1;
	bool done = false;

	if (argc < 4 || atol(argv[3]) <= 0) {
		fprintf(stderr, "usage: hello_trace GLOB EVENT N [CMD ARGS...]\n");
		return 2;
	}

	/* The tracefs tree: found in /proc/mounts, or mounted. */
	tfs = ktrace_tfs_open(NULL);
	if (!tfs) {
		fprintf(stderr, "hello_trace: no tracefs: %s (root?)\n",
			strerror(errno));
		return 1;
	}
	if (list_events(tfs, argv[1]) < 0)
		goto out;

	/* Step 2: a recording of one event (no filter: NULL). */
	rec = ktrace_record_alloc(tfs);
	if (!rec || ktrace_record_add_event(rec, argv[2], NULL, &err) < 0) {
		fprintf(stderr, "hello_trace: %s\n",
			err.msg ? err.msg : strerror(errno));
		goto out;
	}
	p.rec = rec;
	p.want = atol(argv[3]);

	if (argc > 4) {
		/* A command: follow it and its children; the events switch
		 * on by themselves when it calls exec. */
		target = start_command(argv + 4, &go);
		if (target < 0) {
			perror("hello_trace: fork");
			goto out;
		}
		opts.inherit = true;
		opts.enable_on_exec = true;
	} else {
		target = getpid();	/* this program itself */
	}
	opts.pids = &target;
	opts.nr_pids = 1;
	if (ktrace_record_open(rec, &opts, &err) < 0) {
		fprintf(stderr, "hello_trace: %s\n", err.msg);
		goto out;
	}
	printf("recording %s of %s, first %ld records:\n", argv[2],
	       argc > 4 ? argv[4] : "hello_trace", p.want);
	fflush(stdout);

	if (go >= 0) {
		/* Let the command run, then print records as they come until
		 * we have enough or the command is gone. */
		if (write(go, "g", 1) != 1)
			goto out;
		close(go);
		go = -1;
		while (p.seen < p.want && !done) {
			if (ktrace_record_poll(rec, 100, &done, print_record,
					       &p) < 0)
				break;
			if (waitpid(target, &status, WNOHANG) == target) {
				target = -1;	/* reaped */
				break;
			}
		}
	} else {
		/* Trace ourselves: switch on, make the calls, switch off. */
		ktrace_record_enable(rec);
		for (long i = 0; i < p.want; i++)
			syscall(SYS_getppid);
		ktrace_record_disable(rec);
		target = -1;
	}
	/* Whatever is still in the rings, in order. */
	ktrace_record_disable(rec);
	if (p.seen < p.want)
		ktrace_record_drain(rec, print_record, &p);

	/* Step 3: the totals (lost > 0 means the rings were too small). */
	if (p.seen) {
		char comm[16];

		/* names of tasks are kept by the recording; copied out */
		ktrace_record_comm(rec, p.first_tid, comm, sizeof(comm));
		printf("first record from %s (tid %d)\n", comm, p.first_tid);
	}
	ktrace_record_stats(rec, &st);
	printf("captured %llu records, printed %ld, lost %llu\n",
	       (unsigned long long)st.samples, p.seen,
	       (unsigned long long)st.lost);
	ret = 0;
out:
	if (go >= 0)
		close(go);	/* a command never released exits 127 */
	if (target > 0 && target != getpid())
		waitpid(target, &status, 0);
	ktrace_record_free(rec);	/* closes the perf events */
	ktrace_tfs_free(tfs);
	ktrace_err_clear(&err);
	return ret;
}
