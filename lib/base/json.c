// SPDX-License-Identifier: LGPL-2.1-only
/*
 * JSON: the one string escaper of libktrace (records, listings, errors)
 * and the writer every ktrace command prints its --json output through.
 * The writer tracks nesting, so separators are never written by hand, and
 * can close whatever is open when an error cuts the output short.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-seq.h>

#include "base/internal.h"
#include "base/json.h"

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned int cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	cp = len == 2 ? (s[0] & 0x1fu) << 6 | (s[1] & 0x3f) :
	     len == 3 ? (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 |
			(s[2] & 0x3f) :
		        (s[0] & 0x07u) << 18 | (s[1] & 0x3fu) << 12 |
			(s[2] & 0x3fu) << 6 | (s[3] & 0x3f);
	/* overlong forms, surrogates, past U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

void kt_json_escape(const char *str, size_t n, kt_json_sink_fn sink,
		    void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	char buf[512];
	size_t o = 0, i = 0;

	buf[o++] = '"';
	while (i < n && s[i]) {
		unsigned char c = s[i];
		size_t u;

		if (o > sizeof(buf) - 8) {
			sink(ctx, buf, o);
			o = 0;
		}
		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = c;
		} else if (c == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else if (c == '\t') {
			buf[o++] = '\\';
			buf[o++] = 't';
		} else if (c >= 0x20 && c < 0x7f) {
			buf[o++] = c;
		} else if (c >= 0x80 && (u = utf8_len(s + i, n - i))) {
			memcpy(buf + o, s + i, u);
			o += u;
			i += u;
			continue;
		} else {
			/* control characters, DEL, and bytes that are not
			 * UTF-8: the code point of the byte (as Latin-1) */
			memcpy(buf + o, "\\u00", 4);
			buf[o + 4] = hex[c >> 4];
			buf[o + 5] = hex[c & 15];
			o += 6;
		}
		i++;
	}
	buf[o++] = '"';
	sink(ctx, buf, o);
}

static void seq_sink(void *ctx, const char *p, size_t n)
{
	trace_seq_printf(ctx, "%.*s", (int)n, p);
}

void kt_json_seq_str(struct trace_seq *q, const char *s, size_t n)
{
	kt_json_escape(s, n, seq_sink, q);
}

/* ------------------------------------------------------------- the writer */

#define JSON_MAX_DEPTH 32

struct kt_json {
	FILE *f;
	int depth;
	char kind[JSON_MAX_DEPTH];	/* '{' or '[' */
	int count[JSON_MAX_DEPTH];	/* values written at each level */
	bool key;			/* a key waits for its value */
	bool long_arrays;		/* kt_json_set_long_arrays() */
};

struct kt_json *kt_json_alloc(FILE *f)
{
	struct kt_json *j;

	if (!f) {
		errno = EINVAL;
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (j)
		j->f = f;
	return j;
}

int kt_json_free(struct kt_json *j)
{
	int ret;

	if (!j)
		return 0;
	kt_json_close_all(j);
	ret = ferror(j->f) ? -EIO : 0;
	free(j);
	return ret;
}

static void file_sink(void *ctx, const char *p, size_t n)
{
	fwrite(p, 1, n, ctx);
}

void kt_json_set_long_arrays(struct kt_json *j, bool on)
{
	j->long_arrays = on;
}

/* Does the array at depth d put one element per line? */
static bool long_array(const struct kt_json *j, int d)
{
	return j->kind[d] == '[' &&
	       (d == 0 || (d == 1 && j->long_arrays && j->kind[0] == '{'));
}

/*
 * Before a value: the separator its container needs. Top-level arrays put
 * one element per line ("[\n{...},\n{...}\n]"), and so do the arrays of a
 * top-level object with long_arrays; everything else is on one line with
 * ", " and ": ".
 */
static void before_value(struct kt_json *j)
{
	int d = j->depth;

	if (j->key) {
		j->key = false;
		return;
	}
	/* at d == 0: a new document; the last one ended its line */
	if (d > 0 && j->kind[d - 1] == '[') {
		if (long_array(j, d - 1))
			fputs(j->count[d - 1] ? ",\n" : "\n", j->f);
		else if (j->count[d - 1])
			fputs(", ", j->f);
	}
	if (d > 0)
		j->count[d - 1]++;
}

static void open_c(struct kt_json *j, char kind)
{
	before_value(j);
	putc(kind, j->f);
	if (j->depth < JSON_MAX_DEPTH) {
		j->kind[j->depth] = kind;
		j->count[j->depth] = 0;
	}
	j->depth++;
}

static void close_c(struct kt_json *j)
{
	int d = j->depth - 1;

	if (d < 0)
		return;
	if (j->key) {			/* a key without its value */
		fputs("null", j->f);
		j->key = false;
	}
	if (long_array(j, d) && j->count[d])
		putc('\n', j->f);
	putc(j->kind[d] == '{' ? '}' : ']', j->f);
	j->depth--;
	if (j->depth == 0)
		putc('\n', j->f);
}

void kt_json_object_begin(struct kt_json *j)
{
	open_c(j, '{');
}

void kt_json_object_end(struct kt_json *j)
{
	close_c(j);
}

void kt_json_array_begin(struct kt_json *j)
{
	open_c(j, '[');
}

void kt_json_array_end(struct kt_json *j)
{
	close_c(j);
}

void kt_json_key(struct kt_json *j, const char *key)
{
	int d = j->depth - 1;

	if (d < 0 || j->kind[d] != '{')
		return;
	if (j->key)
		fputs("null", j->f);
	if (j->count[d]++)
		fputs(", ", j->f);
	kt_json_escape(key, strlen(key), file_sink, j->f);
	fputs(": ", j->f);
	j->key = true;
}

void kt_json_string(struct kt_json *j, const char *s)
{
	before_value(j);
	if (s)
		kt_json_escape(s, strlen(s), file_sink, j->f);
	else
		fputs("null", j->f);
	if (!j->depth)
		putc('\n', j->f);
}

static void scalar(struct kt_json *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void scalar(struct kt_json *j, const char *fmt, ...)
{
	va_list ap;

	before_value(j);
	va_start(ap, fmt);
	vfprintf(j->f, fmt, ap);
	va_end(ap);
	if (!j->depth)
		putc('\n', j->f);
}

void kt_json_int(struct kt_json *j, long long v)
{
	scalar(j, "%lld", v);
}

void kt_json_uint(struct kt_json *j, unsigned long long v)
{
	scalar(j, "%llu", v);
}

void kt_json_double(struct kt_json *j, double v)
{
	/* JSON has no NaN or infinity */
	if (v != v || v > 1e308 || v < -1e308)
		scalar(j, "null");
	else
		scalar(j, "%.9g", v);
}

void kt_json_decimal(struct kt_json *j, long long v,
		     unsigned int decimals)
{
	unsigned long long m = 1, u = v < 0 ? -(unsigned long long)v :
					     (unsigned long long)v;

	if (decimals > 18)
		decimals = 18;
	for (unsigned int i = 0; i < decimals; i++)
		m *= 10;
	if (!decimals)
		scalar(j, "%lld", v);
	else
		scalar(j, "%s%llu.%0*llu", v < 0 ? "-" : "", u / m,
		       (int)decimals, u % m);
}

void kt_json_raw(struct kt_json *j, const char *json, size_t len)
{
	before_value(j);
	fwrite(json, 1, len, j->f);
	if (!j->depth)
		putc('\n', j->f);
}

void kt_json_bool(struct kt_json *j, bool v)
{
	scalar(j, "%s", v ? "true" : "false");
}

void kt_json_null(struct kt_json *j)
{
	scalar(j, "null");
}

bool kt_json_in_object(const struct kt_json *j)
{
	return j->depth > 0 && j->kind[j->depth - 1] == '{';
}

void kt_json_close_all(struct kt_json *j)
{
	while (j->depth > 0)
		close_c(j);
}
