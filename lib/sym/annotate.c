// SPDX-License-Identifier: LGPL-2.1-only
/*
 * An annotated function (annotate.h): found by a sampled file offset in
 * the binary's symbol table (its debug file's when stripped: the one
 * table of symtab.c), its code read from the binary and disassembled
 * (disasm.c), its lines and sources (srcline.c), and the samples counted
 * per instruction and per line.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/arch.h"
#include "base/internal.h"

#include "sym/annotate.h"

/* Functions over this much code are not annotated. */
#define CODE_MAX (1u << 20)

void kt_annot_free(struct kt_annot *a)
{
	for (size_t i = 0; i < a->ninsn; i++)
		free(a->insn[i].text);
	free(a->insn);
	for (int i = 0; i < a->nfiles; i++) {
		free(a->files[i]);
		if (a->src) {
			free(a->src[i].buf);
			free(a->src[i].line);
		}
	}
	free(a->files);
	free(a->src);
	free(a->lines);
	kt_segs_free(&a->segs);
	free(a->path);
	free(a->name);
	free(a->build_id);
	memset(a, 0, sizeof(*a));
	a->hot_insn = a->hot_line = -1;
}

int kt_annot_vaddr(const struct kt_annot *a, uint64_t off, uint64_t *vaddr)
{
	return kt_segs_off_to_vaddr(&a->segs, off, true, vaddr);
}

/* The symbol holding file offset off of elf (at fd), read into a with its
 * code (*code, a->size bytes; the caller frees it). 0 or -errno. */
static int find_code(struct kt_annot *a, Elf *elf, int fd, uint64_t off,
		     uint8_t **code)
{
	struct kt_symtab t = { 0 };
	const struct kt_sym *s;
	uint64_t vaddr, coff, last;
	int ret = -ESRCH;

	*code = NULL;
	if (kt_annot_vaddr(a, off, &vaddr))
		return -ESRCH;
	/* a stripped binary names its local functions in its debug file */
	if (!kt_symtab_add_elf(&t, elf))
		kt_symtab_add_debug(&t, elf, a->path);
	kt_symtab_sort(&t);
	s = kt_symtab_lookup(&t, vaddr);
	if (!s || !s->size)
		goto out;
	ret = -EFBIG;
	if (s->size > CODE_MAX)
		goto out;
	a->addr = s->addr;
	a->size = s->size;
	ret = -ENOMEM;
	a->name = strdup(s->name);
	if (!a->name)
		goto out;
	ret = -EIO;
	if (kt_segs_vaddr_to_off(&a->segs, s->addr, &coff) ||
	    kt_segs_vaddr_to_off(&a->segs, s->addr + s->size - 1, &last) ||
	    last - coff != s->size - 1)
		goto out;
	ret = -ENOMEM;
	*code = malloc(s->size);
	if (!*code)
		goto out;
	ret = pread(fd, *code, s->size, (off_t)coff) == (ssize_t)s->size ?
	      0 : -EIO;
out:
	kt_symtab_free(&t);
	return ret;
}

/* The ELF part of kt_annot_open(): architecture, segments, build-id,
 * the function and its instructions. 0 or -errno. */
static int read_elf(struct kt_annot *a, int fd, uint64_t off)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	uint8_t *code = NULL;
	GElf_Ehdr eh;
	int ret = -ENOEXEC;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		goto out;
	a->arch = kt_arch_by_machine(eh.e_machine);
	if (!a->arch || kt_segs_read(&a->segs, elf))
		goto out;
	a->build_id = kt_elf_build_id_hex(elf);
	ret = find_code(a, elf, fd, off, &code);
	if (!ret)
		ret = kt_disasm(a->arch, code, a->size, a->addr, &a->insn,
				&a->ninsn);
	if (ret == -EOPNOTSUPP)
		ret = -ENOEXEC;
out:
	free(code);
	elf_end(elf);
	return ret;
}

int kt_annot_open(struct kt_annot *a, const char *path, uint64_t off)
{
	struct kt_dwarf_file *dw;
	int fd, ret;

	memset(a, 0, sizeof(*a));
	a->hot_insn = a->hot_line = -1;
	a->path = strdup(path);
	if (!a->path)
		return -ENOMEM;
	elf_version(EV_CURRENT);
	fd = kt_open_regular(path);
	if (fd < 0)
		return errno == ENOMEM ? -ENOMEM : -ENOENT;
	ret = read_elf(a, fd, off);
	close(fd);
	if (ret)
		return ret;
	dw = kt_dwarf_file_open(path);
	a->has_dwarf = dw != NULL;
	ret = kt_annot_srclines(a, dw);
	kt_dwarf_file_free(dw);
	if (!ret)
		ret = kt_annot_sources(a);
	return ret;
}

/* The instruction that holds addr, or -1. */
static long insn_of(const struct kt_annot *a, uint64_t addr)
{
	size_t lo = 0, hi = a->ninsn;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kt_ainsn *in = &a->insn[mid];

		if (addr < in->addr)
			hi = mid;
		else if (addr >= in->addr + in->len)
			lo = mid + 1;
		else
			return (long)mid;
	}
	return -1;
}

/* The line entry of instruction i, or NULL. */
static struct kt_aline *line_of(struct kt_annot *a, const struct kt_ainsn *in)
{
	size_t lo = 0, hi = a->nlines;

	if (in->file < 0)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct kt_aline *l = &a->lines[mid];

		if (l->file == in->file && l->line == in->line)
			return l;
		if (l->file < in->file ||
		    (l->file == in->file && l->line < in->line))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Per line sums and the hottest instruction and line, from the
 * instructions' counts. */
static void sum_lines(struct kt_annot *a)
{
	for (size_t k = 0; k < a->nlines; k++)
		a->lines[k].samples = a->lines[k].period = 0;
	a->hot_insn = a->hot_line = -1;
	for (size_t i = 0; i < a->ninsn; i++) {
		const struct kt_ainsn *in = &a->insn[i];
		struct kt_aline *l = line_of(a, in);

		if (l) {
			l->samples += in->samples;
			l->period += in->period;
		}
		if (in->samples && (a->hot_insn < 0 ||
		    in->period > a->insn[a->hot_insn].period ||
		    (!a->period &&
		     in->samples > a->insn[a->hot_insn].samples)))
			a->hot_insn = (long)i;
	}
	for (size_t k = 0; k < a->nlines; k++) {
		const struct kt_aline *l = &a->lines[k];

		if (l->samples && (a->hot_line < 0 ||
		    l->period > a->lines[a->hot_line].period ||
		    (!a->period &&
		     l->samples > a->lines[a->hot_line].samples)))
			a->hot_line = (long)k;
	}
}

void kt_annot_count(struct kt_annot *a, const struct kt_ahit *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		long k = insn_of(a, h[i].addr);

		if (k < 0) {
			a->outside += h[i].samples;
			continue;
		}
		a->insn[k].samples += h[i].samples;
		a->insn[k].period += h[i].period;
		a->samples += h[i].samples;
		a->period += h[i].period;
	}
	sum_lines(a);
}
