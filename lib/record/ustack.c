// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Samples with a copy of the user stack (--call-graph dwarf), unwound as
 * they leave their ring: the 8 KiB copy is replaced by the frames it
 * held, so what the merge queues and everything after it sees is a plain
 * callchain sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/addrspace.h"
#include "record/ustack.h"
#include "sym/unwind.h"

/* Most user frames kept from a DWARF unwind (perf's default max-stack). */
#define UW_MAX_FRAMES 127

/* What a sample with a stack copy holds, as the rewrite needs it. */
struct dwarf_sample {
	struct kt_ustack us;	/* pid, tid, time, registers, stack */
	const unsigned char *chain;	/* where CALLCHAIN is (or would be) */
	uint64_t nr;		/* its kernel frames */
	const unsigned char *raw, *raw_end;	/* RAW, its size first */
};

/* h's fields (u->raw_sample_type); 0, or -EINVAL when h is too short. */
static int dwarf_parse(const struct kt_ustacks *u,
		       const struct perf_event_header *h,
		       struct dwarf_sample *d)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;
	uint64_t st = u->raw_sample_type, abi = 0, size, dyn;

	memset(d, 0, sizeof(*d));
#define NEED(n) do { if (p > end || (size_t)(end - p) < (size_t)(n)) return -EINVAL; } while (0)
	/* The fields before the callchain: only TID is needed here. */
	if (st & PERF_SAMPLE_IDENTIFIER)
		p += 8;
	if (st & PERF_SAMPLE_IP)
		p += 8;
	if (st & PERF_SAMPLE_TID) {
		NEED(8);
		d->us.pid = ((const int32_t *)p)[0];
		d->us.tid = ((const int32_t *)p)[1];
		p += 8;
	}
	d->us.time = UINT64_MAX;	/* untimed: every mapping known */
	if (st & PERF_SAMPLE_TIME) {
		NEED(8);
		memcpy(&d->us.time, p, 8);
		p += 8;
	}
	p += 8 * (!!(st & PERF_SAMPLE_ADDR) +
		  !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
		  !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_PERIOD));
	d->chain = p;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(8);
		memcpy(&d->nr, p, 8);
		p += 8;
		if (d->nr > (uint64_t)(end - p) / 8)
			return -EINVAL;
		p += d->nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t sz;

		d->raw = p;
		NEED(4);
		memcpy(&sz, p, 4);
		p += 4;
		NEED(sz);
		p += sz;
		d->raw_end = p;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		NEED(8);
		memcpy(&abi, p, 8);
		p += 8;
		if (abi) {
			int n = __builtin_popcountll(u->regs_mask);

			NEED(8 * n);
			d->us.regs = (const uint64_t *)p;
			d->us.regs_mask = u->regs_mask;
			p += 8 * n;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		NEED(8);
		memcpy(&size, p, 8);
		p += 8;
		if (size) {
			NEED(size);
			d->us.stack = p;
			p += size;
			NEED(8);
			memcpy(&dyn, p, 8);
			d->us.stack_size = dyn < size ? dyn : size;
		}
	}
#undef NEED
	return 0;
}

/*
 * h rebuilt in u->rec without its registers and stack copy: the fields
 * before the callchain as they were, the kernel's frames then nu user
 * frames after a PERF_CONTEXT_USER marker, RAW. NULL when it does not fit
 * a record (or memory).
 */
static const struct perf_event_header *
dwarf_rebuild(struct kt_ustacks *u, const struct perf_event_header *h,
	      const struct dwarf_sample *d, const uint64_t *uips, int nu)
{
	size_t prefix = d->chain - (const unsigned char *)(h + 1), need;
	struct perf_event_header *nh;
	unsigned char *o;

	need = sizeof(*h) + prefix + 8 + (d->nr + 1 + nu) * 8 +
	       (d->raw ? d->raw_end - d->raw : 0);
	need = (need + 7) & ~(size_t)7;
	if (need > 65535)
		return NULL;
	if (need > u->rec_cap) {
		unsigned char *nb = realloc(u->rec, need);

		if (!nb)
			return NULL;
		u->rec = nb;
		u->rec_cap = need;
	}
	nh = (struct perf_event_header *)u->rec;
	*nh = *h;
	o = (unsigned char *)(nh + 1);
	memcpy(o, h + 1, prefix);
	o += prefix;
	if (u->raw_sample_type & PERF_SAMPLE_CALLCHAIN) {
		uint64_t total = d->nr + (nu ? nu + 1 : 0);
		uint64_t marker = PERF_CONTEXT_USER;

		memcpy(o, &total, 8);
		memcpy(o + 8, d->chain + 8, d->nr * 8);
		o += 8 + d->nr * 8;
		if (nu) {
			memcpy(o, &marker, 8);
			memcpy(o + 8, uips, nu * 8);
			o += 8 + nu * 8;
		}
	}
	if (d->raw) {
		memcpy(o, d->raw, d->raw_end - d->raw);
		o += d->raw_end - d->raw;
	}
	while ((size_t)(o - u->rec) < need)
		*o++ = 0;
	nh->size = need;
	return nh;
}

const struct perf_event_header *
kt_ustacks_unwind(struct kt_ustacks *u, struct kt_addrspace *as,
		  const struct perf_event_header *h)
{
	uint64_t uips[UW_MAX_FRAMES];
	struct dwarf_sample d;
	int nu = 0;

	if (dwarf_parse(u, h, &d))
		return NULL;
	/* A sample taken in the kernel for a kernel thread has no user
	 * registers (abi 0): no user frames. */
	if (d.us.regs && d.us.stack)
		nu = kt_addrspace_unwind(as, &d.us, uips, UW_MAX_FRAMES);
	return dwarf_rebuild(u, h, &d, uips, nu);
}

void kt_ustacks_free(struct kt_ustacks *u)
{
	free(u->rec);
}
