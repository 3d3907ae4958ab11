/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Ordered merge of perf records from N sources (one per CPU ring).
 *
 * Records are copied into a per-source arena when added (the ring space can
 * then be handed back to the kernel at once) and emitted strictly ordered by
 * (timestamp, source, arrival). Emission happens in rounds, as perf does:
 * kt_merge_flush() emits every pending record older than the bound
 *
 *	min(horizon, min over sources that produced since the last flush of
 *	    the last timestamp they produced)
 *
 * and keeps the rest for a later round; kt_merge_drain() emits everything.
 * horizon is the caller's promise that no record with an older timestamp
 * can still show up (the capture loop passes "CLOCK_MONOTONIC now - 10 ms":
 * a record is stamped before it is written to the ring, and the writer
 * runs with preemption off, so only a stolen vCPU delays it that long);
 * pass UINT64_MAX to rely on the last-seen timestamps alone.
 *
 * A record without a timestamp (e.g. PERF_RECORD_LOST without sample_id_all)
 * gets the timestamp of the record before it on its source, so it keeps its
 * place among its neighbours. Within one source a record older than the one
 * before it is moved back (a short insertion sort). A record older than one
 * already emitted cannot be placed any more: it is emitted in the next round
 * and counted as late (kt_merge_stats()).
 *
 * The hot path does not allocate: arenas and entry arrays grow by doubling
 * and are reused.
 */
#ifndef KT_MERGE_H
#define KT_MERGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <linux/perf_event.h>

struct kt_ring;

/* How to find a record's timestamp. */
struct kt_merge_cfg {
	uint64_t sample_type;	/* perf_event_attr.sample_type */
	bool sample_id_all;	/* perf_event_attr.sample_id_all */
};

/*
 * Called for every emitted record in order. rec is valid only during the
 * call. A non-zero return stops the flush and is returned by it.
 */
typedef int (*kt_merge_emit_fn)(void *ctx, int src, uint64_t ts,
				const struct perf_event_header *rec);

struct kt_merge;

/* Returns NULL + errno (EINVAL, ENOMEM). Free with kt_merge_free(). */
struct kt_merge *kt_merge_alloc(int nr_src, const struct kt_merge_cfg *cfg,
				kt_merge_emit_fn emit, void *ctx);
void kt_merge_free(struct kt_merge *m);

/*
 * The timestamp of rec under cfg (kt_sample_time() of capture/sample.h).
 * Returns true and sets *ts, or false when the record carries none.
 */
bool kt_merge_rec_time(const struct kt_merge_cfg *cfg,
		       const struct perf_event_header *rec, uint64_t *ts);

/*
 * What a reader may queue in place of rec as it leaves the ring (rec
 * itself, or a record of its own valid until the next call).
 */
typedef const struct perf_event_header *(*kt_merge_xform_fn)(
	void *ctx, const struct perf_event_header *rec);

/*
 * Take up to max_bytes (0: everything) of the records ring has now into
 * src's queue, through xform when not NULL, and give their space back to
 * the kernel. Returns the number of records taken or -errno.
 */
long kt_merge_pull(struct kt_merge *m, int src, struct kt_ring *ring,
		   size_t max_bytes, kt_merge_xform_fn xform, void *ctx);

/* Copy one record (of a source that is not a ring) into src's queue.
 * Returns 0 or -ENOMEM / -EINVAL. */
int kt_merge_add(struct kt_merge *m, int src,
		 const struct perf_event_header *rec);

/* Emit what is older than the bound (see above). Returns records emitted
 * or the emit callback's non-zero value / -errno. */
long kt_merge_flush(struct kt_merge *m, uint64_t horizon);
/* Emit everything still queued, in order. */
long kt_merge_drain(struct kt_merge *m);

struct kt_merge_stats {
	uint64_t added;
	uint64_t emitted;
	uint64_t late;		/* older than something already emitted */
	uint64_t untimed;	/* records that had no timestamp */
	uint64_t pending;	/* queued now */
	size_t mem;		/* bytes allocated for queues */
};
void kt_merge_stats(const struct kt_merge *m, struct kt_merge_stats *st);

#endif /* KT_MERGE_H */
