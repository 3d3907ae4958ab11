// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/probe/uelf.c: binary lookup (paths, $PATH, ld.so.cache) and symbol ->
 * uprobe file offset, on the binaries of ubins.h.
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
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ubins.h"

/* --------------------------------------------------------- binary lookup */

static void test_find_path_forms(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	char cwd[PATH_MAX], *path = NULL, *oldpath;

	(void)state;
	/* absolute */
	assert_int_equal(kt_uelf_find_binary(pie, &path, &err), 0);
	assert_string_equal(path, pie);
	free(path);
	/* relative */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tmpdir), 0);
	assert_int_equal(kt_uelf_find_binary("./probed", &path, &err), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_string_equal(path, pie);
	free(path);
	/* bare program name via $PATH */
	oldpath = strdup(getenv("PATH") ? getenv("PATH") : "");
	setenv("PATH", tmpdir, 1);
	assert_int_equal(kt_uelf_find_binary("probed-nopie", &path, &err), 0);
	assert_string_equal(path, nopie);
	free(path);
	assert_int_equal(kt_uelf_find_binary("no-such-prog-xyz", &path, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "no-such-prog-xyz"));
	setenv("PATH", oldpath, 1);
	free(oldpath);
	ktrace_err_clear(&err);
}

/* libc through ld.so.cache, compared with ldconfig -p. */
static void test_find_libc(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	char *out, *line, *save = NULL, *want = NULL, *path = NULL;

	(void)state;
	out = run("/sbin/ldconfig -p 2>/dev/null || ldconfig -p");
	if (!out)
		skip();
	for (line = strtok_r(out, "\n", &save); line && !want;
	     line = strtok_r(NULL, "\n", &save)) {
		char *arrow = strstr(line, "=> ");

		if (strstr(line, "\tlibc.so.6 (") && arrow &&
#if defined(__x86_64__)
		    strstr(line, "x86-64") &&
#endif
		    1)
			want = realpath(arrow + 3, NULL);
	}
	free(out);
	assert_non_null(want);
	assert_int_equal(kt_uelf_find_binary("libc", &path, &err), 0);
	assert_string_equal(path, want);
	free(path);
	assert_int_equal(kt_uelf_find_binary("libc.so.6", &path, &err), 0);
	assert_string_equal(path, want);
	free(path);
	free(want);
	assert_int_equal(kt_uelf_find_binary("libnosuchlib-xyz", &path, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "ld.so.cache"));
	ktrace_err_clear(&err);
}

/* A hand-made ld.so.cache: layout per glibc's cache_file_new. */
static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static char *write_cache(unsigned int nlibs_claimed, const char *magic)
{
	static const char *const keys[] = { "libfoo.so.2", "libfoobar.so.1" };
	static const char *const vals[] = { "/opt/a/libfoo.so.2",
					    "/opt/b/libfoobar.so.1" };
	unsigned char buf[512] = { 0 };
	size_t str = 48 + 2 * 24, i;
	char *path;
	FILE *f;

	memcpy(buf, magic, strlen(magic));
	put32(buf + 20, nlibs_claimed);
	for (i = 0; i < 2; i++) {
		unsigned char *e = buf + 48 + i * 24;

		put32(e, 0x303);
		put32(e + 4, str);
		strcpy((char *)buf + str, keys[i]);
		str += strlen(keys[i]) + 1;
		put32(e + 8, str);
		strcpy((char *)buf + str, vals[i]);
		str += strlen(vals[i]) + 1;
	}
	put32(buf + 24, str - 48 - 2 * 24);
	if (asprintf(&path, "%s/ld.so.cache", tmpdir) < 0)
		return NULL;
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, str, f), str);
	fclose(f);
	return path;
}

static void test_ldcache_parse(void **state)
{
	char *cache, *path = NULL;

	(void)state;
	cache = write_cache(2, "glibc-ld.so.cache1.1");
	assert_int_equal(kt_uelf_ldcache_lookup(cache, "libfoo", false, &path), 0);
	assert_string_equal(path, "/opt/a/libfoo.so.2");
	free(path);
	assert_int_equal(kt_uelf_ldcache_lookup(cache, "libfoobar.so", false,
						&path), 0);
	assert_string_equal(path, "/opt/b/libfoobar.so.1");
	free(path);
	assert_int_equal(kt_uelf_ldcache_lookup(cache, "libfoobar.so.1", false,
						&path), 0);
	assert_string_equal(path, "/opt/b/libfoobar.so.1");
	free(path);
	/* prefixes of a name are not matches */
	assert_int_equal(kt_uelf_ldcache_lookup(cache, "libfo", false, &path),
			 -ENOENT);
	/* the ELF check drops entries that are not usable files */
	assert_int_equal(kt_uelf_ldcache_lookup(cache, "libfoo", true, &path),
			 -ENOENT);
	free(cache);
	cache = write_cache(1000, "glibc-ld.so.cache1.1");
	assert_int_equal(kt_uelf_ldcache_lookup(cache, "libfoo", false, &path),
			 -EINVAL);
	free(cache);
	cache = write_cache(2, "ld.so-1.7.0");
	assert_int_equal(kt_uelf_ldcache_lookup(cache, "libfoo", false, &path),
			 -EINVAL);
	free(cache);
}

static void test_open_errors(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	char *src;

	(void)state;
	assert_null(kt_uelf_open("/nonexistent/dir/prog", &err));
	assert_int_equal(errno, ENOENT);
	assert_non_null(err.msg);
	assert_int_equal(asprintf(&src, "%s/tests/targets/probed.c", srcdir) > 0,
			 1);
	assert_null(kt_uelf_open(src, &err));
	assert_int_equal(errno, ENOEXEC);
	assert_non_null(strstr(err.msg, "not an ELF"));
	free(src);
	ktrace_err_clear(&err);
}

/* ------------------------------------------------------------- symbols */

static void check_syms(const char *bin)
{
	static const char *const fns[] = { "parse_line", "account", "hot",
					   "main" };
	struct kt_uelf *ue = open_ok(bin);
	size_t i;

	assert_string_equal(kt_uelf_path(ue), bin);
	for (i = 0; i < sizeof(fns) / sizeof(*fns); i++)
		assert_int_equal(resolve_ok(ue, fns[i], 0), sym_off(bin, fns[i]));
	kt_uelf_free(ue);
}

static void test_symbol_pie(void **state)
{
	(void)state;
	check_syms(pie);
}

static void test_symbol_nopie(void **state)
{
	struct seg segs[16];

	(void)state;
	/* a non-PIE file has vaddr != offset, so the math is exercised */
	assert_true(readelf_loads(nopie, segs, 16) > 0);
	assert_true(segs[0].vaddr >= 0x400000);
	check_syms(nopie);
}

static void test_symbol_offset(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_uelf *ue = open_ok(pie);
	unsigned long v, s, off;

	(void)state;
	assert_true(readelf_sym(pie, "parse_line", &v, &s));
	assert_int_equal(resolve_ok(ue, "parse_line", 4),
			 expect_off(pie, v) + 4);
	assert_int_equal(resolve_ok(ue, "parse_line", s - 1),
			 expect_off(pie, v) + s - 1);
	assert_int_equal(kt_uelf_symbol(ue, "parse_line", s, &off, &err),
			 -ERANGE);
	assert_non_null(strstr(err.msg, "outside 'parse_line'"));
	assert_int_equal(kt_uelf_symbol(ue, "parse_line", s + 1000, &off,
					&err), -ERANGE);
	ktrace_err_clear(&err);
	kt_uelf_free(ue);
}

static void test_symbol_unknown(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_uelf *ue = open_ok(pie);
	unsigned long off;

	(void)state;
	assert_int_equal(kt_uelf_symbol(ue, "parse_lien", 0, &off, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "did you mean"));
	assert_non_null(strstr(err.msg, "parse_line"));
	assert_int_equal(kt_uelf_symbol(ue, "acount", 0, &off, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "account"));
	/* nothing close: no suggestion list */
	assert_int_equal(kt_uelf_symbol(ue, "zzzzqqqqxxxx", 0, &off, &err),
			 -ENOENT);
	assert_null(strstr(err.msg, "did you mean"));
	/* data symbols are not probe points */
	assert_int_equal(kt_uelf_symbol(ue, "hot_count", 0, &off, &err),
			 -ENOENT);
	ktrace_err_clear(&err);
	kt_uelf_free(ue);
}

static void test_symbol_stripped(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_uelf *ue = open_ok(bare);
	unsigned long off;

	(void)state;
	assert_int_equal(kt_uelf_symbol(ue, "parse_line", 0, &off, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "no .symtab"));
	ktrace_err_clear(&err);
	kt_uelf_free(ue);
}

static void test_symbol_libc_versions(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_uelf *ue = open_ok("libc");
	const char *libc = kt_uelf_path(ue);
	unsigned long v, s, off, want;

	(void)state;
	assert_true(readelf_sym(libc, "malloc@@GLIBC_2.2.5", &v, &s));
	want = expect_off(libc, v);
	assert_int_equal(resolve_ok(ue, "malloc", 0), want);
	assert_int_equal(resolve_ok(ue, "malloc@@GLIBC_2.2.5", 0), want);
	assert_int_equal(resolve_ok(ue, "malloc@GLIBC_2.2.5", 0), want);
	assert_int_equal(resolve_ok(ue, "malloc", 8), want + 8);
	assert_int_equal(kt_uelf_symbol(ue, "malloc@@GLIBC_9.9", 0, &off,
					&err), -ENOENT);
	assert_non_null(strstr(err.msg, "GLIBC_9.9"));
	/* memcpy has a hidden old version and a default newer one */
	if (readelf_sym(libc, "memcpy@GLIBC_2.2.5", &v, &s)) {
		unsigned long dv, ds;

		assert_true(readelf_sym(libc, "memcpy@@GLIBC_2.14", &dv, &ds));
		assert_int_equal(resolve_ok(ue, "memcpy@GLIBC_2.2.5", 0),
				 expect_off(libc, v));
		assert_int_equal(resolve_ok(ue, "memcpy", 0),
				 expect_off(libc, dv));
		assert_int_equal(kt_uelf_symbol(ue, "memcpy@@GLIBC_2.2.5", 0,
						&off, &err), -ENOENT);
	}
	ktrace_err_clear(&err);
	kt_uelf_free(ue);
}

static void test_symbol_cxx(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_uelf *ue;
	unsigned long off;

	(void)state;
	if (!have_cxx) {
		fprintf(stderr, "g++ missing: C++ names not tested\n");
		skip();
	}
	ue = open_ok(cxx);
	assert_int_equal(resolve_ok(ue, "ns::Klass::only", 0),
			 sym_off(cxx, "_ZN2ns5Klass4onlyEi"));
	assert_int_equal(resolve_ok(ue, "ns::Klass::only(int)", 0),
			 sym_off(cxx, "_ZN2ns5Klass4onlyEi"));
	assert_int_equal(resolve_ok(ue, "ns::Klass::method(int)", 0),
			 sym_off(cxx, "_ZN2ns5Klass6methodEi"));
	assert_int_equal(resolve_ok(ue, "ns::Klass::method(double)", 0),
			 sym_off(cxx, "_ZN2ns5Klass6methodEd"));
	assert_int_equal(resolve_ok(ue, "_ZN2ns5Klass6methodEd", 0),
			 sym_off(cxx, "_ZN2ns5Klass6methodEd"));
	assert_int_equal(kt_uelf_symbol(ue, "ns::Klass::method", 0, &off,
					&err), -EINVAL);
	assert_non_null(strstr(err.msg, "ambiguous"));
	assert_non_null(strstr(err.msg, "ns::Klass::method(int)"));
	assert_non_null(strstr(err.msg, "ns::Klass::method(double)"));
	assert_int_equal(kt_uelf_symbol(ue, "ns::Klass::methd", 0, &off, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "ns::Klass::method"));
	/* a parameter type with a blank, written as the demangler does */
	assert_int_equal(resolve_ok(ue, "ns::Klass::named(char const*)", 0),
			 sym_off(cxx, "_ZN2ns5Klass5namedEPKc"));
	/* template instances by their name (no return type), and the
	 * template alone is ambiguous, naming what can be typed */
	assert_int_equal(resolve_ok(ue, "twice<long>", 0),
			 sym_off(cxx, "_Z5twiceIlET_S0_"));
	assert_int_equal(resolve_ok(ue, "twice<int>(int)", 0),
			 sym_off(cxx, "_Z5twiceIiET_S0_"));
	assert_int_equal(kt_uelf_symbol(ue, "twice", 0, &off, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "twice<int>(int) at"));
	assert_null(strstr(err.msg, "long twice"));
	ktrace_err_clear(&err);
	assert_int_equal(kt_uelf_symbol(ue, "twise<int>", 0, &off, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "did you mean: twice<int>(int)"));
	ktrace_err_clear(&err);
	kt_uelf_free(ue);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_path_forms),
		cmocka_unit_test(test_find_libc),
		cmocka_unit_test(test_ldcache_parse),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_symbol_pie),
		cmocka_unit_test(test_symbol_nopie),
		cmocka_unit_test(test_symbol_offset),
		cmocka_unit_test(test_symbol_unknown),
		cmocka_unit_test(test_symbol_stripped),
		cmocka_unit_test(test_symbol_libc_versions),
		cmocka_unit_test(test_symbol_cxx),
	};

	return cmocka_run_group_tests(tests, ubins_setup, ubins_teardown);
}
