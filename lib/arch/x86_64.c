// SPDX-License-Identifier: LGPL-2.1-only
/*
 * x86-64 (SysV ABI) and its 32-bit sibling i386, for user binaries.
 * Arguments: integers in six registers, floating point in xmm0-7; a
 * struct over 16 bytes or with a misaligned member is copied into the
 * stack arguments; one that does not fit in the registers left goes to
 * the stack and a later one may still take them.
 */
#include <elf.h>
#include <stddef.h>
#include <capstone/capstone.h>

#include "arch/arch.h"

static const char *const x86_64_args[] = {
	"%di", "%si", "%dx", "%cx", "%r8", "%r9",
};

/* DWARF numbering of the x86-64 psABI. */
static const char *const x86_64_dwarf[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip",
};

/* enum perf_event_x86_regs of each DWARF register above. */
static const signed char x86_64_perf[] = {
	0 /* AX */, 3 /* DX */, 2 /* CX */, 1 /* BX */, 4 /* SI */,
	5 /* DI */, 6 /* BP */, 7 /* SP */, 16, 17, 18, 19, 20, 21, 22, 23,
	8 /* IP */,
};

const struct kt_arch kt_arch_x86_64 = {
	.name = "x86_64",
	.e_machine = EM_X86_64,
	.arg_regs = x86_64_args,
	.nr_arg_regs = sizeof(x86_64_args) / sizeof(*x86_64_args),
	.dwarf_regs = x86_64_dwarf,
	.nr_dwarf_regs = sizeof(x86_64_dwarf) / sizeof(*x86_64_dwarf),
	.abi = "x86-64",
	.stack_arg0 = 1,
	.sp_reg = "%sp",
	.nr_fp_arg_regs = 8,		/* xmm0-7 */
	.big_by_ref = false,		/* class MEMORY: on the stack */
	.unaligned_in_memory = true,
	.pair_even = false,
	.miss_closes_regs = false,
	.perf_regs = x86_64_perf,
	.perf_sp = 7,
	.perf_pc = 8,
	.dwarf_sp = 7,
	.dwarf_fp = 6,
	.dwarf_ra = 16,
	.multiarch = "x86_64-linux-gnu",
	/* AT&T, as objdump and perf annotate show it */
	.cs_arch = CS_ARCH_X86,
	.cs_mode = CS_MODE_64,
	.cs_syntax = CS_OPT_SYNTAX_ATT,
};

/* i386 passes arguments on the stack (no register arguments). */
static const char *const i386_dwarf[] = {
	"ax", "cx", "dx", "bx", "sp", "bp", "si", "di", "ip",
};

const struct kt_arch kt_arch_i386 = {
	.name = "i386",
	.e_machine = EM_386,
	.arg_regs = NULL,
	.nr_arg_regs = 0,
	.dwarf_regs = i386_dwarf,
	.nr_dwarf_regs = sizeof(i386_dwarf) / sizeof(*i386_dwarf),
	.abi = "i386 cdecl",
	.stack_arg0 = -1,
	.multiarch = "i386-linux-gnu",
	.cs_arch = CS_ARCH_X86,
	.cs_mode = CS_MODE_32,
	.cs_syntax = CS_OPT_SYNTAX_ATT,
};
