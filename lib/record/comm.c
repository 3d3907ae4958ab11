// SPDX-License-Identifier: LGPL-2.1-only
/* The comm table: pid to task name, for every line printed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfile/kfile.h"
#include "record/record.h"

static uint32_t hash_pid(int pid)
{
	return (uint32_t)pid * 2654435761u;
}

static struct comm_ent *comm_slot(struct kt_comms *c, int pid, bool add)
{
	size_t mask, i;

	if (add && (c->n + 1) * 2 > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct comm_ent *nv = calloc(cap, sizeof(*nv)), *old = c->ent;
		size_t ocap = c->cap;

		if (!nv)
			return NULL;
		c->ent = nv;
		c->cap = cap;
		c->n = 0;
		for (size_t j = 0; j < ocap; j++) {
			if (old[j].used) {
				struct comm_ent *s = comm_slot(c, old[j].pid,
							       true);

				*s = old[j];
				c->n++;
			}
		}
		free(old);
	}
	if (!c->cap)
		return NULL;
	mask = c->cap - 1;
	for (i = hash_pid(pid) & mask;; i = (i + 1) & mask) {
		if (!c->ent[i].used)
			return add ? &c->ent[i] : NULL;
		if (c->ent[i].pid == pid)
			return &c->ent[i];
	}
}

void kt_comms_set(struct kt_comms *c, int pid, const char *comm)
{
	struct comm_ent *e = comm_slot(c, pid, true);

	if (!e)
		return;
	if (!e->used) {
		e->used = true;
		e->pid = pid;
		c->n++;
	}
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
}

void kt_comms_fork(struct kt_comms *c, int ptid, int tid)
{
	struct comm_ent *pe = comm_slot(c, ptid, false);

	if (pe) {
		char comm[16];

		memcpy(comm, pe->comm, sizeof(comm));
		kt_comms_set(c, tid, comm);
	}
}

void kt_comms_note_old(struct kt_comms *c, int pid, const char *comm)
{
	struct kt_kf_comm *nv;

	nv = realloc(c->old, (c->nr_old + 1) * sizeof(*nv));
	if (!nv)
		return;
	c->old = nv;
	nv[c->nr_old].pid = pid;
	nv[c->nr_old].tid = pid;
	nv[c->nr_old].comm = strdup(comm);
	if (nv[c->nr_old].comm)
		c->nr_old++;
}

void kt_comms_free(struct kt_comms *c)
{
	for (size_t i = 0; i < c->nr_old; i++)
		free((char *)c->old[i].comm);
	free(c->old);
	free(c->ent);
}

/* A task that existed before the recording, live: ask /proc once. */
static int proc_comm(struct kt_comms *c, int pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, len - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	/* kept for -o: a replay must see what this run saw */
	kt_comms_note_old(c, pid, buf);
	return 0;
}

/* ... and from a file: its table. */
static int table_comm(struct kt_comms *c, int pid, char *buf, size_t len)
{
	for (size_t i = 0; i < c->nr_old; i++) {
		if ((int)c->old[i].tid == pid) {
			snprintf(buf, len, "%s", c->old[i].comm);
			return 0;
		}
	}
	return -ENOENT;
}

const char *kt_comms_get(struct kt_comms *c, int pid)
{
	struct comm_ent *e = comm_slot(c, pid, false);
	char buf[32];

	if (e)
		return e->comm;
	if (pid == 0)
		return "swapper";
	if (c->from_table ? table_comm(c, pid, buf, sizeof(buf)) :
			    proc_comm(c, pid, buf, sizeof(buf)))
		strcpy(buf, "<...>");
	kt_comms_set(c, pid, buf);
	e = comm_slot(c, pid, false);
	return e ? e->comm : "<...>";
}

int ktrace_record_comm(struct ktrace_record *r, int pid, char *buf,
		       size_t len)
{
	if (!len)
		return -EINVAL;
	snprintf(buf, len, "%s", kt_comms_get(&r->comm, pid));
	return 0;
}
