// SPDX-License-Identifier: LGPL-2.1-only
/*
 * An instance's ring buffers read as records come: each CPU's
 * trace_pipe_raw, opened without blocking through the accessor's paths,
 * one subbuffer a read, its events taken apart by libtraceevent's
 * kbuffer. The one reader of ftrace's buffers: the function tracers'
 * records (ftrace.c), the events perf never gets (lib/record's ftsrc.c,
 * latency --record's synthetic event through kt_raw below).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdint.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "base/internal.h"
#include "tracefs/tfs_priv.h"

/* Subbuffers read ahead of their events (kt_pipe_fill), a reader's FIFO:
 * n of them from slot head on, in a ring of cap slots, each its own block
 * (growing the ring moves pointers, never the data: a copy of a large
 * backlog would stop the reading long enough to overrun the kernel's
 * buffer). */
struct pqueue {
	unsigned char **pg;
	size_t head, n, cap;	/* cap: 0 or a power of two */
};

/* The k-th queued subbuffer's slot of q (k <= q->n < q->cap). */
static unsigned char **queue_at(const struct pqueue *q, size_t k)
{
	return &q->pg[(q->head + k) & (q->cap - 1)];
}

struct kt_pipe {
	int nr;			/* CPUs read */
	int *fd, *cpu;
	void *page;		/* one subbuffer */
	size_t page_size;
	struct kbuffer *kbuf;
	struct pqueue *q;	/* per reader */
	size_t queued, max_queued;	/* subbuffers over all queues */
	unsigned char **spare;	/* blocks read out, for the next fill */
	size_t nspare, spare_cap;
};

/* At most a quarter of the memory available when the pipe opens, 1 GiB,
 * waits in the queues; then the kernel's buffer fills and it counts the
 * loss. */
static size_t queue_cap(size_t page_size)
{
	uint64_t all = 1ull << 30, avail = kt_mem_available();

	if (avail && avail / 4 < all)
		all = avail / 4;
	return page_size && all / page_size > 16 ? all / page_size : 16;
}

/* The subbuffer size: buffer_subbuf_size_kb (Linux 6.8+), else a page. */
static size_t subbuf_size(const struct ktrace_inst *inst)
{
	char *s = kt_inst_read(inst, "buffer_subbuf_size_kb", NULL);
	size_t n = s ? strtoul(s, NULL, 10) * 1024 : 0;

	free(s);
	return n > (size_t)getpagesize() ? n : (size_t)getpagesize();
}

static int open_cpu(struct kt_pipe *p, const struct ktrace_inst *inst,
		    int cpu)
{
	char rel[64], *path;
	int fd;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	path = kt_inst_path(inst, rel);
	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	free(path);
	if (fd < 0)	/* ENOENT: a CPU not possible */
		return errno == ENOENT ? 0 : -errno;
	p->fd[p->nr] = fd;
	p->cpu[p->nr++] = cpu;
	return 0;
}

struct kt_pipe *kt_pipe_open(const struct ktrace_inst *inst, const int *cpus,
			     int ncpus)
{
	long nconf = sysconf(_SC_NPROCESSORS_CONF);
	int n = cpus ? ncpus : (int)(nconf > 0 ? nconf : 1), ret = -ENOMEM;
	struct kt_pipe *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->fd = calloc(n > 0 ? n : 1, sizeof(*p->fd));
	p->cpu = calloc(n > 0 ? n : 1, sizeof(*p->cpu));
	p->q = calloc(n > 0 ? n : 1, sizeof(*p->q));
	p->page_size = subbuf_size(inst);
	p->max_queued = queue_cap(p->page_size);
	p->page = malloc(p->page_size);
	p->kbuf = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 :
				KBUFFER_LSIZE_4, KBUFFER_ENDIAN_LITTLE);
	if (!p->fd || !p->cpu || !p->q || !p->page || !p->kbuf)
		goto fail;
	ret = 0;
	for (int i = 0; !ret && i < n; i++)
		ret = open_cpu(p, inst, cpus ? cpus[i] : i);
	if (!ret && !p->nr)
		ret = -ENOENT;
	if (!ret)
		return p;
fail:
	kt_pipe_close(p);
	errno = -ret;
	return NULL;
}

void kt_pipe_close(struct kt_pipe *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nr; i++)
		close(p->fd[i]);
	for (int i = 0; p->q && i < p->nr; i++) {
		for (size_t k = 0; k < p->q[i].n; k++)
			free(*queue_at(&p->q[i], k));
		free(p->q[i].pg);
	}
	free(p->q);
	while (p->nspare)
		free(p->spare[--p->nspare]);
	free(p->spare);
	if (p->kbuf)
		kbuffer_free(p->kbuf);
	free(p->fd);
	free(p->cpu);
	free(p->page);
	free(p);
}

int kt_pipe_nr(const struct kt_pipe *p)
{
	return p->nr;
}

int kt_pipe_fd(const struct kt_pipe *p, int i)
{
	return p->fd[i];
}

/* The events of the subbuffer page; the count handed, or fn's non-zero
 * (*stop set). */
static long read_page(struct kt_pipe *p, int i, void *page, kt_pipe_fn fn,
		      void *arg, bool *stop)
{
	struct kt_pipe_ev ev = { .cpu = p->cpu[i] };
	unsigned long long ts;
	long n = 0;
	void *data;
	int ret;

	if (kbuffer_load_subbuffer(p->kbuf, page) < 0)
		return 0;
	ev.missed = kbuffer_missed_events(p->kbuf);
	for (data = kbuffer_read_event(p->kbuf, &ts); data;
	     data = kbuffer_next_event(p->kbuf, &ts)) {
		ev.ts = ts;
		ev.data = data;
		ev.size = kbuffer_event_size(p->kbuf);
		ret = fn(arg, &ev);
		ev.missed = 0;
		if (ret) {
			*stop = true;
			return ret < 0 ? ret : n;
		}
		n++;
	}
	return n;
}

/* Room for one more subbuffer at the tail of q; 0 or -ENOMEM. */
static int queue_grow(struct pqueue *q)
{
	size_t cap = q->cap ? q->cap * 2 : 64;
	unsigned char **ng;

	if (q->n < q->cap)
		return 0;
	ng = malloc(cap * sizeof(*ng));
	if (!ng)
		return -ENOMEM;
	for (size_t k = 0; k < q->n; k++)	/* the ring, straightened */
		ng[k] = *queue_at(q, k);
	free(q->pg);
	q->pg = ng;
	q->head = 0;
	q->cap = cap;
	return 0;
}

/* A block for a subbuffer: a spare one, or a new one (NULL: none). */
static unsigned char *block_get(struct kt_pipe *p)
{
	return p->nspare ? p->spare[--p->nspare] : malloc(p->page_size);
}

/* A block back to the spares (freed when they cannot be grown). */
static void block_put(struct kt_pipe *p, unsigned char *b)
{
	if (p->nspare == p->spare_cap) {
		size_t cap = p->spare_cap ? p->spare_cap * 2 : 64;
		unsigned char **ns = realloc(p->spare, cap * sizeof(*ns));

		if (!ns) {
			free(b);
			return;
		}
		p->spare = ns;
		p->spare_cap = cap;
	}
	p->spare[p->nspare++] = b;
}

/* One subbuffer of reader i read into q's tail: 1, 0 when there is none
 * now, or -errno. */
static int fill_one(struct kt_pipe *p, int i, struct pqueue *q)
{
	unsigned char *b;
	ssize_t got;
	int ret = queue_grow(q);

	if (ret)
		return ret;
	b = block_get(p);
	if (!b)
		return -ENOMEM;
	got = read(p->fd[i], b, p->page_size);
	if (got <= 0) {
		ret = got < 0 && errno != EAGAIN && errno != EINTR ? -errno : 0;
		block_put(p, b);
		return ret;
	}
	*queue_at(q, q->n) = b;
	q->n++;
	p->queued++;
	return 1;
}

long kt_pipe_fill(struct kt_pipe *p)
{
	long total = 0;

	for (int i = 0; i < p->nr; i++) {
		int ret = 1;

		while (ret > 0 && p->queued < p->max_queued) {
			ret = fill_one(p, i, &p->q[i]);
			if (ret < 0)
				return total ? total : ret;
			total += ret;
		}
	}
	return total;
}

size_t kt_pipe_queued(const struct kt_pipe *p, int i)
{
	return p->q[i].n;
}

uint64_t kt_pipe_queued_time(const struct kt_pipe *p, int i, size_t k)
{
	const struct pqueue *q = &p->q[i];
	uint64_t ts;

	if (k >= q->n)
		return UINT64_MAX;
	/* the header's time_stamp */
	memcpy(&ts, *queue_at(q, k), sizeof(ts));
	return ts;
}

long kt_pipe_read(struct kt_pipe *p, int i, int max, kt_pipe_fn fn, void *arg)
{
	struct pqueue *q = &p->q[i];
	bool stop = false;
	long total = 0, n;

	for (int k = 0; k < max && !stop; k++) {
		unsigned char *page = p->page, *queued = NULL;

		if (q->n) {	/* what kt_pipe_fill() read first */
			page = queued = *queue_at(q, 0);
			q->head = (q->head + 1) & (q->cap - 1);
			q->n--;
			p->queued--;
		} else {
			ssize_t got = read(p->fd[i], p->page, p->page_size);

			if (got < 0)
				return errno == EAGAIN || errno == EINTR ?
				       total : -errno;
			if (!got)
				break;
		}
		n = read_page(p, i, page, fn, arg, &stop);
		if (queued)
			block_put(p, queued);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

/* ------------------------------------------------- records by format */

/* A record of a read, its data copied (the subbuffer is reused). */
struct raw_held {
	struct kt_raw_rec rec;
	size_t off;		/* into the arena */
};

struct kt_raw {
	struct tep_handle *tep;	/* the header page and the systems' events */
	struct kt_pipe *pipe;
	struct raw_held *v;
	size_t n, cap;
	unsigned char *arena;
	size_t used, arena_cap;
	unsigned long long missed;
};

struct kt_raw *kt_raw_open(struct ktrace_tfs *tfs,
			   const struct ktrace_inst *inst,
			   const char *const *systems)
{
	struct kt_raw *r = calloc(1, sizeof(*r));
	int saved;

	if (!r)
		return NULL;
	r->tep = tracefs_local_events_system(tfs->dir, systems);
	r->pipe = r->tep ? kt_pipe_open(inst, NULL, 0) : NULL;
	if (r->pipe)
		return r;
	saved = errno ? errno : ENOENT;
	kt_raw_free(r);
	errno = saved;
	return NULL;
}

void kt_raw_free(struct kt_raw *r)
{
	if (!r)
		return;
	kt_pipe_close(r->pipe);
	tep_free(r->tep);
	free(r->v);
	free(r->arena);
	free(r);
}

static int hold(void *arg, const struct kt_pipe_ev *ev)
{
	struct kt_raw *r = arg;
	struct tep_record rec = { .data = (void *)ev->data, .size = ev->size };
	struct tep_event *te;

	if (ev->missed)
		r->missed += ev->missed > 0 ? ev->missed : 1;
	if (ev->size < 8)
		return 0;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct raw_held *nv = realloc(r->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		r->v = nv;
		r->cap = cap;
	}
	if (r->used + ev->size > r->arena_cap) {
		size_t cap = (r->used + ev->size) * 2;
		unsigned char *na = realloc(r->arena, cap);

		if (!na)
			return -ENOMEM;
		r->arena = na;
		r->arena_cap = cap;
	}
	te = tep_find_event_by_record(r->tep, &rec);
	memcpy(r->arena + r->used, ev->data, ev->size);
	r->v[r->n++] = (struct raw_held){
		.rec = { .cpu = ev->cpu, .ts = ev->ts, .size = ev->size,
			 .id = te ? te->id : -1,
			 .system = te ? te->system : NULL,
			 .name = te ? te->name : NULL },
		.off = r->used,
	};
	r->used += ev->size;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct kt_raw_rec *x = &((const struct raw_held *)a)->rec;
	const struct kt_raw_rec *y = &((const struct raw_held *)b)->rec;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->cpu - y->cpu;
}

int kt_raw_read(struct kt_raw *r, kt_raw_fn fn, void *arg)
{
	long got = 0;
	int ret = 0;

	r->n = r->used = 0;
	for (int i = 0; got >= 0 && i < kt_pipe_nr(r->pipe); i++)
		got = kt_pipe_read(r->pipe, i, 1024, hold, r);
	if (got < 0)
		return (int)got;
	qsort(r->v, r->n, sizeof(*r->v), by_time);
	for (size_t i = 0; !ret && i < r->n; i++) {
		r->v[i].rec.data = r->arena + r->v[i].off;
		ret = fn(arg, &r->v[i].rec);
	}
	return ret;
}

unsigned long long kt_raw_missed(const struct kt_raw *r)
{
	return r->missed;
}

int kt_raw_field(const struct kt_raw *r, const struct kt_raw_rec *rec,
		 const char *name, unsigned long long *val, int *offset)
{
	struct tep_event *ev = tep_find_event(r->tep, rec->id);
	struct tep_format_field *f = ev ? tep_find_any_field(ev, name) : NULL;

	if (!f)
		return -ENOENT;
	if (offset)
		*offset = f->offset;
	if (!val)
		return 0;
	if (f->offset + f->size > (int)rec->size || f->size > 8)
		return -EINVAL;
	*val = tep_read_number(r->tep, (const char *)rec->data + f->offset,
			       f->size);
	return 0;
}
