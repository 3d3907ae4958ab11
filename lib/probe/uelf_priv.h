/* SPDX-License-Identifier: LGPL-2.1-only */
/* Shared between uresolve.c (ELF, symbols) and udwarf.c (DWARF). */
#ifndef KTRACE_URESOLVE_PRIV_H
#define KTRACE_URESOLVE_PRIV_H

#include <gelf.h>
#include <elfutils/libdw.h>

#include "probe/uelf.h"

struct usym {
	char *name;		/* without version */
	char *version;		/* NULL: unversioned */
	char *demangled;	/* NULL: not a C++ name */
	unsigned long addr;
	unsigned long size;
	bool hidden;		/* name@VER rather than name@@VER */
};

struct uresolve {
	char *path;
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	GElf_Phdr *phdrs;	/* PT_LOAD only */
	size_t nphdrs;

	struct usym *syms;	/* loaded on first use */
	size_t nsyms;
	bool syms_loaded;
	bool has_symtab;	/* not stripped */

	/* DWARF, loaded on first use by udwarf.c */
	bool dw_tried;
	int dw_errno;
	int dw_fd;
	Dwarf *dw;
	Dwarf_CFI *cfi_eh;	/* .eh_frame of the binary */
	char *dw_path;		/* file the DWARF came from */
};

/* vaddr -> file offset via the PT_LOAD holding it; 0 or -ENOENT. */
int kt_ures_vaddr_to_off(const struct uresolve *ur, unsigned long vaddr,
		    unsigned long *off);
/* file offset -> vaddr via the PT_LOAD holding it; 0 or -ENOENT. */
int kt_ures_off_to_vaddr(const struct uresolve *ur, unsigned long off,
		    unsigned long *vaddr);
/* The PT_LOAD holding file offset off, or NULL. Borrowed. */
const GElf_Phdr *kt_ures_seg_of_off(const struct uresolve *ur, unsigned long off);
/* Release what udwarf.c loaded. */
void kt_ures_dwarf_free(struct uresolve *ur);

#endif
