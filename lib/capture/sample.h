/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The one reader of perf record layouts (internal to libktrace).
 *
 * A PERF_RECORD_SAMPLE holds the fields its event's sample_type asks for,
 * in the kernel's fixed order (include/uapi/linux/perf_event.h):
 *
 *	IDENTIFIER, IP, TID (pid, tid), TIME, ADDR, ID, STREAM_ID,
 *	CPU (cpu, res), PERIOD, [READ], CALLCHAIN (nr, ips[nr]),
 *	RAW (u32 size, data[size]), [BRANCH_STACK],
 *	REGS_USER (abi, regs[popcount(sample_regs_user)] when abi != 0),
 *	STACK_USER (size, data[size], dyn_size when size != 0), ...
 *
 * Any other record the kernel writes (type < KT_RECORD_USER_TYPE_START)
 * ends, with sample_id_all, in a struct sample_id trailer:
 *
 *	TID (pid, tid), TIME, ID, STREAM_ID, CPU (cpu, res), IDENTIFIER.
 *
 * kt_sample_parse() turns either into a struct kt_sample, checking every
 * field against the record's size, as perf's evsel__parse_sample() does;
 * kt_sample_time() is its fast path for the timestamp alone (the merge
 * calls it for every record). Nothing else walks these layouts.
 *
 * Typical use, for an event opened with KT_PERF_SAMPLE_TYPE | CALLCHAIN:
 *
 *	struct kt_sample_fmt fmt = { .sample_type = kt_perf_sample_type(p),
 *				     .sample_id_all = true };
 *	struct kt_sample s;
 *
 *	if (h->type == PERF_RECORD_SAMPLE && !kt_sample_parse(&fmt, h, &s))
 *		use(s.id, s.tid, s.time, s.cpu, s.ips, s.nr_ips, s.raw);
 */
#ifndef KT_SAMPLE_H
#define KT_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* Record types from here on are made by tools (perf, ktrace's file), never
 * by the kernel: they have no sample_id trailer. */
#define KT_RECORD_USER_TYPE_START 64

/* The sample_type bits kt_sample_parse() knows the layout of. READ and
 * BRANCH_STACK sit between known fields and need read_format and
 * branch_sample_type to be skipped; ktrace sets neither. */
#define KT_SAMPLE_PARSE_TYPES (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
			       PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
			       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
			       PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | \
			       PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | \
			       PERF_SAMPLE_STACK_USER)

/* What the event was opened with (its perf_event_attr), all a reader of
 * its records needs to know. */
struct kt_sample_fmt {
	uint64_t sample_type;	/* attr.sample_type */
	uint64_t regs_user;	/* attr.sample_regs_user (for REGS_USER) */
	bool sample_id_all;	/* attr.sample_id_all */
};

/*
 * One record's sample fields. A field whose bit sample_type lacks (or, for
 * a non-sample record, that the trailer does not carry) is 0 / NULL: test
 * fmt->sample_type, not the value. The pointers point into the record and
 * are valid as long as it is; the record must be 8-byte aligned (the
 * kernel's and kt_ring_next()'s are).
 */
struct kt_sample {
	uint64_t id;		/* IDENTIFIER, else ID: maps to the event */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	/* CALLCHAIN: nr_ips entries, PERF_CONTEXT_* markers included; the
	 * u64 nr is ips[-1] */
	const uint64_t *ips;
	uint64_t nr_ips;
	/* RAW: a tracepoint's record, common header first, padded by the
	 * kernel; the u32 size is just before raw */
	const void *raw;
	uint32_t raw_size;
	/* REGS_USER: PERF_SAMPLE_REGS_ABI_*; NONE (0) when the task had no
	 * user context (a kernel thread), then regs is NULL. Otherwise one
	 * register per bit of fmt->regs_user, lowest bit first. */
	uint64_t regs_abi;
	const uint64_t *regs;
	/* STACK_USER: stack_size bytes copied from the user stack pointer
	 * up, of which the first stack_dyn_size (<= stack_size) are valid.
	 * stack is NULL when nothing was copied (size 0). */
	const void *stack;
	uint64_t stack_size;
	uint64_t stack_dyn_size;
};

/*
 * Parse h into *s (always cleared first): a PERF_RECORD_SAMPLE from its
 * body, any other kernel record from its sample_id trailer. Returns 0;
 * -EINVAL when a field runs past h->size (or a STACK_USER dyn_size exceeds
 * its size); -ENODATA for a non-sample record without a trailer (no
 * sample_id_all, or a user record type); -EOPNOTSUPP when sample_type has a
 * bit outside KT_SAMPLE_PARSE_TYPES.
 */
int kt_sample_parse(const struct kt_sample_fmt *fmt,
		    const struct perf_event_header *h, struct kt_sample *s);

/*
 * The timestamp of h, as kt_sample_parse() would find it, without parsing
 * the rest. Returns true and sets *ts, or false when h carries none (or is
 * too short to).
 */
bool kt_sample_time(const struct kt_sample_fmt *fmt,
		    const struct perf_event_header *h, uint64_t *ts);

/*
 * The writing side: s as a PERF_RECORD_SAMPLE of fmt's layout into buf
 * (cap bytes, 8-byte aligned), as the kernel would have written it, for
 * samples ktrace makes itself (off-CPU periods, lib/record/offcpu.c;
 * kt_sample_build() below). ID and IDENTIFIER both hold s->id; RAW holds
 * s->raw_size bytes of s->raw, zero padded; REGS_USER and STACK_USER are
 * written empty (no registers, no stack). Returns the record's size (a
 * multiple of 8; misc 0), or 0 when it does not fit cap (or 64 KiB), or
 * when fmt has a bit kt_sample_parse() does not know.
 */
size_t kt_sample_write(const struct kt_sample_fmt *fmt,
		       const struct kt_sample *s, void *buf, size_t cap);

/*
 * For events perf does not deliver (ftrace's buffers):
 * one event's data as a PERF_RECORD_SAMPLE of sample_type st, the fields
 * ktrace's events use (IDENTIFIER, IP, TID, TIME, ID, STREAM_ID, CPU,
 * PERIOD 1, CALLCHAIN and REGS_USER/STACK_USER empty, RAW the data), the
 * thread id taken from the data's common_pid. Built in b (grown as
 * needed; kt_sample_buf_free() frees it) and valid until its next use.
 * NULL: no memory, too big, or a bit of st it cannot fill.
 */
struct kt_sample_buf {
	unsigned char *p;
	size_t cap;
};
const struct perf_event_header *
kt_sample_build(struct kt_sample_buf *b, uint64_t st, uint64_t id, int cpu,
		uint64_t ts, const void *data, uint32_t size);
void kt_sample_buf_free(struct kt_sample_buf *b);

#endif /* KT_SAMPLE_H */
