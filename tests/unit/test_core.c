// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of libktrace's core and the CLI, against a fake tracefs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "faketfs.h"
#include "tracefs/tfs.h"

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

static void test_name_check(void **state)
{
	(void)state;
	assert_int_equal(kt_name_check("sched_switch"), 0);
	assert_int_equal(kt_name_check("probe_libc"), 0);
	assert_int_equal(kt_name_check("my-inst.1"), 0);
	assert_int_not_equal(kt_name_check(""), 0);
	assert_int_not_equal(kt_name_check(".."), 0);
	assert_int_not_equal(kt_name_check("../x"), 0);
	assert_int_not_equal(kt_name_check("a/b"), 0);
	assert_int_not_equal(kt_name_check("a b"), 0);
	assert_int_not_equal(kt_name_check("a;rm"), 0);
	assert_int_not_equal(kt_name_check("$(x)"), 0);
	assert_int_not_equal(kt_name_check("x..y"), 0);
	assert_int_not_equal(kt_name_check(".hidden"), 0);
	assert_int_not_equal(kt_name_check(NULL), 0);
	assert_int_not_equal(kt_name_check(
		"a123456789012345678901234567890123456789012345678901234567890123456789"), 0);
}

static void test_glob(void **state)
{
	(void)state;
	assert_true(kt_glob_match("irq:*", "irq", "softirq_entry"));
	assert_true(kt_glob_match("irq", "irq", "softirq_entry"));
	assert_false(kt_glob_match("irq", "irq_vectors", "x"));
	/* a bare exact name is also an event name, as perf list takes it */
	assert_true(kt_glob_match("irq_handler_entry", "irq", "irq_handler_entry"));
	assert_false(kt_glob_match("irq_handler_*", "irq", "irq_handler_entry"));
	assert_false(kt_glob_match("irq_handler", "irq", "irq_handler_entry"));
	assert_true(kt_glob_match("*:*open*", "syscalls", "sys_enter_openat"));
	assert_false(kt_glob_match("*:*open*", "sched", "sched_switch"));
	assert_true(kt_glob_match("sched:sched_[sw]*", "sched", "sched_wakeup"));
	assert_false(kt_glob_match("sched:sched_switch", "sched", "sched_switch_x"));
	assert_true(kt_glob_match(":sched_switch", "sched", "sched_switch"));
	assert_int_equal(kt_glob_check("irq:*"), 0);
	assert_int_equal(kt_glob_check("*:*open*"), 0);
	assert_int_not_equal(kt_glob_check("../*"), 0);
	assert_int_not_equal(kt_glob_check("a/b"), 0);
	assert_int_not_equal(kt_glob_check("a:b:c"), 0);
	assert_int_not_equal(kt_glob_check("irq:[abc"), 0);
	assert_int_not_equal(kt_glob_check("irq; rm -rf"), 0);
	assert_int_not_equal(kt_glob_check(""), 0);
}

static void test_events_list(void **state)
{
	struct ktrace_tfs *tfs = ktrace_tfs_open(NULL);
	const char *globs[] = { "sched:*", "*:*open*", "nomatch:*" };
	unsigned int hits[3];
	struct ktrace_events *evs;
	const struct ktrace_event *e;

	(void)state;
	assert_non_null(tfs);
	evs = ktrace_events_alloc(tfs, globs, 3, hits);
	assert_non_null(evs);
	/* sched: 3, *open*: sys_enter_openat + ktrace:open */
	assert_int_equal(hits[0], 3);
	assert_int_equal(hits[1], 2);
	assert_int_equal(hits[2], 0);
	assert_int_equal(ktrace_events_count(evs), 5);
	e = ktrace_events_get(evs, 0);
	assert_string_equal(e->system, "ktrace");
	assert_string_equal(e->name, "open");
	assert_int_equal(e->kind, KTRACE_KIND_KPROBE);
	e = ktrace_events_get(evs, 1);
	assert_string_equal(e->system, "sched");
	assert_string_equal(e->name, "sched_process_exec");
	assert_int_equal(e->kind, KTRACE_KIND_TRACEPOINT);
	assert_null(ktrace_events_get(evs, 5));
	ktrace_events_free(evs);

	/* All events: sorted, uprobe kind told apart from kprobe. */
	evs = ktrace_events_alloc(tfs, NULL, 0, NULL);
	assert_non_null(evs);
	assert_int_equal(ktrace_events_count(evs), 14);
	for (int i = 1; i < ktrace_events_count(evs); i++) {
		const struct ktrace_event *a = ktrace_events_get(evs, i - 1);
		const struct ktrace_event *b = ktrace_events_get(evs, i);
		int c = strcmp(a->system, b->system);

		assert_true(c < 0 || (c == 0 && strcmp(a->name, b->name) < 0));
		if (!strcmp(b->name, "parse_line"))
			assert_int_equal(b->kind, KTRACE_KIND_UPROBE);
	}
	ktrace_events_free(evs);
	ktrace_tfs_free(tfs);
}

static int ev_ref_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strcspn(x, ":"), ly = strcspn(y, ":");
	int c = strncmp(x, y, lx < ly ? lx : ly);

	if (!c && lx != ly)
		c = lx < ly ? -1 : 1;	/* a system that is a prefix first */
	return c ? c : strcmp(x + lx + 1, y + ly + 1);
}

/*
 * Sorted as strcmp orders the system, then the name: systems that are
 * prefixes of others, names sharing long prefixes, digits and '-' (which
 * sort below ':'), long runs of one system, in an order the kernel might
 * give.
 */
static void test_events_sort_order(void **state)
{
	static const char *const lines[] = {
		"irq_vectors:x", "irq:softirq_raise", "irq:irq_handler_exit",
		"irq1:a", "irq-x:b", "irq:irq_handler_entry", "a:b",
		"syscalls:sys_enter_openat2", "syscalls:sys_enter_openat",
		"syscalls:sys_exit_openat", "syscalls:sys_enter_open",
		"xfs:xfs_alloc_exact_done", "xfs:xfs_alloc_exact_error",
		"xfs:xfs_alloc_exact_notfound", "xfs:xfs_alloc_exact_done2",
		"irq:softirq_entry", "irq:softirq_exit", "a:a", "a:a_",
		"b:zzzzzzzzzzzzzzzzzzzzzzzz1", "b:zzzzzzzzzzzzzzzzzzzzzzzz0",
		"b:zzzzzzzzzzzzzzzzzzzzzzzz", "b:9", "b:Z", "b:_", "b:z0",
	};
	enum { N = sizeof(lines) / sizeof(lines[0]) };
	const char *want[N];
	char *path;
	FILE *f;
	struct ktrace_tfs *tfs;
	struct ktrace_events *evs;

	assert_true(asprintf(&path, "%s/tracefs/available_events",
			     (char *)*state) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	/* longer than a sort's small-group cutoff: many of one system */
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < N; i++)
			if (!r || strncmp(lines[i], "irq:", 4))
				fprintf(f, "%s%s\n", lines[i],
					r ? (r == 1 ? "_r1" : "_r2") : "");
	fclose(f);
	free(path);
	memcpy(want, lines, sizeof(want));
	qsort(want, N, sizeof(want[0]), ev_ref_cmp);
	tfs = ktrace_tfs_open(NULL);
	assert_non_null(tfs);
	evs = ktrace_events_alloc(tfs, NULL, 0, NULL);
	assert_non_null(evs);
	for (int i = 1, c; i < ktrace_events_count(evs); i++) {
		const struct ktrace_event *a = ktrace_events_get(evs, i - 1);
		const struct ktrace_event *b = ktrace_events_get(evs, i);

		c = strcmp(a->system, b->system);
		if (c >= 0 && (c || strcmp(a->name, b->name) >= 0))
			fail_msg("%s:%s before %s:%s", a->system, a->name,
				 b->system, b->name);
	}
	/* the unsuffixed ones, in the reference order */
	for (int i = 0, w = 0; i < ktrace_events_count(evs); i++) {
		const struct ktrace_event *e = ktrace_events_get(evs, i);
		char line[128];

		snprintf(line, sizeof(line), "%s:%s", e->system, e->name);
		if (w < N && !strcmp(line, want[w]))
			w++;
		if (i == ktrace_events_count(evs) - 1)
			assert_int_equal(w, N);
	}
	ktrace_events_free(evs);
	ktrace_tfs_free(tfs);
}

/* Every event of evs as "system:name kind definition" lines (caller frees). */
static char *events_text(struct ktrace_events *evs)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	for (int i = 0; i < ktrace_events_count(evs); i++) {
		const struct ktrace_event *e = ktrace_events_get(evs, i);
		struct ktrace_event_brief b;

		/* the brief agrees with the entry, lengths included */
		assert_int_equal(ktrace_events_brief(evs, i, &b), 0);
		assert_ptr_equal(b.system, e->system);
		assert_ptr_equal(b.name, e->name);
		assert_int_equal(b.system_len, strlen(e->system));
		assert_int_equal(b.name_len, strlen(e->name));
		assert_int_equal(b.kind, e->kind);
		fprintf(f, "%s:%s %s %s\n", e->system, e->name,
			ktrace_kind_name(e->kind),
			e->definition ? e->definition : "-");
	}
	fclose(f);
	return text;
}

/*
 * Without available_events (an old tree) the event directories are walked:
 * the same events, order, kinds and definitions as from the file.
 */
static void test_events_walk_matches_available(void **state)
{
	struct ktrace_tfs *tfs = ktrace_tfs_open(NULL);
	struct ktrace_event_brief b;
	struct ktrace_events *evs;
	char *from_file, *from_walk, *path;

	assert_non_null(tfs);
	evs = ktrace_events_alloc(tfs, NULL, 0, NULL);
	assert_non_null(evs);
	from_file = events_text(evs);
	assert_int_equal(ktrace_events_brief(evs, -1, &b), -ERANGE);
	assert_int_equal(ktrace_events_brief(evs, ktrace_events_count(evs), &b),
			 -ERANGE);
	ktrace_events_free(evs);
	assert_true(asprintf(&path, "%s/tracefs/available_events",
			     (char *)*state) > 0);
	assert_int_equal(unlink(path), 0);
	free(path);
	evs = ktrace_events_alloc(tfs, NULL, 0, NULL);
	assert_non_null(evs);
	from_walk = events_text(evs);
	assert_string_equal(from_walk, from_file);
	assert_non_null(strstr(from_walk, "ktrace:parse_line uprobe p:ktrace/"));
	assert_non_null(strstr(from_walk, "ktrace:open kprobe p:ktrace/"));
	ktrace_events_free(evs);
	free(from_file);
	free(from_walk);
	ktrace_tfs_free(tfs);
}

/*
 * A walk that gathers more names than its first buffer holds, in an
 * order no sort would leave: 3 systems of 300 events with a long shared
 * prefix, made in descending order.
 */
static void test_events_walk_many(void **state)
{
	const char *globs[] = { "bulk*" };
	struct ktrace_tfs *tfs;
	struct ktrace_events *evs;
	unsigned int hit;
	char *path;

	for (int sys = 2; sys >= 0; sys--) {
		assert_true(asprintf(&path, "%s/tracefs/events/bulk%d",
				     (char *)*state, sys) > 0);
		assert_int_equal(mkdir(path, 0755), 0);
		free(path);
		assert_true(asprintf(&path, "%s/tracefs/events/bulk%d/enable",
				     (char *)*state, sys) > 0);
		fclose(fopen(path, "w"));
		free(path);
		for (int i = 299; i >= 0; i--) {
			assert_true(asprintf(&path,
					     "%s/tracefs/events/bulk%d/a_long_shared_event_prefix_%03d",
					     (char *)*state, sys, i) > 0);
			assert_int_equal(mkdir(path, 0755), 0);
			free(path);
		}
	}
	assert_true(asprintf(&path, "%s/tracefs/available_events",
			     (char *)*state) > 0);
	assert_int_equal(unlink(path), 0);
	free(path);
	tfs = ktrace_tfs_open(NULL);
	assert_non_null(tfs);
	evs = ktrace_events_alloc(tfs, globs, 1, &hit);
	assert_non_null(evs);
	assert_int_equal(hit, 900);
	assert_int_equal(ktrace_events_count(evs), 900);
	for (int i = 0; i < 900; i++) {
		struct ktrace_event_brief b;
		char want[64];

		assert_int_equal(ktrace_events_brief(evs, i, &b), 0);
		snprintf(want, sizeof(want), "bulk%d:a_long_shared_event_prefix_%03d",
			 i / 300, i % 300);
		assert_int_equal(b.system_len + 1 + b.name_len, strlen(want));
		assert_memory_equal(b.system, want, b.system_len);
		assert_memory_equal(b.name, want + b.system_len + 1, b.name_len);
		assert_int_equal(b.kind, KTRACE_KIND_TRACEPOINT);
	}
	ktrace_events_free(evs);
	ktrace_tfs_free(tfs);
}

static void test_events_formats(void **state)
{
	struct ktrace_tfs *tfs = ktrace_tfs_open(NULL);
	const char *globs[] = { "sched:sched_switch" };
	struct ktrace_events *evs;
	const struct ktrace_event *e;
	char *id;
	bool seen_pid = false;

	assert_non_null(tfs);
	evs = ktrace_events_alloc(tfs, globs, 1, NULL);
	assert_non_null(evs);
	assert_int_equal(ktrace_events_load_formats(evs), 0);
	e = ktrace_events_get(evs, 0);
	id = fake_read(*state, "tracefs/events/sched/sched_switch/id");
	assert_non_null(id);
	assert_int_equal(e->id, atoi(id));
	free(id);
	assert_true(e->nr_fields > 4);
	assert_true(e->fields[0].is_common);
	for (int i = 0; i < e->nr_fields; i++) {
		if (!strcmp(e->fields[i].name, "prev_pid")) {
			seen_pid = true;
			assert_int_equal(e->fields[i].size, 4);
			assert_true(e->fields[i].is_signed);
			assert_false(e->fields[i].is_common);
		}
	}
	assert_true(seen_pid);
	assert_non_null(e->print_fmt);
	assert_non_null(strstr(e->print_fmt, "prev_comm"));
	ktrace_events_free(evs);
	ktrace_tfs_free(tfs);
}

static void test_tfs_open_missing(void **state)
{
	(void)state;
	assert_null(ktrace_tfs_open("/nonexistent/tracefs"));
	assert_int_equal(errno, ENOENT);
}

static void test_enable_disable(void **state)
{
	struct ktrace_tfs *tfs = ktrace_tfs_open(NULL);
	struct ktrace_inst *inst = ktrace_inst_open(tfs, NULL, false);
	const char *globs[] = { "irq" };
	char *v;

	assert_non_null(inst);
	assert_int_equal(ktrace_inst_enable(inst, globs, 1, true, NULL), 3);
	v = fake_read(*state, "tracefs/events/irq/softirq_entry/enable");
	assert_string_equal(v, "1");
	free(v);
	v = fake_read(*state, "tracefs/events/sched/sched_switch/enable");
	assert_string_equal(v, "0\n");
	free(v);
	assert_int_equal(ktrace_inst_enable(inst, globs, 1, false, NULL), 3);
	v = fake_read(*state, "tracefs/events/irq/softirq_entry/enable");
	assert_string_equal(v, "0");
	free(v);
	ktrace_inst_free(inst);
	ktrace_tfs_free(tfs);
}

/* A failing enable/disable undoes only what it changed. */
static void test_enable_failure_undoes_only_its_changes(void **state)
{
	struct ktrace_tfs *tfs = ktrace_tfs_open(NULL);
	struct ktrace_inst *inst = ktrace_inst_open(tfs, NULL, false);
	const char *globs[] = { "irq" };
	char path[4096], *v;
	FILE *f;

	assert_non_null(inst);
	/* irq_handler_entry was on already, softirq_entry's enable is
	 * unwritable (a directory), irq_handler_exit was off. */
	snprintf(path, sizeof(path), "%s/tracefs/events/irq/irq_handler_entry/enable",
		 (char *)*state);
	f = fopen(path, "w");
	fputs("1\n", f);
	fclose(f);
	snprintf(path, sizeof(path),
		 "rm '%s/tracefs/events/irq/softirq_entry/enable' && mkdir '%s/tracefs/events/irq/softirq_entry/enable'",
		 (char *)*state, (char *)*state);
	assert_int_equal(system(path), 0);
	assert_true(ktrace_inst_enable(inst, globs, 1, true, NULL) < 0);
	v = fake_read(*state, "tracefs/events/irq/irq_handler_entry/enable");
	assert_string_equal(v, "1\n");		/* not flipped off */
	free(v);
	v = fake_read(*state, "tracefs/events/irq/irq_handler_exit/enable");
	assert_string_equal(v, "0");		/* turned on, then back */
	free(v);
	assert_true(ktrace_inst_enable(inst, globs, 1, false, NULL) < 0);
	v = fake_read(*state, "tracefs/events/irq/irq_handler_exit/enable");
	assert_string_equal(v, "0");		/* off before: not turned on */
	free(v);
	v = fake_read(*state, "tracefs/events/irq/irq_handler_entry/enable");
	assert_string_equal(v, "1");		/* turned off, then back */
	free(v);
	ktrace_inst_free(inst);
	ktrace_tfs_free(tfs);
}

static void test_instance_create_reset(void **state)
{
	struct ktrace_tfs *tfs = ktrace_tfs_open(NULL);
	struct ktrace_inst *inst;
	char path[4096];
	struct stat st;

	assert_null(ktrace_inst_open(tfs, "nope", false));
	assert_int_equal(errno, ENOENT);
	assert_null(ktrace_inst_open(tfs, "../evil", true));
	assert_int_equal(errno, EINVAL);
	snprintf(path, sizeof(path), "%s/tracefs/evil", (char *)*state);
	assert_int_not_equal(stat(path, &st), 0);

	inst = ktrace_inst_open(tfs, "kt_unit", true);
	assert_non_null(inst);
	assert_true(ktrace_inst_owned(inst));
	assert_true(ktrace_inst_is_new(inst));
	ktrace_inst_free(inst);
	snprintf(path, sizeof(path), "%s/tracefs/instances/kt_unit",
		 (char *)*state);
	assert_int_equal(stat(path, &st), 0);
	/* Reopened later: still known as ktrace's, but not new. */
	inst = ktrace_inst_open(tfs, "kt_unit", true);
	assert_non_null(inst);
	assert_true(ktrace_inst_owned(inst));
	assert_false(ktrace_inst_is_new(inst));
	assert_int_equal(ktrace_inst_destroy(inst), 0);
	ktrace_inst_free(inst);
	assert_int_not_equal(stat(path, &st), 0);
	ktrace_tfs_free(tfs);
}

/* p is dir + tail, and p is freed. */
static void expect_path(char *p, const char *dir, const char *tail)
{
	char want[PATH_MAX];

	assert_non_null(p);
	snprintf(want, sizeof(want), "%s%s", dir, tail);
	assert_string_equal(p, want);
	free(p);
}

/* The one accessor of tracefs files: top and named instances alike. */
static void test_tfs_paths(void **state)
{
	struct ktrace_tfs *tfs = ktrace_tfs_open(NULL);
	struct ktrace_inst *top, *inst;
	char *buf, *want, longname[PATH_MAX + 8];
	const char *dir;

	assert_non_null(tfs);
	dir = ktrace_tfs_dir(tfs);
	top = kt_tfs_top(tfs);
	expect_path(kt_event_path(top, "sched", "sched_switch", "trigger"),
		    dir, "/events/sched/sched_switch/trigger");
	expect_path(kt_event_path(top, "sched", NULL, "enable"), dir,
		    "/events/sched/enable");
	expect_path(kt_event_path(top, NULL, NULL, "header_page"), dir,
		    "/events/header_page");
	expect_path(kt_event_path(top, "sched", "sched_switch", NULL), dir,
		    "/events/sched/sched_switch");
	expect_path(kt_inst_path(top, "dynamic_events"), dir,
		    "/dynamic_events");

	/* what it reads is the file the path names */
	buf = kt_event_read(top, "sched", "sched_switch", "id", NULL);
	want = fake_read(*state, "tracefs/events/sched/sched_switch/id");
	assert_non_null(buf);
	assert_non_null(want);
	assert_string_equal(buf, want);
	free(buf);
	free(want);

	inst = ktrace_inst_open(tfs, "kt_paths", true);
	assert_non_null(inst);
	expect_path(kt_inst_path(inst, "per_cpu/cpu0/trace_pipe_raw"), dir,
		    "/instances/kt_paths/per_cpu/cpu0/trace_pipe_raw");
	expect_path(kt_event_path(inst, "sched", "sched_switch", "filter"),
		    dir, "/instances/kt_paths/events/sched/sched_switch/filter");
	assert_int_equal(ktrace_inst_destroy(inst), 0);
	ktrace_inst_free(inst);

	/* names that would leave the tree, or an event without its system */
	errno = 0;
	assert_null(kt_event_path(top, "..", "x", "id"));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(kt_event_path(top, "sched", "../../tracing_on", NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(kt_event_path(top, "", NULL, "enable"));
	assert_null(kt_event_path(top, "sched", ".", "id"));
	errno = 0;
	assert_null(kt_event_path(top, NULL, "sched_switch", "id"));
	assert_int_equal(errno, EINVAL);
	memset(longname, 'a', PATH_MAX);
	longname[PATH_MAX] = '\0';
	errno = 0;
	assert_null(kt_event_path(top, longname, NULL, NULL));
	assert_int_equal(errno, ENAMETOOLONG);
	/* writes take users' names only */
	assert_int_equal(kt_event_write(top, "sched", "a b", "enable", "1"),
			 -EINVAL);
	assert_int_equal(kt_event_write(top, "sched", "sched_switch",
					"enable", "1"), 0);
	want = fake_read(*state, "tracefs/events/sched/sched_switch/enable");
	assert_non_null(want);
	assert_string_equal(want, "1");
	free(want);
	ktrace_tfs_free(tfs);
}

static void test_filter_verify(void **state)
{
	struct ktrace_tfs *tfs = ktrace_tfs_open(NULL);
	struct ktrace_inst *inst = ktrace_inst_open(tfs, NULL, false);
	struct ktrace_err err = { .pos = -1 };
	char *v;

	assert_int_equal(ktrace_inst_filter_set(inst, "sched:sched_switch",
						"prev_pid == 1", &err), 0);
	v = fake_read(*state, "tracefs/events/sched/sched_switch/filter");
	assert_string_equal(v, "prev_pid == 1");
	free(v);
	/* An unknown field is caught before anything is written. */
	assert_int_equal(ktrace_inst_filter_set(inst, "sched:sched_switch",
						"bogus == 3", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "sched:sched_switch"));
	assert_string_equal(err.input, "bogus == 3");
	assert_true(err.pos >= 0 && err.pos < 10);
	v = fake_read(*state, "tracefs/events/sched/sched_switch/filter");
	assert_string_equal(v, "prev_pid == 1");
	free(v);
	assert_int_equal(ktrace_inst_filter_set(inst, "sched:sched_switch",
						"prev_pid > 0x", &err), -EINVAL);
	assert_true(err.pos > 0);
	assert_int_equal(ktrace_inst_filter_set(inst, "sched:nope",
						"x == 1", &err), -ENOENT);
	assert_int_equal(ktrace_inst_filter_set(inst, "../x:y", "a", &err),
			 -EINVAL);
	assert_int_equal(ktrace_inst_filter_set(inst, "sched:sched_switch",
						NULL, &err), 0);
	v = fake_read(*state, "tracefs/events/sched/sched_switch/filter");
	assert_string_equal(v, "0");
	free(v);
	ktrace_err_clear(&err);
	ktrace_inst_free(inst);
	ktrace_tfs_free(tfs);
}

static void test_errlog_parse(void **state)
{
	struct ktrace_tfs *tfs = ktrace_tfs_open(NULL);
	char path[4096], *cmd, *msg;
	int pos;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tracefs/error_log", (char *)*state);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("[   85.444372] event filter parse error: error: Error\n"
	      "  Command: prev_pid == 1 &&& foo\n"
	      "           ^\n"
	      "[   85.479901] trace_kprobe: error: Invalid fetch argument\n"
	      "  Command: p:ktrace/x do_sys_open f=+0(%zz):string\n"
	      "                                       ^\n", f);
	fclose(f);
	msg = kt_errlog_read(tfs, NULL, &cmd, &pos);
	assert_string_equal(msg, "trace_kprobe: error: Invalid fetch argument");
	assert_string_equal(cmd, "p:ktrace/x do_sys_open f=+0(%zz):string");
	assert_int_equal(pos, 28);
	assert_int_equal(cmd[pos], '%');
	free(msg);
	free(cmd);
	assert_int_equal(kt_errlog_clear(tfs, NULL), 0);
	assert_null(kt_errlog_read(tfs, NULL, &cmd, &pos));
	assert_int_equal(pos, -1);
	ktrace_tfs_free(tfs);
}

static void test_state_and_reset(void **state)
{
	struct ktrace_tfs *tfs = ktrace_tfs_open(NULL);
	struct ktrace_inst *inst = ktrace_inst_open(tfs, NULL, false);
	struct ktrace_inst_state st;
	char path[4096], *v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tracefs/set_event", (char *)*state);
	f = fopen(path, "w");
	fputs("sched:sched_switch\nirq:softirq_entry\n", f);
	fclose(f);
	assert_int_equal(ktrace_inst_filter_set(inst, "irq:softirq_entry",
						"vec == 1", NULL), 0);
	assert_int_equal(ktrace_inst_state_read(inst, &st), 0);
	assert_true(st.tracing_on);
	assert_int_equal(st.buffer_size_kb, 1408);
	assert_string_equal(st.enabled[0], "irq:softirq_entry");
	assert_string_equal(st.enabled[1], "sched:sched_switch");
	assert_null(st.enabled[2]);
	assert_string_equal(st.filters[0], "irq:softirq_entry\tvec == 1");
	assert_null(st.filters[1]);
	ktrace_inst_state_clear(&st);
	assert_int_equal(ktrace_inst_reset(inst), 0);
	v = fake_read(*state, "tracefs/events/sched/sched_switch/enable");
	assert_string_equal(v, "0");
	free(v);
	v = fake_read(*state, "tracefs/events/irq/softirq_entry/filter");
	assert_string_equal(v, "0");
	free(v);
	/* The dynamic events are untouched by reset. */
	v = fake_read(*state, "tracefs/dynamic_events");
	assert_non_null(strstr(v, "ktrace/parse_line"));
	free(v);
	ktrace_inst_free(inst);
	ktrace_tfs_free(tfs);
}

/* ------------------------------------------------------------ the CLI */

/*
 * No process-wide tracefs directory: two trees open at once, and each
 * probe and instance goes to the tree of the handle it was made with.
 */
static void test_two_trees(void **state)
{
	char *a = fake_tfs_make(), *b, *da, *db, *ua, *ub;
	struct ktrace_probe_opts opts = { 0 };
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_tfs *ta, *tb;
	struct ktrace_resolver *res;
	struct ktrace_probe *p;
	struct ktrace_inst *inst;

	(void)state;
	assert_non_null(a);
	b = fake_tfs_make();	/* the environment now points at b */
	assert_non_null(b);
	assert_true(asprintf(&da, "%s/tracefs", a) > 0);
	assert_true(asprintf(&db, "%s/tracefs", b) > 0);
	ta = ktrace_tfs_open(da);
	tb = ktrace_tfs_open(db);
	assert_non_null(ta);
	assert_non_null(tb);

	/* an exported libc function: found wherever the test runs */
	p = ktrace_probe_parse("libc:malloc x=%di:u64", &opts, &err);
	assert_non_null(p);
	res = ktrace_resolver_alloc(ta);
	assert_int_equal(ktrace_probe_resolve(p, res, &err), 0);
	assert_int_equal(ktrace_probe_create(p, ta, false, &err), 0);
	ua = fake_read(a, "tracefs/uprobe_events");
	ub = fake_read(b, "tracefs/uprobe_events");
	assert_non_null(strstr(ua, "libc.so.6:0x"));
	assert_null(strstr(ub ? ub : "", "libc.so.6:0x"));
	free(ua);
	free(ub);
	ktrace_probe_free(p);
	ktrace_resolver_free(res);

	inst = ktrace_inst_open(ta, "kt_two", true);
	assert_non_null(inst);
	free(da);
	assert_true(asprintf(&da, "%s/tracefs/instances/kt_two", a) > 0);
	assert_int_equal(access(da, F_OK), 0);
	free(db);
	assert_true(asprintf(&db, "%s/tracefs/instances/kt_two", b) > 0);
	assert_int_not_equal(access(db, F_OK), 0);
	ktrace_inst_free(inst);

	free(da);
	free(db);
	ktrace_tfs_free(ta);
	ktrace_tfs_free(tb);
	fake_tfs_remove(b);
	fake_tfs_remove(a);
}

/* Append text to ROOT/tracefs/rel. */
static void fake_append(const char *root, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tracefs/%s", root, rel);
	f = fopen(path, "a");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * A probe set is all or nothing: when the second probe cannot be made, the
 * first is taken back. (The fake tree keeps every command written to it.)
 */
static void test_probe_set_all_or_nothing(void **state)
{
	char *root = fake_tfs_make(), *before, *after, *dir;
	struct ktrace_probe_opts opts = { .group = "kt_set" };
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_probes *ps;
	struct ktrace_tfs *tfs;
	int failed = -2;

	(void)state;
	assert_non_null(root);
	tfs = ktrace_tfs_open(NULL);
	assert_non_null(tfs);
	/* b exists already: creating it without force fails */
	assert_true(asprintf(&dir, "mkdir -p %s/tracefs/events/kt_set/b", root) > 0);
	assert_int_equal(system(dir), 0);
	free(dir);
	ps = ktrace_probes_alloc(tfs);
	assert_non_null(ps);
	assert_int_equal(ktrace_probes_add(ps, "a=libc:malloc", &opts, &err), 0);
	assert_int_equal(ktrace_probes_add(ps, "b=libc:free", &opts, &err), 1);
	/* a spec that does not parse is a usage error, flagged as such */
	assert_true(ktrace_probes_add(ps, "c=libc:free x=", &opts, &err) < 0);
	assert_true(err.syntax);
	ktrace_err_clear(&err);
	assert_int_equal(ktrace_probes_count(ps), 2);
	before = fake_read(root, "tracefs/uprobe_events");
	assert_int_equal(ktrace_probes_create(ps, false, &failed, &err), -EEXIST);
	assert_int_equal(failed, 1);
	ktrace_err_clear(&err);
	after = fake_read(root, "tracefs/uprobe_events");
	/* a was written, then taken back; b never */
	assert_non_null(strstr(after + strlen(before), "p:kt_set/a /"));
	assert_non_null(strstr(after + strlen(before), "-:kt_set/a\n"));
	assert_null(strstr(after + strlen(before), "kt_set/b"));
	free(before);
	free(after);
	ktrace_probes_free(ps);
	ktrace_tfs_free(tfs);
	fake_tfs_remove(root);
}

/*
 * The sweep removes the groups of dead ktrace processes only: not a live
 * one's, not another tool's; and listing does not sweep at all.
 */
static void test_probe_sweep(void **state)
{
	char *root = fake_tfs_make(), *after, line[256];
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_probes *ps;
	struct ktrace_events *evs;
	struct ktrace_tfs *tfs;
	pid_t dead = fork();

	(void)state;
	if (dead == 0)
		_exit(0);
	assert_true(dead > 0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	assert_non_null(root);
	snprintf(line, sizeof(line),
		 "p:ktrace_%d/x /bin/true:0x0000000000001000\n"
		 "p:ktrace_%d/y /bin/true:0x0000000000001000\n"
		 "p:other/z /bin/true:0x0000000000001000\n"
		 "p:ktrace_99999/mine /bin/true:0x0000000000001000\n",
		 (int)dead, (int)getpid());
	fake_append(root, "uprobe_events", line);
	fake_append(root, "dynamic_events", line);
	tfs = ktrace_tfs_open(NULL);
	assert_non_null(tfs);
	/* the dead owner's record: this PID namespace, a start time its
	 * PID no longer has; ktrace_99999 has none (a user's own group) */
	{
		char ns[64] = "", rec[PATH_MAX + 128], path[PATH_MAX];
		ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1);
		FILE *f;

		assert_true(n > 0);
		ns[n] = '\0';
		snprintf(rec, sizeof(rec), "%s\n%d %llu 12345\n",
			 ktrace_tfs_dir(tfs), (int)dead,
			 strtoull(strchr(ns, '[') + 1, NULL, 10));
		mkdir(getenv("KTRACE_STATE_DIR"), 0700);
		/* the second: a dead owner that made no probe (killed
		 * before its first), pruned */
		for (int k = 0; k < 2; k++) {
			snprintf(path, sizeof(path), "%s/owner.ktrace_%d%s",
				 getenv("KTRACE_STATE_DIR"), (int)dead,
				 k ? "_0badc0de" : "");
			f = fopen(path, "w");
			assert_non_null(f);
			fputs(rec, f);
			fclose(f);
		}
	}
	evs = ktrace_events_alloc(tfs, NULL, 0, NULL);	/* a listing */
	assert_non_null(evs);
	ktrace_events_free(evs);
	after = fake_read(root, "tracefs/uprobe_events");
	assert_null(strstr(after, "-:"));
	free(after);
	ps = ktrace_probes_alloc(tfs);
	assert_non_null(ps);
	assert_string_equal(ktrace_probes_own_group(ps),
			    (snprintf(line, sizeof(line), "ktrace_%d",
				      (int)getpid()), line));
	assert_int_equal(ktrace_probes_create(ps, false, NULL, &err), 0);
	after = fake_read(root, "tracefs/uprobe_events");
	snprintf(line, sizeof(line), "-:ktrace_%d/x\n", (int)dead);
	assert_non_null(strstr(after, line));
	snprintf(line, sizeof(line), "-:ktrace_%d/", (int)getpid());
	assert_null(strstr(after, line));
	assert_null(strstr(after, "-:other/"));
	assert_null(strstr(after, "-:ktrace_99999/"));
	free(after);
	snprintf(line, sizeof(line), "%s/owner.ktrace_%d_0badc0de",
		 getenv("KTRACE_STATE_DIR"), (int)dead);
	assert_int_equal(access(line, F_OK), -1);
	ktrace_probes_free(ps);
	ktrace_tfs_free(tfs);
	fake_tfs_remove(root);
}

static void test_cli_list(void **state)
{
	struct cli_result r;

	(void)state;
	r = run_cli("list", "irq", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "irq:irq_handler_entry\nirq:irq_handler_exit\nirq:softirq_entry\n");
	cli_result_free(&r);
	r = run_cli("list", "ktrace:*", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "ktrace:open [kprobe]\nktrace:parse_line [uprobe]\n");
	cli_result_free(&r);
	r = run_cli("list", "nomatch:*", NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "no event matches 'nomatch:*'"));
	assert_null(strchr(strchr(r.err, '\n') + 1, '\n'));
	cli_result_free(&r);
	r = run_cli("list", "--bogus", NULL);
	assert_int_equal(r.status, 2);
	cli_result_free(&r);
	r = run_cli("list", "../../etc", NULL);
	assert_int_equal(r.status, 2);
	cli_result_free(&r);
	r = run_cli("list", "-v", "sched:sched_wakeup", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "target_cpu"));
	cli_result_free(&r);
}

static void test_cli_list_json(void **state)
{
	struct cli_result r;

	(void)state;
	r = run_cli("list", "--json", "ktrace:parse_line", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"system\": \"ktrace\""));
	assert_non_null(strstr(r.out, "\"id\": 2001"));
	assert_non_null(strstr(r.out, "\"kind\": \"uprobe\""));
	assert_non_null(strstr(r.out, "{\"name\": \"len\", \"type\": \"s32\", \"offset\": 20, \"size\": 4, \"signed\": true, \"common\": false}"));
	cli_result_free(&r);
	r = run_cli("--json", "list", "nomatch", NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "{\"error\": \"no event matches 'nomatch'\"}\n");
	cli_result_free(&r);
}

/* Bad input: refused, right exit status, tree byte-identical. */
static void test_cli_bad_input_leaves_tree(void **state)
{
	static const char *const bad[][5] = {
		{ "enable", "../../../etc:*", NULL },
		{ "enable", "-B", "../x", "irq", NULL },
		{ "enable", "-B", "a b", "irq", NULL },
		{ "enable", "-B", "x;rm", "irq", NULL },
		{ "enable", "nomatch:*", NULL },
		{ "enable", "irq", "nomatch", NULL },
		{ "enable", NULL },
		{ "disable", "sched:[x", NULL },
		{ "filter", "sched:sched_switch", NULL },
		{ "filter", "sched:sched_switch", "bogus == 1", NULL },
		{ "filter", "sched:../../x", "a == 1", NULL },
		{ "filter", "sched/sched_switch", "a == 1", NULL },
		{ "filter", "-B", "newinst", "sched:sched_switch", "bogus == 1" },
		{ "filter", "sched:nosuch", "a == 1", NULL },
		{ "filter", "sched:sched_switch", "", NULL },
		{ "reset", "-B", "nosuch", NULL },
		{ "reset", "-B", "..", NULL },
		{ "show", "-B", "../..", NULL },
		{ "nosuchcmd", NULL },
	};
	static const int want[] = { 2, 2, 2, 2, 1, 1, 2, 2, 2, 1, 2, 2, 1, 1,
				    2, 1, 2, 2, 2 };
	char *before = fake_snapshot(*state), *after;

	assert_non_null(before);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cli_result r = run_cli(bad[i][0], bad[i][1], bad[i][2],
					      bad[i][3], bad[i][4], NULL);
		char *nl;

		if (r.status != want[i])
			fail_msg("case %zu (%s %s): status %d, want %d; stderr: %s",
				 i, bad[i][0], bad[i][1] ? bad[i][1] : "",
				 r.status, want[i], r.err);
		/* One line naming the problem (a usage text may follow). */
		assert_true(strncmp(r.err, "ktrace", 6) == 0);
		nl = strchr(r.err, '\n');
		assert_non_null(nl);
		cli_result_free(&r);
		after = fake_snapshot(*state);
		if (strcmp(before, after))
			fail_msg("case %zu (%s %s) changed the tree", i,
				 bad[i][0], bad[i][1] ? bad[i][1] : "");
		free(after);
	}
	free(before);
}

static void test_cli_help_version(void **state)
{
	struct cli_result r;

	(void)state;
	r = run_cli("--version", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "ktrace "));
	cli_result_free(&r);
	r = run_cli("help", "list", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: ktrace list"));
	cli_result_free(&r);
	r = run_cli("filter", "--help", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Usage: ktrace filter"));
	cli_result_free(&r);
	r = run_cli("--help", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Commands:"));
	cli_result_free(&r);
	r = run_cli(NULL);
	assert_int_equal(r.status, 2);
	cli_result_free(&r);
}

static void test_cli_enable_instance(void **state)
{
	struct cli_result r;
	char path[4096];
	struct stat st;
	char *v;

	/*
	 * A fake instance is an empty directory, so enabling fails there:
	 * the instance this call created must be gone again.
	 */
	r = run_cli("enable", "-B", "kt_new", "sched:sched_switch", NULL);
	assert_int_equal(r.status, 1);
	cli_result_free(&r);
	snprintf(path, sizeof(path), "%s/tracefs/instances/kt_new",
		 (char *)*state);
	assert_int_not_equal(stat(path, &st), 0);

	/* An existing (seeded) instance: only its own files change. */
	snprintf(path, sizeof(path),
		 "mkdir '%s/tracefs/instances/other' && cp -r '%s/tracefs/events' '%s/tracefs/set_event' '%s/tracefs/tracing_on' '%s/tracefs/instances/other/'",
		 (char *)*state, (char *)*state, (char *)*state,
		 (char *)*state, (char *)*state);
	assert_int_equal(system(path), 0);
	r = run_cli("enable", "-B", "other", "sched:sched_switch", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "enabled 1 event in instance other\n");
	cli_result_free(&r);
	/* counts say what changed, not what matched */
	r = run_cli("enable", "-B", "other", "sched:*", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, " event"));
	assert_non_null(strstr(r.out, " (1 already enabled)\n"));
	cli_result_free(&r);
	r = run_cli("disable", "-B", "other", "sched:*", NULL);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "already"));
	cli_result_free(&r);
	r = run_cli("--json", "disable", "-B", "other", "sched:*", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"disabled\": 0, \"already_disabled\": "));
	cli_result_free(&r);
	r = run_cli("enable", "-B", "other", "sched:sched_switch", NULL);
	assert_string_equal(r.out, "enabled 1 event in instance other\n");
	cli_result_free(&r);
	v = fake_read(*state,
		      "tracefs/instances/other/events/sched/sched_switch/enable");
	assert_string_equal(v, "1");
	free(v);
	v = fake_read(*state, "tracefs/events/sched/sched_switch/enable");
	assert_string_equal(v, "0\n");	/* the top instance untouched */
	free(v);
	r = run_cli("--json", "show", "-B", "other", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"instance\": \"other\", \"owned\": false"));
	cli_result_free(&r);
	/* Not created by ktrace: reset never removes it. */
	r = run_cli("reset", "-B", "other", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "reset instance other\n");
	cli_result_free(&r);
	snprintf(path, sizeof(path), "%s/tracefs/instances/other",
		 (char *)*state);
	assert_int_equal(stat(path, &st), 0);
}

/*
 * Issue 28's papercuts: show says a filter the kernel refused (it stays
 * in the file, not applied); a missing option argument is named as
 * such; a kind without events is an empty list, exit 0.
 */
static void test_cli_papercuts(void **state)
{
	struct cli_result r;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path),
		 "%s/tracefs/events/sched/sched_switch/filter",
		 (char *)*state);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("prev_pid ==\n           ^\nparse_error: Invalid value (did you forget quotes)?\n",
	      f);
	fclose(f);
	r = run_cli("show", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "    sched:sched_switch: prev_pid ==  (refused by the kernel, not applied: Invalid value (did you forget quotes)?)\n"));
	assert_null(strstr(r.out, "^"));
	cli_result_free(&r);
	r = run_cli("--json", "show", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "{\"event\": \"sched:sched_switch\", \"filter\": \"prev_pid ==\", \"applied\": false, \"kernel_error\": \"Invalid value (did you forget quotes)?\"}"));
	cli_result_free(&r);
	r = run_cli("probe", "add", "-f", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "ktrace probe: missing argument for '-f'\n"));
	cli_result_free(&r);
	r = run_cli("record", "--output", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "missing argument for '--output'\n"));
	cli_result_free(&r);
	r = run_cli("record", "-z", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "bad option '-z'\n"));
	cli_result_free(&r);
	r = run_cli("list", "--kind", "kretprobe", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "");
	cli_result_free(&r);
	r = run_cli("--json", "list", "--kind", "kretprobe", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "[]\n");
	cli_result_free(&r);
}

/* A message quotes at most 100 characters of a huge argument (the
 * funnel cuts it, whatever the command), and the caret line under a
 * long input is a window around the caret. */
static void test_cli_huge_argument_cut(void **state)
{
	char big[5001], spec[5100], want[160];
	struct cli_result r;
	const char *q, *lines[3];

	(void)state;
	memset(big, 'x', 5000);
	big[5000] = '\0';
	snprintf(want, sizeof(want), "'%.100s...(4900 more)'", big);
	r = run_cli("list", big, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, want));
	assert_true(strlen(r.err) < 300);
	cli_result_free(&r);
	r = run_cli("--json", "record", "-e", big, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.out, want));
	assert_true(strlen(r.out) < 400 && strlen(r.err) < 400);
	cli_result_free(&r);
	/* a bad argument name at position 5015 of the spec */
	snprintf(spec, sizeof(spec), "do_sys_openat2 %s 9=%%di", big);
	r = run_cli("probe", "add", "--dry-run", spec, NULL);
	assert_int_equal(r.status, 2);
	lines[0] = r.err;
	for (int i = 1; i < 3; i++) {
		q = strchr(lines[i - 1], '\n');
		assert_non_null(q);
		lines[i] = q + 1;
	}
	assert_true(strlen(r.err) < 600);
	/* the caret under the '9' of the window */
	q = strchr(lines[2], '^');
	assert_non_null(q);
	assert_int_equal(lines[1][q - lines[2]], '9');
	cli_result_free(&r);
}

/* Numbers out of range or not numbers: exit 2 and one line, before
 * anything is opened (no wrap to PID 1 or CPU 0, no endless -d). */
static void test_cli_numbers_strict(void **state)
{
	static const char *const bad[][6] = {
		{ "record", "-e", "sched:sched_switch", "-d", "inf", NULL },
		{ "record", "-e", "sched:sched_switch", "-d", "nan", NULL },
		{ "record", "-e", "sched:sched_switch", "-d", "1e309", NULL },
		{ "record", "-e", "sched:sched_switch", "-p", "4294967297", NULL },
		{ "record", "-e", "sched:sched_switch", "-C", "4294967296", NULL },
		{ "record", "-e", "cpu-clock", "-c", "99999999999999999999", NULL },
		{ "record", "-e", "sched:sched_switch", "-m", "3", NULL },
		{ "stat", "-I", "99999999999999999999", NULL },
		{ "stat", "-p", "-1", NULL },
		{ "top", "-I", "99999999999999999999", NULL },
		{ "top", "-d", "-1", NULL },
		{ "stat", "-e", "", NULL },
		{ "stat", "-e", "task-clock,,page-faults", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct cli_result r = run_cli(bad[i][0], bad[i][1], bad[i][2],
					      bad[i][3], bad[i][4], NULL);
		char *nl = strchr(r.err, '\n');

		if (r.status != 2 || !nl || nl[1])
			fail_msg("%s %s %s %s %s: exit %d, '%s'", bad[i][0],
				 bad[i][1], bad[i][2], bad[i][3],
				 bad[i][4] ? bad[i][4] : "", r.status, r.err);
		cli_result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_check),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_cli_numbers_strict),
		cmocka_unit_test(test_cli_huge_argument_cut),
		cmocka_unit_test_setup_teardown(test_events_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events_sort_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events_walk_matches_available, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events_walk_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events_formats, setup, teardown),
		cmocka_unit_test(test_tfs_open_missing),
		cmocka_unit_test_setup_teardown(test_enable_disable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enable_failure_undoes_only_its_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_instance_create_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tfs_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_verify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errlog_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_and_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_papercuts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_list_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_bad_input_leaves_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_help_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_enable_instance, setup, teardown),
		cmocka_unit_test(test_two_trees),
		cmocka_unit_test(test_probe_set_all_or_nothing),
		cmocka_unit_test(test_probe_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
