/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Synthetic perf rings for the unit tests: a malloc'ed perf_event_mmap_page
 * followed by a data area, and builders for the records ktrace asks the
 * kernel for (sample_type IDENTIFIER|TID|TIME|CPU|RAW, sample_id_all).
 */
#ifndef SYNRING_H
#define SYNRING_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#define SYN_PAGE 4096
#define SYN_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)

struct synring {
	void *base;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t size;
};

static inline void syn_init(struct synring *s, uint64_t size)
{
	s->base = aligned_alloc(SYN_PAGE, SYN_PAGE + size);
	memset(s->base, 0, SYN_PAGE + size);
	s->meta = s->base;
	s->meta->data_offset = SYN_PAGE;
	s->meta->data_size = size;
	s->data = (unsigned char *)s->base + SYN_PAGE;
	s->size = size;
}

static inline void syn_fini(struct synring *s)
{
	free(s->base);
}

/* Start both head and tail at pos (to place records across the end). */
static inline void syn_seek(struct synring *s, uint64_t pos)
{
	s->meta->data_head = pos;
	s->meta->data_tail = pos;
}

/* Write len bytes at head, wrapping, without publishing. */
static inline void syn_write_at(struct synring *s, uint64_t pos,
				const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		s->data[(pos + i) & (s->size - 1)] = b[i];
}

/* Append a record and publish it. */
static inline void syn_put(struct synring *s, const void *rec)
{
	const struct perf_event_header *h = rec;

	syn_write_at(s, s->meta->data_head, rec, h->size);
	s->meta->data_head += h->size;
}

/*
 * A sample: id, pid/tid, time, cpu, raw (raw_len bytes of pattern).
 * Returns its size; buf needs 64 + raw_len bytes.
 */
static inline size_t syn_sample(void *buf, uint64_t id, uint32_t pid,
				uint32_t tid, uint64_t time, uint32_t cpu,
				size_t raw_len, unsigned char pattern)
{
	unsigned char *p = buf;
	struct perf_event_header h;
	uint32_t raw_size;
	size_t size = 8 + 8 + 8 + 8 + 8 + 4 + raw_len;
	uint32_t zero = 0;

	size = (size + 7) & ~(size_t)7;
	raw_size = size - 44;
	h.type = PERF_RECORD_SAMPLE;
	h.misc = PERF_RECORD_MISC_USER;
	h.size = size;
	memcpy(p, &h, 8);
	memcpy(p + 8, &id, 8);
	memcpy(p + 16, &pid, 4);
	memcpy(p + 20, &tid, 4);
	memcpy(p + 24, &time, 8);
	memcpy(p + 32, &cpu, 4);
	memcpy(p + 36, &zero, 4);
	memcpy(p + 40, &raw_size, 4);
	memset(p + 44, pattern, raw_size);
	return size;
}

/* PERF_RECORD_LOST without a sample_id trailer. */
static inline size_t syn_lost(void *buf, uint64_t id, uint64_t lost)
{
	struct perf_event_header h = {
		.type = PERF_RECORD_LOST, .misc = 0, .size = 24,
	};
	unsigned char *p = buf;

	memcpy(p, &h, 8);
	memcpy(p + 8, &id, 8);
	memcpy(p + 16, &lost, 8);
	return 24;
}

/* PERF_RECORD_COMM with the sample_id trailer (tid, time, cpu, id). */
static inline size_t syn_comm(void *buf, uint32_t pid, uint32_t tid,
			      const char *comm, uint64_t time, uint32_t cpu,
			      uint64_t id)
{
	unsigned char *p = buf;
	size_t clen = (strlen(comm) + 1 + 7) & ~(size_t)7;
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .misc = 0 };
	uint32_t zero = 0;
	size_t o;

	h.size = 8 + 8 + clen + 32;
	memcpy(p, &h, 8);
	memcpy(p + 8, &pid, 4);
	memcpy(p + 12, &tid, 4);
	memset(p + 16, 0, clen);
	memcpy(p + 16, comm, strlen(comm));
	o = 16 + clen;
	memcpy(p + o, &pid, 4);
	memcpy(p + o + 4, &tid, 4);
	memcpy(p + o + 8, &time, 8);
	memcpy(p + o + 16, &cpu, 4);
	memcpy(p + o + 20, &zero, 4);
	memcpy(p + o + 24, &id, 8);
	return h.size;
}

static inline uint64_t syn_rec_time(const struct perf_event_header *h)
{
	uint64_t t;

	memcpy(&t, (const unsigned char *)h + 24, 8);
	return t;
}

#endif /* SYNRING_H */
