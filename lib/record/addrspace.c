// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The user address space of recorded processes: mappings announced by
 * MMAP2 records (or read from /proc, or a file's table), so that a
 * process that has already exited still resolves, and the binaries they
 * map, read into symbols, segments and DWARF for frame names.
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
#include <time.h>
#include <unistd.h>

#include "base/internal.h"
#include "record/addrspace.h"
#include "sym/symtab.h"
#include "sym/unwind.h"
#include "ktrace.h"

void kt_addrspace_note_mmap(struct kt_addrspace *as,
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
	kt_addrspace_add_map(as, m->pid, m->addr, m->len, m->pgoff,
			     m->filename, false, time);
	kt_unwind_forget(as->unwind, m->pid);
}

void kt_addrspace_add_map(struct kt_addrspace *as, int pid, uint64_t start,
			  uint64_t len, uint64_t pgoff, const char *path,
			  bool synth, uint64_t time)
{
	struct kt_map *nv = realloc(as->maps, (as->nr_maps + 1) * sizeof(*nv));

	if (!nv)
		return;
	as->maps = nv;
	nv[as->nr_maps].pid = pid;
	nv[as->nr_maps].start = start;
	nv[as->nr_maps].len = len;
	nv[as->nr_maps].pgoff = pgoff;
	nv[as->nr_maps].synth = synth;
	nv[as->nr_maps].time = time;
	nv[as->nr_maps].path = strdup(path);
	if (nv[as->nr_maps].path)
		as->nr_maps++;
	if (time > as->maps_newest)
		as->maps_newest = time;
	as->loc_map = -1;	/* a newer mapping may hide the last hit */
}

void kt_addrspace_read_proc_maps(struct kt_addrspace *as, int pid)
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
		kt_addrspace_add_map(as, pid, start, end - start, off, file,
				     true, 0);
	}
	fclose(f);
}

int kt_addrspace_unwind_init(struct kt_addrspace *as,
			     const struct kt_arch *arch)
{
	as->unwind = kt_unwind_alloc(arch);
	return as->unwind ? 0 : -ENOMEM;
}

static void jit_map_read(struct ubin *b, uint64_t off);
static struct ubin *user_loc(struct kt_addrspace *as, int pid, uint64_t ip,
			     uint64_t *off, const struct kt_map **map);

int kt_addrspace_unwind(struct kt_addrspace *as, const struct kt_ustack *us,
			uint64_t *ips, int max)
{
	int n = kt_unwind_user(as->unwind, as->maps, as->nr_maps, us, ips,
			       max);
	const struct kt_map *m;
	uint64_t off, time = as->time;
	struct ubin *b;

	/*
	 * The sample leaves its ring now, while its process may still run:
	 * a JIT's map is read now (its code has no CFI, so its frame is
	 * where unwinding stopped), before the records are named, which
	 * can be after the JIT deleted it at its exit.
	 */
	if (n > 0) {
		as->time = us->time;
		b = user_loc(as, us->pid, ips[n - 1], &off, &m);
		if (b && !m)
			jit_map_read(b, off);
		as->time = time;
	}
	return n;
}

/* A frame's text by file address (see ubin_frame). */
struct fcache_ent {
	uint64_t off;		/* file offset of the address */
	char *text;		/* NULL: free slot */
	/* the text's lines as frames (ktrace_record_frames), made once */
	struct ktrace_frame *fr;
	int nfr;
	/* where each line's function is in the source, one line each:
	 * "LINE START SYSNAME FILE" (see kt_addrspace_user_src); NULL:
	 * not known */
	char *src;
};

/* One binary's symbols by virtual address plus its PT_LOAD segments. */
struct ubin_pf;

struct ubin {
	char *path;
	struct ubin_pf *pf;	/* being read by a thread of its own */
	struct kt_symtab syms;
	struct kt_segs segs;	/* PT_LOAD; a JIT map: one, off == vaddr */
	struct kt_dwarf_file *dw;	/* for inlined frames */
	char *build_id;		/* hex, from the ELF file or the recording */
	bool dw_tried;
	bool loaded;		/* symbols and segments read (on first use:
				 * reading them while the rings fill, a
				 * libc debug file, costs records) */
	bool from_file;		/* frames from a recording, binary unread */
	off_t map_size;		/* a JIT map: the file's size when read */
	struct fcache_ent *cache;	/* open addressing, cap a power of 2 */
	size_t cache_cap, cache_n;
	/* -o: file offsets the records need, named only at the end (DWARF
	 * loading while the rings fill costs records); UINT64_MAX: free */
	uint64_t *used;
	size_t used_cap, used_n;
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
	/* Paths may come from an untrusted file: regular ELF files only,
	 * of the size they claim; never block on a FIFO or a device. The
	 * vdso: ktrace's own. */
	fd = kt_open_elf(strcmp(b->path, KT_VDSO_NAME) ? b->path :
			 kt_vdso_path() ? kt_vdso_path() : "", KT_ELF_MAX);
	if (fd < 0) {
		kt_symtab_sort(&b->syms);
		return;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		goto out;
	if (kt_segs_read(&b->segs, elf))
		kt_segs_free(&b->segs);
	b->build_id = kt_elf_build_id_hex(elf);
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
 * A JIT map (is_perf_map()) is read while its process runs: when one of
 * its addresses is first met, and again when one is not in it and the
 * file changed size (a JIT adds a line for each function it makes). A JIT
 * may delete the file when it exits: what was read is kept, for the
 * frames named at the end and for the -o file's.
 */
static void jit_map_read(struct ubin *b, uint64_t off)
{
	uint64_t symoff;
	struct stat st;

	if (b->from_file || !is_perf_map(b->path))
		return;
	if (b->loaded && kt_symtab_find(&b->syms, off, &symoff))
		return;
	if (stat(b->path, &st) || (b->loaded && st.st_size == b->map_size))
		return;
	if (b->loaded) {
		kt_symtab_free(&b->syms);
		kt_segs_free(&b->segs);
	}
	b->loaded = true;
	b->map_size = st.st_size;
	ubin_load(b);
}

/*
 * Reading a binary's symbols and DWARF takes long: ~40 ms for libc's
 * debug file, whose sections libdw inflates at once. Done at the first
 * frame printed, the rings fill meanwhile and records are lost. So when a
 * mapping of a binary is taken from the rings (DWARF stacks, live), a
 * thread of its own reads it into a ubin of its own (touching nothing
 * else), handed over at the first frame that needs it.
 */
enum { PF_RUNNING, PF_DONE, PF_ABANDONED };

struct ubin_pf {
	pthread_t th;
	struct ubin b;		/* path, syms, segs, dw */
	struct kt_addrspace *as;	/* its count of these, its stop flag */
	/* PF_RUNNING, then PF_DONE (the thread has read it), or
	 * PF_ABANDONED (nobody waits: the thread frees it all) (atomic) */
	int state;
};

/* At most this many binaries are read at once. */
#define UBIN_PF_MAX 4

static void ubin_release(struct ubin *b);

static void *ubin_pf_run(void *arg)
{
	struct ubin_pf *pf = arg;
	int running = PF_RUNNING;

	/* the rings' reader comes first (Linux: nice is per thread) */
	setpriority(PRIO_PROCESS, gettid(), 10);
	ubin_load(&pf->b);
	/* as ubin_frame(): DWARF only for a binary that names a frame (a
	 * regular file ubin_load() could read) */
	if (pf->b.segs.n && pf->b.syms.n)
		pf->b.dw = kt_dwarf_file_open(pf->b.path);
	if (!__atomic_compare_exchange_n(&pf->state, &running, PF_DONE, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* abandoned (detached): what it read is nobody's */
		ubin_release(&pf->b);
		free(pf);
	}
	return NULL;
}

/* How many binaries threads are still reading. */
static int prefetch_running(const struct kt_addrspace *as)
{
	int n = 0;

	for (int i = 0; as->nr_prefetch && i < as->nr_ubin; i++)
		if (as->ubin[i].pf &&
		    __atomic_load_n(&as->ubin[i].pf->state, __ATOMIC_ACQUIRE) ==
		    PF_RUNNING)
			n++;
	return n;
}

bool kt_addrspace_prefetching(const struct kt_addrspace *as)
{
	return prefetch_running(as) > 0;
}

/*
 * Join pf's thread, or, once the caller's stop flag is set, leave it to
 * finish alone (a debug file of GBs, a slow disk: a signal ends ktrace
 * at once whatever the thread is doing). true when joined.
 */
static bool ubin_pf_wait(struct ubin_pf *pf)
{
	const volatile int *stop = pf->as->stop;
	int running = PF_RUNNING;
	struct timespec ts;

	while (stop && !*stop) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (!pthread_timedjoin_np(pf->th, NULL, &ts))
			return true;
	}
	if (stop && __atomic_compare_exchange_n(&pf->state, &running,
						PF_ABANDONED, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
		pthread_detach(pf->th);
		return false;
	}
	pthread_join(pf->th, NULL);
	return true;
}

/* Wait for b's reading thread, if any, and take what it read (nothing
 * when it was left to finish alone: b's frames are then unnamed). */
static void ubin_pf_join(struct ubin *b)
{
	struct ubin_pf *pf = b->pf;

	if (!pf)
		return;
	pf->as->nr_prefetch--;
	b->pf = NULL;
	b->dw_tried = true;
	b->loaded = true;
	if (!ubin_pf_wait(pf))
		return;
	b->syms = pf->b.syms;
	b->segs = pf->b.segs;
	b->dw = pf->b.dw;
	b->build_id = pf->b.build_id;
	free(pf->b.path);
	free(pf);
}

static struct ubin *ubin_get(struct kt_addrspace *as, const char *path);

void kt_addrspace_prefetch(struct kt_addrspace *as, const char *path)
{
	sigset_t all, old;
	struct ubin_pf *pf;
	struct ubin *b;
	int err;

	if (!strcmp(path, KT_VDSO_NAME) || is_perf_map(path) ||
	    prefetch_running(as) >= UBIN_PF_MAX)
		return;
	b = ubin_get(as, path);
	if (!b || b->loaded || b->pf || b->from_file)
		return;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return;
	pf->b.path = strdup(path);
	pf->as = as;
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
	as->nr_prefetch++;
}

static struct ubin *ubin_get(struct kt_addrspace *as, const char *path)
{
	struct ubin *nv, *b;

	for (int i = 0; i < as->nr_ubin; i++)
		if (!strcmp(as->ubin[i].path, path))
			return &as->ubin[i];
	nv = realloc(as->ubin, (as->nr_ubin + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	as->ubin = nv;
	b = &nv[as->nr_ubin];
	memset(b, 0, sizeof(*b));
	b->path = strdup(path);
	if (!b->path)
		return NULL;
	b->from_file = as->from_file;
	/* a JIT map is read at once: its process may remove it */
	if (!b->from_file && is_perf_map(path)) {
		b->loaded = true;
		ubin_load(b);
	}
	as->nr_ubin++;
	return b;
}

/* What b holds (not b itself). */
static void ubin_release(struct ubin *b)
{
	free(b->path);
	kt_symtab_free(&b->syms);
	kt_segs_free(&b->segs);
	kt_dwarf_file_free(b->dw);
	free(b->build_id);
	for (size_t c = 0; c < b->cache_cap; c++) {
		free(b->cache[c].text);
		free(b->cache[c].src);
		for (int k = 0; k < b->cache[c].nfr; k++)
			free((char *)b->cache[c].fr[k].sym);
		free(b->cache[c].fr);
	}
	free(b->cache);
	free(b->used);
}

static void ubin_free(struct ubin *b)
{
	ubin_pf_join(b);
	ubin_release(b);
}

void kt_addrspace_free(struct kt_addrspace *as)
{
	for (int i = 0; i < as->nr_maps; i++)
		free(as->maps[i].path);
	free(as->maps);
	for (int i = 0; i < as->nr_ubin; i++)
		ubin_free(&as->ubin[i]);
	free(as->ubin);
	for (size_t i = 0; i < as->interned_cap; i++)
		free(as->interned[i]);
	free(as->interned);
	kt_unwind_free(as->unwind);
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
	b->cache[i].src = NULL;
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
 * The source lines of a frame's text lines (n inlined + the function
 * named sym): "LINE START SYSNAME FILE" each, '\n' between; NULL when
 * out of memory.
 */
static char *src_text(const struct kt_srcline *src, int n, const char *sym)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	for (int i = 0; i <= n; i++) {
		const char *sys = src[i].sysname ? src[i].sysname :
				  i == n ? sym : "-";

		fprintf(f, "%s%d %d %s %s", i ? "\n" : "", src[i].line,
			src[i].start, sys, src[i].file ? src[i].file : "");
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* s into f as text output shows it (kt_text_escape()): a frame's text
 * is printed as is, and a '\n' in it only ever separates functions. */
static void put_escaped(FILE *f, const char *s)
{
	char esc[4 * 64 + 1];

	for (size_t n = strlen(s), k; n; n -= k, s += k) {
		k = n < 64 ? n : 64;
		fwrite(esc, 1, kt_text_escape(esc, s, k), f);
	}
}

/*
 * The text of a frame: its inlined functions inl[0..n) (no offset: the
 * address's offset from the symbol is the caller's, not theirs), then
 * name. Names and path escaped.
 */
static char *frame_text(const struct ubin *b, char **inl, int n,
			const char *name, uint64_t symoff)
{
	char *text = NULL, *dem = kt_demangle(name);
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f) {
		for (int i = 0; i < n; i++) {
			put_escaped(f, inl[i]);
			fputs(" (inlined)\n", f);
		}
		/* offsets from the symbol's start, as perf prints them */
		put_escaped(f, dem ? dem : name);
		fprintf(f, "+0x%llx (", (unsigned long long)symoff);
		put_escaped(f, b->path);
		putc(')', f);
		if (fclose(f)) {
			free(text);
			text = NULL;
		}
	}
	free(dem);
	return text;
}

/*
 * The frame at file offset off of b (its text: kt_addrspace_user_text),
 * an entry of b's cache; NULL when no symbol holds the address.
 */
static struct fcache_ent *ubin_frame(struct ubin *b, uint64_t off)
{
	struct fcache_ent *e = fcache_get(b, off);
	struct kt_srcline src[17] = { { 0 } };
	uint64_t symoff, vaddr = 0;
	const char *name = NULL;
	char *inl[16], *text;
	int n;

	if (e || b->from_file)
		return e;
	ubin_pf_join(b);
	jit_map_read(b, off);
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
	n = b->dw ? kt_dwarf_inlines(b->dw, vaddr, inl, src, 16) : 0;
	text = frame_text(b, inl, n, name, symoff);
	e = text ? fcache_put(b, off, text) : NULL;
	if (e)
		e->src = src_text(src, n, name);
	else
		free(text);
	for (int i = 0; i < n; i++)
		free(inl[i]);
	kt_srclines_free(src, n + 1);
	return e;
}

/* b's index, remembered with the mapping last hit. */
static struct ubin *loc_ubin_set(struct kt_addrspace *as, struct ubin *b)
{
	as->loc_ubin = b ? (int)(b - as->ubin) : -1;
	return b;
}

/*
 * Where user address ip of pid lies: its newest mapping made by the time
 * of the record being decoded (*map) and that binary, the file offset in
 * *off; or, in no file mapping, the process's JIT map (*map NULL, *off =
 * ip). NULL when neither applies. When every mapping is that old, the
 * last hit is tried first: the frames of one stack mostly share binaries.
 */
static struct ubin *user_loc(struct kt_addrspace *as, int pid, uint64_t ip,
			     uint64_t *off, const struct kt_map **map)
{
	const struct kt_map *m = NULL;
	bool all = as->time >= as->maps_newest;
	char path[64];

	*map = NULL;
	if (all && as->loc_map >= 0 && as->loc_map < as->nr_maps) {
		m = &as->maps[as->loc_map];
		if (m->pid == pid && ip >= m->start && ip < m->start + m->len) {
			*map = m;
			*off = ip - m->start + m->pgoff;
			if (as->loc_ubin >= 0 && as->loc_ubin < as->nr_ubin)
				return &as->ubin[as->loc_ubin];
			return loc_ubin_set(as, ubin_get(as, m->path));
		}
		m = NULL;
	}
	/* Newest mapping first: a later mmap replaces an older one. */
	for (int i = as->nr_maps - 1; i >= 0 && !m; i--) {
		const struct kt_map *c = &as->maps[i];

		if (c->pid == pid && ip >= c->start &&
		    ip < c->start + c->len && c->time <= as->time) {
			m = c;
			as->loc_map = all ? i : -1;
		}
	}
	if (m) {
		*map = m;
		*off = ip - m->start + m->pgoff;
		return loc_ubin_set(as, ubin_get(as, m->path));
	}
	if (pid <= 0)
		return NULL;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	*off = ip;
	return ubin_get(as, path);
}

const char *kt_addrspace_user_text(struct kt_addrspace *as, int pid,
				   uint64_t ip, char *buf, size_t len)
{
	const struct kt_map *m;
	struct fcache_ent *e;
	struct ubin *b;
	uint64_t off;

	b = user_loc(as, pid, ip, &off, &m);
	e = b ? ubin_frame(b, off) : NULL;
	if (e)
		return e->text;
	/* perf script's shape: every frame line ends in (dso), the address
	 * is in the address column, so stack folders merge per object */
	if (m && len > 13) {
		/* the path escaped, as much of it as fits */
		size_t n = (len - 13) / 4, k = strlen(m->path);

		memcpy(buf, "[unknown] (", 11);
		n = kt_text_escape(buf + 11, m->path, k < n ? k : n);
		memcpy(buf + 11 + n, ")", 2);
	} else
		snprintf(buf, len, "[unknown] ([unknown])");
	return buf;
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

void kt_addrspace_mark(struct kt_addrspace *as, int pid, uint64_t ip)
{
	const struct kt_map *m;
	uint64_t off;
	struct ubin *b = user_loc(as, pid, ip, &off, &m);

	if (!b)
		return;
	/* named at the end, but a JIT's map is read now, while it lives */
	if (!m)
		jit_map_read(b, off);
	used_add(b, off);
}

int kt_addrspace_marked_frames(struct kt_addrspace *as,
			       kt_addrspace_frame_fn fn, void *ctx)
{
	int ret = 0;

	for (int i = 0; i < as->nr_ubin; i++) {
		struct ubin *b = &as->ubin[i];

		for (size_t c = 0; c < b->used_cap; c++) {
			struct fcache_ent *e;

			if (b->used[c] == UINT64_MAX)
				continue;
			e = ubin_frame(b, b->used[c]);
			if (e)
				ret |= fn(ctx, &(struct kt_uframe){
					.path = b->path, .off = e->off,
					.text = e->text, .src = e->src,
					.build_id = b->build_id });
		}
	}
	return ret;
}

int kt_addrspace_load_frame(struct kt_addrspace *as, const char *path,
			    uint64_t off, const char *text)
{
	struct ubin *b = ubin_get(as, path);
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

/* No control bytes but newlines (untrusted text, shown as is; UTF-8
 * file names pass): 0 or -EINVAL. */
static int check_text(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f)
			return -EINVAL;
	return 0;
}

int kt_addrspace_load_src(struct kt_addrspace *as, const char *path,
			  uint64_t off, const char *src)
{
	struct ubin *b = ubin_get(as, path);
	struct fcache_ent *e = b ? fcache_get(b, off) : NULL;

	if (!b)
		return -ENOMEM;
	if (!e || e->src || check_text(src))
		return 0;	/* no such frame, or a bad one: ignored */
	e->src = strdup(src);
	return e->src ? 0 : -ENOMEM;
}

int kt_addrspace_load_build_id(struct kt_addrspace *as, const char *path,
			       const char *id)
{
	struct ubin *b = ubin_get(as, path);

	if (!b)
		return -ENOMEM;
	if (b->build_id || !*id || strspn(id, "0123456789abcdef") != strlen(id))
		return 0;
	b->build_id = strdup(id);
	return b->build_id ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------- profiles */

const char *kt_addrspace_intern(struct kt_addrspace *as, const char *s,
				size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (size_t k = 0; k < n; k++)
		h = (h ^ (unsigned char)s[k]) * 1099511628211ull;
	if (2 * (as->nr_interned + 1) > as->interned_cap) {
		size_t cap = as->interned_cap ? 2 * as->interned_cap : 512;
		char **nv = calloc(cap, sizeof(*nv));

		if (!nv)
			return NULL;
		for (size_t j = 0; j < as->interned_cap; j++) {
			const char *t = as->interned[j];
			uint64_t g = 1469598103934665603ull;

			if (!t)
				continue;
			for (const char *c = t; *c; c++)
				g = (g ^ (unsigned char)*c) * 1099511628211ull;
			for (i = g & (cap - 1); nv[i]; i = (i + 1) & (cap - 1))
				;
			nv[i] = as->interned[j];
		}
		free(as->interned);
		as->interned = nv;
		as->interned_cap = cap;
	}
	for (i = h & (as->interned_cap - 1); as->interned[i];
	     i = (i + 1) & (as->interned_cap - 1))
		if (!strncmp(as->interned[i], s, n) && !as->interned[i][n])
			return as->interned[i];
	as->interned[i] = strndup(s, n);
	if (!as->interned[i])
		return NULL;
	as->nr_interned++;
	return as->interned[i];
}

/*
 * The lines of a frame's text ("sym+0xoff (inlined)" ..., "sym+0xoff
 * (path)") as frames; the binary of every one is b's.
 */
static int fcache_frames(struct kt_addrspace *as, const struct ubin *b,
			 struct fcache_ent *e)
{
	const char *dso = kt_addrspace_intern(as, b->path, strlen(b->path));
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

const struct kt_map *kt_addrspace_map_of(struct kt_addrspace *as, int pid,
					 uint64_t ip)
{
	const struct kt_map *m;
	uint64_t off;

	user_loc(as, pid, ip, &off, &m);
	return m;
}

int kt_addrspace_user_frames(struct kt_addrspace *as, int pid, uint64_t ip,
			     struct ktrace_frame *v, int max)
{
	const struct kt_map *m;
	struct fcache_ent *e;
	struct ubin *b;
	uint64_t off;
	int n = 0;

	if (max < 1)
		return 0;
	b = user_loc(as, pid, ip, &off, &m);
	e = b ? ubin_frame(b, off) : NULL;
	if (e && fcache_frames(as, b, e)) {
		for (; n < e->nfr && n < max; n++) {
			v[n] = e->fr[n];
			v[n].ip = ip;
		}
		return n;
	}
	v[0].ip = ip;
	v[0].sym = "[unknown]";
	v[0].dso = m ? kt_addrspace_intern(as, m->path, strlen(m->path)) : NULL;
	if (!v[0].dso)
		v[0].dso = "[unknown]";
	v[0].inlined = false;
	return 1;
}

const char *kt_addrspace_build_id(struct kt_addrspace *as, const char *path)
{
	for (int i = 0; i < as->nr_ubin; i++)
		if (!strcmp(as->ubin[i].path, path))
			return as->ubin[i].build_id;
	return NULL;
}

/* The k-th line of text (lines separated by '\n'), its length in *len. */
static const char *nth_line(const char *text, int k, size_t *len)
{
	for (; k > 0 && text; k--) {
		text = strchr(text, '\n');
		text = text ? text + 1 : NULL;
	}
	if (text)
		*len = strcspn(text, "\n");
	return text;
}

int kt_addrspace_user_src(struct kt_addrspace *as, int pid, uint64_t ip,
			  int k, struct kt_src *out)
{
	const struct kt_map *m;
	struct fcache_ent *e;
	const char *line, *sys;
	struct ubin *b;
	uint64_t off;
	size_t len = 0, slen;
	int at = 0;

	memset(out, 0, sizeof(*out));
	b = user_loc(as, pid, ip, &off, &m);
	e = b ? ubin_frame(b, off) : NULL;
	line = e && e->src ? nth_line(e->src, k, &len) : NULL;
	/* "LINE START SYSNAME FILE" */
	if (!line || sscanf(line, "%d %d %n", &out->line, &out->start,
			    &at) < 2 || !at || (size_t)at >= len)
		return -ENOENT;
	sys = line + at;
	slen = strcspn(sys, " \n");
	if (slen && strncmp(sys, "-", slen))
		out->sysname = kt_addrspace_intern(as, sys, slen);
	if (sys + slen < line + len)	/* the file, after one blank */
		out->file = kt_addrspace_intern(as, sys + slen + 1,
						line + len - sys - slen - 1);
	if (out->file && !*out->file)
		out->file = NULL;
	return 0;
}
