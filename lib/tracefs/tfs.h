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
#include <stddef.h>

#include "ktrace.h"

struct ktrace_tfs;
struct ktrace_inst;

/*
 * The top instance of tfs: owned by tfs (never freed, never destroyed). It
 * is where the tree-wide files are too (dynamic_events, kprobe_events,
 * available_events, README...).
 */
struct ktrace_inst *kt_tfs_top(struct ktrace_tfs *tfs);

/*
 * The one way to a file of the tree: code above lib/tracefs never builds a
 * tracefs path itself (the handles' layout is lib/tracefs's own).
 *   kt_inst_path(inst, "current_tracer")       INST/current_tracer
 *   kt_event_path(inst, sys, ev, "trigger")    INST/events/SYS/EV/trigger
 * INST is the tree's root for the top instance, ROOT/instances/NAME for
 * the others. A NULL part of kt_event_path() is left out: (sys, NULL,
 * "enable") is the system's switch, (NULL, NULL, "header_page")
 * events/header_page, (sys, ev, NULL) the event's directory. sys and ev
 * stay in the tree: "", ".", ".." or a '/' is EINVAL (names from users are
 * checked with kt_name_check() first), as is ev without sys. file is
 * the caller's own text ("per_cpu/cpu0/trace_pipe_raw" is fine).
 * malloc'ed (the caller frees) or NULL + errno.
 */
char *kt_inst_path(const struct ktrace_inst *inst, const char *file);
char *kt_event_path(const struct ktrace_inst *inst, const char *sys,
		    const char *ev, const char *file);
/* Such a file read whole: kt_read_file()'s contract. */
char *kt_inst_read(const struct ktrace_inst *inst, const char *file,
		   size_t *len);
char *kt_event_read(const struct ktrace_inst *inst, const char *sys,
		    const char *ev, const char *file, size_t *len);
/*
 * Such a file written in one write(2) (one command to tracefs):
 * kt_write_file()'s contract (flags O_TRUNC or O_APPEND), 0 or -errno.
 * kt_event_write() truncates, and takes only names that pass
 * kt_name_check() (-EINVAL).
 */
int kt_inst_write(const struct ktrace_inst *inst, const char *file,
		  const char *val, int flags);
int kt_event_write(const struct ktrace_inst *inst, const char *sys,
		   const char *ev, const char *file, const char *val);
/* The same appending: the only way to a trigger file, whose O_TRUNC
 * removes every trigger on the event, other tools' too. */
int kt_event_append(const struct ktrace_inst *inst, const char *sys,
		    const char *ev, const char *file, const char *val);

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

/*
 * Owners of what one ktrace process makes for its run alone: its inline
 * probe group and its own instance, both named kt_owner_group_name()
 * ("ktrace_<pid>", with a random suffix outside the initial PID
 * namespace) (owner.c). _record(): write the owner record before the
 * first object exists (0 or -errno). _dead(): the record proves the owner
 * gone (no record: false). _known(): a record exists. _forget(): drop the
 * record.
 */
void kt_owner_group_name(char *buf, size_t len);
int kt_owner_record(struct ktrace_tfs *tfs, const char *group);
bool kt_owner_dead(struct ktrace_tfs *tfs, const char *group);
bool kt_owner_known(struct ktrace_tfs *tfs, const char *group);
void kt_owner_forget(struct ktrace_tfs *tfs, const char *group);
/* Forget the record once nothing of that name is left: no instance, no
 * event group, no synthetic event. */
void kt_owner_release(struct ktrace_tfs *tfs, const char *name);
/* Drop the records of dead owners whose groups (none in ds) and
 * instances are gone (a ktrace killed before its first probe, or a record
 * left over). */
void kt_owner_prune(struct ktrace_tfs *tfs, const struct kt_dyn_set *ds);

/*
 * This process's own instance, for a command's run (hist triggers,
 * tracers): named like its inline group, its owner recorded and the
 * instance marked before it exists. NULL + errno (EEXIST: an instance of
 * that name is there already). kt_own_inst_destroy() removes it (the
 * kernel drops its triggers and tracer with it), unmarks it, forgets the
 * owner when nothing of that name is left (kt_owner_release()), and
 * frees inst.
 * kt_own_inst_sweep() removes the own instances of ktrace processes that
 * are provably gone (killed with SIGKILL); the count removed or -errno.
 */
struct ktrace_inst *kt_own_inst_create(struct ktrace_tfs *tfs);
/* An instance's name (NULL: the top), borrowed from inst. */
const char *kt_inst_name(const struct ktrace_inst *inst);
int kt_own_inst_destroy(struct ktrace_inst *inst);
int kt_own_inst_sweep(struct ktrace_tfs *tfs);

/*
 * Check a filter against an event's format with libtracefs's verifier
 * (when it can judge it). 0, or -EINVAL with err filled (input, pos).
 */
struct tep_event;
int kt_filter_check(struct tep_event *te, const char *what, const char *expr,
		    struct ktrace_err *err);

/*
 * The one reader of an instance's ring buffers (ftrace's, not perf's):
 * kt_pipe_open() opens each CPU's trace_pipe_raw without blocking (cpus
 * NULL: every CPU; a CPU without a buffer is skipped), NULL + errno.
 * kt_pipe_read() reads at most max subbuffers of reader i (of
 * kt_pipe_nr()) that are there now and hands each
 * event to fn in the buffer's order, with the events the kernel lost
 * before it (missed: N, -1 for some, 0); it stops when fn returns
 * non-zero. The events handed, fn's negative value, or -errno.
 */
struct kt_pipe;
struct kt_pipe_ev {
	int cpu;
	unsigned long long ts;	/* the instance's trace_clock */
	const void *data;	/* the event as in its format file; valid
				 * during the call */
	unsigned int size;
	int missed;
};
typedef int (*kt_pipe_fn)(void *arg, const struct kt_pipe_ev *ev);
struct kt_pipe *kt_pipe_open(const struct ktrace_inst *inst, const int *cpus,
			     int ncpus);
int kt_pipe_nr(const struct kt_pipe *p);
int kt_pipe_fd(const struct kt_pipe *p, int i);	/* to poll(2) for POLLIN */
long kt_pipe_read(struct kt_pipe *p, int i, int max, kt_pipe_fn fn,
		  void *arg);
/*
 * kt_pipe_fill() reads every subbuffer there is now, of every CPU, into
 * memory (up to a quarter of the memory available), so that the kernel's
 * buffers are emptied at the cost of a copy while their events wait to be
 * decoded; kt_pipe_read() hands the queued ones first. The subbuffers
 * queued, or -errno when none could be. kt_pipe_queued(): how many wait
 * for reader i; kt_pipe_queued_time(): the time of the first event of the
 * k-th of them (UINT64_MAX past the last).
 */
long kt_pipe_fill(struct kt_pipe *p);
size_t kt_pipe_queued(const struct kt_pipe *p, int i);
uint64_t kt_pipe_queued_time(const struct kt_pipe *p, int i, size_t k);
void kt_pipe_close(struct kt_pipe *p);	/* takes NULL */

/*
 * The same with the events' formats, for one who wants records by name
 * and field (latency --record): kt_raw_open() reads the formats of
 * systems (a NULL-ended list) and opens inst's buffers; kt_raw_read()
 * hands each record every CPU holds now to fn, oldest first across CPUs,
 * until fn returns non-zero (returned), 0, or -errno. kt_raw_missed():
 * the events the kernel lost so far. kt_raw_field() reads a field of a
 * record (a number of up to 8 bytes into *val, and/or its offset): 0,
 * -ENOENT (no such field), -EINVAL (not in the record). Free with
 * kt_raw_free() (NULL too).
 */
struct kt_raw;
struct kt_raw_rec {
	int cpu;
	unsigned long long ts;	/* the instance's trace_clock */
	const void *data;	/* the event's data as in its format file */
	unsigned int size;
	int id;			/* the event's id, -1 unknown */
	const char *system, *name;
};
typedef int (*kt_raw_fn)(void *arg, const struct kt_raw_rec *rec);
struct kt_raw *kt_raw_open(struct ktrace_tfs *tfs,
			   const struct ktrace_inst *inst,
			   const char *const *systems);
int kt_raw_read(struct kt_raw *r, kt_raw_fn fn, void *arg);
unsigned long long kt_raw_missed(const struct kt_raw *r);
int kt_raw_field(const struct kt_raw *r, const struct kt_raw_rec *rec,
		 const char *name, unsigned long long *val, int *offset);
void kt_raw_free(struct kt_raw *r);

#endif
