// SPDX-License-Identifier: LGPL-2.1-only
/*
 * arm64 (AAPCS64): integer arguments in x0-x7, floating point in v0-v7,
 * the result in x0. A composite over 16 bytes is passed as a pointer to
 * the caller's copy; an argument aligned to 16 starts at an even
 * register; once one does not fit, all later ones are on the stack.
 */
#include <elf.h>
#include <capstone/capstone.h>

#include "arch/arch.h"

static const char *const arm64_args[] = {
	"%x0", "%x1", "%x2", "%x3", "%x4", "%x5", "%x6", "%x7",
};

/* DWARF numbering of AADWARF64: x0-x30, then sp. */
static const char *const arm64_dwarf[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9",
	"x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18",
	"x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27",
	"x28", "x29", "x30", "sp",
};

/* enum perf_event_arm64_regs: X0-X30, SP in DWARF's order; PC is 32. */
static const signed char arm64_perf[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
	19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
};

const struct kt_arch kt_arch_arm64 = {
	.name = "aarch64",
	.e_machine = EM_AARCH64,
	.arg_regs = arm64_args,
	.nr_arg_regs = sizeof(arm64_args) / sizeof(*arm64_args),
	.dwarf_regs = arm64_dwarf,
	.nr_dwarf_regs = sizeof(arm64_dwarf) / sizeof(*arm64_dwarf),
	.abi = "AAPCS64",
	.stack_arg0 = 0,
	.sp_reg = "%sp",
	.nr_fp_arg_regs = 8,		/* v0-v7 */
	.big_by_ref = true,
	.unaligned_in_memory = false,
	.pair_even = true,
	.miss_closes_regs = true,
	.perf_regs = arm64_perf,
	.perf_sp = 31,
	.perf_pc = 32,
	.dwarf_sp = 31,
	.dwarf_fp = 29,
	.dwarf_ra = 30,
	.multiarch = "aarch64-linux-gnu",
	.cs_arch = CS_ARCH_ARM64,
	.cs_mode = CS_MODE_ARM,		/* A64, little-endian */
	.cs_syntax = 0,
};
