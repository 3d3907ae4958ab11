// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTTP server of ktrace export: libmicrohttpd (Debian's
 * libmicrohttpd), one internal thread polling every connection with
 * epoll, so that a slow or idle client holds a connection slot and a
 * little memory, never the thread. GET only (405 with Allow: GET),
 * bounded: at most KT_HTTPD_MAX_CONNS connections, each closed after
 * KT_HTTPD_TIMEOUT idle seconds, each with KT_HTTPD_CONN_MEM bytes for
 * its request (larger headers are refused by the library).
 *
 * Not in the static ktrace (make STATIC=1, ktrace-static): Debian's
 * libmicrohttpd links gnutls, which needs p11-kit, of which Debian ships
 * no static archive; the static link takes cmd/static/httpd_none.c instead.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "ktrace_cmd.h"

struct kt_httpd {
	struct MHD_Daemon *d;
	kt_httpd_fn fn;
	void *arg;
	struct kt_webcfg *web;		/* the caller's, or NULL */
};

/* Basic auth when users are configured: true to go on; else a 401 with
 * WWW-Authenticate is queued (*ret). */
static bool authorized(struct kt_httpd *h, struct MHD_Connection *c,
		       enum MHD_Result *ret)
{
	static char denied[] = "unauthorized\n";
	struct MHD_Response *r;
	char *pass = NULL, *user;
	bool ok;

	if (!h->web || !h->web->nusers)
		return true;
	user = MHD_basic_auth_get_username_password(c, &pass);
	ok = kt_webcfg_auth(h->web, user, pass);
	MHD_free(user);
	MHD_free(pass);
	if (ok)
		return true;
	r = MHD_create_response_from_buffer(strlen(denied), denied,
					    MHD_RESPMEM_PERSISTENT);
	*ret = r ? MHD_queue_basic_auth_fail_response(c, "ktrace", r) :
	       MHD_NO;
	if (r)
		MHD_destroy_response(r);
	return false;
}

static enum MHD_Result queue_text(struct MHD_Connection *c,
				  unsigned int status, char *body, size_t len,
				  const char *ctype, bool must_free)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, must_free ?
					    MHD_RESPMEM_MUST_FREE :
					    MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (must_free)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **con_cls)
{
	static char not_allowed[] = "only GET\n";
	static char not_found[] = "not found: try /metrics\n";
	static char failed[] = "the scrape failed\n";
	static const char plain[] = "text/plain; charset=utf-8";
	struct kt_httpd *h = cls;
	const char *ctype = plain;
	enum MHD_Result ret;
	char *body = NULL;
	size_t len = 0;
	int status;

	(void)version;
	(void)upload;
	(void)con_cls;
	*upload_len = 0;	/* a body is read and dropped */
	if (!authorized(h, c, &ret))
		return ret;
	if (strcmp(method, MHD_HTTP_METHOD_GET))
		return queue_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed,
				  strlen(not_allowed), plain, false);
	status = h->fn(h->arg, url, &body, &len, &ctype);
	if (status == 404)
		return queue_text(c, MHD_HTTP_NOT_FOUND, not_found,
				  strlen(not_found), plain, false);
	if (status != 200 || !body) {
		free(body);
		return queue_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, failed,
				  strlen(failed), plain, false);
	}
	return queue_text(c, MHD_HTTP_OK, body, len, ctype, true);
}

/* addr ("127.0.0.1", "::1", "0.0.0.0") and port into ss. */
static int make_addr(const char *addr, unsigned int port,
		     struct sockaddr_storage *ss, bool *v6)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	*v6 = strchr(addr, ':') != NULL;
	if (*v6) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		return inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1 ?
		       0 : -EINVAL;
	}
	in->sin_family = AF_INET;
	in->sin_port = htons(port);
	return inet_pton(AF_INET, addr, &in->sin_addr) == 1 ? 0 : -EINVAL;
}

struct kt_httpd *kt_httpd_start(const char *addr, unsigned int port,
				struct kt_webcfg *web, kt_httpd_fn fn,
				void *arg, int *err)
{
	struct sockaddr_storage ss;
	struct kt_httpd *h;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_EPOLL;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, web ? web->key : NULL },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, web ? web->cert : NULL },
		{ MHD_OPTION_END, 0, NULL },
	};
	bool v6, use_tls = web && web->cert;

	*err = make_addr(addr, port, &ss, &v6);
	if (*err)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h) {
		*err = -ENOMEM;
		return NULL;
	}
	h->fn = fn;
	h->arg = arg;
	h->web = web;
	if (use_tls)
		flags |= MHD_USE_TLS;
	else
		tls[0].option = MHD_OPTION_END;
	errno = 0;
	h->d = MHD_start_daemon(flags | (v6 ? MHD_USE_IPv6 : 0), 0, NULL,
				NULL, on_request, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT,
				(unsigned int)KT_HTTPD_MAX_CONNS,
				MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)KT_HTTPD_TIMEOUT,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				(size_t)KT_HTTPD_CONN_MEM,
				MHD_OPTION_ARRAY, tls,
				MHD_OPTION_END);
	if (!h->d) {
		/* the library says nothing more: a taken port or (TLS) a
		 * key that does not go with its certificate */
		*err = errno ? -errno : use_tls ? -EINVAL : -EADDRINUSE;
		free(h);
		return NULL;
	}
	return h;
}

unsigned int kt_httpd_port(const struct kt_httpd *h)
{
	const union MHD_DaemonInfo *i;

	i = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	return i ? i->port : 0;
}

void kt_httpd_stop(struct kt_httpd *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	free(h);
}
