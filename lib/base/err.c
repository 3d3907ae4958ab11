// SPDX-License-Identifier: LGPL-2.1-only
/* struct ktrace_err helpers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/internal.h"

void ktrace_err_clear(struct ktrace_err *err)
{
	if (!err)
		return;
	free(err->msg);
	free(err->klog);
	free(err->input);
	err->msg = NULL;
	err->klog = NULL;
	err->input = NULL;
	err->pos = -1;
	err->syntax = false;
}

int kt_err_set(struct ktrace_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (errnum < 0)
		errnum = -errnum;
	if (!err)
		return -errnum;
	ktrace_err_clear(err);
	va_start(ap, fmt);
	if (vasprintf(&err->msg, fmt, ap) < 0)
		err->msg = NULL;
	va_end(ap);
	return -errnum;
}
