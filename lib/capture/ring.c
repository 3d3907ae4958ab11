// SPDX-License-Identifier: LGPL-2.1-only
/*
 * perf_event mmap ring reader. See ring.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/ring.h"

int kt_ring_init(struct kt_ring *r, void *base, size_t page_size,
		 size_t data_size)
{
	struct perf_event_mmap_page *meta = base;
	uint64_t off = page_size, size = data_size;

	memset(r, 0, sizeof(*r));
	if (!base)
		return -EINVAL;
	if (meta->data_size) {
		off = meta->data_offset;
		size = meta->data_size;
	}
	if (!size || (size & (size - 1)) || off < sizeof(*meta) ||
	    (data_size && size != data_size))
		return -EINVAL;
	r->scratch = malloc(KT_RING_SCRATCH);
	if (!r->scratch)
		return -ENOMEM;
	r->meta = meta;
	r->data = (unsigned char *)base + off;
	r->size = size;
	r->mask = size - 1;
	r->pos = __atomic_load_n(&meta->data_tail, __ATOMIC_RELAXED);
	r->head = r->pos;
	return 0;
}

void kt_ring_fini(struct kt_ring *r)
{
	if (!r)
		return;
	free(r->scratch);
	r->scratch = NULL;
}

uint64_t kt_ring_begin(struct kt_ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);

	/* A head behind us or more than a ring ahead cannot be trusted. */
	if (head - r->pos > r->size) {
		r->nr_corrupt++;
		r->pos = head;
	}
	r->head = head;
	return head - r->pos;
}

/* Copy len bytes starting at ring offset pos into dst, wrapping. */
static void ring_copy(const struct kt_ring *r, void *dst, uint64_t pos,
		      size_t len)
{
	uint64_t off = pos & r->mask;
	size_t first = r->size - off;

	if (first >= len) {
		memcpy(dst, r->data + off, len);
	} else {
		memcpy(dst, r->data + off, first);
		memcpy((unsigned char *)dst + first, r->data, len - first);
	}
}

const struct perf_event_header *kt_ring_next(struct kt_ring *r)
{
	struct perf_event_header hdr;
	const struct perf_event_header *rec;
	uint64_t avail = r->head - r->pos;
	uint64_t off;

	if (avail < sizeof(hdr)) {
		if (avail) {
			/* The kernel never publishes part of a record. */
			r->nr_corrupt++;
			r->pos = r->head;
		}
		return NULL;
	}
	off = r->pos & r->mask;
	if (off + sizeof(hdr) <= r->size)
		memcpy(&hdr, r->data + off, sizeof(hdr));
	else
		ring_copy(r, &hdr, r->pos, sizeof(hdr));
	if (hdr.size < sizeof(hdr) || hdr.size > avail) {
		r->nr_corrupt++;
		r->pos = r->head;
		return NULL;
	}
	if (off + hdr.size <= r->size) {
		rec = (const struct perf_event_header *)(r->data + off);
	} else {
		ring_copy(r, r->scratch, r->pos, hdr.size);
		rec = (const struct perf_event_header *)r->scratch;
	}
	r->pos += hdr.size;
	r->nr_records++;
	r->bytes += hdr.size;
	if (hdr.type == PERF_RECORD_LOST && hdr.size >= sizeof(hdr) + 16) {
		uint64_t lost;

		memcpy(&lost, (const unsigned char *)rec + sizeof(hdr) + 8,
		       sizeof(lost));
		r->nr_lost += lost;
		r->nr_lost_records++;
	}
	return rec;
}

void kt_ring_consume(struct kt_ring *r)
{
	__atomic_store_n(&r->meta->data_tail, r->pos, __ATOMIC_RELEASE);
}

void kt_ring_peek(struct kt_ring *r, uint64_t *from, uint64_t types,
		  kt_ring_peek_fn fn, void *ctx)
{
	struct perf_event_header hdr;
	uint64_t p = *from;

	/* positions only grow: one behind the reader's was read */
	if ((int64_t)(p - r->pos) < 0 || p - r->pos > r->head - r->pos)
		p = r->pos;
	for (; r->head - p >= sizeof(hdr); p += hdr.size) {
		uint64_t off = p & r->mask;

		ring_copy(r, &hdr, p, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > r->head - p)
			break;	/* damaged: kt_ring_next() will say */
		if (hdr.type >= 64 || !(types & (1ull << hdr.type)))
			continue;
		if (off + hdr.size <= r->size) {
			fn(ctx, (const struct perf_event_header *)(r->data +
								  off));
		} else {
			ring_copy(r, r->scratch, p, hdr.size);
			fn(ctx, (const struct perf_event_header *)r->scratch);
		}
	}
	*from = p;
}
