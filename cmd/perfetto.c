// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktrace report --perfetto FILE: a recording as a Trace Event Format file
 * (the JSON object form of Google's "Trace Event Format" document), which
 * the Perfetto UI (ui.perfetto.dev) and chrome://tracing open.
 *
 * What goes where:
 *  - sched:sched_switch records, when recorded, become per-CPU tracks: a
 *    process "CPUs" (pid KT_CPU_PID, far above any kernel pid) with one
 *    thread per CPU, each task's time on that CPU a complete ("X") slice
 *    named after it; the first slice of a CPU starts at the recording's
 *    first record (nothing earlier is known);
 *  - every other record is an instant ("i", thread scope) on its own
 *    thread, named "system:event", its fields as args (typed, as --json);
 *  - a record with a stack (-g, sampling events) refers to it by "sf" in
 *    the top-level "stackFrames" table (outermost frame first in the
 *    parent chain) and also carries it as an args list, innermost first,
 *    for viewers that do not read stackFrames;
 *  - lost records are global instants "lost N records (cpu C)";
 *  - a file of ktrace ftrace: each function_graph call a complete slice
 *    named after the function on its task's track (nested as the calls
 *    were: from its return's time back by its duration), each function
 *    tracer record an instant "FUNC <- CALLER";
 *  - process and thread names are metadata ("M") events.
 * Timestamps are microseconds with three decimals: the nanoseconds exact.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"
#include "record/ftfile.h"
#include "sym/symtab.h"

#define KT_CPU_PID 1000000000	/* the "CPUs" process: above pid_max */
#define MAX_FRAMES 256

/* A node of the stack-frame tree: (parent, frame text) -> id. */
struct sf_node {
	uint32_t parent;	/* 0: a root */
	char *name, *dso;
};

struct task {
	int pid, tid;
	bool used;
};

struct cpu_track {
	bool seen;		/* a sched_switch came from this CPU */
	int tid;		/* the task on it since start */
	char comm[32];
	uint64_t start;
	/*
	 * A record on this CPU from a task other than tid: a switch the
	 * kernel did not deliver (seen on 6.18, with perf and ftrace alike,
	 * for idle -> task). other_tid ran from other_at at the latest.
	 */
	bool other;
	int other_tid;
	uint64_t other_at;
};

struct pf_run {
	struct kt_ctx *ctx;
	struct ktrace_record *rec;
	struct kt_json *j;
	int switch_ev;		/* event index of sched:sched_switch, or -1 */
	uint64_t first, last;	/* timestamps of the first and last record */
	bool any;
	struct cpu_track *cpus;
	int nr_cpus;
	unsigned long missed;	/* switches not recorded (see cpu_track) */
	/* stack frames: a vector of nodes (id = index + 1) and a hash */
	struct sf_node *sf;
	uint32_t nr_sf, cap_sf;
	uint32_t *sf_hash;	/* open addressing, 0 empty, cap a power of 2 */
	uint32_t hash_cap;
	/* tasks seen, for their names */
	struct task *tasks;	/* open addressing by tid */
	size_t task_cap, nr_tasks;
	int error;
};

static uint64_t mix(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t sf_key(uint32_t parent, const char *name, const char *dso)
{
	return mix(mix(14695981039346656037ull ^ parent, name), dso);
}

static int sf_grow(struct pf_run *run)
{
	uint32_t cap = run->hash_cap ? 2 * run->hash_cap : 1024;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (uint32_t id = 1; id <= run->nr_sf; id++) {
		const struct sf_node *n = &run->sf[id - 1];
		uint32_t i = sf_key(n->parent, n->name, n->dso) & (cap - 1);

		while (h[i])
			i = (i + 1) & (cap - 1);
		h[i] = id;
	}
	free(run->sf_hash);
	run->sf_hash = h;
	run->hash_cap = cap;
	return 0;
}

/* The id of frame (name, dso) under parent, made when new; 0: no memory. */
static uint32_t sf_id(struct pf_run *run, uint32_t parent, const char *name,
		      const char *dso)
{
	struct sf_node *n;
	uint32_t i;

	if (2 * (run->nr_sf + 1) > run->hash_cap && sf_grow(run))
		return 0;
	for (i = sf_key(parent, name, dso) & (run->hash_cap - 1);
	     run->sf_hash[i]; i = (i + 1) & (run->hash_cap - 1)) {
		n = &run->sf[run->sf_hash[i] - 1];
		if (n->parent == parent && !strcmp(n->name, name) &&
		    !strcmp(n->dso, dso))
			return run->sf_hash[i];
	}
	if (run->nr_sf == run->cap_sf) {
		uint32_t cap = run->cap_sf ? 2 * run->cap_sf : 256;
		struct sf_node *nv = realloc(run->sf, cap * sizeof(*nv));

		if (!nv)
			return 0;
		run->sf = nv;
		run->cap_sf = cap;
	}
	n = &run->sf[run->nr_sf];
	n->parent = parent;
	n->name = strdup(name);
	n->dso = strdup(dso);
	if (!n->name || !n->dso) {
		free(n->name);
		free(n->dso);
		return 0;
	}
	run->sf_hash[i] = ++run->nr_sf;
	return run->nr_sf;
}

/* Remember (pid, tid) for the name metadata. */
static int task_note(struct pf_run *run, int pid, int tid)
{
	size_t i;

	if (2 * (run->nr_tasks + 1) > run->task_cap) {
		size_t cap = run->task_cap ? 2 * run->task_cap : 256;
		struct task *nv = calloc(cap, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		for (size_t k = 0; k < run->task_cap; k++) {
			if (!run->tasks[k].used)
				continue;
			for (i = (unsigned int)run->tasks[k].tid & (cap - 1);
			     nv[i].used; i = (i + 1) & (cap - 1))
				;
			nv[i] = run->tasks[k];
		}
		free(run->tasks);
		run->tasks = nv;
		run->task_cap = cap;
	}
	for (i = (unsigned int)tid & (run->task_cap - 1); run->tasks[i].used;
	     i = (i + 1) & (run->task_cap - 1))
		if (run->tasks[i].tid == tid)
			return 0;
	run->tasks[i] = (struct task){ .pid = pid, .tid = tid, .used = true };
	run->nr_tasks++;
	return 0;
}

static void put_ts(struct kt_json *j, const char *key, uint64_t ns)
{
	kt_json_key(j, key);
	kt_json_decimal(j, (long long)ns, 3);
}

/* Begin an event object: ph, ts, pid, tid (and name). */
static void ev_begin(struct pf_run *run, const char *ph, const char *name,
		     uint64_t ts, int pid, int tid)
{
	struct kt_json *j = run->j;

	kt_json_object_begin(j);
	kt_jstr(j, "ph", ph);
	if (name)
		kt_jstr(j, "name", name);
	put_ts(j, "ts", ts);
	kt_jint(j, "pid", pid);
	kt_jint(j, "tid", tid);
}

/*
 * A slice on cpu's track from start to now: name (tid) ran there; note,
 * when not NULL, says what of it was not recorded.
 */
static void slice_put(struct pf_run *run, int cpu, const char *name, int tid,
		      uint64_t start, uint64_t now, const char *end_state,
		      const char *note)
{
	struct kt_json *j = run->j;

	if (now < start)
		now = start;
	ev_begin(run, "X", name, start, KT_CPU_PID, KT_CPU_PID + cpu);
	put_ts(j, "dur", now - start);
	kt_jstr(j, "cat", "sched");
	kt_json_key(j, "args");
	kt_json_object_begin(j);
	if (tid >= 0)
		kt_jint(j, "tid", tid);
	if (end_state)
		kt_jstr(j, "end_state", end_state);
	if (note)
		kt_jstr(j, "not_recorded", note);
	kt_json_object_end(j);
	kt_json_object_end(j);
}

/* The slice of the task that ran on cpu up to now. */
static void cpu_slice(struct pf_run *run, int cpu, uint64_t now,
		      const char *end_state)
{
	struct cpu_track *c = &run->cpus[cpu];

	slice_put(run, cpu, c->comm, c->tid, c->start, now, end_state, NULL);
}

/*
 * A switch out of prev_pid while the track holds another task: the switch
 * to prev_pid was not recorded. Its time is known only when a record of
 * prev_pid came from this CPU since: the track's task ends there and
 * prev_pid's slice starts there. Without one, the whole span is a slice
 * named for what is known: neither task can be said to own it.
 */
static void missed_switch(struct pf_run *run, int cpu, int prev_pid,
			  const char *prev_comm, uint64_t now, const char *st)
{
	struct cpu_track *c = &run->cpus[cpu];
	char name[80];

	run->missed++;
	if (c->other && c->other_tid == prev_pid && c->other_at >= c->start) {
		slice_put(run, cpu, c->comm, c->tid, c->start, c->other_at,
			  NULL, "its end: the next switch was not recorded");
		slice_put(run, cpu, prev_comm, prev_pid, c->other_at, now, st,
			  "its start: it ran from its first record on");
		return;
	}
	snprintf(name, sizeof(name), "%s or %s", c->comm, prev_comm);
	slice_put(run, cpu, name, -1, c->start, now, st,
		  "a switch between the two, with no record to place it");
}

/* A record other than a switch: evidence of who runs on its CPU. */
static void cpu_evidence(struct pf_run *run, const struct ktrace_sample *s)
{
	struct cpu_track *c;

	if (s->cpu < 0 || s->cpu >= run->nr_cpus)
		return;
	c = &run->cpus[s->cpu];
	if (!c->seen || s->tid == c->tid)
		return;
	if (!c->other || c->other_tid != s->tid) {
		c->other = true;
		c->other_tid = s->tid;
		c->other_at = s->time;
	}
}

/* sched_switch's prev_state as the kernel's print fmt shows it. */
static void state_text(long long st, char *buf, size_t len)
{
	static const char letters[] = "SDTtXZPI";
	size_t n = 0;

	if (!(st & 0xff)) {
		snprintf(buf, len, st ? "R+" : "R");
		return;
	}
	for (int b = 0; b < 8 && n + 2 < len; b++)
		if (st & (1 << b)) {
			if (n)
				buf[n++] = '|';
			buf[n++] = letters[b];
		}
	buf[n] = '\0';
}

static int on_switch(struct pf_run *run, const struct ktrace_sample *s)
{
	long long prev_pid, next_pid, prev_state;
	char prev_comm[32], next_comm[32], st[24];
	struct cpu_track *c;

	if (ktrace_record_field_int(run->rec, s, "prev_pid", &prev_pid) ||
	    ktrace_record_field_int(run->rec, s, "next_pid", &next_pid) ||
	    ktrace_record_field_int(run->rec, s, "prev_state", &prev_state) ||
	    ktrace_record_field_str(run->rec, s, "prev_comm", prev_comm,
				    sizeof(prev_comm)) ||
	    ktrace_record_field_str(run->rec, s, "next_comm", next_comm,
				    sizeof(next_comm)))
		return -EINVAL;
	if (s->cpu < 0 || s->cpu > 65535)
		return -EINVAL;
	if (s->cpu >= run->nr_cpus) {
		struct cpu_track *nv = realloc(run->cpus,
					       (s->cpu + 1) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		memset(nv + run->nr_cpus, 0,
		       (s->cpu + 1 - run->nr_cpus) * sizeof(*nv));
		run->cpus = nv;
		run->nr_cpus = s->cpu + 1;
	}
	c = &run->cpus[s->cpu];
	if (!c->seen) {
		/* what ran before: known only from this switch */
		c->seen = true;
		c->tid = (int)prev_pid;
		snprintf(c->comm, sizeof(c->comm), "%s", prev_comm);
		c->start = run->first;
	}
	state_text(prev_state, st, sizeof(st));
	if (c->tid != (int)prev_pid)
		missed_switch(run, s->cpu, (int)prev_pid, prev_comm, s->time,
			      st);
	else
		cpu_slice(run, s->cpu, s->time, st);
	c->other = false;
	c->tid = (int)next_pid;
	snprintf(c->comm, sizeof(c->comm), "%s", next_comm);
	c->start = s->time;
	return 0;
}

/* The record's stack: its "sf" id and the args list. 0 or -ENOMEM. */
static int put_stack(struct pf_run *run, const struct ktrace_frame *fr,
		     int n, uint32_t *leaf)
{
	uint32_t id = 0;

	for (int i = n - 1; i >= 0; i--) {
		id = sf_id(run, id, fr[i].sym, fr[i].dso);
		if (!id)
			return -ENOMEM;
	}
	*leaf = id;
	return 0;
}

static int on_record(void *arg, const struct ktrace_sample *s)
{
	struct pf_run *run = arg;
	struct kt_json *j = run->j;
	struct ktrace_frame fr[MAX_FRAMES];
	const char *fields, *name;
	uint32_t leaf = 0;
	size_t len;
	int n;

	if (!run->any) {
		run->first = s->time;
		run->any = true;
	}
	if (s->time > run->last)
		run->last = s->time;
	if (s->type == KTRACE_SAMPLE_LOST) {
		char what[80];

		snprintf(what, sizeof(what), "lost %llu records (cpu %d)",
			 (unsigned long long)s->lost, s->cpu);
		ev_begin(run, "i", what, s->time, 0, 0);
		kt_jstr(j, "s", "g");
		kt_json_object_end(j);
		return 0;
	}
	if (s->event == run->switch_ev) {
		/* without the fields a slice needs: an instant like others */
		int ret = on_switch(run, s);

		if (ret != -EINVAL)
			return run->error = ret;
	}
	cpu_evidence(run, s);
	if (task_note(run, s->pid, s->tid))
		return run->error = -ENOMEM;
	n = ktrace_record_frames(run->rec, s, fr, MAX_FRAMES);
	/* a sampling event's own address is its only frame when no -g */
	if (n && put_stack(run, fr, n, &leaf))
		return run->error = -ENOMEM;
	name = ktrace_record_event_name(run->rec, s->event);
	ev_begin(run, "i", name ? name : "?", s->time, s->pid, s->tid);
	kt_jstr(j, "s", "t");
	if (leaf) {
		char id[16];

		snprintf(id, sizeof(id), "%u", leaf);
		kt_jstr(j, "sf", id);
	}
	kt_json_key(j, "args");
	kt_json_object_begin(j);
	kt_jint(j, "cpu", s->cpu);
	if (s->period)
		kt_juint(j, "period", s->period);
	fields = ktrace_record_fields_json(run->rec, s, &len);
	if (fields && len > 2) {		/* not "{}" (a sampling event) */
		kt_json_key(j, "fields");
		kt_json_raw(j, fields, len);
	}
	if (n) {
		kt_json_key(j, "stack");
		kt_json_array_begin(j);
		for (int i = 0; i < n; i++) {
			char line[512];

			snprintf(line, sizeof(line), "%s (%s)%s", fr[i].sym,
				 fr[i].dso, fr[i].inlined ? " (inlined)" : "");
			kt_json_string(j, line);
		}
		kt_json_array_end(j);
	}
	kt_json_object_end(j);
	kt_json_object_end(j);
	return 0;
}

static const char *ksym(const struct kt_symtab *t, uint64_t addr, char *buf,
			size_t len)
{
	const char *name = kt_symtab_find(t, addr, NULL);

	if (name)
		return name;
	snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return buf;
}

/* A record of ktrace ftrace's file: a call's slice when it returns, a
 * traced function's instant. */
static int on_frec(void *arg, const struct kt_frec *r)
{
	struct pf_run *run = arg;
	const struct kt_symtab *t = kt_ftfile_ksyms(run->rec);
	uint64_t dur = r->rettime > r->calltime ? r->rettime - r->calltime : 0;
	uint64_t start = r->ts > dur ? r->ts - dur : 0;
	char b1[32], b2[32], what[160];

	if (r->type == KT_FREC_ENTRY)
		return 0;
	if (!run->any || start < run->first)
		run->first = r->type == KT_FREC_EXIT ? start : r->ts;
	run->any = true;
	if (r->ts > run->last)
		run->last = r->ts;
	if (task_note(run, r->pid, r->pid))
		return run->error = -ENOMEM;
	if (r->type == KT_FREC_FUNC) {
		snprintf(what, sizeof(what), "%s <- %s",
			 ksym(t, r->ip, b1, sizeof(b1)),
			 ksym(t, r->parent, b2, sizeof(b2)));
		ev_begin(run, "i", what, r->ts, r->pid, r->pid);
		kt_jstr(run->j, "s", "t");
	} else {
		ev_begin(run, "X", ksym(t, r->ip, b1, sizeof(b1)), start,
			 r->pid, r->pid);
		put_ts(run->j, "dur", dur);
	}
	kt_jstr(run->j, "cat", "ftrace");
	kt_json_key(run->j, "args");
	kt_json_object_begin(run->j);
	kt_jint(run->j, "cpu", r->cpu);
	if (r->type == KT_FREC_EXIT)
		kt_jint(run->j, "depth", r->depth);
	kt_json_object_end(run->j);
	kt_json_object_end(run->j);
	return 0;
}

static void meta(struct pf_run *run, const char *what, int pid, int tid,
		 const char *key, const char *value, long long sort)
{
	struct kt_json *j = run->j;

	kt_json_object_begin(j);
	kt_jstr(j, "ph", "M");
	kt_jstr(j, "name", what);
	kt_jint(j, "pid", pid);
	kt_jint(j, "tid", tid);
	kt_json_key(j, "args");
	kt_json_object_begin(j);
	if (key)
		kt_jstr(j, key, value);
	else
		kt_jint(j, "sort_index", sort);
	kt_json_object_end(j);
	kt_json_object_end(j);
}

static void write_tail(struct pf_run *run)
{
	struct kt_json *j = run->j;
	char name[32];

	for (int c = 0; c < run->nr_cpus; c++) {
		struct cpu_track *t = &run->cpus[c];

		if (!t->seen)
			continue;
		if (!t->other || t->other_at < t->start) {
			cpu_slice(run, c, run->last, NULL);
			continue;
		}
		/* a switch after the last one recorded was not */
		run->missed++;
		ktrace_record_comm(run->rec, t->other_tid, name, sizeof(name));
		slice_put(run, c, t->comm, t->tid, t->start, t->other_at, NULL,
			  "its end: the next switch was not recorded");
		slice_put(run, c, name, t->other_tid, t->other_at, run->last,
			  NULL, "its start: it ran from its first record on");
	}
	if (run->nr_cpus) {
		meta(run, "process_name", KT_CPU_PID, 0, "name", "CPUs", 0);
		meta(run, "process_sort_index", KT_CPU_PID, 0, NULL, NULL, -1);
	}
	for (int c = 0; c < run->nr_cpus; c++) {
		if (!run->cpus[c].seen)
			continue;
		snprintf(name, sizeof(name), "CPU %d", c);
		meta(run, "thread_name", KT_CPU_PID, KT_CPU_PID + c, "name",
		     name, 0);
		meta(run, "thread_sort_index", KT_CPU_PID, KT_CPU_PID + c,
		     NULL, NULL, c);
	}
	for (size_t i = 0; i < run->task_cap; i++) {
		const struct task *t = &run->tasks[i];

		if (!t->used)
			continue;
		ktrace_record_comm(run->rec, t->tid, name, sizeof(name));
		meta(run, "thread_name", t->pid, t->tid, "name", name, 0);
		if (t->pid == t->tid)
			meta(run, "process_name", t->pid, t->tid, "name",
			     name, 0);
	}
	kt_json_array_end(j);
	kt_jstr(j, "displayTimeUnit", "ns");
	kt_json_key(j, "stackFrames");
	kt_json_object_begin(j);
	for (uint32_t id = 1; id <= run->nr_sf; id++) {
		const struct sf_node *n = &run->sf[id - 1];
		char key[16];

		snprintf(key, sizeof(key), "%u", id);
		kt_json_key(j, key);
		kt_json_object_begin(j);
		kt_jstr(j, "name", n->name);
		kt_jstr(j, "category", n->dso);
		if (n->parent) {
			snprintf(key, sizeof(key), "%u", n->parent);
			kt_jstr(j, "parent", key);
		}
		kt_json_object_end(j);
	}
	kt_json_object_end(j);
	kt_json_key(j, "otherData");
	kt_json_object_begin(j);
	kt_jstr(j, "tool", "ktrace " KTRACE_VERSION);
	kt_jstr(j, "command", ktrace_record_meta(run->rec, "command"));
	kt_jstr(j, "kernel", ktrace_record_meta(run->rec, "kernel"));
	kt_json_object_end(j);
	kt_json_object_end(j);
}

long kt_perfetto_write(struct kt_ctx *ctx, struct ktrace_record *rec,
		       FILE *f, int *error, unsigned long *missed)
{
	struct pf_run run = { .ctx = ctx, .rec = rec, .switch_ev = -1 };
	long n;
	int ret;

	for (int i = 0; i < ktrace_record_nr_events(rec); i++) {
		const char *name = ktrace_record_event_name(rec, i);

		if (name && !strcmp(name, "sched:sched_switch"))
			run.switch_ev = i;
	}
	run.j = kt_json_alloc(f);
	if (!run.j) {
		*error = -ENOMEM;
		return 0;
	}
	kt_json_set_long_arrays(run.j, true);
	kt_json_object_begin(run.j);
	kt_json_key(run.j, "traceEvents");
	kt_json_array_begin(run.j);
	n = ktrace_record_meta(rec, "tracer") ?
	    kt_ftfile_replay(rec, on_frec, &run) :
	    ktrace_record_replay(rec, on_record, &run, NULL, NULL);
	if (n >= 0 && !run.error)
		write_tail(&run);
	ret = kt_json_free(run.j);
	*error = run.error ? run.error : ret;
	*missed = run.missed;
	for (uint32_t i = 0; i < run.nr_sf; i++) {
		free(run.sf[i].name);
		free(run.sf[i].dso);
	}
	free(run.sf);
	free(run.sf_hash);
	free(run.tasks);
	free(run.cpus);
	return n;
}
