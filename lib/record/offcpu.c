// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Off-CPU time: a traced task's switch-out while it waits paired with the
 * next time it runs, handed on as one sample (offcpu.h says which records
 * say what, and why).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/internal.h"
#include "kfile/kfile.h"
#include "record/record.h"

/*
 * sched_switch's prev_state, as the kernel reports it since 4.14
 * (__trace_sched_switch_state()): 0 running, one bit of TASK_REPORT for a
 * task that waits (S, D, T, t, X, Z, P, I), TASK_REPORT_MAX (0x100) added
 * for a preempted one. Its print fmt masks with TASK_REPORT_MAX - 1.
 */
#define KT_TASK_REPORT_MAX 0x100	/* "prev_state & 255" below */

bool kt_offcpu_blocked(uint64_t prev_state)
{
	return (prev_state & (KT_TASK_REPORT_MAX - 1)) != 0;
}

int kt_offcpu_fields(struct kt_offcpu *o, struct tep_event *te)
{
	o->prev_state = te ? tep_find_field(te, "prev_state") : NULL;
	o->next_pid = te ? tep_find_field(te, "next_pid") : NULL;
	return o->prev_state && o->next_pid ? 0 : -ENOENT;
}

void kt_offcpu_free(struct kt_offcpu *o)
{
	for (size_t i = 0; i < o->cap; i++)
		free(o->v[i].ips);
	free(o->v);
	free(o->rec);
	o->v = NULL;
	o->rec = NULL;
	o->cap = o->used = o->rec_cap = 0;
}

/* tid's slot, or the free one where it goes (cap > used). */
static struct kt_oc_slot *slot_of(struct kt_offcpu *o, int tid)
{
	size_t i = ((uint32_t)tid * 2654435761u) & (o->cap - 1);

	while (o->v[i].tid != -1 && o->v[i].tid != tid)
		i = (i + 1) & (o->cap - 1);
	return &o->v[i];
}

/*
 * Room for one more task: the table rebuilt with the held switch-outs
 * only (the tasks that run are let go, with their stacks' buffers), at
 * most a quarter full. 0 or -ENOMEM.
 */
static int grow(struct kt_offcpu *o)
{
	struct kt_offcpu n = { .cap = 64 };
	size_t held = 0;

	for (size_t i = 0; i < o->cap; i++)
		held += o->v[i].tid != -1 && o->v[i].pending;
	while (n.cap < 4 * (held + 1))
		n.cap *= 2;
	n.v = malloc(n.cap * sizeof(*n.v));
	if (!n.v)
		return -ENOMEM;
	for (size_t i = 0; i < n.cap; i++)
		n.v[i] = (struct kt_oc_slot){ .tid = -1 };
	for (size_t i = 0; i < o->cap; i++) {
		struct kt_oc_slot *s = &o->v[i];

		if (s->tid != -1 && s->pending)
			*slot_of(&n, s->tid) = *s;
		else
			free(s->ips);
	}
	free(o->v);
	o->v = n.v;
	o->cap = n.cap;
	o->used = held;
	return 0;
}

int kt_offcpu_out(struct kt_offcpu *o, int pid, int tid, int cpu,
		  uint64_t ts, bool blocked, const uint64_t *ips,
		  uint32_t nr_ips)
{
	struct kt_oc_slot *s;

	if (!blocked) {
		/* preempted: it stays runnable, nothing to time */
		s = o->cap ? slot_of(o, tid) : NULL;
		if (s && s->tid == tid && s->pending) {
			s->pending = false;
			o->unpaired++;
		}
		return 0;
	}
	if (2 * (o->used + 1) > o->cap && grow(o))
		return -ENOMEM;
	s = slot_of(o, tid);
	if (s->tid == -1) {
		*s = (struct kt_oc_slot){ .tid = tid };
		o->used++;
	}
	if (s->pending)
		o->unpaired++;
	s->pending = false;
	if (nr_ips > s->cap_ips) {
		uint64_t *nv = realloc(s->ips, nr_ips * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		s->ips = nv;
		s->cap_ips = nr_ips;
	}
	if (nr_ips)
		memcpy(s->ips, ips, nr_ips * sizeof(*ips));
	s->nr_ips = nr_ips;
	s->pid = pid;
	s->cpu = cpu;
	s->out_ns = ts;
	s->pending = true;
	return 0;
}

bool kt_offcpu_in(struct kt_offcpu *o, int tid, uint64_t ts, int cpu,
		  struct ktrace_sample *out)
{
	struct kt_oc_slot *s = o->cap ? slot_of(o, tid) : NULL;

	if (!s || s->tid != tid || !s->pending)
		return false;
	s->pending = false;
	if (ts < s->out_ns) {	/* out of order: no period to give */
		o->unpaired++;
		return false;
	}
	*out = (struct ktrace_sample){
		.type = KTRACE_SAMPLE_EVENT,
		.time = ts,
		.cpu = cpu,
		.pid = s->pid,
		.tid = tid,
		.event = o->event,
		.ips = s->ips,
		.nr_ips = s->nr_ips,
		.period = ts - s->out_ns,
	};
	return true;
}

void kt_offcpu_forget(struct kt_offcpu *o)
{
	for (size_t i = 0; i < o->cap; i++)
		if (o->v[i].tid != -1 && o->v[i].pending) {
			o->v[i].pending = false;
			o->unpaired++;
		}
}

/*
 * A period as a record of the decoder's layout (to the sink: the -o file
 * keeps it) and as a sample (to the caller's function); the function's
 * non-zero, else 0.
 */
static int hand_out(struct ktrace_record *r, const struct ktrace_sample *s)
{
	struct kt_offcpu *o = &r->off;
	struct kt_decoder *d = &r->dec;
	struct kt_sample ks = {
		.id = KT_OFFCPU_ID, .pid = s->pid, .tid = s->tid,
		.time = s->time, .cpu = s->cpu, .period = s->period,
		.ips = s->ips, .nr_ips = s->nr_ips,
	};
	size_t need = 256 + 8 * (size_t)s->nr_ips;

	if (need > o->rec_cap) {
		/* malloc's memory is aligned for the u64 fields */
		unsigned char *nv = realloc(o->rec, need);

		if (!nv)
			return 0;
		o->rec = nv;
		o->rec_cap = need;
	}
	if (!kt_sample_write(&d->fmt, &ks, o->rec, o->rec_cap))
		return 0;
	o->periods++;
	d->samples++;
	d->per_event[o->event]++;
	if (d->sink)
		d->sink(d->sink_ctx, (const struct perf_event_header *)o->rec,
			s);
	return d->fn ? d->fn(d->fnctx, s) : 0;
}

int kt_offcpu_sample(struct ktrace_record *r, const struct ktrace_sample *s)
{
	struct kt_offcpu *o = &r->off;
	const struct rec_event *e = &r->evt.ev[s->event];
	unsigned long long state, next;
	struct ktrace_sample p;

	if (!kt_raw_holds(e, s) ||
	    tep_read_number_field(o->prev_state, s->raw, &state) ||
	    tep_read_number_field(o->next_pid, s->raw, &next))
		return 0;
	kt_offcpu_out(o, s->pid, s->tid, s->cpu, s->time,
		      kt_offcpu_blocked(state), s->ips, s->nr_ips);
	/* system-wide, the task switched to: it runs again now */
	if ((int)next > 0 && kt_offcpu_in(o, (int)next, s->time, s->cpu, &p))
		return hand_out(r, &p);
	return 0;
}

int kt_offcpu_switch(struct ktrace_record *r, uint64_t ts,
		     const struct perf_event_header *h)
{
	struct ktrace_sample p;
	struct kt_sample ks;

	/* a switch-out is the sched_switch sample's, with its stack */
	if ((h->misc & PERF_RECORD_MISC_SWITCH_OUT) ||
	    kt_sample_parse(&r->dec.fmt, h, &ks))
		return 0;
	if (kt_offcpu_in(&r->off, ks.tid, ts, ks.cpu, &p))
		return hand_out(r, &p);
	return 0;
}

int ktrace_record_add_off_cpu(struct ktrace_record *r, struct ktrace_err *err)
{
	struct kt_offcpu *o = &r->off;
	int idx = -1;

	if (r->live.perf || r->file.kf)
		return kt_err_set(err, EINVAL, "the recording is open already");
	for (int i = 0; i < r->evt.nev && idx < 0; i++)
		if (!strcmp(r->evt.ev[i].fullname, "sched:sched_switch"))
			idx = i;
	o->src_shown = idx >= 0;
	/* only the switch-outs of tasks that wait, filtered in the kernel
	 * before their stacks are taken (a preempted task gives none) */
	if (idx < 0)
		idx = ktrace_record_add_event(r, "sched:sched_switch",
					      "prev_state & 255", err);
	if (idx < 0)
		return idx;
	if (kt_offcpu_fields(o, r->evt.ev[idx].te))
		return kt_err_set(err, ENOENT,
				  "sched:sched_switch has no prev_state or next_pid field");
	o->src = idx;
	o->on = true;
	return 0;
}

int ktrace_record_off_cpu_event(const struct ktrace_record *r)
{
	return r->off.has_event ? r->off.event : -1;
}

int kt_offcpu_open(struct ktrace_record *r)
{
	struct kt_offcpu *o = &r->off;
	int idx;

	if (!o->on)
		return 0;
	idx = kt_evtable_add_counter(&r->evt, KT_KF_OFFCPU_NAME,
				     KT_KF_OFFCPU_TYPE, KT_KF_OFFCPU_CONFIG);
	if (idx < 0)
		return idx;
	o->event = idx;
	o->has_event = true;
	return 0;
}
