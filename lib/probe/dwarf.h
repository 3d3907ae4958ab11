/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * User-space probe resolution, DWARF part (dwarf.c): FILE:LINE to a file
 * offset, the end of a function's prologue, and C expressions on variables
 * to uprobe fetchargs with types. Each works on a binary opened with
 * kt_uelf_open() and loads its debug info (in the file, or the separate
 * file lib/sym finds) on first use. Internal to libktrace; not installed.
 */
#ifndef KTRACE_PROBE_DWARF_H
#define KTRACE_PROBE_DWARF_H

#include <stdbool.h>

#include "ktrace.h"
#include "probe/uelf.h"

/*
 * Resolve a source location to the file offset of its first instruction,
 * using the DWARF line table. file matches a source path by its last path
 * components ("probed.c", "targets/probed.c"). Needs debug info.
 */
int kt_dwarf_line(struct kt_uelf *ue, const char *file, int line,
		  unsigned long *file_off, struct ktrace_err *err);

/*
 * Translate expr into a uprobe fetcharg valid at the probe at file offset
 * probe_off (is_return: a return probe set on that function). expr is
 * NAME followed by any of ".field", "->field", "[N]"; NAME is a parameter,
 * a local visible at the probe, a global, or "$retval" (return probes
 * only). On success *fetcharg ("%di", "+8(%di)", "@+0x4040", "+0(%si)")
 * and *type ("s32", "u64", "x64", "string") are malloc'ed; the caller
 * frees both. Needs debug info.
 */
int kt_dwarf_arg(struct kt_uelf *ue, unsigned long probe_off,
		 const char *expr, bool is_return, char **fetcharg,
		 char **type, struct ktrace_err *err);

/*
 * The file offset just after the prologue of the function starting at file
 * offset func_off, from the line table (prologue_end, else the first row
 * on another source line); func_off itself when the table says nothing.
 * Unoptimised code keeps parameters in stack slots the prologue fills, so
 * probes fetching them belong there (kt_dwarf_arg() fails with -EAGAIN at
 * the entry). Needs debug info.
 */
int kt_dwarf_skip_prologue(struct kt_uelf *ue, unsigned long func_off,
			   unsigned long *off, struct ktrace_err *err);

#endif /* KTRACE_PROBE_DWARF_H */
