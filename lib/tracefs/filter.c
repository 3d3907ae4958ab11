// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Event filters checked before the kernel sees them, against the event's
 * format (libtracefs's verifier). Shared by instances (ktrace filter) and
 * recordings (record --filter): neither depends on the other for it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "base/internal.h"
#include "tracefs/tfs.h"

/*
 * Can libtracefs's verifier judge expr? It refuses what the kernel accepts
 * in two cases: fields that are in no format file (CPU, COMM, common_cpu)
 * and negative numbers. Those go to the kernel unchecked; a refusal there
 * is reported with the kernel's own error_log text.
 */
static bool verifiable(const char *expr)
{
	const char *p;

	if (strstr(expr, "CPU") || strstr(expr, "COMM") ||
	    strstr(expr, "cpu") || strstr(expr, "comm"))
		return false;
	for (p = strchr(expr, '-'); p; p = strchr(p + 1, '-'))
		if (isdigit((unsigned char)p[1]))
			return false;
	return true;
}

/*
 * Where the first field name that te does not have starts in expr (the
 * left side of a predicate: after the start, '(', '!', "&&" or "||"),
 * or -1.
 */
static int unknown_field(struct tep_event *te, const char *expr)
{
	const char *p = expr;
	char name[128];

	while (*p) {
		const char *s;
		size_t n;

		while (*p == ' ' || *p == '\t' || *p == '(' || *p == '!')
			p++;
		s = p;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		n = p - s;
		if (n && n < sizeof(name) && !isdigit((unsigned char)*s)) {
			memcpy(name, s, n);
			name[n] = '\0';
			if (!tep_find_any_field(te, name))
				return s - expr;
		}
		/* on to the next predicate, past quoted values */
		while (*p && !(p[0] == '&' && p[1] == '&') &&
		       !(p[0] == '|' && p[1] == '|')) {
			if (*p == '"' || *p == '\'') {
				const char *q = strchr(p + 1, *p);

				if (!q)
					return -1;
				p = q;
			}
			p++;
		}
		if (*p)
			p += 2;
	}
	return -1;
}

int kt_filter_check(struct tep_event *te, const char *what, const char *expr,
		    struct ktrace_err *err)
{
	char *msg = NULL, *nl;
	int pos = -1, ret;

	if (!te || !verifiable(expr) ||
	    tracefs_filter_string_verify(te, expr, &msg) == 0) {
		free(msg);
		return 0;
	}
	/*
	 * libtracefs answers "EXPR\n   ^\nMESSAGE\n": the caret's column is
	 * the position in the user's expression.
	 */
	if (msg) {
		char *l2 = strchr(msg, '\n'), *c;

		while ((nl = strrchr(msg, '\n')) && !nl[1])
			*nl = '\0';
		nl = strrchr(msg, '\n');
		if (l2 && nl && nl > l2) {
			c = memchr(l2 + 1, '^', nl - l2 - 1);
			if (c)
				pos = c - (l2 + 1);
		}
		ret = kt_err_set(err, EINVAL, "bad filter for %s: %s", what,
				 nl ? nl + 1 : msg);
		/* libtracefs points past an unknown field: under it instead */
		if (strstr(nl ? nl + 1 : msg, "field not valid")) {
			int f = unknown_field(te, expr);

			if (f >= 0)
				pos = f;
		}
	} else {
		ret = kt_err_set(err, EINVAL, "bad filter for %s", what);
	}
	if (err) {
		err->input = strdup(expr);
		err->pos = pos <= (int)strlen(expr) ? pos : -1;
	}
	free(msg);
	return ret;
}
