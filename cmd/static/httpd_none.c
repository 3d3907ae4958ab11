// SPDX-License-Identifier: GPL-2.0-only
/*
 * The static ktrace has no HTTP server (see cmd/httpd.c): its link takes
 * this file before libktrace-cmd.a, so httpd.o and webconfig.o, with
 * libmicrohttpd, libyaml and libcrypt, are not linked, and ktrace export
 * says so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ktrace_cmd.h"

struct kt_httpd *kt_httpd_start(const char *addr, unsigned int port,
				struct kt_webcfg *web, kt_httpd_fn fn,
				void *arg, int *err)
{
	(void)addr;
	(void)port;
	(void)web;
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

int kt_webcfg_load(const char *path, struct kt_webcfg *w, char *err,
		   size_t len)
{
	(void)path;
	memset(w, 0, sizeof(*w));
	snprintf(err, len, "this ktrace is built without an HTTP server");
	return -ENOTSUP;
}

void kt_webcfg_free(struct kt_webcfg *w)
{
	(void)w;
}
