// SPDX-License-Identifier: GPL-2.0-only
/*
 * The replay driver of `make check`: a fuzz target built without libFuzzer
 * runs every file of its corpus and crash-regression directories once
 * (seconds), under the normal compiler. Usage: replay DIR|FILE...
 * Prints "N inputs" and exits 0; a crash is the failure.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? n : 1);
	if (!buf || (n > 0 && fread(buf, 1, n, f) != (size_t)n)) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	long count = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent **names;
		int n;

		if (stat(argv[i], &st))
			continue;	/* no regressions yet: fine */
		if (!S_ISDIR(st.st_mode)) {
			count += !run_file(argv[i]);
			continue;
		}
		n = scandir(argv[i], &names, NULL, alphasort);
		for (int j = 0; j < n; j++) {
			char path[4096];

			if (names[j]->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", argv[i],
					 names[j]->d_name);
				count += !run_file(path);
			}
			free(names[j]);
		}
		if (n >= 0)
			free(names);
	}
	printf("%s: %ld inputs\n", argv[0], count);
	return 0;
}
