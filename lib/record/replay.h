/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The file source (replay.c): a recording written with -o, its tables
 * loaded into the event table, the comm table, the address space and the
 * symbolizer, its records handed to the decoder in order. The public
 * ktrace_record_replay/meta/truncated; ktrace_record_load() (record.c)
 * calls kt_replay_load().
 *
 * Owns kf and mem (the file's bytes, when read from a pipe);
 * kt_replay_free() frees them.
 */
#ifndef KTRACE_RECORD_REPLAY_H
#define KTRACE_RECORD_REPLAY_H

#include <stdbool.h>

struct kt_kfile;
struct ktrace_record;
struct ktrace_err;

struct kt_replay {
	struct kt_kfile *kf;	/* NULL: a live recording */
	void *mem;
};

/* Load the file at path ("-": standard input) into r, fresh from
 * ktrace_record_alloc(); 0, or a positive errno with err set. */
int kt_replay_load(struct ktrace_record *r, const char *path,
		   struct ktrace_err *err);
void kt_replay_free(struct kt_replay *rp);

#endif
