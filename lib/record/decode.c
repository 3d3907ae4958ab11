// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Records decoded into samples, in the order the source hands them over;
 * the comm table and the address space learn from the records as they
 * pass, so each sample sees the names and mappings of its own time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"

int kt_decoder_stats_alloc(struct kt_decoder *d, int nr_cpus, int nev)
{
	d->nr_cpus = nr_cpus;
	d->lost_cpu = calloc(nr_cpus, sizeof(*d->lost_cpu));
	d->per_event = calloc(nev ? nev : 1, sizeof(*d->per_event));
	return d->lost_cpu && d->per_event ? 0 : -ENOMEM;
}

void kt_decoder_free(struct kt_decoder *d)
{
	free(d->lost_cpu);
	free(d->per_event);
}

/*
 * A PERF_RECORD_SAMPLE as the caller's sample. Returns 0 or -EINVAL for a
 * record shorter than its fields say, or of no event of the recording.
 */
static int parse_sample(struct ktrace_record *r,
			const struct perf_event_header *h,
			struct ktrace_sample *s)
{
	struct kt_sample ks;

	if (kt_sample_parse(&r->dec.fmt, h, &ks))
		return -EINVAL;
	*s = (struct ktrace_sample){
		.type = KTRACE_SAMPLE_EVENT,
		.time = ks.time,
		.cpu = ks.cpu,
		.pid = ks.pid,
		.tid = ks.tid,
		.event = kt_evtable_event_of(&r->evt, ks.id),
		.raw = ks.raw,
		.raw_size = ks.raw_size,
		.ips = ks.ips,
		.nr_ips = ks.nr_ips,
		.ip = ks.ip,
		.period = ks.period,
	};
	return s->event < 0 ? -EINVAL : 0;
}

/* The CPU in a non-sample record's sample_id trailer, or -1. */
static int trailer_cpu(const struct kt_decoder *d,
		       const struct perf_event_header *h)
{
	struct kt_sample ks;

	if (!(d->fmt.sample_type & PERF_SAMPLE_CPU) ||
	    kt_sample_parse(&d->fmt, h, &ks))
		return -1;
	return ks.cpu;
}

/* A LOST record as a sample; 0, or -EINVAL when it is too short. */
static int lost_sample(struct kt_decoder *d, uint64_t ts,
		       const struct perf_event_header *h,
		       struct ktrace_sample *s)
{
	const struct { struct perf_event_header h; uint64_t id, lost; }
		*l = (const void *)h;

	if (h->size < sizeof(*l))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->type = KTRACE_SAMPLE_LOST;
	s->time = ts;
	s->lost = l->lost;
	s->cpu = trailer_cpu(d, h);
	s->event = -1;
	d->lost += l->lost;
	if (s->cpu >= 0 && s->cpu < d->nr_cpus)
		d->lost_cpu[s->cpu] += l->lost;
	return 0;
}

/* What a record other than a sample or a loss teaches: comms, mappings. */
static void learn(struct ktrace_record *r, uint64_t ts,
		  const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_COMM: {
		const struct { struct perf_event_header h; uint32_t pid, tid;
			       char comm[]; } *c = (const void *)h;
		size_t max = h->size - sizeof(*c);

		if (h->size > sizeof(*c) && memchr(c->comm, '\0', max))
			kt_comms_set(&r->comm, c->tid, c->comm);
		break;
	}
	case PERF_RECORD_FORK: {
		const struct { struct perf_event_header h; uint32_t pid, ppid,
			       tid, ptid; } *f = (const void *)h;

		if (h->size >= sizeof(*f))
			kt_comms_fork(&r->comm, f->ptid, f->tid);
		break;
	}
	case PERF_RECORD_MMAP2:
		if (!r->dec.maps_pulled)
			kt_addrspace_note_mmap(&r->as, h, ts);
		break;
	}
}

int kt_record_emit(void *ctx, int src, uint64_t ts,
		   const struct perf_event_header *h)
{
	struct ktrace_record *r = ctx;
	struct kt_decoder *d = &r->dec;
	struct ktrace_sample s;

	(void)src;
	if (ts > d->last_time)
		d->last_time = ts;
	r->as.time = ts;
	if (h->type == PERF_RECORD_SAMPLE && (h->misc & KT_MISC_UNWOUND)) {
		/* unwound as it left the ring: the misc bit goes */
		struct perf_event_header *w = (struct perf_event_header *)h;

		w->misc &= ~KT_MISC_UNWOUND;
	} else if (h->type == PERF_RECORD_SAMPLE && r->ust.on) {
		h = kt_ustacks_unwind(&r->ust, &r->as, h);
		if (!h)
			return 0;
	}
	if (h->type == PERF_RECORD_SAMPLE) {
		/* libtraceevent reads the common header unchecked; a
		 * sampling event has no data (the kernel pads RAW) */
		if (parse_sample(r, h, &s) ||
		    (r->evt.ev[s.event].te && s.raw_size < 8))
			return 0;
		d->samples++;
		d->per_event[s.event]++;
		if (r->off.on && s.event == r->off.src) {
			int ret = kt_offcpu_sample(r, &s);

			if (ret || !r->off.src_shown)
				return ret;
		}
	} else if (h->type == PERF_RECORD_LOST) {
		if (lost_sample(d, ts, h, &s))
			return 0;
		if (r->off.on)	/* a switch-in may be among them */
			kt_offcpu_forget(&r->off);
	} else if (r->off.on && (h->type == PERF_RECORD_SWITCH ||
				 h->type == PERF_RECORD_SWITCH_CPU_WIDE)) {
		/* asked for off-CPU time only: not in the -o file */
		return kt_offcpu_switch(r, ts, h);
	} else {
		learn(r, ts, h);
		if (d->sink)
			d->sink(d->sink_ctx, h, NULL);
		return 0;
	}
	if (d->sink)
		d->sink(d->sink_ctx, h,
			h->type == PERF_RECORD_SAMPLE ? &s : NULL);
	if (d->fn)
		return d->fn(d->fnctx, &s);
	return 0;
}
