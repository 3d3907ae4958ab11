/* SPDX-License-Identifier: LGPL-2.1-only */
/* The probe object shared by spec.c (parse), resolve.c and create.c. */
#ifndef KTRACE_PROBE_PRIV_H
#define KTRACE_PROBE_PRIV_H

#include <stdbool.h>

#include "ktrace.h"

#define PROBE_MAX_ARGS 64

struct probe_arg {
	char *name;		/* argument name in the event */
	char *expr;		/* what the user wrote after NAME= */
	char *type;		/* user's :TYPE, or NULL */
	bool raw;		/* expr is a fetcharg, not a variable */
	int ustart, uend;	/* the whole token in the spec */
	int estart;		/* expr's start in the spec */
	char *fetch;		/* resolved fetcharg */
	char *rtype;		/* resolved type (or the user's) */
	int dstart, dend;	/* this argument in the definition */
};

/* The kinds written to dynamic_events rather than kprobe_events. */
enum probe_dyn {
	PROBE_KU,		/* kprobe or uprobe (p->user) */
	PROBE_EVENT,		/* e: an event probe on esys:eevent */
	PROBE_FPROBE,		/* f: an fprobe on func (%return: is_return) */
	PROBE_TPROBE,		/* t: a tracepoint probe on eevent */
};

struct ktrace_probe {
	char *spec;
	char *group, *event;
	enum probe_dyn dyn;
	char *esys, *eevent;	/* e: the event it hangs on; t: tracepoint */
	bool user;		/* uprobe */
	bool is_return;
	char *binary;		/* user: as given */
	bool maybe_module;	/* binary is a bare MOD of "MOD:FUNC": a
				 * kernel module's function when MOD is
				 * loaded (resolve.c) */
	char *func;		/* FUNC or SYMBOL; NULL for FILE:LINE */
	unsigned long offs;
	char *file;		/* FILE:LINE */
	int line;
	int lstart, lend;	/* location in the spec */
	int fstart;		/* FUNC or SYMBOL in the spec */
	struct probe_arg args[PROBE_MAX_ARGS];
	int nargs;
	char *location;		/* resolved: "func+8", "/bin/x:0x..." */
	char *fmt;		/* resolved arguments joined */
	char *def;		/* the full line */
	int dloc;		/* location's start in def */
	unsigned long file_off;
	char *path;		/* user: resolved absolute path */
	char *warning;		/* resolved, but worth a note */
	bool created;		/* by ktrace_probe_create() */
	char *replaced;		/* --force: the definition it replaced */
};

/* Fill err with a message about spec at pos; returns -errnum. */
int kt_probe_err(struct ktrace_err *err, const char *spec, int pos,
		 int errnum, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* s could name a kernel module ("binfmt_misc", "nf-nat"): spec.c. */
bool kt_probe_module_name(const char *s);

/* A group or event name the kernel takes: an identifier, < 64 chars. */
int kt_probe_name_check(const char *s);

/* The kind letter of p's definition: 'p', 'r', 'e', 'f' or 't'. */
char kt_probe_letter(const struct ktrace_probe *p);

/*
 * Event probes (eprobe.c): p's arguments against the fields of the event
 * it hangs on (esys:eevent's format in tfs): $FIELD references checked,
 * names turned into fetch arguments with their types, the string rules
 * checked (a system call's pointer is user memory: ustring); FIELD->x,
 * FIELD[N] through the pointer types of kb's BTF. 0 or -errno
 * with err pointing into p's spec.
 */
struct ktrace_tfs;
struct kt_btf;
int kt_eprobe_resolve(struct ktrace_probe *p, struct ktrace_tfs *tfs,
		      struct kt_btf *kb, struct ktrace_err *err);

#endif
