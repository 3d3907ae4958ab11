// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The ftrace source of a live recording (see ftsrc.h): event probes read
 * from an instance's ring buffers, as perf samples.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <kbuffer.h>

#include "base/internal.h"
#include "tracefs/tfs.h"
#include "capture/merge.h"
#include "capture/perf.h"
#include "record/record.h"
#include "record/ftsrc.h"

/* Subbuffers read from one CPU in one pull, at most: the others wait. */
#define FT_PULL_PAGES 256

void kt_ftsrc_free(struct kt_ftsrc *f)
{
	for (int i = 0; i < f->nr; i++)
		if (f->fd[i] >= 0)
			close(f->fd[i]);
	/* the kernel disables the instance's events with it; then their
	 * probes can be removed */
	if (f->inst)
		kt_own_inst_destroy(f->inst);
	if (f->kbuf)
		kbuffer_free(f->kbuf);
	free(f->fd);
	free(f->cpu);
	free(f->page);
	free(f->rec);
	memset(f, 0, sizeof(*f));
}

/* Mark the events only ftrace delivers (event probes); how many. */
static int mark_events(struct ktrace_record *r)
{
	struct kt_dyn_set ds;
	int n = 0;

	if (kt_dyn_load(r->tfs, &ds)) {
		kt_dyn_free(&ds);
		return 0;
	}
	for (int i = 0; i < r->evt.nev; i++) {
		struct rec_event *e = &r->evt.ev[i];

		for (int j = 0; e->te && j < ds.n; j++)
			if (ds.v[j].kind == KTRACE_KIND_EPROBE &&
			    !strcmp(ds.v[j].system, e->system) &&
			    !strcmp(ds.v[j].name, e->name)) {
				e->ftrace = true;
				n++;
			}
	}
	kt_dyn_free(&ds);
	return n;
}

/* set_event_pid: the target's tasks (and with inherit, their children). */
static int set_pids(struct ktrace_inst *inst,
		    const struct ktrace_record_opts *opts)
{
	size_t cap = 16 + 12 * (size_t)opts->nr_pids, len = 0;
	char *s;
	int ret;

	if (!opts->nr_pids)
		return 0;
	s = malloc(cap);
	if (!s)
		return -ENOMEM;
	for (int i = 0; i < opts->nr_pids; i++)
		len += snprintf(s + len, cap - len, "%s%d", i ? " " : "",
				opts->pids[i]);
	ret = kt_inst_write(inst, "set_event_pid", s, O_TRUNC);
	free(s);
	if (!ret && opts->inherit)
		ret = kt_inst_write(inst, "options/event-fork", "1", O_TRUNC);
	return ret;
}

/* The instance: clock, size, pids, then the events with their filters. */
static int inst_setup(struct ktrace_record *r, struct kt_ftsrc *f,
		      const struct ktrace_record_opts *opts,
		      struct ktrace_err *err)
{
	size_t pages = opts->ring_pages ? opts->ring_pages :
		       KT_PERF_DEFAULT_RING_BYTES / getpagesize();
	char kb[32];
	int ret;

	f->inst = kt_own_inst_create(r->tfs);
	if (!f->inst)
		return kt_err_set(err, errno,
				  "cannot make an instance for the event probes: %m");
	ret = kt_inst_write(f->inst, "trace_clock", "mono", O_TRUNC);
	if (ret)
		return kt_err_set(err, -ret,
				  "cannot set the instance's clock to mono: %s",
				  strerror(-ret));
	snprintf(kb, sizeof(kb), "%zu", pages * getpagesize() / 1024);
	ret = kt_inst_write(f->inst, "buffer_size_kb", kb, O_TRUNC);
	if (!ret)
		ret = set_pids(f->inst, opts);
	for (int i = 0; !ret && i < r->evt.nev; i++) {
		struct rec_event *e = &r->evt.ev[i];

		if (!e->ftrace)
			continue;
		if (e->filter)
			ret = kt_event_write(f->inst, e->system, e->name,
					     "filter", e->filter);
		if (!ret)
			ret = kt_event_write(f->inst, e->system, e->name,
					     "enable", "1");
		if (ret)
			return kt_err_set(err, -ret, "cannot enable %s in %s: %s",
					  e->fullname,
					  kt_inst_name(f->inst), strerror(-ret));
	}
	if (ret)
		return kt_err_set(err, -ret, "cannot set up instance %s: %s",
				  kt_inst_name(f->inst), strerror(-ret));
	return 0;
}

/* The subbuffer size: buffer_subbuf_size_kb (Linux 6.8+), else a page. */
static size_t subbuf_size(struct ktrace_inst *inst)
{
	char *s = kt_inst_read(inst, "buffer_subbuf_size_kb", NULL);
	size_t n = s ? strtoul(s, NULL, 10) * 1024 : 0;

	free(s);
	return n > (size_t)getpagesize() ? n : (size_t)getpagesize();
}

/* Open trace_pipe_raw of every CPU the recording watches. */
static int open_cpus(struct kt_ftsrc *f, const struct ktrace_record_opts *opts,
		     struct ktrace_err *err)
{
	int ncpu = opts->cpus ? opts->nr_cpus :
		   (int)sysconf(_SC_NPROCESSORS_CONF);

	f->fd = calloc(ncpu > 0 ? ncpu : 1, sizeof(*f->fd));
	f->cpu = calloc(ncpu > 0 ? ncpu : 1, sizeof(*f->cpu));
	if (!f->fd || !f->cpu)
		return -ENOMEM;
	for (int i = 0; i < ncpu; i++) {
		int cpu = opts->cpus ? opts->cpus[i] : i;
		char rel[64], *path;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		path = kt_inst_path(f->inst, rel);
		if (!path)
			return -ENOMEM;
		f->fd[f->nr] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		free(path);
		if (f->fd[f->nr] < 0) {
			if (errno == ENOENT)	/* a CPU not possible */
				continue;
			return kt_err_set(err, errno,
					  "cannot read the buffer of CPU %d of %s: %m",
					  cpu, kt_inst_name(f->inst));
		}
		f->cpu[f->nr++] = cpu;
	}
	f->page_size = subbuf_size(f->inst);
	f->page = malloc(f->page_size);
	f->kbuf = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 :
				KBUFFER_LSIZE_4, KBUFFER_ENDIAN_LITTLE);
	return f->page && f->kbuf ? 0 : -ENOMEM;
}

int kt_ftsrc_open(struct ktrace_record *r,
		  const struct ktrace_record_opts *opts, int src0,
		  struct ktrace_err *err)
{
	struct kt_ftsrc *f = &r->live.ft;
	int ret;

	if (!mark_events(r))
		return 0;
	f->src0 = src0;
	ret = inst_setup(r, f, opts, err);
	if (!ret)
		ret = open_cpus(f, opts, err);
	if (ret) {
		if (ret == -ENOMEM)
			kt_err_set(err, ENOMEM, "out of memory");
		kt_ftsrc_free(f);
	}
	return ret;
}

int kt_ftsrc_nr_src(const struct ktrace_record *r)
{
	return r->live.ft.nr;
}

/* A sample id of event ev (any of its perf ids), or 0. */
static uint64_t event_sample_id(const struct ktrace_record *r, int ev)
{
	for (int i = 0; i < r->evt.nr_ids; i++)
		if (r->evt.ids[i].event == ev)
			return r->evt.ids[i].id;
	return 0;
}

/* The recording's event with tracefs id type, or -1. */
static int event_of_type(const struct ktrace_record *r, int type)
{
	for (int i = 0; i < r->evt.nev; i++)
		if (r->evt.ev[i].ftrace && r->evt.ev[i].id == type)
			return i;
	return -1;
}

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

/*
 * One event as a PERF_RECORD_SAMPLE of sample_type st (the bits
 * kt_perf_open() uses: IDENTIFIER, IP, TID, TIME, ID, STREAM_ID, CPU,
 * PERIOD, CALLCHAIN, RAW, REGS_USER, STACK_USER; kernel addresses and
 * user stacks empty). NULL: no memory, or a bit it cannot fill.
 */
static const struct perf_event_header *
as_sample(struct kt_ftsrc *f, uint64_t st, uint64_t id, int cpu, uint64_t ts,
	  const unsigned char *data, uint32_t size)
{
	uint32_t raw = ((4 + size + 7) & ~7u) - 4, pid = 0, u32[2];
	size_t len = sizeof(struct perf_event_header) + 12 * 8 + 4 + raw;
	uint64_t zero = 0, one = 1;
	struct perf_event_header *h;
	unsigned char *p;
	int32_t cpid;

	if (st & ~(uint64_t)(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			     PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			     PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			     PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			     PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
		return NULL;
	if (len > UINT16_MAX)
		return NULL;
	if (f->rec_cap < len) {
		unsigned char *n = realloc(f->rec, len);

		if (!n)
			return NULL;
		f->rec = n;
		f->rec_cap = len;
	}
	/* common_pid, the thread's id (the process's is not recorded) */
	if (size >= 8) {
		memcpy(&cpid, data + 4, 4);
		pid = (uint32_t)cpid;
	}
	h = (struct perf_event_header *)f->rec;
	p = f->rec + sizeof(*h);
	if (st & PERF_SAMPLE_IDENTIFIER)
		p = put(p, &id, 8);
	if (st & PERF_SAMPLE_IP)
		p = put(p, &zero, 8);
	u32[0] = u32[1] = pid;
	if (st & PERF_SAMPLE_TID)
		p = put(p, u32, 8);
	if (st & PERF_SAMPLE_TIME)
		p = put(p, &ts, 8);
	if (st & PERF_SAMPLE_ID)
		p = put(p, &id, 8);
	if (st & PERF_SAMPLE_STREAM_ID)
		p = put(p, &id, 8);
	u32[0] = cpu;
	u32[1] = 0;
	if (st & PERF_SAMPLE_CPU)
		p = put(p, u32, 8);
	if (st & PERF_SAMPLE_PERIOD)
		p = put(p, &one, 8);
	if (st & PERF_SAMPLE_CALLCHAIN)
		p = put(p, &zero, 8);	/* no frames */
	if (st & PERF_SAMPLE_RAW) {
		p = put(p, &raw, 4);
		p = put(p, data, size);
		memset(p, 0, raw - size);
		p += raw - size;
	}
	if (st & PERF_SAMPLE_REGS_USER)
		p = put(p, &zero, 8);	/* abi 0: no registers */
	if (st & PERF_SAMPLE_STACK_USER)
		p = put(p, &zero, 8);	/* no stack */
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_KERNEL;
	h->size = p - f->rec;
	return h;
}

/* n events the kernel dropped on cpu before time ts, as perf says it. */
static int add_lost(struct ktrace_record *r, int src, int cpu, uint64_t ts,
		    uint64_t n)
{
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t identifier;
	} rec;

	memset(&rec, 0, sizeof(rec));
	rec.h.type = PERF_RECORD_LOST;
	rec.h.size = sizeof(rec);
	rec.id = rec.identifier = r->evt.nr_ids ? r->evt.ids[0].id : 0;
	rec.lost = n;
	rec.pid = rec.tid = (uint32_t)-1;
	rec.time = ts;
	rec.cpu = cpu;
	return kt_merge_add(r->live.merge, src, &rec.h);
}

/* The events of the subbuffer in f->page into source src. */
static long pull_page(struct ktrace_record *r, int src, int cpu)
{
	struct kt_ftsrc *f = &r->live.ft;
	uint64_t st = r->dec.mcfg.sample_type;
	unsigned long long ts;
	long n = 0;
	void *data;
	int missed, ret;

	if (kbuffer_load_subbuffer(f->kbuf, f->page) < 0)
		return 0;
	missed = kbuffer_missed_events(f->kbuf);
	for (data = kbuffer_read_event(f->kbuf, &ts); data;
	     data = kbuffer_next_event(f->kbuf, &ts)) {
		const struct perf_event_header *h;
		uint32_t size = kbuffer_event_size(f->kbuf);
		uint16_t type;
		int ev;

		if (missed) {
			/* -1: the kernel lost some, not how many */
			ret = add_lost(r, src, cpu, ts, missed > 0 ? missed : 1);
			if (ret)
				return ret;
			missed = 0;
		}
		if (size < 8)
			continue;
		memcpy(&type, data, 2);
		ev = event_of_type(r, type);
		if (ev < 0)
			continue;
		h = as_sample(f, st, event_sample_id(r, ev), cpu, ts, data,
			      size);
		if (!h)
			return -ENOMEM;
		ret = kt_merge_add(r->live.merge, src, h);
		if (ret)
			return ret;
		n++;
	}
	return n;
}

long kt_ftsrc_pull(struct ktrace_record *r)
{
	struct kt_ftsrc *f = &r->live.ft;
	long total = 0;

	for (int i = 0; i < f->nr; i++) {
		for (int k = 0; k < FT_PULL_PAGES; k++) {
			ssize_t got = read(f->fd[i], f->page, f->page_size);
			long n;

			if (got <= 0)
				break;	/* EAGAIN: nothing more now */
			n = pull_page(r, f->src0 + i, f->cpu[i]);
			if (n < 0)
				return n;
			total += n;
		}
	}
	return total;
}
