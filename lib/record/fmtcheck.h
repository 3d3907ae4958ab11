/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Format texts held to what kernels write before libtraceevent parses
 * them (fmtcheck.c), and the bounds a record must keep to be decoded. A
 * leaf: it calls nothing else of lib/record.
 */
#ifndef KTRACE_RECORD_FMTCHECK_H
#define KTRACE_RECORD_FMTCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_event;
struct tep_format_field;

/* fields a print fmt may divide by */
#define KT_FMT_MAX_DIV 4

/*
 * Hold a format text to what kernels write: 0, or -EBADMSG with *why
 * (static text) saying what is wrong. info: whether the field lines
 * passed, and the fields its print fmt divides by (libtraceevent divides
 * by them, a record where one is 0 would raise SIGFPE).
 */
struct kt_fmt_info {
	bool header_ok;
	int ndiv;
	char div[KT_FMT_MAX_DIV][64];
};
int kt_format_check(const char *text, size_t len, struct kt_fmt_info *info,
		    const char **why);
/* Are all of te's fields (and dynamic fields' data) inside raw/size? */
bool kt_raw_fits(const struct tep_event *te, const void *raw, size_t size);
/* What every record of te needs: the end of its last fixed field, and
 * whether it has __data_loc fields (their data is per record). */
uint32_t kt_raw_need(const struct tep_event *te, bool *dynamic);
/* The name of the first of div[0..ndiv) that is 0 in raw, or NULL. */
const char *kt_zero_divisor(struct tep_format_field *const *div, int ndiv,
			    const void *raw);

#endif
