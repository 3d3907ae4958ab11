// SPDX-License-Identifier: GPL-2.0-only
/*
 * A run of the commands whose counting the kernel does (hist, latency):
 * the target limited through ktrace's own instance, the command started,
 * the table read every -I interval (shown as the change since the last
 * read) and at the end, the triggers and the instance taken back.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ktrace_cmd.h"

void kt_strv_free(struct kt_strv *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

int kt_strv_add_list(struct kt_ctx *ctx, struct kt_strv *s, const char *what,
		     const char *arg)
{
	for (const char *p = arg;; p++) {
		size_t len = strcspn(p, ",");
		char **nv;

		if (!len || len > 128)
			return kt_usage_error(ctx, NULL, "bad %s list '%s'%s",
					      what, arg, len ? ": too long" :
					      ": an empty name");
		if (s->n >= 16)
			return kt_usage_error(ctx, NULL, "too many %ss", what);
		nv = realloc(s->v, (s->n + 1) * sizeof(*nv));
		if (!nv)
			return kt_error(ctx, KT_FAIL, "out of memory");
		s->v = nv;
		s->v[s->n] = strndup(p, len);
		if (!s->v[s->n])
			return kt_error(ctx, KT_FAIL, "out of memory");
		s->n++;
		p += len;
		if (!*p)
			return KT_OK;
	}
}

char *kt_strv_join(const struct kt_strv *s, const char *lead,
		   const char *sep)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (int i = 0; i < s->n; i++)
		fprintf(f, "%s%s", i ? sep : lead, s->v[i]);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

int kt_interval_parse(struct kt_ctx *ctx, const char *arg, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *out < 10 || *out > 3600000)
		return kt_usage_error(ctx, NULL,
				      "bad interval '%s' (milliseconds, 10 to 3600000)",
				      arg);
	return KT_OK;
}

int kt_hrun_limit(struct kt_hrun *hr)
{
	struct kt_target *tg = hr->tg;
	char *text = NULL;
	size_t len;
	FILE *f;
	int ret;

	if (!tg->npids)
		return KT_OK;
	f = open_memstream(&text, &len);
	if (!f)
		return kt_error(hr->ctx, KT_FAIL, "out of memory");
	for (int i = 0; i < tg->npids; i++)
		fprintf(f, "%s%d", i ? " " : "", tg->pids[i]);
	if (fclose(f))
		return kt_error(hr->ctx, KT_FAIL, "out of memory");
	/* the command's children too */
	ret = tg->argc ? kt_inst_write(hr->inst, "options/event-fork", "1",
				       O_TRUNC) : 0;
	if (!ret)
		ret = kt_inst_write(hr->inst, "set_event_pid", text, O_TRUNC);
	free(text);
	if (ret)
		return kt_error(hr->ctx, KT_FAIL,
				"cannot limit the count to %s: %s", hr->what,
				strerror(-ret));
	return KT_OK;
}

static int by_raw(const void *a, const void *b)
{
	return strcmp((*(const struct kt_hist_entry **)a)->raw,
		      (*(const struct kt_hist_entry **)b)->raw);
}

/*
 * The change from prev to cur as a table of its own into *d: cur's
 * entries (keys borrowed) whose hitcount moved, with the differences.
 * Free with delta_free(), also after a failure.
 */
static int delta(const struct kt_hist_table *cur,
		 const struct kt_hist_table *prev, struct kt_hist_table *d)
{
	const struct kt_hist_entry **idx = NULL;
	size_t np = prev ? prev->n : 0;

	*d = *cur;
	d->n = 0;
	d->v = calloc(cur->n + 1, sizeof(*d->v));
	idx = calloc(np + 1, sizeof(*idx));
	if (!d->v || !idx)
		goto nomem;
	for (size_t i = 0; i < np; i++)
		idx[i] = &prev->v[i];
	qsort(idx, np, sizeof(*idx), by_raw);
	for (size_t i = 0; i < cur->n; i++) {
		const struct kt_hist_entry *e = &cur->v[i], *key = e, **p;
		struct kt_hist_entry *o = &d->v[d->n];

		p = np ? bsearch(&key, idx, np, sizeof(*idx), by_raw) : NULL;
		if (p && (*p)->vals[0] == e->vals[0])
			continue;	/* not hit in this interval */
		*o = *e;
		o->vals = calloc(cur->nvals + 1, sizeof(*o->vals));
		if (!o->vals)
			goto nomem;
		for (int v = 0; v < cur->nvals; v++)
			o->vals[v] = e->vals[v] - (p ? (*p)->vals[v] : 0);
		d->n++;
	}
	if (prev) {
		d->hits -= prev->hits;
		d->dropped -= prev->dropped;
	}
	free(idx);
	return 0;
nomem:
	free(idx);
	return -ENOMEM;
}

static void delta_free(struct kt_hist_table *d)
{
	for (size_t i = 0; d->v && i < d->n; i++)
		free(d->v[i].vals);
	free(d->v);
}

/* The table of hr's trigger in a read of its event, or NULL. ktrace's
 * own instance holds that one trigger on it. */
static struct kt_hist_table *own_table(struct kt_hrun *hr,
				       struct kt_hist_file *f)
{
	if (!f)
		return NULL;
	return f->n == 1 ? &f->t[0] : kt_hist_find(f, hr->trigger);
}

int kt_hrun_show(struct kt_hrun *hr, double at)
{
	struct kt_hist_file *f = NULL;
	struct kt_hist_table *t, d;
	int ret = kt_hist_read(hr->inst, hr->sys, hr->ev, &f);

	if (ret)
		return kt_error(hr->ctx, KT_FAIL,
				"cannot read the hist of %s:%s: %s", hr->sys,
				hr->ev, strerror(-ret));
	t = own_table(hr, f);
	if (!t) {
		kt_hist_file_free(f);
		return kt_error(hr->ctx, KT_FAIL,
				"the kernel shows no table for '%s' on %s:%s",
				hr->trigger, hr->sys, hr->ev);
	}
	if (delta(t, hr->interval ? own_table(hr, hr->prev) : NULL, &d)) {
		delta_free(&d);
		kt_hist_file_free(f);
		return kt_error(hr->ctx, KT_FAIL, "out of memory");
	}
	ret = hr->print(hr->arg, &d, at);
	if (t->dropped > hr->dropped_said) {
		fprintf(hr->ctx->err,
			"ktrace: %" PRIu64 " events of %s:%s were not counted: the table is full (%" PRIu64 " entries; raise --size)\n",
			t->dropped, hr->sys, hr->ev, t->entries);
		hr->dropped_said = t->dropped;
	}
	delta_free(&d);
	kt_hist_file_free(hr->prev);
	hr->prev = f;
	fflush(hr->ctx->out);
	return ret || ferror(hr->ctx->out) ? KT_FAIL : KT_OK;
}

/* A round: wait for the process's end (the end of every -p task) or the
 * next interval. */
static int hrun_round(void *arg, bool *gone)
{
	struct kt_hrun *hr = arg;
	struct pollfd pfd = { .fd = hr->pidfd, .events = POLLIN };
	int wait_ms = hr->interval ? (int)hr->interval : 1000;
	double now;

	if (hr->duration > 0 && hr->duration * 1000 < wait_ms)
		wait_ms = hr->duration * 1000;
	if ((hr->tick || hr->tg->npids > 1) && wait_ms > 100)
		wait_ms = 100;
	poll(&pfd, pfd.fd >= 0, pfd.fd >= 0 || hr->tg->npids > 1 ? wait_ms :
				10);
	if (hr->tick && hr->tick(hr->arg, false))
		return -1;
	now = kt_elapsed(&hr->t0);
	if (hr->interval && (now - hr->last) * 1000 >= hr->interval) {
		if (kt_hrun_show(hr, now))
			return -1;
		hr->last = now;
	}
	*gone = hr->gone || (pfd.fd >= 0 && poll(&pfd, 1, 0) > 0) ||
		kt_target_pids_gone(hr->tg);
	return 0;
}

int kt_hrun_loop(struct kt_hrun *hr, bool *stopped)
{
	struct kt_target *tg = hr->tg;
	int ret, pid;

	clock_gettime(CLOCK_MONOTONIC, &hr->t0);
	ret = kt_target_start(hr->ctx, tg);
	if (ret)
		return ret;
	pid = tg->argc || tg->npids == 1 ? tg->pids[0] : -1;
	hr->pidfd = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	/* gone before it could be watched: its end is now, not never */
	hr->gone = pid > 0 && hr->pidfd < 0 && errno == ESRCH;
	switch (kt_loop_run(tg, &hr->t0, hr->duration, hrun_round, hr)) {
	case KT_LOOP_FAILED:
		return KT_FAIL;
	case KT_LOOP_DURATION:
		*stopped = true;
		break;
	default:
		break;
	}
	if (hr->tick && hr->tick(hr->arg, true))
		return KT_FAIL;
	return kt_hrun_show(hr, kt_elapsed(&hr->t0));
}

int kt_hrun_destroy(struct kt_hrun *hr)
{
	int ret = 0;

	if (hr->pidfd >= 0)
		close(hr->pidfd);
	hr->pidfd = -1;
	kt_hist_file_free(hr->prev);
	hr->prev = NULL;
	if (hr->inst) {
		ret = kt_own_inst_destroy(hr->inst);
		hr->inst = NULL;
		if (ret)
			kt_error(hr->ctx, KT_FAIL,
				 "cannot remove ktrace's instance: %s",
				 strerror(-ret));
	}
	return ret ? KT_FAIL : KT_OK;
}
