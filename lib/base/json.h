/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The one JSON writer and string escaper of ktrace: lib/ (records' JSON)
 * and every --json output of the ktrace command (cmd/, which links
 * libktrace statically) use them. Not installed, not exported.
 */
#ifndef KTRACE_BASE_JSON_H
#define KTRACE_BASE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The one JSON string escaper: at most n bytes of s (it stops at a NUL),
 * quoted, handed to sink in pieces. Quotes, backslashes and control
 * characters are escaped; valid UTF-8 is kept; a byte that is not UTF-8
 * becomes \u00XX (its Latin-1 code point), so the output is always valid.
 */
typedef void (*kt_json_sink_fn)(void *ctx, const char *p, size_t n);
void kt_json_escape(const char *s, size_t n, kt_json_sink_fn sink, void *ctx);
/* The same onto a libtraceevent trace_seq (the records' JSON lines). */
struct trace_seq;
void kt_json_seq_str(struct trace_seq *q, const char *s, size_t n);

/*
 * The writer. It writes to a stream the caller owns and keeps track of
 * nesting: separators are never written by hand. A top-level array has
 * one element per line; everything else is on one line. Strings go
 * through kt_json_escape(). kt_json_free() closes whatever is still open
 * and frees the writer (not the stream); it returns -EIO if the stream
 * had an error.
 */
struct kt_json;

struct kt_json *kt_json_alloc(FILE *f);
int kt_json_free(struct kt_json *j);
void kt_json_object_begin(struct kt_json *j);
void kt_json_object_end(struct kt_json *j);
void kt_json_array_begin(struct kt_json *j);
void kt_json_array_end(struct kt_json *j);
/* The key of the next value; only inside an object. */
void kt_json_key(struct kt_json *j, const char *key);
void kt_json_string(struct kt_json *j, const char *s); /* NULL: null */
void kt_json_int(struct kt_json *j, long long v);
void kt_json_uint(struct kt_json *j, unsigned long long v);
void kt_json_double(struct kt_json *j, double v);
void kt_json_bool(struct kt_json *j, bool v);
void kt_json_null(struct kt_json *j);
/* v / 10^decimals, written exactly ("12.345" for 12345, 3): timestamps. */
void kt_json_decimal(struct kt_json *j, long long v, unsigned int decimals);
/* A complete JSON value made by libktrace (ktrace_record_fields_json()). */
void kt_json_raw(struct kt_json *j, const char *json, size_t len);
/* Arrays that are values of the top-level object get one element per line
 * too (long lists in one document: trace files). Default off. */
void kt_json_set_long_arrays(struct kt_json *j, bool on);
/* Is the innermost open container an object (keys may follow)? */
bool kt_json_in_object(const struct kt_json *j);
void kt_json_close_all(struct kt_json *j);

#endif
