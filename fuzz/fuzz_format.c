// SPDX-License-Identifier: GPL-2.0-only
/*
 * The format text of a recording (report -i of an untrusted file): held
 * to what kernels write (kt_format_check), then, when it passes, parsed
 * by libtraceevent and one record printed with it. The first 64 bytes of
 * the input are the record, the rest the format text. Whatever passes the
 * check must not crash libtraceevent.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "record/record.h"
#include "fuzz.h"

#define REC_SIZE 64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char rec[REC_SIZE] __attribute__((aligned(8)));
	struct tep_record r = { .data = rec, .size = REC_SIZE };
	struct tep_handle *tep;
	struct tep_event *te = NULL;
	struct trace_seq s;
	struct tep_format_field *div[KT_FMT_MAX_DIV];
	struct kt_fmt_info fi;
	const char *why;
	char *text;
	int ndiv = 0;

	if (size <= REC_SIZE || size > 8192)
		return 0;
	memcpy(rec, data, REC_SIZE);
	text = strndup((const char *)data + REC_SIZE, size - REC_SIZE);
	if (!text)
		return 0;
	if (kt_format_check(text, strlen(text), &fi, &why)) {
		free(text);
		return 0;
	}
	tep = tep_alloc();
	if (tep && !tep_parse_format(tep, &te, text, strlen(text), "fuzz") &&
	    te) {
		/* the record is te's: its type field says so; printed
		 * only when it holds its format, as ktrace does */
		memcpy(rec, &te->id, 2);
		trace_seq_init(&s);
		for (int i = 0; i < fi.ndiv; i++)
			div[ndiv] = tep_find_field(te, fi.div[i]),
			ndiv += div[ndiv] != NULL;
		if (kt_raw_fits(te, rec, REC_SIZE) &&
		    !kt_zero_divisor(div, ndiv, rec))
			tep_print_event(tep, &s, &r, "%s", TEP_PRINT_INFO);
		trace_seq_destroy(&s);
	}
	tep_free(tep);
	free(text);
	return 0;
}
