// SPDX-License-Identifier: LGPL-2.1-only
/* Formatting recorded samples: perf-script-like text and typed JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "base/internal.h"
#include "base/json.h"
#include "record/record.h"

static void seq_sink(void *ctx, const char *p, size_t n)
{
	trace_seq_printf(ctx, "%.*s", (int)n, p);
}

void kt_json_seq_str(struct trace_seq *q, const char *s, size_t n)
{
	kt_json_escape(s, n, seq_sink, q);
}

static long long read_num(struct tep_handle *tep, const unsigned char *p,
			  int size, bool is_signed)
{
	unsigned long long v = tep_read_number(tep, p, size);

	if (!is_signed)
		return (long long)v;
	switch (size) {
	case 1:
		return (int8_t)v;
	case 2:
		return (int16_t)v;
	case 4:
		return (int32_t)v;
	default:
		return (long long)v;
	}
}

static void json_num(struct trace_seq *q, struct tep_handle *tep,
		     const unsigned char *p, int size, bool is_signed)
{
	long long v = read_num(tep, p, size, is_signed);

	if (is_signed)
		trace_seq_printf(q, "%lld", v);
	else
		trace_seq_printf(q, "%llu", (unsigned long long)v);
}

static void json_field(struct ktrace_record *r, struct tep_format_field *f,
		       const unsigned char *data, uint32_t size)
{
	struct trace_seq *q = &r->seq;
	bool sgn = f->flags & TEP_FIELD_IS_SIGNED;
	unsigned int off, len;
	int esz;

	if (f->offset < 0 || f->size < 0 ||
	    (uint64_t)f->offset + (uint64_t)f->size > size) {
		trace_seq_puts(q, "null");
		return;
	}
	off = f->offset;
	len = f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t v = tep_read_number(r->tep, data + off, 4);

		off = v & 0xffff;
		len = v >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
		if (off > size || len > size - off) {
			trace_seq_puts(q, "null");
			return;
		}
	}
	if (f->flags & TEP_FIELD_IS_STRING) {
		kt_json_seq_str(q, (const char *)data + off, len);
		return;
	}
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		esz = f->elementsize > 0 ? f->elementsize : 1;
		trace_seq_putc(q, '[');
		for (unsigned int i = 0; i + esz <= len; i += esz) {
			if (i)
				trace_seq_puts(q, ", ");
			json_num(q, r->tep, data + off + i, esz, sgn);
		}
		trace_seq_putc(q, ']');
		return;
	}
	if (len == 1 || len == 2 || len == 4 || len == 8)
		json_num(q, r->tep, data + off, len, sgn);
	else
		trace_seq_puts(q, "null");
}

/* The event's own fields as one JSON object, typed. */
static void json_fields(struct ktrace_record *r, const struct rec_event *e,
			const struct ktrace_sample *s)
{
	struct trace_seq *q = &r->seq;

	trace_seq_putc(q, '{');
	for (struct tep_format_field *f = e->te->format.fields; f;
	     f = f->next) {
		kt_json_seq_str(q, f->name, 256);
		trace_seq_puts(q, ": ");
		json_field(r, f, s->raw, s->raw_size);
		if (f->next)
			trace_seq_puts(q, ", ");
	}
	trace_seq_putc(q, '}');
}

static const char *finish(struct ktrace_record *r, size_t *len)
{
	trace_seq_terminate(&r->seq);
	if (len)
		*len = r->seq.len;
	return r->seq.buffer;
}

/* Room for n more bytes in r->out. */
static char *out_reserve(struct ktrace_record *r, size_t used, size_t n)
{
	if (used + n > r->out_cap) {
		size_t cap = r->out_cap ? r->out_cap : 256;
		char *nb;

		while (cap < used + n)
			cap *= 2;
		nb = realloc(r->out, cap);
		if (!nb)
			return NULL;
		r->out = nb;
		r->out_cap = cap;
	}
	return r->out + used;
}

/* Decimal digits of v, right-aligned in width (space or zero padded). */
static char *put_uint(char *p, unsigned long long v, int width, char pad)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (width-- > n)
		*p++ = pad;
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_int(char *p, long long v, int width)
{
	if (v < 0) {
		char tmp[24], *e = put_uint(tmp, -(unsigned long long)v, 0, ' ');
		int n = e - tmp;

		while (width-- > n + 1)
			*p++ = ' ';
		*p++ = '-';
		memcpy(p, tmp, n);
		return p + n;
	}
	return put_uint(p, v, width, ' ');
}

/* Append r->seq's text to the line at *used. 0 or -ENOMEM. */
static int append_seq(struct ktrace_record *r, size_t *used)
{
	char *p;

	trace_seq_terminate(&r->seq);
	p = out_reserve(r, *used, r->seq.len + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p, r->seq.buffer, r->seq.len);
	*used += r->seq.len;
	return 0;
}

/*
 * The text line: "comm pid[/tid] [cpu] sec.nsec: system:event: INFO". This
 * is the per-record hot path of live printing and of report, so the header
 * is written by hand; only the event's own print format goes through
 * libtraceevent, and not at all when it is empty.
 */
/* Does the record hold its event's fields? One compare per record; the
 * fields walked only for events with __data_loc fields. */
static inline bool raw_holds(const struct rec_event *e,
			     const struct ktrace_sample *s)
{
	return s->raw_size >= e->raw_min &&
	       (!e->raw_dyn || kt_raw_fits(e->te, s->raw, s->raw_size));
}

static const char *format_text(struct ktrace_record *r,
			       const struct ktrace_sample *s,
			       const struct rec_event *e, size_t *len)
{
	const char *comm = kt_record_comm(r, s->tid);
	size_t clen = strnlen(comm, 16), used;
	const char *zero;
	char *p = out_reserve(r, 0, 128 + e->label_len);

	if (!p)
		return "";
	/* perf script's shape, which flame graph tools parse: the command
	 * first (left-aligned, never a leading blank), then the pid */
	if (!clen || comm[0] == ' ') {
		comm = "-";
		clen = 1;
	}
	memcpy(p, comm, clen);
	p += clen;
	for (size_t i = clen; i < 16; i++)
		*p++ = ' ';
	*p++ = ' ';
	p = put_int(p, s->pid, 7);
	if (s->pid != s->tid) {
		*p++ = '/';
		p = put_int(p, s->tid, 0);
	}
	*p++ = ' ';
	*p++ = '[';
	p = put_uint(p, s->cpu, 3, '0');
	*p++ = ']';
	*p++ = ' ';
	p = put_uint(p, s->time / 1000000000ull, 0, ' ');
	*p++ = '.';
	p = put_uint(p, s->time % 1000000000ull, 9, '0');
	*p++ = ':';
	*p++ = ' ';
	if (!e->te) {
		/* a sampling event, as perf script: "PERIOD event: IP SYM" */
		p = put_uint(p, s->period, 10, ' ');
		*p++ = ' ';
	}
	memcpy(p, e->label, e->label_len);
	p += e->label_len;
	used = p - r->out;
	if (!e->te && !s->nr_ips) {
		trace_seq_reset(&r->seq);
		kt_record_format_ip(r, s, false);
		if (append_seq(r, &used))
			return "";
	}
	if (e->has_info) {
		struct tep_record rec = {
			.ts = s->time,
			.data = (void *)s->raw,
			.size = s->raw_size,
			.cpu = s->cpu,
		};

		trace_seq_reset(&r->seq);
		/* a record its format does not fit (a damaged file) is
		 * not decoded: its fields would be read past its end; nor
		 * one whose print fmt would divide by zero */
		if (!raw_holds(e, s))
			trace_seq_printf(&r->seq,
					 "[fields unreadable: %zu bytes do not hold the event's format]",
					 (size_t)s->raw_size);
		else if ((zero = kt_zero_divisor(e->div, e->ndiv, s->raw)))
			trace_seq_printf(&r->seq,
					 "[not decoded: its print fmt divides by %s, which is 0 here]",
					 zero);
		else
			tep_print_event(r->tep, &r->seq, &rec, "%s",
					TEP_PRINT_INFO);
		if (append_seq(r, &used))
			return "";
	}
	if (s->nr_ips) {
		trace_seq_reset(&r->seq);
		kt_record_format_stack(r, s, false);
		/* a blank line ends a stack, as perf script prints it */
		trace_seq_putc(&r->seq, '\n');
		if (append_seq(r, &used))
			return "";
	}
	r->out[used] = '\0';
	*len = used;
	return r->out;
}

const char *ktrace_record_format(struct ktrace_record *r,
				 const struct ktrace_sample *s, bool json,
				 size_t *len)
{
	struct trace_seq *q = &r->seq;
	const struct rec_event *e;
	size_t dummy;

	if (!len)
		len = &dummy;

	trace_seq_reset(q);
	if (s->type == KTRACE_SAMPLE_LOST) {
		if (json)
			trace_seq_printf(q, "{\"time\": %llu, \"cpu\": %d, \"lost\": %llu}",
					 (unsigned long long)s->time, s->cpu,
					 (unsigned long long)s->lost);
		else
			trace_seq_printf(q, "[lost %llu records on cpu %d]",
					 (unsigned long long)s->lost, s->cpu);
		return finish(r, len);
	}
	if (s->event < 0 || s->event >= r->nev) {
		trace_seq_puts(q, json ? "{\"error\": \"unknown event\"}" :
					 "[record of an unknown event]");
		return finish(r, len);
	}
	e = &r->ev[s->event];
	if (json) {
		trace_seq_printf(q, "{\"time\": %llu, \"cpu\": %d, \"pid\": %d, \"tid\": %d, \"comm\": ",
				 (unsigned long long)s->time, s->cpu, s->pid,
				 s->tid);
		kt_json_seq_str(q, kt_record_comm(r, s->tid), 16);
		if (!e->te) {
			trace_seq_printf(q, ", \"event\": \"%s\", \"period\": %llu",
					 e->name, (unsigned long long)s->period);
			kt_record_format_ip(r, s, true);
			if (s->nr_ips)
				kt_record_format_stack(r, s, true);
			trace_seq_putc(q, '}');
			return finish(r, len);
		}
		trace_seq_printf(q, ", \"event\": \"%s:%s\", \"fields\": ",
				 e->system, e->name);
		json_fields(r, e, s);
		if (s->nr_ips)
			kt_record_format_stack(r, s, true);
		trace_seq_putc(q, '}');
	} else {
		return format_text(r, s, e, len);
	}
	return finish(r, len);
}

void kt_record_mark_sym_fields(struct ktrace_record *r,
			       const struct ktrace_sample *s)
{
	struct tep_record rec = {
		.ts = s->time,
		.data = (void *)s->raw,
		.size = s->raw_size,
		.cpu = s->cpu,
	};

	trace_seq_reset(&r->symseq);
	if (s->event >= 0 && r->ev[s->event].te &&
	    raw_holds(&r->ev[s->event], s) &&
	    !kt_zero_divisor(r->ev[s->event].div, r->ev[s->event].ndiv,
			     s->raw))
		tep_print_event(r->tep, &r->symseq, &rec, "%s", TEP_PRINT_INFO);
}

const char *ktrace_record_fields_json(struct ktrace_record *r,
				      const struct ktrace_sample *s,
				      size_t *len)
{
	trace_seq_reset(&r->seq);
	if (s->type != KTRACE_SAMPLE_EVENT || s->event < 0 ||
	    s->event >= r->nev || !r->ev[s->event].te)
		trace_seq_puts(&r->seq, "{}");
	else
		json_fields(r, &r->ev[s->event], s);
	return finish(r, len);
}

/* Field name of s's event, checked to lie within the record; NULL if not. */
static struct tep_format_field *sample_field(struct ktrace_record *r,
					     const struct ktrace_sample *s,
					     const char *name)
{
	struct tep_format_field *f;

	if (s->type != KTRACE_SAMPLE_EVENT || s->event < 0 ||
	    s->event >= r->nev || !r->ev[s->event].te)
		return NULL;
	f = tep_find_field(r->ev[s->event].te, name);
	if (!f || f->offset < 0 || f->size <= 0 ||
	    (uint64_t)f->offset + (uint64_t)f->size > s->raw_size ||
	    (f->flags & TEP_FIELD_IS_DYNAMIC))
		return NULL;
	return f;
}

int ktrace_record_field_int(struct ktrace_record *r,
			    const struct ktrace_sample *s, const char *name,
			    long long *v)
{
	struct tep_format_field *f = sample_field(r, s, name);

	if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING)) ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return -ENOENT;
	*v = read_num(r->tep, (const unsigned char *)s->raw + f->offset,
		      f->size, f->flags & TEP_FIELD_IS_SIGNED);
	return 0;
}

int ktrace_record_field_str(struct ktrace_record *r,
			    const struct ktrace_sample *s, const char *name,
			    char *buf, size_t len)
{
	struct tep_format_field *f = sample_field(r, s, name);
	size_t n;

	if (!len)
		return -EINVAL;
	if (!f || !(f->flags & TEP_FIELD_IS_STRING))
		return -ENOENT;
	n = strnlen((const char *)s->raw + f->offset, f->size);
	if (n >= len)
		n = len - 1;
	memcpy(buf, (const char *)s->raw + f->offset, n);
	buf[n] = '\0';
	return 0;
}
