// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for report --diff's math (cmd/pdiff.c) on synthetic
 * profiles: the union of two profiles' keys with their shares and change,
 * the order by the size of the change, keys in one profile only, the
 * same-rate test; and the differential flame graph's colours
 * (cmd/flamegraph.c): red for a frame that grew, blue for one that shrank.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "callgraph.h"

static void put(struct kt_profile *p, const char *key, int samples,
		uint64_t period)
{
	for (int i = 0; i < samples; i++)
		assert_int_equal(kt_profile_addc(p, key, period), 0);
}

static const struct kt_drow *find(const struct kt_drow *v, long n,
				  const char *key)
{
	for (long i = 0; i < n; i++)
		if (!strcmp(v[i].key, key))
			return &v[i];
	fail_msg("no row %s", key);
	return NULL;
}

static void test_join(void **state)
{
	struct kt_profile old = { 0 }, new = { 0 };
	const struct kt_drow *r;
	struct kt_drow *v;
	long n;

	(void)state;
	/* old: gamma hot; new: alpha hot, gamma cooler, beta the same
	 * share, "gone" only in old, "born" only in new */
	put(&old, "alpha", 10, 10);
	put(&old, "beta", 20, 10);
	put(&old, "gamma", 60, 10);
	put(&old, "gone", 10, 10);
	put(&new, "alpha", 120, 10);
	put(&new, "beta", 40, 10);
	put(&new, "gamma", 30, 10);
	put(&new, "born", 10, 10);
	assert_true(kt_pdiff_same_rate(&old, &new));
	n = kt_pdiff_join(&old, &new, &v);
	assert_int_equal(n, 5);
	/* key order first */
	assert_string_equal(v[0].key, "alpha");
	assert_string_equal(v[4].key, "gone");
	r = find(v, n, "alpha");
	assert_int_equal(r->old_samples, 10);
	assert_int_equal(r->new_samples, 120);
	assert_float_equal(r->old_pct, 10.0, 1e-9);
	assert_float_equal(r->new_pct, 60.0, 1e-9);
	assert_float_equal(r->delta, 50.0, 1e-9);
	r = find(v, n, "beta");
	assert_float_equal(r->delta, 0.0, 1e-9);
	assert_float_equal(find(v, n, "gamma")->delta, -45.0, 1e-9);
	r = find(v, n, "gone");
	assert_int_equal(r->new_samples, 0);
	assert_float_equal(r->delta, -10.0, 1e-9);
	assert_float_equal(find(v, n, "born")->delta, 5.0, 1e-9);
	/* the changes of shares add up to nothing */
	double sum = 0;

	for (long i = 0; i < n; i++)
		sum += v[i].delta;
	assert_float_equal(sum, 0.0, 1e-9);
	qsort(v, n, sizeof(*v), kt_drow_by_delta);
	assert_string_equal(v[0].key, "alpha");
	assert_string_equal(v[1].key, "gamma");
	assert_string_equal(v[2].key, "gone");
	assert_string_equal(v[3].key, "born");
	assert_string_equal(v[4].key, "beta");
	free(v);
	kt_profile_free(&old);
	kt_profile_free(&new);
}

static void test_empty_side(void **state)
{
	struct kt_profile old = { 0 }, new = { 0 };
	struct kt_drow *v;
	long n;

	(void)state;
	put(&new, "x", 3, 1);
	assert_false(kt_pdiff_same_rate(&old, &new));
	n = kt_pdiff_join(&old, &new, &v);
	assert_int_equal(n, 1);
	assert_float_equal(v[0].old_pct, 0.0, 1e-9);
	assert_float_equal(v[0].delta, 100.0, 1e-9);
	free(v);
	kt_profile_free(&old);
	kt_profile_free(&new);
}

/* Mean period per sample within 5 %: one rate; else not. */
static void test_same_rate(void **state)
{
	struct kt_profile a = { 0 }, b = { 0 }, c = { 0 };

	(void)state;
	put(&a, "k", 100, 1000000);	/* -F 1000 */
	put(&b, "k", 50, 1040000);
	put(&c, "k", 100, 250000);	/* -F 4000 */
	assert_true(kt_pdiff_same_rate(&a, &b));
	assert_false(kt_pdiff_same_rate(&a, &c));
	kt_profile_free(&a);
	kt_profile_free(&b);
	kt_profile_free(&c);
}

/* The fill of the frame named name in the SVG text. */
static void fill_of(const char *svg, const char *name, int *r, int *g, int *b)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "<title>%s (", name);
	p = strstr(svg, pat);
	assert_non_null(p);
	p = strstr(p, "fill=\"rgb(");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "fill=\"rgb(%d,%d,%d)", r, g, b), 3);
}

static void test_flame_colours(void **state)
{
	struct kt_flame *fg = kt_flame_alloc();
	char *svg = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&svg, &len);
	int r, g, b;

	(void)state;
	assert_non_null(fg);
	/* old 100 samples, new 200: shares alpha 10 -> 60, gamma 60 -> 15 */
	assert_int_equal(kt_flame_add_diff(fg, "p;main;alpha", 10, 120), 0);
	assert_int_equal(kt_flame_add_diff(fg, "p;main;gamma", 60, 30), 0);
	assert_int_equal(kt_flame_add_diff(fg, "p;main;beta", 30, 50), 0);
	assert_int_equal(kt_flame_write(fg, f, "t"), 0);
	fclose(f);
	kt_flame_free(fg);
	fill_of(svg, "alpha", &r, &g, &b);	/* grew most: deepest red */
	assert_int_equal(r, 255);
	assert_int_equal(g, 45);
	assert_int_equal(b, 45);
	fill_of(svg, "gamma", &r, &g, &b);	/* shrank: blue */
	assert_int_equal(b, 255);
	assert_true(r < 255 && r == g);
	fill_of(svg, "beta", &r, &g, &b);	/* 30 % -> 25 %: pale blue */
	assert_int_equal(b, 255);
	assert_true(r > 200);
	fill_of(svg, "main", &r, &g, &b);	/* all of both: white */
	assert_int_equal(r, 255);
	assert_int_equal(g, 255);
	assert_int_equal(b, 255);
	assert_non_null(strstr(svg, "<title>alpha (120 samples, 60.00%, +50.00%)"));
	free(svg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_empty_side),
		cmocka_unit_test(test_same_rate),
		cmocka_unit_test(test_flame_colours),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
