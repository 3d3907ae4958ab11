// SPDX-License-Identifier: GPL-2.0-only
/*
 * The static ktrace has no HTTP server (see cmd/httpd.c): its link takes
 * this file before libktrace-cmd.a, so httpd.o and libmicrohttpd are not
 * linked, and ktrace export says so.
 */
#include <errno.h>

#include "ktrace_cmd.h"

struct kt_httpd *kt_httpd_start(const char *addr, unsigned int port,
				kt_httpd_fn fn, void *arg, int *err)
{
	(void)addr;
	(void)port;
	(void)fn;
	(void)arg;
	*err = -ENOTSUP;
	return NULL;
}

unsigned int kt_httpd_port(const struct kt_httpd *h)
{
	(void)h;
	return 0;
}

void kt_httpd_stop(struct kt_httpd *h)
{
	(void)h;
}
