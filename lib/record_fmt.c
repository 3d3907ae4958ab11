// SPDX-License-Identifier: LGPL-2.1-only
/* Formatting recorded samples: perf-script-like text and typed JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "internal.h"
#include "record.h"

static void json_str(struct trace_seq *q, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	trace_seq_putc(q, '"');
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			trace_seq_putc(q, '\\');
			trace_seq_putc(q, c);
		} else if (c < 0x20 || c == 0x7f) {
			trace_seq_printf(q, "\\u00%c%c", hex[c >> 4],
					 hex[c & 15]);
		} else {
			trace_seq_putc(q, c);
		}
	}
	trace_seq_putc(q, '"');
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
	unsigned int off = f->offset, len = f->size;
	int esz;

	if (off + (unsigned int)f->size > size) {
		trace_seq_puts(q, "null");
		return;
	}
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
		json_str(q, (const char *)data + off, len);
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

static const char *finish(struct ktrace_record *r, size_t *len)
{
	trace_seq_terminate(&r->seq);
	if (len)
		*len = r->seq.len;
	return r->seq.buffer;
}

const char *ktrace_record_format(struct ktrace_record *r,
				 const struct ktrace_sample *s, bool json,
				 size_t *len)
{
	struct trace_seq *q = &r->seq;
	const struct rec_event *e;
	unsigned long long sec = s->time / 1000000000ull;
	unsigned long long ns = s->time % 1000000000ull;

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
		struct tep_format_field *f;

		trace_seq_printf(q, "{\"time\": %llu, \"cpu\": %d, \"pid\": %d, \"tid\": %d, \"comm\": ",
				 (unsigned long long)s->time, s->cpu, s->pid,
				 s->tid);
		json_str(q, ktrace_record_comm(r, s->tid), 16);
		trace_seq_printf(q, ", \"event\": \"%s:%s\", \"fields\": {",
				 e->system, e->name);
		for (f = e->te->format.fields; f; f = f->next) {
			json_str(q, f->name, 256);
			trace_seq_puts(q, ": ");
			json_field(r, f, s->raw, s->raw_size);
			if (f->next)
				trace_seq_puts(q, ", ");
		}
		trace_seq_putc(q, '}');
		if (s->nr_ips)
			kt_record_format_stack(r, s, true);
		trace_seq_putc(q, '}');
	} else {
		struct tep_record rec = {
			.ts = s->time,
			.data = (void *)s->raw,
			.size = s->raw_size,
			.cpu = s->cpu,
		};

		if (s->pid == s->tid)
			trace_seq_printf(q, "%16s %7d [%03d] %llu.%09llu: %s:%s: ",
					 ktrace_record_comm(r, s->tid), s->tid,
					 s->cpu, sec, ns, e->system, e->name);
		else
			trace_seq_printf(q, "%16s %7d/%-7d [%03d] %llu.%09llu: %s:%s: ",
					 ktrace_record_comm(r, s->tid), s->pid,
					 s->tid, s->cpu, sec, ns, e->system,
					 e->name);
		tep_print_event(r->tep, q, &rec, "%s", TEP_PRINT_INFO);
		if (s->nr_ips)
			kt_record_format_stack(r, s, false);
	}
	return finish(r, len);
}
