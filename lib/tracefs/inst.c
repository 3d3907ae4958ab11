// SPDX-License-Identifier: LGPL-2.1-only
/* Instances and the ftrace event controls: enable, filter, state, reset. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "base/internal.h"
#include "tracefs/tfs_priv.h"

/* The marker file saying ktrace created instance name; caller frees. */
static int mark_owned(struct ktrace_tfs *tfs, const char *name)
{
	return kt_state_mark(tfs, "instance", name);
}

static bool is_owned(struct ktrace_tfs *tfs, const char *name)
{
	return kt_state_has(tfs, "instance", name);
}

struct ktrace_inst *ktrace_inst_open(struct ktrace_tfs *tfs, const char *name,
				     bool create)
{
	struct ktrace_inst *inst;
	struct stat st;
	int saved;

	if (name && kt_name_check(name)) {
		errno = EINVAL;
		return NULL;
	}
	inst = calloc(1, sizeof(*inst));
	if (!inst)
		return NULL;
	inst->tfs = tfs;
	if (!name) {
		inst->dir = strdup(tfs->dir);
		if (!inst->dir)
			goto fail;
		return inst;
	}
	inst->name = strdup(name);
	inst->dir = kt_path("%s/instances/%s", tfs->dir, name);
	if (!inst->name || !inst->dir)
		goto fail;
	if (stat(inst->dir, &st) < 0) {
		if (errno != ENOENT || !create)
			goto fail;
		/* made in this tree, not libtracefs's process-wide one */
		if (mkdir(inst->dir, 0750) < 0)
			goto fail;
		inst->ti = tracefs_instance_alloc(tfs->dir, name);
		if (!inst->ti) {
			saved = errno;
			rmdir(inst->dir);
			errno = saved;
			goto fail;
		}
		if (mark_owned(tfs, name) < 0) {
			saved = errno;
			tracefs_instance_destroy(inst->ti);
			errno = saved;
			goto fail;
		}
		inst->owned = true;
		inst->is_new = true;
		return inst;
	}
	inst->ti = tracefs_instance_alloc(tfs->dir, name);
	if (!inst->ti)
		goto fail;
	inst->owned = is_owned(tfs, name);
	return inst;
fail:
	saved = errno;
	ktrace_inst_free(inst);
	errno = saved;
	return NULL;
}

void ktrace_inst_free(struct ktrace_inst *inst)
{
	if (!inst)
		return;
	tracefs_instance_free(inst->ti);
	free(inst->name);
	free(inst->dir);
	free(inst);
}

bool ktrace_inst_is_new(const struct ktrace_inst *inst)
{
	return inst->is_new;
}

const char *kt_inst_name(const struct ktrace_inst *inst)
{
	return inst->name;
}

bool ktrace_inst_owned(const struct ktrace_inst *inst)
{
	return inst->owned;
}

int ktrace_inst_destroy(struct ktrace_inst *inst)
{
	if (!inst->name || !inst->ti)
		return -EINVAL;
	if (tracefs_instance_destroy(inst->ti) < 0)
		return -errno;
	kt_state_unmark(inst->tfs, "instance", inst->name);
	inst->owned = false;
	return 0;
}

char **ktrace_inst_list(struct ktrace_tfs *tfs)
{
	char *p = kt_inst_path(&tfs->top, "instances");
	char **v = NULL;
	struct dirent *d;
	size_t n = 0;
	DIR *dir;

	if (!p)
		return NULL;
	dir = opendir(p);
	free(p);
	if (!dir)
		return NULL;
	v = calloc(1, sizeof(*v));
	while (v && (d = readdir(dir))) {
		char *s;

		if (d->d_name[0] == '.')
			continue;
		s = strdup(d->d_name);
		if (!s || kt_strv_push(&v, &n, s)) {
			free(s);
			ktrace_strv_free(v);
			v = NULL;
		}
	}
	closedir(dir);
	if (!v)
		errno = ENOMEM;
	return v;
}

/* Is the event enabled in inst? -errno when unreadable. */
static int event_enabled(struct ktrace_inst *inst, const char *sys,
			 const char *ev)
{
	char *buf = kt_event_read(inst, sys, ev, "enable", NULL);
	int ret;

	if (!buf)
		return -errno;
	ret = buf[0] == '1';
	free(buf);
	return ret;
}

int ktrace_inst_enable(struct ktrace_inst *inst, const char *const *globs,
		       int nglobs, bool on, unsigned int *hits)
{
	struct ktrace_events *evs;
	bool *changed;
	int n, nchanged = 0, ret = 0;

	evs = ktrace_events_alloc(inst->tfs, globs, nglobs, hits);
	if (!evs)
		return -errno;
	n = ktrace_events_count(evs);
	changed = calloc(n ? n : 1, sizeof(*changed));
	if (!changed) {
		ktrace_events_free(evs);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		const struct ktrace_event *e = ktrace_events_get(evs, i);
		int cur = event_enabled(inst, e->system, e->name);

		if (cur == (int)on)
			continue;	/* already as asked */
		ret = kt_event_write(inst, e->system, e->name, "enable",
					  on ? "1" : "0");
		if (ret)
			break;
		changed[i] = true;
		nchanged++;
	}
	/* All or nothing: undo exactly what this call changed. */
	for (int i = 0; ret && i < n; i++) {
		const struct ktrace_event *e = ktrace_events_get(evs, i);

		if (changed[i])
			kt_event_write(inst, e->system, e->name, "enable",
					    on ? "0" : "1");
	}
	free(changed);
	ktrace_events_free(evs);
	return ret ? ret : nchanged;
}

/* Split "system:event" into checked names (malloc'ed, caller frees). */
static int split_event(const char *spec, char **sys, char **ev)
{
	const char *c = strchr(spec, ':');

	*sys = *ev = NULL;
	if (!c)
		return -EINVAL;
	*sys = strndup(spec, c - spec);
	*ev = strdup(c + 1);
	if (!*sys || !*ev) {
		free(*sys);
		free(*ev);
		*sys = *ev = NULL;
		return -ENOMEM;
	}
	if (kt_name_check(*sys) || kt_name_check(*ev)) {
		free(*sys);
		free(*ev);
		*sys = *ev = NULL;
		return -EINVAL;
	}
	return 0;
}

/* The current filter text of an event (first line; "none" -> NULL). */
/*
 * The filter of sys:ev into *out (NULL: none; the caller frees it). A
 * filter the kernel refused stays in the file, not applied, followed by a
 * caret line and "parse_error: MSG": with rejected, *out is then
 * "EXPR\tMSG"; without, EXPR alone.
 */
static int filter_read(struct ktrace_inst *inst, const char *sys,
		       const char *ev, char **out, bool rejected)
{
	char *buf = kt_event_read(inst, sys, ev, "filter", NULL);
	char *perr = buf ? strstr(buf, "\nparse_error:") : NULL;
	size_t len;

	*out = NULL;
	if (!buf)
		return -errno;
	len = strcspn(buf, "\n");
	if (rejected && perr) {
		perr += strlen("\nparse_error:");
		perr += strspn(perr, " ");
		perr[strcspn(perr, "\n")] = '\0';
		buf[len++] = '\t';
		memmove(buf + len, perr, strlen(perr) + 1);
	} else {
		buf[len] = '\0';
	}
	if (!strcmp(buf, "none") || !*buf)
		free(buf);
	else
		*out = buf;
	return 0;
}

static int verify_filter(struct ktrace_inst *inst, const char *sys,
			 const char *ev, const char *expr,
			 struct ktrace_err *err)
{
	struct tep_handle *tep;
	struct tep_event *te = NULL;
	char *buf, what[160];
	size_t len;
	int ret = 0;

	buf = kt_event_read(inst, sys, ev, "format", &len);
	if (!buf) {
		if (errno == ENOENT)
			return kt_err_set(err, ENOENT,
					  "no such event '%s:%s'", sys, ev);
		return kt_err_set(err, errno,
				  "cannot read the format of '%s:%s': %m%s",
				  sys, ev, errno == EACCES || errno == EPERM ?
				  " (run as root)" : "");
	}
	tep = tep_alloc();
	if (!tep) {
		free(buf);
		return -ENOMEM;
	}
	snprintf(what, sizeof(what), "%s:%s", sys, ev);
	if (tep_parse_format(tep, &te, buf, len, sys) == TEP_ERRNO__SUCCESS)
		ret = kt_filter_check(te, what, expr, err);
	tep_free(tep);
	free(buf);
	return ret;
}

int ktrace_inst_filter_set(struct ktrace_inst *inst, const char *event,
			   const char *expr, struct ktrace_err *err)
{
	char *sys, *ev, *old = NULL, *klog, *cmd = NULL;
	int ret, pos = -1;

	ret = split_event(event, &sys, &ev);
	if (ret)
		return kt_err_set(err, -ret,
				  "bad event name '%s': expected SYSTEM:EVENT",
				  event);
	if (expr && strchr(expr, '\n')) {
		ret = kt_err_set(err, EINVAL,
				 "a filter is one line: newline in '%s'",
				 event);
		goto out;
	}
	if (expr) {
		ret = verify_filter(inst, sys, ev, expr, err);
		if (ret)
			goto out;
	}
	ret = filter_read(inst, sys, ev, &old, false);
	if (ret) {
		ret = kt_err_set(err, -ret, "no such event '%s'", event);
		goto out;
	}
	if (!expr) {
		ret = kt_event_write(inst, sys, ev, "filter", "0");
		if (ret)
			kt_err_set(err, -ret, "cannot clear filter of %s: %s",
				   event, strerror(-ret));
		goto out;
	}
	kt_errlog_clear(inst->tfs, inst);
	ret = kt_event_write(inst, sys, ev, "filter", expr);
	if (!ret)
		goto out;
	klog = kt_errlog_read(inst->tfs, inst, &cmd, &pos);
	kt_err_set(err, -ret, "kernel refused filter for %s: %s", event,
		   klog ? klog : strerror(-ret));
	if (err) {
		err->klog = klog;
		err->input = strdup(expr);
		/* The kernel echoes the filter itself: columns map 1:1. */
		err->pos = cmd && !strcmp(cmd, expr) ? pos : -1;
	} else {
		free(klog);
	}
	/* The kernel swaps in the failed filter: put the old one back. */
	kt_event_write(inst, sys, ev, "filter", old ? old : "0");
out:
	free(cmd);
	free(old);
	free(sys);
	free(ev);
	return ret;
}

static int read_long(struct ktrace_inst *inst, const char *file, long *out)
{
	char *buf = kt_inst_read(inst, file, NULL);

	if (!buf)
		return -errno;
	*out = strtol(buf, NULL, 10);
	free(buf);
	return 0;
}

/* Every event of inst with a filter set: "sys:ev\tEXPR" entries. */
static int collect_filters(struct ktrace_inst *inst, char ***out)
{
	char *evdir = kt_event_path(inst, NULL, NULL, NULL);
	struct dirent *s, *e;
	size_t n = 0;
	DIR *d1, *d2;
	int ret = 0;

	*out = calloc(1, sizeof(char *));
	if (!evdir || !*out)
		return -ENOMEM;
	d1 = opendir(evdir);
	if (!d1) {
		free(evdir);
		return -errno;
	}
	while (!ret && (s = readdir(d1))) {
		char *sd;

		if (s->d_name[0] == '.' ||
		    (s->d_type != DT_DIR && s->d_type != DT_UNKNOWN))
			continue;
		sd = kt_event_path(inst, s->d_name, NULL, NULL);
		d2 = sd ? opendir(sd) : NULL;
		if (!d2) {
			free(sd);
			continue;
		}
		while (!ret && (e = readdir(d2))) {
			char *f, *line;

			if (e->d_name[0] == '.' ||
			    (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
				continue;
			if (filter_read(inst, s->d_name, e->d_name, &f,
					true) || !f)
				continue;
			if (asprintf(&line, "%s:%s\t%s", s->d_name, e->d_name,
				     f) < 0)
				ret = -ENOMEM;
			else if (kt_strv_push(out, &n, line))
				ret = -ENOMEM;
			free(f);
		}
		closedir(d2);
		free(sd);
	}
	closedir(d1);
	free(evdir);
	return ret;
}

static int strv_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ktrace_inst_state_read(struct ktrace_inst *inst,
			   struct ktrace_inst_state *st)
{
	char *buf, *save = NULL, *line;
	long on = 0;
	size_t n = 0, nf = 0;
	int ret;

	memset(st, 0, sizeof(*st));
	st->name = inst->name ? strdup(inst->name) : NULL;
	st->owned = inst->owned;
	ret = read_long(inst, "tracing_on", &on);
	if (ret)
		return ret;
	st->tracing_on = on;
	if (read_long(inst, "buffer_size_kb", &st->buffer_size_kb))
		st->buffer_size_kb = -1;
	st->enabled = calloc(1, sizeof(char *));
	if (!st->enabled)
		return -ENOMEM;
	buf = kt_inst_read(inst, "set_event", NULL);
	if (!buf)
		return -errno;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *s = strdup(line);

		if (!s || kt_strv_push(&st->enabled, &n, s)) {
			free(s);
			free(buf);
			return -ENOMEM;
		}
	}
	free(buf);
	qsort(st->enabled, n, sizeof(char *), strv_cmp);
	ret = collect_filters(inst, &st->filters);
	if (ret)
		return ret;
	while (st->filters && st->filters[nf])
		nf++;
	if (nf)
		qsort(st->filters, nf, sizeof(char *), strv_cmp);
	return 0;
}

void ktrace_inst_state_clear(struct ktrace_inst_state *st)
{
	free(st->name);
	ktrace_strv_free(st->enabled);
	ktrace_strv_free(st->filters);
	memset(st, 0, sizeof(*st));
}

int ktrace_inst_reset(struct ktrace_inst *inst)
{
	struct ktrace_inst_state st;
	int ret, first = 0;

	ret = ktrace_inst_state_read(inst, &st);
	if (ret) {
		ktrace_inst_state_clear(&st);
		return ret;
	}
	for (char **e = st.enabled; e && *e; e++) {
		char *sys, *ev;

		if (split_event(*e, &sys, &ev))
			continue;
		ret = kt_event_write(inst, sys, ev, "enable", "0");
		if (ret && !first)
			first = ret;
		free(sys);
		free(ev);
	}
	for (char **f = st.filters; f && *f; f++) {
		char *sys, *ev;

		(*f)[strcspn(*f, "\t")] = '\0';
		if (split_event(*f, &sys, &ev))
			continue;
		ret = kt_event_write(inst, sys, ev, "filter", "0");
		if (ret && !first)
			first = ret;
		free(sys);
		free(ev);
	}
	ktrace_inst_state_clear(&st);
	return first;
}

int kt_errlog_clear(struct ktrace_tfs *tfs, struct ktrace_inst *inst)
{
	return kt_inst_write(inst ? inst : &tfs->top, "error_log", "", O_TRUNC);
}

char *kt_errlog_read(struct ktrace_tfs *tfs, struct ktrace_inst *inst,
		     char **command, int *pos)
{
	char *buf, *last = NULL, *line, *msg = NULL, *cmd, *caret;
	const char *tag = "Command: ";

	if (command)
		*command = NULL;
	if (pos)
		*pos = -1;
	buf = kt_inst_read(inst ? inst : &tfs->top, "error_log", NULL);
	if (!buf)
		return NULL;
	/* Entries start with "[timestamp] "; the last one is ours. */
	for (line = buf; line && *line; ) {
		if (*line == '[')
			last = line;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!last)
		goto out;
	line = strchr(last, ']');
	if (!line)
		goto out;
	line++;
	while (*line == ' ')
		line++;
	msg = strndup(line, strcspn(line, "\n"));
	cmd = strstr(last, tag);
	if (!cmd)
		goto out;
	if (command)
		*command = strndup(cmd + strlen(tag),
				   strcspn(cmd + strlen(tag), "\n"));
	caret = strchr(cmd, '\n');
	if (caret && pos) {
		char *lstart = cmd;

		while (lstart > buf && lstart[-1] != '\n')
			lstart--;
		caret++;
		for (int col = 0; caret[col] && caret[col] != '\n'; col++) {
			if (caret[col] == '^') {
				*pos = col - (int)(cmd + strlen(tag) - lstart);
				break;
			}
		}
	}
out:
	free(buf);
	return msg;
}
