// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Parse perf sample fields. See sample.h for the layouts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/sample.h"

/* A read position in one record; every take is checked against end. */
struct cur {
	const unsigned char *p, *end;
};

static bool has(const struct cur *c, uint64_t n)
{
	return n <= (uint64_t)(c->end - c->p);
}

/* Take one u64. Returns false past the end. */
static bool take_u64(struct cur *c, uint64_t *v)
{
	if (!has(c, 8))
		return false;
	memcpy(v, c->p, 8);
	c->p += 8;
	return true;
}

/* Take two u32 (hi may be NULL: a reserved half). */
static bool take_u32x2(struct cur *c, uint32_t *lo, uint32_t *hi)
{
	if (!has(c, 8))
		return false;
	memcpy(lo, c->p, 4);
	if (hi)
		memcpy(hi, c->p + 4, 4);
	c->p += 8;
	return true;
}

/* The fixed-size fields from IDENTIFIER to PERIOD. */
static int parse_fixed(uint64_t st, struct cur *c, struct kt_sample *s)
{
	if ((st & PERF_SAMPLE_IDENTIFIER) && !take_u64(c, &s->id))
		return -EINVAL;
	if ((st & PERF_SAMPLE_IP) && !take_u64(c, &s->ip))
		return -EINVAL;
	if ((st & PERF_SAMPLE_TID) && !take_u32x2(c, &s->pid, &s->tid))
		return -EINVAL;
	if ((st & PERF_SAMPLE_TIME) && !take_u64(c, &s->time))
		return -EINVAL;
	if ((st & PERF_SAMPLE_ADDR) && !take_u64(c, &s->addr))
		return -EINVAL;
	/* IDENTIFIER and ID hold the same value when both are set */
	if ((st & PERF_SAMPLE_ID) && !take_u64(c, &s->id))
		return -EINVAL;
	if ((st & PERF_SAMPLE_STREAM_ID) && !take_u64(c, &s->stream_id))
		return -EINVAL;
	if ((st & PERF_SAMPLE_CPU) && !take_u32x2(c, &s->cpu, NULL))
		return -EINVAL;
	if ((st & PERF_SAMPLE_PERIOD) && !take_u64(c, &s->period))
		return -EINVAL;
	return 0;
}

/* CALLCHAIN and RAW. */
static int parse_chain_raw(uint64_t st, struct cur *c, struct kt_sample *s)
{
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (!take_u64(c, &s->nr_ips) ||
		    s->nr_ips > (uint64_t)(c->end - c->p) / 8)
			return -EINVAL;
		s->ips = (const uint64_t *)c->p;
		c->p += s->nr_ips * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (!has(c, 4))
			return -EINVAL;
		memcpy(&s->raw_size, c->p, 4);
		c->p += 4;
		if (!has(c, s->raw_size))
			return -EINVAL;
		s->raw = c->p;
		c->p += s->raw_size;
	}
	return 0;
}

/* REGS_USER and STACK_USER, the DWARF unwinding material. */
static int parse_user(const struct kt_sample_fmt *fmt, struct cur *c,
		      struct kt_sample *s)
{
	uint64_t st = fmt->sample_type;

	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t n = __builtin_popcountll(fmt->regs_user);

		if (!take_u64(c, &s->regs_abi))
			return -EINVAL;
		if (s->regs_abi) {
			if (!has(c, 8 * n))
				return -EINVAL;
			s->regs = (const uint64_t *)c->p;
			c->p += 8 * n;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (!take_u64(c, &s->stack_size))
			return -EINVAL;
		if (s->stack_size) {
			if (!has(c, s->stack_size))
				return -EINVAL;
			s->stack = c->p;
			c->p += s->stack_size;
			if (!take_u64(c, &s->stack_dyn_size) ||
			    s->stack_dyn_size > s->stack_size)
				return -EINVAL;
		}
	}
	return 0;
}

/* Bytes of the sample_id trailer under sample_type. */
static size_t trailer_size(uint64_t st)
{
	return 8 * (!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
		    !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
		    !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));
}

static bool has_trailer(const struct kt_sample_fmt *fmt,
			const struct perf_event_header *h)
{
	return fmt->sample_id_all && h->type != PERF_RECORD_SAMPLE &&
	       h->type < KT_RECORD_USER_TYPE_START;
}

static int parse_trailer(uint64_t st, struct cur *c, struct kt_sample *s)
{
	size_t n = trailer_size(st);

	if (!has(c, n))
		return -EINVAL;
	c->p = c->end - n;
	if ((st & PERF_SAMPLE_TID) && !take_u32x2(c, &s->pid, &s->tid))
		return -EINVAL;
	if ((st & PERF_SAMPLE_TIME) && !take_u64(c, &s->time))
		return -EINVAL;
	if ((st & PERF_SAMPLE_ID) && !take_u64(c, &s->id))
		return -EINVAL;
	if ((st & PERF_SAMPLE_STREAM_ID) && !take_u64(c, &s->stream_id))
		return -EINVAL;
	if ((st & PERF_SAMPLE_CPU) && !take_u32x2(c, &s->cpu, NULL))
		return -EINVAL;
	if ((st & PERF_SAMPLE_IDENTIFIER) && !take_u64(c, &s->id))
		return -EINVAL;
	return 0;
}

int kt_sample_parse(const struct kt_sample_fmt *fmt,
		    const struct perf_event_header *h, struct kt_sample *s)
{
	uint64_t st = fmt->sample_type;
	struct cur c;
	int err;

	/* Field by field, not memset(): gcc makes that a rep stos, whose
	 * start and the loads of fields it wrote (string stores do not
	 * forward) cost ~9 ns of the ~55 a record takes to decode. A field
	 * added to struct kt_sample is zeroed here too (the assert). */
	_Static_assert(sizeof(*s) == 17 * 8, "a new field of kt_sample");
	s->id = s->ip = s->time = s->addr = s->stream_id = s->period = 0;
	s->pid = s->tid = s->cpu = s->raw_size = 0;
	s->ips = NULL;
	s->nr_ips = 0;
	s->raw = NULL;
	s->regs_abi = s->stack_size = s->stack_dyn_size = 0;
	s->regs = NULL;
	s->stack = NULL;
	if (st & ~(uint64_t)KT_SAMPLE_PARSE_TYPES)
		return -EOPNOTSUPP;
	if (h->size < sizeof(*h))
		return -EINVAL;
	c.p = (const unsigned char *)(h + 1);
	c.end = (const unsigned char *)h + h->size;
	if (h->type != PERF_RECORD_SAMPLE) {
		if (!has_trailer(fmt, h))
			return -ENODATA;
		return parse_trailer(st, &c, s);
	}
	err = parse_fixed(st, &c, s);
	if (!err)
		err = parse_chain_raw(st, &c, s);
	if (!err)
		err = parse_user(fmt, &c, s);
	return err;
}

bool kt_sample_time(const struct kt_sample_fmt *fmt,
		    const struct perf_event_header *h, uint64_t *ts)
{
	uint64_t st = fmt->sample_type;
	size_t off;

	if (!(st & PERF_SAMPLE_TIME))
		return false;
	if (h->type == PERF_RECORD_SAMPLE) {
		/* identifier, ip, pid/tid come before time */
		off = sizeof(*h) + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) +
					!!(st & PERF_SAMPLE_IP) +
					!!(st & PERF_SAMPLE_TID));
		if (h->size < off + 8)
			return false;
	} else if (has_trailer(fmt, h)) {
		/* in the trailer only TID comes before time */
		size_t n = trailer_size(st);

		if (h->size < sizeof(*h) + n)
			return false;
		off = h->size - n + 8 * !!(st & PERF_SAMPLE_TID);
	} else {
		return false;
	}
	memcpy(ts, (const unsigned char *)h + off, sizeof(*ts));
	return true;
}

static unsigned char *put_u64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

static unsigned char *put_u32x2(unsigned char *p, uint32_t lo, uint32_t hi)
{
	memcpy(p, &lo, 4);
	memcpy(p + 4, &hi, 4);
	return p + 8;
}

/* Bytes of the sample kt_sample_write() makes of s. */
static size_t write_size(uint64_t st, const struct kt_sample *s)
{
	size_t n = sizeof(struct perf_event_header);

	n += 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
		  !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
		  !!(st & PERF_SAMPLE_ADDR) + !!(st & PERF_SAMPLE_ID) +
		  !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
		  !!(st & PERF_SAMPLE_PERIOD));
	if (st & PERF_SAMPLE_CALLCHAIN)
		n += 8 + 8 * s->nr_ips;
	if (st & PERF_SAMPLE_RAW)	/* u32 size + data, padded to 8 */
		n += (4 + s->raw_size + 7) & ~(size_t)7;
	/* empty: abi 0 (no registers), size 0 (no stack) */
	n += 8 * (!!(st & PERF_SAMPLE_REGS_USER) +
		  !!(st & PERF_SAMPLE_STACK_USER));
	return n;
}

size_t kt_sample_write(const struct kt_sample_fmt *fmt,
		       const struct kt_sample *s, void *buf, size_t cap)
{
	uint64_t st = fmt->sample_type;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	unsigned char *p = buf;
	size_t n;

	if (st & ~(uint64_t)KT_SAMPLE_PARSE_TYPES)
		return 0;
	n = write_size(st, s);
	if (n > cap || n > 65535)
		return 0;
	h.size = n;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	if (st & PERF_SAMPLE_IDENTIFIER)
		p = put_u64(p, s->id);
	if (st & PERF_SAMPLE_IP)
		p = put_u64(p, s->ip);
	if (st & PERF_SAMPLE_TID)
		p = put_u32x2(p, s->pid, s->tid);
	if (st & PERF_SAMPLE_TIME)
		p = put_u64(p, s->time);
	if (st & PERF_SAMPLE_ADDR)
		p = put_u64(p, s->addr);
	if (st & PERF_SAMPLE_ID)
		p = put_u64(p, s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		p = put_u64(p, s->stream_id);
	if (st & PERF_SAMPLE_CPU)
		p = put_u32x2(p, s->cpu, 0);
	if (st & PERF_SAMPLE_PERIOD)
		p = put_u64(p, s->period);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		p = put_u64(p, s->nr_ips);
		if (s->nr_ips)
			memcpy(p, s->ips, 8 * s->nr_ips);
		p += 8 * s->nr_ips;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t size = ((4 + s->raw_size + 7) & ~7u) - 4;

		memcpy(p, &size, 4);
		memset(p + 4, 0, size);
		if (s->raw_size)
			memcpy(p + 4, s->raw, s->raw_size);
		p += 4 + size;
	}
	if (st & PERF_SAMPLE_REGS_USER)
		p = put_u64(p, 0);
	if (st & PERF_SAMPLE_STACK_USER)
		p = put_u64(p, 0);
	/* every byte of the n written */
	return (size_t)(p - (unsigned char *)buf) == n ? n : 0;
}

void kt_sample_buf_free(struct kt_sample_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->cap = 0;
}

const struct perf_event_header *
kt_sample_build(struct kt_sample_buf *b, uint64_t st, uint64_t id, int cpu,
		uint64_t ts, const void *data, uint32_t size)
{
	struct kt_sample_fmt fmt = { .sample_type = st };
	struct kt_sample s = {
		.id = id, .stream_id = id, .time = ts, .cpu = cpu,
		.period = 1, .raw = data, .raw_size = size,
	};
	size_t len = sizeof(struct perf_event_header) + 16 * 8 + size;
	struct perf_event_header *h;
	int32_t cpid;

	if (len > UINT16_MAX)
		return NULL;
	if (b->cap < len) {
		unsigned char *n = realloc(b->p, len);

		if (!n)
			return NULL;
		b->p = n;
		b->cap = len;
	}
	/* common_pid, the thread's id (the process's is not recorded) */
	if (size >= 8) {
		memcpy(&cpid, (const unsigned char *)data + 4, 4);
		s.pid = s.tid = (uint32_t)cpid;
	}
	if (!kt_sample_write(&fmt, &s, b->p, b->cap))
		return NULL;
	h = (struct perf_event_header *)b->p;
	h->misc = PERF_RECORD_MISC_KERNEL;
	return h;
}
