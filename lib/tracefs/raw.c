// SPDX-License-Identifier: LGPL-2.1-only
/*
 * An instance's own ring buffers read as records come (each CPU's
 * trace_pipe_raw, through libtracefs's iterator): for the events perf
 * cannot open, such as synthetic events, whose records the kernel writes
 * only into ftrace's buffers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "tracefs/tfs_priv.h"

struct kt_raw {
	struct tep_handle *tep;	/* the header page and the systems' events */
	kt_raw_fn fn;		/* of the read under way */
	void *arg;
	int ret;
};

struct kt_raw *kt_raw_alloc(struct ktrace_tfs *tfs,
			    const char *const *systems)
{
	struct kt_raw *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->tep = tracefs_local_events_system(tfs->dir, systems);
	if (!r->tep) {
		free(r);
		errno = errno ? errno : ENOENT;
		return NULL;
	}
	return r;
}

void kt_raw_free(struct kt_raw *r)
{
	if (!r)
		return;
	tep_free(r->tep);
	free(r);
}

static int one(struct tep_event *ev, struct tep_record *rec, int cpu,
	       void *arg)
{
	struct kt_raw *r = arg;
	struct kt_raw_rec kr = {
		.cpu = cpu, .ts = rec->ts, .data = rec->data,
		.size = rec->size, .id = ev ? ev->id : -1,
		.system = ev ? ev->system : NULL,
		.name = ev ? ev->name : NULL,
	};

	r->ret = r->fn(r->arg, &kr);
	return r->ret;
}

int kt_raw_read(struct kt_raw *r, const struct ktrace_inst *inst,
		kt_raw_fn fn, void *arg)
{
	r->fn = fn;
	r->arg = arg;
	r->ret = 0;
	if (tracefs_iterate_raw_events(r->tep, inst->ti, NULL, 0, one, r) < 0 &&
	    !r->ret)
		return -(errno ? errno : EIO);
	return r->ret;
}

int kt_raw_field(const struct kt_raw *r, const struct kt_raw_rec *rec,
		 const char *name, unsigned long long *val, int *offset)
{
	struct tep_event *ev = tep_find_event(r->tep, rec->id);
	struct tep_format_field *f = ev ? tep_find_any_field(ev, name) : NULL;

	if (!f)
		return -ENOENT;
	if (offset)
		*offset = f->offset;
	if (!val)
		return 0;
	if (f->offset + f->size > (int)rec->size || f->size > 8)
		return -EINVAL;
	*val = tep_read_number(r->tep, (const char *)rec->data + f->offset,
			       f->size);
	return 0;
}
