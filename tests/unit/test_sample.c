// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for lib/capture/sample.c: every sample_type the parser knows
 * (every subset of KT_SAMPLE_PARSE_TYPES, which holds every bit ktrace
 * sets), every truncation of each, malformed sizes, and sample_id trailers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "capture/perf.h"
#include "capture/sample.h"
#include "synring.h"

/* The values the builders write (distinct, so a field read from the wrong
 * place shows). */
static const uint64_t W_IPS[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010,
				  0xffffffff81000020 };
static const unsigned char W_RAW[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
/* Two registers: the mask below has two bits */
#define W_REGS_MASK ((1ull << 6) | (1ull << 7))
static const uint64_t W_REGS[] = { 0x7ffd00001000, 0x7ffd00000ff0 };
static const unsigned char W_STACK[16] = "stack bytes 0123";

static const struct kt_sample want = {
	.id = 0x1111, .ip = 0x401000, .pid = 42, .tid = 43, .time = 0x5555555,
	.addr = 0xadd2, .stream_id = 0x5757, .cpu = 3, .period = 99,
	.ips = W_IPS, .nr_ips = 3, .raw = W_RAW, .raw_size = sizeof(W_RAW),
	.regs_abi = PERF_SAMPLE_REGS_ABI_64, .regs = W_REGS,
	.stack = W_STACK, .stack_size = sizeof(W_STACK), .stack_dyn_size = 10,
};

struct wbuf {
	uint64_t words[256];	/* 8-byte aligned, as a ring's records are */
	size_t len;
};

static void put(struct wbuf *b, const void *p, size_t n)
{
	assert_true(b->len + n <= sizeof(b->words));
	memcpy((unsigned char *)b->words + b->len, p, n);
	b->len += n;
}

static void put64(struct wbuf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32x2(struct wbuf *b, uint32_t lo, uint32_t hi)
{
	put(b, &lo, 4);
	put(b, &hi, 4);
}

static struct perf_event_header *finish(struct wbuf *b, uint32_t type)
{
	struct perf_event_header h = {
		.type = type, .misc = PERF_RECORD_MISC_USER, .size = b->len,
	};

	memcpy(b->words, &h, sizeof(h));
	return (struct perf_event_header *)b->words;
}

/* A PERF_RECORD_SAMPLE holding w's fields for st, in the kernel's order. */
static struct perf_event_header *build(struct wbuf *b, uint64_t st,
				       const struct kt_sample *w)
{
	uint32_t rs = w->raw_size;

	b->len = 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		put64(b, w->id);
	if (st & PERF_SAMPLE_IP)
		put64(b, w->ip);
	if (st & PERF_SAMPLE_TID)
		put32x2(b, w->pid, w->tid);
	if (st & PERF_SAMPLE_TIME)
		put64(b, w->time);
	if (st & PERF_SAMPLE_ADDR)
		put64(b, w->addr);
	if (st & PERF_SAMPLE_ID)
		put64(b, w->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put64(b, w->stream_id);
	if (st & PERF_SAMPLE_CPU)
		put32x2(b, w->cpu, 0);
	if (st & PERF_SAMPLE_PERIOD)
		put64(b, w->period);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put64(b, w->nr_ips);
		put(b, w->ips, w->nr_ips * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		put(b, &rs, 4);
		put(b, w->raw, rs);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		put64(b, w->regs_abi);
		if (w->regs_abi)
			put(b, w->regs, 8 * __builtin_popcountll(W_REGS_MASK));
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		put64(b, w->stack_size);
		if (w->stack_size) {
			put(b, w->stack, w->stack_size);
			put64(b, w->stack_dyn_size);
		}
	}
	return finish(b, PERF_RECORD_SAMPLE);
}

/* got points at n bytes equal to want's inside [lo, hi), or is NULL when
 * the field is absent or empty. */
static void ptr_check(uint64_t set, const void *got, const void *want, size_t n,
		      const unsigned char *lo, const unsigned char *hi)
{
	const unsigned char *g = got;

	if (!set || !n) {
		assert_null(got);
		return;
	}
	assert_true(g >= lo && g + n <= hi);
	assert_memory_equal(got, want, n);
}

/* s holds exactly w's fields that st selects, pointing into h. */
static void check(uint64_t st, const struct kt_sample *s,
		  const struct kt_sample *w, const struct perf_event_header *h)
{
	const unsigned char *lo = (const unsigned char *)h;
	const unsigned char *hi = lo + h->size;

#define F(bit, field) assert_true(s->field == ((st & (bit)) ? w->field : 0))
	F(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID, id);
	F(PERF_SAMPLE_IP, ip);
	F(PERF_SAMPLE_TID, pid);
	F(PERF_SAMPLE_TID, tid);
	F(PERF_SAMPLE_TIME, time);
	F(PERF_SAMPLE_ADDR, addr);
	F(PERF_SAMPLE_STREAM_ID, stream_id);
	F(PERF_SAMPLE_CPU, cpu);
	F(PERF_SAMPLE_PERIOD, period);
	F(PERF_SAMPLE_CALLCHAIN, nr_ips);
	F(PERF_SAMPLE_RAW, raw_size);
	F(PERF_SAMPLE_REGS_USER, regs_abi);
	F(PERF_SAMPLE_STACK_USER, stack_size);
	F(PERF_SAMPLE_STACK_USER, stack_dyn_size);
#undef F
	ptr_check(st & PERF_SAMPLE_CALLCHAIN, s->ips, w->ips, w->nr_ips * 8,
		  lo, hi);
	ptr_check(st & PERF_SAMPLE_RAW, s->raw, w->raw, w->raw_size, lo, hi);
	ptr_check(st & PERF_SAMPLE_REGS_USER, s->regs, w->regs,
		  w->regs_abi ? 8 * __builtin_popcountll(W_REGS_MASK) : 0,
		  lo, hi);
	ptr_check(st & PERF_SAMPLE_STACK_USER, s->stack, w->stack,
		  w->stack_size, lo, hi);
}

/* The n-th subset of KT_SAMPLE_PARSE_TYPES. */
static uint64_t subset(unsigned int n)
{
	uint64_t st = 0, all = KT_SAMPLE_PARSE_TYPES;
	int i;

	for (i = 0; all; i++) {
		uint64_t bit = all & -all;

		if (n & (1u << i))
			st |= bit;
		all &= ~bit;
	}
	return st;
}

static void test_every_type(void **state)
{
	unsigned int n, nr = 1u << __builtin_popcountll(KT_SAMPLE_PARSE_TYPES);
	struct wbuf b;

	(void)state;
	for (n = 0; n < nr; n++) {
		struct kt_sample_fmt fmt = {
			.sample_type = subset(n), .regs_user = W_REGS_MASK,
			.sample_id_all = true,
		};
		struct perf_event_header *h = build(&b, fmt.sample_type, &want);
		struct kt_sample s;
		uint64_t ts = 0;

		assert_int_equal(kt_sample_parse(&fmt, h, &s), 0);
		check(fmt.sample_type, &s, &want, h);
		assert_int_equal(kt_sample_time(&fmt, h, &ts),
				 !!(fmt.sample_type & PERF_SAMPLE_TIME));
		if (fmt.sample_type & PERF_SAMPLE_TIME)
			assert_int_equal(ts, want.time);
	}
}

/* Every field is required: any shorter size is refused, never read past. */
static void test_every_truncation(void **state)
{
	unsigned int n, nr = 1u << __builtin_popcountll(KT_SAMPLE_PARSE_TYPES);
	struct wbuf b;

	(void)state;
	for (n = 1; n < nr; n++) {
		struct kt_sample_fmt fmt = {
			.sample_type = subset(n), .regs_user = W_REGS_MASK,
		};
		struct perf_event_header *h = build(&b, fmt.sample_type, &want);
		uint64_t st = fmt.sample_type, ts;
		uint16_t full = h->size, sz;
		/* where the time ends: a cut after it leaves it readable */
		size_t tend = 16 + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) +
					!!(st & PERF_SAMPLE_IP) +
					!!(st & PERF_SAMPLE_TID));
		struct kt_sample s;

		for (sz = 0; sz < full; sz++) {
			h->size = sz;
			assert_int_equal(kt_sample_parse(&fmt, h, &s), -EINVAL);
			assert_int_equal(kt_sample_time(&fmt, h, &ts),
					 (st & PERF_SAMPLE_TIME) && sz >= tend);
		}
		h->size = full;
	}
}

/* Sizes inside the record that point past its end. */
static void test_malformed(void **state)
{
	struct kt_sample_fmt fmt = { .regs_user = W_REGS_MASK };
	struct kt_sample w = want, s;
	struct wbuf b;
	struct perf_event_header *h;

	(void)state;
	fmt.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	w.nr_ips = 3;
	h = build(&b, fmt.sample_type, &w);
	/* nr so big that nr * 8 wraps to a small number */
	b.words[2] = (1ull << 61) + 1;
	assert_int_equal(kt_sample_parse(&fmt, h, &s), -EINVAL);
	b.words[2] = 4;		/* one more than there is */
	assert_int_equal(kt_sample_parse(&fmt, h, &s), -EINVAL);
	b.words[2] = 2;		/* fewer is a valid shorter chain */
	assert_int_equal(kt_sample_parse(&fmt, h, &s), 0);
	assert_int_equal(s.nr_ips, 2);

	fmt.sample_type = PERF_SAMPLE_RAW;
	h = build(&b, fmt.sample_type, &want);
	b.words[1] = (b.words[1] & ~0xffffffffull) | 0xfffffff0u;
	assert_int_equal(kt_sample_parse(&fmt, h, &s), -EINVAL);

	fmt.sample_type = PERF_SAMPLE_STACK_USER;
	h = build(&b, fmt.sample_type, &want);
	b.words[1] = UINT64_MAX;	/* stack size */
	assert_int_equal(kt_sample_parse(&fmt, h, &s), -EINVAL);
	b.words[1] = sizeof(W_STACK);
	b.words[4] = sizeof(W_STACK) + 1;	/* dyn_size above size */
	assert_int_equal(kt_sample_parse(&fmt, h, &s), -EINVAL);
	b.words[4] = sizeof(W_STACK);
	assert_int_equal(kt_sample_parse(&fmt, h, &s), 0);
	assert_int_equal(s.stack_dyn_size, sizeof(W_STACK));

	/* Registers are counted from the mask: one bit more, one u64 more */
	fmt.sample_type = PERF_SAMPLE_REGS_USER;
	h = build(&b, fmt.sample_type, &want);
	fmt.regs_user = W_REGS_MASK | 1;
	assert_int_equal(kt_sample_parse(&fmt, h, &s), -EINVAL);
	fmt.regs_user = 1ull << 6;
	assert_int_equal(kt_sample_parse(&fmt, h, &s), 0);
	assert_true(s.regs[0] == W_REGS[0]);

	/* Shorter than its header */
	h->size = 4;
	assert_int_equal(kt_sample_parse(&fmt, h, &s), -EINVAL);
}

/* A kernel thread's sample: no user registers, no stack copied. */
static void test_no_user_context(void **state)
{
	struct kt_sample_fmt fmt = {
		.sample_type = KT_PERF_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN |
			       PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
		.regs_user = W_REGS_MASK,
	};
	struct kt_sample w = want, s;
	struct wbuf b;
	struct perf_event_header *h;

	(void)state;
	w.regs_abi = PERF_SAMPLE_REGS_ABI_NONE;
	w.stack_size = 0;
	w.stack_dyn_size = 0;
	h = build(&b, fmt.sample_type, &w);
	assert_int_equal(kt_sample_parse(&fmt, h, &s), 0);
	check(fmt.sample_type, &s, &w, h);
	assert_null(s.regs);
	assert_null(s.stack);
	assert_true((const unsigned char *)s.raw + s.raw_size + 16 ==
		    (const unsigned char *)h + h->size);
}

static void test_unknown_bits(void **state)
{
	struct kt_sample_fmt fmt = {
		.sample_type = KT_PERF_SAMPLE_TYPE | PERF_SAMPLE_READ,
	};
	struct kt_sample s;
	struct wbuf b;

	(void)state;
	build(&b, KT_PERF_SAMPLE_TYPE, &want);
	assert_int_equal(kt_sample_parse(&fmt, finish(&b, PERF_RECORD_SAMPLE),
					 &s), -EOPNOTSUPP);
	fmt.sample_type = KT_PERF_SAMPLE_TYPE | PERF_SAMPLE_BRANCH_STACK;
	assert_int_equal(kt_sample_parse(&fmt, finish(&b, PERF_RECORD_SAMPLE),
					 &s), -EOPNOTSUPP);
}

/*
 * What the kernel writes for record's DWARF mode, laid out by hand from
 * the ABI (not by build() above, which shares the parser's idea of the
 * order): IDENTIFIER IP TID TIME CPU PERIOD CALLCHAIN RAW REGS STACK.
 */
static void test_abi_layout(void **state)
{
	struct kt_sample_fmt fmt = {
		.sample_type = KT_PERF_SAMPLE_TYPE | PERF_SAMPLE_IP |
			       PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
			       PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
		.regs_user = 0x3,
	};
	uint64_t r[32] = { 0 };
	struct kt_sample s;

	(void)state;
	r[1] = 7;		/* identifier */
	r[2] = 0x401234;	/* ip */
	r[3] = 100 | (101ull << 32);	/* pid, tid */
	r[4] = 123456789;	/* time */
	r[5] = 1;		/* cpu, res */
	r[6] = 1000;		/* period */
	r[7] = 2;		/* callchain nr */
	r[8] = PERF_CONTEXT_USER;
	r[9] = 0x401234;
	r[10] = 4 | (0xaabbccddull << 32);	/* raw size 4, data */
	r[11] = PERF_SAMPLE_REGS_ABI_64;
	r[12] = 0x11;		/* regs (mask 0x3: two) */
	r[13] = 0x22;
	r[14] = 8;		/* stack size */
	r[15] = 0x3333;		/* stack data */
	r[16] = 6;		/* dyn_size */
	memcpy(r, &(struct perf_event_header){ .type = PERF_RECORD_SAMPLE,
					       .size = 17 * 8 }, 8);
	assert_int_equal(kt_sample_parse(&fmt, (void *)r, &s), 0);
	assert_true(s.id == 7 && s.ip == 0x401234 && s.time == 123456789);
	assert_true(s.pid == 100 && s.tid == 101 && s.cpu == 1);
	assert_true(s.period == 1000 && s.nr_ips == 2 && s.ips == &r[8]);
	assert_true(s.ips[-1] == 2);
	assert_true(s.raw_size == 4 && s.raw == (unsigned char *)&r[10] + 4);
	assert_true(s.regs_abi == PERF_SAMPLE_REGS_ABI_64 && s.regs == &r[12]);
	assert_true(s.stack == &r[15] && s.stack_size == 8 &&
		    s.stack_dyn_size == 6);
}

/* The test rings' own builder (synring.h) agrees. */
static void test_synring(void **state)
{
	struct kt_sample_fmt fmt = { .sample_type = SYN_SAMPLE_TYPE };
	uint64_t buf[16];
	struct kt_sample s;

	(void)state;
	syn_sample(buf, 9, 10, 11, 12, 1, 5, 0xee);
	assert_int_equal(kt_sample_parse(&fmt, (void *)buf, &s), 0);
	assert_true(s.id == 9 && s.pid == 10 && s.tid == 11 && s.time == 12 &&
		    s.cpu == 1);
	assert_true(s.raw_size >= 5 && ((const unsigned char *)s.raw)[4] == 0xee);
}

/* Non-sample records: their sample_id trailer, for every subset of its
 * fields. */
static void test_trailer(void **state)
{
	static const uint64_t bits[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};
	unsigned int n;
	struct wbuf b;

	(void)state;
	for (n = 0; n < 64; n++) {
		struct kt_sample_fmt fmt = { .sample_id_all = true };
		struct perf_event_header *h;
		struct kt_sample s;
		uint64_t st, ts = 0;
		unsigned int i;

		for (i = 0; i < 6; i++)
			if (n & (1u << i))
				fmt.sample_type |= bits[i];
		/* RAW, CALLCHAIN, ...: sample-only, not in the trailer */
		fmt.sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CALLCHAIN;
		st = fmt.sample_type;
		b.len = 8;
		put32x2(&b, 77, 78);	/* a COMM's pid, tid */
		put(&b, "comm\0\0\0\0", 8);
		if (st & PERF_SAMPLE_TID)
			put32x2(&b, want.pid, want.tid);
		if (st & PERF_SAMPLE_TIME)
			put64(&b, want.time);
		if (st & PERF_SAMPLE_ID)
			put64(&b, want.id);
		if (st & PERF_SAMPLE_STREAM_ID)
			put64(&b, want.stream_id);
		if (st & PERF_SAMPLE_CPU)
			put32x2(&b, want.cpu, 0);
		if (st & PERF_SAMPLE_IDENTIFIER)
			put64(&b, want.id);
		h = finish(&b, PERF_RECORD_COMM);
		assert_int_equal(kt_sample_parse(&fmt, h, &s), 0);
		check(st & ~(uint64_t)(PERF_SAMPLE_RAW | PERF_SAMPLE_CALLCHAIN),
		      &s, &want, h);
		assert_int_equal(kt_sample_time(&fmt, h, &ts),
				 !!(st & PERF_SAMPLE_TIME));
		if (st & PERF_SAMPLE_TIME)
			assert_int_equal(ts, want.time);

		/* a record shorter than its trailer */
		if (n) {
			h->size = 8 + 8 * (__builtin_popcount(n) - 1);
			assert_int_equal(kt_sample_parse(&fmt, h, &s), -EINVAL);
			assert_false(kt_sample_time(&fmt, h, &ts));
			h->size = b.len;
		}
		/* without sample_id_all, or a tool's record: none */
		fmt.sample_id_all = false;
		assert_int_equal(kt_sample_parse(&fmt, h, &s), -ENODATA);
		assert_false(kt_sample_time(&fmt, h, &ts));
		fmt.sample_id_all = true;
		h->type = KT_RECORD_USER_TYPE_START;
		assert_int_equal(kt_sample_parse(&fmt, h, &s), -ENODATA);
		assert_false(kt_sample_time(&fmt, h, &ts));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_type),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_no_user_context),
		cmocka_unit_test(test_unknown_bits),
		cmocka_unit_test(test_abi_layout),
		cmocka_unit_test(test_synring),
		cmocka_unit_test(test_trailer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
