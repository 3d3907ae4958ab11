// SPDX-License-Identifier: LGPL-2.1-only
/*
 * ktrace record -o FILE: a recording written into a self-contained kfile
 * (lib/kfile/kfile.h), for ktrace report to replay (replay.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "base/internal.h"
#include "kfile/kfile.h"
#include "tracefs/tfs.h"
#include "record/record.h"

void kt_writer_init(struct kt_writer *w)
{
	trace_seq_init(&w->symseq);
}

void kt_writer_free(struct kt_writer *w)
{
	free(w->ksym_written);
	free(w->how.sampling);
	if (w->kfw)
		kt_kfw_close(w->kfw, NULL);
	trace_seq_destroy(&w->symseq);
}

/* Mark the kernel symbols a record's symbol fields print: printing them
 * looks them up (kt_symbolize_tep_ksym()). */
static void mark_sym_fields(struct ktrace_record *r,
			    const struct ktrace_sample *s)
{
	const struct rec_event *e = &r->evt.ev[s->event];
	struct tep_record rec = {
		.ts = s->time,
		.data = (void *)s->raw,
		.size = s->raw_size,
		.cpu = s->cpu,
	};

	trace_seq_reset(&r->w.symseq);
	/* libtraceevent's printing crashes where an allocation fails */
	if (e->te && kt_raw_holds(e, s) &&
	    !kt_zero_divisor(e->div, e->ndiv, s->raw) &&
	    kt_mem_headroom(64u << 10))
		tep_print_event(r->evt.tep, &r->w.symseq, &rec, "%s",
				TEP_PRINT_INFO);
}

static void writer_sink(void *ctx, const struct perf_event_header *h,
			const struct ktrace_sample *s)
{
	struct ktrace_record *r = ctx;
	uint64_t st = r->dec.fmt.sample_type;

	if (s && (st & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_IP)))
		kt_symbolize_mark(&r->sym, &r->as, s,
				  (st & PERF_SAMPLE_IP) &&
				  !r->evt.ev[s->event].te);
	if (s && s->event >= 0 && r->evt.ev[s->event].sym_fields)
		mark_sym_fields(r, s);
	/* a task older than the recording: its comm into the file, as
	 * printing it live would have read it */
	if (s && s->type == KTRACE_SAMPLE_EVENT)
		kt_comms_get(&r->comm, s->tid);
	kt_kfw_record(r->w.kfw, h);
}

/*
 * META "clock": "REALTIME MONOTONIC", both in ns, read one after the
 * other, so that a reader can put a record's time (CLOCK_MONOTONIC) on
 * the calendar (report --pprof's time_nanos).
 */
static int write_clock(struct kt_kfw *kfw)
{
	struct timespec rt, mono;
	char v[48];

	if (clock_gettime(CLOCK_REALTIME, &rt) ||
	    clock_gettime(CLOCK_MONOTONIC, &mono))
		return 0;
	snprintf(v, sizeof(v), "%llu %llu",
		 (unsigned long long)rt.tv_sec * 1000000000ull + rt.tv_nsec,
		 (unsigned long long)mono.tv_sec * 1000000000ull +
		 mono.tv_nsec);
	return kt_kfw_meta(kfw, "clock", v);
}

int kt_writer_meta(struct kt_kfw *kfw, const char *cmdline)
{
	struct utsname u;
	char n[24];
	int ret = 0;

	if (!uname(&u)) {
		ret |= kt_kfw_meta(kfw, "kernel", u.release);
		ret |= kt_kfw_meta(kfw, "host", u.nodename);
	}
	ret |= kt_kfw_meta(kfw, "ktrace", KTRACE_VERSION);
	if (cmdline)
		ret |= kt_kfw_meta(kfw, "command", cmdline);
	snprintf(n, sizeof(n), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	ret |= kt_kfw_meta(kfw, "cpus-online", n);
	return ret | write_clock(kfw);
}

/* META for report --header: the CPUs, target, call graph and how each
 * event was sampled (readers before them print what they have). */
static int write_how(struct ktrace_record *r)
{
	const struct kt_writer_how *h = &r->w.how;
	struct kt_kfw *kfw = r->w.kfw;
	int ret = 0;

	if (*h->cpus)
		ret |= kt_kfw_meta(kfw, "cpus", h->cpus);
	if (*h->target)
		ret |= kt_kfw_meta(kfw, "target", h->target);
	if (*h->call_graph)
		ret |= kt_kfw_meta(kfw, "call-graph", h->call_graph);
	if (h->sampling)
		ret |= kt_kfw_meta(kfw, "sampling", h->sampling);
	return ret;
}

/* The file's header: what the recording is of; 0 or -1. */
static int write_header(struct ktrace_record *r, const char *cmdline)
{
	const struct kt_evtable *t = &r->evt;
	struct kt_kfw *kfw = r->w.kfw;
	char *hp;
	int ret = 0;

	ret |= kt_writer_meta(kfw, cmdline);
	ret |= write_how(r);
	for (int i = 0; i < t->nev; i++) {
		struct kt_kf_attr a = {
			.type = t->ev[i].type,
			.flags = KT_KF_ATTR_SAMPLE_ID_ALL,
			.config = t->ev[i].config,
			.sample_type = r->dec.fmt.sample_type,
			.clockid = CLOCK_MONOTONIC,
			.name = t->ev[i].fullname,
		};

		ret |= kt_kfw_attr(kfw, &a);
		/* a sampling event has no format: its name says it all */
		if (t->ev[i].te)
			ret |= kt_kfw_format(kfw, t->ev[i].id, t->ev[i].system,
					     t->ev[i].name, t->ev[i].format);
	}
	for (int i = 0; i < t->nr_ids; i++)
		ret |= kt_kfw_id(kfw, t->ids[i].id, t->ids[i].event, -1);
	hp = kt_event_read(kt_tfs_top(r->tfs), NULL, NULL, "header_page", NULL);
	if (hp) {
		ret |= kt_kfw_header_page(kfw, hp);
		free(hp);
	}
	return ret;
}

/* Whether the records name kernel symbols: then those used are noted. */
static bool uses_ksyms(const struct ktrace_record *r)
{
	bool sym_fields = false;

	for (int i = 0; i < r->evt.nev; i++)
		sym_fields |= r->evt.ev[i].sym_fields;
	return sym_fields ||
	       (r->dec.fmt.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_IP));
}

int ktrace_record_output(struct ktrace_record *r, int fd, const char *cmdline,
			 struct ktrace_err *err)
{
	struct kt_writer *w = &r->w;
	int ret;

	if (!r->live.perf)
		return kt_err_set(err, EINVAL, "recording not open");
	w->kfw = kt_kfw_open(fd, 0);
	if (!w->kfw)
		return kt_err_set(err, errno, "cannot start the file: %m");
	ret = write_header(r, cmdline);
	if (uses_ksyms(r)) {
		if (!kt_symbolizer_track(&r->sym))
			w->ksym_written = calloc(r->sym.ksyms.n / 8 + 1, 1);
		if (!w->ksym_written) {
			free(r->sym.ksym_used);
			r->sym.ksym_used = NULL;
			ret = -1;
		}
	}
	if (ret)
		return kt_err_set(err, EIO, "cannot write the file header");
	r->dec.sink = writer_sink;
	r->dec.sink_ctx = r;
	return 0;
}

/* Table entries learned since the last flush: comms of older tasks,
 * mappings read from /proc, kernel symbols the records use. */
static int write_new_tables(struct ktrace_record *r)
{
	struct kt_writer *w = &r->w;
	const struct kt_symbolizer *sy = &r->sym;
	int ret = 0;

	for (; w->comms_written < r->comm.nr_old; w->comms_written++) {
		const struct kt_kf_comm *c = &r->comm.old[w->comms_written];

		ret |= kt_kfw_comm(w->kfw, c->pid, c->tid, c->comm);
	}
	for (; w->maps_written < r->as.nr_maps; w->maps_written++) {
		const struct kt_map *mp = &r->as.maps[w->maps_written];

		if (!mp->synth)
			continue;
		struct kt_kf_mmap m = {
			.pid = mp->pid, .tid = mp->pid,
			.start = mp->start, .len = mp->len,
			.pgoff = mp->pgoff, .prot = 4,
			.filename = mp->path,
		};
		ret |= kt_kfw_mmap(w->kfw, &m);
	}
	for (size_t i = 0; sy->ksym_used && i < sy->ksyms.n; i += 8) {
		unsigned char n = sy->ksym_used[i / 8] & ~w->ksym_written[i / 8];

		for (int b = 0; n && b < 8; b++)
			if (n & (1 << b))
				ret |= kt_kfw_ksym(w->kfw,
						   sy->ksyms.v[i + b].addr, 't',
						   sy->ksyms.v[i + b].name);
		w->ksym_written[i / 8] |= n;
	}
	return ret;
}

int kt_writer_flush(struct ktrace_record *r, uint64_t now_ns, bool force)
{
	struct kt_writer *w = &r->w;
	uint64_t since = now_ns - w->flushed_ns;

	if (!w->kfw)
		return 0;
	if (!force && since < 1000000000ull &&
	    (since < 100000000ull || kt_kfw_pending(w->kfw) >= 65536))
		return 0;
	w->flushed_ns = now_ns;
	if (write_new_tables(r) || kt_kfw_flush(w->kfw))
		return -EIO;
	return 0;
}

/* A user frame, its source lines and its binary's build-id (once). */
static int write_uframe(void *ctx, const struct kt_uframe *f)
{
	struct kt_writer *w = ctx;
	int ret = kt_kfw_uframe(w->kfw, f->path, f->off, f->text);

	if (f->src)
		ret |= kt_kfw_usrc(w->kfw, f->path, f->off, f->src);
	if (f->build_id && f->path != w->id_path) {
		ret |= kt_kfw_build_id(w->kfw, f->path, f->build_id);
		w->id_path = f->path;
	}
	return ret;
}

int ktrace_record_output_error(const struct ktrace_record *r)
{
	return r->w.kfw ? kt_kfw_error(r->w.kfw) : 0;
}

int ktrace_record_output_close(struct ktrace_record *r, uint64_t *bytes)
{
	struct kt_writer *w = &r->w;
	int ret = 0, cerr;

	if (!w->kfw)
		return 0;
	ret |= write_new_tables(r);
	/* user frames are named once, at the end: reading DWARF while the
	 * rings fill would cost records */
	ret |= kt_addrspace_marked_frames(&r->as, write_uframe, w);
	/* the first write error sticks in the writer: its errno is said */
	cerr = kt_kfw_close(w->kfw, bytes);
	ret = cerr ? cerr : ret == -ENOMEM ? -ENOMEM : ret ? -EIO : 0;
	w->kfw = NULL;
	r->dec.sink = NULL;
	return ret;
}
