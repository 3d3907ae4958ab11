// SPDX-License-Identifier: GPL-2.0-only
/*
 * The filter front end: an expression checked against sched_switch's
 * format (the fixture), as record --filter and filter do before the
 * kernel sees it.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ktrace.h"
#include "base/internal.h"
#include "tracefs/tfs.h"
#include "fuzz.h"

static struct tep_handle *tep;
static struct tep_event *te;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[4096], *text;
	size_t len;

	(void)argc;
	(void)argv;
	text = kt_read_file(fuzz_src(path, sizeof(path),
		"tests/fixtures/tracefs/events/sched/sched_switch/format"), &len);
	tep = tep_alloc();
	if (text && tep)
		tep_parse_format(tep, &te, text, len, "sched");
	free(text);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace_err err = { .pos = -1 };
	char *expr;

	if (!te || size > 4096)
		return 0;
	expr = strndup((const char *)data, size);
	if (!expr)
		return 0;
	kt_filter_check(te, "sched:sched_switch", expr, &err);
	ktrace_err_clear(&err);
	free(expr);
	return 0;
}
