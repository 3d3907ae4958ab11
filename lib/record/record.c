// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Recording: events opened through perf_event_open (lib/capture/perf.c), per-CPU
 * rings merged in time order (lib/capture/merge.c), records decoded with
 * libtraceevent and formatted as perf-script-like lines or typed JSON.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "base/internal.h"
#include "tracefs/tfs.h"
#include "kfile/kfile.h"
#include "capture/merge.h"
#include "capture/perf.h"
#include "capture/ring.h"
#include "capture/stat.h"
#include "arch/arch.h"
#include "record/record.h"
#include "sym/unwind.h"

/* How far behind "now" the merge may emit: records still being written
 * to a ring by another CPU are younger than this. */
#define MERGE_SLACK_NS (20ull * 1000 * 1000)

static int id_cmp(const void *a, const void *b)
{
	const struct rec_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int kt_record_ids_set(struct ktrace_record *r, const uint64_t *ids,
		      const int *events, int n)
{
	struct rec_id *v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		v[i].id = ids[i];
		v[i].event = events[i];
	}
	qsort(v, n, sizeof(*v), id_cmp);
	free(r->ids);
	r->ids = v;
	r->nr_ids = n;
	return 0;
}

static int id_event(const struct ktrace_record *r, uint64_t id)
{
	int lo = 0, hi = r->nr_ids - 1;

	/* Most recordings have one event: no search at all. */
	if (r->nr_ids == 1)
		return r->ids[0].id == id ? r->ids[0].event : -1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (r->ids[mid].id == id)
			return r->ids[mid].event;
		if (r->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

struct ktrace_record *ktrace_record_alloc(struct ktrace_tfs *tfs)
{
	struct ktrace_record *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->tfs = tfs;
	r->tep = tep_alloc();
	if (!r->tep) {
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	tep_set_long_size(r->tep, sizeof(long));
	tep_set_page_size(r->tep, getpagesize());
	tep_set_function_resolver(r->tep, kt_record_tep_ksym, r);
	trace_seq_init(&r->seq);
	trace_seq_init(&r->symseq);
	r->src = &kt_record_live_source;
	return r;
}

void ktrace_record_free(struct ktrace_record *r)
{
	if (!r)
		return;
	kt_merge_free(r->merge);
	free(r->pull_avail);
	free(r->map_scan);
	kt_perf_free(r->perf);
	for (int i = 0; i < r->nev; i++) {
		free(r->ev[i].system);
		free(r->ev[i].name);
		free(r->ev[i].filter);
		free(r->ev[i].format);
		free(r->ev[i].fullname);
	}
	free(r->ev);
	free(r->ids);
	free(r->comm);
	kt_record_free_file(r);
	free(r->lost_cpu);
	free(r->per_event);
	free(r->out);
	free(r->ips);
	kt_unwind_free(r->unwind);
	free(r->uw_rec);
	kt_symtab_free(&r->ksyms);
	kt_record_free_stacks(r);
	kt_record_free_interned(r);
	trace_seq_destroy(&r->seq);
	trace_seq_destroy(&r->symseq);
	tep_free(r->tep);
	free(r);
}

/* A new zeroed event slot at r->ev[r->nev] (not yet counted), or NULL. */
static struct rec_event *ev_slot(struct ktrace_record *r)
{
	struct rec_event *nv = realloc(r->ev, (r->nev + 1) * sizeof(*nv));

	if (!nv)
		return NULL;
	r->ev = nv;
	memset(&nv[r->nev], 0, sizeof(*nv));
	return &nv[r->nev];
}

/* A print fmt with %ps, %pS, %pf, %pF or %pB: kernel addresses shown as
 * symbols ("%%" is a literal percent). */
static bool prints_symbols(const char *fmt)
{
	for (const char *p = fmt; (p = strchr(p, '%')); p++) {
		if (p[1] == '%') {
			p++;
			continue;
		}
		if (p[1] == 'p' && p[2] && strchr("sSfFB", p[2]))
			return true;
	}
	return false;
}

int kt_record_add_format(struct ktrace_record *r, const char *system,
			 const char *name, int id, const char *format,
			 size_t len, bool untrusted, const char **why)
{
	struct tep_event *te = NULL;
	struct kt_fmt_info fi;
	struct rec_event *e;
	const char *parsed = format, *pf;
	char *safe = NULL;
	size_t plen = len;
	int ret;

	*why = NULL;
	if (kt_format_check(format, len, &fi, why) && untrusted) {
		if (!fi.header_ok)
			return -EBADMSG;
		/* the fields decode (JSON, filters); the text says why the
		 * print fmt is not used */
		pf = memmem(format, len, "\nprint fmt:", 11);
		if (!pf || asprintf(&safe,
				    "%.*s\nprint fmt: \"[print fmt not decoded: %s]\"\n",
				    (int)(pf - format), format, *why) < 0)
			return -ENOMEM;
		parsed = safe;
		plen = strlen(safe);
		fi.ndiv = 0;
	}
	ret = tep_parse_format(r->tep, &te, parsed, plen, system);
	free(safe);
	if (ret != TEP_ERRNO__SUCCESS || !te)
		return -EINVAL;
	e = ev_slot(r);
	if (!e)
		return -ENOMEM;
	e->raw_min = kt_raw_need(te, &e->raw_dyn);
	e->ndiv = 0;
	for (int i = 0; i < fi.ndiv; i++) {
		struct tep_format_field *f = tep_find_field(te, fi.div[i]);

		if (f)
			e->div[e->ndiv++] = f;
	}
	e->system = strdup(system);
	e->name = strdup(name);
	e->format = strndup(format, len);
	if (asprintf(&e->fullname, "%s:%s", system, name) < 0)
		e->fullname = NULL;
	e->id = id;
	e->te = te;
	e->type = PERF_TYPE_TRACEPOINT;
	e->config = id;
	if (!e->system || !e->name || !e->format || !e->fullname) {
		free(e->system);
		free(e->name);
		free(e->format);
		free(e->fullname);
		return -ENOMEM;
	}
	e->label_len = snprintf(e->label, sizeof(e->label), "%s:%s: ", system,
				name);
	if (e->label_len >= sizeof(e->label))
		e->label_len = sizeof(e->label) - 1;
	e->has_info = te->print_fmt.format && te->print_fmt.format[0];
	e->sym_fields = e->has_info && prints_symbols(te->print_fmt.format);
	return r->nev++;
}

/* perf record's default sampling frequency (Hz). */
#define KT_DEFAULT_FREQ 4000

int kt_record_add_counter(struct ktrace_record *r, const char *name,
			  uint32_t type, uint64_t config)
{
	struct rec_event *e = ev_slot(r);

	if (!e)
		return -ENOMEM;
	e->type = type;
	e->config = config;
	e->id = -1;
	e->name = strdup(name);
	e->fullname = strdup(name);
	if (!e->name || !e->fullname) {
		free(e->name);
		free(e->fullname);
		return -ENOMEM;
	}
	e->label_len = snprintf(e->label, sizeof(e->label), "%s: ", name);
	if (e->label_len >= sizeof(e->label))
		e->label_len = sizeof(e->label) - 1;
	return r->nev++;
}

int ktrace_record_add_event(struct ktrace_record *r, const char *event,
			    const char *filter, struct ktrace_err *err)
{
	const char *c = strchr(event, ':'), *why;
	char *sys, *name, *buf;
	struct tep_event *te;
	uint64_t config;
	uint32_t type;
	size_t len;
	int ret, id;

	if (!c && !kt_counter_lookup(event, &type, &config)) {
		if (filter)
			return kt_err_set(err, EINVAL,
					  "'%s' is a sampling event: it takes no --filter",
					  event);
		ret = kt_record_add_counter(r, event, type, config);
		return ret < 0 ? kt_err_set(err, -ret, "out of memory") :
				 ret;
	}
	if (!c) {
		char list[512];

		kt_counter_list(list, sizeof(list));
		return kt_err_set(err, EINVAL,
				  "bad event '%s': expected SYSTEM:EVENT or a sampling event (%s)",
				  event, list);
	}
	sys = strndup(event, c - event);
	name = strdup(c + 1);
	if (!sys || !name) {
		ret = -ENOMEM;
		goto out;
	}
	if (kt_name_check(sys) || kt_name_check(name)) {
		ret = kt_err_set(err, EINVAL, "bad event name '%s'", event);
		goto out;
	}
	buf = kt_event_read(kt_tfs_top(r->tfs), sys, name, "id", NULL);
	if (!buf) {
		ret = kt_err_set(err, errno == ENOENT ? ENOENT : errno,
				 "no such event '%s'", event);
		goto out;
	}
	id = atoi(buf);
	free(buf);
	buf = kt_event_read(kt_tfs_top(r->tfs), sys, name, "format", &len);
	if (!buf) {
		ret = kt_err_set(err, errno, "cannot read format of '%s': %m",
				 event);
		goto out;
	}
	ret = kt_record_add_format(r, sys, name, id, buf, len, false, &why);
	free(buf);
	if (ret < 0) {
		kt_err_set(err, -ret, "cannot parse the format of '%s'",
			   event);
		goto out;
	}
	te = r->ev[ret].te;
	if (filter) {
		if (kt_filter_check(te, event, filter, err) < 0) {
			r->nev--;
			free(r->ev[r->nev].system);
			free(r->ev[r->nev].name);
			free(r->ev[r->nev].format);
			ret = -EINVAL;
			goto out;
		}
		r->ev[ret].filter = strdup(filter);
		if (!r->ev[ret].filter) {
			r->nev--;
			free(r->ev[r->nev].system);
			free(r->ev[r->nev].name);
			free(r->ev[r->nev].format);
			ret = -ENOMEM;
			goto out;
		}
	}
out:
	free(sys);
	free(name);
	return ret;
}

int ktrace_record_nr_events(const struct ktrace_record *r)
{
	return r->nev;
}

const char *ktrace_record_event_name(const struct ktrace_record *r, int i)
{
	if (i < 0 || i >= r->nev)
		return NULL;
	return r->ev[i].fullname;
}

static int stats_alloc(struct ktrace_record *r, int max_cpu)
{
	r->nr_cpus = max_cpu + 1;
	r->lost_cpu = calloc(r->nr_cpus, sizeof(*r->lost_cpu));
	r->per_event = calloc(r->nev ? r->nev : 1, sizeof(*r->per_event));
	return r->lost_cpu && r->per_event ? 0 : -ENOMEM;
}

/* The maps of pids, or of every process when there are none (-a, -C). */
static void read_running_maps(struct ktrace_record *r, const int *pids,
			      int nr_pids)
{
	struct dirent *d;
	DIR *dir;

	if (nr_pids > 0) {
		for (int i = 0; i < nr_pids; i++)
			kt_record_read_proc_maps(r, pids[i]);
		return;
	}
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid())
			continue;
		kt_record_read_proc_maps(r, (int)pid);
	}
	closedir(dir);
}

/* System-wide: the names of every task now, as perf synthesizes COMM
 * records, so that one exiting before its records are printed (or written
 * to -o) keeps its name. */
static void learn_running_comms(struct ktrace_record *r)
{
	struct dirent *d, *t;
	DIR *dir, *tasks;
	char path[64];

	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task", pid);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while ((t = readdir(tasks))) {
			long tid = strtol(t->d_name, &end, 10);

			if (!*end && tid > 0)
				kt_record_comm(r, (int)tid);
		}
		closedir(tasks);
	}
	closedir(dir);
}

int ktrace_record_open(struct ktrace_record *r,
		       const struct ktrace_record_opts *opts,
		       struct ktrace_err *err)
{
	struct kt_perf_opts po = { 0 };
	struct kt_perf_event *pe;
	struct kt_perf_fail fail = { 0 };
	uint64_t *ids;
	int *evs, n, ret, max_cpu = 0;

	if (!r->nev)
		return kt_err_set(err, EINVAL, "no event to record");
	pe = calloc(r->nev, sizeof(*pe));
	if (!pe)
		return -ENOMEM;
	for (int i = 0; i < r->nev; i++) {
		pe[i].type = r->ev[i].type;
		pe[i].config = r->ev[i].config;
		pe[i].filter = r->ev[i].filter;
		if (r->ev[i].te)
			continue;
		/* a sampling event: its address and period with each sample */
		po.extra_sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
		pe[i].period = opts->sample_period;
		if (!opts->sample_period) {
			pe[i].period = opts->sample_freq ? opts->sample_freq :
							   KT_DEFAULT_FREQ;
			pe[i].freq = true;
		}
	}
	po.cpus = opts->cpus;
	po.nr_cpus = opts->nr_cpus;
	po.pids = opts->pids;
	po.nr_pids = opts->nr_pids;
	po.inherit = opts->inherit;
	po.enable_on_exec = opts->enable_on_exec;
	po.callchain = opts->callchain;
	if (opts->callchain && opts->dwarf_stack) {
		const struct kt_arch *arch = kt_arch_host();

		po.regs_user = kt_arch_perf_regs_mask(arch);
		if (!po.regs_user) {
			free(pe);
			return kt_err_set(err, EOPNOTSUPP,
					  "DWARF unwinding is not supported on this architecture (use --call-graph fp)");
		}
		if (opts->dwarf_stack % 8 || opts->dwarf_stack > 65528) {
			free(pe);
			return kt_err_set(err, EINVAL,
					  "bad DWARF stack size %u: a multiple of 8, at most 65528",
					  opts->dwarf_stack);
		}
		po.stack_user = opts->dwarf_stack;
		r->uw_regs_mask = po.regs_user;
		r->unwind = kt_unwind_alloc(arch);
		if (!r->unwind) {
			free(pe);
			return -ENOMEM;
		}
	}
	po.ring_pages = opts->ring_pages;
	r->perf = kt_perf_open(pe, r->nev, &po, &fail);
	free(pe);
	if (!r->perf) {
		char advice[1024];

		ret = -(fail.err ? fail.err : errno);
		if (fail.stage == KT_PERF_STAGE_FILTER && fail.event >= 0 &&
		    fail.event < r->nev) {
			const struct rec_event *e = &r->ev[fail.event];

			kt_err_set(err, -ret,
				   "the kernel refused the filter for %s:%s: %s",
				   e->system, e->name,
				   ret == -EINVAL ?
				   "a field, operator or value it does not accept (note: syscall arguments are unsigned)" :
				   strerror(-ret));
			if (err)
				err->input = strdup(e->filter);
			return ret;
		}
		if (fail.stage == KT_PERF_STAGE_OPEN && fail.event >= 0 &&
		    fail.event < r->nev &&
		    (r->ev[fail.event].type == PERF_TYPE_HARDWARE ||
		     r->ev[fail.event].type == PERF_TYPE_HW_CACHE) &&
		    kt_perf_unsupported(-ret))
			return kt_err_set(err, -ret,
					  "cannot record '%s': this machine has no hardware performance counters (no PMU); software events work: cpu-clock, task-clock, page-faults...",
					  r->ev[fail.event].name);
		if (fail.stage == KT_PERF_STAGE_OPEN && opts->cpus &&
		    fail.cpu >= 0 && (ret == -EINVAL || ret == -ENODEV ||
				      ret == -ENXIO)) {
			char *online = kt_read_file("/sys/devices/system/cpu/online",
						    NULL);

			if (online)
				online[strcspn(online, "\n")] = '\0';
			kt_err_set(err, -ret,
				   "cannot record on CPU %d: it is not online (online CPUs: %s)",
				   fail.cpu, online ? online : "?");
			free(online);
			return ret;
		}
		kt_perf_advice(&fail, advice, sizeof(advice));
		for (char *p = advice; *p; p++)
			if (*p == '\n')
				*p = ' ';
		return kt_err_set(err, -ret, "%s", advice);
	}
	/* The merge reads the rings' records; everything after it sees
	 * them rewritten without the stack copies. */
	r->raw_sample_type = kt_perf_sample_type(r->perf);
	r->sample_type = r->raw_sample_type &
			 ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	r->mcfg.sample_type = r->raw_sample_type;
	r->mcfg.sample_id_all = true;
	n = kt_perf_nr_ids(r->perf);
	ids = calloc(n ? n : 1, sizeof(*ids));
	evs = calloc(n ? n : 1, sizeof(*evs));
	if (!ids || !evs) {
		free(ids);
		free(evs);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		int cpu;

		kt_perf_id_get(r->perf, i, &ids[i], &evs[i], &cpu);
	}
	ret = kt_record_ids_set(r, ids, evs, n);
	free(ids);
	free(evs);
	if (ret)
		return ret;
	for (int i = 0; i < kt_perf_nr_rings(r->perf); i++)
		if (kt_perf_ring_cpu(r->perf, i) > max_cpu)
			max_cpu = kt_perf_ring_cpu(r->perf, i);
	if (max_cpu < (int)sysconf(_SC_NPROCESSORS_CONF) - 1)
		max_cpu = sysconf(_SC_NPROCESSORS_CONF) - 1;
	ret = stats_alloc(r, max_cpu);
	if (ret)
		return ret;
	/* Existing tasks may exit before their first line is printed:
	 * learn their names now. */
	if (!opts->enable_on_exec)
		for (int i = 0; i < opts->nr_pids; i++)
			kt_record_comm(r, opts->pids[i]);
	if (!opts->enable_on_exec && !opts->nr_pids)
		learn_running_comms(r);
	/* Tasks already running mapped their binaries before the recording
	 * began: no MMAP2 record will name them. Read their maps now (as
	 * perf synthesizes them) so that their user frames get names. */
	if ((opts->callchain || (r->sample_type & PERF_SAMPLE_IP)) &&
	    !opts->enable_on_exec)
		read_running_maps(r, opts->pids, opts->nr_pids);
	/* binaries read ahead for the processes named (a command, -p), not
	 * for every program that starts anywhere under -a */
	r->prefetch = r->unwind && (opts->enable_on_exec || opts->nr_pids);
	for (int i = 0; r->prefetch && i < r->nr_maps; i++)
		kt_record_prefetch_binary(r, r->maps[i].path);
	/* A stack's kernel frames need kallsyms (~40 ms to read): now, not
	 * at the first stack printed, while the rings fill. */
	if (opts->callchain)
		r->src->ksyms(r);
	r->merge = kt_merge_alloc(kt_perf_nr_rings(r->perf), &r->mcfg,
				  kt_record_emit, r);
	if (!r->merge)
		return -errno;
	r->pull_avail = calloc(kt_perf_nr_rings(r->perf) + 1,
			       sizeof(*r->pull_avail));
	r->map_scan = calloc(kt_perf_nr_rings(r->perf) + 1,
			     sizeof(*r->map_scan));
	if (!r->pull_avail || !r->map_scan)
		return -ENOMEM;
	/* user addresses to name: mappings taken from the rings first */
	r->maps_live = opts->callchain || (r->sample_type & PERF_SAMPLE_IP);
	return 0;
}

int ktrace_record_enable(struct ktrace_record *r)
{
	return r->perf ? kt_perf_enable(r->perf) : -EINVAL;
}

int ktrace_record_disable(struct ktrace_record *r)
{
	return r->perf ? kt_perf_disable(r->perf) : -EINVAL;
}

/* ------------------------------------------------------------ comm table */

static uint32_t hash_pid(int pid)
{
	return (uint32_t)pid * 2654435761u;
}

static struct comm_ent *comm_slot(struct ktrace_record *r, int pid, bool add)
{
	size_t mask, i;

	if (add && (r->comm_n + 1) * 2 > r->comm_cap) {
		size_t cap = r->comm_cap ? r->comm_cap * 2 : 256;
		struct comm_ent *nv = calloc(cap, sizeof(*nv)), *old = r->comm;
		size_t ocap = r->comm_cap;

		if (!nv)
			return NULL;
		r->comm = nv;
		r->comm_cap = cap;
		r->comm_n = 0;
		for (size_t j = 0; j < ocap; j++) {
			if (old[j].used) {
				struct comm_ent *s = comm_slot(r, old[j].pid,
							       true);

				*s = old[j];
				r->comm_n++;
			}
		}
		free(old);
	}
	if (!r->comm_cap)
		return NULL;
	mask = r->comm_cap - 1;
	for (i = hash_pid(pid) & mask;; i = (i + 1) & mask) {
		if (!r->comm[i].used)
			return add ? &r->comm[i] : NULL;
		if (r->comm[i].pid == pid)
			return &r->comm[i];
	}
}

void kt_record_set_comm(struct ktrace_record *r, int pid, const char *comm)
{
	struct comm_ent *e = comm_slot(r, pid, true);

	if (!e)
		return;
	if (!e->used) {
		e->used = true;
		e->pid = pid;
		r->comm_n++;
	}
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
}

/* A task that existed before the recording: ask /proc once. */
static int live_comm(struct ktrace_record *r, int pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, len - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	/* kept for -o: a replay must see what this run saw */
	kt_record_note_icomm(r, pid, buf);
	return 0;
}

static void live_ksyms(struct ktrace_record *r)
{
	if (!r->ksyms.loaded)
		kt_symtab_load_kallsyms(&r->ksyms, NULL);
}

const struct kt_record_source kt_record_live_source = {
	.comm = live_comm,
	.ksyms = live_ksyms,
};

const char *kt_record_comm(struct ktrace_record *r, int pid)
{
	struct comm_ent *e = comm_slot(r, pid, false);
	char buf[32];

	if (e)
		return e->comm;
	if (pid == 0)
		return "swapper";
	if (r->src->comm(r, pid, buf, sizeof(buf)))
		strcpy(buf, "<...>");
	kt_record_set_comm(r, pid, buf);
	e = comm_slot(r, pid, false);
	return e ? e->comm : "<...>";
}

int ktrace_record_comm(struct ktrace_record *r, int pid, char *buf,
		       size_t len)
{
	if (!len)
		return -EINVAL;
	snprintf(buf, len, "%s", kt_record_comm(r, pid));
	return 0;
}

/* ------------------------------------------------------- record parsing */

/* The CPU in a non-sample record's sample_id trailer, or -1. */
static int trailer_cpu(const struct ktrace_record *r,
		       const struct perf_event_header *h)
{
	uint64_t st = r->sample_type;
	size_t tsz = 0;
	const unsigned char *p;

	if (!(st & PERF_SAMPLE_CPU))
		return -1;
	/* After CPU come IDENTIFIER only (of the fields we set). */
	if (st & PERF_SAMPLE_IDENTIFIER)
		tsz += 8;
	tsz += 8;
	if (h->size < sizeof(*h) + tsz)
		return -1;
	p = (const unsigned char *)h + h->size - tsz;
	return *(const uint32_t *)p;
}

/*
 * Parse a PERF_RECORD_SAMPLE into s. Returns 0 or -EINVAL for a record
 * shorter than its fields say.
 */
int kt_record_parse_sample(struct ktrace_record *r,
			const struct perf_event_header *h,
			struct ktrace_sample *s)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;
	uint64_t st = r->sample_type, id = 0;

	memset(s, 0, sizeof(*s));
	s->type = KTRACE_SAMPLE_EVENT;
	s->event = -1;
#define NEED(n) do { if (p > end || (size_t)(end - p) < (size_t)(n)) return -EINVAL; } while (0)
	if (st & PERF_SAMPLE_IDENTIFIER) {
		NEED(8);
		memcpy(&id, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_IP) {
		NEED(8);
		memcpy(&s->ip, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		NEED(8);
		s->pid = ((const int32_t *)p)[0];
		s->tid = ((const int32_t *)p)[1];
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		NEED(8);
		memcpy(&s->time, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_ADDR) {
		NEED(8);
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		NEED(8);
		memcpy(&id, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		NEED(8);
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		NEED(8);
		s->cpu = *(const uint32_t *)p;
		p += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		NEED(8);
		memcpy(&s->period, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		NEED(8);
		memcpy(&nr, p, 8);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return -EINVAL;
		s->ips = (const uint64_t *)p;
		s->nr_ips = nr;
		p += nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t sz;

		NEED(4);
		memcpy(&sz, p, 4);
		p += 4;
		NEED(sz);
		s->raw = p;
		s->raw_size = sz;
	}
#undef NEED
	s->event = id_event(r, id);
	return s->event < 0 ? -EINVAL : 0;
}

int kt_record_emit(void *ctx, int src, uint64_t ts,
		   const struct perf_event_header *h)
{
	struct ktrace_record *r = ctx;
	struct ktrace_sample s;

	(void)src;
	if (ts > r->last_time)
		r->last_time = ts;
	r->emit_time = ts;
	if (h->type == PERF_RECORD_SAMPLE && (h->misc & KT_MISC_UNWOUND)) {
		/* unwound as it left the ring: the misc bit goes */
		struct perf_event_header *w = (struct perf_event_header *)h;

		w->misc &= ~KT_MISC_UNWOUND;
	} else if (h->type == PERF_RECORD_SAMPLE && r->unwind) {
		h = kt_record_unwind(r, h);
		if (!h)
			return 0;
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		/* libtraceevent reads the common header unchecked; a
		 * sampling event has no data (the kernel pads RAW) */
		if (kt_record_parse_sample(r, h, &s) ||
		    (r->ev[s.event].te && s.raw_size < 8))
			return 0;
		r->samples++;
		r->per_event[s.event]++;
		break;
	case PERF_RECORD_LOST: {
		const struct { struct perf_event_header h; uint64_t id, lost; }
			*l = (const void *)h;

		if (h->size < sizeof(*l))
			return 0;
		memset(&s, 0, sizeof(s));
		s.type = KTRACE_SAMPLE_LOST;
		s.time = ts;
		s.lost = l->lost;
		s.cpu = trailer_cpu(r, h);
		s.event = -1;
		r->lost += l->lost;
		if (s.cpu >= 0 && s.cpu < r->nr_cpus)
			r->lost_cpu[s.cpu] += l->lost;
		break;
	}
	case PERF_RECORD_COMM: {
		const struct { struct perf_event_header h; uint32_t pid, tid;
			       char comm[]; } *c = (const void *)h;
		size_t max = h->size - sizeof(*c);

		if (h->size > sizeof(*c) && memchr(c->comm, '\0', max))
			kt_record_set_comm(r, c->tid, c->comm);
		goto other;
	}
	case PERF_RECORD_FORK: {
		const struct { struct perf_event_header h; uint32_t pid, ppid,
			       tid, ptid; } *f = (const void *)h;

		if (h->size >= sizeof(*f)) {
			struct comm_ent *pe = comm_slot(r, f->ptid, false);

			if (pe) {
				char c[16];

				memcpy(c, pe->comm, sizeof(c));
				kt_record_set_comm(r, f->tid, c);
			}
		}
		goto other;
	}
	case PERF_RECORD_MMAP2:
		if (!r->maps_live)	/* live, taken when pulled */
			kt_record_note_mmap(r, h, ts);
		goto other;
	default:
		goto other;
	}
	if (r->sink)
		r->sink(r->sink_ctx, h,
			h->type == PERF_RECORD_SAMPLE ? &s : NULL);
	if (r->fn)
		return r->fn(r->fnctx, &s);
	return 0;
other:
	if (r->sink)
		r->sink(r->sink_ctx, h, NULL);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Take what every ring holds into the merge. With DWARF stacks a sample
 * carries 8 KiB of stack; queueing those copies was most of a recording's
 * cost, and records were lost to it. So every sample is unwound as it
 * leaves its ring and queued with its frames, its stack dropped. What it
 * needs is every mapping made before it: a mapping is written to its ring
 * before any sample that could need it, so one that a sample within the
 * heads taken first needs lies within the heads taken after them. Those
 * mappings are taken first, each with its time (a sample older than a
 * mapping does not see it: lib/sym/unwind.c, user_loc()); the MMAP2
 * records themselves go through the merge as before.
 */
static void scan_map(void *ctx, const struct perf_event_header *h)
{
	struct ktrace_record *r = ctx;
	int n = r->nr_maps;
	uint64_t ts = 0;

	kt_merge_rec_time(&r->mcfg, h, &ts);
	kt_record_note_mmap(r, h, ts);
	/* its frames will be named soon: read the binary meanwhile */
	if (r->prefetch && r->nr_maps > n)
		kt_record_prefetch_binary(r, r->maps[r->nr_maps - 1].path);
}

/* kt_merge_xform_fn with DWARF stacks: a sample unwound, if it can be. */
static const struct perf_event_header *
pull_xform(void *ctx, const struct perf_event_header *h)
{
	struct ktrace_record *r = ctx;
	struct perf_event_header *c;

	if (h->type != PERF_RECORD_SAMPLE)
		return h;
	c = (struct perf_event_header *)kt_record_unwind(r, h);
	if (!c)
		return h;	/* malformed: left to the emit side to drop */
	c->misc |= KT_MISC_UNWOUND;
	return c;
}

static long pull_all(struct ktrace_record *r)
{
	int nr = kt_perf_nr_rings(r->perf);
	uint64_t *avail = r->pull_avail;
	long total = 0;

	for (int i = 0; i < nr; i++)
		avail[i] = kt_ring_begin(kt_perf_ring(r->perf, i));
	for (int i = 0; i < nr && r->maps_live; i++) {
		struct kt_ring *ring = kt_perf_ring(r->perf, i);

		kt_ring_begin(ring);	/* a newer head: see above */
		kt_ring_peek(ring, &r->map_scan[i],
			     1ull << PERF_RECORD_MMAP2, scan_map, r);
	}
	for (int i = 0; i < nr; i++) {
		long n;

		if (!avail[i])
			continue;
		/* up to the heads taken first, not beyond */
		n = kt_merge_pull(r->merge, i, kt_perf_ring(r->perf, i),
				  avail[i], r->unwind ? pull_xform : NULL, r);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

long ktrace_record_poll(struct ktrace_record *r, int timeout_ms, bool *done,
			ktrace_sample_fn fn, void *ctx)
{
	uint64_t horizon;
	long ret;
	int n;

	if (!r->perf)
		return -EINVAL;
	n = kt_perf_poll(r->perf, timeout_ms, done);
	if (n < 0 && n != -EINTR)
		return n;
	horizon = now_ns();
	horizon = horizon > MERGE_SLACK_NS ? horizon - MERGE_SLACK_NS : 0;
	ret = pull_all(r);
	if (ret < 0)
		return ret;
	/*
	 * While a binary is read in a thread (stack.c), the records stay
	 * queued (unwound, they are small) rather than wait for it here with
	 * the rings filling; a second at most.
	 */
	if (kt_record_prefetching(r)) {
		if (!r->held_since)
			r->held_since = now_ns();
		if (now_ns() - r->held_since < 1000000000ull)
			return 0;
	}
	r->held_since = 0;
	r->fn = fn;
	r->fnctx = ctx;
	ret = kt_merge_flush(r->merge, horizon);
	/* a write error sticks in the writer: output_close() reports it */
	if (r->kfw)
		kt_record_output_flush(r, now_ns(), false);
	return ret;
}

/*
 * The kernel reports a loss in the record after it; a loss with no record
 * after it shows only in its PERF_FORMAT_LOST counters. What they count
 * beyond the LOST records seen becomes one LOST record per CPU, in the
 * stream (and the -o file) like any other.
 */
static long report_tail_loss(struct ktrace_record *r)
{
	uint64_t *lost = calloc(r->nr_cpus, sizeof(*lost));
	long n = 0;

	if (!lost)
		return -ENOMEM;
	if (kt_perf_lost(r->perf, lost, r->nr_cpus)) {
		free(lost);
		return 0;
	}
	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		struct {
			struct perf_event_header h;
			uint64_t id, lost;
			uint32_t pid, tid;
			uint64_t time;
			uint32_t cpu, res;
			uint64_t identifier;
		} rec;
		int ret;

		if (lost[cpu] <= r->lost_cpu[cpu])
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.h.type = PERF_RECORD_LOST;
		rec.h.size = sizeof(rec);
		rec.id = r->nr_ids ? r->ids[0].id : 0;
		rec.identifier = rec.id;
		rec.lost = lost[cpu] - r->lost_cpu[cpu];
		rec.pid = rec.tid = (uint32_t)-1;
		rec.time = r->last_time;
		rec.cpu = cpu;
		ret = kt_record_emit(r, -1, rec.time, &rec.h);
		if (ret)
			break;
		n++;
	}
	free(lost);
	return n;
}

long ktrace_record_drain(struct ktrace_record *r, ktrace_sample_fn fn,
			 void *ctx)
{
	long ret, tail;

	if (!r->perf)
		return -EINVAL;
	ret = pull_all(r);
	if (ret < 0)
		return ret;
	r->fn = fn;
	r->fnctx = ctx;
	ret = kt_merge_drain(r->merge);
	if (ret < 0)
		return ret;
	tail = report_tail_loss(r);
	return tail < 0 ? tail : ret + tail;
}

void ktrace_record_stats(const struct ktrace_record *r,
			 struct ktrace_record_stats *st)
{
	struct kt_merge_stats ms = { 0 };

	if (r->merge)
		kt_merge_stats(r->merge, &ms);
	st->samples = r->samples;
	st->lost = r->lost;
	st->late = ms.late;
	st->nr_cpus = r->nr_cpus;
	st->lost_per_cpu = r->lost_cpu;
	st->per_event = r->per_event;
	st->user_only = kt_perf_user_only(r->perf);
}
