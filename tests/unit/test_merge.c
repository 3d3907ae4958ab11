// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/capture/merge.c: ordered merge of synthetic per-CPU rings. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "capture/merge.h"
#include "capture/ring.h"
#include "synring.h"

static const struct kt_merge_cfg cfg_all = {
	.sample_type = SYN_SAMPLE_TYPE, .sample_id_all = true,
};
static const struct kt_merge_cfg cfg_noid = {
	.sample_type = SYN_SAMPLE_TYPE, .sample_id_all = false,
};

/* What the emit callback saw. */
struct out {
	uint64_t n;
	uint64_t cap;
	struct orec {
		int src;
		uint16_t type;
		uint64_t ts;
		uint32_t seq;	/* the sample's pid field */
	} *v;
	int fail_at;	/* return -EIO when n reaches it (0: never) */
	/* streaming checks for big runs (v == NULL) */
	struct orec last;
	uint64_t bad_order;
	uint32_t next_seq[8];
	uint64_t bad_seq;
};

static int emit(void *ctx, int src, uint64_t ts,
		const struct perf_event_header *rec)
{
	struct out *o = ctx;
	struct orec r = { .src = src, .type = rec->type, .ts = ts };

	if (o->fail_at && o->n + 1 == (uint64_t)o->fail_at)
		return -EIO;
	if (rec->type == PERF_RECORD_SAMPLE) {
		memcpy(&r.seq, (const unsigned char *)rec + 16, 4);
		assert_int_equal(syn_rec_time(rec), ts);
	}
	if (o->v) {
		assert_true(o->n < o->cap);
		o->v[o->n] = r;
	} else {
		if (o->n && (r.ts < o->last.ts ||
			     (r.ts == o->last.ts && r.src < o->last.src)))
			o->bad_order++;
		if (r.seq != o->next_seq[src])
			o->bad_seq++;
		o->next_seq[src] = r.seq + 1;
		o->last = r;
	}
	o->n++;
	return 0;
}

static void put_sample(struct synring *s, uint64_t ts, uint32_t seq)
{
	unsigned char buf[128];

	syn_sample(buf, 1, seq, seq, ts, 0, 12, 0);
	syn_put(s, buf);
}

static void put_lost(struct synring *s, uint64_t n)
{
	unsigned char buf[64];

	syn_lost(buf, 1, n);
	syn_put(s, buf);
}

struct rig {
	int n;
	struct synring s[8];
	struct kt_ring r[8];
	struct kt_merge *m;
	struct out o;
};

static void rig_init(struct rig *g, int n, uint64_t ring_size,
		     const struct kt_merge_cfg *cfg, uint64_t cap)
{
	int i;

	memset(g, 0, sizeof(*g));
	g->n = n;
	for (i = 0; i < n; i++) {
		syn_init(&g->s[i], ring_size);
		assert_int_equal(kt_ring_init(&g->r[i], g->s[i].base, SYN_PAGE,
					      ring_size), 0);
	}
	g->o.cap = cap;
	if (cap)
		g->o.v = calloc(cap, sizeof(*g->o.v));
	g->m = kt_merge_alloc(n, cfg, emit, &g->o);
	assert_non_null(g->m);
}

static void rig_pull(struct rig *g, size_t max)
{
	int i;

	for (i = 0; i < g->n; i++)
		assert_true(kt_merge_pull(g->m, i, &g->r[i], max, NULL, NULL) >= 0);
}

static void rig_fini(struct rig *g)
{
	int i;

	kt_merge_free(g->m);
	for (i = 0; i < g->n; i++) {
		kt_ring_fini(&g->r[i]);
		syn_fini(&g->s[i]);
	}
	free(g->o.v);
}

static void test_alloc_args(void **state)
{
	struct out o = { 0 };

	(void)state;
	assert_null(kt_merge_alloc(0, &cfg_all, emit, &o));
	assert_int_equal(errno, EINVAL);
	assert_null(kt_merge_alloc(2, NULL, emit, &o));
	assert_null(kt_merge_alloc(2, &cfg_all, NULL, &o));
	kt_merge_free(NULL);
}

static void test_rec_time(void **state)
{
	unsigned char buf[256];
	struct kt_merge_cfg nt = { .sample_type = PERF_SAMPLE_RAW };
	uint64_t ts = 0;

	(void)state;
	syn_sample(buf, 1, 2, 3, 12345, 0, 4, 0);
	assert_true(kt_merge_rec_time(&cfg_all, (void *)buf, &ts));
	assert_int_equal(ts, 12345);
	assert_false(kt_merge_rec_time(&nt, (void *)buf, &ts));
	syn_comm(buf, 5, 6, "x", 777, 1, 9);
	ts = 0;
	assert_true(kt_merge_rec_time(&cfg_all, (void *)buf, &ts));
	assert_int_equal(ts, 777);
	assert_false(kt_merge_rec_time(&cfg_noid, (void *)buf, &ts));
	syn_lost(buf, 1, 3);	/* too short for a trailer */
	assert_false(kt_merge_rec_time(&cfg_all, (void *)buf, &ts));
}

/* Interleaved timestamps across 2, 3 and 4 rings. */
static void test_interleaved(void **state)
{
	int nr;

	(void)state;
	for (nr = 2; nr <= 4; nr++) {
		struct rig g;
		uint64_t i;
		uint32_t seq[4] = { 0 };

		rig_init(&g, nr, 1 << 16, &cfg_all, 1000);
		for (i = 0; i < 1000; i++) {
			int k = (i * 7 + i / 3) % nr;

			put_sample(&g.s[k], 1000 + i * 10 + k, seq[k]++);
		}
		rig_pull(&g, 0);
		assert_true(kt_merge_flush(g.m, UINT64_MAX) >= 0);
		assert_true(kt_merge_drain(g.m) >= 0);
		assert_int_equal(g.o.n, 1000);
		for (i = 1; i < 1000; i++)
			assert_true(g.o.v[i - 1].ts < g.o.v[i].ts);
		rig_fini(&g);
	}
}

/* Bound: only what is older than every producing ring's last record. */
static void test_bound(void **state)
{
	struct rig g;

	(void)state;
	rig_init(&g, 2, 1 << 12, &cfg_all, 100);
	put_sample(&g.s[0], 10, 0);
	put_sample(&g.s[0], 100, 1);
	put_sample(&g.s[1], 20, 0);
	put_sample(&g.s[1], 50, 1);
	rig_pull(&g, 0);
	assert_int_equal(kt_merge_flush(g.m, UINT64_MAX), 2);	/* 10, 20 */
	assert_int_equal(g.o.v[0].ts, 10);
	assert_int_equal(g.o.v[1].ts, 20);
	/* Ring 1 goes on to 200; ring 0 is silent: it no longer holds the
	 * bound back, ring 1's last (200) does. */
	put_sample(&g.s[1], 200, 2);
	rig_pull(&g, 0);
	assert_int_equal(kt_merge_flush(g.m, UINT64_MAX), 2);	/* 50, 100 */
	assert_int_equal(g.o.v[2].ts, 50);
	assert_int_equal(g.o.v[3].ts, 100);
	/* The horizon caps the bound. */
	put_sample(&g.s[0], 300, 2);
	put_sample(&g.s[1], 400, 3);
	rig_pull(&g, 0);
	assert_int_equal(kt_merge_flush(g.m, 250), 1);		/* 200 */
	assert_int_equal(kt_merge_flush(g.m, 250), 0);
	assert_int_equal(kt_merge_drain(g.m), 2);
	assert_int_equal(g.o.v[4].ts, 200);
	assert_int_equal(g.o.v[5].ts, 300);
	assert_int_equal(g.o.v[6].ts, 400);
	assert_int_equal(kt_merge_drain(g.m), 0);
	rig_fini(&g);
}

/* Equal timestamps: by source, then in arrival order. */
static void test_equal_ts(void **state)
{
	struct rig g;
	int i;

	(void)state;
	rig_init(&g, 3, 1 << 12, &cfg_all, 100);
	for (i = 0; i < 3; i++) {
		put_sample(&g.s[2], 5, i);
		put_sample(&g.s[1], 5, i);
		put_sample(&g.s[0], 5, i);
	}
	rig_pull(&g, 0);
	assert_int_equal(kt_merge_flush(g.m, UINT64_MAX), 0);
	assert_int_equal(kt_merge_drain(g.m), 9);
	for (i = 0; i < 9; i++) {
		assert_int_equal(g.o.v[i].src, i / 3);
		assert_int_equal(g.o.v[i].seq, i % 3);
	}
	rig_fini(&g);
}

/* One ring never produces: the others are emitted round by round. */
static void test_silent_ring(void **state)
{
	struct rig g;
	uint64_t t = 0;
	int round, before;

	(void)state;
	rig_init(&g, 3, 1 << 14, &cfg_all, 1000);
	for (round = 0; round < 10; round++) {
		int k;

		for (k = 0; k < 20; k++, t++)
			put_sample(&g.s[k & 1], t, t);
		rig_pull(&g, 0);
		before = g.o.n;
		assert_true(kt_merge_flush(g.m, UINT64_MAX) >= 18);
		assert_true(g.o.n - before >= 18);
	}
	kt_merge_drain(g.m);
	assert_int_equal(g.o.n, 200);
	for (round = 0; round < 200; round++)
		assert_int_equal(g.o.v[round].ts, round);
	rig_fini(&g);
}

/* LOST records (no timestamp) stay behind their ring's previous record. */
static void test_lost(void **state)
{
	struct rig g;
	struct kt_merge_stats st;

	(void)state;
	rig_init(&g, 2, 1 << 12, &cfg_noid, 100);
	put_lost(&g.s[0], 3);		/* first on its ring */
	put_sample(&g.s[0], 10, 0);
	put_lost(&g.s[0], 7);
	put_sample(&g.s[0], 30, 1);
	put_sample(&g.s[1], 10, 0);
	put_sample(&g.s[1], 20, 1);
	put_lost(&g.s[1], 1);
	put_sample(&g.s[1], 25, 2);
	rig_pull(&g, 0);
	kt_merge_flush(g.m, UINT64_MAX);
	kt_merge_drain(g.m);
	assert_int_equal(g.o.n, 8);
	assert_int_equal(g.o.v[0].type, PERF_RECORD_LOST);
	assert_int_equal(g.o.v[0].src, 0);
	assert_int_equal(g.o.v[1].ts, 10);
	assert_int_equal(g.o.v[1].src, 0);
	assert_int_equal(g.o.v[2].type, PERF_RECORD_LOST);
	assert_int_equal(g.o.v[2].src, 0);
	assert_int_equal(g.o.v[3].ts, 10);
	assert_int_equal(g.o.v[3].src, 1);
	assert_int_equal(g.o.v[4].ts, 20);
	assert_int_equal(g.o.v[5].type, PERF_RECORD_LOST);
	assert_int_equal(g.o.v[5].src, 1);
	assert_int_equal(g.o.v[6].ts, 25);
	assert_int_equal(g.o.v[7].ts, 30);
	assert_int_equal(g.r[0].nr_lost + g.r[1].nr_lost, 11);
	kt_merge_stats(g.m, &st);
	assert_int_equal(st.untimed, 3);
	assert_int_equal(st.emitted, 8);
	assert_int_equal(st.pending, 0);
	rig_fini(&g);
}

/* A ring slightly out of order is sorted; a record older than what was
 * already emitted is counted late. */
static void test_local_disorder(void **state)
{
	struct rig g;
	struct kt_merge_stats st;

	(void)state;
	rig_init(&g, 2, 1 << 12, &cfg_all, 100);
	put_sample(&g.s[0], 10, 0);
	put_sample(&g.s[0], 30, 1);
	put_sample(&g.s[0], 20, 2);
	put_sample(&g.s[0], 40, 3);
	put_sample(&g.s[1], 35, 0);
	rig_pull(&g, 0);
	assert_int_equal(kt_merge_flush(g.m, UINT64_MAX), 3);
	assert_int_equal(g.o.v[0].ts, 10);
	assert_int_equal(g.o.v[1].ts, 20);
	assert_int_equal(g.o.v[2].ts, 30);
	put_sample(&g.s[1], 15, 1);	/* too late */
	rig_pull(&g, 0);
	kt_merge_drain(g.m);
	kt_merge_stats(g.m, &st);
	assert_int_equal(st.late, 1);
	assert_int_equal(g.o.n, 6);
	rig_fini(&g);
}

static void test_emit_error(void **state)
{
	struct rig g;
	int i;

	(void)state;
	rig_init(&g, 2, 1 << 12, &cfg_all, 100);
	for (i = 0; i < 10; i++)
		put_sample(&g.s[i & 1], i, i);
	rig_pull(&g, 0);
	g.o.fail_at = 4;
	assert_int_equal(kt_merge_drain(g.m), -EIO);
	assert_int_equal(g.o.n, 3);
	g.o.fail_at = 0;
	assert_int_equal(kt_merge_drain(g.m), 7);	/* resumes at #4 */
	for (i = 0; i < 10; i++)
		assert_int_equal(g.o.v[i].ts, i);
	rig_fini(&g);
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * 1e6 records over 4 rings (one silent) from a shared clock with ties,
 * pulled in partial rounds: output strictly ordered, nothing lost, each
 * ring's records in its own order, and the queues stay small.
 */
static void test_volume(void **state)
{
	const uint64_t total = 1000000;
	const uint64_t rsz = 1 << 16;
	uint32_t seq[4] = { 0 };
	uint64_t clock = 1, written = 0;
	struct kt_merge_stats st;
	struct rig g;

	(void)state;
	rig_init(&g, 4, rsz, &cfg_all, 0);
	while (written < total) {
		int burst = 1 + rnd() % 3000, b;

		for (b = 0; b < burst && written < total; b++) {
			int k = rnd() % 3;	/* ring 3 stays silent */
			struct synring *s = &g.s[k];

			if (s->meta->data_head - s->meta->data_tail + 64 > rsz)
				break;
			clock += rnd() % 3;	/* ties happen */
			put_sample(s, clock, seq[k]++);
			written++;
		}
		rig_pull(&g, (rnd() & 1) ? 0 : 4096 + rnd() % 8192);
		assert_true(kt_merge_flush(g.m, UINT64_MAX) >= 0);
	}
	rig_pull(&g, 0);
	assert_true(kt_merge_drain(g.m) >= 0);
	assert_int_equal(g.o.n, total);
	assert_int_equal(g.o.bad_order, 0);
	assert_int_equal(g.o.bad_seq, 0);
	kt_merge_stats(g.m, &st);
	assert_int_equal(st.late, 0);
	assert_int_equal(st.pending, 0);
	/* 56 MB went through; the queues hold about a ring's worth. */
	assert_true(st.mem < 4u << 20);
	rig_fini(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_args),
		cmocka_unit_test(test_rec_time),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_equal_ts),
		cmocka_unit_test(test_silent_ring),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_local_disorder),
		cmocka_unit_test(test_emit_error),
		cmocka_unit_test(test_volume),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
