// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Hist triggers: the trigger line ktrace writes, started and removed on an
 * instance's event, and its hist file read (parsed by histparse.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/internal.h"
#include "tracefs/hist.h"
#include "tracefs/tfs_priv.h"

/* A part of the line: no ':' (the parts' separator), ',' inside a list
 * item, space or newline (the end of the parts). */
static bool part_ok(const char *s, bool list_item)
{
	return *s && !strpbrk(s, list_item ? ":, \t\n" : ": \t\n");
}

static int put_list(FILE *f, const char *tag, const char *const *v,
		    int n)
{
	for (int i = 0; i < n; i++) {
		if (!part_ok(v[i], true))
			return -EINVAL;
		fprintf(f, "%s%s", i ? "," : tag, v[i]);
	}
	return 0;
}

char *kt_hist_trigger_text(const struct kt_hist_def *d)
{
	char *text = NULL;
	size_t len;
	FILE *f;
	int ret;

	if (d->nkeys <= 0 || (d->filter && strchr(d->filter, '\n'))) {
		errno = EINVAL;
		return NULL;
	}
	f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	ret = put_list(f, "hist:keys=", d->keys, d->nkeys);
	if (!ret)
		ret = put_list(f, ":vals=", d->vals, d->nvals);
	if (!ret)
		ret = put_list(f, ":sort=", d->sort, d->nsort);
	if (!ret && d->size)
		fprintf(f, ":size=%u", d->size);
	if (!ret && d->extra && *d->extra) {
		if (strpbrk(d->extra, " \t\n"))
			ret = -EINVAL;
		else
			fprintf(f, ":%s", d->extra);
	}
	if (!ret && d->filter && *d->filter)
		fprintf(f, " if %s", d->filter);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(text);
		errno = -ret;
		return NULL;
	}
	return text;
}

/*
 * A trigger on a run's own instance is on record first ("triggers.NAME",
 * a line "SYS EV TEXT" each, in the order made): an instance whose
 * triggers use each other's variables cannot be removed until they are
 * (EBUSY), so the sweep after a SIGKILL takes them off, last first
 * (owner.c). 0 or -errno.
 */
static int note_trigger(struct ktrace_tfs *tfs, struct ktrace_inst *inst,
			const char *sys, const char *ev, const char *text)
{
	char *old, *line;
	int ret;

	if (!inst->name || !kt_state_has(tfs, "owner", inst->name))
		return 0;	/* not a run's own */
	old = kt_state_read(tfs, "triggers", inst->name);
	if (asprintf(&line, "%s%s %s %s\n", old ? old : "", sys, ev,
		     text) < 0) {
		free(old);
		return -ENOMEM;
	}
	ret = kt_state_write(tfs, "triggers", inst->name, line);
	free(line);
	free(old);
	return ret;
}

int kt_hist_check(struct ktrace_inst *inst, const char *sys, const char *ev,
		  struct ktrace_err *err)
{
	struct ktrace_tfs *tfs = inst->tfs;
	char *path;
	int ret;

	path = kt_event_path(inst, sys, ev, NULL);
	if (!path)
		return kt_err_set(err, errno, "bad event name '%s:%s'", sys,
				  ev);
	ret = access(path, F_OK) ? -errno : 0;
	free(path);
	if (ret)
		return kt_err_set(err, -ret, "no event %s:%s in %s", sys, ev,
				  ktrace_tfs_dir(tfs));
	/* the hist file is there only with CONFIG_HIST_TRIGGERS */
	path = kt_event_path(inst, sys, ev, "hist");
	ret = !path ? -errno : access(path, F_OK) ? -errno : 0;
	free(path);
	if (ret == -ENOENT)
		return kt_err_set(err, EOPNOTSUPP,
				  "this kernel has no hist triggers (CONFIG_HIST_TRIGGERS is off: no events/%s/%s/hist)",
				  sys, ev);
	return ret ? kt_err_set(err, -ret, "cannot use %s:%s: %s", sys, ev,
				strerror(-ret)) : 0;
}

int kt_hist_start(struct ktrace_tfs *tfs, struct ktrace_inst *inst,
		  const char *sys, const char *ev, const char *text,
		  struct ktrace_err *err)
{
	char *klog, *cmd = NULL;
	const char *why;
	int ret, pos = -1;

	ret = kt_hist_check(inst, sys, ev, err);
	if (ret)
		return ret;
	ret = note_trigger(tfs, inst, sys, ev, text);
	if (ret)
		return kt_err_set(err, -ret, "cannot keep a record in %s: %s",
				  "KTRACE_STATE_DIR", strerror(-ret));
	kt_errlog_clear(tfs, inst);
	ret = kt_event_append(inst, sys, ev, "trigger", text);
	if (!ret)
		return 0;
	klog = kt_errlog_read(tfs, inst, &cmd, &pos);
	/* "hist:SYS:EV: error: Couldn't find field": the words after it */
	why = klog && strstr(klog, ": error: ") ?
	      strstr(klog, ": error: ") + strlen(": error: ") : klog;
	kt_err_set(err, -ret, "kernel refused hist trigger on %s:%s: %s", sys,
		   ev, why ? why : strerror(-ret));
	if (err) {
		err->klog = klog;
		err->input = strdup(text);
		/* the kernel echoes the whole line: columns map 1:1 */
		err->pos = cmd && !strncmp(cmd, text, strlen(text)) ? pos : -1;
	} else {
		free(klog);
	}
	free(cmd);
	return ret;
}

int kt_hist_stop(struct ktrace_inst *inst, const char *sys, const char *ev,
		 const char *text)
{
	char *line;
	int ret;

	if (asprintf(&line, "!%s", text) < 0)
		return -ENOMEM;
	ret = kt_event_append(inst, sys, ev, "trigger", line);
	free(line);
	return ret;
}

int kt_hist_read(struct ktrace_inst *inst, const char *sys, const char *ev,
		 struct kt_hist_file **out)
{
	size_t len;
	char *text = kt_event_read(inst, sys, ev, "hist", &len);
	int ret;

	*out = NULL;
	if (!text)
		return -errno;
	ret = kt_hist_parse(text, len, out);
	free(text);
	return ret;
}
