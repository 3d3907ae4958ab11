// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel hist table shown to a person or a program: a table sorted as
 * the kernel sorted it, or, for a .log2 or .buckets key, one histogram per
 * value of the other keys drawn the way bpftrace draws hist() and lhist();
 * --json typed. Used by ktrace hist (and the latency questions built on
 * it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"

#define BAR_WIDTH 52
/* gaps between buckets are drawn as empty rows up to this many rows */
#define MAX_FILL 512

/* Text from the kernel (a comm, a string field) with its control
 * characters shown as '?': what a traced program names itself never
 * reaches the terminal as escape sequences. */
static void put_text(FILE *f, const char *s, int width)
{
	int n = 0;

	for (; *s; s++, n++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
	for (; n < width; n++)
		fputc(' ', f);
}

static bool is_histogram(const struct kt_hist_keydef *k)
{
	return k->kind == KT_HK_LOG2 || k->kind == KT_HK_BUCKETS;
}

int kt_histview_hist_key(const struct kt_hist_table *t)
{
	for (int i = 0; i < t->nkeys; i++)
		if (is_histogram(&t->keys[i]))
			return i;
	return -1;
}

/* One key's value as a person reads it, into buf. */
static const char *key_text(const struct kt_hist_keydef *d,
			    const struct kt_hist_key *k, char *buf,
			    size_t len)
{
	switch (d->kind) {
	case KT_HK_HEX:
		snprintf(buf, len, "0x%" PRIx64, k->num);
		break;
	case KT_HK_SYM:
		if (k->text && *k->text)
			snprintf(buf, len, "%s", k->text);
		else
			snprintf(buf, len, "0x%" PRIx64, k->num);
		break;
	case KT_HK_EXECNAME:
		snprintf(buf, len, "%s [%" PRIu64 "]", k->text ? k->text : "",
			 k->num);
		break;
	case KT_HK_LOG2:
	case KT_HK_BUCKETS:
		kt_histview_bucket_label(d, k->num, buf, len);
		break;
	default:
		snprintf(buf, len, "%s", k->text ? k->text : "");
	}
	return buf;
}

/* 1024-multiples as bpftrace writes them: 4K, 8M... */
static void size_text(uint64_t v, char *buf, size_t len)
{
	static const char sfx[] = "KMGTPE";
	int i = -1;

	while (v && !(v & 1023) && i < 5) {
		v >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%" PRIu64, v);
	else
		snprintf(buf, len, "%" PRIu64 "%c", v, sfx[i]);
}

/* The kernel's log2 bucket N holds (2^(N-1), 2^N] (ilog2 of the value
 * rounded up to a power of two), 0 and 1 both in N = 0. */
void kt_histview_log2_range(uint64_t n, uint64_t *lo, uint64_t *hi)
{
	if (n == 0) {
		*lo = 0;
		*hi = 1;
	} else if (n >= 64) {
		*lo = (1ULL << 63) + 1;
		*hi = UINT64_MAX;
	} else {
		*lo = (1ULL << (n - 1)) + 1;
		*hi = 1ULL << n;
	}
}

void kt_histview_bucket_label(const struct kt_hist_keydef *d, uint64_t num,
			      char *buf, size_t len)
{
	char a[32], b[32];

	if (d->kind == KT_HK_BUCKETS) {
		size_text(num, a, sizeof(a));
		size_text(num + d->bucket_size, b, sizeof(b));
		snprintf(buf, len, "[%s, %s)", a, b);
		return;
	}
	if (num == 0) {
		snprintf(buf, len, "[0, 1]");
		return;
	}
	if (num >= 64) {
		snprintf(buf, len, "(2^63, 2^64)");
		return;
	}
	size_text(1ULL << (num - 1), a, sizeof(a));
	size_text(1ULL << num, b, sizeof(b));
	snprintf(buf, len, "(%s, %s]", a, b);
}

/* ------------------------------------------------------------- table */

/* Width of column c: keys 0..nkeys-1, then values. */
static int col_width(const struct kt_hist_table *t, int c, int cap)
{
	int w = (int)strlen(c < t->nkeys ? t->keys[c].name :
			    t->vals[c - t->nkeys]);
	char buf[256];

	for (size_t i = 0; i < t->n; i++) {
		int l;

		if (c < t->nkeys)
			l = strlen(key_text(&t->keys[c], &t->v[i].keys[c], buf,
					    sizeof(buf)));
		else
			l = snprintf(buf, sizeof(buf), "%" PRIu64,
				     t->v[i].vals[c - t->nkeys]);
		if (l > w)
			w = l;
	}
	return w > cap ? cap : w;
}

static void print_vals(FILE *f, const struct kt_hist_table *t,
		       const struct kt_hist_entry *e, const int *w)
{
	for (int j = 0; j < t->nvals; j++)
		fprintf(f, "  %*" PRIu64, w[t->nkeys + j], e->vals[j]);
	fputc('\n', f);
}

static void print_stack(FILE *f, const char *frames)
{
	const char *p = frames;

	while (p && *p) {
		size_t l = strcspn(p, "\n");
		char *line = strndup(p, l);

		fputs("        ", f);
		put_text(f, line ? line : "?", 0);
		fputc('\n', f);
		free(line);
		p += l + (p[l] == '\n');
	}
}

/* A table with a stack key: one block per entry, the other keys, the
 * frames, then the values, as bpftrace prints @[kstack]. */
static void print_blocks(FILE *f, const struct kt_hist_table *t)
{
	char buf[256];

	for (size_t i = 0; i < t->n; i++) {
		const struct kt_hist_entry *e = &t->v[i];

		for (int c = 0; c < t->nkeys; c++) {
			if (t->keys[c].kind == KT_HK_STACK) {
				print_stack(f, e->keys[c].text);
				continue;
			}
			fprintf(f, "%s: ", t->keys[c].name);
			put_text(f, key_text(&t->keys[c], &e->keys[c], buf,
					     sizeof(buf)), 0);
			fputc('\n', f);
		}
		for (int j = 0; j < t->nvals; j++)
			fprintf(f, "%s%s: %" PRIu64, j ? "  " : "    ",
				t->vals[j], e->vals[j]);
		fputs("\n\n", f);
	}
}

static bool has_stack(const struct kt_hist_table *t)
{
	for (int c = 0; c < t->nkeys; c++)
		if (t->keys[c].kind == KT_HK_STACK)
			return true;
	return false;
}

static void print_table(FILE *f, const struct kt_hist_table *t)
{
	int nc = t->nkeys + t->nvals, *w;
	char buf[256];

	if (has_stack(t)) {
		print_blocks(f, t);
		return;
	}
	w = calloc(nc, sizeof(*w));
	if (!w)
		return;
	for (int c = 0; c < nc; c++)
		w[c] = col_width(t, c, 64);
	for (int c = 0; c < t->nkeys; c++) {
		put_text(f, t->keys[c].name, w[c]);
		fputs("  ", f);
	}
	for (int j = 0; j < t->nvals; j++)
		fprintf(f, "  %*s", w[t->nkeys + j], t->vals[j]);
	fputc('\n', f);
	for (size_t i = 0; i < t->n; i++) {
		const struct kt_hist_entry *e = &t->v[i];

		for (int c = 0; c < t->nkeys; c++) {
			put_text(f, key_text(&t->keys[c], &e->keys[c], buf,
					     sizeof(buf)), w[c]);
			fputs("  ", f);
		}
		print_vals(f, t, e, w);
	}
	fputc('\n', f);
	free(w);
}

/* --------------------------------------------------------- histograms */

/* Entries of one histogram: those whose other keys print the same. */
struct hgroup {
	char *label;			/* the other keys, or "" */
	const struct kt_hist_entry **e;
	size_t n;
};

static char *other_keys(const struct kt_hist_table *t,
			const struct kt_hist_entry *e, int hk)
{
	char *s = NULL, buf[256];
	size_t len;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (int c = 0, n = 0; c < t->nkeys; c++) {
		if (c == hk)
			continue;
		fprintf(f, "%s%s: ", n++ ? ", " : "", t->keys[c].name);
		if (t->keys[c].kind == KT_HK_STACK)
			fprintf(f, "%s", e->keys[c].text ? e->keys[c].text : "");
		else
			put_text(f, key_text(&t->keys[c], &e->keys[c], buf,
					     sizeof(buf)), 0);
	}
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

static int by_bucket(const void *a, const void *b, void *arg)
{
	const struct kt_hist_entry *x = *(const struct kt_hist_entry **)a;
	const struct kt_hist_entry *y = *(const struct kt_hist_entry **)b;
	int hk = *(const int *)arg;
	uint64_t u = x->keys[hk].num, v = y->keys[hk].num;

	return u < v ? -1 : u > v;
}

static void bar_row(FILE *f, const char *label, uint64_t count, uint64_t max)
{
	int n = max ? (int)(count * BAR_WIDTH / max) : 0;

	fprintf(f, "%-16s %8" PRIu64 " |", label, count);
	for (int i = 0; i < BAR_WIDTH; i++)
		fputc(i < n ? '@' : ' ', f);
	fputc('|', f);
}

/* The next bucket after num, for the empty rows between two. */
static uint64_t next_bucket(const struct kt_hist_keydef *d, uint64_t num)
{
	return d->kind == KT_HK_LOG2 ? num + 1 : num + d->bucket_size;
}

static void draw_group(FILE *f, const struct kt_hist_table *t, int hk,
		       struct hgroup *g)
{
	const struct kt_hist_keydef *d = &t->keys[hk];
	uint64_t max = 0;
	char label[64];

	qsort_r(g->e, g->n, sizeof(*g->e), by_bucket, &hk);
	for (size_t i = 0; i < g->n; i++)
		if (g->e[i]->vals[0] > max)
			max = g->e[i]->vals[0];
	if (*g->label) {
		put_text(f, g->label, 0);
		fputs(":\n", f);
	}
	for (size_t i = 0; i < g->n; i++) {
		uint64_t num = g->e[i]->keys[hk].num;

		if (i) {
			uint64_t b = next_bucket(d, g->e[i - 1]->keys[hk].num);
			uint64_t gap = d->kind == KT_HK_LOG2 ? num - b :
				       (num - b) / (d->bucket_size ?
						    d->bucket_size : 1);

			for (; gap <= MAX_FILL && b < num;
			     b = next_bucket(d, b)) {
				kt_histview_bucket_label(d, b, label,
							 sizeof(label));
				bar_row(f, label, 0, max);
				fputc('\n', f);
			}
		}
		kt_histview_bucket_label(d, num, label, sizeof(label));
		bar_row(f, label, g->e[i]->vals[0], max);
		for (int j = 1; j < t->nvals; j++)
			fprintf(f, "  %s=%" PRIu64, t->vals[j],
				g->e[i]->vals[j]);
		fputc('\n', f);
	}
	fputc('\n', f);
}

/* Group the entries by their other keys, in the kernel's order of the
 * groups' first entries. 0 or -ENOMEM. */
static int group_entries(const struct kt_hist_table *t, int hk,
			 struct hgroup **out, size_t *nout)
{
	struct hgroup *g = NULL;
	size_t ng = 0;

	for (size_t i = 0; i < t->n; i++) {
		char *label = other_keys(t, &t->v[i], hk);
		size_t k;

		if (!label)
			goto nomem;
		for (k = 0; k < ng && strcmp(g[k].label, label); k++)
			;
		if (k == ng) {
			struct hgroup *ng2 = realloc(g, (ng + 1) * sizeof(*g));

			if (!ng2) {
				free(label);
				goto nomem;
			}
			g = ng2;
			g[ng++] = (struct hgroup){ .label = label };
			g[k].e = calloc(t->n, sizeof(*g[k].e));
			if (!g[k].e)
				goto nomem;
		} else {
			free(label);
		}
		g[k].e[g[k].n++] = &t->v[i];
	}
	*out = g;
	*nout = ng;
	return 0;
nomem:
	for (size_t k = 0; k < ng; k++) {
		free(g[k].label);
		free(g[k].e);
	}
	free(g);
	return -ENOMEM;
}

static int draw_histograms(FILE *f, const struct kt_hist_table *t, int hk)
{
	struct hgroup *g;
	size_t ng;

	if (group_entries(t, hk, &g, &ng))
		return -ENOMEM;
	fprintf(f, "%s (%s)%s\n", t->keys[hk].name,
		t->keys[hk].kind == KT_HK_LOG2 ? "log2" : "buckets",
		t->nvals > 1 ? ", hitcount and sums" : ", hitcount");
	for (size_t k = 0; k < ng; k++) {
		draw_group(f, t, hk, &g[k]);
		free(g[k].label);
		free(g[k].e);
	}
	free(g);
	return 0;
}

void kt_histview_text(FILE *f, const struct kt_hist_table *t)
{
	int hk = kt_histview_hist_key(t);

	if (t->n && hk >= 0)
		draw_histograms(f, t, hk);
	else if (t->n)
		print_table(f, t);
	fprintf(f, "Totals: %" PRIu64 " hits, %" PRIu64 " entries, %"
		PRIu64 " dropped\n", t->hits, t->entries, t->dropped);
}

/* -------------------------------------------------------------- JSON */

static void json_key(struct kt_json *j, const struct kt_hist_keydef *d,
		     const struct kt_hist_key *k, bool is_str)
{
	uint64_t lo, hi;

	switch (d->kind) {
	case KT_HK_SYM:
	case KT_HK_SYM_OFFSET:
		kt_json_object_begin(j);
		kt_juint(j, "addr", k->num);
		kt_jstr(j, "sym", k->text);
		kt_json_object_end(j);
		return;
	case KT_HK_EXECNAME:
	case KT_HK_SYSCALL:
		kt_json_object_begin(j);
		kt_juint(j, d->kind == KT_HK_EXECNAME ? "pid" : "id", k->num);
		kt_jstr(j, d->kind == KT_HK_EXECNAME ? "comm" : "name",
			k->text);
		kt_json_object_end(j);
		return;
	case KT_HK_LOG2:
	case KT_HK_BUCKETS:
		if (d->kind == KT_HK_LOG2) {
			kt_histview_log2_range(k->num, &lo, &hi);
		} else {
			lo = k->num;
			hi = k->num2;
		}
		kt_json_object_begin(j);
		kt_juint(j, "low", lo);
		kt_juint(j, "high", hi);
		kt_json_object_end(j);
		return;
	case KT_HK_STACK:
		kt_json_array_begin(j);
		for (const char *p = k->text; p && *p;) {
			size_t l = strcspn(p, "\n");
			char *fr = strndup(p, l);

			kt_json_string(j, fr ? fr : "");
			free(fr);
			p += l + (p[l] == '\n');
		}
		kt_json_array_end(j);
		return;
	default:
		if (k->is_num && !is_str)
			kt_json_uint(j, k->num);
		else
			kt_json_string(j, k->text);
	}
}

static const char *const kind_names[] = {
	[KT_HK_PLAIN] = NULL, [KT_HK_HEX] = "hex", [KT_HK_SYM] = "sym",
	[KT_HK_SYM_OFFSET] = "sym-offset", [KT_HK_EXECNAME] = "execname",
	[KT_HK_SYSCALL] = "syscall", [KT_HK_LOG2] = "log2",
	[KT_HK_BUCKETS] = "buckets", [KT_HK_USECS] = "usecs",
	[KT_HK_STACK] = "stacktrace",
};

void kt_histview_json(struct kt_json *j, const struct kt_hist_table *t,
		      const bool *key_is_str)
{
	kt_json_key(j, "keys");
	kt_json_array_begin(j);
	for (int c = 0; c < t->nkeys; c++) {
		kt_json_object_begin(j);
		kt_jstr(j, "name", t->keys[c].name);
		kt_jstr(j, "modifier", kind_names[t->keys[c].kind]);
		if (t->keys[c].kind == KT_HK_BUCKETS)
			kt_juint(j, "bucket_size", t->keys[c].bucket_size);
		kt_json_object_end(j);
	}
	kt_json_array_end(j);
	kt_json_key(j, "entries");
	kt_json_array_begin(j);
	for (size_t i = 0; i < t->n; i++) {
		kt_json_object_begin(j);
		kt_json_key(j, "key");
		kt_json_object_begin(j);
		for (int c = 0; c < t->nkeys; c++) {
			kt_json_key(j, t->keys[c].name);
			json_key(j, &t->keys[c], &t->v[i].keys[c],
				 key_is_str && key_is_str[c]);
		}
		kt_json_object_end(j);
		for (int v = 0; v < t->nvals; v++)
			kt_juint(j, t->vals[v], t->v[i].vals[v]);
		kt_json_object_end(j);
	}
	kt_json_array_end(j);
	kt_json_key(j, "totals");
	kt_json_object_begin(j);
	kt_juint(j, "hits", t->hits);
	kt_juint(j, "entries", t->entries);
	kt_juint(j, "dropped", t->dropped);
	kt_json_object_end(j);
}
