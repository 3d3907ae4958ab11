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

#include "record/record.h"

#define MAX_DEPTH 64

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

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

static size_t ident_len(const char *p, const char *end)
{
	const char *s = p;

	if (p < end && (isalpha((unsigned char)*p) || *p == '_'))
		while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
	return p - s;
}

/* The divisor after a '/' or '%': a positive number or a sizeof, maybe in
 * parentheses of its own. */
static bool divisor_ok(const char *p, const char *end)
{
	int open = 0;
	unsigned long long v;
	char *e;

	p = skip_space(p, end);
	while (p < end && *p == '(') {
		open++;
		p = skip_space(p + 1, end);
	}
	if (ident_len(p, end) == 6 && !memcmp(p, "sizeof", 6))
		return true;
	if (p == end || !isdigit((unsigned char)*p))
		return false;
	errno = 0;
	v = strtoull(p, &e, 0);
	if (errno || !v || e > end)
		return false;
	p = e;
	while (p < end && strchr("uUlL", *p))
		p++;
	while (open--) {
		p = skip_space(p, end);
		if (p == end || *p != ')')
			return false;
		p++;
	}
	return true;
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

int kt_format_check(const char *text, size_t len, const char **why)
{
	const char *fmt = memmem(text, len, "\nprint fmt:", 11);
	const struct fields f = { text, fmt ? (size_t)(fmt - text) : len };
	const char *p, *end = text + len;
	char stack[MAX_DEPTH];
	int depth = 0;

	if (!fmt) {
		*why = "it has no print fmt";
		return -EBADMSG;
	}
	if (memchr(text, '\0', len)) {
		*why = "it holds a NUL byte";
		return -EBADMSG;
	}
	for (p = fmt + 11; p < end; p++) {
		size_t n;

		if (*p == '"' || *p == '\'') {
			char q = *p;

			for (p++; p < end && *p != q; p++)
				if (*p == '\\' && ++p == end)
					break;
			if (p >= end) {
				*why = "a string in its print fmt is not terminated";
				return -EBADMSG;
			}
			continue;
		}
		if (*p == '(' || *p == '{' || *p == '[') {
			if (depth == MAX_DEPTH) {
				*why = "its print fmt nests too deep";
				return -EBADMSG;
			}
			stack[depth++] = *p == '(' ? ')' : *p == '{' ? '}' : ']';
			continue;
		}
		if (*p == ')' || *p == '}' || *p == ']') {
			if (!depth || stack[--depth] != *p) {
				*why = "its print fmt has unbalanced brackets";
				return -EBADMSG;
			}
			continue;
		}
		if ((*p == '/' || *p == '%') && !divisor_ok(p + 1, end)) {
			*why = "its print fmt divides by something other than a positive constant";
			return -EBADMSG;
		}
		if (*p == '-' && p + 1 < end && p[1] == '>') {
			/* REC->field (other pointers do not occur) */
			const char *s = skip_space(p + 2, end);

			n = ident_len(s, end);
			if (!has_field(&f, s, n)) {
				*why = "its print fmt names a field it does not have";
				return -EBADMSG;
			}
			p = s + (n ? n - 1 : 0);
			continue;
		}
		n = ident_len(p, end);
		if (n) {
			if (names_a_field(p, n)) {
				const char *s = skip_space(p + n, end), *a;
				size_t an;

				if (s == end || *s != '(') {
					*why = "its print fmt misuses a field helper";
					return -EBADMSG;
				}
				a = skip_space(s + 1, end);
				an = ident_len(a, end);
				if (!has_field(&f, a, an)) {
					*why = "its print fmt names a field it does not have";
					return -EBADMSG;
				}
			}
			p += n - 1;
		}
	}
	if (depth) {
		*why = "its print fmt has unbalanced brackets";
		return -EBADMSG;
	}
	return 0;
}
