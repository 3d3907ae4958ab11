/* SPDX-License-Identifier: LGPL-2.1-only */
/* The handle shared by uelf.c (ELF, symbols) and dwarf.c (DWARF). */
#ifndef KTRACE_PROBE_UELF_PRIV_H
#define KTRACE_PROBE_UELF_PRIV_H

#include <gelf.h>
#include <elfutils/libdw.h>

#include "probe/uelf.h"
#include "sym/symtab.h"

struct usym {
	char *name;		/* without version */
	char *version;		/* NULL: unversioned */
	char *demangled;	/* NULL: not a C++ name */
	unsigned long addr;
	unsigned long size;
	bool hidden;		/* name@VER rather than name@@VER */
};

struct kt_uelf {
	char *path;
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	struct kt_segs segs;	/* PT_LOAD */

	struct usym *syms;	/* loaded on first use */
	size_t nsyms;
	bool syms_loaded;
	bool has_symtab;	/* not stripped */

	/* DWARF, loaded on first use by dwarf.c */
	bool dw_tried;
	int dw_errno;
	int dw_fd;
	Dwarf *dw;
	Dwarf_CFI *cfi_eh;	/* .eh_frame of the binary */
	char *dw_path;		/* file the DWARF came from (or the
				 * stale one refused) */
};

/* Release what dwarf.c loaded (kt_uelf_free() calls it). */
void kt_dwarf_free(struct kt_uelf *ue);

#endif
