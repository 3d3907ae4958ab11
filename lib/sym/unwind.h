/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * User stacks by DWARF CFI (lib/sym/unwind.c): the registers and the copy
 * of the user stack a sample carries (PERF_SAMPLE_REGS_USER,
 * PERF_SAMPLE_STACK_USER) are unwound with .eh_frame/.debug_frame of the
 * binaries mapped in the process, through libdw. Not installed.
 */
#ifndef KTRACE_SYM_UNWIND_H
#define KTRACE_SYM_UNWIND_H

#include <stdint.h>

#include "sym/symtab.h"

struct kt_arch;
struct kt_unwind;

/* What one sample carries for the unwinder. */
struct kt_ustack {
	int pid, tid;
	const uint64_t *regs;	/* in sample_regs_user bit order */
	uint64_t regs_mask;
	const unsigned char *stack;	/* copied from the user SP up */
	uint64_t stack_size;
	uint64_t time;		/* the sample's: mappings made later are not
				 * its process's yet */
};

/* An unwinder for one architecture; NULL + errno (ENOMEM). */
struct kt_unwind *kt_unwind_alloc(const struct kt_arch *arch);
/* Takes NULL. */
void kt_unwind_free(struct kt_unwind *u);
/* pid's mappings changed: forget what was built from the old ones. */
void kt_unwind_forget(struct kt_unwind *u, int pid);
/*
 * Unwind s with the mappings of s->pid among maps[0..nr_maps) (newest
 * last) made no later than s->time. Writes up to max return addresses, innermost first (the first
 * is the sampled PC), into ips. Returns how many, 0 when nothing could be
 * unwound (then the caller shows no user frames rather than wrong ones).
 */
int kt_unwind_user(struct kt_unwind *u, const struct kt_map *maps,
		   int nr_maps, const struct kt_ustack *s, uint64_t *ips,
		   int max);

#endif
