/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The names of tasks (comm.c): learnt from COMM and FORK records as the
 * source decodes them; for a task older than the recording, asked once
 * (live: /proc; a file: its table of them). Calls nothing else of
 * lib/record.
 *
 * Owns ent[] and old[] with its strings; kt_comms_free() frees them.
 */
#ifndef KTRACE_RECORD_COMM_H
#define KTRACE_RECORD_COMM_H

#include <stdbool.h>
#include <stddef.h>

struct kt_kf_comm;

struct comm_ent {
	int pid;
	bool used;
	char comm[16];
};

struct kt_comms {
	struct comm_ent *ent;	/* open addressing by pid, cap a power of 2 */
	size_t cap, n;
	/* Comms of tasks older than the recording (live: read from /proc
	 * and written with -o; file: its table), so that a replay sees
	 * exactly what the live run saw. */
	struct kt_kf_comm *old;
	size_t nr_old;
	/* unknown tasks are looked up in old[] only (a file), not in /proc */
	bool from_table;
};

/* The comm of pid: a pointer into the table, valid until the next comm is
 * learnt (the table may grow). Never NULL. */
const char *kt_comms_get(struct kt_comms *c, int pid);
void kt_comms_set(struct kt_comms *c, int pid, const char *comm);
/* A FORK record: the child tid is named as its parent ptid, if known. */
void kt_comms_fork(struct kt_comms *c, int ptid, int tid);
/* The comm of a task older than the recording (copied into old[]). */
void kt_comms_note_old(struct kt_comms *c, int pid, const char *comm);
void kt_comms_free(struct kt_comms *c);

#endif
