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

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
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
	uint32_t raw = ((4 + size + 7) & ~7u) - 4, pid = 0, u32[2];
	size_t len = sizeof(struct perf_event_header) + 12 * 8 + 4 + raw;
	uint64_t zero = 0, one = 1;
	struct perf_event_header *h;
	unsigned char *p;
	int32_t cpid;

	if (st & ~(uint64_t)(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			     PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			     PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			     PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			     PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
		return NULL;
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
		pid = (uint32_t)cpid;
	}
	h = (struct perf_event_header *)b->p;
	p = b->p + sizeof(*h);
	if (st & PERF_SAMPLE_IDENTIFIER)
		p = put(p, &id, 8);
	if (st & PERF_SAMPLE_IP)
		p = put(p, &zero, 8);
	u32[0] = u32[1] = pid;
	if (st & PERF_SAMPLE_TID)
		p = put(p, u32, 8);
	if (st & PERF_SAMPLE_TIME)
		p = put(p, &ts, 8);
	if (st & PERF_SAMPLE_ID)
		p = put(p, &id, 8);
	if (st & PERF_SAMPLE_STREAM_ID)
		p = put(p, &id, 8);
	u32[0] = cpu;
	u32[1] = 0;
	if (st & PERF_SAMPLE_CPU)
		p = put(p, u32, 8);
	if (st & PERF_SAMPLE_PERIOD)
		p = put(p, &one, 8);
	if (st & PERF_SAMPLE_CALLCHAIN)
		p = put(p, &zero, 8);	/* no frames */
	if (st & PERF_SAMPLE_RAW) {
		p = put(p, &raw, 4);
		p = put(p, data, size);
		memset(p, 0, raw - size);
		p += raw - size;
	}
	if (st & PERF_SAMPLE_REGS_USER)
		p = put(p, &zero, 8);	/* abi 0: no registers */
	if (st & PERF_SAMPLE_STACK_USER)
		p = put(p, &zero, 8);	/* no stack */
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_KERNEL;
	h->size = p - b->p;
	return h;
}
