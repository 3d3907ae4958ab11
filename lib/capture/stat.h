/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Counting perf events (internal to libktrace; ktrace stat's
 * ktrace_stat_* in ktrace.h are built on it).
 *
 * No ring: each counter is opened with kt_perf_event_open(), read() with
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING and scaled. The counter names
 * (kt_counter_lookup) serve sampling too (ktrace record -e cycles).
 */
#ifndef KT_STAT_H
#define KT_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "capture/perf.h"

/* Software and hardware counters by name ("task-clock", "cycles" ...).
 * Returns 0 or -ENOENT for an unknown name. */
int kt_counter_lookup(const char *name, uint32_t *type, uint64_t *config);
/* The same as one "a, b, c" line into buf (truncated to len). */
size_t kt_counter_list(char *buf, size_t len);

struct kt_counter_val {
	uint64_t raw;		/* summed over CPUs */
	uint64_t enabled;	/* ns */
	uint64_t running;	/* ns */
	double scaled;		/* raw * enabled / running */
};

struct kt_counters;

/*
 * Open counters: pid >= 0 counts that task (cpu -1, inherit to children
 * when inherit); pid -1 counts each CPU of cpus (NULL: all online).
 * Counters start disabled unless enable_on_exec (then at the task's exec).
 * An event the machine lacks (kt_perf_unsupported()) does not fail the
 * set: kt_counters_status() returns its -errno. Other errors fail the
 * whole open (NULL + errno). Free with kt_counters_free().
 */
struct kt_counters *kt_counters_open(const struct kt_perf_event *evs, int nr,
				     pid_t pid, const int *cpus, int nr_cpus,
				     bool inherit, bool enable_on_exec);
void kt_counters_free(struct kt_counters *c);
int kt_counters_enable(struct kt_counters *c);
int kt_counters_disable(struct kt_counters *c);
/* 0, or the -errno that made event i unavailable. */
int kt_counters_status(const struct kt_counters *c, int i);
/* Read event i. Returns 0, or -errno (-EOPNOTSUPP when unavailable). */
int kt_counters_read(struct kt_counters *c, int i, struct kt_counter_val *v);

#endif /* KT_STAT_H */
