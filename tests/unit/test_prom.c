// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for lib/base/prom.c (the Prometheus text format: escaper,
 * names, samples) and cmd/promhist.c (a kernel hist table as metrics),
 * on the kernel's own hist text of tests/fixtures/hist.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ktrace_cmd.h"
#include "base/prom.h"
#include "srcdir.h"

/* What fn wrote to a stream, malloc'ed. */
#define CAPTURE(buf, stmt)                                              \
	do {                                                            \
		size_t len_;                                            \
		FILE *f = open_memstream(&(buf), &len_);                \
		assert_non_null(f);                                     \
		stmt;                                                   \
		assert_int_equal(fclose(f), 0);                         \
	} while (0)

static void test_escape(void **state)
{
	char *s = NULL;

	(void)state;
	CAPTURE(s, kt_prom_escape(f, "a\\b\"c\nd", true));
	assert_string_equal(s, "a\\\\b\\\"c\\nd");
	free(s);
	CAPTURE(s, kt_prom_escape(f, "a\\b\"c\nd", false));
	assert_string_equal(s, "a\\\\b\"c\\nd");
	free(s);
	CAPTURE(s, kt_prom_escape(f, "", true));
	assert_string_equal(s, "");
	free(s);
}

static void test_names(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(kt_prom_name(b, sizeof(b), "read-sizes", false),
			    "read_sizes");
	assert_string_equal(kt_prom_name(b, sizeof(b), "9lives", false),
			    "_9lives");
	assert_string_equal(kt_prom_name(b, sizeof(b), "a:b", false), "a:b");
	assert_string_equal(kt_prom_name(b, sizeof(b), "a:b", true), "a_b");
	assert_string_equal(kt_prom_name(b, sizeof(b), "__name__", true),
			    "k_name__");
	assert_string_equal(kt_prom_name(b, sizeof(b), "", true), "_");
	assert_string_equal(kt_prom_name(b, sizeof(b), "sé", false), "s__");
	assert_string_equal(kt_prom_name(b, 4, "abcdef", false), "abc");
}

static void test_samples(void **state)
{
	struct kt_prom_label l[] = { { "event", "sys:\"x\"\n" },
				     { "le", "+Inf" } };
	char *s = NULL;

	(void)state;
	CAPTURE(s, kt_prom_family(f, "m_total", "counter", "a \\ b\nc");
		   kt_prom_u64(f, "m_total", l, 2, 18446744073709551615ULL);
		   kt_prom_u64(f, "m_total", NULL, 0, 0);
		   kt_prom_double(f, "g", NULL, 0, 0.1);
		   kt_prom_double(f, "g", NULL, 0, 1.0 / 3);
		   kt_prom_double(f, "g", l, 1, 1.0 / 0.0);
		   kt_prom_family(f, "g", "gauge", NULL));
	assert_string_equal(s,
		"# HELP m_total a \\\\ b\\nc\n"
		"# TYPE m_total counter\n"
		"m_total{event=\"sys:\\\"x\\\"\\n\",le=\"+Inf\"} 18446744073709551615\n"
		"m_total 0\n"
		"g 0.1\n"
		"g 0.33333333333333331\n"
		"g{event=\"sys:\\\"x\\\"\\n\"} +Inf\n"
		"# TYPE g gauge\n");
	free(s);
}

/* fixture KERNEL/NAME parsed, written by kt_promhist_write(); *out
 * malloc'ed */
static char *render(const char *kernel, const char *name,
		    const struct kt_promhist *p)
{
	struct kt_hist_file *hf = NULL;
	char path[4096], *text, *s = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/fixtures/hist/%s/%s.hist",
		 srcdir, kernel, name);
	text = kt_read_file(path, &len);
	if (!text)
		fail_msg("cannot read %s", path);
	assert_int_equal(kt_hist_parse(text, len, &hf), 0);
	assert_int_equal(hf->n, 1);
	CAPTURE(s, assert_int_equal(kt_promhist_write(f, p, &hf->t[0]), 0));
	kt_hist_file_free(hf);
	free(text);
	return s;
}

static void contains(const char *s, const char *line)
{
	if (!strstr(s, line))
		fail_msg("'%s' not in:\n%s", line, s);
}

/* log2: every bound from the lowest to the highest bucket, cumulative;
 * the kernel's table holds no sum of ret: no _sum, said in HELP */
static void test_log2(void **state)
{
	struct kt_promhist p = { .metric = "ktrace_read_sizes",
				 .help = "read sizes", .sum = "ret" };
	static const char *const kernels[] = { "6.1", "6.12" };

	(void)state;
	for (int k = 0; k < 2; k++) {
		char *s = render(kernels[k], "log2", &p);

		assert_string_equal(s,
			"# HELP ktrace_read_sizes read sizes (ret; _sum omitted: the kernel's table holds no sum of the field)\n"
			"# TYPE ktrace_read_sizes histogram\n"
			"ktrace_read_sizes_bucket{le=\"1\"} 100\n"
			"ktrace_read_sizes_bucket{le=\"2\"} 100\n"
			"ktrace_read_sizes_bucket{le=\"4\"} 100\n"
			"ktrace_read_sizes_bucket{le=\"8\"} 100\n"
			"ktrace_read_sizes_bucket{le=\"16\"} 100\n"
			"ktrace_read_sizes_bucket{le=\"32\"} 100\n"
			"ktrace_read_sizes_bucket{le=\"64\"} 100\n"
			"ktrace_read_sizes_bucket{le=\"128\"} 161\n"
			"ktrace_read_sizes_bucket{le=\"256\"} 161\n"
			"ktrace_read_sizes_bucket{le=\"512\"} 161\n"
			"ktrace_read_sizes_bucket{le=\"1024\"} 161\n"
			"ktrace_read_sizes_bucket{le=\"2048\"} 181\n"
			"ktrace_read_sizes_bucket{le=\"4096\"} 181\n"
			"ktrace_read_sizes_bucket{le=\"8192\"} 221\n"
			"ktrace_read_sizes_bucket{le=\"+Inf\"} 221\n"
			"ktrace_read_sizes_count 221\n");
		free(s);
	}
}

/* a value of the key's field: the exact _sum */
static void test_log2_sum(void **state)
{
	struct kt_promhist p = { .metric = "m", .help = "h",
				 .sum = "count" };
	char *s = render("6.12", "log2r", &p);

	(void)state;
	contains(s, "(count; _sum exact: the kernel sums the field)\n");
	contains(s, "m_bucket{le=\"1\"} 80\n");
	contains(s, "m_bucket{le=\"128\"} 140\n");
	contains(s, "m_bucket{le=\"1024\"} 141\n");
	contains(s, "m_bucket{le=\"8192\"} 181\n");
	contains(s, "m_bucket{le=\"65536\"} 222\nm_bucket{le=\"+Inf\"} 222\n"
		    "m_sum 2894080\nm_count 222\n");
	free(s);
}

/* .buckets=100: "~ A-B" holds A..B, le = B */
static void test_buckets(void **state)
{
	struct kt_promhist p = { .metric = "m", .help = "h" };
	char *s = render("6.12", "buckets", &p);

	(void)state;
	contains(s, "m_bucket{le=\"99\"} 498\nm_bucket{le=\"199\"} 518\n");
	contains(s, "m_bucket{le=\"3999\"} 661\nm_bucket{le=\"4099\"} 805\n"
		    "m_bucket{le=\"+Inf\"} 805\nm_count 805\n");
	assert_null(strstr(s, "m_sum"));
	free(s);
}

static void test_counters(void **state)
{
	struct kt_promhist p = { .metric = "k", .help = "syscalls" };
	char *s = render("6.12", "syscall", &p);

	(void)state;
	contains(s, "# HELP k_hits_total syscalls (events, counted in the kernel)\n"
		    "# TYPE k_hits_total counter\n"
		    "k_hits_total{id=\"sys_close\"} 683\n");
	free(s);
	s = render("6.12", "execname", &p);
	contains(s, "k_hits_total{common_pid=\"166\",comm=\"tee\"} 3\n");
	free(s);
	s = render("6.12", "multival", &p);
	contains(s, "# TYPE k_bytes_req_total counter\n"
		    "k_bytes_req_total{common_pid=\"1587\"} 13634\n");
	contains(s, "k_bytes_alloc_total{common_pid=\"1587\"} 14432\n");
	free(s);
	p.total_only = true;
	s = render("6.12", "total", &p);
	contains(s, "# TYPE k_hits_total counter\nk_hits_total 4396\n");
	free(s);
}

static void test_stack(void **state)
{
	struct kt_promhist p = { .metric = "k", .help = "h" };
	char *s = render("6.12", "stack", &p);

	(void)state;
	contains(s, "k_hits_total{common_stacktrace=\"");
	contains(s, "single_open+0x2e/0xa0;event_hist_open+0xd9/0x130;");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_log2),
		cmocka_unit_test(test_log2_sum),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_stack),
	};

	find_srcdir();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
