// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live perf_event_open round trips (lib/capture/perf.c + ring.c + merge.c). The
 * tracing tests skip unless running as root with tracefs mounted at
 * /sys/kernel/tracing.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "ktrace.h"
#include "kfile/kfile.h"
#include "capture/merge.h"
#include "capture/perf.h"
#include "capture/stat.h"
#include "capture/ring.h"

#define GETPPID_DIR "/sys/kernel/tracing/events/syscalls/sys_enter_getppid"

/* The event index of a sample id, through the id table kt_perf lists. */
static int id_event(const struct kt_perf *p, uint64_t id)
{
	for (int i = 0; i < kt_perf_nr_ids(p); i++) {
		uint64_t v;
		int ev, cpu;

		kt_perf_id_get(p, i, &v, &ev, &cpu);
		if (v == id)
			return ev;
	}
	return -1;
}

static int getppid_id(void)
{
	FILE *f;
	int id = -1;

	if (geteuid() != 0)
		return -1;
	f = fopen(GETPPID_DIR "/id", "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

static char enable_state(void)
{
	FILE *f = fopen(GETPPID_DIR "/enable", "r");
	int c;

	if (!f)
		return '?';
	c = fgetc(f);
	fclose(f);
	return c;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct sink {
	struct kt_perf *p;
	pid_t pid, tid;
	uint64_t samples, other, lost_recs, bad, last_ts, t0, t1;
	uint64_t bad_nr;
	bool check;
	struct kt_kfw *w;	/* also write every record here */
};

static int sink_emit(void *ctx, int src, uint64_t ts,
		     const struct perf_event_header *rec)
{
	struct sink *s = ctx;
	const unsigned char *b = (const unsigned char *)rec;
	uint64_t id;
	uint32_t pid, tid, raw_size;
	int32_t nr;

	(void)src;
	if (s->w && kt_kfw_record(s->w, rec))
		return -EIO;
	if (rec->type == PERF_RECORD_LOST) {
		s->lost_recs++;
		return 0;
	}
	if (rec->type != PERF_RECORD_SAMPLE) {
		s->other++;
		return 0;
	}
	s->samples++;
	if (!s->check)
		return 0;
	memcpy(&id, b + 8, 8);
	memcpy(&pid, b + 16, 4);
	memcpy(&tid, b + 20, 4);
	memcpy(&raw_size, b + 40, 4);
	memcpy(&nr, b + 44 + 8, 4);	/* __syscall_nr after common fields */
	if (id_event(s->p, id) != 0 || pid != (uint32_t)s->pid ||
	    tid != (uint32_t)s->tid || ts <= s->last_ts || ts < s->t0 ||
	    ts > s->t1 || raw_size < 12)
		s->bad++;
	if (nr != SYS_getppid)
		s->bad_nr++;
	s->last_ts = ts;
	return 0;
}

static void drain_all(struct kt_perf *p, struct kt_merge *m)
{
	int i;

	for (i = 0; i < kt_perf_nr_rings(p); i++)
		assert_true(kt_merge_pull(m, i, kt_perf_ring(p, i), 0, NULL, NULL) >= 0);
	assert_true(kt_merge_drain(m) >= 0);
}

/* Exactly 1000 getppid() calls give exactly 1000 samples. */
static void test_getppid_1000(void **state)
{
	struct kt_perf_event ev = { .type = PERF_TYPE_TRACEPOINT };
	struct kt_perf_opts o = { 0 };
	struct kt_perf_fail fail;
	struct kt_merge_cfg cfg = { .sample_id_all = true };
	struct sink s = { 0 };
	struct kt_merge *m;
	struct kt_perf *p;
	pid_t self = getpid();
	int id = getppid_id(), i;
	uint64_t lost = 0;

	(void)state;
	if (id < 0)
		skip();
	ev.config = id;
	o.pids = &self;
	o.nr_pids = 1;
	p = kt_perf_open(&ev, 1, &o, &fail);
	if (!p) {
		char adv[512];

		kt_perf_advice(&fail, adv, sizeof(adv));
		fail_msg("kt_perf_open: %s (stage %d): %s", strerror(errno),
			 fail.stage, adv);
	}
	assert_int_equal(kt_perf_nr_rings(p), sysconf(_SC_NPROCESSORS_ONLN));
	cfg.sample_type = kt_perf_sample_type(p);
	s.p = p;
	s.pid = self;
	s.tid = syscall(SYS_gettid);
	s.check = true;
	m = kt_merge_alloc(kt_perf_nr_rings(p), &cfg, sink_emit, &s);
	assert_non_null(m);

	s.t0 = mono_ns();
	assert_int_equal(kt_perf_enable(p), 0);
	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	assert_int_equal(kt_perf_disable(p), 0);
	s.t1 = mono_ns();
	/* Untraced calls after the disable. */
	for (i = 0; i < 10; i++)
		syscall(SYS_getppid);
	drain_all(p, m);
	for (i = 0; i < kt_perf_nr_rings(p); i++)
		lost += kt_perf_ring(p, i)->nr_lost;
	assert_int_equal(lost, 0);
	assert_int_equal(s.samples, 1000);
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.bad_nr, 0);
	kt_merge_free(m);
	kt_perf_free(p);
	/* perf tracepoints never touch the tracefs enable files */
	assert_int_equal(enable_state(), '0');
}

/* A filter is applied by the kernel: nothing matches __syscall_nr < 0. */
static void test_filter(void **state)
{
	struct kt_perf_event ev = { .type = PERF_TYPE_TRACEPOINT,
				    .filter = "__syscall_nr < 0" };
	struct kt_perf_opts o = { 0 };
	struct kt_merge_cfg cfg = { .sample_id_all = true };
	struct sink s = { 0 };
	struct kt_merge *m;
	struct kt_perf *p;
	pid_t self = getpid();
	int id = getppid_id(), i;

	(void)state;
	if (id < 0)
		skip();
	ev.config = id;
	o.pids = &self;
	o.nr_pids = 1;
	o.ring_pages = 16;
	p = kt_perf_open(&ev, 1, &o, NULL);
	assert_non_null(p);
	cfg.sample_type = kt_perf_sample_type(p);
	m = kt_merge_alloc(kt_perf_nr_rings(p), &cfg, sink_emit, &s);
	kt_perf_enable(p);
	for (i = 0; i < 100; i++)
		syscall(SYS_getppid);
	kt_perf_disable(p);
	drain_all(p, m);
	assert_int_equal(s.samples, 0);
	kt_merge_free(m);
	kt_perf_free(p);

	/* A malformed filter is refused at the filter stage. */
	{
		struct kt_perf_fail fail;

		ev.filter = "no_such_field == 1";
		assert_null(kt_perf_open(&ev, 1, &o, &fail));
		assert_int_equal(fail.stage, KT_PERF_STAGE_FILTER);
		assert_int_equal(fail.event, 0);
	}
}

static int tp_id(const char *ev)
{
	char path[256];
	FILE *f;
	int id = -1;

	if (geteuid() != 0)
		return -1;
	snprintf(path, sizeof(path),
		 "/sys/kernel/tracing/events/syscalls/%s/id", ev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

struct child_sink {
	pid_t pid;
	uint64_t exits, comm_true, other_samples;
};

static int child_emit(void *ctx, int src, uint64_t ts,
		      const struct perf_event_header *rec)
{
	struct child_sink *c = ctx;
	const unsigned char *b = (const unsigned char *)rec;
	uint32_t pid;

	(void)src;
	(void)ts;
	if (rec->type == PERF_RECORD_SAMPLE) {
		memcpy(&pid, b + 16, 4);
		if (pid == (uint32_t)c->pid)
			c->exits++;
		else
			c->other_samples++;
	} else if (rec->type == PERF_RECORD_COMM) {
		memcpy(&pid, b + 8, 4);
		if (pid == (uint32_t)c->pid && !strcmp((const char *)b + 16,
						       "true"))
			c->comm_true++;
	}
	return 0;
}

/*
 * A child traced the way "ktrace record -- cmd" does: events opened on its
 * pid before it execs, inherit + enable_on_exec. Exactly one exit_group
 * sample, the exec's COMM record, and POLLHUP once it is gone.
 */
static void test_child_exec(void **state)
{
	struct kt_perf_event ev = { .type = PERF_TYPE_TRACEPOINT };
	struct kt_perf_opts o = { 0 };
	struct kt_merge_cfg cfg = { .sample_id_all = true };
	struct child_sink cs = { 0 };
	struct kt_merge *m;
	struct kt_perf *p;
	int id = tp_id("sys_enter_exit_group"), pfd[2], st, i;
	bool hup = false;
	char c = 1;
	pid_t pid;

	(void)state;
	if (id < 0 || access("/bin/true", X_OK))
		skip();
	ev.config = id;
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(2);
		execl("/bin/true", "true", (char *)NULL);
		_exit(3);
	}
	close(pfd[0]);
	cs.pid = pid;
	o.pids = &pid;
	o.nr_pids = 1;
	o.inherit = true;
	o.enable_on_exec = true;
	o.ring_pages = 16;
	p = kt_perf_open(&ev, 1, &o, NULL);
	assert_non_null(p);
	cfg.sample_type = kt_perf_sample_type(p);
	m = kt_merge_alloc(kt_perf_nr_rings(p), &cfg, child_emit, &cs);
	assert_non_null(m);
	assert_int_equal(write(pfd[1], &c, 1), 1);
	close(pfd[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (i = 0; i < 100 && !hup; i++)
		assert_true(kt_perf_poll(p, 10, &hup) >= 0);
	assert_true(hup);
	drain_all(p, m);
	assert_int_equal(cs.exits, 1);
	assert_int_equal(cs.other_samples, 0);
	assert_int_equal(cs.comm_true, 1);
	kt_merge_free(m);
	kt_perf_free(p);
}

struct prod {
	pthread_barrier_t go;
	pid_t tid;
	long n;
	volatile int done;
};

static void *producer(void *arg)
{
	struct prod *pr = arg;
	long i;

	pr->tid = syscall(SYS_gettid);
	pthread_barrier_wait(&pr->go);	/* tid published */
	pthread_barrier_wait(&pr->go);	/* events enabled */
	for (i = 0; i < pr->n; i++)
		syscall(SYS_getppid);
	__atomic_store_n(&pr->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * 1e6 getppid() in another thread while this one reads, the way record
 * will: poll, pull every ring, flush up to now - 10 ms. Every call is
 * accounted for (sample or counted as lost); the reader's CPU cost per
 * record is printed, not asserted.
 */
static void test_getppid_stream(void **state)
{
	struct kt_perf_event ev = { .type = PERF_TYPE_TRACEPOINT };
	struct kt_perf_opts o = { 0 };
	struct kt_merge_cfg cfg = { .sample_id_all = true };
	struct kt_merge_stats st;
	struct prod pr = { .n = 1000000 };
	struct sink s = { 0 };
	struct kt_merge *m;
	struct kt_perf *p;
	pthread_t th;
	int id = getppid_id(), i, fd;
	uint64_t lost = 0, c0, c1, w0, w1, n, last = 0, unordered = 0;
	char path[] = "/tmp/ktrace-live-XXXXXX";
	const struct perf_event_header *rec;
	struct kt_kfile *kf;
	struct rusage ru;

	(void)state;
	if (id < 0)
		skip();
	if (getenv("KTRACE_TEST_STREAM_N"))
		pr.n = atol(getenv("KTRACE_TEST_STREAM_N"));
	if (getenv("KTRACE_TEST_RING_PAGES"))
		o.ring_pages = atol(getenv("KTRACE_TEST_RING_PAGES"));
	ev.config = id;
	pthread_barrier_init(&pr.go, NULL, 2);
	pthread_create(&th, NULL, producer, &pr);
	pthread_barrier_wait(&pr.go);
	o.pids = &pr.tid;
	o.nr_pids = 1;
	p = kt_perf_open(&ev, 1, &o, NULL);
	assert_non_null(p);
	cfg.sample_type = kt_perf_sample_type(p);
	m = kt_merge_alloc(kt_perf_nr_rings(p), &cfg, sink_emit, &s);
	assert_non_null(m);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	s.w = kt_kfw_open(fd, 0);
	assert_non_null(s.w);
	kt_perf_enable(p);
	c0 = thread_cpu_ns();
	w0 = mono_ns();
	pthread_barrier_wait(&pr.go);
	for (;;) {
		int done = __atomic_load_n(&pr.done, __ATOMIC_ACQUIRE);

		kt_perf_poll(p, 10, NULL);
		for (i = 0; i < kt_perf_nr_rings(p); i++)
			assert_true(kt_merge_pull(m, i, kt_perf_ring(p, i),
						  1 << 20, NULL, NULL) >= 0);
		assert_true(kt_merge_flush(m, mono_ns() - 10000000) >= 0);
		if (done)
			break;
	}
	pthread_join(th, NULL);
	kt_perf_disable(p);
	drain_all(p, m);
	assert_int_equal(kt_kfw_close(s.w, NULL), 0);
	c1 = thread_cpu_ns();
	w1 = mono_ns();
	for (i = 0; i < kt_perf_nr_rings(p); i++)
		lost += kt_perf_ring(p, i)->nr_lost;
	kt_merge_stats(m, &st);
	getrusage(RUSAGE_SELF, &ru);
	print_message("stream: %lu calls, %lu samples, %lu lost, %lu late; reader+file %.1f ns/record (%.2f Mrec/s of reader CPU), wall %.0f ms, queue mem %zu KiB, maxrss %ld KiB\n",
		      pr.n, (unsigned long)s.samples, (unsigned long)lost,
		      (unsigned long)st.late,
		      (double)(c1 - c0) / (s.samples ? s.samples : 1),
		      s.samples * 1e3 / (double)(c1 - c0 ? c1 - c0 : 1),
		      (w1 - w0) / 1e6, st.mem / 1024, ru.ru_maxrss);
	assert_int_equal(s.samples + lost, (uint64_t)pr.n);
	assert_int_equal(st.late, 0);

	/* The file holds them all, in time order. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	kf = kt_kfile_open(path);
	assert_non_null(kf);
	n = 0;
	while (kt_kfile_next(kf, &rec) == 1) {
		uint64_t ts;

		if (rec->type != PERF_RECORD_SAMPLE)
			continue;
		n++;
		assert_true(kt_merge_rec_time(&cfg, rec, &ts));
		if (ts < last)
			unordered++;
		last = ts;
	}
	assert_int_equal(n, s.samples);
	assert_int_equal(unordered, 0);
	kt_kfile_free(kf);
	close(fd);
	kt_merge_free(m);
	kt_perf_free(p);
	pthread_barrier_destroy(&pr.go);
}

static void burn(uint64_t ns)
{
	uint64_t t0 = thread_cpu_ns();
	volatile uint64_t x = 0;

	while (thread_cpu_ns() - t0 < ns)
		x++;
}

/* Software counters count; hardware ones are reported, not fatal. */
static void test_counters(void **state)
{
	static const char *const names[] = {
		"task-clock", "context-switches", "page-faults", "cycles",
	};
	struct kt_perf_event evs[4];
	struct kt_counter_val v;
	struct kt_counters *c;
	int i, err;

	(void)state;
	for (i = 0; i < 4; i++) {
		memset(&evs[i], 0, sizeof(evs[i]));
		assert_int_equal(kt_counter_lookup(names[i], &evs[i].type,
						   &evs[i].config), 0);
	}
	assert_int_equal(kt_counter_lookup("bogus", &evs[0].type,
					   &evs[0].config), -ENOENT);
	c = kt_counters_open(evs, 4, 0, NULL, 0, false, false);
	if (!c && (errno == EACCES || errno == EPERM))
		skip();
	assert_non_null(c);
	assert_int_equal(kt_counters_status(c, 0), 0);
	assert_int_equal(kt_counters_status(c, 1), 0);
	assert_int_equal(kt_counters_enable(c), 0);
	burn(30 * 1000000);
	for (i = 0; i < 20; i++)
		usleep(500);
	assert_int_equal(kt_counters_disable(c), 0);

	assert_int_equal(kt_counters_read(c, 0, &v), 0);
	assert_true(v.raw >= 25 * 1000000ull);		/* >= 25 ms */
	assert_true(v.raw < 5000 * 1000000ull);
	assert_true(v.enabled >= v.running);
	assert_int_equal(kt_counters_read(c, 1, &v), 0);
	assert_true(v.raw >= 20);			/* the sleeps */
	err = kt_counters_status(c, 3);
	if (err) {
		assert_true(kt_perf_unsupported(err));
		assert_int_equal(kt_counters_read(c, 3, &v), -EOPNOTSUPP);
	} else {
		assert_int_equal(kt_counters_read(c, 3, &v), 0);
		assert_true(v.raw > 0);
	}
	kt_counters_free(c);
}

static void test_default_pages(void **state)
{
	long page = sysconf(_SC_PAGESIZE);

	(void)state;
	assert_int_equal(kt_perf_default_pages() * page,
			 KT_PERF_DEFAULT_RING_BYTES);
}

static void test_advice(void **state)
{
	struct kt_perf_fail f = { .err = EPERM, .stage = KT_PERF_STAGE_MMAP,
				  .ring_bytes = 8 << 20, .nr_rings = 2 };
	char buf[1024];

	(void)state;
	assert_true(kt_perf_advice(&f, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "perf_event_mlock_kb"));
	assert_non_null(strstr(buf, "RLIMIT_MEMLOCK"));
	assert_non_null(strstr(buf, "8192 KiB"));
	f.err = ENOMEM;
	kt_perf_advice(&f, buf, sizeof(buf));
	assert_non_null(strstr(buf, "-m"));
	assert_null(strstr(buf, "mlock"));
	f.err = EACCES;
	f.stage = KT_PERF_STAGE_OPEN;
	kt_perf_advice(&f, buf, sizeof(buf));
	assert_non_null(strstr(buf, "perf_event_paranoid"));
}

/* Where kt_perf_open() says it failed: the rings before any open, a task
 * that is gone, every task gone. */
static void test_open_fail(void **state)
{
	struct kt_perf_event ev = { .type = PERF_TYPE_SOFTWARE,
				    .config = PERF_COUNT_SW_DUMMY };
	struct kt_perf_opts o = { 0 };
	struct kt_perf_fail fail;
	pid_t self = getpid(), gone[2];
	long page = sysconf(_SC_PAGESIZE);
	int i;

	(void)state;
	/* 64 GiB a CPU: more than half the memory available */
	o.pids = &self;
	o.nr_pids = 1;
	o.ring_pages = (64ull << 30) / page;
	assert_null(kt_perf_open(&ev, 1, &o, &fail));
	assert_int_equal(fail.stage, KT_PERF_STAGE_MMAP);
	assert_true(fail.err == E2BIG || fail.err == ENOMEM ||
		    fail.err == EPERM);
	assert_int_equal(fail.ring_bytes, (o.ring_pages + 1) * page);
	assert_int_equal(fail.nr_rings, sysconf(_SC_NPROCESSORS_ONLN));

	for (i = 0; i < 2; i++) {
		gone[i] = fork();
		assert_true(gone[i] >= 0);
		if (!gone[i])
			_exit(0);
		assert_int_equal(waitpid(gone[i], NULL, 0), gone[i]);
	}
	o.ring_pages = 16;
	o.pids = gone;
	o.nr_pids = 1;
	assert_null(kt_perf_open(&ev, 1, &o, &fail));
	assert_int_equal(errno, ESRCH);
	assert_int_equal(fail.stage, KT_PERF_STAGE_OPEN);
	assert_int_equal(fail.pid, gone[0]);
	assert_true(fail.cpu >= 0);
	/* threads of -p that exited are skipped, until none is left */
	o.nr_pids = 2;
	assert_null(kt_perf_open(&ev, 1, &o, &fail));
	assert_int_equal(errno, ESRCH);
	assert_int_equal(fail.stage, KT_PERF_STAGE_OPEN);
	assert_int_equal(fail.pid, gone[0]);
	assert_int_equal(fail.cpu, -1);
}

/* ktrace_stat_open's options: a process (every thread), every CPU (all
 * zero, or NULL), a process that is gone. */
static void test_stat_opts(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_stat_opts o = { .pid = getpid() };
	struct ktrace_stat *st;
	uint64_t v = 0;
	pid_t gone;

	(void)state;
	st = ktrace_stat_alloc(NULL);
	assert_non_null(st);
	assert_int_equal(ktrace_stat_add(st, "task-clock", &err), 0);
	assert_int_equal(ktrace_stat_open(st, &o, &err), 0);
	assert_int_equal(ktrace_stat_enable(st), 0);
	for (volatile int i = 0; i < 1000000; i++)
		;
	assert_int_equal(ktrace_stat_disable(st), 0);
	assert_int_equal(ktrace_stat_read(st, 0, &v, NULL, NULL), 0);
	assert_true(v > 0);
	ktrace_stat_free(st);

	gone = fork();
	assert_true(gone >= 0);
	if (!gone)
		_exit(0);
	assert_int_equal(waitpid(gone, NULL, 0), gone);
	o.pid = gone;
	st = ktrace_stat_alloc(NULL);
	assert_int_equal(ktrace_stat_add(st, "task-clock", &err), 0);
	assert_int_equal(ktrace_stat_open(st, &o, &err), -ESRCH);
	assert_non_null(strstr(err.msg, "no such process"));
	ktrace_err_clear(&err);
	ktrace_stat_free(st);

	if (geteuid() != 0)
		skip();	/* every CPU: root's */
	st = ktrace_stat_alloc(NULL);
	assert_int_equal(ktrace_stat_add(st, "cpu-clock", &err), 0);
	assert_int_equal(ktrace_stat_open(st, NULL, &err), 0);
	assert_int_equal(ktrace_stat_enable(st), 0);
	usleep(20000);
	assert_int_equal(ktrace_stat_disable(st), 0);
	assert_int_equal(ktrace_stat_read(st, 0, &v, NULL, NULL), 0);
	/* every CPU ran (if only idle) the 20 ms */
	assert_true(v >= 20000000ull * sysconf(_SC_NPROCESSORS_ONLN) / 2);
	ktrace_stat_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_pages),
		cmocka_unit_test(test_advice),
		cmocka_unit_test(test_open_fail),
		cmocka_unit_test(test_getppid_1000),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_stat_opts),
		cmocka_unit_test(test_child_exec),
		cmocka_unit_test(test_getppid_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
