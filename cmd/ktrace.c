// SPDX-License-Identifier: GPL-2.0-only
/* ktrace: top-level options, the command table and the error funnel. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "ktrace_cmd.h"
#include "ktrace_version.h"	/* generated: build/gen */

static int cmd_help(struct kt_ctx *ctx, int argc, char **argv);
static int cmd_version(struct kt_ctx *ctx, int argc, char **argv);
static bool show_man_page(struct kt_ctx *ctx, const char *cmd);

static const struct cmd commands[] = {
	{ "list", cmd_list, "list tracepoints and dynamic events" },
	{ "enable", cmd_enable, "enable events in an ftrace instance" },
	{ "disable", cmd_disable, "disable events in an ftrace instance" },
	{ "filter", cmd_filter, "set or clear an event's filter" },
	{ "show", cmd_show, "show enabled events, filters and buffers" },
	{ "reset", cmd_reset, "disable events and clear filters of an instance" },
	{ "probe", cmd_probe, "add, list and delete kprobes and uprobes" },
	{ "record", cmd_record, "record events through perf ring buffers" },
	{ "trace", cmd_trace, "system calls as strace shows them: strings, errors, durations" },
	{ "report", cmd_report, "print a recording made with record -o" },
	{ "annotate", cmd_annotate, "a function of a recording: its lines and instructions, hottest marked" },
	{ "stat", cmd_stat, "count events (like perf stat)" },
	{ "top", cmd_top, "live view: hottest symbols, events a second (like perf top)" },
	{ "hist", cmd_hist, "count in the kernel with a hist trigger: keys, sums, log2 histograms" },
	{ "latency", cmd_latency, "time between two events, paired in the kernel: wakeup, syscall, function latency" },
	{ "export", cmd_export, "serve event counts and hist recipes to Prometheus (GET /metrics)" },
	{ "ftrace", cmd_ftrace, "the function and function_graph tracers: calls, call graphs with durations, counts" },
	{ "help", cmd_help, "show help for a command" },
	{ "version", cmd_version, "print the version" },
	{ NULL, NULL, NULL },
};

/* The commands that end their run on INT, TERM and HUP themselves
 * (kt_signals_install()): the signals stay held until they are ready. */
static bool cmd_stops(const struct cmd *c)
{
	return c->fn == cmd_record || c->fn == cmd_stat || c->fn == cmd_top ||
	       c->fn == cmd_hist || c->fn == cmd_latency ||
	       c->fn == cmd_export || c->fn == cmd_ftrace;
}

static const char main_usage[] =
	"Usage: ktrace [--json] [--tracefs DIR] COMMAND [ARGS...]\n"
	"       ktrace help COMMAND | ktrace COMMAND --help | ktrace --version\n"
	"\n"
	"Options:\n"
	"  -j, --json          machine-readable output (and errors) as JSON\n"
	"      --tracefs DIR   use the tracefs tree at DIR ($KTRACE_TRACEFS)\n"
	"  -h, --help          this help\n"
	"  -V, --version       print the version\n";

static const struct option main_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "tracefs", required_argument, NULL, 'T' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void print_commands(FILE *f)
{
	fputs(main_usage, f);
	fputs("\nCommands:\n", f);
	for (const struct cmd *c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
}

/* Reset getopt for a fresh parse (subcommands are called in-process). */
static void kt_getopt_reset(void)
{
	optind = 0;	/* glibc: 0 also resets its internal state */
	opterr = 0;
}

struct kt_json *kt_json(struct kt_ctx *ctx)
{
	if (!ctx->jw)
		ctx->jw = kt_json_alloc(ctx->out);
	return ctx->jw;
}

/*
 * The one rule for errors under --json: stdout stays one valid document.
 * The error goes into what is open (members of the innermost object, or
 * an {"error": ...} element of the innermost array), or is the document
 * itself when nothing was started; everything open is then closed.
 */
static void json_error(struct kt_ctx *ctx, const char *msg,
		       const struct ktrace_err *err)
{
	struct kt_json *j = kt_json(ctx);
	bool in_obj;

	if (!j)
		return;
	in_obj = kt_json_in_object(j);
	if (!in_obj)
		kt_json_object_begin(j);
	kt_json_key(j, "error");
	kt_json_string(j, msg);
	if (err && err->klog) {
		kt_json_key(j, "kernel");
		kt_json_string(j, err->klog);
	}
	if (err && err->input) {
		kt_json_key(j, "input");
		kt_json_string(j, err->input);
		kt_json_key(j, "position");
		kt_json_int(j, err->pos);
	}
	kt_json_close_all(j);
	fflush(ctx->out);
}

/*
 * A message quotes what the user gave ('...'): a quoted part longer than
 * KT_QUOTE_MAX characters is cut to that many, followed by "..." and
 * the number of characters left out, so that a huge argument (a file's
 * contents, a generated spec) does not fill the terminal. The one place
 * for every message of the funnel below. A new string (caller frees), or
 * NULL when nothing was cut or memory ran out (then msg is used as is).
 */
#define KT_QUOTE_MAX 100
static char *quote_cut(const char *msg)
{
	const char *open, *close, *p;
	size_t quotes = 0;
	bool cut = false;
	char *out, *q;

	for (p = msg; (open = strchr(p, '\'')) &&
		      (close = strchr(open + 1, '\'')); p = close + 1) {
		cut |= (size_t)(close - open - 1) > KT_QUOTE_MAX;
		quotes++;
	}
	/* each cut adds at most "...(N more)" to the first KT_QUOTE_MAX */
	out = cut ? malloc(strlen(msg) + 32 * quotes + 1) : NULL;
	if (!out)
		return NULL;
	for (p = msg, q = out; (open = strchr(p, '\'')) &&
		      (close = strchr(open + 1, '\'')); p = close) {
		size_t n = close - open - 1;

		if (n > KT_QUOTE_MAX) {
			memcpy(q, p, open + 1 + KT_QUOTE_MAX - p);
			q += open + 1 + KT_QUOTE_MAX - p;
			q += sprintf(q, "...(%zu more)", n - KT_QUOTE_MAX);
		} else {
			memcpy(q, p, close - p);
			q += close - p;
		}
		*q++ = '\'';
		close++;
	}
	strcpy(q, p);
	return out;
}

/* The input line under a message and the caret at pos: a window of
 * KT_QUOTE_MAX characters around pos of a longer input. */
static void caret_line(struct kt_ctx *ctx, const char *input, int pos)
{
	size_t len = strlen(input), from = 0, n = len;

	if (pos < 0 || (size_t)pos > len)
		return;
	if (len > KT_QUOTE_MAX) {
		from = (size_t)pos > KT_QUOTE_MAX / 2 ?
		       (size_t)pos - KT_QUOTE_MAX / 2 : 0;
		n = len - from < KT_QUOTE_MAX ? len - from : KT_QUOTE_MAX;
	}
	fprintf(ctx->err, "  %s%.*s%s\n  %*s^\n", from ? "..." : "", (int)n,
		input + from, from + n < len ? "..." : "",
		(int)(pos - from + (from ? 3 : 0)), "");
}

static void error_line(struct kt_ctx *ctx, const char *msg)
{
	char *cut = quote_cut(msg);

	if (cut)
		msg = cut;
	if (ctx->json)
		json_error(ctx, msg, NULL);
	/* The human line always goes to stderr too. */
	fprintf(ctx->err, "ktrace%s%s: %s\n", ctx->cmd ? " " : "",
		ctx->cmd ? ctx->cmd : "", msg);
	free(cut);
}

int kt_error(struct kt_ctx *ctx, int status, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	error_line(ctx, msg ? msg : "out of memory");
	free(msg);
	return status;
}

int kt_error_detail(struct kt_ctx *ctx, int status,
		    const struct ktrace_err *err)
{
	const char *msg = err->msg ? err->msg : "failed";
	char *cut = quote_cut(msg);

	if (cut)
		msg = cut;
	if (ctx->json)
		json_error(ctx, msg, err);
	fprintf(ctx->err, "ktrace%s%s: %s\n", ctx->cmd ? " " : "",
		ctx->cmd ? ctx->cmd : "", msg);
	free(cut);
	if (err->input)
		caret_line(ctx, err->input, err->pos);
	return status;
}

int kt_usage_error(struct kt_ctx *ctx, const char *usage, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	error_line(ctx, msg ? msg : "usage error");
	free(msg);
	if (usage && !ctx->json)
		fputs(usage, ctx->err);
	return KT_USAGE;
}

int kt_bad_option(struct kt_ctx *ctx, const char *usage, int opt,
		  const char *arg)
{
	return kt_usage_error(ctx, usage, opt == ':' ?
			      "missing argument for '%s'" : "bad option '%s'",
			      arg);
}

struct ktrace_tfs *kt_tfs(struct kt_ctx *ctx)
{
	if (ctx->tfs)
		return ctx->tfs;
	ctx->tfs = ktrace_tfs_open(ctx->tracefs);
	if (!ctx->tfs) {
		if (ctx->tracefs || getenv("KTRACE_TRACEFS"))
			kt_error(ctx, KT_FAIL, "no tracefs tree at '%s': %s",
				 ctx->tracefs ? ctx->tracefs :
						getenv("KTRACE_TRACEFS"),
				 strerror(errno));
		else
			kt_error(ctx, KT_FAIL,
				 "cannot find or mount tracefs at /sys/kernel/tracing: %s (are you root?)",
				 strerror(errno));
	}
	return ctx->tfs;
}

int kt_globs_check(struct kt_ctx *ctx, int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (kt_glob_check(argv[i]))
			return kt_usage_error(ctx, NULL,
					      "bad pattern '%s': expected SYSTEM[:EVENT] with glob characters * ? [ ]",
					      argv[i]);
	return KT_OK;
}

int kt_instance_name_check(struct kt_ctx *ctx, const char *name)
{
	if (!name || !kt_name_check(name))
		return KT_OK;
	return kt_usage_error(ctx, NULL,
			      "bad instance name '%s': use letters, digits, '_', '-' and '.' (no '..', no '/')",
			      name);
}

struct ktrace_inst *kt_instance_open(struct kt_ctx *ctx, const char *name,
				     bool create)
{
	struct ktrace_inst *inst = ktrace_inst_open(ctx->tfs, name, create);

	if (inst)
		return inst;
	if (errno == ENOENT)
		kt_error(ctx, KT_FAIL, "no instance '%s'", name);
	else
		kt_error(ctx, KT_FAIL, "cannot open instance '%s': %s",
			 name ? name : "top", strerror(errno));
	return NULL;
}

static const struct cmd *find_cmd(const struct cmd *cmds, const char *name)
{
	for (const struct cmd *c = cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int kt_dispatch(struct kt_ctx *ctx, const struct cmd *cmds, const char *what,
		int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 1) {
		char names[256] = "";
		size_t used = 0;

		for (c = cmds; c->name && used < sizeof(names); c++) {
			if (c->name[0] == '-')
				continue;
			used += snprintf(names + used, sizeof(names) - used,
					 "%s%s", c == cmds ? "" : ", ",
					 c->name);
		}
		return kt_error(ctx, KT_USAGE, "missing %s command (one of: %s)",
				what, names);
	}
	c = find_cmd(cmds, argv[0]);
	if (!c) {
		kt_error(ctx, KT_USAGE, "unknown %s command '%s'", what,
			 argv[0]);
		if (!ctx->json) {
			fprintf(ctx->err, "%s commands:", what);
			for (c = cmds; c->name; c++)
				fprintf(ctx->err, " %s", c->name);
			fputc('\n', ctx->err);
		}
		return KT_USAGE;
	}
	if (!cmd_stops(c))
		kt_signals_release();
	kt_getopt_reset();
	return c->fn(ctx, argc, argv);
}

static int cmd_help(struct kt_ctx *ctx, int argc, char **argv)
{
	const struct cmd *c;
	char *args[] = { NULL, "--help", NULL };

	if (argc < 2) {
		print_commands(ctx->out);
		return KT_OK;
	}
	c = find_cmd(commands, argv[1]);
	if (!c || c->fn == cmd_help)
		return kt_error(ctx, KT_USAGE, "no help for unknown command '%s'",
				argv[1]);
	/* enable and disable share a page */
	if (show_man_page(ctx, c->fn == cmd_disable ? "enable" : c->name))
		return KT_OK;
	args[0] = argv[1];
	ctx->cmd = c->name;
	kt_getopt_reset();
	return c->fn(ctx, 2, args);
}

/* A file or directory of ktrace's, found at run time: BINDIR/../installed
 * (an installed ktrace) or BINDIR/source (the source tree) into buf.
 * 0 or -ENOENT. */
static int kt_data_path(char *buf, size_t len, const char *installed,
			const char *source)
{
	char exe[2048], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	snprintf(buf, len, "%s/../%s", exe, installed);
	if (!access(buf, R_OK))
		return 0;
	snprintf(buf, len, "%s/%s", exe, source);
	if (!access(buf, R_OK))
		return 0;
	return -ENOENT;
}

const char *kt_priv_hint(int err)
{
	return err == EACCES || err == EPERM ? " (run as root)" : "";
}

const char *kt_probes_dir(void)
{
	static char dir[4096];
	static int found = 1;	/* 1: not looked yet */
	const char *env = getenv("KTRACE_PROBES_DIR");

	if (env && *env)
		return env;
	if (found == 1)
		found = kt_data_path(dir, sizeof(dir), "share/ktrace/probes",
				    "probes");
	return found ? NULL : dir;
}

/* On a terminal, `ktrace help CMD` shows the man page, as git does: the
 * installed one next to the binary, or the source tree's. false when
 * there is none (or no man): the caller prints the usage. */
static bool show_man_page(struct kt_ctx *ctx, const char *cmd)
{
	char inst[128], src[128], path[4096];
	int status;
	pid_t pid;

	if (ctx->json || ctx->out != stdout || !isatty(STDOUT_FILENO))
		return false;
	snprintf(inst, sizeof(inst), "share/man/man1/ktrace-%s.1", cmd);
	snprintf(src, sizeof(src), "man/ktrace-%s.1", cmd);
	if (kt_data_path(path, sizeof(path), inst, src))
		return false;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		execlp("man", "man", "-l", path, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int cmd_version(struct kt_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (ctx->json) {
		struct kt_json *j = kt_json(ctx);

		if (!j)
			return kt_error(ctx, KT_FAIL, "out of memory");
		kt_json_object_begin(j);
		kt_json_key(j, "version");
		kt_json_string(j, KTRACE_VERSION);
		kt_jstr(j, "build", KTRACE_FULL_VERSION);
		kt_jstr(j, "library", ktrace_version());
		kt_json_object_end(j);
	} else
		fprintf(ctx->out, "ktrace %s\n", KTRACE_FULL_VERSION);
	return KT_OK;
}

static int run_main(struct kt_ctx *ctx, int argc, char **argv)
{
	int opt;

	kt_getopt_reset();
	while ((opt = getopt_long(argc, argv, "+jhV", main_opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			ctx->json = true;
			break;
		case 'T':
			ctx->tracefs = optarg;
			break;
		case 'h':
			print_commands(ctx->out);
			return KT_OK;
		case 'V':
			return cmd_version(ctx, 0, NULL);
		default:
			return kt_usage_error(ctx, main_usage,
					      "unknown option '%s'",
					      argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return kt_usage_error(ctx, main_usage, "missing command");
	if (find_cmd(commands, argv[0]))
		ctx->cmd = argv[0];
	return kt_dispatch(ctx, commands, "ktrace", argc, argv);
}

int ktrace_main(struct kt_ctx *ctx, int argc, char **argv)
{
	int ret = run_main(ctx, argc, argv);

	/* whatever a command left open is closed: one valid document */
	if (kt_json_free(ctx->jw) < 0 && ret == KT_OK)
		ret = KT_FAIL;
	ctx->jw = NULL;
	return ret;
}
