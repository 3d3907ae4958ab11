// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Inlined frames: the DWARF scopes at an address (dwarf_getscopes) name
 * the functions the compiler inlined there, innermost first, as perf
 * script shows them with "(inlined)". The binary's DWARF or its separate
 * debug file (found by build-id) is read through an offline Dwfl.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>

#include "sym/symtab.h"

struct kt_dwarf_file {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;	/* module address = file address + bias */
	char *debuginfo_path;
	Dwfl_Callbacks cb;
};

struct kt_dwarf_file *kt_dwarf_file_open(const char *path)
{
	struct kt_dwarf_file *f = calloc(1, sizeof(*f));
	Dwarf_Addr dwbias;

	if (!f)
		return NULL;
	f->cb.find_elf = dwfl_build_id_find_elf;
	f->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	f->cb.section_address = dwfl_offline_section_address;
	f->cb.debuginfo_path = &f->debuginfo_path;
	f->dwfl = dwfl_begin(&f->cb);
	if (!f->dwfl)
		goto fail;
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_offline(f->dwfl, "", path, -1);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod || !dwfl_module_getelf(f->mod, &f->bias) ||
	    !dwfl_module_getdwarf(f->mod, &dwbias))
		goto fail;
	return f;
fail:
	kt_dwarf_file_free(f);
	return NULL;
}

void kt_dwarf_file_free(struct kt_dwarf_file *f)
{
	if (!f)
		return;
	if (f->dwfl)
		dwfl_end(f->dwfl);
	free(f);
}

int kt_dwarf_inlines(struct kt_dwarf_file *f, uint64_t vaddr, char **names,
		     int max)
{
	Dwarf_Addr addr = vaddr + f->bias, dwbias = 0;
	Dwarf_Die *cu, *scopes = NULL;
	int n, k = 0;

	cu = dwfl_module_addrdie(f->mod, addr, &dwbias);
	if (!cu)
		return 0;
	n = dwarf_getscopes(cu, addr - dwbias, &scopes);
	if (n > 0) {
		/* from the innermost DIE outwards through the concrete tree
		 * (dwarf_getscopes also lists abstract origins), as
		 * eu-addr2line -i walks it */
		Dwarf_Die inner = scopes[0], *chain = NULL;

		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &chain);
		scopes = chain;
	}
	for (int i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		const char *name;

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		name = dwarf_diename(&scopes[i]);
		if (!name)
			name = "[unknown]";
		names[k] = kt_demangle(name);
		if (!names[k])
			names[k] = strdup(name);
		if (names[k])
			k++;
	}
	free(scopes);
	return k;
}
