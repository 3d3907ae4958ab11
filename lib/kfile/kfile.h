/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The ktrace record file (ktrace record -o FILE), version 1.
 *
 * All integers are in the writer's byte order; the header says which and a
 * reader refuses the other one. Every part of the file is covered by a
 * checksum, so any changed byte is detected.
 *
 * File header, 32 bytes:
 *	 0 char magic[8]	"KTRACE\0\1"
 *	 8 u32 version		1
 *	12 u32 byte_order	0x01020304 as written by the writer
 *	16 u64 flags		0
 *	24 u64 csum		kfile checksum of bytes 0..23
 *
 * Then sections, each starting at an offset that is a multiple of 8:
 *	 0 u32 type		KT_KF_* below
 *	 4 u32 flags		0
 *	 8 u64 size		payload bytes, padding not included
 *	16 u64 csum		checksum of the payload and its zero padding,
 *				continued over bytes 0..15 of this header
 *	24 payload, zero padded to a multiple of 8
 *
 * The checksum works on 64-bit words: h = seed; for each word w,
 * h = (h + w) * 0x9e3779b97f4a7c15; the result is h ^ (h >> 29). Seed:
 * 0x6b74726163650001. Each step is a bijection, so one changed word always
 * changes the result.
 *
 * Table sections are lists of entries up to the end of the payload. A
 * string is u32 length, the bytes, then a NUL (not counted). A type may
 * occur several times; the reader concatenates the tables.
 *	META	  str key, str value		(kernel release, command line,
 *		  "clock": "REALTIME MONOTONIC" ns read at the start, "host",
 *		  "cpus-online", "cpus" ("all" or a list), "target"
 *		  ("command", "system-wide", "processes P,..."),
 *		  "call-graph" ("none", "fp", "dwarf SIZE"), "sampling" (a
 *		  line per ATTR entry: "freq HZ", "period N", "each")...;
 *		  readers take the keys they know)
 *	ATTR	  u32 perf type, u32 flags (bit 0: sample_id_all), u64 config,
 *		  u64 sample_type, u32 clockid, str name ("system:event")
 *		  - the n-th ATTR entry of the file is attr index n
 *	IDS	  u64 sample id, u32 attr index, s32 cpu
 *		  - maps PERF_SAMPLE_IDENTIFIER to the event
 *	FORMATS	  u32 tracefs id, str system, str name, str format text
 *	HEADER_PAGE str text of events/header_page
 *	KALLSYMS  u64 address, u32 type letter, str name
 *	COMMS	  u32 pid, u32 tid, str comm	(tasks alive at the start)
 *	MMAPS	  u32 pid, u32 tid, u64 start, u64 len, u64 pgoff, u32 maj,
 *		  u32 min, u64 ino, u64 ino_generation, u32 prot, u32 flags,
 *		  str filename
 *	UFRAMES	  str binary path, u64 file address, str frame text: the user
 *		  frames the records' stacks need, as ktrace printed them
 *		  when recording ("sym+0xoff (path)", inlined functions on
 *		  lines before it), so that report needs no binary
 *	USRC	  str binary path, u64 file address, str source lines: one line
 *		  for each line of that UFRAMES text, "LINE START SYSNAME FILE"
 *		  (the function's line at the address or the inlined call, the
 *		  line it starts at, its linkage name or "-", its source file;
 *		  0 and "" unknown), for report --pprof
 *	BUILDIDS  str binary path, str build-id (lowercase hex) of the
 *		  binaries the UFRAMES entries name
 *		  - readers before USRC and BUILDIDS refuse a file with them
 *	DATA	  raw perf records (struct perf_event_header first, sizes a
 *		  multiple of 8), in time order across DATA sections
 *	END	  u64 number of records, u64 record bytes, u64 number of
 *		  sections before END; must be the last thing in the file
 *
 * Unknown section types are an error in version 1. A file without END is
 * truncated.
 *
 * The reader treats the file as untrusted: every length and offset is
 * checked; a bad magic, version or byte order gives -EINVAL, any other
 * damage -EBADMSG.
 */
#ifndef KTRACE_KFILE_H
#define KTRACE_KFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <linux/perf_event.h>

#define KT_KF_MAGIC "KTRACE\0\1"
#define KT_KF_VERSION 1
#define KT_KF_HDR_SIZE 32
#define KT_KF_SEC_HDR_SIZE 24

enum kt_kf_type {
	KT_KF_META = 1,
	KT_KF_ATTR = 2,
	KT_KF_IDS = 3,
	KT_KF_FORMATS = 4,
	KT_KF_HEADER_PAGE = 5,
	KT_KF_KALLSYMS = 6,
	KT_KF_COMMS = 7,
	KT_KF_MMAPS = 8,
	KT_KF_UFRAMES = 9,
	KT_KF_USRC = 10,
	KT_KF_BUILDIDS = 11,
	KT_KF_DATA = 16,
	KT_KF_END = 255,
};

/* The file checksum over n bytes (n a multiple of 8), continuing from h;
 * start with KT_KF_SEED and finish with kt_kf_sum_final(). */
#define KT_KF_SEED 0x6b74726163650001ull
uint64_t kt_kf_sum(uint64_t h, const void *p, size_t n);
static inline uint64_t kt_kf_sum_final(uint64_t h)
{
	return h ^ (h >> 29);
}

/* ------------------------------------------------------------- entries */

struct kt_kf_meta {
	const char *key, *value;
};

/*
 * record --off-cpu: ktrace's own samples, one per period a traced task
 * waited off the CPU (lib/record/offcpu.h), are the records of one ATTR
 * entry of type KT_KF_OFFCPU_TYPE, config KT_KF_OFFCPU_CONFIG (no
 * kernel's software event) and name KT_KF_OFFCPU_NAME, with the file's
 * sample_type (PERIOD in it): PERIOD the nanoseconds off the CPU, TIME
 * when the task ran again, CALLCHAIN the stack it was switched out with.
 * The sched_switch and PERF_RECORD_SWITCH records they were paired from
 * are not in the file. A reader that does not know the entry refuses the
 * file (an unknown sampling event); files without one read as before.
 */
#define KT_KF_OFFCPU_TYPE PERF_TYPE_SOFTWARE
#define KT_KF_OFFCPU_CONFIG 0x6b746f6666637075ull	/* "ktoffcpu" */
#define KT_KF_OFFCPU_NAME "offcpu-time"

struct kt_kf_attr {
	uint32_t type;
	uint32_t flags;		/* KT_KF_ATTR_* */
	uint64_t config;
	uint64_t sample_type;
	uint32_t clockid;
	const char *name;
};
#define KT_KF_ATTR_SAMPLE_ID_ALL 1u

struct kt_kf_id {
	uint64_t id;
	uint32_t attr;
	int32_t cpu;
};

struct kt_kf_format {
	uint32_t id;
	const char *system, *name, *format;
};

struct kt_kf_ksym {
	uint64_t addr;
	uint32_t type;
	const char *name;
};

struct kt_kf_comm {
	uint32_t pid, tid;
	const char *comm;
};

struct kt_kf_uframe {
	const char *path;
	uint64_t vaddr;
	const char *text;
};

struct kt_kf_buildid {
	const char *path, *id;
};

struct kt_kf_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	const char *filename;
};

/* -------------------------------------------------------------- writer */

struct kt_kfw;

/*
 * Start a file on fd (not owned: the caller closes it after
 * kt_kfw_close()). bufsize: the user-space buffer for records (0: 1 MiB);
 * every write(2) is one whole section. Writes the file header at once.
 * NULL + errno.
 */
struct kt_kfw *kt_kfw_open(int fd, size_t bufsize);

/*
 * Table entries. They are kept in memory and written as sections before
 * the next record (or at close, or whenever a table passes 1 MiB). Strings
 * are copied. Return 0 or -errno (-EINVAL for a NULL string or a number
 * out of range).
 */
int kt_kfw_meta(struct kt_kfw *w, const char *key, const char *value);
int kt_kfw_attr(struct kt_kfw *w, const struct kt_kf_attr *a);
int kt_kfw_id(struct kt_kfw *w, uint64_t id, uint32_t attr, int32_t cpu);
int kt_kfw_format(struct kt_kfw *w, uint32_t id, const char *system,
		  const char *name, const char *format);
int kt_kfw_header_page(struct kt_kfw *w, const char *text);
int kt_kfw_ksym(struct kt_kfw *w, uint64_t addr, char type, const char *name);
int kt_kfw_comm(struct kt_kfw *w, uint32_t pid, uint32_t tid,
		const char *comm);
int kt_kfw_mmap(struct kt_kfw *w, const struct kt_kf_mmap *m);
int kt_kfw_uframe(struct kt_kfw *w, const char *path, uint64_t vaddr,
		  const char *text);
int kt_kfw_usrc(struct kt_kfw *w, const char *path, uint64_t vaddr,
		const char *src);
int kt_kfw_build_id(struct kt_kfw *w, const char *path, const char *id);

/*
 * Append one raw record (copied into the buffer; its size must be a
 * multiple of 8). The hot path: no allocation, one write(2) per full
 * buffer. Returns 0 or -errno (the first write error sticks).
 */
int kt_kfw_record(struct kt_kfw *w, const struct perf_event_header *rec);

/*
 * Write the records and table entries buffered so far, so that a reader
 * of a file cut off later (the writer killed) finds them. 0 or -errno.
 * kt_kfw_pending(): bytes buffered, not yet written.
 */
int kt_kfw_flush(struct kt_kfw *w);
size_t kt_kfw_pending(const struct kt_kfw *w);
/* 0, or the first write error (-errno): nothing is written after it. */
int kt_kfw_error(const struct kt_kfw *w);

/*
 * Flush everything, write END and free w (always, even on error); *bytes
 * (may be NULL): the file's size as written. Returns 0 or the first -errno
 * met while writing.
 */
int kt_kfw_close(struct kt_kfw *w, uint64_t *bytes);

/* -------------------------------------------------------------- reader */

struct kt_kfile;

/*
 * Open and check a file: header, every section's bounds, every table
 * section's checksum and entries, END. Records are read, and their
 * sections checked, while iterating. A file cut off at its end (its
 * writer killed) opens up to its last complete section, and
 * kt_kfile_truncated() says so. NULL + errno (EINVAL: not a ktrace v1
 * file; EBADMSG: damaged; ENOMEM; open/read errors).
 * Free with kt_kfile_free().
 */
struct kt_kfile *kt_kfile_open(const char *path);
/* The same over a caller's buffer, which must outlive the handle. */
struct kt_kfile *kt_kfile_open_mem(const void *buf, size_t len);
void kt_kfile_free(struct kt_kfile *f);

/*
 * The next record, or 0 at the end. 1: *rec points into f's buffer, valid
 * until the next call. -EBADMSG for a damaged data section or when the
 * number of records does not match END. After an error, keeps failing.
 */
int kt_kfile_next(struct kt_kfile *f, const struct perf_event_header **rec);

/* The file has no END: it was cut off, its records are those up to its
 * last complete section (their number is not known ahead). */
bool kt_kfile_truncated(const struct kt_kfile *f);
/* Start the records over. */
void kt_kfile_rewind(struct kt_kfile *f);

/* Tables: borrowed arrays, valid until kt_kfile_free(). */
const char *kt_kfile_meta_get(const struct kt_kfile *f, const char *key);
const struct kt_kf_attr *kt_kfile_attrs(const struct kt_kfile *f, size_t *n);
const struct kt_kf_id *kt_kfile_ids(const struct kt_kfile *f, size_t *n);
const struct kt_kf_format *kt_kfile_formats(const struct kt_kfile *f,
					    size_t *n);
const struct kt_kf_ksym *kt_kfile_ksyms(const struct kt_kfile *f, size_t *n);
const struct kt_kf_comm *kt_kfile_comms(const struct kt_kfile *f, size_t *n);
const struct kt_kf_mmap *kt_kfile_mmaps(const struct kt_kfile *f, size_t *n);
const struct kt_kf_uframe *kt_kfile_uframes(const struct kt_kfile *f,
					    size_t *n);
/* USRC entries: text holds the source lines */
const struct kt_kf_uframe *kt_kfile_usrcs(const struct kt_kfile *f,
					  size_t *n);
const struct kt_kf_buildid *kt_kfile_build_ids(const struct kt_kfile *f,
					       size_t *n);

#endif /* KTRACE_KFILE_H */
