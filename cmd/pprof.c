// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktrace report --pprof FILE: a recording's stacks as a profile in pprof's
 * format (a gzip-compressed perftools.profiles.Profile, cmd/pprof.proto,
 * packed by protobuf-c), which `go tool pprof`, Pyroscope and Parca read.
 *
 * What goes where:
 *  - a sample per distinct (event, process, stack), its values summed: per
 *    event a "samples" column (count) and, for a sampling event, its
 *    period ("cpu" in nanoseconds for cpu-clock and task-clock, "events"
 *    counted for the others); with more than one event, the column names
 *    end in ":EVENT"; labels "comm" and "pid";
 *  - a location per (mapping, address): a stack's frames at one address
 *    are its lines, the inlined functions first and the function they
 *    were inlined into last, as pprof orders them; an address no symbol
 *    holds has no line (pprof shows it as an address);
 *  - a mapping per mapped file range (user space, from the recording's
 *    mappings: start, limit, file offset, path, build-id) and one per
 *    kernel image or module, spanning the addresses seen;
 *  - a function per (name, source file), names as ktrace prints them,
 *    its linkage name, file and start line from the recording's source
 *    lines (USRC, read from DWARF by record), which also give each line
 *    its number.
 * Records without an address (a tracepoint recorded without -g) have no
 * stack to profile: they are left out and counted; a recording with none
 * but such records is refused.
 *
 * Everything is built in memory (ids are indices + 1), packed, then
 * written, so a refused or failed profile leaves no file.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "ktrace_cmd.h"
#include "record/symbolize.h"
#include "pprof.pb-c.h"

#define MAX_FRAMES 256

typedef Perftools__Profiles__Function pp_func;
typedef Perftools__Profiles__Mapping pp_map;
typedef Perftools__Profiles__Location pp_loc;
typedef Perftools__Profiles__Line pp_line;

/* A table of byte keys to ids 1..n (open addressing on a 64-bit hash). */
struct pp_ent {
	uint64_t h;
	char *key;		/* NULL: free */
	size_t len;
	uint32_t id;
};

struct pp_tab {
	struct pp_ent *v;
	size_t cap, n;
};

/* An aggregated sample: its stack and what it counts. */
struct pp_sample {
	uint64_t *locs;
	size_t nlocs;
	int event, pid;
	int64_t comm;		/* string index */
	uint64_t samples, period;
};

struct pp_run {
	struct ktrace_record *rec;
	struct pp_tab strs, funcs, maps, locs, samples;
	char **str;		/* the string table, by index */
	pp_func *func;		/* by id - 1 */
	pp_map *map;
	pp_loc *loc;
	struct pp_sample *smp;
	size_t cap_str, cap_func, cap_map, cap_loc, cap_smp;
	bool *event_seen;	/* by event index: it has samples */
	int nr_events;
	uint64_t first, last;	/* record times */
	bool any;
	unsigned long long no_stack;	/* records without an address */
	uint64_t main_map;	/* the first stack's outermost user mapping */
	int error;
};

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 14695981039346656037ull;

	while (n--)
		h = (h ^ *c++) * 1099511628211ull;
	return h;
}

static int tab_grow(struct pp_tab *t)
{
	size_t cap = t->cap ? 2 * t->cap : 1024;
	struct pp_ent *nv = calloc(cap, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	for (size_t j = 0; j < t->cap; j++) {
		size_t i = t->v[j].h & (cap - 1);

		if (!t->v[j].key)
			continue;
		while (nv[i].key)
			i = (i + 1) & (cap - 1);
		nv[i] = t->v[j];
	}
	free(t->v);
	t->v = nv;
	t->cap = cap;
	return 0;
}

/*
 * The id of key[len] in t; a new key gets id n + 1 and *fresh is set.
 * 0: out of memory.
 */
static uint32_t tab_id(struct pp_tab *t, const void *key, size_t len,
		       bool *fresh)
{
	uint64_t h = hash_bytes(key, len);
	size_t i;

	*fresh = false;
	if (2 * (t->n + 1) > t->cap && tab_grow(t))
		return 0;
	for (i = h & (t->cap - 1); t->v[i].key; i = (i + 1) & (t->cap - 1))
		if (t->v[i].h == h && t->v[i].len == len &&
		    !memcmp(t->v[i].key, key, len))
			return t->v[i].id;
	t->v[i].key = malloc(len ? len : 1);
	if (!t->v[i].key)
		return 0;
	memcpy(t->v[i].key, key, len);
	t->v[i].h = h;
	t->v[i].len = len;
	t->v[i].id = ++t->n;
	*fresh = true;
	return t->v[i].id;
}

static void tab_free(struct pp_tab *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i].key);
	free(t->v);
}

/* Room for n elements of size sz in *v (capacity *cap); 0 or -ENOMEM. */
static int vec_room(void *v, size_t *cap, size_t n, size_t sz)
{
	void **p = v;
	size_t c = *cap ? *cap : 64;
	void *nv;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	nv = realloc(*p, c * sz);
	if (!nv)
		return -ENOMEM;
	*p = nv;
	*cap = c;
	return 0;
}

/* The string table index of s; -1: out of memory. */
static int64_t str_idx(struct pp_run *run, const char *s)
{
	bool fresh;
	uint32_t id = tab_id(&run->strs, s, strlen(s), &fresh);

	if (!id || (fresh && vec_room(&run->str, &run->cap_str, id,
				      sizeof(*run->str))))
		return -1;
	if (fresh) {
		run->str[id - 1] = strdup(s);
		if (!run->str[id - 1])
			return -1;
	}
	return id - 1;	/* "" was added first: id 1 is index 0 */
}

/* The id of function name of src (its file, start, linkage name); 0: out
 * of memory. */
static uint64_t func_id(struct pp_run *run, const char *name,
			const struct kt_src *src)
{
	int64_t key[2] = { str_idx(run, name),
			   str_idx(run, src->file ? src->file : "") };
	int64_t sys = str_idx(run, src->sysname ? src->sysname : name);
	bool fresh;
	uint32_t id;

	if (key[0] < 0 || key[1] < 0 || sys < 0)
		return 0;
	id = tab_id(&run->funcs, key, sizeof(key), &fresh);
	if (!id || (fresh && vec_room(&run->func, &run->cap_func, id,
				      sizeof(*run->func))))
		return 0;
	if (fresh) {
		pp_func *f = &run->func[id - 1];

		perftools__profiles__function__init(f);
		f->id = id;
		f->name = key[0];
		f->system_name = sys;
		f->filename = key[1];
		f->start_line = src->start;
	}
	return id;
}

/*
 * The id of the mapping of frame f of pid: the user mapping it lies in,
 * or its kernel image (a range grown to the addresses seen); 0 when
 * there is none, -1 (as uint64_t) out of memory.
 */
static uint64_t map_id(struct pp_run *run, int pid, const struct ktrace_frame *f)
{
	const struct kt_map *m = kt_record_user_map(run->rec, pid, f->ip);
	struct { int64_t path; uint64_t start, len, pgoff; } key = { 0 };
	bool fresh, kernel = !m && kt_kernel_ip(f->ip);
	uint32_t id;
	pp_map *mp;

	if (!m && !kernel)
		return 0;
	key.path = str_idx(run, m ? m->path : f->dso);
	if (key.path < 0)
		return (uint64_t)-1;
	if (m) {
		key.start = m->start;
		key.len = m->len;
		key.pgoff = m->pgoff;
	}
	id = tab_id(&run->maps, &key, sizeof(key), &fresh);
	if (!id || (fresh && vec_room(&run->map, &run->cap_map, id,
				      sizeof(*run->map))))
		return (uint64_t)-1;
	mp = &run->map[id - 1];
	if (fresh) {
		perftools__profiles__mapping__init(mp);
		mp->id = id;
		mp->filename = key.path;
		mp->memory_start = m ? m->start : f->ip;
		mp->memory_limit = m ? m->start + m->len : f->ip + 1;
		mp->file_offset = key.pgoff;
		if (m && kt_record_build_id(run->rec, m->path))
			mp->build_id = str_idx(run, kt_record_build_id(
						run->rec, m->path));
		if (mp->build_id < 0)
			return (uint64_t)-1;
	} else if (kernel) {
		if (f->ip < mp->memory_start)
			mp->memory_start = f->ip;
		if (f->ip >= mp->memory_limit)
			mp->memory_limit = f->ip + 1;
	}
	return id;
}

/* The location's lines: the frames fr[0..n) of pid, innermost first. */
static int loc_lines(struct pp_run *run, int pid, pp_loc *l, pp_map *mp,
		     const struct ktrace_frame *fr, int n)
{
	if (!strcmp(fr[n - 1].sym, "[unknown]"))
		return 0;	/* no symbol: an address only */
	l->line = calloc(n, sizeof(*l->line));
	if (!l->line)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		pp_line *ln = malloc(sizeof(*ln));
		struct kt_src src;

		if (!ln)
			return -ENOMEM;
		perftools__profiles__line__init(ln);
		l->line[l->n_line++] = ln;
		kt_record_user_src(run->rec, pid, fr[i].ip, i, &src);
		ln->function_id = func_id(run, fr[i].sym, &src);
		ln->line = src.line;
		if (!ln->function_id)
			return -ENOMEM;
		if (mp) {
			mp->has_filenames |= src.file != NULL;
			mp->has_line_numbers |= src.line > 0;
		}
	}
	if (mp) {
		mp->has_functions = true;
		mp->has_inline_frames |= n > 1;
	}
	return 0;
}

/*
 * The id of the location of frames fr[0..n) (one address: the inlined
 * ones and their caller) of pid; 0: out of memory.
 */
static uint64_t loc_id(struct pp_run *run, int pid,
		       const struct ktrace_frame *fr, int n)
{
	const struct ktrace_frame *f = &fr[n - 1];
	uint64_t key[2] = { map_id(run, pid, f), f->ip };
	bool fresh;
	uint32_t id;
	pp_loc *l;

	if (key[0] == (uint64_t)-1)
		return 0;
	id = tab_id(&run->locs, key, sizeof(key), &fresh);
	if (!id || (fresh && vec_room(&run->loc, &run->cap_loc, id,
				      sizeof(*run->loc))))
		return 0;
	if (!fresh)
		return id;
	l = &run->loc[id - 1];
	perftools__profiles__location__init(l);
	l->id = id;
	l->mapping_id = key[0];
	l->address = f->ip;
	return loc_lines(run, pid, l, key[0] ? &run->map[key[0] - 1] : NULL,
			 fr, n) ? 0 : id;
}

/* The sample of (event, pid, comm, locs[0..n)) gets s's count. */
static int sample_add(struct pp_run *run, const struct ktrace_sample *s,
		      const uint64_t *locs, size_t n)
{
	char comm[32];
	int64_t c;
	uint64_t *key;
	struct pp_sample *sm;
	size_t klen = (n + 3) * sizeof(*key);
	bool fresh;
	uint32_t id;

	ktrace_record_comm(run->rec, s->tid, comm, sizeof(comm));
	c = str_idx(run, comm);
	key = malloc(klen);
	if (c < 0 || !key) {
		free(key);
		return -ENOMEM;
	}
	key[0] = (uint64_t)s->event;
	key[1] = (uint64_t)s->pid;
	key[2] = (uint64_t)c;
	memcpy(key + 3, locs, n * sizeof(*key));
	id = tab_id(&run->samples, key, klen, &fresh);
	free(key);
	if (!id || (fresh && vec_room(&run->smp, &run->cap_smp, id,
				      sizeof(*run->smp))))
		return -ENOMEM;
	sm = &run->smp[id - 1];
	if (fresh) {
		memset(sm, 0, sizeof(*sm));
		sm->locs = malloc(n * sizeof(*locs));
		if (!sm->locs)
			return -ENOMEM;
		memcpy(sm->locs, locs, n * sizeof(*locs));
		sm->nlocs = n;
		sm->event = s->event;
		sm->pid = s->pid;
		sm->comm = c;
	}
	sm->samples++;
	sm->period += s->period ? s->period : 1;
	return 0;
}

static int on_sample(void *arg, const struct ktrace_sample *s)
{
	struct pp_run *run = arg;
	struct ktrace_frame fr[MAX_FRAMES];
	uint64_t locs[MAX_FRAMES];
	int n, nl = 0;

	if (s->type != KTRACE_SAMPLE_EVENT)
		return 0;
	if (!run->any)
		run->first = s->time;
	run->any = true;
	if (s->time > run->last)
		run->last = s->time;
	n = ktrace_record_frames(run->rec, s, fr, MAX_FRAMES);
	if (!n) {
		run->no_stack++;
		return 0;
	}
	for (int i = 0; i < n; ) {
		int j = i;

		/* inlined frames share their caller's address */
		while (fr[j].inlined && j + 1 < n)
			j++;
		locs[nl] = loc_id(run, s->pid, fr + i, j - i + 1);
		if (!locs[nl++])
			return run->error = -ENOMEM;
		i = j + 1;
	}
	if (s->event >= 0 && s->event < run->nr_events)
		run->event_seen[s->event] = true;
	/* pprof takes the first mapping for the program: the one of the
	 * first stack's outermost user frame (its _start, main...) */
	for (int i = nl - 1; i >= 0 && !run->main_map; i--) {
		const pp_loc *l = &run->loc[locs[i] - 1];

		if (l->mapping_id && !kt_kernel_ip(l->address))
			run->main_map = l->mapping_id;
	}
	if (sample_add(run, s, locs, nl))
		return run->error = -ENOMEM;
	return 0;
}

/* The value columns: per event seen, samples and, if any, its period. */
struct pp_cols {
	Perftools__Profiles__ValueType *vt;	/* by column */
	int n;
	int *samples, *period;	/* by event: its columns, -1: none */
	int first;		/* the first event seen, */
	int dflt;		/* and its period's column, or samples' */
};

static int col_add(struct pp_run *run, struct pp_cols *c, const char *type,
		   const char *event, bool multi, const char *unit)
{
	char name[256];
	Perftools__Profiles__ValueType *v = &c->vt[c->n];

	snprintf(name, sizeof(name), "%s%s%s", type, multi ? ":" : "",
		 multi ? event : "");
	perftools__profiles__value_type__init(v);
	v->type = str_idx(run, name);
	v->unit = str_idx(run, unit);
	if (v->type < 0 || v->unit < 0)
		return -ENOMEM;
	return c->n++;
}

static int cols_make(struct pp_run *run, struct pp_cols *c)
{
	int seen = 0;

	c->first = -1;
	for (int e = 0; e < run->nr_events; e++)
		seen += run->event_seen[e];
	c->vt = calloc(2 * seen + 1, sizeof(*c->vt));
	c->samples = malloc(run->nr_events * sizeof(int) + 1);
	c->period = malloc(run->nr_events * sizeof(int) + 1);
	if (!c->vt || !c->samples || !c->period)
		return -ENOMEM;
	for (int e = 0; e < run->nr_events; e++) {
		const char *name = ktrace_record_event_name(run->rec, e);
		enum kt_period_unit u = kt_record_period_unit(run->rec, e);

		c->samples[e] = c->period[e] = -1;
		if (!run->event_seen[e])
			continue;
		if (!name)
			name = "?";
		c->samples[e] = col_add(run, c, "samples", name, seen > 1,
					"count");
		if (u == KT_PERIOD_NS)
			c->period[e] = col_add(run, c, "cpu", name, seen > 1,
					       "nanoseconds");
		else if (u == KT_PERIOD_EVENTS)
			c->period[e] = col_add(run, c, "events", name,
					       seen > 1, "count");
		if (c->samples[e] < 0 || c->period[e] < -1)
			return -ENOMEM;
		if (c->first < 0) {
			c->first = e;
			c->dflt = c->period[e] >= 0 ? c->period[e] :
						      c->samples[e];
		}
	}
	return c->first < 0 ? -ENODATA : 0;
}

static void cols_free(struct pp_cols *c)
{
	free(c->vt);
	free(c->samples);
	free(c->period);
}

/* period_type, period and default_sample_type: the first event's. */
static int profile_period(struct pp_run *run, const struct pp_cols *c,
			  Perftools__Profiles__Profile *p,
			  Perftools__Profiles__ValueType *pt)
{
	uint64_t samples = 0, period = 0;
	int e = c->first;

	for (size_t i = 0; i < run->samples.n; i++)
		if (run->smp[i].event == e) {
			samples += run->smp[i].samples;
			period += run->smp[i].period;
		}
	perftools__profiles__value_type__init(pt);
	if (kt_record_period_unit(run->rec, e) == KT_PERIOD_NS) {
		pt->type = str_idx(run, "cpu");
		pt->unit = str_idx(run, "nanoseconds");
	} else {
		const char *name = ktrace_record_event_name(run->rec, e);

		pt->type = str_idx(run, name ? name : "?");
		pt->unit = str_idx(run, "count");
	}
	p->period_type = pt;
	/* with -F the period varies from sample to sample: the mean */
	p->period = samples ? (int64_t)(period / samples) : 0;
	p->default_sample_type = c->vt[c->dflt].type;
	return pt->type < 0 || pt->unit < 0 ? -ENOMEM : 0;
}

/* The samples as messages (values by column, labels comm and pid). */
static Perftools__Profiles__Sample **samples_make(struct pp_run *run,
						  const struct pp_cols *c)
{
	Perftools__Profiles__Sample **v = calloc(run->samples.n + 1,
						 sizeof(*v));
	int64_t kcomm = str_idx(run, "comm"), kpid = str_idx(run, "pid");

	if (!v || kcomm < 0 || kpid < 0)
		goto fail;
	for (size_t i = 0; i < run->samples.n; i++) {
		const struct pp_sample *sm = &run->smp[i];
		Perftools__Profiles__Sample *ps;
		Perftools__Profiles__Label *lb;

		/* one allocation: the sample, its labels and their table */
		ps = calloc(1, sizeof(*ps) + 2 * sizeof(*lb) +
			    2 * sizeof(lb) + c->n * sizeof(int64_t));
		if (!ps)
			goto fail;
		v[i] = ps;
		perftools__profiles__sample__init(ps);
		lb = (void *)(ps + 1);
		ps->label = (void *)(lb + 2);
		ps->value = (void *)(ps->label + 2);
		ps->n_value = c->n;
		ps->value[c->samples[sm->event]] = (int64_t)sm->samples;
		if (c->period[sm->event] >= 0)
			ps->value[c->period[sm->event]] = (int64_t)sm->period;
		ps->location_id = sm->locs;
		ps->n_location_id = sm->nlocs;
		for (int k = 0; k < 2; k++) {
			perftools__profiles__label__init(&lb[k]);
			ps->label[k] = &lb[k];
		}
		ps->n_label = 2;
		lb[0].key = kcomm;
		lb[0].str = sm->comm;
		lb[1].key = kpid;
		lb[1].num = sm->pid;
	}
	return v;
fail:
	for (size_t i = 0; v && i < run->samples.n; i++)
		free(v[i]);
	free(v);
	return NULL;
}

/* time_nanos from the recording's clock pair (META "clock"), duration. */
static void profile_time(struct pp_run *run, Perftools__Profiles__Profile *p)
{
	const char *clk = ktrace_record_meta(run->rec, "clock");
	unsigned long long rt, mono;

	if (clk && sscanf(clk, "%llu %llu", &rt, &mono) == 2 && rt > mono)
		p->time_nanos = (int64_t)(rt - mono + run->first);
	p->duration_nanos = (int64_t)(run->last - run->first);
}

/* Comments: what made the profile, of which recording. */
static int profile_comments(struct pp_run *run,
			    Perftools__Profiles__Profile *p, int64_t *v,
			    const char *input)
{
	static const char *const keys[] = { "command", "kernel" };
	char line[512];

	snprintf(line, sizeof(line), "ktrace %s report --pprof of %s",
		 KTRACE_VERSION, input);
	v[p->n_comment++] = str_idx(run, line);
	for (int i = 0; i < 2; i++) {
		const char *val = ktrace_record_meta(run->rec, keys[i]);

		if (!val)
			continue;
		snprintf(line, sizeof(line), "%s: %s", keys[i], val);
		v[p->n_comment++] = str_idx(run, line);
	}
	p->comment = v;
	for (size_t i = 0; i < p->n_comment; i++)
		if (v[i] < 0)
			return -ENOMEM;
	return 0;
}

/* Pointers to the elements of vec[0..n) of size sz, for the message. */
static void *ptrs(void *vec, size_t n, size_t sz)
{
	void **v = calloc(n + 1, sizeof(*v));

	for (size_t i = 0; v && i < n; i++)
		v[i] = (char *)vec + i * sz;
	return v;
}

/* The packed profile gzip-compressed into path ('-': standard output). */
static int write_gz(const char *path, const uint8_t *buf, size_t len)
{
	int fd = strcmp(path, "-") ? -1 : dup(STDOUT_FILENO);
	bool made = fd < 0 && access(path, F_OK);	/* made here */
	gzFile gz;
	int ret = 0;

	errno = 0;
	gz = fd >= 0 ? gzdopen(fd, "wb") :
	     strcmp(path, "-") ? gzopen(path, "wbe") : NULL;
	if (!gz) {
		ret = errno ? -errno : -ENOMEM;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	while (len && !ret) {
		unsigned int n = len > (1u << 30) ? 1u << 30 : (unsigned int)len;

		if (gzwrite(gz, buf, n) != (int)n)
			ret = errno ? -errno : -EIO;
		buf += n;
		len -= n;
	}
	if (gzclose(gz) != Z_OK && !ret)
		ret = errno ? -errno : -EIO;
	if (ret && made)
		unlink(path);	/* no half profile (a full disk) */
	return ret;
}

/* Everything the run gathered as one Profile, packed and written. */
static int profile_write(struct pp_run *run, const char *path,
			 const char *input)
{
	Perftools__Profiles__Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType pt;
	struct pp_cols c = { 0 };
	int64_t comments[3];
	uint8_t *buf = NULL;
	int ret;

	ret = cols_make(run, &c);
	if (!ret)
		ret = profile_period(run, &c, &p, &pt);
	if (!ret)
		ret = profile_comments(run, &p, comments, input);
	profile_time(run, &p);
	p.sample_type = ptrs(c.vt, c.n, sizeof(*c.vt));
	p.n_sample_type = c.n;
	p.sample = samples_make(run, &c);
	p.n_sample = run->samples.n;
	p.mapping = ptrs(run->map, run->maps.n, sizeof(*run->map));
	p.n_mapping = run->maps.n;
	if (p.mapping && run->main_map > 1) {	/* the program's first */
		void *m = p.mapping[run->main_map - 1];

		p.mapping[run->main_map - 1] = p.mapping[0];
		p.mapping[0] = m;
	}
	p.location = ptrs(run->loc, run->locs.n, sizeof(*run->loc));
	p.n_location = run->locs.n;
	p.function = ptrs(run->func, run->funcs.n, sizeof(*run->func));
	p.n_function = run->funcs.n;
	p.string_table = run->str;
	p.n_string_table = run->strs.n;
	if (!ret && (!p.sample_type || !p.sample || !p.mapping ||
		     !p.location || !p.function))
		ret = -ENOMEM;
	if (!ret) {
		size_t len = perftools__profiles__profile__get_packed_size(&p);

		buf = malloc(len ? len : 1);
		ret = buf ? 0 : -ENOMEM;
		if (buf)
			perftools__profiles__profile__pack(&p, buf);
		if (buf)
			ret = write_gz(path, buf, len);
	}
	free(buf);
	for (size_t i = 0; p.sample && i < p.n_sample; i++)
		free(p.sample[i]);	/* its locations are run's */
	free(p.sample);
	free(p.sample_type);
	free(p.mapping);
	free(p.location);
	free(p.function);
	cols_free(&c);
	return ret;
}

static void run_free(struct pp_run *run)
{
	for (size_t i = 0; i < run->strs.n; i++)
		free(run->str[i]);
	for (size_t i = 0; i < run->locs.n; i++) {
		for (size_t k = 0; k < run->loc[i].n_line; k++)
			free(run->loc[i].line[k]);
		free(run->loc[i].line);
	}
	for (size_t i = 0; i < run->samples.n; i++)
		free(run->smp[i].locs);
	free(run->str);
	free(run->func);
	free(run->map);
	free(run->loc);
	free(run->smp);
	free(run->event_seen);
	tab_free(&run->strs);
	tab_free(&run->funcs);
	tab_free(&run->maps);
	tab_free(&run->locs);
	tab_free(&run->samples);
}

long kt_pprof_write(struct ktrace_record *rec, const char *path,
		    const char *input, int *error,
		    unsigned long long *no_stack)
{
	struct pp_run run = { .rec = rec };
	long n = 0;

	run.nr_events = ktrace_record_nr_events(rec);
	run.event_seen = calloc(run.nr_events + 1, sizeof(bool));
	/* string 0 is "" */
	*error = !run.event_seen || str_idx(&run, "") ? -ENOMEM : 0;
	if (!*error)
		n = ktrace_record_replay(rec, on_sample, &run, NULL, NULL);
	if (!*error && n >= 0)
		*error = run.error;
	if (!*error && n >= 0 && !run.samples.n)
		*error = -ENODATA;
	if (!*error && n >= 0)
		*error = profile_write(&run, path, input);
	*no_stack = run.no_stack;
	run_free(&run);
	return n;
}
