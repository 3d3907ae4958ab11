// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for lib/tracefs/histparse.c: the kernel's own hist text of
 * 6.1 and 6.12 (tests/fixtures/hist, printed in the VM by
 * tests/vm/x_hist_fixtures.sh), hand-made sections for what the VM run
 * did not print, cut and garbled text, and kt_hist_find().
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/internal.h"
#include "tracefs/hist.h"
#include "srcdir.h"

/* tests/fixtures/hist/KERNEL/NAME.hist, malloc'ed */
static char *fixture(const char *kernel, const char *name, size_t *len)
{
	char path[4096];
	char *s;

	snprintf(path, sizeof(path), "%s/tests/fixtures/hist/%s/%s.hist",
		 srcdir, kernel, name);
	s = kt_read_file(path, len);
	if (!s)
		fail_msg("cannot read %s", path);
	return s;
}

static struct kt_hist_file *parse_str(const char *s)
{
	struct kt_hist_file *f = NULL;

	assert_int_equal(kt_hist_parse(s, strlen(s), &f), 0);
	assert_non_null(f);
	return f;
}

static int parse_err(const char *s)
{
	struct kt_hist_file *f = (void *)1;
	int ret = kt_hist_parse(s, strlen(s), &f);

	assert_null(f);
	return ret;
}

/* The one table of fixture KERNEL/NAME; *f to free */
static struct kt_hist_table *load(const char *kernel, const char *name,
				  struct kt_hist_file **f)
{
	size_t len;
	char *s = fixture(kernel, name, &len);

	assert_int_equal(kt_hist_parse(s, len, f), 0);
	free(s);
	assert_int_equal((*f)->n, 1);
	return &(*f)->t[0];
}

/* s with its first old replaced by new, malloc'ed */
static char *replace(const char *s, const char *old, const char *new)
{
	const char *p = strstr(s, old);
	char *r;

	if (!p)
		fail_msg("'%s' not in the text", old);
	if (asprintf(&r, "%.*s%s%s", (int)(p - s), s, new,
		     p + strlen(old)) < 0)
		fail();
	return r;
}

static void assert_key(const struct kt_hist_key *k, const char *text,
		       uint64_t num)
{
	assert_string_equal(k->text, text);
	assert_true(k->is_num);
	assert_true(k->num == num);
}

/*
 * Files where Hits may be more than the entries' hitcounts though nothing
 * was dropped: the kernel reads Hits after printing the entries, and
 * reading the file fires the traced event (kmalloc, sched_switch, the
 * synthetic event sched_switch fires) with keys (pointers, comms,
 * latencies) it has not printed.
 */
static const char *const hits_after[] = {
	"6.1/drops.hist", "6.12/drops.hist", "6.1/hex.hist", "6.12/hex.hist",
	"6.1/string.hist", "6.12/percent.hist", "6.1/synth-lat.hist",
	"6.12/synth-lat.hist",
};

static bool in_hits_after(const char *kernel, const char *file)
{
	size_t i, n = strlen(kernel);

	for (i = 0; i < sizeof(hits_after) / sizeof(hits_after[0]); i++)
		if (!strncmp(hits_after[i], kernel, n) &&
		    hits_after[i][n] == '/' &&
		    !strcmp(hits_after[i] + n + 1, file))
			return true;
	return false;
}

/* What holds for table j of the kernel's text */
static void check_table(struct kt_hist_file *f, int j, const char *text,
			const char *kernel, const char *file)
{
	struct kt_hist_table *t = &f->t[j];
	const char *info = text;
	uint64_t sum = 0;
	size_t i;
	int k;

	for (k = 0; k <= j; k++) {
		info = strstr(info, "# trigger info: ");
		assert_non_null(info);
		info += 16;
	}
	assert_true(t->has_totals);
	assert_false(t->paused);
	assert_true(t->n == t->entries);
	assert_true(t->n > 0);
	assert_memory_equal(t->trigger, info, strlen(t->trigger));
	assert_true(!strncmp(info + strlen(t->trigger), " [active]\n", 10));
	assert_true(t->nkeys >= 1 && t->nvals >= 1);
	assert_string_equal(t->vals[0], "hitcount");
	for (i = 0; i < t->n; i++) {
		const struct kt_hist_entry *e = &t->v[i];
		size_t rl = strlen(e->raw);

		assert_true(e->raw[0] == '{' && e->raw[rl - 1] == '}');
		/* raw is the text as printed */
		assert_non_null(strstr(text, e->raw));
		for (k = 0; k < t->nkeys; k++)
			assert_non_null(e->keys[k].text);
		sum += e->vals[0];
	}
	if (t->dropped == 0 && !in_hits_after(kernel, file)) {
		assert_true(sum == t->hits);
	} else if (t->dropped == 0) {
		assert_true(sum <= t->hits && t->hits - sum < 32);
	} else {
		assert_true(sum <= t->hits);
	}
	/* a table is found by its own trigger info */
	assert_ptr_equal(kt_hist_find(f, t->trigger), t);
}

static int hist_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && !strcmp(d->d_name + n - 5, ".hist");
}

static int check_kernel(const char *kernel)
{
	struct dirent **names;
	char dir[4096];
	const char *p;
	int n, i, j;

	snprintf(dir, sizeof(dir), "%s/tests/fixtures/hist/%s", srcdir,
		 kernel);
	n = scandir(dir, &names, hist_file, alphasort);
	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		struct kt_hist_file *f = NULL;
		char name[256];
		size_t len;
		char *s;

		snprintf(name, sizeof(name), "%.*s",
			 (int)strlen(names[i]->d_name) - 5, names[i]->d_name);
		s = fixture(kernel, name, &len);
		if (kt_hist_parse(s, len, &f))
			fail_msg("%s/%s does not parse", kernel, name);
		assert_true(f->n >= 1);
		for (j = 0; j < f->n; j++)
			check_table(f, j, s, kernel, names[i]->d_name);
		/* one section per "# event histogram" */
		for (j = 0, p = s; (p = strstr(p, "# event histogram")); p++)
			j++;
		assert_int_equal(f->n, j);
		kt_hist_file_free(f);
		free(s);
		free(names[i]);
	}
	free(names);
	return n;
}

static void test_every_fixture(void **state)
{
	(void)state;
	assert_int_equal(check_kernel("6.1"), 23);
	assert_int_equal(check_kernel("6.12"), 25);
}

static const char *var(const struct kt_hist_entry *e, const char *name)
{
	for (int i = 0; i < e->nvars; i++)
		if (!strcmp(e->vars[i].name, name))
			return e->vars[i].value;
	fail_msg("no '%s' under the entry", name);
	return NULL;
}

/* onmax().save(): "max:" and the fields saved, under each entry */
static void test_onmax_vars(void **state)
{
	static const struct {
		const char *kernel;
		uint64_t pid;
		const char *max, *comm, *prev_pid, *prev_comm;
	} want[] = {
		{ "6.1", 160, "290825", "sleep", "0", "swapper/0" },
		{ "6.12", 14, "491922", "kworker/u4:1", "19", "rcu_preempt" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct kt_hist_file *f;
		struct kt_hist_table *t = load(want[i].kernel, "synth-end",
						&f);
		const struct kt_hist_entry *e = &t->v[0];

		assert_int_equal(t->nkeys, 1);
		assert_true(e->keys[0].num == want[i].pid);
		assert_int_equal(e->nvars, 5);
		assert_string_equal(var(e, "max"), want[i].max);
		assert_string_equal(var(e, "next_comm"), want[i].comm);
		assert_string_equal(var(e, "prev_pid"), want[i].prev_pid);
		assert_string_equal(var(e, "prev_comm"), want[i].prev_comm);
		assert_string_equal(var(e, "common_cpu"), "0");
		/* every entry has its max */
		for (size_t j = 0; j < t->n; j++)
			assert_int_equal(t->v[j].nvars, 5);
		assert_non_null(strstr(t->trigger, ":onmax($lat).save("));
		kt_hist_file_free(f);
	}
}

/* An action's line without an action in the trigger is not the kernel's */
static void test_vars_need_action(void **state)
{
	struct kt_hist_file *f = NULL;
	char *s = fixture("6.12", "syscall", NULL), *bad;

	(void)state;
	bad = replace(s, "[  3] } hitcount:        683\n",
		      "[  3] } hitcount:        683\n\tmax:    12\n");
	assert_int_equal(kt_hist_parse(bad, strlen(bad), &f), -EINVAL);
	assert_null(f);
	free(bad);
	free(s);
}

static void test_syscall(void **state)
{
	static const char *const kernels[] = { "6.1", "6.12" };
	struct kt_hist_file *f;
	struct kt_hist_table *t;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		t = load(kernels[i], "syscall", &f);
		assert_string_equal(t->trigger, "hist:keys=id.syscall:"
				    "vals=hitcount:sort=hitcount.descending:"
				    "size=2048");
		assert_int_equal(t->nkeys, 1);
		assert_string_equal(t->keys[0].name, "id");
		assert_int_equal(t->keys[0].kind, KT_HK_SYSCALL);
		assert_int_equal(t->nvals, 1);
		assert_int_equal(t->n, 30);
		assert_key(&t->v[0].keys[0], "sys_close", 3);
		assert_int_equal(t->v[0].vals[0], 683);
		assert_key(&t->v[1].keys[0], "sys_rt_sigaction", 13);
		assert_int_equal(t->v[1].vals[0], 423);
		assert_string_equal(t->v[0].raw, "{ id: sys_close"
				    "                     [  3] }");
		assert_true(t->hits == 4396 && t->entries == 30 &&
			    t->dropped == 0);
		kt_hist_file_free(f);
	}
	t = load("6.12", "syscall", &f);
	assert_key(&t->v[29].keys[0], "sys_clock_nanosleep", 230);
	assert_int_equal(t->v[29].vals[0], 20);
	kt_hist_file_free(f);
}

static void test_log2(void **state)
{
	static const char *const kernels[] = { "6.1", "6.12" };
	static const uint64_t exp[] = { 11, 13, 7, 0 }, hits[] = {
		20, 40, 61, 100 };
	static const uint64_t rexp[] = { 10, 13, 16, 7, 0 }, rcount[] = {
		1024, 200000, 2686976, 6000, 80 };
	struct kt_hist_file *f;
	struct kt_hist_table *t;
	int i, j;

	(void)state;
	for (i = 0; i < 2; i++) {
		t = load(kernels[i], "log2", &f);
		assert_string_equal(t->keys[0].name, "ret");
		assert_int_equal(t->keys[0].kind, KT_HK_LOG2);
		assert_int_equal(t->n, 4);
		for (j = 0; j < 4; j++) {
			assert_true(t->v[j].keys[0].num == exp[j]);
			assert_true(t->v[j].vals[0] == hits[j]);
		}
		assert_string_equal(t->v[2].keys[0].text, "~ 2^7");
		kt_hist_file_free(f);

		t = load(kernels[i], "log2r", &f);
		assert_int_equal(t->nvals, 2);
		assert_string_equal(t->vals[1], "count");
		assert_int_equal(t->n, 5);
		for (j = 0; j < 5; j++) {
			assert_true(t->v[j].keys[0].num == rexp[j]);
			assert_true(t->v[j].vals[1] == rcount[j]);
		}
		kt_hist_file_free(f);
	}
}

static void test_buckets(void **state)
{
	struct kt_hist_file *f;
	struct kt_hist_table *t;

	(void)state;
	t = load("6.12", "buckets", &f);
	assert_string_equal(t->keys[0].name, "bytes_req");
	assert_int_equal(t->keys[0].kind, KT_HK_BUCKETS);
	assert_int_equal(t->keys[0].bucket_size, 100);
	assert_true(t->v[0].keys[0].num == 100 && t->v[0].keys[0].num2 == 199);
	assert_int_equal(t->v[0].vals[0], 20);
	assert_true(t->v[5].keys[0].num == 4000 &&
		    t->v[5].keys[0].num2 == 4099);
	assert_int_equal(t->v[5].vals[0], 144);
	assert_true(t->v[6].keys[0].num == 0 && t->v[6].keys[0].num2 == 99);
	assert_int_equal(t->v[6].vals[0], 498);
	kt_hist_file_free(f);
	t = load("6.1", "buckets", &f);
	assert_true(t->v[0].keys[0].num == 600 && t->v[0].keys[0].num2 == 699);
	kt_hist_file_free(f);
}

static void test_execname(void **state)
{
	struct kt_hist_file *f;
	struct kt_hist_table *t;

	(void)state;
	t = load("6.12", "execname", &f);
	assert_string_equal(t->keys[0].name, "common_pid");
	assert_int_equal(t->keys[0].kind, KT_HK_EXECNAME);
	assert_key(&t->v[0].keys[0], "tee", 166);
	assert_int_equal(t->v[0].vals[0], 3);
	assert_key(&t->v[1].keys[0], "sh", 786);
	assert_int_equal(t->v[1].vals[0], 23);
	kt_hist_file_free(f);
	t = load("6.1", "execname", &f);
	assert_key(&t->v[1].keys[0], "sh", 733);
	kt_hist_file_free(f);
}

static void test_multi_keys(void **state)
{
	struct kt_hist_file *f;
	struct kt_hist_table *t;

	(void)state;
	t = load("6.12", "multi", &f);
	assert_int_equal(t->nkeys, 2);
	assert_int_equal(t->keys[0].kind, KT_HK_EXECNAME);
	assert_int_equal(t->keys[1].kind, KT_HK_SYSCALL);
	assert_string_equal(t->keys[1].name, "id");
	assert_int_equal(t->n, 1528);
	assert_key(&t->v[0].keys[0], "tee", 166);
	assert_key(&t->v[0].keys[1], "sys_write", 1);
	assert_int_equal(t->v[0].vals[0], 2);
	assert_key(&t->v[2].keys[0], "sh", 168);
	assert_key(&t->v[2].keys[1], "sys_wait4", 61);
	assert_int_equal(t->v[2].vals[0], 241);
	assert_key(&t->v[1527].keys[0], "cat", 1503);
	assert_key(&t->v[1527].keys[1], "sys_read", 0);
	kt_hist_file_free(f);
	t = load("6.1", "multi", &f);
	assert_key(&t->v[0].keys[0], "tee", 119);
	assert_key(&t->v[0].keys[1], "sys_write", 1);
	kt_hist_file_free(f);
}

static void test_sym(void **state)
{
	struct kt_hist_file *f;
	struct kt_hist_table *t;

	(void)state;
	t = load("6.12", "sym", &f);
	assert_int_equal(t->keys[0].kind, KT_HK_SYM);
	assert_string_equal(t->keys[0].name, "call_site");
	assert_int_equal(t->nvals, 3);
	assert_string_equal(t->vals[1], "bytes_req");
	assert_string_equal(t->vals[2], "bytes_alloc");
	assert_key(&t->v[0].keys[0], "tomoyo_find_next_domain",
		   0xffffffff823c0894ull);
	assert_true(t->v[0].vals[0] == 41 && t->v[0].vals[1] == 167936 &&
		    t->v[0].vals[2] == 167936);
	assert_key(&t->v[16].keys[0], "event_hist_open",
		   0xffffffff82063ca3ull);
	assert_true(t->v[16].vals[1] == 24 && t->v[16].vals[2] == 32);
	kt_hist_file_free(f);
	t = load("6.1", "sym", &f);
	assert_key(&t->v[0].keys[0], "tomoyo_find_next_domain",
		   0xffffffffbbe7c3f0ull);
	kt_hist_file_free(f);

	t = load("6.12", "symoff", &f);
	assert_int_equal(t->keys[0].kind, KT_HK_SYM_OFFSET);
	assert_key(&t->v[0].keys[0], "__get_vm_area_node+0x81/0x130",
		   0xffffffff821b05d1ull);
	assert_true(t->v[0].vals[0] == 1 && t->v[0].vals[1] == 72);
	assert_key(&t->v[1].keys[0],
		   "__vmalloc_node_range_noprof+0x1bc/0x850",
		   0xffffffff821b368cull);
	kt_hist_file_free(f);
	t = load("6.1", "symoff", &f);
	assert_key(&t->v[0].keys[0], "__vmalloc_node_range+0x1ce/0x880",
		   0xffffffffbbcf08feull);
	kt_hist_file_free(f);
}

static void test_hex_and_plain(void **state)
{
	struct kt_hist_file *f;
	struct kt_hist_table *t;

	(void)state;
	t = load("6.12", "hex", &f);
	assert_int_equal(t->keys[0].kind, KT_HK_HEX);
	assert_key(&t->v[0].keys[0], "ff25ba6034b31260",
		   0xff25ba6034b31260ull);
	assert_key(&t->v[37].keys[0], "ff25ba6034b22080",
		   0xff25ba6034b22080ull);
	assert_int_equal(t->v[37].vals[0], 143);
	kt_hist_file_free(f);
	t = load("6.1", "hex", &f);
	assert_key(&t->v[0].keys[0], "ff2e4ac6583ac700",
		   0xff2e4ac6583ac700ull);
	kt_hist_file_free(f);

	/* plain numbers: all 64 bits */
	t = load("6.12", "drops", &f);
	assert_int_equal(t->keys[0].kind, KT_HK_PLAIN);
	assert_key(&t->v[0].keys[0], "18385305976173718336",
		   18385305976173718336ull);
	assert_int_equal(t->n, 32);
	kt_hist_file_free(f);
	t = load("6.12", "plain", &f);
	assert_string_equal(t->keys[0].name, "next_pid");
	assert_key(&t->v[0].keys[0], "243", 243);
	kt_hist_file_free(f);
	t = load("6.12", "empty", &f);
	assert_key(&t->v[0].keys[0], "2827", 2827);
	assert_int_equal(t->n, 41);
	kt_hist_file_free(f);
	t = load("6.12", "total", &f);
	assert_string_equal(t->keys[0].name, "common_type");
	assert_key(&t->v[0].keys[0], "384", 384);
	assert_int_equal(t->v[0].vals[0], 4396);
	kt_hist_file_free(f);
	t = load("6.1", "total", &f);
	assert_key(&t->v[0].keys[0], "351", 351);
	kt_hist_file_free(f);
}

static void test_cpu(void **state)
{
	static const char *const kernels[] = { "6.1", "6.12" };
	struct kt_hist_file *f;
	struct kt_hist_table *t;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		t = load(kernels[i], "cpu", &f);
		assert_string_equal(t->keys[0].name, "common_cpu");
		assert_key(&t->v[0].keys[0], "0", 0);
		assert_int_equal(t->v[0].vals[0], 4396);
		kt_hist_file_free(f);
		/* keys=cpu: trigger info common_cpu, entries "cpu:" */
		t = load(kernels[i], "cpu2", &f);
		assert_string_equal(t->keys[0].name, "common_cpu");
		assert_string_equal(t->v[0].raw, "{ cpu:          0 }");
		assert_key(&t->v[0].keys[0], "0", 0);
		assert_int_equal(t->v[0].vals[0], 4396);
		kt_hist_file_free(f);
	}
}

static void test_string(void **state)
{
	struct kt_hist_file *f;
	struct kt_hist_table *t;

	(void)state;
	t = load("6.12", "string", &f);
	assert_string_equal(t->keys[0].name, "prev_comm");
	assert_int_equal(t->keys[0].kind, KT_HK_PLAIN);
	assert_string_equal(t->v[0].keys[0].text, "sh");
	assert_false(t->v[0].keys[0].is_num);
	assert_int_equal(t->v[0].vals[0], 310);
	assert_string_equal(t->v[1].keys[0].text, "rcu_preempt");
	assert_int_equal(t->v[1].vals[0], 259);
	assert_string_equal(t->v[3].keys[0].text, "swapper/0");
	kt_hist_file_free(f);
	t = load("6.1", "string", &f);
	assert_string_equal(t->v[0].keys[0].text, "rcu_preempt");
	assert_int_equal(t->v[0].vals[0], 370);
	assert_int_equal(t->n, 13);
	kt_hist_file_free(f);
}

static void test_multival(void **state)
{
	struct kt_hist_file *f;
	struct kt_hist_table *t;

	(void)state;
	t = load("6.12", "multival", &f);
	assert_int_equal(t->nvals, 3);
	assert_string_equal(t->vals[1], "bytes_req");
	assert_string_equal(t->vals[2], "bytes_alloc");
	assert_key(&t->v[0].keys[0], "1587", 1587);
	assert_true(t->v[0].vals[0] == 11 && t->v[0].vals[1] == 13634 &&
		    t->v[0].vals[2] == 14432);
	kt_hist_file_free(f);
	t = load("6.1", "multival", &f);
	assert_key(&t->v[0].keys[0], "1546", 1546);
	assert_true(t->v[0].vals[1] == 13634 && t->v[0].vals[2] == 14432);
	kt_hist_file_free(f);
}

static int count_lines(const char *s)
{
	int n = 1;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_stack(void **state)
{
	static const char *const files[] = { "stack", "cstack" };
	struct kt_hist_file *f;
	struct kt_hist_table *t;
	const char *s;
	int i;

	(void)state;
	/* 6.1: keys=stacktrace prints "stacktrace:" */
	t = load("6.1", "stack", &f);
	assert_string_equal(t->keys[0].name, "stacktrace");
	assert_int_equal(t->keys[0].kind, KT_HK_STACK);
	assert_int_equal(t->n, 22);
	s = t->v[0].keys[0].text;
	assert_int_equal(count_lines(s), 7);
	assert_true(!strncmp(s, "kvmalloc_node+0x3f/0xd0\n"
			     "seq_read_iter+0x195/0x450\n", 50));
	assert_string_equal(strrchr(s, '\n') + 1,
			    "entry_SYSCALL_64_after_hwframe+0x6e/0xd8");
	assert_false(t->v[0].keys[0].is_num);
	assert_true(t->v[0].vals[0] == 2 && t->v[0].vals[1] == 24576);
	assert_int_equal(count_lines(t->v[1].keys[0].text), 11);
	assert_true(t->v[21].vals[0] == 121 && t->v[21].vals[1] == 1936);
	assert_true(!strncmp(t->v[21].keys[0].text,
			     "security_prepare_creds+0xc5/0xe0\n", 33));
	kt_hist_file_free(f);

	/* 6.12: keys=stacktrace and keys=common_stacktrace both print
	 * "common_stacktrace:" */
	for (i = 0; i < 2; i++) {
		t = load("6.12", files[i], &f);
		assert_string_equal(t->keys[0].name, "common_stacktrace");
		assert_int_equal(t->keys[0].kind, KT_HK_STACK);
		assert_int_equal(t->n, 25);
		s = t->v[0].keys[0].text;
		assert_int_equal(count_lines(s), 10);
		assert_true(!strncmp(s, "single_open+0x2e/0xa0\n", 22));
		assert_string_equal(strrchr(s, '\n') + 1,
				    "entry_SYSCALL_64_after_hwframe+0x76/0x7e");
		assert_true(t->v[0].vals[0] == 1 && t->v[0].vals[1] == 32);
		assert_true(t->v[1].vals[0] == 1 &&
			    t->v[1].vals[1] == 16384);
		assert_int_equal(count_lines(t->v[1].keys[0].text), 8);
		kt_hist_file_free(f);
	}
}

static void test_percent(void **state)
{
	static const uint64_t exp[] = { 8, 10, 5, 9, 7, 12, 4 }, hits[] = {
		20, 61, 71, 82, 122, 144, 305 };
	struct kt_hist_file *f;
	struct kt_hist_table *t;
	int j;

	(void)state;
	t = load("6.12", "percent", &f);
	/* hitcount.percent and bytes_alloc.graph are not numbers */
	assert_int_equal(t->nvals, 1);
	assert_string_equal(t->vals[0], "hitcount");
	assert_int_equal(t->keys[0].kind, KT_HK_LOG2);
	assert_int_equal(t->n, 7);
	for (j = 0; j < 7; j++) {
		assert_true(t->v[j].keys[0].num == exp[j]);
		assert_true(t->v[j].vals[0] == hits[j]);
	}
	kt_hist_file_free(f);
}

static void test_usecs_dropped(void **state)
{
	struct kt_hist_file *f;
	struct kt_hist_table *t;

	(void)state;
	t = load("6.12", "usecs", &f);
	assert_string_equal(t->keys[0].name, "common_timestamp");
	assert_int_equal(t->keys[0].kind, KT_HK_USECS);
	assert_non_null(strstr(t->trigger, ":clock=global"));
	assert_true(t->hits == 256 && t->entries == 256 &&
		    t->dropped == 733);
	assert_key(&t->v[0].keys[0], "29469442", 29469442);
	kt_hist_file_free(f);
	t = load("6.1", "usecs", &f);
	assert_int_equal(t->dropped, 738);
	assert_key(&t->v[0].keys[0], "28648194", 28648194);
	kt_hist_file_free(f);
}

static void test_filter(void **state)
{
	static const char *const kernels[] = { "6.1", "6.12" };
	struct kt_hist_file *f;
	struct kt_hist_table *t;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		t = load(kernels[i], "filter", &f);
		assert_string_equal(t->trigger, "hist:keys=id.syscall:"
				    "vals=hitcount:sort=hitcount:size=2048"
				    " if id == 0");
		assert_int_equal(t->n, 1);
		assert_key(&t->v[0].keys[0], "sys_read", 0);
		assert_int_equal(t->v[0].vals[0], 222);
		kt_hist_file_free(f);
	}
}

/* A synthetic-event latency setup (tests/vm/x_synth_fixtures.sh): the
 * start event's variable, the end event's onmatch() and onmax().save()
 * (a line under each entry), the synthetic event's two histograms */
static void test_synth(void **state)
{
	struct kt_hist_file *f;
	struct kt_hist_table *t;
	size_t len;
	char *s;

	(void)state;
	t = load("6.12", "synth-start", &f);
	assert_string_equal(t->trigger, "hist:keys=pid:vals=hitcount:"
			    "ts0=common_timestamp:sort=hitcount:size=2048:"
			    "clock=global");
	assert_int_equal(t->nvals, 1);
	assert_key(&t->v[0].keys[0], "206", 206);
	assert_ptr_equal(kt_hist_find(f, "hist:keys=pid:ts0=common_timestamp"),
			 t);
	kt_hist_file_free(f);

	t = load("6.12", "synth-end", &f);
	assert_string_equal(t->keys[0].name, "next_pid");
	assert_int_equal(t->nvals, 1);
	assert_true(t->n == 27 && t->hits == 258);
	assert_key(&t->v[0].keys[0], "14", 14);
	assert_int_equal(t->v[0].vals[0], 1);
	assert_key(&t->v[26].keys[0], "19", 19);
	assert_int_equal(t->v[26].vals[0], 172);
	assert_ptr_equal(kt_hist_find(f, "hist:keys=next_pid:"
				      "lat=common_timestamp-$ts0:"
				      "onmatch(sched.sched_waking).trace("
				      "ktsyn_lat,$lat,next_pid,next_comm):"
				      "onmax($lat).save(next_comm,prev_pid,"
				      "prev_comm,common_cpu)"), t);
	kt_hist_file_free(f);
	/* the max line is not an entry's */
	s = fixture("6.1", "synth-end", &len);
	f = parse_str(s);
	assert_int_equal(f->t[0].n, 27);
	assert_key(&f->t[0].v[0].keys[0], "160", 160);
	kt_hist_file_free(f);
	free(s);

	f = NULL;
	s = fixture("6.12", "synth-lat", &len);
	assert_int_equal(kt_hist_parse(s, len, &f), 0);
	free(s);
	assert_int_equal(f->n, 2);
	t = &f->t[0];
	assert_true(t->n == 9 && t->hits == 274);
	assert_string_equal(t->keys[0].name, "lat");
	assert_true(t->v[0].keys[0].num == 24 && t->v[0].vals[0] == 5);
	t = &f->t[1];
	assert_int_equal(t->nkeys, 2);
	assert_string_equal(t->v[0].keys[0].text, "kworker/0:0");
	assert_false(t->v[0].keys[0].is_num);
	assert_true(t->v[0].keys[1].num == 20);
	assert_ptr_equal(kt_hist_find(f, "hist:keys=lat.log2:vals=hitcount"),
			 &f->t[0]);
	assert_ptr_equal(kt_hist_find(f, "hist:keys=comm,lat.log2"),
			 &f->t[1]);
	kt_hist_file_free(f);
}

/* Empty text, and sections one after the other as hist_show() prints
 * them (two blank lines between) */
static void test_sections(void **state)
{
	struct kt_hist_file *f = (void *)1;
	char *a, *b, *c, *all;
	size_t la, lb, lc;

	(void)state;
	assert_int_equal(kt_hist_parse("", 0, &f), 0);
	assert_int_equal(f->n, 0);
	kt_hist_file_free(f);
	assert_int_equal(kt_hist_parse(NULL, 0, &f), 0);
	assert_int_equal(f->n, 0);
	kt_hist_file_free(f);
	kt_hist_file_free(NULL);

	a = fixture("6.12", "syscall", &la);
	b = fixture("6.12", "log2", &lb);
	c = fixture("6.1", "stack", &lc);
	if (asprintf(&all, "%s\n\n%s\n\n%s", a, b, c) < 0)
		fail();
	f = parse_str(all);
	assert_int_equal(f->n, 3);
	assert_int_equal(f->t[0].n, 30);
	assert_key(&f->t[0].v[0].keys[0], "sys_close", 3);
	assert_true(f->t[0].hits == 4396);
	assert_int_equal(f->t[1].n, 4);
	assert_true(f->t[1].v[0].keys[0].num == 11);
	assert_true(f->t[1].hits == 221);
	assert_int_equal(f->t[2].n, 22);
	assert_true(f->t[2].hits == 868);
	kt_hist_file_free(f);
	free(all);

	/* the text need not end in '\0' */
	assert_int_equal(kt_hist_parse(a, la - 1, &f), 0);
	assert_int_equal(f->t[0].n, 30);
	kt_hist_file_free(f);
	free(a);
	free(b);
	free(c);
}

/* Every cut of a fixture but the whole is refused (no line but the last
 * "Dropped: 0" can end a table) */
static void cut_all(const char *kernel, const char *name)
{
	struct kt_hist_file *f;
	size_t len, i;
	char *s = fixture(kernel, name, &len);

	assert_true(len > 2 && s[len - 1] == '\n' && s[len - 2] == '0');
	for (i = 1; i < len - 1; i++) {
		char *cut = malloc(i);

		/* alone in its allocation: a read past it is seen by ASan */
		memcpy(cut, s, i);
		f = (void *)1;
		if (kt_hist_parse(cut, i, &f) != -EINVAL)
			fail_msg("%s/%s cut at %zu parses", kernel, name, i);
		assert_null(f);
		free(cut);
	}
	assert_int_equal(kt_hist_parse(s, len - 1, &f), 0);
	kt_hist_file_free(f);
	free(s);
}

static void test_truncated(void **state)
{
	(void)state;
	cut_all("6.12", "syscall");
	cut_all("6.12", "percent");
	cut_all("6.1", "stack");
	cut_all("6.12", "multival");
	cut_all("6.1", "log2r");
	cut_all("6.12", "symoff");
}

static void test_garbled(void **state)
{
	static const struct {
		const char *old, *new;
	} bad[] = {
		{ "# event histogram", "# event histogramm" },
		{ "# trigger info: hist:", "# trigger info: nohist:" },
		{ " [active]", " [running]" },
		{ " [active]", "" },
		{ "keys=id.syscall", "kees=id.syscall" },
		{ ":vals=hitcount", ":vals=" },
		{ "2048 [active]\n#\n", "2048 [active]\n\n" },
		{ "[active]\n#\n\n", "[active]\n#\n" },
		{ "{ id: sys_close", "{ ip: sys_close" },
		{ "{ id: sys_close", "id: sys_close" },
		{ "{ id: sys_close", "  { id: sys_close" },
		{ "[  3] }", "[  3 }" },
		{ "[  3] }", "[  x] }" },
		{ "[  3] }", "  3] }" },
		{ "} hitcount:        683", "} hitcount:       -683" },
		{ "} hitcount:        683", "} hitcount:        6x3" },
		{ "} hitcount:        683", "} hitcount:" },
		{ "} hitcount:        683", "} hitcounts:        683" },
		{ "} hitcount:        683", "} hitcount:        683  more" },
		{ "} hitcount:        683",
		  "} hitcount: 99999999999999999999" },
		{ "\n\nTotals:", "\nTotals:" },
		{ "\nTotals:", "\nTotal:" },
		{ "Hits: 4396", "Hits: " },
		{ "Hits: 4396", "Hits: 4396x" },
		{ "Entries: 30", "Entries: 31" },
		{ "Entries: 30", "Entries: 29" },
		{ "Dropped: 0", "Dropped" },
		{ "    Dropped: 0\n", "    Dropped: 0\nmore\n" },
	};
	size_t len, i;
	char *s = fixture("6.12", "syscall", &len), *g;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		g = replace(s, bad[i].old, bad[i].new);
		if (parse_err(g) != -EINVAL)
			fail_msg("case %zu (%s) parses", i, bad[i].new);
		free(g);
	}
	/* a NUL in the text */
	s[100] = '\0';
	assert_int_equal(kt_hist_parse(s, len, &(struct kt_hist_file *){0}),
			 -EINVAL);
	free(s);

	/* other kinds */
	s = fixture("6.12", "log2", &len);
	g = replace(s, "~ 2^11", "~ 2^1x");
	assert_int_equal(parse_err(g), -EINVAL);
	free(g);
	g = replace(s, "~ 2^11", "2^11");
	assert_int_equal(parse_err(g), -EINVAL);
	free(g);
	free(s);
	s = fixture("6.12", "buckets", &len);
	g = replace(s, "~ 100-199", "~ 100-");
	assert_int_equal(parse_err(g), -EINVAL);
	free(g);
	g = replace(s, "~ 100-199", "~ 199-100");
	assert_int_equal(parse_err(g), -EINVAL);
	free(g);
	free(s);
	s = fixture("6.12", "sym", &len);
	g = replace(s, "[ffffffff823c0894]", "[ffffffff823c0894");
	assert_int_equal(parse_err(g), -EINVAL);
	free(g);
	g = replace(s, "[ffffffff823c0894]", "[fffffffff823c0894]");
	assert_int_equal(parse_err(g), -EINVAL);
	free(g);
	free(s);
	/* a stack entry that never closes, or another line inside it */
	s = fixture("6.12", "stack", &len);
	g = replace(s, "} hitcount:          1  bytes_req:         32", "");
	assert_int_equal(parse_err(g), -EINVAL);
	free(g);
	g = replace(s, "  bytes_req:         32", "");
	assert_int_equal(parse_err(g), -EINVAL);
	free(g);
	free(s);
}

/* Every byte of a small fixture replaced in turn: no crash, and a
 * result that is either a table or -EINVAL */
static void test_mutations(void **state)
{
	static const char repl[] = { 'x', ' ', '\n', '}', '{', ':', '9', ',' };
	size_t len, i, j;
	char *s = fixture("6.12", "percent", &len);

	(void)state;
	for (i = 0; i < len; i++) {
		for (j = 0; j < sizeof(repl); j++) {
			struct kt_hist_file *f = NULL;
			char *m = malloc(len);
			int ret;

			memcpy(m, s, len);
			m[i] = repl[j];
			ret = kt_hist_parse(m, len, &f);
			assert_true(ret == 0 || ret == -EINVAL);
			assert_true(!ret == !!f);
			kt_hist_file_free(f);
			free(m);
		}
	}
	free(s);
}

/* A section of trigger info TRIG and one entry line ENTRY (hitcount 5) */
static char *section(const char *trig, const char *entry)
{
	char *s;

	if (asprintf(&s, "# event histogram\n#\n# trigger info: %s [active]\n"
		     "#\n\n%s\n\nTotals:\n    Hits: 5\n    Entries: 1\n"
		     "    Dropped: 0\n", trig, entry) < 0)
		fail();
	return s;
}

/* What the VM run did not print, in the kernel's formats */
static void test_handmade(void **state)
{
	struct kt_hist_file *f;
	struct kt_hist_table *t;
	char *s, *g;

	(void)state;
	/* a comm with spaces and '[': the pid is in the last "[...]" */
	s = section("hist:keys=common_pid.execname:vals=hitcount:"
		    "sort=hitcount:size=2048",
		    "{ common_pid: a [b] c         [        42] }"
		    " hitcount:          5");
	f = parse_str(s);
	assert_key(&f->t[0].v[0].keys[0], "a [b] c", 42);
	kt_hist_file_free(f);
	free(s);

	/* a string key holding ", " and a second key; paused */
	s = section("hist:keys=prev_comm,prev_pid:vals=hitcount:"
		    "sort=hitcount:size=2048",
		    "{ prev_comm: a, b: c       , prev_pid:         7 }"
		    " hitcount:          5");
	g = replace(s, " [active]", " [paused]");
	free(s);
	s = g;
	f = parse_str(s);
	t = &f->t[0];
	assert_true(t->paused);
	assert_string_equal(t->trigger, "hist:keys=prev_comm,prev_pid:"
			    "vals=hitcount:sort=hitcount:size=2048");
	assert_string_equal(t->v[0].keys[0].text, "a, b: c");
	assert_key(&t->v[0].keys[1], "7", 7);
	kt_hist_file_free(f);
	free(s);

	/* a comm that looks like the end of the key part: the last '}' */
	s = section("hist:keys=prev_comm:vals=hitcount:sort=hitcount:"
		    "size=2048",
		    "{ prev_comm: x} hitcount: 1                     }"
		    " hitcount:          5");
	f = parse_str(s);
	assert_string_equal(f->t[0].v[0].keys[0].text, "x} hitcount: 1");
	assert_int_equal(f->t[0].v[0].vals[0], 5);
	kt_hist_file_free(f);
	free(s);

	/* a stack key before a number key */
	s = section("hist:keys=common_stacktrace,common_pid:vals=hitcount:"
		    "sort=hitcount:size=2048",
		    "{ common_stacktrace:\n         a+0x1/0x2\n"
		    "         b+0x3/0x4\n, common_pid:         12 }"
		    " hitcount:          5");
	f = parse_str(s);
	t = &f->t[0];
	assert_string_equal(t->v[0].keys[0].text, "a+0x1/0x2\nb+0x3/0x4");
	assert_key(&t->v[0].keys[1], "12", 12);
	kt_hist_file_free(f);
	free(s);

	/* a stack field (6.12's FIELD.stacktrace: no ':') */
	s = section("hist:keys=delta.stacktrace:vals=hitcount:"
		    "sort=hitcount:size=2048",
		    "{ delta.stacktrace         a+0x1/0x2\n"
		    "         b+0x3/0x4\n} hitcount:          5");
	f = parse_str(s);
	t = &f->t[0];
	assert_string_equal(t->keys[0].name, "delta");
	assert_int_equal(t->keys[0].kind, KT_HK_STACK);
	assert_string_equal(t->v[0].keys[0].text, "a+0x1/0x2\nb+0x3/0x4");
	kt_hist_file_free(f);
	free(s);

	/* hex values, nohitcount, a named trigger, variables */
	s = section("hist:named:keys=pid:vals=bytes.hex:ts0=common_timestamp:"
		    "sort=bytes:size=2048:nohitcount",
		    "{ pid:         12 } bytes:       1f0a");
	f = parse_str(s);
	t = &f->t[0];
	assert_int_equal(t->nvals, 1);
	assert_string_equal(t->vals[0], "bytes");
	assert_true(t->v[0].vals[0] == 0x1f0a);
	kt_hist_file_free(f);
	free(s);

	/* onmax() and onchange() print a line each under the entry */
	s = section("hist:keys=next_pid:vals=hitcount:sort=hitcount:"
		    "size=2048:onmax($lat).save(prev_comm):"
		    "onchange($x).save(prev_pid)",
		    "{ next_pid:         12 } hitcount:          5\n"
		    "\tmax:         33  prev_comm: sh\n"
		    "\tchanged:          1  prev_pid:         7");
	f = parse_str(s);
	assert_int_equal(f->t[0].v[0].vals[0], 5);
	assert_int_equal(f->t[0].v[0].nvars, 4);
	assert_string_equal(f->t[0].v[0].vars[1].name, "prev_comm");
	assert_string_equal(f->t[0].v[0].vars[1].value, "sh");
	assert_string_equal(f->t[0].v[0].vars[2].name, "changed");
	kt_hist_file_free(f);
	/* a third is one too many */
	g = replace(s, "prev_pid:         7", "prev_pid:         7\n"
		    "\tmax:         33  prev_comm: sh");
	assert_int_equal(parse_err(g), -EINVAL);
	free(g);
	free(s);
	/* without them, that is garbage, as is text after the values */
	s = section("hist:keys=next_pid:vals=hitcount:sort=hitcount:"
		    "size=2048",
		    "{ next_pid:         12 } hitcount:          5\n"
		    "\tmax:         33");
	assert_int_equal(parse_err(s), -EINVAL);
	free(s);
	s = section("hist:keys=next_pid:vals=hitcount:sort=hitcount:"
		    "size=2048:onmax($lat).save(prev_comm)",
		    "{ next_pid:         12 } hitcount:          5"
		    "   max:         33");
	assert_int_equal(parse_err(s), -EINVAL);
	free(s);
	/* percent [ERROR] and a graph of [ERROR] */
	s = section("hist:keys=x:vals=hitcount,hitcount.percent,y.graph:"
		    "sort=hitcount:size=2048",
		    "{ x:          1 } hitcount:          5  hitcount (%):"
		    "[ERROR]  y:              [ERROR]");
	f = parse_str(s);
	kt_hist_file_free(f);
	free(s);
}

/* A trigger info of n keys k0..k(n-1) and its entry */
static char *many_keys(int n)
{
	char trig[1024] = "hist:keys=", entry[1024] = "{ ";
	int i;

	for (i = 0; i < n; i++) {
		snprintf(trig + strlen(trig), 32, "%sk%d", i ? "," : "", i);
		snprintf(entry + strlen(entry), 32, "%sk%d: %d",
			 i ? ", " : "", i, i);
	}
	strcat(trig, ":vals=hitcount:sort=hitcount:size=2048");
	strcat(entry, " } hitcount:          5");
	return section(trig, entry);
}

static void test_limits(void **state)
{
	struct kt_hist_file *f;
	char *s;

	(void)state;
	s = many_keys(16);
	f = parse_str(s);
	assert_int_equal(f->t[0].nkeys, 16);
	assert_key(&f->t[0].v[0].keys[15], "15", 15);
	kt_hist_file_free(f);
	free(s);
	s = many_keys(17);
	assert_int_equal(parse_err(s), -EINVAL);
	free(s);
	/* a stack entry of more lines than any stack prints */
	{
		char *e = strdup("{ common_stacktrace:\n"), *n;
		int i;

		for (i = 0; i < 100; i++) {
			if (asprintf(&n, "%s         f%d+0x1/0x2\n", e, i) < 0)
				fail();
			free(e);
			e = n;
		}
		if (asprintf(&n, "%s} hitcount:          5", e) < 0)
			fail();
		free(e);
		s = section("hist:keys=common_stacktrace:vals=hitcount:"
			    "sort=hitcount:size=2048", n);
		free(n);
		assert_int_equal(parse_err(s), -EINVAL);
		free(s);
	}
}

/* The sections of these fixtures, one after the other */
static struct kt_hist_file *load_many(const char *const *names, int n)
{
	struct kt_hist_file *f;
	char *all = strdup(""), *s, *t;
	size_t len;
	int i;

	for (i = 0; i < n; i++) {
		const char *slash = strchr(names[i], '/');
		char kernel[16];

		snprintf(kernel, sizeof(kernel), "%.*s",
			 (int)(slash - names[i]), names[i]);
		s = fixture(kernel, slash + 1, &len);
		if (asprintf(&t, "%s%s%s", all, i ? "\n\n" : "", s) < 0)
			fail();
		free(all);
		free(s);
		all = t;
	}
	f = parse_str(all);
	free(all);
	assert_int_equal(f->n, n);
	return f;
}

static void test_find(void **state)
{
	static const char *const names[] = {
		"6.12/syscall", "6.12/filter", "6.12/usecs", "6.12/stack",
		"6.12/cpu2", "6.12/percent", "6.12/multi", "6.12/hex",
		"6.12/buckets", "6.12/sym", "6.1/stack",
	};
	static const struct {
		const char *trigger;
		int table;	/* -1: none */
	} cases[] = {
		{ "hist:keys=id.syscall:sort=hitcount.descending", 0 },
		{ "hist:keys=id.syscall:vals=hitcount", 0 },
		{ "hist:keys=id.syscall if id == 0", 1 },
		{ "hist:keys=id.syscall:size=2048 if   id == 0  \n", 1 },
		{ "hist:keys=id.syscall if id == 1", -1 },
		{ "hist:keys=id.syscall:size=1024", -1 },
		{ "hist:keys=common_timestamp.usecs:size=256", 2 },
		{ "hist:keys=common_timestamp.usecs:size=200", 2 },
		{ "hist:keys=common_timestamp.usecs:size=512", -1 },
		{ "hist:keys=common_timestamp.usecs", 2 },
		{ "hist:keys=common_timestamp:size=256", -1 },
		{ "hist:keys=stacktrace:vals=bytes_req", 3 },
		{ "hist:keys=common_stacktrace:vals=hitcount,bytes_req", 3 },
		{ "hist:keys=stacktrace", -1 },
		{ "hist:keys=cpu", 4 },
		{ "hist:keys=common_cpu", 4 },
		{ "hist:keys=bytes_req.log2:vals=hitcount.percent,"
		  "bytes_alloc.graph", 5 },
		{ "hist:keys=bytes_req.log2:vals=hitcount.percent", -1 },
		{ "hist:keys=common_pid.execname,id.syscall:vals=hitcount:"
		  "sort=common_pid,hitcount.descending", 6 },
		{ "hist:keys=id.syscall,common_pid.execname", -1 },
		{ "hist:keys=ptr.hex:size=256", 7 },
		{ "hist:keys=ptr:size=256", -1 },
		{ "hist:keys=bytes_req.buckets=100", 8 },
		{ "hist:keys=bytes_req.buckets=10", -1 },
		{ "hist:keys=call_site.sym:vals=bytes_req,bytes_alloc:"
		  "sort=bytes_alloc.descending", 9 },
		{ "hist:keys=call_site.sym:vals=bytes_alloc,bytes_req", -1 },
		{ "hist:keys=call_site.sym:vals=bytes_req", -1 },
		{ "hist:name=x:keys=id.syscall", -1 },
		{ "hist:keys=id.syscall:nohitcount", -1 },
		{ "keys=id.syscall", -1 },
		{ "hist:vals=hitcount", -1 },
		{ "hist:keys=id.syscall:size=x", -1 },
		{ "", -1 },
	};
	struct kt_hist_file *f = load_many(names, 11);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kt_hist_table *t = kt_hist_find(f, cases[i].trigger);
		long got = t ? t - f->t : -1;

		if (got != cases[i].table)
			fail_msg("'%s': table %ld, not %d", cases[i].trigger,
				 got, cases[i].table);
	}
	assert_null(kt_hist_find(NULL, "hist:keys=id.syscall"));
	assert_null(kt_hist_find(f, NULL));
	kt_hist_file_free(f);

	/* 6.1 alone: keys=stacktrace is printed "stacktrace" there */
	f = load_many(names + 10, 1);
	assert_ptr_equal(kt_hist_find(f, "hist:keys=stacktrace:"
				      "vals=bytes_req"), &f->t[0]);
	kt_hist_file_free(f);
}

/* What kt_hist_trigger_text() writes is found in what the kernel prints */
static void test_find_written(void **state)
{
	static const char *const names[] = {
		"6.12/syscall", "6.12/filter", "6.12/usecs", "6.12/multi",
		"6.12/percent", "6.12/cpu2",
	};
	static const char *const syscall[] = { "id.syscall" };
	static const char *const desc[] = { "hitcount.descending" };
	static const char *const usecs[] = { "common_timestamp.usecs" };
	static const char *const multi[] = { "common_pid.execname",
					     "id.syscall" };
	static const char *const msort[] = { "common_pid",
					     "hitcount.descending" };
	static const char *const log2[] = { "bytes_req.log2" };
	static const char *const pct[] = { "hitcount.percent",
					   "bytes_alloc.graph" };
	static const char *const cpu[] = { "cpu" };
	const struct {
		struct kt_hist_def d;
		int table;
	} cases[] = {
		{ { .keys = syscall, .nkeys = 1, .sort = desc, .nsort = 1 },
		  0 },
		{ { .keys = syscall, .nkeys = 1, .filter = "id == 0" }, 1 },
		{ { .keys = syscall, .nkeys = 1, .filter = "id == 0",
		    .size = 2048 }, 1 },
		{ { .keys = syscall, .nkeys = 1, .filter = "id == 3" }, -1 },
		{ { .keys = usecs, .nkeys = 1, .size = 256 }, 2 },
		{ { .keys = usecs, .nkeys = 1, .size = 4096 }, -1 },
		{ { .keys = multi, .nkeys = 2, .sort = msort, .nsort = 2 }, 3 },
		{ { .keys = log2, .nkeys = 1, .vals = pct, .nvals = 2 }, 4 },
		{ { .keys = log2, .nkeys = 1 }, -1 },
		{ { .keys = cpu, .nkeys = 1 }, 5 },
	};
	struct kt_hist_file *f = load_many(names, 6);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = kt_hist_trigger_text(&cases[i].d);
		struct kt_hist_table *t;
		long got;

		assert_non_null(text);
		t = kt_hist_find(f, text);
		got = t ? t - f->t : -1;
		if (got != cases[i].table)
			fail_msg("'%s': table %ld, not %d", text, got,
				 cases[i].table);
		free(text);
	}
	kt_hist_file_free(f);
}

/* Two tables but for their sort: the one of the same sort wins */
static void test_find_sort(void **state)
{
	struct kt_hist_file *f;
	size_t len;
	char *a = fixture("6.12", "syscall", &len), *b, *all;

	(void)state;
	b = replace(a, "sort=hitcount.descending", "sort=hitcount");
	if (asprintf(&all, "%s\n\n%s", a, b) < 0)
		fail();
	f = parse_str(all);
	assert_int_equal(f->n, 2);
	assert_ptr_equal(kt_hist_find(f, "hist:keys=id.syscall"), &f->t[1]);
	assert_ptr_equal(kt_hist_find(f, "hist:keys=id.syscall:"
				      "sort=hitcount.ascending"), &f->t[1]);
	assert_ptr_equal(kt_hist_find(f, "hist:keys=id.syscall:"
				      "sort=hitcount.descending"), &f->t[0]);
	/* no sort matches: the first */
	assert_ptr_equal(kt_hist_find(f, "hist:keys=id.syscall:sort=id"),
			 &f->t[0]);
	kt_hist_file_free(f);
	free(all);
	free(b);

	/* named triggers: hist:NAME: in the info, name=NAME written */
	b = replace(a, "hist:keys=", "hist:lat:keys=");
	if (asprintf(&all, "%s\n\n%s", a, b) < 0)
		fail();
	f = parse_str(all);
	assert_ptr_equal(kt_hist_find(f, "hist:name=lat:keys=id.syscall"),
			 &f->t[1]);
	assert_ptr_equal(kt_hist_find(f, "hist:keys=id.syscall:"
				      "sort=hitcount.descending"), &f->t[0]);
	kt_hist_file_free(f);
	free(all);
	free(b);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fixture),
		cmocka_unit_test(test_onmax_vars),
		cmocka_unit_test(test_vars_need_action),
		cmocka_unit_test(test_syscall),
		cmocka_unit_test(test_log2),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_execname),
		cmocka_unit_test(test_multi_keys),
		cmocka_unit_test(test_sym),
		cmocka_unit_test(test_hex_and_plain),
		cmocka_unit_test(test_cpu),
		cmocka_unit_test(test_string),
		cmocka_unit_test(test_multival),
		cmocka_unit_test(test_stack),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_usecs_dropped),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_synth),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_garbled),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_handmade),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_find_written),
		cmocka_unit_test(test_find_sort),
	};

	find_srcdir();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
