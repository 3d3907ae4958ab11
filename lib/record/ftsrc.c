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
	kt_pipe_close(f->pipe);
	/* the kernel disables the instance's events with it; then their
	 * probes can be removed */
	if (f->inst)
		kt_own_inst_destroy(f->inst);
	kt_sample_buf_free(&f->sb);
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

/* Open trace_pipe_raw of every CPU the recording watches. */
static int open_cpus(struct kt_ftsrc *f, const struct ktrace_record_opts *opts,
		     struct ktrace_err *err)
{
	f->pipe = kt_pipe_open(f->inst, opts->cpus,
			       opts->cpus ? opts->nr_cpus : 0);
	if (!f->pipe)
		return kt_err_set(err, errno,
				  "cannot read the buffers of %s: %m",
				  kt_inst_name(f->inst));
	return 0;
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
	return r->live.ft.pipe ? kt_pipe_nr(r->live.ft.pipe) : 0;
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

/* One CPU's pull into its merge source. */
struct pull {
	struct ktrace_record *r;
	int src;
	long n;			/* samples added */
};

/* One event of the instance's buffers into the merge, as a sample of its
 * event (others skipped); the kernel's losses before it as a LOST. */
static int pull_one(void *arg, const struct kt_pipe_ev *ev)
{
	struct pull *pl = arg;
	struct ktrace_record *r = pl->r;
	const struct perf_event_header *h;
	uint16_t type;
	int e, ret;

	if (ev->missed) {
		/* -1: the kernel lost some, not how many */
		ret = add_lost(r, pl->src, ev->cpu, ev->ts,
			       ev->missed > 0 ? ev->missed : 1);
		if (ret)
			return ret;
	}
	if (ev->size < 8)
		return 0;
	memcpy(&type, ev->data, 2);
	e = event_of_type(r, type);
	if (e < 0)
		return 0;
	h = kt_sample_build(&r->live.ft.sb, r->dec.mcfg.sample_type,
			    event_sample_id(r, e), ev->cpu, ev->ts, ev->data,
			    ev->size);
	if (!h)
		return -ENOMEM;
	ret = kt_merge_add(r->live.merge, pl->src, h);
	if (!ret)
		pl->n++;
	return ret;
}

long kt_ftsrc_pull(struct ktrace_record *r)
{
	struct kt_ftsrc *f = &r->live.ft;
	long total = 0;

	for (int i = 0; f->pipe && i < kt_pipe_nr(f->pipe); i++) {
		struct pull pl = { .r = r, .src = f->src0 + i };
		long got = kt_pipe_read(f->pipe, i, FT_PULL_PAGES, pull_one,
					&pl);

		if (got < 0)
			return got;
		total += pl.n;
	}
	return total;
}
