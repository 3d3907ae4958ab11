/* SPDX-License-Identifier: LGPL-2.1-only */
/* Symbol tables by address (lib/sym/symtab.c). Not installed. */
#ifndef KTRACE_SYM_SYMTAB_H
#define KTRACE_SYM_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

/* A sorted address -> name table (kernel symbols, a binary's symbols). */
struct kt_sym {
	uint64_t addr;
	uint64_t size;		/* its extent; 0 (unknown): up to the next */
	int prio;		/* of names at one address, the highest wins */
	char *name;
};

struct kt_symtab {
	struct kt_sym *v;
	size_t n;
	bool loaded;
	char *pool;		/* kallsyms' text: names of pooled symbols */
	size_t pool_len;
};

/* A file mapping of a process (MMAP2 records, /proc/PID/maps, a file). */
struct kt_map {
	int pid;
	uint64_t start, len, pgoff;
	char *path;
	bool synth;		/* from /proc or the file, not an MMAP2 record */
	/* when it was made (perf clock, an MMAP2 record's time); 0: before
	 * anything recorded (/proc, a file's table). A sample older than a
	 * mapping does not see it. */
	uint64_t time;
};

void kt_symtab_free(struct kt_symtab *t);
/* The symbol whose [addr, addr + size) holds addr, or NULL. */
const struct kt_sym *kt_symtab_lookup(const struct kt_symtab *t,
				      uint64_t addr);
/*
 * Name of the symbol whose [addr, addr + size) holds addr (and the offset
 * into it), or NULL: an address past a symbol's end is not given its name.
 */
const char *kt_symtab_find(const struct kt_symtab *t, uint64_t addr,
			   uint64_t *off);
/* Load /proc/kallsyms (or path) into t; returns 0 or -errno. */
int kt_symtab_load_kallsyms(struct kt_symtab *t, const char *path);
/* size 0: not known (kallsyms); it then reaches the next symbol. */
int kt_symtab_add(struct kt_symtab *t, uint64_t addr, uint64_t size,
		  const char *name);
typedef struct Elf Elf;
/* Add the function symbols of elf (.symtab, .dynsym); true when it has
 * a .symtab (then it is not stripped). */
bool kt_symtab_add_elf(struct kt_symtab *t, Elf *elf);

/* One code symbol of an ELF file, as kt_elf_code_syms() passes it. */
struct kt_elf_sym {
	const char *name;	/* raw: .symtab may spell "f@VER" / "f@@VER" */
	const char *version;	/* .dynsym's version, or NULL */
	bool hidden;		/* a non-default version (f@VER) */
	bool dynamic;		/* from .dynsym */
	GElf_Sym sym;
};
/* Strings are elf's: valid until elf_end(). A nonzero return stops. */
typedef int (*kt_elf_sym_fn)(const struct kt_elf_sym *s, void *arg);
/*
 * Call fn for every code symbol of elf (functions, ifuncs, untyped labels
 * in executable sections; defined, with an address), .symtab's and
 * .dynsym's (elfsym.c). 1 when elf has a .symtab, 0 when not, or the
 * negative value fn stopped with.
 */
int kt_elf_code_syms(Elf *elf, kt_elf_sym_fn fn, void *arg);
/* The same for the symbols a stripped elf keeps elsewhere, found as
 * kt_symtab_add_debug() finds them. 0, -ENOENT (none), or -errno. */
int kt_elf_debug_syms(Elf *elf, const char *binary, kt_elf_sym_fn fn,
		      void *arg);
/*
 * Where a stripped binary's separate debug file is, as perf and gdb look
 * (the one rule for symbols and DWARF, local files only). The file keyed
 * by build-id: /usr/lib/debug/.build-id/xx/rest.debug in path[len]; 0, or
 * -ENOENT for an id that cannot be one.
 */
int kt_debug_build_id_path(const unsigned char *id, size_t n, char *path,
			   size_t len);
/* The file .gnu_debuglink names (name, crc) for binary, its path: next
 * to binary, in its .debug/, under /usr/lib/debug. Its CRC must match (a
 * stale debug file would name the wrong functions); it is opened with
 * kt_open_elf() (no FIFO, no sparse file of many GB is read). 0 with the
 * file's path in path[len]; -ENOENT; else the first file there that is
 * not it in path[len] and why: -ESTALE (its CRC differs), or why
 * kt_open_elf() refused it (-EFBIG, -ENOEXEC, -KT_ENOTREG...). */
int kt_debuglink_path(const char *name, uint32_t crc, const char *binary,
		      char *path, size_t len);
/* Why kt_debuglink_path() did not take the file it named (err, its
 * return), in words; NULL for 0, -ENOENT and -ENOMEM. */
const char *kt_debuglink_refusal(int err);
/* Add the names a stripped elf keeps elsewhere, as perf and gdb find
 * them: its separate debug file by build-id (/usr/lib/debug/.build-id),
 * else the one its .gnu_debuglink names (next to binary, its path; in
 * .debug/; under /usr/lib/debug; the CRC must match), else its
 * MiniDebugInfo (.gnu_debugdata, xz). 0 or -errno (-ENOENT: none). */
int kt_symtab_add_debug(struct kt_symtab *t, Elf *elf, const char *binary);
/* The GNU build-id of elf in lowercase hex (the caller frees it), or NULL
 * when it has none. */
char *kt_elf_build_id_hex(Elf *elf);
/* The demangled form of a C++ name (a string the caller frees), or NULL
 * when name is not mangled or no demangler is installed (demangle.c). */
char *kt_demangle(const char *name);

/*
 * DWARF of one binary, for the functions inlined at an address
 * (inline.c). NULL when it has none (nor a debug file with it).
 */
struct kt_dwarf_file;
struct kt_dwarf_file *kt_dwarf_file_open(const char *path);
void kt_dwarf_file_free(struct kt_dwarf_file *f);	/* takes NULL */
/* Where a frame is in the source: its file (the caller frees it; NULL:
 * unknown), line, the line its function starts at and the function's
 * linkage name (the caller frees it; NULL: none in DWARF). */
struct kt_srcline {
	char *file;
	int line, start;
	char *sysname;
};
/*
 * Names of the functions inlined at file address vaddr, innermost
 * first (strings the caller frees), at most max: how many (n). With src,
 * also their source lines and the line in the function they are inlined
 * into: src[0..n] (n + 1 entries, the caller frees them with
 * kt_srclines_free()): the address's own line first, then each inlined
 * call's site.
 */
int kt_dwarf_inlines(struct kt_dwarf_file *f, uint64_t vaddr, char **names,
		     struct kt_srcline *src, int max);
void kt_srclines_free(struct kt_srcline *src, int n);
/* The source file (a path the caller frees: relative names joined to
 * their compilation directory) and line of file address vaddr, from the
 * line table; NULL (and *line 0) when not known or out of memory. */
char *kt_dwarf_srcline(struct kt_dwarf_file *f, uint64_t vaddr, int *line);

/* The loadable segments of an ELF file (segs.c). */
struct kt_seg {
	uint64_t off, vaddr, filesz;
	bool exec;		/* PF_X */
};
struct kt_segs {
	struct kt_seg *v;
	size_t n;
};
/* Read elf's PT_LOAD segments into s (kt_segs_free() frees them, also
 * after an error); 0, -ENOEXEC or -ENOMEM. */
int kt_segs_read(struct kt_segs *s, Elf *elf);
void kt_segs_free(struct kt_segs *s);
/* The segment whose file bytes hold off (an executable one when exec),
 * or NULL; the pointer lives as long as s. */
const struct kt_seg *kt_segs_of_off(const struct kt_segs *s, uint64_t off,
				    bool exec);
/* File offset <-> address through the segment that holds it; 0 or
 * -ENOENT (outside every segment's file bytes). */
int kt_segs_off_to_vaddr(const struct kt_segs *s, uint64_t off, bool exec,
			 uint64_t *vaddr);
int kt_segs_vaddr_to_off(const struct kt_segs *s, uint64_t vaddr,
			 uint64_t *off);

/* "Did you mean" (suggest.c): the closest of many names to a query. */
#define KT_SUGGEST_MAX 32
struct kt_cand {
	const char *name;	/* the caller's string, kept by pointer */
	int score;		/* lower is better */
	int full;		/* edit distance to the whole name */
};
struct kt_suggest {
	const char *q;
	int n, max, maxd, maxp, cols, nbest;
	bool substr;
	int *rows;		/* scratch */
	struct kt_cand best[KT_SUGGEST_MAX];	/* nbest of them, best first */
};
/* Keep the best max (at most KT_SUGGEST_MAX) names; substr: a name that
 * holds the query qualifies too, after the close ones. 0 or -ENOMEM. */
int kt_suggest_init(struct kt_suggest *sg, const char *query, int max,
		    bool substr);
void kt_suggest_fini(struct kt_suggest *sg);
/* Score s (m chars, not NUL-terminated) against the query; when it
 * qualifies, keep is ranked (the name shown, which must outlive sg). */
bool kt_suggest_add(struct kt_suggest *sg, const char *s, int m,
		    const char *keep);
/* Rank name with a score of the caller's (below 0: before any typo). */
void kt_suggest_put(struct kt_suggest *sg, const char *name, int score,
		    int full);

/* Add the symbols of a JIT map (/tmp/perf-PID.map); 0 or -errno
 * (-EPERM: not owned by this user or root, or not a regular file). */
int kt_symtab_load_perf_map(struct kt_symtab *t, const char *path);
/* The name processes give their vdso mapping. */
#define KT_VDSO_NAME "[vdso]"
/* A path to a copy of this machine's vdso image (vdso.c), or NULL. */
const char *kt_vdso_path(void);
/* Sort by address and give the symbols of unknown size their extent. */
void kt_symtab_sort(struct kt_symtab *t);

#endif
