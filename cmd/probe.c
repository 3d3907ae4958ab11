// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktrace probe add|del|list: kprobes, kretprobes, uprobes, uretprobes,
 * event probes (e:), fprobes (f:) and tracepoint probes (t:).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ktrace_cmd.h"

static const char probe_usage[] =
	"Usage: ktrace probe add [-x BINARY] [-g GROUP] [--dry-run] [--force] 'SPEC'...\n"
	"       ktrace probe add [-x BINARY] [-g GROUP] -f FILE\n"
	"       ktrace probe list [--json] [GLOB...]\n"
	"       ktrace probe del GLOB...\n"
	"       ktrace probe sets          the installed probe sets (for -f)\n"
	"\n"
	"SPEC     := [[GROUP:]EVENT=]LOCATION [ARG...]\n"
	"LOCATION := FUNC[+OFFS] | FUNC%return | FILE:LINE   (kernel, or user space with -x)\n"
	"            BINARY:SYMBOL[+OFFS][%return]           (uprobe without -x)\n"
	"            MOD:FUNC[+OFFS][%return]                (kprobe on a loaded module's function)\n"
	"            e:SYSTEM/EVENT                          (event probe: on a tracepoint's fields)\n"
	"            f:FUNC[%return]                         (fprobe; Linux 6.7+)\n"
	"            t:TRACEPOINT                            (tracepoint probe; Linux 6.7+)\n"
	"ARG      := [NAME=]FETCHARG[:TYPE]    raw fetcharg: %si, $stack1, $retval, +8(%di), @sym, $comm\n"
	"          | [NAME=]VAR[->FIELD|.FIELD]...[:TYPE]   by name: BTF (kernel), DWARF (-x), event fields (e:)\n"
	"\n"
	"Examples:\n"
	"  ktrace probe add 'do_sys_openat2 dfd filename how->flags'\n"
	"  ktrace probe add 'e:syscalls/sys_enter_openat filename:ustring flags'\n"
	"  ktrace probe add 'vfs_read%return $retval'\n"
	"  ktrace probe add 'binfmt_misc:load_misc_binary bprm->filename'\n"
	"  ktrace probe add -x ./prog 'parse_line line:string len'\n"
	"  ktrace probe add 'libc:malloc size=%di:u64'\n"
	"\n"
	"  -x, --exec BINARY  user-space target (path, program in $PATH, or library like libc)\n"
	"  -g, --group GROUP  default group (default: ktrace)\n"
	"  -n, --dry-run      print the line that would be written to tracefs, write nothing\n"
	"      --force        replace an existing event of the same name\n"
	"  -f, --file FILE    add the probes of a probe set: a file, or the name of\n"
	"                     an installed set (file-opens, exec, tcp, dns...)\n"
	"  -j, --json         JSON output\n"
	"  -h, --help         this help\n";

static const struct option add_opts[] = {
	{ "exec", required_argument, NULL, 'x' },
	{ "group", required_argument, NULL, 'g' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "force", no_argument, NULL, 'F' },
	{ "file", required_argument, NULL, 'f' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option list_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static bool is_probe_kind(enum ktrace_kind k)
{
	return k == KTRACE_KIND_KPROBE || k == KTRACE_KIND_KRETPROBE ||
	       k == KTRACE_KIND_UPROBE || k == KTRACE_KIND_URETPROBE ||
	       k == KTRACE_KIND_EPROBE || k == KTRACE_KIND_FPROBE;
}

/* The kind as probe list names it: fprobes' definitions tell an entry
 * ("f:... FUNC"), a return ("FUNC%return") and a tracepoint probe ("t:"). */
static const char *kind_label(const struct ktrace_event *e)
{
	const char *def = e->definition;

	if (e->kind != KTRACE_KIND_FPROBE || !def)
		return ktrace_kind_name(e->kind);
	if (def[0] == 't')
		return "tprobe";
	return strstr(def, "%return") ? "fretprobe" : "fprobe";
}

/* Spec lines of a probe set file: '#' comments, one SPEC per line. A line
 * "-x BINARY" sets the binary for the lines after it. */
struct spec_line {
	char *spec;
	char *binary;
	int lineno;
};

/* Largest probe set read: sets are hand-written text, a few KiB. */
#define PROBE_SET_MAX (1 << 20)

/* A probe set to read: a regular file of at most PROBE_SET_MAX bytes
 * (a FIFO or a device would hang or never end). NULL + errno (ESPIPE: not
 * a regular file, EFBIG: too large). */
static FILE *open_probe_set(const char *path)
{
	struct stat st = { 0 };
	FILE *f;
	int fd;

	fd = kt_open_regular(path);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size > PROBE_SET_MAX) {
		int e = st.st_size > PROBE_SET_MAX ? EFBIG : errno;

		close(fd);
		errno = e;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

static int read_probe_file(struct kt_ctx *ctx, const char *path,
			   const char *binary, struct spec_line **out, int *n)
{
	char *line = NULL, *cur_bin = binary ? strdup(binary) : NULL;
	size_t cap = 0;
	int lineno = 0;
	bool oom = false;
	FILE *f;

	*out = NULL;
	*n = 0;
	f = open_probe_set(path);
	/* A bare set name ("file-opens") is looked up among the installed
	 * sets (found at run time, next to the binary). */
	if (!f && errno == ENOENT && !strchr(path, '/')) {
		char alt[4096];
		const char *dir = kt_probes_dir();

		if (dir) {
			snprintf(alt, sizeof(alt), "%s/%s.probe", dir, path);
			f = open_probe_set(alt);
		}
		if (!f)
			errno = ENOENT;
	}
	if (!f) {
		int e = errno;

		free(cur_bin);
		if (e == ESPIPE)
			return kt_error(ctx, KT_FAIL,
					"probe set '%s' is not a regular file",
					path);
		if (e == EFBIG)
			return kt_error(ctx, KT_FAIL,
					"probe set '%s' is larger than %d KiB",
					path, PROBE_SET_MAX >> 10);
		return kt_error(ctx, KT_FAIL, "cannot open probe set '%s': %s",
				path, strerror(e));
	}
	while (getline(&line, &cap, f) > 0) {
		char *s = line, *e;
		struct spec_line *nv;

		lineno++;
		s[strcspn(s, "\n#")] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (!*s)
			continue;
		if (!strncmp(s, "-x ", 3)) {
			free(cur_bin);
			cur_bin = strdup(s + 3);
			continue;
		}
		nv = realloc(*out, (*n + 1) * sizeof(**out));
		if (!nv) {
			oom = true;
			break;
		}
		*out = nv;
		nv[*n].spec = strdup(s);
		nv[*n].binary = cur_bin ? strdup(cur_bin) : NULL;
		nv[*n].lineno = lineno;
		(*n)++;
		if (!nv[*n - 1].spec || (cur_bin && !nv[*n - 1].binary)) {
			oom = true;
			break;
		}
	}
	free(cur_bin);
	free(line);
	fclose(f);
	if (oom)
		return kt_error(ctx, KT_FAIL, "out of memory");
	if (!*n)
		return kt_error(ctx, KT_FAIL, "probe set '%s' defines no probe",
				path);
	return KT_OK;
}

static void print_added(struct kt_ctx *ctx, struct ktrace_probe *p,
			bool dry)
{
	const char *g = ktrace_probe_group(p), *e = ktrace_probe_event(p);

	if (ctx->json) {
		struct kt_json *j = ctx->jw;

		kt_json_object_begin(j);
		kt_jstr(j, "group", g);
		kt_jstr(j, "event", e);
		kt_jstr(j, "kind", ktrace_kind_name(ktrace_probe_kind(p)));
		kt_jstr(j, "definition", ktrace_probe_definition(p));
		kt_jbool(j, "created", !dry);
		kt_json_object_end(j);
		return;
	}
	if (dry) {
		fprintf(ctx->out, "%s\n", ktrace_probe_definition(p));
		return;
	}
	fprintf(ctx->out, "Added new event:\n  %s:%s  (%s)\n", g, e,
		ktrace_probe_definition(p));
}

/* A run of probe add: its options, the specs, the probes made of them. */
struct add_cmd {
	struct ktrace_probe_opts opts;	/* -x, -g */
	const char *file;		/* -f */
	bool dry, force;		/* -n, --force */
	struct spec_line *specs;	/* from -f FILE or args */
	int n;
	struct ktrace_probes *ps;
};

/* The options into a; argc and argv are left on the SPECs. -1 to go on,
 * else the exit status (--help, a usage error). */
static int add_parse(struct kt_ctx *ctx, struct add_cmd *a, int *argc,
		     char ***argv)
{
	int opt;

	while ((opt = getopt_long(*argc, *argv, "+:x:g:nf:jh", add_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'x':
			a->opts.binary = optarg;
			break;
		case 'g':
			a->opts.group = optarg;
			break;
		case 'n':
			a->dry = true;
			break;
		case 'F':
			a->force = true;
			break;
		case 'f':
			a->file = optarg;
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			fputs(probe_usage, ctx->out);
			return KT_OK;
		default:
			return kt_bad_option(ctx, probe_usage, opt,
					     (*argv)[optind - 1]);
		}
	}
	*argc -= optind;
	*argv += optind;
	if (!a->file && *argc < 1)
		return kt_usage_error(ctx, probe_usage, "missing probe spec");
	if (a->file && *argc)
		return kt_usage_error(ctx, probe_usage,
				      "give either -f FILE or SPECs, not both");
	if (a->opts.group && kt_name_check(a->opts.group))
		return kt_usage_error(ctx, NULL, "bad group name '%s'",
				      a->opts.group);
	return -1;
}

/* The spec lines: the probe set of -f, or the SPECs, each with -x. */
static int add_specs(struct kt_ctx *ctx, struct add_cmd *a, int argc,
		     char **argv)
{
	const char *bin = a->opts.binary;

	if (a->file)
		return read_probe_file(ctx, a->file, bin, &a->specs, &a->n);
	a->specs = calloc((unsigned int)argc, sizeof(*a->specs));
	if (!a->specs)
		return kt_error(ctx, KT_FAIL, "out of memory");
	for (; a->n < argc; a->n++) {
		struct spec_line *sl = &a->specs[a->n];

		sl->spec = strdup(argv[a->n]);
		sl->binary = bin ? strdup(bin) : NULL;
		if (!sl->spec || (bin && !sl->binary))
			return kt_error(ctx, KT_FAIL, "out of memory");
	}
	return KT_OK;
}

/* Parse and resolve every spec before anything is written, so nothing
 * is when any spec is wrong; a set's errors name its file and line. */
static int add_resolve(struct kt_ctx *ctx, struct add_cmd *a)
{
	int ret;

	a->ps = ktrace_probes_alloc(ctx->tfs);
	if (!a->ps)
		return kt_error(ctx, KT_FAIL, "out of memory");
	for (int i = 0; i < a->n; i++) {
		struct ktrace_err err = { .pos = -1 };
		struct ktrace_probe_opts o = a->opts;
		char *m;

		o.binary = a->specs[i].binary;
		if (ktrace_probes_add(a->ps, a->specs[i].spec, &o, &err) >= 0)
			continue;
		if (a->file && err.msg &&
		    asprintf(&m, "%s:%d: %s", a->file, a->specs[i].lineno,
			     err.msg) >= 0) {
			free(err.msg);
			err.msg = m;
		}
		ret = kt_error_detail(ctx, err.syntax ? KT_USAGE : KT_FAIL,
				      &err);
		ktrace_err_clear(&err);
		return ret;
	}
	return KT_OK;
}

/* Notes once everything is made (an error stays one line): a dry run's
 * kernel probes this kernel could not take, the probes' own warnings. */
static void add_notes(struct kt_ctx *ctx, struct add_cmd *a)
{
	int n = ktrace_probes_count(a->ps);

	for (int i = 0; a->dry && i < n; i++) {
		enum ktrace_kind k = ktrace_probe_kind(ktrace_probes_get(a->ps,
									 i));

		if ((k == KTRACE_KIND_KPROBE || k == KTRACE_KIND_KRETPROBE) &&
		    !ktrace_tfs_has_kprobes(ctx->tfs)) {
			fprintf(ctx->err, "ktrace probe: note: this kernel cannot take kprobes (no kprobe_events in %s: CONFIG_KPROBE_EVENTS is off)\n",
				ktrace_tfs_dir(ctx->tfs));
			break;
		}
	}
	for (int i = 0; i < n; i++)
		if (ktrace_probe_warning(ktrace_probes_get(a->ps, i)))
			fprintf(ctx->err, "ktrace probe: note: %s\n",
				ktrace_probe_warning(ktrace_probes_get(a->ps,
								       i)));
}

/* What was added (a dry run: the definitions), then how to use it. */
static void add_print(struct kt_ctx *ctx, struct add_cmd *a)
{
	const struct ktrace_probe *p0 = ktrace_probes_get(a->ps, 0);

	if (ctx->json)
		kt_json_array_begin(ctx->jw);
	for (int i = 0; i < ktrace_probes_count(a->ps); i++)
		print_added(ctx, ktrace_probes_get(a->ps, i), a->dry);
	if (ctx->json) {
		kt_json_array_end(ctx->jw);
	} else if (!a->dry) {
		fprintf(ctx->out, "\nYou can now use it in all ktrace tools, e.g.:\n\n\tktrace record -e %s:%s -- COMMAND\n\tktrace enable %s:%s\n\tktrace probe del %s:%s\n",
			ktrace_probe_group(p0), ktrace_probe_event(p0),
			ktrace_probe_group(p0), ktrace_probe_event(p0),
			ktrace_probe_group(p0), ktrace_probe_event(p0));
	}
}

static int probe_add(struct kt_ctx *ctx, int argc, char **argv)
{
	struct ktrace_err err = { .pos = -1 };
	struct add_cmd a = { 0 };
	int ret;

	ret = add_parse(ctx, &a, &argc, &argv);
	if (ret >= 0)
		return ret;
	ret = add_specs(ctx, &a, argc, argv);
	if (ret)
		goto out;
	if (!kt_tfs(ctx)) {
		ret = KT_FAIL;
		goto out;
	}
	ret = add_resolve(ctx, &a);
	if (ret)
		goto out;
	/* all or nothing; the sweep of dead owners comes first */
	if (!a.dry && ktrace_probes_create(a.ps, a.force, NULL, &err) < 0) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		goto out;
	}
	add_notes(ctx, &a);
	if (ctx->json && !kt_json(ctx)) {
		ret = kt_error(ctx, KT_FAIL, "out of memory");
		goto undo;
	}
	add_print(ctx, &a);
	goto out;
undo:
	/* All or nothing: remove what this command created. */
	if (ktrace_probes_undo(a.ps) < 0)
		fprintf(ctx->err, "ktrace probe: could not take back every probe\n");
out:
	ktrace_err_clear(&err);
	for (int i = 0; i < a.n; i++) {
		free(a.specs[i].spec);
		free(a.specs[i].binary);
	}
	free(a.specs);
	ktrace_probes_free(a.ps);
	return ret;
}

/* Location and arguments out of a definition line "p:g/e LOC ARGS". */
static void split_def(const char *def, char **loc, const char **args)
{
	const char *s = strchr(def, ' ');

	*loc = NULL;
	*args = "";
	if (!s)
		return;
	s++;
	*loc = strndup(s, strcspn(s, " "));
	s += strcspn(s, " ");
	while (*s == ' ')
		s++;
	*args = s;
}

/*
 * The options of probe list and probe del; argc and argv are left on the
 * patterns. Returns -1 to go on, or the exit status (--help, bad option).
 */
static int parse_list_opts(struct kt_ctx *ctx, int *argc, char ***argv)
{
	int opt;

	while ((opt = getopt_long(*argc, *argv, "+:jh", list_opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			fputs(probe_usage, ctx->out);
			return KT_OK;
		default:
			return kt_bad_option(ctx, probe_usage, opt,
					     (*argv)[optind - 1]);
		}
	}
	*argc -= optind;
	*argv += optind;
	return -1;
}

static int probe_list(struct kt_ctx *ctx, int argc, char **argv)
{
	struct ktrace_events *evs;
	unsigned int *hits = NULL;
	int opt, n, shown = 0, ret = KT_OK;

	opt = parse_list_opts(ctx, &argc, &argv);
	if (opt >= 0)
		return opt;
	if (kt_globs_check(ctx, argc, argv))
		return KT_USAGE;
	if (!kt_tfs(ctx))
		return KT_FAIL;
	hits = argc ? calloc(argc, sizeof(*hits)) : NULL;
	evs = ktrace_events_alloc(ctx->tfs, (const char *const *)argv, argc,
				  NULL);
	if (!evs) {
		free(hits);
		return kt_error(ctx, KT_FAIL, "cannot list events: %s%s",
				strerror(errno), kt_priv_hint(errno));
	}
	n = ktrace_events_count(evs);
	if (ctx->json) {
		if (!kt_json(ctx)) {
			ktrace_events_free(evs);
			free(hits);
			return kt_error(ctx, KT_FAIL, "out of memory");
		}
		kt_json_array_begin(ctx->jw);
	}
	for (int i = 0; i < n; i++) {
		const struct ktrace_event *e = ktrace_events_get(evs, i);
		const char *args;
		char *loc;

		if (!is_probe_kind(e->kind) || !e->definition)
			continue;
		for (int g = 0; g < argc; g++)
			if (kt_glob_match(argv[g], e->system, e->name))
				hits[g]++;
		split_def(e->definition, &loc, &args);
		if (ctx->json) {
			struct kt_json *j = ctx->jw;

			kt_json_object_begin(j);
			kt_jstr(j, "kind", kind_label(e));
			kt_jstr(j, "group", e->system);
			kt_jstr(j, "event", e->name);
			kt_jstr(j, "location", loc);
			kt_jstr(j, "args", args);
			kt_jbool(j, "ktrace", ktrace_probe_group_is_ktrace(
				 ctx->tfs, e->system));
			kt_jstr(j, "definition", e->definition);
			kt_json_object_end(j);
		} else {
			fprintf(ctx->out, "%-10s %s:%s  %s%s%s%s\n",
				kind_label(e), e->system, e->name,
				loc ? loc : "", *args ? "  " : "", args,
				ktrace_probe_group_is_ktrace(ctx->tfs,
							     e->system) ?
				"" : "  (not ktrace's)");
		}
		free(loc);
		shown++;
	}
	for (int g = 0; g < argc; g++) {
		if (!hits[g]) {
			/* under --json: the last element of the array */
			ret = kt_error(ctx, KT_FAIL, "no probe matches '%s'",
				       argv[g]);
			break;
		}
	}
	if (ctx->json && ret == KT_OK)
		kt_json_array_end(ctx->jw);
	ktrace_events_free(evs);
	free(hits);
	return ret;
}

/* Does glob name a group without glob characters before its ':'? */
static bool group_literal(const char *glob)
{
	size_t glen = strcspn(glob, ":");

	return glob[glen] && !memchr(glob, '*', glen) &&
	       !memchr(glob, '?', glen) && !memchr(glob, '[', glen);
}

/*
 * Does glob name e's group, rather than match groups by a pattern? Only
 * then may it reach another tool's probes ("other:x", "other:*", "other");
 * "*", "*:x", "kt*" or a bare event name ("x") match ktrace's own groups
 * only.
 */
static bool names_group(const char *glob, const char *group)
{
	if (!strchr(glob, ':'))	/* the group itself, exactly */
		return !strcmp(glob, group);
	return group_literal(glob);
}

/* May glob remove probe e? */
static bool del_matches(struct kt_ctx *ctx, const char *glob,
			const struct ktrace_event *e)
{
	return kt_glob_match(glob, e->system, e->name) &&
	       (names_group(glob, e->system) ||
		ktrace_probe_group_is_ktrace(ctx->tfs, e->system));
}

/* Every pattern must match a probe before anything is deleted (hits: a
 * count per pattern). KT_OK, or the error for the first that does not. */
static int del_check(struct kt_ctx *ctx, struct ktrace_events *evs,
		     unsigned int *hits, int argc, char **argv)
{
	for (int i = 0; i < ktrace_events_count(evs); i++) {
		const struct ktrace_event *e = ktrace_events_get(evs, i);

		if (!is_probe_kind(e->kind))
			continue;
		for (int g = 0; g < argc; g++)
			if (del_matches(ctx, argv[g], e))
				hits[g]++;
	}
	for (int g = 0; g < argc; g++) {
		if (!hits[g])
			return kt_error(ctx, KT_FAIL, group_literal(argv[g]) ?
					"no probe matches '%s'" :
					"no probe of ktrace matches '%s' (another tool's probes go only when their group is named: 'GROUP:EVENT')",
					argv[g]);
	}
	return KT_OK;
}

/* A probe that could not be deleted: its index in the events, and why. */
struct del_failure {
	int ev;
	const char *why;
};

/* Delete every probe a pattern may remove, saying so (under --json, as
 * the open array's strings); the failures into failed[*nfailed].
 * KT_OK, or KT_FAIL when one failed. */
static int del_matched(struct kt_ctx *ctx, struct ktrace_events *evs,
		       int argc, char **argv, struct del_failure *failed,
		       int *nfailed)
{
	int ret = KT_OK;

	for (int i = 0; i < ktrace_events_count(evs); i++) {
		const struct ktrace_event *e = ktrace_events_get(evs, i);
		bool mine = false;
		char name[256];
		int r;

		if (!is_probe_kind(e->kind))
			continue;
		for (int g = 0; g < argc && !mine; g++)
			mine = del_matches(ctx, argv[g], e);
		if (!mine)
			continue;	/* another tool's, not named */
		r = ktrace_probe_destroy(ctx->tfs, e->system, e->name);
		if (r) {
			const char *why = r == -EBUSY ?
				"it is in use (enabled or being recorded)" :
				strerror(-r);

			/* Under --json the failures follow the array. */
			fprintf(ctx->err, "ktrace probe: cannot delete %s:%s: %s\n",
				e->system, e->name, why);
			failed[*nfailed].ev = i;
			failed[*nfailed].why = why;
			(*nfailed)++;
			ret = KT_FAIL;
		} else if (ctx->json) {
			snprintf(name, sizeof(name), "%s:%s", e->system,
				 e->name);
			kt_json_string(ctx->jw, name);
		} else {
			fprintf(ctx->out, "Removed event: %s:%s\n", e->system,
				e->name);
		}
	}
	return ret;
}

/* --json: the "deleted" array ends; the "failed" one follows. */
static void del_json_failed(struct kt_ctx *ctx, struct ktrace_events *evs,
			    const struct del_failure *failed, int nfailed)
{
	struct kt_json *j = ctx->jw;

	kt_json_array_end(j);
	kt_json_key(j, "failed");
	kt_json_array_begin(j);
	for (int f = 0; f < nfailed; f++) {
		const struct ktrace_event *e = ktrace_events_get(evs,
								 failed[f].ev);
		char name[256];

		snprintf(name, sizeof(name), "%s:%s", e->system, e->name);
		kt_json_object_begin(j);
		kt_jstr(j, "event", name);
		kt_jstr(j, "error", failed[f].why);
		kt_json_object_end(j);
	}
	kt_json_array_end(j);
	kt_json_object_end(j);
}

static int probe_del(struct kt_ctx *ctx, int argc, char **argv)
{
	struct ktrace_events *evs;
	struct del_failure *failed = NULL;
	unsigned int *hits;
	int opt, n, nfailed = 0, ret;

	opt = parse_list_opts(ctx, &argc, &argv);
	if (opt >= 0)
		return opt;
	if (argc < 1)
		return kt_usage_error(ctx, probe_usage,
				      "missing probe pattern (GROUP:EVENT glob)");
	if (kt_globs_check(ctx, argc, argv))
		return KT_USAGE;
	if (!kt_tfs(ctx))
		return KT_FAIL;
	hits = calloc(argc, sizeof(*hits));
	evs = ktrace_events_alloc(ctx->tfs, (const char *const *)argv, argc,
				  NULL);
	if (!evs || !hits) {
		free(hits);
		ktrace_events_free(evs);
		return kt_error(ctx, KT_FAIL, "cannot list events: %s%s",
				strerror(errno), kt_priv_hint(errno));
	}
	ret = del_check(ctx, evs, hits, argc, argv);
	if (ret)
		goto out;
	n = ktrace_events_count(evs);
	failed = calloc(n > 0 ? n : 1, sizeof(*failed));
	if (!failed || (ctx->json && !kt_json(ctx))) {
		ret = kt_error(ctx, KT_FAIL, "out of memory");
		goto out;
	}
	if (ctx->json) {
		kt_json_object_begin(ctx->jw);
		kt_json_key(ctx->jw, "deleted");
		kt_json_array_begin(ctx->jw);
	}
	ret = del_matched(ctx, evs, argc, argv, failed, &nfailed);
	if (ctx->json)
		del_json_failed(ctx, evs, failed, nfailed);
out:
	free(failed);
	ktrace_events_free(evs);
	free(hits);
	return ret;
}

/* The installed probe sets, one name a line (or a JSON array). */
static int probe_sets(struct kt_ctx *ctx, int argc, char **argv)
{
	const char *dir = kt_probes_dir();
	struct kt_json *j = NULL;
	struct dirent **names = NULL;
	int n;

	if (argc > 1)
		return kt_usage_error(ctx, NULL, "probe sets takes no arguments");
	(void)argv;
	if (!dir)
		return kt_error(ctx, KT_FAIL,
				"no probe sets: none next to the ktrace binary (set KTRACE_PROBES_DIR)");
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return kt_error(ctx, KT_FAIL, "cannot read '%s': %m", dir);
	if (ctx->json) {
		j = kt_json(ctx);
		if (j)
			kt_json_array_begin(j);
	}
	for (int i = 0; i < n; i++) {
		char *dot = strrchr(names[i]->d_name, '.');

		if (dot && !strcmp(dot, ".probe") && dot != names[i]->d_name) {
			*dot = '\0';
			if (j)
				kt_json_string(j, names[i]->d_name);
			else if (!ctx->json)
				fprintf(ctx->out, "%s\n", names[i]->d_name);
		}
		free(names[i]);
	}
	free(names);
	if (j)
		kt_json_array_end(j);
	return KT_OK;
}

static int probe_help(struct kt_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs(probe_usage, ctx->out);
	return KT_OK;
}

static const struct cmd probe_cmds[] = {
	{ "add", probe_add, "create probes (kprobes, uprobes, eprobes...)" },
	{ "list", probe_list, "list probes" },
	{ "del", probe_del, "remove probes" },
	{ "sets", probe_sets, "list the installed probe sets" },
	{ "help", probe_help, "this help" },
	{ "--help", probe_help, "this help" },
	{ "-h", probe_help, "this help" },
	{ NULL, NULL, NULL },
};

int cmd_probe(struct kt_ctx *ctx, int argc, char **argv)
{
	return kt_dispatch(ctx, probe_cmds, "probe", argc - 1, argv + 1);
}
