// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe specs: parse, then resolve against the fixture tracefs and
 * kallsyms and this kernel's BTF (kernel specs), or against this very
 * binary's ELF and DWARF (-x). The input's first byte picks the mode,
 * the rest is the spec. Specs naming other files are skipped: the target
 * reads only what it was given.
 */
#include <stdlib.h>
#include <string.h>

#include "ktrace.h"
#include "fuzz.h"

static struct ktrace_tfs *tfs;
static struct ktrace_resolver *res;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char buf[4096];

	(void)argc;
	(void)argv;
	setenv("KTRACE_TRACEFS", fuzz_src(buf, sizeof(buf), "tests/fixtures/tracefs"), 0);
	setenv("KTRACE_KALLSYMS", fuzz_src(buf, sizeof(buf), "tests/fixtures/btf/kallsyms"), 0);
	setenv("KTRACE_STATE_DIR", "/tmp/ktrace-fuzz-state", 0);
	tfs = ktrace_tfs_open(NULL);
	res = ktrace_resolver_alloc(tfs);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace_probe_opts opts = { 0 };
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_probe *p;
	char *spec;

	if (!size || size > 2048 || !res)
		return 0;
	spec = strndup((const char *)data + 1, size - 1);
	if (!spec)
		return 0;
	if (data[0] & 1) {
		if (strchr(spec, '/')) {
			free(spec);
			return 0;
		}
		opts.binary = "/proc/self/exe";
	}
	p = ktrace_probe_parse(spec, &opts, &err);
	if (p && !ktrace_probe_resolve(p, res, &err))
		(void)strlen(ktrace_probe_definition(p));
	ktrace_probe_free(p);
	ktrace_err_clear(&err);
	free(spec);
	return 0;
}
