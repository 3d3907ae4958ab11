// SPDX-License-Identifier: LGPL-2.1-only
/*
 * User-space probe resolution, DWARF part: loading debug info (in the file,
 * or the separate file lib/sym finds), FILE:LINE -> file offset, and variable
 * expressions -> uprobe fetchargs with types.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "base/internal.h"
#include "arch/arch.h"
#include "probe/dwarf.h"
#include "probe/fetcharg.h"
#include "probe/uelf_priv.h"
#include "sym/symtab.h"

/* ------------------------------------------------------------ loading */

static bool elf_has_debug_info(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".debug_info"))
			return true;
	}
	return false;
}

/* Open path if it is an ELF file with .debug_info; fd or -1. */
static int open_debug_file(const char *path, Dwarf **dw)
{
	int fd = kt_open_elf(path, KT_ELF_MAX);
	Elf *elf;
	bool ok;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = elf && elf_has_debug_info(elf);
	if (elf)
		elf_end(elf);
	if (ok)
		*dw = dwarf_begin(fd, DWARF_C_READ);
	if (!ok || !*dw) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The binary's separate debug file, where its symbols are found
 * (sym/symtab.h: by build-id, then by .gnu_debuglink with its CRC, so
 * that a stale file never gives offsets or types).
 */
static int find_separate_debug(struct kt_uelf *ue)
{
	const unsigned char *id;
	ssize_t n = dwelf_elf_gnu_build_id(ue->elf, (const void **)&id);
	GElf_Word crc;
	const char *link = dwelf_elf_gnu_debuglink(ue->elf, &crc);
	char path[PATH_MAX];
	int ret;

	if (n > 0 && !kt_debug_build_id_path(id, n, path, sizeof(path)) &&
	    (ue->dw_fd = open_debug_file(path, &ue->dw)) >= 0)
		goto found;
	ret = kt_debuglink_path(link, crc, ue->path, path, sizeof(path));
	if (ret && ret != -ENOENT && ret != -ENOMEM) {
		ue->dw_path = strdup(path);	/* named in the error */
		return ue->dw_path ? ret : -ENOMEM;
	}
	if (!ret && (ue->dw_fd = open_debug_file(path, &ue->dw)) >= 0)
		goto found;
	return -ENOENT;
found:
	ue->dw_path = strdup(path);
	return ue->dw_path ? 0 : -ENOMEM;
}

static int load_dwarf(struct kt_uelf *ue, struct ktrace_err *err)
{
	if (!ue->dw_tried) {
		ue->dw_tried = true;
		if (elf_has_debug_info(ue->elf)) {
			ue->dw = dwarf_begin_elf(ue->elf, DWARF_C_READ, NULL);
			ue->dw_path = strdup(ue->path);
			if (!ue->dw || !ue->dw_path)
				ue->dw_errno = ue->dw ? ENOMEM : ENODATA;
		} else {
			ue->dw_errno = -find_separate_debug(ue);
			if (ue->dw_errno == ENOENT)
				ue->dw_errno = ENODATA;
		}
		ue->cfi_eh = dwarf_getcfi_elf(ue->elf);
	}
	if (ue->dw_errno && ue->dw_path && kt_debuglink_refusal(-ue->dw_errno))
		return kt_err_set(err, ue->dw_errno,
			"'%s': its debug file '%s' (.gnu_debuglink) is %s",
			ue->path, ue->dw_path,
			kt_debuglink_refusal(-ue->dw_errno));
	if (ue->dw_errno == ENODATA)
		return kt_err_set(err, ENODATA,
			"'%s' has no DWARF debug info: install its -dbgsym package or rebuild with -g",
			ue->path);
	if (ue->dw_errno)
		return kt_err_set(err, ue->dw_errno,
			"'%s': cannot load DWARF debug info: %s", ue->path,
			strerror(ue->dw_errno));
	return 0;
}

void kt_dwarf_free(struct kt_uelf *ue)
{
	if (ue->cfi_eh)
		dwarf_cfi_end(ue->cfi_eh);
	if (ue->dw)
		dwarf_end(ue->dw);
	if (ue->dw_fd >= 0)
		close(ue->dw_fd);
	free(ue->dw_path);
	ue->cfi_eh = NULL;
	ue->dw = NULL;
	ue->dw_fd = -1;
	ue->dw_path = NULL;
	ue->dw_tried = false;
}

/* ------------------------------------------------------------- FILE:LINE */

/* Does the line table's path src name the user's file? */
static bool src_matches(const char *src, const char *file)
{
	size_t ls = strlen(src), lf = strlen(file);

	if (ls < lf || strcmp(src + ls - lf, file))
		return false;
	return ls == lf || src[ls - lf - 1] == '/' || file[0] == '/';
}

int kt_dwarf_line(struct kt_uelf *ue, const char *file, int line,
		  unsigned long *file_off, struct ktrace_err *err)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	bool seen_file = false, found = false, found_any = false;
	Dwarf_Addr best = 0, best_any = 0;
	int below = 0, above = 0;
	uint64_t off;
	int ret;

	ret = load_dwarf(ue, err);
	if (ret)
		return ret;
	if (line <= 0)
		return kt_err_set(err, EINVAL, "bad line number %d", line);
	while (dwarf_get_units(ue->dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		Dwarf_Lines *lines;
		size_t n, i;

		if (dwarf_getsrclines(&cudie, &lines, &n) != 0)
			continue;
		for (i = 0; i < n; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			const char *src;
			Dwarf_Addr addr;
			bool stmt = false, end = false;
			int no;

			if (!l || dwarf_lineno(l, &no) || dwarf_lineaddr(l, &addr))
				continue;
			dwarf_lineendsequence(l, &end);
			dwarf_linebeginstatement(l, &stmt);
			if (end)
				continue;
			src = dwarf_linesrc(l, NULL, NULL);
			if (!src || !src_matches(src, file))
				continue;
			seen_file = true;
			if (no == line && (!found_any || addr < best_any)) {
				best_any = addr;
				found_any = true;
			}
			if (!stmt)
				continue;
			if (no == line) {
				if (!found || addr < best)
					best = addr;
				found = true;
			} else if (no < line && no > below) {
				below = no;
			} else if (no > line && (!above || no < above)) {
				above = no;
			}
		}
	}
	if (!seen_file)
		return kt_err_set(err, ENOENT,
			"no source file '%s' in the debug info of '%s'", file,
			ue->path);
	if (!found && found_any) {
		/* only rows the compiler did not mark as statements */
		best = best_any;
		found = true;
	}
	if (!found) {
		if (below && above)
			return kt_err_set(err, ENOENT,
				"no code at %s:%d; nearest lines with code: %d, %d",
				file, line, below, above);
		return kt_err_set(err, ENOENT,
			"no code at %s:%d; nearest line with code: %d", file,
			line, below ? below : above);
	}
	if (kt_segs_vaddr_to_off(&ue->segs, best, &off))
		return kt_err_set(err, ENOEXEC,
			"address 0x%" PRIx64 " of %s:%d is not in a loadable segment",
			best, file, line);
	*file_off = off;
	return 0;
}

/* ------------------------------------------------------- variable access */

static const char *dwarf_reg_name(const struct kt_uelf *ue, unsigned int r)
{
	return kt_arch_dwarf_reg(kt_arch_by_machine(ue->ehdr.e_machine), r);
}

enum loc_kind {
	LOC_REG,	/* the value is base itself ("%di", "$retval", "+8(%di)") */
	LOC_MEM,	/* the value is in memory at value(base) + off */
	LOC_FILE,	/* the value is in memory at file offset off (@+) */
};

/* Skip typedefs and qualifiers. false when there is no type (void). */
static bool peel_type(Dwarf_Die *type)
{
	for (;;) {
		Dwarf_Attribute a;

		switch (dwarf_tag(type)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!dwarf_attr_integrate(type, DW_AT_type, &a) ||
			    !dwarf_formref_die(&a, type))
				return false;
			break;
		default:
			return true;
		}
	}
}

/* The DW_AT_type of die, peeled; false for void / no type. */
static bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) ||
	    !dwarf_formref_die(&a, type))
		return false;
	return peel_type(type);
}

static bool is_char_type(Dwarf_Die *type)
{
	Dwarf_Word enc, size;
	Dwarf_Attribute a;

	if (dwarf_tag(type) != DW_TAG_base_type)
		return false;
	if (!dwarf_attr(type, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc))
		return false;
	size = dwarf_bytesize(type);
	return size == 1 && (enc == DW_ATE_signed_char ||
			     enc == DW_ATE_unsigned_char ||
			     ((enc == DW_ATE_signed || enc == DW_ATE_unsigned) &&
			      dwarf_diename(type) &&
			      strstr(dwarf_diename(type), "char")));
}

static int member_offset(Dwarf_Die *member, Dwarf_Word *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr_integrate(member, DW_AT_data_member_location, &a)) {
		*off = 0;	/* union members, DWARF 5 bit fields */
		return 0;
	}
	if (!dwarf_formudata(&a, off))
		return 0;
	if (!dwarf_getlocation(&a, &ops, &nops) && nops == 1 &&
	    ops[0].atom == DW_OP_plus_uconst) {
		*off = ops[0].number;
		return 0;
	}
	return -ENOTSUP;
}

/* Find member name in struct/union type, looking into anonymous members. */
static bool find_member(Dwarf_Die *type, const char *name, Dwarf_Die *out,
			Dwarf_Word *off)
{
	Dwarf_Die child;

	if (dwarf_child(type, &child))
		return false;
	do {
		const char *n;
		Dwarf_Word moff;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		if (member_offset(&child, &moff))
			continue;
		n = dwarf_diename(&child);
		if (n && !strcmp(n, name)) {
			*out = child;
			*off = moff;
			return true;
		}
		if (!n) {
			Dwarf_Die sub;
			Dwarf_Word suboff;

			if (die_type(&child, &sub) &&
			    (dwarf_tag(&sub) == DW_TAG_structure_type ||
			     dwarf_tag(&sub) == DW_TAG_union_type) &&
			    find_member(&sub, name, out, &suboff)) {
				*off = moff + suboff;
				return true;
			}
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Names of the members of a struct type (caller frees), for messages. */
static char *member_names(Dwarf_Die *type)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	Dwarf_Die child;
	bool first = true;

	if (!f)
		return NULL;
	if (dwarf_child(type, &child) == 0) {
		do {
			const char *n = dwarf_diename(&child);

			if (dwarf_tag(&child) != DW_TAG_member || !n)
				continue;
			fprintf(f, "%s%s", first ? "" : ", ", n);
			first = false;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	fclose(f);
	return out;
}

static const char *type_kind_name(Dwarf_Die *type)
{
	switch (dwarf_tag(type)) {
	case DW_TAG_structure_type:
		return "a struct";
	case DW_TAG_union_type:
		return "a union";
	case DW_TAG_class_type:
		return "a class";
	case DW_TAG_pointer_type:
		return "a pointer";
	case DW_TAG_array_type:
		return "an array";
	default:
		return "not a struct";
	}
}

static bool is_aggregate(Dwarf_Die *type)
{
	int tag = dwarf_tag(type);

	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* Element count of a one-dimensional array; -1 for several dimensions. */
static long array_count(Dwarf_Die *type)
{
	Dwarf_Die sub;
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Sword lo = 0, hi;
	long count = 0;
	int dims = 0;

	if (dwarf_child(type, &sub))
		return 0;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		dims++;
		if (dwarf_attr(&sub, DW_AT_count, &a) && !dwarf_formudata(&a, &w))
			count = w;
		else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) &&
			 !dwarf_formsdata(&a, &hi)) {
			if (dwarf_attr(&sub, DW_AT_lower_bound, &a))
				dwarf_formsdata(&a, &lo);
			count = hi - lo + 1;
		}
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return dims > 1 ? -1 : count;
}

/* Integer fetch type ("s32", "x64"...) for a scalar type, or NULL. */
static const char *scalar_type(Dwarf_Die *type, int ptr_size)
{
	static const char *const names[3][4] = {
		{ "u8", "u16", "u32", "u64" },
		{ "s8", "s16", "s32", "s64" },
		{ "x8", "x16", "x32", "x64" },
	};
	Dwarf_Attribute a;
	Dwarf_Word enc = DW_ATE_unsigned;
	Dwarf_Die under;
	int size, kind, i;

	switch (dwarf_tag(type)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		size = ptr_size;
		kind = 2;
		break;
	case DW_TAG_enumeration_type:
		size = dwarf_bytesize(type);
		kind = 0;
		if (die_type(type, &under) &&
		    dwarf_attr(&under, DW_AT_encoding, &a) &&
		    !dwarf_formudata(&a, &enc) &&
		    (enc == DW_ATE_signed || enc == DW_ATE_signed_char))
			kind = 1;
		break;
	case DW_TAG_base_type:
		size = dwarf_bytesize(type);
		if (dwarf_attr(type, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
			kind = 1;
		else if (enc == DW_ATE_float)
			kind = 2;	/* uprobes have no floats: raw bits */
		else
			kind = 0;
		break;
	default:
		return NULL;
	}
	for (i = 0; i < 4; i++)
		if (size == 1 << i)
			return names[kind][i];
	return NULL;
}

/* Frame base at pc for DW_OP_fbreg: base register name and offset. */
static int frame_base(struct kt_uelf *ue, Dwarf_Die *func, Dwarf_Addr pc,
		      const char **reg, long *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops, *cfa;
	size_t nops, ncfa;
	Dwarf_Frame *frame = NULL;
	Dwarf_CFI *cfis[2];
	int i;

	if (!func || !dwarf_attr_integrate(func, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) != 1 || nops != 1)
		return -ENOTSUP;
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*reg = dwarf_reg_name(ue, ops[0].atom - DW_OP_breg0);
		*off = (long)ops[0].number;
		return *reg ? 0 : -ENOTSUP;
	}
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		*reg = dwarf_reg_name(ue, ops[0].atom - DW_OP_reg0);
		*off = 0;
		return *reg ? 0 : -ENOTSUP;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -ENOTSUP;
	cfis[0] = ue->cfi_eh;
	cfis[1] = dwarf_getcfi(ue->dw);
	for (i = 0; i < 2; i++) {
		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], pc, &frame))
			continue;
		if (!dwarf_frame_cfa(frame, &cfa, &ncfa) && ncfa == 1) {
			unsigned int r = ~0u;

			if (cfa[0].atom == DW_OP_bregx) {
				r = cfa[0].number;
				*off = (long)cfa[0].number2;
			} else if (cfa[0].atom >= DW_OP_breg0 &&
				   cfa[0].atom <= DW_OP_breg31) {
				r = cfa[0].atom - DW_OP_breg0;
				*off = (long)cfa[0].number;
			}
			*reg = dwarf_reg_name(ue, r);
			free(frame);
			return *reg ? 0 : -ENOTSUP;
		}
		free(frame);
		frame = NULL;
	}
	return -ENOTSUP;
}

/* File offset base of the segment holding the probe, for @+ fetches. */
static long file_off_of(const struct kt_uelf *ue, unsigned long probe_off,
			Dwarf_Addr addr)
{
	const struct kt_seg *g = kt_segs_of_off(&ue->segs, probe_off, false);

	/*
	 * The kernel maps @+OFF with the probe's own segment:
	 * vaddr = probe_vaddr - probe_off + OFF. (probe_off was resolved
	 * into a segment, so one holds it.)
	 */
	return g ? (long)(addr - (g->vaddr - g->off)) : (long)addr;
}

struct resolve_ctx {
	struct kt_uelf *ue;
	unsigned long probe_off;
	Dwarf_Addr pc;
	Dwarf_Die *func;	/* innermost subprogram, or NULL */
	const char *name;
	struct ktrace_err *err;
};

/* Variable DIE -> location at pc. */
static int var_location(struct resolve_ctx *c, Dwarf_Die *var,
			struct kt_fetcharg *l)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	unsigned int atom, r;
	const char *reg;
	char rname[32];
	bool in_mem = false;
	long off = 0;
	int n;

	if (!dwarf_attr_integrate(var, DW_AT_location, &a)) {
		if (dwarf_attr_integrate(var, DW_AT_const_value, &a))
			return kt_err_set(c->err, ENOTSUP,
				"'%s' was turned into a constant by the compiler",
				c->name);
		return kt_err_set(c->err, ENOENT,
			"'%s' is optimized out", c->name);
	}
	n = dwarf_getlocation_addr(&a, c->pc, &ops, &nops, 1);
	if (n <= 0 || nops == 0)
		return kt_err_set(c->err, ENOENT,
			"'%s' is optimized out at this probe point", c->name);
	atom = ops[0].atom;
	if (nops != 1)
		goto unsupported;
	if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
		r = atom - DW_OP_reg0;
	} else if (atom == DW_OP_regx) {
		r = ops[0].number;
	} else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
		r = atom - DW_OP_breg0;
		in_mem = true;
		off = (long)ops[0].number;
	} else if (atom == DW_OP_bregx) {
		r = ops[0].number;
		in_mem = true;
		off = (long)ops[0].number2;
	} else if (atom == DW_OP_fbreg) {
		long fboff = 0;

		if (frame_base(c->ue, c->func, c->pc, &reg, &fboff))
			return kt_err_set(c->err, ENOTSUP,
				"'%s' lives in a stack frame whose base is unknown at this probe point",
				c->name);
		snprintf(rname, sizeof(rname), "%%%s", reg);
		return kt_fetcharg_base_mem(l, rname,
					    fboff + (long)ops[0].number);
	} else if (atom == DW_OP_addr) {
		kt_fetcharg_file(l, file_off_of(c->ue, c->probe_off,
						ops[0].number));
		return 0;
	} else {
		goto unsupported;
	}
	reg = dwarf_reg_name(c->ue, r);
	if (!reg)
		return kt_err_set(c->err, ENOTSUP,
			"'%s' is in DWARF register %u, which uprobes cannot read",
			c->name, r);
	snprintf(rname, sizeof(rname), "%%%s", reg);
	return in_mem ? kt_fetcharg_base_mem(l, rname, off) :
			kt_fetcharg_base(l, rname);
unsupported:
	return kt_err_set(c->err, ENOTSUP,
		"'%s' has a location uprobes cannot fetch at this probe point (DWARF op 0x%x%s)",
		c->name, atom, nops > 1 ? ", composite" : "");
}

/* A global variable definition named name anywhere in the debug info. */
static bool find_global(Dwarf *dw, const char *name, Dwarf_Die *out)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;

	while (dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		Dwarf_Die child;

		if (dwarf_child(&cudie, &child))
			continue;
		do {
			const char *n;

			if (dwarf_tag(&child) != DW_TAG_variable ||
			    !dwarf_hasattr(&child, DW_AT_location))
				continue;
			n = dwarf_diename(&child);
			if (n && !strcmp(n, name)) {
				*out = child;
				return true;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return false;
}

/* Names visible in scopes[0..n) up to the function, for messages. */
static char *visible_names(Dwarf_Die *scopes, int n)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	bool first = true;
	int i;

	if (!f)
		return NULL;
	for (i = n - 1; i >= 0; i--) {
		Dwarf_Die child;
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_compile_unit)
			continue;
		if (dwarf_child(&scopes[i], &child))
			continue;
		do {
			const char *nm = dwarf_diename(&child);

			tag = dwarf_tag(&child);
			if ((tag != DW_TAG_formal_parameter &&
			     tag != DW_TAG_variable) || !nm)
				continue;
			fprintf(f, "%s%s", first ? "" : ", ", nm);
			first = false;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	fclose(f);
	if (out && !*out) {
		free(out);
		out = NULL;
	}
	return out;
}

/* Set err's caret at expr[pos]. */
static int expr_err(struct ktrace_err *err, const char *expr, size_t pos,
		    int ret)
{
	if (err) {
		free(err->input);
		err->input = strdup(expr);
		err->pos = err->input ? (int)pos : -1;
	}
	return ret;
}

/*
 * A C++ reference stands for what it refers to: when *type is one, the
 * value at l becomes the one in memory at it and *type the referent's
 * (len: how much of expr names the reference, for messages). 1 when it
 * followed one, 0 when *type is no reference, or -errno.
 */
static int follow_ref(struct resolve_ctx *c, const char *expr, int len,
		      struct kt_fetcharg *l, Dwarf_Die *type)
{
	int tag = dwarf_tag(type);

	if (tag != DW_TAG_reference_type &&
	    tag != DW_TAG_rvalue_reference_type)
		return 0;
	if (!die_type(type, type))
		return kt_err_set(c->err, EINVAL,
			"'%.*s' is a reference to no type", len, expr);
	if (kt_fetcharg_deref(l, 0))
		return expr_err(c->err, expr, 0, kt_err_set(c->err, E2BIG,
			"'%.*s': too many dereferences for a probe", len,
			expr));
	return 1;
}

/* Walk the steps of ap from the variable's location l and type. */
static int walk_accessors(struct resolve_ctx *c, const char *expr,
			  const struct kt_apath *ap, struct kt_fetcharg *l,
			  Dwarf_Die *type, Dwarf_Die *member, bool *is_member)
{
	*is_member = false;
	for (int i = 0; i < ap->nr_steps; i++) {
		const struct kt_step *st = &ap->steps[i];
		int start = st->pos, pos = st->name_pos;
		Dwarf_Word moff;
		int ret;

		ret = follow_ref(c, expr, start, l, type);
		if (ret < 0)
			return ret;
		if (st->kind == KT_STEP_INDEX) {
			unsigned long idx = st->index;
			Dwarf_Die elem;
			Dwarf_Word esize;
			long count = 0;
			int tag = dwarf_tag(type);

			if (tag == DW_TAG_array_type)
				count = array_count(type);
			if ((tag != DW_TAG_array_type &&
			     tag != DW_TAG_pointer_type) || count < 0 ||
			    !die_type(type, &elem) ||
			    dwarf_aggregate_size(&elem, &esize))
				return expr_err(c->err, expr, start,
					kt_err_set(c->err, EINVAL,
						"cannot index '%.*s': not a one-dimensional array or a typed pointer",
						start, expr));
			if (tag == DW_TAG_array_type) {
				if (count > 0 && idx >= (unsigned long)count)
					return expr_err(c->err, expr, pos,
						kt_err_set(c->err, ERANGE,
							"index %lu is out of bounds (array of %ld)",
							idx, count));
				if (kt_fetcharg_move(l, (long)(idx * esize)))
					return expr_err(c->err, expr, start,
						kt_err_set(c->err, ENOTSUP,
							"'%.*s' is held in a register, not in memory",
							start, expr));
			} else if (kt_fetcharg_deref(l, (long)(idx * esize))) {
				return expr_err(c->err, expr, start,
					kt_err_set(c->err, E2BIG,
						"'%.*s': too many dereferences for a probe",
						st->end, expr));
			}
			*type = elem;
			*is_member = false;
			continue;
		}
		if (st->kind == KT_STEP_ARROW) {
			if (dwarf_tag(type) != DW_TAG_pointer_type ||
			    !die_type(type, type) || !is_aggregate(type))
				return expr_err(c->err, expr, start,
					kt_err_set(c->err, EINVAL,
						"'%.*s' is not a pointer to a struct%s",
						start, expr,
						is_aggregate(type) ? "; use '.'" : ""));
		} else if (!is_aggregate(type)) {
			bool ptr = dwarf_tag(type) == DW_TAG_pointer_type;

			return expr_err(c->err, expr, start,
				kt_err_set(c->err, EINVAL,
					"'%.*s' is %s%s", start, expr,
					type_kind_name(type),
					ptr ? "; use '->'" : ""));
		}
		if (!find_member(type, st->field, member, &moff)) {
			char *names = member_names(type);

			ret = kt_err_set(c->err, ENOENT,
				"no field '%s' in '%.*s'; fields: %s", st->field,
				start, expr, names ? names : "none");
			free(names);
			return expr_err(c->err, expr, pos, ret);
		}
		if (st->kind == KT_STEP_ARROW) {
			if (kt_fetcharg_deref(l, (long)moff))
				return expr_err(c->err, expr, start,
					kt_err_set(c->err, E2BIG,
						"'%.*s': too many dereferences for a probe",
						st->end, expr));
		} else if (kt_fetcharg_move(l, (long)moff)) {
			return expr_err(c->err, expr, start,
				kt_err_set(c->err, ENOTSUP,
					"'%.*s' is held in registers; its fields cannot be fetched",
					start, expr));
		}
		if (!die_type(member, type))
			return kt_err_set(c->err, EINVAL,
				"field '%s' has no type", st->field);
		*is_member = true;
	}
	return 0;
}

/* Final fetcharg and type of the value at l of the given type. */
static int finish(struct resolve_ctx *c, const char *expr, struct kt_fetcharg *l,
		  Dwarf_Die *type, Dwarf_Die *member, bool is_member,
		  char **fetcharg, char **tname)
{
	int ptr_size = c->ue->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	Dwarf_Attribute a;
	Dwarf_Word bits;
	Dwarf_Die elem;
	const char *st;
	char *v;
	int ret = follow_ref(c, expr, strlen(expr), l, type);

	if (ret < 0)
		return ret;
	if (ret)
		is_member = false;	/* the referent: no bit field */
	if (is_member && dwarf_attr_integrate(member, DW_AT_bit_size, &a) &&
	    !dwarf_formudata(&a, &bits)) {
		Dwarf_Word bitoff = 0, csize = dwarf_bytesize(type);
		Dwarf_Attribute b;

		if (!dwarf_attr_integrate(member, DW_AT_data_bit_offset, &b) ||
		    dwarf_formudata(&b, &bitoff) || !csize || csize > 8 ||
		    !kt_fetcharg_in_mem(l))
			return kt_err_set(c->err, ENOTSUP,
				"cannot fetch bit field '%s'", expr);
		/* data_bit_offset counts from the struct; l->off points at
		 * the member's data_member_location, 0 for DWARF 5 */
		kt_fetcharg_move(l, (long)(bitoff / (csize * 8) * csize));
		bitoff %= csize * 8;
		if (asprintf(tname, "b%lu@%lu/%lu", (unsigned long)bits,
			     (unsigned long)bitoff,
			     (unsigned long)(csize * 8)) < 0)
			return -ENOMEM;
		*fetcharg = kt_fetcharg_text(l, NULL);
		return *fetcharg ? 0 : -ENOMEM;
	}
	if (dwarf_tag(type) == DW_TAG_pointer_type && die_type(type, &elem) &&
	    is_char_type(&elem)) {
		/* uprobes read a string at the address of the last deref */
		if (kt_fetcharg_deref(l, 0))
			return kt_err_set(c->err, E2BIG,
				"'%s': too many dereferences for a probe", expr);
		*fetcharg = kt_fetcharg_text(l, NULL);
		*tname = strdup("string");
		return *fetcharg && *tname ? 0 : -ENOMEM;
	}
	if (dwarf_tag(type) == DW_TAG_array_type && die_type(type, &elem)) {
		long count = array_count(type);
		const char *et = scalar_type(&elem, ptr_size);

		if (!kt_fetcharg_in_mem(l))
			return kt_err_set(c->err, ENOTSUP,
				"array '%s' is not in memory", expr);
		if (is_char_type(&elem)) {
			*tname = strdup("string");
		} else if (et && count > 0 && count <= 64) {
			if (asprintf(tname, "%s[%ld]", et, count) < 0)
				*tname = NULL;
		} else {
			return kt_err_set(c->err, ENOTSUP,
				"'%s' is an array; pick an element with [N]",
				expr);
		}
		*fetcharg = kt_fetcharg_text(l, NULL);
		return *fetcharg && *tname ? 0 : -ENOMEM;
	}
	st = scalar_type(type, ptr_size);
	if (!st) {
		if (is_aggregate(type)) {
			char *names = member_names(type);

			ret = kt_err_set(c->err, EINVAL,
				"'%s' is %s; pick a field (%s)", expr,
				type_kind_name(type), names ? names : "none");

			free(names);
			return ret;
		}
		return kt_err_set(c->err, ENOTSUP,
			"'%s' has a type uprobes cannot fetch", expr);
	}
	v = kt_fetcharg_text(l, NULL);
	*tname = strdup(st);
	*fetcharg = v;
	return v && *tname ? 0 : -ENOMEM;
}

/*
 * At a function's first instruction nothing has been stored below the
 * stack pointer yet: a location there (unoptimised code keeps parameters
 * in stack slots written by the prologue) would read garbage.
 */
static bool below_sp_at_entry(struct resolve_ctx *c, struct kt_fetcharg *l)
{
	Dwarf_Addr entry;

	if (!c->func || dwarf_entrypc(c->func, &entry) || entry != c->pc)
		return false;
	return !l->file && l->depth == 1 && l->off[0] < 0 &&
	       !strcmp(l->base, "%sp");
}

/*
 * Inside the prologue (after the entry, before the line table's end of
 * the prologue) the stack slots the prologue fills, and the frame pointer
 * it sets up, are not there yet: a slot below the stack or frame pointer
 * read there is the previous call's value. *end: where it is set up.
 */
static bool slot_in_prologue(struct resolve_ctx *c, struct kt_fetcharg *l,
			     unsigned long probe_off, unsigned long *end)
{
	struct ktrace_err sub = { .pos = -1 };
	Dwarf_Addr entry;

	if (!c->func || dwarf_entrypc(c->func, &entry) || c->pc <= entry)
		return false;
	if (l->file || l->depth != 1 || l->off[0] >= 0 ||
	    (strcmp(l->base, "%sp") && strcmp(l->base, "%bp")))
		return false;
	*end = 0;
	if (kt_dwarf_skip_prologue(c->ue, probe_off - (c->pc - entry), end,
				   &sub)) {
		ktrace_err_clear(&sub);
		return false;
	}
	*end -= probe_off - (c->pc - entry);	/* from the entry */
	return c->pc - entry < *end;
}

/*
 * Find variable c->name at the probe: in the scopes around it (innermost
 * first; an extern declaration does not count), else a global of any
 * unit. *global: it is not a local. 0, or -ENOENT with err naming what is
 * visible there.
 */
static int find_var(struct resolve_ctx *c, const char *expr,
		    Dwarf_Die *scopes, int nscopes, Dwarf_Die *var,
		    bool *global)
{
	const char *name = c->name, *fn;
	int where = nscopes ? dwarf_getscopevar(scopes, nscopes, name,
						0, NULL, 0, 0, var) : -2;
	char *names;
	int ret;

	*global = where >= 0 &&
		  dwarf_tag(&scopes[where]) == DW_TAG_compile_unit;
	if (where >= 0 && !dwarf_hasattr_integrate(var, DW_AT_location) &&
	    dwarf_hasattr_integrate(var, DW_AT_declaration))
		where = -2;	/* extern declaration: look further */
	if (where >= 0)
		return 0;
	if (find_global(c->ue->dw, name, var)) {
		*global = true;
		return 0;
	}
	names = visible_names(scopes, nscopes);
	fn = c->func ? dwarf_diename(c->func) : NULL;
	ret = kt_err_set(c->err, ENOENT,
		"no variable '%s' at this probe point%s%s%s%s%s",
		name, fn ? " in " : "", fn ? fn : "",
		fn ? "()" : "", names ? "; visible: " : "",
		names ? names : "");
	free(names);
	return expr_err(c->err, expr, 0, ret);
}

/*
 * Can the local at l be read at the probe? Not from a stack slot its
 * function's prologue has yet to fill. 0, or -EAGAIN with err saying
 * where to probe instead.
 */
static int local_ready(struct resolve_ctx *c, const char *expr,
		       struct kt_fetcharg *l)
{
	const char *fn = c->func && dwarf_diename(c->func) ?
			 dwarf_diename(c->func) : "the function";
	unsigned long pend;

	if (slot_in_prologue(c, l, c->probe_off, &pend))
		return expr_err(c->err, expr, 0, kt_err_set(c->err, EAGAIN,
			"'%s' lives in a stack slot that %s() fills in its prologue, which ends at %s+0x%lx: probe there or later, or name the function alone (ktrace then places the probe after the prologue)",
			c->name, fn, fn, pend));
	if (below_sp_at_entry(c, l))
		return expr_err(c->err, expr, 0, kt_err_set(c->err, EAGAIN,
			"'%s' lives in a stack slot that is not set up yet at the entry of %s(); probe after the prologue",
			c->name, fn));
	return 0;
}

/*
 * The start of expr's value at the probe: $retval (return probes), or a
 * variable's location in l; its type in *vtype.
 */
static int arg_head(struct resolve_ctx *c, const char *expr,
		    Dwarf_Die *scopes, int nscopes, bool is_return,
		    struct kt_fetcharg *l, Dwarf_Die *vtype)
{
	const char *name = c->name;
	Dwarf_Die var;
	bool global;
	int ret;

	if (!strcmp(name, "$retval")) {
		if (!is_return)
			return kt_err_set(c->err, EINVAL,
				"$retval is only available at a return probe (%%return)");
		if (!c->func || !die_type(c->func, vtype))
			return kt_err_set(c->err, EINVAL,
				"%s() returns void", c->func && dwarf_diename(c->func) ?
				dwarf_diename(c->func) : "the probed function");
		kt_fetcharg_base(l, "$retval");
		return 0;
	}
	if (name[0] == '$')
		return expr_err(c->err, expr, 0, kt_err_set(c->err, EINVAL,
			"unknown special variable '%s' (only $retval)", name));
	ret = find_var(c, expr, scopes, nscopes, &var, &global);
	if (ret)
		return ret;
	if (is_return && !global)
		return expr_err(c->err, expr, 0, kt_err_set(c->err, EINVAL,
			"'%s' is a local variable: at a return probe only $retval and globals can be fetched",
			name));
	ret = var_location(c, &var, l);
	if (ret)
		return ret;
	if (!global) {
		ret = local_ready(c, expr, l);
		if (ret)
			return ret;
	}
	if (!die_type(&var, vtype))
		return kt_err_set(c->err, EINVAL, "'%s' has no type", name);
	return 0;
}

/*
 * The scopes around pc into *scopes (malloc'ed, the caller frees),
 * innermost first, as the code nests them: in code inlined from another
 * function, the names of that function come first, then those of the
 * function it was inlined into, up to the unit. (dwarf_getscopes()
 * follows an inlined callee to its abstract definition instead, and a
 * function whose entry lies in an inlined helper lost its own
 * parameters.) Returns how many, 0 when none.
 */
static int pc_scopes(Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die **scopes)
{
	Dwarf_Die *inner = NULL;
	int n = dwarf_getscopes(cudie, pc, &inner);

	*scopes = NULL;
	if (n > 0)
		n = dwarf_getscopes_die(&inner[0], scopes);
	free(inner);
	if (n <= 0) {
		free(*scopes);
		*scopes = NULL;
		return 0;
	}
	return n;
}

int kt_dwarf_arg(struct kt_uelf *ue, unsigned long probe_off,
		 const char *expr, bool is_return, char **fetcharg,
		 char **type, struct ktrace_err *err)
{
	struct resolve_ctx c = { .ue = ue, .probe_off = probe_off, .err = err };
	Dwarf_Die cudie, *scopes = NULL, vtype, member, func;
	struct kt_fetcharg l = { 0 };
	struct kt_apath ap;
	bool is_member = false;
	int nscopes = 0, i, ret;
	uint64_t vaddr;

	*fetcharg = NULL;
	*type = NULL;
	ret = load_dwarf(ue, err);
	if (ret)
		return ret;
	if (kt_segs_off_to_vaddr(&ue->segs, probe_off, false, &vaddr))
		return kt_err_set(err, EINVAL,
			"file offset 0x%lx is not in a loadable segment of '%s'",
			probe_off, ue->path);
	c.pc = vaddr;
	ret = kt_apath_parse(expr, &ap, err);
	if (ret)
		return ret;
	c.name = ap.name;

	if (!dwarf_addrdie(ue->dw, vaddr, &cudie))
		return kt_err_set(err, ENOENT,
			"no debug info covers 0x%lx in '%s'", vaddr, ue->path);
	nscopes = pc_scopes(&cudie, vaddr, &scopes);
	for (i = 0; i < nscopes; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			func = scopes[i];
			c.func = &func;
			break;
		}
	}
	ret = arg_head(&c, expr, scopes, nscopes, is_return, &l, &vtype);
	if (ret)
		goto out;
	ret = walk_accessors(&c, expr, &ap, &l, &vtype, &member, &is_member);
	if (ret)
		goto out;
	ret = finish(&c, expr, &l, &vtype, &member, is_member, fetcharg, type);
out:
	if (ret) {
		free(*fetcharg);
		free(*type);
		*fetcharg = NULL;
		*type = NULL;
	}
	free(scopes);
	return ret;
}


/* ---------------------------------------------------------------- prologue */

int kt_dwarf_skip_prologue(struct kt_uelf *ue, unsigned long func_off,
			   unsigned long *off, struct ktrace_err *err)
{
	Dwarf_Die cudie, *scopes = NULL, *func = NULL;
	Dwarf_Addr entry, high, best = 0, line_addr = 0, second = 0;
	uint64_t vaddr;
	Dwarf_Lines *lines;
	size_t n, i;
	int nscopes, k, entry_line = -1, ret;

	ret = load_dwarf(ue, err);
	if (ret)
		return ret;
	if (kt_segs_off_to_vaddr(&ue->segs, func_off, false, &vaddr) ||
	    !dwarf_addrdie(ue->dw, vaddr, &cudie))
		return kt_err_set(err, ENOENT,
			"no debug info covers file offset 0x%lx of '%s'",
			func_off, ue->path);
	nscopes = dwarf_getscopes(&cudie, vaddr, &scopes);
	for (k = 0; k < nscopes; k++) {
		if (dwarf_tag(&scopes[k]) == DW_TAG_subprogram) {
			func = &scopes[k];
			break;
		}
	}
	if (!func || dwarf_entrypc(func, &entry) || entry != vaddr ||
	    dwarf_highpc(func, &high)) {
		free(scopes);
		return kt_err_set(err, EINVAL,
			"file offset 0x%lx is not the entry of a function",
			func_off);
	}
	free(scopes);
	if (dwarf_getsrclines(&cudie, &lines, &n) != 0) {
		*off = func_off;
		return 0;
	}
	/*
	 * The first row flagged prologue_end, else the first row after the
	 * entry that moves to another source line (what gdb does), else the
	 * second statement row.
	 */
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool pe = false, end = false;
		int no;

		if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &no) ||
		    a < entry || a >= high)
			continue;
		dwarf_lineendsequence(l, &end);
		if (end)
			continue;
		dwarf_lineprologueend(l, &pe);
		if (pe) {
			best = a;
			break;
		}
		if (a == entry && entry_line < 0)
			entry_line = no;
		else if (a > entry && entry_line >= 0 && no != entry_line &&
			 (!line_addr || a < line_addr))
			line_addr = a;
		/* a function on one line: its second statement row (the
		 * body after the prologue, another column of that line) */
		if (a > entry && (!second || a < second)) {
			bool stmt = false;

			dwarf_linebeginstatement(l, &stmt);
			if (stmt)
				second = a;
		}
	}
	if (!best)
		best = line_addr ? line_addr : second ? second : entry;
	*off = func_off + (best - entry);
	return 0;
}
