/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * lib/tracefs internals for the layers above it (probe, capture, record):
 * the tree and its instances, what ktrace made in the tree, its dynamic
 * events, filter checks. Not installed. README "tracefs" says what goes
 * through libtracefs and what ktrace writes itself.
 */
#ifndef KTRACE_TRACEFS_TFS_H
#define KTRACE_TRACEFS_TFS_H

#include <stdbool.h>

#include "ktrace.h"

struct tracefs_instance;

struct ktrace_tfs {
	char *dir;		/* tracefs root, no trailing '/' */
	char *state_dir;	/* where ktrace remembers what it created */
};

struct ktrace_inst {
	struct ktrace_tfs *tfs;
	char *name;		/* NULL: top instance */
	char *dir;		/* tfs->dir or tfs->dir/instances/name */
	struct tracefs_instance *ti;	/* NULL for the top instance */
	bool owned;
	bool is_new;
};

/*
 * Names given by users (systems, events, groups, instances) are checked
 * before any path is built: [A-Za-z0-9_][A-Za-z0-9_.-]* without "..",
 * at most 64 characters. Returns 0 or -EINVAL.
 */
int kt_name_check(const char *name);
/* fnmatch() of pattern against "system:event" with ktrace's rules: a
 * pattern without ':' matches a whole system ("irq" == "irq:*") or, when it
 * has no wildcard, an event of that exact name in any system
 * ("irq_handler_entry" == "*:irq_handler_entry"). */
bool kt_glob_match(const char *pattern, const char *system, const char *event);
/* Is the glob well-formed (no '/', balanced brackets, allowed chars)?
 * 0 or -EINVAL. */
int kt_glob_check(const char *pattern);

/*
 * Clear the kernel's error_log (of inst, NULL: top). Then, after a refused
 * write, kt_errlog_read() returns the last message and the caret column
 * within the command the kernel echoed (pos), or NULL when there is none.
 * The returned strings are malloc'ed; the caller frees them.
 */
int kt_errlog_clear(struct ktrace_tfs *tfs, struct ktrace_inst *inst);
char *kt_errlog_read(struct ktrace_tfs *tfs, struct ktrace_inst *inst,
		     char **command, int *pos);

/*
 * What ktrace made in a tree is remembered in its state dir
 * (KTRACE_STATE_DIR) as KIND.NAME: "instance" (instances to remove on
 * reset), "group" (probe groups made with -g). 0 or -errno / true if so.
 */
int kt_state_mark(struct ktrace_tfs *tfs, const char *kind, const char *name);
bool kt_state_has(struct ktrace_tfs *tfs, const char *kind, const char *name);
void kt_state_unmark(struct ktrace_tfs *tfs, const char *kind,
		     const char *name);
/* The same with text of the caller's as the mark's content; _read()
 * returns it (free() it) or NULL. */
int kt_state_write(struct ktrace_tfs *tfs, const char *kind,
		   const char *name, const char *text);
/* fn for each NAME marked as KIND; 0 or -errno. fn may unmark it. */
int kt_state_list(struct ktrace_tfs *tfs, const char *kind,
		  void (*fn)(struct ktrace_tfs *tfs, const char *name, void *ctx),
		  void *ctx);
char *kt_state_read(struct ktrace_tfs *tfs, const char *kind,
		    const char *name);

/*
 * The dynamic events of the tree (kprobes, uprobes, synthetic...) from
 * dynamic_events, with uprobe_events settling "p:"/"r:". kt_dyn_load()
 * fills ds (free with kt_dyn_free(), also after a failure); 0 or -errno.
 */
struct kt_dyn_def {
	char *system, *name, *line;
	enum ktrace_kind kind;
};

struct kt_dyn_set {
	struct kt_dyn_def *v;
	int n;
};

int kt_dyn_load(struct ktrace_tfs *tfs, struct kt_dyn_set *ds);
void kt_dyn_free(struct kt_dyn_set *ds);

/* Tracefs "events" listing helpers shared by events.c and inst.c. */
int kt_event_file_write(struct ktrace_inst *inst, const char *sys,
			const char *ev, const char *file, const char *val);

/* The same on the top instance of tfs. */
int kt_event_file_write_top(struct ktrace_tfs *tfs, const char *sys,
			    const char *ev, const char *file, const char *val);

/*
 * Check a filter against an event's format with libtracefs's verifier
 * (when it can judge it). 0, or -EINVAL with err filled (input, pos).
 */
struct tep_event;
int kt_filter_check(struct tep_event *te, const char *what, const char *expr,
		    struct ktrace_err *err);

#endif
