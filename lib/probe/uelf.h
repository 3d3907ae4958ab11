/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * User-space probe resolution for uprobes, ELF part (uelf.c): find a
 * binary, open it, and turn a symbol into the file offset uprobe_events
 * wants. The DWARF part (FILE:LINE, arguments by name) is in dwarf.h.
 * Internal to libktrace; not installed.
 */
#ifndef KTRACE_PROBE_UELF_H
#define KTRACE_PROBE_UELF_H

#include <stdbool.h>
#include "ktrace.h"

struct kt_uelf;

/*
 * Find the binary the user named: a path (absolute or relative, anything
 * with a '/'), a library name ("libc", "libc.so.6", "libz.so") looked up in
 * /etc/ld.so.cache and then the standard library directories, or a
 * program name looked up in $PATH. On success *path is an absolute,
 * canonical, malloc'ed path (caller frees). Returns 0 or -errno with a
 * message in err.
 */
int kt_uelf_find_binary(const char *name, char **path,
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
int kt_uelf_ldcache_lookup(const char *cache, const char *name,
			   bool check_elf, char **path);

/*
 * Open binary (resolved as by kt_uelf_find_binary()) and read its ELF
 * headers. DWARF is loaded lazily on the first call that needs it. Returns
 * NULL + errno with a message in err. The caller frees the handle with
 * kt_uelf_free().
 */
struct kt_uelf *kt_uelf_open(const char *binary, struct ktrace_err *err);
void kt_uelf_free(struct kt_uelf *ue);

/* Absolute path of the resolved file; owned by ue. */
const char *kt_uelf_path(const struct kt_uelf *ue);

/*
 * Resolve a function symbol plus byte offset add to the file offset of a
 * uprobe. sym may be plain ("malloc"), versioned ("malloc@@GLIBC_2.2.5",
 * "malloc@GLIBC_2.2.5"), mangled, or a demangled C++ name with or without
 * its parameter list ("ns::Klass::method(int)", "ns::Klass::method"; the
 * latter must match a single address). add must fall inside the function.
 * Errors (in err): unknown symbol with close matches, ambiguous name with
 * the candidates, offset outside the function.
 */
int kt_uelf_symbol(struct kt_uelf *ue, const char *sym, unsigned long add,
		   unsigned long *file_off, struct ktrace_err *err);

#endif /* KTRACE_PROBE_UELF_H */
