// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The format text of a recording read from a file is untrusted input, and
 * libtraceevent trusts what it parses: an unknown field inside
 * __print_symbolic() dereferences NULL, and a division by zero (folded
 * while parsing, or by a record's value while printing) raises SIGFPE.
 *
 * So before libtraceevent sees a foreign format, its print fmt is held to
 * what kernels write: strings terminated, brackets balanced, every field
 * it names (REC->x, __get_str(x), ...) among the format's fields, and
 * every '/' and '%' dividing by a positive constant (a number or a
 * sizeof). Formats read live from this kernel's tracefs are not checked:
 * they are the kernel's own.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "record/fmtcheck.h"

struct fields {
	const char *text;
	size_t len;
};

/* Is name[0..n) a field of the format (a "field:" line's last word)? */
static bool has_field(const struct fields *f, const char *name, size_t n)
{
	const char *p = f->text, *end = f->text + f->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *semi, *e, *s;

		if (!nl)
			nl = end;
		s = memmem(p, nl - p, "field:", 6);
		semi = s ? memchr(s, ';', nl - s) : NULL;
		if (semi) {
			/* "TYPE NAME;", "TYPE NAME[N];", "__data_loc T[] NAME;" */
			e = semi;
			while (e > s && isspace((unsigned char)e[-1]))
				e--;
			if (e > s && e[-1] == ']')
				while (e > s && *--e != '[')
					;
			while (e > s && isspace((unsigned char)e[-1]))
				e--;
			s = e;
			while (s > p && (isalnum((unsigned char)s[-1]) ||
					 s[-1] == '_'))
				s--;
			if ((size_t)(e - s) == n && !memcmp(s, name, n))
				return true;
		}
		p = nl + 1;
	}
	return false;
}

/* Helpers whose argument is a field name, not an expression. */
static bool names_a_field(const char *p, size_t n)
{
	static const char *const helpers[] = {
		"__get_str", "__get_rel_str", "__get_dynamic_array",
		"__get_rel_dynamic_array", "__get_dynamic_array_len",
		"__get_rel_dynamic_array_len", "__get_bitmask",
		"__get_rel_bitmask", "__get_sockaddr", "__get_rel_sockaddr",
		"__get_cpumask", "__get_rel_cpumask",
	};

	for (size_t i = 0; i < sizeof(helpers) / sizeof(*helpers); i++)
		if (strlen(helpers[i]) == n && !memcmp(p, helpers[i], n))
			return true;
	return false;
}

/* ------------------------------------------------------------ tokens */

enum tok { T_END, T_NUM, T_STR, T_IDENT, T_PUNCT, T_BAD };

struct lex {
	const char *p, *end;
	enum tok t;
	const char *s;		/* the token's text */
	size_t n;
	unsigned long long num;	/* T_NUM */
};

static const char *const puncts[] = {
	"->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"(", ")", "[", "]", "{", "}", ",", ";", "?", ":", ".", "+", "-",
	"*", "/", "%", "&", "|", "^", "!", "~", "<", ">", "=",
};

static void next(struct lex *l)
{
	const char *p = l->p;

	while (p < l->end && isspace((unsigned char)*p))
		p++;
	l->s = p;
	l->n = 0;
	if (p == l->end) {
		l->t = T_END;
		l->p = p;
		return;
	}
	if (*p == '"' || *p == '\'') {
		char q = *p++;

		while (p < l->end && *p != q)
			if (*p++ == '\\' && p < l->end)
				p++;
		if (p >= l->end) {
			l->t = T_BAD;
			return;
		}
		p++;
		l->t = T_STR;
	} else if (isdigit((unsigned char)*p)) {
		char *e;

		errno = 0;
		l->num = strtoull(p, &e, 0);
		if (errno || e > l->end) {
			l->t = T_BAD;
			return;
		}
		p = e;
		while (p < l->end && strchr("uUlL", *p))
			p++;
		if (p < l->end && (isalnum((unsigned char)*p) || *p == '_')) {
			l->t = T_BAD;
			return;
		}
		l->t = T_NUM;
	} else if (isalpha((unsigned char)*p) || *p == '_') {
		while (p < l->end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		l->t = T_IDENT;
	} else {
		l->t = T_BAD;
		for (size_t i = 0; i < sizeof(puncts) / sizeof(*puncts); i++) {
			size_t k = strlen(puncts[i]);

			if ((size_t)(l->end - p) >= k && !memcmp(p, puncts[i], k)) {
				p += k;
				l->t = T_PUNCT;
				break;
			}
		}
		if (l->t == T_BAD)
			return;
	}
	l->n = p - l->s;
	l->p = p;
}

static bool is(const struct lex *l, const char *punct)
{
	return l->t == T_PUNCT && l->n == strlen(punct) &&
	       !memcmp(l->s, punct, l->n);
}

static bool is_word(const struct lex *l, const char *w)
{
	return l->t == T_IDENT && l->n == strlen(w) && !memcmp(l->s, w, l->n);
}

/* ----------------------------------------------------------- grammar */

/*
 * The print fmt's arguments, as kernels write them (C expressions over
 * REC->field, helpers such as __print_symbolic() with { value, "name" }
 * tables, casts, sizeof, ?:, statement expressions of min()/max()). What
 * does not parse is refused: libtraceevent's own parser is not safe on
 * text it does not expect.
 */
struct parser {
	struct lex l;
	const struct fields *f;
	int depth;
	const char *why;
	bool rec;		/* the primary just parsed is REC or (REC) */
	struct kt_fmt_info *info;
};

#define MAX_DEPTH 64

static bool expr(struct parser *ps);
static bool unary(struct parser *ps);

static bool fail(struct parser *ps, const char *why)
{
	if (!ps->why)
		ps->why = why;
	return false;
}

static bool expect(struct parser *ps, const char *punct)
{
	if (!is(&ps->l, punct))
		return fail(ps, "its print fmt is not an expression kernels write");
	next(&ps->l);
	return true;
}

/* TYPE: [struct|union|enum] WORD... '*'... ; a cast's or sizeof's */
static bool type_name(struct parser *ps)
{
	int words = 0;

	while (ps->l.t == T_IDENT && !is_word(&ps->l, "REC")) {
		words++;
		next(&ps->l);
	}
	while (is(&ps->l, "*"))
		next(&ps->l);
	return words > 0;
}

/* Try a parse from here; on failure put the lexer back. */
static bool attempt(struct parser *ps, bool (*fn)(struct parser *))
{
	struct lex save = ps->l;
	const char *why = ps->why;

	if (fn(ps))
		return true;
	ps->l = save;
	ps->why = why;
	return false;
}

static bool cast_prefix(struct parser *ps)
{
	if (!is(&ps->l, "("))
		return false;
	next(&ps->l);
	if (!type_name(ps) || !is(&ps->l, ")"))
		return false;
	next(&ps->l);
	/* a cast is followed by what it casts */
	return ps->l.t == T_NUM || ps->l.t == T_IDENT || ps->l.t == T_STR ||
	       is(&ps->l, "(") || is(&ps->l, "-") || is(&ps->l, "!") ||
	       is(&ps->l, "~") || is(&ps->l, "*") || is(&ps->l, "&");
}

/* TYPE [*]NAME[[N]] [= EXPR] ; inside a statement expression */
static bool declaration(struct parser *ps)
{
	struct lex *l = &ps->l;
	int words = 0;

	while (l->t == T_IDENT && !is_word(l, "REC")) {
		words++;
		next(l);
	}
	if (is(l, "*")) {
		while (is(l, "*"))
			next(l);
		if (l->t != T_IDENT)
			return false;
		words++;
		next(l);
	}
	if (words < 2)
		return false;
	if (is(l, "[")) {
		next(l);
		if (l->t == T_NUM)
			next(l);
		if (!is(l, "]"))
			return false;
		next(l);
	}
	if (is(l, "=")) {
		next(l);
		if (!expr(ps))
			return false;
	}
	return is(l, ";");
}

/* EXPR [= EXPR] ; */
static bool statement(struct parser *ps)
{
	if (!expr(ps))
		return false;
	if (is(&ps->l, "=")) {
		next(&ps->l);
		if (!expr(ps))
			return false;
	}
	return is(&ps->l, ";");
}

static bool field_named(struct parser *ps)
{
	if (ps->l.t != T_IDENT || !has_field(ps->f, ps->l.s, ps->l.n))
		return fail(ps, "its print fmt names a field it does not have");
	next(&ps->l);
	return true;
}

static bool primary(struct parser *ps)
{
	struct lex *l = &ps->l;

	ps->rec = false;
	if (l->t == T_NUM) {
		next(l);
		return true;
	}
	if (l->t == T_STR) {
		while (l->t == T_STR)
			next(l);
		return true;
	}
	if (l->t == T_IDENT) {
		bool helper = names_a_field(l->s, l->n), rec = is_word(l, "REC");

		next(l);
		if (rec && !is(l, "->") && !is(l, ")"))
			return fail(ps, "its print fmt is not an expression kernels write");
		ps->rec = rec;
		if (helper) {
			if (!expect(ps, "(") || !field_named(ps))
				return false;
			return expect(ps, ")");
		}
		return true;
	}
	if (is(l, "{")) {
		/* a { value, "name" } table of __print_symbolic() */
		next(l);
		while (!is(l, "}")) {
			if (!expr(ps))
				return false;
			if (!is(l, ","))
				break;
			next(l);
		}
		return expect(ps, "}");
	}
	if (is(l, "(")) {
		next(l);
		if (is(l, "{")) {
			/* ({ TYPE x = ...; ...; EXPR; }) of min()/max() */
			next(l);
			while (!is(l, "}")) {
				if (!attempt(ps, declaration) &&
				    !statement(ps))
					return false;
				if (!expect(ps, ";"))
					return false;
			}
			next(l);
			return expect(ps, ")");
		}
		if (is_word(l, "REC")) {
			/* (REC)->field */
			struct lex save = *l;

			next(l);
			if (is(l, ")")) {
				next(l);
				ps->rec = true;
				return true;
			}
			*l = save;
		}
		return expr(ps) && expect(ps, ")");
	}
	return fail(ps, "its print fmt is not an expression kernels write");
}

static bool postfix(struct parser *ps)
{
	struct lex *l = &ps->l;

	bool rec;

	if (!primary(ps))
		return false;
	for (;;) {
		/* what follows REC is its '->' (an inner primary may have
		 * changed ps->rec; only this one counts) */
		rec = ps->rec;
		ps->rec = false;
		if (is(l, "[")) {
			next(l);
			if (!expr(ps) || !expect(ps, "]"))
				return false;
		} else if (is(l, "(")) {
			next(l);
			while (!is(l, ")")) {
				if (!expr(ps))
					return false;
				if (!is(l, ","))
					break;
				next(l);
			}
			if (!expect(ps, ")"))
				return false;
		} else if (is(l, "->")) {
			/* REC->field, (REC)->field: no other pointer */
			if (!rec)
				return fail(ps, "its print fmt is not an expression kernels write");
			next(l);
			if (!field_named(ps))
				return false;
		} else if (is(l, ".")) {
			next(l);
			if (l->t != T_IDENT)
				return fail(ps, "its print fmt is not an expression kernels write");
			next(l);
		} else {
			return true;
		}
	}
}

/* The divisor of '/' and '%': a positive number or a sizeof, maybe in
 * parentheses of its own. */
static bool divisor(struct parser *ps)
{
	struct lex *l = &ps->l;
	int open = 0;

	while (is(l, "(")) {
		open++;
		next(l);
	}
	if (is_word(l, "sizeof")) {
		if (!unary(ps))
			return false;
	} else if (l->t == T_NUM && l->num) {
		next(l);
	} else if (is_word(l, "REC")) {
		/* a field (devfreq's load = busy * 100 / total): kept, so
		 * that a record where it is 0 is not given to
		 * libtraceevent, which would divide by it */
		struct kt_fmt_info *fi = ps->info;

		next(l);
		if (!is(l, "->"))
			return fail(ps, "its print fmt is not an expression kernels write");
		next(l);
		if (l->t != T_IDENT || l->n >= sizeof(fi->div[0]))
			return fail(ps, "its print fmt names a field it does not have");
		if (fi->ndiv == KT_FMT_MAX_DIV)
			return fail(ps, "its print fmt divides by too many fields");
		memcpy(fi->div[fi->ndiv], l->s, l->n);
		fi->div[fi->ndiv][l->n] = '\0';
		if (!field_named(ps))
			return false;
		fi->ndiv++;
	} else {
		return fail(ps, "its print fmt divides by something other than a positive constant or a field");
	}
	while (open--)
		if (!is(l, ")"))
			return fail(ps, "its print fmt divides by something other than a positive constant or a field");
		else
			next(l);
	return true;
}

static bool unary(struct parser *ps)
{
	struct lex *l = &ps->l;
	bool ok;

	if (++ps->depth > MAX_DEPTH)
		return fail(ps, "its print fmt nests too deep");
	if (is(l, "-") || is(l, "+") || is(l, "!") || is(l, "~") ||
	    is(l, "*") || is(l, "&")) {
		next(l);
		ok = unary(ps);
	} else if (is_word(l, "sizeof")) {
		next(l);
		ok = expect(ps, "(") &&
		     (attempt(ps, type_name) || expr(ps)) && expect(ps, ")");
	} else if (attempt(ps, cast_prefix)) {
		ok = unary(ps);
	} else {
		ok = postfix(ps);
	}
	ps->depth--;
	return ok;
}

static bool binop(const struct lex *l)
{
	static const char *const ops[] = {
		"+", "-", "*", "<<", ">>", "<", ">", "<=", ">=", "==", "!=",
		"&", "^", "|", "&&", "||",
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(*ops); i++)
		if (is(l, ops[i]))
			return true;
	return false;
}

static bool expr(struct parser *ps)
{
	struct lex *l = &ps->l;
	bool ok;

	if (++ps->depth > MAX_DEPTH)
		return fail(ps, "its print fmt nests too deep");
	ok = unary(ps);
	while (ok) {
		if (is(l, "/") || is(l, "%")) {
			next(l);
			ok = divisor(ps);
		} else if (binop(l)) {
			next(l);
			ok = unary(ps);
		} else if (is(l, "?")) {
			next(l);
			ok = expr(ps) && expect(ps, ":") && expr(ps);
			break;
		} else {
			break;
		}
	}
	ps->depth--;
	return ok;
}

/* "N;" with a decimal N: the end, or NULL. */
static const char *number_semi(const char *p, const char *end)
{
	const char *s = p;

	while (p < end && isdigit((unsigned char)*p))
		p++;
	return p > s && p - s <= 10 && p < end && *p == ';' ? p + 1 : NULL;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/*
 * One "field:" line as kernels write it:
 *   field:TYPE NAME[N];<tab>offset:N;<tab>size:N;<tab>signed:0|1;
 * TYPE and NAME of words, '*' and blanks; "[N]" with digits (or "[]"
 * in a __data_loc type). libtraceevent trusts this part too.
 */
static bool field_line_ok(const char *p, const char *end)
{
	static const char *const keys[] = { "offset:", "size:", "signed:" };
	const char *semi = memchr(p, ';', end - p), *q;
	bool word = false;

	if (!semi)
		return false;
	for (q = p; q < semi; q++) {
		if (*q == '[') {
			q++;
			while (q < semi && isdigit((unsigned char)*q))
				q++;
			if (q == semi || *q != ']')
				return false;
		} else if (isalnum((unsigned char)*q) || *q == '_') {
			word = true;
		} else if (*q != ' ' && *q != '*' && *q != '\t') {
			return false;
		}
	}
	if (!word)
		return false;
	p = semi + 1;
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		size_t n = strlen(keys[k]);

		p = skip_blanks(p, end);
		if ((size_t)(end - p) < n || memcmp(p, keys[k], n))
			return false;
		p = number_semi(p + n, end);
		if (!p)
			return false;
	}
	return skip_blanks(p, end) == end;
}

/* The part before "print fmt:": name, ID, format and field lines. */
static bool header_ok(const char *p, const char *end)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *s;

		if (!nl)
			nl = end;
		s = skip_blanks(p, nl);
		if (s == nl ||
		    ((size_t)(nl - s) == 7 && !memcmp(s, "format:", 7))) {
			/* nothing to check */
		} else if (!strncmp(s, "name:", 5) || !strncmp(s, "ID:", 3)) {
			/* one word: a name, or a number */
			bool id = *s == 'I';
			const char *w;

			s = skip_blanks(s + (id ? 3 : 5), nl);
			w = s;
			while (s < nl && (id ? isdigit((unsigned char)*s) :
					  isalnum((unsigned char)*s) || *s == '_'))
				s++;
			if (s == w || skip_blanks(s, nl) != nl)
				return false;
		} else if ((size_t)(nl - s) > 6 && !memcmp(s, "field:", 6)) {
			if (!field_line_ok(s + 6, nl))
				return false;
		} else {
			return false;
		}
		p = nl + 1;
	}
	return true;
}

int kt_format_check(const char *text, size_t len, struct kt_fmt_info *info,
		    const char **why)
{
	const char *fmt = memmem(text, len, "\nprint fmt:", 11);
	struct parser ps = { .f = NULL, .info = info };
	const struct fields f = { text, fmt ? (size_t)(fmt - text) : len };

	memset(info, 0, sizeof(*info));
	if (!fmt) {
		*why = "it has no print fmt";
		return -EBADMSG;
	}
	if (memchr(text, '\0', len)) {
		*why = "it holds a NUL byte";
		return -EBADMSG;
	}
	if (!header_ok(text, fmt)) {
		*why = "its field lines are not what kernels write";
		return -EBADMSG;
	}
	info->header_ok = true;
	ps.f = &f;
	ps.l.p = fmt + 11;
	ps.l.end = text + len;
	next(&ps.l);
	/* "FORMAT" [, ARG]... */
	if (ps.l.t != T_STR) {
		*why = ps.l.t == T_BAD ? "a string in its print fmt is not terminated" :
					 "its print fmt does not start with a string";
		return -EBADMSG;
	}
	while (ps.l.t == T_STR)
		next(&ps.l);
	while (is(&ps.l, ",")) {
		next(&ps.l);
		if (!expr(&ps)) {
			*why = ps.l.t == T_BAD && ps.l.p < ps.l.end &&
			       (*ps.l.s == '"' || *ps.l.s == '\'') ?
			       "a string in its print fmt is not terminated" :
			       ps.why ? ps.why :
			       "its print fmt is not an expression kernels write";
			return -EBADMSG;
		}
	}
	if (ps.l.t != T_END) {
		*why = ps.l.t == T_BAD && (*ps.l.s == '"' || *ps.l.s == '\'') ?
		       "a string in its print fmt is not terminated" :
		       "its print fmt is not an expression kernels write";
		return -EBADMSG;
	}
	return 0;
}

/*
 * libtraceevent reads a record's fields where the format says, without
 * looking at the record's size: a record from a file that is shorter than
 * its format, or whose __data_loc points outside it, would be read past
 * its end. Every field (and every dynamic field's data) inside raw?
 */
bool kt_raw_fits(const struct tep_event *te, const void *raw, size_t size)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct tep_format_field *f = pass ? te->format.fields :
						     te->format.common_fields;

		for (; f; f = f->next) {
			uint64_t end = (uint64_t)f->offset + (uint64_t)f->size;
			uint32_t loc;
			uint64_t at;

			if (f->offset < 0 || f->size < 0 || end > size)
				return false;
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
				continue;
			if (f->size != 4)
				return false;
			memcpy(&loc, (const char *)raw + f->offset, 4);
			at = loc & 0xffff;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				at += end;
			if (at + (loc >> 16) > size)
				return false;
		}
	}
	return true;
}

uint32_t kt_raw_need(const struct tep_event *te, bool *dynamic)
{
	uint64_t need = 0;

	*dynamic = false;
	for (int pass = 0; pass < 2; pass++) {
		const struct tep_format_field *f = pass ? te->format.fields :
						     te->format.common_fields;

		for (; f; f = f->next) {
			uint64_t end = (uint64_t)f->offset + (uint64_t)f->size;

			if (f->offset < 0 || f->size < 0)
				return UINT32_MAX;
			if (end > need)
				need = end;
			*dynamic |= f->flags & TEP_FIELD_IS_DYNAMIC;
		}
	}
	return need > UINT32_MAX ? UINT32_MAX : (uint32_t)need;
}

/*
 * The name of a field the print fmt divides by that is 0 in raw (raw
 * holds every field: kt_raw_fits()), or NULL: libtraceevent evaluates
 * both sides of a "total == 0 ? 0 : busy / total" and would divide by it.
 */
const char *kt_zero_divisor(struct tep_format_field *const *div, int ndiv,
			    const void *raw)
{
	for (int i = 0; i < ndiv; i++) {
		const unsigned char *p = (const unsigned char *)raw +
					 div[i]->offset;
		bool zero = true;

		for (int b = 0; b < div[i]->size; b++)
			zero &= !p[b];
		if (zero)
			return div[i]->name;
	}
	return NULL;
}
