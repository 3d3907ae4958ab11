// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Call stacks of recorded samples: kernel frames from kallsyms (module
 * symbols too), user frames through the binaries announced by MMAP2
 * records, so that a process that has already exited still resolves.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-seq.h>

#include "base/internal.h"
#include "record/record.h"
#include "sym/symtab.h"
#include "sym/unwind.h"
#include "kfile/kfile.h"

void kt_record_note_mmap(struct ktrace_record *r,
			 const struct perf_event_header *h, uint64_t time)
{
	const struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_gen;
		uint32_t prot, flags;
		char filename[];
	} *m = (const void *)h;
	size_t max;

	if (h->size <= sizeof(*m))
		return;
	max = h->size - sizeof(*m);
	/* files only: "//anon" is the kernel's name for anonymous memory
	 * (JIT code, named by /tmp/perf-PID.map instead) */
	if (!memchr(m->filename, '\0', max) || !(m->prot & 4 /* PROT_EXEC */) ||
	    (strcmp(m->filename, KT_VDSO_NAME) &&
	     (m->filename[0] != '/' || !strncmp(m->filename, "//", 2))))
		return;
	kt_record_add_map(r, m->pid, m->addr, m->len, m->pgoff, m->filename,
			  false, time);
	kt_unwind_forget(r->unwind, m->pid);
}

/* Most user frames kept from a DWARF unwind (perf's default max-stack). */
#define UW_MAX_FRAMES 127

const struct perf_event_header *
kt_record_unwind(struct ktrace_record *r, const struct perf_event_header *h)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;
	const unsigned char *chain, *raw = NULL, *raw_end = NULL;
	uint64_t st = r->raw_sample_type, nr = 0, abi = 0, size, dyn;
	uint64_t uips[UW_MAX_FRAMES];
	struct kt_ustack us = { 0 };
	struct perf_event_header *nh;
	size_t need, prefix;
	unsigned char *o;
	int nu = 0;

#define NEED(n) do { if (p > end || (size_t)(end - p) < (size_t)(n)) return NULL; } while (0)
	/* The fields before the callchain: only TID is needed here. */
	if (st & PERF_SAMPLE_IDENTIFIER)
		p += 8;
	if (st & PERF_SAMPLE_IP)
		p += 8;
	if (st & PERF_SAMPLE_TID) {
		NEED(8);
		us.pid = ((const int32_t *)p)[0];
		us.tid = ((const int32_t *)p)[1];
		p += 8;
	}
	us.time = UINT64_MAX;	/* untimed: every mapping known */
	if (st & PERF_SAMPLE_TIME) {
		NEED(8);
		memcpy(&us.time, p, 8);
		p += 8;
	}
	p += 8 * (!!(st & PERF_SAMPLE_ADDR) +
		  !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
		  !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_PERIOD));
	chain = p;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(8);
		memcpy(&nr, p, 8);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return NULL;
		p += nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t sz;

		raw = p;
		NEED(4);
		memcpy(&sz, p, 4);
		p += 4;
		NEED(sz);
		p += sz;
		raw_end = p;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		NEED(8);
		memcpy(&abi, p, 8);
		p += 8;
		if (abi) {
			int n = __builtin_popcountll(r->uw_regs_mask);

			NEED(8 * n);
			us.regs = (const uint64_t *)p;
			us.regs_mask = r->uw_regs_mask;
			p += 8 * n;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		NEED(8);
		memcpy(&size, p, 8);
		p += 8;
		if (size) {
			NEED(size);
			us.stack = p;
			p += size;
			NEED(8);
			memcpy(&dyn, p, 8);
			us.stack_size = dyn < size ? dyn : size;
		}
	}
#undef NEED
	/* A sample taken in the kernel for a kernel thread has no user
	 * registers (abi 0): no user frames. */
	if (us.regs && us.stack)
		nu = kt_unwind_user(r->unwind, r->maps, r->nr_maps, &us, uips,
				    UW_MAX_FRAMES);
	prefix = chain - (const unsigned char *)(h + 1);
	need = sizeof(*h) + prefix + 8 + (nr + 1 + nu) * 8 +
	       (raw ? raw_end - raw : 0);
	need = (need + 7) & ~(size_t)7;
	if (need > 65535)
		return NULL;
	if (need > r->uw_rec_cap) {
		unsigned char *nb = realloc(r->uw_rec, need);

		if (!nb)
			return NULL;
		r->uw_rec = nb;
		r->uw_rec_cap = need;
	}
	nh = (struct perf_event_header *)r->uw_rec;
	*nh = *h;
	o = (unsigned char *)(nh + 1);
	memcpy(o, h + 1, prefix);
	o += prefix;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t total = nr + (nu ? nu + 1 : 0);
		uint64_t marker = PERF_CONTEXT_USER;

		memcpy(o, &total, 8);
		memcpy(o + 8, chain + 8, nr * 8);
		o += 8 + nr * 8;
		if (nu) {
			memcpy(o, &marker, 8);
			memcpy(o + 8, uips, nu * 8);
			o += 8 + nu * 8;
		}
	}
	if (raw) {
		memcpy(o, raw, raw_end - raw);
		o += raw_end - raw;
	}
	while ((size_t)(o - r->uw_rec) < need)
		*o++ = 0;
	nh->size = need;
	return nh;
}

void kt_record_add_map(struct ktrace_record *r, int pid, uint64_t start,
		       uint64_t len, uint64_t pgoff, const char *path,
		       bool synth, uint64_t time)
{
	struct kt_map *nv = realloc(r->maps, (r->nr_maps + 1) * sizeof(*nv));

	if (!nv)
		return;
	r->maps = nv;
	nv[r->nr_maps].pid = pid;
	nv[r->nr_maps].start = start;
	nv[r->nr_maps].len = len;
	nv[r->nr_maps].pgoff = pgoff;
	nv[r->nr_maps].synth = synth;
	nv[r->nr_maps].time = time;
	nv[r->nr_maps].path = strdup(path);
	if (nv[r->nr_maps].path)
		r->nr_maps++;
	if (time > r->maps_newest)
		r->maps_newest = time;
	r->loc_map = -1;	/* a newer mapping may hide the last hit */
}

void kt_record_read_proc_maps(struct ktrace_record *r, int pid)
{
	char path[64], line[4352];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8], file[4096];

		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start,
			   &end, perms, &off, file) < 4)
			continue;
		if (perms[2] != 'x' ||
		    (file[0] != '/' && strcmp(file, KT_VDSO_NAME)))
			continue;
		kt_record_add_map(r, pid, start, end - start, off, file, true,
				  0);
	}
	fclose(f);
}

/* A frame's text by file address (see ubin_frame). */
struct fcache_ent {
	uint64_t off;		/* file offset of the address */
	char *text;		/* NULL: free slot */
	/* the text's lines as frames (ktrace_record_frames), made once */
	struct ktrace_frame *fr;
	int nfr;
};

/* One binary's symbols by virtual address plus its PT_LOAD segments. */
struct ubin_pf;

struct ubin {
	char *path;
	struct ubin_pf *pf;	/* being read by a thread of its own */
	struct kt_symtab syms;
	struct kt_segs segs;	/* PT_LOAD; a JIT map: one, off == vaddr */
	struct kt_dwarf_file *dw;	/* for inlined frames */
	bool dw_tried;
	bool loaded;		/* symbols and segments read (on first use:
				 * reading them while the rings fill, a
				 * libc debug file, costs records) */
	bool from_file;		/* frames from a recording, binary unread */
	struct fcache_ent *cache;	/* open addressing, cap a power of 2 */
	size_t cache_cap, cache_n;
	/* -o: file offsets the records need, named only at the end (DWARF
	 * loading while the rings fill costs records); UINT64_MAX: free */
	uint64_t *used;
	size_t used_cap, used_n;
};

struct ubins {
	struct ubin *v;
	int n;
};

/* The JIT map of a process: its "binary", where file offset = address. */
static bool is_perf_map(const char *path)
{
	int pid, n = 0;

	return sscanf(path, "/tmp/perf-%d.map%n", &pid, &n) == 1 &&
	       !path[n] && pid > 0;
}

static void ubin_load(struct ubin *b)
{
	Elf *elf;
	int fd;

	if (is_perf_map(b->path)) {
		kt_symtab_load_perf_map(&b->syms, b->path);
		kt_symtab_sort(&b->syms);
		b->segs.v = calloc(1, sizeof(*b->segs.v));
		if (b->segs.v) {
			/* off == vaddr */
			b->segs.v[0] = (struct kt_seg){ .filesz = UINT64_MAX,
							.exec = true };
			b->segs.n = 1;
		}
		b->dw_tried = true;	/* no DWARF */
		return;
	}

	elf_version(EV_CURRENT);
	/* Paths may come from an untrusted file: regular files only, and
	 * never block on a FIFO or a device. The vdso: ktrace's own. */
	fd = kt_open_regular(strcmp(b->path, KT_VDSO_NAME) ? b->path :
			     kt_vdso_path() ? kt_vdso_path() : "");
	if (fd < 0) {
		kt_symtab_sort(&b->syms);
		return;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		goto out;
	if (kt_segs_read(&b->segs, elf))
		kt_segs_free(&b->segs);
	/* A stripped binary (Debian's) names its local functions only in
	 * its separate debug file. */
	if (!kt_symtab_add_elf(&b->syms, elf))
		kt_symtab_add_debug(&b->syms, elf, b->path);
	elf_end(elf);
out:
	close(fd);
	kt_symtab_sort(&b->syms);
}

/*
 * Reading a binary's symbols and DWARF takes long: ~40 ms for libc's
 * debug file, whose sections libdw inflates at once. Done at the first
 * frame printed, the rings fill meanwhile and records are lost. So when a
 * mapping of a binary is taken from the rings (DWARF stacks, live), a
 * thread of its own reads it into a ubin of its own (touching nothing
 * else), handed over at the first frame that needs it.
 */
struct ubin_pf {
	pthread_t th;
	struct ubin b;		/* path, syms, segs, dw */
	int *unjoined;		/* the recording's count of these */
	bool done;		/* the thread has read it (atomic) */
};

/* At most this many binaries are read at once. */
#define UBIN_PF_MAX 4

static void *ubin_pf_run(void *arg)
{
	struct ubin_pf *pf = arg;

	/* the rings' reader comes first (Linux: nice is per thread) */
	setpriority(PRIO_PROCESS, gettid(), 10);
	ubin_load(&pf->b);
	/* as ubin_frame(): DWARF only for a binary that names a frame (a
	 * regular file ubin_load() could read) */
	if (pf->b.segs.n && pf->b.syms.n)
		pf->b.dw = kt_dwarf_file_open(pf->b.path);
	__atomic_store_n(&pf->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* How many binaries threads are still reading. */
static int prefetch_running(const struct ktrace_record *r)
{
	const struct ubins *u = r->usyms;
	int n = 0;

	for (int i = 0; u && r->nr_prefetch && i < u->n; i++)
		if (u->v[i].pf &&
		    !__atomic_load_n(&u->v[i].pf->done, __ATOMIC_ACQUIRE))
			n++;
	return n;
}

bool kt_record_prefetching(const struct ktrace_record *r)
{
	return prefetch_running(r) > 0;
}

/* Wait for b's reading thread, if any, and take what it read. */
static void ubin_pf_join(struct ubin *b)
{
	struct ubin_pf *pf = b->pf;

	if (!pf)
		return;
	pthread_join(pf->th, NULL);
	(*pf->unjoined)--;
	b->syms = pf->b.syms;
	b->segs = pf->b.segs;
	b->dw = pf->b.dw;
	b->dw_tried = true;
	b->loaded = true;
	free(pf->b.path);
	free(pf);
	b->pf = NULL;
}

static struct ubin *ubin_get(struct ktrace_record *r, const char *path);

void kt_record_prefetch_binary(struct ktrace_record *r, const char *path)
{
	sigset_t all, old;
	struct ubin_pf *pf;
	struct ubin *b;
	int err;

	if (!strcmp(path, KT_VDSO_NAME) || is_perf_map(path) ||
	    prefetch_running(r) >= UBIN_PF_MAX)
		return;
	b = ubin_get(r, path);
	if (!b || b->loaded || b->pf || b->from_file)
		return;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return;
	pf->b.path = strdup(path);
	pf->unjoined = &r->nr_prefetch;
	elf_version(EV_CURRENT);	/* libelf's global, set here once */
	/* signals stay the caller's: the thread starts with all blocked */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pf->b.path ? pthread_create(&pf->th, NULL, ubin_pf_run, pf) :
			   ENOMEM;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		free(pf->b.path);
		free(pf);
		return;
	}
	b->pf = pf;
	r->nr_prefetch++;
}

static struct ubin *ubin_get(struct ktrace_record *r, const char *path)
{
	struct ubins *u = r->usyms;
	struct ubin *nv;

	if (!u) {
		u = calloc(1, sizeof(*u));
		if (!u)
			return NULL;
		r->usyms = u;
	}
	for (int i = 0; i < u->n; i++)
		if (!strcmp(u->v[i].path, path))
			return &u->v[i];
	nv = realloc(u->v, (u->n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	u->v = nv;
	memset(&nv[u->n], 0, sizeof(*nv));
	nv[u->n].path = strdup(path);
	if (!nv[u->n].path)
		return NULL;
	/* A recording with its frames: the binary is not read (it may be
	 * gone, or another build by now). */
	nv[u->n].from_file = r->kf && r->kf_uframes;
	/* a JIT map is read at once: its process may remove it */
	if (!nv[u->n].from_file && is_perf_map(path)) {
		nv[u->n].loaded = true;
		ubin_load(&nv[u->n]);
	}
	return &u->v[u->n++];
}

void kt_record_free_stacks(struct ktrace_record *r)
{
	struct ubins *u = r->usyms;

	for (int i = 0; i < r->nr_maps; i++)
		free(r->maps[i].path);
	free(r->maps);
	if (u) {
		for (int i = 0; i < u->n; i++) {
			struct ubin *b = &u->v[i];

			ubin_pf_join(b);
			free(b->path);
			kt_symtab_free(&b->syms);
			kt_segs_free(&b->segs);
			kt_dwarf_file_free(b->dw);
			for (size_t c = 0; c < b->cache_cap; c++) {
				free(b->cache[c].text);
				for (int k = 0; k < b->cache[c].nfr; k++)
					free((char *)b->cache[c].fr[k].sym);
				free(b->cache[c].fr);
			}
			free(b->cache);
			free(b->used);
		}
		free(u->v);
		free(u);
	}
}

static size_t fcache_slot(uint64_t off, size_t cap)
{
	return (size_t)((off * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static struct fcache_ent *fcache_put(struct ubin *b, uint64_t off,
				     char *text)
{
	size_t i;

	if (2 * (b->cache_n + 1) > b->cache_cap) {
		size_t cap = b->cache_cap ? 2 * b->cache_cap : 256;
		struct fcache_ent *nv = calloc(cap, sizeof(*nv));

		if (!nv)
			return NULL;
		for (size_t j = 0; j < b->cache_cap; j++) {
			if (!b->cache[j].text)
				continue;
			for (i = fcache_slot(b->cache[j].off, cap); nv[i].text;
			     i = (i + 1) & (cap - 1))
				;
			nv[i] = b->cache[j];
		}
		free(b->cache);
		b->cache = nv;
		b->cache_cap = cap;
	}
	for (i = fcache_slot(off, b->cache_cap); b->cache[i].text;
	     i = (i + 1) & (b->cache_cap - 1))
		;
	b->cache[i].off = off;
	b->cache[i].text = text;
	b->cache[i].fr = NULL;
	b->cache[i].nfr = 0;
	b->cache_n++;
	return &b->cache[i];
}

static struct fcache_ent *fcache_get(struct ubin *b, uint64_t off)
{
	for (size_t i = b->cache_cap ? fcache_slot(off, b->cache_cap) : 0;
	     b->cache_cap && b->cache[i].text; i = (i + 1) & (b->cache_cap - 1))
		if (b->cache[i].off == off)
			return &b->cache[i];
	return NULL;
}

/*
 * The frame at file offset off of b: one line per function inlined there
 * ("inner+0xoff (inlined)", innermost first, offsets from the symbol's
 * start as perf prints them), then "sym+0xoff (path)"; lines separated by
 * '\n'. An entry of b's cache; NULL when no symbol holds the address.
 */
static struct fcache_ent *ubin_frame(struct ubin *b, uint64_t off)
{
	char *inl[16], *text = NULL, *dem;
	struct fcache_ent *e = fcache_get(b, off);
	const char *name = NULL;
	uint64_t symoff, vaddr = 0;
	size_t len = 0;
	FILE *f;
	int n;

	if (e || b->from_file)
		return e;
	ubin_pf_join(b);
	if (!b->loaded) {
		b->loaded = true;
		ubin_load(b);
	}
	if (!kt_segs_off_to_vaddr(&b->segs, off, true, &vaddr))
		name = kt_symtab_find(&b->syms, vaddr, &symoff);
	if (!name)
		return NULL;
	if (!b->dw_tried) {
		b->dw = kt_dwarf_file_open(b->path);
		b->dw_tried = true;
	}
	n = b->dw ? kt_dwarf_inlines(b->dw, vaddr, inl, 16) : 0;
	dem = kt_demangle(name);
	f = open_memstream(&text, &len);
	if (f) {
		for (int i = 0; i < n; i++)
			fprintf(f, "%s+0x%llx (inlined)\n", inl[i],
				(unsigned long long)symoff);
		fprintf(f, "%s+0x%llx (%s)", dem ? dem : name,
			(unsigned long long)symoff, b->path);
		if (fclose(f)) {
			free(text);
			text = NULL;
		}
	}
	for (int i = 0; i < n; i++)
		free(inl[i]);
	free(dem);
	e = text ? fcache_put(b, off, text) : NULL;
	if (!e)
		free(text);
	return e;
}

/*
 * Where user address ip of pid lies: its newest mapping made by the time
 * of the record being emitted (*map) and that binary, the file offset in
 * *off; or, in no file mapping, the process's JIT map (*map NULL, *off =
 * ip). NULL when neither applies. When every mapping is that old, the
 * last hit is tried first: the frames of one stack mostly share binaries.
 */
static struct ubin *user_loc(struct ktrace_record *r, int pid, uint64_t ip,
			     uint64_t *off, const struct kt_map **map)
{
	const struct kt_map *m = NULL;
	bool all = r->emit_time >= r->maps_newest;
	char path[64];
	struct ubin *b;

	*map = NULL;
	if (all && r->loc_map >= 0 && r->loc_map < r->nr_maps) {
		m = &r->maps[r->loc_map];
		if (m->pid == pid && ip >= m->start && ip < m->start + m->len) {
			struct ubins *u = r->usyms;

			*map = m;
			*off = ip - m->start + m->pgoff;
			if (u && r->loc_ubin >= 0 && r->loc_ubin < u->n)
				return &u->v[r->loc_ubin];
			b = ubin_get(r, m->path);
			u = r->usyms;
			r->loc_ubin = b ? (int)(b - u->v) : -1;
			return b;
		}
		m = NULL;
	}
	/* Newest mapping first: a later mmap replaces an older one. */
	for (int i = r->nr_maps - 1; i >= 0 && !m; i--) {
		const struct kt_map *c = &r->maps[i];

		if (c->pid == pid && ip >= c->start &&
		    ip < c->start + c->len && c->time <= r->emit_time) {
			m = c;
			r->loc_map = all ? i : -1;
		}
	}
	if (m) {
		*map = m;
		*off = ip - m->start + m->pgoff;
		b = ubin_get(r, m->path);
		r->loc_ubin = b ? (int)(b - ((struct ubins *)r->usyms)->v) : -1;
		return b;
	}
	if (pid <= 0)
		return NULL;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	*off = ip;
	return ubin_get(r, path);
}

/*
 * The frame of user address ip of pid (its cache entry), or NULL with
 * "[unknown] (...)" in buf.
 */
static struct fcache_ent *user_frame(struct ktrace_record *r, int pid,
				     uint64_t ip, char *buf, size_t len)
{
	const struct kt_map *m;
	struct fcache_ent *e;
	struct ubin *b;
	uint64_t off;

	b = user_loc(r, pid, ip, &off, &m);
	e = b ? ubin_frame(b, off) : NULL;
	if (e)
		return e;
	if (m)
		snprintf(buf, len, "[unknown] (%s+0x%llx)", m->path,
			 (unsigned long long)off);
	else	/* perf script's shape: every frame line ends in (dso) */
		snprintf(buf, len, "[unknown] ([unknown])");
	return NULL;
}

/* Is ip in the kernel's half of the address space? */
static bool kernel_ip(uint64_t ip)
{
	return ip >> 63;	/* x86-64 and arm64: the upper half */
}

static bool used_add(struct ubin *b, uint64_t off)
{
	size_t i;

	if (2 * (b->used_n + 1) > b->used_cap) {
		size_t cap = b->used_cap ? 2 * b->used_cap : 256;
		uint64_t *nv = malloc(cap * sizeof(*nv));

		if (!nv)
			return false;
		memset(nv, 0xff, cap * sizeof(*nv));
		for (size_t j = 0; j < b->used_cap; j++) {
			if (b->used[j] == UINT64_MAX)
				continue;
			for (i = fcache_slot(b->used[j], cap);
			     nv[i] != UINT64_MAX; i = (i + 1) & (cap - 1))
				;
			nv[i] = b->used[j];
		}
		free(b->used);
		b->used = nv;
		b->used_cap = cap;
	}
	for (i = fcache_slot(off, b->used_cap); b->used[i] != UINT64_MAX;
	     i = (i + 1) & (b->used_cap - 1))
		if (b->used[i] == off)
			return true;
	b->used[i] = off;
	b->used_n++;
	return true;
}

/* Note the frame of user address ip of pid for the -o file's UFRAMES. */
static void mark_user(struct ktrace_record *r, int pid, uint64_t ip)
{
	const struct kt_map *m;
	uint64_t off;
	struct ubin *b = user_loc(r, pid, ip, &off, &m);

	if (b)
		used_add(b, off);
}

static void mark_kernel(struct ktrace_record *r, uint64_t ip)
{
	const struct kt_sym *k;
	size_t at;

	if (!r->ksym_used || !(k = kt_symtab_lookup(&r->ksyms, ip)))
		return;
	at = k - r->ksyms.v;
	r->ksym_used[at / 8] |= 1 << (at % 8);
}

char *kt_record_tep_ksym(void *priv, unsigned long long *addrp, char **modp)
{
	struct ktrace_record *r = priv;
	const struct kt_sym *k;
	const char *mod;
	size_t at;

	r->src->ksyms(r);
	k = kt_symtab_lookup(&r->ksyms, *addrp);
	if (!k)
		return NULL;
	at = k - r->ksyms.v;
	if (r->ksym_used)
		r->ksym_used[at / 8] |= 1 << (at % 8);
	/* "name [mod]": the module apart, as libtraceevent wants it */
	mod = strchr(k->name, ' ');
	snprintf(r->ksym_buf, sizeof(r->ksym_buf), "%.*s",
		 mod ? (int)(mod - k->name) : (int)strlen(k->name), k->name);
	*addrp = k->addr;
	*modp = NULL;
	return r->ksym_buf;
}

void kt_record_mark_frames(struct ktrace_record *r,
			   const struct ktrace_sample *s)
{
	bool kernel = true;

	/* a sampling event's own address */
	if ((r->sample_type & PERF_SAMPLE_IP) && !r->ev[s->event].te) {
		if (kernel_ip(s->ip))
			mark_kernel(r, s->ip);
		else
			mark_user(r, s->pid, s->ip);
	}
	for (uint32_t i = 0; i < s->nr_ips; i++) {
		uint64_t ip = s->ips[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (kernel)
			mark_kernel(r, ip);
		else
			mark_user(r, s->pid, ip);
	}
}

int kt_record_write_uframes(struct ktrace_record *r)
{
	struct ubins *u = r->usyms;
	int ret = 0;

	for (int i = 0; u && i < u->n; i++) {
		struct ubin *b = &u->v[i];

		for (size_t c = 0; c < b->used_cap; c++) {
			struct fcache_ent *e;

			if (b->used[c] == UINT64_MAX)
				continue;
			e = ubin_frame(b, b->used[c]);
			if (e)
				ret |= kt_kfw_uframe(r->kfw, b->path, e->off,
						     e->text);
		}
	}
	return ret ? -EIO : 0;
}

int kt_record_load_uframe(struct ktrace_record *r, const char *path,
			  uint64_t off, const char *text)
{
	struct ubin *b = ubin_get(r, path);
	char *copy;

	if (!b)
		return -ENOMEM;
	if (fcache_get(b, off))
		return 0;
	copy = strdup(text);
	/* untrusted: printed as is, so no terminal control bytes */
	for (char *p = copy; p && *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\n') || *p == 0x7f)
			*p = '?';
	if (!copy || !fcache_put(b, off, copy)) {
		free(copy);
		return -ENOMEM;
	}
	return 0;
}

/*
 * A kernel frame as perf script prints it, "sym+0xoff ([kernel.kallsyms])"
 * or "sym+0xoff ([module])", into buf.
 */
static const char *kernel_text(struct ktrace_record *r, uint64_t ip,
			       char *buf, size_t len)
{
	uint64_t off = 0;
	const char *name = kt_symtab_find(&r->ksyms, ip, &off);
	const char *mod = name ? strstr(name, " [") : NULL;

	if (!name)
		snprintf(buf, len, "[unknown] ([kernel.kallsyms])");
	else if (mod)	/* "name [mod]" */
		snprintf(buf, len, "%.*s+0x%llx (%s)", (int)(mod - name), name,
			 (unsigned long long)off, mod + 1);
	else
		snprintf(buf, len, "%s+0x%llx ([kernel.kallsyms])", name,
			 (unsigned long long)off);
	return buf;
}

void kt_record_format_ip(struct ktrace_record *r,
			 const struct ktrace_sample *s, bool json)
{
	struct trace_seq *q = &r->seq;
	const char *frame, *last;
	char buf[512];

	if (kernel_ip(s->ip)) {
		r->src->ksyms(r);
		frame = kernel_text(r, s->ip, buf, sizeof(buf));
	} else {
		struct fcache_ent *e = user_frame(r, s->pid, s->ip, buf,
						  sizeof(buf));

		frame = e ? e->text : buf;
	}
	/* the function that holds it: the last line (inlined ones first) */
	last = strrchr(frame, '\n');
	last = last ? last + 1 : frame;
	if (json) {
		trace_seq_printf(q, ", \"ip\": %llu, \"sym\": ",
				 (unsigned long long)s->ip);
		kt_json_seq_str(q, last, strlen(last));
	} else {
		trace_seq_printf(q, "%16llx %s", (unsigned long long)s->ip, last);
	}
}

/*
 * "\n\t<ip> <frame>" as "\n\t%16llx %.*s" prints it, without printf:
 * a million stacks a second go through here.
 */
static void frame_line(struct trace_seq *q, uint64_t ip, const char *frame,
		       size_t n)
{
	char b[512];
	int i = 19;		/* "\n\t", 16 columns, ' ' */

	if (n > sizeof(b) - 20) {
		trace_seq_printf(q, "\n\t%16llx %.*s", (unsigned long long)ip,
				 (int)n, frame);
		return;
	}
	b[--i] = ' ';
	do {
		b[--i] = "0123456789abcdef"[ip & 15];
		ip >>= 4;
	} while (ip);
	while (i > 2)
		b[--i] = ' ';
	b[0] = '\n';
	b[1] = '\t';
	memcpy(b + 19, frame, n);
	b[19 + n] = '\0';
	trace_seq_puts(q, b);
}

void kt_record_format_stack(struct ktrace_record *r,
			    const struct ktrace_sample *s, bool json)
{
	struct trace_seq *q = &r->seq;
	bool kernel = true;
	int shown = 0;

	r->src->ksyms(r);
	if (json)
		trace_seq_puts(q, ", \"stack\": [");
	for (uint32_t i = 0; i < s->nr_ips; i++) {
		uint64_t ip = s->ips[i];
		char buf[512];
		const char *frame, *nl;

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (kernel) {
			frame = kernel_text(r, ip, buf, sizeof(buf));
		} else {
			struct fcache_ent *e = user_frame(r, s->pid, ip, buf,
							  sizeof(buf));

			frame = e ? e->text : buf;
		}
		/* one line per function: inlined ones first */
		for (;; frame = nl + 1) {
			size_t n;

			nl = strchr(frame, '\n');
			n = nl ? (size_t)(nl - frame) : strlen(frame);
			if (json) {
				trace_seq_printf(q, "%s{\"ip\": %llu, \"sym\": ",
						 shown ? ", " : "",
						 (unsigned long long)ip);
				kt_json_seq_str(q, frame, n);
				trace_seq_putc(q, '}');
			} else {
				frame_line(q, ip, frame, n);
			}
			shown++;
			if (!nl)
				break;
		}
	}
	if (json)
		trace_seq_putc(q, ']');
}

/* ------------------------------------------------------------- profiles */

/*
 * A string owned by r, equal to s[0..n): one copy of each (the names and
 * binaries of frames). NULL when out of memory.
 */
static const char *intern(struct ktrace_record *r, const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (size_t k = 0; k < n; k++)
		h = (h ^ (unsigned char)s[k]) * 1099511628211ull;
	if (2 * (r->nr_interned + 1) > r->interned_cap) {
		size_t cap = r->interned_cap ? 2 * r->interned_cap : 512;
		char **nv = calloc(cap, sizeof(*nv));

		if (!nv)
			return NULL;
		for (size_t j = 0; j < r->interned_cap; j++) {
			const char *t = r->interned[j];
			uint64_t g = 1469598103934665603ull;

			if (!t)
				continue;
			for (const char *c = t; *c; c++)
				g = (g ^ (unsigned char)*c) * 1099511628211ull;
			for (i = g & (cap - 1); nv[i]; i = (i + 1) & (cap - 1))
				;
			nv[i] = r->interned[j];
		}
		free(r->interned);
		r->interned = nv;
		r->interned_cap = cap;
	}
	for (i = h & (r->interned_cap - 1); r->interned[i];
	     i = (i + 1) & (r->interned_cap - 1))
		if (!strncmp(r->interned[i], s, n) && !r->interned[i][n])
			return r->interned[i];
	r->interned[i] = strndup(s, n);
	if (!r->interned[i])
		return NULL;
	r->nr_interned++;
	return r->interned[i];
}

void kt_record_free_interned(struct ktrace_record *r)
{
	for (size_t i = 0; i < r->interned_cap; i++)
		free(r->interned[i]);
	free(r->interned);
}

/*
 * The lines of a frame's text ("sym+0xoff (inlined)" ..., "sym+0xoff
 * (path)") as frames; the binary of every one is b's.
 */
static int fcache_frames(struct ktrace_record *r, const struct ubin *b,
			 struct fcache_ent *e)
{
	const char *dso = intern(r, b->path, strlen(b->path));
	int n = 1;

	if (e->fr)
		return e->nfr;
	for (const char *c = e->text; (c = strchr(c, '\n')); c++)
		n++;
	e->fr = calloc(n, sizeof(*e->fr));
	if (!e->fr || !dso)
		return 0;
	for (const char *line = e->text; line; ) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *paren = NULL, *plus = NULL;
		struct ktrace_frame *f = &e->fr[e->nfr];

		for (const char *c = line; c < line + len; c++) {
			if (c[0] == ' ' && c[1] == '(')
				paren = c;
			if (c[0] == '+' && c[1] == '0' && c[2] == 'x')
				plus = c;
		}
		if (!paren)
			paren = line + len;
		if (!plus || plus > paren)
			plus = paren;
		f->sym = strndup(line, plus - line);
		f->dso = dso;
		f->inlined = !strncmp(paren, " (inlined)", 10);
		if (f->sym)
			e->nfr++;
		line = nl ? nl + 1 : NULL;
	}
	return e->nfr;
}

/* The frames of user address ip of pid into v (at most max). */
static int user_frames(struct ktrace_record *r, int pid, uint64_t ip,
		       struct ktrace_frame *v, int max)
{
	const struct kt_map *m;
	struct fcache_ent *e;
	struct ubin *b;
	uint64_t off;
	int n = 0;

	if (max < 1)
		return 0;
	b = user_loc(r, pid, ip, &off, &m);
	e = b ? ubin_frame(b, off) : NULL;
	if (e && fcache_frames(r, b, e)) {
		for (; n < e->nfr && n < max; n++) {
			v[n] = e->fr[n];
			v[n].ip = ip;
		}
		return n;
	}
	v[0].ip = ip;
	v[0].sym = "[unknown]";
	v[0].dso = m ? intern(r, m->path, strlen(m->path)) : NULL;
	if (!v[0].dso)
		v[0].dso = "[unknown]";
	v[0].inlined = false;
	return 1;
}

static int kernel_frame(struct ktrace_record *r, uint64_t ip,
			struct ktrace_frame *f)
{
	const char *name = kt_symtab_find(&r->ksyms, ip, NULL), *mod;

	f->ip = ip;
	f->inlined = false;
	f->sym = "[unknown]";
	f->dso = "[kernel.kallsyms]";
	if (!name)
		return 1;
	/* "name [mod]" */
	mod = strchr(name, ' ');
	f->sym = mod ? intern(r, name, mod - name) : name;
	if (mod && mod[1] == '[')
		f->dso = intern(r, mod + 1, strlen(mod + 1));
	if (!f->sym || !f->dso) {
		f->sym = "[unknown]";
		f->dso = "[kernel.kallsyms]";
	}
	return 1;
}

int ktrace_record_frames(struct ktrace_record *r,
			 const struct ktrace_sample *s,
			 struct ktrace_frame *v, int max)
{
	bool kernel = true;
	int n = 0;

	if (s->type != KTRACE_SAMPLE_EVENT || max <= 0)
		return 0;
	r->src->ksyms(r);
	if (!s->nr_ips) {
		if (!(r->sample_type & PERF_SAMPLE_IP) || s->event < 0 ||
		    s->event >= r->nev || r->ev[s->event].te)
			return 0;
		if (kernel_ip(s->ip))
			return kernel_frame(r, s->ip, v);
		return user_frames(r, s->pid, s->ip, v, max);
	}
	for (uint32_t i = 0; i < s->nr_ips && n < max; i++) {
		uint64_t ip = s->ips[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (kernel)
			n += kernel_frame(r, ip, &v[n]);
		else
			n += user_frames(r, s->pid, ip, v + n, max - n);
	}
	return n;
}
