// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for off-CPU time (lib/record/offcpu.c): the pairing on its
 * own; then synthetic sched_switch samples (the fixture's real format)
 * and PERF_RECORD_SWITCH records through the decoder, as the live rings
 * hand them over, task-bound and system-wide; then a file holding
 * off-CPU samples read back (kfile.h's offcpu-time entry).
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
#include <cmocka.h>

#include "faketfs.h"
#include "capture/sample.h"
#include "kfile/kfile.h"
#include "record/record.h"

#define SW_ID 372		/* the fixture's sched_switch */
#define SAMPLE_ID 0x77
#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | \
	    PERF_SAMPLE_RAW)
#define S_STATE 0x1		/* prev_state: S (waits) */
#define PREEMPTED 0x100		/* prev_state: R+ (TASK_REPORT_MAX) */

/* ------------------------------------------------------- the pairing */

static void test_blocked_states(void **state)
{
	(void)state;
	assert_false(kt_offcpu_blocked(0));		/* R */
	assert_false(kt_offcpu_blocked(PREEMPTED));	/* R+ */
	assert_true(kt_offcpu_blocked(0x1));		/* S */
	assert_true(kt_offcpu_blocked(0x2));		/* D */
	assert_true(kt_offcpu_blocked(0x80));		/* I */
}

static void test_pair(void **state)
{
	struct kt_offcpu o = { .event = 3 };
	const uint64_t ips[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000100ull,
				 PERF_CONTEXT_USER, 0x401000 };
	struct ktrace_sample s;

	(void)state;
	assert_false(kt_offcpu_in(&o, 5, 10, 0, &s));	/* nothing held */
	assert_int_equal(kt_offcpu_out(&o, 4, 5, 1, 1000, true, ips, 4), 0);
	assert_false(kt_offcpu_in(&o, 6, 2000, 0, &s));	/* another task */
	assert_true(kt_offcpu_in(&o, 5, 301000, 0, &s));
	assert_int_equal(s.period, 300000);
	assert_int_equal(s.time, 301000);
	assert_int_equal(s.pid, 4);
	assert_int_equal(s.tid, 5);
	assert_int_equal(s.cpu, 0);	/* where it runs again */
	assert_int_equal(s.event, 3);
	assert_int_equal(s.type, KTRACE_SAMPLE_EVENT);
	assert_int_equal(s.nr_ips, 4);
	assert_memory_equal(s.ips, ips, sizeof(ips));
	/* paired once only */
	assert_false(kt_offcpu_in(&o, 5, 400000, 0, &s));
	kt_offcpu_free(&o);
}

static void test_preempted_and_lost(void **state)
{
	struct kt_offcpu o = { .event = 0 };
	struct ktrace_sample s;

	(void)state;
	/* preempted: runnable, no period */
	assert_int_equal(kt_offcpu_out(&o, 7, 7, 0, 100, false, NULL, 0), 0);
	assert_false(kt_offcpu_in(&o, 7, 200, 0, &s));
	/* a switch-out over a held one: the switch-in between was missed,
	 * the period starts again */
	kt_offcpu_out(&o, 7, 7, 0, 1000, true, NULL, 0);
	kt_offcpu_out(&o, 7, 7, 0, 5000, true, NULL, 0);
	assert_int_equal(o.unpaired, 1);
	assert_true(kt_offcpu_in(&o, 7, 5500, 0, &s));
	assert_int_equal(s.period, 500);
	/* preempted with one held: dropped too */
	kt_offcpu_out(&o, 7, 7, 0, 6000, true, NULL, 0);
	kt_offcpu_out(&o, 7, 7, 0, 7000, false, NULL, 0);
	assert_false(kt_offcpu_in(&o, 7, 8000, 0, &s));
	assert_int_equal(o.unpaired, 2);
	/* records lost: what was held goes */
	kt_offcpu_out(&o, 7, 7, 0, 9000, true, NULL, 0);
	kt_offcpu_forget(&o);
	assert_false(kt_offcpu_in(&o, 7, 9500, 0, &s));
	/* a switch-in older than the switch-out (out of order): none */
	kt_offcpu_out(&o, 7, 7, 0, 20000, true, NULL, 0);
	assert_false(kt_offcpu_in(&o, 7, 19000, 0, &s));
	kt_offcpu_free(&o);
}

/* Many tasks held at once, the table grown (and compacted) meanwhile:
 * each pairs with its own switch-out and stack. */
static void test_many_tasks(void **state)
{
	struct kt_offcpu o = { .event = 1 };
	struct ktrace_sample s;
	const int n = 5000;

	(void)state;
	for (int round = 0; round < 2; round++) {
		for (int t = 1; t <= n; t++) {
			uint64_t ip = 0x1000 + t;

			assert_int_equal(kt_offcpu_out(&o, t, t, 0, 10 * t,
						       true, &ip, 1), 0);
		}
		for (int t = n; t >= 1; t--) {
			assert_true(kt_offcpu_in(&o, t, 10 * t + t, 1, &s));
			assert_int_equal(s.period, t);
			assert_int_equal(s.nr_ips, 1);
			assert_int_equal(s.ips[0], 0x1000 + t);
		}
	}
	assert_true(o.cap <= 4 * 8192);
	assert_int_equal(o.unpaired, 0);
	kt_offcpu_free(&o);
}

/* ------------------------------------------ through the decoder, live */

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

struct seen {
	struct ktrace_sample s[16];
	uint64_t ips0[16];
	int n;
	int records;		/* handed to the sink */
	uint64_t rec_period, rec_id;
};

static int collect(void *ctx, const struct ktrace_sample *s)
{
	struct seen *v = ctx;

	assert_true(v->n < 16);
	v->ips0[v->n] = s->nr_ips ? s->ips[s->nr_ips - 1] : 0;
	v->s[v->n++] = *s;
	return 0;
}

static struct ktrace_record *g_rec;

/* The sink sees the record the -o file gets: one sample of the off-CPU
 * event's id in the decoder's layout. */
static void sink(void *ctx, const struct perf_event_header *h,
		 const struct ktrace_sample *s)
{
	struct seen *v = ctx;
	struct kt_sample ks;

	assert_non_null(s);
	assert_int_equal(h->type, PERF_RECORD_SAMPLE);
	assert_int_equal(kt_sample_parse(&g_rec->dec.fmt, h, &ks), 0);
	assert_int_equal(ks.period, s->period);
	assert_int_equal(ks.nr_ips, s->nr_ips);
	v->rec_period = ks.period;
	v->rec_id = ks.id;
	v->records++;
}

/* A recording as ktrace_record_open() leaves it with --off-cpu, the
 * rings replaced by the records the tests hand to kt_record_emit(). */
static struct ktrace_record *offcpu_recording(struct ktrace_tfs *tfs,
					      struct seen *v)
{
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_record *r = ktrace_record_alloc(tfs);
	uint64_t ids[2] = { SAMPLE_ID, KT_OFFCPU_ID };
	int evs[2];

	assert_non_null(r);
	assert_int_equal(ktrace_record_add_off_cpu(r, &err), 0);
	assert_int_equal(kt_offcpu_open(r), 0);
	assert_int_equal(ktrace_record_nr_events(r), 2);
	assert_int_equal(ktrace_record_off_cpu_event(r), 1);
	assert_string_equal(ktrace_record_event_name(r, 1), "offcpu-time");
	evs[0] = r->off.src;
	evs[1] = r->off.event;
	assert_int_equal(kt_evtable_set_ids(&r->evt, ids, evs, 2), 0);
	r->dec.fmt.sample_type = ST;
	r->dec.fmt.sample_id_all = true;
	r->dec.mcfg.sample_type = ST;
	r->dec.mcfg.sample_id_all = true;
	assert_int_equal(kt_decoder_stats_alloc(&r->dec, 4, 2), 0);
	r->dec.fn = collect;
	r->dec.fnctx = v;
	r->dec.sink = sink;
	r->dec.sink_ctx = v;
	g_rec = r;
	return r;
}

/* A sched_switch sample: tid (its process pid) switched out in state,
 * next_pid in; the stack's user frame is ip. */
static void emit_switch(struct ktrace_record *r, int pid, int tid,
			uint64_t time, int cpu, long state, int next, uint64_t ip)
{
	uint64_t buf[64] __attribute__((aligned(8)));
	uint64_t ips[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000100ull,
			   PERF_CONTEXT_USER, ip };
	struct sw_raw raw = {
		.common_type = SW_ID, .common_pid = tid, .prev_pid = tid,
		.prev_prio = 120, .prev_state = state, .next_pid = next,
		.next_prio = 120,
	};
	struct kt_sample ks = {
		.id = SAMPLE_ID, .pid = pid, .tid = tid, .time = time,
		.cpu = cpu, .period = 1, .ips = ips, .nr_ips = 4,
		.raw = &raw, .raw_size = sizeof(raw),
	};
	size_t n;

	memcpy(raw.prev_comm, "worker", 6);
	memcpy(raw.next_comm, "other", 5);
	n = kt_sample_write(&r->dec.fmt, &ks, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(kt_record_emit(r, 0, time, (void *)buf), 0);
}

/* A PERF_RECORD_SWITCH of tid at time: in, or out (misc). */
static void emit_switch_rec(struct ktrace_record *r, int pid, int tid,
			    uint64_t time, int cpu, bool out)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t id;
	} rec = {
		.h = { .type = PERF_RECORD_SWITCH, .size = sizeof(rec),
		       .misc = out ? PERF_RECORD_MISC_SWITCH_OUT : 0 },
		.pid = pid, .tid = tid, .time = time, .cpu = cpu,
		.id = SAMPLE_ID,
	};

	assert_int_equal(kt_record_emit(r, 0, time, &rec.h), 0);
}

/* A PERF_RECORD_SWITCH_CPU_WIDE switch-in of tid at time, from prev. */
static void emit_cpu_wide_in(struct ktrace_record *r, int pid, int tid,
			     uint64_t time, int cpu, int prev)
{
	struct {
		struct perf_event_header h;
		uint32_t next_prev_pid, next_prev_tid;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t id;
	} rec = {
		.h = { .type = PERF_RECORD_SWITCH_CPU_WIDE,
		       .size = sizeof(rec) },
		.next_prev_pid = prev, .next_prev_tid = prev,
		.pid = pid, .tid = tid, .time = time, .cpu = cpu,
		.id = SAMPLE_ID,
	};

	assert_int_equal(kt_record_emit(r, 0, time, &rec.h), 0);
}

/* -p, a command: the events are the traced tasks'; they are seen
 * switched in by their PERF_RECORD_SWITCH records. */
static void test_task_bound(void **state)
{
	struct seen v = { 0 };
	struct ktrace_tfs *tfs = ktrace_tfs_open(getenv("KTRACE_TRACEFS"));
	struct ktrace_record *r;

	(void)state;
	assert_non_null(tfs);
	r = offcpu_recording(tfs, &v);
	/* waits 300 ms in one place, is preempted, waits 50 ms elsewhere */
	emit_switch(r, 40, 41, 1000000000, 0, S_STATE, 0, 0x401111);
	emit_switch_rec(r, 40, 41, 1000000000, 0, true);
	emit_switch_rec(r, 40, 41, 1300000000, 1, false);
	emit_switch(r, 40, 41, 1400000000, 1, PREEMPTED, 0, 0x402222);
	emit_switch_rec(r, 40, 41, 1400100000, 1, false);
	emit_switch(r, 40, 41, 1500000000, 1, S_STATE, 0, 0x403333);
	emit_switch_rec(r, 40, 41, 1550000000, 0, false);
	/* a switch-in of a task that never waited: nothing */
	emit_switch_rec(r, 40, 42, 1600000000, 0, false);
	assert_int_equal(v.n, 2);	/* sched_switch's own are not shown */
	assert_int_equal(v.records, 2);
	assert_int_equal(v.rec_id, KT_OFFCPU_ID);
	assert_int_equal(v.s[0].event, 1);
	assert_int_equal(v.s[0].period, 300000000);
	assert_int_equal(v.s[0].time, 1300000000);
	assert_int_equal(v.s[0].tid, 41);
	assert_int_equal(v.s[0].pid, 40);
	assert_int_equal(v.s[0].cpu, 1);
	assert_int_equal(v.ips0[0], 0x401111);
	assert_int_equal(v.s[1].period, 50000000);
	assert_int_equal(v.ips0[1], 0x403333);
	assert_int_equal(v.rec_period, 50000000);
	/* counted: 3 switches, 2 periods */
	assert_int_equal(r->dec.per_event[r->off.src], 3);
	assert_int_equal(r->dec.per_event[r->off.event], 2);
	ktrace_record_free(r);
	ktrace_tfs_free(tfs);
}

/* -a: every switch of the CPUs; next_pid says who runs again. */
static void test_system_wide(void **state)
{
	struct seen v = { 0 };
	struct ktrace_tfs *tfs = ktrace_tfs_open(getenv("KTRACE_TRACEFS"));
	struct ktrace_record *r;

	(void)state;
	assert_non_null(tfs);
	r = offcpu_recording(tfs, &v);
	emit_switch(r, 50, 50, 2000000000, 0, S_STATE, 60, 0x405555);
	emit_switch(r, 60, 60, 2000100000, 0, PREEMPTED, 70, 0x406666);
	emit_switch(r, 70, 70, 2100000000, 0, 0x2, 60, 0x407777);
	/* 50 runs again, switched to by 60 on CPU 1 */
	emit_switch(r, 60, 60, 2200000000, 1, S_STATE, 50, 0x406666);
	/* 70 (D) runs again 150 ms after it went */
	emit_switch(r, 50, 50, 2250000000, 1, 0, 70, 0x405555);
	/* 60 runs again on an idle CPU: no sched_switch says it (6.18
	 * records none from the idle task), its CPU-wide switch-in does;
	 * then the sched_switch that also names it finds nothing held */
	emit_cpu_wide_in(r, 60, 60, 2300000000, 0, 0);
	emit_switch(r, 70, 70, 2300000100, 1, S_STATE, 60, 0x407777);
	assert_int_equal(v.n, 3);
	assert_int_equal(v.s[2].tid, 60);
	assert_int_equal(v.s[2].period, 100000000);
	assert_int_equal(v.ips0[2], 0x406666);
	v.n = 2;
	assert_int_equal(v.s[0].tid, 50);
	assert_int_equal(v.s[0].period, 200000000);
	assert_int_equal(v.s[0].cpu, 1);
	assert_int_equal(v.ips0[0], 0x405555);
	assert_int_equal(v.s[1].tid, 70);
	assert_int_equal(v.s[1].period, 150000000);
	assert_int_equal(v.ips0[1], 0x407777);
	ktrace_record_free(r);
	ktrace_tfs_free(tfs);
}

/* sched_switch asked for (-e) as well: its records are handed out too,
 * each after the period it ends. */
static void test_switch_shown(void **state)
{
	struct seen v = { 0 };
	struct ktrace_tfs *tfs = ktrace_tfs_open(getenv("KTRACE_TRACEFS"));
	struct ktrace_err err = { .pos = -1 };

	(void)state;
	assert_non_null(tfs);
	{
		struct ktrace_record *q = ktrace_record_alloc(tfs);
		uint64_t ids[2] = { SAMPLE_ID, KT_OFFCPU_ID };
		int evs[2] = { 0, 1 };

		assert_int_equal(ktrace_record_add_event(q, "sched:sched_switch",
							 NULL, &err), 0);
		assert_int_equal(ktrace_record_add_off_cpu(q, &err), 0);
		assert_true(q->off.src_shown);
		assert_int_equal(kt_offcpu_open(q), 0);
		assert_int_equal(ktrace_record_nr_events(q), 2);
		assert_int_equal(kt_evtable_set_ids(&q->evt, ids, evs, 2), 0);
		q->dec.fmt.sample_type = ST;
		q->dec.fmt.sample_id_all = true;
		assert_int_equal(kt_decoder_stats_alloc(&q->dec, 4, 2), 0);
		q->dec.fn = collect;
		q->dec.fnctx = &v;
		emit_switch(q, 50, 50, 1000, 0, S_STATE, 60, 0x405555);
		emit_switch(q, 60, 60, 3000, 0, S_STATE, 50, 0x406666);
		assert_int_equal(v.n, 3);
		assert_int_equal(v.s[0].event, 0);
		assert_int_equal(v.s[1].event, 1);
		assert_int_equal(v.s[1].period, 2000);
		assert_int_equal(v.s[2].event, 0);
		ktrace_record_free(q);
	}
	ktrace_tfs_free(tfs);
}

/* ------------------------------------------------------- from a file */

/* A file with the off-CPU entry as kfile.h marks it, read back: its
 * samples are offcpu-time's, their period the time off the CPU. */
static void test_file(void **state)
{
	char path[] = "/tmp/ktrace-unit-offcpu-XXXXXX";
	const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	struct kt_kf_attr a = {
		.type = KT_KF_OFFCPU_TYPE, .flags = KT_KF_ATTR_SAMPLE_ID_ALL,
		.config = KT_KF_OFFCPU_CONFIG, .sample_type = st,
		.clockid = 1, .name = KT_KF_OFFCPU_NAME,
	};
	struct kt_sample_fmt fmt = { .sample_type = st, .sample_id_all = true };
	uint64_t ips[] = { PERF_CONTEXT_USER, 0x401000 }, buf[32];
	struct kt_sample ks = {
		.id = 9, .pid = 3, .tid = 4, .time = 5000, .cpu = 1,
		.period = 300000000, .ips = ips, .nr_ips = 2,
	};
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_record *r;
	struct seen v = { 0 };
	struct kt_kfw *w;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	w = kt_kfw_open(fd, 0);
	assert_non_null(w);
	assert_int_equal(kt_kfw_attr(w, &a), 0);
	assert_int_equal(kt_kfw_id(w, 9, 0, -1), 0);
	assert_true(kt_sample_write(&fmt, &ks, buf, sizeof(buf)) > 0);
	assert_int_equal(kt_kfw_record(w, (void *)buf), 0);
	assert_int_equal(kt_kfw_close(w, NULL), 0);
	close(fd);
	r = ktrace_record_load(path, &err);
	unlink(path);
	assert_non_null(r);
	assert_int_equal(ktrace_record_off_cpu_event(r), 0);
	assert_int_equal(ktrace_record_replay(r, collect, &v, NULL, NULL), 1);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.s[0].event, 0);
	assert_int_equal(v.s[0].period, 300000000);
	assert_int_equal(v.ips0[0], 0x401000);
	ktrace_record_free(r);

	/* another software event under that name is refused */
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	fd = mkstemp(strcpy(path, "/tmp/ktrace-unit-offcpu-XXXXXX"));
	w = kt_kfw_open(fd, 0);
	assert_int_equal(kt_kfw_attr(w, &a), 0);
	assert_int_equal(kt_kfw_close(w, NULL), 0);
	close(fd);
	r = ktrace_record_load(path, &err);
	unlink(path);
	assert_null(r);
	ktrace_err_clear(&err);
}

/* kt_sample_write() writes what kt_sample_parse() reads. */
static void test_sample_write_round_trip(void **state)
{
	struct kt_sample_fmt fmt = {
		.sample_type = ST | PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
			       PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID,
	};
	uint64_t ips[] = { 1, 2, 3 }, buf[32];
	const char raw[] = "abcde";
	struct kt_sample in = {
		.id = 7, .ip = 8, .pid = 9, .tid = 10, .time = 11, .addr = 12,
		.stream_id = 13, .cpu = 14, .period = 15, .ips = ips,
		.nr_ips = 3, .raw = raw, .raw_size = 5,
	}, out;
	size_t n = kt_sample_write(&fmt, &in, buf, sizeof(buf));
	struct perf_event_header h;

	(void)state;
	assert_true(n > 0 && n % 8 == 0);

	memcpy(&h, buf, sizeof(h));
	assert_int_equal(h.size, n);
	assert_int_equal(kt_sample_parse(&fmt, (void *)buf, &out), 0);
	assert_int_equal(out.id, 7);
	assert_int_equal(out.ip, 8);
	assert_int_equal(out.pid, 9);
	assert_int_equal(out.tid, 10);
	assert_int_equal(out.time, 11);
	assert_int_equal(out.addr, 12);
	assert_int_equal(out.stream_id, 13);
	assert_int_equal(out.cpu, 14);
	assert_int_equal(out.period, 15);
	assert_int_equal(out.nr_ips, 3);
	assert_memory_equal(out.ips, ips, sizeof(ips));
	assert_true(out.raw_size >= 5);
	assert_memory_equal(out.raw, raw, 5);
	/* too small a buffer, or a layout it cannot write */
	assert_int_equal(kt_sample_write(&fmt, &in, buf, n - 8), 0);
	fmt.sample_type |= PERF_SAMPLE_READ;
	assert_int_equal(kt_sample_write(&fmt, &in, buf, sizeof(buf)), 0);
	/* user registers and stack: written empty */
	fmt.sample_type &= ~(uint64_t)PERF_SAMPLE_READ;
	fmt.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	fmt.regs_user = 0xff;
	assert_int_equal(kt_sample_write(&fmt, &in, buf, sizeof(buf)), n + 16);
	assert_int_equal(kt_sample_parse(&fmt, (void *)buf, &out), 0);
	assert_int_equal(out.regs_abi, 0);
	assert_null(out.regs);
	assert_null(out.stack);
	assert_int_equal(out.period, 15);
}

static char *root;

static int setup(void **state)
{
	(void)state;
	root = fake_tfs_make();
	return root ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fake_tfs_remove(root);	/* frees it */
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocked_states),
		cmocka_unit_test(test_pair),
		cmocka_unit_test(test_preempted_and_lost),
		cmocka_unit_test(test_many_tasks),
		cmocka_unit_test(test_task_bound),
		cmocka_unit_test(test_system_wide),
		cmocka_unit_test(test_switch_shown),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_sample_write_round_trip),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
