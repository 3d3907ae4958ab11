/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The kernel side of probe resolution for kprobes (btf.c).
 *
 * Checks a function name against kallsyms, the kprobe blacklist and the
 * ftrace-able functions, suggests close names, and turns C-like argument
 * expressions ("how->flags", "sk->__sk_common.skc_dport", "$retval") into
 * kprobe_events fetch arguments using the kernel's BTF and the calling
 * convention lib/arch gives for the kernel's machine (x86-64, arm64;
 * elsewhere arguments by name fail with -EOPNOTSUPP).
 *
 * A function may be named "MOD:FUNC" (the kprobe syntax): the one of loaded
 * module MOD (kallsyms' "[MOD]"), its BTF from the module's split BTF on
 * top of vmlinux's (the file MOD next to the vmlinux BTF file:
 * /sys/kernel/btf/MOD). A plain FUNC that only a module has is found in
 * that module's BTF too.
 *
 * Every source is loaded lazily, at most once, on first use. A source that
 * cannot be read is remembered as missing: the checks that need it are then
 * skipped (kallsyms, blacklist, filter functions) or fail with the reason
 * (BTF).
 */
#ifndef KTRACE_PROBE_BTF_H
#define KTRACE_PROBE_BTF_H

#include <stdbool.h>

#include "ktrace.h"

#define KT_BTF_PATH	"/sys/kernel/btf/vmlinux"
#define KT_BTF_KALLSYMS_PATH	"/proc/kallsyms"
#define KT_BTF_BLACKLIST_PATH	"/sys/kernel/debug/kprobes/blacklist"
#define KT_BTF_FILTER_PATH	"/sys/kernel/tracing/available_filter_functions"

/* At most this many names are offered by "did you mean". */
#define KT_BTF_MAX_MATCHES	5

struct kt_btf;
struct kt_arch;

/*
 * Remember where the sources are; nothing is read yet. A NULL path selects
 * the default above. arch is the machine of the kernel they describe,
 * whose calling convention places the arguments (NULL: the running
 * kernel's). Returns NULL + errno (ENOMEM) on failure. The caller frees
 * the handle with kt_btf_free().
 */
struct kt_btf *kt_btf_open(const char *btf_path, const char *kallsyms_path,
			   const char *blacklist_path,
			   const char *filter_funcs_path,
			   const struct kt_arch *arch);
/* Free everything the handle loaded. Accepts NULL. */
void kt_btf_free(struct kt_btf *kb);

/*
 * Can a kprobe be put on func? Returns
 *   0            the function is known (or kallsyms could not be read),
 *   -ENOENT      no such text symbol in kallsyms (of module MOD, or no
 *                module MOD is loaded); err->msg names up to
 *                KT_BTF_MAX_MATCHES close matches, optimised clones
 *                (func.isra.0, func.constprop.0, func.part.0...) first,
 *   -EPERM       func is on the kprobe blacklist,
 *   -EOPNOTSUPP  func is not in available_filter_functions (notrace or
 *                inlined-only); a kprobe may still attach with a breakpoint,
 *                but fprobes cannot. Callers placing kprobes may treat this
 *                one as a warning.
 *   -EINVAL      func is not a valid symbol name,
 *   -ENOMEM.
 * err may be NULL; when set, the caller clears it with ktrace_err_clear().
 */
int kt_btf_func(struct kt_btf *kb, const char *func,
		struct ktrace_err *err);

/*
 * Close matches of func among the kernel's text symbols (for "MOD:FUNC",
 * module MOD's), best first, at most max names; a module's as "MOD:FUNC". NULL-terminated vector; the caller frees it with
 * ktrace_strv_free(). Returns NULL + errno (ENOENT when kallsyms cannot be
 * read, ENOMEM). An empty vector means nothing is close.
 */
char **kt_btf_suggest(struct kt_btf *kb, const char *func, int max);
/*
 * Size of kernel function func from kallsyms (the distance to the next
 * text symbol): 0 when unknown (no kallsyms, addresses hidden, no such
 * function).
 */
unsigned long long kt_btf_func_size(struct kt_btf *kb, const char *func);
/*
 * The module that has kernel function func (a string the caller frees),
 * or NULL: vmlinux has it (the kernel then takes vmlinux's), nothing has
 * it or kallsyms cannot be read (errno 0), or no memory (errno ENOMEM).
 */
char *kt_btf_func_module(struct kt_btf *kb, const char *func);

/*
 * The parameters of func from BTF, in order: names when !decl, C
 * declarations ("const char *filename") when decl. A ".isra.N"-style clone
 * is looked up under its base name. NULL-terminated vector; the caller frees
 * it with ktrace_strv_free(). Returns NULL + errno: ENOENT (no BTF, or func
 * has no BTF prototype; err says which), ENOMEM.
 */
char **kt_btf_params(struct kt_btf *kb, const char *func, bool decl,
		     struct ktrace_err *err);

/*
 * Resolve one argument expression of a probe on func to a kprobe_events
 * fetch argument and its type. expr is one of
 *   NAME            a parameter of func (or $argN, N from 1)
 *   $retval         the return value (is_return only)
 *   X->field        through a pointer to a struct/union, any depth
 *   X.field         a member of a struct reached through a pointer
 *   X[N]            an element of an array, or through a pointer
 * with anonymous struct/union members looked through.
 *
 * On success *fetcharg and *type are malloc'ed strings the caller frees, to
 * be written as "NAME=<fetcharg>:<type>" (registers as on x86-64; arm64
 * names them "%x0".."%x7"):
 *   a parameter at entry       "%si"  with s32/u64/x64...
 *   a field via a pointer      "+16(%dx)", chains "+8(+200(%di))"
 *   char * / const char *      "+0(%si)" with "string" (the kernel reads the
 *                              string at the address the last +0() yields)
 *   a user-space char *        "+0(%si)" with "ustring"
 *   char array in a struct     "+24(%di)" with "string"
 *   other arrays               "+24(%di)" with "u32[4]" (up to 64 elements)
 *   bitfield                   "+4(%di)" with "b3@5/32"
 *   function pointer           "symbol"
 *   a parameter past the argument registers, at entry: "$stackN"
 *   a field of a struct passed in memory, at entry: "+24(%sp)" (x86-64:
 *                              in the stack arguments), "+8(%x3)" (arm64:
 *                              a struct over 16 bytes is passed as a
 *                              pointer to the caller's copy)
 * In a return probe, parameters become "$argN" (the kernel records them at
 * entry, Linux 6.10 and later).
 *
 * User pointers: a char pointer whose BTF carries the "user" type tag is a
 * ustring. Kernels built without __user tags in BTF (this is checked: no
 * "user" TYPE_TAG anywhere in the BTF) get a heuristic instead: the pointer is
 * taken as a user one when it is a direct parameter of a system call
 * implementation (name starting with "__do_sys_", "__se_sys_", "__x64_sys_",
 * "do_sys_" or "ksys_") or when the parameter name is one of "filename",
 * "pathname", "oldname", "newname", "ubuf", "user_buf", or starts with
 * "user" ("user", "userbuf"...). Fields are never user pointers by this
 * heuristic. A wrong guess shows as "(fault)" in the trace.
 *
 * Errors (-errno, message in err, which may be NULL; for errors in expr,
 * err->input is a copy of expr and err->pos the offending offset):
 *   -ENOENT      no BTF, no prototype for func, unknown parameter (the
 *                message lists the parameters), unknown field (the message
 *                lists up to 10 fields of the struct),
 *   -EINVAL      bad syntax, "->" on a non-pointer, "." on a non-struct,
 *                $retval outside a return probe, a whole struct asked for,
 *                a clone (".isra.N"...) whose prototype may differ,
 *   -ERANGE      an index past the end of an array,
 *   -E2BIG       a parameter on the stack in a return probe, or a scalar
 *                that takes two stack slots; too many dereferences,
 *   -EOPNOTSUPP  a field of a struct passed by value in registers, a
 *                struct passed by reference in a return probe, floating
 *                point, a parameter at or after one whose place the
 *                convention does not make plain (a struct with
 *                floating-point members), an empty struct, void, a
 *                bitfield that straddles its container, an architecture
 *                lib/arch has no argument registers for,
 *   -ENOMEM.
 */
int kt_btf_arg(struct kt_btf *kb, const char *func, const char *expr,
	       bool is_return, char **fetcharg, char **type,
	       struct ktrace_err *err);

/*
 * The same walk from a value that is not a function's parameter: the one
 * value fetches (an event probe's field, "$rqtp"), whose C type is ctype
 * as a format file spells it ("const struct __kernel_timespec *",
 * "struct open_how *"), looked up in BTF by name (struct/union/enum,
 * typedef, base type). expr is NAME followed by at least one step
 * (NAME->field, NAME[N]...; NAME names the value in messages).
 *
 * user: the value points to user memory (a system call's argument), and
 * so does every pointer read there: each dereference is "+uOFFS(...)"
 * and strings are "ustring". Otherwise memory is the kernel's but for
 * pointers BTF tags "user". "rqtp->tv_nsec" with user gives
 * "+u8($rqtp)" and "s64".
 *
 * Results and errors as kt_btf_arg() (err->input is expr, err->pos the
 * step at fault; an unknown member's message names the close ones);
 * besides: -ENOENT when BTF has no type ctype, -EINVAL when ctype is not
 * a pointer.
 */
struct kt_fetcharg;
int kt_btf_value_arg(struct kt_btf *kb, const struct kt_fetcharg *value,
		     const char *ctype, bool user, const char *expr,
		     char **fetcharg, char **type, struct ktrace_err *err);

#endif /* KTRACE_PROBE_BTF_H */
