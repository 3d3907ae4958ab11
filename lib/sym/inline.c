// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Inlined frames: the DWARF scopes at an address (dwarf_getscopes) name
 * the functions the compiler inlined there, innermost first, as perf
 * script shows them with "(inlined)". The binary's DWARF or its separate
 * debug file is read through an offline Dwfl.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include "base/internal.h"

#include "sym/symtab.h"

/* Room for libdw to read a CU's DIEs and line table in. */
#define DW_HEADROOM (4u << 20)

struct kt_dwarf_file {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;	/* module address = file address + bias */
	Dwfl_Callbacks cb;
};

/* The file at path, its name for libdw (which frees it); -1 when none. */
static int open_debug(const char *path, char **name)
{
	int fd = kt_open_elf(path, KT_ELF_MAX);

	if (fd < 0)
		return -1;
	*name = strdup(path);
	if (!*name) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The build-id of the ELF file at path equals id[n]. */
static bool has_build_id(const char *path, const void *id, ssize_t n)
{
	int fd = kt_open_elf(path, KT_ELF_MAX);
	const void *fid;
	bool same = false;
	Elf *e;

	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e)
		same = dwelf_elf_gnu_build_id(e, &fid) == n &&
		       !memcmp(fid, id, n);
	elf_end(e);
	close(fd);
	return same;
}

/*
 * The module's separate DWARF, found where its symbols are (symtab.c's
 * rule: by build-id, then by .gnu_debuglink with its CRC), and a dwz
 * "alt" file (.gnu_debugaltlink: by its build-id, then the absolute path
 * it names when its build-id matches). Local files only: libdw's standard
 * lookup goes on to debuginfod, dlopen()ing it and libcurl, which the
 * static ktrace binary must not (nor do its symbols come from there).
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	const unsigned char *id;
	const char *alt;
	char path[8192];
	Dwarf_Addr bias;
	GElf_Addr vaddr;
	Dwarf *dw;
	ssize_t n;
	int fd;

	(void)userdata, (void)modname, (void)base;
	/*
	 * libdw asks for the alt file with its name, and only then (the
	 * module's DWARF is loaded by now): a debuglink is a bare name. A
	 * hostile debuglink with a '/' lands here before any DWARF: libdw
	 * has noted its lookup as failed, getdwarf gives NULL, nothing is
	 * opened (tested).
	 */
	if (debuglink && strchr(debuglink, '/')) {
		dw = dwfl_module_getdwarf(mod, &bias);
		n = dw ? dwelf_dwarf_gnu_debugaltlink(dw, &alt,
						      (const void **)&id) : -1;
		if (n <= 0)
			return -1;
		if (!kt_debug_build_id_path(id, n, path, sizeof(path)) &&
		    (fd = open_debug(path, debuginfo_file_name)) >= 0)
			return fd;
		if (debuglink[0] == '/' && has_build_id(debuglink, id, n))
			return open_debug(debuglink, debuginfo_file_name);
		return -1;
	}
	n = dwfl_module_build_id(mod, &id, &vaddr);
	if (n > 0 && !kt_debug_build_id_path(id, n, path, sizeof(path)) &&
	    (fd = open_debug(path, debuginfo_file_name)) >= 0)
		return fd;
	if (!kt_debuglink_path(debuglink, crc, file_name, path, sizeof(path)))
		return open_debug(path, debuginfo_file_name);
	errno = ENOENT;
	return -1;
}

/* Never called: an offline module is opened by its path. */
static int no_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		  Dwarf_Addr base, char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base;
	(void)file_name, (void)elfp;
	errno = ENOENT;
	return -1;
}

struct kt_dwarf_file *kt_dwarf_file_open(const char *path)
{
	struct kt_dwarf_file *f;
	Dwarf_Addr dwbias;
	int fd;

	if (!kt_mem_headroom(DW_HEADROOM))
		return NULL;	/* as in kt_dwarf_inlines() */
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->cb.find_elf = no_elf;
	f->cb.find_debuginfo = find_debuginfo;
	f->cb.section_address = dwfl_offline_section_address;
	f->dwfl = dwfl_begin(&f->cb);
	if (!f->dwfl)
		goto fail;
	/* libdw reads what ktrace opened (never a FIFO at path); the fd
	 * is libdw's once the module is reported */
	fd = kt_open_elf(path, KT_ELF_MAX);
	if (fd < 0)
		goto fail;
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_offline(f->dwfl, "", path, fd);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod)
		close(fd);
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

void kt_srclines_free(struct kt_srcline *src, int n)
{
	for (int i = 0; i < n; i++) {
		free(src[i].file);
		free(src[i].sysname);
	}
}

/* The function's start line and linkage name (through its abstract
 * origin, for an inlined one) into sl. */
static void src_func(Dwarf_Die *fn, struct kt_srcline *sl)
{
	Dwarf_Attribute a;
	const char *ln;

	if (dwarf_decl_line(fn, &sl->start))
		sl->start = 0;
	ln = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_linkage_name, &a));
	sl->sysname = ln ? strdup(ln) : NULL;
}

/* The file and line where inlined scope in was called, from its cu. */
static void src_call_site(Dwarf_Die *cu, Dwarf_Die *in, struct kt_srcline *sl)
{
	Dwarf_Attribute a;
	Dwarf_Word fidx = 0, line = 0;
	Dwarf_Files *files;
	const char *name;
	size_t nf;

	if (dwarf_formudata(dwarf_attr(in, DW_AT_call_file, &a), &fidx) ||
	    dwarf_formudata(dwarf_attr(in, DW_AT_call_line, &a), &line) ||
	    dwarf_getsrcfiles(cu, &files, &nf) || fidx >= nf)
		return;
	name = dwarf_filesrc(files, fidx, NULL, NULL);
	sl->file = name ? strdup(name) : NULL;
	sl->line = (int)line;
}

/* The source line of module address addr itself. */
static void src_addr(struct kt_dwarf_file *f, Dwarf_Addr addr,
		     struct kt_srcline *sl)
{
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, addr);
	const char *name = l ? dwfl_lineinfo(l, NULL, &sl->line, NULL, NULL,
					     NULL) : NULL;

	sl->file = name ? strdup(name) : NULL;
}

char *kt_dwarf_srcline(struct kt_dwarf_file *f, uint64_t vaddr, int *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, vaddr + f->bias);
	const char *name, *dir;
	char *path = NULL;

	*line = 0;
	name = l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
	dir = name && name[0] != '/' ? dwfl_line_comp_dir(l) : NULL;
	if (dir && dir[0]) {
		if (asprintf(&path, "%s/%s", dir, name) < 0)
			path = NULL;
	} else if (name) {
		path = strdup(name);
	}
	if (!path)
		*line = 0;
	return path;
}

/*
 * The scopes at module address addr, innermost first, through the
 * concrete tree (dwarf_getscopes also lists abstract origins), as
 * eu-addr2line -i walks them; *cu its compile unit. How many, in *out
 * (the caller frees it).
 */
static int scopes_at(struct kt_dwarf_file *f, Dwarf_Addr addr,
		     Dwarf_Die **cu, Dwarf_Die **out)
{
	Dwarf_Addr dwbias = 0;
	Dwarf_Die *scopes = NULL;
	int n;

	*out = NULL;
	*cu = dwfl_module_addrdie(f->mod, addr, &dwbias);
	if (!*cu)
		return 0;
	n = dwarf_getscopes(*cu, addr - dwbias, &scopes);
	if (n > 0) {
		Dwarf_Die inner = scopes[0];

		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	*out = scopes;
	return n;
}

int kt_dwarf_inlines(struct kt_dwarf_file *f, uint64_t vaddr, char **names,
		     struct kt_srcline *src, int max)
{
	Dwarf_Addr addr = vaddr + f->bias;
	Dwarf_Die *cu, *scopes;
	int n, k = 0;

	if (src)
		memset(src, 0, (max + 1) * sizeof(*src));
	/* libdw crashes where an allocation fails (a CU's line table):
	 * near a memory limit, no inlines */
	if (!kt_mem_headroom(DW_HEADROOM))
		return 0;
	if (src)
		src_addr(f, addr, &src[0]);
	n = scopes_at(f, addr, &cu, &scopes);
	for (int i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		const char *name;

		if (tag == DW_TAG_subprogram) {
			if (src)
				src_func(&scopes[i], &src[k]);
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		name = dwarf_diename(&scopes[i]);
		if (!name)
			name = "[unknown]";
		names[k] = kt_demangle(name);
		if (!names[k])
			names[k] = strdup(name);
		if (!names[k])
			continue;
		if (src) {
			src_func(&scopes[i], &src[k]);
			src_call_site(cu, &scopes[i], &src[k + 1]);
		}
		k++;
	}
	free(scopes);
	return k;
}
