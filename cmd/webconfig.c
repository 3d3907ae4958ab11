// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktrace export's --web-config FILE: the exporter-toolkit's web
 * configuration file as Prometheus exporters read it (a model of
 * behaviour; no code of theirs), the part that ktrace implements:
 *
 *   tls_server_config:
 *     cert_file: /etc/ktrace/cert.pem
 *     key_file: /etc/ktrace/key.pem
 *   basic_auth_users:
 *     prometheus: $2y$10$...        (bcrypt, checked by crypt(3))
 *
 * Any other key is refused, not ignored: a setting the user believes in
 * must not silently do nothing. Parsed with libyaml; used by cmd/httpd.c
 * only (so that the static link, which has no server, needs neither).
 */
#include <crypt.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "ktrace_cmd.h"

static int say(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *scalar(yaml_document_t *d, int id)
{
	yaml_node_t *n = yaml_document_get_node(d, id);

	return n && n->type == YAML_SCALAR_NODE ?
	       (const char *)n->data.scalar.value : NULL;
}

/* A PEM file named in the config, read whole. */
static int read_pem(const char *path, char **out, char *err, size_t len)
{
	*out = kt_read_file(path, NULL);
	if (!*out)
		return say(err, len, "cannot read '%s': %s", path,
			   strerror(errno));
	return 0;
}

static int tls_section(yaml_document_t *d, yaml_node_t *m,
		       struct kt_webcfg *w, char *err, size_t len)
{
	int ret = 0;

	if (m->type != YAML_MAPPING_NODE)
		return say(err, len, "tls_server_config: not a mapping");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
	     !ret && p < m->data.mapping.pairs.top; p++) {
		const char *k = scalar(d, p->key), *v = scalar(d, p->value);

		if (!k || !v)
			ret = say(err, len, "tls_server_config: scalars only");
		else if (!strcmp(k, "cert_file") && !w->cert)
			ret = read_pem(v, &w->cert, err, len);
		else if (!strcmp(k, "key_file") && !w->key)
			ret = read_pem(v, &w->key, err, len);
		else
			ret = say(err, len,
				  "tls_server_config: '%s' is not supported (cert_file and key_file are)",
				  k);
	}
	if (!ret && (!w->cert || !w->key))
		ret = say(err, len,
			  "tls_server_config needs cert_file and key_file");
	return ret;
}

static int users_section(yaml_document_t *d, yaml_node_t *m,
			 struct kt_webcfg *w, char *err, size_t len)
{
	yaml_node_pair_t *p;
	int n = 0;

	if (m->type != YAML_MAPPING_NODE)
		return say(err, len, "basic_auth_users: not a mapping");
	w->users = calloc(m->data.mapping.pairs.top -
			  m->data.mapping.pairs.start + 1, sizeof(*w->users));
	if (!w->users)
		return -ENOMEM;
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++, n++) {
		const char *k = scalar(d, p->key), *v = scalar(d, p->value);

		if (!k || !v || !*k || strchr(k, ':'))
			return say(err, len, "basic_auth_users: a user name and its bcrypt hash");
		if (strncmp(v, "$2", 2))
			return say(err, len,
				   "basic_auth_users: %s: not a bcrypt hash ($2a$, $2b$, $2y$)",
				   k);
		w->users[n].name = strdup(k);
		w->users[n].hash = strdup(v);
		w->nusers = n + 1;
		if (!w->users[n].name || !w->users[n].hash)
			return -ENOMEM;
	}
	return 0;
}

static int load_doc(yaml_document_t *d, struct kt_webcfg *w, char *err,
		    size_t len)
{
	yaml_node_t *root = yaml_document_get_root_node(d);
	int ret = 0;

	if (!root)
		return 0;	/* an empty file: nothing configured */
	if (root->type != YAML_MAPPING_NODE)
		return say(err, len, "not a mapping of settings");
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     !ret && p < root->data.mapping.pairs.top; p++) {
		const char *k = scalar(d, p->key);
		yaml_node_t *v = yaml_document_get_node(d, p->value);

		if (k && !strcmp(k, "tls_server_config"))
			ret = tls_section(d, v, w, err, len);
		else if (k && !strcmp(k, "basic_auth_users"))
			ret = users_section(d, v, w, err, len);
		else
			ret = say(err, len,
				  "'%s' is not supported (tls_server_config and basic_auth_users are)",
				  k ? k : "?");
	}
	return ret;
}

int kt_webcfg_load(const char *path, struct kt_webcfg *w, char *err,
		   size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	FILE *f;
	int ret;

	memset(w, 0, sizeof(*w));
	f = fopen(path, "re");
	if (!f)
		return say(err, len, "cannot read '%s': %s", path,
			   strerror(errno));
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		ret = say(err, len, "%s:%zu: %s", path,
			  parser.problem_mark.line + 1,
			  parser.problem ? parser.problem : "not YAML");
	} else {
		ret = load_doc(&doc, w, err, len);
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	fclose(f);
	if (ret == -ENOMEM)
		say(err, len, "out of memory");
	if (ret)
		kt_webcfg_free(w);
	return ret;
}

void kt_webcfg_free(struct kt_webcfg *w)
{
	for (int i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	free(w->cert);
	free(w->key);
	free(w->ok);
	memset(w, 0, sizeof(*w));
}

/* Equal, in a time that does not depend on where they differ. */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)b[i];
	return !d;
}

bool kt_webcfg_auth(struct kt_webcfg *w, const char *user, const char *pass)
{
	struct crypt_data cd;
	char *ok;
	const char *h;

	if (!user || !pass)
		return false;
	/* bcrypt costs milliseconds: the last accepted pair is kept (user
	 * NUL password), as a scrape comes every few seconds */
	if (asprintf(&ok, "%s%c%s", user, '\0', pass) < 0)
		return false;
	if (w->ok && same(w->ok, user) &&
	    same(w->ok + strlen(w->ok) + 1, pass)) {
		free(ok);
		return true;
	}
	for (int i = 0; i < w->nusers; i++) {
		if (strcmp(w->users[i].name, user))
			continue;
		memset(&cd, 0, sizeof(cd));
		h = crypt_r(pass, w->users[i].hash, &cd);
		if (h && same(h, w->users[i].hash)) {
			free(w->ok);
			w->ok = ok;
			return true;
		}
	}
	free(ok);
	return false;
}
