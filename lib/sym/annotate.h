/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * One function of a binary, annotated (ktrace annotate): its instructions
 * (disasm.c, capstone), the source line of each (srcline.c, the DWARF
 * line table through inline.c's kt_dwarf_file, the text from the source
 * file when it is on disk) and the samples that fell on each
 * (annotate.c). Never prints. Not installed.
 *
 * A struct kt_annot owns everything it points to; kt_annot_free() frees
 * it (also after a failed kt_annot_open()).
 */
#ifndef KTRACE_SYM_ANNOTATE_H
#define KTRACE_SYM_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>

#include "sym/symtab.h"

struct kt_arch;

/* One instruction. */
struct kt_ainsn {
	uint64_t addr;		/* file address, as the ELF symbol's */
	unsigned int len;	/* bytes */
	char *text;		/* "mnemonic operands" */
	int file;		/* index in files[]; -1: no line known */
	int line;		/* 0: unknown */
	uint64_t samples, period;
};

/* One source line the function's instructions come from. */
struct kt_aline {
	int file, line;		/* files[] index, line number */
	uint64_t samples, period;	/* of its instructions */
	const char *text;	/* the line, no '\n' (in src[file]); NULL:
				 * the source file is not on disk */
	size_t text_len;
};

/* A source file as read from disk: its lines. */
struct kt_asrc {
	char *buf;		/* the whole file */
	const char **line;	/* line[k]: line k + 1, NUL-terminated */
	int nlines;
};

struct kt_annot {
	char *path;		/* the binary */
	char *name;		/* the symbol, as its table spells it */
	char *build_id;		/* hex; NULL: none */
	uint64_t addr, size;	/* the symbol's extent (file addresses) */
	const struct kt_arch *arch;
	struct kt_ainsn *insn;	/* by address */
	size_t ninsn;
	char **files;		/* source file names from DWARF */
	struct kt_asrc *src;	/* src[i]: files[i] read (buf NULL: not) */
	int nfiles;
	struct kt_aline *lines;	/* by file, then line */
	size_t nlines;
	bool has_dwarf;		/* its DWARF (or a debug file's) was found */
	struct kt_segs segs;	/* file offset -> address */
	/* counted by kt_annot_count() */
	uint64_t samples, period;
	uint64_t outside;	/* hits outside the function: samples */
	long hot_insn, hot_line;	/* indices; -1: nothing counted */
};

/* One address with its samples (a file address: kt_annot_vaddr()). */
struct kt_ahit {
	uint64_t addr;
	uint64_t samples, period;
};

/*
 * Annotate the function of the binary at path that holds file offset
 * off (a sampled address): its symbol (the binary's table, or its debug
 * file's when stripped, as symtab.c finds them), instructions, lines,
 * the source files on disk. 0 or -errno: -ENOENT (no such file),
 * -ENOEXEC (not an ELF file of a known architecture), -ESRCH (no
 * function holds off), -EFBIG (over 1 MiB of code), -EIO, -ENOMEM.
 */
int kt_annot_open(struct kt_annot *a, const char *path, uint64_t off);
void kt_annot_free(struct kt_annot *a);
/* File offset off of the binary as a file address; 0 or -ENOENT. */
int kt_annot_vaddr(const struct kt_annot *a, uint64_t off, uint64_t *vaddr);
/*
 * Add hits h[0..n) to the instruction each falls in (one inside an
 * instruction counts for it; one outside the function, in outside), then
 * sum them by source line and find the hottest instruction and line (by
 * period; the first of equals). Counts of an earlier call are kept.
 */
void kt_annot_count(struct kt_annot *a, const struct kt_ahit *h, size_t n);
/* Share of the function's samples in [0, 1] of something counted: by
 * period, or by samples when no period was counted. */
static inline double kt_annot_share(const struct kt_annot *a,
				    uint64_t samples, uint64_t period)
{
	if (a->period)
		return (double)period / (double)a->period;
	return a->samples ? (double)samples / (double)a->samples : 0;
}

/* Disassemble code[0..len) at address addr for arch into *out (n of
 * them; the caller frees each text and the array). Bytes capstone does
 * not decode become ".byte" entries. 0, -EOPNOTSUPP or -ENOMEM. */
int kt_disasm(const struct kt_arch *arch, const uint8_t *code, size_t len,
	      uint64_t addr, struct kt_ainsn **out, size_t *n);

/* Give a's instructions their source lines from f (NULL: none known),
 * then build a->lines (kt_annot_lines()). 0 or -ENOMEM. */
int kt_annot_srclines(struct kt_annot *a, struct kt_dwarf_file *f);
/* a->lines from the instructions' (file, line): one entry each. 0 or
 * -ENOMEM. */
int kt_annot_lines(struct kt_annot *a);
/* Read the source files on disk (regular files, up to 64 MiB) and point
 * each line at its text; files missing are left NULL. 0 or -ENOMEM. */
int kt_annot_sources(struct kt_annot *a);

#endif
