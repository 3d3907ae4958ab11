/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * perf_event_open sessions (internal to libktrace).
 *
 * Sampling (ktrace record): every event is opened once per (cpu, task)
 * with sample_period 1 and
 *   sample_type = IDENTIFIER | TID | TIME | CPU | RAW (| CALLCHAIN),
 *   sample_id_all, use_clockid CLOCK_MONOTONIC (so timestamps compare with
 *   clock_gettime(CLOCK_MONOTONIC) and across CPUs),
 * the first event of each (cpu, task) also asks for COMM, MMAP2 and TASK
 * records. There is one ring per CPU: the first fd opened on a CPU owns the
 * mmap, every other fd on that CPU is redirected into it with
 * PERF_EVENT_IOC_SET_OUTPUT. PERF_SAMPLE_IDENTIFIER in each record maps
 * back to the event (kt_perf_id_get() lists the ids).
 *
 * The capture loop record is expected to run (tested in test_perf_live):
 *
 *	p = kt_perf_open(evs, n, &opts, &fail);
 *	m = kt_merge_alloc(kt_perf_nr_rings(p), &(struct kt_merge_cfg){
 *		.sample_type = kt_perf_sample_type(p), .sample_id_all = true },
 *		emit, w);			// emit: kt_kfw_record()
 *	kt_perf_enable(p);
 *	while (!done) {
 *		kt_perf_poll(p, 100, &all_hup);
 *		for (i = 0; i < kt_perf_nr_rings(p); i++)
 *			kt_merge_pull(m, i, kt_perf_ring(p, i), 1 << 20, NULL, NULL);
 *		kt_merge_flush(m, now_monotonic_ns - 10000000);
 *	}
 *	kt_perf_disable(p); pull every ring once more; kt_merge_drain(m);
 *
 * Lost samples: the sum of kt_perf_ring(p, i)->nr_lost.
 *
 * Counting (ktrace stat) is capture/stat.h, on kt_perf_event_open().
 */
#ifndef KT_PERF_H
#define KT_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "capture/ring.h"

/* The sample_type of every sampling event (CALLCHAIN added on request). */
#define KT_PERF_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
			     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
			     PERF_SAMPLE_RAW)

/*
 * Default data area per CPU ring, in bytes (see kt_perf_default_pages()).
 * Measured on 2 CPUs with a reader that also writes the file: 1 MiB
 * already loses nothing at ~1.1M getppid/s when the disk keeps up, 2 MiB
 * lost 3% when write(2) stalled on dirty-page throttling; 8 MiB lost
 * nothing over 10^7 calls in every run and gives ~37 ms of slack at
 * 4M records/s (56-byte records). The pages are locked kernel memory, not
 * part of the process RSS.
 */
#define KT_PERF_DEFAULT_RING_BYTES (8u << 20)

struct kt_perf_event {
	uint32_t type;		/* PERF_TYPE_TRACEPOINT: config = tracefs id */
	uint64_t config;
	const char *filter;	/* PERF_EVENT_IOC_SET_FILTER text, or NULL */
	/* A sample every period events, or (freq) period samples a second;
	 * 0: every event (tracepoints, probes) */
	uint64_t period;
	bool freq;
};

struct kt_perf_opts {
	const int *cpus;	/* NULL: every online CPU */
	int nr_cpus;
	const pid_t *pids;	/* NULL / nr_pids 0: system-wide */
	int nr_pids;
	bool inherit;		/* follow children of the pids */
	bool enable_on_exec;	/* start counting at the pids' next exec */
	bool callchain;
	uint64_t extra_sample_type;	/* added to every event's (IP, PERIOD) */
	/* The first event also gives PERF_RECORD_SWITCH records (a traced
	 * task switched in or out; PERF_RECORD_SWITCH_CPU_WIDE system-wide):
	 * off-CPU time (lib/record/offcpu.c). */
	bool context_switch;
	/* With callchain: DWARF unwinding material, the user registers in
	 * regs_user (sample_regs_user) and stack_user bytes of the user
	 * stack per sample; the kernel's chain is then kernel-only.
	 * 0: frame-pointer chains. */
	uint32_t stack_user;
	uint64_t regs_user;
	size_t ring_pages;	/* data pages per ring, power of two; 0: default */
	unsigned int wakeup_bytes;	/* poll wakeup watermark; 0: 1/4 ring */
};

/* Where kt_perf_open() failed, to tell the user what to change. */
enum kt_perf_stage {
	KT_PERF_STAGE_NONE,
	KT_PERF_STAGE_CPUS,	/* reading the online CPU list */
	KT_PERF_STAGE_OPEN,	/* perf_event_open() */
	KT_PERF_STAGE_FILTER,	/* PERF_EVENT_IOC_SET_FILTER */
	KT_PERF_STAGE_OUTPUT,	/* PERF_EVENT_IOC_SET_OUTPUT / IOC_ID */
	KT_PERF_STAGE_MMAP,	/* mmap() of a ring */
};

struct kt_perf_fail {
	int err;		/* positive errno */
	enum kt_perf_stage stage;
	int event;		/* index into the events array, -1: none */
	int cpu;		/* -1: none */
	pid_t pid;		/* -1: system-wide */
	size_t ring_bytes;	/* mmap size that was refused (incl. header) */
	int nr_rings;
};

struct kt_perf;

/*
 * Open every event for every (cpu, pid), set filters, map the rings. The
 * events stay disabled until kt_perf_enable() (or, with enable_on_exec,
 * the pids' exec). Returns NULL + errno; when fail is not NULL it says
 * where (mmap: EPERM = locked-memory limit, ENOMEM = allocation). The
 * caller frees the session with kt_perf_free(), which unmaps and closes
 * everything.
 */
struct kt_perf *kt_perf_open(const struct kt_perf_event *evs, int nr_evs,
			     const struct kt_perf_opts *opts,
			     struct kt_perf_fail *fail);
void kt_perf_free(struct kt_perf *p);

/*
 * The kernel's count of samples it dropped, per CPU (lost[cpu], nr_cpus
 * entries), from PERF_FORMAT_LOST. -EOPNOTSUPP before Linux 6.0.
 */
int kt_perf_lost(struct kt_perf *p, uint64_t *lost, int nr_cpus);
int kt_perf_enable(struct kt_perf *p);
int kt_perf_disable(struct kt_perf *p);
/* Does some event sample user space only (refused more, as counters)? */
bool kt_perf_user_only(const struct kt_perf *p);

/* The attr fields a reader of the records needs. */
uint64_t kt_perf_sample_type(const struct kt_perf *p);
int kt_perf_nr_rings(const struct kt_perf *p);
/* Ring i (owned by p) and its CPU. */
struct kt_ring *kt_perf_ring(struct kt_perf *p, int i);
int kt_perf_ring_cpu(const struct kt_perf *p, int i);

/* All (id, event index, cpu) triples, for the file's id table. */
int kt_perf_nr_ids(const struct kt_perf *p);
void kt_perf_id_get(const struct kt_perf *p, int i, uint64_t *id, int *event,
		    int *cpu);

/*
 * Wait up to timeout_ms (-1: forever) for a ring to pass its watermark.
 * Returns the number of rings ready, 0 on timeout, -errno. *all_hup (may
 * be NULL) is set when every traced task is gone (POLLHUP on every ring).
 */
int kt_perf_poll(struct kt_perf *p, int timeout_ms, bool *all_hup);

/* Default data pages per ring (KT_PERF_DEFAULT_RING_BYTES). */
size_t kt_perf_default_pages(void);

/*
 * Compose advice for a failure (one or more lines without a trailing
 * newline) into buf, from f and the current limits: perf_event_paranoid,
 * perf_event_mlock_kb, RLIMIT_MEMLOCK. Returns the length snprintf
 * would have written.
 */
int kt_perf_advice(const struct kt_perf_fail *f, char *buf, size_t len);

/* Is err (either sign) perf_event_open's "this machine lacks that event"
 * (no such PMU or counter)? */
bool kt_perf_unsupported(int err);

/* perf_event_open(2) itself: an fd or -1 + errno. */
int kt_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		       int group, unsigned long flags);

/* Online CPUs from /sys/devices/system/cpu/online into a malloc'ed array
 * (caller frees). Returns the count or -errno. */
int kt_online_cpus(int **cpus);

#endif /* KT_PERF_H */
