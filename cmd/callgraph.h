/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Call-graph reports (cmd/callgraph.c) and the difference of two
 * recordings (cmd/pdiff.c): report --children, --callers SYM, --callees
 * SYM and --diff OLD NEW.
 */
#ifndef KTRACE_CALLGRAPH_H
#define KTRACE_CALLGRAPH_H

#include "ktrace_cmd.h"

struct kt_cg_opts {
	enum kt_sort_key keys[KT_SK_NR];	/* --sort; nkeys 0: default */
	int nkeys;
	bool children;			/* --children */
	const char *callers, *callees;	/* --callers SYM, --callees SYM */
	double limit;			/* --percent-limit; < 0: not given */
	bool inl;			/* --inline */
	bool folded;			/* --diff: --folded */
	const char *svg;		/* --diff: --flamegraph FILE.svg */
};

/*
 * A node of a --callers or --callees tree: the symbol itself at the root,
 * then its callers (outward) or callees (inward). Names are copies, owned
 * by the node.
 */
struct kt_cgnode {
	char *sym, *dso;		/* dso NULL at the root */
	unsigned long long samples, period;		/* paths through here */
	unsigned long long self_samples, self_period;	/* paths ending here */
	struct kt_cgnode *kids;		/* in the order first seen */
	int nkids, cap;
};

/* One event's call-graph profile (kt_cg_init(), then kt_cg_free()). */
struct kt_cgraph {
	const struct kt_cg_opts *o;
	unsigned long long samples, period;	/* every sample of the event */
	struct kt_profile self, total;	/* --children: rows by key */
	struct kt_cgnode root;		/* --callers/--callees */
};

/* g empty, for o (kept: it must outlive g). 0 or -ENOMEM. */
int kt_cg_init(struct kt_cgraph *g, const struct kt_cg_opts *o);
/*
 * Count a sample of period whose stack is fr[0..n) (innermost first; n 0:
 * no address) in g: its innermost frame's key gets the self time; every
 * key in the stack the children time, once however often it recurs; the
 * tree the path from the symbol's innermost (callers) or outermost
 * (callees) frame. 0 or -ENOMEM.
 */
int kt_cg_add(struct kt_cgraph *g, const char *comm, const char *event,
	      const struct ktrace_frame *fr, int n, uint64_t period);
/* One event's report onto ctx->out (its JSON writer under ctx->json). */
void kt_cg_print(struct kt_ctx *ctx, struct kt_cgraph *g, const char *event);
void kt_cg_free(struct kt_cgraph *g);	/* empty again */
/* A node's kids sorted by period, largest first. */
void kt_cgnode_sort(struct kt_cgnode *n);

/* report --children/--callers/--callees of rec. An exit status. */
int kt_callgraph_report(struct kt_ctx *ctx, struct ktrace_record *rec,
			const struct kt_cg_opts *o, const char *input);

/* "input is truncated: N records recovered" on stderr when it is
 * (cmd/report.c); n: the replay's count, nothing said when < 0. */
void kt_report_truncated(struct kt_ctx *ctx, struct ktrace_record *rec,
			 const char *input, long n);

/* A row of a --diff: one key's shares in the old and new recordings. */
struct kt_drow {
	const char *key;		/* the profiles' (not copied) */
	unsigned long long old_samples, new_samples;
	unsigned long long old_period, new_period;
	double old_pct, new_pct, delta;	/* shares of the period; new - old */
};

/*
 * The rows of the keys of old and new (their union), in key order. Sorts
 * both profiles (then they are lists: kt_profile_free() them after the
 * rows). *rows: malloc'ed, the caller frees. How many, or -ENOMEM.
 */
long kt_pdiff_join(struct kt_profile *old, struct kt_profile *new,
		   struct kt_drow **rows);
/* qsort order: the largest change in share first, then by key. */
int kt_drow_by_delta(const void *a, const void *b);
/* Did both recordings sample at one rate (mean period per sample within
 * 5 %), so that their sample counts compare? */
bool kt_pdiff_same_rate(const struct kt_profile *old,
			const struct kt_profile *new);

/* report --diff OLD NEW. An exit status. */
int kt_pdiff_report(struct kt_ctx *ctx, const char *old, const char *new,
		    const struct kt_cg_opts *o);

#endif
