// SPDX-License-Identifier: LGPL-2.1-only
/* Counting mode for ktrace stat: lib/perf.c's counters behind ktrace.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "perf.h"

struct ktrace_stat {
	struct ktrace_tfs *tfs;
	struct kt_perf_event *ev;
	char **names;
	int n;
	struct kt_counters *c;
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
	kt_counters_free(st->c);
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
		char *sys, *buf, *rel;

		if (!c)
			return ktrace_err_set(err, ENOENT,
					      "unknown event '%s' (not a counter name, not SYSTEM:EVENT)",
					      name);
		sys = strndup(name, c - name);
		if (!sys)
			return -ENOMEM;
		if (ktrace_name_check(sys) || ktrace_name_check(c + 1)) {
			free(sys);
			return ktrace_err_set(err, EINVAL,
					      "bad event name '%s'", name);
		}
		rel = kt_path("events/%s/%s/id", sys, c + 1);
		free(sys);
		buf = rel ? kt_read_at(st->tfs->dir, rel, NULL) : NULL;
		free(rel);
		if (!buf)
			return ktrace_err_set(err, ENOENT, "no such event '%s'",
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

int ktrace_stat_open(struct ktrace_stat *st, int pid, const int *cpus,
		     int nr_cpus, bool inherit, bool enable_on_exec,
		     struct ktrace_err *err)
{
	st->c = kt_counters_open(st->ev, st->n, pid, cpus, nr_cpus, inherit,
				 enable_on_exec);
	if (!st->c)
		return ktrace_err_set(err, errno,
				      "cannot open the counters: %m%s",
				      errno == EACCES || errno == EPERM ?
				      " (run as root or lower /proc/sys/kernel/perf_event_paranoid)" :
				      "");
	return 0;
}

int ktrace_stat_enable(struct ktrace_stat *st)
{
	return st->c ? kt_counters_enable(st->c) : -EINVAL;
}

int ktrace_stat_disable(struct ktrace_stat *st)
{
	return st->c ? kt_counters_disable(st->c) : -EINVAL;
}

int ktrace_stat_count(const struct ktrace_stat *st)
{
	return st->n;
}

const char *ktrace_stat_name(const struct ktrace_stat *st, int i)
{
	return i >= 0 && i < st->n ? st->names[i] : NULL;
}

int ktrace_stat_read(struct ktrace_stat *st, int i, uint64_t *value,
		     uint64_t *enabled_ns, uint64_t *running_ns)
{
	struct kt_counter_val v;
	int ret;

	if (!st->c)
		return -EINVAL;
	ret = kt_counters_status(st->c, i);
	if (ret)
		return kt_counter_unsupported(ret) ? -EOPNOTSUPP : ret;
	ret = kt_counters_read(st->c, i, &v);
	if (ret)
		return ret;
	*value = v.running && v.running < v.enabled ? (uint64_t)v.scaled :
						       v.raw;
	if (enabled_ns)
		*enabled_ns = v.enabled;
	if (running_ns)
		*running_ns = v.running;
	return 0;
}

const char *const *ktrace_stat_counter_names(void)
{
	return kt_counter_names();
}
