/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * DWARF unwinding while recording (ustack.c), a step of the live source:
 * the rings' records carry user registers and a copy of the user stack
 * (raw_sample_type); each sample is rewritten with its unwound user
 * frames before anything else sees it, in the layout of the decoder's
 * sample_type (a plain callchain). Calls addrspace.c (the mappings and
 * the unwinder).
 *
 * Owns rec (the rewritten record); kt_ustacks_free() frees it.
 */
#ifndef KTRACE_RECORD_USTACK_H
#define KTRACE_RECORD_USTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct kt_addrspace;

struct kt_ustacks {
	bool on;		/* recording with DWARF stacks */
	uint64_t raw_sample_type;	/* the rings' records */
	uint64_t regs_mask;	/* sample_regs_user */
	unsigned char *rec;	/* the rewritten record */
	size_t rec_cap;
};

/* A sample already unwound as it left its ring (misc bit, not one the
 * kernel sets in PERF_RECORD_SAMPLE); cleared before it is handed on. */
#define KT_MISC_UNWOUND (1 << 13)

/* h with its user frames unwound, its registers and stack copy dropped (a
 * buffer of u valid until the next call), or NULL when h is malformed. */
const struct perf_event_header *
kt_ustacks_unwind(struct kt_ustacks *u, struct kt_addrspace *as,
		  const struct perf_event_header *h);
void kt_ustacks_free(struct kt_ustacks *u);

#endif
