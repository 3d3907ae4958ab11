/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What differs between architectures, one file each (x86_64.c, arm64.c):
 * the registers a function's arguments arrive in, how the kprobe and
 * uprobe fetchargs name registers, DWARF register numbers. All tables are
 * built in; the one to use is picked by ELF machine (user binaries) or by
 * the running kernel's machine (uname).
 */
#ifndef KTRACE_ARCH_H
#define KTRACE_ARCH_H

#include <stdint.h>

struct kt_arch {
	const char *name;		/* as uname -m prints it */
	uint16_t e_machine;		/* EM_* of its ELF files */
	/* Integer arguments, in order, as fetchargs ("%di"). */
	const char *const *arg_regs;
	int nr_arg_regs;
	/* DWARF register number -> fetcharg register name (no '%'). */
	const char *const *dwarf_regs;
	unsigned int nr_dwarf_regs;
	/* The calling convention, for messages ("x86-64", "AAPCS64"). */
	const char *abi;
	/*
	 * Integer arguments past the registers are on the stack, one 8-byte
	 * slot each: at the function's entry the first is the kernel's
	 * $stackN with N = stack_arg0 (x86-64: 1, the return address is
	 * $stack0; arm64: 0). -1: not supported here.
	 */
	int stack_arg0;
	/*
	 * perf's sampled user registers (PERF_SAMPLE_REGS_USER): for DWARF
	 * register r (< nr_dwarf_regs), its bit in sample_regs_user (enum
	 * perf_event_<arch>_regs), or -1; and the bits of SP and PC. NULL:
	 * no DWARF unwinding on this architecture.
	 */
	const signed char *perf_regs;
	int perf_sp, perf_pc;
	/*
	 * DWARF numbers of the registers a simple unwind depends on besides
	 * memory: the stack pointer, the frame pointer, and the register the
	 * return address is in at a function's entry (x86-64: the "ip"
	 * column, the PC itself; arm64: the link register). -1: none.
	 */
	int dwarf_sp, dwarf_fp, dwarf_ra;
	/* Debian's multiarch triplet: /usr/lib/<multiarch> holds libraries. */
	const char *multiarch;
};

extern const struct kt_arch kt_arch_x86_64;
extern const struct kt_arch kt_arch_i386;
extern const struct kt_arch kt_arch_arm64;

/* The table for ELF machine m, or NULL (unsupported). */
const struct kt_arch *kt_arch_by_machine(uint16_t m);
/* The table of the running kernel, or NULL + errno (EOPNOTSUPP). */
const struct kt_arch *kt_arch_host(void);
/* sample_regs_user for DWARF unwinding (0: not supported). */
uint64_t kt_arch_perf_regs_mask(const struct kt_arch *a);
/* Register name of DWARF register r (no '%'), or NULL. */
const char *kt_arch_dwarf_reg(const struct kt_arch *a, unsigned int r);

#endif /* KTRACE_ARCH_H */
