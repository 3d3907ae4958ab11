/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * User-space probe resolution for uprobes: find a binary, turn a symbol or
 * a FILE:LINE into the file offset uprobe_events wants, and turn a C
 * expression on variables into a uprobe fetcharg with a type, using DWARF.
 * Internal to libktrace; not installed.
 */
#ifndef KTRACE_URESOLVE_H
#define KTRACE_URESOLVE_H

#include <stdbool.h>
#include "ktrace.h"

struct uresolve;

/*
 * Find the binary the user named: a path (absolute or relative, anything
 * with a '/'), a library name ("libc", "libc.so.6", "libz.so") looked up in
 * /etc/ld.so.cache and then the standard library directories, or a
 * program name looked up in $PATH. On success *path is an absolute,
 * canonical, malloc'ed path (caller frees). Returns 0 or -errno with a
 * message in err.
 */
int kt_ures_find_binary(const char *name, char **path,
			 struct ktrace_err *err);

/*
 * Look name up in an ld.so.cache file (format "glibc-ld.so.cache1.1";
 * cache NULL: /etc/ld.so.cache). name matches an entry equal to it or
 * starting with name + ".so" ("libc" and "libc.so" both find "libc.so.6").
 * Only entries whose ELF class and machine match this process are taken
 * when check_elf is true. *path receives a malloc'ed copy of the entry's
 * path (caller frees). Returns 0, -ENOENT when no entry matches, -EINVAL
 * for a malformed file, or another -errno.
 */
int kt_ures_ldcache_lookup(const char *cache, const char *name,
			    bool check_elf, char **path);

/*
 * Open binary (resolved as by kt_ures_find_binary()) and read its ELF
 * headers. DWARF is loaded lazily on the first call that needs it. Returns
 * NULL + errno with a message in err. The caller frees the handle with
 * kt_ures_free().
 */
struct uresolve *kt_ures_open(const char *binary, struct ktrace_err *err);
void kt_ures_free(struct uresolve *ur);

/* Absolute path of the resolved file; owned by ur. */
const char *kt_ures_path(const struct uresolve *ur);

/*
 * Resolve a function symbol plus byte offset add to the file offset of a
 * uprobe. sym may be plain ("malloc"), versioned ("malloc@@GLIBC_2.2.5",
 * "malloc@GLIBC_2.2.5"), mangled, or a demangled C++ name with or without
 * its parameter list ("ns::Klass::method(int)", "ns::Klass::method"; the
 * latter must match a single address). add must fall inside the function.
 * Errors (in err): unknown symbol with close matches, ambiguous name with
 * the candidates, offset outside the function.
 */
int kt_ures_symbol(struct uresolve *ur, const char *sym, unsigned long add,
		    unsigned long *file_off, struct ktrace_err *err);

/*
 * Resolve a source location to the file offset of its first instruction,
 * using the DWARF line table. file matches a source path by its last path
 * components ("probed.c", "targets/probed.c"). Needs debug info.
 */
int kt_ures_line(struct uresolve *ur, const char *file, int line,
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
int kt_ures_arg(struct uresolve *ur, unsigned long probe_off,
		 const char *expr, bool is_return, char **fetcharg,
		 char **type, struct ktrace_err *err);

/*
 * The file offset just after the prologue of the function starting at file
 * offset func_off, from the line table (prologue_end, else the first row
 * on another source line); func_off itself when the table says nothing.
 * Unoptimised code keeps parameters in stack slots the prologue fills, so
 * probes fetching them belong there (kt_ures_arg() fails with -EAGAIN at
 * the entry). Needs debug info.
 */
int kt_ures_skip_prologue(struct uresolve *ur, unsigned long func_off,
			   unsigned long *off, struct ktrace_err *err);

#endif
