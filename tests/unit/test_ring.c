// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/capture/ring.c against synthetic rings. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "capture/ring.h"
#include "synring.h"

#define RSZ 4096

static void setup_ring(struct synring *s, struct kt_ring *r, uint64_t pos)
{
	syn_init(s, RSZ);
	syn_seek(s, pos);
	assert_int_equal(kt_ring_init(r, s->base, SYN_PAGE, RSZ), 0);
}

static void test_init_rejects(void **state)
{
	struct synring s;
	struct kt_ring r;

	(void)state;
	syn_init(&s, RSZ);
	s.meta->data_size = 3000;	/* not a power of two */
	assert_int_equal(kt_ring_init(&r, s.base, SYN_PAGE, 0), -EINVAL);
	s.meta->data_size = RSZ;
	assert_int_equal(kt_ring_init(&r, s.base, SYN_PAGE, 2 * RSZ), -EINVAL);
	assert_int_equal(kt_ring_init(&r, NULL, SYN_PAGE, RSZ), -EINVAL);
	/* Legacy layout: data_size unset, data right after the first page. */
	s.meta->data_size = 0;
	s.meta->data_offset = 0;
	assert_int_equal(kt_ring_init(&r, s.base, SYN_PAGE, RSZ), 0);
	assert_ptr_equal(r.data, s.data);
	assert_int_equal(r.size, RSZ);
	kt_ring_fini(&r);
	syn_fini(&s);
}

static void test_types(void **state)
{
	unsigned char a[256], b[256], c[256];
	const struct perf_event_header *h;
	struct synring s;
	struct kt_ring r;
	size_t la, lb, lc;

	(void)state;
	setup_ring(&s, &r, 0);
	la = syn_sample(a, 7, 100, 101, 5000, 1, 12, 0xab);
	lb = syn_lost(b, 7, 42);
	lc = syn_comm(c, 100, 101, "worker", 6000, 1, 7);
	syn_put(&s, a);
	syn_put(&s, b);
	syn_put(&s, c);
	assert_int_equal(kt_ring_next(&r), NULL);	/* no snapshot yet */
	assert_int_equal(kt_ring_begin(&r), la + lb + lc);
	h = kt_ring_next(&r);
	assert_non_null(h);
	assert_int_equal(h->type, PERF_RECORD_SAMPLE);
	assert_memory_equal(h, a, la);
	h = kt_ring_next(&r);
	assert_int_equal(h->type, PERF_RECORD_LOST);
	assert_memory_equal(h, b, lb);
	h = kt_ring_next(&r);
	assert_int_equal(h->type, PERF_RECORD_COMM);
	assert_memory_equal(h, c, lc);
	assert_null(kt_ring_next(&r));
	assert_int_equal(r.nr_records, 3);
	assert_int_equal(r.nr_lost, 42);
	assert_int_equal(r.nr_lost_records, 1);
	assert_int_equal(r.nr_corrupt, 0);
	/* Tail only moves on consume. */
	assert_int_equal(s.meta->data_tail, 0);
	kt_ring_consume(&r);
	assert_int_equal(s.meta->data_tail, la + lb + lc);
	kt_ring_fini(&r);
	syn_fini(&s);
}

/* A record split across the end of the data area comes out whole. */
static void test_wrap_record(void **state)
{
	unsigned char a[512];
	const struct perf_event_header *h;
	struct synring s;
	struct kt_ring r;
	size_t la;

	(void)state;
	setup_ring(&s, &r, 3 * RSZ - 40);	/* 40 bytes before the end */
	la = syn_sample(a, 9, 1, 2, 77, 0, 100, 0x5a);
	assert_true(la > 40);
	syn_put(&s, a);
	assert_int_equal(kt_ring_begin(&r), la);
	h = kt_ring_next(&r);
	assert_non_null(h);
	assert_ptr_equal(h, r.scratch);
	assert_memory_equal(h, a, la);
	assert_null(kt_ring_next(&r));
	kt_ring_consume(&r);
	assert_int_equal(s.meta->data_tail, 3 * RSZ - 40 + la);
	kt_ring_fini(&r);
	syn_fini(&s);
}

/*
 * kt_ring_peek: records of the asked types handed out where they lie
 * (one across the end from scratch), none taken, each seen once over
 * calls; a position behind the reader's starts at the reader's.
 */
struct peek_seen {
	int n;
	uint64_t times[8];
};

static void peek_cb(void *ctx, const struct perf_event_header *h)
{
	struct peek_seen *ps = ctx;
	uint64_t t;

	assert_int_equal(h->type, PERF_RECORD_COMM);
	memcpy(&t, (const unsigned char *)h + h->size - 24, 8);
	if (ps->n < 8)
		ps->times[ps->n] = t;
	ps->n++;
}

static void test_peek(void **state)
{
	unsigned char a[512];
	struct peek_seen ps = { 0 };
	struct synring s;
	struct kt_ring r;
	uint64_t from = 0, start = 3 * RSZ - 100;

	(void)state;
	setup_ring(&s, &r, start);
	syn_sample(a, 9, 1, 2, 10, 0, 20, 0x5a);
	syn_put(&s, a);
	syn_comm(a, 1, 2, "first", 11, 0, 9);	/* crosses the end */
	syn_put(&s, a);
	syn_comm(a, 1, 2, "across", 12, 0, 9);
	syn_put(&s, a);
	kt_ring_begin(&r);
	kt_ring_peek(&r, &from, 1ull << PERF_RECORD_COMM, peek_cb, &ps);
	assert_int_equal(ps.n, 2);
	assert_int_equal(ps.times[0], 11);
	assert_int_equal(ps.times[1], 12);
	assert_int_equal(from, s.meta->data_head);
	assert_int_equal(r.pos, start);		/* nothing taken */
	/* seen once: nothing new, nothing again */
	kt_ring_peek(&r, &from, 1ull << PERF_RECORD_COMM, peek_cb, &ps);
	assert_int_equal(ps.n, 2);
	/* a new one only; the samples were never asked for */
	syn_sample(a, 9, 1, 2, 13, 0, 20, 0x5a);
	syn_put(&s, a);
	syn_comm(a, 1, 2, "third", 14, 0, 9);
	syn_put(&s, a);
	kt_ring_begin(&r);
	kt_ring_peek(&r, &from, 1ull << PERF_RECORD_COMM, peek_cb, &ps);
	assert_int_equal(ps.n, 3);
	assert_int_equal(ps.times[2], 14);
	/* the records are all still there for the reader */
	for (int i = 0; i < 5; i++)
		assert_non_null(kt_ring_next(&r));
	assert_null(kt_ring_next(&r));
	kt_ring_consume(&r);
	/* a position behind the reader's (a fresh one) starts there */
	from = 0;
	syn_comm(a, 1, 2, "fourth", 15, 0, 9);
	syn_put(&s, a);
	kt_ring_begin(&r);
	kt_ring_peek(&r, &from, 1ull << PERF_RECORD_COMM, peek_cb, &ps);
	assert_int_equal(ps.n, 4);
	assert_int_equal(ps.times[3], 15);
	kt_ring_fini(&r);
	syn_fini(&s);
}

/* The 8-byte header itself straddles the end. */
static void test_wrap_header(void **state)
{
	unsigned char a[256], b[256];
	const struct perf_event_header *h;
	struct synring s;
	struct kt_ring r;
	size_t la, lb;

	(void)state;
	setup_ring(&s, &r, RSZ - 4);
	la = syn_sample(a, 1, 10, 11, 1000, 0, 4, 0x11);
	lb = syn_sample(b, 1, 10, 11, 1001, 0, 4, 0x22);
	syn_put(&s, a);
	syn_put(&s, b);
	kt_ring_begin(&r);
	h = kt_ring_next(&r);
	assert_non_null(h);
	assert_int_equal(h->size, la);
	assert_memory_equal(h, a, la);
	h = kt_ring_next(&r);
	assert_non_null(h);
	assert_ptr_not_equal(h, r.scratch);	/* contiguous: zero copy */
	assert_memory_equal(h, b, lb);
	assert_null(kt_ring_next(&r));
	kt_ring_fini(&r);
	syn_fini(&s);
}

/* Every start position (8-aligned, then a few odd ones) round-trips. */
static void test_wrap_every_offset(void **state)
{
	unsigned char rec[3][256];
	size_t len[3];
	uint64_t start;
	int i;

	(void)state;
	for (start = 0; start < 2 * RSZ; start += 8) {
		struct synring s;
		struct kt_ring r;

		setup_ring(&s, &r, start);
		for (i = 0; i < 3; i++) {
			len[i] = syn_sample(rec[i], i, 1, 2, start + i, 0,
					    20 + 30 * i, 0x30 + i);
			syn_put(&s, rec[i]);
		}
		kt_ring_begin(&r);
		for (i = 0; i < 3; i++) {
			const struct perf_event_header *h = kt_ring_next(&r);

			assert_non_null(h);
			assert_memory_equal(h, rec[i], len[i]);
		}
		assert_null(kt_ring_next(&r));
		assert_int_equal(r.nr_corrupt, 0);
		kt_ring_fini(&r);
		syn_fini(&s);
	}
}

/* Reading in several rounds while the producer goes on, around the ring
 * several times, with the reader lagging but never overrun. */
static void test_rounds(void **state)
{
	unsigned char rec[256];
	struct synring s;
	struct kt_ring r;
	uint64_t next_w = 0, next_r = 0;
	int round;

	(void)state;
	setup_ring(&s, &r, 0);
	for (round = 0; round < 500; round++) {
		const struct perf_event_header *h;
		int k, n = 1 + round % 7;

		for (k = 0; k < n; k++) {
			size_t l = syn_sample(rec, 3, 1, 2, next_w, 0,
					      (next_w * 13) % 90, 0);

			if (s.meta->data_head + l - s.meta->data_tail > RSZ)
				break;	/* full: the kernel would drop */
			syn_put(&s, rec);
			next_w++;
		}
		kt_ring_begin(&r);
		while ((h = kt_ring_next(&r))) {
			assert_int_equal(syn_rec_time(h), next_r);
			next_r++;
			if (round % 3 == 0)
				break;	/* leave some for later */
		}
		kt_ring_consume(&r);
	}
	kt_ring_begin(&r);
	while (kt_ring_next(&r))
		next_r++;
	assert_int_equal(next_r, next_w);
	assert_true(s.meta->data_head > 3 * RSZ);
	kt_ring_fini(&r);
	syn_fini(&s);
}

/* A zero size must not loop: drop to the snapshot, count it. */
static void test_zero_size(void **state)
{
	unsigned char a[256];
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE,
					 .size = 0 };
	struct synring s;
	struct kt_ring r;
	size_t la;
	int i;

	(void)state;
	setup_ring(&s, &r, 0);
	la = syn_sample(a, 1, 1, 1, 1, 0, 8, 1);
	syn_put(&s, a);
	syn_write_at(&s, s.meta->data_head, &bad, sizeof(bad));
	s.meta->data_head += 64;
	kt_ring_begin(&r);
	assert_non_null(kt_ring_next(&r));
	for (i = 0; i < 3; i++)
		assert_null(kt_ring_next(&r));
	assert_int_equal(r.nr_corrupt, 1);
	assert_int_equal(r.pos, la + 64);
	kt_ring_consume(&r);
	assert_int_equal(s.meta->data_tail, la + 64);
	kt_ring_fini(&r);
	syn_fini(&s);
}

/* Sizes below the header or beyond the published head are corrupt. */
static void test_bad_sizes(void **state)
{
	static const uint16_t sizes[] = { 1, 7, 200 };
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct perf_event_header bad = { .type = 1, .size = sizes[i] };
		struct synring s;
		struct kt_ring r;

		setup_ring(&s, &r, RSZ - 2);
		syn_write_at(&s, RSZ - 2, &bad, sizeof(bad));
		s.meta->data_head += 16;
		assert_int_equal(kt_ring_begin(&r), 16);
		assert_null(kt_ring_next(&r));
		assert_int_equal(r.nr_corrupt, 1);
		assert_int_equal(kt_ring_pending(&r), 0);
		kt_ring_fini(&r);
		syn_fini(&s);
	}
}

/* Fewer bytes than a header published: dropped, not read past head. */
static void test_partial(void **state)
{
	unsigned char a[256];
	struct synring s;
	struct kt_ring r;

	(void)state;
	setup_ring(&s, &r, RSZ - 8);
	syn_sample(a, 1, 1, 1, 1, 0, 8, 1);
	syn_write_at(&s, RSZ - 8, a, 64);
	s.meta->data_head += 5;		/* half a header, across the end */
	assert_int_equal(kt_ring_begin(&r), 5);
	assert_null(kt_ring_next(&r));
	assert_int_equal(r.nr_corrupt, 1);
	/* A head more than a ring ahead of us is not trusted either. */
	s.meta->data_head += 2 * RSZ;
	kt_ring_begin(&r);
	assert_int_equal(kt_ring_pending(&r), 0);
	assert_int_equal(r.nr_corrupt, 2);
	kt_ring_fini(&r);
	syn_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_rejects),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_wrap_record),
		cmocka_unit_test(test_peek),
		cmocka_unit_test(test_wrap_header),
		cmocka_unit_test(test_wrap_every_offset),
		cmocka_unit_test(test_rounds),
		cmocka_unit_test(test_zero_size),
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_partial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
