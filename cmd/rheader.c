// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --header: what a recording is, from what its file says (META,
 * the events) and a pass over its records (their number and time span),
 * like perf report --header-only. A file written before a META key was
 * added lacks its line: each is printed when present.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ktrace_cmd.h"

struct hdr_span {
	uint64_t records, lost, first, last;
};

static int span_one(void *ctx, const struct ktrace_sample *s)
{
	struct hdr_span *sp = ctx;

	if (s->type == KTRACE_SAMPLE_LOST) {
		sp->lost += s->lost;
		return 0;
	}
	if (!sp->records++ || s->time < sp->first)
		sp->first = s->time;
	if (s->time > sp->last)
		sp->last = s->time;
	return 0;
}

/* The n-th line of text (lines separated by '\n') into buf; NULL when
 * there are fewer. */
static const char *nth_line(const char *text, int n, char *buf, size_t len)
{
	size_t k;

	for (; text && n > 0; n--) {
		text = strchr(text, '\n');
		text = text ? text + 1 : NULL;
	}
	if (!text || !*text)
		return NULL;
	k = strcspn(text, "\n");
	snprintf(buf, len, "%.*s", (int)k, text);
	return buf;
}

/* "REALTIME MONOTONIC" of META clock: the calendar time (ns) of
 * monotonic time t, or 0. */
static uint64_t calendar_ns(struct ktrace_record *rec, uint64_t t)
{
	const char *clk = ktrace_record_meta(rec, "clock");
	unsigned long long rt, mono;

	if (!clk || sscanf(clk, "%llu %llu", &rt, &mono) != 2 || t < mono)
		return 0;
	return rt + (t - mono);
}

/* One event: its name and how it was sampled ("freq 99", "period N",
 * "each": every event), as the file says (NULL: not said). */
static void event_line(struct kt_ctx *ctx, struct kt_json *j,
		       const char *name, const char *how)
{
	unsigned long long v = 0;
	char kind[16] = "";

	if (how && sscanf(how, "%15s %llu", kind, &v) < 1)
		how = NULL;
	if (j) {
		kt_json_object_begin(j);
		kt_jstr(j, "name", name);
		if (how) {
			kt_jstr(j, "sampling", kind);
			if (strcmp(kind, "each"))
				kt_juint(j, "value", v);
		}
		kt_json_object_end(j);
	} else if (!how) {
		fprintf(ctx->out, "# event: %s\n", name);
	} else if (!strcmp(kind, "freq")) {
		fprintf(ctx->out, "# event: %s, a sample at %llu Hz\n", name, v);
	} else if (!strcmp(kind, "period")) {
		fprintf(ctx->out, "# event: %s, a sample every %llu events\n",
			name, v);
	} else {
		fprintf(ctx->out, "# event: %s, every event\n", name);
	}
}

static void print_events(struct kt_ctx *ctx, struct kt_json *j,
			 struct ktrace_record *rec)
{
	const char *sampling = ktrace_record_meta(rec, "sampling");
	int n = ktrace_record_nr_events(rec);
	char buf[64];

	if (j) {
		kt_json_key(j, "events");
		kt_json_array_begin(j);
	}
	for (int i = 0; i < n; i++)
		event_line(ctx, j, ktrace_record_event_name(rec, i),
			   nth_line(sampling, i, buf, sizeof(buf)));
	if (j)
		kt_json_array_end(j);
}

/* "dwarf 8192", "fp" or "none" */
static void print_call_graph(struct kt_ctx *ctx, struct kt_json *j,
			     const char *cg)
{
	unsigned int size = 0;
	char mode[16];

	if (!cg || sscanf(cg, "%15s %u", mode, &size) < 1)
		return;
	if (j) {
		kt_json_key(j, "call_graph");
		kt_json_object_begin(j);
		kt_jstr(j, "mode", mode);
		if (size)
			kt_juint(j, "stack_bytes", size);
		kt_json_object_end(j);
	} else if (!strcmp(mode, "dwarf")) {
		fprintf(ctx->out, "# call-graph: dwarf, %u bytes of user stack a sample\n",
			size);
	} else if (!strcmp(mode, "fp")) {
		fputs("# call-graph: fp (frame pointers)\n", ctx->out);
	} else {
		fprintf(ctx->out, "# call-graph: %s\n", mode);
	}
}

/* The records' number, loss and time span. */
static void print_span(struct kt_ctx *ctx, struct kt_json *j,
		       struct ktrace_record *rec, const struct hdr_span *sp)
{
	uint64_t cal = sp->records ? calendar_ns(rec, sp->first) : 0;
	uint64_t dur = sp->last - sp->first;
	char when[64] = "";
	struct tm tm;
	time_t sec = cal / 1000000000ull;

	if (cal && gmtime_r(&sec, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (j) {
		kt_juint(j, "records", sp->records);
		kt_juint(j, "lost", sp->lost);
		if (sp->records) {
			kt_juint(j, "first_ns", sp->first);
			kt_juint(j, "last_ns", sp->last);
			kt_juint(j, "duration_ns", dur);
		}
		if (cal)
			kt_juint(j, "captured_ns", cal);
		return;
	}
	fprintf(ctx->out, "# records: %" PRIu64 ", lost %" PRIu64 "\n",
		sp->records, sp->lost);
	if (!sp->records)
		return;
	if (*when)
		fprintf(ctx->out, "# captured on: %s\n", when);
	fprintf(ctx->out,
		"# time: %" PRIu64 ".%09" PRIu64 " to %" PRIu64 ".%09" PRIu64
		" (CLOCK_MONOTONIC), duration %" PRIu64 ".%03" PRIu64 " s\n",
		sp->first / 1000000000, sp->first % 1000000000,
		sp->last / 1000000000, sp->last % 1000000000,
		dur / 1000000000, dur % 1000000000 / 1000000);
}

/* host, kernel, ktrace, CPUs, the target or command line */
static void print_machine(struct kt_ctx *ctx, struct kt_json *j,
			  struct ktrace_record *rec)
{
	static const char *const keys[] = { "host", "kernel", "ktrace" };
	const char *online = ktrace_record_meta(rec, "cpus-online");
	const char *cpus = ktrace_record_meta(rec, "cpus");
	const char *cmd = ktrace_record_meta(rec, "command");
	const char *target = ktrace_record_meta(rec, "target");
	const char *v;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = ktrace_record_meta(rec, keys[i]);
		if (j)
			kt_jstr(j, keys[i], v);
		else if (v)
			fprintf(ctx->out, "# %s: %s\n", keys[i], v);
	}
	if (j) {
		if (online)
			kt_juint(j, "cpus_online", strtoul(online, NULL, 10));
		if (cpus)
			kt_jstr(j, "cpus", cpus);
		kt_jstr(j, "command", cmd && *cmd ? cmd : NULL);
		if (target)
			kt_jstr(j, "target", target);
		return;
	}
	if (online || cpus)
		fprintf(ctx->out, "# CPUs: %s online, recorded on %s\n",
			online ? online : "?", cpus ? cpus : "?");
	if (cmd && *cmd)
		fprintf(ctx->out, "# command: %s\n", cmd);
	if (target && strcmp(target, "command"))
		fprintf(ctx->out, "# target: %s\n", target);
}

int kt_report_header(struct kt_ctx *ctx, struct ktrace_record *rec,
		     const char *input)
{
	struct kt_json *j = ctx->json ? kt_json(ctx) : NULL;
	struct hdr_span sp = { 0 };
	long n;

	n = ktrace_record_replay(rec, span_one, &sp, NULL, NULL);
	if (j)
		kt_json_object_begin(j);
	print_machine(ctx, j, rec);
	print_events(ctx, j, rec);
	print_call_graph(ctx, j, ktrace_record_meta(rec, "call-graph"));
	print_span(ctx, j, rec, &sp);
	if (j)
		kt_json_object_end(j);
	if (n < 0)
		return kt_error(ctx, KT_FAIL, "'%s': %s", input,
				n == -EBADMSG ?
				"damaged or truncated after the last record counted" :
				strerror((int)-n));
	return KT_OK;
}
