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

/* The release this header belongs to (the Makefile reads it from here). */
#define KTRACE_VERSION_MAJOR 0
#define KTRACE_VERSION_MINOR 2
#define KTRACE_VERSION_PATCH 0
/* For comparisons: KTRACE_VERSION_CODE >= KTRACE_VERSION_OF(0, 2, 0). */
#define KTRACE_VERSION_OF(a, b, c) ((a) * 10000 + (b) * 100 + (c))
#define KTRACE_VERSION_CODE KTRACE_VERSION_OF(KTRACE_VERSION_MAJOR, \
					      KTRACE_VERSION_MINOR, \
					      KTRACE_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* libktrace is built with hidden visibility; what this header declares is
 * its interface and the only thing the installed library exports. */
#pragma GCC visibility push(default)

/* The version of the library actually loaded ("0.1.0"), which may differ
 * from the header's when a program runs against a newer libktrace.so. */
const char *ktrace_version(void);

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
	bool syntax;	/* the input is malformed (callers: a usage error) */
};

void ktrace_err_clear(struct ktrace_err *err);

/* ---------------------------------------------------------------- tracefs */

struct ktrace_tfs;

/*
 * Open the tracefs tree. dir NULL: $KTRACE_TRACEFS if set, else
 * /sys/kernel/tracing when tracefs is mounted there, else wherever
 * /proc/mounts has it, else mount it at /sys/kernel/tracing.
 * The caller frees the handle with ktrace_tfs_free().
 */
struct ktrace_tfs *ktrace_tfs_open(const char *dir);
void ktrace_tfs_free(struct ktrace_tfs *tfs);
/* The tree's directory; owned by tfs. */
const char *ktrace_tfs_dir(const struct ktrace_tfs *tfs);

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
/*
 * Borrowed pointer, valid until ktrace_events_free(). The first call for an
 * event fills its entry: two threads must not ask for one evs at once.
 */
const struct ktrace_event *ktrace_events_get(const struct ktrace_events *evs,
					     int i);
/*
 * An event's names and kind without its struct ktrace_event: all a plain
 * listing of thousands of events needs. The strings are borrowed, valid
 * until ktrace_events_free().
 */
struct ktrace_event_brief {
	const char *system, *name;
	unsigned int system_len, name_len;
	enum ktrace_kind kind;
};

/* Fill *b with the i-th event: 0, or -ERANGE when i is out of range. */
int ktrace_events_brief(const struct ktrace_events *evs, int i,
			struct ktrace_event_brief *b);
/* Read id and format (fields, print fmt) of every listed event. */
int ktrace_events_load_formats(struct ktrace_events *evs);

/* --------------------------------------------------------- event controls */

/*
 * Enable/disable every event matching any glob in inst. Returns the number
 * of events changed (not those already as asked) or -errno; on an error
 * nothing stays changed. hits as for ktrace_events_alloc().
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
	/*
	 * "system:event\tEXPR", NULL-terminated; a filter the kernel
	 * refused (left in the file, not applied) has a third field, the
	 * kernel's message: "system:event\tEXPR\tMSG".
	 */
	char **filters;
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
 * What probes are resolved against: the kernel's symbols and BTF (loaded
 * on first use, then kept) and the tracefs tree of tfs, which must outlive
 * the resolver (NULL: user-space probes only). One resolver serves many
 * probes. Free with ktrace_resolver_free() (NULL is fine).
 */
struct ktrace_resolver;
struct ktrace_resolver *ktrace_resolver_alloc(struct ktrace_tfs *tfs);
void ktrace_resolver_free(struct ktrace_resolver *res);

/*
 * Resolve the location and the arguments by name (kallsyms, BTF, ELF,
 * DWARF) and build the definition. Reads files, writes nothing.
 */
int ktrace_probe_resolve(struct ktrace_probe *p, struct ktrace_resolver *res,
			 struct ktrace_err *err);
/* After resolve: the exact line written to tracefs (owned by p). */
const char *ktrace_probe_definition(const struct ktrace_probe *p);
/* After resolve: a note for the user (e.g. the function is notrace and
 * the kprobe will use a breakpoint), or NULL. Owned by p. */
const char *ktrace_probe_warning(const struct ktrace_probe *p);
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
 * Take back a ktrace_probe_create() of p: remove the probe and, when it
 * replaced one (--force), put that one back. 0 or -errno.
 */
int ktrace_probe_undo(struct ktrace_probe *p, struct ktrace_tfs *tfs);

/*
 * A probe set: probes parsed and resolved together (nothing written),
 * then created all or none, and taken back together. The set owns its
 * probes and one resolver; tfs must outlive it.
 *  - _add() parses and resolves one spec (errors point into it); returns
 *    the probe's index or -errno.
 *  - _create() first removes the groups of ktrace processes that are gone
 *    (ktrace_probe_cleanup_stale()), then creates every probe; on failure
 *    it takes back what it made, *failed (may be NULL) names the probe.
 *  - _undo() takes back what _create() made, in reverse order (a probe
 *    replaced with force comes back); _free() only frees memory.
 *  - _own_group() is "ktrace_<pid>" ("ktrace_<pid>_<random>" outside
 *    the initial PID namespace), the group of temporary probes that die
 *    with this process (inline probes of record and stat); its owner is
 *    recorded in the state dir before its first probe is made.
 */
struct ktrace_probes;

struct ktrace_probes *ktrace_probes_alloc(struct ktrace_tfs *tfs);
void ktrace_probes_free(struct ktrace_probes *ps);
int ktrace_probes_add(struct ktrace_probes *ps, const char *spec,
		      const struct ktrace_probe_opts *opts,
		      struct ktrace_err *err);
int ktrace_probes_count(const struct ktrace_probes *ps);
/* Probe i, owned by the set. */
struct ktrace_probe *ktrace_probes_get(const struct ktrace_probes *ps, int i);
int ktrace_probes_create(struct ktrace_probes *ps, bool force, int *failed,
			 struct ktrace_err *err);
int ktrace_probes_undo(struct ktrace_probes *ps);
const char *ktrace_probes_own_group(const struct ktrace_probes *ps);

/*
 * Remove the kprobe/uprobe group:event from the kernel. Returns -ENOENT
 * when there is no such probe, -EBUSY while it is enabled or recorded.
 */
int ktrace_probe_destroy(struct ktrace_tfs *tfs, const char *group,
			 const char *event);

/*
 * Remove the probes of ktrace's own groups whose owner is provably gone (a
 * ktrace killed with SIGKILL): its owner record says so (same PID
 * namespace, no process with its PID and start time; or, seen from the
 * initial namespace, no process left in its namespace). Groups without a
 * record are never touched. Returns how many were removed or -errno.
 */
int ktrace_probe_cleanup_stale(struct ktrace_tfs *tfs);

/*
 * Is group ktrace's own: "ktrace", an inline-probe group with an owner
 * record, or a group ktrace created probes in with -g (both remembered in
 * the state dir)?
 * Globs that do not name a group match ktrace's own groups only.
 */
bool ktrace_probe_group_is_ktrace(struct ktrace_tfs *tfs, const char *group);

/* Does this kernel support kprobe events (kprobe_events in tracefs)? */
bool ktrace_tfs_has_kprobes(struct ktrace_tfs *tfs);

/* --------------------------------------------------------------- recording */

/*
 * A recording: events opened with perf_event_open (one mmap'd ring per
 * CPU), records merged in time order across CPUs and handed to a callback,
 * decoded with libtraceevent. The same handle, loaded from a file, replays
 * a recording (ktrace_record_load()).
 */
struct ktrace_record;

enum ktrace_sample_type {
	KTRACE_SAMPLE_EVENT,	/* a traced event */
	KTRACE_SAMPLE_LOST,	/* the kernel dropped `lost` records */
};

struct ktrace_sample {
	enum ktrace_sample_type type;
	uint64_t time;		/* ns, CLOCK_MONOTONIC */
	int cpu;
	int pid, tid;
	int event;		/* index given by ktrace_record_add_event() */
	const void *raw;	/* the event's data as in its format file */
	uint32_t raw_size;
	uint64_t lost;		/* KTRACE_SAMPLE_LOST */
	const uint64_t *ips;	/* call chain (-g), nr_ips entries */
	uint32_t nr_ips;
	uint64_t ip;		/* sampling events: the sampled address */
	uint64_t period;	/* sampling events: events this sample stands for */
};

struct ktrace_record_opts {
	const int *pids;	/* trace these processes (and threads) */
	int nr_pids;
	const int *cpus;	/* restrict to these CPUs; NULL: all */
	int nr_cpus;
	bool inherit;		/* follow children */
	bool enable_on_exec;	/* start at the traced task's exec */
	bool callchain;		/* -g */
	/*
	 * With callchain: bytes of user stack copied per sample and unwound
	 * by DWARF CFI while recording (perf's --call-graph dwarf,SIZE; a
	 * multiple of 8, at most 65528); 0: frame pointers (fp). Either
	 * way the recording keeps the frames, not the stack copies.
	 */
	unsigned int dwarf_stack;
	/* Sampling events (cpu-clock, page-faults, cycles...): a sample
	 * every sample_period events, or sample_freq a second (perf's -c
	 * and -F); both 0: 4000 Hz, perf's default. Tracepoints and probes
	 * give every event. */
	uint64_t sample_period;
	unsigned int sample_freq;
	size_t ring_pages;	/* per CPU; 0: default */
};

/* A recording on tfs; add events, then open. Free with _free(). */
struct ktrace_record *ktrace_record_alloc(struct ktrace_tfs *tfs);
void ktrace_record_free(struct ktrace_record *r);
/*
 * While *stop is nonzero (the caller's signal flag, a sig_atomic_t), r
 * never waits for a binary a thread of its own is still reading (a debug
 * file of GBs, a slow disk): that binary's frames print unnamed, and the
 * thread finishes alone. NULL (the default): always wait.
 */
void ktrace_record_set_stop(struct ktrace_record *r, const volatile int *stop);

/*
 * Add "system:event" (exact name) with an optional filter (kernel filter
 * syntax, checked against the event's fields first), or a sampling event
 * by its perf name ("cpu-clock", "page-faults", "cycles"..., no filter).
 * Returns the event's index or -errno with err filled.
 */
int ktrace_record_add_event(struct ktrace_record *r, const char *event,
			    const char *filter, struct ktrace_err *err);
int ktrace_record_nr_events(const struct ktrace_record *r);
/* "system:event" of event i, owned by r (valid until ktrace_record_free());
 * NULL for a bad index. */
const char *ktrace_record_event_name(const struct ktrace_record *r, int i);

/*
 * Off-CPU time (perf's --off-cpu, BCC's offcputime): record
 * sched:sched_switch (added unless it is an event already; with the
 * stacks opts->callchain asks for) and pair each switch-out of a traced
 * task that waits (prev_state not running) with the next time it runs.
 * Each such period is handed out, when the task runs again, as one
 * sample of an event of its own, "offcpu-time" (the last event once
 * open): period = nanoseconds off the CPU, time = when it ran again,
 * ips = the stack it was switched out with; sched_switch's records are
 * handed out only when it was added as an event itself. -o files keep the
 * periods. Before ktrace_record_open(); 0 or -errno with err set.
 */
int ktrace_record_add_off_cpu(struct ktrace_record *r, struct ktrace_err *err);
/* The index of offcpu-time (live once open, or in a loaded file); -1:
 * none. */
int ktrace_record_off_cpu_event(const struct ktrace_record *r);

/*
 * Open every event (perf_event_open, the rings, filters). The events start
 * disabled unless opts->enable_on_exec; ktrace_record_enable() starts them.
 * Errors name the limit that was hit when the rings cannot be mapped.
 */
int ktrace_record_open(struct ktrace_record *r,
		       const struct ktrace_record_opts *opts,
		       struct ktrace_err *err);
int ktrace_record_enable(struct ktrace_record *r);
int ktrace_record_disable(struct ktrace_record *r);

typedef int (*ktrace_sample_fn)(void *ctx, const struct ktrace_sample *s);

/*
 * Wait up to timeout_ms for data, then hand every record that is safe to
 * order to fn, in time order. *done is set when every traced task is gone.
 * Returns the number of records handed out, or -errno, or fn's non-zero.
 */
long ktrace_record_poll(struct ktrace_record *r, int timeout_ms, bool *done,
			ktrace_sample_fn fn, void *ctx);
/* Read what is left and hand everything out in order. */
long ktrace_record_drain(struct ktrace_record *r, ktrace_sample_fn fn,
			 void *ctx);

/* One frame of a sample's stack, for profiles (report --sort, --folded). */
struct ktrace_frame {
	uint64_t ip;
	const char *sym;	/* function, no offset; "[unknown]" */
	const char *dso;	/* binary path, "[kernel.kallsyms]", "[vdso]",
				 * "[unknown]" */
	bool inlined;		/* inlined into the frame after it */
};

/*
 * The frames of s, innermost first, at most max into v: its call chain
 * (-g), inlined functions as frames of their own, or else a sampling
 * event's own address. Strings are owned by r (valid until
 * ktrace_record_free()). Returns how many (0: s has no address).
 */
int ktrace_record_frames(struct ktrace_record *r,
			 const struct ktrace_sample *s,
			 struct ktrace_frame *v, int max);

/*
 * Format s as one text line (like perf script, no newline) or, when json,
 * one JSON object with typed fields. Returns a pointer to an internal
 * buffer valid until the next call; *len receives its length. NULL with
 * errno ENOMEM when out of memory.
 */
const char *ktrace_record_format(struct ktrace_record *r,
				 const struct ktrace_sample *s, bool json,
				 size_t *len);
/*
 * The fields of s's event (not the common ones) as one JSON object, typed
 * as in ktrace_record_format()'s JSON ("{}" for a sampling event). Same
 * buffer and lifetime as ktrace_record_format()'s result.
 */
const char *ktrace_record_fields_json(struct ktrace_record *r,
				      const struct ktrace_sample *s,
				      size_t *len);
/* Field name of s's event: an integer (sign-extended as the format says)
 * or a fixed-size string copied into buf (NUL-terminated, truncated to
 * len). 0, or -ENOENT when the event has no such field of that kind. */
int ktrace_record_field_int(struct ktrace_record *r,
			    const struct ktrace_sample *s, const char *name,
			    long long *v);
int ktrace_record_field_str(struct ktrace_record *r,
			    const struct ktrace_sample *s, const char *name,
			    char *buf, size_t len);
/* The command name last seen for pid, copied into buf (truncated to len,
 * NUL-terminated). 0, or -EINVAL for len 0. */
int ktrace_record_comm(struct ktrace_record *r, int pid, char *buf,
		       size_t len);

/*
 * Write everything recorded from now on into fd (not closed here) as a
 * self-contained ktrace file: event formats, ids, comms, maps, kernel
 * symbols of the stacks, then the records in time order. Call before the
 * first poll; finish with ktrace_record_output_close() (bytes written).
 */
int ktrace_record_output(struct ktrace_record *r, int fd, const char *cmdline,
			 struct ktrace_err *err);
/* 0, or -errno of the first write that failed (-ENOSPC: disk full). */
int ktrace_record_output_close(struct ktrace_record *r, uint64_t *bytes);
/*
 * The same, while recording: after a failed write nothing more is
 * written (the file ends with its last complete section, readable), and
 * ktrace_record_poll() returns this error: stop there.
 */
int ktrace_record_output_error(const struct ktrace_record *r);

/* Load a file written by ktrace_record_output(); free with _free(). */
struct ktrace_record *ktrace_record_load(const char *path,
					 struct ktrace_err *err);
/* A META value of a loaded file ("kernel", "command", ...), or NULL. */
const char *ktrace_record_meta(struct ktrace_record *r, const char *key);
/* The loaded file was cut off (its writer killed before it finished):
 * replay gives the records up to its last complete section. */
bool ktrace_record_truncated(struct ktrace_record *r);

typedef int (*ktrace_raw_fn)(void *ctx, uint32_t type, uint16_t misc,
			     uint32_t size, uint64_t time, const void *rec);
/*
 * Replay a loaded file: every record in order through fn (as live) or, when
 * raw is set, every raw perf record (any type) through raw. Returns the
 * number of records, or -EBADMSG for a damaged file, or a callback's value.
 */
long ktrace_record_replay(struct ktrace_record *r, ktrace_sample_fn fn,
			  void *ctx, ktrace_raw_fn raw, void *raw_ctx);

struct ktrace_record_stats {
	uint64_t samples;	/* event records handed out */
	uint64_t lost;		/* records the kernel reported lost */
	uint64_t late;		/* handed out after a newer record (out of
				 * time order; the merge window was passed) */
	int nr_cpus;
	const uint64_t *lost_per_cpu;	/* by CPU number, nr_cpus entries */
	const uint64_t *per_event;	/* by event index */
	bool user_only;		/* a sampling event samples user space only
				 * (an unprivileged user, perf_event_paranoid
				 * 2: the kernel's side is refused) */
	uint64_t upto_ns;	/* every record up to this CLOCK_MONOTONIC
				 * time has been handed out: a rate of the
				 * records is over the time this moved */
};
void ktrace_record_stats(const struct ktrace_record *r,
			 struct ktrace_record_stats *st);

/* ---------------------------------------------------------------- counting */

/*
 * Counting mode (ktrace stat): no ring buffer, counters read with read(2).
 * Events are tracepoints ("system:event") or generic counter names
 * ("task-clock", "context-switches", "page-faults", "cpu-migrations",
 * "cycles", "instructions", "cache-misses", "branch-misses"...).
 */
struct ktrace_stat;

struct ktrace_stat *ktrace_stat_alloc(struct ktrace_tfs *tfs);
void ktrace_stat_free(struct ktrace_stat *st);
/* Returns the event's index or -errno (-ENOENT: unknown name). */
int ktrace_stat_add(struct ktrace_stat *st, const char *name,
		    struct ktrace_err *err);
/* What ktrace_stat_open() counts; all zero: every task on every CPU. */
struct ktrace_stat_opts {
	int pid;		/* this process, every thread; <= 0: none */
	const int *cpus;	/* without a pid: these CPUs; NULL: all */
	int nr_cpus;
	bool inherit;		/* count what pid creates, too */
	bool enable_on_exec;	/* start at pid's exec (a held command) */
};

/*
 * Open the counters of opts (NULL: all zero). A counter this machine
 * lacks (no PMU) does not fail the set: ktrace_stat_read() says
 * -EOPNOTSUPP for it.
 */
int ktrace_stat_open(struct ktrace_stat *st,
		     const struct ktrace_stat_opts *opts,
		     struct ktrace_err *err);
int ktrace_stat_enable(struct ktrace_stat *st);
int ktrace_stat_disable(struct ktrace_stat *st);
int ktrace_stat_count(const struct ktrace_stat *st);
const char *ktrace_stat_name(const struct ktrace_stat *st, int i);
/* Does counter i count user space only? An unprivileged user's counters
 * on its own processes, when perf_event_paranoid (2) keeps the kernel's
 * side from it, as perf stat then counts ("task-clock:u"). */
bool ktrace_stat_user_only(const struct ktrace_stat *st, int i);
/* value: the count scaled for multiplexing; 0 or -errno. */
int ktrace_stat_read(struct ktrace_stat *st, int i, uint64_t *value,
		     uint64_t *enabled_ns, uint64_t *running_ns);
/* The counter names ktrace_stat_add() knows, NULL-terminated. */
const char *const *ktrace_stat_counter_names(void);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* KTRACE_H */
