/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What differs between architectures, one file each (x86_64.c, arm64.c):
 * the registers a function's arguments arrive in and how the calling
 * convention places them, how the kprobe and uprobe fetchargs name
 * registers, DWARF register numbers. All tables are
 * built in; the one to use is picked by ELF machine (user binaries) or by
 * the running kernel's machine (uname).
 */
#ifndef KTRACE_ARCH_H
#define KTRACE_ARCH_H

#include <stdbool.h>
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
	/* The stack pointer as a fetcharg ("%sp"): stack arguments in
	 * memory are at +8 * (stack_arg0 + slot) from it at the entry. */
	const char *sp_reg;
	/*
	 * How the convention places arguments (kt_arch_arg_place()), beyond
	 * "in order, one or two integer registers each". Floating point
	 * takes its own registers, as many as nr_fp_arg_regs.
	 */
	int nr_fp_arg_regs;
	/* A composite over 16 bytes: the caller copies it and passes a
	 * pointer to the copy as an integer argument (AAPCS64 B.4); false:
	 * the copy is in the stack arguments (x86-64: class MEMORY). */
	bool big_by_ref;
	/* A composite with a member off its natural alignment (packed) is
	 * passed in memory whatever its size (x86-64 3.2.3). */
	bool unaligned_in_memory;
	/* An argument aligned to 16 starts at an even register
	 * (AAPCS64 C.9). */
	bool pair_even;
	/* One that does not fit in the integer registers left sends all
	 * later ones to the stack too (AAPCS64 C.12); false: a later one
	 * may still take a register left (x86-64). */
	bool miss_closes_regs;
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
	/* How capstone disassembles its code (lib/sym/disasm.c): its
	 * cs_arch, cs_mode and CS_OPT_SYNTAX value (0: capstone's own). */
	int cs_arch, cs_mode, cs_syntax;
};

/* What an argument is, as far as placing it goes. */
enum kt_arg_class {
	KT_ARG_INT,		/* integer, enum or pointer; 16 bytes: a pair */
	KT_ARG_FP,		/* floating point of up to 8 bytes */
	KT_ARG_COMPOSITE,	/* struct or union, no floating-point member */
};

struct kt_arg_type {
	enum kt_arg_class cls;
	unsigned int size;	/* bytes */
	unsigned int align;	/* natural alignment, bytes */
	bool unaligned;		/* a member is off its natural alignment */
};

enum kt_arg_where {
	KT_ARG_NOWHERE,		/* nothing is passed (an empty struct) */
	KT_ARG_REG,		/* in arg_regs[reg] (and the next: nregs) */
	KT_ARG_FPREG,		/* in a floating-point register */
	KT_ARG_STACK,		/* at stack argument slot 'slot' (8 bytes
				 * each, 0 the first), nslots of them */
};

struct kt_arg_place {
	enum kt_arg_where where;
	int reg, nregs;
	int slot, nslots;
	/* What is there is a pointer to the argument (the caller's copy). */
	bool by_ref;
};

/* The registers and stack slots the arguments so far took: zero it
 * before the first argument. */
struct kt_arg_count {
	int gpr, fpr, slots;
};

/* Place the next argument of a call, of type t, and count it in c. */
void kt_arch_arg_place(const struct kt_arch *a, struct kt_arg_count *c,
		       const struct kt_arg_type *t, struct kt_arg_place *p);

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
