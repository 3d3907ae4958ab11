/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Samples formatted (format.c): perf-script-like text lines and typed
 * JSON, through libtraceevent for the events' print formats, with frame
 * names from the symbolizer. The public ktrace_record_format() family;
 * calls evtable.c (through its inlines), comm.c and symbolize.c.
 *
 * Owns seq and out (the line handed out, valid until the next call);
 * kt_format_free() frees them.
 */
#ifndef KTRACE_RECORD_FORMAT_H
#define KTRACE_RECORD_FORMAT_H

#include <stddef.h>
#include <trace-seq.h>

struct kt_format {
	struct trace_seq seq;
	char *out;
	size_t out_cap;
};

void kt_format_init(struct kt_format *f);
void kt_format_free(struct kt_format *f);

#endif
