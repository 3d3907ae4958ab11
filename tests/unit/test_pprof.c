// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for report --pprof (cmd/pprof.c): a crafted recording (kfile
 * writer: kernel symbols, a mapping, user frames with an inlined function,
 * cpu-clock and page-faults samples with call chains) is written as a
 * pprof profile, which is read back (gunzip, protobuf-c unpack) and
 * checked: the string table, the sample types and values, the links from
 * samples to locations to mappings and functions.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "ktrace_cmd.h"
#include "kfile/kfile.h"
#include "pprof.pb-c.h"

typedef Perftools__Profiles__Profile pprof_t;

#define ID_CLOCK 0x71		/* perf sample ids of the two events */
#define ID_FAULTS 0x72
#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
	    PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)
#define BIN "/nonexistent/ktrace-unit-bin"

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

/* A sample in ktrace's layout for sample type st: id, ip, pid/tid, time,
 * cpu, period, call chain, raw (raw[rlen], padded). */
static void sample_raw(struct kt_kfw *w, uint64_t st, uint64_t id,
		       uint32_t pid, uint64_t time, uint64_t period,
		       const uint64_t *ips, uint64_t nr, const void *raw,
		       uint32_t rlen)
{
	unsigned char buf[512], *p = buf + sizeof(struct perf_event_header);
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };
	uint64_t ip = nr > 1 ? ips[1] : 0;
	uint32_t cpu[2] = { 0, 0 }, size, given = rlen;

	p = put(p, &id, 8);
	if (st & PERF_SAMPLE_IP)
		p = put(p, &ip, 8);
	p = put(p, &pid, 4);
	p = put(p, &pid, 4);
	p = put(p, &time, 8);
	p = put(p, cpu, 8);
	if (st & PERF_SAMPLE_PERIOD)
		p = put(p, &period, 8);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		p = put(p, &nr, 8);
		p = put(p, ips, nr * 8);
	}
	size = ((p - buf) + 4 + rlen + 7) & ~7u;
	rlen = size - (p - buf) - 4;
	p = put(p, &rlen, 4);
	memset(p, 0, rlen);
	memcpy(p, raw, given);	/* the raw data as given, then padding */
	h.size = size;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(kt_kfw_record(w, (const void *)buf), 0);
}

static void sample(struct kt_kfw *w, uint64_t id, uint32_t pid,
		   uint64_t time, uint64_t period, const uint64_t *ips,
		   uint64_t nr)
{
	sample_raw(w, ST, id, pid, time, period, ips, nr, "", 0);
}

static const uint64_t stack[] = {
	(uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000208ull,
	0xffffffff81000010ull, (uint64_t)PERF_CONTEXT_USER,
	0x400123ull,		/* inl_fn inlined into outer_fn */
	0x400456ull,		/* main */
	0x400800ull,		/* no symbol: an address only */
};

/* The recording: two events, a mapping, frames, five samples. */
static char *write_rec(void)
{
	struct kt_kf_attr a = {
		.type = PERF_TYPE_SOFTWARE, .flags = KT_KF_ATTR_SAMPLE_ID_ALL,
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_type = ST,
		.clockid = 1, .name = "cpu-clock",
	};
	const struct kt_kf_mmap m = {
		.pid = 11, .tid = 11, .start = 0x400000, .len = 0x2000,
		.pgoff = 0x1000, .prot = 4, .filename = BIN,
	};
	char *path = strdup("/tmp/ktrace-unit-pprof-XXXXXX");
	int fd = mkstemp(path);
	struct kt_kfw *w = kt_kfw_open(fd, 0);

	assert_non_null(w);
	assert_int_equal(kt_kfw_meta(w, "command", "unit"), 0);
	/* REALTIME - MONOTONIC = 1e18 - 1e9 */
	assert_int_equal(kt_kfw_meta(w, "clock", "1000000000000000000 1000000000"), 0);
	assert_int_equal(kt_kfw_attr(w, &a), 0);
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.name = "page-faults";
	assert_int_equal(kt_kfw_attr(w, &a), 0);
	assert_int_equal(kt_kfw_id(w, ID_CLOCK, 0, -1), 0);
	assert_int_equal(kt_kfw_id(w, ID_FAULTS, 1, -1), 0);
	assert_int_equal(kt_kfw_ksym(w, 0xffffffff81000000ull, 't', "_stext"), 0);
	assert_int_equal(kt_kfw_ksym(w, 0xffffffff81000200ull, 't', "schedule"), 0);
	assert_int_equal(kt_kfw_comm(w, 11, 11, "worker"), 0);
	assert_int_equal(kt_kfw_comm(w, 12, 12, "other"), 0);
	assert_int_equal(kt_kfw_mmap(w, &m), 0);
	assert_int_equal(kt_kfw_uframe(w, BIN, 0x1123,
				       "inl_fn+0x3 (inlined)\nouter_fn+0x23 (" BIN ")"), 0);
	assert_int_equal(kt_kfw_uframe(w, BIN, 0x1456, "main+0x6 (" BIN ")"), 0);
	/* the source of the first frame's two functions; a bad one ignored */
	assert_int_equal(kt_kfw_usrc(w, BIN, 0x1123,
				     "12 10 - inl.h\n40 33 _Z8outer_fnv src/a b.c"), 0);
	assert_int_equal(kt_kfw_usrc(w, BIN, 0x1456, "7 5 main\x01 m.c"), 0);
	assert_int_equal(kt_kfw_build_id(w, BIN, "00ab12"), 0);
	/* pid 11 twice (one sample), pid 12 (kernel frames only) */
	sample(w, ID_CLOCK, 11, 2000000000ull, 1000000, stack, 7);
	sample(w, ID_CLOCK, 11, 2001000000ull, 1500000, stack, 7);
	sample(w, ID_CLOCK, 12, 2002000000ull, 1000000, stack, 3);
	sample(w, ID_FAULTS, 11, 2004000000ull, 7, stack + 3, 4);
	assert_int_equal(kt_kfw_close(w, NULL), 0);
	close(fd);
	return path;
}

/* The profile at path, unpacked (free with ..._free_unpacked). */
static pprof_t *read_profile(const char *path)
{
	static unsigned char buf[1 << 20];
	gzFile gz = gzopen(path, "rb");
	int n;

	assert_non_null(gz);
	n = gzread(gz, buf, sizeof(buf));
	assert_true(n > 0 && n < (int)sizeof(buf));
	gzclose(gz);
	return perftools__profiles__profile__unpack(NULL, n, buf);
}

static const char *str(const pprof_t *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

static const Perftools__Profiles__Location *loc(const pprof_t *p,
						 uint64_t id)
{
	for (size_t i = 0; i < p->n_location; i++)
		if (p->location[i]->id == id)
			return p->location[i];
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

static const char *fname(const pprof_t *p, uint64_t id)
{
	for (size_t i = 0; i < p->n_function; i++)
		if (p->function[i]->id == id)
			return str(p, p->function[i]->name);
	fail_msg("no function %llu", (unsigned long long)id);
	return NULL;
}

static const Perftools__Profiles__Mapping *map(const pprof_t *p, uint64_t id)
{
	for (size_t i = 0; i < p->n_mapping; i++)
		if (p->mapping[i]->id == id)
			return p->mapping[i];
	fail_msg("no mapping %llu", (unsigned long long)id);
	return NULL;
}

/* The function of line ln: its system name, file, start; ln's line. */
static void check_src(const pprof_t *p, const Perftools__Profiles__Line *ln,
		      const char *sys, const char *file, int line, int start)
{
	for (size_t i = 0; i < p->n_function; i++) {
		const Perftools__Profiles__Function *f = p->function[i];

		if (f->id != ln->function_id)
			continue;
		assert_string_equal(str(p, f->system_name), sys);
		assert_string_equal(str(p, f->filename), file);
		assert_int_equal(f->start_line, start);
		assert_int_equal(ln->line, line);
		return;
	}
	fail_msg("no function %llu", (unsigned long long)ln->function_id);
}

/* The sample of pid with value v in column col. */
static const Perftools__Profiles__Sample *find_sample(const pprof_t *p,
						      int64_t pid, int col)
{
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		assert_int_equal(s->n_value, p->n_sample_type);
		assert_int_equal(s->n_label, 2);
		if (s->label[1]->num == pid && s->value[col])
			return s;
	}
	fail_msg("no sample of pid %lld", (long long)pid);
	return NULL;
}

static void check_types(const pprof_t *p)
{
	static const char *const want[][2] = {
		{ "samples:cpu-clock", "count" },
		{ "cpu:cpu-clock", "nanoseconds" },
		{ "samples:page-faults", "count" },
		{ "events:page-faults", "count" },
	};

	assert_string_equal(str(p, 0), "");
	assert_int_equal(p->n_sample_type, 4);
	for (int i = 0; i < 4; i++) {
		assert_string_equal(str(p, p->sample_type[i]->type), want[i][0]);
		assert_string_equal(str(p, p->sample_type[i]->unit), want[i][1]);
	}
	assert_string_equal(str(p, p->period_type->type), "cpu");
	assert_string_equal(str(p, p->period_type->unit), "nanoseconds");
	assert_int_equal(p->period, 3500000 / 3);
	assert_string_equal(str(p, p->default_sample_type), "cpu:cpu-clock");
	assert_int_equal(p->time_nanos, 1000000000000000000ll - 1000000000 +
			 2000000000ll);
	assert_int_equal(p->duration_nanos, 4000000);
}

/* pid 11's cpu-clock stack: kernel, inlined + caller, main, an address. */
static void check_stack(const pprof_t *p)
{
	const Perftools__Profiles__Sample *s = find_sample(p, 11, 0);
	const Perftools__Profiles__Location *l;
	const Perftools__Profiles__Mapping *m;

	assert_int_equal(s->value[0], 2);
	assert_int_equal(s->value[1], 2500000);
	assert_int_equal(s->value[2], 0);
	assert_string_equal(str(p, s->label[0]->key), "comm");
	assert_string_equal(str(p, s->label[0]->str), "worker");
	assert_string_equal(str(p, s->label[1]->key), "pid");
	assert_int_equal(s->n_location_id, 5);
	l = loc(p, s->location_id[0]);
	assert_int_equal(l->address, 0xffffffff81000208ull);
	assert_int_equal(l->n_line, 1);
	assert_string_equal(fname(p, l->line[0]->function_id), "schedule");
	m = map(p, l->mapping_id);
	assert_string_equal(str(p, m->filename), "[kernel.kallsyms]");
	assert_int_equal(m->memory_start, 0xffffffff81000010ull);
	assert_int_equal(m->memory_limit, 0xffffffff81000209ull);
	l = loc(p, s->location_id[2]);
	assert_int_equal(l->address, 0x400123);
	assert_int_equal(l->n_line, 2);	/* innermost first */
	assert_string_equal(fname(p, l->line[0]->function_id), "inl_fn");
	assert_string_equal(fname(p, l->line[1]->function_id), "outer_fn");
	check_src(p, l->line[0], "inl_fn", "inl.h", 12, 10);
	check_src(p, l->line[1], "_Z8outer_fnv", "src/a b.c", 40, 33);
	m = map(p, l->mapping_id);
	assert_string_equal(str(p, m->filename), BIN);
	assert_int_equal(m->memory_start, 0x400000);
	assert_int_equal(m->memory_limit, 0x402000);
	assert_int_equal(m->file_offset, 0x1000);
	assert_true(m->has_functions && m->has_inline_frames &&
		    m->has_filenames && m->has_line_numbers);
	assert_string_equal(str(p, m->build_id), "00ab12");
	/* main's source line was refused (a control byte): none */
	check_src(p, loc(p, s->location_id[3])->line[0], "main", "", 0, 0);
	assert_string_equal(fname(p, loc(p, s->location_id[3])->line[0]->function_id),
			    "main");
	l = loc(p, s->location_id[4]);
	assert_int_equal(l->address, 0x400800);
	assert_int_equal(l->n_line, 0);
	assert_int_equal(l->mapping_id, loc(p, s->location_id[2])->mapping_id);
}

static void test_profile(void **state)
{
	char *rec_path = write_rec(), out[] = "/tmp/ktrace-unit-pb-XXXXXX";
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_record *r = ktrace_record_load(rec_path, &err);
	const Perftools__Profiles__Sample *s;
	unsigned long long no_stack = 0;
	int error = -1, fd = mkstemp(out);
	pprof_t *p;

	(void)state;
	assert_non_null(r);
	close(fd);
	assert_int_equal(kt_pprof_write(r, out, "unit.dat", &error, &no_stack),
			 4);
	assert_int_equal(error, 0);
	assert_int_equal(no_stack, 0);
	p = read_profile(out);
	assert_non_null(p);
	check_types(p);
	check_stack(p);
	assert_int_equal(p->n_sample, 3);
	/* the program's mapping first (the kernel's was made first) */
	assert_int_equal(p->n_mapping, 2);
	assert_string_equal(str(p, p->mapping[0]->filename), BIN);
	s = find_sample(p, 12, 0);	/* kernel frames only */
	assert_int_equal(s->n_location_id, 2);
	assert_int_equal(s->location_id[0], find_sample(p, 11, 0)->location_id[0]);
	assert_string_equal(str(p, s->label[0]->str), "other");
	s = find_sample(p, 11, 2);
	assert_int_equal(s->value[2], 1);
	assert_int_equal(s->value[3], 7);
	assert_int_equal(s->n_location_id, 3);
	assert_int_equal(s->location_id[0], find_sample(p, 11, 0)->location_id[2]);
	assert_string_equal(str(p, p->comment[0]),
			    "ktrace " KTRACE_VERSION " report --pprof of unit.dat");
	perftools__profiles__profile__free_unpacked(p, NULL);
	ktrace_record_free(r);
	ktrace_err_clear(&err);
	unlink(out);
	unlink(rec_path);
	free(rec_path);
}

/* A tracepoint recording without call chains: two records of "t:tick". */
static char *write_tick_rec(void)
{
	static const char fmt[] =
		"name: tick\nID: 500\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int n;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"n=%d\", REC->n\n";
	const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_RAW;
	struct kt_kf_attr a = {
		.type = PERF_TYPE_TRACEPOINT, .flags = KT_KF_ATTR_SAMPLE_ID_ALL,
		.config = 500, .sample_type = st, .clockid = 1,
		.name = "t:tick",
	};
	const unsigned char raw[12] = { 500 & 0xff, 500 >> 8 };
	char *path = strdup("/tmp/ktrace-unit-pprof-XXXXXX");
	int fd = mkstemp(path);
	struct kt_kfw *w = kt_kfw_open(fd, 0);

	assert_non_null(w);
	assert_int_equal(kt_kfw_attr(w, &a), 0);
	assert_int_equal(kt_kfw_id(w, ID_CLOCK, 0, -1), 0);
	assert_int_equal(kt_kfw_format(w, 500, "t", "tick", fmt), 0);
	for (int i = 0; i < 2; i++)
		sample_raw(w, st, ID_CLOCK, 11, 1000 + i, 0, NULL, 0, raw,
			   sizeof(raw));
	assert_int_equal(kt_kfw_close(w, NULL), 0);
	close(fd);
	return path;
}

/* Nothing with an address: refused, and no file is made. */
static void test_no_stacks_refused(void **state)
{
	char *rec_path = write_tick_rec();
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_record *r = ktrace_record_load(rec_path, &err);
	unsigned long long no_stack = 0;
	int error = 0;

	(void)state;
	assert_non_null(r);
	unlink("/tmp/ktrace-unit-pb-none");
	assert_int_equal(kt_pprof_write(r, "/tmp/ktrace-unit-pb-none",
					"unit.dat", &error, &no_stack), 2);
	assert_int_equal(error, -ENODATA);
	assert_int_equal(no_stack, 2);
	assert_int_equal(access("/tmp/ktrace-unit-pb-none", F_OK), -1);
	ktrace_record_free(r);
	ktrace_err_clear(&err);
	unlink(rec_path);
	free(rec_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_no_stacks_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
