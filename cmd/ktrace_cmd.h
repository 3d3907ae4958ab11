/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the ktrace subcommands (cmd/). */
#ifndef KTRACE_CMD_H
#define KTRACE_CMD_H

#include <getopt.h>
#include <signal.h>
#include <sys/types.h>
#include <termios.h>
#include <time.h>
#include <stdbool.h>
#include <stdio.h>

#include "ktrace.h"
/* ktrace links libktrace statically: besides its public API it uses the
 * library's internal helpers (name and glob checks, the JSON writer). */
#include "base/internal.h"
#include "tracefs/tfs.h"
#include "base/json.h"

enum {
	KT_OK = 0,
	KT_FAIL = 1,	/* the operation failed */
	KT_USAGE = 2,	/* the command line was wrong */
};

struct kt_ctx {
	FILE *out;		/* results */
	FILE *err;		/* diagnostics */
	bool json;		/* --json: machine-readable output and errors */
	const char *tracefs;	/* --tracefs DIR, or NULL */
	struct ktrace_tfs *tfs;	/* opened on first use by kt_tfs() */
	const char *cmd;	/* the running subcommand's name */
	struct kt_json *jw;	/* --json writer, see kt_json() */
};

struct cmd {
	const char *name;
	int (*fn)(struct kt_ctx *ctx, int argc, char **argv);
	const char *summary;
};

/* Dispatch argv[0] among cmds; prints usage for unknown commands. */
int kt_dispatch(struct kt_ctx *ctx, const struct cmd *cmds, const char *what,
		int argc, char **argv);

/*
 * The error funnel: prints "ktrace: MSG" (or {"error": "MSG"} under --json)
 * on ctx->err and returns status, so callers can `return kt_error(...)`.
 */
int kt_error(struct kt_ctx *ctx, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Same for a struct ktrace_err: the message, the kernel's text, and a
 * caret under the offending character of the user's input. */
int kt_error_detail(struct kt_ctx *ctx, int status,
		    const struct ktrace_err *err);
/* "unknown option" / "missing argument" style usage error: exit 2. */
int kt_usage_error(struct kt_ctx *ctx, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* getopt's '?' (or ':', for optstrings that start "+:"): "bad option
 * 'ARG'" or "missing argument for 'ARG'", a usage error. */
int kt_bad_option(struct kt_ctx *ctx, const char *usage, int opt,
		  const char *arg);

/* " (run as root)" after a message whose cause is err when the cause is
 * a missing privilege (EACCES, EPERM), else "". */
const char *kt_priv_hint(int err);
/* Every argv[i] a well-formed SYSTEM[:EVENT] glob? Else a usage error. */
int kt_globs_check(struct kt_ctx *ctx, int argc, char **argv);

/* -B NAME checks: a usage error (exit 2) for a bad name. NULL is fine. */
int kt_instance_name_check(struct kt_ctx *ctx, const char *name);
/* Open (or create) an instance; NULL: error already printed (exit 1). */
struct ktrace_inst *kt_instance_open(struct kt_ctx *ctx, const char *name,
				     bool create);

/* The tracefs handle (opened on first call). NULL: error already printed. */
struct ktrace_tfs *kt_tfs(struct kt_ctx *ctx);

/* The --json writer on ctx->out (made on first use; NULL: no memory).
 * Every JSON a command prints goes through it; ktrace_main() closes
 * whatever is left open. */
struct kt_json *kt_json(struct kt_ctx *ctx);

/* "key": value members of the open object, for short call sites. */
static inline void kt_jstr(struct kt_json *j, const char *k,
			   const char *v)
{
	kt_json_key(j, k);
	kt_json_string(j, v);
}

static inline void kt_jint(struct kt_json *j, const char *k, long long v)
{
	kt_json_key(j, k);
	kt_json_int(j, v);
}

static inline void kt_juint(struct kt_json *j, const char *k,
			    unsigned long long v)
{
	kt_json_key(j, k);
	kt_json_uint(j, v);
}

static inline void kt_jbool(struct kt_json *j, const char *k, bool v)
{
	kt_json_key(j, k);
	kt_json_bool(j, v);
}

/* Subcommands. */
int cmd_list(struct kt_ctx *ctx, int argc, char **argv);
int cmd_enable(struct kt_ctx *ctx, int argc, char **argv);
int cmd_disable(struct kt_ctx *ctx, int argc, char **argv);
int cmd_filter(struct kt_ctx *ctx, int argc, char **argv);
int cmd_show(struct kt_ctx *ctx, int argc, char **argv);
int cmd_reset(struct kt_ctx *ctx, int argc, char **argv);
int cmd_probe(struct kt_ctx *ctx, int argc, char **argv);
int cmd_record(struct kt_ctx *ctx, int argc, char **argv);
int cmd_trace(struct kt_ctx *ctx, int argc, char **argv);
int cmd_report(struct kt_ctx *ctx, int argc, char **argv);
/* report --header (cmd/rheader.c): what the recording rec (read from
 * input) is, like perf report --header-only; an exit status. */
int kt_report_header(struct kt_ctx *ctx, struct ktrace_record *rec,
		     const char *input);
int cmd_annotate(struct kt_ctx *ctx, int argc, char **argv);
int cmd_stat(struct kt_ctx *ctx, int argc, char **argv);
int cmd_top(struct kt_ctx *ctx, int argc, char **argv);
int cmd_hist(struct kt_ctx *ctx, int argc, char **argv);
int cmd_latency(struct kt_ctx *ctx, int argc, char **argv);
int cmd_export(struct kt_ctx *ctx, int argc, char **argv);
int cmd_ftrace(struct kt_ctx *ctx, int argc, char **argv);
/* A system call's argument as strace names it (AT_FDCWD, O_ flags, an
 * octal mode...) into buf: true, or false when it stays a number. */
bool kt_scarg_text(const char *sc, const char *key, long long v, char *buf,
		   size_t len);
/* An argument the call does not read given its flags (open's mode
 * without O_CREAT): left out, as strace does. */
bool kt_scarg_skip(const char *sc, const char *key, long long flags);
/* report of a file ftrace -o wrote (META "tracer"): shown as ftrace
 * showed it live. The exit status. */
struct ktrace_record;
int kt_ftrace_report(struct kt_ctx *ctx, struct ktrace_record *rec,
		     const char *input);

/* SIGINT/SIGTERM/SIGHUP set kt_stop_signal while installed; SIGPIPE is
 * ignored (writes fail with EPIPE instead). Install before creating
 * anything that must be removed; restore after removing it. */
struct kt_signals {
	struct sigaction old_int, old_term, old_hup, old_pipe;
	bool installed;
};
extern volatile sig_atomic_t kt_stop_signal;
/*
 * main() holds INT, TERM and HUP (blocked) from its start, so that one
 * sent while ktrace sets up a run is not lost or fatal: dispatch releases
 * them for a command that does not stop itself, kt_signals_install()
 * once its handlers are in place (a held signal then stops the run).
 */
void kt_signals_hold(void);
void kt_signals_release(void);
void kt_signals_install(struct kt_signals *s);
void kt_signals_restore(struct kt_signals *s);

/*
 * ktrace top's full screen (cmd/term.c), drawn with ANSI escapes: started
 * on a terminal (stdin and stdout; TERM not "dumb") in the alternate
 * screen, keys unechoed one at a time (Ctrl-C still signals); each frame
 * is kt_term_begin() (the size read again), rows by kt_term_line() and
 * kt_term_clear() (row y and all below), written at once by
 * kt_term_flush(). kt_term_stop() restores the terminal and frees the
 * frame; it is a no-op on a zeroed or stopped kt_term.
 */
struct kt_term {
	struct termios saved;		/* the terminal as it was */
	struct termios raw;		/* and as the screen sets it */
	struct sigaction old_winch, old_tstp;
	struct kt_buf buf;		/* the frame */
	int rows, cols;
	bool active, nomem;
};
/* KT_OK, or an error printed (no terminal: a usage error, use --stdio) */
int kt_term_start(struct kt_ctx *ctx, struct kt_term *t);
void kt_term_stop(struct kt_term *t);
void kt_term_begin(struct kt_term *t);
void kt_term_line(struct kt_term *t, int y, const char *s);
void kt_term_clear(struct kt_term *t, int y);
void kt_term_flush(struct kt_term *t);
/* A key pressed, KT_KEY_RESIZE when the window changed size since the
 * last call, KT_KEY_NONE (never waits) */
enum { KT_KEY_NONE = -1, KT_KEY_RESIZE = -2 };
int kt_term_key(void);

/* The `-- CMD` of record and stat: forked, held until started. */
struct kt_workload {
	pid_t pid;		/* -1: none */
	int go;			/* write end of the start pipe */
	int status;
	bool reaped;
};
int kt_workload_fork(struct kt_ctx *ctx, struct kt_workload *w, char **argv);
int kt_workload_start(struct kt_workload *w);
/* Has it exited (reaped without blocking)? */
bool kt_workload_exited(struct kt_workload *w);
/* Wait for it (SIGTERM first when stop); its exit status as a shell
 * gives it (128 + signal), or -1 when there was no workload. */
int kt_workload_finish(struct kt_workload *w, bool stop);

/* Inline probes of record and stat (cmd/inline.c). */
struct kt_inline {
	struct ktrace_probes *ps;	/* in the set's own group */
	int *idx;			/* by -e index: probe in ps, or -1 */
	int *loc_at, *args_at;		/* where the made-up spec has them */
	int n, nr_probes;
};
bool kt_inline_is(const char *spec);
/* Resolve then create the inline ones of specs; errors printed. */
int kt_inline_create(struct kt_ctx *ctx, struct kt_inline *in,
		     char *const *specs, int n);
/* "group:event" of spec i into buf, or NULL when it is not inline. */
const char *kt_inline_event(const struct kt_inline *in, int i, char *buf,
			    size_t len);
void kt_inline_report_misses(struct kt_ctx *ctx, const struct kt_inline *in);
/* Remove what was created and free; call after closing the perf fds. */
void kt_inline_destroy(struct kt_ctx *ctx, struct kt_inline *in);
/*
 * --strings: every -e glob of co expanded, and each system call entry
 * (syscalls:sys_enter_*) with char pointer arguments made an inline
 * event probe of all its arguments, the char pointers read as user
 * strings; filters follow their -e. KT_OK or KT_FAIL (said).
 */
struct kt_capture_opts;
int kt_inline_strings(struct kt_ctx *ctx, struct kt_capture_opts *co);

/* Shared by the capturing commands (cmd/capture.c). */
/* The target of a capture: a command, processes, or CPUs. */
struct kt_target {
	int *pids, npids;	/* -p; the command's pid; threads once prepared */
	int *cpus, ncpus;	/* -C */
	int max_pids;		/* > 0: at most this many -p pids */
	bool all;		/* -a */
	int argc;		/* -- CMD ARGS */
	char **argv;
	struct kt_workload wl;
};
#define KT_TARGET_INIT { .wl = { .pid = -1, .go = -1 } }
/* After the options: at most one of a command, -p, -a. Keeps argv (the command). KT_OK or a usage error. */
int kt_target_check(struct kt_ctx *ctx, struct kt_target *t, int argc,
		    char **argv);
/* Before the events open: fork the command, which waits until
 * kt_target_start(), or (threads) expand each -p pid to its threads.
 * Errors printed. */
int kt_target_prepare(struct kt_ctx *ctx, struct kt_target *t, bool threads);
int kt_target_start(struct kt_ctx *ctx, struct kt_target *t);
/* Several -p tasks (no command), all of them gone: a pidfd watches one
 * and needs a thread group leader before Linux 6.9; -p's are threads. */
bool kt_target_pids_gone(const struct kt_target *t);
/* "'cmd arg...'" (the command line, cut with "..." past len), "process
 * id 'N'" or "'system wide'" into buf (len: 8 or more). */
const char *kt_target_describe(const struct kt_target *t, char *buf,
			       size_t len);
/* Wait for the command (SIGTERM first when stop) and free t; the exit
 * status as a shell gives it, or -1 without a command. */
int kt_target_finish(struct kt_target *t, bool stop);
/* ktrace's exit status: ret when it failed; with a command stopped by a
 * signal to ktrace, 128 + that signal; else the command's status unless
 * stopped (-d, --max-events ended it on purpose); else ret. */
int kt_target_status(const struct kt_target *t, int ret, int status,
		     bool stopped);
/* -o FILE ('-': standard output) of a capture: the fd (the caller's), or
 * -1 with the error said; cmdline[len]: the command the file names. */
int kt_output_open(struct kt_ctx *ctx, const struct kt_target *tg,
		   const char *path, char *cmdline, size_t len);
/*
 * -m SIZE: a page count ("256", a power of two) or a size with K, M or G
 * ("4M", "512KiB"), rounded up to a power of two pages. 0, or -EINVAL /
 * -ERANGE (above 1 GiB).
 */
int kt_ring_pages_parse(const char *s, size_t *pages);
/*
 * The options record, stat and top share, parsed in one place: -e EVENT
 * (stat: comma lists; each an inline probe or a name or glob
 * kt_events_expand() takes), --filter EXPR (record: for the -e before it),
 * the target's -p PIDS, -a, -C CPUS, -d SECS, and the sampling rate of
 * record and top: -F HZ (1 to kernel.perf_event_max_sample_rate) or
 * -c PERIOD (1 to 2^63-1), the last one given.
 */
struct kt_capture_opts {
	struct kt_target tg;
	char **specs;		/* -e, in order (copies) */
	const char **filters;	/* each -e's --filter (argv's), or NULL */
	int nspecs;
	double duration;	/* -d; 0: none */
	uint64_t sample_period;	/* -c; 0: none */
	unsigned int sample_freq;	/* -F; 0: none */
	bool lists;		/* set by the caller: -e takes 'a,b,c' */
};
#define KT_CAPTURE_OPTS_INIT { .tg = KT_TARGET_INIT }
/* One of the shared options into co: KT_OK, a usage error (exit 2) or
 * KT_FAIL (no memory), or -1 when opt is not one of them. */
int kt_capture_opt(struct kt_ctx *ctx, struct kt_capture_opts *co, int opt,
		   const char *arg);
/* The -e list; co->tg goes with kt_target_finish(). */
void kt_capture_opts_free(struct kt_capture_opts *co);
/* Seconds since t0 (CLOCK_MONOTONIC). */
struct timespec;
double kt_elapsed(const struct timespec *t0);
/*
 * The capture loop of record, stat and top. Each round, round(arg, &gone)
 * waits for and does the command's own work (records, an interval, keys)
 * and sets gone when the source tells every traced process has ended; it
 * returns 0 to go on, 1 to stop for the command's own reason, -1 when it
 * failed (and said why). The loop ends on the first of: a stop signal, the
 * round's stop or failure, the command's exit (kt_target's workload), the
 * end of the -p processes, and duration seconds (> 0) since t0.
 */
/* A duration of option opt: a decimal number with an optional unit (ns,
 * us, ms, s; unit when none) into *ns; a usage error otherwise. */
int kt_duration_parse(struct kt_ctx *ctx, const char *opt, const char *s,
		      const char *unit, uint64_t *ns);

enum kt_loop_end {
	KT_LOOP_SIGNAL,
	KT_LOOP_COMMAND,	/* round returned 1 */
	KT_LOOP_FAILED,		/* round returned -1 */
	KT_LOOP_EXITED,		/* the command ran to its end */
	KT_LOOP_GONE,		/* the -p processes ended */
	KT_LOOP_DURATION,
};
enum kt_loop_end kt_loop_run(struct kt_target *t, const struct timespec *t0,
			     double duration,
			     int (*round)(void *arg, bool *gone), void *arg);
/*
 * The events of the -e options, in order: the inline probes among specs
 * are created (in inl: kt_inline_destroy() after the perf fds close),
 * then add(arg, i, name) runs for each event spec i names: the inline
 * probe's event, a name without ':' as is (a counter), every event a
 * SYSTEM:EVENT glob matches (specs as kt_capture_opt() checked them).
 * Stops at add's first non-zero status. Errors printed; KT_OK or the
 * status (no match: KT_FAIL).
 */
int kt_events_expand(struct kt_ctx *ctx, struct kt_inline *inl,
		     char *const *specs, int n,
		     int (*add)(void *arg, int i, const char *event),
		     void *arg);

/* Profiles: counts by a text key (cmd/profile.c). */
struct kt_prow {
	char *key;		/* e.g. fields joined by '\t', or a folded stack */
	unsigned long long samples, period;
};
struct kt_profile {
	struct kt_prow *v;	/* open addressing, cap a power of 2 */
	size_t cap, n;
	size_t sorted;		/* after kt_profile_sort(): rows in v[0..] */
	unsigned long long samples, period;
};
/* Count a sample of period under key (taken over: freed when not kept).
 * 0 or -ENOMEM. Not after kt_profile_sort(). */
int kt_profile_add(struct kt_profile *p, char *key, uint64_t period);
/* The rows to v[0..n) sorted by cmp; returns n. The table is then only
 * a list: kt_profile_free() it. */
size_t kt_profile_sort(struct kt_profile *p,
		       int (*cmp)(const void *, const void *));
int kt_prow_by_period(const void *a, const void *b);	/* largest first */
int kt_prow_by_key(const void *a, const void *b);
/* Multiply every count by num/den, dropping rows left with less than a
 * sample (top's decay, as perf top). */
void kt_profile_decay(struct kt_profile *p, unsigned int num,
		      unsigned int den);
void kt_profile_free(struct kt_profile *p);	/* empty again */
/* kt_profile_add() of a copy of key (made only when the row is new). */
int kt_profile_addc(struct kt_profile *p, const char *key, uint64_t period);
/* key's row, or NULL (also after kt_profile_sort()). */
const struct kt_prow *kt_profile_find(const struct kt_profile *p,
				      const char *key);

/* report's profile keys (--sort, --children, --diff; cmd/profile.c). */
enum kt_sort_key { KT_SK_COMM, KT_SK_DSO, KT_SK_SYM, KT_SK_EVENT, KT_SK_NR };
extern const char *const kt_sort_names[KT_SK_NR];	/* "comm"... */
extern const char *const kt_sort_titles[KT_SK_NR];	/* "Command"... */
/* "comm,dso,sym" into keys[KT_SK_NR]: how many, or -EINVAL. */
int kt_sort_parse(const char *arg, enum kt_sort_key *keys);
#define KT_MAX_FRAMES 256
/* ktrace_record_frames(), without the inlined functions unless inl: their
 * samples are then the containing function's, as perf reports them. */
int kt_sample_frames(struct ktrace_record *rec, const struct ktrace_sample *s,
		     struct ktrace_frame *fr, int max, bool inl);
/* The keys' values joined by '\t' onto f; fr: the frame they name (NULL:
 * "[none]"), event: the event's name. */
void kt_sort_key(FILE *f, const enum kt_sort_key *keys, int nkeys,
		 const char *comm, const struct ktrace_frame *fr,
		 const char *event);
/* A row's key (kt_sort_key()'s text) as its keys' JSON members into j,
 * or else as "  VALUE" columns onto out. */
void kt_sort_key_put(FILE *out, struct kt_json *j,
		     const enum kt_sort_key *keys, int nkeys,
		     const char *key);
/* The folded stack "comm;outer;...;inner" of fr[0..n) (innermost first)
 * onto f. */
void kt_folded_key(FILE *f, const char *comm, const struct ktrace_frame *fr,
		   int n);

/*
 * report --pprof (cmd/pprof.c): replay rec into a gzip-compressed pprof
 * profile at path ('-': standard output), written only when whole; input
 * names the recording in its comments. Returns the replay's count or
 * -errno; *error: 0, -ENODATA (no record had an address to profile),
 * -ENOMEM or the write's -errno; *no_stack: records left out (no address).
 */
long kt_pprof_write(struct ktrace_record *rec, const char *path,
		    const char *input, int *error,
		    unsigned long long *no_stack);

/* Flame graphs of folded stacks (cmd/flamegraph.c). */
/*
 * report --perfetto (cmd/perfetto.c): replay rec into f as a Trace Event
 * Format JSON file. Returns what ktrace_record_replay() returned; *error
 * gets 0, -ENOMEM or -EIO (the stream failed); *missed the number of
 * context switches the kernel did not deliver (their slices say so).
 */
long kt_perfetto_write(struct kt_ctx *ctx, struct ktrace_record *rec,
		       FILE *f, int *error, unsigned long *missed);

struct kt_flame;
struct kt_flame *kt_flame_alloc(void);		/* NULL: no memory */
void kt_flame_free(struct kt_flame *fg);	/* takes NULL */
/* Add count samples of "comm;outer;...;inner". 0 or -ENOMEM. */
int kt_flame_add(struct kt_flame *fg, const char *folded,
		 unsigned long long count);
/* The same for a differential graph: old samples in the old recording,
 * count in the new one (drawn); colours then show the change. */
int kt_flame_add_diff(struct kt_flame *fg, const char *folded,
		      unsigned long long old, unsigned long long count);
/* The SVG (self-contained, interactive) onto f. 0 or -EIO. */
int kt_flame_write(const struct kt_flame *fg, FILE *f, const char *title);

/*
 * Where the probe sets are, found at run time (nothing is frozen at build
 * time): $KTRACE_PROBES_DIR, else BINDIR/../share/ktrace/probes next to the
 * running binary (installed), else the source tree's probes/ next to it.
 * NULL when none exists. Owned by cmd/ktrace.c.
 */
const char *kt_probes_dir(void);

/*
 * Hist tables shown (cmd/histview.c): _text() the kernel's table, or for
 * a .log2/.buckets key (_hist_key(): its index, or -1) one histogram per
 * value of the other keys, with bars as bpftrace draws them, and the
 * totals; _json() the members "keys", "entries", "totals" of the open
 * object (key_is_str: keys that are string fields, or NULL).
 * _log2_range(): the values the kernel's log2 bucket N holds (inclusive);
 * _bucket_label(): "(64, 128]", "[100, 200)".
 */
#include "tracefs/hist.h"
int kt_histview_hist_key(const struct kt_hist_table *t);
void kt_histview_text(FILE *f, const struct kt_hist_table *t);
void kt_histview_json(struct kt_json *j, const struct kt_hist_table *t,
		      const bool *key_is_str);
void kt_histview_log2_range(uint64_t n, uint64_t *lo, uint64_t *hi);
void kt_histview_bucket_label(const struct kt_hist_keydef *d, uint64_t num,
			      char *buf, size_t len);

/*
 * A hist table as Prometheus metrics (cmd/promhist.c, ktrace export):
 * metric is the family name ("ktrace_read_sizes"), help its text; a
 * table without a .log2/.buckets key gives one counter family per value
 * (METRIC_hits_total for hitcount, METRIC_FIELD_total), its keys as
 * labels (total_only: none); with one, a histogram METRIC per value of
 * the other keys, cumulative le buckets, _sum from the value named sum
 * (NULL or absent: no _sum, as the kernel holds none) and _count.
 * 0 or -ENOMEM.
 */
struct kt_promhist {
	const char *metric, *help, *sum;
	bool total_only;
};
int kt_promhist_write(FILE *f, const struct kt_promhist *p,
		      const struct kt_hist_table *t);

/*
 * The runs whose counting the kernel does (cmd/histrun.c: hist, latency).
 * The caller fills ctx, tg (prepared), duration, interval, inst (from
 * kt_own_inst_create()), what (the target described), the table to show
 * (sys, ev, trigger) and print(arg, table, at), which shows one read (with
 * -I the change since the last, at seconds from the start); pidfd = -1.
 * _limit(): the instance's set_event_pid for the command (and its
 * children) or the -p threads. _loop(): start the command, wait for the
 * end (the command, the processes, -d, a signal) printing each -I
 * interval, then show the table. _show(): read and show it now; dropped
 * entries said on stderr. _destroy(): the instance removed (the kernel
 * drops its triggers with it), the reads freed. Errors printed; KT_OK or
 * the status.
 */
struct kt_hrun {
	struct kt_ctx *ctx;
	struct kt_target *tg;
	double duration;
	long interval;
	struct ktrace_inst *inst;
	const char *what;
	const char *sys, *ev, *trigger;
	int (*print)(void *arg, const struct kt_hist_table *t, double at);
	/* NULL, or called every tenth of a second (final: after the end) */
	int (*tick)(void *arg, bool final);
	void *arg;
	/* the run's own */
	int pidfd;
	bool gone;		/* the process ended before pidfd_open() */
	struct timespec t0;
	double last;
	struct kt_hist_file *prev;
	uint64_t dropped_said;
};
int kt_hrun_limit(struct kt_hrun *hr);
int kt_hrun_loop(struct kt_hrun *hr, bool *stopped);
int kt_hrun_show(struct kt_hrun *hr, double at);
int kt_hrun_destroy(struct kt_hrun *hr);
/*
 * Records of an event perf cannot open (a synthetic event), read from
 * ktrace's own instance as they come and printed as record prints its
 * lines (text or JSON): kt_rawrec_start() sets the instance's clock to
 * CLOCK_MONOTONIC, the event's filter (when given) and, with stacks, a
 * stacktrace trigger under the same filter, and enables it;
 * kt_rawrec_read() prints what the buffers hold (final: also the records
 * still waiting for their stack); kt_rawrec_stop() disables it, takes the
 * trigger back and says what the buffers lost. The options are the
 * caller's; kt_rawrec_free() frees the rest.
 */
struct kt_rawrec_cpu;
struct kt_rawrec {
	bool on;		/* options */
	uint64_t threshold;	/* ns */
	bool stacks;
	/* NULL, or whether to print a record (of the event, not a stack) */
	bool (*keep)(void *arg, const struct kt_raw_rec *r);
	void *keep_arg;
	struct kt_ctx *ctx;	/* the run's own */
	struct ktrace_inst *inst;
	const char *sys, *ev;
	struct ktrace_record *fmt;
	struct kt_raw *raw;
	char *filter, *trigger;
	bool trigger_on, enabled, failed;
	int id, ncpus, round;
	struct kt_rawrec_cpu *cpu;
	unsigned long long printed;
};
int kt_rawrec_start(struct kt_rawrec *rr, struct kt_ctx *ctx,
		    struct ktrace_inst *inst, const char *sys, const char *ev,
		    const char *filter);
int kt_rawrec_read(struct kt_rawrec *rr, bool final);
int kt_rawrec_stop(struct kt_rawrec *rr);
void kt_rawrec_free(struct kt_rawrec *rr);

/*
 * A hist recipe as ktrace hist -r NAME reads it (cmd/hist.c), for ktrace
 * export: its event (an inline probe made in inl), the trigger text; a
 * histogram key's field is added to the values (sum: its name), so that
 * the table holds each bucket's sum. Errors printed; KT_OK or the
 * status. _free() takes a zeroed or loaded one.
 */
struct kt_hist_recipe {
	char *event;		/* "system:event" */
	char *trigger;
	char *sum;		/* NULL: no histogram key */
	bool total_only;	/* no key: the trigger keys common_type */
};
int kt_hist_recipe_load(struct kt_ctx *ctx, const char *name,
			struct kt_inline *inl, struct kt_hist_recipe *out);
void kt_hist_recipe_free(struct kt_hist_recipe *r);
/*
 * A ktrace latency question run inside ktrace export (cmd/latency.c):
 * _start() parses argv (argv[0] a name, then latency's options: the
 * question or --from/--to, --match, filters, -k, --buckets, --size, -p)
 * and sets up its synthetic event and triggers in ktrace's own instance
 * (_inst(): the other triggers of the run may join it), the synthetic
 * event's table also summing lat (the histogram's exact _sum); *out is
 * set even on a failure (_stop() it). _read() reads that table (*f to
 * free, *t in it). _describe(): the events, for HELP. _stop() removes
 * what _start() made, frees l (NULL is fine). Errors printed; KT_OK or
 * the status; _read(): 0 or -errno.
 */
struct kt_lat;
int kt_lat_export_start(struct kt_ctx *ctx, int argc, char **argv,
			struct kt_lat **out);
int kt_lat_export_read(struct kt_lat *l, struct kt_hist_file **f,
		       struct kt_hist_table **t);
struct ktrace_inst *kt_lat_export_inst(struct kt_lat *l);
void kt_lat_export_describe(struct kt_lat *l, char *buf, size_t len);
int kt_lat_export_stop(struct kt_lat *l);
/* --size N of a hist table: 128 to 131072 entries (cmd/hist.c) */
int kt_hist_size_parse(struct kt_ctx *ctx, const char *arg,
		       unsigned int *out);
/* -I MS (10 to 3600000) */
int kt_interval_parse(struct kt_ctx *ctx, const char *arg, long *out);
/* A list given in pieces ("-k a,b -k c"): each comma-separated item of
 * arg appended (at most 16, each 1 to 128 bytes). */
struct kt_strv {
	char **v;
	int n;
};
int kt_strv_add_list(struct kt_ctx *ctx, struct kt_strv *s, const char *what,
		     const char *arg);
void kt_strv_free(struct kt_strv *s);
/* lead, then the items with sep between ("" for none): malloc'ed, or NULL */
char *kt_strv_join(const struct kt_strv *s, const char *lead,
		   const char *sep);

/*
 * Recipes (cmd/recipe.c): NAME.KIND files in kt_probes_dir() (or a path)
 * that hold a command's options, one per line as "LONG-OPTION [VALUE]"
 * ("key call_site.sym"), after "# NAME: what it answers" and comments.
 * _apply() reads one and calls apply(arg, opt, value) for each line, opt
 * being the option's code in opts; the text stays in *keep (a list;
 * kt_recipe_free() it after the options are no longer used). Errors
 * printed; KT_OK or the status. _list() prints the recipes of KIND.
 */
struct kt_recipe;
int kt_recipe_apply(struct kt_ctx *ctx, const char *name,
		    const struct option *opts,
		    int (*apply)(void *arg, int opt, const char *val),
		    void *arg, struct kt_recipe **keep);
void kt_recipe_free(struct kt_recipe *r);
int kt_recipe_list(struct kt_ctx *ctx, const char *kind);
/* The "# NAME: what it answers" text of a recipe into buf ("": none). */
void kt_recipe_summary(const char *name, const char *kind, char *buf,
		       size_t len);

/*
 * The HTTP server of ktrace export (cmd/httpd.c, libmicrohttpd; in the
 * static ktrace cmd/static/httpd_none.c, which fails with -ENOTSUP).
 * _start() listens on addr (numeric IPv4 or IPv6) and port (0: any) and
 * answers each GET with fn(arg, path, &body, &len, &ctype) from its own
 * thread, one request at a time: fn returns 200 with a malloc'ed body
 * (taken over; ctype static), 404, or another status for a failure.
 * Other methods get 405. NULL with *err = -errno.
 */
#define KT_HTTPD_MAX_CONNS 1024
#define KT_HTTPD_TIMEOUT 10		/* seconds a connection may idle */
#define KT_HTTPD_CONN_MEM (16 * 1024)	/* bytes of a request's headers */
typedef int (*kt_httpd_fn)(void *arg, const char *path, char **body,
			   size_t *len, const char **ctype);
/*
 * --web-config FILE (cmd/webconfig.c, the exporter-toolkit's format):
 * TLS (cert and key PEM text, both or neither) and basic auth users with
 * bcrypt hashes. _load() fills w (err: what was wrong) and returns 0 or
 * -errno; _auth() checks a user and password (crypt(3)), keeping the last
 * accepted pair (ok) so that each scrape does not pay a bcrypt.
 */
struct kt_webcfg {
	char *cert, *key;
	struct { char *name, *hash; } *users;
	int nusers;
	char *ok;
};
int kt_webcfg_load(const char *path, struct kt_webcfg *w, char *err,
		   size_t len);
void kt_webcfg_free(struct kt_webcfg *w);
bool kt_webcfg_auth(struct kt_webcfg *w, const char *user, const char *pass);
struct kt_httpd;
/* web: TLS and basic auth as configured (NULL: neither) */
struct kt_httpd *kt_httpd_start(const char *addr, unsigned int port,
				struct kt_webcfg *web, kt_httpd_fn fn,
				void *arg, int *err);
unsigned int kt_httpd_port(const struct kt_httpd *h);
void kt_httpd_stop(struct kt_httpd *h);

/* Entry point shared by main() and the in-process tests. */
int ktrace_main(struct kt_ctx *ctx, int argc, char **argv);

#endif
