/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The functions the function tracers can filter on, from the tree's
 * available_filter_functions (lib/sym/ffuncs.c). Not installed.
 */
#ifndef KTRACE_SYM_FFUNCS_H
#define KTRACE_SYM_FFUNCS_H

#include <stddef.h>

#include "ktrace.h"

struct ktrace_tfs;

struct kt_ffunc {
	const char *name, *mod;		/* in text; mod NULL: the kernel's */
};

struct kt_ffuncs {
	char *text;			/* the file, cut into names */
	struct kt_ffunc *v;
	size_t n;
};

/* Read available_filter_functions of tfs into f (kt_ffuncs_free() it,
 * also after a failure). 0 or -errno. */
int kt_ffuncs_load(struct ktrace_tfs *tfs, struct kt_ffuncs *f);
void kt_ffuncs_free(struct kt_ffuncs *f);
/*
 * One filter as set_ftrace_filter takes it: "NAME", a glob ("vfs_*",
 * "*lock*", "[ab]*"), "GLOB:mod:MODULE" or ":mod:MODULE". 0 when it names
 * at least one function of f; else -ENOENT with err saying so ("did you
 * mean" the closest names for a NAME) or -EINVAL (malformed: err->syntax).
 */
int kt_ffuncs_check(const struct kt_ffuncs *f, const char *filter,
		    struct ktrace_err *err);

#endif
