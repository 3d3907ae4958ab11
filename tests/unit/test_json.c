// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/base/json.c: nesting, separators, escaping, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ktrace.h"
#include "base/internal.h"
#include "base/json.h"

struct mem {
	char *buf;
	size_t len;
	FILE *f;
	struct kt_json *j;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	m->j = kt_json_alloc(m->f);
	assert_non_null(m->j);
}

/* Free the writer (closing what is open) and compare the text. */
static void mem_expect(struct mem *m, const char *want)
{
	assert_int_equal(kt_json_free(m->j), 0);
	fclose(m->f);
	assert_string_equal(m->buf, want);
	free(m->buf);
}

static void test_nesting(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m);
	kt_json_object_begin(m.j);
	kt_json_key(m.j, "a");
	kt_json_int(m.j, -3);
	kt_json_key(m.j, "b");
	kt_json_array_begin(m.j);
	kt_json_uint(m.j, 18446744073709551615ull);
	kt_json_bool(m.j, true);
	kt_json_null(m.j);
	kt_json_string(m.j, NULL);
	kt_json_array_end(m.j);
	kt_json_key(m.j, "c");
	kt_json_object_begin(m.j);
	kt_json_object_end(m.j);
	kt_json_key(m.j, "d");
	kt_json_double(m.j, 0.5);
	kt_json_object_end(m.j);
	mem_expect(&m, "{\"a\": -3, \"b\": [18446744073709551615, true, null, null], \"c\": {}, \"d\": 0.5}\n");
}

static void test_top_array_lines(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m);
	kt_json_array_begin(m.j);
	kt_json_array_end(m.j);
	mem_expect(&m, "[]\n");

	mem_open(&m);
	kt_json_array_begin(m.j);
	for (int i = 0; i < 2; i++) {
		kt_json_object_begin(m.j);
		kt_json_key(m.j, "i");
		kt_json_int(m.j, i);
		kt_json_object_end(m.j);
	}
	kt_json_array_end(m.j);
	mem_expect(&m, "[\n{\"i\": 0},\n{\"i\": 1}\n]\n");
}

/* Timestamps exact to the nanosecond, values made elsewhere, and the
 * arrays of a trace file one element per line. */
static void test_decimal_raw_long_arrays(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m);
	kt_json_set_long_arrays(m.j, true);
	kt_json_object_begin(m.j);
	kt_json_key(m.j, "e");
	kt_json_array_begin(m.j);
	kt_json_decimal(m.j, 10254100036491ll, 3);
	kt_json_decimal(m.j, -5, 3);
	kt_json_decimal(m.j, 7, 0);
	kt_json_array_begin(m.j);	/* deeper: on one line */
	kt_json_raw(m.j, "{\"x\": 1}", 8);
	kt_json_raw(m.j, "[]", 2);
	kt_json_array_end(m.j);
	kt_json_array_end(m.j);
	kt_json_key(m.j, "n");
	kt_json_array_begin(m.j);
	kt_json_array_end(m.j);
	kt_json_object_end(m.j);
	mem_expect(&m, "{\"e\": [\n10254100036.491,\n-0.005,\n7,\n[{\"x\": 1}, []]\n], \"n\": []}\n");

	/* off (the default): the same object on one line */
	mem_open(&m);
	kt_json_object_begin(m.j);
	kt_json_key(m.j, "e");
	kt_json_array_begin(m.j);
	kt_json_decimal(m.j, 1000, 3);
	kt_json_decimal(m.j, 1, 3);
	kt_json_array_end(m.j);
	kt_json_object_end(m.j);
	mem_expect(&m, "{\"e\": [1.000, 0.001]}\n");
}

static void test_close_all(void **state)
{
	struct mem m;

	(void)state;
	/* cut short: a key without its value, two levels open */
	mem_open(&m);
	kt_json_array_begin(m.j);
	kt_json_object_begin(m.j);
	kt_json_key(m.j, "x");
	assert_true(kt_json_in_object(m.j));
	mem_expect(&m, "[\n{\"x\": null}\n]\n");

	/* documents one after the other: one per line */
	mem_open(&m);
	kt_json_object_begin(m.j);
	kt_json_object_end(m.j);
	kt_json_object_begin(m.j);
	kt_json_object_end(m.j);
	mem_expect(&m, "{}\n{}\n");
}

static void test_escaping(void **state)
{
	struct mem m;
	char big[3000];

	(void)state;
	mem_open(&m);
	kt_json_string(m.j, "q\" b\\ n\n t\t c\x01 del\x7f");
	mem_expect(&m, "\"q\\\" b\\\\ n\\n t\\t c\\u0001 del\\u007f\"\n");

	/* UTF-8 kept; bytes that are not UTF-8 become \u00XX */
	mem_open(&m);
	kt_json_string(m.j, "\xc3\xa9 \xe2\x82\xac \xff \xc3 \xed\xa0\x80 \xc0\xaf");
	mem_expect(&m, "\"\xc3\xa9 \xe2\x82\xac \\u00ff \\u00c3 \\u00ed\\u00a0\\u0080 \\u00c0\\u00af\"\n");

	/* longer than the escaper's buffer, multi-byte sequences across it */
	mem_open(&m);
	memset(big, 0, sizeof(big));
	for (size_t i = 0; i + 2 < sizeof(big); i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	big[sizeof(big) - 1] = '\0';
	kt_json_string(m.j, big);
	assert_int_equal(kt_json_free(m.j), 0);
	fclose(m.f);
	assert_int_equal(m.len, 1 + 2998 + 1 + 1);
	assert_memory_equal(m.buf + 1, big, 2998);
	free(m.buf);
}

static void sink(void *ctx, const char *p, size_t n)
{
	strncat(ctx, p, n);
}

static void test_escape_bounded(void **state)
{
	char out[64] = "";

	(void)state;
	/* at most n bytes, and never past a NUL */
	kt_json_escape("abcdef", 3, sink, out);
	assert_string_equal(out, "\"abc\"");
	out[0] = '\0';
	kt_json_escape("ab\0cd", 5, sink, out);
	assert_string_equal(out, "\"ab\"");
	/* a sequence cut by n is not UTF-8 */
	out[0] = '\0';
	kt_json_escape("\xc3\xa9", 1, sink, out);
	assert_string_equal(out, "\"\\u00c3\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_top_array_lines),
		cmocka_unit_test(test_decimal_raw_long_arrays),
		cmocka_unit_test(test_close_all),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_escape_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
