// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Recording live: events opened through perf_event_open
 * (lib/capture/perf.c), per-CPU rings merged in time order
 * (lib/capture/merge.c), each record handed to the decoder (decode.c).
 */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/internal.h"
#include "capture/merge.h"
#include "capture/perf.h"
#include "capture/ring.h"
#include "arch/arch.h"
#include "record/record.h"

/* How far behind "now" the merge may emit: records still being written
 * to a ring by another CPU are younger than this. */
#define MERGE_SLACK_NS (20ull * 1000 * 1000)

/* perf record's default sampling frequency (Hz). */
#define KT_DEFAULT_FREQ 4000

void kt_live_free(struct kt_live *l)
{
	kt_ftsrc_free(&l->ft);
	kt_merge_free(l->merge);
	free(l->pull_avail);
	free(l->map_scan);
	kt_perf_free(l->perf);
}

/* fn(r, id) for each numeric entry of dir (/proc: the processes,
 * /proc/PID/task: the threads) */
static void each_id(const char *dir, struct ktrace_record *r,
		    void (*fn)(struct ktrace_record *r, int id))
{
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		char *end;
		long id = strtol(d->d_name, &end, 10);

		if (!*end && id > 0 && id <= INT_MAX)
			fn(r, (int)id);
	}
	closedir(dp);
}

static void read_maps_of(struct ktrace_record *r, int pid)
{
	if (pid != getpid())
		kt_addrspace_read_proc_maps(&r->as, pid);
}

/* The maps of pids, or of every process when there are none (-a, -C). */
static void read_running_maps(struct ktrace_record *r, const int *pids,
			      int nr_pids)
{
	if (nr_pids <= 0) {
		each_id("/proc", r, read_maps_of);
		return;
	}
	for (int i = 0; i < nr_pids; i++)
		kt_addrspace_read_proc_maps(&r->as, pids[i]);
}

static void learn_comm(struct ktrace_record *r, int tid)
{
	kt_comms_get(&r->comm, tid);
}

static void learn_task_comms(struct ktrace_record *r, int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	each_id(path, r, learn_comm);
}

/* System-wide: the names of every task now, as perf synthesizes COMM
 * records, so that one exiting before its records are printed (or written
 * to -o) keeps its name. */
static void learn_running_comms(struct ktrace_record *r)
{
	each_id("/proc", r, learn_task_comms);
}

/* The perf events of r's events (freed by the caller), with sampling
 * events' periods into po; NULL when out of memory. */
static struct kt_perf_event *perf_events(struct ktrace_record *r,
					 const struct ktrace_record_opts *opts,
					 struct kt_perf_opts *po)
{
	struct kt_perf_event *pe = calloc(r->evt.nev, sizeof(*pe));

	if (!pe)
		return NULL;
	for (int i = 0; i < r->evt.nev; i++) {
		const struct rec_event *e = &r->evt.ev[i];

		pe[i].type = e->type;
		pe[i].config = e->config;
		pe[i].filter = e->filter;
		if (e->te)
			continue;
		/* a sampling event: its address and period with each sample */
		po->extra_sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
		pe[i].period = opts->sample_period;
		if (!opts->sample_period) {
			pe[i].period = opts->sample_freq ? opts->sample_freq :
							   KT_DEFAULT_FREQ;
			pe[i].freq = true;
		}
	}
	return pe;
}

/* --call-graph dwarf: the registers and stack bytes each sample copies,
 * and the unwinder; 0 or -errno with err set. */
static int dwarf_opts(struct ktrace_record *r,
		      const struct ktrace_record_opts *opts,
		      struct kt_perf_opts *po, struct ktrace_err *err)
{
	const struct kt_arch *arch = kt_arch_host();

	po->regs_user = kt_arch_perf_regs_mask(arch);
	if (!po->regs_user)
		return kt_err_set(err, EOPNOTSUPP,
				  "DWARF unwinding is not supported on this architecture (use --call-graph fp)");
	if (opts->dwarf_stack % 8 || opts->dwarf_stack > 65528)
		return kt_err_set(err, EINVAL,
				  "bad DWARF stack size %u: a multiple of 8, at most 65528",
				  opts->dwarf_stack);
	po->stack_user = opts->dwarf_stack;
	r->ust.regs_mask = po->regs_user;
	if (kt_addrspace_unwind_init(&r->as, arch))
		return -ENOMEM;
	r->ust.on = true;
	return 0;
}

/* Why kt_perf_open() failed, in the user's terms: -errno with err set. */
static int open_error(struct ktrace_record *r,
		      const struct ktrace_record_opts *opts,
		      const struct kt_perf_fail *fail, struct ktrace_err *err)
{
	int ret = -(fail->err ? fail->err : errno);
	const struct rec_event *e = fail->event >= 0 &&
				    fail->event < r->evt.nev ?
				    &r->evt.ev[fail->event] : NULL;
	char advice[1024];

	if (fail->stage == KT_PERF_STAGE_FILTER && e) {
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
	if (fail->stage == KT_PERF_STAGE_OPEN && e &&
	    (e->type == PERF_TYPE_HARDWARE || e->type == PERF_TYPE_HW_CACHE) &&
	    kt_perf_unsupported(-ret))
		return kt_err_set(err, -ret,
				  "cannot record '%s': this machine has no hardware performance counters (no PMU); software events work: cpu-clock, task-clock, page-faults...",
				  e->name);
	if (fail->stage == KT_PERF_STAGE_OPEN && opts->cpus &&
	    fail->cpu >= 0 && (ret == -EINVAL || ret == -ENODEV ||
			       ret == -ENXIO)) {
		char *online = kt_read_file("/sys/devices/system/cpu/online",
					    NULL);

		if (online)
			online[strcspn(online, "\n")] = '\0';
		kt_err_set(err, -ret,
			   "cannot record on CPU %d: it is not online (online CPUs: %s)",
			   fail->cpu, online ? online : "?");
		free(online);
		return ret;
	}
	kt_perf_advice(fail, advice, sizeof(advice));
	for (char *p = advice; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return kt_err_set(err, -ret, "%s", advice);
}

/* Open every event; 0 or -errno with err set. */
static int open_events(struct ktrace_record *r,
		       const struct ktrace_record_opts *opts,
		       struct ktrace_err *err)
{
	struct kt_perf_opts po = { 0 };
	struct kt_perf_fail fail = { 0 };
	struct kt_perf_event *pe;
	int ret;

	pe = perf_events(r, opts, &po);
	if (!pe)
		return -ENOMEM;
	po.cpus = opts->cpus;
	po.nr_cpus = opts->nr_cpus;
	po.pids = opts->pids;
	po.nr_pids = opts->nr_pids;
	po.inherit = opts->inherit;
	po.enable_on_exec = opts->enable_on_exec;
	po.callchain = opts->callchain;
	if (r->off.on) {
		/* the periods' length; the traced tasks' switch-ins
		 * (offcpu.h; system-wide too: sched_switch misses some) */
		po.extra_sample_type |= PERF_SAMPLE_PERIOD;
		po.context_switch = true;
	}
	if (opts->callchain && opts->dwarf_stack) {
		ret = dwarf_opts(r, opts, &po, err);
		if (ret) {
			free(pe);
			return ret;
		}
	}
	po.ring_pages = opts->ring_pages;
	r->live.perf = kt_perf_open(pe, r->evt.nev, &po, &fail);
	free(pe);
	return r->live.perf ? 0 : open_error(r, opts, &fail, err);
}

/* The event of every sample id the session opened (and of ktrace's own
 * off-CPU samples); 0 or -ENOMEM. */
static int ids_from_perf(struct ktrace_record *r)
{
	int n = kt_perf_nr_ids(r->live.perf), ret;
	uint64_t *ids = calloc(n + 1, sizeof(*ids));
	int *evs = calloc(n + 1, sizeof(*evs));

	if (!ids || !evs) {
		free(ids);
		free(evs);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		int cpu;

		kt_perf_id_get(r->live.perf, i, &ids[i], &evs[i], &cpu);
	}
	if (r->off.has_event) {
		ids[n] = KT_OFFCPU_ID;
		evs[n++] = r->off.event;
	}
	ret = kt_evtable_set_ids(&r->evt, ids, evs, n);
	free(ids);
	free(evs);
	return ret;
}

/*
 * What runs already, before the first record: comms, mappings (with
 * their binaries read ahead) and kallsyms, learnt now rather than at the
 * first line printed, while the rings fill.
 */
static void learn_running(struct ktrace_record *r,
			  const struct ktrace_record_opts *opts)
{
	/* Existing tasks may exit before their first line is printed:
	 * learn their names now. */
	if (!opts->enable_on_exec)
		for (int i = 0; i < opts->nr_pids; i++)
			kt_comms_get(&r->comm, opts->pids[i]);
	if (!opts->enable_on_exec && !opts->nr_pids)
		learn_running_comms(r);
	/* Tasks already running mapped their binaries before the recording
	 * began: no MMAP2 record will name them. Read their maps now (as
	 * perf synthesizes them) so that their user frames get names. */
	if ((opts->callchain || (r->dec.fmt.sample_type & PERF_SAMPLE_IP)) &&
	    !opts->enable_on_exec)
		read_running_maps(r, opts->pids, opts->nr_pids);
	/* binaries read ahead for the processes named (a command, -p), not
	 * for every program that starts anywhere under -a */
	r->live.prefetch = r->ust.on && (opts->enable_on_exec || opts->nr_pids);
	for (int i = 0; r->live.prefetch && i < r->as.nr_maps; i++)
		kt_addrspace_prefetch(&r->as, r->as.maps[i].path);
	/* A stack's kernel frames need kallsyms (~40 ms to read): now, not
	 * at the first stack printed, while the rings fill. */
	if (opts->callchain)
		kt_symbolizer_ksyms(&r->sym);
}

/* Counters for every CPU the rings or the machine have; 0 or -ENOMEM. */
static int stats_setup(struct ktrace_record *r)
{
	struct kt_perf *p = r->live.perf;
	int max_cpu = 0;

	for (int i = 0; i < kt_perf_nr_rings(p); i++)
		if (kt_perf_ring_cpu(p, i) > max_cpu)
			max_cpu = kt_perf_ring_cpu(p, i);
	if (max_cpu < (int)sysconf(_SC_NPROCESSORS_CONF) - 1)
		max_cpu = sysconf(_SC_NPROCESSORS_CONF) - 1;
	return kt_decoder_stats_alloc(&r->dec, max_cpu + 1, r->evt.nev);
}

/* The merge and the pull's per-ring state; 0 or -errno. */
static int merge_setup(struct ktrace_record *r)
{
	struct kt_live *l = &r->live;
	int nr = kt_perf_nr_rings(l->perf) + kt_ftsrc_nr_src(r);

	l->merge = kt_merge_alloc(nr, &r->dec.mcfg, kt_record_emit, r);
	if (!l->merge)
		return -errno;
	l->pull_avail = calloc(nr + 1, sizeof(*l->pull_avail));
	l->map_scan = calloc(nr + 1, sizeof(*l->map_scan));
	return l->pull_avail && l->map_scan ? 0 : -ENOMEM;
}

/* A list of numbers "1,2,3" into buf, cut with "..." where it does not
 * fit. */
static void int_list(char *buf, size_t len, const int *v, int n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && at + 16 < len; i++)
		at += snprintf(buf + at, len - at, "%s%d", i ? "," : "", v[i]);
	if (at + 16 >= len)
		snprintf(buf + at, len - at, ",...");
}

/* What the -o file's header says of opts (writer.h's kt_writer_how):
 * the events' periods as perf_events() sets them. 0 or -ENOMEM. */
static int note_how(struct ktrace_record *r,
		    const struct ktrace_record_opts *opts)
{
	struct kt_writer_how *h = &r->w.how;
	size_t len = 0;
	FILE *f = open_memstream(&h->sampling, &len);

	if (!f)
		return -ENOMEM;
	for (int i = 0; i < r->evt.nev; i++) {
		if (r->evt.ev[i].te)
			fputs("each\n", f);
		else if (opts->sample_period)
			fprintf(f, "period %llu\n",
				(unsigned long long)opts->sample_period);
		else
			fprintf(f, "freq %u\n", opts->sample_freq ?
				opts->sample_freq : KT_DEFAULT_FREQ);
	}
	if (fclose(f)) {
		free(h->sampling);
		h->sampling = NULL;
		return -ENOMEM;
	}
	if (!opts->callchain)
		strcpy(h->call_graph, "none");
	else if (opts->dwarf_stack)
		snprintf(h->call_graph, sizeof(h->call_graph), "dwarf %u",
			 opts->dwarf_stack);
	else
		strcpy(h->call_graph, "fp");
	if (opts->nr_pids && opts->enable_on_exec) {
		strcpy(h->target, "command");
	} else if (opts->nr_pids) {
		strcpy(h->target, "processes ");
		int_list(h->target + 10, sizeof(h->target) - 10, opts->pids,
			 opts->nr_pids);
	} else {
		strcpy(h->target, "system-wide");
	}
	if (opts->cpus)
		int_list(h->cpus, sizeof(h->cpus), opts->cpus, opts->nr_cpus);
	else
		strcpy(h->cpus, "all");
	return 0;
}

int ktrace_record_open(struct ktrace_record *r,
		       const struct ktrace_record_opts *opts,
		       struct ktrace_err *err)
{
	int ret;

	if (!r->evt.nev)
		return kt_err_set(err, EINVAL, "no event to record");
	ret = open_events(r, opts, err);
	if (!ret)
		ret = note_how(r, opts);
	if (ret)
		return ret;
	/* The merge reads the rings' records; everything after it sees
	 * them rewritten without the stack copies. */
	r->ust.raw_sample_type = kt_perf_sample_type(r->live.perf);
	r->dec.fmt.sample_type = r->ust.raw_sample_type &
				 ~(uint64_t)(PERF_SAMPLE_REGS_USER |
					     PERF_SAMPLE_STACK_USER);
	r->dec.fmt.sample_id_all = true;
	r->dec.mcfg.sample_type = r->ust.raw_sample_type;
	r->dec.mcfg.sample_id_all = true;
	ret = kt_offcpu_open(r);
	if (!ret)
		ret = ids_from_perf(r);
	if (!ret)
		ret = stats_setup(r);
	if (ret)
		return ret;
	/* event probes: from an instance's buffers, sources after the rings */
	ret = kt_ftsrc_open(r, opts, kt_perf_nr_rings(r->live.perf), err);
	if (ret)
		return ret;
	learn_running(r, opts);
	ret = merge_setup(r);
	if (ret)
		return ret;
	/* user addresses to name: mappings taken from the rings first */
	r->dec.maps_pulled = opts->callchain ||
			     (r->dec.fmt.sample_type & PERF_SAMPLE_IP);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int ktrace_record_enable(struct ktrace_record *r)
{
	if (!r->live.perf)
		return -EINVAL;
	r->live.upto = now_ns();
	return kt_perf_enable(r->live.perf);
}

int ktrace_record_disable(struct ktrace_record *r)
{
	return r->live.perf ? kt_perf_disable(r->live.perf) : -EINVAL;
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
	int n = r->as.nr_maps;
	uint64_t ts = 0;

	kt_merge_rec_time(&r->dec.mcfg, h, &ts);
	kt_addrspace_note_mmap(&r->as, h, ts);
	/* its frames will be named soon: read the binary meanwhile */
	if (r->live.prefetch && r->as.nr_maps > n)
		kt_addrspace_prefetch(&r->as, r->as.maps[r->as.nr_maps - 1].path);
}

/* kt_merge_xform_fn with DWARF stacks: a sample unwound, if it can be. */
static const struct perf_event_header *
pull_xform(void *ctx, const struct perf_event_header *h)
{
	struct ktrace_record *r = ctx;
	struct perf_event_header *c;

	if (h->type != PERF_RECORD_SAMPLE)
		return h;
	c = (struct perf_event_header *)kt_ustacks_unwind(&r->ust, &r->as, h);
	if (!c)
		return h;	/* malformed: left to the emit side to drop */
	c->misc |= KT_MISC_UNWOUND;
	return c;
}

static long pull_all(struct ktrace_record *r)
{
	struct kt_live *l = &r->live;
	int nr = kt_perf_nr_rings(l->perf);
	uint64_t *avail = l->pull_avail;
	long total = 0;

	for (int i = 0; i < nr; i++)
		avail[i] = kt_ring_begin(kt_perf_ring(l->perf, i));
	for (int i = 0; i < nr && r->dec.maps_pulled; i++) {
		struct kt_ring *ring = kt_perf_ring(l->perf, i);

		kt_ring_begin(ring);	/* a newer head: see above */
		kt_ring_peek(ring, &l->map_scan[i],
			     1ull << PERF_RECORD_MMAP2, scan_map, r);
	}
	for (int i = 0; i < nr; i++) {
		long n;

		if (!avail[i])
			continue;
		/* up to the heads taken first, not beyond */
		n = kt_merge_pull(l->merge, i, kt_perf_ring(l->perf, i),
				  avail[i], r->ust.on ? pull_xform : NULL, r);
		if (n < 0)
			return n;
		total += n;
	}
	if (l->ft.pipe) {
		long n = kt_ftsrc_pull(r);

		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

long ktrace_record_poll(struct ktrace_record *r, int timeout_ms, bool *done,
			ktrace_sample_fn fn, void *ctx)
{
	struct kt_live *l = &r->live;
	uint64_t horizon;
	long ret;
	int n;

	if (!l->perf)
		return -EINVAL;
	n = kt_perf_poll(l->perf, timeout_ms, done);
	if (n < 0 && n != -EINTR)
		return n;
	horizon = now_ns();
	horizon = horizon > MERGE_SLACK_NS ? horizon - MERGE_SLACK_NS : 0;
	ret = pull_all(r);
	if (ret < 0)
		return ret;
	/*
	 * While a binary is read in a thread (addrspace.c), the records
	 * stay queued (unwound, they are small) rather than wait for it
	 * here with the rings filling; a second at most.
	 */
	if (kt_addrspace_prefetching(&r->as)) {
		if (!l->held_since)
			l->held_since = now_ns();
		if (now_ns() - l->held_since < 1000000000ull)
			return 0;
	}
	l->held_since = 0;
	r->dec.fn = fn;
	r->dec.fnctx = ctx;
	ret = kt_merge_flush(l->merge, horizon);
	if (ret >= 0 && horizon > l->upto)
		l->upto = horizon;
	/* a write error sticks in the writer: it ends the recording (a
	 * full disk), and ktrace_record_output_close() reports it */
	kt_writer_flush(r, now_ns(), false);
	if (ret >= 0 && ktrace_record_output_error(r))
		return ktrace_record_output_error(r);
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
	struct kt_decoder *d = &r->dec;
	uint64_t *lost = calloc(d->nr_cpus, sizeof(*lost));
	long n = 0;

	if (!lost)
		return -ENOMEM;
	if (kt_perf_lost(r->live.perf, lost, d->nr_cpus)) {
		free(lost);
		return 0;
	}
	for (int cpu = 0; cpu < d->nr_cpus; cpu++) {
		struct {
			struct perf_event_header h;
			uint64_t id, lost;
			uint32_t pid, tid;
			uint64_t time;
			uint32_t cpu, res;
			uint64_t identifier;
		} rec;
		int ret;

		if (lost[cpu] <= d->lost_cpu[cpu])
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.h.type = PERF_RECORD_LOST;
		rec.h.size = sizeof(rec);
		rec.id = r->evt.nr_ids ? r->evt.ids[0].id : 0;
		rec.identifier = rec.id;
		rec.lost = lost[cpu] - d->lost_cpu[cpu];
		rec.pid = rec.tid = (uint32_t)-1;
		rec.time = d->last_time;
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

	if (!r->live.perf)
		return -EINVAL;
	ret = pull_all(r);
	if (ret < 0)
		return ret;
	r->dec.fn = fn;
	r->dec.fnctx = ctx;
	ret = kt_merge_drain(r->live.merge);
	if (ret < 0)
		return ret;
	tail = report_tail_loss(r);
	return tail < 0 ? tail : ret + tail;
}

void ktrace_record_stats(const struct ktrace_record *r,
			 struct ktrace_record_stats *st)
{
	struct kt_merge_stats ms = { 0 };

	if (r->live.merge)
		kt_merge_stats(r->live.merge, &ms);
	st->samples = r->dec.samples;
	st->lost = r->dec.lost;
	st->late = ms.late;
	st->nr_cpus = r->dec.nr_cpus;
	st->lost_per_cpu = r->dec.lost_cpu;
	st->per_event = r->dec.per_event;
	st->user_only = kt_perf_user_only(r->live.perf);
	st->upto_ns = r->live.upto;
}
