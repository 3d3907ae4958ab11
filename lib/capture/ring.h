/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Reader of one perf_event mmap ring (internal to libktrace).
 *
 * The ring is a struct perf_event_mmap_page followed by a power-of-two data
 * area. The kernel publishes data_head; we read it with acquire semantics,
 * walk the records in [data_tail, data_head) and hand the space back by
 * storing data_tail with release semantics. A record that wraps around the
 * end of the data area is copied into a per-ring scratch buffer so callers
 * always see it contiguous.
 *
 * The ring does not have to come from the kernel: tests build one in
 * malloc'ed memory and move data_head themselves.
 */
#ifndef KT_RING_H
#define KT_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <linux/perf_event.h>

struct kt_ring {
	struct perf_event_mmap_page *meta;	/* borrowed */
	unsigned char *data;			/* borrowed, size bytes */
	uint64_t size;				/* power of two */
	uint64_t mask;
	uint64_t head;		/* snapshot taken by kt_ring_begin() */
	uint64_t pos;		/* next record to hand out, tail <= pos <= head */
	unsigned char *scratch;	/* owned, KT_RING_SCRATCH bytes */
	/* Statistics, never reset by the ring itself. */
	uint64_t nr_records;	/* records handed out */
	uint64_t nr_lost;	/* sum of PERF_RECORD_LOST.lost seen */
	uint64_t nr_lost_records;	/* how many PERF_RECORD_LOST seen */
	uint64_t nr_corrupt;	/* times a bad size made us drop the rest */
	uint64_t bytes;		/* bytes handed out */
};

/* A record's size is a u16: the scratch buffer holds the largest one. */
#define KT_RING_SCRATCH 65536

/*
 * Set r up over the mapping at base. When meta->data_size is set (kernels
 * since 4.1) data_offset/data_size are used, else the data area starts at
 * page_size and has data_size bytes. data_size must be a power of two.
 * Allocates the scratch buffer: release it with kt_ring_fini(), which
 * does not touch the mapping. Returns 0 or -EINVAL / -ENOMEM.
 */
int kt_ring_init(struct kt_ring *r, void *base, size_t page_size,
		 size_t data_size);
void kt_ring_fini(struct kt_ring *r);

/*
 * Snapshot data_head (acquire). Returns the number of unread bytes between
 * the read position and the new head.
 */
uint64_t kt_ring_begin(struct kt_ring *r);

/*
 * The next record before the snapshot, or NULL when there is none. The
 * pointer is into the ring or into r->scratch and stays valid until the next
 * call to kt_ring_next() or kt_ring_consume(), whichever comes first. A
 * record whose size is below the header size or beyond the snapshot means
 * the ring is corrupt: everything up to the snapshot is dropped
 * (nr_corrupt++) and NULL is returned, so a zero size never loops.
 */
const struct perf_event_header *kt_ring_next(struct kt_ring *r);

/* Give the space of every record handed out back to the kernel (release). */
void kt_ring_consume(struct kt_ring *r);

/* Unread bytes between the read position and the last snapshot. */
/*
 * Hand fn each record whose type's bit is in types, from ring position
 * *from (or the next record, if that is later) up to the head
 * kt_ring_begin() took; nothing is taken. *from moves past what was
 * looked at, so that over calls each record is seen once. The record is
 * valid during the call only. A damaged record ends the walk
 * (kt_ring_next() will say).
 */
typedef void (*kt_ring_peek_fn)(void *ctx,
				const struct perf_event_header *h);
void kt_ring_peek(struct kt_ring *r, uint64_t *from, uint64_t types,
		  kt_ring_peek_fn fn, void *ctx);

static inline uint64_t kt_ring_pending(const struct kt_ring *r)
{
	return r->head - r->pos;
}

#endif /* KT_RING_H */
