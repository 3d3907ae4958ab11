// SPDX-License-Identifier: LGPL-2.1-only
/* Counting mode for ktrace stat: lib/capture/perf.c's counters behind ktrace.h. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "tracefs/tfs.h"
#include "capture/perf.h"

struct ktrace_stat {
	struct ktrace_tfs *tfs;
	struct kt_perf_event *ev;
	char **names;
	int n;
	struct kt_counters **c;	/* one set per traced task (or one) */
	int nc;
};

struct ktrace_stat *ktrace_stat_alloc(struct ktrace_tfs *tfs)
{
	struct ktrace_stat *st = calloc(1, sizeof(*st));

	if (st)
		st->tfs = tfs;
	return st;
}

void ktrace_stat_free(struct ktrace_stat *st)
{
	if (!st)
		return;
	for (int i = 0; i < st->nc; i++)
		kt_counters_free(st->c[i]);
	free(st->c);
	for (int i = 0; i < st->n; i++)
		free(st->names[i]);
	free(st->names);
	free(st->ev);
	free(st);
}

int ktrace_stat_add(struct ktrace_stat *st, const char *name,
		    struct ktrace_err *err)
{
	struct kt_perf_event e = { 0 };
	struct kt_perf_event *nv;
	char **nn;

	if (kt_counter_lookup(name, &e.type, &e.config)) {
		const char *c = strchr(name, ':');
		char *sys, *buf;

		if (!c) {
			char list[512];

			kt_counter_list(list, sizeof(list));
			return kt_err_set(err, ENOENT,
					  "unknown event '%s' (not SYSTEM:EVENT, not a counter: %s)",
					  name, list);
		}
		sys = strndup(name, c - name);
		if (!sys)
			return -ENOMEM;
		if (kt_name_check(sys) || kt_name_check(c + 1)) {
			free(sys);
			return kt_err_set(err, EINVAL,
					  "bad event name '%s'", name);
		}
		buf = kt_event_read(kt_tfs_top(st->tfs), sys, c + 1, "id", NULL);
		free(sys);
		if (!buf)
			return kt_err_set(err, ENOENT, "no such event '%s'",
					  name);
		e.type = PERF_TYPE_TRACEPOINT;
		e.config = strtoull(buf, NULL, 10);
		free(buf);
	}
	nv = realloc(st->ev, (st->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	st->ev = nv;
	nn = realloc(st->names, (st->n + 1) * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	st->names = nn;
	st->names[st->n] = strdup(name);
	if (!st->names[st->n])
		return -ENOMEM;
	st->ev[st->n] = e;
	return st->n++;
}

/* The threads of pid from /proc/PID/task (malloc'ed), or NULL. */
static int *task_list(int pid, int *n)
{
	char path[64];
	struct dirent *d;
	int *v = NULL;
	DIR *dir;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		int tid = atoi(d->d_name), *nv;

		if (tid <= 0)
			continue;
		nv = realloc(v, (*n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[(*n)++] = tid;
	}
	closedir(dir);
	return v;
}

int ktrace_stat_open(struct ktrace_stat *st, int pid, const int *cpus,
		     int nr_cpus, bool inherit, bool enable_on_exec,
		     struct ktrace_err *err)
{
	int one = pid, *tids = &one, ntids = 1;

	/* An existing process: every thread it has now (inherit follows
	 * the ones it makes later). A child about to exec has one. */
	if (pid > 0 && !enable_on_exec) {
		tids = task_list(pid, &ntids);
		if (!tids)
			return kt_err_set(err, ESRCH,
					  "no such process %d", pid);
	}
	st->c = calloc(ntids, sizeof(*st->c));
	if (!st->c)
		goto nomem;
	for (int i = 0; i < ntids; i++) {
		st->c[st->nc] = kt_counters_open(st->ev, st->n, tids[i], cpus,
						 nr_cpus, inherit,
						 enable_on_exec);
		/* A thread that exited since /proc was read. */
		if (!st->c[st->nc] && errno == ESRCH && ntids > 1)
			continue;
		if (!st->c[st->nc]) {
			int e = errno;

			if (tids != &one)
				free(tids);
			return kt_err_set(err, e,
					  "cannot open the counters: %s%s",
					  strerror(e),
					  e == EACCES || e == EPERM ?
					  " (run as root or lower /proc/sys/kernel/perf_event_paranoid)" :
					  "");
		}
		st->nc++;
	}
	if (tids != &one)
		free(tids);
	if (!st->nc)
		return kt_err_set(err, ESRCH, "no such process %d", pid);
	return 0;
nomem:
	if (tids != &one)
		free(tids);
	return -ENOMEM;
}

int ktrace_stat_enable(struct ktrace_stat *st)
{
	int ret = st->nc ? 0 : -EINVAL;

	for (int i = 0; i < st->nc; i++)
		if (kt_counters_enable(st->c[i]) && !ret)
			ret = -errno;
	return ret;
}

int ktrace_stat_disable(struct ktrace_stat *st)
{
	int ret = st->nc ? 0 : -EINVAL;

	for (int i = 0; i < st->nc; i++)
		if (kt_counters_disable(st->c[i]) && !ret)
			ret = -errno;
	return ret;
}

int ktrace_stat_count(const struct ktrace_stat *st)
{
	return st->n;
}

const char *ktrace_stat_name(const struct ktrace_stat *st, int i)
{
	return i >= 0 && i < st->n ? st->names[i] : NULL;
}

bool ktrace_stat_user_only(const struct ktrace_stat *st, int i)
{
	for (int t = 0; t < st->nc; t++)
		if (kt_counters_user_only(st->c[t], i))
			return true;
	return false;
}

int ktrace_stat_read(struct ktrace_stat *st, int i, uint64_t *value,
		     uint64_t *enabled_ns, uint64_t *running_ns)
{
	uint64_t sum = 0, en = 0, run = 0;
	struct kt_counter_val v;
	int ret;

	if (!st->nc)
		return -EINVAL;
	for (int t = 0; t < st->nc; t++) {
		ret = kt_counters_status(st->c[t], i);
		if (ret)
			return kt_counter_unsupported(ret) ? -EOPNOTSUPP : ret;
		ret = kt_counters_read(st->c[t], i, &v);
		if (ret)
			return ret;
		sum += v.running && v.running < v.enabled ?
		       (uint64_t)v.scaled : v.raw;
		en += v.enabled;
		run += v.running;
	}
	*value = sum;
	if (enabled_ns)
		*enabled_ns = en;
	if (running_ns)
		*running_ns = run;
	return 0;
}

const char *const *ktrace_stat_counter_names(void)
{
	return kt_counter_names();
}
