// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Dynamic probes, parsing: a perf-probe-like spec into struct ktrace_probe.
 * Errors carry the position in the user's own spec. Nothing is resolved
 * or written here (resolve.c, create.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/internal.h"
#include "probe/probe_priv.h"
#include "probe/spec.h"

int kt_probe_err(struct ktrace_err *err, const char *spec, int pos, int errnum,
		 const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!err)
		return -errnum;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	kt_err_set(err, errnum, "%s", msg ? msg : "bad probe");
	free(msg);
	err->input = spec ? strdup(spec) : NULL;
	err->pos = pos;
	return -errnum;
}

static bool is_ident(const char *s, size_t n)
{
	if (!n || (!isalpha((unsigned char)s[0]) && s[0] != '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* Probe event and group names: C identifiers (the kernel's rule). */
int kt_probe_name_check(const char *s)
{
	/* The kernel's MAX_EVENT_NAME_LEN (64) counts the NUL. */
	if (!s || strlen(s) > 63 || !is_ident(s, strlen(s)))
		return -EINVAL;
	return 0;
}

/*
 * A kernel module's name as the user may write it: letters, digits, '_'
 * and '-' (the kernel's names have '_' for '-'), shorter than the kernel's
 * MODULE_NAME_LEN (56). A program's name is often one too: resolve.c
 * decides by what is loaded.
 */
bool kt_probe_module_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 55)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

/* NAME, NAME->f, NAME.f, NAME[3], $retval, chains of those. */
static bool is_var_expr(const char *s)
{
	const char *p = s;

	if (!strncmp(s, "$retval", 7)) {
		p += 7;
		if (!*p)
			return true;
		if (*p != '-' && *p != '.' && *p != '[')
			return false;
	} else if (!isalpha((unsigned char)*p) && *p != '_')
		return false;
	while (*p) {
		if (isalnum((unsigned char)*p) || *p == '_' || *p == '.') {
			p++;
		} else if (p[0] == '-' && p[1] == '>') {
			p += 2;
		} else if (*p == '[') {
			p++;
			while (isdigit((unsigned char)*p))
				p++;
			if (*p != ']')
				return false;
			p++;
		} else {
			return false;
		}
	}
	return true;
}

/*
 * The kernel's fetch-argument syntax, the part ktrace passes through:
 * %REG, $stack, $stackN, $retval, $comm, $argN (any $name), @SYM[+-OFFS],
 * @ADDR, and [+-][u]OFFS(FETCHARG). Returns the end of what was read, or
 * NULL when s does not start with one.
 */
static const char *raw_fetcharg(const char *s)
{
	const char *p = s;

	if (*p == '%' || *p == '$') {
		p++;
		if (!isalnum((unsigned char)*p) && *p != '_')
			return NULL;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		return p;
	}
	if (*p == '@') {
		p++;
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.')
			return NULL;
		while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
			p++;
		if (*p == '+' || *p == '-') {
			p++;
			if (!isxdigit((unsigned char)*p))
				return NULL;
			while (isalnum((unsigned char)*p))
				p++;
		}
		return p;
	}
	if (*p == '+' || *p == '-') {
		p++;
		if (*p == 'u')
			p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isalnum((unsigned char)*p))
			p++;
		if (*p++ != '(')
			return NULL;
		p = raw_fetcharg(p);
		if (!p || *p != ')')
			return NULL;
		return p + 1;
	}
	return NULL;
}

static bool is_type(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("@/[]_", *s))
			return false;
	return true;
}

/* The event's name for an argument written as VAR: how->flags -> how_flags */
static char *var_name(const char *expr)
{
	char *n = malloc(strlen(expr) + 1), *o = n;
	const char *p = expr;

	if (!n)
		return NULL;
	if (*p == '$')
		p++;
	for (; *p; p++) {
		if (isalnum((unsigned char)*p) || *p == '_')
			*o++ = *p;
		else if (o > n && o[-1] != '_')
			*o++ = '_';
	}
	while (o > n && o[-1] == '_')
		o--;
	*o = '\0';
	return n;
}

/*
 * Split a ":TYPE" off expr, in place, into a->type: the last ':' when what
 * follows looks like a type. Two types are refused, and so is a name or a
 * good fetch argument followed by a bad type (the caret under the type).
 * 0 or -errno.
 */
static int split_type(struct ktrace_probe *p, struct probe_arg *a,
		      char *expr, struct ktrace_err *err)
{
	char *colon = strrchr(expr, ':');
	const char *prev, *rest;
	int at;

	if (!colon || colon == expr || colon[-1] == ':')
		return 0;
	if (is_type(colon + 1)) {
		*colon = '\0';
		prev = strrchr(expr, ':');
		if (prev && prev > expr && prev[-1] != ':' && is_type(prev + 1))
			/* "%di:u32:u64": the kernel takes one type */
			return kt_probe_err(err, p->spec,
				a->estart + (int)(prev - expr) + 1, EINVAL,
				"two types ('%s' and '%s'): give one", prev + 1,
				colon + 1);
		a->type = strdup(colon + 1);
		return a->type ? 0 : -ENOMEM;
	}
	/* a good fetch argument with a bad type: say it is the type */
	at = a->estart + (int)(colon - expr) + 1;
	*colon = '\0';
	rest = raw_fetcharg(expr);
	if (is_var_expr(expr) || (rest && !*rest))
		return kt_probe_err(err, p->spec, at, EINVAL, *(colon + 1) ?
			"bad type '%s': one of u8..u64, s8..s64, x8..x64, char, string, ustring, symbol, b<width>@<offset>/<size>, TYPE[N]" :
			"no type after ':'%s", colon + 1);
	*colon = ':';
	return 0;
}

static int parse_arg(struct ktrace_probe *p, const char *tok, int start,
		     int len, struct ktrace_err *err)
{
	struct probe_arg *a;
	char *t = strndup(tok, len), *eq, *expr;
	int i = p->nargs, ret;

	if (!t)
		return -ENOMEM;
	if (p->nargs == PROBE_MAX_ARGS) {
		free(t);
		return kt_probe_err(err, p->spec, start, E2BIG,
			    "too many arguments (at most %d)", PROBE_MAX_ARGS);
	}
	a = &p->args[p->nargs];
	memset(a, 0, sizeof(*a));
	p->nargs++;	/* from here on, ktrace_probe_free() frees a */
	a->ustart = start;
	a->uend = start + len;
	expr = t;
	eq = strchr(t, '=');
	if (eq && (eq < strchr(t, '(') || !strchr(t, '('))) {
		*eq = '\0';
		if (kt_probe_name_check(t)) {
			int n = eq - t;

			free(t);
			return kt_probe_err(err, p->spec, start, EINVAL,
				    "bad argument name '%.*s': use a C identifier",
				    n, tok);
		}
		a->name = strdup(t);
		expr = eq + 1;
	}
	a->estart = start + (int)(expr - t);
	ret = split_type(p, a, expr, err);
	if (ret) {
		free(t);
		return ret;
	}
	if (!*expr) {
		free(t);
		return kt_probe_err(err, p->spec, a->estart, EINVAL,
			    "empty argument");
	}
	a->expr = strdup(expr);
	/* "$retval:TYPE" needs no resolution: the user gave the type. */
	a->raw = !is_var_expr(expr) || (a->type && !strcmp(expr, "$retval"));
	if (a->raw && (strpbrk(expr, "\"'`;|&<>\\") ||
		       !raw_fetcharg(expr) || *raw_fetcharg(expr))) {
		ret = kt_probe_err(err, p->spec, a->estart, EINVAL,
				   "bad fetch argument '%s': not a name (VAR, VAR->field, VAR[N]) nor a register (%%di), $stackN, $retval, $comm, $argN, @symbol or +OFFS(FETCHARG)",
				   expr);
		free(t);
		return ret;
	}
	if (!a->name) {
		if (!a->raw || !strcmp(expr, "$comm") ||
		    !strcmp(expr, "$retval"))
			a->name = var_name(expr);
		else if (asprintf(&a->name, "arg%d", i + 1) < 0)
			a->name = NULL;
	}
	free(t);
	if (!a->name || !a->expr)
		return -ENOMEM;
	for (int j = 0; j < i; j++)
		if (!strcmp(p->args[j].name, a->name))
			return kt_probe_err(err, p->spec, start, EINVAL,
				    "two arguments named '%s': name one NAME=...",
				    a->name);
	return 0;
}

/* FUNC[+OFFS] into p->func / p->offs. */
static int parse_func(struct ktrace_probe *p, const char *s, int start,
		      struct ktrace_err *err)
{
	const char *plus = strrchr(s, '+');
	char *end;

	p->fstart = start;
	if (plus && plus != s) {
		errno = 0;
		p->offs = strtoul(plus + 1, &end, 0);
		if (errno || *end || plus[1] == '\0')
			return kt_probe_err(err, p->spec, start + (int)(plus - s) + 1,
				    EINVAL, "bad offset '%s'", plus + 1);
		p->func = strndup(s, plus - s);
	} else {
		p->func = strdup(s);
	}
	if (!p->func)
		return -ENOMEM;
	for (const char *c = p->func, *o = NULL; *c; c++) {
		if (isalnum((unsigned char)*c) || strchr("_.:~<>(),*&@", *c))
			continue;
		/* blanks inside a C++ parameter or template list */
		if (*c == ' ' && (o = strpbrk(p->func, "(<")) && o < c)
			continue;
		return kt_probe_err(err, p->spec, start + (int)(c - p->func), EINVAL,
			    "bad character '%c' in function name", *c);
	}
	if (!p->user && !is_ident(p->func, strcspn(p->func, ".")))
		return kt_probe_err(err, p->spec, start, EINVAL,
			    "bad kernel function name '%s'", p->func);
	if (p->is_return && p->offs)
		return kt_probe_err(err, p->spec, start, EINVAL,
			    "a return probe cannot have an offset");
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* A tracepoint system or event name: [A-Za-z0-9_]+, < 64 chars. */
static bool is_tp_name(const char *s, size_t n)
{
	if (!n || n > 63)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/*
 * "SYS/EVENT", "SYS.EVENT" or "SYS:EVENT" (sys_opt: "EVENT" alone too)
 * into p->esys and p->eevent; start is where s is in the spec.
 */
static int parse_event_target(struct ktrace_probe *p, const char *s,
			      int start, bool sys_opt, struct ktrace_err *err)
{
	size_t n = strcspn(s, "/.:");

	if (!s[n] && sys_opt) {
		if (!is_tp_name(s, n))
			return kt_probe_err(err, p->spec, start, EINVAL,
				    "bad tracepoint name '%s'", s);
		p->eevent = strdup(s);
		return p->eevent ? 0 : -ENOMEM;
	}
	if (!s[n] || !is_tp_name(s, n))
		return kt_probe_err(err, p->spec, start, EINVAL,
			    "expected SYSTEM:EVENT (or SYSTEM/EVENT) after '%c:'",
			    p->dyn == PROBE_EVENT ? 'e' : 't');
	if (!is_tp_name(s + n + 1, strlen(s + n + 1)))
		return kt_probe_err(err, p->spec, start + (int)n + 1, EINVAL,
			    "bad event name '%s'", s + n + 1);
	p->esys = strndup(s, n);
	p->eevent = strdup(s + n + 1);
	return p->esys && p->eevent ? 0 : -ENOMEM;
}

/*
 * The kinds of dynamic_events: "e:SYS/EVENT" (an event probe on a
 * tracepoint), "f:FUNC[%return]" (an fprobe), "t:[SYS/]TRACEPOINT" (a
 * tracepoint probe). 1 when loc is none of them, else 0 or -errno.
 */
static int parse_dyn_location(struct ktrace_probe *p, char *loc, int start,
			      struct ktrace_err *err)
{
	size_t n = strlen(loc);

	if (!loc[0] || !strchr("eft", loc[0]) || loc[1] != ':')
		return 1;
	p->dyn = loc[0] == 'e' ? PROBE_EVENT :
		 loc[0] == 'f' ? PROBE_FPROBE : PROBE_TPROBE;
	p->lstart = start;
	p->lend = start + n;
	if (n > 7 && !strcmp(loc + n - 7, "%return")) {
		if (p->dyn != PROBE_FPROBE)
			return kt_probe_err(err, p->spec, start + (int)n - 7,
				    EINVAL, "%%return is for functions (f:FUNC%%return), not events");
		p->is_return = true;
		loc[n - 7] = '\0';
	}
	if (!loc[2])
		return kt_probe_err(err, p->spec, start, EINVAL,
			    "missing %s after '%c:'", p->dyn == PROBE_FPROBE ?
			    "function" : "event", loc[0]);
	if (p->dyn == PROBE_FPROBE) {
		int ret = parse_func(p, loc + 2, start + 2, err);

		if (!ret && p->offs)
			return kt_probe_err(err, p->spec, start + 2, EINVAL,
				    "an fprobe is on a function's entry or return: no offset");
		return ret;
	}
	return parse_event_target(p, loc + 2, start + 2,
				  p->dyn == PROBE_TPROBE, err);
}

static int parse_location(struct ktrace_probe *p, char *loc, int start,
			  const struct ktrace_probe_opts *opts,
			  struct ktrace_err *err)
{
	size_t n = strlen(loc);
	char *colon;
	int ret;

	/* e:, f:, t: (a one-letter binary is "./e:SYMBOL") */
	if (!(opts && opts->binary)) {
		ret = parse_dyn_location(p, loc, start, err);
		if (ret <= 0)
			return ret;
	}
	p->lstart = start;
	p->lend = start + n;
	if (n > 7 && !strcmp(loc + n - 7, "%return")) {
		p->is_return = true;
		loc[n - 7] = '\0';
	}
	if (!*loc)
		return kt_probe_err(err, p->spec, start, EINVAL, "missing location");
	if (opts && opts->binary) {
		p->user = true;
		p->binary = strdup(opts->binary);
		if (!p->binary)
			return -ENOMEM;
	}
	colon = strrchr(loc, ':');
	if (colon && all_digits(colon + 1)) {
		/* FILE:LINE */
		if (p->is_return)
			return kt_probe_err(err, p->spec, start, EINVAL,
				    "FILE:LINE cannot be a return probe");
		p->line = atoi(colon + 1);
		p->file = strndup(loc, colon - loc);
		if (!p->file)
			return -ENOMEM;
		if (!p->user) {
			/* BINARY:FILE:LINE */
			char *c2 = strchr(p->file, ':');

			if (c2) {
				p->user = true;
				p->binary = strndup(p->file, c2 - p->file);
				memmove(p->file, c2 + 1, strlen(c2));
			}
		}
		if (!*p->file)
			return kt_probe_err(err, p->spec, start, EINVAL,
				    "missing file name before ':%d'", p->line);
		return 0;
	}
	if (!p->user) {
		colon = strchr(loc, ':');
		if (colon) {
			if (colon == loc || !colon[1])
				return kt_probe_err(err, p->spec, start, EINVAL,
					    "expected BINARY:SYMBOL");
			p->user = true;
			p->binary = strndup(loc, colon - loc);
			if (!p->binary)
				return -ENOMEM;
			p->maybe_module = kt_probe_module_name(p->binary);
			return parse_func(p, colon + 1,
					  start + (int)(colon - loc) + 1, err);
		}
	}
	return parse_func(p, loc, start, err);
}

static char *default_event(const struct ktrace_probe *p)
{
	const char *base;
	char *n, *r = NULL;

	if (p->eevent) {
		n = strdup(p->eevent);
	} else if (p->func) {
		base = p->func;
		n = var_name(base);
	} else if (!p->file) {
		errno = EINVAL;
		return NULL;
	} else {
		base = strrchr(p->file, '/');
		base = base ? base + 1 : p->file;
		if (asprintf(&r, "%.*s_%d", (int)strcspn(base, "."), base,
			     p->line) < 0)
			return NULL;
		n = var_name(r);
		free(r);
		r = NULL;
	}
	if (!n)
		return NULL;
	/* Keep the name short and a C identifier. */
	if (isdigit((unsigned char)n[0]) && asprintf(&r, "_%s", n) >= 0) {
		free(n);
		n = r;
		r = NULL;
	}
	/* A long (C++) name: its last component, cut, and a hash of the
	 * whole so that overloads and templates keep apart, within the
	 * kernel's 63 characters with "__return". */
	if (n && strlen(n) > 48 && p->func) {
		const char *f = p->func, *last = f;
		uint32_t h = 2166136261u;
		int depth = 0;
		char *sn;

		for (const char *c = f; *c; c++) {
			h = (h ^ (unsigned char)*c) * 16777619u;
			if (*c == '<' || *c == '(')
				depth++;
			else if ((*c == '>' || *c == ')') && depth > 0)
				depth--;
			else if (!depth && c[0] == ':' && c[1] == ':')
				last = c + 2;
		}
		sn = var_name(last);
		if (sn && asprintf(&r, "%.39s_%08x", sn, h) >= 0) {
			free(n);
			n = r;
			r = NULL;
		}
		free(sn);
	}
	if (n && strlen(n) > 48)
		n[48] = '\0';
	if (n && p->is_return) {
		if (asprintf(&r, "%s__return", n) < 0)
			r = NULL;
		free(n);
		return r;
	}
	return n;
}

int kt_probe_location_len(const char *s)
{
	const char *p = s;
	int depth = 0;
	char q = 0;

	for (; *p; p++) {
		if (q) {
			if (*p == q)
				q = 0;
		} else if (*p == '\'' || *p == '"') {
			q = *p;
		} else if (*p == '(' || *p == '<') {
			depth++;
		} else if ((*p == ')' || *p == '>') && depth > 0) {
			depth--;
		} else if (isspace((unsigned char)*p) && !depth) {
			break;
		}
	}
	return p - s;
}

/*
 * The first token of a spec, len bytes at s (start in the spec):
 * [[GROUP:]EVENT=]LOCATION, the location maybe quoted.
 */
static int parse_head(struct ktrace_probe *p, const char *s, int start,
		      int len, const struct ktrace_probe_opts *opts,
		      struct ktrace_err *err)
{
	char *t = strndup(s, len), *eq, *loc = t;
	size_t ll;
	int ret;

	if (!t)
		return -ENOMEM;
	eq = strchr(t, '=');
	if (eq) {
		char *c;

		*eq = '\0';
		c = strchr(t, ':');
		if (c) {
			*c = '\0';
			p->group = strdup(t);
			p->event = strdup(c + 1);
		} else {
			p->event = strdup(t);
		}
		if ((p->group && kt_probe_name_check(p->group)) ||
		    kt_probe_name_check(p->event)) {
			int n = eq - t;

			free(t);
			return kt_probe_err(err, p->spec, start, EINVAL,
				    "bad probe name '%.*s': GROUP and EVENT are C identifiers",
				    n, s);
		}
		loc = eq + 1;
	}
	/* a quoted location: the quotes are not part of it */
	ll = strlen(loc);
	if (ll >= 2 && (loc[0] == '\'' || loc[0] == '"') &&
	    loc[ll - 1] == loc[0]) {
		loc[ll - 1] = '\0';
		loc++;
	}
	ret = parse_location(p, loc, start + (int)(loc - t), opts, err);
	free(t);
	return ret;
}

struct ktrace_probe *ktrace_probe_parse(const char *spec,
					const struct ktrace_probe_opts *opts,
					struct ktrace_err *err)
{
	struct ktrace_probe *p;
	const char *s = spec;
	int ret = 0, tok = 0;

	if (!spec) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->spec = strdup(spec);
	if (!p->spec) {
		ret = -ENOMEM;
		goto fail;
	}
	while (*s) {
		int start, len;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		start = s - spec;
		len = tok ? (int)strcspn(s, " \t\n") : kt_probe_location_len(s);
		if (tok == 0)
			ret = parse_head(p, s, start, len, opts, err);
		else
			ret = parse_arg(p, s, start, len, err);
		if (ret)
			goto fail;
		s += len;
		tok++;
	}
	if (!tok) {
		ret = kt_probe_err(err, spec, 0, EINVAL, "empty probe spec");
		goto fail;
	}
	if (!p->group)
		p->group = strdup(opts && opts->group ? opts->group : "ktrace");
	if (!p->event)
		p->event = default_event(p);
	if (!p->group || !p->event) {
		ret = -ENOMEM;
		goto fail;
	}
	if (kt_probe_name_check(p->group)) {
		ret = kt_probe_err(err, spec, -1, EINVAL, "bad group name '%s'",
			   p->group);
		goto fail;
	}
	return p;
fail:
	ktrace_probe_free(p);
	errno = ret < 0 ? -ret : EINVAL;
	/* what the user wrote is malformed: a usage error, not a failure */
	if (err && errno != ENOMEM)
		err->syntax = true;
	return NULL;
}

void ktrace_probe_free(struct ktrace_probe *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nargs; i++) {
		free(p->args[i].name);
		free(p->args[i].expr);
		free(p->args[i].type);
		free(p->args[i].fetch);
		free(p->args[i].rtype);
	}
	free(p->spec);
	free(p->group);
	free(p->event);
	free(p->binary);
	free(p->esys);
	free(p->eevent);
	free(p->func);
	free(p->file);
	free(p->location);
	free(p->fmt);
	free(p->def);
	free(p->path);
	free(p->warning);
	free(p->replaced);
	free(p);
}
