// SPDX-License-Identifier: LGPL-2.1-only
/*
 * DWARF CFI unwinding of sampled user stacks with libdw (elfutils), the
 * way perf's unwind-libdw.c does it: one Dwfl per process, its modules
 * reported from the process's file mappings (each ELF at its load bias),
 * and a Dwfl "thread" whose registers and memory are the sample's.
 *
 * A Dwfl is kept per process until its mappings change (an MMAP2 record),
 * so the binaries' CFI is read once, not once per sample.
 *
 * Unwinding is a function of the process's mappings, the registers the
 * CFI rules use and the stack words read. A sample whose PC, SP, frame
 * pointer and return-address register equal an earlier one's, and whose
 * copied stack holds the same words where that unwind read, unwinds the
 * same: its frames come from a cache. Only unwinds whose every frame's
 * rules (CFA, return address, frame pointer) use no other register are
 * reused, so a hit is exact, never a guess. A loop sampled at one place,
 * the common case, costs a hash and a few compares instead of an unwind.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "arch/arch.h"
#include "base/internal.h"
#include "sym/unwind.h"

#define UW_PROCS 64		/* processes whose Dwfl is kept */
#define UW_MODS 256		/* mappings reported per process */
#define UW_CACHE 4096		/* cached unwinds (a power of 2) */
#define UW_READS 128		/* stack words an unwind may read to be kept */

struct uw_proc {
	int pid;
	Dwfl *dwfl;		/* NULL: nothing to unwind with */
	/* the sample times its mappings are right for: the newest one in
	 * it was made at vis_lo, the oldest left out at vis_hi */
	uint64_t vis_lo, vis_hi;
	unsigned long used;	/* for eviction: the oldest goes */
	unsigned long gen;	/* which Dwfl: cached unwinds name it */
};

/* A stack word an unwind read: its address, and its value or none. */
struct uw_read {
	uint64_t addr, val;
	bool ok;
};

struct uw_cached {
	unsigned long gen;	/* 0: empty */
	int pid, max, n, nreads;
	/* Its frames' rules use key registers only: 1, not: -1, not yet
	 * looked at: 0 (looked at on its first match, not at every miss) */
	signed char keyed;
	uint64_t key[4];	/* PC, SP, FP, RA register */
	struct uw_read *reads;
	uint64_t *ips;
};

/* Room for libdw to unwind a sample in (its modules' CFI, frames). */
#define UW_HEADROOM (4u << 20)

struct kt_unwind {
	const struct kt_arch *arch;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	struct uw_proc procs[UW_PROCS];
	unsigned long tick;
	/* The sample being unwound, for the callbacks. */
	const struct kt_ustack *cur;
	uint64_t byreg[64];	/* its registers by perf register number */
	uint64_t sp, pc;
	uint64_t *ips;
	int n, max;
	/* the words it read, while there is room (nreads > UW_READS: more) */
	struct uw_read reads[UW_READS];
	int nreads;
	struct uw_cached *cache;	/* UW_CACHE entries, on first use */
};

static int no_debuginfo(Dwfl_Module *mod, void **userdata,
			const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base;
	(void)file_name, (void)debuglink_file, (void)debuglink_crc;
	(void)debuginfo_file_name;
	return -1;
}

struct kt_unwind *kt_unwind_alloc(const struct kt_arch *arch)
{
	struct kt_unwind *u;

	if (!arch || !arch->perf_regs) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->arch = arch;
	u->cb.find_elf = dwfl_linux_proc_find_elf;
	/* .eh_frame of the binaries themselves: loading (and inflating)
	 * separate debug files while the rings fill costs records */
	u->cb.find_debuginfo = no_debuginfo;
	u->cb.debuginfo_path = &u->debuginfo_path;
	u->cb.section_address = dwfl_offline_section_address;
	return u;
}

static void cache_free(struct kt_unwind *u)
{
	if (!u->cache)
		return;
	for (int i = 0; i < UW_CACHE; i++) {
		free(u->cache[i].reads);
		free(u->cache[i].ips);
	}
	free(u->cache);
	u->cache = NULL;
}

static void proc_drop(struct uw_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	memset(p, 0, sizeof(*p));
}

void kt_unwind_free(struct kt_unwind *u)
{
	if (!u)
		return;
	for (int i = 0; i < UW_PROCS; i++)
		proc_drop(&u->procs[i]);
	cache_free(u);
	free(u);
}

void kt_unwind_forget(struct kt_unwind *u, int pid)
{
	if (!u)
		return;
	for (int i = 0; i < UW_PROCS; i++)
		if (u->procs[i].used && u->procs[i].pid == pid)
			proc_drop(&u->procs[i]);
}

/* ------------------------------------------------- the sample's "thread" */

static pid_t uw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct kt_unwind *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->cur->tid;
}

static bool uw_get_thread(Dwfl *dwfl, pid_t tid, void *arg,
			  void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* Only the copied stack is readable: nothing else of the process is. */
static bool uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			   void *arg)
{
	struct kt_unwind *u = arg;
	uint64_t size = u->cur->stack_size;

	bool ok;

	(void)dwfl;
	ok = addr >= u->sp && size >= sizeof(*result) &&
	     addr - u->sp <= size - sizeof(*result);
	if (ok)
		memcpy(result, u->cur->stack + (addr - u->sp), sizeof(*result));
	if (u->nreads < UW_READS)
		u->reads[u->nreads] = (struct uw_read){ addr, ok ? *result : 0,
							ok };
	u->nreads++;
	return ok;
}

static bool uw_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct kt_unwind *u = thread_arg;
	const struct kt_arch *a = u->arch;
	Dwarf_Word regs[64];

	for (unsigned int r = 0; r < a->nr_dwarf_regs && r < 64; r++)
		regs[r] = a->perf_regs[r] >= 0 ? u->byreg[a->perf_regs[r]] : 0;
	return dwfl_thread_state_registers(thread, 0, a->nr_dwarf_regs,
					   regs) &&
	       (dwfl_thread_state_register_pc(thread, u->pc), true);
}

static const Dwfl_Thread_Callbacks uw_thread_cbs = {
	.next_thread = uw_next_thread,
	.get_thread = uw_get_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_initial_registers,
};

/* ------------------------------------------------------- per process */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * A Dwfl with the mappings pid had at time t as modules, attached to the
 * callbacks; p->vis_lo and vis_hi say for which sample times those are
 * the mappings.
 */
static Dwfl *proc_build(struct kt_unwind *u, const struct kt_map *maps,
			int nr_maps, struct uw_proc *p, uint64_t t)
{
	struct { uint64_t lo, hi; } seen[UW_MODS];
	int nseen = 0, pid = p->pid;
	Dwfl *dwfl = dwfl_begin(&u->cb);

	p->vis_lo = 0;
	p->vis_hi = UINT64_MAX;
	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	/* Newest first: a later mapping hides an older one it overlaps
	 * (exec, dlclose then dlopen at the same place). */
	for (int i = nr_maps - 1; i >= 0; i--) {
		const struct kt_map *m = &maps[i];
		const char *file = m->path;
		bool hidden = false;
		int fd;

		if (m->pid != pid || !file)
			continue;
		if (m->time > t) {	/* not made yet at t */
			if (m->time < p->vis_hi)
				p->vis_hi = m->time;
			continue;
		}
		if (m->time > p->vis_lo)
			p->vis_lo = m->time;
		if (nseen == UW_MODS)
			continue;
		if (!strcmp(file, KT_VDSO_NAME))
			file = kt_vdso_path();
		if (!file || file[0] != '/')
			continue;
		for (int j = 0; j < nseen && !hidden; j++)
			hidden = m->start < seen[j].hi &&
				 seen[j].lo < m->start + m->len;
		if (hidden)
			continue;
		seen[nseen].lo = m->start;
		seen[nseen].hi = m->start + m->len;
		nseen++;
		/* The load bias: file offset pgoff is at start. libdw
		 * reads the fd ktrace opened, never the path (a FIFO put
		 * there after the mmap would block it); the fd is its
		 * own once the module is reported. */
		fd = kt_open_elf(file, KT_ELF_MAX);
		if (fd >= 0 && !dwfl_report_elf(dwfl, base_name(m->path),
						file, fd, m->start - m->pgoff,
						false))
			close(fd);
	}
	dwfl_report_end(dwfl, NULL, NULL);
	if (!dwfl_attach_state(dwfl, NULL, pid, &uw_thread_cbs, u)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

/* pid's modules as they were at time t (built, or kept from before). */
static struct uw_proc *proc_get(struct kt_unwind *u,
				 const struct kt_map *maps, int nr_maps,
				 int pid, uint64_t t)
{
	struct uw_proc *p = NULL, *old = &u->procs[0];

	for (int i = 0; i < UW_PROCS; i++) {
		struct uw_proc *q = &u->procs[i];

		if (q->used && q->pid == pid) {
			q->used = ++u->tick;
			if (t >= q->vis_lo && t < q->vis_hi)
				return q;
			proc_drop(q);	/* another set of mappings */
			p = q;
			break;
		}
		if (!p && !q->used)
			p = q;
		if (q->used < old->used)
			old = q;
	}
	if (!p) {
		proc_drop(old);
		p = old;
	}
	p->pid = pid;
	p->used = ++u->tick;
	p->gen = u->tick;
	p->dwfl = proc_build(u, maps, nr_maps, p, t);
	return p;
}

/* ---------------------------------------------------------- unwinding */

static int uw_frame(Dwfl_Frame *state, void *arg)
{
	struct kt_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	/* A return address: the call is the byte before it (as perf). */
	if (!activation)
		pc--;
	/* A frame that repeats the one above it is a loop in bad CFI. */
	if (u->n && u->ips[u->n - 1] == pc && u->n > 1)
		return DWARF_CB_ABORT;
	u->ips[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* The value of DWARF register r in the sample (0: not sampled). */
static uint64_t dwarf_reg(const struct kt_unwind *u, int r)
{
	const struct kt_arch *a = u->arch;

	if (r < 0 || (unsigned int)r >= a->nr_dwarf_regs ||
	    a->perf_regs[r] < 0)
		return 0;
	return u->byreg[a->perf_regs[r]];
}

static void cache_key(const struct kt_unwind *u, uint64_t key[4])
{
	key[0] = u->pc;
	key[1] = u->sp;
	key[2] = dwarf_reg(u, u->arch->dwarf_fp);
	key[3] = dwarf_reg(u, u->arch->dwarf_ra);
}

static struct uw_cached *cache_slot(const struct kt_unwind *u, int pid,
				    const uint64_t key[4])
{
	uint64_t h = 14695981039346656037ull ^ (uint32_t)pid;

	for (int i = 0; i < 4; i++)
		h = (h ^ key[i]) * 1099511628211ull;
	h ^= h >> 29;
	return &u->cache[h & (UW_CACHE - 1)];
}

/* Does an expression use only the key registers (and memory, the CFA)? */
static bool ops_keyed(const struct kt_arch *a, const Dwarf_Op *ops,
		      size_t nops)
{
	for (size_t i = 0; i < nops; i++) {
		unsigned int atom = ops[i].atom;
		int64_t r = -1;

		if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31)
			r = atom - DW_OP_reg0;
		else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31)
			r = atom - DW_OP_breg0;
		else if (atom == DW_OP_regx || atom == DW_OP_bregx)
			r = (int64_t)ops[i].number;
		else
			continue;
		if (r != a->dwarf_sp && r != a->dwarf_fp && r != a->dwarf_ra)
			return false;
	}
	return true;
}

/* Whether the rules of the frame at pc use key registers only. */
static bool frame_keyed(struct kt_unwind *u, Dwfl *dwfl, uint64_t pc)
{
	const struct kt_arch *a = u->arch;
	const int regs[] = { a->dwarf_fp, a->dwarf_ra };
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	Dwarf_Op *ops, mem[3];
	size_t nops;
	bool ok;

	if (!mod)
		return true;	/* no module: the unwind stops here */
	/* where libdw looks: .eh_frame, then .debug_frame */
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr)) {
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr))
			return true;	/* no CFI: the frame-pointer fallback,
					 * key registers and memory only */
	}
	ok = !dwarf_frame_cfa(fr, &ops, &nops) && ops_keyed(a, ops, nops);
	for (size_t i = 0; ok && i < sizeof(regs) / sizeof(*regs); i++) {
		if (regs[i] < 0)
			continue;
		ok = !dwarf_frame_register(fr, regs[i], mem, &ops, &nops) &&
		     ops_keyed(a, ops, nops);
	}
	free(fr);
	return ok;
}

/* The frames of an earlier unwind with this key whose reads still hold. */
static int cache_find(struct kt_unwind *u, const struct uw_proc *p, int pid,
		      const uint64_t key[4], uint64_t *ips, int max)
{
	struct uw_cached *c = cache_slot(u, pid, key);
	uint64_t size = u->cur->stack_size;

	if (c->gen != p->gen || c->pid != pid || c->max != max ||
	    memcmp(c->key, key, sizeof(c->key)))
		return 0;
	if (!c->keyed) {
		c->keyed = 1;
		for (int i = 0; i < c->n && c->keyed > 0; i++)
			if (!frame_keyed(u, p->dwfl, c->ips[i]))
				c->keyed = -1;
	}
	if (c->keyed < 0)
		return 0;
	for (int i = 0; i < c->nreads; i++) {
		const struct uw_read *r = &c->reads[i];
		bool ok = r->addr >= u->sp && size >= 8 &&
			  r->addr - u->sp <= size - 8;
		uint64_t v;

		if (ok != r->ok)
			return 0;
		if (ok) {
			memcpy(&v, u->cur->stack + (r->addr - u->sp), 8);
			if (v != r->val)
				return 0;
		}
	}
	memcpy(ips, c->ips, c->n * sizeof(*ips));
	return c->n;
}

/* Keep this unwind for samples with its key (cache_find() checks, once,
 * that its result depends on the key and the reads only). */
static void cache_put(struct kt_unwind *u, const struct uw_proc *p, int pid,
		      const uint64_t key[4], int max)
{
	struct uw_cached *c;
	struct uw_read *reads;
	uint64_t *ips;

	if (u->nreads > UW_READS || !u->n)
		return;
	c = cache_slot(u, pid, key);
	/* an unwind found to depend on other registers keeps its place:
	 * its key is not looked at again */
	if (c->keyed < 0 && c->gen == p->gen && c->pid == pid &&
	    !memcmp(c->key, key, sizeof(c->key)))
		return;
	reads = malloc((u->nreads ? u->nreads : 1) * sizeof(*reads));
	ips = malloc(u->n * sizeof(*ips));
	if (!reads || !ips) {
		free(reads);
		free(ips);
		return;
	}
	free(c->reads);
	free(c->ips);
	memcpy(reads, u->reads, u->nreads * sizeof(*reads));
	memcpy(ips, u->ips, u->n * sizeof(*ips));
	*c = (struct uw_cached){ .gen = p->gen, .pid = pid, .max = max,
				 .n = u->n, .nreads = u->nreads,
				 .reads = reads, .ips = ips };
	memcpy(c->key, key, sizeof(c->key));
}

/* The sample's registers into u; false without SP and PC. */
static bool uw_begin(struct kt_unwind *u, const struct kt_ustack *s)
{
	const struct kt_arch *a = u->arch;
	uint64_t mask = s->regs_mask;
	int k = 0;

	if (!s->regs)
		return false;
	memset(u->byreg, 0, sizeof(u->byreg));
	for (int bit = 0; bit < 64; bit++)
		if (mask & (1ull << bit))
			u->byreg[bit] = s->regs[k++];
	if (!(mask & (1ull << a->perf_sp)) || !(mask & (1ull << a->perf_pc)))
		return false;
	u->sp = u->byreg[a->perf_sp];
	u->pc = u->byreg[a->perf_pc];
	return true;
}

int kt_unwind_user(struct kt_unwind *u, const struct kt_map *maps,
		   int nr_maps, const struct kt_ustack *s, uint64_t *ips,
		   int max)
{
	uint64_t key[4];
	struct uw_proc *p;
	int n;

	if (max <= 0 || !uw_begin(u, s))
		return 0;
	u->cur = s;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	u->nreads = 0;
	p = proc_get(u, maps, nr_maps, s->pid, s->time);
	/* libdw's unwinder crashes where an allocation fails (ulimit -v;
	 * its table of modules by address, made at the first unwind, then
	 * holds garbage): near the limit, the PC alone. Checked after the
	 * modules' files are mapped (proc_get), which takes room too. */
	if (!p->dwfl || !kt_mem_headroom(UW_HEADROOM)) {
		ips[0] = u->pc;	/* the PC alone is still right */
		u->cur = NULL;
		return 1;
	}
	if (!u->cache)
		u->cache = calloc(UW_CACHE, sizeof(*u->cache));
	cache_key(u, key);
	if (u->cache && (n = cache_find(u, p, s->pid, key, ips, max))) {
		u->cur = NULL;
		return n;
	}
	/* Ends with -1 where the CFI or the copied stack ends. */
	dwfl_getthread_frames(p->dwfl, s->tid, uw_frame, u);
	if (!u->n)
		ips[u->n++] = u->pc;
	else if (u->cache)
		cache_put(u, p, s->pid, key, max);
	u->cur = NULL;
	return u->n;
}
