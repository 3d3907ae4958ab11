/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Synthetic events of ktrace's own (synth.c). Not installed.
 *
 * kt_synth_create(): define DEF ("NAME TYPE FIELD; TYPE FIELD...", NAME
 * the owner's name from kt_owner_group_name(), its owner recorded first)
 * in synthetic_events; a refusal fills err with the kernel's error_log
 * message, input = DEF and pos the caret's column. 0 or -errno.
 * kt_synth_destroy(): remove it ("!NAME"; the kernel says EBUSY while a
 * trigger still uses it) and release its owner record. 0 or -errno.
 * kt_synth_sweep(): remove the synthetic events of ktrace processes that
 * are provably gone (after their instances: kt_own_inst_sweep()); the
 * count removed or -errno.
 */
#ifndef KTRACE_TRACEFS_SYNTH_H
#define KTRACE_TRACEFS_SYNTH_H

#include "ktrace.h"

int kt_synth_create(struct ktrace_tfs *tfs, const char *def,
		    struct ktrace_err *err);
int kt_synth_destroy(struct ktrace_tfs *tfs, const char *name);
int kt_synth_sweep(struct ktrace_tfs *tfs);

#endif
