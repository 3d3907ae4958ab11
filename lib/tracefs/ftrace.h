/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The function tracers (lib/tracefs/ftrace.c): their settings written to
 * an instance, the top instance taken only when unused and put back, and
 * the records of each CPU's trace_pipe_raw decoded. Not installed.
 */
#ifndef KTRACE_TRACEFS_FTRACE_H
#define KTRACE_TRACEFS_FTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>

#include "tracefs/tfs.h"

/* Does inst offer tracer (its own available_tracers)? */
bool kt_tracer_offered(const struct ktrace_inst *inst, const char *tracer);
/* Does inst have file (max_graph_depth, set_graph_function...)? */
bool kt_inst_has(const struct ktrace_inst *inst, const char *file);

/*
 * What a run sets (kt_ftrace_apply()): the filter files get the globs
 * (each "GLOB", "GLOB:mod:MODULE" or ":mod:MODULE", checked by the
 * caller), set_ftrace_pid the pids (with options/function-fork when fork),
 * max_graph_depth depth (> 0, only where the caller saw the file),
 * buffer_size_kb (> 0), tracing_cpumask from cpus, then current_tracer
 * last: the tracer starts with everything in place.
 */
struct kt_ftrace_conf {
	const char *tracer;
	const char *const *filter, *const *notrace, *const *graph;
	int nfilter, nnotrace, ngraph;
	const int *pids, *cpus;
	int npids, ncpus;
	bool fork;
	int depth;
	long buffer_kb;
};
/* 0, or -errno with err saying which file refused what. */
int kt_ftrace_apply(struct ktrace_inst *inst, const struct kt_ftrace_conf *c,
		    struct ktrace_err *err);

/*
 * The top instance for a tracer no instance offers (function_graph on
 * 6.1), by README's rule: taken only when its current_tracer is nop, its
 * filter files (set_ftrace_filter, set_ftrace_notrace, set_graph_function,
 * set_graph_notrace), set_ftrace_pid and tracing_thresh empty; else
 * -EBUSY with err naming what is in use. The values ktrace changes are
 * kept in KTRACE_STATE_DIR ("ftrace-top.OWNER", OWNER this process's
 * kt_owner_group_name(), its owner on record) before the first change;
 * buffer_size_kb too when buffer (the run sets it).
 * _restore(): put them back, drop the record (0 or the first -errno).
 * _sweep(): the same for owners that are provably gone; how many.
 */
int kt_ftop_take(struct ktrace_tfs *tfs, bool buffer, char *owner,
		 size_t len, struct ktrace_err *err);
int kt_ftop_restore(struct ktrace_tfs *tfs, const char *owner);
int kt_ftop_sweep(struct ktrace_tfs *tfs);

/* One record of the function tracers, decoded. */
enum kt_frec_type { KT_FREC_FUNC, KT_FREC_ENTRY, KT_FREC_EXIT };
struct kt_frec {
	enum kt_frec_type type;
	int cpu, pid, depth;		/* depth: graph records */
	uint64_t ts;			/* ns, the instance's trace clock */
	uint64_t ip, parent;		/* FUNC: ip, parent_ip; graph: func */
	uint64_t calltime, rettime;	/* EXIT */
	uint32_t raw_off, raw_size;	/* kt_fpipe_raw() */
};

/*
 * The decoder of the function tracers' events (function, funcgraph_entry,
 * funcgraph_exit) by their formats. _alloc(): NULL for no memory.
 * _add(): one format file's text (other events' are ignored); 0 or
 * -EINVAL. _decode(): one event's data into *o: 1, or 0 for another event.
 */
struct kt_fdec;
struct kt_fdec *kt_fdec_alloc(void);
void kt_fdec_free(struct kt_fdec *d);		/* takes NULL */
int kt_fdec_add(struct kt_fdec *d, const char *format, size_t len);
int kt_fdec_decode(const struct kt_fdec *d, int cpu, uint64_t ts,
		   const void *data, uint32_t size, struct kt_frec *o);

/*
 * The per-CPU readers of an instance's trace_pipe_raw (cpus NULL: every
 * CPU it has) with the ftrace formats of its events/ftrace. _open(): NULL
 * + errno. _read(): what every CPU holds now (non-blocking) taken into
 * memory, and the next batch of it decoded and sorted by time into *out
 * (n records, *out the reader's: valid until the next call); records of
 * other events are skipped. 0 or -errno. _pending(): whether records
 * wait in memory for the next _read() (call it again without waiting).
 * _fill(): what every CPU holds now into memory (between the records of
 * a large batch: the kernel's buffers never wait for the printing).
 * _missed(): records the kernel lost between pages so far.
 */
struct kt_fpipe;
struct kt_fpipe *kt_fpipe_open(const struct ktrace_inst *inst,
			       const int *cpus, int ncpus);
int kt_fpipe_read(struct kt_fpipe *p, const struct kt_frec **out, size_t *n);
bool kt_fpipe_pending(const struct kt_fpipe *p);
void kt_fpipe_fill(struct kt_fpipe *p);
uint64_t kt_fpipe_missed(const struct kt_fpipe *p);
/* Keep each record's data from now on: kt_fpipe_raw() gives that of a
 * record of the last _read() (the reader's), NULL when not kept. */
void kt_fpipe_keep_raw(struct kt_fpipe *p);
const void *kt_fpipe_raw(const struct kt_fpipe *p, const struct kt_frec *r,
			 uint32_t *size);
/* The readers' fds for poll(2) (POLLIN once a CPU's buffer is
 * buffer_percent full) into fds[max]; how many. */
int kt_fpipe_pollfds(const struct kt_fpipe *p, struct pollfd *fds, int max);
void kt_fpipe_close(struct kt_fpipe *p);	/* takes NULL */

/* per_cpu/cpuN/stats of inst: overrun and dropped events. 0 or -errno. */
int kt_cpu_stats(const struct ktrace_inst *inst, int cpu, uint64_t *overrun,
		 uint64_t *dropped);

#endif
