// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The loadable segments of an ELF file, and the one translation between
 * file offsets (what uprobes and mappings speak) and the addresses symbols
 * and DWARF use, for probes (lib/probe) and stacks (lib/record/addrspace.c).
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>

#include "sym/symtab.h"

int kt_segs_read(struct kt_segs *s, Elf *elf)
{
	size_t nph;

	s->v = NULL;
	s->n = 0;
	if (elf_getphdrnum(elf, &nph))
		return -ENOEXEC;
	s->v = calloc(nph ? nph : 1, sizeof(*s->v));
	if (!s->v)
		return -ENOMEM;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		s->v[s->n++] = (struct kt_seg){
			.off = ph.p_offset,
			.vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz,
			.exec = ph.p_flags & PF_X,
		};
	}
	return 0;
}

void kt_segs_free(struct kt_segs *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

const struct kt_seg *kt_segs_of_off(const struct kt_segs *s, uint64_t off,
				    bool exec)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct kt_seg *g = &s->v[i];

		if ((!exec || g->exec) && off >= g->off &&
		    off - g->off < g->filesz)
			return g;
	}
	return NULL;
}

int kt_segs_off_to_vaddr(const struct kt_segs *s, uint64_t off, bool exec,
			 uint64_t *vaddr)
{
	const struct kt_seg *g = kt_segs_of_off(s, off, exec);

	if (!g)
		return -ENOENT;
	*vaddr = off - g->off + g->vaddr;
	return 0;
}

int kt_segs_vaddr_to_off(const struct kt_segs *s, uint64_t vaddr,
			 uint64_t *off)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct kt_seg *g = &s->v[i];

		if (vaddr >= g->vaddr && vaddr - g->vaddr < g->filesz) {
			*off = vaddr - g->vaddr + g->off;
			return 0;
		}
	}
	return -ENOENT;
}
