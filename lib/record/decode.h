/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Records to samples (decode.c), for either source: the live rings'
 * merge calls kt_record_emit() for every record in time order, a file's
 * replay for every record in the file. Each record updates the comm
 * table and the address space, is counted, then goes to the sink (the -o
 * writer) and to the caller's function. Calls ustack.c, comm.c,
 * addrspace.c and evtable.c's inlines.
 *
 * Owns lost_cpu and per_event; kt_decoder_free() frees them.
 */
#ifndef KTRACE_RECORD_DECODE_H
#define KTRACE_RECORD_DECODE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "ktrace.h"
#include "capture/merge.h"
#include "capture/sample.h"

/* Every record in order; s: the sample already parsed from a SAMPLE
 * record, else NULL. */
typedef void (*kt_record_sink_fn)(void *ctx,
				  const struct perf_event_header *rec,
				  const struct ktrace_sample *s);

struct kt_decoder {
	/* the layout of the records it decodes (live with DWARF stacks: as
	 * rewritten by ustack.c), read by kt_sample_parse() */
	struct kt_sample_fmt fmt;
	/* the layout of the records as the source reads them: their
	 * timestamps for the merge, the replay and the mappings' scan */
	struct kt_merge_cfg mcfg;
	/* the source takes the mappings from its rings as it pulls them
	 * (live): MMAP2 records only pass through here */
	bool maps_pulled;

	ktrace_sample_fn fn;	/* the caller's, for this poll or replay */
	void *fnctx;
	kt_record_sink_fn sink;	/* every record in order (for -o) */
	void *sink_ctx;

	uint64_t samples, lost;
	uint64_t last_time;	/* newest timestamp handed out */
	uint64_t *lost_cpu;
	int nr_cpus;
	uint64_t *per_event;
};

/* Counters for nr_cpus CPUs and nev events; 0 or -ENOMEM. */
int kt_decoder_stats_alloc(struct kt_decoder *d, int nr_cpus, int nev);
void kt_decoder_free(struct kt_decoder *d);
/* One record of time ts (a kt_merge_emit_fn; ctx: the recording); the
 * caller's function's non-zero return, else 0. */
int kt_record_emit(void *ctx, int src, uint64_t ts,
		   const struct perf_event_header *h);

#endif
