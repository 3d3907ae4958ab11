// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The events of a recording: their formats parsed by libtraceevent (from
 * this kernel's tracefs, or from a file and then held to fmtcheck.c's
 * rules first), sampling events by name, and the sample ids of each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "base/internal.h"
#include "capture/perf.h"
#include "capture/stat.h"
#include "tracefs/tfs.h"
#include "record/record.h"

int kt_evtable_init(struct kt_evtable *t)
{
	t->tep = tep_alloc();
	if (!t->tep)
		return -ENOMEM;
	tep_set_long_size(t->tep, sizeof(long));
	tep_set_page_size(t->tep, getpagesize());
	return 0;
}

static void ev_free(struct rec_event *e)
{
	free(e->system);
	free(e->name);
	free(e->filter);
	free(e->format);
	free(e->fullname);
}

void kt_evtable_free(struct kt_evtable *t)
{
	for (int i = 0; i < t->nev; i++)
		ev_free(&t->ev[i]);
	free(t->ev);
	free(t->ids);
	tep_free(t->tep);
}

static int id_cmp(const void *a, const void *b)
{
	const struct rec_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int kt_evtable_set_ids(struct kt_evtable *t, const uint64_t *ids,
		       const int *events, int n)
{
	struct rec_id *v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		v[i].id = ids[i];
		v[i].event = events[i];
	}
	qsort(v, n, sizeof(*v), id_cmp);
	free(t->ids);
	t->ids = v;
	t->nr_ids = n;
	return 0;
}

/* A new zeroed event slot at t->ev[t->nev] (not yet counted), or NULL. */
static struct rec_event *ev_slot(struct kt_evtable *t)
{
	struct rec_event *nv = realloc(t->ev, (t->nev + 1) * sizeof(*nv));

	if (!nv)
		return NULL;
	t->ev = nv;
	memset(&nv[t->nev], 0, sizeof(*nv));
	return &nv[t->nev];
}

/* A print fmt with %ps, %pS, %pf, %pF or %pB: kernel addresses shown as
 * symbols ("%%" is a literal percent). */
static bool prints_symbols(const char *fmt)
{
	for (const char *p = fmt; (p = strchr(p, '%')); p++) {
		if (p[1] == '%') {
			p++;
			continue;
		}
		if (p[1] == 'p' && p[2] && strchr("sSfFB", p[2]))
			return true;
	}
	return false;
}

int kt_evtable_add_format(struct kt_evtable *t, const char *system,
			  const char *name, int id, const char *format,
			  size_t len, bool untrusted, const char **why)
{
	struct tep_event *te = NULL;
	struct kt_fmt_info fi;
	struct rec_event *e;
	const char *parsed = format, *pf;
	char *safe = NULL;
	size_t plen = len;
	int ret;

	*why = NULL;
	if (kt_format_check(format, len, &fi, why) && untrusted) {
		if (!fi.header_ok)
			return -EBADMSG;
		/* the fields decode (JSON, filters); the text says why the
		 * print fmt is not used */
		pf = memmem(format, len, "\nprint fmt:", 11);
		if (!pf || asprintf(&safe,
				    "%.*s\nprint fmt: \"[print fmt not decoded: %s]\"\n",
				    (int)(pf - format), format, *why) < 0)
			return -ENOMEM;
		parsed = safe;
		plen = strlen(safe);
		fi.ndiv = 0;
	}
	ret = tep_parse_format(t->tep, &te, parsed, plen, system);
	free(safe);
	if (ret != TEP_ERRNO__SUCCESS || !te)
		return -EINVAL;
	e = ev_slot(t);
	if (!e)
		return -ENOMEM;
	e->raw_min = kt_raw_need(te, &e->raw_dyn);
	e->ndiv = 0;
	for (int i = 0; i < fi.ndiv; i++) {
		struct tep_format_field *f = tep_find_field(te, fi.div[i]);

		if (f)
			e->div[e->ndiv++] = f;
	}
	e->system = strdup(system);
	e->name = strdup(name);
	e->format = strndup(format, len);
	if (asprintf(&e->fullname, "%s:%s", system, name) < 0)
		e->fullname = NULL;
	e->id = id;
	e->te = te;
	e->type = PERF_TYPE_TRACEPOINT;
	e->config = id;
	if (!e->system || !e->name || !e->format || !e->fullname) {
		ev_free(e);
		return -ENOMEM;
	}
	e->label_len = snprintf(e->label, sizeof(e->label), "%s:%s: ", system,
				name);
	if (e->label_len >= sizeof(e->label))
		e->label_len = sizeof(e->label) - 1;
	e->has_info = te->print_fmt.format && te->print_fmt.format[0];
	e->sym_fields = e->has_info && prints_symbols(te->print_fmt.format);
	return t->nev++;
}

int kt_evtable_add_counter(struct kt_evtable *t, const char *name,
			   uint32_t type, uint64_t config)
{
	struct rec_event *e = ev_slot(t);

	if (!e)
		return -ENOMEM;
	e->type = type;
	e->config = config;
	e->id = -1;
	e->name = strdup(name);
	e->fullname = strdup(name);
	if (!e->name || !e->fullname) {
		ev_free(e);
		return -ENOMEM;
	}
	e->label_len = snprintf(e->label, sizeof(e->label), "%s: ", name);
	if (e->label_len >= sizeof(e->label))
		e->label_len = sizeof(e->label) - 1;
	return t->nev++;
}

/* A sampling event by name (no ':'); its index, or -errno with err set. */
static int add_counter_named(struct kt_evtable *t, const char *event,
			     const char *filter, struct ktrace_err *err)
{
	uint64_t config;
	uint32_t type;
	char list[512];
	int ret;

	if (kt_counter_lookup(event, &type, &config)) {
		kt_counter_list(list, sizeof(list));
		return kt_err_set(err, EINVAL,
				  "bad event '%s': expected SYSTEM:EVENT or a sampling event (%s)",
				  event, list);
	}
	if (filter)
		return kt_err_set(err, EINVAL,
				  "'%s' is a sampling event: it takes no --filter",
				  event);
	ret = kt_evtable_add_counter(t, event, type, config);
	return ret < 0 ? kt_err_set(err, -ret, "out of memory") : ret;
}

/* The tracefs event sys:name, from its id and format files; its index. */
static int add_tracefs_event(struct ktrace_record *r, const char *event,
			     const char *sys, const char *name,
			     struct ktrace_err *err)
{
	struct ktrace_inst *top = kt_tfs_top(r->tfs);
	const char *why;
	size_t len;
	char *buf;
	int ret, id;

	buf = kt_event_read(top, sys, name, "id", NULL);
	if (!buf)
		return kt_err_set(err, errno == ENOENT ? ENOENT : errno,
				  "no such event '%s'", event);
	id = atoi(buf);
	free(buf);
	buf = kt_event_read(top, sys, name, "format", &len);
	if (!buf)
		return kt_err_set(err, errno, "cannot read format of '%s': %m",
				  event);
	ret = kt_evtable_add_format(&r->evt, sys, name, id, buf, len, false,
				    &why);
	free(buf);
	if (ret < 0)
		kt_err_set(err, -ret, "cannot parse the format of '%s'",
			   event);
	return ret;
}

int ktrace_record_add_event(struct ktrace_record *r, const char *event,
			    const char *filter, struct ktrace_err *err)
{
	const char *c = strchr(event, ':');
	struct kt_evtable *t = &r->evt;
	char *sys, *name;
	int ret;

	if (!c)
		return add_counter_named(t, event, filter, err);
	sys = strndup(event, c - event);
	name = strdup(c + 1);
	if (!sys || !name) {
		ret = -ENOMEM;
		goto out;
	}
	if (kt_name_check(sys) || kt_name_check(name)) {
		ret = kt_err_set(err, EINVAL, "bad event name '%s'", event);
		goto out;
	}
	ret = add_tracefs_event(r, event, sys, name, err);
	if (ret < 0 || !filter)
		goto out;
	if (kt_filter_check(t->ev[ret].te, event, filter, err) < 0)
		ret = -EINVAL;
	else if (!(t->ev[ret].filter = strdup(filter)))
		ret = -ENOMEM;
	if (ret < 0)	/* the event is not taken */
		ev_free(&t->ev[--t->nev]);
out:
	free(sys);
	free(name);
	return ret;
}

int ktrace_record_nr_events(const struct ktrace_record *r)
{
	return r->evt.nev;
}

const char *ktrace_record_event_name(const struct ktrace_record *r, int i)
{
	if (i < 0 || i >= r->evt.nev)
		return NULL;
	return r->evt.ev[i].fullname;
}
