// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Who owns an inline-probe group or a run's own instance, in a way that
 * survives PID namespaces.
 *
 * record and stat put their temporary probes in a group of their own, hist
 * its triggers in an instance of its own, and take them back when they
 * end; a ktrace killed with SIGKILL cannot, so the next one removes the
 * groups and instances whose owner is gone. A PID alone does not
 * prove that: in a container ktrace is often PID 1 (and /proc/1 always
 * exists), two containers have the same PIDs, and a user may name a group
 * "ktrace_99999". So:
 *
 *  - the group is "ktrace_<pid>" in the initial PID namespace (PIDs are
 *    unique there) and "ktrace_<pid>_<random>" in any other;
 *  - before its first probe is made, an owner record goes to the state
 *    dir ("owner.<group>"): the tracefs tree, the PID as /proc shows it,
 *    the PID namespace of that /proc and the process's start time;
 *  - a group is removed only when its record proves the owner dead: same
 *    namespace and no process with that PID and start time; or, seen
 *    from the initial namespace (which sees every process), no process
 *    left in the owner's namespace. No record, no proof: never touched.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "base/internal.h"
#include "tracefs/tfs.h"
#include "tracefs/tfs_priv.h"

/* The initial PID namespace's inode (PROC_PID_INIT_INO in the kernel). */
#define INIT_PID_NS 0xEFFFFFFCull

struct owner {
	int pid;		/* as /proc shows it */
	uint64_t ns;		/* PID namespace of that /proc */
	uint64_t start;		/* start time, clock ticks after boot */
};

/* The inode of a PID namespace link ("pid:[N]"), or 0 with errno set. */
static uint64_t ns_inode(const char *link)
{
	char buf[64];
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	unsigned long long v;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "pid:[%llu]", &v) != 1) {
		errno = EINVAL;
		return 0;
	}
	return v;
}

/* Field 22 of /proc/PID/stat (after the comm, which may hold anything). */
static uint64_t start_time(int pid)
{
	char path[64], *t, *p;
	unsigned long long v = 0;
	int field = 3;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	t = kt_read_file(path, NULL);
	if (!t)
		return 0;
	p = strrchr(t, ')');
	for (p = p ? p + 1 : NULL; p && *p && field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			break;
	}
	if (p && field == 22)
		v = strtoull(p + 1, NULL, 10);
	free(t);
	return v;
}

/*
 * This process: its PID, PID namespace and start time, when the /proc it
 * sees is its namespace's own (it shows this process under its PID). 0 or
 * -ENOENT (no proof can be made here).
 */
static int owner_self(struct owner *o)
{
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);

	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	o->pid = getpid();
	if (atoi(buf) != o->pid)
		return -ENOENT;	/* another namespace's /proc */
	o->ns = ns_inode("/proc/self/ns/pid");
	o->start = start_time(o->pid);
	return o->ns && o->start ? 0 : -ENOENT;
}

void kt_owner_group_name(char *buf, size_t len)
{
	struct owner o;
	uint32_t token;

	if (!owner_self(&o) && o.ns == INIT_PID_NS) {
		snprintf(buf, len, "ktrace_%d", o.pid);
		return;
	}
	if (getrandom(&token, sizeof(token), 0) != sizeof(token))
		token = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
	snprintf(buf, len, "ktrace_%d_%08" PRIx32, (int)getpid(), token);
}

int kt_owner_record(struct ktrace_tfs *tfs, const char *group)
{
	struct owner o;
	char text[4352];
	int ret = owner_self(&o);

	if (ret)
		return ret;
	snprintf(text, sizeof(text), "%s\n%d %" PRIu64 " %" PRIu64 "\n",
		 ktrace_tfs_dir(tfs), o.pid, o.ns, o.start);
	return kt_state_write(tfs, "owner", group, text);
}

/*
 * Does any process live in namespace ns? Asked from the initial namespace,
 * whose /proc shows every process. A process whose namespace cannot be
 * read (not gone, but hidden) makes the answer yes: no proof.
 */
static bool ns_has_process(uint64_t ns)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool found = false;

	if (!d)
		return true;
	while (!found && (de = readdir(d))) {
		char link[300];
		uint64_t ino;

		/* PID 1 of the initial namespace lives in it */
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    !strcmp(de->d_name, "1"))
			continue;
		snprintf(link, sizeof(link), "/proc/%s/ns/pid", de->d_name);
		ino = ns_inode(link);
		found = ino ? ino == ns : errno != ENOENT;
	}
	closedir(d);
	return found;
}

bool kt_owner_dead(struct ktrace_tfs *tfs, const char *group)
{
	char *text = kt_state_read(tfs, "owner", group), *nl;
	unsigned long long ns, start;
	struct owner self, o;
	bool dead = false;

	if (!text)
		return false;	/* not ktrace's, or not provably */
	nl = strchr(text, '\n');
	if (!nl || (size_t)(nl - text) != strlen(ktrace_tfs_dir(tfs)) ||
	    strncmp(text, ktrace_tfs_dir(tfs), nl - text) ||
	    sscanf(nl + 1, "%d %llu %llu", &o.pid, &ns, &start) != 3 ||
	    o.pid <= 0 || owner_self(&self))
		goto out;
	if (ns == self.ns)
		dead = start_time(o.pid) != start;
	else if (self.ns == INIT_PID_NS)
		dead = !ns_has_process(ns);
out:
	free(text);
	return dead;
}

void kt_owner_forget(struct ktrace_tfs *tfs, const char *group)
{
	kt_state_unmark(tfs, "owner", group);
}

bool kt_owner_known(struct ktrace_tfs *tfs, const char *group)
{
	return kt_state_has(tfs, "owner", group);
}

struct prune {
	const struct kt_dyn_set *ds;
};

static void prune_one(struct ktrace_tfs *tfs, const char *group, void *ctx)
{
	const struct kt_dyn_set *ds = ((struct prune *)ctx)->ds;

	if (kt_state_has(tfs, "instance", group) ||
	    kt_state_has(tfs, "ftrace-top", group))
		return;		/* its instance or top tracer: the sweeps' */
	for (int i = 0; i < ds->n; i++)
		if (!strcmp(ds->v[i].system, group))
			return;		/* its probes are there */
	if (kt_owner_dead(tfs, group))
		kt_owner_forget(tfs, group);
}

void kt_owner_prune(struct ktrace_tfs *tfs, const struct kt_dyn_set *ds)
{
	struct prune p = { ds };

	kt_state_list(tfs, "owner", prune_one, &p);
}

/* Does tfs have events/SYS[/EV]? */
static bool event_exists(struct ktrace_tfs *tfs, const char *sys,
			 const char *ev)
{
	char *p = kt_event_path(&tfs->top, sys, ev, NULL);
	struct stat st;
	bool ret = p && !stat(p, &st);

	free(p);
	return ret;
}

void kt_owner_release(struct ktrace_tfs *tfs, const char *name)
{
	if (!kt_state_has(tfs, "instance", name) &&
	    !kt_state_has(tfs, "ftrace-top", name) &&
	    !event_exists(tfs, name, NULL) &&
	    !event_exists(tfs, "synthetic", name))
		kt_owner_forget(tfs, name);
}

struct ktrace_inst *kt_own_inst_create(struct ktrace_tfs *tfs)
{
	struct ktrace_inst *inst;
	char name[64];
	struct stat st;
	char *dir;
	int ret;

	kt_owner_group_name(name, sizeof(name));
	dir = kt_path("%s/instances/%s", tfs->dir, name);
	if (!dir)
		return NULL;
	ret = stat(dir, &st);
	free(dir);
	if (!ret) {
		errno = EEXIST;	/* not made by this run: never taken */
		return NULL;
	}
	/* on record and marked before it exists, so a SIGKILL at any point
	 * leaves it provable and found */
	ret = kt_owner_record(tfs, name);
	if (!ret)
		ret = kt_state_mark(tfs, "instance", name);
	if (ret) {
		kt_owner_release(tfs, name);
		errno = -ret;
		return NULL;
	}
	inst = ktrace_inst_open(tfs, name, true);
	if (!inst || !ktrace_inst_is_new(inst)) {
		ret = inst ? EEXIST : errno;
		ktrace_inst_free(inst);
		kt_state_unmark(tfs, "instance", name);
		kt_owner_release(tfs, name);
		errno = ret;
		return NULL;
	}
	return inst;
}

/* The triggers on record for the instance (hist.c), removed last first;
 * the record dropped. What is gone already is no error. */
static void unwind_triggers(struct ktrace_inst *inst, const char *name)
{
	char *text = kt_state_read(inst->tfs, "triggers", name), *line;
	char *sys, *ev, *trig, *bang;

	while (text && (line = strrchr(text, '\n'))) {
		*line = '\0';
		line = strrchr(text, '\n');
		line = line ? line + 1 : text;
		sys = line;
		ev = strchr(sys, ' ');
		trig = ev ? strchr(ev + 1, ' ') : NULL;
		if (trig) {
			*ev++ = '\0';
			*trig++ = '\0';
			if (asprintf(&bang, "!%s", trig) >= 0) {
				kt_event_append(inst, sys, ev, "trigger", bang);
				free(bang);
			}
		}
		*line = '\0';
		if (line == text)
			break;
	}
	free(text);
	kt_state_unmark(inst->tfs, "triggers", name);
}

int kt_own_inst_destroy(struct ktrace_inst *inst)
{
	struct ktrace_tfs *tfs;
	char *name;
	int ret;

	if (!inst)
		return 0;
	tfs = inst->tfs;
	name = inst->name ? strdup(inst->name) : NULL;
	if (name)
		unwind_triggers(inst, name);
	ret = ktrace_inst_destroy(inst);
	ktrace_inst_free(inst);
	if (!ret && name)
		kt_owner_release(tfs, name);
	free(name);
	return ret;
}

struct sweep {
	int removed, err;
};

static void sweep_one(struct ktrace_tfs *tfs, const char *name, void *ctx)
{
	struct sweep *sw = ctx;
	struct ktrace_inst *inst;
	int ret;

	if (!kt_owner_dead(tfs, name))
		return;		/* alive, or not provably gone */
	inst = ktrace_inst_open(tfs, name, false);
	if (!inst) {
		if (errno == ENOENT)	/* gone already: the mark is stale */
			kt_state_unmark(tfs, "instance", name);
		return;
	}
	unwind_triggers(inst, name);
	ret = ktrace_inst_destroy(inst);
	ktrace_inst_free(inst);
	if (ret) {
		sw->err = ret;
		return;
	}
	sw->removed++;
	kt_owner_release(tfs, name);
}

int kt_own_inst_sweep(struct ktrace_tfs *tfs)
{
	struct sweep sw = { 0 };
	int ret = kt_state_list(tfs, "instance", sweep_one, &sw);

	if (ret)
		return ret;
	return sw.err && !sw.removed ? sw.err : sw.removed;
}
