// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Counting mode: perf counters by name (see stat.h), and ktrace stat's
 * sets of them behind ktrace.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "base/internal.h"
#include "tracefs/tfs.h"
#include "capture/stat.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} counters[] = {
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "context-switches", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
};

#define NR_COUNTERS (sizeof(counters) / sizeof(counters[0]))

int kt_counter_lookup(const char *name, uint32_t *type, uint64_t *config)
{
	size_t i;

	for (i = 0; i < NR_COUNTERS; i++) {
		if (!strcmp(name, counters[i].name)) {
			*type = counters[i].type;
			*config = counters[i].config;
			return 0;
		}
	}
	return -ENOENT;
}

/* Names known to kt_counter_lookup(), NULL-terminated, static. */
static const char *const *kt_counter_names(void)
{
	static const char *names[NR_COUNTERS + 1];
	size_t i;

	if (!names[0])
		for (i = 0; i < NR_COUNTERS; i++)
			names[i] = counters[i].name;
	return names;
}

size_t kt_counter_list(char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < NR_COUNTERS && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 counters[i].name);
	return used;
}

struct kt_counters {
	int nr, nr_cpus;
	int *fds;	/* nr * nr_cpus, -1 when unavailable */
	int *status;	/* per event: 0 or -errno */
	bool *user_only;	/* per event: counting user space only */
};

void kt_counters_free(struct kt_counters *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; c->fds && i < c->nr * c->nr_cpus; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	free(c->fds);
	free(c->status);
	free(c->user_only);
	free(c);
}

/*
 * Open counter e (ev) of c on (pid, cpu). Once the kernel was refused to
 * an unprivileged user (perf_event_paranoid 2), the counter is of user
 * space only (c->user_only[e]) on every CPU, as perf's ":u". Returns the
 * fd or -errno.
 */
static int counter_open(struct kt_counters *c, const struct kt_perf_event *ev,
			int e, pid_t pid, int cpu, bool inherit,
			bool enable_on_exec)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = ev->type;
	a.config = ev->config;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.disabled = 1;
	a.inherit = inherit;
	a.enable_on_exec = enable_on_exec;
	a.exclude_kernel = c->user_only[e];
	a.exclude_hv = c->user_only[e];
	fd = kt_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && pid >= 0 &&
	    a.type != PERF_TYPE_TRACEPOINT && !a.exclude_kernel) {
		c->user_only[e] = true;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd = kt_perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

struct kt_counters *kt_counters_open(const struct kt_perf_event *evs, int nr,
				     pid_t pid, const int *cpus, int nr_cpus,
				     bool inherit, bool enable_on_exec)
{
	struct kt_counters *c;
	int *online = NULL, e, ci, err = 0;

	if (!evs || nr <= 0) {
		errno = EINVAL;
		return NULL;
	}
	if (pid >= 0) {
		static const int any = -1;

		cpus = &any;
		nr_cpus = 1;
	} else if (!cpus || nr_cpus <= 0) {
		nr_cpus = kt_online_cpus(&online);
		if (nr_cpus <= 0 || !online) {
			free(online);
			errno = nr_cpus < 0 ? -nr_cpus : ENODEV;
			return NULL;
		}
		cpus = online;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	c->nr = nr;
	c->nr_cpus = nr_cpus;
	c->fds = malloc((size_t)nr * nr_cpus * sizeof(*c->fds));
	if (!c->fds)
		goto nomem;
	/* Before anything can fail: kt_counters_free() closes every fd. */
	for (e = 0; e < nr * nr_cpus; e++)
		c->fds[e] = -1;
	c->status = calloc(nr, sizeof(*c->status));
	c->user_only = calloc(nr, sizeof(*c->user_only));
	if (!c->status || !c->user_only)
		goto nomem;
	for (e = 0; e < nr; e++) {
		for (ci = 0; ci < nr_cpus; ci++) {
			int fd = counter_open(c, &evs[e], e, pid, cpus[ci],
					      inherit, enable_on_exec);

			if (fd < 0) {
				if (kt_perf_unsupported(fd)) {
					c->status[e] = fd;
					break;
				}
				err = -fd;
				goto fail;
			}
			c->fds[e * nr_cpus + ci] = fd;
		}
		/* unsupported here: close what this event opened before */
		if (c->status[e])
			for (int k = 0; k < ci; k++) {
				close(c->fds[e * nr_cpus + k]);
				c->fds[e * nr_cpus + k] = -1;
			}
	}
	free(online);
	return c;
nomem:
	err = ENOMEM;
fail:
	kt_counters_free(c);
	free(online);
	errno = err;
	return NULL;
}

static int counters_ioctl(struct kt_counters *c, unsigned long req)
{
	int i, err = 0;

	for (i = 0; i < c->nr * c->nr_cpus; i++)
		if (c->fds[i] >= 0 && ioctl(c->fds[i], req, 0) < 0 && !err)
			err = -errno;
	return err;
}

int kt_counters_enable(struct kt_counters *c)
{
	return counters_ioctl(c, PERF_EVENT_IOC_ENABLE);
}

int kt_counters_disable(struct kt_counters *c)
{
	return counters_ioctl(c, PERF_EVENT_IOC_DISABLE);
}

/* Does event i count user space only (the kernel refused more to an
 * unprivileged user: perf_event_paranoid 2)? */
static bool kt_counters_user_only(const struct kt_counters *c, int i)
{
	return i >= 0 && i < c->nr && c->user_only[i];
}

int kt_counters_status(const struct kt_counters *c, int i)
{
	if (i < 0 || i >= c->nr)
		return -EINVAL;
	return c->status[i];
}

int kt_counters_read(struct kt_counters *c, int i, struct kt_counter_val *v)
{
	int ci;

	memset(v, 0, sizeof(*v));
	if (i < 0 || i >= c->nr)
		return -EINVAL;
	if (c->status[i])
		return -EOPNOTSUPP;
	for (ci = 0; ci < c->nr_cpus; ci++) {
		uint64_t r[3];
		ssize_t n = read(c->fds[i * c->nr_cpus + ci], r, sizeof(r));

		if (n < 0)
			return -errno;
		if (n != sizeof(r))
			return -EIO;
		v->raw += r[0];
		v->enabled += r[1];
		v->running += r[2];
	}
	if (v->running && v->running < v->enabled)
		v->scaled = (double)v->raw * v->enabled / v->running;
	else
		v->scaled = v->raw;
	return 0;
}

/* ---------------------------------------------------- ktrace_stat (API) */

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

/* Is sys:name an event probe (perf opens it, the kernel never counts it
 * there: its records go to ftrace buffers only)? */
static bool is_eprobe(struct ktrace_tfs *tfs, const char *sys,
		      const char *name)
{
	struct kt_dyn_set ds;
	bool ret = false;

	if (!kt_dyn_load(tfs, &ds))
		for (int i = 0; i < ds.n && !ret; i++)
			ret = ds.v[i].kind == KTRACE_KIND_EPROBE &&
			      !strcmp(ds.v[i].system, sys) &&
			      !strcmp(ds.v[i].name, name);
	kt_dyn_free(&ds);
	return ret;
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
		if (buf && is_eprobe(st->tfs, sys, c + 1)) {
			free(buf);
			free(sys);
			return kt_err_set(err, EOPNOTSUPP,
					  "%s is an event probe, which perf cannot count (the kernel writes its records to ftrace buffers only): count it with ktrace hist -e %s, or record it",
					  name, name);
		}
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

int ktrace_stat_open(struct ktrace_stat *st,
		     const struct ktrace_stat_opts *opts,
		     struct ktrace_err *err)
{
	static const struct ktrace_stat_opts every;
	const struct ktrace_stat_opts *o = opts ? opts : &every;
	int pid = o->pid > 0 ? o->pid : -1;
	bool enable_on_exec = pid > 0 && o->enable_on_exec;
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
		st->c[st->nc] = kt_counters_open(st->ev, st->n, tids[i],
						 o->cpus, o->nr_cpus,
						 pid > 0 && o->inherit,
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
			return kt_perf_unsupported(ret) ? -EOPNOTSUPP : ret;
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
