// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Filters of the function tracers checked before the kernel sees them:
 * set_ftrace_filter takes a name that matches nothing with a bare EINVAL
 * (or, for a glob, silently), so each is held to available_filter_functions
 * first, with the closest names offered for a typo (suggest.c).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "sym/ffuncs.h"
#include "sym/symtab.h"
#include "tracefs/tfs.h"

/* Cut one line "NAME" or "NAME [MODULE]" in place into o. */
static void cut_line(char *l, struct kt_ffunc *o)
{
	char *sp = strchr(l, ' ');

	o->name = l;
	o->mod = NULL;
	if (!sp)
		return;
	*sp++ = '\0';
	if (*sp == '[') {
		o->mod = sp + 1;
		sp[strcspn(sp, "]")] = '\0';
	}
}

int kt_ffuncs_load(struct ktrace_tfs *tfs, struct kt_ffuncs *f)
{
	size_t len, cap = 0;
	char *l, *nl;

	memset(f, 0, sizeof(*f));
	f->text = kt_inst_read(kt_tfs_top(tfs), "available_filter_functions",
			       &len);
	if (!f->text)
		return -errno;
	for (l = f->text; *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = '\0';
		else
			nl = l + strlen(l);
		if (!*l)
			continue;
		if (f->n == cap) {
			struct kt_ffunc *v;

			cap = cap ? cap * 2 : 4096;
			v = realloc(f->v, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			f->v = v;
		}
		cut_line(l, &f->v[f->n++]);
	}
	return 0;
}

void kt_ffuncs_free(struct kt_ffuncs *f)
{
	free(f->text);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* "[x]" closed, only glob and symbol characters. */
static bool glob_ok(const char *g)
{
	int depth = 0;

	for (; *g; g++) {
		if (*g == '[')
			depth++;
		else if (*g == ']')
			depth--;
		else if (!strchr("*?!_.-", *g) && !(*g >= 'a' && *g <= 'z') &&
			 !(*g >= 'A' && *g <= 'Z') && !(*g >= '0' && *g <= '9'))
			return false;
		if (depth < 0 || depth > 1)
			return false;
	}
	return !depth;
}

/* "Did you mean" for name among f's names, into err. */
static int no_such(const struct kt_ffuncs *f, const char *name,
		   struct ktrace_err *err)
{
	struct kt_suggest sg;
	char list[512];
	size_t at = 0;

	if (kt_suggest_init(&sg, name, 4, true))
		return kt_err_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < f->n; i++)
		kt_suggest_add(&sg, f->v[i].name, strlen(f->v[i].name),
			       f->v[i].name);
	list[0] = '\0';
	for (int k = 0; k < sg.nbest && at < sizeof(list); k++)
		at += snprintf(list + at, sizeof(list) - at, "%s%s",
			       k ? ", " : "", sg.best[k].name);
	kt_suggest_fini(&sg);
	return kt_err_set(err, ENOENT,
			  "no traceable kernel function '%s' (not in available_filter_functions)%s%s%s",
			  name, *list ? "; did you mean " : "", list,
			  *list ? "?" : "");
}

int kt_ffuncs_check(const struct kt_ffuncs *f, const char *filter,
		    struct ktrace_err *err)
{
	const char *m = strstr(filter, ":mod:");
	char func[256];
	const char *mod = m ? m + 5 : NULL;
	size_t flen = m ? (size_t)(m - filter) : strlen(filter);
	bool glob;

	if (flen >= sizeof(func) || (mod && (!*mod || !glob_ok(mod))))
		goto bad;
	memcpy(func, filter, flen);
	func[flen] = '\0';
	if (!flen)
		strcpy(func, "*");
	if (!glob_ok(func))
		goto bad;
	for (size_t i = 0; i < f->n; i++)
		if ((!mod || (f->v[i].mod && !fnmatch(mod, f->v[i].mod, 0))) &&
		    !fnmatch(func, f->v[i].name, 0))
			return 0;
	glob = strpbrk(func, "*?[") != NULL;
	if (!glob && !mod)
		return no_such(f, func, err);
	if (mod)
		return kt_err_set(err, ENOENT,
				  "'%s' names no traceable function of module '%s' (loaded modules' functions are in available_filter_functions)",
				  filter, mod);
	return kt_err_set(err, ENOENT,
			  "'%s' matches no traceable kernel function (available_filter_functions)",
			  filter);
bad:
	kt_err_set(err, EINVAL,
		   "bad function filter '%s': expected NAME, a glob, GLOB:mod:MODULE or :mod:MODULE",
		   filter);
	if (err)
		err->syntax = true;
	return -EINVAL;
}
