// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Access paths and fetch arguments: one parser and one text writer for
 * both probe back ends (btf.c for the kernel, dwarf.c for user space).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "probe/fetcharg.h"

static int ap_err(struct ktrace_err *err, const char *expr, int pos,
		  const char *msg)
{
	if (!err)
		return -EINVAL;
	kt_err_set(err, EINVAL, "%s", msg);
	free(err->input);
	err->input = strdup(expr);
	err->pos = pos;
	return -EINVAL;
}

static size_t ident_len(const char *s)
{
	size_t n = 0;

	if (!isalpha((unsigned char)s[0]) && s[0] != '_')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n;
}

int kt_apath_parse(const char *expr, struct kt_apath *ap,
		   struct ktrace_err *err)
{
	const char *p = expr;
	size_t n;

	memset(ap, 0, sizeof(*ap));
	n = (*p == '$') ? 1 + ident_len(p + 1) : ident_len(p);
	if (n == 0 || (*p == '$' && n == 1))
		return ap_err(err, expr, 0,
			      "expected a variable name, $argN or $retval");
	if (n >= sizeof(ap->name))
		return ap_err(err, expr, 0, "name too long");
	memcpy(ap->name, p, n);
	ap->name_len = (int)n;
	p += n;
	while (*p) {
		struct kt_step *st = &ap->steps[ap->nr_steps];
		char *end;

		if (ap->nr_steps == KT_APATH_MAX_STEPS)
			return ap_err(err, expr, p - expr,
				      "too many steps in the access path");
		memset(st, 0, sizeof(*st));
		st->pos = p - expr;
		if (*p == '[') {
			if (!isdigit((unsigned char)p[1]))
				return ap_err(err, expr, p + 1 - expr,
					      "expected a constant index in '[...]'");
			errno = 0;
			st->index = strtoul(p + 1, &end, 0);
			if (errno || *end != ']')
				return ap_err(err, expr, p + 1 - expr,
					      "expected a constant index in '[...]'");
			st->kind = KT_STEP_INDEX;
			st->name_pos = p + 1 - expr;
			p = end + 1;
		} else {
			if (p[0] == '-' && p[1] == '>') {
				st->kind = KT_STEP_ARROW;
				p += 2;
			} else if (*p == '.') {
				st->kind = KT_STEP_DOT;
				p++;
			} else {
				char msg[200];

				snprintf(msg, sizeof(msg),
					 "expected '->', '.' or '[' after '%.*s'",
					 (int)(p - expr), expr);
				return ap_err(err, expr, p - expr, msg);
			}
			n = ident_len(p);
			if (!n)
				return ap_err(err, expr, p - expr,
					      st->kind == KT_STEP_ARROW ?
					      "expected a field name after '->'" :
					      "expected a field name after '.'");
			if (n >= sizeof(st->field))
				return ap_err(err, expr, p - expr,
					      "field name too long");
			memcpy(st->field, p, n);
			st->name_pos = p - expr;
			p += n;
		}
		st->end = p - expr;
		ap->nr_steps++;
	}
	return 0;
}

int kt_fetcharg_base(struct kt_fetcharg *fa, const char *base)
{
	memset(fa, 0, sizeof(*fa));
	if (!base || strlen(base) >= sizeof(fa->base))
		return -EINVAL;
	strcpy(fa->base, base);
	return 0;
}

int kt_fetcharg_base_mem(struct kt_fetcharg *fa, const char *base, long off)
{
	int ret = kt_fetcharg_base(fa, base);

	if (ret)
		return ret;
	fa->depth = 1;
	fa->off[0] = off;
	return 0;
}

void kt_fetcharg_file(struct kt_fetcharg *fa, unsigned long off)
{
	memset(fa, 0, sizeof(*fa));
	fa->file = true;
	fa->file_off = off;
	fa->depth = 1;
}

static int deref(struct kt_fetcharg *fa, long off, bool user)
{
	if (fa->depth == KT_FETCHARG_MAX_DEPTH)
		return -E2BIG;
	fa->user[fa->depth] = user;
	fa->off[fa->depth++] = off;
	return 0;
}

int kt_fetcharg_deref(struct kt_fetcharg *fa, long off)
{
	return deref(fa, off, false);
}

int kt_fetcharg_deref_user(struct kt_fetcharg *fa, long off)
{
	return deref(fa, off, true);
}

int kt_fetcharg_move(struct kt_fetcharg *fa, long off)
{
	if (!fa->depth)
		return -EINVAL;
	fa->off[fa->depth - 1] += off;
	return 0;
}

long kt_fetcharg_last_off(const struct kt_fetcharg *fa)
{
	return fa->depth ? fa->off[fa->depth - 1] : 0;
}

void kt_fetcharg_set_last_off(struct kt_fetcharg *fa, long off)
{
	if (fa->depth)
		fa->off[fa->depth - 1] = off;
}

char *kt_fetcharg_text(const struct kt_fetcharg *fa, const char *type)
{
	char *s = NULL, *t;
	int i = 0;

	if (fa->file) {
		if (asprintf(&s, "@+0x%lx",
			     fa->file_off + (unsigned long)fa->off[0]) < 0)
			return NULL;
		i = 1;
	} else {
		s = strdup(fa->base);
		if (!s)
			return NULL;
	}
	for (; i < fa->depth; i++) {
		unsigned long mag = fa->off[i] < 0 ? -(unsigned long)fa->off[i] :
				    (unsigned long)fa->off[i];

		if (asprintf(&t, "%c%s%lu(%s)", fa->off[i] < 0 ? '-' : '+',
			     fa->user[i] ? "u" : "", mag, s) < 0) {
			free(s);
			return NULL;
		}
		free(s);
		s = t;
	}
	if (type) {
		if (asprintf(&t, "%s:%s", s, type) < 0) {
			free(s);
			return NULL;
		}
		free(s);
		s = t;
	}
	return s;
}
