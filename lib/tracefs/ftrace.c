// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The function tracers: settings written to an instance (or, for a tracer
 * no instance offers, to the top one when unused, with what was there
 * kept to put back), and each CPU's trace_pipe_raw read and decoded with
 * the formats of events/ftrace (their fields found by name: the layout
 * of funcgraph_entry and funcgraph_exit differs between kernels).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>

#include "base/internal.h"
#include "tracefs/ftrace.h"
#include "tracefs/tfs_priv.h"

bool kt_tracer_offered(const struct ktrace_inst *inst, const char *tracer)
{
	char *buf = kt_inst_read(inst, "available_tracers", NULL), *t, *save;
	bool found = false;

	if (!buf)
		return false;
	for (t = strtok_r(buf, " \n", &save); t && !found;
	     t = strtok_r(NULL, " \n", &save))
		found = !strcmp(t, tracer);
	free(buf);
	return found;
}

bool kt_inst_has(const struct ktrace_inst *inst, const char *file)
{
	char *p = kt_inst_path(inst, file);
	struct stat st;
	bool ret = p && !stat(p, &st);

	free(p);
	return ret;
}

/* What a refusal with EPERM means to root: the function tracers' files
 * are closed by a kernel in lockdown. */
static const char *lock_hint(int ret)
{
	return ret == -EPERM ?
	       " (a kernel in lockdown refuses the function tracers)" : "";
}

/* The globs into file, the first truncating; 0 or -errno (err says). */
static int write_globs(const struct ktrace_inst *inst, const char *file,
		       const char *const *v, int n, struct ktrace_err *err)
{
	for (int i = 0; i < n; i++) {
		int ret = kt_inst_write(inst, file, v[i],
					i ? O_APPEND : O_TRUNC);

		if (ret)
			return kt_err_set(err, -ret, "%s refused '%s': %s%s",
					  file, v[i], strerror(-ret),
					  lock_hint(ret));
	}
	return 0;
}

/* "1 2 3" of v (malloc'ed) or NULL. */
static char *int_list(const int *v, int n)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? " " : "", v[i]);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* tracing_cpumask's text for cpus: hex, 32 bits a group, comma between. */
static int cpumask_text(const int *cpus, int n, char *buf, size_t len)
{
	uint32_t g[8] = { 0 };
	int top = 0;
	size_t at = 0;

	for (int i = 0; i < n; i++) {
		if (cpus[i] < 0 || cpus[i] >= 256)
			return -EINVAL;
		g[cpus[i] / 32] |= 1u << (cpus[i] % 32);
		if (cpus[i] / 32 > top)
			top = cpus[i] / 32;
	}
	for (int i = top; i >= 0 && at < len; i--)
		at += snprintf(buf + at, len - at, i == top ? "%x" : ",%08x",
			       g[i]);
	return at < len ? 0 : -ENAMETOOLONG;
}

static int write_one(const struct ktrace_inst *inst, const char *file,
		     const char *val, struct ktrace_err *err)
{
	int ret = kt_inst_write(inst, file, val, O_TRUNC);

	if (ret)
		return kt_err_set(err, -ret, "cannot write '%s' to %s: %s%s",
				  val, file, strerror(-ret), lock_hint(ret));
	return 0;
}

static int apply_target(struct ktrace_inst *inst,
			const struct kt_ftrace_conf *c, struct ktrace_err *err)
{
	char mask[128], *pids;
	int ret = 0;

	if (c->ncpus) {
		ret = cpumask_text(c->cpus, c->ncpus, mask, sizeof(mask));
		if (ret)
			return kt_err_set(err, -ret, "bad CPU list");
		ret = write_one(inst, "tracing_cpumask", mask, err);
		if (ret)
			return ret;
	}
	if (!c->npids)
		return 0;
	if (c->fork) {
		ret = write_one(inst, "options/function-fork", "1", err);
		if (ret)
			return ret;
	}
	pids = int_list(c->pids, c->npids);
	if (!pids)
		return kt_err_set(err, ENOMEM, "out of memory");
	ret = write_one(inst, "set_ftrace_pid", pids, err);
	free(pids);
	return ret;
}

int kt_ftrace_apply(struct ktrace_inst *inst, const struct kt_ftrace_conf *c,
		    struct ktrace_err *err)
{
	char num[32];
	int ret = 0;

	if (c->buffer_kb > 0) {
		snprintf(num, sizeof(num), "%ld", c->buffer_kb);
		ret = write_one(inst, "buffer_size_kb", num, err);
	}
	if (!ret)
		ret = write_globs(inst, "set_ftrace_filter", c->filter,
				  c->nfilter, err);
	if (!ret)
		ret = write_globs(inst, "set_ftrace_notrace", c->notrace,
				  c->nnotrace, err);
	if (!ret)
		ret = write_globs(inst, "set_graph_function", c->graph,
				  c->ngraph, err);
	if (!ret && c->depth > 0) {
		snprintf(num, sizeof(num), "%d", c->depth);
		ret = write_one(inst, "max_graph_depth", num, err);
	}
	if (!ret)
		ret = apply_target(inst, c, err);
	if (!ret)
		ret = write_one(inst, "tracing_on", "1", err);
	if (ret)
		return ret;
	ret = kt_inst_write(inst, "current_tracer", c->tracer, O_TRUNC);
	if (ret)
		return kt_err_set(err, -ret,
				  "the kernel refused the %s tracer: %s%s",
				  c->tracer, strerror(-ret), lock_hint(ret));
	return 0;
}

/* ------------------------------------------------------- the top level */

/* Files whose emptiness the rule asks, and what empty reads as. */
static const char *const top_empty[] = {
	"set_ftrace_filter", "set_ftrace_notrace", "set_graph_function",
	"set_graph_notrace", "set_ftrace_pid",
};

/* Is text (a filter file, set_ftrace_pid) empty: only comments, blank
 * lines or "no pid"? */
static bool text_empty(const char *text)
{
	for (const char *l = text; l && *l; ) {
		size_t len = strcspn(l, "\n");

		if (len && *l != '#' && strncmp(l, "no pid", 6))
			return false;
		l += len;
		if (*l)
			l++;
	}
	return true;
}

/* The top is unused, or -EBUSY with what holds it in err. */
static int top_unused(struct ktrace_inst *top, struct ktrace_err *err)
{
	char *t = kt_inst_read(top, "current_tracer", NULL);
	int ret = 0;

	if (!t)
		return kt_err_set(err, errno, "cannot read current_tracer: %m");
	t[strcspn(t, "\n")] = '\0';
	if (strcmp(t, "nop"))
		ret = kt_err_set(err, EBUSY,
				 "the top instance's tracer is in use (current_tracer is '%s'): not taken",
				 t);
	free(t);
	for (size_t i = 0; !ret && i < ARRAY_SIZE(top_empty); i++) {
		t = kt_inst_read(top, top_empty[i], NULL);
		if (t && !text_empty(t))
			ret = kt_err_set(err, EBUSY,
					 "the top instance's %s is in use ('%.*s'): not taken",
					 top_empty[i], (int)strcspn(t, "\n"), t);
		free(t);
	}
	t = ret ? NULL : kt_inst_read(top, "tracing_thresh", NULL);
	if (t && strtoul(t, NULL, 10))
		ret = kt_err_set(err, EBUSY,
				 "the top instance's tracing_thresh is in use (%lu): not taken",
				 strtoul(t, NULL, 10));
	free(t);
	return ret;
}

/* Files whose values are read and put back as they were. */
static const char *const top_saved[] = {
	"max_graph_depth", "options/function-fork", "tracing_cpumask",
	"tracing_on", "buffer_size_kb",
};

/* A saved file's value: its first word; for buffer_size_kb before the
 * buffer's first use ("7 (expanded: 1408)") the size it will have. */
static void save_value(FILE *f, const char *file, const char *v)
{
	const char *exp = strstr(v, "(expanded: ");

	if (exp)
		v = exp + 11;
	fprintf(f, "%s %.*s\n", file, (int)strcspn(v, " )\n"), v);
}

int kt_ftop_take(struct ktrace_tfs *tfs, bool buffer, char *owner,
		 size_t len, struct ktrace_err *err)
{
	struct ktrace_inst *top = kt_tfs_top(tfs);
	char *text = NULL, *v;
	size_t tlen;
	FILE *f;
	int ret = top_unused(top, err);

	if (ret)
		return ret;
	kt_owner_group_name(owner, len);
	f = open_memstream(&text, &tlen);
	if (!f)
		return kt_err_set(err, ENOMEM, "out of memory");
	/* buffer_size_kb (last) only when the run sets it */
	for (size_t i = 0; i < ARRAY_SIZE(top_saved) - !buffer; i++) {
		v = kt_inst_read(top, top_saved[i], NULL);
		if (v)
			save_value(f, top_saved[i], v);
		free(v);
	}
	if (fclose(f))
		return kt_err_set(err, ENOMEM, "out of memory");
	/* on record before the first change: a SIGKILL leaves it provable */
	ret = kt_owner_record(tfs, owner);
	if (!ret)
		ret = kt_state_write(tfs, "ftrace-top", owner, text);
	free(text);
	if (ret) {
		kt_owner_forget(tfs, owner);
		return kt_err_set(err, -ret, "cannot keep the top's settings: %s",
				  strerror(-ret));
	}
	return 0;
}

int kt_ftop_restore(struct ktrace_tfs *tfs, const char *owner)
{
	struct ktrace_inst *top = kt_tfs_top(tfs);
	char *text = kt_state_read(tfs, "ftrace-top", owner), *l, *save, *sp;
	int ret, first = 0;

	if (!text)
		return 0;
	ret = kt_inst_write(top, "current_tracer", "nop", O_TRUNC);
	first = ret;
	for (size_t i = 0; i < ARRAY_SIZE(top_empty); i++) {
		/* set_graph_notrace: never written, and only empty taken */
		ret = i == 3 ? 0 : kt_inst_write(top, top_empty[i], "",
						  O_TRUNC);
		if (ret && !first)
			first = ret;
	}
	for (l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		sp = strchr(l, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		ret = kt_inst_write(top, l, sp + 1, O_TRUNC);
		if (ret && !first)
			first = ret;
	}
	free(text);
	kt_state_unmark(tfs, "ftrace-top", owner);
	kt_owner_release(tfs, owner);
	return first;
}

struct ftop_sweep {
	int n;
};

static void ftop_sweep_one(struct ktrace_tfs *tfs, const char *name,
			   void *ctx)
{
	if (!kt_owner_dead(tfs, name))
		return;
	kt_ftop_restore(tfs, name);
	((struct ftop_sweep *)ctx)->n++;
}

int kt_ftop_sweep(struct ktrace_tfs *tfs)
{
	struct ftop_sweep sw = { 0 };
	int ret = kt_state_list(tfs, "ftrace-top", ftop_sweep_one, &sw);

	return ret ? ret : sw.n;
}

/* -------------------------------------------------------- the decoder */

struct fevent {
	int id;
	struct tep_format_field *ip, *parent, *func, *depth, *calltime,
				*rettime;
};

struct kt_fdec {
	struct tep_handle *tep;
	struct fevent fn, ent, ex;
};

struct kt_fdec *kt_fdec_alloc(void)
{
	struct kt_fdec *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->tep = tep_alloc();
	if (!d->tep) {
		free(d);
		return NULL;
	}
	d->fn.id = d->ent.id = d->ex.id = -1;
	return d;
}

void kt_fdec_free(struct kt_fdec *d)
{
	if (!d)
		return;
	tep_free(d->tep);
	free(d);
}

int kt_fdec_add(struct kt_fdec *d, const char *format, size_t len)
{
	struct tep_event *te = NULL;
	struct fevent *e;

	if (tep_parse_format(d->tep, &te, format, len, "ftrace") !=
	    TEP_ERRNO__SUCCESS || !te)
		return -EINVAL;
	e = !strcmp(te->name, "function") ? &d->fn :
	    !strcmp(te->name, "funcgraph_entry") ? &d->ent :
	    !strcmp(te->name, "funcgraph_exit") ? &d->ex : NULL;
	if (!e)
		return 0;
	e->id = te->id;
	e->ip = tep_find_field(te, "ip");
	e->parent = tep_find_field(te, "parent_ip");
	e->func = tep_find_field(te, "func");
	e->depth = tep_find_field(te, "depth");
	e->calltime = tep_find_field(te, "calltime");
	e->rettime = tep_find_field(te, "rettime");
	return 0;
}

/* Parse events/ftrace/NAME's format of inst into d (absent: left out). */
static int fdec_load(struct kt_fdec *d, const struct ktrace_inst *inst,
		     const char *name)
{
	size_t len;
	char *buf = kt_event_read(inst, "ftrace", name, "format", &len);
	int ret;

	if (!buf)
		return errno == ENOENT ? 0 : -errno;
	ret = kt_fdec_add(d, buf, len);
	free(buf);
	return ret;
}

static uint64_t field_u64(struct tep_format_field *f, struct tep_record *r)
{
	unsigned long long v = 0;

	if (f && f->offset + f->size <= r->size)
		tep_read_number_field(f, r->data, &v);
	return v;
}

int kt_fdec_decode(const struct kt_fdec *d, int cpu, uint64_t ts,
		   const void *data, uint32_t size, struct kt_frec *o)
{
	struct tep_record r = { .ts = ts, .cpu = cpu, .data = (void *)data,
				.size = (int)size };
	const struct fevent *e;
	int id;

	if (size < 8)
		return 0;
	id = tep_data_type(d->tep, &r);
	e = id == d->fn.id ? &d->fn : id == d->ent.id ? &d->ent :
	    id == d->ex.id ? &d->ex : NULL;
	if (!e || e->id < 0)
		return 0;
	memset(o, 0, sizeof(*o));
	o->type = e == &d->fn ? KT_FREC_FUNC : e == &d->ent ? KT_FREC_ENTRY :
		  KT_FREC_EXIT;
	o->cpu = cpu;
	o->ts = ts;
	o->pid = tep_data_pid(d->tep, &r);
	o->ip = field_u64(e == &d->fn ? e->ip : e->func, &r);
	o->parent = field_u64(e->parent, &r);
	o->depth = (int)field_u64(e->depth, &r);
	o->calltime = field_u64(e->calltime, &r);
	o->rettime = field_u64(e->rettime, &r);
	return 1;
}

/* --------------------------------------------------------- the readers */

struct kt_fpipe {
	struct kt_fdec *dec;
	struct kt_pipe *pipe;
	struct kt_frec *v;
	size_t n, cap;
	size_t cut;		/* v[cut..n): held back for the next _read() */
	uint64_t missed;
	/* with kt_fpipe_keep_raw(): each record's data, for a file */
	bool keep_raw;
	unsigned char *raw;
	size_t raw_len, raw_cap;
};

struct kt_fpipe *kt_fpipe_open(const struct ktrace_inst *inst,
			       const int *cpus, int ncpus)
{
	struct kt_fpipe *p = calloc(1, sizeof(*p));
	int ret = -ENOMEM;

	if (!p)
		return NULL;
	p->dec = kt_fdec_alloc();
	if (!p->dec)
		goto fail;
	ret = fdec_load(p->dec, inst, "function");
	if (!ret)
		ret = fdec_load(p->dec, inst, "funcgraph_entry");
	if (!ret)
		ret = fdec_load(p->dec, inst, "funcgraph_exit");
	if (!ret) {
		p->pipe = kt_pipe_open(inst, cpus, ncpus);
		ret = p->pipe ? 0 : -errno;
	}
	if (!ret)
		return p;
fail:
	kt_fpipe_close(p);
	errno = -ret;
	return NULL;
}

void kt_fpipe_close(struct kt_fpipe *p)
{
	if (!p)
		return;
	kt_pipe_close(p->pipe);
	kt_fdec_free(p->dec);
	free(p->v);
	free(p->raw);
	free(p);
}

void kt_fpipe_keep_raw(struct kt_fpipe *p)
{
	p->keep_raw = true;
}

const void *kt_fpipe_raw(const struct kt_fpipe *p, const struct kt_frec *r,
			 uint32_t *size)
{
	if (!p->keep_raw || r->raw_off + r->raw_size > p->raw_len)
		return NULL;
	*size = r->raw_size;
	return p->raw + r->raw_off;
}

uint64_t kt_fpipe_missed(const struct kt_fpipe *p)
{
	return p->missed;
}

int kt_fpipe_pollfds(const struct kt_fpipe *p, struct pollfd *fds, int max)
{
	int n = 0;

	for (int i = 0; i < kt_pipe_nr(p->pipe) && n < max; i++, n++)
		fds[n] = (struct pollfd){ .fd = kt_pipe_fd(p->pipe, i),
					  .events = POLLIN };
	return n;
}

/* A copy of a record's data in p->raw (keep_raw); 0 or -ENOMEM. */
static int keep(struct kt_fpipe *p, struct kt_frec *o, const void *data,
		uint32_t size)
{
	if (p->raw_len + size > p->raw_cap) {
		size_t cap = p->raw_cap ? p->raw_cap * 2 : 1 << 16;
		unsigned char *n;

		while (cap < p->raw_len + size)
			cap *= 2;
		n = realloc(p->raw, cap);
		if (!n)
			return -ENOMEM;
		p->raw = n;
		p->raw_cap = cap;
	}
	memcpy(p->raw + p->raw_len, data, size);
	o->raw_off = p->raw_len;
	o->raw_size = size;
	p->raw_len += size;
	return 0;
}

/* An event of the buffers, with the losses before it: a record into p->v
 * (other events skipped). */
static int decode_ev(void *arg, const struct kt_pipe_ev *ev)
{
	struct kt_fpipe *p = arg;
	struct kt_frec *o;

	if (ev->missed > 0)
		p->missed += ev->missed;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4096;
		struct kt_frec *nv = realloc(p->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		p->v = nv;
		p->cap = cap;
	}
	o = &p->v[p->n];
	if (kt_fdec_decode(p->dec, ev->cpu, ev->ts, ev->data, ev->size, o) <= 0)
		return 0;
	if (p->keep_raw && keep(p, o, ev->data, ev->size))
		return -ENOMEM;
	p->n++;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct kt_frec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->cpu - y->cpu;
}

/*
 * Subbuffers of a CPU decoded by one _read() at most. What the kernel
 * holds is taken into memory at each call (kt_pipe_fill: a copy, so that
 * the buffers do not overflow while records are printed); the records
 * are decoded a batch at a time.
 */
#define FPIPE_BATCH 16

/* The records held back by the last _read() to the front of p->v (and
 * their data to the front of p->raw); 0 or -ENOMEM. */
static int take_held(struct kt_fpipe *p)
{
	size_t h = p->n - p->cut, bytes = 0;
	unsigned char *tmp;

	if (h && p->cut)
		memmove(p->v, p->v + p->cut, h * sizeof(*p->v));
	p->n = h;
	p->cut = 0;
	if (!p->keep_raw || !h) {
		p->raw_len = 0;
		return 0;
	}
	for (size_t i = 0; i < h; i++)
		bytes += p->v[i].raw_size;
	tmp = malloc(bytes);
	if (!tmp)
		return -ENOMEM;
	bytes = 0;
	for (size_t i = 0; i < h; i++) {
		memcpy(tmp + bytes, p->raw + p->v[i].raw_off, p->v[i].raw_size);
		p->v[i].raw_off = bytes;
		bytes += p->v[i].raw_size;
	}
	memcpy(p->raw, tmp, bytes);
	free(tmp);
	p->raw_len = bytes;
	return 0;
}

/*
 * The time up to which this batch holds every CPU's records: the first
 * event of the first subbuffer left queued past a batch (UINT64_MAX when
 * every queue fits in one).
 */
static uint64_t batch_horizon(const struct kt_fpipe *p)
{
	uint64_t h = UINT64_MAX;

	for (int i = 0; i < kt_pipe_nr(p->pipe); i++) {
		uint64_t t = kt_pipe_queued_time(p->pipe, i, FPIPE_BATCH);

		if (t < h)
			h = t;
	}
	return h;
}

/* How many of reader i's subbuffers the batch takes: the queued ones
 * that start before horizon (a batch of them read at once when nothing
 * could be queued). */
static int batch_pages(const struct kt_fpipe *p, int i, uint64_t horizon)
{
	size_t k = 0, q = kt_pipe_queued(p->pipe, i);

	if (!q)
		return FPIPE_BATCH;
	while (k < q && k < FPIPE_BATCH &&
	       kt_pipe_queued_time(p->pipe, i, k) < horizon)
		k++;
	return (int)k;
}

int kt_fpipe_read(struct kt_fpipe *p, const struct kt_frec **out, size_t *n)
{
	uint64_t horizon;
	long got = take_held(p);

	if (got)
		return (int)got;
	got = kt_pipe_fill(p->pipe);
	if (got == -ENOMEM)
		got = 0;	/* read directly, as much as a batch */
	horizon = batch_horizon(p);
	for (int i = 0; got >= 0 && i < kt_pipe_nr(p->pipe); i++)
		got = kt_pipe_read(p->pipe, i, batch_pages(p, i, horizon),
				   decode_ev, p);
	/* one CPU's records are in time order already: the sort merges */
	if (p->n > 1)
		qsort(p->v, p->n, sizeof(*p->v), by_time);
	p->cut = p->n;
	while (horizon != UINT64_MAX && p->cut && p->v[p->cut - 1].ts >= horizon)
		p->cut--;
	*out = p->v;
	*n = p->cut;
	return got < 0 ? (int)got : 0;
}

void kt_fpipe_fill(struct kt_fpipe *p)
{
	kt_pipe_fill(p->pipe);
}

bool kt_fpipe_pending(const struct kt_fpipe *p)
{
	if (p->cut < p->n)
		return true;
	for (int i = 0; i < kt_pipe_nr(p->pipe); i++)
		if (kt_pipe_queued(p->pipe, i))
			return true;
	return false;
}

int kt_cpu_stats(const struct ktrace_inst *inst, int cpu, uint64_t *overrun,
		 uint64_t *dropped)
{
	char rel[64], *t, *l;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
	t = kt_inst_read(inst, rel, NULL);
	if (!t)
		return -errno;
	*overrun = *dropped = 0;
	l = strstr(t, "overrun:");
	if (l)
		*overrun = strtoull(l + 8, NULL, 10);
	l = strstr(t, "dropped events:");
	if (l)
		*dropped = strtoull(l + 15, NULL, 10);
	free(t);
	return 0;
}
