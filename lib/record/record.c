// SPDX-License-Identifier: LGPL-2.1-only
/*
 * A recording, composed of its parts (record.h): made empty for a live
 * recording (events added, then ktrace_record_open()), or loaded from a
 * file; freed part by part.
 */
#include <errno.h>
#include <stdlib.h>

#include <event-parse.h>

#include "record/record.h"

struct ktrace_record *ktrace_record_alloc(struct ktrace_tfs *tfs)
{
	struct ktrace_record *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->tfs = tfs;
	if (kt_evtable_init(&r->evt)) {
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	tep_set_function_resolver(r->evt.tep, kt_symbolize_tep_ksym, &r->sym);
	kt_format_init(&r->fmt);
	kt_writer_init(&r->w);
	/* live until loaded from a file: comms from /proc, kallsyms */
	r->sym.kallsyms = true;
	return r;
}

void ktrace_record_set_stop(struct ktrace_record *r, const volatile int *stop)
{
	r->as.stop = stop;
}

void ktrace_record_free(struct ktrace_record *r)
{
	if (!r)
		return;
	kt_live_free(&r->live);
	kt_writer_free(&r->w);
	kt_replay_free(&r->file);
	kt_ustacks_free(&r->ust);
	kt_decoder_free(&r->dec);
	kt_offcpu_free(&r->off);
	kt_comms_free(&r->comm);
	kt_format_free(&r->fmt);
	kt_symbolizer_free(&r->sym);
	kt_addrspace_free(&r->as);
	kt_evtable_free(&r->evt);
	free(r);
}

struct ktrace_record *ktrace_record_load(const char *path,
					 struct ktrace_err *err)
{
	struct ktrace_record *r = ktrace_record_alloc(NULL);
	int ret;

	if (!r)
		return NULL;
	ret = kt_replay_load(r, path, err);
	if (ret) {
		ktrace_record_free(r);
		errno = ret;
		return NULL;
	}
	return r;
}
