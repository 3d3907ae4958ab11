/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The user address space of the recorded processes (addrspace.c): their
 * mappings as the source announces them (MMAP2 records, /proc/PID/maps, a
 * file's table), the binaries mapped (read on first use, or ahead by a
 * thread of their own), each binary's frame cache (the text of a frame
 * by file offset, DWARF inlines included), and the DWARF unwinder whose
 * caches are built from the mappings. Calls nothing else of lib/record.
 *
 * Owns maps[] with their paths, ubin[] (binaries, their reading threads,
 * which kt_addrspace_free() joins, their caches), the interned strings
 * and unwind; kt_addrspace_free() frees them.
 */
#ifndef KTRACE_RECORD_ADDRSPACE_H
#define KTRACE_RECORD_ADDRSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "sym/symtab.h"

struct kt_arch;
struct kt_unwind;
struct kt_ustack;
struct ktrace_frame;
struct ubin;

struct kt_addrspace {
	struct kt_map *maps;	/* in the order learnt: newest last */
	int nr_maps;
	uint64_t maps_newest;	/* the newest mapping's time */
	/* the time of the record being decoded (set by the decoder): a user
	 * address is looked up among the mappings made by then */
	uint64_t time;
	int loc_map;		/* the last mapping a user address was in, */
	int loc_ubin;		/* and its binary */
	struct ubin *ubin;	/* the binaries met, by path */
	int nr_ubin;
	int nr_prefetch;	/* binaries read by threads, not yet taken
				 * over */
	/* a recording with its frames (a file's UFRAMES table): binaries
	 * are never read (they may be gone, or another build by now) */
	bool from_file;
	/* frame names and binaries for profiles, one copy each */
	char **interned;
	size_t interned_cap, nr_interned;
	struct kt_unwind *unwind;	/* DWARF unwinding, when recording so */
	/* the caller's stop flag (ktrace_record_set_stop()): while it is
	 * set, a binary's reading thread is never waited for */
	const volatile int *stop;
};

void kt_addrspace_free(struct kt_addrspace *as);

/* A mapping of pid made at time (0: before anything recorded); synth: not
 * from an MMAP2 record (/proc, a file's table). */
void kt_addrspace_add_map(struct kt_addrspace *as, int pid, uint64_t start,
			  uint64_t len, uint64_t pgoff, const char *path,
			  bool synth, uint64_t time);
/* The mapping an MMAP2 record made at time, if it is one of a file. */
void kt_addrspace_note_mmap(struct kt_addrspace *as,
			    const struct perf_event_header *h, uint64_t time);
/* Maps of an existing process from /proc/PID/maps. */
void kt_addrspace_read_proc_maps(struct kt_addrspace *as, int pid);

/*
 * Start reading the symbols and DWARF of the binary at path in a thread,
 * to be taken over by the first frame that needs it; nothing when enough
 * threads are reading already.
 */
void kt_addrspace_prefetch(struct kt_addrspace *as, const char *path);
/* Whether a binary is still being read so. */
bool kt_addrspace_prefetching(const struct kt_addrspace *as);

/* Unwind user stacks by DWARF for this architecture; 0 or -ENOMEM. */
int kt_addrspace_unwind_init(struct kt_addrspace *as,
			     const struct kt_arch *arch);
/* The user frames of us (kt_unwind_user()) through the mappings. */
int kt_addrspace_unwind(struct kt_addrspace *as, const struct kt_ustack *us,
			uint64_t *ips, int max);

/*
 * The frame of user address ip of pid as perf script prints it: one line
 * per function inlined there ("inner (inlined)"), then "sym+0xoff
 * (path)"; lines separated by '\n', names and path escaped as text output
 * escapes them (kt_text_escape()). Owned by the frame cache;
 * when no symbol holds ip, "[unknown] (path)" or "[unknown]
 * ([unknown])" in buf.
 */
const char *kt_addrspace_user_text(struct kt_addrspace *as, int pid,
				   uint64_t ip, char *buf, size_t len);
/* The same as frames (strings owned by as) into v, at most max (>= 1). */
int kt_addrspace_user_frames(struct kt_addrspace *as, int pid, uint64_t ip,
			     struct ktrace_frame *v, int max);
/* The mapping holding user address ip of pid at the time of the record
 * being decoded (owned by as), or NULL. */
const struct kt_map *kt_addrspace_map_of(struct kt_addrspace *as, int pid,
					 uint64_t ip);
/* A string owned by as, equal to s[0..n): one copy of each. NULL when out
 * of memory. */
const char *kt_addrspace_intern(struct kt_addrspace *as, const char *s,
				size_t n);

/* Note the frame of user address ip of pid for a file's frame table. */
void kt_addrspace_mark(struct kt_addrspace *as, int pid, uint64_t ip);
/* A frame for a file's tables: its binary (and its build-id, hex, NULL
 * when unknown), file offset, text and source lines (NULL: unknown). */
struct kt_uframe {
	const char *path;
	uint64_t off;
	const char *text, *src;
	const char *build_id;
};
/* Each frame noted so (named now: reading DWARF while the rings fill
 * costs records) to fn; non-zero when fn returned non-zero for any. */
typedef int (*kt_addrspace_frame_fn)(void *ctx, const struct kt_uframe *f);
int kt_addrspace_marked_frames(struct kt_addrspace *as,
			       kt_addrspace_frame_fn fn, void *ctx);
/* A user frame from a file (its UFRAMES table); 0 or -ENOMEM. */
int kt_addrspace_load_frame(struct kt_addrspace *as, const char *path,
			    uint64_t off, const char *text);
/* Its source lines (USRC table), after it; a bad text is ignored. 0 or
 * -ENOMEM. */
int kt_addrspace_load_src(struct kt_addrspace *as, const char *path,
			  uint64_t off, const char *src);
/* The build-id (hex) of a binary (BUILDIDS table); 0 or -ENOMEM. */
int kt_addrspace_load_build_id(struct kt_addrspace *as, const char *path,
			       const char *id);
/* The build-id (hex) of the binary at path, or NULL. */
const char *kt_addrspace_build_id(struct kt_addrspace *as, const char *path);

/* Where the k-th function of a user frame's text is in the source
 * (k = 0: the innermost inlined one); strings owned by as, NULL when
 * unknown. */
struct kt_src {
	const char *file;
	int line, start;	/* 0: unknown */
	const char *sysname;	/* its linkage (mangled) name */
};
/* That of user address ip of pid: 0, or -ENOENT when not known. */
int kt_addrspace_user_src(struct kt_addrspace *as, int pid, uint64_t ip,
			  int k, struct kt_src *out);

#endif
