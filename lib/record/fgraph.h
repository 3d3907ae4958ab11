/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The call graph of function_graph records (lib/record/fgraph.c), ktrace's
 * own (libtraceevent has no function_graph plugin): per CPU, an entry
 * held until the next record of that CPU shows whether it is a leaf (its
 * own exit next: one line with the duration) or opens a call ("func() {"
 * closed later by "}" with the duration). Not installed.
 */
#ifndef KTRACE_RECORD_FGRAPH_H
#define KTRACE_RECORD_FGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "tracefs/ftrace.h"

enum kt_fgline_kind { KT_FG_OPEN, KT_FG_LEAF, KT_FG_CLOSE };

/* One line of the graph, as it is to be shown. */
struct kt_fgline {
	enum kt_fgline_kind kind;
	int cpu, pid, depth;
	uint64_t ts;		/* the entry's (OPEN, LEAF) or the exit's */
	uint64_t func;
	uint64_t dur;		/* ns: LEAF, CLOSE */
	bool comment;		/* CLOSE: name the function ("} / * f * /") */
};

typedef void (*kt_fgraph_emit)(void *arg, const struct kt_fgline *l);

/*
 * The state of every CPU. threshold (ns, > 0): only calls that took at
 * least that long, one line each when they return (funcslower); maxdepth
 * (> 0): records deeper than that left out (what max_graph_depth does
 * where the kernel has no such file for the instance); comment_after: a
 * closing more than that many lines of its CPU below its opening names
 * the function. NULL: no memory.
 */
struct kt_fgraph *kt_fgraph_alloc(uint64_t threshold, int maxdepth,
				  int comment_after);
void kt_fgraph_free(struct kt_fgraph *g);	/* takes NULL */
/* The next record of r->cpu (in that CPU's order; FUNC records are not
 * graph records and are ignored): 0..2 lines to emit. 0 or -ENOMEM. */
int kt_fgraph_feed(struct kt_fgraph *g, const struct kt_frec *r,
		   kt_fgraph_emit emit, void *arg);
/* The end: entries still held are shown as openings. */
void kt_fgraph_flush(struct kt_fgraph *g, kt_fgraph_emit emit, void *arg);

#endif
