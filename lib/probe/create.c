// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Dynamic probes, writing: create a resolved probe through libtracefs,
 * undo it, destroy probes, sweep the groups of dead ktrace processes.
 * Kernel refusals carry the position in the user's own spec.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>


#include "base/internal.h"
#include "tracefs/tfs.h"
#include "tracefs/synth.h"
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

/* The file that takes definitions of kind letter ("p:", "e:"...). */
static const char *dyn_file(char letter, bool user)
{
	if (letter == 'e' || letter == 'f' || letter == 't')
		return "dynamic_events";
	return user ? "uprobe_events" : "kprobe_events";
}

/*
 * One command to the tree's kprobe_events, uprobe_events or (event
 * probes, fprobes, tracepoint probes: libtracefs 1.6 has no fprobe type)
 * dynamic_events, in one write(2), through the handle's own directory:
 * libtracefs's dynevent calls only know its process-wide tracing dir.
 * 0 or -errno.
 */
static int dyn_write(struct ktrace_tfs *tfs, const char *file,
		     const char *line)
{
	char *cmd;
	int ret;

	/* one line, as echo writes it */
	if (asprintf(&cmd, "%s\n", line) < 0)
		return -ENOMEM;
	ret = kt_inst_write(kt_tfs_top(tfs), file, cmd, O_APPEND);
	free(cmd);
	return ret;
}

/* Write back a definition read from the kernel's files. */
static int restore_replaced(struct ktrace_tfs *tfs, const char *line)
{
	if (!line)
		return 0;
	/* "p:"/"r:" are both; uprobe lines name a file ("/path:0x...") */
	return dyn_write(tfs, dyn_file(line[0], strstr(line, " /") != NULL),
			 line);
}

/*
 * Does this kernel take dynamic events of kind letter ('e', 'f', 't')?
 * Its tracefs README lists the definitions dynamic_events accepts, one
 * "X[:[<group>/][<event>]] ..." line each.
 */
static bool dyn_kind_listed(struct ktrace_tfs *tfs, char letter)
{
	char *readme = kt_inst_read(kt_tfs_top(tfs), "README", NULL);
	char *save = NULL, *l;
	bool found = false;

	for (l = readme ? strtok_r(readme, "\n", &save) : NULL; l && !found;
	     l = strtok_r(NULL, "\n", &save)) {
		l += strspn(l, " \t");
		if (!strncmp(l, "Format:", 7))
			l += 7 + strspn(l + 7, " \t");
		found = l[0] == letter && l[1] == '[' && l[2] == ':';
	}
	free(readme);
	return found;
}

/* 0 when the kernel can take p's kind, else -EOPNOTSUPP with err set. */
static int kind_check(struct ktrace_probe *p, struct ktrace_tfs *tfs,
		      struct ktrace_err *err)
{
	char letter = kt_probe_letter(p);

	/* resolving needs BTF and kallsyms only (--dry-run works); making
	 * the event needs the kernel's kind */
	if (p->dyn == PROBE_KU) {
		if (p->user || ktrace_tfs_has_kprobes(tfs))
			return 0;
		return kt_probe_err(err, p->spec, p->lstart, EOPNOTSUPP,
			    "this kernel has no kprobe events (no kprobe_events in %s: CONFIG_KPROBE_EVENTS is off)",
			    ktrace_tfs_dir(tfs));
	}
	if (dyn_kind_listed(tfs, letter))
		return 0;
	if (p->dyn == PROBE_EVENT)
		return kt_probe_err(err, p->spec, p->lstart, EOPNOTSUPP,
			    "this kernel has no event probes: its tracefs README lists no 'e[:...]' definition for dynamic_events (CONFIG_EPROBE_EVENTS, Linux 5.15 and later)");
	return kt_probe_err(err, p->spec, p->lstart, EOPNOTSUPP,
		    "%s need CONFIG_FPROBE_EVENTS (kernel 6.7+): this kernel's tracefs README lists no '%c[:...]' definition for dynamic_events",
		    p->dyn == PROBE_FPROBE ? "fprobe events" :
		    "tracepoint probes", letter);
}

/*
 * The kernel refused an event probe with EINVAL and wrote no reason: does
 * it take a bare one on the same event (nothing else, removed at once)?
 */
static bool bare_eprobe_taken(struct ktrace_probe *p, struct ktrace_tfs *tfs)
{
	char *line;
	bool ok;

	if (asprintf(&line, "e:%s/%s %s", p->group, p->event, p->location) < 0)
		return true;
	ok = dyn_write(tfs, "dynamic_events", line) == 0;
	free(line);
	if (ok && asprintf(&line, "-:%s/%s", p->group, p->event) >= 0) {
		dyn_write(tfs, "dynamic_events", line);
		free(line);
	}
	return ok;
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
	ret = restore_replaced(tfs, p->replaced);
	free(p->replaced);
	p->replaced = NULL;
	return ret;
}

static bool event_exists(struct ktrace_tfs *tfs, const char *g, const char *e)
{
	char *path = kt_event_path(kt_tfs_top(tfs), g, e, NULL);
	struct stat st;
	bool ret;

	ret = path && stat(path, &st) == 0;
	free(path);
	return ret;
}

static bool group_exists(struct ktrace_tfs *tfs, const char *g)
{
	char *path = kt_event_path(kt_tfs_top(tfs), g, NULL, NULL);
	bool ret = path && access(path, F_OK) == 0;

	free(path);
	return ret;
}

int ktrace_probe_create(struct ktrace_probe *p, struct ktrace_tfs *tfs,
			bool force, struct ktrace_err *err)
{
	char *klog, *cmd = NULL, *old = NULL;
	int ret, pos = -1;

	if (!p->def)
		return kt_probe_err(err, p->spec, -1, EINVAL, "probe not resolved");
	ret = kind_check(p, tfs, err);
	if (ret)
		return ret;
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
		if (!old)
			old = defined_line(tfs, "dynamic_events", p->group,
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
	kt_errlog_clear(tfs, NULL);
	ret = dyn_write(tfs, dyn_file(kt_probe_letter(p), p->user), p->def);
	if (!ret) {
		/* Kept for ktrace_probe_undo(). */
		free(p->replaced);
		p->replaced = old;
		p->created = true;
		return 0;
	}
	klog = kt_errlog_read(tfs, NULL, &cmd, &pos);
	/* --force: the kernel refused the new definition; the old one,
	 * as the kernel printed it, goes back. */
	if (old && restore_replaced(tfs, old) < 0) {
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
	if (!klog && ret == -EINVAL && p->dyn == PROBE_EVENT && !old &&
	    !bare_eprobe_taken(p, tfs))
		kt_probe_err(err, p->spec, p->lstart, EOPNOTSUPP,
		     "kernel refused event probe %s:%s: %s, with no reason in its error_log, and it refuses a bare event probe on %s:%s too: this kernel does not take event probes",
		     p->group, p->event, strerror(-ret), p->esys, p->eevent);
	else
		kt_probe_err(err, p->spec, pos, -ret,
		     "kernel refused probe %s:%s: %s%s", p->group, p->event,
		     klog ? klog : strerror(-ret),
		     !klog && (ret == -EACCES || ret == -EPERM) ?
		     " (run as root)" : "");
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
	char *buf = kt_inst_read(kt_tfs_top(tfs), file, NULL), *line;
	char *save = NULL;
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
	const char *file;
	char line[160], *def;
	int ret;

	if (kt_probe_name_check(group) || kt_probe_name_check(event))
		return -EINVAL;
	/* The kind (which file takes the removal) from the definitions:
	 * kprobes, uprobes, event probes, fprobes, tracepoint probes */
	if (defined_in(tfs, "uprobe_events", group, event)) {
		file = "uprobe_events";
	} else if (defined_in(tfs, "kprobe_events", group, event)) {
		file = "kprobe_events";
	} else {
		def = defined_line(tfs, "dynamic_events", group, event);
		ret = def && strchr("eft", def[0]);
		free(def);
		if (!ret)
			return -ENOENT;
		file = "dynamic_events";
	}
	snprintf(line, sizeof(line), "-:%s/%s", group, event);
	/* The kernel says EBUSY while the event is enabled or open. */
	ret = dyn_write(tfs, file, line);
	/* the group's last probe: ktrace no longer has it */
	if (!ret && !group_exists(tfs, group)) {
		kt_state_unmark(tfs, "group", group);
		kt_owner_release(tfs, group);
	}
	return ret;
}

bool ktrace_probe_group_is_ktrace(struct ktrace_tfs *tfs, const char *group)
{
	return !strcmp(group, "ktrace") || kt_owner_known(tfs, group) ||
	       kt_state_has(tfs, "group", group);
}

int ktrace_probe_cleanup_stale(struct ktrace_tfs *tfs)
{
	struct kt_dyn_set ds;
	int removed = 0, ret;

	/* a dead ktrace's instance first: its triggers hold its probes and
	 * its synthetic event */
	kt_own_inst_sweep(tfs);
	kt_synth_sweep(tfs);
	/* dynamic_events alone says which probes exist: no directory walk */
	ret = kt_dyn_load(tfs, &ds);
	if (ret) {
		kt_dyn_free(&ds);
		return ret;
	}
	for (int i = 0; i < ds.n; i++) {
		const struct kt_dyn_def *d = &ds.v[i];

		if (strncmp(d->system, "ktrace_", strlen("ktrace_")) ||
		    (d->kind != KTRACE_KIND_KPROBE &&
		     d->kind != KTRACE_KIND_KRETPROBE &&
		     d->kind != KTRACE_KIND_UPROBE &&
		     d->kind != KTRACE_KIND_URETPROBE &&
		     d->kind != KTRACE_KIND_EPROBE &&
		     d->kind != KTRACE_KIND_FPROBE))
			continue;
		/* removed only when its owner record proves it dead */
		if (!kt_owner_dead(tfs, d->system))
			continue;
		kt_event_write(kt_tfs_top(tfs), d->system, d->name, "enable",
			       "0");
		if (!ktrace_probe_destroy(tfs, d->system, d->name))
			removed++;
	}
	kt_owner_prune(tfs, &ds);
	kt_dyn_free(&ds);
	return removed;
}
