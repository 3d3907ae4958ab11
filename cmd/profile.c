// SPDX-License-Identifier: GPL-2.0-only
/*
 * Profiles: sample counts and periods by a text key (report --sort and
 * --folded, top), in one open-addressing table.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Put row into v (cap a power of 2, a free slot exists). */
static void row_place(struct kt_prow *v, size_t cap, struct kt_prow row)
{
	size_t i;

	for (i = str_hash(row.key) & (cap - 1); v[i].key; i = (i + 1) & (cap - 1))
		;
	v[i] = row;
}

/* Room for one more row. 0 or -ENOMEM. */
static int profile_grow(struct kt_profile *p)
{
	size_t cap = p->cap ? 2 * p->cap : 256;
	struct kt_prow *nv;

	if (2 * (p->n + 1) <= p->cap)
		return 0;
	nv = calloc(cap, sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	for (size_t j = 0; j < p->cap; j++)
		if (p->v[j].key)
			row_place(nv, cap, p->v[j]);
	free(p->v);
	p->v = nv;
	p->cap = cap;
	return 0;
}

/* key's slot: its row, or the free slot where it goes (room made). */
static struct kt_prow *profile_slot(struct kt_profile *p, const char *key)
{
	size_t i;

	for (i = str_hash(key) & (p->cap - 1); p->v[i].key;
	     i = (i + 1) & (p->cap - 1))
		if (!strcmp(p->v[i].key, key))
			break;
	return &p->v[i];
}

static void row_count(struct kt_profile *p, struct kt_prow *r,
		      uint64_t period)
{
	r->samples++;
	r->period += period;
	p->samples++;
	p->period += period;
}

int kt_profile_add(struct kt_profile *p, char *key, uint64_t period)
{
	struct kt_prow *r;

	if (profile_grow(p)) {
		free(key);
		return -ENOMEM;
	}
	r = profile_slot(p, key);
	if (r->key) {
		free(key);
	} else {
		r->key = key;
		p->n++;
	}
	row_count(p, r, period);
	return 0;
}

int kt_profile_addc(struct kt_profile *p, const char *key, uint64_t period)
{
	struct kt_prow *r;

	if (profile_grow(p))
		return -ENOMEM;
	r = profile_slot(p, key);
	if (!r->key) {
		r->key = strdup(key);
		if (!r->key)
			return -ENOMEM;
		p->n++;
	}
	row_count(p, r, period);
	return 0;
}

const struct kt_prow *kt_profile_find(const struct kt_profile *p,
				      const char *key)
{
	if (!p->cap || p->sorted)
		return NULL;
	for (size_t i = str_hash(key) & (p->cap - 1); p->v[i].key;
	     i = (i + 1) & (p->cap - 1))
		if (!strcmp(p->v[i].key, key))
			return &p->v[i];
	return NULL;
}

void kt_profile_free(struct kt_profile *p)
{
	for (size_t i = 0; i < p->cap; i++)
		free(p->v[i].key);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int kt_prow_by_period(const void *a, const void *b)
{
	const struct kt_prow *x = a, *y = b;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	return strcmp(x->key, y->key);
}

int kt_prow_by_key(const void *a, const void *b)
{
	return strcmp(((const struct kt_prow *)a)->key,
		      ((const struct kt_prow *)b)->key);
}

size_t kt_profile_sort(struct kt_profile *p,
		       int (*cmp)(const void *, const void *))
{
	size_t n = 0;

	/* rows to the front (the table is a table no more), then sorted */
	for (size_t i = 0; i < p->cap; i++) {
		struct kt_prow row = p->v[i];

		p->v[i].key = NULL;
		if (row.key)
			p->v[n++] = row;
	}
	if (n)	/* an empty profile has no table: qsort(NULL) is undefined */
		qsort(p->v, n, sizeof(*p->v), cmp);
	p->sorted = n;
	return n;
}

void kt_profile_decay(struct kt_profile *p, unsigned int num,
		      unsigned int den)
{
	size_t n = 0;

	p->samples = p->period = 0;
	for (size_t i = 0; i < p->cap; i++) {
		struct kt_prow *r = &p->v[i];

		if (!r->key)
			continue;
		r->samples = r->samples * num / den;
		r->period = r->samples ? r->period * num / den : 0;
		p->samples += r->samples;
		p->period += r->period;
	}
	/* rebuild the table without the rows that reached nothing */
	for (size_t i = 0; i < p->cap; i++) {
		struct kt_prow row = p->v[i];

		p->v[i].key = NULL;
		if (!row.key)
			continue;
		if (!row.samples)	/* less than one sample left */
			free(row.key);
		else
			p->v[n++] = row;
	}
	p->n = n;
	for (size_t i = 0; i < n; i++) {
		struct kt_prow row = p->v[i];

		p->v[i].key = NULL;
		row_place(p->v, p->cap, row);
	}
}

/* ------------------------------------------------ report's profile keys */

const char *const kt_sort_names[KT_SK_NR] = { "comm", "dso", "sym", "event" };
const char *const kt_sort_titles[KT_SK_NR] = {
	"Command", "Shared Object", "Symbol", "Event",
};

int kt_sort_parse(const char *arg, enum kt_sort_key *keys)
{
	const char *p = arg;
	int n = 0;

	while (*p) {
		size_t len = strcspn(p, ",");
		int k;

		for (k = 0; k < KT_SK_NR; k++)
			if (strlen(kt_sort_names[k]) == len &&
			    !strncmp(kt_sort_names[k], p, len))
				break;
		if (k == KT_SK_NR || n == KT_SK_NR)
			return -EINVAL;
		keys[n++] = k;
		p += len + (p[len] == ',');
	}
	return n ? n : -EINVAL;
}

int kt_sample_frames(struct ktrace_record *rec, const struct ktrace_sample *s,
		     struct ktrace_frame *fr, int max, bool inl)
{
	int n = ktrace_record_frames(rec, s, fr, max), k = 0;

	if (inl)
		return n;
	/* an inlined function's samples are its container's, as perf's */
	for (int i = 0; i < n; i++)
		if (!fr[i].inlined)
			fr[k++] = fr[i];
	return k;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

void kt_sort_key(FILE *f, const enum kt_sort_key *keys, int nkeys,
		 const char *comm, const struct ktrace_frame *fr,
		 const char *event)
{
	for (int k = 0; k < nkeys; k++) {
		const char *v;

		switch (keys[k]) {
		case KT_SK_COMM:
			v = comm;
			break;
		case KT_SK_DSO:
			v = fr ? base_name(fr->dso) : "[none]";
			break;
		case KT_SK_SYM:
			v = fr ? fr->sym : "[none]";
			break;
		default:
			v = event;
			break;
		}
		fprintf(f, "%s%s", k ? "\t" : "", v ? v : "?");
	}
}

void kt_folded_key(FILE *f, const char *comm, const struct ktrace_frame *fr,
		   int n)
{
	/* stackcollapse-perf.pl's line: comm, then outermost first */
	fputs(comm, f);
	for (int i = n - 1; i >= 0; i--) {
		putc(';', f);
		/* ';' separates frames: ':' in names, as perf does */
		for (const char *c = fr[i].sym; *c; c++)
			putc(*c == ';' ? ':' : *c, f);
	}
}

void kt_sort_key_put(FILE *out, struct kt_json *j,
		     const enum kt_sort_key *keys, int nkeys,
		     const char *key)
{
	for (int k = 0; k < nkeys; k++) {
		size_t len = strcspn(key, "\t");
		char *v = strndup(key, len);

		if (j)
			kt_jstr(j, kt_sort_names[keys[k]], v);
		else
			fprintf(out, "  %s", v ? v : "?");
		free(v);
		key += len + (key[len] == '\t');
	}
}
