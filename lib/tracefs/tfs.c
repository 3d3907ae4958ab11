// SPDX-License-Identifier: LGPL-2.1-only
/* Finding (and if needed mounting) tracefs; user name and glob checks. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/magic.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/internal.h"
#include "tracefs/tfs_priv.h"

#define KT_TRACEFS_DEFAULT "/sys/kernel/tracing"
#define KT_STATE_DEFAULT "/run/ktrace"

static bool is_tracefs_tree(const char *dir)
{
	char *p = kt_path("%s/events", dir);
	struct stat st;
	bool ok;

	if (!p)
		return false;
	ok = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
	free(p);
	return ok;
}

/* Mount point of tracefs from /proc/mounts (malloc'ed), or NULL. */
static char *find_mounted(void)
{
	struct mntent *m;
	char *dir = NULL;
	FILE *f;

	f = setmntent("/proc/mounts", "r");
	if (!f)
		return NULL;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "tracefs")) {
			dir = strdup(m->mnt_dir);
			break;
		}
	}
	endmntent(f);
	return dir;
}

static char *locate(const char *dir)
{
	const char *env = getenv("KTRACE_TRACEFS");
	struct statfs sfs;
	char *found;

	if (!dir && env && *env)
		dir = env;
	if (dir) {
		if (!is_tracefs_tree(dir)) {
			errno = ENOENT;
			return NULL;
		}
		return realpath(dir, NULL);
	}
	/*
	 * Where tracefs usually is, one statfs() settles it; /proc/mounts
	 * (~0.1 ms to generate and parse) only when it is elsewhere.
	 */
	if (statfs(KT_TRACEFS_DEFAULT, &sfs) == 0 &&
	    sfs.f_type == TRACEFS_MAGIC)
		return strdup(KT_TRACEFS_DEFAULT);
	found = find_mounted();
	if (found)
		return found;
	if (mount("nodev", KT_TRACEFS_DEFAULT, "tracefs", 0, NULL) < 0)
		return NULL;
	return strdup(KT_TRACEFS_DEFAULT);
}

struct ktrace_tfs *ktrace_tfs_open(const char *dir)
{
	struct ktrace_tfs *tfs;
	const char *state = getenv("KTRACE_STATE_DIR");
	int saved;

	tfs = calloc(1, sizeof(*tfs));
	if (!tfs)
		return NULL;
	tfs->dir = locate(dir);
	if (!tfs->dir)
		goto fail;
	tfs->top = (struct ktrace_inst){ .tfs = tfs, .dir = tfs->dir };
	tfs->state_dir = strdup(state && *state ? state : KT_STATE_DEFAULT);
	if (!tfs->state_dir)
		goto fail;
	return tfs;
fail:
	saved = errno;
	ktrace_tfs_free(tfs);
	errno = saved;
	return NULL;
}

void ktrace_tfs_free(struct ktrace_tfs *tfs)
{
	if (!tfs)
		return;
	free(tfs->dir);
	free(tfs->state_dir);
	free(tfs);
}

const char *ktrace_tfs_dir(const struct ktrace_tfs *tfs)
{
	return tfs->dir;
}

struct ktrace_inst *kt_tfs_top(struct ktrace_tfs *tfs)
{
	return &tfs->top;
}

/* A name that cannot leave its directory. */
static bool stays_in(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") &&
	       !strchr(name, '/');
}

/*
 * dir and the parts that are not NULL, joined by '/'. No printf: a
 * listing with formats asks for two files of every event.
 */
static char *join(const char *dir, const char *const *part, int n)
{
	size_t len[4], total = strlen(dir), off;
	char *p;

	for (int i = 0; i < n; i++) {
		len[i] = part[i] ? strlen(part[i]) : 0;
		total += part[i] ? 1 + len[i] : 0;
	}
	if (total >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	p = malloc(total + 1);
	if (!p)
		return NULL;
	off = strlen(dir);
	memcpy(p, dir, off);
	for (int i = 0; i < n; i++) {
		if (!part[i])
			continue;
		p[off++] = '/';
		memcpy(p + off, part[i], len[i]);
		off += len[i];
	}
	p[off] = '\0';
	return p;
}

char *kt_inst_path(const struct ktrace_inst *inst, const char *file)
{
	return join(inst->dir, &file, 1);
}

char *kt_event_path(const struct ktrace_inst *inst, const char *sys,
		    const char *ev, const char *file)
{
	const char *part[4] = { "events", sys, ev, file };

	if ((ev && !sys) || (sys && !stays_in(sys)) || (ev && !stays_in(ev))) {
		errno = EINVAL;
		return NULL;
	}
	return join(inst->dir, part, 4);
}

char *kt_inst_read(const struct ktrace_inst *inst, const char *file,
		   size_t *len)
{
	return kt_read_at(inst->dir, file, len);
}

char *kt_event_read(const struct ktrace_inst *inst, const char *sys,
		    const char *ev, const char *file, size_t *len)
{
	return kt_read_path_free(kt_event_path(inst, sys, ev, file), len);
}

int kt_inst_write(const struct ktrace_inst *inst, const char *file,
		  const char *val, int flags)
{
	char *p = kt_inst_path(inst, file);
	int ret;

	if (!p)
		return -errno;
	ret = kt_write_file(p, val, strlen(val), flags);
	free(p);
	return ret;
}

static int event_write(const struct ktrace_inst *inst, const char *sys,
		       const char *ev, const char *file, const char *val,
		       int flags)
{
	char *p;
	int ret;

	if (kt_name_check(sys) || kt_name_check(ev))
		return -EINVAL;
	p = kt_event_path(inst, sys, ev, file);
	if (!p)
		return -errno;
	ret = kt_write_file(p, val, strlen(val), flags);
	free(p);
	return ret;
}

int kt_event_write(const struct ktrace_inst *inst, const char *sys,
		   const char *ev, const char *file, const char *val)
{
	return event_write(inst, sys, ev, file, val, O_TRUNC);
}

int kt_event_append(const struct ktrace_inst *inst, const char *sys,
		    const char *ev, const char *file, const char *val)
{
	return event_write(inst, sys, ev, file, val, O_APPEND);
}

int kt_name_check(const char *name)
{
	size_t len;

	if (!name)
		return -EINVAL;
	len = strlen(name);
	if (len == 0 || len > 64)
		return -EINVAL;
	if (!isalnum((unsigned char)name[0]) && name[0] != '_')
		return -EINVAL;
	for (const char *p = name; *p; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' &&
		    *p != '-')
			return -EINVAL;
	}
	if (strstr(name, ".."))
		return -EINVAL;
	return 0;
}

int kt_glob_check(const char *pattern)
{
	int depth = 0, colons = 0;

	if (!pattern || !*pattern || strlen(pattern) > 256)
		return -EINVAL;
	for (const char *p = pattern; *p; p++) {
		unsigned char c = *p;

		if (c == ':') {
			if (++colons > 1 || depth)
				return -EINVAL;
		} else if (c == '[') {
			depth++;
		} else if (c == ']') {
			if (depth)
				depth--;
		} else if (!isalnum(c) && !strchr("_.-*?!^", c)) {
			return -EINVAL;
		}
	}
	if (depth)
		return -EINVAL;
	if (strstr(pattern, ".."))
		return -EINVAL;
	return 0;
}

bool kt_glob_match(const char *pattern, const char *system,
		   const char *event)
{
	const char *colon = strchr(pattern, ':');
	char sys[257];
	size_t n;

	if (!colon)
		/* a system ('irq', 'sched*'), or an event by its exact name
		 * ('irq_handler_entry'), as perf list takes it */
		return fnmatch(pattern, system, 0) == 0 ||
		       (!strpbrk(pattern, "*?[") && !strcmp(pattern, event));
	n = colon - pattern;
	if (n >= sizeof(sys))
		return false;
	memcpy(sys, pattern, n);
	sys[n] = '\0';
	return fnmatch(n ? sys : "*", system, 0) == 0 &&
	       fnmatch(colon[1] ? colon + 1 : "*", event, 0) == 0;
}

bool ktrace_tfs_has_kprobes(struct ktrace_tfs *tfs)
{
	char *p = kt_inst_path(&tfs->top, "kprobe_events");
	bool ret = p && access(p, F_OK) == 0;

	free(p);
	return ret;
}

/* state_dir/KIND.NAME: the mark of something ktrace made in this tree. */
static char *state_marker(struct ktrace_tfs *tfs, const char *kind,
			  const char *name)
{
	return kt_path("%s/%s.%s", tfs->state_dir, kind, name);
}

int kt_state_write(struct ktrace_tfs *tfs, const char *kind,
		   const char *name, const char *text)
{
	char *p;
	int ret;

	if (kt_name_check(name))
		return -EINVAL;
	if (mkdir(tfs->state_dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	p = state_marker(tfs, kind, name);
	if (!p)
		return -errno;
	ret = kt_write_file(p, text, strlen(text), O_CREAT | O_TRUNC);
	if (ret == -ENOENT)
		ret = -EIO;
	free(p);
	return ret;
}

char *kt_state_read(struct ktrace_tfs *tfs, const char *kind,
		    const char *name)
{
	char *p, *text;

	if (kt_name_check(name))
		return NULL;
	p = state_marker(tfs, kind, name);
	if (!p)
		return NULL;
	text = kt_read_file(p, NULL);
	free(p);
	return text;
}

int kt_state_list(struct ktrace_tfs *tfs, const char *kind,
		  void (*fn)(struct ktrace_tfs *tfs, const char *name, void *ctx),
		  void *ctx)
{
	size_t klen = strlen(kind);
	struct dirent *de;
	DIR *d = opendir(tfs->state_dir);

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, kind, klen) &&
		    de->d_name[klen] == '.' && de->d_name[klen + 1] &&
		    !kt_name_check(de->d_name + klen + 1))
			fn(tfs, de->d_name + klen + 1, ctx);
	closedir(d);
	return 0;
}

int kt_state_mark(struct ktrace_tfs *tfs, const char *kind, const char *name)
{
	return kt_state_write(tfs, kind, name, tfs->dir);
}

bool kt_state_has(struct ktrace_tfs *tfs, const char *kind, const char *name)
{
	char *p;
	bool ret;

	if (kt_name_check(name))
		return false;
	p = state_marker(tfs, kind, name);
	if (!p)
		return false;
	ret = access(p, F_OK) == 0;
	free(p);
	return ret;
}

void kt_state_unmark(struct ktrace_tfs *tfs, const char *kind,
		     const char *name)
{
	char *p = kt_name_check(name) ? NULL :
		  state_marker(tfs, kind, name);

	if (p)
		unlink(p);
	free(p);
}
