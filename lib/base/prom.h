/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The Prometheus text exposition format (version 0.0.4, what Prometheus
 * asks exporters for, text/plain; version=0.0.4): the one escaper of its
 * label values and HELP texts, names made valid, and the lines of a
 * metric family written onto a stream the caller owns (ktrace export).
 * Not installed, not exported.
 *
 *   # HELP ktrace_events_total Events counted by perf.
 *   # TYPE ktrace_events_total counter
 *   ktrace_events_total{event="syscalls:sys_enter_getppid"} 1000
 */
#ifndef KTRACE_BASE_PROM_H
#define KTRACE_BASE_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The one escaper: s onto f with a backslash before '\\' and a newline
 * written "\n"; in a label value (label) also '"' as "\"". Other bytes as
 * they are (the format is UTF-8; ktrace's names and the kernel's keys
 * are ASCII).
 */
void kt_prom_escape(FILE *f, const char *s, bool label);

/*
 * s as a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or, with label, a label
 * name ([a-zA-Z_][a-zA-Z0-9_]*, never the reserved "__" prefix) into buf
 * (len >= 2): every other byte becomes '_', a leading digit gets a '_'
 * before it, an empty name is "_". Cut at len - 1 bytes. Returns buf.
 */
char *kt_prom_name(char *buf, size_t len, const char *s, bool label);

/* "# HELP name help" (help escaped; NULL: no HELP line) and
 * "# TYPE name type" (counter, gauge, histogram, untyped). */
void kt_prom_family(FILE *f, const char *name, const char *type,
		    const char *help);

/* A label of a sample: name (valid, see kt_prom_name()) and its value
 * (any text, escaped when written). */
struct kt_prom_label {
	const char *name, *value;
};

/*
 * One sample line: name{l[0],...,l[n-1]} value, the labels in the order
 * given (none: no braces). _u64 writes an integer, _double a number
 * (15 or 17 digits, read back exactly; NaN and infinities as the format spells
 * them).
 */
void kt_prom_u64(FILE *f, const char *name, const struct kt_prom_label *l,
		 int n, uint64_t v);
void kt_prom_double(FILE *f, const char *name, const struct kt_prom_label *l,
		    int n, double v);

#endif
