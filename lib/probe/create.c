// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Dynamic probes, writing: create a resolved probe through libtracefs,
 * undo it, destroy probes, sweep the groups of dead ktrace processes.
 * Kernel refusals carry the position in the user's own spec.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/internal.h"
#include "probe/btf.h"
#include "probe/uelf.h"
#include "probe/probe_priv.h"

/* A column of the definition mapped back into the user's spec. */
static int map_pos(const struct ktrace_probe *p, int dpos)
{
	for (int i = 0; i < p->nargs; i++) {
		const struct probe_arg *a = &p->args[i];
		int ulen = a->uend - a->ustart, dlen = a->dend - a->dstart;

		if (dpos < a->dstart || dpos >= a->dend)
			continue;
		/* The user's text ends the definition's piece: 1:1. */
		if (ulen <= dlen && !strncmp(p->def + a->dend - ulen,
					     p->spec + a->ustart, ulen)) {
			int off = dpos - (a->dend - ulen);

			return a->ustart + (off > 0 ? off : 0);
		}
		return a->estart;
	}
	return p->lstart;
}

static char *defined_line(struct ktrace_tfs *tfs, const char *file,
			  const char *group, const char *event);

/* Write back a definition read from kprobe_events/uprobe_events. */
static int restore_replaced(const char *line)
{
	if (!line)
		return 0;
	return tracefs_instance_file_append(NULL, "dynamic_events", line) < 0 ?
	       -(errno ? errno : EIO) : 0;
}

int ktrace_probe_undo(struct ktrace_probe *p, struct ktrace_tfs *tfs)
{
	int ret;

	if (!p->created)
		return 0;
	ret = ktrace_probe_destroy(tfs, p->group, p->event);
	if (ret)
		return ret;
	p->created = false;
	ret = restore_replaced(p->replaced);
	free(p->replaced);
	p->replaced = NULL;
	return ret;
}

static bool event_exists(struct ktrace_tfs *tfs, const char *g, const char *e)
{
	char *path = kt_path("%s/events/%s/%s", tfs->dir, g, e);
	struct stat st;
	bool ret;

	ret = path && stat(path, &st) == 0;
	free(path);
	return ret;
}

int ktrace_probe_create(struct ktrace_probe *p, struct ktrace_tfs *tfs,
			bool force, struct ktrace_err *err)
{
	struct tracefs_dynevent *dev;
	char *klog, *cmd = NULL, *old = NULL;
	int ret, pos = -1;

	if (!p->def)
		return kt_probe_err(err, p->spec, -1, EINVAL, "probe not resolved");
	if (event_exists(tfs, p->group, p->event)) {
		if (!force)
			return kt_probe_err(err, NULL, -1, EEXIST,
				    "event %s:%s already exists (use --force to replace it)",
				    p->group, p->event);
		/* Kept to put back should the kernel refuse the new one. */
		old = defined_line(tfs, "uprobe_events", p->group, p->event);
		if (!old)
			old = defined_line(tfs, "kprobe_events", p->group,
					   p->event);
		ret = ktrace_probe_destroy(tfs, p->group, p->event);
		if (ret) {
			free(old);
			return kt_probe_err(err, NULL, -1, -ret,
				    "cannot replace %s:%s: %s", p->group,
				    p->event, ret == -EBUSY ?
				    "it is in use (enabled or being recorded)" :
				    strerror(-ret));
		}
	}
	if (p->user && p->is_return)
		dev = tracefs_uretprobe_alloc(p->group, p->event, p->path,
					      p->file_off, p->fmt);
	else if (p->user)
		dev = tracefs_uprobe_alloc(p->group, p->event, p->path,
					   p->file_off, p->fmt);
	else if (p->is_return)
		dev = tracefs_kretprobe_alloc(p->group, p->event, p->location,
					      p->fmt, 0);
	else
		dev = tracefs_kprobe_alloc(p->group, p->event, p->location,
					   p->fmt);
	if (!dev) {
		restore_replaced(old);
		free(old);
		return -ENOMEM;
	}
	ktrace_errlog_clear(tfs, NULL);
	ret = tracefs_dynevent_create(dev) < 0 ? -(errno ? errno : EINVAL) : 0;
	tracefs_dynevent_free(dev);
	if (!ret) {
		/* Kept for ktrace_probe_undo(). */
		free(p->replaced);
		p->replaced = old;
		p->created = true;
		return 0;
	}
	klog = ktrace_errlog_read(tfs, NULL, &cmd, &pos);
	/* --force: the kernel refused the new definition; the old one,
	 * as the kernel printed it, goes back. */
	if (old && restore_replaced(old) < 0) {
		char *m;

		if (asprintf(&m, "%s (and the previous definition could not be put back: %s)",
			     klog ? klog : strerror(-ret), old) >= 0) {
			free(klog);
			klog = m;
		}
	}
	free(old);
	if (klog && cmd && pos >= 0 && !strcmp(cmd, p->def))
		pos = map_pos(p, pos);
	else
		pos = klog ? p->lstart : -1;
	kt_probe_err(err, p->spec, pos, -ret, "kernel refused probe %s:%s: %s",
	     p->group, p->event, klog ? klog : strerror(-ret));
	if (err)
		err->klog = klog;
	else
		free(klog);
	free(cmd);
	return ret;
}

/* The definition of group/event in the tree's file (uprobe_events...),
 * malloc'ed, or NULL. */
static char *defined_line(struct ktrace_tfs *tfs, const char *file,
			  const char *group, const char *event)
{
	char *buf = kt_read_at(tfs->dir, file, NULL), *line, *save = NULL;
	size_t gl = strlen(group), el = strlen(event);
	char *found = NULL;

	if (!buf)
		return NULL;
	for (line = strtok_r(buf, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c = strchr(line, ':');

		if (c && !strncmp(c + 1, group, gl) && c[1 + gl] == '/' &&
		    !strncmp(c + 2 + gl, event, el) &&
		    (c[2 + gl + el] == ' ' || !c[2 + gl + el]))
			found = strdup(line);
	}
	free(buf);
	return found;
}

static bool defined_in(struct ktrace_tfs *tfs, const char *file,
		       const char *group, const char *event)
{
	char *l = defined_line(tfs, file, group, event);

	free(l);
	return l != NULL;
}

int ktrace_probe_destroy(struct ktrace_tfs *tfs, const char *group,
			 const char *event)
{
	struct tracefs_dynevent *dev;
	int ret = 0;

	if (kt_probe_name_check(group) || kt_probe_name_check(event))
		return -EINVAL;
	/*
	 * libtracefs 1.6.4's tracefs_dynevent_get() corrupts memory, so the
	 * kind is found here and a handle of that kind removes the event.
	 */
	if (defined_in(tfs, "uprobe_events", group, event))
		dev = tracefs_uprobe_alloc(group, event, "/", 0, NULL);
	else if (defined_in(tfs, "kprobe_events", group, event))
		dev = tracefs_kprobe_alloc(group, event, "0", NULL);
	else
		return -ENOENT;
	if (!dev)
		return -ENOMEM;
	errno = 0;
	if (tracefs_dynevent_destroy(dev, false) < 0)
		ret = -(errno ? errno : EBUSY);
	tracefs_dynevent_free(dev);
	return ret;
}

/* "ktrace_<pid>" -> pid, or 0 when name is not such a group. */
static int owner_pid(const char *group)
{
	const char *p = group + strlen("ktrace_");
	char *end;
	long pid;

	if (strncmp(group, "ktrace_", strlen("ktrace_")) || !isdigit(*p))
		return 0;
	pid = strtol(p, &end, 10);
	return *end || pid <= 0 || pid > 0x3fffffff ? 0 : (int)pid;
}

int ktrace_probe_cleanup_stale(struct ktrace_tfs *tfs)
{
	struct kt_dyn_set ds;
	int removed = 0, ret;

	/* dynamic_events alone says which probes exist: no directory walk */
	ret = kt_dyn_load(tfs, &ds);
	if (ret) {
		kt_dyn_free(&ds);
		return ret;
	}
	for (int i = 0; i < ds.n; i++) {
		const struct kt_dyn_def *d = &ds.v[i];
		int pid = owner_pid(d->system);
		char proc[32];

		if (!pid || (d->kind != KTRACE_KIND_KPROBE &&
			     d->kind != KTRACE_KIND_KRETPROBE &&
			     d->kind != KTRACE_KIND_UPROBE &&
			     d->kind != KTRACE_KIND_URETPROBE))
			continue;
		snprintf(proc, sizeof(proc), "/proc/%d", pid);
		if (access(proc, F_OK) == 0)
			continue;	/* its owner still runs */
		kt_event_file_write_top(tfs, d->system, d->name, "enable", "0");
		if (!ktrace_probe_destroy(tfs, d->system, d->name))
			removed++;
	}
	kt_dyn_free(&ds);
	return removed;
}
