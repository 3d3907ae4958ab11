/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The live source (live.c): events opened through perf_event_open
 * (lib/capture/perf.c), their per-CPU rings pulled into the time-ordered
 * merge (lib/capture/merge.c), which hands every record to the decoder.
 * Before the recording starts it tells the comm table and the address
 * space what already runs; while pulling, it hands mappings to the
 * address space and DWARF samples to ustack.c, and flushes the -o writer.
 * The public ktrace_record_open/poll/drain family.
 *
 * Owns perf, merge, pull_avail, map_scan and ft; kt_live_free() frees
 * them.
 */
#ifndef KTRACE_RECORD_LIVE_H
#define KTRACE_RECORD_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "record/ftsrc.h"

struct kt_perf;
struct kt_merge;

struct kt_live {
	struct kt_perf *perf;
	struct kt_merge *merge;
	uint64_t *pull_avail;	/* per ring: bytes this pull takes */
	/* Mappings are taken from the rings before the records around
	 * them (pull_all), each at its time, up to map_scan[ring]. */
	uint64_t *map_scan;
	bool prefetch;		/* read binaries ahead (scan_map) */
	uint64_t held_since;	/* records held while they are (poll) */
	uint64_t upto;		/* every record up to this time handed out */
	struct kt_ftsrc ft;	/* events perf does not deliver */
};

void kt_live_free(struct kt_live *l);

#endif
