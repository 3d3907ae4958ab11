// SPDX-License-Identifier: GPL-2.0-only
/*
 * Records of an event perf cannot open, read from ktrace's own instance.
 * The kernel writes a synthetic event's records only into ftrace's
 * buffers (perf_event_open on one fails: the event has no perf probe), so
 * latency --record reads them there, each CPU's trace_pipe_raw, and
 * prints them through record's formatter: the same lines, the same JSON.
 * With stacks, a stacktrace trigger under the event's filter writes the
 * kernel stack right after each record on its CPU; the record waits for
 * it one read at most.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktrace_cmd.h"
#include "tracefs/ftrace.h"

#define RAWREC_MAX_FRAMES 128

/* A record waiting for its stack. */
struct kt_rawrec_cpu {
	bool on;
	bool skip;		/* the next stack is a skipped record's */
	int round;		/* the read that saw it */
	struct kt_raw_rec rec;	/* data points into buf */
	unsigned char *buf;
	size_t cap;
};

static int event_id(struct kt_rawrec *rr, const char *sys, const char *ev)
{
	size_t len;
	char *text = kt_event_read(rr->inst, sys, ev, "id", &len);
	int id = text ? atoi(text) : -1;

	free(text);
	return id;
}

/* Print one record, with the stack that followed it (ips, n). */
static int print_one(struct kt_rawrec *rr, const struct kt_raw_rec *r,
		     const uint64_t *ips, uint32_t n)
{
	unsigned long long pid = 0;
	struct ktrace_sample s = {
		.type = KTRACE_SAMPLE_EVENT, .time = r->ts, .cpu = r->cpu,
		.event = 0, .raw = r->data, .raw_size = r->size,
		.ips = ips, .nr_ips = n,
	};
	FILE *out = rr->ctx->out;
	const char *line;
	size_t len;

	kt_raw_field(rr->raw, r, "common_pid", &pid, NULL);
	s.pid = s.tid = (int)pid;
	line = ktrace_record_format(rr->fmt, &s, rr->ctx->json, &len);
	if (!line) {
		rr->failed = true;
		return 1;
	}
	fwrite(line, 1, len, out);
	putc('\n', out);
	rr->printed++;
	if (ferror(out)) {
		rr->failed = true;
		return 1;
	}
	return 0;
}

/* The frames of a kernel_stack record: "size" of them from "caller",
 * as many as the record holds. */
static uint32_t stack_of(struct kt_rawrec *rr, const struct kt_raw_rec *r,
			 uint64_t *ips)
{
	unsigned long long size = 0;
	int off = 0;
	uint32_t n = 0;

	if (kt_raw_field(rr->raw, r, "size", &size, NULL) ||
	    kt_raw_field(rr->raw, r, "caller", NULL, &off) || off < 0)
		return 0;
	while (n < size && n < RAWREC_MAX_FRAMES &&
	       off + (n + 1) * sizeof(uint64_t) <= r->size) {
		memcpy(&ips[n], (const char *)r->data + off + n * 8, 8);
		if (!ips[n])
			break;
		n++;
	}
	return n;
}

static int flush(struct kt_rawrec *rr, struct kt_rawrec_cpu *c,
		 const uint64_t *ips, uint32_t n)
{
	if (!c->on)
		return 0;
	c->on = false;
	return print_one(rr, &c->rec, ips, n);
}

static int hold(struct kt_rawrec_cpu *c, const struct kt_raw_rec *r,
		int round)
{
	if (c->cap < r->size) {
		unsigned char *nb = realloc(c->buf, r->size);

		if (!nb)
			return -ENOMEM;
		c->buf = nb;
		c->cap = r->size;
	}
	memcpy(c->buf, r->data, r->size);
	c->rec = *r;
	c->rec.data = c->buf;
	c->round = round;
	c->on = true;
	return 0;
}

static int one(void *arg, const struct kt_raw_rec *r)
{
	struct kt_rawrec *rr = arg;
	struct kt_rawrec_cpu *c;
	uint64_t ips[RAWREC_MAX_FRAMES];
	int ret;

	if (r->cpu < 0 || r->cpu >= rr->ncpus)
		return 0;
	c = &rr->cpu[r->cpu];
	if (rr->stacks && r->name && !strcmp(r->name, "kernel_stack") &&
	    !strcmp(r->system, "ftrace")) {
		if (c->skip) {
			c->skip = false;
			return 0;
		}
		return flush(rr, c, ips, stack_of(rr, r, ips));
	}
	if (r->id != rr->id)
		return 0;
	if (rr->keep && !rr->keep(rr->keep_arg, r)) {
		/* the stack that follows it is not another's */
		ret = flush(rr, c, NULL, 0);
		c->skip = rr->stacks;
		return ret;
	}
	if (!rr->stacks)
		return print_one(rr, r, NULL, 0);
	ret = flush(rr, c, NULL, 0);
	c->skip = false;
	return ret ? ret : hold(c, r, rr->round);
}

int kt_rawrec_read(struct kt_rawrec *rr, bool final)
{
	int ret;

	if (!rr->raw)
		return KT_OK;
	ret = kt_raw_read(rr->raw, one, rr);
	/* a record whose stack did not come by the next read has none */
	for (int i = 0; !ret && i < rr->ncpus; i++)
		if (final || rr->cpu[i].round < rr->round)
			ret = flush(rr, &rr->cpu[i], NULL, 0);
	rr->round++;
	fflush(rr->ctx->out);
	if (rr->failed || ferror(rr->ctx->out))
		return kt_error(rr->ctx, KT_FAIL, "writing the records failed: %s",
				strerror(errno ? errno : EIO));
	if (ret < 0)
		return kt_error(rr->ctx, KT_FAIL, "reading %s's buffers: %s",
				kt_inst_name(rr->inst), strerror(-ret));
	return KT_OK;
}

int kt_rawrec_start(struct kt_rawrec *rr, struct kt_ctx *ctx,
		    struct ktrace_inst *inst, const char *sys, const char *ev,
		    const char *filter)
{
	const char *sy[3] = { "ftrace", sys, NULL };
	struct ktrace_err err = { .pos = -1 };
	char name[160];
	int ret;

	rr->ctx = ctx;
	rr->inst = inst;
	rr->sys = sys;
	rr->ev = ev;
	rr->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	rr->cpu = calloc(rr->ncpus > 0 ? rr->ncpus : 1, sizeof(*rr->cpu));
	rr->fmt = ktrace_record_alloc(ctx->tfs);
	if (!rr->cpu || !rr->fmt)
		return kt_error(ctx, KT_FAIL, "cannot read the formats of %s and ftrace: %s",
				sys, strerror(errno ? errno : ENOMEM));
	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	if (ktrace_record_add_event(rr->fmt, name, NULL, &err) < 0) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	rr->id = event_id(rr, sys, ev);
	ret = kt_inst_write(inst, "trace_clock", "mono", O_TRUNC);
	if (!ret && filter)
		ret = kt_event_write(inst, sys, ev, "filter", filter);
	if (ret)
		return kt_error(ctx, KT_FAIL, "cannot set up %s in %s: %s", name,
				kt_inst_name(inst), strerror(-ret));
	if (rr->stacks) {
		/* under a filter, the trigger runs after the record is
		 * written: its stack comes next on that CPU */
		if (asprintf(&rr->trigger, "stacktrace if %s",
			     filter ? filter : "common_pid >= 0") < 0)
			return kt_error(ctx, KT_FAIL, "out of memory");
		ret = kt_event_append(inst, sys, ev, "trigger", rr->trigger);
		if (ret)
			return kt_error(ctx, KT_FAIL, "cannot ask %s for stacks: %s",
					name, strerror(-ret));
		rr->trigger_on = true;
	}
	/* the buffers open before the event is on: nothing is missed */
	rr->raw = kt_raw_open(ctx->tfs, inst, sy);
	if (!rr->raw)
		return kt_error(ctx, KT_FAIL, "cannot read %s's buffers: %s",
				kt_inst_name(inst), strerror(errno));
	ret = kt_event_write(inst, sys, ev, "enable", "1");
	if (ret)
		return kt_error(ctx, KT_FAIL, "cannot enable %s in %s: %s", name,
				kt_inst_name(inst), strerror(-ret));
	rr->enabled = true;
	return KT_OK;
}

/* Entries the instance's buffers overwrote or dropped, over all CPUs,
 * or that the reader saw missing. */
static unsigned long long lost(struct kt_rawrec *rr)
{
	unsigned long long sum = 0;

	for (int i = 0; i < rr->ncpus; i++) {
		uint64_t overrun = 0, dropped = 0;

		if (!kt_cpu_stats(rr->inst, i, &overrun, &dropped))
			sum += overrun + dropped;
	}
	return sum > kt_raw_missed(rr->raw) ? sum : kt_raw_missed(rr->raw);
}

int kt_rawrec_stop(struct kt_rawrec *rr)
{
	int ret = KT_OK, r;
	unsigned long long n;

	if (rr->enabled) {
		r = kt_event_write(rr->inst, rr->sys, rr->ev, "enable", "0");
		rr->enabled = false;
		if (r)
			ret = kt_error(rr->ctx, KT_FAIL, "cannot disable %s:%s: %s",
				       rr->sys, rr->ev, strerror(-r));
	}
	if (rr->trigger_on) {
		char *undo = NULL;

		r = asprintf(&undo, "!%s", rr->trigger) < 0 ? -ENOMEM :
		    kt_event_append(rr->inst, rr->sys, rr->ev, "trigger",
				    undo);
		free(undo);
		rr->trigger_on = false;
		if (r)
			ret = kt_error(rr->ctx, KT_FAIL, "cannot remove the stacktrace trigger of %s:%s: %s",
				       rr->sys, rr->ev, strerror(-r));
	}
	if (rr->raw && (n = lost(rr)))
		fprintf(rr->ctx->err, "ktrace: LOST %llu records: the instance's buffers were full\n",
			n);
	/* its open buffers would keep the instance from going */
	kt_raw_free(rr->raw);
	rr->raw = NULL;
	return ret;
}

void kt_rawrec_free(struct kt_rawrec *rr)
{
	for (int i = 0; rr->cpu && i < rr->ncpus; i++)
		free(rr->cpu[i].buf);
	free(rr->cpu);
	rr->cpu = NULL;
	kt_raw_free(rr->raw);
	rr->raw = NULL;
	ktrace_record_free(rr->fmt);
	rr->fmt = NULL;
	free(rr->filter);
	free(rr->trigger);
	rr->filter = rr->trigger = NULL;
}
