// SPDX-License-Identifier: LGPL-2.1-only
/*
 * perf_event_open sessions: sampling rings. See perf.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "base/internal.h"
#include "capture/perf.h"

struct pfd {
	int fd;
	int event;
	int cpu;
	pid_t pid;
};

struct pid_map {
	uint64_t id;
	int event;
	int cpu;
};

struct kt_perf {
	struct pfd *fds;
	int nr_fds;
	int nr_rings, max_rings;	/* max_rings: one per CPU opened on */
	struct kt_ring *rings;
	void **maps;
	int *ring_cpu;
	struct pollfd *pfds;	/* one per ring: the owner fd */
	size_t page, pages, map_len;
	uint64_t sample_type;
	struct pid_map *ids;	/* sorted by id */
	int nr_ids;
	bool no_lost_format;	/* kernel older than 6.0 */
	bool user_only;		/* some event samples user space only */
};

int kt_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		       int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

int kt_online_cpus(int **cpus)
{
	char *txt, *p;
	int *v = NULL, n = 0, cap = 0;

	*cpus = NULL;
	txt = kt_read_file("/sys/devices/system/cpu/online", NULL);
	if (!txt)
		return -errno;
	p = txt;
	while (*p && *p != '\n') {
		char *end;
		long a, b;

		a = strtol(p, &end, 10);
		if (end == p || a < 0)
			goto bad;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				goto bad;
			p = end;
		}
		for (; a <= b; a++) {
			if (n == cap) {
				int *nv;

				cap = cap ? cap * 2 : 16;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					free(txt);
					return -ENOMEM;
				}
				v = nv;
			}
			v[n++] = a;
		}
		if (*p == ',')
			p++;
	}
	free(txt);
	if (!n) {
		free(v);
		return -EINVAL;
	}
	*cpus = v;
	return n;
bad:
	free(v);
	free(txt);
	return -EINVAL;
}

size_t kt_perf_default_pages(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = KT_PERF_DEFAULT_RING_BYTES / (page > 0 ? page : 4096);
	char *txt;

	if (page <= 0)
		page = 4096;
	/*
	 * Without the privilege to lock more (root, CAP_IPC_LOCK), what an
	 * unprivileged user may lock per CPU (perf_event_mlock_kb): the
	 * largest power of two pages that fits, as perf record does.
	 */
	if (geteuid() != 0 &&
	    (txt = kt_read_file("/proc/sys/kernel/perf_event_mlock_kb", NULL))) {
		long kb = atol(txt);
		size_t fit = 1;

		free(txt);
		while (kb > 0 && (fit * 2 + 1) * (size_t)page <= (size_t)kb * 1024)
			fit *= 2;
		if (kb > 0 && fit < pages)
			pages = fit;
	}
	return pages;
}

/* Say where kt_perf_open() failed (f may be NULL). Returns -err. */
static int fail_set(struct kt_perf_fail *f, int err, enum kt_perf_stage st,
		    int event, int cpu, pid_t pid)
{
	if (f) {
		f->err = err;
		f->stage = st;
		f->event = event;
		f->cpu = cpu;
		f->pid = pid;
	}
	return -err;
}

/* The rings were refused: also say how many of what size. Returns -err. */
static int fail_ring(struct kt_perf_fail *f, const struct kt_perf *p, int err,
		     int event, int cpu, pid_t pid)
{
	fail_set(f, err, KT_PERF_STAGE_MMAP, event, cpu, pid);
	if (f) {
		f->ring_bytes = p->map_len;
		f->nr_rings = p->max_rings;
	}
	return -err;
}

static int id_cmp(const void *a, const void *b)
{
	const struct pid_map *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

void kt_perf_free(struct kt_perf *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nr_rings; i++) {
		kt_ring_fini(&p->rings[i]);
		if (p->maps[i])
			munmap(p->maps[i], p->map_len);
	}
	for (i = 0; i < p->nr_fds; i++)
		close(p->fds[i].fd);
	free(p->fds);
	free(p->rings);
	free(p->maps);
	free(p->ring_cpu);
	free(p->pfds);
	free(p->ids);
	free(p);
}

static int ring_map(struct kt_perf *p, int fd, int cpu)
{
	int r = p->nr_rings;
	void *m;
	int err;

	m = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	p->maps[r] = m;
	p->nr_rings++;
	err = kt_ring_init(&p->rings[r], m, p->page, p->pages * p->page);
	if (err)
		return err;
	p->ring_cpu[r] = cpu;
	p->pfds[r].fd = fd;
	p->pfds[r].events = POLLIN;
	return 0;
}

static bool ring_memory_too_large(size_t map_len, int nr_rings)
{
	uint64_t avail = kt_mem_available();

	return avail && (uint64_t)map_len * nr_rings > avail / 2;
}

/*
 * The default ring when samples carry a copy of the user stack (~8 KiB
 * each): the default one holds ~1000 of them, 3 ms of a thread making
 * 300,000 a second, less than a reader sharing a CPU with it may wait to
 * run. Four times it (32 MiB per CPU, ~30 ms) lost nothing over 10^6
 * samples on a quiet machine (bench/stacks.sh) where 8 and 16 MiB lost up
 * to 1 %, but lost up to 1 % again (-o and live) while other work shared
 * the two CPUs; eight times it (64 MiB) is the default. At most 256 MiB
 * over all rings, and an eighth of the memory available.
 */
static size_t stack_ring_pages(size_t pages, size_t page, int nr_rings)
{
	uint64_t all = 256ull << 20, avail = kt_mem_available();

	if (avail && avail / 8 < all)
		all = avail / 8;
	for (int i = 0; i < 3; i++)
		if ((uint64_t)pages * 2 * page * (nr_rings > 0 ? nr_rings : 1) <=
		    all)
			pages *= 2;
	return pages;
}

/*
 * The attr of ev as it is opened on every (cpu, pid); the first event
 * (first) also asks for the COMM, MMAP2 and TASK records.
 */
static void event_attr(const struct kt_perf *p, const struct kt_perf_event *ev,
		       bool first, const struct kt_perf_opts *opts,
		       struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->sample_period = ev->period ? ev->period : 1;
	a->freq = ev->freq;
	a->sample_type = p->sample_type;
	if (p->sample_type & PERF_SAMPLE_STACK_USER) {
		a->sample_regs_user = opts->regs_user;
		a->sample_stack_user = opts->stack_user;
		a->exclude_callchain_user = 1;
	}
	a->disabled = 1;
	a->inherit = opts->inherit;
	a->enable_on_exec = opts->enable_on_exec;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = opts->wakeup_bytes ? opts->wakeup_bytes :
			      p->pages * p->page / 4;
	if (first) {
		a->comm = 1;
		a->comm_exec = 1;
		a->mmap = 1;
		a->mmap2 = 1;
		a->task = 1;
		a->context_switch = opts->context_switch;
	}
	/*
	 * PERF_FORMAT_LOST (Linux 6.0): the kernel's own count of dropped
	 * samples, read at the end, so that a loss after the last LOST
	 * record is reported too.
	 */
	a->read_format = p->no_lost_format ? 0 : PERF_FORMAT_LOST;
}

/*
 * perf_event_open(a) on (pid, cpu) with its retries: without
 * PERF_FORMAT_LOST on a kernel older than 6.0 (remembered in p), and user
 * space only when the kernel is refused to an unprivileged user. Returns
 * the fd or -errno.
 */
static int event_open(struct kt_perf *p, struct perf_event_attr *a,
		      pid_t pid, int cpu)
{
	int fd = kt_perf_event_open(a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0 && errno == EINVAL && !p->no_lost_format) {
		p->no_lost_format = true;
		a->read_format = 0;
		fd = kt_perf_event_open(a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	/*
	 * Refused to an unprivileged user (paranoid 2: no kernel samples):
	 * a task's own user space may still be sampled, as perf does (":u").
	 */
	if (fd < 0 && (errno == EACCES || errno == EPERM) && pid >= 0 &&
	    a->type != PERF_TYPE_TRACEPOINT) {
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
		a->exclude_callchain_kernel = 1;
		fd = kt_perf_event_open(a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			p->user_only = true;
	}
	return fd < 0 ? -errno : fd;
}

/*
 * Send the records of at->fd to the ring of its CPU: the CPU's first fd
 * maps the ring and becomes *owner, every other one is redirected into it.
 */
static int ring_attach(struct kt_perf *p, const struct pfd *at, int *owner,
		       struct kt_perf_fail *fail)
{
	int err;

	if (*owner >= 0) {
		if (ioctl(at->fd, PERF_EVENT_IOC_SET_OUTPUT, *owner) < 0)
			return fail_set(fail, errno, KT_PERF_STAGE_OUTPUT,
					at->event, at->cpu, at->pid);
		return 0;
	}
	err = ring_map(p, at->fd, at->cpu);
	if (err)
		return fail_ring(fail, p, -err, at->event, at->cpu, at->pid);
	*owner = at->fd;
	return 0;
}

/*
 * Open event at->event (ev) on (at->cpu, at->pid): the fd, its filter, its
 * id for the file's table, its CPU's ring. Returns 0, 1 when at->pid is a
 * thread that exited meanwhile (only when may_vanish), or -errno with fail
 * set.
 */
static int open_one(struct kt_perf *p, const struct kt_perf_event *ev,
		    const struct kt_perf_opts *opts, struct pfd at,
		    bool may_vanish, int *owner, struct kt_perf_fail *fail)
{
	struct perf_event_attr a;
	uint64_t id;
	int fd;

	event_attr(p, ev, at.event == 0, opts, &a);
	fd = event_open(p, &a, at.pid, at.cpu);
	if (fd == -ESRCH && may_vanish)
		return 1;
	if (fd < 0)
		return fail_set(fail, -fd, KT_PERF_STAGE_OPEN, at.event, at.cpu,
				at.pid);
	at.fd = fd;
	p->fds[p->nr_fds++] = at;
	if (ev->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, ev->filter) < 0)
		return fail_set(fail, errno, KT_PERF_STAGE_FILTER, at.event,
				at.cpu, at.pid);
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return fail_set(fail, errno, KT_PERF_STAGE_OUTPUT, at.event,
				at.cpu, at.pid);
	p->ids[p->nr_ids].id = id;
	p->ids[p->nr_ids].event = at.event;
	p->ids[p->nr_ids].cpu = at.cpu;
	p->nr_ids++;
	return ring_attach(p, &at, owner, fail);
}

/* Every event for every pid on cpu, all into that CPU's one ring. */
static int open_cpu(struct kt_perf *p, const struct kt_perf_event *evs,
		    int nr_evs, const struct kt_perf_opts *opts, int cpu,
		    const pid_t *pids, int nr_pids, struct kt_perf_fail *fail)
{
	int owner = -1;

	for (int pi = 0; pi < nr_pids; pi++) {
		for (int e = 0; e < nr_evs; e++) {
			struct pfd at = {
				.fd = -1, .event = e, .cpu = cpu, .pid = pids[pi],
			};
			int ret = open_one(p, &evs[e], opts, at, nr_pids > 1,
					   &owner, fail);

			if (ret < 0)
				return ret;
			if (ret)	/* a thread of -p exited meanwhile */
				break;
		}
	}
	return 0;
}

/*
 * Size the rings (p->pages, p->map_len) for nr_cpus of them and allocate
 * the arrays for nfds fds. Returns 0 or -errno (with fail set when the
 * rings are refused).
 */
static int session_alloc(struct kt_perf *p, const struct kt_perf_opts *opts,
			 int nr_cpus, size_t nfds, struct kt_perf_fail *fail)
{
	if (!opts->ring_pages && opts->stack_user && geteuid() == 0)
		p->pages = stack_ring_pages(p->pages, p->page, nr_cpus);
	p->map_len = (p->pages + 1) * p->page;
	p->max_rings = nr_cpus;
	/*
	 * The rings are locked kernel memory: more than half of what is
	 * available would bring the OOM killer (and leave inline probes
	 * behind), so refuse it before anything is opened.
	 */
	if (ring_memory_too_large(p->map_len, nr_cpus))
		return fail_ring(fail, p, E2BIG, -1, -1, -1);
	p->fds = calloc(nfds, sizeof(*p->fds));
	p->ids = calloc(nfds, sizeof(*p->ids));
	p->rings = calloc(nr_cpus, sizeof(*p->rings));
	p->maps = calloc(nr_cpus, sizeof(*p->maps));
	p->ring_cpu = calloc(nr_cpus, sizeof(*p->ring_cpu));
	p->pfds = calloc(nr_cpus, sizeof(*p->pfds));
	if (!p->fds || !p->ids || !p->rings || !p->maps || !p->ring_cpu ||
	    !p->pfds)
		return -ENOMEM;
	return 0;
}

struct kt_perf *kt_perf_open(const struct kt_perf_event *evs, int nr_evs,
			     const struct kt_perf_opts *opts,
			     struct kt_perf_fail *fail)
{
	static const pid_t all = -1;
	const pid_t *pids = &all;
	const int *cpus;
	int *online = NULL, nr_cpus, nr_pids = 1, err = 0;
	struct kt_perf *p;

	if (fail) {
		memset(fail, 0, sizeof(*fail));
		fail->event = fail->cpu = fail->pid = -1;
	}
	if (!evs || nr_evs <= 0 || !opts) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->page = sysconf(_SC_PAGESIZE);
	p->pages = opts->ring_pages ? opts->ring_pages : kt_perf_default_pages();
	if (p->pages & (p->pages - 1)) {
		free(p);
		errno = EINVAL;
		return NULL;
	}
	cpus = opts->cpus;
	nr_cpus = opts->nr_cpus;
	if (!cpus || nr_cpus <= 0) {
		nr_cpus = kt_online_cpus(&online);
		if (nr_cpus < 0 || !online) {
			err = fail_set(fail, nr_cpus < 0 ? -nr_cpus : ENODEV,
				       KT_PERF_STAGE_CPUS, -1, -1, -1);
			goto out;
		}
		cpus = online;
	}
	if (opts->pids && opts->nr_pids > 0) {
		pids = opts->pids;
		nr_pids = opts->nr_pids;
	}
	err = session_alloc(p, opts, nr_cpus,
			    (size_t)nr_cpus * nr_pids * nr_evs, fail);
	p->sample_type = KT_PERF_SAMPLE_TYPE | opts->extra_sample_type;
	if (opts->callchain)
		p->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (opts->callchain && opts->stack_user)
		p->sample_type |= PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
	for (int ci = 0; !err && ci < nr_cpus; ci++)
		err = open_cpu(p, evs, nr_evs, opts, cpus[ci], pids, nr_pids,
			       fail);
	if (!err && !p->nr_fds)	/* every task was gone */
		err = fail_set(fail, ESRCH, KT_PERF_STAGE_OPEN, 0, -1, pids[0]);
	if (!err)
		qsort(p->ids, p->nr_ids, sizeof(*p->ids), id_cmp);
out:
	free(online);
	if (err) {
		kt_perf_free(p);
		errno = -err;
		return NULL;
	}
	return p;
}

int kt_perf_lost(struct kt_perf *p, uint64_t *lost, int nr_cpus)
{
	if (p->no_lost_format)
		return -EOPNOTSUPP;
	memset(lost, 0, nr_cpus * sizeof(*lost));
	for (int i = 0; i < p->nr_fds; i++) {
		uint64_t v[2];

		if (read(p->fds[i].fd, v, sizeof(v)) != sizeof(v))
			continue;
		if (p->fds[i].cpu >= 0 && p->fds[i].cpu < nr_cpus)
			lost[p->fds[i].cpu] += v[1];
	}
	return 0;
}

static int ioctl_all(struct kt_perf *p, unsigned long req)
{
	int i, err = 0;

	for (i = 0; i < p->nr_fds; i++)
		if (ioctl(p->fds[i].fd, req, 0) < 0 && !err)
			err = -errno;
	return err;
}

int kt_perf_enable(struct kt_perf *p)
{
	return ioctl_all(p, PERF_EVENT_IOC_ENABLE);
}

int kt_perf_disable(struct kt_perf *p)
{
	return ioctl_all(p, PERF_EVENT_IOC_DISABLE);
}

uint64_t kt_perf_sample_type(const struct kt_perf *p)
{
	return p->sample_type;
}

int kt_perf_nr_rings(const struct kt_perf *p)
{
	return p->nr_rings;
}

struct kt_ring *kt_perf_ring(struct kt_perf *p, int i)
{
	return (i >= 0 && i < p->nr_rings) ? &p->rings[i] : NULL;
}

int kt_perf_ring_cpu(const struct kt_perf *p, int i)
{
	return (i >= 0 && i < p->nr_rings) ? p->ring_cpu[i] : -1;
}

int kt_perf_nr_ids(const struct kt_perf *p)
{
	return p->nr_ids;
}

void kt_perf_id_get(const struct kt_perf *p, int i, uint64_t *id, int *event,
		    int *cpu)
{
	*id = p->ids[i].id;
	*event = p->ids[i].event;
	*cpu = p->ids[i].cpu;
}

int kt_perf_poll(struct kt_perf *p, int timeout_ms, bool *all_hup)
{
	int i, n, hup = 0;

	if (all_hup)
		*all_hup = false;
	n = poll(p->pfds, p->nr_rings, timeout_ms);
	if (n < 0)
		return -errno;
	for (i = 0; i < p->nr_rings; i++)
		if (p->pfds[i].revents & (POLLHUP | POLLERR))
			hup++;
	if (all_hup && p->nr_rings && hup == p->nr_rings)
		*all_hup = true;
	return n;
}

bool kt_perf_user_only(const struct kt_perf *p)
{
	return p && p->user_only;
}

bool kt_perf_unsupported(int err)
{
	if (err < 0)
		err = -err;
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV ||
	       err == ENOSYS;
}

/* A number from a /proc file, or -1. */
static long long proc_num(const char *path)
{
	char *t = kt_read_file(path, NULL);
	long long v;

	if (!t)
		return -1;
	v = strtoll(t, NULL, 10);
	free(t);
	return v;
}

int kt_perf_advice(const struct kt_perf_fail *f, char *buf, size_t len)
{
	long long paranoid = proc_num("/proc/sys/kernel/perf_event_paranoid");
	long long mlock_kb = proc_num("/proc/sys/kernel/perf_event_mlock_kb");
	struct rlimit rl = { 0, 0 };
	char rls[32];

	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		snprintf(rls, sizeof(rls), "unlimited");
	else
		snprintf(rls, sizeof(rls), "%llu KiB",
			 (unsigned long long)rl.rlim_cur / 1024);

	if (f->stage == KT_PERF_STAGE_MMAP && f->err == EPERM)
		return snprintf(buf, len,
				"mapping %d ring(s) of %zu KiB went over the locked-memory limit: perf_event_mlock_kb is %lld KiB per CPU, RLIMIT_MEMLOCK is %s.\nUse a smaller -m, raise /proc/sys/kernel/perf_event_mlock_kb or 'ulimit -l', or run with CAP_IPC_LOCK.",
				f->nr_rings, f->ring_bytes / 1024, mlock_kb,
				rls);
	if (f->stage == KT_PERF_STAGE_MMAP && f->err == E2BIG)
		return snprintf(buf, len,
				"%d ring(s) of %zu KiB would lock %llu MiB, more than half of the memory available (%llu MiB).\nUse a smaller -m.",
				f->nr_rings, f->ring_bytes / 1024,
				(unsigned long long)f->ring_bytes * f->nr_rings >> 20,
				(unsigned long long)(kt_mem_available() >> 20));
	if (f->stage == KT_PERF_STAGE_MMAP && f->err == ENOMEM)
		return snprintf(buf, len,
				"the kernel could not allocate %d ring(s) of %zu KiB.\nUse a smaller -m.",
				f->nr_rings, f->ring_bytes / 1024);
	if (f->err == EACCES || f->err == EPERM)
		return snprintf(buf, len,
				"perf_event_open was refused: perf_event_paranoid is %lld.\nRun as root or with CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid.",
				paranoid);
	if (f->err == EMFILE || f->err == ENFILE)
		return snprintf(buf, len,
				"out of file descriptors (one per event and CPU).\nRaise 'ulimit -n' or trace fewer events or CPUs.");
	if (f->stage == KT_PERF_STAGE_FILTER && f->err == EINVAL)
		return snprintf(buf, len,
				"the kernel rejected the filter of event #%d.",
				f->event);
	if (f->stage == KT_PERF_STAGE_OPEN && f->err == ESRCH)
		return snprintf(buf, len, "no such process: %d.", (int)f->pid);
	if (kt_perf_unsupported(f->err))
		return snprintf(buf, len,
				"this event is not supported on this machine.");
	return snprintf(buf, len, "%s.", strerror(f->err));
}
