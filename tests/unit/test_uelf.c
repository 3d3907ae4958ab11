// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/probe/uelf.c and dwarf.c: binary lookup, symbol -> uprobe file
 * offset, FILE:LINE, DWARF fetchargs. The programs probed are compiled at
 * run time into a temp dir (PIE, non-PIE, stripped copies, a C++
 * fixture); expected values come from readelf / addr2line / ldconfig
 * output and offsetof(), never from ktrace itself.
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

#include "probe/dwarf.h"
#include "probe/uelf.h"
#include "../targets/probed.h"

static char tmpdir[PATH_MAX];
static char srcdir[PATH_MAX];
static char pie[PATH_MAX + 32], nopie[PATH_MAX + 32], nodbg[PATH_MAX + 32];
static char bare[PATH_MAX + 32], cxx[PATH_MAX + 32], o0[PATH_MAX + 32];
static bool have_cxx;

/* ----------------------------------------------------------- helpers */

static char *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Output of a shell command (caller frees); NULL when it failed. */
static char *run(const char *fmt, ...)
{
	char *cmd, *out = NULL;
	size_t len = 0;
	va_list ap;
	FILE *p, *o;
	int c, rc;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		cmd = NULL;
	va_end(ap);
	if (!cmd)
		return NULL;
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	o = open_memstream(&out, &len);
	while ((c = fgetc(p)) != EOF)
		fputc(c, o);
	fclose(o);
	rc = pclose(p);
	if (rc != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* Value and size of symbol name ("malloc@@GLIBC_2.2.5") per readelf. */
static bool readelf_sym(const char *file, const char *name,
			unsigned long *value, unsigned long *size)
{
	char *out = run("readelf -sW --dyn-syms '%s'", file);
	char *line, *save = NULL;
	bool found = false;

	assert_non_null(out);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char num[32], type[32], bind[32], vis[32], ndx[32], nm[512];
		unsigned long v, s;

		if (sscanf(line, "%31s %lx %lu %31s %31s %31s %31s %511s", num,
			   &v, &s, type, bind, vis, ndx, nm) != 8)
			continue;
		if (strcmp(nm, name) || !strcmp(ndx, "UND"))
			continue;
		*value = v;
		*size = s;
		found = true;
		break;
	}
	free(out);
	return found;
}

struct seg {
	unsigned long off, vaddr, filesz;
};

/* LOAD segments per readelf -lW; returns how many. */
static int readelf_loads(const char *file, struct seg *segs, int max)
{
	char *out = run("readelf -lW '%s'", file);
	char *line, *save = NULL;
	int n = 0;

	assert_non_null(out);
	for (line = strtok_r(out, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long off, va, pa, fsz;

		if (sscanf(line, " LOAD %lx %lx %lx %lx", &off, &va, &pa,
			   &fsz) == 4) {
			segs[n].off = off;
			segs[n].vaddr = va;
			segs[n].filesz = fsz;
			n++;
		}
	}
	free(out);
	return n;
}

/* File offset of vaddr, by the readelf segment table. */
static unsigned long expect_off(const char *file, unsigned long vaddr)
{
	struct seg segs[16];
	int n = readelf_loads(file, segs, 16), i;

	for (i = 0; i < n; i++)
		if (vaddr >= segs[i].vaddr &&
		    vaddr < segs[i].vaddr + segs[i].filesz)
			return vaddr - segs[i].vaddr + segs[i].off;
	fail_msg("0x%lx not in a LOAD segment of %s", vaddr, file);
	return 0;
}

/* The vaddr - offset delta of the segment holding file offset off. */
static unsigned long seg_delta_of_off(const char *file, unsigned long off)
{
	struct seg segs[16];
	int n = readelf_loads(file, segs, 16), i;

	for (i = 0; i < n; i++)
		if (off >= segs[i].off && off < segs[i].off + segs[i].filesz)
			return segs[i].vaddr - segs[i].off;
	fail_msg("offset 0x%lx not in a LOAD segment of %s", off, file);
	return 0;
}

static unsigned long sym_off(const char *file, const char *name)
{
	unsigned long v, s;

	assert_true(readelf_sym(file, name, &v, &s));
	return expect_off(file, v);
}

static struct kt_uelf *open_ok(const char *bin)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_uelf *ue = kt_uelf_open(bin, &err);

	if (!ue)
		fail_msg("kt_uelf_open(%s): %s", bin, err.msg);
	ktrace_err_clear(&err);
	return ue;
}

static unsigned long resolve_ok(struct kt_uelf *ue, const char *sym,
				unsigned long add)
{
	struct ktrace_err err = { .pos = -1 };
	unsigned long off = 0;
	int ret = kt_uelf_symbol(ue, sym, add, &off, &err);

	if (ret)
		fail_msg("kt_uelf_symbol(%s): %d %s", sym, ret, err.msg);
	ktrace_err_clear(&err);
	return off;
}

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

/* --------------------------------------------------------------- setup */

static void find_srcdir(void)
{
	const char *env = getenv("KTRACE_SRCDIR");
	char exe[PATH_MAX];
	ssize_t n;
	char *p;

	if (env && *env) {
		snprintf(srcdir, sizeof(srcdir), "%s", env);
		return;
	}
	/* EXE = SRCDIR/build/tests/unit/test_uelf */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	snprintf(srcdir, sizeof(srcdir), ".");
	if (n <= 0)
		return;
	exe[n] = '\0';
	p = strstr(exe, "/build/tests/unit/");
	if (p) {
		*p = '\0';
		snprintf(srcdir, sizeof(srcdir), "%s", exe);
	}
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/ktrace-uelf-XXXXXX";
	char *out;

	(void)state;
	find_srcdir();
	if (!mkdtemp(tmpl))
		return -1;
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
	snprintf(pie, sizeof(pie), "%s/probed", tmpdir);
	snprintf(nopie, sizeof(nopie), "%s/probed-nopie", tmpdir);
	snprintf(nodbg, sizeof(nodbg), "%s/probed-nodbg", tmpdir);
	snprintf(bare, sizeof(bare), "%s/probed-bare", tmpdir);
	snprintf(cxx, sizeof(cxx), "%s/cxx", tmpdir);
	snprintf(o0, sizeof(o0), "%s/probed-O0", tmpdir);
	out = run("cc -O0 -g -fno-omit-frame-pointer -o '%s' '%s/tests/targets/probed.c'",
		  o0, srcdir);
	if (!out)
		return -1;
	free(out);
	out = run("cc -O1 -g -fno-inline -fPIE -pie -o '%s' '%s/tests/targets/probed.c' && "
		  "cc -O1 -g -fno-inline -fno-pie -no-pie -o '%s' '%s/tests/targets/probed.c' && "
		  "cp '%s' '%s' && strip --strip-debug '%s' && "
		  "cp '%s' '%s' && strip '%s'",
		  pie, srcdir, nopie, srcdir, pie, nodbg, nodbg, pie, bare,
		  bare);
	if (!out) {
		fprintf(stderr, "cannot build tests/targets/probed.c from %s\n",
			srcdir);
		return -1;
	}
	free(out);
	out = run("command -v g++ >/dev/null && g++ -O1 -g -o '%s' '%s/tests/fixtures/uelf/cxx.cc'",
		  cxx, srcdir);
	have_cxx = out != NULL;
	free(out);
	return 0;
}

static int teardown(void **state)
{
	char *out;

	(void)state;
	if (tmpdir[0]) {
		out = run("rm -rf '%s'", tmpdir);
		free(out);
	}
	return 0;
}

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
	check_arg(ue, resolve_ok(ue, "ns::Klass::only", 0), "x", false, "%si",
		  "s32");
	check_arg(ue, resolve_ok(ue, "ns::Klass::only", 0), "this->v", false,
		  "+0(%di)", "s32");
	ktrace_err_clear(&err);
	kt_uelf_free(ue);
}

/* ----------------------------------------------------------------- DWARF */

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
		cmocka_unit_test(test_args_pie),
		cmocka_unit_test(test_args_nopie),
		cmocka_unit_test(test_err_caret),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_line_locals),
		cmocka_unit_test(test_unoptimised_prologue),
		cmocka_unit_test(test_no_debuginfo),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
