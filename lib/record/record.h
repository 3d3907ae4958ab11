/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * struct ktrace_record: a recording, composed of its parts, each with its
 * own state, header and owner comment. Records flow one way:
 *
 *	source: live.c (the rings and their merge; ustack.c unwinds DWARF
 *	        stacks as they leave the rings) or replay.c (a file)
 *	  -> decode.c: records to samples, names learnt (comm.c); with
 *	     off-CPU time, switches paired into samples (offcpu.c)
 *	  -> address space and symbolizer: addrspace.c (mappings, binaries,
 *	     their read-ahead threads, frame cache), symbolize.c (addresses
 *	     to names)
 *	  -> format.c: text and JSON lines
 *	  -> writer.c: the -o file
 *
 * Calls run toward the middle, never back: a source pushes records into
 * the decoder and mappings into the address space; format.c and
 * writer.c ask the symbolizer, which asks the address space. The decoder
 * hands every record on through the sink the writer sets and to the
 * caller's function. evtable.c (the events) and fmtcheck.c serve every
 * stage; record.c composes and frees the parts.
 */
#ifndef KTRACE_RECORD_H
#define KTRACE_RECORD_H

#include "ktrace.h"
#include "record/addrspace.h"
#include "record/comm.h"
#include "record/decode.h"
#include "record/evtable.h"
#include "record/fmtcheck.h"
#include "record/format.h"
#include "record/live.h"
#include "record/offcpu.h"
#include "record/replay.h"
#include "record/symbolize.h"
#include "record/ustack.h"
#include "record/writer.h"

struct ktrace_record {
	struct ktrace_tfs *tfs;		/* live: the events' tracefs */
	struct kt_evtable evt;
	/* the source: live rings, or a file */
	struct kt_live live;
	struct kt_ustacks ust;
	struct kt_replay file;
	struct kt_decoder dec;
	struct kt_offcpu off;		/* record --off-cpu's pairing */
	struct kt_comms comm;
	struct kt_addrspace as;
	struct kt_symbolizer sym;
	struct kt_format fmt;
	struct kt_writer w;
};

#endif
