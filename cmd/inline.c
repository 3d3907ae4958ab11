// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inline probes of record and stat (-e 'kprobe:SPEC', 'kretprobe:SPEC',
 * 'uprobe:BINARY:SYMBOL ARGS', 'uretprobe:...', 'eprobe:SYS:EVENT ARGS'
 * or just 'SYS:EVENT ARGS', 'fprobe:FUNC ARGS', 'fretprobe:FUNC ARGS',
 * 'tprobe:TRACEPOINT ARGS'): the command-line syntax
 * turned into probe specs of one probe set (lib/probe/set.c) in the set's
 * own group (ktrace_<pid>), taken back when the run ends. A ktrace killed
 * before it could leaves the group to the next one that creates probes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktrace_cmd.h"
#include "probe/spec.h"

/*
 * The inline kinds: the user's prefix, what the probe spec gets in its
 * place, and whether it is a return probe. The last one has no prefix:
 * a tracepoint followed by arguments ("syscalls:sys_enter_openat
 * filename:ustring") makes an event probe on it.
 */
static const struct {
	const char *prefix, *loc;
	bool ret;
} inline_kinds[] = {
	{ "kprobe:", "", false },
	{ "kretprobe:", "", true },
	{ "uprobe:", "", false },
	{ "uretprobe:", "", true },
	{ "eprobe:", "e:", false },
	{ "fprobe:", "f:", false },
	{ "fretprobe:", "f:", true },
	{ "tprobe:", "t:", false },
	{ "", "e:", false },
};
#define NR_INLINE_KINDS (int)(sizeof(inline_kinds) / sizeof(inline_kinds[0]))

/* SYSTEM:EVENT then a blank and an argument: no glob, no other ':'. */
static bool is_event_with_args(const char *spec)
{
	size_t n = strcspn(spec, " \t"), sys = strcspn(spec, ":");
	const char *rest = spec + n;

	if (!*rest || sys == 0 || sys >= n - 1)
		return false;
	for (size_t i = 0; i < n; i++)
		if (i != sys && !isalnum((unsigned char)spec[i]) &&
		    spec[i] != '_')
			return false;
	rest += strspn(rest, " \t");
	return *rest != '\0';
}

static int inline_kind(const char *spec)
{
	for (int i = 0; i < NR_INLINE_KINDS - 1; i++)
		if (!strncmp(spec, inline_kinds[i].prefix,
			     strlen(inline_kinds[i].prefix)))
			return i;
	return is_event_with_args(spec) ? NR_INLINE_KINDS - 1 : -1;
}

bool kt_inline_is(const char *spec)
{
	return inline_kind(spec) >= 0;
}

/*
 * "kretprobe:vfs_read $retval" -> "GROUP:NAME=vfs_read%return $retval",
 * "syscalls:sys_enter_openat filename" -> "GROUP:NAME=e:syscalls:..."
 * (no "GROUP:NAME=" when name is NULL); the probe spec grammar does the
 * rest. *loc_at and *args_at say where the user's location and arguments
 * start in the result, to map error positions back into what the user
 * typed.
 */
static char *inline_spec(const char *spec, int kind, const char *group,
			 const char *name, int *loc_at, int *args_at)
{
	const char *body = spec + strlen(inline_kinds[kind].prefix);
	const char *pre = inline_kinds[kind].loc;
	size_t loclen = kt_probe_location_len(body);
	bool add_return = inline_kinds[kind].ret && !strstr(body, "%return");
	char *out;
	int n = name ? snprintf(NULL, 0, "%s:%s=", group, name) : 0;

	n += strlen(pre);
	*loc_at = n;
	*args_at = n + loclen + (add_return ? 7 : 0);
	if (asprintf(&out, "%s%s%s%s%s%.*s%s%s", name ? group : "",
		     name ? ":" : "", name ? name : "", name ? "=" : "", pre,
		     (int)loclen, body, add_return ? "%return" : "",
		     body + loclen) < 0)
		return NULL;
	return out;
}

/*
 * The event name of an inline probe: the one probe add gives its spec
 * (the function or symbol, a C++ name whole: "ns_Class_method"; "__return"
 * for return probes), "_N" when an earlier probe of this run has that
 * name already. "p" for a spec that does not parse (adding it says
 * why). Into name[64].
 */
static void inline_name(const struct kt_inline *in, int i, const char *spec,
			int kind, char *name)
{
	struct ktrace_probe *p = NULL;
	char base[64], *s;
	int loc_at, args_at, n = 0;

	s = inline_spec(spec, kind, NULL, NULL, &loc_at, &args_at);
	if (s)
		p = ktrace_probe_parse(s, NULL, NULL);
	snprintf(base, sizeof(base), "%s", p ? ktrace_probe_event(p) : "p");
	ktrace_probe_free(p);
	free(s);
	for (;;) {
		bool taken = false;

		if (n)
			snprintf(name, 64, "%.50s_%d", base, n);
		else
			snprintf(name, 64, "%s", base);
		for (int j = 0; j < i && !taken; j++)
			taken = in->idx[j] >= 0 &&
				!strcmp(ktrace_probe_event(ktrace_probes_get(
					in->ps, in->idx[j])), name);
		if (!taken)
			return;
		n++;
	}
}

/* A position in the made-up spec, in the user's text (or -1). */
static int user_pos(const char *user, int kind, int loc_at, int args_at,
		    int pos)
{
	int k = strlen(inline_kinds[kind].prefix);
	int pre = strlen(inline_kinds[kind].loc);
	int loclen = kt_probe_location_len(user + k);

	if (pos < loc_at)
		return pos >= loc_at - pre ? k : -1;	/* "e:" we added */
	if (pos < loc_at + loclen)
		return k + pos - loc_at;
	if (pos < args_at)
		return k + loclen - 1;	/* in the added %return */
	return k + loclen + pos - args_at;
}

/* Put err's caret into what the user typed for spec i. */
static void map_err(const struct kt_inline *in, char *const *specs, int i,
		    struct ktrace_err *err)
{
	if (!err->input)
		return;
	free(err->input);
	err->input = strdup(specs[i]);
	if (err->pos >= 0)
		err->pos = user_pos(specs[i], inline_kind(specs[i]),
				    in->loc_at[i], in->args_at[i], err->pos);
}

int kt_inline_create(struct kt_ctx *ctx, struct kt_inline *in,
		     char *const *specs, int n)
{
	struct ktrace_err err = { .pos = -1 };
	int ret = KT_OK, failed;

	memset(in, 0, sizeof(*in));
	in->idx = calloc(n > 0 ? n : 1, sizeof(*in->idx));
	in->loc_at = calloc(n > 0 ? n : 1, sizeof(*in->loc_at));
	in->args_at = calloc(n > 0 ? n : 1, sizeof(*in->args_at));
	in->ps = ktrace_probes_alloc(ctx->tfs);
	if (!in->idx || !in->loc_at || !in->args_at || !in->ps)
		return kt_error(ctx, KT_FAIL, "out of memory");
	in->n = n;
	for (int i = 0; i < n; i++)
		in->idx[i] = -1;
	/* Resolve all before creating any: nothing is made for a typo. */
	for (int i = 0; i < n; i++) {
		int kind = inline_kind(specs[i]);
		char name[64], *spec;

		if (kind < 0)
			continue;
		inline_name(in, i, specs[i], kind, name);
		spec = inline_spec(specs[i], kind,
				   ktrace_probes_own_group(in->ps), name,
				   &in->loc_at[i], &in->args_at[i]);
		if (!spec)
			return kt_error(ctx, KT_FAIL, "out of memory");
		ret = ktrace_probes_add(in->ps, spec, NULL, &err);
		free(spec);
		if (ret < 0) {
			map_err(in, specs, i, &err);
			ret = kt_error_detail(ctx, err.syntax ? KT_USAGE :
					      KT_FAIL, &err);
			ktrace_err_clear(&err);
			return ret;
		}
		in->idx[i] = ret;
		in->nr_probes++;
	}
	if (!in->nr_probes)
		return KT_OK;
	/* all or nothing; groups of dead ktrace processes go first */
	if (ktrace_probes_create(in->ps, false, &failed, &err) < 0) {
		for (int i = 0; i < n; i++)
			if (failed >= 0 && in->idx[i] == failed)
				map_err(in, specs, i, &err);
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	return KT_OK;
}

const char *kt_inline_event(const struct kt_inline *in, int i, char *buf,
			    size_t len)
{
	const struct ktrace_probe *p;

	if (!in->idx || i >= in->n || in->idx[i] < 0)
		return NULL;
	p = ktrace_probes_get(in->ps, in->idx[i]);
	snprintf(buf, len, "%s:%s", ktrace_probe_group(p),
		 ktrace_probe_event(p));
	return buf;
}

/*
 * Hits and misses the kernel counted for the kprobes, on stderr.
 * kprobe_profile names events without their group, so it is read side by
 * side with kprobe_events, which lists the same probes in the same order.
 */
void kt_inline_report_misses(struct kt_ctx *ctx, const struct kt_inline *in)
{
	char *path, line[512], def[4096];
	const char *group;
	size_t glen;
	FILE *prof, *defs;

	if (!in->nr_probes)
		return;
	group = ktrace_probes_own_group(in->ps);
	glen = strlen(group);
	path = kt_inst_path(kt_tfs_top(ctx->tfs), "kprobe_profile");
	prof = path ? fopen(path, "r") : NULL;
	free(path);
	path = kt_inst_path(kt_tfs_top(ctx->tfs), "kprobe_events");
	defs = path ? fopen(path, "r") : NULL;
	free(path);
	while (prof && defs && fgets(line, sizeof(line), prof) &&
	       fgets(def, sizeof(def), defs)) {
		unsigned long long hits, miss;
		const char *name = strchr(def, ':');
		char ev[256];
		size_t elen;

		if (sscanf(line, "%255s %llu %llu", ev, &hits, &miss) != 3 ||
		    !name)
			continue;
		name++;		/* GROUP/EVENT ... */
		elen = strlen(ev);
		if (strncmp(name, group, glen) || name[glen] != '/' ||
		    strncmp(name + glen + 1, ev, elen) ||
		    name[glen + 1 + elen] != ' ')
			continue;
		fprintf(ctx->err, "ktrace %s: %s:%s: %llu hits, %llu missed by the kernel\n",
			ctx->cmd ? ctx->cmd : "", group, ev, hits, miss);
	}
	if (prof)
		fclose(prof);
	if (defs)
		fclose(defs);
}

void kt_inline_destroy(struct kt_ctx *ctx, struct kt_inline *in)
{
	(void)ctx;
	/* Reverse order; the perf fds using them are closed by now. */
	if (in->ps)
		ktrace_probes_undo(in->ps);
	ktrace_probes_free(in->ps);
	free(in->idx);
	free(in->loc_at);
	free(in->args_at);
	memset(in, 0, sizeof(*in));
}

/* A system call's char pointer argument ("const char * filename"), as
 * its format file types it: one '*', after "char". */
static bool is_char_pointer(const char *type)
{
	const char *c = strstr(type, "char"), *star = strchr(type, '*');

	return c && star && c < star && !strchr(star + 1, '*');
}

/*
 * The -e of a system call's entry with its string arguments, into buf:
 * "syscalls:sys_enter_openat dfd filename:ustring flags mode", or NULL
 * when e is another event or has no char pointer.
 */
static char *strings_spec(const struct ktrace_event *e)
{
	size_t cap = 64, len;
	bool any = false;
	char *s;

	if (strcmp(e->system, "syscalls") ||
	    strncmp(e->name, "sys_enter_", strlen("sys_enter_")))
		return NULL;
	for (int i = 0; i < e->nr_fields; i++)
		cap += strlen(e->fields[i].name) + 10;
	s = malloc(cap + strlen(e->name) + 16);
	if (!s)
		return NULL;
	len = sprintf(s, "%s:%s", e->system, e->name);
	for (int i = 0; i < e->nr_fields; i++) {
		const struct ktrace_field *f = &e->fields[i];
		bool str = is_char_pointer(f->type);

		if (f->is_common || !strcmp(f->name, "__syscall_nr"))
			continue;
		len += sprintf(s + len, " %s%s", f->name, str ? ":ustring" : "");
		any |= str;
	}
	if (!any) {
		free(s);
		return NULL;
	}
	return s;
}

/* Append spec (taken over) with filter to the new lists; 0 or -ENOMEM. */
static int push_spec(char ***specs, const char ***filters, int *n, char *spec,
		     const char *filter)
{
	char **ns = realloc(*specs, (*n + 1) * sizeof(*ns));
	const char **nf;

	if (ns)
		*specs = ns;
	nf = ns ? realloc(*filters, (*n + 1) * sizeof(*nf)) : NULL;
	if (!nf) {
		free(spec);
		return -ENOMEM;
	}
	*filters = nf;
	ns[*n] = spec;
	nf[(*n)++] = filter;
	return 0;
}

/* The events glob names, each as its own -e: a system call's entry with
 * char pointers as its event probe (strings_spec()), the others by name. */
static int strings_glob(struct kt_ctx *ctx, const char *glob,
			const char *filter, char ***specs,
			const char ***filters, int *n)
{
	struct ktrace_events *evs;
	unsigned int hit = 0;
	int ret = 0;

	evs = ktrace_events_alloc(ctx->tfs, &glob, 1, &hit);
	if (!evs || ktrace_events_load_formats(evs) < 0) {
		ktrace_events_free(evs);
		return -ENOMEM;
	}
	/* none: kept, for kt_events_expand() to say so */
	if (!hit)
		ret = push_spec(specs, filters, n, strdup(glob), filter);
	for (int j = 0; !ret && j < ktrace_events_count(evs); j++) {
		const struct ktrace_event *e = ktrace_events_get(evs, j);
		char *s = strings_spec(e);

		if (!s && asprintf(&s, "%s:%s", e->system, e->name) < 0)
			s = NULL;
		ret = s ? push_spec(specs, filters, n, s, filter) : -ENOMEM;
	}
	ktrace_events_free(evs);
	return ret;
}

int kt_inline_strings(struct kt_ctx *ctx, struct kt_capture_opts *co)
{
	const char **filters = NULL;
	char **specs = NULL;
	int n = 0, ret = 0;

	for (int i = 0; !ret && i < co->nspecs; i++) {
		const char *s = co->specs[i];

		if (kt_inline_is(s) || !strchr(s, ':')) {
			ret = push_spec(&specs, &filters, &n, strdup(s),
					co->filters[i]);
			continue;
		}
		ret = strings_glob(ctx, s, co->filters[i], &specs, &filters,
				   &n);
	}
	if (!ret)
		for (int i = 0; i < n && !ret; i++)
			if (!specs[i])
				ret = -ENOMEM;
	if (ret) {
		for (int i = 0; i < n; i++)
			free(specs[i]);
		free(specs);
		free(filters);
		return kt_error(ctx, KT_FAIL, "out of memory");
	}
	kt_capture_opts_free(co);
	co->specs = specs;
	co->filters = filters;
	co->nspecs = n;
	return KT_OK;
}
