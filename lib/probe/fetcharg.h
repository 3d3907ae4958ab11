/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The one model of a probe argument shared by the kernel (BTF) and the
 * user-space (DWARF) back ends, and the one parser of the access paths
 * users write after a variable name.
 *
 *   access path:  NAME ( "->" FIELD | "." FIELD | "[" N "]" )*
 *   fetch arg:    a base (a register, $retval, $argN, $stackN, or a file
 *                 offset of user-space data) and a chain of memory
 *                 levels; level i reads at (value of level i-1) + off[i].
 *
 * Back ends walk the steps of a kt_apath against their types and move a
 * kt_fetcharg along; kt_fetcharg_text() writes the kprobe_events /
 * uprobe_events text in one place. Memory only, no I/O.
 */
#ifndef KTRACE_PROBE_FETCHARG_H
#define KTRACE_PROBE_FETCHARG_H

#include <stdbool.h>
#include <stddef.h>

#include "ktrace.h"

/* ------------------------------------------------------------ access path */

enum kt_step_kind {
	KT_STEP_ARROW,		/* ->FIELD: through a pointer to a struct */
	KT_STEP_DOT,		/* .FIELD: a member of a struct in memory */
	KT_STEP_INDEX,		/* [N]: an element of an array or pointer */
};

struct kt_step {
	enum kt_step_kind kind;
	char field[128];	/* ARROW, DOT */
	unsigned long index;	/* INDEX */
	int pos;		/* where the step starts in the expression */
	int name_pos;		/* where its field name or index starts */
	int end;		/* one past its last character */
};

#define KT_APATH_MAX_STEPS 16

struct kt_apath {
	char name[128];		/* the variable: identifier, $retval, $argN */
	int name_len;
	struct kt_step steps[KT_APATH_MAX_STEPS];
	int nr_steps;
};

/*
 * Parse expr (no ":TYPE" suffix) into ap. Returns 0, or -EINVAL with err
 * filled (err->input = expr, err->pos at the offending character).
 */
int kt_apath_parse(const char *expr, struct kt_apath *ap,
		   struct ktrace_err *err);

/* ------------------------------------------------------------- fetch arg */

#define KT_FETCHARG_MAX_DEPTH 16	/* the kernel's dereference limit */

struct kt_fetcharg {
	char base[32];		/* "%di", "$retval", "$arg1"; "" when file */
	bool file;		/* level 0 reads at file offset file_off */
	unsigned long file_off;
	int depth;		/* memory levels: 0 = the value is base */
	long off[KT_FETCHARG_MAX_DEPTH];
	bool user[KT_FETCHARG_MAX_DEPTH];	/* kprobes: a user address */
};

/* The value is the register or variable base ("%di", "$retval"...). */
int kt_fetcharg_base(struct kt_fetcharg *fa, const char *base);
/* The value is in memory at register base + off (a stack slot). */
int kt_fetcharg_base_mem(struct kt_fetcharg *fa, const char *base, long off);
/* The value is in memory at file offset off of the probed binary. */
void kt_fetcharg_file(struct kt_fetcharg *fa, unsigned long off);

/* Is the value in memory (so that '.' and arrays can be addressed)? */
static inline bool kt_fetcharg_in_mem(const struct kt_fetcharg *fa)
{
	return fa->depth > 0;
}

/* The value is a pointer: the new value is in memory at it + off.
 * -E2BIG past the kernel's depth. */
int kt_fetcharg_deref(struct kt_fetcharg *fa, long off);
/* The same through a user-space pointer (kprobes: "+uOFFS(...)"). */
int kt_fetcharg_deref_user(struct kt_fetcharg *fa, long off);
/* The value is in memory: move its address by off (members, elements).
 * -EINVAL when it is not in memory. */
int kt_fetcharg_move(struct kt_fetcharg *fa, long off);
/* The byte offset of the last memory level (0 when not in memory). */
long kt_fetcharg_last_off(const struct kt_fetcharg *fa);
/* Replace the byte offset of the last memory level (bitfields). */
void kt_fetcharg_set_last_off(struct kt_fetcharg *fa, long off);

/*
 * The fetcharg text ("+8(+0(%di))", "@+0x2010", "%si"), followed by
 * ":type" when type is not NULL. The string types read at the address
 * the last memory level names: a char pointer is first deref'ed by 0, a
 * char array in memory is written as it is. Returns a malloc'ed string
 * the caller frees, or NULL + errno.
 */
char *kt_fetcharg_text(const struct kt_fetcharg *fa, const char *type);

#endif
