/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit-test helpers: a fake tracefs tree copied from tests/fixtures/tracefs
 * (real format/id files captured from a kernel) into a temporary directory,
 * and in-process runs of the ktrace CLI with captured output.
 */
#ifndef KTRACE_FAKETFS_H
#define KTRACE_FAKETFS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktrace.h"
#include "ktrace_cmd.h"

static inline const char *fixtures_dir(void)
{
	const char *d = getenv("KTRACE_FIXTURES");

	return d && *d ? d : "tests/fixtures";
}

/* Make a fake tree; returns the temp root (tree at ROOT/tracefs). */
static inline char *fake_tfs_make(void)
{
	char tmpl[] = "/tmp/ktrace-unit-XXXXXX", *cmd, *root;

	root = mkdtemp(tmpl);
	if (!root)
		return NULL;
	if (asprintf(&cmd, "cp -r '%s/tracefs' '%s/tracefs' && mkdir -p '%s/tracefs/instances' '%s/state'",
		     fixtures_dir(), root, root, root) < 0)
		return NULL;
	if (system(cmd) != 0) {
		free(cmd);
		return NULL;
	}
	free(cmd);
	root = strdup(root);
	if (asprintf(&cmd, "%s/state", root) >= 0) {
		setenv("KTRACE_STATE_DIR", cmd, 1);
		free(cmd);
	}
	if (asprintf(&cmd, "%s/tracefs", root) >= 0) {
		setenv("KTRACE_TRACEFS", cmd, 1);
		free(cmd);
	}
	return root;
}

static inline void fake_tfs_remove(char *root)
{
	char *cmd;

	if (root && asprintf(&cmd, "rm -rf '%s'", root) >= 0) {
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", root);
		free(cmd);
	}
	free(root);
	unsetenv("KTRACE_TRACEFS");
	unsetenv("KTRACE_STATE_DIR");
}

/* Contents of ROOT/rel (malloc'ed) or NULL. */
static inline char *fake_read(const char *root, const char *rel)
{
	char path[4096], *buf = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	if (getdelim(&buf, &cap, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

struct cli_result {
	int status;
	char *out;
	char *err;
};

/* Run `ktrace ARGS...` (NULL-terminated) in-process. */
static inline struct cli_result run_cli(const char *arg0, ...)
{
	struct cli_result r = { 0 };
	struct kt_ctx ctx = { 0 };
	size_t olen, elen;
	char *argv[64];
	int argc = 0;
	va_list ap;
	const char *a;

	argv[argc++] = "ktrace";
	va_start(ap, arg0);
	for (a = arg0; a && argc < 63; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	ctx.out = open_memstream(&r.out, &olen);
	ctx.err = open_memstream(&r.err, &elen);
	r.status = ktrace_main(&ctx, argc, argv);
	ktrace_tfs_free(ctx.tfs);
	fclose(ctx.out);
	fclose(ctx.err);
	return r;
}

static inline void cli_result_free(struct cli_result *r)
{
	free(r->out);
	free(r->err);
}

/* A snapshot of everything a failed command must leave as it was. */
static inline char *fake_snapshot(const char *root)
{
	char *cmd, *out = NULL;
	size_t cap = 0;
	FILE *p;

	if (asprintf(&cmd, "cd '%s/tracefs' && find . -type f | LC_ALL=C sort | xargs md5sum; ls -a instances", root) < 0)
		return NULL;
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	if (getdelim(&out, &cap, '\0', p) < 0) {
		free(out);
		out = strdup("");
	}
	pclose(p);
	return out;
}

#endif
