// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The function tracers' records in a ktrace file (see ftfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/internal.h"
#include "capture/perf.h"
#include "capture/sample.h"
#include "kfile/kfile.h"
#include "tracefs/tfs.h"
#include "record/record.h"
#include "record/ftfile.h"

static const char *const ft_events[] = {
	"function", "funcgraph_entry", "funcgraph_exit",
};
#define FT_NEV (sizeof(ft_events) / sizeof(ft_events[0]))

struct kt_ftw {
	struct kt_kfw *kfw;
	struct kt_fdec *dec;
	int type[FT_NEV];		/* the events' tracefs ids; -1 absent */
	struct kt_sample_buf sb;
	int err;
};

/* The tracefs id of a format text ("ID: N" line), or -1. */
static int format_id(const char *fmt)
{
	const char *l = strstr(fmt, "\nID:");

	if (!strncmp(fmt, "ID:", 3))
		l = fmt;
	else if (l)
		l++;
	return l ? atoi(l + 3) : -1;
}

/* Each event the instance has: ATTR, FORMAT, IDS (sample id i + 1). */
static int write_events(struct kt_ftw *w, const struct ktrace_inst *inst,
			struct ktrace_err *err)
{
	uint32_t nattr = 0;

	for (size_t i = 0; i < FT_NEV; i++) {
		char name[64];
		size_t len;
		char *fmt = kt_event_read(inst, "ftrace", ft_events[i],
					  "format", &len);
		struct kt_kf_attr a = {
			.type = PERF_TYPE_TRACEPOINT,
			.flags = KT_KF_ATTR_SAMPLE_ID_ALL,
			.sample_type = KT_PERF_SAMPLE_TYPE,
			.clockid = CLOCK_MONOTONIC,
			.name = name,
		};
		int ret;

		w->type[i] = -1;
		if (!fmt) {
			if (errno == ENOENT)
				continue;
			return kt_err_set(err, errno,
					  "cannot read the format of ftrace:%s: %m",
					  ft_events[i]);
		}
		w->type[i] = format_id(fmt);
		a.config = (uint64_t)w->type[i];
		snprintf(name, sizeof(name), "ftrace:%s", ft_events[i]);
		ret = kt_fdec_add(w->dec, fmt, len);
		if (!ret)
			ret = kt_kfw_attr(w->kfw, &a) |
			      kt_kfw_format(w->kfw, w->type[i], "ftrace",
					    ft_events[i], fmt) |
			      kt_kfw_id(w->kfw, i + 1, nattr, -1);
		free(fmt);
		if (ret)
			return kt_err_set(err, EINVAL,
					  "cannot write the format of ftrace:%s",
					  ft_events[i]);
		nattr++;
	}
	return nattr ? 0 : kt_err_set(err, ENOENT,
				       "this kernel has no ftrace events");
}

struct kt_ftw *kt_ftw_open(int fd, const struct ktrace_inst *inst,
			   const char *tracer, const char *cmdline,
			   struct ktrace_err *err)
{
	struct kt_ftw *w = calloc(1, sizeof(*w));

	if (!w) {
		kt_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	w->dec = kt_fdec_alloc();
	w->kfw = w->dec ? kt_kfw_open(fd, 0) : NULL;
	if (!w->kfw) {
		kt_err_set(err, errno, "cannot write the file: %m");
		goto fail;
	}
	if (kt_writer_meta(w->kfw, cmdline) ||
	    kt_kfw_meta(w->kfw, "tracer", tracer)) {
		kt_err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	if (write_events(w, inst, err))
		goto fail;
	return w;
fail:
	kt_ftw_close(w, NULL);
	return NULL;
}

/* The sample id of the event whose data this is, or 0. */
static uint64_t data_id(const struct kt_ftw *w, const void *data,
			uint32_t size)
{
	uint16_t type;

	if (size < 2)
		return 0;
	memcpy(&type, data, 2);
	for (size_t i = 0; i < FT_NEV; i++)
		if (w->type[i] == type)
			return i + 1;
	return 0;
}

int kt_ftw_add(struct kt_ftw *w, const struct kt_frec *r, const void *data,
	       uint32_t size)
{
	const struct perf_event_header *h;
	uint64_t id = data_id(w, data, size);

	if (w->err)
		return w->err;
	if (!id)
		return 0;
	h = kt_sample_build(&w->sb, KT_PERF_SAMPLE_TYPE, id, r->cpu, r->ts,
			    data, size);
	w->err = h ? kt_kfw_record(w->kfw, h) : -ENOMEM;
	return w->err;
}

int kt_ftw_ksym(struct kt_ftw *w, uint64_t addr, const char *name)
{
	return kt_kfw_ksym(w->kfw, addr, 't', name);
}

int kt_ftw_comm(struct kt_ftw *w, int pid, const char *comm)
{
	return kt_kfw_comm(w->kfw, pid, pid, comm);
}

int kt_ftw_meta(struct kt_ftw *w, const char *key, const char *value)
{
	return kt_kfw_meta(w->kfw, key, value);
}

int kt_ftw_close(struct kt_ftw *w, uint64_t *bytes)
{
	int ret = 0;

	if (!w)
		return 0;
	if (w->kfw)
		ret = kt_kfw_close(w->kfw, bytes);
	kt_fdec_free(w->dec);
	kt_sample_buf_free(&w->sb);
	ret = w->err ? w->err : ret;
	free(w);
	return ret;
}

/* ------------------------------------------------------------ reading */

struct ftread {
	struct kt_fdec *dec;
	kt_ftfile_fn fn;
	void *ctx;
};

static int ftread_one(void *arg, const struct ktrace_sample *s)
{
	struct ftread *rd = arg;
	struct kt_frec r;

	if (s->type != KTRACE_SAMPLE_EVENT ||
	    kt_fdec_decode(rd->dec, s->cpu, s->time, s->raw, s->raw_size,
			   &r) <= 0)
		return 0;
	return rd->fn(rd->ctx, &r);
}

long kt_ftfile_replay(struct ktrace_record *r, kt_ftfile_fn fn, void *ctx)
{
	struct ftread rd = { .fn = fn, .ctx = ctx };
	const struct kt_kf_format *fm;
	size_t nf;
	long n;

	if (!r->file.kf || !kt_kfile_meta_get(r->file.kf, "tracer"))
		return -EINVAL;
	rd.dec = kt_fdec_alloc();
	if (!rd.dec)
		return -ENOMEM;
	fm = kt_kfile_formats(r->file.kf, &nf);
	for (size_t i = 0; i < nf; i++)
		if (!strcmp(fm[i].system, "ftrace") &&
		    kt_fdec_add(rd.dec, fm[i].format, strlen(fm[i].format))) {
			kt_fdec_free(rd.dec);
			return -EBADMSG;
		}
	n = ktrace_record_replay(r, ftread_one, &rd, NULL, NULL);
	kt_fdec_free(rd.dec);
	return n;
}

const struct kt_symtab *kt_ftfile_ksyms(const struct ktrace_record *r)
{
	return &r->sym.ksyms;
}
