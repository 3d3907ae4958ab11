// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for annotate's counting (lib/sym/annotate.c, srcline.c) on
 * a synthetic function: samples to instructions and source lines, the
 * hottest of each, hits outside the code; and the disassembler on known
 * bytes of each architecture (disasm.c through lib/arch's tables).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arch/arch.h"
#include "sym/annotate.h"

/*
 * A function at 0x1000 of 7 instructions from two files:
 *   0x1000 +3  a.c:10      0x1003 +2  a.c:11     0x1005 +4  a.c:12
 *   0x1009 +1  a.c:11      0x100a +5  b.h:4      0x100f +2  (no line)
 *   0x1011 +3  a.c:10
 */
static void synth(struct kt_annot *a)
{
	static const struct { uint64_t addr; unsigned int len; int file, line; }
	v[] = {
		{ 0x1000, 3, 0, 10 }, { 0x1003, 2, 0, 11 },
		{ 0x1005, 4, 0, 12 }, { 0x1009, 1, 0, 11 },
		{ 0x100a, 5, 1, 4 }, { 0x100f, 2, -1, 0 },
		{ 0x1011, 3, 0, 10 },
	};

	memset(a, 0, sizeof(*a));
	a->hot_insn = a->hot_line = -1;
	a->addr = 0x1000;
	a->size = 0x14;
	a->ninsn = sizeof(v) / sizeof(v[0]);
	a->insn = calloc(a->ninsn, sizeof(*a->insn));
	assert_non_null(a->insn);
	for (size_t i = 0; i < a->ninsn; i++) {
		a->insn[i] = (struct kt_ainsn){ .addr = v[i].addr,
			.len = v[i].len, .file = v[i].file,
			.line = v[i].line };
		a->insn[i].text = strdup("nop");
	}
	a->nfiles = 2;
	a->files = calloc(2, sizeof(*a->files));
	assert_non_null(a->files);
	a->files[0] = strdup("a.c");
	a->files[1] = strdup("b.h");
	assert_int_equal(kt_annot_lines(a), 0);
}

static const struct kt_aline *line(const struct kt_annot *a, int file,
				   int ln)
{
	for (size_t k = 0; k < a->nlines; k++)
		if (a->lines[k].file == file && a->lines[k].line == ln)
			return &a->lines[k];
	return NULL;
}

/* One entry per (file, line), sorted, the line-less instruction left
 * out. */
static void test_lines(void **state)
{
	struct kt_annot a;

	(void)state;
	synth(&a);
	assert_int_equal(a.nlines, 4);
	assert_int_equal(a.lines[0].line, 10);
	assert_int_equal(a.lines[1].line, 11);
	assert_int_equal(a.lines[2].line, 12);
	assert_int_equal(a.lines[3].file, 1);
	assert_int_equal(a.lines[3].line, 4);
	kt_annot_free(&a);
}

/* Hits go to the instruction holding them (its start or inside it),
 * lines sum their instructions, hits outside are counted apart. */
static void test_count(void **state)
{
	const struct kt_ahit h[] = {
		{ 0x1000, 1, 100 },
		{ 0x1004, 2, 200 },	/* inside 0x1003 */
		{ 0x1009, 5, 500 },	/* a.c:11 again */
		{ 0x100a, 3, 300 },
		{ 0x100f, 1, 100 },	/* no line */
		{ 0x1013, 1, 100 },	/* a.c:10, inside the last */
		{ 0x1014, 7, 700 },	/* just past the end */
		{ 0x0fff, 4, 400 },	/* before the start */
	};
	struct kt_annot a;

	(void)state;
	synth(&a);
	kt_annot_count(&a, h, sizeof(h) / sizeof(h[0]));
	assert_int_equal(a.samples, 13);
	assert_int_equal(a.period, 1300);
	assert_int_equal(a.outside, 11);
	assert_int_equal(a.insn[0].period, 100);
	assert_int_equal(a.insn[1].period, 200);
	assert_int_equal(a.insn[2].period, 0);
	assert_int_equal(a.insn[3].samples, 5);
	assert_int_equal(a.insn[5].period, 100);
	assert_int_equal(a.insn[6].period, 100);
	assert_int_equal(line(&a, 0, 10)->period, 200);
	assert_int_equal(line(&a, 0, 11)->period, 700);
	assert_int_equal(line(&a, 0, 11)->samples, 7);
	assert_int_equal(line(&a, 0, 12)->period, 0);
	assert_int_equal(line(&a, 1, 4)->period, 300);
	/* the hottest instruction is 0x1009 (500); the hottest line,
	 * a.c:11, sums it and 0x1003; the line-less one is on no line */
	assert_int_equal(a.hot_insn, 3);
	assert_ptr_equal(&a.lines[a.hot_line], line(&a, 0, 11));
	assert_true(kt_annot_share(&a, 7, 700) > 0.538 &&
		    kt_annot_share(&a, 7, 700) < 0.539);
	kt_annot_free(&a);
}

/* Shares and the hottest by period, not by samples (cpu-clock's periods
 * differ); the first of equals; nothing counted: none hottest. */
static void test_hottest(void **state)
{
	const struct kt_ahit h[] = {
		{ 0x1005, 5, 50 }, { 0x100a, 1, 90 }, { 0x1011, 1, 90 },
	};
	const struct kt_ahit none[] = { { 0x2000, 1, 1 } };
	struct kt_annot a;

	(void)state;
	synth(&a);
	kt_annot_count(&a, none, 1);
	assert_int_equal(a.hot_insn, -1);
	assert_int_equal(a.hot_line, -1);
	assert_true(kt_annot_share(&a, 0, 0) == 0);
	kt_annot_count(&a, h, 3);
	assert_int_equal(a.hot_insn, 4);	/* 0x100a before 0x1011 */
	/* a.c:10 (90) ties b.h:4 (90): the first by file, line */
	assert_ptr_equal(&a.lines[a.hot_line], line(&a, 0, 10));
	kt_annot_free(&a);
}

/* Samples without a period (tracepoint records): by samples. */
static void test_no_period(void **state)
{
	const struct kt_ahit h[] = {
		{ 0x1000, 2, 0 }, { 0x1005, 3, 0 }, { 0x1009, 2, 0 },
	};
	struct kt_annot a;

	(void)state;
	synth(&a);
	kt_annot_count(&a, h, 3);
	assert_int_equal(a.hot_insn, 2);
	assert_ptr_equal(&a.lines[a.hot_line], line(&a, 0, 12));
	assert_true(kt_annot_share(&a, 3, 0) > 0.428 &&
		    kt_annot_share(&a, 3, 0) < 0.429);
	kt_annot_free(&a);
}

/* The disassembler through each architecture's table: known bytes, the
 * addresses and lengths, undecodable bytes kept. */
static void test_disasm(void **state)
{
	/* add %rbx,%rax; ret; 0xd6 (no instruction in 64-bit mode); nop */
	const uint8_t x86[] = { 0x48, 0x01, 0xd8, 0xc3, 0xd6, 0x90 };
	/* mov x0, #1 (capstone 4 spells it movz); ret */
	const uint8_t a64[] = { 0x20, 0x00, 0x80, 0xd2, 0xc0, 0x03, 0x5f,
				0xd6 };
	struct kt_ainsn *v;
	size_t n;

	(void)state;
	assert_int_equal(kt_disasm(&kt_arch_x86_64, x86, sizeof(x86), 0x400,
				   &v, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0].text, "addq %rbx, %rax");
	assert_int_equal(v[0].len, 3);
	assert_int_equal(v[1].addr, 0x403);
	assert_string_equal(v[1].text, "retq");
	assert_int_equal(v[2].addr, 0x404);
	assert_int_equal(v[3].addr, 0x405);
	assert_string_equal(v[3].text, "nop");
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
	assert_int_equal(kt_disasm(&kt_arch_arm64, a64, sizeof(a64), 0x10,
				   &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].text, "movz x0, #0x1");
	assert_int_equal(v[1].addr, 0x14);
	assert_string_equal(v[1].text, "ret");
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_hottest),
		cmocka_unit_test(test_no_period),
		cmocka_unit_test(test_disasm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
