// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the call-graph reports (cmd/callgraph.c) on synthetic
 * stacks: --children's self and children counts (recursion counted once
 * a stack), the --callers and --callees trees (paths, self at the ends,
 * recursion), and the printed tree's folding under --percent-limit.
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

/* A stack from a string of names, innermost first: "gamma beta main". */
static int stack(struct ktrace_frame *fr, char *buf, const char *names)
{
	int n = 0;

	strcpy(buf, names);
	for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
		fr[n].ip = 0x1000 + n;
		fr[n].sym = t;
		fr[n].dso = "/bin/prog";
		fr[n].inlined = false;
		n++;
	}
	return n;
}

static void add(struct kt_cgraph *g, const char *names, uint64_t period)
{
	struct ktrace_frame fr[16];
	char buf[256];
	int n = stack(fr, buf, names);

	assert_int_equal(kt_cg_add(g, "prog", "cpu-clock", fr, n, period), 0);
}

static const struct kt_prow *row(const struct kt_profile *p, const char *sym)
{
	char key[128];

	snprintf(key, sizeof(key), "%s", sym);
	return kt_profile_find(p, key);
}

/* the work split of tests/targets/cgchain, and a recursive function */
static void chain(struct kt_cgraph *g)
{
	for (int i = 0; i < 4; i++)
		add(g, "gamma beta alpha main", 10);
	for (int i = 0; i < 2; i++)
		add(g, "beta alpha main", 10);
	add(g, "alpha main", 10);
	add(g, "leaf rec rec rec main", 10);
	add(g, "rec rec main", 10);
}

static void test_children(void **state)
{
	struct kt_cg_opts o = { .children = true, .nkeys = 1,
				.keys = { KT_SK_SYM }, .limit = -1 };
	struct kt_cgraph g;
	unsigned long long self = 0;
	const struct kt_prow *r;

	(void)state;
	assert_int_equal(kt_cg_init(&g, &o), 0);
	chain(&g);
	assert_int_equal(g.samples, 9);
	assert_int_equal(g.period, 90);
	/* children: every stack it is in, once */
	assert_int_equal(row(&g.total, "main")->period, 90);
	assert_int_equal(row(&g.total, "alpha")->period, 70);
	assert_int_equal(row(&g.total, "beta")->period, 60);
	assert_int_equal(row(&g.total, "gamma")->period, 40);
	r = row(&g.total, "rec");
	assert_int_equal(r->samples, 2);	/* not 5: recursion */
	assert_int_equal(r->period, 20);
	/* self: the innermost frame only; they sum to the whole */
	assert_null(row(&g.self, "main"));
	assert_int_equal(row(&g.self, "alpha")->period, 10);
	assert_int_equal(row(&g.self, "beta")->period, 20);
	assert_int_equal(row(&g.self, "gamma")->period, 40);
	assert_int_equal(row(&g.self, "rec")->period, 10);
	assert_int_equal(row(&g.self, "leaf")->period, 10);
	for (size_t i = 0; i < g.self.cap; i++)
		self += g.self.v[i].key ? g.self.v[i].period : 0;
	assert_int_equal(self, g.period);
	/* parents >= children along the chain */
	assert_true(row(&g.total, "alpha")->period >=
		    row(&g.total, "beta")->period);
	kt_cg_free(&g);
}

/* No address at all: one "[none]" row, self and children. */
static void test_children_no_frames(void **state)
{
	struct kt_cg_opts o = { .children = true, .nkeys = 2,
				.keys = { KT_SK_COMM, KT_SK_SYM }, .limit = -1 };
	struct kt_cgraph g;

	(void)state;
	assert_int_equal(kt_cg_init(&g, &o), 0);
	assert_int_equal(kt_cg_add(&g, "prog", "ev", NULL, 0, 3), 0);
	assert_int_equal(kt_profile_find(&g.total, "prog\t[none]")->period, 3);
	assert_int_equal(kt_profile_find(&g.self, "prog\t[none]")->period, 3);
	kt_cg_free(&g);
}

static struct kt_cgnode *kid(struct kt_cgnode *n, const char *sym)
{
	for (int i = 0; i < n->nkids; i++)
		if (!strcmp(n->kids[i].sym, sym))
			return &n->kids[i];
	fail_msg("no kid %s under %s", sym, n->sym);
	return NULL;
}

static void test_callers(void **state)
{
	struct kt_cg_opts o = { .callers = "gamma", .limit = -1 };
	struct kt_cgraph g;
	struct kt_cgnode *n;

	(void)state;
	assert_int_equal(kt_cg_init(&g, &o), 0);
	chain(&g);
	add(&g, "gamma other main", 5);
	assert_string_equal(g.root.sym, "gamma");
	assert_int_equal(g.root.samples, 5);
	assert_int_equal(g.root.period, 45);
	assert_int_equal(g.root.nkids, 2);
	n = kid(&g.root, "beta");
	assert_int_equal(n->period, 40);
	n = kid(n, "alpha");
	assert_int_equal(n->period, 40);
	n = kid(n, "main");
	assert_int_equal(n->period, 40);
	/* the path ends at the stack's root: its self */
	assert_int_equal(n->self_period, 40);
	assert_int_equal(n->nkids, 0);
	assert_int_equal(kid(&g.root, "other")->period, 5);
	kt_cgnode_sort(&g.root);
	assert_string_equal(g.root.kids[0].sym, "beta");
	kt_cg_free(&g);
}

/* Recursion: one sample is one path, from the innermost (callers) or the
 * outermost (callees) frame of the symbol. */
static void test_recursion_trees(void **state)
{
	struct kt_cg_opts up = { .callers = "rec", .limit = -1 };
	struct kt_cg_opts down = { .callees = "rec", .limit = -1 };
	struct kt_cgraph g;
	struct kt_cgnode *n;

	(void)state;
	assert_int_equal(kt_cg_init(&g, &up), 0);
	chain(&g);
	assert_int_equal(g.root.samples, 2);
	assert_int_equal(g.root.self_samples, 0);
	n = kid(&g.root, "rec");	/* rec <- rec <- rec <- main */
	assert_int_equal(n->samples, 2);
	assert_int_equal(kid(n, "main")->samples, 1);
	assert_int_equal(kid(kid(n, "rec"), "main")->samples, 1);
	kt_cg_free(&g);

	assert_int_equal(kt_cg_init(&g, &down), 0);
	chain(&g);
	assert_int_equal(g.root.samples, 2);
	n = kid(&g.root, "rec");	/* rec -> rec -> rec -> leaf */
	assert_int_equal(n->samples, 2);
	assert_int_equal(n->self_samples, 1);	/* "rec rec main" */
	n = kid(n, "rec");
	assert_int_equal(n->samples, 1);
	assert_int_equal(kid(n, "leaf")->self_samples, 1);
	kt_cg_free(&g);
}

/* The printed tree: kids under the limit folded into one entry. */
static void test_tree_json_folds(void **state)
{
	struct kt_cg_opts o = { .callees = "alpha", .limit = 10 };
	struct kt_ctx ctx = { .json = true, .err = stderr };
	struct kt_cgraph g;
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	ctx.out = open_memstream(&buf, &len);
	assert_non_null(ctx.out);
	assert_int_equal(kt_cg_init(&g, &o), 0);
	for (int i = 0; i < 90; i++)
		add(&g, "gamma beta alpha main", 1);
	add(&g, "x1 alpha main", 1);
	add(&g, "x2 alpha main", 2);
	add(&g, "other main", 7);
	kt_cg_print(&ctx, &g, "cpu-clock");
	kt_cg_free(&g);
	assert_int_equal(kt_json_free(ctx.jw), 0);
	fclose(ctx.out);
	assert_non_null(strstr(buf, "\"callees\": {\"symbol\": \"alpha\", \"dso\": null, \"percent\": 93, \"samples\": 92, \"period\": 93"));
	assert_non_null(strstr(buf, "\"below_limit\": {\"nodes\": 2, \"percent\": 3, \"samples\": 2, \"period\": 3}"));
	assert_null(strstr(buf, "x1"));
	assert_non_null(strstr(buf, "\"symbol\": \"gamma\""));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_children_no_frames),
		cmocka_unit_test(test_callers),
		cmocka_unit_test(test_recursion_trees),
		cmocka_unit_test(test_tree_json_folds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
