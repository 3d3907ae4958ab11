// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --diff OLD NEW: what changed between two recordings, as perf diff
 * shows it. Per event (matched by name), each --sort key's share of the
 * period in OLD (the baseline) and NEW, and the change in points, largest
 * change first; the sample counts too, and their change when both
 * recordings sampled at one rate. --folded gives each stack's samples in
 * both ("stack OLD NEW", what FlameGraph's difffolded.pl writes), and
 * --flamegraph draws the differential flame graph of NEW, each frame
 * coloured by its change against OLD scaled to NEW's total (red grew,
 * blue shrank).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"

/* One recording's side of a diff. */
struct dside {
	const char *path;
	struct ktrace_record *rec;
	const struct kt_cg_opts *o;
	struct kt_profile *prof;	/* by event index; --folded: one */
	int nr;
	int error;
};

/* s->prof[0..nr) grown to event + 1. 0 or -ENOMEM. */
static int side_grow(struct dside *s, int event)
{
	struct kt_profile *nv;

	if (event < s->nr)
		return 0;
	nv = realloc(s->prof, (event + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	memset(nv + s->nr, 0, (event + 1 - s->nr) * sizeof(*nv));
	s->prof = nv;
	s->nr = event + 1;
	return 0;
}

static int side_one(void *arg, const struct ktrace_sample *smp)
{
	struct dside *s = arg;
	struct ktrace_frame fr[KT_MAX_FRAMES];
	bool folded = s->o->folded || s->o->svg;
	int ev = folded ? 0 : smp->event, n;
	char comm[32], *key = NULL;
	size_t len = 0;
	FILE *f;

	if (smp->type != KTRACE_SAMPLE_EVENT)
		return 0;
	s->error = side_grow(s, ev);
	if (s->error)
		return s->error;
	/* the stacks of --folded, the frames of --sort (report.c's) */
	n = kt_sample_frames(s->rec, smp, fr, KT_MAX_FRAMES,
			     folded || s->o->inl);
	ktrace_record_comm(s->rec, smp->tid, comm, sizeof(comm));
	f = open_memstream(&key, &len);
	if (!f)
		return s->error = -ENOMEM;
	if (folded)
		kt_folded_key(f, comm, fr, n);
	else
		kt_sort_key(f, s->o->keys, s->o->nkeys, comm, n ? fr : NULL,
			    ktrace_record_event_name(s->rec, smp->event));
	if (fclose(f)) {
		free(key);
		return s->error = -ENOMEM;
	}
	s->error = kt_profile_add(&s->prof[ev], key,
				  smp->period ? smp->period : 1);
	return s->error;
}

/* Load and replay one side. An exit status (errors said). */
static int side_load(struct kt_ctx *ctx, struct dside *s)
{
	struct ktrace_err err = { .pos = -1 };
	int ret;
	long n;

	s->rec = ktrace_record_load(s->path, &err);
	if (!s->rec) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	if (ktrace_record_meta(s->rec, "tracer"))
		return kt_usage_error(ctx, NULL,
				      "'%s' holds ktrace ftrace's records: --diff takes samples",
				      s->path);
	n = ktrace_record_replay(s->rec, side_one, s, NULL, NULL);
	kt_report_truncated(ctx, s->rec, s->path, n);
	if (s->error)
		return kt_error(ctx, KT_FAIL, "out of memory");
	if (n < 0)
		return kt_error(ctx, KT_FAIL, "'%s': %s", s->path,
				n == -EBADMSG ?
				"damaged or truncated after the last record written" :
				strerror((int)-n));
	return KT_OK;
}

static void side_free(struct dside *s)
{
	for (int e = 0; e < s->nr; e++)
		kt_profile_free(&s->prof[e]);
	free(s->prof);
	ktrace_record_free(s->rec);
}

/* ---------------------------------------------------------------- math */

static double share(unsigned long long part, unsigned long long whole)
{
	return whole ? 100.0 * part / whole : 0;
}

long kt_pdiff_join(struct kt_profile *old, struct kt_profile *new,
		   struct kt_drow **rows)
{
	size_t no = kt_profile_sort(old, kt_prow_by_key);
	size_t nn = kt_profile_sort(new, kt_prow_by_key);
	struct kt_drow *v = calloc(no + nn + 1, sizeof(*v));
	size_t i = 0, j = 0, n = 0;

	*rows = v;
	if (!v)
		return -ENOMEM;
	while (i < no || j < nn) {
		int c = i == no ? 1 : j == nn ? -1 :
			strcmp(old->v[i].key, new->v[j].key);
		struct kt_drow *r = &v[n++];

		if (c <= 0) {
			r->key = old->v[i].key;
			r->old_samples = old->v[i].samples;
			r->old_period = old->v[i++].period;
		}
		if (c >= 0) {
			r->key = new->v[j].key;
			r->new_samples = new->v[j].samples;
			r->new_period = new->v[j++].period;
		}
		r->old_pct = share(r->old_period, old->period);
		r->new_pct = share(r->new_period, new->period);
		r->delta = r->new_pct - r->old_pct;
	}
	return n;
}

int kt_drow_by_delta(const void *a, const void *b)
{
	const struct kt_drow *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->key, y->key);
}

bool kt_pdiff_same_rate(const struct kt_profile *old,
			const struct kt_profile *new)
{
	double a, b;

	if (!old->samples || !new->samples)
		return false;
	a = (double)old->period / old->samples;
	b = (double)new->period / new->samples;
	return fabs(a - b) <= 0.05 * (a > b ? a : b);
}

/* ------------------------------------------------------------- output */

static void side_json(struct kt_json *j, const char *what,
		      const struct dside *s, const struct kt_profile *p)
{
	kt_json_key(j, what);
	kt_json_object_begin(j);
	kt_jstr(j, "file", s->path);
	kt_juint(j, "samples", p->samples);
	kt_juint(j, "period", p->period);
	kt_json_object_end(j);
}

static void row_print(struct kt_ctx *ctx, const struct kt_cg_opts *o,
		      const struct kt_drow *r, bool same_rate)
{
	struct kt_json *j = ctx->json ? kt_json(ctx) : NULL;
	long long change = (long long)(r->new_samples - r->old_samples);
	const char *field = r->key;

	if (j) {
		kt_json_object_begin(j);
		kt_json_key(j, "baseline");
		kt_json_double(j, r->old_pct);
		kt_json_key(j, "new");
		kt_json_double(j, r->new_pct);
		kt_json_key(j, "delta");
		kt_json_double(j, r->delta);
		kt_juint(j, "old_samples", r->old_samples);
		kt_juint(j, "new_samples", r->new_samples);
		if (same_rate)
			kt_jint(j, "samples_change", change);
	} else {
		fprintf(ctx->out, "%9.2f%% %8.2f%% %+8.2f%%  %8llu  %8llu",
			r->old_pct, r->new_pct, r->delta, r->old_samples,
			r->new_samples);
		if (same_rate)
			fprintf(ctx->out, "  %+8lld", change);
	}
	kt_sort_key_put(ctx->out, j, o->keys, o->nkeys, field);
	if (j)
		kt_json_object_end(j);
	else
		putc('\n', ctx->out);
}

static void table_head(struct kt_ctx *ctx, const struct kt_cg_opts *o,
		       const struct dside *os, const struct kt_profile *op,
		       const struct dside *ns, const struct kt_profile *np,
		       const char *event, bool same_rate)
{
	struct kt_json *j = ctx->json ? kt_json(ctx) : NULL;

	if (j) {
		kt_jstr(j, "event", event);
		side_json(j, "old", os, op);
		side_json(j, "new", ns, np);
		kt_jbool(j, "same_rate", same_rate);
		kt_json_key(j, "rows");
		kt_json_array_begin(j);
		return;
	}
	fprintf(ctx->out, "# Event: %s\n# Baseline: %s, %llu samples, period %llu\n"
		"# New: %s, %llu samples, period %llu\n# %s\n#\n"
		"#  Baseline       New     Delta   Old smp   New smp%s",
		event, os->path, op->samples, op->period, ns->path,
		np->samples, np->period, same_rate ?
		"Same rate (mean period per sample within 5%): samples compare" :
		"Rates differ (mean period per sample): shares only",
		same_rate ? "    Change" : "");
	for (int k = 0; k < o->nkeys; k++)
		fprintf(ctx->out, "  %s", kt_sort_titles[o->keys[k]]);
	fputs("\n#\n", ctx->out);
}

/* One event's table: rows by the size of the change. 0 or -ENOMEM. */
static int table_print(struct kt_ctx *ctx, const struct kt_cg_opts *o,
		       const struct dside *os, struct kt_profile *op,
		       const struct dside *ns, struct kt_profile *np,
		       const char *event)
{
	bool same_rate = kt_pdiff_same_rate(op, np);
	double limit = o->limit > 0 ? o->limit : 0;
	struct kt_drow *rows;
	long n;

	/* before the join: it turns the profiles into lists */
	table_head(ctx, o, os, op, ns, np, event, same_rate);
	n = kt_pdiff_join(op, np, &rows);
	if (n < 0)
		return n;
	if (n)
		qsort(rows, n, sizeof(*rows), kt_drow_by_delta);
	for (long i = 0; i < n; i++)
		if (rows[i].old_pct >= limit || rows[i].new_pct >= limit)
			row_print(ctx, o, &rows[i], same_rate);
	if (ctx->json)
		kt_json_array_end(kt_json(ctx));
	else
		putc('\n', ctx->out);
	free(rows);
	return 0;
}

/* The profile of event name in s, or NULL. */
static struct kt_profile *side_prof(const struct dside *s, const char *name)
{
	for (int e = 0; s->prof && e < s->nr; e++)
		if (!strcmp(ktrace_record_event_name(s->rec, e), name))
			return &s->prof[e];
	return NULL;
}

/* The tables of the events of NEW, then of those only OLD has. */
static int tables_print(struct kt_ctx *ctx, const struct kt_cg_opts *o,
			struct dside *os, struct dside *ns)
{
	struct kt_json *j = ctx->json ? kt_json(ctx) : NULL;
	struct kt_profile none = { 0 };
	int ret = 0;

	if (j)
		kt_json_array_begin(j);
	for (int pass = 0; pass < 2 && !ret; pass++) {
		struct dside *a = pass ? os : ns, *b = pass ? ns : os;

		for (int e = 0; a->prof && e < a->nr && !ret; e++) {
			const char *name = ktrace_record_event_name(a->rec, e);
			struct kt_profile *other = side_prof(b, name);

			if (!a->prof[e].samples ||
			    (pass && other && other->samples))
				continue;	/* pass 1: done in pass 0 */
			if (!other || pass)
				other = &none;
			if (j)
				kt_json_object_begin(j);
			ret = table_print(ctx, o, os, pass ? &a->prof[e] : other,
					  ns, pass ? other : &a->prof[e], name);
			if (j)
				kt_json_object_end(j);
		}
	}
	if (j)
		kt_json_array_end(j);
	kt_profile_free(&none);
	return ret;
}

/* --folded: "stack OLD NEW" by stack; --flamegraph: NEW drawn, coloured
 * by the change. 0 or -errno. */
static int folded_print(struct kt_ctx *ctx, const struct kt_cg_opts *o,
			struct dside *os, struct dside *ns)
{
	struct kt_profile none = { 0 };
	struct kt_profile *op = os->nr ? &os->prof[0] : &none;
	struct kt_profile *np = ns->nr ? &ns->prof[0] : &none;
	struct kt_flame *fg = NULL;
	unsigned long long no = op->samples, nn = np->samples;
	struct kt_drow *rows;
	long n = kt_pdiff_join(op, np, &rows);
	int ret = n < 0 ? (int)n : 0;

	if (!ret && o->svg) {
		fg = kt_flame_alloc();
		ret = fg ? 0 : -ENOMEM;
	}
	for (long i = 0; !ret && i < n; i++) {
		if (fg)
			ret = kt_flame_add_diff(fg, rows[i].key,
						rows[i].old_samples,
						rows[i].new_samples);
		else
			fprintf(ctx->out, "%s %llu %llu\n", rows[i].key,
				rows[i].old_samples, rows[i].new_samples);
	}
	free(rows);
	if (!ret && fg) {
		char title[1024];
		FILE *f = strcmp(o->svg, "-") ? fopen(o->svg, "we") : ctx->out;

		snprintf(title, sizeof(title),
			 "ktrace differential flame graph: %s (%llu samples) against %s (%llu): red grew, blue shrank",
			 ns->path, nn, os->path, no);
		ret = f ? kt_flame_write(fg, f, title) : -errno;
		if (f && f != ctx->out && fclose(f) && !ret)
			ret = -errno;
	}
	kt_flame_free(fg);
	kt_profile_free(&none);
	return ret;
}

int kt_pdiff_report(struct kt_ctx *ctx, const char *old, const char *new,
		    const struct kt_cg_opts *o)
{
	struct dside os = { .path = old, .o = o }, ns = { .path = new, .o = o };
	int ret;

	if (ctx->json && !kt_json(ctx))
		return kt_error(ctx, KT_FAIL, "out of memory");
	ret = side_load(ctx, &os);
	if (!ret)
		ret = side_load(ctx, &ns);
	if (!ret && (o->folded || o->svg)) {
		ret = folded_print(ctx, o, &os, &ns);
		if (ret)
			ret = kt_error(ctx, KT_FAIL, ret == -ENOMEM ?
				       "out of memory" : "cannot write '%s': %s",
				       o->svg ? o->svg : "-", strerror(-ret));
	} else if (!ret && tables_print(ctx, o, &os, &ns)) {
		ret = kt_error(ctx, KT_FAIL, "out of memory");
	}
	side_free(&os);
	side_free(&ns);
	return ret;
}
