// SPDX-License-Identifier: LGPL-2.1-only
/*
 * "Did you mean": the names closest to one the user typed, for kernel
 * functions (lib/probe/btf.c) and a binary's symbols (lib/probe/uelf.c)
 * alike. A name qualifies by its optimal-string-alignment distance to the
 * query (typos, swapped letters), by a prefix close to it (the query cut
 * short), or, when asked for, by holding the query.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sym/symtab.h"

#define NAME_MAX_LEN 256	/* longer queries are cut here */

int kt_suggest_init(struct kt_suggest *sg, const char *query, int max,
		    bool substr)
{
	int n = strlen(query);

	memset(sg, 0, sizeof(*sg));
	if (n > NAME_MAX_LEN)
		n = NAME_MAX_LEN;
	if (max > KT_SUGGEST_MAX)
		max = KT_SUGGEST_MAX;
	sg->q = query;
	sg->n = n;
	sg->max = max > 0 ? max : 0;
	sg->substr = substr;
	sg->maxd = n <= 4 ? 1 : n <= 8 ? 2 : 3;
	sg->maxp = n < 4 ? -1 : n < 8 ? 0 : 1;
	sg->cols = n + sg->maxd;
	sg->rows = malloc(3 * (sg->cols + 1) * sizeof(*sg->rows));
	return sg->rows ? 0 : -ENOMEM;
}

void kt_suggest_fini(struct kt_suggest *sg)
{
	free(sg->rows);
	sg->rows = NULL;
}

static bool better(const struct kt_cand *a, const struct kt_cand *b)
{
	size_t la, lb;

	if (a->score != b->score)
		return a->score < b->score;
	if (a->full != b->full)
		return a->full < b->full;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la < lb;
	return strcmp(a->name, b->name) < 0;
}

void kt_suggest_put(struct kt_suggest *sg, const char *name, int score,
		    int full)
{
	struct kt_cand c = { name, score, full };
	int i;

	if (!sg->max)
		return;
	for (i = 0; i < sg->nbest; i++)
		if (!strcmp(sg->best[i].name, name))
			return;
	if (sg->nbest == sg->max && !better(&c, &sg->best[sg->max - 1]))
		return;
	if (sg->nbest < sg->max)
		sg->nbest++;
	for (i = sg->nbest - 1; i > 0 && better(&c, &sg->best[i - 1]); i--)
		sg->best[i] = sg->best[i - 1];
	sg->best[i] = c;
}

/*
 * Distance between the query and s (length m) when s has at most cols
 * characters (else a large value); *prefix: the least distance of the
 * query to any prefix of s.
 */
static int osa_distance(const struct kt_suggest *sg, const char *s, int m,
			int *prefix)
{
	int cols = sg->cols, n = sg->n, w = m < cols ? m : cols, best;
	int *pp = sg->rows, *p = pp + cols + 1, *c = pp + 2 * (cols + 1), *t;
	const char *q = sg->q;

	for (int j = 0; j <= w; j++)
		p[j] = j;
	for (int i = 1; i <= n; i++) {
		c[0] = i;
		for (int j = 1; j <= w; j++) {
			int v = p[j - 1] + (q[i - 1] != s[j - 1]);

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && q[i - 1] == s[j - 2] &&
			    q[i - 2] == s[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
		}
		t = pp;
		pp = p;
		p = c;
		c = t;
	}
	best = p[0];
	for (int j = 1; j <= w; j++)
		if (p[j] < best)
			best = p[j];
	*prefix = best;
	return m <= cols ? p[w] : n + m;
}

bool kt_suggest_add(struct kt_suggest *sg, const char *s, int m,
		    const char *keep)
{
	int full, prefix, score;

	if (!sg->max || m < sg->n - sg->maxd ||
	    (m == sg->n && !strncmp(s, sg->q, m)))
		return false;
	full = osa_distance(sg, s, m, &prefix);
	if (full <= sg->maxd)
		score = full;
	else if (prefix <= sg->maxp)
		score = prefix + 1;
	else if (sg->substr && sg->n >= 3 && m > sg->n &&
		 memmem(s, m, sg->q, sg->n))
		score = sg->maxp + 2 + (m - sg->n);
	else
		return false;
	kt_suggest_put(sg, keep, score, full);
	return true;
}
