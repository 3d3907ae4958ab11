/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The function tracers' records in a ktrace file (ftfile.c): ktrace
 * ftrace -o writes each record's data as it came from trace_pipe_raw, a
 * sample of its event (ftrace:function, ftrace:funcgraph_entry,
 * ftrace:funcgraph_exit) with that event's format, in the order the live
 * run showed them; META "tracer" names the tracer. Read back, the same
 * decoder (kt_fdec) turns them into the records the live run had, so
 * report shows them as ftrace did. Not installed.
 */
#ifndef KTRACE_RECORD_FTFILE_H
#define KTRACE_RECORD_FTFILE_H

#include <stdint.h>

#include "tracefs/ftrace.h"

struct ktrace_inst;
struct ktrace_record;
struct ktrace_err;
struct kt_symtab;

/*
 * Start a file on fd (not owned) for the tracer's events of inst, with
 * the command line (NULL: none). NULL with err set. Free with
 * kt_ftw_close(), which finishes the file.
 */
struct kt_ftw;
struct kt_ftw *kt_ftw_open(int fd, const struct ktrace_inst *inst,
			   const char *tracer, const char *cmdline,
			   struct ktrace_err *err);
/* One record's data (kt_fpipe_raw()) in the order shown; the kernel
 * symbols and task names the records use; META entries. 0 or -errno (the
 * first write error sticks). */
int kt_ftw_add(struct kt_ftw *w, const struct kt_frec *r, const void *data,
	       uint32_t size);
int kt_ftw_ksym(struct kt_ftw *w, uint64_t addr, const char *name);
int kt_ftw_comm(struct kt_ftw *w, int pid, const char *comm);
int kt_ftw_meta(struct kt_ftw *w, const char *key, const char *value);
/* Finish and free the file (w may be NULL); *bytes written (may be NULL).
 * 0 or the first -errno met. */
int kt_ftw_close(struct kt_ftw *w, uint64_t *bytes);

/*
 * A loaded file's records of the function tracers, decoded, in the file's
 * order through fn (its nonzero return stops and is returned). The number
 * of records, or -errno (-EBADMSG: damaged; -EINVAL: not such a file).
 */
typedef int (*kt_ftfile_fn)(void *ctx, const struct kt_frec *r);
long kt_ftfile_replay(struct ktrace_record *r, kt_ftfile_fn fn, void *ctx);
/* The kernel symbols the loaded file holds (r's). */
const struct kt_symtab *kt_ftfile_ksyms(const struct ktrace_record *r);

#endif
