// SPDX-License-Identifier: LGPL-2.1-only
/*
 * DWARF CFI unwinding of sampled user stacks with libdw (elfutils), the
 * way perf's unwind-libdw.c does it: one Dwfl per process, its modules
 * reported from the process's file mappings (each ELF at its load bias),
 * and a Dwfl "thread" whose registers and memory are the sample's.
 *
 * A Dwfl is kept per process until its mappings change (an MMAP2 record),
 * so the binaries' CFI is read once, not once per sample.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>

#include "arch/arch.h"
#include "sym/unwind.h"

#define UW_PROCS 64		/* processes whose Dwfl is kept */
#define UW_MODS 256		/* mappings reported per process */

struct uw_proc {
	int pid;
	Dwfl *dwfl;		/* NULL: nothing to unwind with */
	unsigned long used;	/* for eviction: the oldest goes */
};

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

	(void)dwfl;
	if (addr < u->sp || size < sizeof(*result) ||
	    addr - u->sp > size - sizeof(*result))
		return false;
	memcpy(result, u->cur->stack + (addr - u->sp), sizeof(*result));
	return true;
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

/* A Dwfl with pid's mappings as modules, attached to the callbacks. */
static Dwfl *proc_build(struct kt_unwind *u, const struct kt_map *maps,
			int nr_maps, int pid)
{
	struct { uint64_t lo, hi; } seen[UW_MODS];
	int nseen = 0;
	Dwfl *dwfl = dwfl_begin(&u->cb);

	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	/* Newest first: a later mapping hides an older one it overlaps
	 * (exec, dlclose then dlopen at the same place). */
	for (int i = nr_maps - 1; i >= 0 && nseen < UW_MODS; i--) {
		const struct kt_map *m = &maps[i];
		const char *file = m->path;
		bool hidden = false;

		if (m->pid != pid || !file)
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
		/* The load bias: file offset pgoff is at start. */
		dwfl_report_elf(dwfl, base_name(m->path), file, -1,
				m->start - m->pgoff, false);
	}
	dwfl_report_end(dwfl, NULL, NULL);
	if (!dwfl_attach_state(dwfl, NULL, pid, &uw_thread_cbs, u)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

static Dwfl *proc_get(struct kt_unwind *u, const struct kt_map *maps,
		      int nr_maps, int pid)
{
	struct uw_proc *p = NULL, *old = &u->procs[0];

	for (int i = 0; i < UW_PROCS; i++) {
		struct uw_proc *q = &u->procs[i];

		if (q->used && q->pid == pid) {
			q->used = ++u->tick;
			return q->dwfl;
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
	p->dwfl = proc_build(u, maps, nr_maps, pid);
	return p->dwfl;
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

int kt_unwind_user(struct kt_unwind *u, const struct kt_map *maps,
		   int nr_maps, const struct kt_ustack *s, uint64_t *ips,
		   int max)
{
	const struct kt_arch *a = u->arch;
	uint64_t mask = s->regs_mask;
	Dwfl *dwfl;
	int k = 0;

	if (max <= 0 || !s->regs)
		return 0;
	memset(u->byreg, 0, sizeof(u->byreg));
	for (int bit = 0; bit < 64; bit++)
		if (mask & (1ull << bit))
			u->byreg[bit] = s->regs[k++];
	if (!(mask & (1ull << a->perf_sp)) || !(mask & (1ull << a->perf_pc)))
		return 0;
	u->sp = u->byreg[a->perf_sp];
	u->pc = u->byreg[a->perf_pc];
	u->cur = s;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	dwfl = proc_get(u, maps, nr_maps, s->pid);
	if (!dwfl) {
		ips[0] = u->pc;	/* the PC alone is still right */
		return 1;
	}
	/* Ends with -1 where the CFI or the copied stack ends. */
	dwfl_getthread_frames(dwfl, s->tid, uw_frame, u);
	if (!u->n)
		ips[u->n++] = u->pc;
	u->cur = NULL;
	return u->n;
}
