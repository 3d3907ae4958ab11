/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every fuzz target shares: the libFuzzer entry points, and the files
 * the targets read from the source tree (fixtures), found from the
 * environment (KTRACE_SRC, default "."): `make fuzz` and the replay in
 * `make check` run from the top of the tree.
 */
#ifndef KTRACE_FUZZ_H
#define KTRACE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* SRC/rel into buf (the tree's top from KTRACE_SRC, default "."). */
const char *fuzz_src(char *buf, size_t len, const char *rel);

#endif
