// SPDX-License-Identifier: GPL-2.0-only
/*
 * The running kernel's formats against the check that files' formats must
 * pass (lib/record/fmtcheck.c): field lines are never refused (a file with
 * such a format could not be read at all); a print fmt outside the
 * grammar (a few kernels write, e.g. GNU "?:", which libtraceevent cannot
 * parse either) is kept undecoded, and is listed. Usage: fmtcheck_all
 * TRACEFS; prints "N formats, M refused, K print fmts not decoded, D
 * dividing by a field"; exit 1 when M > 0.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdbool.h>
#include "record/record.h"

char *kt_read_file(const char *path, size_t *len);

int main(int argc, char **argv)
{
	char pattern[4096];
	size_t i, bad = 0, undecoded = 0, divs = 0;
	glob_t g;

	if (argc != 2)
		return 2;
	snprintf(pattern, sizeof(pattern), "%s/events/*/*/format", argv[1]);
	if (glob(pattern, 0, NULL, &g))
		return 1;
	for (i = 0; i < g.gl_pathc; i++) {
		struct kt_fmt_info fi;
		const char *why;
		size_t len;
		char *t = kt_read_file(g.gl_pathv[i], &len);

		if (!t)
			continue;
		if (kt_format_check(t, len, &fi, &why)) {
			const char *pf = strstr(t, "print fmt:");

			printf("%s: %s: %s\n  %.300s\n", g.gl_pathv[i],
			       fi.header_ok ? "print fmt not decoded" : "refused",
			       why, pf ? pf : "");
			if (fi.header_ok)
				undecoded++;
			else
				bad++;
		} else if (fi.ndiv) {
			divs++;
		}
		free(t);
	}
	printf("%zu formats, %zu refused, %zu print fmts not decoded, %zu dividing by a field\n",
	       g.gl_pathc, bad, undecoded, divs);
	globfree(&g);
	return bad ? 1 : 0;
}
