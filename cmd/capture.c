// SPDX-License-Identifier: GPL-2.0-only
/*
 * What record, stat and top share: their common options, the target (a
 * command, processes or CPUs) from parsing to the workload's exit status,
 * the events of -e with their inline probes and globs, the clock of -d
 * and -I, and the capture loop.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ktrace_cmd.h"

/* "1,2" or, with ranges, "0,2-3" into a new array. 0 or -EINVAL/-ENOMEM. */
static int parse_int_list(const char *s, int **out, int *n, bool ranges)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int *v = NULL, cnt = 0, ret = -EINVAL;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end, *dash = ranges ? strchr(tok, '-') : NULL;
		long a, b;

		a = strtol(tok, &end, 10);
		if (end == tok || (dash ? end != dash : *end) || a < 0 ||
		    a > INT32_MAX)
			goto bad;
		b = a;
		if (dash) {
			b = strtol(dash + 1, &end, 10);
			if (end == dash + 1 || *end || b < a)
				goto bad;
		}
		if (b - a > 4096)
			goto bad;
		for (long i = a; i <= b; i++) {
			int *nv = realloc(v, (cnt + 1) * sizeof(*v));

			if (!nv) {
				ret = -ENOMEM;
				goto bad;
			}
			v = nv;
			v[cnt++] = i;
		}
	}
	free(copy);
	if (!cnt)
		return -EINVAL;
	free(*out);
	*out = v;
	*n = cnt;
	return 0;
bad:
	free(copy);
	free(v);
	return ret;
}

/* -p PIDS, -a or -C CPUS; KT_OK or a usage error (exit 2). */
static int target_opt(struct kt_ctx *ctx, struct kt_target *t, int opt,
		      const char *arg)
{
	switch (opt) {
	case 'p':
		if (parse_int_list(arg, &t->pids, &t->npids, false) ||
		    (t->max_pids && t->npids > t->max_pids))
			return kt_usage_error(ctx, NULL, "bad pid list '%s'%s",
					      arg, t->max_pids == 1 ?
					      " (one pid here)" : "");
		return KT_OK;
	case 'a':
		t->all = true;
		return KT_OK;
	case 'C':
		if (parse_int_list(arg, &t->cpus, &t->ncpus, true))
			return kt_usage_error(ctx, NULL, "bad CPU list '%s'",
					      arg);
		return KT_OK;
	}
	return kt_usage_error(ctx, NULL, "bad target option");
}

int kt_target_check(struct kt_ctx *ctx, struct kt_target *t, int argc,
		    char **argv)
{
	if ((argc > 0) + (t->npids > 0) + t->all > 1)
		return kt_usage_error(ctx, NULL,
				      "give one target: a command, -p PID or -a");
	t->argc = argc;
	t->argv = argv;
	return KT_OK;
}

/* Replace each pid by the tids in /proc/PID/task. -1 + errno (ESRCH;
 * *bad: the pid that is not there). */
static int expand_threads(int **pids, int *npids, int *bad)
{
	int *v = NULL, n = 0;

	for (int i = 0; i < *npids; i++) {
		char path[64];
		struct dirent *d;
		DIR *dir;

		snprintf(path, sizeof(path), "/proc/%d/task", (*pids)[i]);
		dir = opendir(path);
		if (!dir) {
			free(v);
			*bad = (*pids)[i];
			errno = ESRCH;
			return -1;
		}
		while ((d = readdir(dir))) {
			int tid = atoi(d->d_name), *nv;

			if (tid <= 0)
				continue;
			nv = realloc(v, (n + 1) * sizeof(*v));
			if (!nv) {
				closedir(dir);
				free(v);
				return -1;
			}
			v = nv;
			v[n++] = tid;
		}
		closedir(dir);
	}
	free(*pids);
	*pids = v;
	*npids = n;
	return 0;
}

int kt_target_prepare(struct kt_ctx *ctx, struct kt_target *t, bool threads)
{
	if (t->argc) {
		int ret = kt_workload_fork(ctx, &t->wl, t->argv);

		if (ret)
			return ret;
		free(t->pids);
		t->pids = malloc(sizeof(*t->pids));
		if (!t->pids)
			return kt_error(ctx, KT_FAIL, "out of memory");
		t->pids[0] = t->wl.pid;
		t->npids = 1;
		return KT_OK;
	}
	if (t->npids && threads) {
		int bad = -1;

		if (expand_threads(&t->pids, &t->npids, &bad) < 0)
			return bad >= 0 ?
			       kt_error(ctx, KT_FAIL, "no such process: %d", bad) :
			       kt_error(ctx, KT_FAIL, "cannot read the threads: %s",
					strerror(errno));
	} else if (t->npids) {
		for (int i = 0; i < t->npids; i++)
			if (kill(t->pids[i], 0) && errno == ESRCH)
				return kt_error(ctx, KT_FAIL,
						"no such process: %d",
						t->pids[i]);
	}
	return KT_OK;
}

bool kt_target_pids_gone(const struct kt_target *t)
{
	if (t->npids < 2 || t->argc)
		return false;
	for (int i = 0; i < t->npids; i++)
		if (!kill(t->pids[i], 0) || errno == EPERM)
			return false;
	return true;
}

int kt_target_start(struct kt_ctx *ctx, struct kt_target *t)
{
	/* told to stop before the command was released: it never runs
	 * (kt_target_finish() closes its pipe, it exits unexecuted) */
	if (kt_stop_signal)
		return KT_OK;
	if (t->wl.pid > 0 && kt_workload_start(&t->wl) < 0)
		return kt_error(ctx, KT_FAIL, "cannot start '%s'", t->argv[0]);
	return KT_OK;
}

const char *kt_target_describe(const struct kt_target *t, char *buf,
			       size_t len)
{
	if (t->argc) {
		/* the command line, as perf stat names it; cut with "..."
		 * where it does not fit (len: 8 or more) */
		size_t n = 1;

		buf[0] = '\'';
		for (int i = 0; i < t->argc && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%s", i ? " " : "",
				      t->argv[i]);
		if (n + 2 > len)
			snprintf(buf + len - 5, 5, "...'");
		else
			snprintf(buf + n, len - n, "'");
	} else if (t->npids == 1)
		snprintf(buf, len, "process id '%d'", t->pids[0]);
	else if (t->npids)
		snprintf(buf, len, "process ids '%d,...' (%d tasks)",
			 t->pids[0], t->npids);
	else
		snprintf(buf, len, "'system wide'");
	return buf;
}

int kt_target_status(const struct kt_target *t, int ret, int status,
		     bool stopped)
{
	if (ret)
		return ret;
	/* a command stopped by a signal to ktrace: 128 + it, as shells */
	if (t->argc && kt_stop_signal)
		return 128 + kt_stop_signal;
	/* the command's own status, unless -d/-c ended it on purpose */
	if (status >= 0 && !stopped)
		return status;
	return ret;
}

int kt_target_finish(struct kt_target *t, bool stop)
{
	int status = kt_workload_finish(&t->wl, stop);

	free(t->pids);
	free(t->cpus);
	t->pids = t->cpus = NULL;
	t->npids = t->ncpus = 0;
	return status;
}

/* -d SECS: a duration more than 0 (decimal, "s" unless it has a unit),
 * else a usage error. */
static int seconds_parse(struct kt_ctx *ctx, const char *s, double *out)
{
	uint64_t ns;
	int ret = kt_duration_parse(ctx, "duration", s, "s", &ns);

	if (ret)
		return ret;
	if (!ns)
		return kt_usage_error(ctx, NULL,
				      "bad duration '%.100s': more than 0", s);
	*out = ns / 1e9;
	return KT_OK;
}

int kt_duration_parse(struct kt_ctx *ctx, const char *opt, const char *s,
		      const char *unit, uint64_t *ns)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	const char *p = s, *u;
	double v, mul = 0;
	char *end;

	/* decimal digits and one point: no sign, hex, exponent or "inf" */
	while ((*p >= '0' && *p <= '9') || *p == '.')
		p++;
	u = *p ? p : unit;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(u, units[i].name))
			mul = units[i].ns;
	errno = 0;
	v = p > s ? strtod(s, &end) : 0;
	if (p == s || errno || end != p || !mul || v * mul > 1e18)
		return kt_usage_error(ctx, NULL,
				      "bad %s '%.100s': a decimal number with a unit (ns, us, ms, s; %s without one)",
				      opt, s, unit);
	*ns = (uint64_t)(v * mul + 0.5);
	return KT_OK;
}

/*
 * The highest -F the kernel takes: kernel.perf_event_max_sample_rate
 * (100000 by default, and the kernel lowers it when samples take too
 * long); above it perf_event_open fails with a bare EINVAL. The sysctl is
 * an int: INT32_MAX when it cannot be read.
 */
static unsigned long long max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	unsigned long long v = 0;

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v && v <= INT32_MAX ? v : INT32_MAX;
}

/* -F HZ or -c PERIOD of the sampling events: the last one given wins. */
static int sample_opt(struct kt_ctx *ctx, struct kt_capture_opts *co,
		      int opt, const char *arg)
{
	/* the kernel refuses a period with bit 63 set */
	unsigned long long v = 0, max = opt == 'F' ? max_sample_rate() :
						     INT64_MAX;
	char *end = NULL;

	errno = 0;
	/* digits only: strtoull takes " -1" as 2^64 - 1 */
	if (isdigit((unsigned char)*arg))
		v = strtoull(arg, &end, 10);
	if (!v || errno || *end || v > max)
		return opt == 'F' ?
		       kt_usage_error(ctx, NULL,
				      "bad frequency '%s' (samples a second, 1 to %llu: kernel.perf_event_max_sample_rate)",
				      arg, max) :
		       kt_usage_error(ctx, NULL,
				      "bad period '%s' (events per sample, 1 to 2^63-1)",
				      arg);
	co->sample_freq = opt == 'F' ? v : 0;
	co->sample_period = opt == 'F' ? 0 : v;
	return KT_OK;
}

int kt_ring_pages_parse(const char *s, size_t *pages)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long v, mult = 0;
	char *end;
	size_t n = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	switch (toupper((unsigned char)*end)) {
	case 0:
		break;
	case 'K':
		mult = 1ull << 10;
		break;
	case 'M':
		mult = 1ull << 20;
		break;
	case 'G':
		mult = 1ull << 30;
		break;
	default:
		return -EINVAL;
	}
	if (mult) {
		end++;
		if (toupper((unsigned char)*end) == 'I')
			end++;
		if (toupper((unsigned char)*end) == 'B')
			end++;
		if (*end)
			return -EINVAL;
		if (v > (1ull << 30))
			return -ERANGE;
		v = (v * mult + page - 1) / page;
	}
	if (!v)
		return -EINVAL;
	if (v > (1ull << 30) / page)
		return -ERANGE;
	/* a page count is taken as given: a power of two; a size (with
	 * its unit) is rounded up to one */
	if (!mult && (v & (v - 1)))
		return -EINVAL;
	while (n < v)
		n <<= 1;
	*pages = n;
	return 0;
}

/* One -e: an inline probe, else a name or glob that kt_events_expand()
 * takes (a perf event's name passes the glob check too). */
static int spec_check(struct kt_ctx *ctx, const char *spec)
{
	if (kt_inline_is(spec) || !kt_glob_check(spec))
		return KT_OK;
	return kt_usage_error(ctx, NULL,
			      "bad event '%s': expected SYSTEM:EVENT (globs allowed), a perf event (cpu-clock...) or kprobe:/kretprobe:/uprobe:/uretprobe:SPEC",
			      spec);
}

/* spec (len bytes of it) as the next -e, once checked. KT_OK, a usage
 * error or KT_FAIL (no memory). */
static int spec_add(struct kt_ctx *ctx, struct kt_capture_opts *co,
		    const char *spec, size_t len)
{
	char *copy = strndup(spec, len), **ns;
	const char **nf;
	int ret;

	if (!copy)
		return kt_error(ctx, KT_FAIL, "out of memory");
	ret = spec_check(ctx, copy);
	if (ret)
		goto out;
	ns = realloc(co->specs, (co->nspecs + 1) * sizeof(*ns));
	if (!ns)
		goto nomem;
	co->specs = ns;
	nf = realloc(co->filters, (co->nspecs + 1) * sizeof(*nf));
	if (!nf)
		goto nomem;
	co->filters = nf;
	co->specs[co->nspecs] = copy;
	co->filters[co->nspecs++] = NULL;
	return KT_OK;
nomem:
	ret = kt_error(ctx, KT_FAIL, "out of memory");
out:
	free(copy);
	return ret;
}

/* -e: one event, or (co->lists) a comma list of them; an inline probe is
 * whole, commas and all. */
static int event_opt(struct kt_ctx *ctx, struct kt_capture_opts *co,
		     const char *arg)
{
	size_t len;
	int ret;

	if (!co->lists || kt_inline_is(arg))
		return spec_add(ctx, co, arg, strlen(arg));
	/* every name of a list is there: '' or 'a,,b' is a typo, not "the
	 * default counters" */
	if (!*arg || *arg == ',' || strstr(arg, ",,") ||
	    arg[strlen(arg) - 1] == ',')
		return kt_usage_error(ctx, NULL,
				      "bad event list '%s': an empty event name",
				      arg);
	for (;; arg += len + 1) {
		len = strcspn(arg, ",");
		ret = spec_add(ctx, co, arg, len);
		if (ret || !arg[len])
			return ret;
	}
}

/* --filter EXPR: for the -e before it. */
static int filter_opt(struct kt_ctx *ctx, struct kt_capture_opts *co,
		      const char *arg)
{
	if (!co->nspecs)
		return kt_usage_error(ctx, NULL,
				      "--filter must follow the -e it applies to");
	if (co->filters[co->nspecs - 1])
		return kt_usage_error(ctx, NULL, "two --filter for -e '%s'",
				      co->specs[co->nspecs - 1]);
	co->filters[co->nspecs - 1] = arg;
	return KT_OK;
}

int kt_capture_opt(struct kt_ctx *ctx, struct kt_capture_opts *co, int opt,
		   const char *arg)
{
	switch (opt) {
	case 'e':
		return event_opt(ctx, co, arg);
	case 'f':
		return filter_opt(ctx, co, arg);
	case 'p':
	case 'a':
	case 'C':
		return target_opt(ctx, &co->tg, opt, arg);
	case 'd':
		return seconds_parse(ctx, arg, &co->duration);
	case 'F':
	case 'c':
		return sample_opt(ctx, co, opt, arg);
	}
	return -1;
}

void kt_capture_opts_free(struct kt_capture_opts *co)
{
	for (int i = 0; i < co->nspecs; i++)
		free(co->specs[i]);
	free(co->specs);
	free(co->filters);
	co->specs = NULL;
	co->filters = NULL;
	co->nspecs = 0;
}

double kt_elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

enum kt_loop_end kt_loop_run(struct kt_target *t, const struct timespec *t0,
			     double duration,
			     int (*round)(void *arg, bool *gone), void *arg)
{
	while (!kt_stop_signal) {
		bool gone = false;
		int r = round(arg, &gone);

		if (r)
			return r > 0 ? KT_LOOP_COMMAND : KT_LOOP_FAILED;
		if (kt_workload_exited(&t->wl))
			return KT_LOOP_EXITED;
		/* a command's end is its exit, seen above */
		if (gone && !t->argc && t->npids)
			return KT_LOOP_GONE;
		if (duration > 0 && kt_elapsed(t0) >= duration)
			return KT_LOOP_DURATION;
	}
	return KT_LOOP_SIGNAL;
}

/* Every event glob names, in order, through add(arg, i, "system:event"). */
static int glob_events(struct kt_ctx *ctx, const char *glob, int i,
		       int (*add)(void *arg, int i, const char *event),
		       void *arg)
{
	struct ktrace_events *evs;
	unsigned int hit = 0;
	int ret = KT_OK;

	evs = ktrace_events_alloc(ctx->tfs, &glob, 1, &hit);
	if (!evs)
		return kt_error(ctx, KT_FAIL, "cannot list events in %s: %s%s",
				ktrace_tfs_dir(ctx->tfs), strerror(errno),
				kt_priv_hint(errno));
	if (!hit)
		ret = kt_error(ctx, KT_FAIL, "no event matches '%s'", glob);
	for (int j = 0; !ret && j < ktrace_events_count(evs); j++) {
		const struct ktrace_event *e = ktrace_events_get(evs, j);
		char name[160];

		snprintf(name, sizeof(name), "%s:%s", e->system, e->name);
		ret = add(arg, i, name);
	}
	ktrace_events_free(evs);
	return ret;
}

int kt_events_expand(struct kt_ctx *ctx, struct kt_inline *inl,
		     char *const *specs, int n,
		     int (*add)(void *arg, int i, const char *event),
		     void *arg)
{
	int ret = kt_inline_create(ctx, inl, specs, n);

	for (int i = 0; !ret && i < n; i++) {
		char name[160];

		if (kt_inline_event(inl, i, name, sizeof(name)))
			ret = add(arg, i, name);
		else if (!strchr(specs[i], ':'))
			ret = add(arg, i, specs[i]);	/* a counter */
		else
			ret = glob_events(ctx, specs[i], i, add, arg);
	}
	return ret;
}

int kt_output_open(struct kt_ctx *ctx, const struct kt_target *tg,
		   const char *path, char *cmdline, size_t len)
{
	size_t cap = len > 124 ? len - 124 : 0;	/* room for one cut word */
	int fd;

	cmdline[0] = '\0';
	for (int i = 0; i < tg->argc && strlen(cmdline) < cap; i++) {
		strcat(cmdline, i ? " " : "");
		strncat(cmdline, tg->argv[i], cap - strlen(cmdline));
	}
	fd = strcmp(path, "-") ?
	     open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) :
	     dup(STDOUT_FILENO);
	if (fd < 0)
		kt_error(ctx, KT_FAIL, "cannot create '%s': %s", path,
			 strerror(errno));
	return fd;
}
