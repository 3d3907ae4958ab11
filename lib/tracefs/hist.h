/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Hist triggers (events/SYS/EV/trigger "hist:...") and the kernel's
 * `hist` file. ktrace writes the trigger line itself (libtracefs 1.6.4's
 * tracefs_hist has no size= and takes a filter only as tokens, not a
 * user's text) and parses the hist file (libtracefs has no reader of it).
 * Not installed.
 *
 * The text parsed is the one the kernel prints (kernel/trace/
 * trace_events_hist.c, hist_show()), the same on 6.1 and 6.12:
 *
 *   # event histogram
 *   #
 *   # trigger info: hist:keys=id.syscall:vals=hitcount:sort=hitcount:size=2048 [active]
 *   #
 *
 *   { id: sys_read                      [  0] } hitcount:        222
 *
 *   Totals:
 *       Hits: 222
 *       Entries: 1
 *       Dropped: 0
 *
 * one such section per trigger on the event.
 */
#ifndef KTRACE_TRACEFS_HIST_H
#define KTRACE_TRACEFS_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrace.h"

struct ktrace_inst;

/* How a key is printed, from its modifier in the trigger info (a
 * modifier the parser does not know: PLAIN, the printed text). */
enum kt_hist_kind {
	KT_HK_PLAIN,		/* no modifier: a number or a string field */
	KT_HK_HEX,		/* .hex: num */
	KT_HK_SYM,		/* .sym: num = address, text = symbol */
	KT_HK_SYM_OFFSET,	/* .sym-offset: text = "sym+0x1f/0x80",
				 * num = address */
	KT_HK_EXECNAME,		/* .execname: num = pid, text = comm */
	KT_HK_SYSCALL,		/* .syscall: num = id, text = name */
	KT_HK_LOG2,		/* .log2: num = N of "~ 2^N" */
	KT_HK_BUCKETS,		/* .buckets=S: [num, num2] of "~ A-B" */
	KT_HK_USECS,		/* .usecs: num */
	KT_HK_STACK,		/* stacktrace, common_stacktrace: text = frames,
				 * one per line ('\n' between, none at the end) */
};

struct kt_hist_keydef {
	char *name;		/* "call_site" (without the modifier) */
	enum kt_hist_kind kind;
	uint64_t bucket_size;	/* KT_HK_BUCKETS: S */
};

struct kt_hist_key {
	/* KT_HK_PLAIN: the printed text, trimmed (a string field's value,
	 * or the digits of a number); the others as the kind says, and
	 * where it says nothing the printed text, trimmed ("~ 2^7",
	 * "ff25ba60011e1290"). Never NULL. */
	char *text;
	uint64_t num, num2;
	bool is_num;		/* num holds a value (PLAIN: the text is a
				 * decimal number; STACK: never) */
};

/* A line under an entry that an action of the trigger added, as
 * "name: value" pairs: onmax()'s "max: N" and the fields its save() kept. */
struct kt_hist_var {
	char *name, *value;		/* value trimmed */
};

struct kt_hist_entry {
	struct kt_hist_key *keys;	/* nkeys */
	struct kt_hist_var *vars;	/* nvars, NULL when none */
	int nvars;
	uint64_t *vals;			/* nvals, 0 where the line had none */
	char *raw;			/* the entry's key text as printed: its
					 * identity from one read to the next */
};

/* One section: one trigger's table. */
struct kt_hist_table {
	char *trigger;		/* "hist:keys=...:size=2048 if FILTER" */
	bool paused;		/* [paused] rather than [active] */
	int nkeys, nvals;
	struct kt_hist_keydef *keys;
	/* value names in the trigger info's order, "hitcount" first (but
	 * with :nohitcount); values shown as .percent or .graph are not
	 * numbers and are left out. At most 16 keys and 16 values. */
	char **vals;
	struct kt_hist_entry *v;
	size_t n;
	uint64_t hits, entries, dropped;
	/* always true from kt_hist_parse(): a section without its Totals,
	 * or whose Entries is not n, is cut text and refused */
	bool has_totals;
};

struct kt_hist_file {
	struct kt_hist_table *t;
	int n;
};

/*
 * Parse the text of a hist file (len bytes, need not end in '\0') into
 * *out (free with kt_hist_file_free(); NULL is fine). An empty text is a
 * file of no tables. Returns 0, -ENOMEM, or -EINVAL for text that is not
 * the kernel's (*out is then NULL).
 */
int kt_hist_parse(const char *text, size_t len, struct kt_hist_file **out);
void kt_hist_file_free(struct kt_hist_file *f);
/*
 * The table whose trigger info is trigger (as kt_hist_trigger_text()
 * wrote it: the kernel adds vals=hitcount, sort=, size= and clock=), or
 * NULL. Compared: the keys (keys=cpu is printed common_cpu, stacktrace
 * common_stacktrace on 6.12), the values once hitcount is put first
 * (unless :nohitcount), the filter after " if " (trimmed), the name
 * (name=N, printed hist:N:) and the size if trigger gives one (rounded up
 * to a power of 2, as the kernel does). Of the tables that match, the
 * first one whose sort keys are trigger's (their fields and order;
 * default hitcount) is preferred, else the first one.
 */
struct kt_hist_table *kt_hist_find(struct kt_hist_file *f,
				   const char *trigger);

/*
 * A trigger's parts, as the user gave them: keys "field[.modifier]" (the
 * stack as "stacktrace"), values "field", sort "field[.descending]", size
 * (0: the kernel's 2048) and filter (NULL: none). kt_hist_trigger_text()
 * joins them into the line written to the trigger file; malloc'ed, or NULL
 * + errno (EINVAL: no key, or a part with ':' or a newline).
 */
struct kt_hist_def {
	const char *const *keys;
	int nkeys;
	const char *const *vals;
	int nvals;
	const char *const *sort;
	int nsort;
	unsigned int size;
	const char *extra;	/* more ":"-separated parts (variables,
				 * actions: "ts0=common_timestamp.usecs"),
				 * written as given, or NULL */
	const char *filter;
};
char *kt_hist_trigger_text(const struct kt_hist_def *d);

/*
 * Start the trigger text on inst's event SYS:EV (append to its trigger
 * file). On a refusal, err gets the kernel's error_log message, with
 * input = the trigger text and pos the caret's column in it (or -1).
 * 0 or -errno. kt_hist_stop() removes exactly that trigger ("!TEXT").
 */
struct ktrace_tfs;
/* Can SYS:EV take a hist trigger in inst (the event is there, the kernel
 * has hist triggers: CONFIG_HIST_TRIGGERS)? 0, or -errno with err said.
 * kt_hist_start() asks it; ask it of the top instance before making one. */
int kt_hist_check(struct ktrace_inst *inst, const char *sys, const char *ev,
		  struct ktrace_err *err);
int kt_hist_start(struct ktrace_tfs *tfs, struct ktrace_inst *inst,
		  const char *sys, const char *ev, const char *text,
		  struct ktrace_err *err);
int kt_hist_stop(struct ktrace_inst *inst, const char *sys, const char *ev,
		 const char *text);
/* Read and parse inst's SYS:EV hist file: kt_hist_parse()'s contract. */
int kt_hist_read(struct ktrace_inst *inst, const char *sys, const char *ev,
		 struct kt_hist_file **out);

#endif
