/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The source tree a unit test runs from (fixtures, targets, probe sets):
 * $KTRACE_SRCDIR, else the tree holding the running binary
 * (SRCDIR/build/tests/unit/test_NAME), else ".". One copy for every test
 * that needs it.
 */
#ifndef KTRACE_TEST_SRCDIR_H
#define KTRACE_TEST_SRCDIR_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* short enough that srcdir plus a relative path fits a PATH_MAX buffer */
static char srcdir[2048];

static inline void find_srcdir(void)
{
	const char *env = getenv("KTRACE_SRCDIR");
	char exe[sizeof(srcdir)];
	ssize_t n;
	char *p;

	snprintf(srcdir, sizeof(srcdir), ".");
	if (env && *env) {
		snprintf(srcdir, sizeof(srcdir), "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	p = strstr(exe, "/build/tests/unit/");
	if (p) {
		*p = '\0';
		snprintf(srcdir, sizeof(srcdir), "%s", exe);
	}
}

#endif
