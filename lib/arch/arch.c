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
