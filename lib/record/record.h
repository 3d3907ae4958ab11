/* SPDX-License-Identifier: LGPL-2.1-only */
/* Internals of struct ktrace_record, shared by record*.c and report. */
#ifndef KTRACE_RECORD_H
#define KTRACE_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <trace-seq.h>

#include "ktrace.h"
#include "capture/merge.h"
#include "sym/symtab.h"

struct tep_event;
struct kt_perf;
struct kt_kfw;
struct kt_kfile;
struct kt_kf_comm;

/*
 * A source of records, as the decoder sees it. live_source: the running
 * system (comms from /proc, kernel symbols from kallsyms); file_source: a
 * ktrace file (comms and symbols from its own tables).
 */
struct kt_record_source {
	/* The comm of a task no COMM record named, into buf; 0 or -ENOENT. */
	int (*comm)(struct ktrace_record *r, int pid, char *buf, size_t len);
	/* Make sure r->ksyms holds what the stacks need. */
	void (*ksyms)(struct ktrace_record *r);
};
extern const struct kt_record_source kt_record_live_source;
extern const struct kt_record_source kt_record_file_source;

/* The comm of pid: a pointer into the comm table, valid until the next
 * comm is learnt (the table may grow). Never NULL. */
const char *kt_record_comm(struct ktrace_record *r, int pid);

/* fields a print fmt may divide by (fmtcheck.c) */
#define KT_FMT_MAX_DIV 4

struct rec_event {
	/* tracepoints and probes: PERF_TYPE_TRACEPOINT, config = id, te set;
	 * sampling events: their perf type and config, no te */
	uint32_t type;
	uint64_t config;
	char *system, *name;
	char *fullname;		/* "system:event" */
	int id;
	struct tep_event *te;
	char *filter;
	char *format;		/* the format file's text (for -o) */
	char label[160];	/* "system:event: " */
	size_t label_len;
	bool has_info;		/* its print fmt prints something */
	bool sym_fields;	/* it prints kernel addresses as symbols */
	/* fields its print fmt divides by: a record where one is 0 is not
	 * decoded (libtraceevent would divide by zero) */
	struct tep_format_field *div[KT_FMT_MAX_DIV];
	int ndiv;
	/* the bytes its fixed fields need; with __data_loc fields, each
	 * record's is checked (kt_raw_fits) */
	uint32_t raw_min;
	bool raw_dyn;
};

struct rec_id {
	uint64_t id;
	int event;
};

struct comm_ent {
	int pid;
	bool used;
	char comm[16];
};


/* Every record in order; s: the sample already parsed from a SAMPLE
 * record, else NULL. */
typedef void (*kt_record_sink_fn)(void *ctx,
				  const struct perf_event_header *rec,
				  const struct ktrace_sample *s);

struct ktrace_record {
	struct ktrace_tfs *tfs;
	struct tep_handle *tep;
	struct rec_event *ev;
	int nev;
	struct rec_id *ids;
	int nr_ids;
	/* Where the records come from (live rings or a file): what the
	 * decoder asks when the records themselves do not say. */
	const struct kt_record_source *src;

	struct kt_perf *perf;
	struct kt_merge *merge;
	struct kt_merge_cfg mcfg;
	uint64_t sample_type;

	ktrace_sample_fn fn;
	void *fnctx;
	kt_record_sink_fn sink;	/* every record in order (for -o) */
	void *sink_ctx;

	struct comm_ent *comm;
	size_t comm_cap, comm_n;
	/* Comms of tasks older than the recording (live: read from /proc
	 * and written with -o; file: its table), so that a replay sees
	 * exactly what the live run saw. Strings owned here. */
	struct kt_kf_comm *icomm;
	size_t nr_icomm;

	uint64_t samples, lost;
	uint64_t last_time;	/* newest timestamp handed out */
	uint64_t *lost_cpu;
	int nr_cpus;
	uint64_t *per_event;

	struct trace_seq seq;
	struct trace_seq symseq;	/* -o: symbol fields printed to mark */
	char ksym_buf[256];		/* the name handed to libtraceevent */
	char *out;
	size_t out_cap;

	/* call stacks */
	struct kt_symtab ksyms;
	unsigned char *ksym_used;	/* bitmap over ksyms (for -o) */
	struct kt_kfw *kfw;		/* -o writer */
	/* -o: what earlier flushes wrote (file.c), and when */
	unsigned char *ksym_written;
	size_t icomm_written;
	int maps_written;
	uint64_t kfw_flushed_ns;
	struct kt_kfile *kf;		/* replay source */
	bool kf_uframes;		/* it names its user frames */
	void *kf_mem;			/* its bytes, when read from a pipe */
	struct kt_map *maps;
	int nr_maps;
	uint64_t maps_newest;	/* the newest mapping's time */
	/* the time of the record being emitted: a user address is looked up
	 * among the mappings made by then (stack.c) */
	uint64_t emit_time;
	int loc_map;		/* the last mapping a user address was in, */
	int loc_ubin;		/* and its binary (stack.c) */
	void *usyms;		/* per-binary symbol tables (record_stack.c) */
	uint64_t *ips;
	/* frame names and binaries for profiles, one copy each (stack.c) */
	char **interned;
	size_t interned_cap, nr_interned;
	/* DWARF unwinding while recording (stack.c): the rings' records
	 * carry registers and a stack copy (raw_sample_type); each sample
	 * is rewritten with its unwound frames before anything else sees
	 * it, in the layout of sample_type (a plain callchain). */
	struct kt_unwind *unwind;
	uint64_t raw_sample_type;
	uint64_t uw_regs_mask;	/* sample_regs_user */
	unsigned char *uw_rec;	/* the rewritten record */
	size_t uw_rec_cap;
	uint64_t *pull_avail;	/* per ring: bytes this pull takes */
	/* Live: mappings are taken from the rings before the records around
	 * them (pull_all), each at its time, up to map_scan[ring]. */
	bool maps_live;
	uint64_t *map_scan;
	bool prefetch;		/* read binaries ahead (record.c scan_map) */
	int nr_prefetch;	/* binaries read by threads, not yet taken
				 * over (stack.c) */
	uint64_t held_since;	/* records held while they are (poll) */
};

int kt_record_emit(void *ctx, int src, uint64_t ts,
		   const struct perf_event_header *h);
int kt_record_ids_set(struct ktrace_record *r, const uint64_t *ids,
		      const int *events, int n);
/*
 * An event from its format text; its index, or -errno. untrusted (a file
 * from elsewhere): the text must pass kt_format_check(); when only its
 * print fmt does not, the event is kept with its fields and a print fmt
 * that says so; when its field lines do not, -EBADMSG and *why. The
 * running kernel's own formats are taken as they are.
 */
int kt_record_add_format(struct ktrace_record *r, const char *system,
			 const char *name, int id, const char *format,
			 size_t len, bool untrusted, const char **why);
/* A sampling event (a counter name of kt_counter_lookup); its index. */
int kt_record_add_counter(struct ktrace_record *r, const char *name,
			  uint32_t type, uint64_t config);
void kt_record_set_comm(struct ktrace_record *r, int pid, const char *comm);
void kt_record_free_stacks(struct ktrace_record *r);
void kt_record_free_interned(struct ktrace_record *r);
void kt_record_free_file(struct ktrace_record *r);
void kt_record_note_icomm(struct ktrace_record *r, int pid, const char *comm);
/*
 * Hold a format text to what kernels write before libtraceevent parses it
 * (fmtcheck.c): 0, or -EBADMSG with *why (static text) saying what is
 * wrong. info: whether the field lines passed, and the fields its print
 * fmt divides by (libtraceevent divides by them, a record where one is 0
 * would raise SIGFPE).
 */
struct kt_fmt_info {
	bool header_ok;
	int ndiv;
	char div[KT_FMT_MAX_DIV][64];
};
int kt_format_check(const char *text, size_t len, struct kt_fmt_info *info,
		    const char **why);
/* Are all of te's fields (and dynamic fields' data) inside raw/size? */
struct tep_event;
bool kt_raw_fits(const struct tep_event *te, const void *raw, size_t size);
/* What every record of te needs: the end of its last fixed field, and
 * whether it has __data_loc fields (their data is per record). */
uint32_t kt_raw_need(const struct tep_event *te, bool *dynamic);
struct tep_format_field;
const char *kt_zero_divisor(struct tep_format_field *const *div, int ndiv,
			    const void *raw);
/*
 * -o: write what is buffered (records, comms, mappings and kernel symbols
 * met so far) when a second has passed since the last write, or a tenth
 * of one when little is buffered, so a killed ktrace leaves a readable
 * file; force: now. 0 or -EIO.
 */
int kt_record_output_flush(struct ktrace_record *r, uint64_t now_ns,
			   bool force);
/* Mark the kernel symbols and user frames of a sample's call chain for
 * the -o file. */
/*
 * libtraceevent's function resolver for %ps/%pS fields and :symbol probe
 * arguments (priv is the recording): the kernel symbol holding *addrp from
 * the recording's kernel symbols (kallsyms, or the file's table). Marks it
 * for the -o file. The name lives in r->ksym_buf until the next call.
 */
char *kt_record_tep_ksym(void *priv, unsigned long long *addrp, char **modp);
/* -o: mark the kernel symbols a record's symbol fields print. */
void kt_record_mark_sym_fields(struct ktrace_record *r,
			       const struct ktrace_sample *s);
void kt_record_mark_frames(struct ktrace_record *r,
			   const struct ktrace_sample *s);
/* Write the marked user frames to the -o file; 0 or -EIO. */
int kt_record_write_uframes(struct ktrace_record *r);
/* A user frame from a file (its UFRAMES table); 0 or -ENOMEM. */
int kt_record_load_uframe(struct ktrace_record *r, const char *path,
			  uint64_t off, const char *text);
int kt_record_parse_sample(struct ktrace_record *r,
			   const struct perf_event_header *h,
			   struct ktrace_sample *s);
/* A mapping of pid made at time (0: before anything recorded). */
void kt_record_add_map(struct ktrace_record *r, int pid, uint64_t start,
		       uint64_t len, uint64_t pgoff, const char *path,
		       bool synth, uint64_t time);
/* Maps of an existing process from /proc/PID/maps (for -p with -g). */
void kt_record_read_proc_maps(struct ktrace_record *r, int pid);
/*
 * Start reading the symbols and DWARF of the binary at path in a thread
 * (stack.c), to be taken over by the first frame that needs them; nothing
 * when enough threads are reading already.
 */
void kt_record_prefetch_binary(struct ktrace_record *r, const char *path);
/* Whether a binary is still being read so. */
bool kt_record_prefetching(const struct ktrace_record *r);
/* The mapping an MMAP2 record made at time, if it is one of a file. */
void kt_record_note_mmap(struct ktrace_record *r,
			 const struct perf_event_header *h, uint64_t time);
/* With DWARF unwinding: h with its user frames unwound, its registers
 * and stack copy dropped (a buffer of r valid until the next call), or
 * NULL when h is malformed. */
const struct perf_event_header *
kt_record_unwind(struct ktrace_record *r, const struct perf_event_header *h);
/* A sample already unwound as it left its ring (misc bit, not one the
 * kernel sets in PERF_RECORD_SAMPLE); cleared before it is handed on. */
#define KT_MISC_UNWOUND (1 << 13)
/* A JSON string (quoted, escaped) of at most n bytes of s, onto q. */
void kt_json_seq_str(struct trace_seq *q, const char *s, size_t n);
/* Append the sampled address of s, symbolized ("ip sym+0xoff (dso)", or
 * JSON members "ip" and "sym"), to r->seq. */
void kt_record_format_ip(struct ktrace_record *r,
			 const struct ktrace_sample *s, bool json);
/* Append the symbolized call chain of s to the trace_seq / JSON. */
void kt_record_format_stack(struct ktrace_record *r,
			    const struct ktrace_sample *s, bool json);

#endif
