// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Dynamic probes: parse a perf-probe-like spec, resolve it (kresolve for
 * the kernel, uresolve for user space), build the kprobe_events /
 * uprobe_events line and create it through libtracefs. Errors carry the
 * position in the user's own spec.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/internal.h"
#include "probe/btf.h"
#include "probe/uelf.h"

#define PROBE_MAX_ARGS 64

struct probe_arg {
	char *name;		/* argument name in the event */
	char *expr;		/* what the user wrote after NAME= */
	char *type;		/* user's :TYPE, or NULL */
	bool raw;		/* expr is a fetcharg, not a variable */
	int ustart, uend;	/* the whole token in the spec */
	int estart;		/* expr's start in the spec */
	char *fetch;		/* resolved fetcharg */
	char *rtype;		/* resolved type (or the user's) */
	int dstart, dend;	/* this argument in the definition */
};

struct ktrace_probe {
	char *spec;
	char *group, *event;
	bool user;		/* uprobe */
	bool is_return;
	char *binary;		/* user: as given */
	char *func;		/* FUNC or SYMBOL; NULL for FILE:LINE */
	unsigned long offs;
	char *file;		/* FILE:LINE */
	int line;
	int lstart, lend;	/* location in the spec */
	struct probe_arg args[PROBE_MAX_ARGS];
	int nargs;
	char *location;		/* resolved: "func+8", "/bin/x:0x..." */
	char *fmt;		/* resolved arguments joined */
	char *def;		/* the full line */
	int dloc;		/* location's start in def */
	unsigned long file_off;
	char *path;		/* user: resolved absolute path */
	char *warning;		/* resolved, but worth a note */
	bool created;		/* by ktrace_probe_create() */
	char *replaced;		/* --force: the definition it replaced */
};

static int perr(struct ktrace_err *err, const char *spec, int pos, int errnum,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int perr(struct ktrace_err *err, const char *spec, int pos, int errnum,
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
	ktrace_err_set(err, errnum, "%s", msg ? msg : "bad probe");
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
static int probe_name_check(const char *s)
{
	/* The kernel's MAX_EVENT_NAME_LEN (64) counts the NUL. */
	if (!s || strlen(s) > 63 || !is_ident(s, strlen(s)))
		return -EINVAL;
	return 0;
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

static int parse_arg(struct ktrace_probe *p, const char *tok, int start,
		     int len, struct ktrace_err *err)
{
	struct probe_arg *a;
	char *t = strndup(tok, len), *eq, *colon, *expr;
	int i = p->nargs;

	if (!t)
		return -ENOMEM;
	if (p->nargs == PROBE_MAX_ARGS) {
		free(t);
		return perr(err, p->spec, start, E2BIG,
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
		if (probe_name_check(t)) {
			int n = eq - t;

			free(t);
			return perr(err, p->spec, start, EINVAL,
				    "bad argument name '%.*s': use a C identifier",
				    n, tok);
		}
		a->name = strdup(t);
		expr = eq + 1;
	}
	a->estart = start + (int)(expr - t);
	/* :TYPE is the last ':' when what follows looks like a type. */
	colon = strrchr(expr, ':');
	if (colon && colon > expr && colon[-1] != ':' && is_type(colon + 1)) {
		*colon = '\0';
		a->type = strdup(colon + 1);
	}
	if (!*expr) {
		free(t);
		return perr(err, p->spec, a->estart, EINVAL,
			    "empty argument");
	}
	a->expr = strdup(expr);
	/* "$retval:TYPE" needs no resolution: the user gave the type. */
	a->raw = !is_var_expr(expr) || (a->type && !strcmp(expr, "$retval"));
	if (a->raw && strpbrk(expr, "\"'`;|&<>\\")) {
		int ret = perr(err, p->spec, a->estart, EINVAL,
			       "bad fetch argument '%s'", expr);

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
	if (!a->name || !a->expr || (colon && !a->type))
		return -ENOMEM;
	for (int j = 0; j < i; j++)
		if (!strcmp(p->args[j].name, a->name))
			return perr(err, p->spec, start, EINVAL,
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

	if (plus && plus != s) {
		errno = 0;
		p->offs = strtoul(plus + 1, &end, 0);
		if (errno || *end || plus[1] == '\0')
			return perr(err, p->spec, start + (int)(plus - s) + 1,
				    EINVAL, "bad offset '%s'", plus + 1);
		p->func = strndup(s, plus - s);
	} else {
		p->func = strdup(s);
	}
	if (!p->func)
		return -ENOMEM;
	for (const char *c = p->func; *c; c++) {
		if (isalnum((unsigned char)*c) || strchr("_.:~<>(),*&@", *c))
			continue;
		return perr(err, p->spec, start + (int)(c - p->func), EINVAL,
			    "bad character '%c' in function name", *c);
	}
	if (!p->user && !is_ident(p->func, strcspn(p->func, ".")))
		return perr(err, p->spec, start, EINVAL,
			    "bad kernel function name '%s'", p->func);
	if (p->is_return && p->offs)
		return perr(err, p->spec, start, EINVAL,
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

static int parse_location(struct ktrace_probe *p, char *loc, int start,
			  const struct ktrace_probe_opts *opts,
			  struct ktrace_err *err)
{
	size_t n = strlen(loc);
	char *colon;

	p->lstart = start;
	p->lend = start + n;
	if (n > 7 && !strcmp(loc + n - 7, "%return")) {
		p->is_return = true;
		loc[n - 7] = '\0';
	}
	if (!*loc)
		return perr(err, p->spec, start, EINVAL, "missing location");
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
			return perr(err, p->spec, start, EINVAL,
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
			return perr(err, p->spec, start, EINVAL,
				    "missing file name before ':%d'", p->line);
		return 0;
	}
	if (!p->user) {
		colon = strchr(loc, ':');
		if (colon) {
			if (colon == loc || !colon[1])
				return perr(err, p->spec, start, EINVAL,
					    "expected BINARY:SYMBOL");
			p->user = true;
			p->binary = strndup(loc, colon - loc);
			if (!p->binary)
				return -ENOMEM;
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

	if (p->func) {
		base = p->func;
		n = var_name(base);
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

struct ktrace_probe *ktrace_probe_parse(const char *spec,
					const struct ktrace_probe_opts *opts,
					struct ktrace_err *err)
{
	struct ktrace_probe *p;
	const char *s = spec;
	int ret = 0, tok = 0;

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->spec = strdup(spec ? spec : "");
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
		len = strcspn(s, " \t\n");
		if (tok == 0) {
			char *t = strndup(s, len), *eq, *loc = t;

			if (!t) {
				ret = -ENOMEM;
				goto fail;
			}
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
				if ((p->group && probe_name_check(p->group)) ||
				    probe_name_check(p->event)) {
					int n = eq - t;

					free(t);
					ret = perr(err, spec, start, EINVAL,
						   "bad probe name '%.*s': GROUP and EVENT are C identifiers",
						   n, s);
					goto fail;
				}
				loc = eq + 1;
			}
			ret = parse_location(p, loc, start + (int)(loc - t),
					     opts, err);
			free(t);
		} else {
			ret = parse_arg(p, s, start, len, err);
		}
		if (ret)
			goto fail;
		s += len;
		tok++;
	}
	if (!tok) {
		ret = perr(err, spec, 0, EINVAL, "empty probe spec");
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
	if (probe_name_check(p->group)) {
		ret = perr(err, spec, -1, EINVAL, "bad group name '%s'",
			   p->group);
		goto fail;
	}
	return p;
fail:
	ktrace_probe_free(p);
	errno = ret < 0 ? -ret : EINVAL;
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

bool ktrace_tfs_has_kprobes(struct ktrace_tfs *tfs)
{
	char *p = kt_path("%s/kprobe_events", tfs->dir);
	bool ret = p && access(p, F_OK) == 0;

	free(p);
	return ret;
}

static struct kresolve *tfs_kresolve(struct ktrace_tfs *tfs)
{
	char *filt;

	if (tfs->kres)
		return tfs->kres;
	filt = kt_path("%s/available_filter_functions", tfs->dir);
	tfs->kres = kresolve_open(getenv("KTRACE_BTF"),
				  getenv("KTRACE_KALLSYMS"), NULL, filt);
	free(filt);
	return tfs->kres;
}

/* Move a resolver's error into err, its position shifted into the spec. */
static int arg_err(struct ktrace_probe *p, struct probe_arg *a, int ret,
		   struct ktrace_err *sub, struct ktrace_err *err)
{
	int pos = a->estart;

	if (sub->pos >= 0 && sub->pos <= (int)strlen(a->expr))
		pos += sub->pos;
	ret = perr(err, p->spec, pos, -ret, "%s",
		   sub->msg ? sub->msg : strerror(-ret));
	ktrace_err_clear(sub);
	return ret;
}

/*
 * Size of a kernel function from kallsyms: the distance to the next text
 * symbol. 0 when unknown (no kallsyms, or addresses hidden from non-root).
 */
static unsigned long long kallsyms_func_size(const char *func)
{
	const char *path = getenv("KTRACE_KALLSYMS");
	unsigned long long addr = 0, next = 0, a;
	char line[512], name[256], type;
	FILE *f = fopen(path && *path ? path : "/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, func) && (type == 't' || type == 'T'))
			addr = a;
	}
	if (!addr) {
		fclose(f);
		return 0;
	}
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (a > addr && (!next || a < next))
			next = a;
	}
	fclose(f);
	return next ? next - addr : 0;
}

static int resolve_kernel(struct ktrace_probe *p, struct ktrace_tfs *tfs,
			  struct ktrace_err *err)
{
	struct ktrace_err sub = { .pos = -1 };
	struct kresolve *kr;
	int ret;

	if (p->file) {
		struct utsname u;
		char path[512];

		uname(&u);
		snprintf(path, sizeof(path), "/usr/lib/debug/boot/vmlinux-%s",
			 u.release);
		if (access(path, R_OK) == 0)
			return perr(err, p->spec, p->lstart, EOPNOTSUPP,
				    "kernel FILE:LINE probes are not supported yet (%s is there, but ktrace does not read it): use FUNC[+OFFS]",
				    path);
		return perr(err, p->spec, p->lstart, ENOENT,
			    "kernel FILE:LINE probes need the kernel's DWARF debug info (%s), and none is installed: install linux-image-%s-dbg or use FUNC[+OFFS]",
			    path, u.release);
	}
	kr = tfs_kresolve(tfs);
	if (!kr)
		return -ENOMEM;
	ret = kresolve_func(kr, p->func, &sub);
	/* Not ftrace-able is fine for a kprobe (int3 is used instead), but
	 * worth saying. */
	if (ret == -EOPNOTSUPP && sub.msg) {
		free(p->warning);
		p->warning = strdup(sub.msg);
	}
	if (ret && ret != -EOPNOTSUPP) {
		ret = perr(err, p->spec, p->lstart, -ret, "%s",
			   sub.msg ? sub.msg : strerror(-ret));
		ktrace_err_clear(&sub);
		return ret;
	}
	ktrace_err_clear(&sub);
	if (p->offs) {
		unsigned long long size = kallsyms_func_size(p->func);

		if (size && p->offs >= size)
			return perr(err, p->spec, p->lstart, ERANGE,
				    "offset +%lu is outside %s (%llu bytes)",
				    p->offs, p->func, size);
	}
	for (int i = 0; i < p->nargs; i++) {
		struct probe_arg *a = &p->args[i];

		if (a->raw)
			continue;
		ret = kresolve_arg(kr, p->func, a->expr, p->is_return,
				   &a->fetch, &a->rtype, &sub);
		if (ret)
			return arg_err(p, a, ret, &sub, err);
	}
	if (p->offs) {
		if (asprintf(&p->location, "%s+%lu", p->func, p->offs) < 0)
			return -ENOMEM;
	} else {
		p->location = strdup(p->func);
	}
	return p->location ? 0 : -ENOMEM;
}

static int resolve_user(struct ktrace_probe *p, struct ktrace_err *err)
{
	struct ktrace_err sub = { .pos = -1 };
	struct uresolve *ur;
	int ret = 0;

	ur = uresolve_open(p->binary, &sub);
	if (!ur) {
		ret = -errno;
		ret = perr(err, p->spec, p->lstart, ret ? -ret : ENOENT, "%s",
			   sub.msg ? sub.msg : "cannot open binary");
		ktrace_err_clear(&sub);
		return ret;
	}
	p->path = strdup(uresolve_path(ur));
	if (p->file)
		ret = uresolve_line(ur, p->file, p->line, &p->file_off, &sub);
	else
		ret = uresolve_symbol(ur, p->func, p->offs, &p->file_off,
				      &sub);
	if (ret) {
		ret = perr(err, p->spec, p->lstart, -ret, "%s",
			   sub.msg ? sub.msg : strerror(-ret));
		ktrace_err_clear(&sub);
		goto out;
	}
	for (int i = 0; i < p->nargs; i++) {
		struct probe_arg *a = &p->args[i];

		if (a->raw)
			continue;
		ret = uresolve_arg(ur, p->file_off, a->expr, p->is_return,
				   &a->fetch, &a->rtype, &sub);
		if (ret) {
			ret = arg_err(p, a, ret, &sub, err);
			goto out;
		}
	}
	if (!p->path || asprintf(&p->location, "%s:0x%016lx", p->path,
				 p->file_off) < 0)
		ret = -ENOMEM;
out:
	uresolve_free(ur);
	return ret;
}

/* The fetcharg, type and "NAME=FETCH[:TYPE]" text of every argument. */
static int build_definition(struct ktrace_probe *p)
{
	size_t cap = 256, len;
	char *fmt = malloc(cap), *def;
	int n = 0, hdr;

	if (!fmt)
		return -ENOMEM;
	fmt[0] = '\0';
	len = 0;
	hdr = snprintf(NULL, 0, "%c:%s/%s %s ", p->is_return ? 'r' : 'p',
		       p->group, p->event, p->location);
	for (int i = 0; i < p->nargs; i++) {
		struct probe_arg *a = &p->args[i];
		const char *fetch = a->raw ? a->expr : a->fetch;
		const char *type = a->type ? a->type : a->rtype;
		size_t need = strlen(a->name) + strlen(fetch) +
			      (type ? strlen(type) : 0) + 4;

		if (len + need >= cap) {
			char *nf;

			cap = (len + need) * 2;
			nf = realloc(fmt, cap);
			if (!nf) {
				free(fmt);
				return -ENOMEM;
			}
			fmt = nf;
		}
		a->dstart = hdr + len + (i ? 1 : 0);
		n = sprintf(fmt + len, "%s%s=%s%s%s", i ? " " : "", a->name,
			    fetch, type ? ":" : "", type ? type : "");
		len += n;
		a->dend = hdr + len;
	}
	if (asprintf(&def, "%c:%s/%s %s%s%s", p->is_return ? 'r' : 'p',
		     p->group, p->event, p->location, len ? " " : "",
		     fmt) < 0) {
		free(fmt);
		return -ENOMEM;
	}
	p->dloc = hdr - (int)strlen(p->location) - 1;
	free(p->fmt);
	free(p->def);
	p->fmt = fmt;
	p->def = def;
	return 0;
}

int ktrace_probe_resolve(struct ktrace_probe *p, struct ktrace_tfs *tfs,
			 struct ktrace_err *err)
{
	int ret;

	if (!p->user && !ktrace_tfs_has_kprobes(tfs))
		return perr(err, p->spec, p->lstart, EOPNOTSUPP,
			    "this kernel has no kprobe events (no kprobe_events in %s: CONFIG_KPROBE_EVENTS is off)",
			    tfs->dir);
	ret = p->user ? resolve_user(p, err) : resolve_kernel(p, tfs, err);
	if (ret)
		return ret;
	return build_definition(p);
}

const char *ktrace_probe_definition(const struct ktrace_probe *p)
{
	return p->def;
}

const char *ktrace_probe_warning(const struct ktrace_probe *p)
{
	return p->warning;
}

const char *ktrace_probe_group(const struct ktrace_probe *p)
{
	return p->group;
}

const char *ktrace_probe_event(const struct ktrace_probe *p)
{
	return p->event;
}

enum ktrace_kind ktrace_probe_kind(const struct ktrace_probe *p)
{
	if (p->user)
		return p->is_return ? KTRACE_KIND_URETPROBE :
				      KTRACE_KIND_UPROBE;
	return p->is_return ? KTRACE_KIND_KRETPROBE : KTRACE_KIND_KPROBE;
}

/* A column of the definition mapped back into the user's spec. */
static int map_pos(const struct ktrace_probe *p, int dpos)
{
	for (int i = 0; i < p->nargs; i++) {
		const struct probe_arg *a = &p->args[i];
		int ulen = a->uend - a->ustart, dlen = a->dend - a->dstart;

		if (dpos < a->dstart || dpos >= a->dend)
			continue;
		/* The user's text ends the definition's piece: 1:1. */
		if (ulen <= dlen && !strncmp(p->def + a->dend - ulen,
					     p->spec + a->ustart, ulen)) {
			int off = dpos - (a->dend - ulen);

			return a->ustart + (off > 0 ? off : 0);
		}
		return a->estart;
	}
	return p->lstart;
}

static char *defined_line(struct ktrace_tfs *tfs, const char *file,
			  const char *group, const char *event);

/* Write back a definition read from kprobe_events/uprobe_events. */
static int restore_replaced(const char *line)
{
	if (!line)
		return 0;
	return tracefs_instance_file_append(NULL, "dynamic_events", line) < 0 ?
	       -(errno ? errno : EIO) : 0;
}

int ktrace_probe_undo(struct ktrace_probe *p, struct ktrace_tfs *tfs)
{
	int ret;

	if (!p->created)
		return 0;
	ret = ktrace_probe_destroy(tfs, p->group, p->event);
	if (ret)
		return ret;
	p->created = false;
	ret = restore_replaced(p->replaced);
	free(p->replaced);
	p->replaced = NULL;
	return ret;
}

static bool event_exists(struct ktrace_tfs *tfs, const char *g, const char *e)
{
	char *path = kt_path("%s/events/%s/%s", tfs->dir, g, e);
	struct stat st;
	bool ret;

	ret = path && stat(path, &st) == 0;
	free(path);
	return ret;
}

int ktrace_probe_create(struct ktrace_probe *p, struct ktrace_tfs *tfs,
			bool force, struct ktrace_err *err)
{
	struct tracefs_dynevent *dev;
	char *klog, *cmd = NULL, *old = NULL;
	int ret, pos = -1;

	if (!p->def)
		return perr(err, p->spec, -1, EINVAL, "probe not resolved");
	if (event_exists(tfs, p->group, p->event)) {
		if (!force)
			return perr(err, NULL, -1, EEXIST,
				    "event %s:%s already exists (use --force to replace it)",
				    p->group, p->event);
		/* Kept to put back should the kernel refuse the new one. */
		old = defined_line(tfs, "uprobe_events", p->group, p->event);
		if (!old)
			old = defined_line(tfs, "kprobe_events", p->group,
					   p->event);
		ret = ktrace_probe_destroy(tfs, p->group, p->event);
		if (ret) {
			free(old);
			return perr(err, NULL, -1, -ret,
				    "cannot replace %s:%s: %s", p->group,
				    p->event, ret == -EBUSY ?
				    "it is in use (enabled or being recorded)" :
				    strerror(-ret));
		}
	}
	if (p->user && p->is_return)
		dev = tracefs_uretprobe_alloc(p->group, p->event, p->path,
					      p->file_off, p->fmt);
	else if (p->user)
		dev = tracefs_uprobe_alloc(p->group, p->event, p->path,
					   p->file_off, p->fmt);
	else if (p->is_return)
		dev = tracefs_kretprobe_alloc(p->group, p->event, p->location,
					      p->fmt, 0);
	else
		dev = tracefs_kprobe_alloc(p->group, p->event, p->location,
					   p->fmt);
	if (!dev) {
		restore_replaced(old);
		free(old);
		return -ENOMEM;
	}
	ktrace_errlog_clear(tfs, NULL);
	ret = tracefs_dynevent_create(dev) < 0 ? -(errno ? errno : EINVAL) : 0;
	tracefs_dynevent_free(dev);
	if (!ret) {
		/* Kept for ktrace_probe_undo(). */
		free(p->replaced);
		p->replaced = old;
		p->created = true;
		return 0;
	}
	klog = ktrace_errlog_read(tfs, NULL, &cmd, &pos);
	/* --force: the kernel refused the new definition; the old one,
	 * as the kernel printed it, goes back. */
	if (old && restore_replaced(old) < 0) {
		char *m;

		if (asprintf(&m, "%s (and the previous definition could not be put back: %s)",
			     klog ? klog : strerror(-ret), old) >= 0) {
			free(klog);
			klog = m;
		}
	}
	free(old);
	if (klog && cmd && pos >= 0 && !strcmp(cmd, p->def))
		pos = map_pos(p, pos);
	else
		pos = klog ? p->lstart : -1;
	perr(err, p->spec, pos, -ret, "kernel refused probe %s:%s: %s",
	     p->group, p->event, klog ? klog : strerror(-ret));
	if (err)
		err->klog = klog;
	else
		free(klog);
	free(cmd);
	return ret;
}

/* The definition of group/event in the tree's file (uprobe_events...),
 * malloc'ed, or NULL. */
static char *defined_line(struct ktrace_tfs *tfs, const char *file,
			  const char *group, const char *event)
{
	char *buf = kt_read_at(tfs->dir, file, NULL), *line, *save = NULL;
	size_t gl = strlen(group), el = strlen(event);
	char *found = NULL;

	if (!buf)
		return NULL;
	for (line = strtok_r(buf, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c = strchr(line, ':');

		if (c && !strncmp(c + 1, group, gl) && c[1 + gl] == '/' &&
		    !strncmp(c + 2 + gl, event, el) &&
		    (c[2 + gl + el] == ' ' || !c[2 + gl + el]))
			found = strdup(line);
	}
	free(buf);
	return found;
}

static bool defined_in(struct ktrace_tfs *tfs, const char *file,
		       const char *group, const char *event)
{
	char *l = defined_line(tfs, file, group, event);

	free(l);
	return l != NULL;
}

int ktrace_probe_destroy(struct ktrace_tfs *tfs, const char *group,
			 const char *event)
{
	struct tracefs_dynevent *dev;
	int ret = 0;

	if (probe_name_check(group) || probe_name_check(event))
		return -EINVAL;
	/*
	 * libtracefs 1.6.4's tracefs_dynevent_get() corrupts memory, so the
	 * kind is found here and a handle of that kind removes the event.
	 */
	if (defined_in(tfs, "uprobe_events", group, event))
		dev = tracefs_uprobe_alloc(group, event, "/", 0, NULL);
	else if (defined_in(tfs, "kprobe_events", group, event))
		dev = tracefs_kprobe_alloc(group, event, "0", NULL);
	else
		return -ENOENT;
	if (!dev)
		return -ENOMEM;
	errno = 0;
	if (tracefs_dynevent_destroy(dev, false) < 0)
		ret = -(errno ? errno : EBUSY);
	tracefs_dynevent_free(dev);
	return ret;
}

/* "ktrace_<pid>" -> pid, or 0 when name is not such a group. */
static int owner_pid(const char *group)
{
	const char *p = group + strlen("ktrace_");
	char *end;
	long pid;

	if (strncmp(group, "ktrace_", strlen("ktrace_")) || !isdigit(*p))
		return 0;
	pid = strtol(p, &end, 10);
	return *end || pid <= 0 || pid > 0x3fffffff ? 0 : (int)pid;
}

int ktrace_probe_cleanup_stale(struct ktrace_tfs *tfs)
{
	struct ktrace_events *evs = ktrace_events_alloc(tfs, NULL, 0, NULL);
	int removed = 0;

	if (!evs)
		return -errno;
	for (int i = 0; i < ktrace_events_count(evs); i++) {
		const struct ktrace_event *e = ktrace_events_get(evs, i);
		int pid = owner_pid(e->system);
		char proc[32];

		if (!pid || e->kind == KTRACE_KIND_TRACEPOINT)
			continue;
		snprintf(proc, sizeof(proc), "/proc/%d", pid);
		if (access(proc, F_OK) == 0)
			continue;	/* its owner still runs */
		kt_event_file_write_top(tfs, e->system, e->name, "enable", "0");
		if (!ktrace_probe_destroy(tfs, e->system, e->name))
			removed++;
	}
	ktrace_events_free(evs);
	return removed;
}
