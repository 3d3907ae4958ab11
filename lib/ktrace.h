/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * libktrace: the library behind the ktrace command.
 *
 * Conventions:
 *  - Handles are opaque. _alloc/_parse touch memory only, _create/_destroy
 *    touch the kernel, _free accepts NULL.
 *  - Functions returning int return 0 (or a count) on success and -errno on
 *    failure. Functions returning pointers return NULL and set errno.
 *  - The library never prints and never exits. Where a failure has more to
 *    say than errno (a kernel error_log entry, a parse position), it is kept
 *    in a struct ktrace_err the caller passes in.
 */
#ifndef KTRACE_H
#define KTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Error details. msg is a one-line description; when the kernel refused a
 * write, klog holds its error_log text. input/pos point at the offending
 * character of the user's own input (pos < 0: unknown). All strings are
 * owned by the struct; release them with ktrace_err_clear().
 */
struct ktrace_err {
	char *msg;	/* one line, no trailing newline */
	char *klog;	/* kernel error_log message, or NULL */
	char *input;	/* the user's input the caret applies to, or NULL */
	int pos;	/* offset into input, -1 if unknown */
};

void ktrace_err_clear(struct ktrace_err *err);
/* Fills err (replacing what it held); returns -errnum for chaining. */
int ktrace_err_set(struct ktrace_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---------------------------------------------------------------- tracefs */

struct ktrace_tfs;

/*
 * Open the tracefs tree. dir NULL: $KTRACE_TRACEFS if set, else wherever
 * tracefs is mounted (/proc/mounts), else mount it at /sys/kernel/tracing.
 * The caller frees the handle with ktrace_tfs_free().
 */
struct ktrace_tfs *ktrace_tfs_open(const char *dir);
void ktrace_tfs_free(struct ktrace_tfs *tfs);
/* The tree's directory; owned by tfs. */
const char *ktrace_tfs_dir(const struct ktrace_tfs *tfs);

/*
 * Names given by users (systems, events, groups, instances) are checked
 * before any path is built: [A-Za-z0-9_][A-Za-z0-9_.-]* without "..",
 * at most 64 characters (instances: 64, events: 64). Returns 0 or -EINVAL.
 */
int ktrace_name_check(const char *name);

/* fnmatch() of pattern against "system:event" with ktrace's rules: a
 * pattern without ':' matches a whole system ("irq" == "irq:*"). */
bool ktrace_glob_match(const char *pattern, const char *system,
		       const char *event);
/* Is the glob well-formed (no '/', balanced brackets, allowed chars)? */
int ktrace_glob_check(const char *pattern);

/* -------------------------------------------------------------- instances */

struct ktrace_inst;

/*
 * The top instance (name NULL) or a named one. create: make it when missing
 * (remembered as made by ktrace, so that ktrace_inst_destroy() after a
 * reset may remove it). Returns NULL + errno (ENOENT when missing and
 * !create, EINVAL for a bad name). Free with ktrace_inst_free().
 */
struct ktrace_inst *ktrace_inst_open(struct ktrace_tfs *tfs, const char *name,
				     bool create);
void ktrace_inst_free(struct ktrace_inst *inst);
const char *ktrace_inst_name(const struct ktrace_inst *inst); /* NULL: top */
bool ktrace_inst_owned(const struct ktrace_inst *inst);
/* Was the instance created by this very ktrace_inst_open() call? */
bool ktrace_inst_is_new(const struct ktrace_inst *inst);
/* Remove the instance from tracefs (only named instances); frees nothing. */
int ktrace_inst_destroy(struct ktrace_inst *inst);
/* Names of all instances, NULL-terminated; free with ktrace_strv_free(). */
char **ktrace_inst_list(struct ktrace_tfs *tfs);
void ktrace_strv_free(char **v);

/* ----------------------------------------------------------------- events */

enum ktrace_kind {
	KTRACE_KIND_TRACEPOINT,
	KTRACE_KIND_KPROBE,
	KTRACE_KIND_KRETPROBE,
	KTRACE_KIND_UPROBE,
	KTRACE_KIND_URETPROBE,
	KTRACE_KIND_SYNTHETIC,
	KTRACE_KIND_EPROBE,
	KTRACE_KIND_FPROBE,
	KTRACE_KIND_OTHER,
};
const char *ktrace_kind_name(enum ktrace_kind kind);

struct ktrace_field {
	const char *type;	/* "unsigned long", "__data_loc char[]" ... */
	const char *name;
	int offset;
	int size;
	bool is_signed;
	bool is_common;
};

struct ktrace_event {
	const char *system;
	const char *name;
	int id;			/* -1 when unreadable */
	enum ktrace_kind kind;
	const char *definition;	/* dynamic events: the dynamic_events line */
	/* Loaded by ktrace_events_load_formats(): */
	const struct ktrace_field *fields;
	int nr_fields;
	const char *print_fmt;
};

struct ktrace_events;

/*
 * Scan the events of the tree, keeping those matching any of globs (all when
 * nglobs == 0), sorted by system then name. hits, when not NULL, has nglobs
 * entries and receives how many events each glob matched. Free with
 * ktrace_events_free().
 */
struct ktrace_events *ktrace_events_alloc(struct ktrace_tfs *tfs,
					  const char *const *globs, int nglobs,
					  unsigned int *hits);
void ktrace_events_free(struct ktrace_events *evs);
int ktrace_events_count(const struct ktrace_events *evs);
/* Borrowed pointer, valid until ktrace_events_free(). */
const struct ktrace_event *ktrace_events_get(const struct ktrace_events *evs,
					     int i);
/* Read id and format (fields, print fmt) of every listed event. */
int ktrace_events_load_formats(struct ktrace_events *evs);

/* --------------------------------------------------------- event controls */

/*
 * Enable/disable every event matching any glob in inst. Returns the number
 * of events changed or -errno. hits as for ktrace_events_alloc().
 */
int ktrace_inst_enable(struct ktrace_inst *inst, const char *const *globs,
		       int nglobs, bool on, unsigned int *hits);

/*
 * Set the filter of one event ("system:event"): the expression is verified
 * against the event's format first, then written. When the kernel refuses
 * it, its error_log text and the caret position in expr are put in err and
 * the event's previous filter is restored. expr NULL clears the filter.
 */
int ktrace_inst_filter_set(struct ktrace_inst *inst, const char *event,
			   const char *expr, struct ktrace_err *err);

struct ktrace_inst_state {
	char *name;		/* NULL: top instance */
	bool tracing_on;
	long buffer_size_kb;	/* per CPU */
	char **enabled;		/* "system:event", NULL-terminated */
	char **filters;		/* "system:event\tEXPR", NULL-terminated */
	bool owned;		/* created by ktrace */
};
/* Fill st from inst; release with ktrace_inst_state_clear(). */
int ktrace_inst_state_read(struct ktrace_inst *inst,
			   struct ktrace_inst_state *st);
void ktrace_inst_state_clear(struct ktrace_inst_state *st);

/*
 * Disable every event and clear every filter of inst. Dynamic events are
 * never removed here. Returns 0 or -errno.
 */
int ktrace_inst_reset(struct ktrace_inst *inst);

/* ----------------------------------------------------------- kernel errors */

/*
 * Clear the kernel's error_log (of inst, NULL: top). Then, after a refused
 * write, ktrace_errlog_read() returns the last message and the caret column
 * within the command the kernel echoed (pos), or NULL when there is none.
 * The returned strings are malloc'ed; the caller frees them.
 */
int ktrace_errlog_clear(struct ktrace_tfs *tfs, struct ktrace_inst *inst);
char *ktrace_errlog_read(struct ktrace_tfs *tfs, struct ktrace_inst *inst,
			 char **command, int *pos);

/* --------------------------------------------------------- dynamic probes */

/*
 * A probe spec, perf-probe-like:
 *   SPEC     := [[GROUP:]EVENT=]LOCATION [ARG...]
 *   LOCATION := FUNC[+OFFS] | FUNC%return | FILE:LINE      (kernel, or -x)
 *               BINARY:SYMBOL[+OFFS][%return]              (uprobe)
 *   ARG      := [NAME=]FETCHARG[:TYPE]     raw kprobe_events syntax
 *             | [NAME=]VAR[->FIELD|.FIELD]...[:TYPE]   resolved by name
 */
struct ktrace_probe;

struct ktrace_probe_opts {
	const char *binary;	/* -x: user-space target, or NULL (kernel) */
	const char *group;	/* default group, NULL: "ktrace" */
};

/*
 * Parse spec (memory only). Errors point into spec (err->input/pos).
 * Free with ktrace_probe_free().
 */
struct ktrace_probe *ktrace_probe_parse(const char *spec,
					const struct ktrace_probe_opts *opts,
					struct ktrace_err *err);
void ktrace_probe_free(struct ktrace_probe *p);

/*
 * Resolve the location and the arguments by name (kallsyms, BTF, ELF,
 * DWARF) and build the definition. Reads files, writes nothing.
 */
int ktrace_probe_resolve(struct ktrace_probe *p, struct ktrace_tfs *tfs,
			 struct ktrace_err *err);
/* After resolve: the exact line written to tracefs (owned by p). */
const char *ktrace_probe_definition(const struct ktrace_probe *p);
const char *ktrace_probe_group(const struct ktrace_probe *p);
const char *ktrace_probe_event(const struct ktrace_probe *p);
enum ktrace_kind ktrace_probe_kind(const struct ktrace_probe *p);

/*
 * Create the resolved probe in the kernel (one write). An existing event of
 * the same name is an error (-EEXIST) unless force, which replaces it. When
 * the kernel refuses it, err carries its error_log text with err->pos in
 * the user's spec. Nothing is left behind on failure.
 */
int ktrace_probe_create(struct ktrace_probe *p, struct ktrace_tfs *tfs,
			bool force, struct ktrace_err *err);

/*
 * Remove the kprobe/uprobe group:event from the kernel. Returns -ENOENT
 * when there is no such probe, -EBUSY while it is enabled or recorded.
 */
int ktrace_probe_destroy(struct ktrace_tfs *tfs, const char *group,
			 const char *event);

/* Does this kernel support kprobe events (kprobe_events in tracefs)? */
bool ktrace_tfs_has_kprobes(struct ktrace_tfs *tfs);

#ifdef __cplusplus
}
#endif
#endif /* KTRACE_H */
