// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the recording formatter and the record file round trip,
 * without the kernel: files are written with the kfile writer (lib/kfile/kfile.h)
 * holding the real sched_switch format of tests/fixtures/tracefs, loaded
 * with ktrace_record_load() and replayed through ktrace_record_format().
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "ktrace.h"
#include "kfile/kfile.h"
#include "faketfs.h"	/* run_cli() */

#define SCHED_SWITCH_ID 372	/* the fixture's id */
#define SAMPLE_ID 0x77		/* perf sample id of the one event */
#define ST_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
		 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)

static char *read_text(const char *path)
{
	char *buf = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	if (getdelim(&buf, &cap, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static char *sched_switch_format(void)
{
	const char *d = getenv("KTRACE_FIXTURES");
	char path[4096];

	snprintf(path, sizeof(path),
		 "%s/tracefs/events/sched/sched_switch/format",
		 d && *d ? d : "tests/fixtures");
	return read_text(path);
}

/* The raw data of sched_switch as in its format file (64 bytes). */
struct sw_raw {
	uint16_t common_type;
	uint8_t common_flags, common_preempt_count;
	int32_t common_pid;
	char prev_comm[16];
	int32_t prev_pid, prev_prio;
	int64_t prev_state;
	char next_comm[16];
	int32_t next_pid, next_prio;
};

static struct sw_raw sw(int pid, const char *prev, int prio, long state,
			const char *next, int next_pid)
{
	struct sw_raw r;

	memset(&r, 0, sizeof(r));
	r.common_type = SCHED_SWITCH_ID;
	r.common_pid = pid;
	memcpy(r.prev_comm, prev, strnlen(prev, sizeof(r.prev_comm)));
	r.prev_pid = pid;
	r.prev_prio = prio;
	r.prev_state = state;
	memcpy(r.next_comm, next, strnlen(next, sizeof(r.next_comm)));
	r.next_pid = next_pid;
	r.next_prio = 120;
	return r;
}

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

/* PERF_RECORD_SAMPLE in ktrace's layout: identifier, pid/tid, time, cpu,
 * [callchain], raw. Returns its size (a multiple of 8). */
static size_t mk_sample(unsigned char *buf, uint32_t pid, uint32_t tid,
			uint64_t time, uint32_t cpu, const uint64_t *ips,
			uint64_t nr_ips, const void *raw, uint32_t raw_len)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
				       .misc = PERF_RECORD_MISC_KERNEL };
	uint64_t id = SAMPLE_ID;
	uint32_t zero = 0, raw_size;
	unsigned char *p = buf + sizeof(h);
	size_t size;

	p = put(p, &id, 8);
	p = put(p, &pid, 4);
	p = put(p, &tid, 4);
	p = put(p, &time, 8);
	p = put(p, &cpu, 4);
	p = put(p, &zero, 4);
	if (ips) {
		p = put(p, &nr_ips, 8);
		p = put(p, ips, nr_ips * 8);
	}
	/* raw: u32 size, then the data padded so the record ends on 8 */
	size = (p - buf) + 4 + raw_len;
	size = (size + 7) & ~(size_t)7;
	raw_size = size - (p - buf) - 4;
	p = put(p, &raw_size, 4);
	memset(p, 0, raw_size);
	memcpy(p, raw, raw_len);
	h.size = size;
	memcpy(buf, &h, sizeof(h));
	return size;
}

/* The sample_id trailer of non-sample records: tid, time, cpu, id. */
static unsigned char *trailer(unsigned char *p, uint32_t pid, uint32_t tid,
			      uint64_t time, uint32_t cpu)
{
	uint64_t id = SAMPLE_ID;
	uint32_t zero = 0;

	p = put(p, &pid, 4);
	p = put(p, &tid, 4);
	p = put(p, &time, 8);
	p = put(p, &cpu, 4);
	p = put(p, &zero, 4);
	return put(p, &id, 8);
}

static size_t mk_lost(unsigned char *buf, uint64_t lost, uint64_t time,
		      uint32_t cpu)
{
	struct perf_event_header h = { .type = PERF_RECORD_LOST };
	uint64_t id = SAMPLE_ID;
	unsigned char *p = buf + sizeof(h);

	p = put(p, &id, 8);
	p = put(p, &lost, 8);
	p = trailer(p, 0, 0, time, cpu);
	h.size = p - buf;
	memcpy(buf, &h, sizeof(h));
	return h.size;
}

static size_t mk_comm(unsigned char *buf, uint32_t pid, uint32_t tid,
		      const char *comm, uint64_t time, uint32_t cpu)
{
	struct perf_event_header h = { .type = PERF_RECORD_COMM };
	unsigned char *p = buf + sizeof(h);
	char c[16] = { 0 };

	strncpy(c, comm, 15);
	p = put(p, &pid, 4);
	p = put(p, &tid, 4);
	p = put(p, c, 16);
	p = trailer(p, pid, tid, time, cpu);
	h.size = p - buf;
	memcpy(buf, &h, sizeof(h));
	return h.size;
}

struct file_opts {
	bool callchain;
	bool no_format;		/* leave the FORMATS table out */
	uint64_t extra_st;	/* sample_type bits a writer never sets */
	const char *format;	/* instead of the real sched_switch one */
};

/* Write a recording into a temporary file; returns its path (free it). */
static char *write_file(const struct file_opts *o,
			void (*records)(struct kt_kfw *w))
{
	char *fmt = sched_switch_format(), *path;
	struct kt_kf_attr a = {
		.type = PERF_TYPE_TRACEPOINT, .flags = KT_KF_ATTR_SAMPLE_ID_ALL,
		.config = SCHED_SWITCH_ID, .sample_type = ST_BASE,
		.clockid = 1, .name = "sched:sched_switch",
	};
	struct kt_kfw *w;
	int fd;

	assert_non_null(fmt);
	if (o && o->callchain)
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o)
		a.sample_type |= o->extra_st;
	path = strdup("/tmp/ktrace-unit-rec-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	w = kt_kfw_open(fd, 0);
	assert_non_null(w);
	assert_int_equal(kt_kfw_meta(w, "kernel", "6.18.0-test"), 0);
	assert_int_equal(kt_kfw_meta(w, "command", "unit"), 0);
	assert_int_equal(kt_kfw_attr(w, &a), 0);
	assert_int_equal(kt_kfw_id(w, SAMPLE_ID, 0, -1), 0);
	if (!(o && o->no_format))
		assert_int_equal(kt_kfw_format(w, SCHED_SWITCH_ID, "sched",
					       "sched_switch",
					       o && o->format ? o->format : fmt),
				 0);
	/* a task that existed before the recording */
	assert_int_equal(kt_kfw_comm(w, 11, 11, "worker"), 0);
	records(w);
	assert_int_equal(kt_kfw_close(w, NULL), 0);
	close(fd);
	free(fmt);
	return path;
}

static void put_rec(struct kt_kfw *w, const unsigned char *buf)
{
	assert_int_equal(kt_kfw_record(w, (const void *)buf), 0);
}

/* The main scenario: two samples, a comm change, a lost record. */
static void basic_records(struct kt_kfw *w)
{
	unsigned char buf[512];
	struct sw_raw r;

	r = sw(11, "worker", -1, 1, "swapper/1", 0);
	mk_sample(buf, 11, 11, 1234000000567ull, 1, NULL, 0, &r, sizeof(r));
	put_rec(w, buf);
	mk_lost(buf, 42, 1234000001000ull, 1);
	put_rec(w, buf);
	mk_comm(buf, 11, 12, "late\"one", 1234000002000ull, 0);
	put_rec(w, buf);
	r = sw(12, "a\"b\\c\x01", 120, 0, "worker", 11);
	mk_sample(buf, 11, 12, 1235000000000ull, 0, NULL, 0, &r, sizeof(r));
	put_rec(w, buf);
}

struct collect {
	struct ktrace_record *r;
	bool json;
	int n;
	char *lines[16];
	int types[16];
};

static int collect(void *ctx, const struct ktrace_sample *s)
{
	struct collect *c = ctx;
	size_t len = 0;
	const char *l = ktrace_record_format(c->r, s, c->json, &len);

	assert_int_equal(strlen(l), len);
	if (c->n < 16) {
		c->types[c->n] = s->type;
		c->lines[c->n++] = strdup(l);
	}
	return 0;
}

static void collect_free(struct collect *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->lines[i]);
	c->n = 0;
}

static void test_text_format(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct collect c = { 0 };
	struct ktrace_record_stats st;
	char *path = write_file(NULL, basic_records);
	long n;

	(void)state;
	c.r = ktrace_record_load(path, &err);
	assert_non_null(c.r);
	assert_string_equal(ktrace_record_meta(c.r, "kernel"), "6.18.0-test");
	assert_string_equal(ktrace_record_meta(c.r, "command"), "unit");
	assert_null(ktrace_record_meta(c.r, "nosuch"));
	assert_int_equal(ktrace_record_nr_events(c.r), 1);
	assert_string_equal(ktrace_record_event_name(c.r, 0),
			    "sched:sched_switch");
	n = ktrace_record_replay(c.r, collect, &c, NULL, NULL);
	assert_int_equal(n, 4);		/* every record of the file */
	assert_int_equal(c.n, 3);	/* the COMM record is not handed out */
	/* comm from the COMMS table; signed fields stay negative */
	assert_string_equal(c.lines[0],
		"worker                11 [001] 1234.000000567: sched:sched_switch: "
		"prev_comm=worker prev_pid=11 prev_prio=-1 prev_state=S ==> "
		"next_comm=swapper/1 next_pid=0 next_prio=120");
	assert_int_equal(c.types[1], KTRACE_SAMPLE_LOST);
	assert_string_equal(c.lines[1], "[lost 42 records on cpu 1]");
	/* a thread (pid != tid) whose comm came from a COMM record */
	assert_string_equal(c.lines[2],
		"late\"one              11/12 [000] 1235.000000000: sched:sched_switch: "
		"prev_comm=a\"b\\\\c\\x01 prev_pid=12 prev_prio=120 prev_state=R ==> "
		"next_comm=worker next_pid=11 next_prio=120");
	ktrace_record_stats(c.r, &st);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.lost, 42);
	assert_true(st.nr_cpus > 1);
	assert_int_equal(st.lost_per_cpu[1], 42);
	assert_int_equal(st.lost_per_cpu[0], 0);
	assert_int_equal(st.per_event[0], 2);
	collect_free(&c);
	ktrace_record_free(c.r);
	ktrace_err_clear(&err);
	unlink(path);
	free(path);
}

static void test_json_format(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct collect c = { .json = true };
	char *path = write_file(NULL, basic_records);

	(void)state;
	c.r = ktrace_record_load(path, &err);
	assert_non_null(c.r);
	assert_int_equal(ktrace_record_replay(c.r, collect, &c, NULL, NULL),
			 4);
	assert_int_equal(c.n, 3);
	/* numbers are numbers (signed ones negative), strings are strings */
	assert_string_equal(c.lines[0],
		"{\"time\": 1234000000567, \"cpu\": 1, \"pid\": 11, \"tid\": 11, "
		"\"comm\": \"worker\", \"event\": \"sched:sched_switch\", "
		"\"fields\": {\"prev_comm\": \"worker\", \"prev_pid\": 11, "
		"\"prev_prio\": -1, \"prev_state\": 1, \"next_comm\": \"swapper/1\", "
		"\"next_pid\": 0, \"next_prio\": 120}}");
	assert_string_equal(c.lines[1],
		"{\"time\": 1234000001000, \"cpu\": 1, \"lost\": 42}");
	/* escaping of quotes, backslashes and control characters */
	assert_string_equal(c.lines[2],
		"{\"time\": 1235000000000, \"cpu\": 0, \"pid\": 11, \"tid\": 12, "
		"\"comm\": \"late\\\"one\", \"event\": \"sched:sched_switch\", "
		"\"fields\": {\"prev_comm\": \"a\\\"b\\\\c\\u0001\", \"prev_pid\": 12, "
		"\"prev_prio\": 120, \"prev_state\": 0, \"next_comm\": \"worker\", "
		"\"next_pid\": 11, \"next_prio\": 120}}");
	collect_free(&c);
	ktrace_record_free(c.r);
	ktrace_err_clear(&err);
	unlink(path);
	free(path);
}

/* A record of an id the file does not map, a truncated sample: skipped,
 * never a crash. */
static void odd_records(struct kt_kfw *w)
{
	unsigned char buf[512];
	struct sw_raw r = sw(11, "worker", 120, 0, "x", 0);
	size_t n;

	n = mk_sample(buf, 11, 11, 1000, 0, NULL, 0, &r, sizeof(r));
	memset(buf + 8, 0x99, 8);	/* unknown sample id */
	put_rec(w, buf);
	n = mk_sample(buf, 11, 11, 2000, 0, NULL, 0, &r, sizeof(r));
	((struct perf_event_header *)buf)->size = 40;	/* cut in the raw size */
	(void)n;
	put_rec(w, buf);
	n = mk_sample(buf, 11, 11, 3000, 0, NULL, 0, &r, sizeof(r));
	put_rec(w, buf);
}

static void test_unknown_and_short_samples(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct collect c = { 0 };
	char *path = write_file(NULL, odd_records);

	(void)state;
	c.r = ktrace_record_load(path, &err);
	assert_non_null(c.r);
	assert_int_equal(ktrace_record_replay(c.r, collect, &c, NULL, NULL),
			 3);
	assert_int_equal(c.n, 1);
	assert_non_null(strstr(c.lines[0], " 0.000003000: sched:sched_switch: "));
	collect_free(&c);
	ktrace_record_free(c.r);
	ktrace_err_clear(&err);
	unlink(path);
	free(path);
}

/* Call chains: kernel frames from the file's KALLSYMS, user frames of a
 * binary that cannot be read as "[unknown] (path+offset)". */
static void stack_records(struct kt_kfw *w)
{
	struct kt_kf_mmap m = {
		.pid = 11, .tid = 11, .start = 0x400000, .len = 0x2000,
		.pgoff = 0x1000, .prot = 4,
		.filename = "/nonexistent/ktrace-unit-bin",
	};
	const uint64_t ips[] = {
		(uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000010ull,
		0xffffffff81000104ull, 0xffffffff81000208ull,
		(uint64_t)PERF_CONTEXT_USER, 0x400123ull, 0x500010ull,
		0x7000ull,
	};
	unsigned char buf[512];
	struct sw_raw r = sw(11, "worker", 120, 0, "x", 0);

	assert_int_equal(kt_kfw_ksym(w, 0xffffffff81000000ull, 't', "_stext"), 0);
	/* names and paths a hostile file or program gives */
	assert_int_equal(kt_kfw_ksym(w, 0xffffffff81000100ull, 't',
				     "ev\nil\x1b[2J"), 0);
	assert_int_equal(kt_kfw_ksym(w, 0xffffffff81000200ull, 't',
				     "schedule"), 0);
	assert_int_equal(kt_kfw_mmap(w, &m), 0);
	assert_int_equal(kt_kfw_uframe(w, m.filename, 0x1123,
				       "inner (inlined)\n"
				       "outer+0x23 (/nonexistent/ktrace-unit-bin)"), 0);
	m.start = 0x500000;
	m.filename = "/nonexistent/a\nb\x1b" "c\\d";
	assert_int_equal(kt_kfw_mmap(w, &m), 0);
	mk_sample(buf, 11, 11, 5000, 0, ips, 8, &r, sizeof(r));
	put_rec(w, buf);
}

/* Stacks as text (every name and path escaped) and as JSON frames of
 * typed members. */
static void test_callchain(void **state)
{
	struct file_opts o = { .callchain = true };
	struct ktrace_err err = { .pos = -1 };
	struct collect c = { 0 };
	char *path = write_file(&o, stack_records);

	(void)state;
	c.r = ktrace_record_load(path, &err);
	assert_non_null(c.r);
	assert_int_equal(ktrace_record_replay(c.r, collect, &c, NULL, NULL),
			 1);
	c.json = true;
	assert_int_equal(ktrace_record_replay(c.r, collect, &c, NULL, NULL),
			 1);
	assert_int_equal(c.n, 2);
	assert_non_null(strstr(c.lines[0],
		"next_prio=120\n"
		"\tffffffff81000010 _stext+0x10 ([kernel.kallsyms])\n"
		"\tffffffff81000104 ev\\nil\\x1b[2J+0x4 ([kernel.kallsyms])\n"
		"\tffffffff81000208 schedule+0x8 ([kernel.kallsyms])\n"
		"\t          400123 inner (inlined)\n"
		"\t          400123 outer+0x23 (/nonexistent/ktrace-unit-bin)\n"
		"\t          500010 [unknown] (/nonexistent/a\\nb\\x1bc\\\\d)\n"
		"\t            7000 [unknown] ([unknown])"));
	assert_non_null(strstr(c.lines[1],
		"\"stack\": [{\"addr\": 18446744071578845200, \"sym\": \"_stext\", \"offset\": 16, \"dso\": \"[kernel.kallsyms]\", \"inlined\": false}, "
		"{\"addr\": 18446744071578845444, \"sym\": \"ev\\nil\\u001b[2J\", \"offset\": 4, \"dso\": \"[kernel.kallsyms]\", \"inlined\": false}, "
		"{\"addr\": 18446744071578845704, \"sym\": \"schedule\", \"offset\": 8, \"dso\": \"[kernel.kallsyms]\", \"inlined\": false}, "
		"{\"addr\": 4194595, \"sym\": \"inner\", \"offset\": null, \"dso\": \"/nonexistent/ktrace-unit-bin\", \"inlined\": true}, "
		"{\"addr\": 4194595, \"sym\": \"outer\", \"offset\": 35, \"dso\": \"/nonexistent/ktrace-unit-bin\", \"inlined\": false}, "
		"{\"addr\": 5242896, \"sym\": \"[unknown]\", \"offset\": null, \"dso\": \"/nonexistent/a\\\\nb\\\\x1bc\\\\\\\\d\", \"inlined\": false}, "
		"{\"addr\": 28672, \"sym\": \"[unknown]\", \"offset\": null, \"dso\": \"[unknown]\", \"inlined\": false}]}"));
	collect_free(&c);
	ktrace_record_free(c.r);
	ktrace_err_clear(&err);
	unlink(path);
	free(path);
}

/* The META a recording of this ktrace adds for report --header. */
static void how_records(struct kt_kfw *w)
{
	assert_int_equal(kt_kfw_meta(w, "host", "box"), 0);
	assert_int_equal(kt_kfw_meta(w, "cpus-online", "4"), 0);
	assert_int_equal(kt_kfw_meta(w, "cpus", "0,2"), 0);
	assert_int_equal(kt_kfw_meta(w, "target", "system-wide"), 0);
	assert_int_equal(kt_kfw_meta(w, "call-graph", "dwarf 4096"), 0);
	assert_int_equal(kt_kfw_meta(w, "sampling", "each\n"), 0);
	assert_int_equal(kt_kfw_meta(w, "clock", "1000000000000000000 1234000000000"), 0);
	basic_records(w);
}

/* report --header: what the file says, and what its records span; a file
 * from before the new META prints what it has. */
static void test_report_header(void **state)
{
	char *old = write_file(NULL, basic_records);
	char *now = write_file(NULL, how_records);
	struct cli_result r;

	(void)state;
	r = run_cli("report", "-i", old, "--header", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
		"# kernel: 6.18.0-test\n"
		"# command: unit\n"
		"# event: sched:sched_switch\n"
		"# records: 2, lost 42\n"
		"# time: 1234.000000567 to 1235.000000000 (CLOCK_MONOTONIC), duration 0.999 s\n");
	cli_result_free(&r);
	r = run_cli("report", "-i", now, "--header", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
		"# host: box\n"
		"# kernel: 6.18.0-test\n"
		"# CPUs: 4 online, recorded on 0,2\n"
		"# command: unit\n"
		"# target: system-wide\n"
		"# event: sched:sched_switch, every event\n"
		"# call-graph: dwarf, 4096 bytes of user stack a sample\n"
		"# records: 2, lost 42\n"
		"# captured on: 2001-09-09 01:46:40 UTC\n"
		"# time: 1234.000000567 to 1235.000000000 (CLOCK_MONOTONIC), duration 0.999 s\n");
	cli_result_free(&r);
	r = run_cli("--json", "report", "-i", now, "--header", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
		"{\"host\": \"box\", \"kernel\": \"6.18.0-test\", \"ktrace\": null, "
		"\"cpus_online\": 4, \"cpus\": \"0,2\", \"command\": \"unit\", "
		"\"target\": \"system-wide\", \"events\": [{\"name\": \"sched:sched_switch\", "
		"\"sampling\": \"each\"}], \"call_graph\": {\"mode\": \"dwarf\", "
		"\"stack_bytes\": 4096}, \"records\": 2, \"lost\": 42, "
		"\"first_ns\": 1234000000567, \"last_ns\": 1235000000000, "
		"\"duration_ns\": 999999433, \"captured_ns\": 1000000000000000567}\n");
	cli_result_free(&r);
	unlink(old);
	unlink(now);
	free(old);
	free(now);
}

/*
 * Crafted files (found in review): a sample layout the writer never makes
 * would let fields be read past the record; a field whose offset wraps
 * around 32 bits would be read 4 GiB away; a map naming a FIFO would block
 * report forever. The first two are refused at load, the third is skipped.
 */
static void test_crafted_files_refused(void **state)
{
	char *fmt = sched_switch_format(), *bad, *at, *path;
	struct file_opts o = { .extra_st = PERF_SAMPLE_ADDR | PERF_SAMPLE_READ };
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_record *r;

	(void)state;
	path = write_file(&o, basic_records);
	r = ktrace_record_load(path, &err);
	assert_null(r);
	assert_int_equal(errno, EBADMSG);
	ktrace_err_clear(&err);
	unlink(path);
	free(path);

	/* prev_pid at offset 2^32 - 4 */
	assert_non_null(fmt);
	at = strstr(fmt, "prev_pid;");
	assert_non_null(at);
	at = strstr(at, "offset:");
	assert_non_null(at);
	assert_true(asprintf(&bad, "%.*soffset:4294967292;%s", (int)(at - fmt),
			     fmt, strchr(at, ';') + 1) > 0);
	o = (struct file_opts){ .format = bad };
	path = write_file(&o, basic_records);
	r = ktrace_record_load(path, &err);
	assert_null(r);
	assert_int_equal(errno, EBADMSG);
	ktrace_err_clear(&err);
	unlink(path);
	free(path);
	free(bad);
	free(fmt);
}

/*
 * Format text that crashes libtraceevent (NULL dereference for an unknown
 * field in __print_symbolic(), SIGFPE for a division by zero folded while
 * parsing or by a record's zero field while printing, junk in the field
 * lines) never reaches it: field lines outside the grammar refuse the
 * file, with the reason; a print fmt outside it keeps the event, its
 * records say their print fmt is not decoded; a division by a field is
 * decoded except in a record where the field is 0, which says so.
 */
static char *load_lines(const char *fmt_head, const char *pf, char **msg)
{
	struct ktrace_err err = { .pos = -1 };
	struct collect c = { 0 };
	struct file_opts o = { 0 };
	char *text, *path, *all = NULL;
	size_t cap = 0;
	FILE *m;

	assert_true(asprintf(&text, "%sprint fmt: %s\n", fmt_head, pf) > 0);
	o.format = text;
	path = write_file(&o, basic_records);
	c.r = ktrace_record_load(path, &err);
	*msg = err.msg ? strdup(err.msg) : NULL;
	if (c.r) {
		assert_true(ktrace_record_replay(c.r, collect, &c, NULL, NULL) >= 0);
		m = open_memstream(&all, &cap);
		for (int i = 0; i < c.n; i++)
			if (c.types[i] == KTRACE_SAMPLE_EVENT)
				fprintf(m, "%s\n", c.lines[i]);
		fclose(m);
	}
	collect_free(&c);
	ktrace_record_free(c.r);
	ktrace_err_clear(&err);
	unlink(path);
	free(path);
	free(text);
	return all;
}

static void test_crafted_print_fmts(void **state)
{
	static const char *const undecoded[] = {
		"\"\",__print_symbolic(REC->v",
		"\"\", __print_symbolic(REC->nosuch, {1, \"a\"})",
		"\"%d\",__print_flags(REC->v",
		"\"%d\", 1 / 0",
		"\"%d\", 5 % 0",
		"\"%d\", (1/0)",
		"\"%d\", REC->prev_pid / (8 - 8)",
		"\"%d\", REC->prev_pid / (REC->next_pid + 0)",
		"\"%s\", \"abc",
		"\"%d\", (REC->prev_pid",
		"\"%s\", __get_str(nosuch)",
		"\"%s\", REC->prev_comm ?: \"none\"",
		"\"%d\", nosuch->prev_pid",
	};
	char *fmt = sched_switch_format(), *cut, *lines, *msg, *bad;

	(void)state;
	assert_non_null(fmt);
	cut = strstr(fmt, "print fmt: ");
	assert_non_null(cut);
	*cut = '\0';
	for (size_t i = 0; i < sizeof(undecoded) / sizeof(*undecoded); i++) {
		lines = load_lines(fmt, undecoded[i], &msg);
		if (!lines || !strstr(lines, "sched:sched_switch: [print fmt not decoded: "))
			fail_msg("%s: %s", undecoded[i], lines ? lines : msg);
		free(lines);
		free(msg);
	}
	/* a division by a field: the record where it is 0 says so */
	lines = load_lines(fmt, "\"d=%d\", REC->prev_pid / REC->next_pid", &msg);
	assert_non_null(lines);
	assert_non_null(strstr(lines, "[not decoded: its print fmt divides by next_pid, which is 0 here]"));
	assert_non_null(strstr(lines, "sched:sched_switch: d=1\n"));
	free(lines);
	free(msg);
	/* what kernels write decodes */
	lines = load_lines(fmt, "\"%d %d\", REC->prev_pid / sizeof(u64), REC->next_pid % (8)", &msg);
	assert_non_null(lines);
	assert_null(strstr(lines, "not decoded"));
	free(lines);
	free(msg);
	/* junk in a field line: the file is refused, with the reason */
	cut = strstr(fmt, "char next_comm[16]");
	assert_non_null(cut);
	assert_true(asprintf(&bad, "%.*schar next_comm[1x6]%s", (int)(cut - fmt),
			     fmt, cut + strlen("char next_comm[16]")) > 0);
	lines = load_lines(bad, "\"%d\", REC->prev_pid", &msg);
	assert_null(lines);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "is refused: its field lines are not what kernels write"));
	free(msg);
	free(bad);
	free(fmt);
}

static void fifo_records(struct kt_kfw *w)
{
	const struct kt_kf_mmap m = {
		.pid = 11, .tid = 11, .start = 0x400000, .len = 0x2000,
		.prot = 4, .filename = "/tmp/ktrace-unit-fifo",
	};
	const uint64_t ips[] = { (uint64_t)PERF_CONTEXT_USER, 0x400123ull };
	unsigned char buf[512];
	struct sw_raw r = sw(11, "worker", 120, 0, "x", 0);

	assert_int_equal(kt_kfw_mmap(w, &m), 0);
	mk_sample(buf, 11, 11, 5000, 0, ips, 2, &r, sizeof(r));
	put_rec(w, buf);
}

static void test_fifo_map_does_not_block(void **state)
{
	struct file_opts o = { .callchain = true };
	struct ktrace_err err = { .pos = -1 };
	struct collect c = { 0 };
	char *path;

	(void)state;
	unlink("/tmp/ktrace-unit-fifo");
	assert_int_equal(mkfifo("/tmp/ktrace-unit-fifo", 0600), 0);
	path = write_file(&o, fifo_records);
	c.r = ktrace_record_load(path, &err);
	assert_non_null(c.r);
	alarm(10);	/* a blocking open would hang here */
	assert_int_equal(ktrace_record_replay(c.r, collect, &c, NULL, NULL),
			 1);
	alarm(0);
	assert_non_null(strstr(c.lines[0], "[unknown] (/tmp/ktrace-unit-fifo)"));
	collect_free(&c);
	ktrace_record_free(c.r);
	unlink("/tmp/ktrace-unit-fifo");
	unlink(path);
	free(path);
}

/* ------------------------------------------------------ damaged files */

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *b;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	b = malloc(st.st_size);
	assert_int_equal(read(fd, b, st.st_size), st.st_size);
	close(fd);
	*len = st.st_size;
	return b;
}

static void spit(const char *path, const unsigned char *b, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, len), (ssize_t)len);
	close(fd);
}

/* Whether the last file load_replay() read was cut off. */
static bool replay_truncated;

/* Load path; NULL-result errno and message, or the replay's result. */
static long load_replay(const char *path, int *load_errno, char **msg)
{
	struct ktrace_err err = { .pos = -1 };
	struct collect c = { 0 };
	long n;

	*load_errno = 0;
	*msg = NULL;
	c.r = ktrace_record_load(path, &err);
	if (!c.r) {
		*load_errno = errno;
		*msg = err.msg ? strdup(err.msg) : NULL;
		ktrace_err_clear(&err);
		return 0;
	}
	n = ktrace_record_replay(c.r, collect, &c, NULL, NULL);
	replay_truncated = ktrace_record_truncated(c.r);
	collect_free(&c);
	ktrace_record_free(c.r);
	ktrace_err_clear(&err);
	return n;
}

static void test_truncated_rejected(void **state)
{
	char *path = write_file(NULL, basic_records), *msg;
	char bad[] = "/tmp/ktrace-unit-bad-XXXXXX";
	unsigned char *b;
	size_t len;
	int e, fd = mkstemp(bad);

	(void)state;
	close(fd);
	b = slurp(path, &len);
	/* every cut but the full length fails to load, or loads as cut
	 * off with the records before the cut: fewer than 4, more as more
	 * is kept */
	long last = 0;
	for (size_t cut = 0; cut < len; cut += (cut < 64 ? 1 : 7)) {
		long n;

		spit(bad, b, cut);
		n = load_replay(bad, &e, &msg);
		if (e) {
			assert_true(e == EINVAL || e == EBADMSG);
			assert_non_null(msg);
			assert_non_null(strstr(msg, bad));
		} else {
			assert_true(replay_truncated);
			assert_in_range(n, last, 4);
			last = n;
		}
		free(msg);
	}
	spit(bad, b, len);
	assert_int_equal(load_replay(bad, &e, &msg), 4);
	assert_int_equal(e, 0);
	free(msg);
	free(b);
	unlink(bad);
	unlink(path);
	free(path);
}

static void test_corrupted_rejected(void **state)
{
	char *path = write_file(NULL, basic_records), *msg;
	char bad[] = "/tmp/ktrace-unit-bad-XXXXXX";
	unsigned char *b;
	size_t len;
	int e, fd = mkstemp(bad);

	(void)state;
	close(fd);
	b = slurp(path, &len);
	/* any changed byte is caught by a checksum: at load or at replay */
	for (size_t i = 0; i < len; i++) {
		long n;

		b[i] ^= 0x20;
		spit(bad, b, len);
		n = load_replay(bad, &e, &msg);
		/* a changed section size may read as a cut: then only
		 * what comes before it, and said to be cut off */
		if (!e && n != -EBADMSG && !(replay_truncated && n >= 0 && n <= 4))
			fail_msg("byte %zu changed: replay gave %ld", i, n);
		if (e)
			assert_true(e == EINVAL || e == EBADMSG);
		free(msg);
		b[i] ^= 0x20;
	}
	/* the header's own errors: not a recording at all */
	memcpy(b, "NOTKTRAC", 8);
	spit(bad, b, len);
	load_replay(bad, &e, &msg);
	assert_int_equal(e, EINVAL);
	assert_non_null(strstr(msg, "not a ktrace recording"));
	free(msg);
	/* missing file */
	unlink(bad);
	load_replay(bad, &e, &msg);
	assert_int_equal(e, ENOENT);
	assert_non_null(msg);
	free(msg);
	free(b);
	unlink(path);
	free(path);
}

static void test_missing_format_rejected(void **state)
{
	struct file_opts o = { .no_format = true };
	char *path = write_file(&o, basic_records), *msg;
	int e;

	(void)state;
	load_replay(path, &e, &msg);
	assert_int_equal(e, EBADMSG);
	assert_non_null(strstr(msg, "no format for event sched:sched_switch"));
	free(msg);
	unlink(path);
	free(path);
}

struct raw_seen {
	uint32_t types[8];
	int n;
};

static int raw_fn(void *ctx, uint32_t type, uint16_t misc, uint32_t size,
		  uint64_t time, const void *rec)
{
	struct raw_seen *seen = ctx;

	(void)misc;
	assert_int_equal(size, ((const struct perf_event_header *)rec)->size);
	assert_true(size % 8 == 0);
	assert_true(time >= 1234000000000ull);
	if (seen->n < 8)
		seen->types[seen->n++] = type;
	return 0;
}

static void test_replay_raw(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_record *r;
	char *path = write_file(NULL, basic_records);
	struct raw_seen seen = { .n = 0 };

	(void)state;
	r = ktrace_record_load(path, &err);
	assert_non_null(r);
	assert_int_equal(ktrace_record_replay(r, NULL, NULL, raw_fn, &seen),
			 4);
	assert_int_equal(seen.n, 4);
	assert_int_equal(seen.types[0], PERF_RECORD_SAMPLE);
	assert_int_equal(seen.types[1], PERF_RECORD_LOST);
	assert_int_equal(seen.types[2], PERF_RECORD_COMM);
	assert_int_equal(seen.types[3], PERF_RECORD_SAMPLE);
	ktrace_record_free(r);
	ktrace_err_clear(&err);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_format),
		cmocka_unit_test(test_json_format),
		cmocka_unit_test(test_unknown_and_short_samples),
		cmocka_unit_test(test_callchain),
		cmocka_unit_test(test_report_header),
		cmocka_unit_test(test_truncated_rejected),
		cmocka_unit_test(test_corrupted_rejected),
		cmocka_unit_test(test_missing_format_rejected),
		cmocka_unit_test(test_replay_raw),
		cmocka_unit_test(test_crafted_files_refused),
		cmocka_unit_test(test_crafted_print_fmts),
		cmocka_unit_test(test_fifo_map_does_not_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
