/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The events of a recording (evtable.c): what each is (a tracepoint or
 * probe with its parsed format, or a sampling event), and which perf
 * sample ids belong to which. Filled by the source (the tracefs formats
 * of a live recording, a file's tables); read by every later stage.
 * Calls only fmtcheck.c of lib/record.
 *
 * Owns tep (libtraceevent's handle, which owns the parsed formats), ev[]
 * with its strings and ids[]; kt_evtable_free() frees them.
 */
#ifndef KTRACE_RECORD_EVTABLE_H
#define KTRACE_RECORD_EVTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrace.h"
#include "record/fmtcheck.h"

struct tep_event;
struct tep_handle;
struct tep_format_field;

struct rec_event {
	/* tracepoints and probes: PERF_TYPE_TRACEPOINT, config = id, te set;
	 * sampling events: their perf type and config, no te */
	uint32_t type;
	uint64_t config;
	char *system, *name;
	char *fullname;		/* "system:event" */
	int id;
	struct tep_event *te;
	char *filter;
	char *format;		/* the format file's text (for -o) */
	char label[160];	/* "system:event: " */
	size_t label_len;
	bool has_info;		/* its print fmt prints something */
	bool sym_fields;	/* it prints kernel addresses as symbols */
	/* fields its print fmt divides by: a record where one is 0 is not
	 * decoded (libtraceevent would divide by zero) */
	struct tep_format_field *div[KT_FMT_MAX_DIV];
	int ndiv;
	/* the bytes its fixed fields need; with __data_loc fields, each
	 * record's is checked (kt_raw_fits) */
	uint32_t raw_min;
	bool raw_dyn;
	/* live: only ftrace delivers it (an event probe), read from an
	 * instance's buffers (ftsrc.c) */
	bool ftrace;
};

struct rec_id {
	uint64_t id;
	int event;
};

struct kt_evtable {
	struct tep_handle *tep;
	struct rec_event *ev;
	int nev;
	struct rec_id *ids;	/* sorted by id */
	int nr_ids;
};

/* tep allocated for this machine's long and page size; 0 or -ENOMEM. */
int kt_evtable_init(struct kt_evtable *t);
void kt_evtable_free(struct kt_evtable *t);
/*
 * An event from its format text; its index, or -errno. untrusted (a file
 * from elsewhere): the text must pass kt_format_check(); when only its
 * print fmt does not, the event is kept with its fields and a print fmt
 * that says so; when its field lines do not, -EBADMSG and *why. The
 * running kernel's own formats are taken as they are.
 */
int kt_evtable_add_format(struct kt_evtable *t, const char *system,
			  const char *name, int id, const char *format,
			  size_t len, bool untrusted, const char **why);
/* A sampling event (a counter name of kt_counter_lookup); its index. */
int kt_evtable_add_counter(struct kt_evtable *t, const char *name,
			   uint32_t type, uint64_t config);
/* Which event each sample id is (ids[i] is events[i]); 0 or -ENOMEM. */
int kt_evtable_set_ids(struct kt_evtable *t, const uint64_t *ids,
		       const int *events, int n);

/* The event of a sample id, or -1 (per record: inline). */
static inline int kt_evtable_event_of(const struct kt_evtable *t, uint64_t id)
{
	int lo = 0, hi = t->nr_ids - 1;

	/* Most recordings have one event: no search at all. */
	if (t->nr_ids == 1)
		return t->ids[0].id == id ? t->ids[0].event : -1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (t->ids[mid].id == id)
			return t->ids[mid].event;
		if (t->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Does the record hold its event's fields? One compare per record; the
 * fields walked only for events with __data_loc fields. */
static inline bool kt_raw_holds(const struct rec_event *e,
				const struct ktrace_sample *s)
{
	return s->raw_size >= e->raw_min &&
	       (!e->raw_dyn || kt_raw_fits(e->te, s->raw, s->raw_size));
}

#endif
