/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Pieces of the probe spec grammar (spec.c) for the commands that write
 * specs of their own (cmd/inline.c). Internal to libktrace; not installed.
 */
#ifndef KTRACE_PROBE_SPEC_H
#define KTRACE_PROBE_SPEC_H

/*
 * Length of the location token at s: it ends at a blank outside quotes,
 * parentheses and angle brackets, so that C++ names with their parameters
 * or template arguments ("ns::C::add(char const*)", "pair<int, long>")
 * need no quoting; a quoted one ('...' or "...") runs to its quote.
 */
int kt_probe_location_len(const char *s);

#endif /* KTRACE_PROBE_SPEC_H */
