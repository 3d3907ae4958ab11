// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The call graph of function_graph records: nesting, leaves folded onto
 * one line (an entry whose next record on its CPU is its own exit), the
 * durations the exits carry (rettime - calltime), closings that name
 * their function when far from their opening or without one (the entry
 * lost, or before the start), and the funcslower and depth cuts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/fgraph.h"

struct frame {
	uint64_t func;
	int depth;
	uint64_t line;		/* the CPU's line count at the opening */
};

struct fcpu {
	bool held;
	struct kt_frec entry;	/* held until the CPU's next record */
	struct frame *stack;
	int n, cap;
	uint64_t lines;
};

struct kt_fgraph {
	uint64_t threshold;
	int maxdepth, comment_after;
	struct fcpu *cpus;
	int ncpus;
};

struct kt_fgraph *kt_fgraph_alloc(uint64_t threshold, int maxdepth,
				  int comment_after)
{
	struct kt_fgraph *g = calloc(1, sizeof(*g));

	if (g) {
		g->threshold = threshold;
		g->maxdepth = maxdepth;
		g->comment_after = comment_after;
	}
	return g;
}

void kt_fgraph_free(struct kt_fgraph *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->ncpus; i++)
		free(g->cpus[i].stack);
	free(g->cpus);
	free(g);
}

static struct fcpu *cpu_of(struct kt_fgraph *g, int cpu)
{
	if (cpu < 0 || cpu > 4095)
		return NULL;
	if (cpu >= g->ncpus) {
		struct fcpu *v = realloc(g->cpus, (cpu + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + g->ncpus, 0, (cpu + 1 - g->ncpus) * sizeof(*v));
		g->cpus = v;
		g->ncpus = cpu + 1;
	}
	return &g->cpus[cpu];
}

static void put(struct fcpu *c, struct kt_fgline *l, kt_fgraph_emit emit,
		void *arg)
{
	c->lines++;
	emit(arg, l);
}

/* The held entry shown as an opening, pushed. 0 or -ENOMEM. */
static int open_held(struct fcpu *c, kt_fgraph_emit emit, void *arg)
{
	struct kt_fgline l = { .kind = KT_FG_OPEN };

	if (!c->held)
		return 0;
	c->held = false;
	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 32;
		struct frame *v = realloc(c->stack, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->stack = v;
		c->cap = cap;
	}
	l.cpu = c->entry.cpu;
	l.pid = c->entry.pid;
	l.depth = c->entry.depth;
	l.ts = c->entry.ts;
	l.func = c->entry.ip;
	c->stack[c->n++] = (struct frame){ l.func, l.depth, c->lines };
	put(c, &l, emit, arg);
	return 0;
}

static uint64_t duration(const struct kt_frec *r)
{
	return r->rettime > r->calltime ? r->rettime - r->calltime : 0;
}

static int on_exit_rec(struct kt_fgraph *g, struct fcpu *c,
		       const struct kt_frec *r, kt_fgraph_emit emit,
		       void *arg)
{
	struct kt_fgline l = { .kind = KT_FG_CLOSE, .cpu = r->cpu,
			       .pid = r->pid, .depth = r->depth, .ts = r->ts,
			       .func = r->ip, .dur = duration(r) };
	int ret;

	if (c->held && c->entry.ip == r->ip && c->entry.depth == r->depth &&
	    c->entry.pid == r->pid) {
		c->held = false;
		l.kind = KT_FG_LEAF;
		l.ts = c->entry.ts;
		put(c, &l, emit, arg);
		return 0;
	}
	ret = open_held(c, emit, arg);
	if (ret)
		return ret;
	/* the exits of deeper calls were lost: their frames go */
	while (c->n && c->stack[c->n - 1].depth > r->depth)
		c->n--;
	if (c->n && c->stack[c->n - 1].func == r->ip &&
	    c->stack[c->n - 1].depth == r->depth) {
		c->n--;
		l.comment = c->lines - c->stack[c->n].line >
			    (uint64_t)g->comment_after;
	} else {
		l.comment = true;	/* its opening is not shown */
	}
	put(c, &l, emit, arg);
	return 0;
}

int kt_fgraph_feed(struct kt_fgraph *g, const struct kt_frec *r,
		   kt_fgraph_emit emit, void *arg)
{
	struct fcpu *c;
	int ret;

	if (r->type == KT_FREC_FUNC ||
	    (g->maxdepth > 0 && r->depth >= g->maxdepth))
		return 0;
	c = cpu_of(g, r->cpu);
	if (!c)
		return -ENOMEM;
	if (g->threshold) {
		struct kt_fgline l = { .kind = KT_FG_LEAF, .cpu = r->cpu,
				       .pid = r->pid, .depth = r->depth,
				       .ts = r->calltime, .func = r->ip,
				       .dur = duration(r) };

		if (r->type == KT_FREC_EXIT && l.dur >= g->threshold)
			put(c, &l, emit, arg);
		return 0;
	}
	if (r->type == KT_FREC_EXIT)
		return on_exit_rec(g, c, r, emit, arg);
	ret = open_held(c, emit, arg);
	if (ret)
		return ret;
	c->entry = *r;
	c->held = true;
	return 0;
}

void kt_fgraph_flush(struct kt_fgraph *g, kt_fgraph_emit emit, void *arg)
{
	for (int i = 0; i < g->ncpus; i++)
		open_held(&g->cpus[i], emit, arg);
}
