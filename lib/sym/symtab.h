/* SPDX-License-Identifier: LGPL-2.1-only */
/* Symbol tables by address (lib/sym/symtab.c). Not installed. */
#ifndef KTRACE_SYM_SYMTAB_H
#define KTRACE_SYM_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A sorted address -> name table (kernel symbols, a binary's symbols). */
struct kt_sym {
	uint64_t addr;
	char *name;
};

struct kt_symtab {
	struct kt_sym *v;
	size_t n;
	bool loaded;
};

/* A file mapping of a process (MMAP2 records, /proc/PID/maps, a file). */
struct kt_map {
	int pid;
	uint64_t start, len, pgoff;
	char *path;
	bool synth;		/* from /proc or the file, not an MMAP2 record */
};

void kt_symtab_free(struct kt_symtab *t);
/* Name of the symbol holding addr (and the offset into it), or NULL. */
const char *kt_symtab_find(const struct kt_symtab *t, uint64_t addr,
			   uint64_t *off);
/* Load /proc/kallsyms (or path) into t; returns 0 or -errno. */
int kt_symtab_load_kallsyms(struct kt_symtab *t, const char *path);
int kt_symtab_add(struct kt_symtab *t, uint64_t addr, const char *name);
void kt_symtab_sort(struct kt_symtab *t);

#endif
