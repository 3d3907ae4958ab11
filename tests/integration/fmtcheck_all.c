// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every format of the running kernel passes the check that files' formats
 * must pass (lib/record/fmtcheck.c): the check refuses hostile text, never
 * what kernels write. Usage: fmtcheck_all TRACEFS; prints what it refused
 * and "N formats, M refused"; exit 1 when M > 0.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>

int kt_format_check(const char *text, size_t len, const char **why);
char *kt_read_file(const char *path, size_t *len);

int main(int argc, char **argv)
{
	char pattern[4096];
	size_t i, bad = 0;
	glob_t g;

	if (argc != 2)
		return 2;
	snprintf(pattern, sizeof(pattern), "%s/events/*/*/format", argv[1]);
	if (glob(pattern, 0, NULL, &g))
		return 1;
	for (i = 0; i < g.gl_pathc; i++) {
		const char *why;
		size_t len;
		char *t = kt_read_file(g.gl_pathv[i], &len);

		if (t && kt_format_check(t, len, &why)) {
			printf("%s: %s\n", g.gl_pathv[i], why);
			bad++;
		}
		free(t);
	}
	printf("%zu formats, %zu refused\n", g.gl_pathc, bad);
	globfree(&g);
	return bad ? 1 : 0;
}
