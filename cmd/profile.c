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

int kt_profile_add(struct kt_profile *p, char *key, uint64_t period)
{
	size_t i;

	if (2 * (p->n + 1) > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		struct kt_prow *nv = calloc(cap, sizeof(*nv));

		if (!nv) {
			free(key);
			return -ENOMEM;
		}
		for (size_t j = 0; j < p->cap; j++)
			if (p->v[j].key)
				row_place(nv, cap, p->v[j]);
		free(p->v);
		p->v = nv;
		p->cap = cap;
	}
	for (i = str_hash(key) & (p->cap - 1); p->v[i].key;
	     i = (i + 1) & (p->cap - 1))
		if (!strcmp(p->v[i].key, key))
			break;
	if (p->v[i].key) {
		free(key);
	} else {
		p->v[i].key = key;
		p->n++;
	}
	p->v[i].samples++;
	p->v[i].period += period;
	p->samples++;
	p->period += period;
	return 0;
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
