// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Ordered merge of per-CPU perf records. See merge.h for the rules.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/merge.h"
#include "capture/ring.h"
#include "capture/sample.h"

struct ment {
	uint64_t ts;
	uint32_t off;	/* into the source's arena */
	uint32_t len;
};

struct msrc {
	struct ment *ent;	/* queue: ent[first..nent) sorted by ts */
	uint32_t first, nent, cap_ent;
	unsigned char *buf;	/* arena of the queued records' bytes */
	size_t len, cap;
	uint64_t last_ts;	/* timestamp of the last record added */
	bool produced;		/* added something since the last flush */
};

struct kt_merge {
	struct kt_sample_fmt fmt;
	int nr_src;
	struct msrc *src;
	int *heap;
	kt_merge_emit_fn emit;
	void *ctx;
	uint64_t last_emitted;
	struct kt_merge_stats st;
};

bool kt_merge_rec_time(const struct kt_merge_cfg *cfg,
		       const struct perf_event_header *rec, uint64_t *ts)
{
	struct kt_sample_fmt fmt = {
		.sample_type = cfg->sample_type,
		.sample_id_all = cfg->sample_id_all,
	};

	return kt_sample_time(&fmt, rec, ts);
}

struct kt_merge *kt_merge_alloc(int nr_src, const struct kt_merge_cfg *cfg,
				kt_merge_emit_fn emit, void *ctx)
{
	struct kt_merge *m;

	if (nr_src <= 0 || !cfg || !emit) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->src = calloc(nr_src, sizeof(*m->src));
	m->heap = calloc(nr_src, sizeof(*m->heap));
	if (!m->src || !m->heap) {
		kt_merge_free(m);
		errno = ENOMEM;
		return NULL;
	}
	m->fmt.sample_type = cfg->sample_type;
	m->fmt.sample_id_all = cfg->sample_id_all;
	m->nr_src = nr_src;
	m->emit = emit;
	m->ctx = ctx;
	return m;
}

void kt_merge_free(struct kt_merge *m)
{
	int i;

	if (!m)
		return;
	for (i = 0; m->src && i < m->nr_src; i++) {
		free(m->src[i].ent);
		free(m->src[i].buf);
	}
	free(m->src);
	free(m->heap);
	free(m);
}

/* Drop emitted entries and the arena bytes no queued entry uses. */
static void src_compact(struct msrc *s)
{
	uint32_t i, n = s->nent - s->first;
	uint32_t lo = UINT32_MAX;

	if (!s->first)
		return;
	if (!n) {
		s->first = s->nent = 0;
		s->len = 0;
		return;
	}
	for (i = s->first; i < s->nent; i++)
		if (s->ent[i].off < lo)
			lo = s->ent[i].off;
	memmove(s->ent, s->ent + s->first, n * sizeof(*s->ent));
	s->first = 0;
	s->nent = n;
	/* Moving the queued bytes pays when they are few; when they fill
	 * over half the arena, it grows instead (records with 8 KiB stacks
	 * were moved again and again, most of a recording's time). */
	if (lo && s->len - lo <= s->cap / 2) {
		memmove(s->buf, s->buf + lo, s->len - lo);
		s->len -= lo;
		for (i = 0; i < n; i++)
			s->ent[i].off -= lo;
	}
}

static int src_reserve(struct kt_merge *m, struct msrc *s, size_t bytes)
{
	if (s->nent == s->cap_ent || s->len + bytes > s->cap)
		src_compact(s);
	if (s->nent == s->cap_ent) {
		uint32_t cap = s->cap_ent ? s->cap_ent * 2 : 4096;
		struct ment *e;

		if (cap < s->cap_ent)
			return -ENOMEM;
		e = realloc(s->ent, (size_t)cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		m->st.mem += (size_t)(cap - s->cap_ent) * sizeof(*e);
		s->ent = e;
		s->cap_ent = cap;
	}
	if (s->len + bytes > s->cap) {
		size_t cap = s->cap ? s->cap : 256 * 1024;
		unsigned char *b;

		while (cap < s->len + bytes)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -ENOMEM;
		b = realloc(s->buf, cap);
		if (!b)
			return -ENOMEM;
		m->st.mem += cap - s->cap;
		s->buf = b;
		s->cap = cap;
	}
	return 0;
}

int kt_merge_add(struct kt_merge *m, int src,
			const struct perf_event_header *rec)
{
	struct msrc *s;
	uint64_t ts;
	uint32_t i;
	int err;

	if (src < 0 || src >= m->nr_src || rec->size < sizeof(*rec))
		return -EINVAL;
	s = &m->src[src];
	err = src_reserve(m, s, rec->size);
	if (err)
		return err;
	if (!kt_sample_time(&m->fmt, rec, &ts)) {
		ts = s->last_ts;
		if (ts < m->last_emitted)
			ts = m->last_emitted;
		m->st.untimed++;
	} else if (ts < m->last_emitted) {
		m->st.late++;
	}
	memcpy(s->buf + s->len, rec, rec->size);
	/* Insertion from the back: stable, O(1) when already in order. */
	i = s->nent;
	while (i > s->first && s->ent[i - 1].ts > ts) {
		s->ent[i] = s->ent[i - 1];
		i--;
	}
	s->ent[i].ts = ts;
	s->ent[i].off = s->len;
	s->ent[i].len = rec->size;
	s->nent++;
	s->len += rec->size;
	s->last_ts = ts;
	s->produced = true;
	m->st.added++;
	return 0;
}

long kt_merge_pull(struct kt_merge *m, int src, struct kt_ring *ring,
		   size_t max_bytes, kt_merge_xform_fn xform, void *ctx)
{
	const struct perf_event_header *rec;
	uint64_t start = ring->pos;
	long n = 0;
	int err;

	kt_ring_begin(ring);
	while ((!max_bytes || ring->pos - start < max_bytes) &&
	       (rec = kt_ring_next(ring))) {
		if (xform)
			rec = xform(ctx, rec);
		err = kt_merge_add(m, src, rec);
		if (err) {
			kt_ring_consume(ring);
			return err;
		}
		n++;
	}
	kt_ring_consume(ring);
	return n;
}

static inline bool ent_less(const struct kt_merge *m, int a, int b)
{
	const struct msrc *sa = &m->src[a], *sb = &m->src[b];
	uint64_t ta = sa->ent[sa->first].ts, tb = sb->ent[sb->first].ts;

	return ta < tb || (ta == tb && a < b);
}

static void heap_down(struct kt_merge *m, int n, int i)
{
	int *h = m->heap;

	for (;;) {
		int l = 2 * i + 1, r = l + 1, min = i, t;

		if (l < n && ent_less(m, h[l], h[min]))
			min = l;
		if (r < n && ent_less(m, h[r], h[min]))
			min = r;
		if (min == i)
			return;
		t = h[i];
		h[i] = h[min];
		h[min] = t;
		i = min;
	}
}

/* Emit queued records with ts < bound (all of them when all). */
static long merge_emit(struct kt_merge *m, uint64_t bound, bool all)
{
	long n = 0;
	int i, nh = 0, ret = 0;

	for (i = 0; i < m->nr_src; i++) {
		struct msrc *s = &m->src[i];

		if (s->first < s->nent && (all || s->ent[s->first].ts < bound))
			m->heap[nh++] = i;
	}
	for (i = nh / 2 - 1; i >= 0; i--)
		heap_down(m, nh, i);
	while (nh) {
		int si = m->heap[0];
		struct msrc *s = &m->src[si];
		struct ment *e = &s->ent[s->first];

		ret = m->emit(m->ctx, si, e->ts,
			      (const struct perf_event_header *)(s->buf + e->off));
		if (ret)
			break;
		if (e->ts > m->last_emitted)
			m->last_emitted = e->ts;
		s->first++;
		n++;
		if (s->first == s->nent ||
		    (!all && s->ent[s->first].ts >= bound))
			m->heap[0] = m->heap[--nh];
		heap_down(m, nh, 0);
	}
	m->st.emitted += n;
	for (i = 0; i < m->nr_src; i++) {
		struct msrc *s = &m->src[i];

		if (s->first == s->nent) {
			s->first = s->nent = 0;
			s->len = 0;
		}
	}
	return ret ? ret : n;
}

long kt_merge_flush(struct kt_merge *m, uint64_t horizon)
{
	uint64_t bound = horizon;
	int i;

	for (i = 0; i < m->nr_src; i++) {
		struct msrc *s = &m->src[i];

		if (s->produced && s->last_ts < bound)
			bound = s->last_ts;
		s->produced = false;
	}
	return merge_emit(m, bound, false);
}

long kt_merge_drain(struct kt_merge *m)
{
	int i;

	for (i = 0; i < m->nr_src; i++)
		m->src[i].produced = false;
	return merge_emit(m, UINT64_MAX, true);
}

void kt_merge_stats(const struct kt_merge *m, struct kt_merge_stats *st)
{
	int i;

	*st = m->st;
	st->pending = 0;
	for (i = 0; i < m->nr_src; i++)
		st->pending += m->src[i].nent - m->src[i].first;
}
