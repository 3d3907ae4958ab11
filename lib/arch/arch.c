// SPDX-License-Identifier: LGPL-2.1-only
/* Picking the architecture table; the tables are in x86_64.c, arm64.c. */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>

#include "arch/arch.h"

static const struct kt_arch *const arches[] = {
	&kt_arch_x86_64, &kt_arch_i386, &kt_arch_arm64,
};

const struct kt_arch *kt_arch_by_machine(uint16_t m)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(*arches); i++)
		if (arches[i]->e_machine == m)
			return arches[i];
	return NULL;
}

const struct kt_arch *kt_arch_host(void)
{
	struct utsname u;

	if (uname(&u) == 0)
		for (size_t i = 0; i < sizeof(arches) / sizeof(*arches); i++)
			if (!strcmp(arches[i]->name, u.machine))
				return arches[i];
	errno = EOPNOTSUPP;
	return NULL;
}

const char *kt_arch_dwarf_reg(const struct kt_arch *a, unsigned int r)
{
	return a && r < a->nr_dwarf_regs ? a->dwarf_regs[r] : NULL;
}

uint64_t kt_arch_perf_regs_mask(const struct kt_arch *a)
{
	uint64_t mask = 0;

	if (!a || !a->perf_regs)
		return 0;
	for (unsigned int r = 0; r < a->nr_dwarf_regs; r++)
		if (a->perf_regs[r] >= 0)
			mask |= 1ull << a->perf_regs[r];
	return mask | 1ull << a->perf_sp | 1ull << a->perf_pc;
}

/*
 * Both conventions in one walk, the tables saying where they differ
 * (x86-64 psABI 3.2.3, AAPCS64 6.8.2 stages B and C); the caller has
 * refused what neither describes simply (floating-point members).
 */
void kt_arch_arg_place(const struct kt_arch *a, struct kt_arg_count *c,
		       const struct kt_arg_type *t, struct kt_arg_place *p)
{
	unsigned int size = t->size, align = t->align;
	int n;

	memset(p, 0, sizeof(*p));
	if (t->cls == KT_ARG_COMPOSITE && !size)
		return;		/* C passes no empty struct (GCC, clang) */
	if (t->cls == KT_ARG_FP) {
		if (c->fpr < a->nr_fp_arg_regs) {
			p->where = KT_ARG_FPREG;
			p->reg = c->fpr++;
			return;
		}
		size = 8;	/* a float takes a whole slot too */
		goto stack;
	}
	if (t->cls == KT_ARG_COMPOSITE &&
	    (size > 16 || (t->unaligned && a->unaligned_in_memory))) {
		if (!a->big_by_ref)
			goto stack;
		/* the argument is a pointer to the caller's copy */
		p->by_ref = true;
		size = 8;
		align = 8;
	}
	n = (int)(size + 7) / 8;
	if (align >= 16 && a->pair_even)
		c->gpr += c->gpr & 1;
	if (c->gpr + n <= a->nr_arg_regs) {
		p->where = KT_ARG_REG;
		p->reg = c->gpr;
		p->nregs = n;
		c->gpr += n;
		return;
	}
	if (a->miss_closes_regs)
		c->gpr = a->nr_arg_regs;
stack:
	if (align >= 16)
		c->slots += c->slots & 1;
	p->where = KT_ARG_STACK;
	p->slot = c->slots;
	p->nslots = (int)(size + 7) / 8;
	c->slots += p->nslots;
}
