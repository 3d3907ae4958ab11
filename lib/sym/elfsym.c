// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The one walk over an ELF file's code symbols (.symtab and .dynsym, with
 * .dynsym's symbol versions), for both users of ELF symbols: probes
 * (lib/probe/uelf.c: name -> address, versions, close matches) and stacks
 * (symtab.c: address -> name).
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "sym/symtab.h"

/* Version names of .gnu.version_d by index (pointers into elf's string
 * table); the array is the caller's to free. NULL when there is none. */
static const char **read_verdefs(Elf *elf, Elf_Scn *scn, size_t *count)
{
	const char **names = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	size_t n = 0;
	size_t off = 0;

	if (!gelf_getshdr(scn, &sh))
		return NULL;
	data = elf_getdata(scn, NULL);
	if (!data)
		return NULL;
	for (;;) {
		GElf_Verdef vd;
		GElf_Verdaux va;

		if (off > INT32_MAX || !gelf_getverdef(data, (int)off, &vd))
			break;
		if (vd.vd_cnt &&
		    gelf_getverdaux(data, (int)(off + vd.vd_aux), &va)) {
			const char *s = elf_strptr(elf, sh.sh_link, va.vda_name);

			if (s && vd.vd_ndx < 0x8000) {
				if (vd.vd_ndx >= n) {
					const char **nn = realloc(names,
						(vd.vd_ndx + 1) * sizeof(*nn));

					if (!nn)
						break;
					memset(nn + n, 0,
					       (vd.vd_ndx + 1 - n) * sizeof(*nn));
					names = nn;
					n = vd.vd_ndx + 1;
				}
				names[vd.vd_ndx] = s;
			}
		}
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
	*count = n;
	return names;
}

/* Code: a function, an ifunc, or an untyped label in an executable
 * section; defined, with an address. */
static bool sym_is_code(Elf *elf, const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE ||
	    !s->st_value)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	if (type != STT_NOTYPE)
		return false;
	scn = elf_getscn(elf, s->st_shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

int kt_elf_code_syms(Elf *elf, kt_elf_sym_fn fn, void *arg)
{
	Elf_Scn *scn = NULL, *versym_scn = NULL, *verdef_scn = NULL;
	bool symtab = false;
	int ret = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_GNU_versym)
			versym_scn = scn;
		else if (sh.sh_type == SHT_GNU_verdef)
			verdef_scn = scn;
	}
	scn = NULL;
	while (!ret && (scn = elf_nextscn(elf, scn))) {
		struct kt_elf_sym es = { 0 };
		Elf_Data *data, *vdata = NULL;
		const char **vnames = NULL;
		size_t nvnames = 0, n;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		es.dynamic = sh.sh_type == SHT_DYNSYM;
		symtab |= !es.dynamic;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		if (es.dynamic && versym_scn) {
			vdata = elf_getdata(versym_scn, NULL);
			if (verdef_scn)
				vnames = read_verdefs(elf, verdef_scn,
						      &nvnames);
		}
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n && !ret; i++) {
			GElf_Versym vs;

			if (!gelf_getsym(data, (int)i, &es.sym) ||
			    !sym_is_code(elf, &es.sym))
				continue;
			es.name = elf_strptr(elf, sh.sh_link, es.sym.st_name);
			if (!es.name || !*es.name)
				continue;
			es.version = NULL;
			es.hidden = false;
			if (vdata && gelf_getversym(vdata, (int)i, &vs)) {
				size_t idx = vs & 0x7fff;

				es.hidden = vs & 0x8000;
				if (idx > 1 && idx < nvnames)
					es.version = vnames[idx];
			}
			ret = fn(&es, arg);
		}
		free(vnames);
	}
	return ret < 0 ? ret : symtab;
}
