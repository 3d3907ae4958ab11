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
#include "base/json.h"
#include "record/record.h"

void kt_format_init(struct kt_format *f)
{
	trace_seq_init(&f->seq);
}

void kt_format_free(struct kt_format *f)
{
	trace_seq_destroy(&f->seq);
	free(f->out);
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
	struct trace_seq *q = &r->fmt.seq;
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
		uint32_t v = tep_read_number(r->evt.tep, data + off, 4);

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
			json_num(q, r->evt.tep, data + off + i, esz, sgn);
		}
		trace_seq_putc(q, ']');
		return;
	}
	if (len == 1 || len == 2 || len == 4 || len == 8)
		json_num(q, r->evt.tep, data + off, len, sgn);
	else
		trace_seq_puts(q, "null");
}

/* The event's own fields as one JSON object, typed. */
static void json_fields(struct ktrace_record *r, const struct rec_event *e,
			const struct ktrace_sample *s)
{
	struct trace_seq *q = &r->fmt.seq;

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

/* The seq holds all that was put in it (no allocation failed). */
static bool seq_ok(const struct trace_seq *q)
{
	return q->buffer && q->state == TRACE_SEQ__GOOD;
}

static const char *finish(struct ktrace_record *r, size_t *len)
{
	trace_seq_terminate(&r->fmt.seq);
	if (!seq_ok(&r->fmt.seq)) {
		errno = ENOMEM;
		return NULL;
	}
	if (len)
		*len = r->fmt.seq.len;
	return r->fmt.seq.buffer;
}

/*
 * libtraceevent's printing allocates without checking (a %s argument: a
 * helper trace_seq whose NULL buffer it then reads): under a memory limit
 * it is called only with this much room in the heap.
 */
#define TEP_PRINT_HEADROOM (64u << 10)

static bool tep_headroom(void)
{
	return kt_mem_headroom(TEP_PRINT_HEADROOM);
}

/* Room for n more bytes in r->fmt.out. */
static char *out_reserve(struct ktrace_record *r, size_t used, size_t n)
{
	if (used + n > r->fmt.out_cap) {
		size_t cap = r->fmt.out_cap ? r->fmt.out_cap : 256;
		char *nb;

		while (cap < used + n)
			cap *= 2;
		nb = realloc(r->fmt.out, cap);
		if (!nb)
			return NULL;
		r->fmt.out = nb;
		r->fmt.out_cap = cap;
	}
	return r->fmt.out + used;
}

/* Append r->fmt.seq's text to the line at *used. 0 or -ENOMEM. */
/* Append the seq's text to the line; escaped: its control characters
 * written as escapes (an event's strings are the traced program's). */
static int append_seq(struct ktrace_record *r, size_t *used, bool escaped)
{
	size_t n = r->fmt.seq.len;
	char *p;

	trace_seq_terminate(&r->fmt.seq);
	if (!seq_ok(&r->fmt.seq))
		return -ENOMEM;
	p = out_reserve(r, *used, (escaped ? 4 * n : n) + 1);
	if (!p)
		return -ENOMEM;
	if (escaped) {
		*used += kt_text_escape(p, r->fmt.seq.buffer, n);
		return 0;
	}
	memcpy(p, r->fmt.seq.buffer, n);
	*used += n;
	return 0;
}

/* Append the sampled address of s, symbolized ("ip sym+0xoff (dso)", or
 * JSON members "ip" and "sym"), to the line. */
static void format_ip(struct ktrace_record *r, const struct ktrace_sample *s,
		      bool json)
{
	struct trace_seq *q = &r->fmt.seq;
	const char *frame, *last;
	char buf[512];

	if (kt_kernel_ip(s->ip))
		kt_symbolizer_ksyms(&r->sym);
	frame = kt_symbolize_text(&r->sym, &r->as, s->pid, s->ip,
				  kt_kernel_ip(s->ip), buf, sizeof(buf));
	/* the function that holds it: the last line (inlined ones first) */
	last = strrchr(frame, '\n');
	last = last ? last + 1 : frame;
	if (json) {
		trace_seq_printf(q, ", \"ip\": %llu, \"sym\": ",
				 (unsigned long long)s->ip);
		kt_json_seq_str(q, last, strlen(last));
	} else {
		char esc[4 * sizeof(buf) + 1];

		/* a user frame's text is escaped already, a kernel one not */
		if (kt_kernel_ip(s->ip)) {
			kt_text_escape(esc, last, strnlen(last, sizeof(buf)));
			last = esc;
		}
		trace_seq_printf(q, "%16llx %s", (unsigned long long)s->ip,
				 last);
	}
}

/*
 * "\n\t<ip> <frame>" as "\n\t%16llx %.*s" prints it, without printf:
 * a million stacks a second go through here. escape: the frame's text
 * is a kernel frame's, whose names (from a file's table) are not escaped
 * yet; user frames' texts are (kt_addrspace_user_text()).
 */
static void frame_line(struct trace_seq *q, uint64_t ip, const char *frame,
		       size_t n, bool escape)
{
	char b[20 + 4 * 512 + 1];
	int i = 19;		/* "\n\t", 16 columns, ' ' */

	if (n > 512) {		/* a long user frame: no kernel text is */
		trace_seq_printf(q, "\n\t%16llx %.*s", (unsigned long long)ip,
				 (int)n, frame);
		return;
	}
	b[--i] = ' ';
	do {
		b[--i] = "0123456789abcdef"[ip & 15];
		ip >>= 4;
	} while (ip);
	while (i > 2)
		b[--i] = ' ';
	b[0] = '\n';
	b[1] = '\t';
	if (escape) {
		kt_text_escape(b + 19, frame, n);
	} else {
		memcpy(b + 19, frame, n);
		b[19 + n] = '\0';
	}
	trace_seq_puts(q, b);
}

/* Where the " (DSO)" of a frame's line starts (line + n: none). */
static const char *frame_paren(const char *line, size_t n)
{
	if (!n || line[n - 1] != ')')
		return line + n;
	for (size_t i = n - 1; i-- > 0;)
		if (line[i] == ' ' && line[i + 1] == '(')
			return line + i;
	return line + n;
}

/*
 * One line of a frame's text ("sym+0xoff (dso)", "sym (inlined)") as a
 * JSON object of typed members: addr, sym, offset (null: none), dso (an
 * inlined function's is that of the function it is inlined into, the
 * frame's last line, fn[0..fn_n)) and inlined.
 */
static void frame_json(struct trace_seq *q, uint64_t ip, const char *line,
		       size_t n, const char *fn, size_t fn_n)
{
	const char *paren = frame_paren(line, n), *dso, *end, *plus = NULL;
	bool inlined = (size_t)(line + n - paren) == 10 &&
		       !memcmp(paren, " (inlined)", 10);
	unsigned long long off = 0;

	for (const char *c = line; c + 3 < paren; c++)
		if (c[0] == '+' && c[1] == '0' && c[2] == 'x')
			plus = c;
	if (plus && strspn(plus + 3, "0123456789abcdef") ==
		    (size_t)(paren - plus - 3))
		off = strtoull(plus + 3, NULL, 16);
	else
		plus = NULL;
	trace_seq_printf(q, "{\"addr\": %llu, \"sym\": ", (unsigned long long)ip);
	kt_json_seq_str(q, line, (plus ? plus : paren) - line);
	if (plus)
		trace_seq_printf(q, ", \"offset\": %llu, \"dso\": ", off);
	else
		trace_seq_puts(q, ", \"offset\": null, \"dso\": ");
	if (inlined) {
		paren = frame_paren(fn, fn_n);
		end = fn + fn_n;
	} else {
		end = line + n;
	}
	dso = paren + 2;
	if (dso < end)
		kt_json_seq_str(q, dso, end - 1 - dso);
	else
		trace_seq_puts(q, "null");
	trace_seq_printf(q, ", \"inlined\": %s}", inlined ? "true" : "false");
}

/* Append the symbolized call chain of s to the line. */
static void format_stack(struct ktrace_record *r,
			 const struct ktrace_sample *s, bool json)
{
	struct trace_seq *q = &r->fmt.seq;
	bool kernel = true;
	int shown = 0;

	kt_symbolizer_ksyms(&r->sym);
	if (json)
		trace_seq_puts(q, ", \"stack\": [");
	for (uint32_t i = 0; i < s->nr_ips; i++) {
		uint64_t ip = s->ips[i];
		char buf[512];
		const char *frame, *nl, *fn;

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		frame = kt_symbolize_text(&r->sym, &r->as, s->pid, ip, kernel,
					  buf, sizeof(buf));
		/* one line per function: inlined ones first, the function
		 * last (a kernel frame is one line, whatever its name) */
		fn = kernel ? frame : strrchr(frame, '\n');
		fn = fn == frame || !fn ? frame : fn + 1;
		for (;; frame = nl + 1) {
			size_t n;

			nl = kernel ? NULL : strchr(frame, '\n');
			n = nl ? (size_t)(nl - frame) : strlen(frame);
			if (json) {
				if (shown)
					trace_seq_puts(q, ", ");
				frame_json(q, ip, frame, n, fn, strlen(fn));
			} else {
				frame_line(q, ip, frame, n, kernel);
			}
			shown++;
			if (!nl)
				break;
		}
	}
	if (json)
		trace_seq_putc(q, ']');
}

/*
 * The text line: "comm pid[/tid] [cpu] sec.nsec: system:event: INFO". This
 * is the per-record hot path of live printing and of report, so the header
 * is written by hand; only the event's own print format goes through
 * libtraceevent, and not at all when it is empty.
 */
static const char *format_text(struct ktrace_record *r,
			       const struct ktrace_sample *s,
			       const struct rec_event *e, size_t *len)
{
	const char *comm = kt_comms_get(&r->comm, s->tid);
	size_t clen = strnlen(comm, 16), used;
	const char *zero;
	char *p = out_reserve(r, 0, 128 + 4 * 16 + e->label_len);
	char esc[4 * 16 + 1];

	if (!p || !seq_ok(&r->fmt.seq))
		goto nomem;
	/* perf script's shape, which flame graph tools parse: the command
	 * first (left-aligned, never a leading blank, its control
	 * characters escaped), then the pid */
	if (!clen || comm[0] == ' ') {
		comm = "-";
		clen = 1;
	}
	clen = kt_text_escape(esc, comm, clen);
	memcpy(p, esc, clen);
	p += clen;
	for (size_t i = clen; i < 16; i++)
		*p++ = ' ';
	*p++ = ' ';
	p = kt_put_int(p, s->pid, 7);
	if (s->pid != s->tid) {
		*p++ = '/';
		p = kt_put_int(p, s->tid, 0);
	}
	*p++ = ' ';
	*p++ = '[';
	p = kt_put_uint(p, s->cpu, 3, '0');
	*p++ = ']';
	*p++ = ' ';
	p = kt_put_uint(p, s->time / 1000000000ull, 0, ' ');
	*p++ = '.';
	p = kt_put_uint(p, s->time % 1000000000ull, 9, '0');
	*p++ = ':';
	*p++ = ' ';
	if (!e->te) {
		/* a sampling event, as perf script: "PERIOD event: IP SYM" */
		p = kt_put_uint(p, s->period, 10, ' ');
		*p++ = ' ';
	}
	memcpy(p, e->label, e->label_len);
	p += e->label_len;
	used = p - r->fmt.out;
	if (!e->te && !s->nr_ips) {
		trace_seq_reset(&r->fmt.seq);
		format_ip(r, s, false);
		if (append_seq(r, &used, false))
			goto nomem;
	}
	if (e->has_info) {
		struct tep_record rec = {
			.ts = s->time,
			.data = (void *)s->raw,
			.size = s->raw_size,
			.cpu = s->cpu,
		};

		trace_seq_reset(&r->fmt.seq);
		/* a record its format does not fit (a damaged file) is
		 * not decoded: its fields would be read past its end; nor
		 * one whose print fmt would divide by zero */
		if (!kt_raw_holds(e, s))
			trace_seq_printf(&r->fmt.seq,
					 "[fields unreadable: %zu bytes do not hold the event's format]",
					 (size_t)s->raw_size);
		else if ((zero = kt_zero_divisor(e->div, e->ndiv, s->raw)))
			trace_seq_printf(&r->fmt.seq,
					 "[not decoded: its print fmt divides by %s, which is 0 here]",
					 zero);
		else if (tep_headroom())
			tep_print_event(r->evt.tep, &r->fmt.seq, &rec, "%s",
					TEP_PRINT_INFO);
		else
			goto nomem;
		if (append_seq(r, &used, true))
			goto nomem;
	}
	if (s->nr_ips) {
		trace_seq_reset(&r->fmt.seq);
		format_stack(r, s, false);
		/* a blank line ends a stack, as perf script prints it */
		trace_seq_putc(&r->fmt.seq, '\n');
		if (append_seq(r, &used, false))
			goto nomem;
	}
	r->fmt.out[used] = '\0';
	*len = used;
	return r->fmt.out;
nomem:
	errno = ENOMEM;
	return NULL;
}

const char *ktrace_record_format(struct ktrace_record *r,
				 const struct ktrace_sample *s, bool json,
				 size_t *len)
{
	struct trace_seq *q = &r->fmt.seq;
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
	if (s->event < 0 || s->event >= r->evt.nev) {
		trace_seq_puts(q, json ? "{\"error\": \"unknown event\"}" :
					 "[record of an unknown event]");
		return finish(r, len);
	}
	e = &r->evt.ev[s->event];
	if (json) {
		trace_seq_printf(q, "{\"time\": %llu, \"cpu\": %d, \"pid\": %d, \"tid\": %d, \"comm\": ",
				 (unsigned long long)s->time, s->cpu, s->pid,
				 s->tid);
		kt_json_seq_str(q, kt_comms_get(&r->comm, s->tid), 16);
		if (!e->te) {
			trace_seq_printf(q, ", \"event\": \"%s\", \"period\": %llu",
					 e->name, (unsigned long long)s->period);
			/* an off-CPU period has a stack, no address */
			if (!r->off.has_event || s->event != r->off.event)
				format_ip(r, s, true);
			if (s->nr_ips)
				format_stack(r, s, true);
			trace_seq_putc(q, '}');
			return finish(r, len);
		}
		trace_seq_printf(q, ", \"event\": \"%s:%s\", \"fields\": ",
				 e->system, e->name);
		json_fields(r, e, s);
		if (s->nr_ips)
			format_stack(r, s, true);
		trace_seq_putc(q, '}');
	} else {
		return format_text(r, s, e, len);
	}
	return finish(r, len);
}

const char *ktrace_record_fields_json(struct ktrace_record *r,
				      const struct ktrace_sample *s,
				      size_t *len)
{
	trace_seq_reset(&r->fmt.seq);
	if (s->type != KTRACE_SAMPLE_EVENT || s->event < 0 ||
	    s->event >= r->evt.nev || !r->evt.ev[s->event].te)
		trace_seq_puts(&r->fmt.seq, "{}");
	else
		json_fields(r, &r->evt.ev[s->event], s);
	return finish(r, len);
}

/* Field name of s's event, checked to lie within the record; NULL if not. */
static struct tep_format_field *sample_field(struct ktrace_record *r,
					     const struct ktrace_sample *s,
					     const char *name)
{
	struct tep_format_field *f;

	if (s->type != KTRACE_SAMPLE_EVENT || s->event < 0 ||
	    s->event >= r->evt.nev || !r->evt.ev[s->event].te)
		return NULL;
	f = tep_find_field(r->evt.ev[s->event].te, name);
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
	*v = read_num(r->evt.tep, (const unsigned char *)s->raw + f->offset,
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
