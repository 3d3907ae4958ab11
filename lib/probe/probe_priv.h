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

struct ktrace_probe {
	char *spec;
	char *group, *event;
	bool user;		/* uprobe */
	bool is_return;
	char *binary;		/* user: as given */
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

/* A group or event name the kernel takes: an identifier, < 64 chars. */
int kt_probe_name_check(const char *s);

#endif
