// SPDX-License-Identifier: GPL-2.0-only
/* Shared by the fuzz targets (see fuzz.h). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

const char *fuzz_src(char *buf, size_t len, const char *rel)
{
	const char *src = getenv("KTRACE_SRC");

	snprintf(buf, len, "%s/%s", src && *src ? src : ".", rel);
	return buf;
}
