// SPDX-License-Identifier: GPL-2.0-only
/*
 * Call-graph reports, as perf report -g prints them:
 *  --children: per symbol (or --sort keys), the share of the samples in
 *    which it is the innermost frame (Self) and in which it is anywhere on
 *    the stack (Children: its own time and that of what it calls), counted
 *    once per sample however often the stack recurses through it;
 *  --callers SYM / --callees SYM: the tree of the paths from SYM out to
 *    the stacks' roots, or in to their leaves, each node with its share of
 *    the event's period; nodes under --percent-limit (0.5 % by default)
 *    folded into one line per parent.
 * Inlined functions count as the function they are inlined into unless
 * --inline (kt_sample_frames()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"

#define TREE_LIMIT 0.5		/* perf's default call-graph threshold */

/* --children: self to the innermost frame's key, children to each key of
 * the stack once. */
static int children_add(struct kt_cgraph *g, const char *comm,
			const char *event, const struct ktrace_frame *fr,
			int n, uint64_t period)
{
	const struct kt_cg_opts *o = g->o;
	size_t off[KT_MAX_FRAMES], len = 0;
	char *keys = NULL;
	int ret = 0, nk = n ? n : 1;
	FILE *f = open_memstream(&keys, &len);

	if (!f)
		return -ENOMEM;
	for (int i = 0; i < nk; i++) {
		off[i] = ftell(f);
		kt_sort_key(f, o->keys, o->nkeys, comm, n ? &fr[i] : NULL,
			    event);
		putc('\0', f);
	}
	if (fclose(f)) {
		free(keys);
		return -ENOMEM;
	}
	ret = kt_profile_addc(&g->self, keys, period);
	for (int i = 0; !ret && i < nk; i++) {
		int j;

		for (j = 0; j < i; j++)	/* recursion: once a stack */
			if (!strcmp(keys + off[j], keys + off[i]))
				break;
		if (j == i)
			ret = kt_profile_addc(&g->total, keys + off[i], period);
	}
	free(keys);
	return ret;
}

static struct kt_cgnode *kid_get(struct kt_cgnode *n,
				 const struct ktrace_frame *fr)
{
	struct kt_cgnode *k;

	for (int i = 0; i < n->nkids; i++) {
		k = &n->kids[i];
		if (!strcmp(k->sym, fr->sym) && !strcmp(k->dso, fr->dso))
			return k;
	}
	if (n->nkids == n->cap) {
		int cap = n->cap ? 2 * n->cap : 4;

		k = realloc(n->kids, cap * sizeof(*k));
		if (!k)
			return NULL;
		n->kids = k;
		n->cap = cap;
	}
	k = &n->kids[n->nkids];
	memset(k, 0, sizeof(*k));
	k->sym = strdup(fr->sym);
	k->dso = strdup(fr->dso);
	if (!k->sym || !k->dso) {
		free(k->sym);
		free(k->dso);
		return NULL;
	}
	n->nkids++;
	return k;
}

/* --callers: from the symbol's innermost frame outward; --callees: from
 * its outermost frame inward. A sample without it is not in the tree. */
static int tree_add(struct kt_cgraph *g, const struct ktrace_frame *fr,
		    int n, uint64_t period)
{
	bool up = g->o->callers;
	const char *sym = up ? g->o->callers : g->o->callees;
	struct kt_cgnode *node = &g->root;
	int i, step = up ? 1 : -1;

	if (up) {
		for (i = 0; i < n && strcmp(fr[i].sym, sym); i++)
			;
	} else {
		for (i = n - 1; i >= 0 && strcmp(fr[i].sym, sym); i--)
			;
	}
	if (i < 0 || i >= n)
		return 0;
	for (;;) {
		node->samples++;
		node->period += period;
		i += step;
		if (i < 0 || i >= n)
			break;
		node = kid_get(node, &fr[i]);
		if (!node)
			return -ENOMEM;
	}
	node->self_samples++;
	node->self_period += period;
	return 0;
}

int kt_cg_add(struct kt_cgraph *g, const char *comm, const char *event,
	      const struct ktrace_frame *fr, int n, uint64_t period)
{
	g->samples++;
	g->period += period;
	if (g->o->children)
		return children_add(g, comm, event, fr, n, period);
	return tree_add(g, fr, n, period);
}

static void node_free(struct kt_cgnode *n)
{
	for (int i = 0; i < n->nkids; i++)
		node_free(&n->kids[i]);
	free(n->kids);
	free(n->sym);
	free(n->dso);
}

int kt_cg_init(struct kt_cgraph *g, const struct kt_cg_opts *o)
{
	const char *sym = o->callers ? o->callers : o->callees;

	memset(g, 0, sizeof(*g));
	g->o = o;
	g->root.sym = strdup(sym ? sym : "");
	return g->root.sym ? 0 : -ENOMEM;
}

void kt_cg_free(struct kt_cgraph *g)
{
	kt_profile_free(&g->self);
	kt_profile_free(&g->total);
	node_free(&g->root);
	memset(g, 0, sizeof(*g));
}

static int node_by_period(const void *a, const void *b)
{
	const struct kt_cgnode *x = a, *y = b;
	int c;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	c = strcmp(x->sym, y->sym);
	return c ? c : strcmp(x->dso, y->dso);
}

void kt_cgnode_sort(struct kt_cgnode *n)
{
	if (n->nkids)
		qsort(n->kids, n->nkids, sizeof(*n->kids), node_by_period);
}

static double pct(const struct kt_cgraph *g, unsigned long long period)
{
	return g->period ? 100.0 * period / g->period : 0;
}

static double limit_of(const struct kt_cgraph *g, double dflt)
{
	return g->o->limit >= 0 ? g->o->limit : dflt;
}

/* ------------------------------------------------------------ printing */

static void json_counts(struct kt_json *j, const struct kt_cgraph *g,
			const char *what, unsigned long long samples,
			unsigned long long period)
{
	kt_json_key(j, what);
	kt_json_double(j, pct(g, period));
	kt_juint(j, "samples", samples);
	kt_juint(j, "period", period);
}

/* A node and, depth first, its kids at or above the limit (the others
 * summed into one "below" entry). */
static void node_print(struct kt_ctx *ctx, struct kt_cgraph *g,
		       struct kt_cgnode *n, int depth)
{
	struct kt_json *j = ctx->json ? kt_json(ctx) : NULL;
	unsigned long long bs = 0, bp = 0;
	double limit = limit_of(g, TREE_LIMIT);
	int below = 0;

	kt_cgnode_sort(n);
	if (j) {
		kt_json_object_begin(j);
		kt_jstr(j, "symbol", n->sym);
		kt_jstr(j, "dso", n->dso);
		json_counts(j, g, "percent", n->samples, n->period);
		kt_juint(j, "self_samples", n->self_samples);
		kt_juint(j, "self_period", n->self_period);
		kt_json_key(j, "children");
		kt_json_array_begin(j);
	} else {
		fprintf(ctx->out, "%9.2f%%  %8llu  %*s%s\n", pct(g, n->period),
			n->samples, 2 * depth, "", n->sym);
	}
	for (int i = 0; i < n->nkids; i++) {
		struct kt_cgnode *k = &n->kids[i];

		if (pct(g, k->period) >= limit) {
			node_print(ctx, g, k, depth + 1);
			continue;
		}
		below++;
		bs += k->samples;
		bp += k->period;
	}
	if (j) {
		kt_json_array_end(j);
		if (below) {
			kt_json_key(j, "below_limit");
			kt_json_object_begin(j);
			kt_juint(j, "nodes", below);
			json_counts(j, g, "percent", bs, bp);
			kt_json_object_end(j);
		}
		kt_json_object_end(j);
	} else if (below) {
		fprintf(ctx->out, "%9.2f%%  %8llu  %*s[%d more below %.2f%%]\n",
			pct(g, bp), bs, 2 * depth + 2, "", below, limit);
	}
}

static void tree_print(struct kt_ctx *ctx, struct kt_cgraph *g)
{
	const char *what = g->o->callers ? "callers" : "callees";

	if (ctx->json) {
		kt_json_key(kt_json(ctx), what);
		node_print(ctx, g, &g->root, 0);
		return;
	}
	fprintf(ctx->out, "# %s of %s: %llu samples, %.2f%% of the period\n#\n"
		"#    Total   Samples  Call path (%s)\n#\n",
		g->o->callers ? "Callers" : "Callees", g->root.sym,
		g->root.samples, pct(g, g->root.period),
		g->o->callers ? "the function, then its callers outward" :
				"the function, then what it calls inward");
	node_print(ctx, g, &g->root, 0);
}

static int row_by_children(const void *a, const void *b)
{
	return kt_prow_by_period(a, b);
}

/* The --children table: rows by children time, with their self time. */
static void children_print(struct kt_ctx *ctx, struct kt_cgraph *g)
{
	struct kt_json *j = ctx->json ? kt_json(ctx) : NULL;
	const struct kt_cg_opts *o = g->o;
	double limit = limit_of(g, 0);
	size_t n;

	/* self looked up before total is sorted (self stays a table) */
	n = kt_profile_sort(&g->total, row_by_children);
	if (j) {
		kt_json_key(j, "rows");
		kt_json_array_begin(j);
	} else {
		fputs("#  Children      Self   Samples", ctx->out);
		for (int k = 0; k < o->nkeys; k++)
			fprintf(ctx->out, "  %s", kt_sort_titles[o->keys[k]]);
		fputs("\n#\n", ctx->out);
	}
	for (size_t i = 0; i < n; i++) {
		const struct kt_prow *r = &g->total.v[i];
		const struct kt_prow *s = kt_profile_find(&g->self, r->key);
		unsigned long long ss = s ? s->samples : 0;
		unsigned long long sp = s ? s->period : 0;
		const char *field = r->key;

		if (pct(g, r->period) < limit)
			break;	/* sorted: the rest are below too */
		if (j) {
			kt_json_object_begin(j);
			kt_json_key(j, "children");
			kt_json_double(j, pct(g, r->period));
			kt_json_key(j, "self");
			kt_json_double(j, pct(g, sp));
			kt_juint(j, "samples", r->samples);
			kt_juint(j, "period", r->period);
			kt_juint(j, "self_samples", ss);
			kt_juint(j, "self_period", sp);
		} else {
			fprintf(ctx->out, "%10.2f%% %8.2f%%  %8llu",
				pct(g, r->period), pct(g, sp), r->samples);
		}
		kt_sort_key_put(ctx->out, j, o->keys, o->nkeys, field);
		if (j)
			kt_json_object_end(j);
		else
			putc('\n', ctx->out);
	}
	if (j)
		kt_json_array_end(j);
}

void kt_cg_print(struct kt_ctx *ctx, struct kt_cgraph *g, const char *event)
{
	struct kt_json *j = ctx->json ? kt_json(ctx) : NULL;

	if (j) {
		kt_json_object_begin(j);
		kt_jstr(j, "event", event);
		kt_juint(j, "samples", g->samples);
		kt_juint(j, "period", g->period);
	} else {
		fprintf(ctx->out, "# Event: %s\n# Samples: %llu, period %llu\n",
			event, g->samples, g->period);
	}
	if (g->o->children) {
		if (!j)
			fputs("#\n", ctx->out);
		children_print(ctx, g);
	} else {
		tree_print(ctx, g);
	}
	if (j)
		kt_json_object_end(j);
	else
		putc('\n', ctx->out);
}

/* ------------------------------------------------------------ the replay */

struct cg_run {
	struct ktrace_record *rec;
	const struct kt_cg_opts *o;
	struct kt_cgraph *g;		/* one per event */
	int nr_events;
	int error;
};

/* run->g[0..nr) grown to event + 1. 0 or -ENOMEM. */
static int graphs_grow(struct cg_run *run, int event)
{
	struct kt_cgraph *nv;

	if (event < run->nr_events)
		return 0;
	nv = realloc(run->g, (event + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	run->g = nv;
	for (; run->nr_events <= event; run->nr_events++)
		if (kt_cg_init(&run->g[run->nr_events], run->o))
			return -ENOMEM;
	return 0;
}

static int cg_one(void *arg, const struct ktrace_sample *s)
{
	struct cg_run *run = arg;
	struct ktrace_frame fr[KT_MAX_FRAMES];
	char comm[32];
	int n;

	if (s->type != KTRACE_SAMPLE_EVENT)
		return 0;
	run->error = graphs_grow(run, s->event);
	if (run->error)
		return run->error;
	n = kt_sample_frames(run->rec, s, fr, KT_MAX_FRAMES, run->o->inl);
	ktrace_record_comm(run->rec, s->tid, comm, sizeof(comm));
	run->error = kt_cg_add(&run->g[s->event], comm,
			       ktrace_record_event_name(run->rec, s->event),
			       fr, n, s->period ? s->period : 1);
	return run->error;
}

/* Every event's graph (those with the symbol, for a tree). */
static int cg_print_all(struct kt_ctx *ctx, struct cg_run *run)
{
	struct kt_json *j = ctx->json ? kt_json(ctx) : NULL;
	unsigned long long all = 0;
	int shown = 0;

	for (int e = 0; e < run->nr_events; e++)
		all += run->g[e].samples;
	if (j)
		kt_json_array_begin(j);
	for (int e = 0; e < run->nr_events; e++) {
		struct kt_cgraph *g = &run->g[e];

		if (!g->samples || (!run->o->children && !g->root.samples))
			continue;
		kt_cg_print(ctx, g, ktrace_record_event_name(run->rec, e));
		shown++;
	}
	if (j)
		kt_json_array_end(j);
	if (!shown && all && !run->o->children)
		return kt_error(ctx, KT_FAIL,
				"'%s' is in no stack of the %llu samples",
				run->g[0].root.sym, all);
	return KT_OK;
}

int kt_callgraph_report(struct kt_ctx *ctx, struct ktrace_record *rec,
			const struct kt_cg_opts *o, const char *input)
{
	struct cg_run run = { .rec = rec, .o = o };
	int ret = KT_OK;
	long n;

	n = ktrace_record_replay(rec, cg_one, &run, NULL, NULL);
	if (n >= 0 && !run.error)
		ret = cg_print_all(ctx, &run);
	for (int e = 0; e < run.nr_events; e++)
		kt_cg_free(&run.g[e]);
	free(run.g);
	fflush(ctx->out);
	kt_report_truncated(ctx, rec, input, n);
	if (run.error)
		return kt_error(ctx, KT_FAIL, "out of memory");
	if (n < 0)
		return kt_error(ctx, KT_FAIL, "'%s': %s", input,
				n == -EBADMSG ?
				"damaged or truncated after the last record shown" :
				strerror((int)-n));
	return ret;
}
