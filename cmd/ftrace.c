// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktrace ftrace: the function and function_graph tracers in an instance
 * of ktrace's own (the top instance only for a tracer no instance offers,
 * and only when unused), filtered by function and limited to processes,
 * their records read from each CPU's trace_pipe_raw and shown one line a
 * call, as a nested graph with durations, or counted per function.
 * Everything set is taken back on every exit path.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ktrace_cmd.h"
#include "record/fgraph.h"
#include "record/ftfile.h"
#include "sym/ffuncs.h"
#include "sym/symtab.h"
#include "tracefs/ftrace.h"

static const char ftrace_usage[] =
	"Usage: ktrace ftrace [--graph] [-f GLOB...] [-n GLOB...] [-g FUNC...] [--depth N]\n"
	"                     [--threshold DUR] [-p PID... | -a | -- CMD ARGS...] [-C CPUS]\n"
	"                     [-d SECS] [-m SIZE] [--count] [-o FILE] [--json]\n"
	"Trace kernel functions with the kernel's function tracer: one line a call\n"
	"(comm pid [cpu] time: function <- caller), or with --graph the call graph\n"
	"with each call's duration. The tracer runs in an instance of ktrace's own;\n"
	"a tracer the kernel offers only in the top instance is used there when\n"
	"nothing else uses it, and put back as it was.\n"
	"\n"
	"  -f, --filter GLOB      only these functions (NAME, glob, GLOB:mod:MODULE;\n"
	"                         repeatable, comma lists)\n"
	"  -n, --notrace GLOB     not these functions\n"
	"      --graph            the function_graph tracer: nesting and durations\n"
	"  -g, --graph-function FUNC  only the calls made under FUNC (implies --graph)\n"
	"      --depth N          at most N levels of the graph\n"
	"      --threshold DUR    only calls that took at least DUR (500ns, 10us, 2ms,\n"
	"                         1s; implies --graph)\n"
	"  -p, --pid PID          only these processes (and their threads)\n"
	"  -a, --all-cpus         system-wide (the default without CMD or -p)\n"
	"  -C, --cpu CPUS         only these CPUs\n"
	"  -d, --duration SECS    stop after SECS seconds\n"
	"  -m, --buffer-size SIZE the kernel's buffer per CPU (256K, 4M...)\n"
	"      --count            calls per function at the end, most first\n"
	"  -o, --output FILE      write the records to a ktrace file instead ('-':\n"
	"                         standard output); ktrace report shows it as here\n"
	"  -j, --json             JSON output\n"
	"  -h, --help             this help\n";

enum { OPT_GRAPH = 256, OPT_DEPTH, OPT_THRESHOLD, OPT_COUNT };

static const struct option ftrace_opts[] = {
	{ "filter", required_argument, NULL, 'f' },
	{ "notrace", required_argument, NULL, 'n' },
	{ "graph", no_argument, NULL, OPT_GRAPH },
	{ "graph-function", required_argument, NULL, 'g' },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "duration", required_argument, NULL, 'd' },
	{ "buffer-size", required_argument, NULL, 'm' },
	{ "count", no_argument, NULL, OPT_COUNT },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define COMM_SLOTS 1024
/* symbols looked up last, by address: a trace names few functions */
#define SYM_SLOTS 256	/* the slot: the address hashed to 8 bits */

struct comm {
	int pid;
	char name[20];
};

struct ftrace_cmd {
	struct kt_ctx *ctx;
	struct kt_capture_opts co;	/* the target, -C, -d */
	struct kt_strv filter, notrace, graph_fn;
	bool graph, count;
	int depth, udepth;		/* udepth: left out here, not by
					 * the kernel */
	uint64_t threshold;		/* ns */
	long buffer_kb;
	struct kt_signals sigs;
	char what[512];
	/* the run */
	struct ktrace_inst *inst;	/* own instance, or NULL */
	char top_owner[64];		/* the top taken: its owner record */
	bool top;
	struct kt_fpipe *pipe;
	struct kt_fgraph *fg;
	struct kt_symtab ksyms;
	const struct kt_symtab *syms;	/* &ksyms, or a file's */
	/* -o: the file, and the symbols (a bitmap over ksyms) and tasks
	 * its records name */
	const char *output;
	int out_fd;
	struct kt_ftw *ftw;
	unsigned char *sym_used;
	struct kt_profile pids;
	int last_pid;
	struct ktrace_record *rec;	/* report: the file read */
	struct kt_profile counts;
	struct comm *comms;		/* COMM_SLOTS, by pid */
	struct { uint64_t addr; const char *name; } symc[SYM_SLOTS];
	char *cmdlines;			/* saved_cmdlines, read once */
	bool cmdlines_read;
	int pidfd;
	bool gone, flowing;	/* flowing: the last round had records */
	uint64_t records, *overrun0, *dropped0;
	struct timespec t0;
};

static int num_parse(struct kt_ctx *ctx, const char *what, const char *arg,
		     int max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > max)
		return kt_usage_error(ctx, NULL, "bad %s '%s' (1 to %d)", what,
				      arg, max);
	*out = v;
	return KT_OK;
}

static int buffer_parse(struct ftrace_cmd *fc, const char *arg)
{
	size_t pages;

	if (kt_ring_pages_parse(arg, &pages))
		return kt_usage_error(fc->ctx, NULL,
				      "bad buffer size '%s' (a size such as 256K or 4M, at most 1G)",
				      arg);
	fc->buffer_kb = pages * (sysconf(_SC_PAGESIZE) / 1024);
	return KT_OK;
}

static int ftrace_opt(struct ftrace_cmd *fc, int opt, const char *arg)
{
	struct kt_ctx *ctx = fc->ctx;
	int ret;

	switch (opt) {
	case 'f':
		return kt_strv_add_list(ctx, &fc->filter, "function filter", arg);
	case 'n':
		return kt_strv_add_list(ctx, &fc->notrace, "function filter",
					arg);
	case 'g':
		fc->graph = true;
		return kt_strv_add_list(ctx, &fc->graph_fn, "graph function",
					arg);
	case OPT_GRAPH:
		fc->graph = true;
		return KT_OK;
	case OPT_DEPTH:
		fc->graph = true;
		return num_parse(ctx, "depth", arg, 1000, &fc->depth);
	case OPT_THRESHOLD:
		fc->graph = true;
		return kt_duration_parse(ctx, "--threshold", arg, "us",
					 &fc->threshold);
	case 'm':
		return buffer_parse(fc, arg);
	case OPT_COUNT:
		fc->count = true;
		return KT_OK;
	case 'o':
		fc->output = arg;
		return KT_OK;
	case 'j':
		ctx->json = true;
		return KT_OK;
	}
	ret = kt_capture_opt(ctx, &fc->co, opt, arg);
	if (ret < 0)
		ret = kt_usage_error(ctx, ftrace_usage, "bad option");
	return ret;
}

static int ftrace_parse(struct ftrace_cmd *fc, int argc, char **argv)
{
	struct kt_ctx *ctx = fc->ctx;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+:f:n:g:p:aC:d:m:o:jh",
				  ftrace_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(ftrace_usage, ctx->out);
			return KT_OK;
		case '?':
		case ':':
			return kt_bad_option(ctx, ftrace_usage, opt,
					     argv[optind - 1]);
		}
		ret = ftrace_opt(fc, opt, optarg);
		if (ret)
			return ret;
	}
	ret = kt_target_check(ctx, &fc->co.tg, argc - optind, argv + optind);
	if (ret)
		return ret;
	if (fc->count && fc->graph)
		return kt_usage_error(ctx, NULL,
				      "--count counts the function tracer's calls: not with --graph, -g, --depth or --threshold");
	if (fc->output && ctx->json)
		return kt_usage_error(ctx, NULL,
				      "-o writes a ktrace file: --json goes with ktrace report");
	return -1;
}

/* ------------------------------------------------------------ setup */

/* Every -f, -n and -g held to available_filter_functions. */
static int check_filters(struct ftrace_cmd *fc)
{
	const struct kt_strv *lists[] = { &fc->filter, &fc->notrace,
					  &fc->graph_fn };
	struct ktrace_err err = { .pos = -1 };
	struct kt_ffuncs ff;
	int ret;

	if (!fc->filter.n && !fc->notrace.n && !fc->graph_fn.n)
		return KT_OK;
	ret = kt_ffuncs_load(fc->ctx->tfs, &ff);
	if (ret) {
		kt_ffuncs_free(&ff);
		return kt_error(fc->ctx, KT_FAIL,
				"cannot read available_filter_functions: %s%s",
				strerror(-ret), ret == -EPERM ?
				" (a kernel in lockdown refuses the function tracers)" :
				kt_priv_hint(-ret));
	}
	for (size_t l = 0; !ret && l < ARRAY_SIZE(lists); l++)
		for (int i = 0; !ret && i < lists[l]->n; i++)
			ret = kt_ffuncs_check(&ff, lists[l]->v[i], &err);
	kt_ffuncs_free(&ff);
	if (!ret)
		return KT_OK;
	ret = kt_error_detail(fc->ctx, ret == -ENOMEM ? KT_FAIL : KT_USAGE,
			      &err);
	ktrace_err_clear(&err);
	return ret;
}

/* Where the tracer runs: ktrace's own instance when it offers the tracer
 * (and set_graph_function for -g), else the top by README's rule. */
static int choose_instance(struct ftrace_cmd *fc, const char *tracer)
{
	struct kt_ctx *ctx = fc->ctx;
	struct ktrace_err err = { .pos = -1 };
	int ret;

	if (!kt_tracer_offered(kt_tfs_top(ctx->tfs), tracer))
		return kt_error(ctx, KT_FAIL,
				"this kernel has no %s tracer (available_tracers)",
				tracer);
	fc->inst = kt_own_inst_create(ctx->tfs);
	if (!fc->inst)
		return kt_error(ctx, KT_FAIL, "cannot create an instance: %s%s",
				strerror(errno), kt_priv_hint(errno));
	if (kt_tracer_offered(fc->inst, tracer) &&
	    (!fc->graph_fn.n || kt_inst_has(fc->inst, "set_graph_function")))
		return KT_OK;
	ret = kt_own_inst_destroy(fc->inst);
	fc->inst = NULL;
	if (ret)
		return kt_error(ctx, KT_FAIL,
				"cannot remove ktrace's instance: %s",
				strerror(-ret));
	if (kt_ftop_take(ctx->tfs, fc->buffer_kb > 0, fc->top_owner, sizeof(fc->top_owner),
			 &err)) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	fc->top = true;
	return KT_OK;
}

static struct ktrace_inst *run_inst(struct ftrace_cmd *fc)
{
	return fc->top ? kt_tfs_top(fc->ctx->tfs) : fc->inst;
}

/* The tracer's settings, then its readers. */
static int start_tracer(struct ftrace_cmd *fc, const char *tracer)
{
	struct kt_target *tg = &fc->co.tg;
	struct ktrace_inst *inst = run_inst(fc);
	struct ktrace_err err = { .pos = -1 };
	struct kt_ftrace_conf c = {
		.tracer = tracer,
		.filter = (const char *const *)fc->filter.v,
		.nfilter = fc->filter.n,
		.notrace = (const char *const *)fc->notrace.v,
		.nnotrace = fc->notrace.n,
		.graph = (const char *const *)fc->graph_fn.v,
		.ngraph = fc->graph_fn.n,
		.pids = tg->pids, .npids = tg->npids,
		.cpus = tg->cpus, .ncpus = tg->ncpus,
		.fork = tg->argc > 0, .buffer_kb = fc->buffer_kb,
	};
	int ret, udepth = fc->depth;

	/* the kernel's depth limit where the instance has one; else the
	 * deeper records are left out here */
	if (fc->depth && kt_inst_has(inst, "max_graph_depth")) {
		c.depth = fc->depth;
		udepth = 0;
	}
	fc->udepth = udepth;
	if (fc->graph && !fc->output) {
		fc->fg = kt_fgraph_alloc(fc->threshold, udepth, 8);
		if (!fc->fg)
			return kt_error(fc->ctx, KT_FAIL, "out of memory");
	}
	if (kt_ftrace_apply(inst, &c, &err)) {
		ret = kt_error_detail(fc->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	fc->pipe = kt_fpipe_open(inst, tg->ncpus ? tg->cpus : NULL,
				 tg->ncpus);
	if (!fc->pipe)
		return kt_error(fc->ctx, KT_FAIL,
				"cannot read the trace buffers: %s",
				strerror(errno));
	return KT_OK;
}

/* The CPUs' loss counters at the start (the top's may not be 0). */
static int stats_start(struct ftrace_cmd *fc)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	fc->overrun0 = calloc(n > 0 ? n : 1, sizeof(*fc->overrun0));
	fc->dropped0 = calloc(n > 0 ? n : 1, sizeof(*fc->dropped0));
	if (!fc->overrun0 || !fc->dropped0)
		return kt_error(fc->ctx, KT_FAIL, "out of memory");
	for (long i = 0; i < n; i++)
		kt_cpu_stats(run_inst(fc), i, &fc->overrun0[i],
			     &fc->dropped0[i]);
	return KT_OK;
}

static int file_open(struct ftrace_cmd *fc, const char *tracer);

static int ftrace_setup(struct ftrace_cmd *fc)
{
	struct kt_ctx *ctx = fc->ctx;
	const char *tracer = fc->graph ? "function_graph" : "function";
	int ret;

	/* what a killed ktrace left: its instance, the top's tracer */
	ktrace_probe_cleanup_stale(ctx->tfs);
	kt_ftop_sweep(ctx->tfs);
	ret = check_filters(fc);
	if (!ret)
		ret = kt_target_prepare(ctx, &fc->co.tg, !fc->co.tg.argc);
	if (ret)
		return ret;
	kt_target_describe(&fc->co.tg, fc->what, sizeof(fc->what));
	if (kt_symtab_load_kallsyms(&fc->ksyms, NULL) < 0)
		fprintf(ctx->err,
			"ktrace: cannot read /proc/kallsyms: functions shown by address\n");
	fc->syms = &fc->ksyms;
	ret = choose_instance(fc, tracer);
	if (!ret)
		ret = stats_start(fc);
	if (!ret)
		ret = start_tracer(fc, tracer);
	if (!ret && fc->output)
		ret = file_open(fc, tracer);
	return ret;
}

/* ------------------------------------------------------------ output */

/* The name saved_cmdlines keeps for pid ("PID COMM" lines), or NULL. */
static const char *saved_comm(struct ftrace_cmd *fc, int pid, char *buf,
			      size_t len)
{
	char key[24];
	const char *l;
	size_t n;

	if (!fc->cmdlines_read) {
		fc->cmdlines_read = true;
		fc->cmdlines = kt_inst_read(kt_tfs_top(fc->ctx->tfs),
					    "saved_cmdlines", NULL);
	}
	n = snprintf(key, sizeof(key), "%d ", pid);
	for (l = fc->cmdlines; l && *l; l += strcspn(l, "\n") + !!l[strcspn(l, "\n")]) {
		if (strncmp(l, key, n))
			continue;
		snprintf(buf, len, "%.*s", (int)strcspn(l + n, "\n"), l + n);
		return buf;
	}
	return NULL;
}

/* The task's name: /proc while it lives, else saved_cmdlines; kept in a
 * cache of COMM_SLOTS entries by pid (a pid not found is asked again). */
static const char *comm_of(struct ftrace_cmd *fc, int pid)
{
	struct comm *c;
	char path[48], *t;

	if (!pid)
		return "<idle>";
	if (!fc->comms) {
		fc->comms = calloc(COMM_SLOTS, sizeof(*fc->comms));
		if (!fc->comms)
			return "<...>";
	}
	c = &fc->comms[(unsigned int)pid % COMM_SLOTS];
	if (c->pid == pid)
		return c->name;
	if (fc->rec) {
		ktrace_record_comm(fc->rec, pid, c->name, sizeof(c->name));
		c->pid = pid;
		return c->name;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	t = kt_read_file(path, NULL);
	if (t)
		snprintf(c->name, sizeof(c->name), "%.*s",
			 (int)strcspn(t, "\n"), t);
	free(t);
	if (!t && !saved_comm(fc, pid, c->name, sizeof(c->name))) {
		c->pid = 0;
		return "<...>";
	}
	c->pid = pid;
	return c->name;
}

static const char *sym_of(struct ftrace_cmd *fc, uint64_t addr, char *buf,
			  size_t len)
{
	unsigned int slot = (addr * 0x9e3779b97f4a7c15ull) >> 56;
	const char *name;

	if (addr && fc->symc[slot].addr == addr)
		return fc->symc[slot].name;
	name = kt_symtab_find(fc->syms, addr, NULL);
	if (name) {
		fc->symc[slot].addr = addr;
		fc->symc[slot].name = name;
		return name;
	}
	snprintf(buf, len, "0x%" PRIx64, addr);
	return buf;
}

/* A text line's longest piece (a symbol: KSYM_NAME_LEN) and the line. */
#define NAME_MAX_OUT 512
#define LINE_MAX_OUT (4 * 16 + 3 * NAME_MAX_OUT + 128)

/* s (at most NAME_MAX_OUT bytes of it) at p; the end. */
static char *put_str(char *p, const char *s)
{
	size_t n = strnlen(s, NAME_MAX_OUT);

	memcpy(p, s, n);
	return p + n;
}

/* "sec.usec" as the trace file shows it; the end. */
static char *put_ts(char *p, uint64_t ts)
{
	p = kt_put_uint(p, ts / 1000000000, 0, ' ');
	*p++ = '.';
	return kt_put_uint(p, ts % 1000000000 / 1000, 6, '0');
}

/* The task's name, escaped (a traced program names itself), padded to
 * width on the left (right-aligned) or the right; the end. */
static char *put_comm(struct ftrace_cmd *fc, char *p, int pid, int width)
{
	const char *comm = comm_of(fc, pid);
	char esc[4 * 16 + 1];
	size_t n = kt_text_escape(esc, comm, strnlen(comm, 16));

	for (int i = (int)n; i < -width; i++)
		*p++ = ' ';
	memcpy(p, esc, n);
	p += n;
	for (int i = (int)n; i < width; i++)
		*p++ = ' ';
	return p;
}

/* A pid left-aligned in 7 columns ("%-7d"); the end. */
static char *put_comm_pid(char *p, int pid)
{
	char *e = kt_put_int(p, pid, 0);

	while (e - p < 7)
		*e++ = ' ';
	return e;
}

/* The line at buf, up to p, written out. */
static void put_line(struct ftrace_cmd *fc, const char *buf, char *p)
{
	*p++ = '\n';
	fwrite(buf, 1, p - buf, fc->ctx->out);
}

/* "comm", "pid", "cpu", "time" of a record's object. */
static void json_head(struct ftrace_cmd *fc, struct kt_json *j, int pid,
		      int cpu, uint64_t ts)
{
	kt_json_object_begin(j);
	kt_jstr(j, "comm", comm_of(fc, pid));
	kt_jint(j, "pid", pid);
	kt_jint(j, "cpu", cpu);
	kt_json_key(j, "time");
	kt_json_decimal(j, ts / 1000, 6);
}

static void show_call(struct ftrace_cmd *fc, const struct kt_frec *r)
{
	char b1[32], b2[32];
	const char *fn = sym_of(fc, r->ip, b1, sizeof(b1));
	const char *parent = sym_of(fc, r->parent, b2, sizeof(b2));
	struct kt_json *j;

	if (!fc->ctx->json) {
		char line[LINE_MAX_OUT], *p = put_comm(fc, line, r->pid, 0);

		*p++ = ' ';
		p = kt_put_int(p, r->pid, 0);
		memcpy(p, " [", 2);
		p = kt_put_uint(p + 2, r->cpu, 3, '0');
		memcpy(p, "] ", 2);
		p = put_ts(p + 2, r->ts);
		memcpy(p, ": ", 2);
		p = put_str(p + 2, fn);
		memcpy(p, " <- ", 4);
		p = put_str(p + 4, parent);
		put_line(fc, line, p);
		return;
	}
	j = kt_json(fc->ctx);
	if (!j)
		return;
	json_head(fc, j, r->pid, r->cpu, r->ts);
	kt_jstr(j, "function", fn);
	kt_jstr(j, "parent", parent);
	kt_json_object_end(j);
}

static void graph_json(struct ftrace_cmd *fc, const struct kt_fgline *l,
		       const char *fn)
{
	static const char *const kinds[] = { "entry", "call", "exit" };
	struct kt_json *j = kt_json(fc->ctx);

	if (!j)
		return;
	json_head(fc, j, l->pid, l->cpu, l->ts);
	kt_jstr(j, "type", kinds[l->kind]);
	kt_jstr(j, "function", fn);
	kt_jint(j, "depth", l->depth);
	if (l->kind != KT_FG_OPEN)
		kt_juint(j, "duration_ns", l->dur);
	kt_json_object_end(j);
}

/* One line of the graph, laid out as the trace file and trace-cmd do. */
static void graph_line(void *arg, const struct kt_fgline *l)
{
	struct ftrace_cmd *fc = arg;
	char b[32], line[LINE_MAX_OUT], dur[32], *p, *d = dur;
	const char *fn = sym_of(fc, l->func, b, sizeof(b));
	int indent = 2 * l->depth + 1;

	if (fc->ctx->json) {
		graph_json(fc, l, fn);
		return;
	}
	/* "%16s-%-7d [%03d] %s: %13s |" and the indent */
	p = put_comm(fc, line, l->pid, -16);
	*p++ = '-';
	p = put_comm_pid(p, l->pid);
	memcpy(p, " [", 2);
	p = kt_put_uint(p + 2, l->cpu, 3, '0');
	memcpy(p, "] ", 2);
	p = put_ts(p + 2, l->ts);
	*p++ = ':';
	*p++ = ' ';
	if (l->kind != KT_FG_OPEN) {
		d = kt_put_uint(d, l->dur / 1000, 0, ' ');
		*d++ = '.';
		d = kt_put_uint(d, l->dur % 1000, 3, '0');
		memcpy(d, " us", 3);
		d += 3;
	}
	for (long i = d - dur; i < 13; i++)
		*p++ = ' ';
	memcpy(p, dur, d - dur);
	p += d - dur;
	*p++ = ' ';
	*p++ = '|';
	indent = indent < 2 * NAME_MAX_OUT ? indent : 2 * NAME_MAX_OUT;
	memset(p, ' ', indent);
	p += indent;
	if (l->kind == KT_FG_OPEN) {
		p = put_str(p, fn);
		p = memcpy(p, "() {", 4) + 4;
	} else if (l->kind == KT_FG_LEAF) {
		p = put_str(p, fn);
		p = memcpy(p, "();", 3) + 3;
	} else if (l->comment) {
		p = memcpy(p, "} /* ", 5) + 5;
		p = put_str(p, fn);
		p = memcpy(p, " */", 3) + 3;
	} else {
		*p++ = '}';
	}
	put_line(fc, line, p);
}

static int count_call(struct ftrace_cmd *fc, const struct kt_frec *r)
{
	char b[32], *key = strdup(sym_of(fc, r->ip, b, sizeof(b)));

	if (!key || kt_profile_add(&fc->counts, key, 1))
		return kt_error(fc->ctx, KT_FAIL, "out of memory");
	return KT_OK;
}

/* One record shown, counted or fed to the graph; 0 or -ENOMEM. */
static int show_rec(void *arg, const struct kt_frec *r)
{
	struct ftrace_cmd *fc = arg;

	fc->records++;
	if (fc->fg)
		return kt_fgraph_feed(fc->fg, r, graph_line, fc);
	if (fc->count)
		return count_call(fc, r) ? -ENOMEM : 0;
	show_call(fc, r);
	return 0;
}

/* Note a kernel symbol a record of the file names (ip 0: none). */
static void note_sym(struct ftrace_cmd *fc, uint64_t ip)
{
	const struct kt_sym *sy = ip ? kt_symtab_lookup(&fc->ksyms, ip) :
				       NULL;
	size_t i;

	if (!sy || !fc->sym_used)
		return;
	i = sy - fc->ksyms.v;
	fc->sym_used[i / 8] |= 1 << (i % 8);
}

/* -o: one record into the file, its task and functions noted for the
 * tables written at the end; 0 or -errno. */
static int file_rec(struct ftrace_cmd *fc, const struct kt_frec *r)
{
	uint32_t size;
	const void *data = kt_fpipe_raw(fc->pipe, r, &size);
	char *key;
	int ret;

	if (!data)
		return -ENOMEM;
	fc->records++;
	note_sym(fc, r->ip);
	note_sym(fc, r->parent);
	if (r->pid != fc->last_pid) {
		fc->last_pid = r->pid;
		if (asprintf(&key, "%d", r->pid) < 0)
			return -ENOMEM;
		ret = kt_profile_add(&fc->pids, key, 1);
		if (ret)
			return ret;
	}
	return kt_ftw_add(fc->ftw, r, data, size);
}

/* A batch of what the buffers hold, shown (or written, -o). */
static int drain_batch(struct ftrace_cmd *fc)
{
	const struct kt_frec *v;
	size_t n;
	int ret = kt_fpipe_read(fc->pipe, &v, &n);

	if (ret && ret != -ENOMEM)
		return kt_error(fc->ctx, KT_FAIL,
				"cannot read the trace buffers: %s",
				strerror(-ret));
	for (size_t i = 0; !ret && i < n; i++) {
		/* the kernel's buffers emptied while the batch is shown */
		if (i % 512 == 511)
			kt_fpipe_fill(fc->pipe);
		ret = fc->ftw ? file_rec(fc, &v[i]) : show_rec(fc, &v[i]);
	}
	if (ret == -ENOMEM)
		return kt_error(fc->ctx, KT_FAIL, "out of memory");
	if (ret)
		return kt_error(fc->ctx, KT_FAIL, "writing '%s' failed: %s",
				fc->output, strerror(-ret));
	return ferror(fc->ctx->out) ? KT_FAIL : KT_OK;
}

/* What the buffers hold now, shown a batch at a time (a bounded number:
 * the loop checks its end between them). */
static int drain(struct ftrace_cmd *fc)
{
	int ret, batches = 0;

	do
		ret = drain_batch(fc);
	while (!ret && kt_fpipe_pending(fc->pipe) && ++batches < 64);
	return ret;
}

static int ftrace_round(void *arg, bool *gone)
{
	struct ftrace_cmd *fc = arg;
	struct pollfd pfd[257] = { { .fd = fc->pidfd, .events = POLLIN } };
	int n = 1 + kt_fpipe_pollfds(fc->pipe, pfd + 1, 256);

	uint64_t before = fc->records;
	int wait = 100;

	/*
	 * Woken by the end of the process, or by a CPU's buffer filling
	 * (buffer_percent: a wakeup that comes late when the task making
	 * the records holds the CPU, which then overruns the buffer), else
	 * every 100 ms, and every 10 ms while records come; at once while
	 * records wait in memory.
	 */
	if (kt_fpipe_pending(fc->pipe))
		wait = 0;
	else if (fc->flowing)
		wait = 10;
	poll(pfd, n, wait);
	if (drain(fc))
		return -1;
	fc->flowing = fc->records != before;
	fflush(fc->ctx->out);
	*gone = fc->gone || (pfd[0].fd >= 0 && poll(pfd, 1, 0) > 0) ||
		kt_target_pids_gone(&fc->co.tg);
	return 0;
}

static void show_counts(struct ftrace_cmd *fc)
{
	size_t n = kt_profile_sort(&fc->counts, kt_prow_by_period);
	struct kt_json *j = fc->ctx->json ? kt_json(fc->ctx) : NULL;

	if (j) {
		kt_json_key(j, "counts");
		kt_json_array_begin(j);
	} else {
		fprintf(fc->ctx->out, "%12s  %s\n", "CALLS", "FUNCTION");
	}
	for (size_t i = 0; i < n; i++) {
		const struct kt_prow *r = &fc->counts.v[i];

		if (!j) {
			fprintf(fc->ctx->out, "%12llu  %s\n", r->period, r->key);
			continue;
		}
		kt_json_object_begin(j);
		kt_jstr(j, "function", r->key);
		kt_juint(j, "calls", r->period);
		kt_json_object_end(j);
	}
	if (j)
		kt_json_array_end(j);
}

/*
 * The CPUs that lost records, as "CPU:OVERRUN:DROPPED" words (what -o
 * keeps in the file), into buf; the total lost. The pages' missed counts
 * are the same records seen from the reader's side: the larger of the
 * two totals is the total.
 */
static uint64_t loss_words(struct ftrace_cmd *fc, char *buf, size_t len)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t o, d, total = 0, missed = kt_fpipe_missed(fc->pipe);
	size_t at = 0;

	buf[0] = 0;
	for (long i = 0; i < ncpu; i++) {
		if (kt_cpu_stats(run_inst(fc), i, &o, &d))
			continue;
		o -= o >= fc->overrun0[i] ? fc->overrun0[i] : o;
		d -= d >= fc->dropped0[i] ? fc->dropped0[i] : d;
		if (!o && !d)
			continue;
		total += o + d;
		if (at < len)
			at += snprintf(buf + at, len - at,
				       "%s%ld:%" PRIu64 ":%" PRIu64,
				       at ? " " : "", i, o, d);
	}
	return missed > total ? missed : total;
}

/* Overruns and drops of each CPU (words of loss_words()), stated, never
 * silent; suffix: what follows the text line. */
static void show_loss(struct ftrace_cmd *fc, const char *words,
		      uint64_t total, const char *suffix)
{
	struct kt_json *j = fc->ctx->json ? kt_json(fc->ctx) : NULL;
	unsigned long long o, d;
	char text[1024] = "";
	const char *w = words;
	size_t at = 0;
	long i;
	int n;

	if (j) {
		kt_juint(j, "records", fc->records);
		kt_json_key(j, "lost");
		kt_json_array_begin(j);
	}
	while (w && sscanf(w, "%ld:%llu:%llu%n", &i, &o, &d, &n) == 3) {
		w += n;
		if (j) {
			kt_json_object_begin(j);
			kt_jint(j, "cpu", i);
			kt_juint(j, "overrun", o);
			kt_juint(j, "dropped", d);
			kt_json_object_end(j);
		} else if (at < sizeof(text)) {
			at += snprintf(text + at, sizeof(text) - at,
				       "%scpu%ld: %llu overrun, %llu dropped",
				       at ? "; " : " (", i, o, d);
		}
	}
	if (j) {
		kt_json_array_end(j);
		kt_juint(j, "lost_total", total);
		return;
	}
	fprintf(fc->ctx->err, "ktrace: %" PRIu64 " records, %" PRIu64 " lost%s%s%s\n",
		fc->records, total, text, at ? "; raise -m)" : "", suffix);
}

/* -o FILE ('-': standard output): the file started, its readers told to
 * keep each record's data. */
static int file_open(struct ftrace_cmd *fc, const char *tracer)
{
	const struct kt_target *tg = &fc->co.tg;
	struct ktrace_err err = { .pos = -1 };
	char cmdline[1024] = "";
	int ret;

	fc->out_fd = kt_output_open(fc->ctx, tg, fc->output, cmdline,
				    sizeof(cmdline));
	if (fc->out_fd < 0)
		return KT_FAIL;
	fc->sym_used = calloc(fc->ksyms.n / 8 + 1, 1);
	if (!fc->sym_used)
		return kt_error(fc->ctx, KT_FAIL, "out of memory");
	fc->ftw = kt_ftw_open(fc->out_fd, run_inst(fc), tracer, cmdline,
			      &err);
	if (!fc->ftw) {
		ret = kt_error_detail(fc->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	kt_fpipe_keep_raw(fc->pipe);
	fc->last_pid = -1;
	return KT_OK;
}

/* What the file's records name (symbols, tasks) and what report needs to
 * show them as here: the settings, the loss. */
static int file_tables(struct ftrace_cmd *fc, const char *words,
		       uint64_t total)
{
	char v[64];
	int ret = 0;

	for (size_t i = 0; i < fc->ksyms.n; i++)
		if (fc->sym_used[i / 8] & (1 << (i % 8)))
			ret |= kt_ftw_ksym(fc->ftw, fc->ksyms.v[i].addr,
					   fc->ksyms.v[i].name);
	for (size_t i = 0; i < fc->pids.cap; i++) {
		int pid;

		if (!fc->pids.v[i].key)	/* open addressing: an empty row */
			continue;
		pid = atoi(fc->pids.v[i].key);
		ret |= kt_ftw_comm(fc->ftw, pid, comm_of(fc, pid));
	}
	ret |= kt_ftw_meta(fc->ftw, "ftrace.target", fc->what);
	snprintf(v, sizeof(v), "%" PRIu64 " %d %d", fc->threshold,
		 fc->udepth, fc->count);
	ret |= kt_ftw_meta(fc->ftw, "ftrace.show", v);
	snprintf(v, sizeof(v), "%" PRIu64 " %" PRIu64, fc->records, total);
	ret |= kt_ftw_meta(fc->ftw, "ftrace.records", v);
	ret |= kt_ftw_meta(fc->ftw, "ftrace.lost", words);
	return ret;
}

/* The file finished: its tables, then closed; the line of what it holds. */
static int file_finish(struct ftrace_cmd *fc, const char *words,
		       uint64_t total)
{
	uint64_t bytes = 0;
	char suffix[512];
	int ret = file_tables(fc, words, total) ? -ENOMEM : 0;
	int cret = kt_ftw_close(fc->ftw, &bytes);

	fc->ftw = NULL;
	ret = cret ? cret : ret;
	if (ret)
		return kt_error(fc->ctx, KT_FAIL, "writing '%s' failed: %s",
				fc->output, strerror(-ret));
	snprintf(suffix, sizeof(suffix), "; wrote %" PRIu64 " bytes to %s",
		 bytes, fc->output);
	show_loss(fc, words, total, suffix);
	return KT_OK;
}

static int ftrace_loop(struct ftrace_cmd *fc, bool *stopped)
{
	struct kt_target *tg = &fc->co.tg;
	struct kt_json *j = fc->ctx->json ? kt_json(fc->ctx) : NULL;
	uint64_t before, total;
	char words[1024];
	int ret, r, pid;

	if (j) {
		kt_json_object_begin(j);
		kt_jstr(j, "tracer", fc->graph ? "function_graph" : "function");
		kt_jstr(j, "target", fc->what);
		kt_json_key(j, fc->count ? "counted" : "calls");
		kt_json_array_begin(j);
	}
	clock_gettime(CLOCK_MONOTONIC, &fc->t0);
	ret = kt_target_start(fc->ctx, tg);
	if (ret)
		return ret;
	pid = tg->argc || tg->npids == 1 ? tg->pids[0] : -1;
	fc->pidfd = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	fc->gone = pid > 0 && fc->pidfd < 0 && errno == ESRCH;
	switch (kt_loop_run(tg, &fc->t0, fc->co.duration, ftrace_round, fc)) {
	case KT_LOOP_FAILED:
		return KT_FAIL;
	case KT_LOOP_DURATION:
		*stopped = true;
		break;
	default:
		break;
	}
	/* the rest: the tracer off, the buffers read to their end */
	kt_inst_write(run_inst(fc), "tracing_on", "0", O_TRUNC);
	do {
		before = fc->records;
		ret = drain(fc);
	} while (!ret && (fc->records != before ||
			  kt_fpipe_pending(fc->pipe)));
	if (!ret && fc->fg)
		kt_fgraph_flush(fc->fg, graph_line, fc);
	if (j)
		kt_json_array_end(j);
	if (!ret && fc->count && !fc->ftw)
		show_counts(fc);
	total = loss_words(fc, words, sizeof(words));
	if (fc->ftw) {
		r = file_finish(fc, words, total);
		ret = ret ? ret : r;
	} else {
		show_loss(fc, words, total, "");
	}
	if (j)
		kt_json_object_end(j);
	return ret;
}

/* Take back what the run set: the readers closed, the instance removed
 * (its tracer and filters go with it) or the top put back as it was. */
static int ftrace_teardown(struct ftrace_cmd *fc)
{
	int ret = KT_OK, r;

	if (fc->pidfd >= 0)
		close(fc->pidfd);
	fc->pidfd = -1;
	/* a run that failed: the file as far as it got */
	kt_ftw_close(fc->ftw, NULL);
	fc->ftw = NULL;
	if (fc->out_fd >= 0 && close(fc->out_fd) && !ret)
		ret = kt_error(fc->ctx, KT_FAIL, "writing '%s' failed: %s",
			       fc->output, strerror(errno));
	fc->out_fd = -1;
	kt_fpipe_close(fc->pipe);
	fc->pipe = NULL;
	if (fc->inst) {
		r = kt_own_inst_destroy(fc->inst);
		fc->inst = NULL;
		if (r)
			ret = kt_error(fc->ctx, KT_FAIL,
				       "cannot remove ktrace's instance: %s",
				       strerror(-r));
	}
	if (fc->top) {
		r = kt_ftop_restore(fc->ctx->tfs, fc->top_owner);
		fc->top = false;
		if (r)
			ret = kt_error(fc->ctx, KT_FAIL,
				       "cannot put the top instance's tracer back: %s",
				       strerror(-r));
	}
	return ret;
}

static void ftrace_free(struct ftrace_cmd *fc)
{
	kt_strv_free(&fc->filter);
	kt_strv_free(&fc->notrace);
	kt_strv_free(&fc->graph_fn);
	kt_capture_opts_free(&fc->co);
	kt_fgraph_free(fc->fg);
	kt_symtab_free(&fc->ksyms);
	kt_profile_free(&fc->counts);
	kt_profile_free(&fc->pids);
	free(fc->sym_used);
	free(fc->comms);
	free(fc->cmdlines);
	free(fc->overrun0);
	free(fc->dropped0);
}

int cmd_ftrace(struct kt_ctx *ctx, int argc, char **argv)
{
	struct ftrace_cmd fc = { .ctx = ctx, .co = KT_CAPTURE_OPTS_INIT,
				 .pidfd = -1, .out_fd = -1 };
	struct kt_target *tg = &fc.co.tg;
	bool stopped = false;
	int ret, status;

	ret = ftrace_parse(&fc, argc, argv);
	if (ret >= 0)
		goto out;
	if (!kt_tfs(ctx)) {
		ret = KT_FAIL;
		goto out;
	}
	kt_signals_install(&fc.sigs);
	ret = ftrace_setup(&fc);
	if (!ret)
		ret = ftrace_loop(&fc, &stopped);
out:
	status = kt_target_finish(tg, kt_stop_signal || ret || stopped);
	if (ftrace_teardown(&fc) && !ret)
		ret = KT_FAIL;
	kt_signals_restore(&fc.sigs);
	ftrace_free(&fc);
	return kt_target_status(tg, ret, status, stopped);
}

/* ------------------------------------------------------------ report */

/* What ftrace -o kept of the run's settings into fc; 0 or -EBADMSG. */
static int report_settings(struct ftrace_cmd *fc, const char *tracer)
{
	const char *show = ktrace_record_meta(fc->rec, "ftrace.show");
	const char *what = ktrace_record_meta(fc->rec, "ftrace.target");
	unsigned long long thr = 0;
	int depth = 0, count = 0;

	if (strcmp(tracer, "function") && strcmp(tracer, "function_graph"))
		return -EBADMSG;
	if (show && sscanf(show, "%llu %d %d", &thr, &depth, &count) != 3)
		return -EBADMSG;
	fc->graph = !strcmp(tracer, "function_graph");
	fc->count = count && !fc->graph;
	snprintf(fc->what, sizeof(fc->what), "%s", what ? what : "?");
	fc->syms = kt_ftfile_ksyms(fc->rec);
	if (fc->graph) {
		fc->fg = kt_fgraph_alloc(thr, depth, 8);
		if (!fc->fg)
			return -ENOMEM;
	}
	return 0;
}

/* The loss the file states; a file cut off states none. */
static void report_loss(struct ftrace_cmd *fc, const char *input)
{
	const char *recs = ktrace_record_meta(fc->rec, "ftrace.records");
	const char *words = ktrace_record_meta(fc->rec, "ftrace.lost");
	unsigned long long n, total;
	struct kt_json *j;

	if (recs && sscanf(recs, "%llu %llu", &n, &total) == 2) {
		show_loss(fc, words, total, "");
		return;
	}
	j = fc->ctx->json ? kt_json(fc->ctx) : NULL;
	if (j) {
		kt_juint(j, "records", fc->records);
		kt_jbool(j, "truncated", true);
		return;
	}
	fprintf(fc->ctx->err,
		"ktrace report: '%s' is truncated (ftrace was cut off): %" PRIu64 " records recovered, losses not known\n",
		input, fc->records);
}

int kt_ftrace_report(struct kt_ctx *ctx, struct ktrace_record *rec,
		     const char *input)
{
	struct ftrace_cmd fc = { .ctx = ctx, .rec = rec, .pidfd = -1,
				 .out_fd = -1 };
	struct kt_json *j = ctx->json ? kt_json(ctx) : NULL;
	long n = report_settings(&fc, ktrace_record_meta(rec, "tracer"));

	if (!n && j) {
		kt_json_object_begin(j);
		kt_jstr(j, "tracer", fc.graph ? "function_graph" : "function");
		kt_jstr(j, "target", fc.what);
		kt_json_key(j, fc.count ? "counted" : "calls");
		kt_json_array_begin(j);
	}
	if (!n)
		n = kt_ftfile_replay(rec, show_rec, &fc);
	if (n >= 0) {
		if (fc.fg)
			kt_fgraph_flush(fc.fg, graph_line, &fc);
		if (j)
			kt_json_array_end(j);
		if (fc.count)
			show_counts(&fc);
		report_loss(&fc, input);
		if (j)
			kt_json_object_end(j);
	}
	ftrace_free(&fc);
	if (n < 0)
		return kt_error(ctx, KT_FAIL, "'%s': %s", input,
				n == -EBADMSG ?
				"damaged or not a file of ktrace ftrace" :
				strerror((int)-n));
	return fflush(ctx->out) || ferror(ctx->out) ? KT_FAIL : KT_OK;
}
