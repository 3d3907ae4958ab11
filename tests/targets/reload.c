// SPDX-License-Identifier: GPL-2.0-only
/*
 * Target for mappings that replace each other. Usage: reload LIB_A LIB_B N
 * N times: dlopen LIB_A, call its hop(), dlclose it; then the same with
 * LIB_B. Two libraries of one size land at the same address in turn, so
 * a sample's user frames are right only when looked up among the
 * mappings made before it. Prints the address each library had, once.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noipa)) int call_lib(const char *path, int i)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*hop)(void);
	int ret;

	if (!h) {
		fprintf(stderr, "reload: %s\n", dlerror());
		return -1;
	}
	hop = (int (*)(void))dlsym(h, "hop");
	if (!hop) {
		fprintf(stderr, "reload: no hop in %s\n", path);
		dlclose(h);
		return -1;
	}
	if (i == 0)
		printf("%s %p\n", path, (void *)hop);
	ret = hop();
	dlclose(h);
	return ret;
}

int main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[3]) : 0;

	if (argc != 4 || n <= 0) {
		fprintf(stderr, "usage: reload LIB_A LIB_B N\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (call_lib(argv[1], i) < 0 || call_lib(argv[2], i) < 0)
			return 1;
	return 0;
}
