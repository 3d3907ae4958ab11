/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Addresses to names (symbolize.c): kernel addresses through the kernel's
 * symbols (kallsyms, or a file's table of them), user addresses through
 * the address space (addrspace.c, the only file of lib/record it calls).
 * Formatting asks it for frame texts, profiles for frames, the -o writer
 * for the symbols and frames the records used.
 *
 * Owns ksyms and ksym_used; kt_symbolizer_free() frees them.
 */
#ifndef KTRACE_RECORD_SYMBOLIZE_H
#define KTRACE_RECORD_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/addrspace.h"
#include "sym/symtab.h"

struct ktrace_frame;
struct ktrace_record;
struct ktrace_sample;

struct kt_symbolizer {
	struct kt_symtab ksyms;
	/* live: ksyms is kallsyms, read when first needed (~40 ms); a
	 * file: its table, loaded with it */
	bool kallsyms;
	/* the kernel symbols looked up since kt_symbolizer_track() (for
	 * -o), a bitmap over ksyms; NULL: not tracked */
	unsigned char *ksym_used;
	char ksym_buf[256];	/* the name handed to libtraceevent */
};

/* Is ip in the kernel's half of the address space? */
static inline bool kt_kernel_ip(uint64_t ip)
{
	return ip >> 63;	/* x86-64 and arm64: the upper half */
}

void kt_symbolizer_free(struct kt_symbolizer *sy);
/* Make sure ksyms holds what stacks need (live: read kallsyms now). */
void kt_symbolizer_ksyms(struct kt_symbolizer *sy);
/* From now on note which kernel symbols are looked up; 0 or -ENOMEM. */
int kt_symbolizer_track(struct kt_symbolizer *sy);

/*
 * The kernel frame of ip as perf script prints it, "sym+0xoff
 * ([kernel.kallsyms])" or "sym+0xoff ([module])", into buf.
 */
const char *kt_symbolize_kernel_text(struct kt_symbolizer *sy, uint64_t ip,
				     char *buf, size_t len);
/* The frame of ip (of pid, a kernel frame when kernel): the above, or the
 * user frame's lines (kt_addrspace_user_text()). Per frame: inline. */
static inline const char *kt_symbolize_text(struct kt_symbolizer *sy,
					    struct kt_addrspace *as, int pid,
					    uint64_t ip, bool kernel,
					    char *buf, size_t len)
{
	if (kernel)
		return kt_symbolize_kernel_text(sy, ip, buf, len);
	return kt_addrspace_user_text(as, pid, ip, buf, len);
}
/* Note the kernel symbols and user frames of s for the -o file: its own
 * address when own_ip (a sampling event), and its call chain. */
void kt_symbolize_mark(struct kt_symbolizer *sy, struct kt_addrspace *as,
		       const struct ktrace_sample *s, bool own_ip);
/*
 * For profiles in other formats (report --pprof): the user mapping that
 * holds frame address ip of pid when s was recorded (start, length, file
 * offset, path; owned by r), or NULL (a kernel address, no mapping).
 */
const struct kt_map *kt_record_user_map(struct ktrace_record *r, int pid,
					uint64_t ip);
/* Where the k-th function of the frame at user address ip of pid is in
 * the source (k = 0: the innermost inlined one): 0, or -ENOENT. */
int kt_record_user_src(struct ktrace_record *r, int pid, uint64_t ip, int k,
		       struct kt_src *out);
/* The build-id (hex) of the binary at path, or NULL. */
const char *kt_record_build_id(struct ktrace_record *r, const char *path);
/* What the period of event's samples counts. */
enum kt_period_unit {
	KT_PERIOD_RECORDS,	/* a tracepoint or probe: 1 a record */
	KT_PERIOD_NS,		/* cpu-clock, task-clock: nanoseconds */
	KT_PERIOD_EVENTS,	/* other sampling events: their events */
};
enum kt_period_unit kt_record_period_unit(const struct ktrace_record *r,
					  int event);

/*
 * libtraceevent's function resolver for %ps/%pS fields and :symbol probe
 * arguments (priv is the symbolizer): the kernel symbol holding *addrp.
 * Tracked (kt_symbolizer_track()). The name lives in sy->ksym_buf until
 * the next call.
 */
char *kt_symbolize_tep_ksym(void *priv, unsigned long long *addrp,
			    char **modp);

#endif
