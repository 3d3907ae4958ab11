// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktrace trace: the system calls of a command or processes, one line a
 * call as strace prints it, "comm pid: openat(dfd: ..., filename:
 * "/etc/hosts", ...) = 3 <0.012 ms>": syscalls:sys_enter_NAME and
 * sys_exit_NAME recorded (the entries with string arguments through event
 * probes, as record --strings does), paired per thread, the error of a
 * failed call named; -s: a summary per system call instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ktrace_cmd.h"

static const char trace_usage[] =
	"Usage: ktrace trace [-e SYSCALL-GLOB]... [-s] [-j] [-d SECS] [-p PID | -a | -- CMD ARGS...]\n"
	"Print each system call of the traced tasks as strace does, strings as text\n"
	"(through event probes), errors named, with its duration.\n"
	"\n"
	"  -e, --syscall GLOB    system calls to trace by name ('open*'; default all)\n"
	"  -s, --summary         a summary per system call (calls, errors, time)\n"
	"  -p, --pid PID[,PID]   existing processes and their threads\n"
	"  -a, --all-cpus        every process\n"
	"  -d, --duration SECS   stop after SECS seconds\n"
	"  -j, --json            one JSON object per call (per system call with -s)\n"
	"  -h, --help            this help\n";

static const struct option trace_opts[] = {
	{ "syscall", required_argument, NULL, 'e' },
	{ "summary", no_argument, NULL, 's' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A call entered and not yet returned, per thread. */
struct pending {
	int tid;
	char name[64];
	char *args;		/* "dfd: 1, filename: \"/x\"" */
	uint64_t time;
};

/* The summary of one system call. */
struct sc_sum {
	char name[64];
	unsigned long long calls, errors;
	uint64_t total, max;
};

struct trace_cmd {
	struct kt_ctx *ctx;
	struct kt_capture_opts co;
	bool summary;
	struct ktrace_record *rec;
	struct kt_inline inl;
	/* per recorded event: its system call, entry or exit */
	struct { char name[64]; bool enter; } *ev;
	int nev;
	struct pending *pend;
	int npend;
	struct sc_sum *sum;
	int nsum;
	char **globs;		/* -e */
	int nglobs;
};

/* "sys_enter_openat" (or the probe's "sys_enter_openat_1") -> "openat". */
static bool syscall_of(const char *event, char *name, size_t len, bool *enter)
{
	const char *e = strchr(event, ':'), *p;

	e = e ? e + 1 : event;
	if (!strncmp(e, "sys_enter_", 10))
		*enter = true;
	else if (!strncmp(e, "sys_exit_", 9))
		*enter = false;
	else
		return false;
	p = e + (*enter ? 10 : 9);
	snprintf(name, len, "%s", p);
	return true;
}

static int add_one(void *arg, int i, const char *event)
{
	struct trace_cmd *tc = arg;
	struct ktrace_err err = { .pos = -1 };
	int ret, idx;
	void *nv;

	(void)i;
	idx = ktrace_record_add_event(tc->rec, event, NULL, &err);
	if (idx < 0) {
		ret = kt_error_detail(tc->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	nv = realloc(tc->ev, (idx + 1) * sizeof(*tc->ev));
	if (!nv)
		return kt_error(tc->ctx, KT_FAIL, "out of memory");
	tc->ev = nv;
	tc->nev = idx + 1;
	if (!syscall_of(event, tc->ev[idx].name, sizeof(tc->ev[idx].name),
			&tc->ev[idx].enter))
		tc->ev[idx].name[0] = '\0';
	return KT_OK;
}

/* The end of the JSON value at p (a string, or a token up to the ',' or
 * '}' outside brackets that ends it). */
static const char *value_end(const char *p, const char *end)
{
	int depth = 0;

	if (*p == '"') {
		for (p++; p < end && *p != '"'; p++)
			if (*p == '\\' && p + 1 < end)
				p++;
		return p < end ? p + 1 : end;
	}
	for (; p < end; p++) {
		if (*p == '[' || *p == '{')
			depth++;
		else if ((*p == ']' || *p == '}') && depth)
			depth--;
		else if ((*p == ',' || *p == '}') && !depth)
			break;
	}
	return p;
}

/*
 * A fields object of ktrace_record_fields_json() (the JSON writer's own
 * layout: "key": value pairs) as strace's argument list of system call
 * sc: {"dfd": -100, "filename": "/x"} -> dfd: AT_FDCWD, filename: "/x";
 * numbers strace names are named (kt_scarg_text()), the rest stay as
 * JSON wrote them. malloc'ed, or NULL.
 */
static char *args_text(const char *sc, const char *json, size_t len)
{
	const char *p = json, *end = json + len, *k, *v;
	char *out = NULL, num[256], *e;
	size_t olen = 0;
	FILE *f = open_memstream(&out, &olen);
	bool first = true, isnum;
	long long n, flags = 0;

	if (!f)
		return NULL;
	while (p < end && (k = memchr(p, '"', end - p))) {
		const char *ke = memchr(k + 1, '"', end - k - 1);
		char key[64];

		if (!ke)
			break;
		snprintf(key, sizeof(key), "%.*s", (int)(ke - k - 1), k + 1);
		for (v = ke + 1; v < end && (*v == ':' || *v == ' '); v++)
			;
		p = value_end(v, end);
		/* a tracepoint's own first field is not an argument */
		if (!strcmp(key, "__syscall_nr"))
			goto next;
		snprintf(num, sizeof(num), "%.*s", (int)(p - v), v);
		/* a field of an unsigned type (arm64's event probes) holds
		 * -100 as 2^64 - 100: the bits are what count */
		errno = 0;
		n = num[0] == '-' ? strtoll(num, &e, 10) :
		    (long long)strtoull(num, &e, 10);
		isnum = *v != '"' && !errno && e != num && !*e;
		if (isnum && !strcmp(key, "flags"))
			flags = n;
		if (isnum && kt_scarg_skip(sc, key, flags))
			goto next;
		fprintf(f, "%s%s: ", first ? "" : ", ", key);
		first = false;
		if (isnum && kt_scarg_text(sc, key, n, num, sizeof(num)))
			fputs(num, f);
		else
			fwrite(v, 1, p - v, f);
next:
		while (p < end && (*p == ',' || *p == ' '))
			p++;
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

static struct pending *pend_find(struct trace_cmd *tc, int tid)
{
	for (int i = 0; i < tc->npend; i++)
		if (tc->pend[i].tid == tid)
			return &tc->pend[i];
	return NULL;
}

static struct sc_sum *sum_get(struct trace_cmd *tc, const char *name)
{
	struct sc_sum *ns;

	for (int i = 0; i < tc->nsum; i++)
		if (!strcmp(tc->sum[i].name, name))
			return &tc->sum[i];
	ns = realloc(tc->sum, (tc->nsum + 1) * sizeof(*ns));
	if (!ns)
		return NULL;
	tc->sum = ns;
	ns = &tc->sum[tc->nsum++];
	memset(ns, 0, sizeof(*ns));
	snprintf(ns->name, sizeof(ns->name), "%s", name);
	return ns;
}

/* An entry: its arguments kept until the thread's exit of the call. */
static int on_enter(struct trace_cmd *tc, const struct ktrace_sample *s,
		    const char *name)
{
	struct pending *p = pend_find(tc, s->tid);
	const char *js;
	size_t len;

	if (!p) {
		p = realloc(tc->pend, (tc->npend + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		tc->pend = p;
		p = &tc->pend[tc->npend++];
		p->args = NULL;
	}
	free(p->args);
	p->tid = s->tid;
	snprintf(p->name, sizeof(p->name), "%s", name);
	js = ktrace_record_fields_json(tc->rec, s, &len);
	p->args = js ? args_text(name, js, len) : NULL;
	p->time = s->time;
	return p->args ? 0 : -ENOMEM;
}

/* " = 3", " = -1 ENOENT (No such file or directory)" into buf. */
static void ret_text(long long ret, char *buf, size_t len)
{
	if (ret < 0 && ret >= -4095) {
		const char *n = strerrorname_np((int)-ret);

		snprintf(buf, len, " = -1 %s (%s)", n ? n : "E?",
			 strerror((int)-ret));
	} else {
		snprintf(buf, len, " = %lld", ret);
	}
}

static void print_call(struct trace_cmd *tc, const struct ktrace_sample *s,
		       const char *name, const char *args, long long ret,
		       long long dur)
{
	struct kt_json *j = tc->ctx->jw;
	char comm[32], rt[160];

	ktrace_record_comm(tc->rec, s->pid, comm, sizeof(comm));
	if (tc->ctx->json) {
		kt_json_object_begin(j);
		kt_jstr(j, "comm", comm);
		kt_jint(j, "pid", s->pid);
		kt_jint(j, "tid", s->tid);
		kt_jstr(j, "syscall", name);
		kt_jstr(j, "args", args ? args : "");
		kt_jint(j, "ret", ret);
		if (ret < 0 && ret >= -4095)
			kt_jstr(j, "errno", strerrorname_np((int)-ret));
		kt_juint(j, "time", s->time);
		kt_jint(j, "duration_ns", dur);
		kt_json_object_end(j);
		return;
	}
	ret_text(ret, rt, sizeof(rt));
	fprintf(tc->ctx->out, "%s %d: %s(%s)%s", comm, s->tid, name,
		args ? args : "...", rt);
	if (dur >= 0)
		fprintf(tc->ctx->out, " <%.3f ms>", dur / 1e6);
	fputc('\n', tc->ctx->out);
}

/* An exit: paired with the thread's entry of the same call. */
static int on_exit_call(struct trace_cmd *tc, const struct ktrace_sample *s,
			const char *name)
{
	struct pending *p = pend_find(tc, s->tid);
	long long ret = 0, dur = -1;
	struct sc_sum *sm;
	char *args = NULL;

	ktrace_record_field_int(tc->rec, s, "ret", &ret);
	if (p && !strcmp(p->name, name)) {
		dur = (long long)(s->time - p->time);
		args = p->args;
		p->args = NULL;
		*p = tc->pend[--tc->npend];
	}
	if (tc->summary) {
		sm = sum_get(tc, name);
		if (!sm) {
			free(args);
			return -ENOMEM;
		}
		sm->calls++;
		sm->errors += ret < 0 && ret >= -4095;
		sm->total += dur > 0 ? dur : 0;
		if (dur > 0 && (uint64_t)dur > sm->max)
			sm->max = dur;
	} else {
		print_call(tc, s, name, args, ret, dur);
	}
	free(args);
	return 0;
}

static int on_sample(void *arg, const struct ktrace_sample *s)
{
	struct trace_cmd *tc = arg;

	if (s->type != KTRACE_SAMPLE_EVENT || s->event < 0 ||
	    s->event >= tc->nev || !tc->ev[s->event].name[0])
		return 0;
	if (tc->ev[s->event].enter)
		return on_enter(tc, s, tc->ev[s->event].name) ? -1 : 0;
	return on_exit_call(tc, s, tc->ev[s->event].name) ? -1 : 0;
}

/* The calls that never returned (exit_group, the end of the trace). */
static void unfinished(struct trace_cmd *tc)
{
	for (int i = 0; i < tc->npend; i++) {
		struct pending *p = &tc->pend[i];

		if (!tc->summary && !tc->ctx->json)
			fprintf(tc->ctx->out, "%d: %s(%s) = ?\n", p->tid,
				p->name, p->args ? p->args : "");
		free(p->args);
	}
	free(tc->pend);
	tc->pend = NULL;
	tc->npend = 0;
}

static int by_total(const void *a, const void *b)
{
	const struct sc_sum *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* -s: calls, errors, total, mean and max time per system call. */
static void print_summary(struct trace_cmd *tc)
{
	struct kt_json *j = tc->ctx->jw;

	qsort(tc->sum, tc->nsum, sizeof(*tc->sum), by_total);
	if (!tc->ctx->json)
		fprintf(tc->ctx->out, "%-20s %10s %8s %12s %10s %10s\n",
			"syscall", "calls", "errors", "total ms", "mean us",
			"max us");
	for (int i = 0; i < tc->nsum; i++) {
		const struct sc_sum *m = &tc->sum[i];
		double mean = m->calls ? m->total / 1e3 / m->calls : 0;

		if (tc->ctx->json) {
			kt_json_object_begin(j);
			kt_jstr(j, "syscall", m->name);
			kt_juint(j, "calls", m->calls);
			kt_juint(j, "errors", m->errors);
			kt_juint(j, "total_ns", m->total);
			kt_juint(j, "max_ns", m->max);
			kt_json_object_end(j);
			continue;
		}
		fprintf(tc->ctx->out, "%-20s %10llu %8llu %12.3f %10.3f %10.3f\n",
			m->name, m->calls, m->errors, m->total / 1e6, mean,
			m->max / 1e3);
	}
}

/* The -e globs as the entry and exit tracepoints of each. */
static int trace_events(struct trace_cmd *tc, char **globs, int n)
{
	static char *all[] = { "*" };
	char spec[160];
	int ret = KT_OK;

	if (!n) {
		globs = all;
		n = 1;
	}
	for (int i = 0; !ret && i < n; i++) {
		if (strchr(globs[i], ':') || strlen(globs[i]) > 100)
			return kt_usage_error(tc->ctx, trace_usage,
					      "bad system call '%s': a name or glob ('open*')",
					      globs[i]);
		snprintf(spec, sizeof(spec), "syscalls:sys_enter_%s", globs[i]);
		ret = kt_capture_opt(tc->ctx, &tc->co, 'e', spec);
		snprintf(spec, sizeof(spec), "syscalls:sys_exit_%s", globs[i]);
		if (!ret)
			ret = kt_capture_opt(tc->ctx, &tc->co, 'e', spec);
	}
	return ret;
}

static int trace_parse(struct trace_cmd *tc, int argc, char **argv)
{
	char **globs = calloc(argc > 0 ? argc : 1, sizeof(*globs));
	int opt, n = 0, ret = -1;

	if (!globs)
		return kt_error(tc->ctx, KT_FAIL, "out of memory");
	tc->globs = globs;
	while (ret < 0 && (opt = getopt_long(argc, argv, "+e:sp:ad:jh",
					     trace_opts, NULL)) != -1) {
		if (opt == 'e')
			globs[n++] = optarg;
		else if (opt == 's')
			tc->summary = true;
		else if (opt == 'j')
			tc->ctx->json = true;
		else if (opt == 'h')
			ret = (fputs(trace_usage, tc->ctx->out), KT_OK);
		else if (opt == '?' ||
			 (ret = kt_capture_opt(tc->ctx, &tc->co, opt,
					       optarg)) < 0)
			ret = kt_usage_error(tc->ctx, trace_usage,
					     "bad option '%s'", argv[optind - 1]);
		else if (ret == KT_OK)
			ret = -1;
	}
	tc->nglobs = n;
	if (ret < 0)
		ret = trace_events(tc, globs, n);
	if (!ret)
		ret = kt_target_check(tc->ctx, &tc->co.tg, argc - optind,
				      argv + optind);
	return ret ? ret : -1;
}

/*
 * The events: the entries with strings as event probes; where the kernel
 * refuses those (it said why), the tracepoints alone, their pointers as
 * numbers.
 */
static int trace_events_open(struct trace_cmd *tc)
{
	int ret;

	tc->rec = ktrace_record_alloc(tc->ctx->tfs);
	if (!tc->rec)
		return kt_error(tc->ctx, KT_FAIL, "out of memory");
	ret = kt_inline_strings(tc->ctx, &tc->co);
	if (!ret)
		ret = kt_events_expand(tc->ctx, &tc->inl, tc->co.specs,
				       tc->co.nspecs, add_one, tc);
	if (ret != KT_FAIL || !tc->inl.nr_probes)
		return ret;
	kt_inline_destroy(tc->ctx, &tc->inl);
	ktrace_record_free(tc->rec);
	tc->nev = 0;
	fprintf(tc->ctx->err, "ktrace trace: note: tracing without event probes: string arguments are shown as addresses\n");
	tc->rec = ktrace_record_alloc(tc->ctx->tfs);
	if (!tc->rec)
		return kt_error(tc->ctx, KT_FAIL, "out of memory");
	kt_capture_opts_free(&tc->co);
	ret = trace_events(tc, tc->globs, tc->nglobs);
	if (!ret)
		ret = kt_events_expand(tc->ctx, &tc->inl, tc->co.specs,
				       tc->co.nspecs, add_one, tc);
	return ret;
}

/* The events, then the rings. */
static int trace_open(struct trace_cmd *tc)
{
	struct kt_target *tg = &tc->co.tg;
	struct ktrace_record_opts ro = { 0 };
	struct ktrace_err err = { .pos = -1 };
	int ret;

	ret = trace_events_open(tc);
	if (!ret)
		ret = kt_target_prepare(tc->ctx, tg, true);
	if (ret)
		return ret;
	ro.pids = tg->pids;
	ro.nr_pids = tg->npids;
	ro.inherit = tg->npids > 0;
	ro.enable_on_exec = tg->argc > 0;
	ro.cpus = tg->cpus;
	ro.nr_cpus = tg->ncpus;
	if (ktrace_record_open(tc->rec, &ro, &err) < 0) {
		ret = kt_error_detail(tc->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	if (!ro.enable_on_exec && ktrace_record_enable(tc->rec) < 0)
		return kt_error(tc->ctx, KT_FAIL, "cannot enable the events: %s",
				strerror(errno));
	return KT_OK;
}

static int trace_round(void *arg, bool *gone)
{
	struct trace_cmd *tc = arg;
	long n = ktrace_record_poll(tc->rec, 100, gone, on_sample, tc);

	if (n < 0) {
		kt_error(tc->ctx, KT_FAIL, "reading the rings: %s",
			 strerror((int)-n));
		return -1;
	}
	if (n > 0)
		fflush(tc->ctx->out);
	return 0;
}

int cmd_trace(struct kt_ctx *ctx, int argc, char **argv)
{
	struct trace_cmd tc = { .ctx = ctx, .co = KT_CAPTURE_OPTS_INIT };
	struct kt_target *tg = &tc.co.tg;
	struct kt_signals sigs;
	bool installed = false, stopped = false;
	enum kt_loop_end end;
	struct timespec t0;
	int ret, status;

	ret = trace_parse(&tc, argc, argv);
	if (ret >= 0)
		goto out;
	if (!kt_tfs(ctx) || (ctx->json && !kt_json(ctx))) {
		ret = KT_FAIL;
		goto out;
	}
	kt_signals_install(&sigs);
	installed = true;
	ret = trace_open(&tc);
	if (!ret)
		ret = kt_target_start(ctx, tg);
	if (ret)
		goto out;
	if (ctx->json)
		kt_json_array_begin(ctx->jw);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	end = kt_loop_run(tg, &t0, tc.co.duration, trace_round, &tc);
	ret = end == KT_LOOP_FAILED ? KT_FAIL : KT_OK;
	stopped = end == KT_LOOP_DURATION;
	ktrace_record_disable(tc.rec);
	ktrace_record_drain(tc.rec, on_sample, &tc);
	unfinished(&tc);
	if (tc.summary)
		print_summary(&tc);
	if (ctx->json)
		kt_json_array_end(ctx->jw);
out:
	status = kt_target_finish(tg, kt_stop_signal || ret || stopped);
	/* the perf fds and the instance before the probes they use */
	ktrace_record_free(tc.rec);
	kt_inline_destroy(ctx, &tc.inl);
	if (installed)
		kt_signals_restore(&sigs);
	kt_capture_opts_free(&tc.co);
	unfinished(&tc);
	free(tc.ev);
	free(tc.sum);
	free(tc.globs);
	return kt_target_status(tg, ret, status, stopped);
}
