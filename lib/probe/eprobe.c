// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Event probes, resolving: the arguments of "e:SYS/EVENT ARG..." against
 * the fields of the event the probe hangs on, read from its format file.
 *
 *   NAME            a field: "$NAME" with a type from the field's (a
 *                   string for char arrays and char pointers)
 *   NAME:string     a char pointer: "+0($NAME):string", the string at it
 *   NAME:ustring    the same in user memory
 *   NAME->member, NAME[N], NAME->a.b[2]->c
 *                   through a pointer field, with the types of the
 *                   kernel's BTF (btf.c): "+u8($rqtp):s64"
 *   $NAME, +8($NAME), $comm ...   the kernel's own syntax, checked for
 *                   fields that exist
 *
 * The pointer arguments of a system call (syscalls:sys_enter_*) point
 * into user memory: read as strings they are ustring, and :string is
 * refused before anything is written (the kernel would read nothing);
 * what they point to is user memory too, read with "+uOFFS(...)", and
 * so is what pointers found there point to.
 * Reads the format file and BTF, writes nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "tracefs/tfs.h"
#include "probe/btf.h"
#include "probe/fetcharg.h"
#include "probe/probe_priv.h"
#include "sym/symtab.h"

/* What a field holds, from its type in the format file. */
enum field_shape {
	F_SCALAR,
	F_POINTER,		/* any pointer but to char */
	F_CHAR_POINTER,		/* char *, const char * */
	F_STRING,		/* the text is in the record: char[], __data_loc */
};

static enum field_shape field_shape(const struct ktrace_field *f)
{
	const char *t = f->type, *star = strchr(t, '*');

	if (strstr(t, "char") && strchr(t, '[') && !star)
		return F_STRING;
	if (!star)
		return F_SCALAR;
	/* one level, to char: "const char *", "char *", "const char __user *" */
	if (strstr(t, "char") && !strchr(star + 1, '*') &&
	    strstr(t, "char") < star)
		return F_CHAR_POINTER;
	return F_POINTER;
}

/* A system call's entry event: its pointers are user addresses. */
static bool user_pointers(const struct ktrace_probe *p)
{
	return !strcmp(p->esys, "syscalls") &&
	       !strncmp(p->eevent, "sys_enter_", strlen("sys_enter_"));
}

static const struct ktrace_field *find_field(const struct ktrace_event *e,
					     const char *name, size_t len)
{
	for (int i = 0; i < e->nr_fields; i++)
		if (strlen(e->fields[i].name) == len &&
		    !strncmp(e->fields[i].name, name, len))
			return &e->fields[i];
	return NULL;
}

/* "a, b, c": the event's own fields, for messages (malloc'ed or NULL). */
static char *field_list(const struct ktrace_event *e)
{
	size_t cap = 1, len = 0;
	char *s;

	for (int i = 0; i < e->nr_fields; i++)
		cap += strlen(e->fields[i].name) + 2;
	s = malloc(cap);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (int i = 0; i < e->nr_fields; i++) {
		if (e->fields[i].is_common)
			continue;
		len += snprintf(s + len, cap - len, "%s%s", len ? ", " : "",
				e->fields[i].name);
	}
	return s;
}

/* " (did you mean 'a'?)": e's fields close to query, or "". */
static void near_fields(const struct ktrace_event *e, const char *query,
			char *buf, size_t size)
{
	struct kt_suggest sg;
	size_t len = 0;

	buf[0] = '\0';
	if (kt_suggest_init(&sg, query, 3, false))
		return;
	for (int i = 0; i < e->nr_fields; i++)
		if (!e->fields[i].is_common)
			kt_suggest_add(&sg, e->fields[i].name,
				       strlen(e->fields[i].name),
				       e->fields[i].name);
	for (int i = 0; i < sg.nbest && len < size; i++)
		len += snprintf(buf + len, size - len, "%s'%s'%s",
				i ? ", " : " (did you mean ", sg.best[i].name,
				i == sg.nbest - 1 ? "?)" : "");
	kt_suggest_fini(&sg);
}

static int no_field(struct ktrace_probe *p, const struct ktrace_event *e,
		    int pos, const char *name, size_t len,
		    struct ktrace_err *err)
{
	char *fields = field_list(e), *query = strndup(name, len);
	char near[256] = "";
	int ret;

	if (query)
		near_fields(e, query, near, sizeof(near));
	ret = kt_probe_err(err, p->spec, pos, ENOENT,
			   "%s:%s has no field '%.*s'%s (its fields: %s)",
			   p->esys, p->eevent, (int)len, name, near,
			   fields && *fields ? fields : "none");
	free(query);
	free(fields);
	return ret;
}

/*
 * A raw argument in the kernel's syntax: every $NAME in it is a field of
 * the event or $comm; registers, $argN, $stack and $retval are not
 * there for an event probe.
 */
static int check_raw(struct ktrace_probe *p, struct probe_arg *a,
		     const struct ktrace_event *e, struct ktrace_err *err)
{
	for (const char *c = a->expr; *c; c++) {
		const char *n = c + 1;
		size_t len = 0;

		if (*c == '%')
			return kt_probe_err(err, p->spec, a->estart +
				    (int)(c - a->expr), EINVAL,
				    "an event probe reads its event's fields ($FIELD), not registers");
		if (*c == '@')
			continue;
		if (*c != '$')
			continue;
		while (isalnum((unsigned char)n[len]) || n[len] == '_')
			len++;
		if ((len == 4 && !strncasecmp(n, "comm", 4)) ||
		    find_field(e, n, len))
			continue;
		if ((len >= 3 && !strncmp(n, "arg", 3)) ||
		    (len >= 5 && !strncmp(n, "stack", 5)) ||
		    (len == 6 && !strncmp(n, "retval", 6)))
			return kt_probe_err(err, p->spec, a->estart +
				    (int)(c - a->expr), EINVAL,
				    "an event probe has no $%.*s: it reads its event's fields ($FIELD) and $comm",
				    (int)len, n);
		return no_field(p, e, a->estart + (int)(c - a->expr) + 1, n,
				len, err);
	}
	return 0;
}

/* Where a's :TYPE starts in the spec. */
static int type_pos(const struct probe_arg *a)
{
	return a->uend - (int)strlen(a->type);
}

/* The type a field is read as when the user gives none. */
static const char *default_type(const struct ktrace_field *f,
				enum field_shape shape, bool user)
{
	static const char *const u[] = { "u8", "u16", "u32", "u64" };
	static const char *const s[] = { "s8", "s16", "s32", "s64" };
	int i = f->size == 1 ? 0 : f->size == 2 ? 1 : f->size == 4 ? 2 :
		f->size == 8 ? 3 : -1;

	if (shape == F_STRING)
		return "string";
	if (shape == F_CHAR_POINTER)
		return user ? "ustring" : "string";
	if (i < 0)
		return NULL;
	if (shape == F_POINTER)
		return f->size == 8 ? "x64" : "x32";
	return f->is_signed ? s[i] : u[i];
}

/* a->fetch: "$FIELD", or "+0($FIELD)" (deref: the string at it); a->rtype. */
static int fetch_text(struct probe_arg *a, const char *field, bool deref,
		      const char *type)
{
	struct kt_fetcharg fa;
	char base[sizeof(fa.base)];

	if (snprintf(base, sizeof(base), "$%s", field) >= (int)sizeof(base))
		return -ENAMETOOLONG;
	if (deref ? kt_fetcharg_base_mem(&fa, base, 0) :
		    kt_fetcharg_base(&fa, base))
		return -ENAMETOOLONG;
	a->fetch = kt_fetcharg_text(&fa, NULL);
	a->rtype = type ? strdup(type) : NULL;
	return a->fetch && (!type || a->rtype) ? 0 : -ENOMEM;
}

/* A field read as a string (type "string" or "ustring"): the rules. */
static int string_arg(struct ktrace_probe *p, struct probe_arg *a,
		      const struct ktrace_field *f, enum field_shape shape,
		      const char *type, struct ktrace_err *err)
{
	bool user = user_pointers(p), ustr = !strcmp(type, "ustring");
	int pos = a->type ? type_pos(a) : a->estart;

	if (shape == F_STRING) {
		if (ustr)
			return kt_probe_err(err, p->spec, pos, EINVAL,
				    "'%s' (%s) is text in the event's record, not in user memory: read it with :string",
				    f->name, f->type);
		return fetch_text(a, f->name, false, "string");
	}
	if (shape == F_SCALAR && f->size != (int)sizeof(void *))
		return kt_probe_err(err, p->spec, pos, EINVAL,
			    "'%s' (%s) is not a pointer: it cannot be read as a string",
			    f->name, f->type);
	if (user && !ustr)
		return kt_probe_err(err, p->spec, pos, EINVAL,
			    "'%s' of %s:%s is a user-space pointer (a system call's argument): read it with :ustring",
			    f->name, p->esys, p->eevent);
	if (!user && ustr && shape == F_CHAR_POINTER)
		return kt_probe_err(err, p->spec, pos, EINVAL,
			    "'%s' (%s) of %s:%s points into the kernel: read it with :string",
			    f->name, f->type, p->esys, p->eevent);
	return fetch_text(a, f->name, true, type);
}

/*
 * FIELD->member, FIELD[N]...: through the pointer field f with the
 * kernel's BTF, in user memory for a system call's pointers.
 */
static int btf_arg(struct ktrace_probe *p, struct probe_arg *a,
		   const struct ktrace_field *f, enum field_shape shape,
		   const struct kt_apath *ap, struct kt_btf *kb,
		   struct ktrace_err *err)
{
	struct ktrace_err sub = { .pos = -1 };
	bool user = user_pointers(p);
	struct kt_fetcharg fa;
	char base[sizeof(fa.base)];
	int ret, pos;

	if (shape != F_POINTER && shape != F_CHAR_POINTER)
		return kt_probe_err(err, p->spec, a->estart + ap->steps[0].pos,
			    EINVAL,
			    "'%s' (%s) is %s, not a pointer: '->' and '[N]' follow pointers",
			    f->name, f->type, shape == F_STRING ?
			    "text in the event's record" : "a value");
	if (!kb)
		return -ENOMEM;
	if (snprintf(base, sizeof(base), "$%s", f->name) >= (int)sizeof(base) ||
	    kt_fetcharg_base(&fa, base))
		return -ENAMETOOLONG;
	ret = kt_btf_value_arg(kb, &fa, f->type, user, a->expr, &a->fetch,
			       &a->rtype, &sub);
	if (ret) {
		pos = a->estart;
		if (sub.pos >= 0 && sub.pos <= (int)strlen(a->expr))
			pos += sub.pos;
		ret = kt_probe_err(err, p->spec, pos, -ret, "%s",
				   sub.msg ? sub.msg : strerror(-ret));
		ktrace_err_clear(&sub);
		return ret;
	}
	/* what the walk found in user memory is not to be read as kernel
	 * memory: the same rule as for the field itself */
	if (a->type && !strcmp(a->type, "string") &&
	    !strcmp(a->rtype, "ustring"))
		return kt_probe_err(err, p->spec, type_pos(a), EINVAL,
			    "'%s' is in user memory (%s is a system call's pointer): read it with :ustring",
			    a->expr, f->name);
	return 0;
}

/* An argument by name: a field, its type the user's or the field's. */
static int named_arg(struct ktrace_probe *p, struct probe_arg *a,
		     const struct ktrace_event *e, struct kt_btf *kb,
		     struct ktrace_err *err)
{
	struct ktrace_err sub = { .pos = -1 };
	const struct ktrace_field *f;
	enum field_shape shape;
	struct kt_apath ap;
	const char *type;
	int ret;

	ret = kt_apath_parse(a->expr, &ap, &sub);
	if (ret) {
		ret = kt_probe_err(err, p->spec, a->estart + (sub.pos > 0 ?
				   sub.pos : 0), -ret, "%s", sub.msg ?
				   sub.msg : "bad argument");
		ktrace_err_clear(&sub);
		return ret;
	}
	f = find_field(e, ap.name, strlen(ap.name));
	if (!f)
		return no_field(p, e, a->estart, ap.name, strlen(ap.name), err);
	shape = field_shape(f);
	if (ap.nr_steps)
		return btf_arg(p, a, f, shape, &ap, kb, err);
	type = a->type ? a->type : default_type(f, shape, user_pointers(p));
	if (!type)
		return kt_probe_err(err, p->spec, a->estart, EINVAL,
			    "'%s' (%s) is %d bytes: give its :TYPE (u8[%d]...)",
			    f->name, f->type, f->size, f->size);
	if (!strcmp(type, "string") || !strcmp(type, "ustring"))
		return string_arg(p, a, f, shape, type, err);
	return fetch_text(a, f->name, false, a->type ? NULL : type);
}

/* The event esys:eevent with its fields into *evs; 0 or -errno. */
static int load_event(struct ktrace_probe *p, struct ktrace_tfs *tfs,
		      struct ktrace_events **evs, struct ktrace_err *err)
{
	const char *glob[1];
	unsigned int hit = 0;
	char name[160];
	int e;

	snprintf(name, sizeof(name), "%s:%s", p->esys, p->eevent);
	glob[0] = name;
	*evs = ktrace_events_alloc(tfs, glob, 1, &hit);
	if (!*evs) {
		e = errno ? errno : ENOMEM;
		return kt_probe_err(err, p->spec, p->lstart, e,
				    "cannot list the events of %s: %s",
				    ktrace_tfs_dir(tfs), strerror(e));
	}
	if (!hit || ktrace_events_load_formats(*evs) < 0 ||
	    !ktrace_events_get(*evs, 0)->fields) {
		ktrace_events_free(*evs);
		*evs = NULL;
		return kt_probe_err(err, p->spec, p->lstart + 2, ENOENT,
				    hit ? "cannot read the format of %s" :
				    "no event %s in this kernel (ktrace list shows them)",
				    name);
	}
	return 0;
}

int kt_eprobe_resolve(struct ktrace_probe *p, struct ktrace_tfs *tfs,
		      struct kt_btf *kb, struct ktrace_err *err)
{
	struct ktrace_events *evs;
	const struct ktrace_event *e;
	int ret = load_event(p, tfs, &evs, err);

	if (ret)
		return ret;
	e = ktrace_events_get(evs, 0);
	for (int i = 0; !ret && i < p->nargs; i++) {
		struct probe_arg *a = &p->args[i];

		ret = a->raw ? check_raw(p, a, e, err) :
			       named_arg(p, a, e, kb, err);
	}
	if (!ret && asprintf(&p->location, "%s.%s", p->esys, p->eevent) < 0) {
		p->location = NULL;
		ret = -ENOMEM;
	}
	ktrace_events_free(evs);
	return ret;
}
