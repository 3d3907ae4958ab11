/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user-space binaries test_uelf and test_dwarf probe, built at run time
 * into a temp dir by ubins_setup(): tests/targets/probed.c as PIE, non-PIE,
 * -O0, without debug info and stripped, and the C++ programs
 * tests/fixtures/uelf/cxx.cc and tests/targets/cxxargs.cc (-O2, as the
 * Makefile builds it) when g++ is there. Expected values come from readelf, addr2line, ldconfig and objdump, never from ktrace itself.
 * Include after cmocka.h.
 */
#ifndef UBINS_H
#define UBINS_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/uelf.h"
#include "srcdir.h"

static char tmpdir[PATH_MAX];
static char pie[PATH_MAX + 32], nopie[PATH_MAX + 32], nodbg[PATH_MAX + 32];
static char bare[PATH_MAX + 32], cxx[PATH_MAX + 32], o0[PATH_MAX + 32];
static char cxxargs[PATH_MAX + 32];
static bool have_cxx;

/* ----------------------------------------------------------- helpers */

static inline char *run(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Output of a shell command (caller frees); NULL when it failed. */
static inline char *run(const char *fmt, ...)
{
	char *cmd, *out = NULL;
	size_t len = 0;
	va_list ap;
	FILE *p, *o;
	int c, rc;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		cmd = NULL;
	va_end(ap);
	if (!cmd)
		return NULL;
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	o = open_memstream(&out, &len);
	while ((c = fgetc(p)) != EOF)
		fputc(c, o);
	fclose(o);
	rc = pclose(p);
	if (rc != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* Value and size of symbol name ("malloc@@GLIBC_2.2.5") per readelf. */
static inline bool readelf_sym(const char *file, const char *name,
			unsigned long *value, unsigned long *size)
{
	char *out = run("readelf -sW --dyn-syms '%s'", file);
	char *line, *save = NULL;
	bool found = false;

	*value = *size = 0;
	assert_non_null(out);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char num[32], type[32], bind[32], vis[32], ndx[32], nm[512];
		unsigned long v, s;

		if (sscanf(line, "%31s %lx %lu %31s %31s %31s %31s %511s", num,
			   &v, &s, type, bind, vis, ndx, nm) != 8)
			continue;
		if (strcmp(nm, name) || !strcmp(ndx, "UND"))
			continue;
		*value = v;
		*size = s;
		found = true;
		break;
	}
	free(out);
	return found;
}

struct seg {
	unsigned long off, vaddr, filesz;
};

/* LOAD segments per readelf -lW; returns how many. */
static inline int readelf_loads(const char *file, struct seg *segs, int max)
{
	char *out = run("readelf -lW '%s'", file);
	char *line, *save = NULL;
	int n = 0;

	assert_non_null(out);
	for (line = strtok_r(out, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long off, va, pa, fsz;

		if (sscanf(line, " LOAD %lx %lx %lx %lx", &off, &va, &pa,
			   &fsz) == 4) {
			segs[n].off = off;
			segs[n].vaddr = va;
			segs[n].filesz = fsz;
			n++;
		}
	}
	free(out);
	return n;
}

/* File offset of vaddr, by the readelf segment table. */
static inline unsigned long expect_off(const char *file, unsigned long vaddr)
{
	struct seg segs[16];
	int n = readelf_loads(file, segs, 16), i;

	for (i = 0; i < n; i++)
		if (vaddr >= segs[i].vaddr &&
		    vaddr < segs[i].vaddr + segs[i].filesz)
			return vaddr - segs[i].vaddr + segs[i].off;
	fail_msg("0x%lx not in a LOAD segment of %s", vaddr, file);
	return 0;
}

/* The vaddr - offset delta of the segment holding file offset off. */
static inline unsigned long seg_delta_of_off(const char *file, unsigned long off)
{
	struct seg segs[16];
	int n = readelf_loads(file, segs, 16), i;

	for (i = 0; i < n; i++)
		if (off >= segs[i].off && off < segs[i].off + segs[i].filesz)
			return segs[i].vaddr - segs[i].off;
	fail_msg("offset 0x%lx not in a LOAD segment of %s", off, file);
	return 0;
}

static inline unsigned long sym_off(const char *file, const char *name)
{
	unsigned long v, s;

	assert_true(readelf_sym(file, name, &v, &s));
	return expect_off(file, v);
}

static inline struct kt_uelf *open_ok(const char *bin)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_uelf *ue = kt_uelf_open(bin, &err);

	if (!ue)
		fail_msg("kt_uelf_open(%s): %s", bin, err.msg);
	ktrace_err_clear(&err);
	return ue;
}

static inline unsigned long resolve_ok(struct kt_uelf *ue, const char *sym,
				unsigned long add)
{
	struct ktrace_err err = { .pos = -1 };
	unsigned long off = 0;
	int ret = kt_uelf_symbol(ue, sym, add, &off, &err);

	if (ret)
		fail_msg("kt_uelf_symbol(%s): %d %s", sym, ret, err.msg);
	ktrace_err_clear(&err);
	return off;
}

/* --------------------------------------------------------------- setup */

static inline int ubins_setup(void **state)
{
	char tmpl[] = "/tmp/ktrace-ubins-XXXXXX";
	char *out;

	(void)state;
	find_srcdir();
	if (!mkdtemp(tmpl))
		return -1;
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
	snprintf(pie, sizeof(pie), "%s/probed", tmpdir);
	snprintf(nopie, sizeof(nopie), "%s/probed-nopie", tmpdir);
	snprintf(nodbg, sizeof(nodbg), "%s/probed-nodbg", tmpdir);
	snprintf(bare, sizeof(bare), "%s/probed-bare", tmpdir);
	snprintf(cxx, sizeof(cxx), "%s/cxx", tmpdir);
	snprintf(o0, sizeof(o0), "%s/probed-O0", tmpdir);
	snprintf(cxxargs, sizeof(cxxargs), "%s/cxxargs", tmpdir);
	out = run("cc -O0 -g -fno-omit-frame-pointer -o '%s' '%s/tests/targets/probed.c'",
		  o0, srcdir);
	if (!out)
		return -1;
	free(out);
	out = run("cc -O1 -g -fno-inline -fPIE -pie -o '%s' '%s/tests/targets/probed.c' && "
		  "cc -O1 -g -fno-inline -fno-pie -no-pie -o '%s' '%s/tests/targets/probed.c' && "
		  "cp '%s' '%s' && strip --strip-debug '%s' && "
		  "cp '%s' '%s' && strip '%s'",
		  pie, srcdir, nopie, srcdir, pie, nodbg, nodbg, pie, bare,
		  bare);
	if (!out) {
		fprintf(stderr, "cannot build tests/targets/probed.c from %s\n",
			srcdir);
		return -1;
	}
	free(out);
	out = run("command -v g++ >/dev/null && g++ -O1 -g -o '%s' '%s/tests/fixtures/uelf/cxx.cc' && "
		  "g++ -O2 -g -o '%s' '%s/tests/targets/cxxargs.cc'",
		  cxx, srcdir, cxxargs, srcdir);
	have_cxx = out != NULL;
	free(out);
	return 0;
}

static inline int ubins_teardown(void **state)
{
	char *out;

	(void)state;
	if (tmpdir[0]) {
		out = run("rm -rf '%s'", tmpdir);
		free(out);
	}
	return 0;
}

#endif /* UBINS_H */
