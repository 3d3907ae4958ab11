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

#include "capture/sample.h"
#include "record/addrspace.h"
#include "record/ustack.h"
#include "sym/unwind.h"

/* Most user frames kept from a DWARF unwind (perf's default max-stack). */
#define UW_MAX_FRAMES 127

/* h's fields (u->raw_sample_type, always with CALLCHAIN: DWARF stacks
 * are asked for with a callchain) and what the unwinder needs of them;
 * 0, or -EINVAL when h is too short. */
static int dwarf_parse(const struct kt_ustacks *u,
		       const struct perf_event_header *h, struct kt_sample *s,
		       struct kt_ustack *us)
{
	const struct kt_sample_fmt fmt = {
		.sample_type = u->raw_sample_type,
		.regs_user = u->regs_mask,
		.sample_id_all = true,
	};

	if (kt_sample_parse(&fmt, h, s) || !s->ips)
		return -EINVAL;
	memset(us, 0, sizeof(*us));
	us->pid = s->pid;
	us->tid = s->tid;
	/* untimed: every mapping known */
	us->time = fmt.sample_type & PERF_SAMPLE_TIME ? s->time : UINT64_MAX;
	if (s->regs) {
		us->regs = s->regs;
		us->regs_mask = u->regs_mask;
	}
	us->stack = s->stack;
	us->stack_size = s->stack_dyn_size;
	return 0;
}

/*
 * h rebuilt in u->rec without its registers and stack copy: the fields
 * before the callchain as they were, the kernel's frames then nu user
 * frames after a PERF_CONTEXT_USER marker, RAW (its u32 size first).
 * NULL when it does not fit a record (or memory).
 */
static const struct perf_event_header *
dwarf_rebuild(struct kt_ustacks *u, const struct perf_event_header *h,
	      const struct kt_sample *s, const uint64_t *uips, int nu)
{
	/* the callchain's u64 nr is just before ips */
	const unsigned char *chain = (const unsigned char *)(s->ips - 1);
	size_t prefix = chain - (const unsigned char *)(h + 1), need;
	const unsigned char *raw = s->raw ?
				   (const unsigned char *)s->raw - 4 : NULL;
	size_t raw_len = raw ? 4 + (size_t)s->raw_size : 0;
	struct perf_event_header *nh;
	unsigned char *o;

	need = sizeof(*h) + prefix + 8 + (s->nr_ips + 1 + nu) * 8 + raw_len;
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
	{
		uint64_t total = s->nr_ips + (nu ? nu + 1 : 0);
		uint64_t marker = PERF_CONTEXT_USER;

		memcpy(o, &total, 8);
		memcpy(o + 8, s->ips, s->nr_ips * 8);
		o += 8 + s->nr_ips * 8;
		if (nu) {
			memcpy(o, &marker, 8);
			memcpy(o + 8, uips, nu * 8);
			o += 8 + nu * 8;
		}
	}
	if (raw) {
		memcpy(o, raw, raw_len);
		o += raw_len;
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
	struct kt_sample s;
	struct kt_ustack us;
	int nu = 0;

	if (dwarf_parse(u, h, &s, &us))
		return NULL;
	/* A sample taken in the kernel for a kernel thread has no user
	 * registers (abi 0): no user frames. */
	if (us.regs && us.stack)
		nu = kt_addrspace_unwind(as, &us, uips, UW_MAX_FRAMES);
	return dwarf_rebuild(u, h, &s, uips, nu);
}

void kt_ustacks_free(struct kt_ustacks *u)
{
	free(u->rec);
}
