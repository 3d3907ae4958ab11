// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the symbol tables of lib/sym: extents, aliases, kallsyms. */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "base/internal.h"
#include "sym/symtab.h"

static void expect_sym(const struct kt_symtab *t, uint64_t addr,
		       const char *name, uint64_t off)
{
	uint64_t got = ~0ull;
	const char *n = kt_symtab_find(t, addr, &got);

	if (!name) {
		assert_null(n);
		return;
	}
	assert_non_null(n);
	assert_string_equal(n, name);
	assert_int_equal(got, off);
}

/* An address past a symbol's end is not given its name (nor its
 * neighbour's): a local function missing from the table stays unknown. */
static void test_extent(void **state)
{
	struct kt_symtab t = { 0 };

	(void)state;
	assert_int_equal(kt_symtab_add(&t, 0x1100, 0x20, "after"), 0);
	assert_int_equal(kt_symtab_add(&t, 0x1000, 0x10, "before"), 0);
	kt_symtab_sort(&t);
	expect_sym(&t, 0x0fff, NULL, 0);
	expect_sym(&t, 0x1000, "before", 0);
	expect_sym(&t, 0x100f, "before", 0xf);
	expect_sym(&t, 0x1010, NULL, 0);	/* a function with no symbol */
	expect_sym(&t, 0x10ff, NULL, 0);
	expect_sym(&t, 0x111f, "after", 0x1f);
	expect_sym(&t, 0x1120, NULL, 0);
	kt_symtab_free(&t);
}

/* Unknown sizes (kallsyms) reach the next symbol, as perf does. */
static void test_unknown_size(void **state)
{
	struct kt_symtab t = { 0 };

	(void)state;
	kt_symtab_add(&t, 0x2000, 0, "k1");
	kt_symtab_add(&t, 0x2000, 0, "k1_alias");
	kt_symtab_add(&t, 0x2100, 0, "k2");
	kt_symtab_sort(&t);
	expect_sym(&t, 0x20ff, kt_symtab_find(&t, 0x2000, NULL), 0xff);
	expect_sym(&t, 0x2100, "k2", 0);
	kt_symtab_free(&t);
}

/* kallsyms text, module symbols as "name [module]"; data symbols left out. */
static void test_kallsyms(void **state)
{
	char path[] = "/tmp/ktrace-ksyms-XXXXXX";
	struct kt_symtab t = { 0 };
	int fd = mkstemp(path);
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t helper\n"
		"ffffffff81000200 D some_data\n"
		"ffffffff81000300 W weak_fn\n"
		"0000000000000000 T zero_addr\n"
		"garbage line\n"
		"ffffffffc0201000 t mod_fn\t[mymod]\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), sizeof(text) - 1);
	close(fd);
	assert_int_equal(kt_symtab_load_kallsyms(&t, path), 0);
	unlink(path);
	assert_int_equal(t.n, 4);
	expect_sym(&t, 0xffffffff81000104, "helper", 4);
	expect_sym(&t, 0xffffffffc0201010, "mod_fn [mymod]", 0x10);
	kt_symtab_free(&t);
}

/* The build-id path: two hex digits, a slash, the rest; ids too short or
 * too long for one, or a buffer too small, are refused. */
static void test_build_id_path(void **state)
{
	const unsigned char id[] = { 0x0a, 0xbc, 0xde, 0xf0 };
	unsigned char big[65] = { 0 };
	char path[256];

	(void)state;
	assert_int_equal(kt_debug_build_id_path(id, sizeof(id), path,
						sizeof(path)), 0);
	assert_string_equal(path, "/usr/lib/debug/.build-id/0a/bcdef0.debug");
	assert_int_equal(kt_debug_build_id_path(id, 1, path, sizeof(path)),
			 -ENOENT);
	assert_int_equal(kt_debug_build_id_path(big, 65, path, sizeof(path)),
			 -ENOENT);
	assert_int_equal(kt_debug_build_id_path(big, 64, path, sizeof(path)),
			 0);
	assert_int_equal(strlen(path), 25 + 3 + 126 + 6);
	/* exactly what fits: "…/0a/bcdef0.debug" and its NUL */
	assert_int_equal(kt_debug_build_id_path(id, sizeof(id), path, 41), 0);
	assert_string_equal(path, "/usr/lib/debug/.build-id/0a/bcdef0.debug");
	assert_int_equal(kt_debug_build_id_path(id, sizeof(id), path, 40),
			 -ENOENT);
}

static void write_file(const char *path, const char *text)
{
	FILE *o = fopen(path, "w");

	assert_non_null(o);
	fputs(text, o);
	assert_int_equal(fclose(o), 0);
}

/* The smallest ELF file: a 64-bit header without tables, then tail. */
static uint32_t write_elf(const char *path, const char *tail)
{
	unsigned char h[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	uint32_t crc = 0xffffffff;
	FILE *o = fopen(path, "w");

	assert_non_null(o);
	assert_int_equal(fwrite(h, sizeof(h), 1, o), 1);
	fputs(tail, o);
	assert_int_equal(fclose(o), 0);
	/* CRC-32 (IEEE) of what was written, bit by bit */
	for (size_t i = 0; i < sizeof(h) + strlen(tail); i++) {
		crc ^= i < sizeof(h) ? h[i] : (unsigned char)tail[i - sizeof(h)];
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? 0xedb88320 ^ (crc >> 1) : crc >> 1;
	}
	return crc ^ 0xffffffff;
}

/* A .gnu_debuglink file is taken next to the binary, then in its .debug/,
 * only when its CRC is the one recorded; never the binary itself, nor a
 * name with a slash. */
static void test_debuglink_path(void **state)
{
	char dir[] = "/tmp/kt-dlXXXXXX", bin[64], sub[64], f[96], path[256];
	uint32_t crc_abc, crc_abcd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	snprintf(sub, sizeof(sub), "%s/.debug", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	/* in .debug/ only, "abc" */
	snprintf(f, sizeof(f), "%s/prog.dbg", sub);
	crc_abc = write_elf(f, "abc");
	assert_int_equal(kt_debuglink_path("prog.dbg", crc_abc, bin, path,
					   sizeof(path)), 0);
	assert_string_equal(path, f);
	/* a file of that name next to the binary, whose CRC is not it */
	snprintf(f, sizeof(f), "%s/prog.dbg", dir);
	crc_abcd = write_elf(f, "abcd");
	assert_int_equal(kt_debuglink_path("prog.dbg", crc_abc, bin, path,
					   sizeof(path)), 0);
	assert_string_equal(path + strlen(dir), "/.debug/prog.dbg");
	/* the one next to the binary first, when its CRC matches */
	assert_int_equal(kt_debuglink_path("prog.dbg", crc_abcd, bin, path,
					   sizeof(path)), 0);
	assert_string_equal(path, f);
	/* only files whose CRC differs: the first named, as stale */
	assert_int_equal(kt_debuglink_path("prog.dbg", 1, bin, path,
					   sizeof(path)), -ESTALE);
	assert_string_equal(path, f);
	assert_int_equal(kt_debuglink_path("none.dbg", 1, bin, path,
					   sizeof(path)), -ENOENT);
	assert_int_equal(kt_debuglink_path("x/prog.dbg", crc_abc, bin, path,
					   sizeof(path)), -ENOENT);
	assert_int_equal(kt_debuglink_path(NULL, crc_abc, bin, path,
					   sizeof(path)), -ENOENT);
	/* the binary is never its own debug file */
	assert_int_equal(kt_debuglink_path("prog.dbg", crc_abcd, f, path,
					   sizeof(path)), -ESTALE);
	assert_string_equal(path + strlen(dir), "/.debug/prog.dbg");
	/* what is not an ELF file of the size it claims is never read: a
	 * text, a sparse 16 GB file, more bytes than its headers account
	 * for, a FIFO (named as the refused file, with why) */
	write_file(f, "abc");
	assert_int_equal(kt_debuglink_path("prog.dbg", 1, bin, path,
					   sizeof(path)), -ENOEXEC);
	assert_string_equal(path, f);
	assert_int_equal(truncate(f, 16ll << 30), 0);
	assert_int_equal(kt_debuglink_path("prog.dbg", 1, bin, path,
					   sizeof(path)), -EFBIG);
	write_elf(f, "");
	assert_int_equal(truncate(f, 3ll << 30), 0);
	assert_int_equal(kt_debuglink_path("prog.dbg", 1, bin, path,
					   sizeof(path)), -EFBIG);
	unlink(f);
	assert_int_equal(mkfifo(f, 0600), 0);
	assert_int_equal(kt_debuglink_path("prog.dbg", crc_abc, bin, path,
					   sizeof(path)), 0);
	assert_string_equal(path + strlen(dir), "/.debug/prog.dbg");
	assert_int_equal(kt_debuglink_path("prog.dbg", 1, bin, path,
					   sizeof(path)), -KT_ENOTREG);
	unlink(f);
	snprintf(f, sizeof(f), "%s/prog.dbg", sub);
	unlink(f);
	rmdir(sub);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extent),
		cmocka_unit_test(test_unknown_size),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_build_id_path),
		cmocka_unit_test(test_debuglink_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
