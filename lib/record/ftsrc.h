/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The ftrace source (ftsrc.c): events the kernel delivers to ftrace ring
 * buffers only, never to perf_event_open (event probes: their perf
 * registration does nothing), recorded through an instance of this
 * process's own (ktrace_<pid>, kt_own_inst_create()): the events enabled
 * there with their filters, its clock "mono" (CLOCK_MONOTONIC, the perf
 * rings' clock), the pids of the target in set_event_pid; its per-CPU
 * trace_pipe_raw read without blocking and every event turned into a
 * PERF_RECORD_SAMPLE of the recording's layout with a sample id of its
 * event, so that the merge, the decoder, the -o file and report see a
 * record like any other. A subbuffer's missed events become a
 * PERF_RECORD_LOST.
 *
 * Owns the instance (removed by kt_ftsrc_free(), after which the events'
 * probes can go) and the reader of its buffers (lib/tracefs's kt_pipe).
 */
#ifndef KTRACE_RECORD_FTSRC_H
#define KTRACE_RECORD_FTSRC_H

#include <stddef.h>
#include <stdint.h>

#include "capture/sample.h"

struct ktrace_inst;
struct kt_pipe;

struct kt_ftsrc {
	struct ktrace_inst *inst;	/* NULL: no event needs it */
	struct kt_pipe *pipe;		/* trace_pipe_raw per CPU */
	int src0;			/* the merge's source of CPU 0's */
	struct kt_sample_buf sb;	/* the sample being built */
};

struct ktrace_record;
struct ktrace_record_opts;
struct ktrace_err;

/*
 * After the perf events are open and their ids known: mark the events
 * only ftrace delivers, and when there are some, make the instance, enable
 * them there and open its buffers, whose sources in the merge start at
 * src0. 0 or -errno with err set (nothing left behind).
 */
int kt_ftsrc_open(struct ktrace_record *r,
		  const struct ktrace_record_opts *opts, int src0,
		  struct ktrace_err *err);
/* How many merge sources it reads (0 without events of its own). */
int kt_ftsrc_nr_src(const struct ktrace_record *r);
/* Every event its buffers hold now into the merge; the records taken or
 * -errno. */
long kt_ftsrc_pull(struct ktrace_record *r);
void kt_ftsrc_free(struct kt_ftsrc *f);

#endif
