// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the function tracers' pieces: the call graph of
 * function_graph records constructed here (lib/record/fgraph.c), the
 * filter check against available_filter_functions (lib/sym/ffuncs.c),
 * and the settings written to an instance and to the top one, kept and
 * put back, swept after a dead owner (lib/tracefs/ftrace.c), on the fake
 * tracefs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "faketfs.h"
#include "record/fgraph.h"
#include "record/ftfile.h"
#include "sym/ffuncs.h"
#include "tracefs/ftrace.h"
#include "tracefs/tfs.h"

/* ------------------------------------------------------------ fgraph */

/* The lines emitted, as "K cpu depth func dur [c]" strings. */
struct lines {
	char buf[4096];
	size_t at;
};

static void emit(void *arg, const struct kt_fgline *l)
{
	struct lines *o = arg;
	static const char kind[] = { 'O', 'L', 'C' };

	o->at += snprintf(o->buf + o->at, sizeof(o->buf) - o->at,
			  "%c%d.%d:%llx/%llu%s ", kind[l->kind], l->cpu,
			  l->depth, (unsigned long long)l->func,
			  (unsigned long long)l->dur, l->comment ? "c" : "");
}

static struct kt_frec ent(int cpu, int depth, uint64_t func, uint64_t ts)
{
	return (struct kt_frec){ .type = KT_FREC_ENTRY, .cpu = cpu,
				 .pid = 7, .depth = depth, .ip = func,
				 .ts = ts };
}

static struct kt_frec ex(int cpu, int depth, uint64_t func, uint64_t t0,
			 uint64_t t1)
{
	return (struct kt_frec){ .type = KT_FREC_EXIT, .cpu = cpu, .pid = 7,
				 .depth = depth, .ip = func, .ts = t1,
				 .calltime = t0, .rettime = t1 };
}

static void feed_all(struct kt_fgraph *g, const struct kt_frec *v, int n,
		     struct lines *o)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(kt_fgraph_feed(g, &v[i], emit, o), 0);
	kt_fgraph_flush(g, emit, o);
}

static void test_fgraph_nesting(void **state)
{
	/* a() { b(); c() { d(); } } on CPU 0 */
	const struct kt_frec v[] = {
		ent(0, 0, 0xa, 100), ent(0, 1, 0xb, 110), ex(0, 1, 0xb, 110, 120),
		ent(0, 1, 0xc, 130), ent(0, 2, 0xd, 140),
		ex(0, 2, 0xd, 140, 145), ex(0, 1, 0xc, 130, 150),
		ex(0, 0, 0xa, 100, 160),
	};
	struct kt_fgraph *g = kt_fgraph_alloc(0, 0, 8);
	struct lines o = { .at = 0 };

	(void)state;
	assert_non_null(g);
	feed_all(g, v, 6 + 2, &o);
	assert_string_equal(o.buf,
			    "O0.0:a/0 L0.1:b/10 O0.1:c/0 L0.2:d/5 C0.1:c/20 C0.0:a/60 ");
	kt_fgraph_free(g);
}

static void test_fgraph_cpus(void **state)
{
	/* two CPUs interleaved in time: each folds its own leaves */
	const struct kt_frec v[] = {
		ent(0, 0, 0xa, 100), ent(1, 0, 0xb, 101), ex(1, 0, 0xb, 101, 105),
		ex(0, 0, 0xa, 100, 106), ent(1, 0, 0xc, 107),
	};
	struct kt_fgraph *g = kt_fgraph_alloc(0, 0, 8);
	struct lines o = { .at = 0 };

	(void)state;
	feed_all(g, v, 5, &o);
	/* c never returned: shown as an opening at the end */
	assert_string_equal(o.buf, "L1.0:b/4 L0.0:a/6 O1.0:c/0 ");
	kt_fgraph_free(g);
}

static void test_fgraph_orphans(void **state)
{
	/* an exit whose entry came before the start, and an entry whose
	 * inner exits were lost: the closing names its function */
	const struct kt_frec v[] = {
		ex(0, 2, 0xe, 10, 20), ent(0, 0, 0xa, 30), ent(0, 1, 0xb, 31),
		ent(0, 2, 0xc, 32), ex(0, 0, 0xa, 30, 50),
	};
	struct kt_fgraph *g = kt_fgraph_alloc(0, 0, 8);
	struct lines o = { .at = 0 };

	(void)state;
	feed_all(g, v, 5, &o);
	assert_string_equal(o.buf,
			    "C0.2:e/10c O0.0:a/0 O0.1:b/0 O0.2:c/0 C0.0:a/20 ");
	kt_fgraph_free(g);
}

static void test_fgraph_comment_after(void **state)
{
	/* a() { b(); b(); b(); }: with comment_after 2 the closing is far */
	const struct kt_frec v[] = {
		ent(0, 0, 0xa, 1), ent(0, 1, 0xb, 2), ex(0, 1, 0xb, 2, 3),
		ent(0, 1, 0xb, 4), ex(0, 1, 0xb, 4, 5), ent(0, 1, 0xb, 6),
		ex(0, 1, 0xb, 6, 7), ex(0, 0, 0xa, 1, 8),
	};
	struct kt_fgraph *g = kt_fgraph_alloc(0, 0, 2);
	struct lines o = { .at = 0 };

	(void)state;
	feed_all(g, v, 8, &o);
	assert_string_equal(o.buf,
			    "O0.0:a/0 L0.1:b/1 L0.1:b/1 L0.1:b/1 C0.0:a/7c ");
	kt_fgraph_free(g);
}

static void test_fgraph_threshold_depth(void **state)
{
	const struct kt_frec v[] = {
		ent(0, 0, 0xa, 100), ent(0, 1, 0xb, 110), ex(0, 1, 0xb, 110, 111),
		ent(0, 1, 0xc, 120), ex(0, 1, 0xc, 120, 150),
		ex(0, 0, 0xa, 100, 160),
	};
	struct kt_fgraph *g = kt_fgraph_alloc(20, 0, 8);
	struct lines o = { .at = 0 };

	(void)state;
	/* funcslower: the calls of 20 ns or more, one line each at return */
	feed_all(g, v, 6, &o);
	assert_string_equal(o.buf, "L0.1:c/30 L0.0:a/60 ");
	kt_fgraph_free(g);
	/* depth 1: a alone, a leaf once its children are cut */
	g = kt_fgraph_alloc(0, 1, 8);
	o.at = 0;
	o.buf[0] = '\0';
	feed_all(g, v, 6, &o);
	assert_string_equal(o.buf, "L0.0:a/60 ");
	kt_fgraph_free(g);
}

/* ------------------------------------------------- the fake tracefs */

static int setup(void **state)
{
	char *root = fake_tfs_make();

	if (!root)
		return -1;
	*state = root;
	return 0;
}

static int teardown(void **state)
{
	fake_tfs_remove(*state);
	return 0;
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tracefs/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *root, const char *rel)
{
	char path[512], *s;

	snprintf(path, sizeof(path), "tracefs/%s", rel);
	s = fake_read(root, path);
	assert_non_null(s);
	return s;
}

static void expect_file(const char *root, const char *rel, const char *want)
{
	char *s = get(root, rel);

	assert_string_equal(s, want);
	free(s);
}

static void test_ffuncs(void **state)
{
	const char *root = *state;
	struct ktrace_tfs *tfs;
	struct ktrace_err err = { .pos = -1 };
	struct kt_ffuncs ff;

	put(root, "available_filter_functions",
	    "vfs_read\nvfs_write\n__x64_sys_getppid\n"
	    "ext4_file_read_iter [ext4]\next4_sync_fs [ext4]\n");
	tfs = ktrace_tfs_open(NULL);
	assert_non_null(tfs);
	assert_int_equal(kt_ffuncs_load(tfs, &ff), 0);
	assert_int_equal(ff.n, 5);
	assert_int_equal(kt_ffuncs_check(&ff, "vfs_read", &err), 0);
	assert_int_equal(kt_ffuncs_check(&ff, "vfs_*", &err), 0);
	assert_int_equal(kt_ffuncs_check(&ff, "*sync*:mod:ext4", &err), 0);
	assert_int_equal(kt_ffuncs_check(&ff, ":mod:ext4", &err), 0);
	assert_int_equal(kt_ffuncs_check(&ff, "[ev]*_read*", &err), 0);
	/* a typo: the closest names */
	assert_int_equal(kt_ffuncs_check(&ff, "vfs_raed", &err), -ENOENT);
	assert_non_null(strstr(err.msg, "did you mean vfs_read"));
	assert_int_equal(kt_ffuncs_check(&ff, "vfs_nosuch*", &err), -ENOENT);
	assert_non_null(strstr(err.msg, "matches no traceable"));
	assert_int_equal(kt_ffuncs_check(&ff, "vfs_read:mod:ext4", &err),
			 -ENOENT);
	assert_int_equal(kt_ffuncs_check(&ff, ":mod:xfs", &err), -ENOENT);
	/* malformed: a usage error */
	assert_int_equal(kt_ffuncs_check(&ff, "vfs read", &err), -EINVAL);
	assert_true(err.syntax);
	assert_int_equal(kt_ffuncs_check(&ff, "[vfs", &err), -EINVAL);
	assert_int_equal(kt_ffuncs_check(&ff, "a:mod:", &err), -EINVAL);
	ktrace_err_clear(&err);
	kt_ffuncs_free(&ff);
	ktrace_tfs_free(tfs);
}

/* The files a tracer run writes, made empty in inst's directory. */
static void make_tracer_files(const char *root, const char *dir)
{
	static const char *const files[] = {
		"current_tracer", "set_ftrace_filter", "set_ftrace_notrace",
		"set_graph_function", "set_graph_notrace", "set_ftrace_pid",
		"tracing_cpumask", "tracing_on", "max_graph_depth",
		"buffer_size_kb", "tracing_thresh", "options/function-fork",
		"available_tracers",
	};
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/tracefs/%s/options", root, dir);
	mkdir(rel, 0755);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(rel, sizeof(rel), "%s%s%s", dir, *dir ? "/" : "",
			 files[i]);
		put(root, rel, "");
	}
}

static void test_apply(void **state)
{
	const char *root = *state;
	struct ktrace_tfs *tfs;
	struct ktrace_err err = { .pos = -1 };
	static const char *const filt[] = { "vfs_*", "ksys_read" };
	static const char *const notr[] = { "vfs_write" };
	static const int pids[] = { 12, 34 }, cpus[] = { 0, 33 };
	struct kt_ftrace_conf c = {
		.tracer = "function", .filter = filt, .nfilter = 2,
		.notrace = notr, .nnotrace = 1, .pids = pids, .npids = 2,
		.cpus = cpus, .ncpus = 2, .fork = true, .buffer_kb = 1024,
	};

	make_tracer_files(root, "");
	put(root, "available_tracers", "blk function nop\n");
	tfs = ktrace_tfs_open(NULL);
	assert_true(kt_tracer_offered(kt_tfs_top(tfs), "function"));
	assert_false(kt_tracer_offered(kt_tfs_top(tfs), "function_graph"));
	assert_true(kt_inst_has(kt_tfs_top(tfs), "max_graph_depth"));
	assert_false(kt_inst_has(kt_tfs_top(tfs), "no_such_file"));
	assert_int_equal(kt_ftrace_apply(kt_tfs_top(tfs), &c, &err), 0);
	/* appended after the first: the kernel adds each write */
	expect_file(root, "set_ftrace_filter", "vfs_*ksys_read");
	expect_file(root, "set_ftrace_notrace", "vfs_write");
	expect_file(root, "set_ftrace_pid", "12 34");
	expect_file(root, "options/function-fork", "1");
	expect_file(root, "tracing_cpumask", "2,00000001");
	expect_file(root, "buffer_size_kb", "1024");
	expect_file(root, "max_graph_depth", "");
	expect_file(root, "current_tracer", "function");
	ktrace_err_clear(&err);
	ktrace_tfs_free(tfs);
}

static void test_top_rule(void **state)
{
	const char *root = *state;
	struct ktrace_tfs *tfs;
	struct ktrace_err err = { .pos = -1 };
	char owner[64], path[4096], link[64];
	struct kt_ftrace_conf c = { .tracer = "function_graph", .depth = 3 };
	unsigned long long ns;
	ssize_t n;

	make_tracer_files(root, "");
	put(root, "current_tracer", "function\n");
	put(root, "set_ftrace_filter", "#### all functions enabled ####\n");
	put(root, "set_ftrace_pid", "no pid\n");
	put(root, "max_graph_depth", "0\n");
	put(root, "options/function-fork", "0\n");
	put(root, "tracing_on", "1\n");
	put(root, "tracing_cpumask", "3\n");
	put(root, "buffer_size_kb", "7 (expanded: 1408)\n");
	tfs = ktrace_tfs_open(NULL);
	/* another tracer: refused, named */
	assert_int_equal(kt_ftop_take(tfs, false, owner, sizeof(owner), &err),
			 -EBUSY);
	assert_non_null(strstr(err.msg, "current_tracer is 'function'"));
	put(root, "current_tracer", "nop\n");
	put(root, "set_graph_function", "vfs_read\n");
	assert_int_equal(kt_ftop_take(tfs, false, owner, sizeof(owner), &err),
			 -EBUSY);
	assert_non_null(strstr(err.msg, "set_graph_function"));
	put(root, "set_graph_function", "#### all functions enabled ####\n");
	/* unused: taken, the settings kept first, then put back */
	assert_int_equal(kt_ftop_take(tfs, true, owner, sizeof(owner), &err),
			 0);
	assert_int_equal(kt_ftrace_apply(kt_tfs_top(tfs), &c, &err), 0);
	expect_file(root, "current_tracer", "function_graph");
	expect_file(root, "max_graph_depth", "3");
	put(root, "tracing_on", "0");
	assert_int_equal(kt_ftop_restore(tfs, owner), 0);
	expect_file(root, "current_tracer", "nop");
	expect_file(root, "max_graph_depth", "0");
	expect_file(root, "tracing_on", "1");
	expect_file(root, "buffer_size_kb", "1408");
	expect_file(root, "set_graph_function", "");
	/* the record is gone: restoring again changes nothing */
	put(root, "current_tracer", "function");
	assert_int_equal(kt_ftop_restore(tfs, owner), 0);
	expect_file(root, "current_tracer", "function");
	/* a killed owner's record (its start time not this process's):
	 * the sweep puts the top back */
	put(root, "current_tracer", "nop");
	assert_int_equal(kt_ftop_take(tfs, false, owner, sizeof(owner), &err),
			 0);
	put(root, "current_tracer", "function_graph");
	assert_int_equal(kt_ftop_sweep(tfs), 0);	/* alive: kept */
	expect_file(root, "current_tracer", "function_graph");
	n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_int_equal(sscanf(link, "pid:[%llu]", &ns), 1);
	snprintf(path, sizeof(path), "%s/tracefs\n%d %llu 1\n", root,
		 (int)getpid(), ns);
	assert_int_equal(kt_state_write(tfs, "owner", owner, path), 0);
	assert_int_equal(kt_ftop_sweep(tfs), 1);
	expect_file(root, "current_tracer", "nop");
	assert_false(kt_state_has(tfs, "ftrace-top", owner));
	ktrace_err_clear(&err);
	ktrace_tfs_free(tfs);
}

/* ------------------------------------------------ ftrace -o, report */

/* The formats of a 6.18 kernel (function_graph's differ between kernels:
 * the decoder finds the fields by name). */
static const char fmt_head[] =
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

static void put_format(const char *root, const char *name, int id,
		       const char *fields, const char *print)
{
	char rel[256], *text;

	snprintf(rel, sizeof(rel), "%s/tracefs/events/ftrace", root);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/tracefs/events/ftrace/%s", root, name);
	mkdir(rel, 0755);
	assert_true(asprintf(&text, "name: %s\nID: %d\n%s%s\nprint fmt: %s\n",
			     name, id, fmt_head, fields, print) > 0);
	snprintf(rel, sizeof(rel), "events/ftrace/%s/format", name);
	put(root, rel, text);
	free(text);
}

static void put_ftrace_formats(const char *root)
{
	put_format(root, "function", 1,
		   "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		   "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n",
		   "\" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip");
	put_format(root, "funcgraph_entry", 11,
		   "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
		   "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n",
		   "\"--> %ps (%u)\", (void *)REC->func, REC->depth");
	put_format(root, "funcgraph_exit", 10,
		   "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
		   "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
		   "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
		   "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
		   "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n",
		   "\"<-- %ps (%u)\", (void *)REC->func, REC->depth");
}

#define FN_A 0xffffffff81000100ull
#define FN_B 0xffffffff81000200ull

/* One graph record's data as the kernel lays it out (above), written. */
static void add_graph(struct kt_ftw *w, bool exit, int cpu, uint64_t ts,
		      uint64_t func, uint32_t depth, uint64_t t0)
{
	unsigned char d[40] = { 0 };
	uint16_t type = exit ? 10 : 11;
	int32_t pid = 42;
	struct kt_frec r = { .cpu = cpu, .ts = ts };

	memcpy(d, &type, 2);
	memcpy(d + 4, &pid, 4);
	memcpy(d + 8, &func, 8);
	memcpy(d + 16, &depth, 4);
	if (exit) {
		memcpy(d + 24, &t0, 8);
		memcpy(d + 32, &ts, 8);
	}
	assert_int_equal(kt_ftw_add(w, &r, d, exit ? 40 : 24), 0);
}

/* A file of the tracer's records at ROOT/NAME, on the ftrace formats of
 * the fake tree: its writer; *fd and *tfs for the caller to close. */
static struct kt_ftw *ftw_start(const char *root, const char *name,
				const char *tracer, char *path, size_t len,
				int *fd, struct ktrace_tfs **tfs)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_ftw *w;

	put_ftrace_formats(root);
	*tfs = ktrace_tfs_open(NULL);
	assert_non_null(*tfs);
	snprintf(path, len, "%s/%s", root, name);
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(*fd >= 0);
	w = kt_ftw_open(*fd, kt_tfs_top(*tfs), tracer, "prog", &err);
	assert_non_null(w);
	return w;
}

/* ftrace -o's file: the records with their formats, symbols, tasks and
 * the run's settings; report shows them as ftrace does live. */
static void test_ftfile_report(void **state)
{
	const char *root = *state;
	struct ktrace_tfs *tfs;
	struct cli_result r;
	struct kt_ftw *w;
	char path[512];
	int fd;

	w = ftw_start(root, "ft.kt", "function_graph", path, sizeof(path), &fd, &tfs);
	add_graph(w, false, 1, 1000000000ull, FN_A, 0, 0);
	add_graph(w, false, 1, 1000001000ull, FN_B, 1, 0);
	add_graph(w, true, 1, 1000001250ull, FN_B, 1, 1000001000ull);
	add_graph(w, true, 1, 1000003000ull, FN_A, 0, 1000000000ull);
	assert_int_equal(kt_ftw_ksym(w, FN_A, "alpha_fn"), 0);
	assert_int_equal(kt_ftw_ksym(w, FN_B, "beta_fn"), 0);
	assert_int_equal(kt_ftw_comm(w, 42, "prog"), 0);
	assert_int_equal(kt_ftw_meta(w, "ftrace.target", "process 42"), 0);
	assert_int_equal(kt_ftw_meta(w, "ftrace.show", "0 0 0"), 0);
	assert_int_equal(kt_ftw_meta(w, "ftrace.records", "4 7"), 0);
	assert_int_equal(kt_ftw_meta(w, "ftrace.lost", "1:7:0"), 0);
	assert_int_equal(kt_ftw_close(w, NULL), 0);
	close(fd);
	ktrace_tfs_free(tfs);

	r = run_cli("report", "-i", path, NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
		"            prog-42      [001] 1.000000:               | alpha_fn() {\n"
		"            prog-42      [001] 1.000001:      0.250 us |   beta_fn();\n"
		"            prog-42      [001] 1.000003:      3.000 us | }\n");
	assert_non_null(strstr(r.err, "4 records, 7 lost (cpu1: 7 overrun"));
	cli_result_free(&r);
	r = run_cli("report", "--json", "-i", path, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"tracer\": \"function_graph\""));
	assert_non_null(strstr(r.out, "\"type\": \"call\", \"function\": \"beta_fn\", \"depth\": 1, \"duration_ns\": 250"));
	assert_non_null(strstr(r.out, "\"lost_total\": 7"));
	cli_result_free(&r);
	/* Perfetto: each call a slice on its task, nested by its times */
	r = run_cli("report", "-i", path, "--perfetto", "-", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "{\"ph\": \"X\", \"name\": \"beta_fn\", \"ts\": 1000001.000, \"pid\": 42, \"tid\": 42, \"dur\": 0.250"));
	assert_non_null(strstr(r.out, "{\"ph\": \"X\", \"name\": \"alpha_fn\", \"ts\": 1000000.000, \"pid\": 42, \"tid\": 42, \"dur\": 3.000"));
	assert_non_null(strstr(r.out, "\"thread_name\", \"pid\": 42, \"tid\": 42, \"args\": {\"name\": \"prog\"}"));
	cli_result_free(&r);
	/* a profile of samples is not what it holds */
	r = run_cli("report", "--folded", "-i", path, NULL);
	assert_int_equal(r.status, 2);
	cli_result_free(&r);
}

/* function records in a file, shown one line each as live: "comm pid
 * [cpu] sec.usec: func <- parent", a task's name with a newline or an
 * escape escaped (it cannot forge a line or drive the terminal). */
static void test_ftfile_function_lines(void **state)
{
	const char *root = *state;
	struct ktrace_tfs *tfs;
	struct cli_result r;
	struct kt_ftw *w;
	char path[512];
	int fd;

	w = ftw_start(root, "fn.kt", "function", path, sizeof(path), &fd, &tfs);
	for (int i = 0; i < 2; i++) {
		unsigned char d[24] = { 0 };
		uint16_t type = 1;
		int32_t pid = 42 + i;
		uint64_t ip = i ? FN_B : FN_A, parent = i ? FN_A : 0x1234;
		struct kt_frec fr = { .cpu = 3 * i, .ts = 2000123456ull + i };

		memcpy(d, &type, 2);
		memcpy(d + 4, &pid, 4);
		memcpy(d + 8, &ip, 8);
		memcpy(d + 16, &parent, 8);
		assert_int_equal(kt_ftw_add(w, &fr, d, 24), 0);
	}
	assert_int_equal(kt_ftw_ksym(w, FN_A, "alpha_fn"), 0);
	assert_int_equal(kt_ftw_ksym(w, FN_B, "beta_fn"), 0);
	assert_int_equal(kt_ftw_comm(w, 42, "ev\nil\033[2J"), 0);
	assert_int_equal(kt_ftw_comm(w, 43, "prog"), 0);
	assert_int_equal(kt_ftw_meta(w, "ftrace.show", "0 0 0"), 0);
	assert_int_equal(kt_ftw_meta(w, "ftrace.records", "2 0"), 0);
	assert_int_equal(kt_ftw_close(w, NULL), 0);
	close(fd);
	ktrace_tfs_free(tfs);

	r = run_cli("report", "-i", path, NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
		"ev\\nil\\x1b[2J 42 [000] 2.000123: alpha_fn <- 0x1234\n"
		"prog 43 [003] 2.000123: beta_fn <- alpha_fn\n");
	cli_result_free(&r);
}

/* A CPU's trace_pipe_raw as a file of npages subbuffers (kbuffer's
 * layout with 8-byte longs: time_stamp, commit, events), each holding two
 * function records, at t0 + k * step and 50 ns later. */
static void put_pipe(const char *root, int cpu, int npages, uint64_t t0,
		     uint64_t step)
{
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char *page = calloc(1, psz);
	char rel[256];
	FILE *f;

	snprintf(rel, sizeof(rel), "%s/tracefs/per_cpu", root);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/tracefs/per_cpu/cpu%d", root, cpu);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/tracefs/per_cpu/cpu%d/trace_pipe_raw",
		 root, cpu);
	f = fopen(rel, "w");
	assert_non_null(f);
	for (int k = 0; k < npages; k++) {
		uint64_t ts = t0 + k * step, commit = 2 * 28;
		unsigned char *e = page + 16;

		memset(page, 0, psz);
		memcpy(page, &ts, 8);
		memcpy(page + 8, &commit, 8);
		for (int i = 0; i < 2; i++, e += 28) {
			/* type_len 6 (24 bytes), time delta 0 then 50 */
			uint32_t hdr = 6 | (uint32_t)(i ? 50 : 0) << 5;
			uint16_t type = 1;
			int32_t pid = 100 + cpu;
			uint64_t ip = FN_A + cpu, parent = FN_B;

			memcpy(e, &hdr, 4);
			memcpy(e + 4, &type, 2);
			memcpy(e + 8, &pid, 4);
			memcpy(e + 12, &ip, 8);
			memcpy(e + 20, &parent, 8);
		}
		assert_int_equal(fwrite(page, psz, 1, f), 1);
	}
	fclose(f);
	free(page);
}

/* The buffers taken into memory at once and handed a batch at a time,
 * every batch in time order after the one before it, across CPUs whose
 * subbuffers interleave in time, and every record once. */
static void test_fpipe_batches(void **state)
{
	const char *root = *state;
	struct ktrace_tfs *tfs;
	struct kt_fpipe *p;
	const struct kt_frec *v;
	uint64_t last = 0;
	size_t n, total = 0, per_cpu[2] = { 0 };
	int reads = 0;

	put_ftrace_formats(root);
	put_pipe(root, 0, 100, 1000000, 1000);	/* busy: 100 subbuffers */
	put_pipe(root, 1, 10, 1000500, 10000);	/* a tenth of them */
	tfs = ktrace_tfs_open(NULL);
	assert_non_null(tfs);
	p = kt_fpipe_open(kt_tfs_top(tfs), NULL, 0);
	assert_non_null(p);
	do {
		assert_int_equal(kt_fpipe_read(p, &v, &n), 0);
		for (size_t i = 0; i < n; i++) {
			assert_true(v[i].ts >= last);
			last = v[i].ts;
			assert_int_equal(v[i].pid, 100 + v[i].cpu);
			assert_int_equal(v[i].ip, FN_A + v[i].cpu);
			per_cpu[v[i].cpu]++;
		}
		total += n;
		reads++;
	} while (kt_fpipe_pending(p) && reads < 100);
	assert_int_equal(per_cpu[0], 200);
	assert_int_equal(per_cpu[1], 20);
	assert_int_equal(total, 220);
	/* more than one batch: 100 subbuffers of one CPU, 16 at a time */
	assert_true(reads >= 7);
	assert_int_equal(kt_fpipe_read(p, &v, &n), 0);
	assert_int_equal(n, 0);
	kt_fpipe_close(p);
	ktrace_tfs_free(tfs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fgraph_nesting),
		cmocka_unit_test(test_fgraph_cpus),
		cmocka_unit_test(test_fgraph_orphans),
		cmocka_unit_test(test_fgraph_comment_after),
		cmocka_unit_test(test_fgraph_threshold_depth),
		cmocka_unit_test_setup_teardown(test_ffuncs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_top_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftfile_report, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fpipe_batches, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ftfile_function_lines,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
