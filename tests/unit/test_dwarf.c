// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/probe/dwarf.c: FILE:LINE -> file offset, the end of a prologue, and
 * variable expressions -> uprobe fetchargs, on the binaries of ubins.h;
 * field offsets come from offsetof() on tests/targets/probed.h.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "probe/dwarf.h"
#include "ubins.h"
#include "../targets/probed.h"

/* Resolve expr at probe off and compare with the expected text. */
static void check_arg(struct kt_uelf *ue, unsigned long off, const char *expr,
		      bool is_return, const char *want_fa, const char *want_ty)
{
	struct ktrace_err err = { .pos = -1 };
	char *fa = NULL, *ty = NULL;
	int ret = kt_dwarf_arg(ue, off, expr, is_return, &fa, &ty, &err);

	if (ret)
		fail_msg("kt_dwarf_arg(%s): %d %s", expr, ret, err.msg);
	assert_string_equal(fa, want_fa);
	assert_string_equal(ty, want_ty);
	free(fa);
	free(ty);
	ktrace_err_clear(&err);
}

/* Expect kt_dwarf_arg to fail with errnum and a message holding needle. */
static void check_arg_err(struct kt_uelf *ue, unsigned long off,
			  const char *expr, bool is_return, int errnum,
			  const char *needle)
{
	struct ktrace_err err = { .pos = -1 };
	char *fa = (char *)1, *ty = (char *)1;
	int ret = kt_dwarf_arg(ue, off, expr, is_return, &fa, &ty, &err);

	assert_int_equal(ret, -errnum);
	assert_null(fa);
	assert_null(ty);
	assert_non_null(err.msg);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' not in '%s'", needle, err.msg);
	ktrace_err_clear(&err);
}

/* Line number of the first line of path containing needle. */
static int source_line(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	char buf[512];
	int no = 0;

	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		no++;
		if (strstr(buf, needle)) {
			fclose(f);
			return no;
		}
	}
	fclose(f);
	fail_msg("'%s' not in %s", needle, path);
	return 0;
}

static void check_args(const char *bin)
{
	struct kt_uelf *ue = open_ok(bin);
	unsigned long pl = resolve_ok(ue, "parse_line", 0);
	unsigned long ac = resolve_ok(ue, "account", 0);
	unsigned long v, s, delta;
	char want[128];

	check_arg(ue, pl, "line", false, "+0(%di)", "string");
	check_arg(ue, pl, "len", false, "%si", "s32");
	check_arg(ue, pl, "line[2]", false, "+2(%di)", "s8");

	check_arg(ue, ac, "acct", false, "%di", "x64");
	check_arg(ue, ac, "delta", false, "%si", "s32");
	snprintf(want, sizeof(want), "%+d(%%di)",
		 (int)offsetof(struct account, balance));
	check_arg(ue, ac, "acct->balance", false, want, "s64");
	snprintf(want, sizeof(want), "%+d(%%di)",
		 (int)offsetof(struct account, id));
	check_arg(ue, ac, "acct->id", false, want, "s32");
	snprintf(want, sizeof(want), "%+d(%%di)",
		 (int)offsetof(struct account, name));
	check_arg(ue, ac, "acct->name", false, want, "string");
	snprintf(want, sizeof(want), "%+d(%+d(%%di))",
		 (int)offsetof(struct account, name),
		 (int)offsetof(struct account, next));
	check_arg(ue, ac, "acct->next->name", false, want, "string");
	snprintf(want, sizeof(want), "%+d(%%di)",
		 (int)(offsetof(struct account, name) + 3));
	check_arg(ue, ac, "acct->name[3]", false, want, "s8");
	snprintf(want, sizeof(want), "%+d(%%di)",
		 (int)(sizeof(struct account) +
		       offsetof(struct account, balance)));
	check_arg(ue, ac, "acct[1].balance", false, want, "s64");
	check_arg(ue, ac, "$retval", true, "$retval", "s64");
	check_arg(ue, pl, "$retval", true, "$retval", "s32");

	/* globals: @+ is relative to the probe's segment */
	delta = seg_delta_of_off(bin, ac);
	assert_true(readelf_sym(bin, "hot_count", &v, &s));
	snprintf(want, sizeof(want), "@+0x%lx", v - delta);
	check_arg(ue, ac, "hot_count", false, want, "u64");
	check_arg(ue, ac, "hot_count", true, want, "u64");
	assert_true(readelf_sym(bin, "probed_tag", &v, &s));
	snprintf(want, sizeof(want), "@+0x%lx", v - delta);
	check_arg(ue, ac, "probed_tag", false, want, "string");
	assert_true(readelf_sym(bin, "probed_mode", &v, &s));
	snprintf(want, sizeof(want), "+0(@+0x%lx)", v - delta);
	check_arg(ue, ac, "probed_mode", false, want, "string");

	/* errors */
	check_arg_err(ue, ac, "nosuch", false, ENOENT, "acct, delta");
	check_arg_err(ue, ac, "acct.id", false, EINVAL, "use '->'");
	check_arg_err(ue, ac, "acct->nosuch", false, ENOENT,
		      "fields: id, balance, name, next");
	check_arg_err(ue, ac, "acct->balance->x", false, EINVAL,
		      "not a pointer to a struct");
	check_arg_err(ue, ac, "acct->name[16]", false, ERANGE, "out of bounds");
	check_arg_err(ue, ac, "acct[0]", false, EINVAL, "pick a field");
	check_arg_err(ue, ac, "$retval", false, EINVAL, "return probe");
	check_arg_err(ue, ac, "acct", true, EINVAL, "local variable");
	check_arg_err(ue, ac, "acct->", false, EINVAL, "field name");
	kt_uelf_free(ue);
}

static void test_args_pie(void **state)
{
	(void)state;
	check_args(pie);
}

static void test_args_nopie(void **state)
{
	(void)state;
	check_args(nopie);
}

/* C++: a parameter and a member reached through this. */
static void test_args_cxx(void **state)
{
	struct kt_uelf *ue;
	unsigned long off;

	(void)state;
	if (!have_cxx) {
		fprintf(stderr, "g++ missing: C++ arguments not tested\n");
		skip();
	}
	ue = open_ok(cxx);
	off = resolve_ok(ue, "ns::Klass::only", 0);
	check_arg(ue, off, "x", false, "%si", "s32");
	check_arg(ue, off, "this->v", false, "+0(%di)", "s32");
	kt_uelf_free(ue);
}

/* Does readelf show a DW_TAG_inlined_subroutine starting at vaddr? */
static bool inlined_at(const char *bin, unsigned long vaddr)
{
	char *out = run("readelf --debug-dump=info '%s'", bin);
	char *line, *save = NULL;
	bool in_inlined = false, found = false;

	assert_non_null(out);
	for (line = strtok_r(out, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long lo;
		const char *a;

		if (strstr(line, "Abbrev Number:"))
			in_inlined = strstr(line, "(DW_TAG_inlined_subroutine)");
		a = strstr(line, "DW_AT_low_pc");
		if (in_inlined && a && sscanf(strchr(a, ':') + 1, " %lx",
					      &lo) == 1)
			found = lo == vaddr;
	}
	free(out);
	return found;
}

/*
 * C++ at -O2 (tests/targets/cxxargs.cc): the entry of geo::Scaler::scale
 * is the first instruction of note(), inlined, yet the method's own
 * parameters are found there (and note()'s, and the method's return
 * type). Registers by the x86-64 ABI: this, p, factor, calls in di, si,
 * dx, cx.
 */
static void test_args_cxx_inlined_entry(void **state)
{
	const char *fn = "_ZN3geo6Scaler5scaleERKNS_5PointEiRl";
	struct kt_uelf *ue;
	unsigned long off, v, s;

	(void)state;
	if (!have_cxx) {
		fprintf(stderr, "g++ missing: C++ arguments not tested\n");
		skip();
	}
	assert_true(readelf_sym(cxxargs, fn, &v, &s));
	assert_true(inlined_at(cxxargs, v));
	ue = open_ok(cxxargs);
	off = resolve_ok(ue, "geo::Scaler::scale", 0);
	assert_int_equal(off, expect_off(cxxargs, v));
	check_arg(ue, off, "factor", false, "%dx", "s32");
	check_arg(ue, off, "this->bias", false, "+0(%di)", "s32");
	check_arg(ue, off, "what", false, "%dx", "s32");
	check_arg(ue, off, "$retval", true, "$retval", "s64");
	check_arg_err(ue, off, "nosuch", false, ENOENT,
		      "in scale(); visible: this, p, factor, calls, what");
	kt_uelf_free(ue);
}

/* C++ references are followed: p.x through const Point &p, calls as the
 * long it names; at a line of geo::Scaler::scale past note(). */
static void test_args_cxx_references(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	char src[PATH_MAX + 32];
	struct kt_uelf *ue;
	unsigned long off;

	(void)state;
	if (!have_cxx) {
		fprintf(stderr, "g++ missing: C++ arguments not tested\n");
		skip();
	}
	snprintf(src, sizeof(src), "%s/tests/targets/cxxargs.cc", srcdir);
	ue = open_ok(cxxargs);
	assert_int_equal(kt_dwarf_line(ue, "cxxargs.cc",
				       source_line(src, "calls++;"), &off,
				       &err), 0);
	assert_true(off != resolve_ok(ue, "geo::Scaler::scale", 0));
	check_arg(ue, off, "p.x", false, "+0(%si)", "s32");
	check_arg(ue, off, "p.y", false, "+4(%si)", "s32");
	check_arg(ue, off, "calls", false, "+0(%cx)", "s64");
	check_arg_err(ue, off, "p", false, EINVAL, "pick a field (x, y)");
	check_arg_err(ue, off, "p->x", false, EINVAL, "use '.'");
	ktrace_err_clear(&err);
	kt_uelf_free(ue);
}

static void test_err_caret(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_uelf *ue = open_ok(pie);
	char *fa, *ty;

	(void)state;
	assert_int_equal(kt_dwarf_arg(ue, resolve_ok(ue, "account", 0),
				      "acct->nosuch", false, &fa, &ty, &err),
			 -ENOENT);
	assert_non_null(err.input);
	assert_string_equal(err.input, "acct->nosuch");
	assert_int_equal(err.pos, 6);
	ktrace_err_clear(&err);
	kt_uelf_free(ue);
}

/* addr2line's "file:line" for file offset off of bin (vaddr by segment). */
static char *addr2line(const char *bin, unsigned long off)
{
	unsigned long vaddr = off + seg_delta_of_off(bin, off);
	char *out = run("addr2line -e '%s' 0x%lx", bin, vaddr);
	char *nl;

	assert_non_null(out);
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	nl = strstr(out, " (discriminator");
	if (nl)
		*nl = '\0';
	return out;
}

static void test_line(void **state)
{
	const char *bins[] = { pie, nopie };
	struct ktrace_err err = { .pos = -1 };
	char src[PATH_MAX + 32], want[64], *got;
	int hot_line, acct_line, i;

	(void)state;
	snprintf(src, sizeof(src), "%s/tests/targets/probed.c", srcdir);
	hot_line = source_line(src, "hot_count++;");
	acct_line = source_line(src, "acct->balance += delta;");
	for (i = 0; i < 2; i++) {
		struct kt_uelf *ue = open_ok(bins[i]);
		unsigned long off, hv, hs, vaddr;
		const char *got_slash;

		assert_int_equal(kt_dwarf_line(ue, "probed.c", hot_line, &off,
					       &err), 0);
		got = addr2line(bins[i], off);
		snprintf(want, sizeof(want), "/probed.c:%d", hot_line);
		got_slash = strstr(got, "/probed.c:");
		assert_non_null(got_slash);
		assert_string_equal(got_slash, want);
		free(got);
		/* inside hot() */
		assert_true(readelf_sym(bins[i], "hot", &hv, &hs));
		vaddr = off + seg_delta_of_off(bins[i], off);
		assert_true(vaddr >= hv && vaddr < hv + hs);

		assert_int_equal(kt_dwarf_line(ue, "targets/probed.c",
					       acct_line, &off, &err), 0);
		got = addr2line(bins[i], off);
		snprintf(want, sizeof(want), "/probed.c:%d", acct_line);
		assert_non_null(strstr(got, want));
		free(got);
		/* parameters at a line inside the function */
		check_arg(ue, off, "acct->id", false, "+0(%di)", "s32");

		/* a comment line has no code */
		assert_int_equal(kt_dwarf_line(ue, "probed.c", 2, &off, &err),
				 -ENOENT);
		assert_non_null(strstr(err.msg, "nearest line"));
		assert_int_equal(kt_dwarf_line(ue, "other.c", hot_line, &off,
					       &err), -ENOENT);
		assert_non_null(strstr(err.msg, "no source file"));
		/* "robed.c" is not a path component match */
		assert_int_equal(kt_dwarf_line(ue, "robed.c", hot_line, &off,
					       &err), -ENOENT);
		kt_uelf_free(ue);
	}
	ktrace_err_clear(&err);
}

/* Locals at a line inside a loop: visible, typed, readable. */
static void test_line_locals(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_uelf *ue = open_ok(pie);
	char src[PATH_MAX + 32], *fa, *ty;
	unsigned long off;
	int line, ret;

	(void)state;
	snprintf(src, sizeof(src), "%s/tests/targets/probed.c", srcdir);
	line = source_line(src, "fields++;");
	assert_int_equal(kt_dwarf_line(ue, "probed.c", line, &off, &err), 0);
	ret = kt_dwarf_arg(ue, off, "fields", false, &fa, &ty, &err);
	if (ret) {
		/* only acceptable failure: the compiler dropped it here */
		assert_non_null(strstr(err.msg, "optimized out"));
	} else {
		assert_string_equal(ty, "s32");
		assert_true(fa[0] == '%' || strstr(fa, "(%sp)") ||
			    strstr(fa, "(%bp)"));
		free(fa);
		free(ty);
	}
	/* a local of another function is not visible here */
	check_arg_err(ue, off, "before", false, ENOENT, "in parse_line()");
	ktrace_err_clear(&err);
	kt_uelf_free(ue);
}

/*
 * Unoptimised code: parameters live in frame slots (DW_OP_fbreg) that the
 * prologue fills. The expected slot comes from the disassembly: the
 * prologue's "mov %rdi,-0xNN(%rbp)".
 */
static void test_unoptimised_prologue(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_uelf *ue = open_ok(o0);
	unsigned long v, s, entry, off, store = 0, slot = 0, delta;
	char *dis, *line, *save = NULL, want[64];

	(void)state;
	assert_true(readelf_sym(o0, "parse_line", &v, &s));
	dis = run("objdump -d --no-show-raw-insn --start-address=0x%lx --stop-address=0x%lx '%s'",
		  v, v + s, o0);
	assert_non_null(dis);
	for (line = strtok_r(dis, "\n", &save); line && !store;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long a, d;

		if (sscanf(line, " %lx: mov %%rdi,-0x%lx(%%rbp)", &a, &d) == 2) {
			store = a;
			slot = d;
		}
	}
	free(dis);
	assert_true(store != 0);

	entry = resolve_ok(ue, "parse_line", 0);
	check_arg_err(ue, entry, "line", false, EAGAIN, "prologue");
	/* registers are fine at the entry even here */
	assert_int_equal(kt_dwarf_skip_prologue(ue, entry, &off, &err), 0);
	delta = seg_delta_of_off(o0, entry);
	assert_true(off + delta > store);
	assert_true(off + delta < v + s);
	snprintf(want, sizeof(want), "+0(-%lu(%%bp))", slot);
	check_arg(ue, off, "line", false, want, "string");

	/* inside the prologue (an offset the user gave, before the slot is
	 * stored): refused, naming where the prologue ends */
	check_arg_err(ue, store - delta, "line", false, EAGAIN,
		      "fills in its prologue, which ends at parse_line+0x");
	check_arg_err(ue, entry + 1, "line", false, EAGAIN, "prologue");

	/* not a function entry */
	assert_int_equal(kt_dwarf_skip_prologue(ue, entry + 1, &off, &err),
			 -EINVAL);
	ktrace_err_clear(&err);

	/* A probe by name with named arguments goes after the prologue, and
	 * says so; raw fetchargs stay at the entry. */
	{
		struct ktrace_probe_opts opts = { .binary = o0 };
		struct ktrace_resolver *res;
		struct ktrace_probe *p;
		char loc[64];

		/* user space only: no tracefs needed */
		res = ktrace_resolver_alloc(NULL);
		assert_non_null(res);
		p = ktrace_probe_parse("parse_line line:string", &opts, &err);
		assert_non_null(p);
		assert_int_equal(ktrace_probe_resolve(p, res, &err), 0);
		snprintf(loc, sizeof(loc), ":0x%016lx ", off);
		assert_non_null(strstr(ktrace_probe_definition(p), loc));
		snprintf(want, sizeof(want), "line=+0(-%lu(%%bp)):string", slot);
		assert_non_null(strstr(ktrace_probe_definition(p), want));
		assert_non_null(ktrace_probe_warning(p));
		assert_non_null(strstr(ktrace_probe_warning(p), "prologue"));
		ktrace_probe_free(p);

		p = ktrace_probe_parse("parse_line s=%di:u64", &opts, &err);
		assert_non_null(p);
		assert_int_equal(ktrace_probe_resolve(p, res, &err), 0);
		snprintf(loc, sizeof(loc), ":0x%016lx ", entry);
		assert_non_null(strstr(ktrace_probe_definition(p), loc));
		assert_null(ktrace_probe_warning(p));
		ktrace_probe_free(p);
		ktrace_resolver_free(res);
	}
	kt_uelf_free(ue);
}

static void test_no_debuginfo(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_uelf *ue = open_ok(nodbg);
	unsigned long off;
	char *fa, *ty;

	(void)state;
	/* symbols still work */
	off = resolve_ok(ue, "parse_line", 0);
	assert_int_equal(off, sym_off(nodbg, "parse_line"));
	assert_int_equal(kt_dwarf_arg(ue, off, "line", false, &fa, &ty, &err),
			 -ENODATA);
	assert_non_null(strstr(err.msg, nodbg));
	assert_non_null(strstr(err.msg, "no DWARF debug info"));
	assert_non_null(strstr(err.msg, "-dbgsym"));
	assert_int_equal(kt_dwarf_line(ue, "probed.c", 20, &off, &err),
			 -ENODATA);
	ktrace_err_clear(&err);
	kt_uelf_free(ue);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_pie),
		cmocka_unit_test(test_args_nopie),
		cmocka_unit_test(test_args_cxx),
		cmocka_unit_test(test_args_cxx_inlined_entry),
		cmocka_unit_test(test_args_cxx_references),
		cmocka_unit_test(test_err_caret),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_line_locals),
		cmocka_unit_test(test_unoptimised_prologue),
		cmocka_unit_test(test_no_debuginfo),
	};

	return cmocka_run_group_tests(tests, ubins_setup, ubins_teardown);
}
