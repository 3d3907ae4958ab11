/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Off-CPU time (offcpu.c), a stage of the decoder: record --off-cpu
 * records sched:sched_switch with stacks, filtered in the kernel to the
 * switch-outs of tasks that wait (prev_state not running: "prev_state &
 * 255"), unless the user asked for sched_switch too; each switch-out of
 * a traced task that waits is held, with its stack, until
 * the task runs again, then handed out as one sample of the event
 * "offcpu-time": period = the nanoseconds it was off the CPU, time = when
 * it ran again, the stack it was switched out with. The -o file keeps
 * those samples, not the switches (lib/kfile/kfile.h says how a file
 * marks them), so report reads them as any sampled event.
 *
 * When a task runs again: the sched_switch tracepoint runs in the task
 * switched out, so an event bound to the traced tasks (-p, a command)
 * never sees them switched in; their PERF_RECORD_SWITCH records (the
 * attr's context_switch, on the same events, one small record per switch)
 * say it. System-wide, sched_switch's next_pid says who runs too, but the
 * 6.18 host records no switch from the idle task (a task woken on an idle
 * CPU), so PERF_RECORD_SWITCH_CPU_WIDE's switch-ins are taken there too;
 * whichever comes first ends the period. Not sched_wakeup: a woken task
 * still waits for a CPU, and that wait is off-CPU time too (as perf's and
 * BCC's offcputime count it).
 *
 * Calls evtable.c's inlines and capture/sample.c; decode.c calls it.
 * Owns v[] and each slot's ips, rec; kt_offcpu_free() frees them.
 */
#ifndef KTRACE_RECORD_OFFCPU_H
#define KTRACE_RECORD_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "ktrace.h"

struct ktrace_record;
struct tep_event;
struct tep_format_field;

/* The sample id of the off-CPU samples ktrace makes (the kernel counts
 * its ids up from 1: never this one). */
#define KT_OFFCPU_ID UINT64_MAX

/* A traced task's last switch-out while it waits (pending), by tid. */
struct kt_oc_slot {
	int tid;		/* -1: a free slot */
	bool pending;
	int pid, cpu;
	uint64_t out_ns;
	uint64_t *ips;		/* the stack at the switch-out */
	uint32_t nr_ips, cap_ips;
};

struct kt_offcpu {
	bool on;
	int src;		/* sched:sched_switch's event index */
	int event;		/* offcpu-time's (a file's too) when has_event */
	bool has_event;
	bool src_shown;		/* sched_switch's records handed out too */
	struct tep_format_field *prev_state, *next_pid;
	struct kt_oc_slot *v;	/* open addressing by tid, cap a power of 2 */
	size_t cap, used;
	uint64_t periods;	/* samples made */
	uint64_t unpaired;	/* switch-outs whose end was not seen */
	unsigned char *rec;	/* the sample record made (for the sink) */
	size_t rec_cap;
};

/* The offcpu-time event, last of the events, once the real ones are
 * open (live.c); 0 or -ENOMEM. */
int kt_offcpu_open(struct ktrace_record *r);
/* sched_switch's fields; 0 or -ENOENT when its format lacks one. */
int kt_offcpu_fields(struct kt_offcpu *o, struct tep_event *te);
void kt_offcpu_free(struct kt_offcpu *o);

/*
 * The pairing, on its own: tid (of process pid) switched out at ts on
 * cpu with the stack ips[nr] (copied); blocked: its prev_state says it
 * waits, else (preempted) nothing is held. A switch-out that finds one
 * held drops it (the switch-in between was not seen). 0 or -ENOMEM.
 */
int kt_offcpu_out(struct kt_offcpu *o, int pid, int tid, int cpu,
		  uint64_t ts, bool blocked, const uint64_t *ips,
		  uint32_t nr_ips);
/*
 * tid runs again at ts on cpu: true with *out, the blocked period as a sample of
 * o->event (its ips valid until the next kt_offcpu_out()), when a
 * switch-out was held for it; false otherwise.
 */
bool kt_offcpu_in(struct kt_offcpu *o, int tid, uint64_t ts, int cpu,
		  struct ktrace_sample *out);
/* Records were lost: every held switch-out is dropped (its end may be
 * among them). */
void kt_offcpu_forget(struct kt_offcpu *o);
/* Is a sched_switch prev_state a task that waits (not running, not
 * preempted)? */
bool kt_offcpu_blocked(uint64_t prev_state);

/*
 * decode.c's calls. A sched_switch sample s (of o->src): the switch-out
 * held, the task it switches to paired. A PERF_RECORD_SWITCH(_CPU_WIDE)
 * record h at ts: a switch-in paired. Each pair is handed on as a record
 * (to the sink) and a sample (to the caller's function); returns that
 * function's non-zero, else 0 (-ENOMEM is dropped: the period is lost).
 */
int kt_offcpu_sample(struct ktrace_record *r, const struct ktrace_sample *s);
int kt_offcpu_switch(struct ktrace_record *r, uint64_t ts,
		     const struct perf_event_header *h);

#endif
