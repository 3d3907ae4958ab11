// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel hist table as Prometheus metrics (ktrace export): the keys
 * become labels, each value a counter; a .log2 or .buckets key makes a
 * histogram per value of the other keys, with cumulative buckets whose
 * bounds are exact (the kernel's log2 bucket N holds (2^(N-1), 2^N], so
 * le = 2^N; a .buckets=S bucket "~ A-B" holds A..B, so le = B: the keys
 * are integers).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"
#include "base/prom.h"

#define MAX_LABELS (2 * 16 + 1)
/* gaps between buckets are filled up to this many bounds */
#define MAX_FILL 512

/* The labels of entry e: every key but skip (-1: none), a .execname
 * key as its pid and a "comm" label. Names and values live in the
 * caller's bufs (MAX_LABELS of 160 and 512 bytes). Returns the count. */
static int entry_labels(const struct kt_hist_table *t,
			const struct kt_hist_entry *e, int skip,
			struct kt_prom_label *l, char (*names)[160],
			char (*vals)[512])
{
	int n = 0;

	for (int k = 0; k < t->nkeys && n + 2 <= MAX_LABELS; k++) {
		const struct kt_hist_keydef *d = &t->keys[k];
		const struct kt_hist_key *key = &e->keys[k];
		char *v = vals[n];

		if (k == skip)
			continue;
		kt_prom_name(names[n], 160, d->name, true);
		if (skip >= 0 && !strcmp(names[n], "le"))
			snprintf(names[n], 160, "key_le");
		switch (d->kind) {
		case KT_HK_HEX:
			snprintf(v, 512, "0x%" PRIx64, key->num);
			break;
		case KT_HK_SYM:
			if (*key->text)
				snprintf(v, 512, "%s", key->text);
			else
				snprintf(v, 512, "0x%" PRIx64, key->num);
			break;
		case KT_HK_EXECNAME:
			snprintf(v, 512, "%" PRIu64, key->num);
			l[n].name = names[n];
			l[n].value = v;
			n++;
			snprintf(names[n], 160, "comm");
			snprintf(vals[n], 512, "%s", key->text);
			break;
		case KT_HK_STACK:
			/* the frames folded, outermost last as printed */
			v[0] = '\0';
			for (const char *p = key->text; *p;) {
				size_t len, o = strlen(v);

				p += strspn(p, " \t");
				len = strcspn(p, "\n");
				snprintf(v + o, 512 - o, "%s%.*s", o ? ";" : "",
					 (int)len, p);
				p += len + (p[len] == '\n');
			}
			break;
		default:
			snprintf(v, 512, "%s", key->text);
		}
		l[n].name = names[n];
		l[n].value = vals[n];
		n++;
	}
	return n;
}

/* One counter family per value: NAME_hits_total, NAME_FIELD_total. */
static void write_counters(FILE *f, const struct kt_promhist *p,
			   const struct kt_hist_table *t)
{
	struct kt_prom_label l[MAX_LABELS];
	char names[MAX_LABELS][160], vals[MAX_LABELS][512];
	char name[320], field[160], help[1024];

	for (int v = 0; v < t->nvals; v++) {
		bool hits = !strcmp(t->vals[v], "hitcount");

		kt_prom_name(field, sizeof(field), t->vals[v], false);
		snprintf(name, sizeof(name), "%s_%s_total", p->metric,
			 hits ? "hits" : field);
		snprintf(help, sizeof(help), "%s (%s%s, counted in the kernel)",
			 p->help, hits ? "events" : "sum of ",
			 hits ? "" : t->vals[v]);
		kt_prom_family(f, name, "counter", help);
		for (size_t i = 0; i < t->n; i++) {
			const struct kt_hist_entry *e = &t->v[i];
			int n = p->total_only ? 0 :
				entry_labels(t, e, -1, l, names, vals);

			kt_prom_u64(f, name, l, n, e->vals[v]);
		}
	}
}

/* An entry of a histogram: its group (the other keys' labels) and the
 * bucket's index (log2: N; buckets: A / S) and upper bound. */
struct hrow {
	char *group;
	const struct kt_hist_entry *e;
	uint64_t idx, le;
};

static int by_group_le(const void *a, const void *b)
{
	const struct hrow *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static uint64_t bucket_le(const struct kt_hist_keydef *d, uint64_t idx)
{
	uint64_t lo, hi;

	if (d->kind == KT_HK_BUCKETS)
		return idx * d->bucket_size + d->bucket_size - 1;
	kt_histview_log2_range(idx, &lo, &hi);
	return hi;
}

/* The group of rows r[0..n): its buckets (gaps filled while few),
 * +Inf, _sum when a value sums the key's field, _count. */
static void write_group(FILE *f, const struct kt_promhist *p,
			const struct kt_hist_table *t, int hk, int sum,
			const struct hrow *r, size_t n)
{
	struct kt_prom_label l[MAX_LABELS + 1];
	char names[MAX_LABELS][160], vals[MAX_LABELS][512];
	const struct kt_hist_keydef *d = &t->keys[hk];
	int nl = entry_labels(t, r[0].e, hk, l, names, vals);
	char name[320], le[32];
	uint64_t cum = 0, total = 0;
	bool fill = r[n - 1].idx - r[0].idx < MAX_FILL;
	size_t i = 0;

	snprintf(name, sizeof(name), "%s_bucket", p->metric);
	l[nl].name = "le";
	l[nl].value = le;
	for (uint64_t idx = r[0].idx; i < n; idx++) {
		if (!fill)
			idx = r[i].idx;
		if (r[i].idx == idx) {
			cum += r[i].e->vals[0];
			total += sum >= 0 ? r[i].e->vals[sum] : 0;
			i++;
		}
		snprintf(le, sizeof(le), "%" PRIu64, bucket_le(d, idx));
		kt_prom_u64(f, name, l, nl + 1, cum);
	}
	snprintf(le, sizeof(le), "+Inf");
	kt_prom_u64(f, name, l, nl + 1, cum);
	if (sum >= 0) {
		snprintf(name, sizeof(name), "%s_sum", p->metric);
		kt_prom_u64(f, name, l, nl, total);
	}
	snprintf(name, sizeof(name), "%s_count", p->metric);
	kt_prom_u64(f, name, l, nl, cum);
}

/* The group text of e: its labels but the histogram key's, joined. */
static char *group_text(const struct kt_hist_table *t,
			const struct kt_hist_entry *e, int hk)
{
	struct kt_prom_label l[MAX_LABELS];
	char names[MAX_LABELS][160], vals[MAX_LABELS][512];
	int n = entry_labels(t, e, hk, l, names, vals);
	char *s = NULL;
	size_t len;
	FILE *m = open_memstream(&s, &len);

	if (!m)
		return NULL;
	for (int i = 0; i < n; i++)
		fprintf(m, "%s\x1f", l[i].value);
	if (fclose(m)) {
		free(s);
		return NULL;
	}
	return s;
}

static int write_histogram(FILE *f, const struct kt_promhist *p,
			   const struct kt_hist_table *t, int hk)
{
	const struct kt_hist_keydef *d = &t->keys[hk];
	struct hrow *r = calloc(t->n + 1, sizeof(*r));
	char help[1024];
	int sum = -1, ret = 0;
	size_t i, g;

	if (!r)
		return -ENOMEM;
	for (int v = 1; p->sum && v < t->nvals; v++)
		if (!strcmp(t->vals[v], p->sum))
			sum = v;
	for (i = 0; i < t->n; i++) {
		const struct kt_hist_key *k = &t->v[i].keys[hk];

		r[i].e = &t->v[i];
		r[i].idx = d->kind == KT_HK_BUCKETS && d->bucket_size ?
			   k->num / d->bucket_size : k->num;
		r[i].group = group_text(t, r[i].e, hk);
		if (!r[i].group) {
			ret = -ENOMEM;
			goto out;
		}
	}
	qsort(r, t->n, sizeof(*r), by_group_le);
	snprintf(help, sizeof(help), "%s (%s; _sum %s)", p->help, d->name,
		 sum >= 0 ? "exact: the kernel sums the field" :
		 "omitted: the kernel's table holds no sum of the field");
	kt_prom_family(f, p->metric, "histogram", help);
	for (i = 0; i < t->n; i = g) {
		for (g = i + 1; g < t->n && !strcmp(r[g].group, r[i].group);)
			g++;
		write_group(f, p, t, hk, sum, r + i, g - i);
	}
out:
	for (i = 0; i < t->n; i++)
		free(r[i].group);
	free(r);
	return ret;
}

int kt_promhist_write(FILE *f, const struct kt_promhist *p,
		      const struct kt_hist_table *t)
{
	int hk = kt_histview_hist_key(t);

	if (hk >= 0 && t->nvals && !strcmp(t->vals[0], "hitcount"))
		return write_histogram(f, p, t, hk);
	write_counters(f, p, t);
	return 0;
}
