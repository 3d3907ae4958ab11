/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The -o writer (writer.c), the last stage: every record the decoder
 * hands over goes into a kfile (lib/kfile/kfile.h) with what a replay
 * needs to print it as the live run did: the events' formats, the comms
 * of older tasks, the mappings read from /proc, the kernel symbols and
 * user frames the records use. Calls symbolize.c (marks), addrspace.c
 * (frames), comm.c and evtable.c's inlines. The public
 * ktrace_record_output family.
 *
 * Owns kfw (closed by ktrace_record_output_close(), or unfinished by
 * kt_writer_free()), ksym_written and symseq; kt_writer_free() frees them.
 */
#ifndef KTRACE_RECORD_WRITER_H
#define KTRACE_RECORD_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <trace-seq.h>

struct kt_kfw;
struct ktrace_record;

struct kt_writer {
	struct kt_kfw *kfw;	/* NULL: not writing */
	/* what earlier flushes wrote, and when */
	unsigned char *ksym_written;	/* bitmap over the kernel symbols */
	size_t comms_written;	/* of the comm table's older tasks */
	int maps_written;	/* of the address space's mappings */
	uint64_t flushed_ns;
	struct trace_seq symseq;	/* symbol fields printed to mark them */
	const char *id_path;	/* the binary whose build-id was written
				 * last (not owned) */
	/* what ktrace_record_open() was asked (live.c), for the file's
	 * META of the same names; sampling owned */
	struct kt_writer_how {
		char *sampling;		/* a line per event: "freq N",
					 * "period N" or "each" */
		char call_graph[32];	/* "dwarf SIZE", "fp", "none" */
		char target[128];	/* "command", "processes P,...",
					 * "system-wide" */
		char cpus[128];		/* "all", "C,..." */
	} how;
};

void kt_writer_init(struct kt_writer *w);
void kt_writer_free(struct kt_writer *w);
/* What every file says of where it was made: kernel, host, ktrace, the
 * command line (NULL: none), CPUs online, the clocks; 0 or nonzero for a
 * failed entry. */
int kt_writer_meta(struct kt_kfw *kfw, const char *cmdline);
/*
 * Write what is buffered (records, comms, mappings and kernel symbols
 * met so far) when a second has passed since the last write, or a tenth
 * of one when little is buffered, so a killed ktrace leaves a readable
 * file; force: now. 0 (also when not writing) or -EIO.
 */
int kt_writer_flush(struct ktrace_record *r, uint64_t now_ns, bool force);

#endif
