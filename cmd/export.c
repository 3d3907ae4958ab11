// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktrace export: the kernel's counts as Prometheus metrics, served on
 * GET /metrics until a signal. Events (-e) are counted by perf as ktrace
 * stat counts them; recipes (-r) by hist triggers in ktrace's own
 * instance. A scrape reads the counters and the kernel's tables: no
 * event reaches user space. Everything made is removed on exit; after a
 * SIGKILL the next ktrace sweeps it.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>

#include "ktrace_cmd.h"
#include "base/prom.h"

#define DEFAULT_ADDR "127.0.0.1"
#define DEFAULT_PORT 19100

static const char export_usage[] =
	"Usage: ktrace export [-l ADDR:PORT] [-e EVENT...] [-r RECIPE...]\n"
	"                     [--latency 'QUESTION'] [--web-config FILE]\n"
	"                     [-p PID | -a | -C CPUS] [-d SECS]\n"
	"Serve the kernel's counts to Prometheus on GET /metrics (text exposition\n"
	"format) until SIGINT or SIGTERM: -e EVENT as ktrace_events_total{event=...}\n"
	"counted by perf as ktrace stat counts (no hist triggers needed); -r RECIPE\n"
	"(a ktrace hist recipe) as counters by its keys, or a histogram for a .log2 or\n"
	".buckets key, read from the kernel's hist table at each scrape; --latency\n"
	"'OPTIONS' (ktrace latency's: '--wakeup', '--syscall read -k comm'...) as the\n"
	"histogram ktrace_latency_microseconds.\n"
	"\n"
	"  -l, --listen ADDR:PORT  where to listen (default " DEFAULT_ADDR ":19100;\n"
	"                          [::1]:PORT for IPv6; port 0: any, said on stderr)\n"
	"  -e, --event EVENT       count an event or counter (repeatable, comma lists)\n"
	"  -r, --recipe NAME       export a hist recipe (repeatable; --list-recipes of\n"
	"                          ktrace hist)\n"
	"      --latency OPTIONS   export a ktrace latency question (its options in one\n"
	"                          argument, split at blanks)\n"
	"      --web-config FILE   TLS and basic auth (the exporter-toolkit's web\n"
	"                          config: tls_server_config, basic_auth_users)\n"
	"  -p, --pid PID           only this process (and its threads)\n"
	"  -a, --all-cpus          system-wide (the default)\n"
	"  -C, --cpu CPUS          only these CPUs (-e counts)\n"
	"  -d, --duration SECS     stop after SECS seconds\n"
	"  -h, --help              this help\n";

enum { OPT_LATENCY = 256, OPT_WEB_CONFIG };

static const struct option export_opts[] = {
	{ "listen", required_argument, NULL, 'l' },
	{ "event", required_argument, NULL, 'e' },
	{ "recipe", required_argument, NULL, 'r' },
	{ "latency", required_argument, NULL, OPT_LATENCY },
	{ "web-config", required_argument, NULL, OPT_WEB_CONFIG },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "duration", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A recipe exported: its trigger in the own instance. */
struct export_hist {
	char *name, *metric, *sys, *ev;
	char help[256];
	struct kt_hist_recipe r;
	struct kt_inline inl;	/* its inline probe, if any */
	bool started;
	uint64_t dropped;	/* at the last scrape */
};

struct export_cmd {
	struct kt_ctx *ctx;
	struct kt_capture_opts co;	/* -e, the target, -d */
	char addr[64];
	unsigned int port;
	struct kt_strv recipes;
	struct ktrace_stat *st;
	struct kt_inline inl;
	struct kt_signals sigs;
	struct export_hist *h;
	int nh;
	struct kt_hrun hr;		/* the own instance, its limit */
	char what[512];
	struct kt_httpd *httpd;
	uint64_t errors;		/* scrapes' failed reads */
	const char *latency;		/* --latency OPTIONS */
	const char *web_config;		/* --web-config FILE */
	struct kt_webcfg web;
	struct kt_lat *lat;
	char lat_help[512];
};

/* --listen ADDR:PORT, [V6ADDR]:PORT or :PORT (the default address). */
static int listen_parse(struct export_cmd *ec, const char *arg)
{
	const char *colon = strrchr(arg, ':'), *a = arg;
	size_t alen = colon ? (size_t)(colon - arg) : 0;
	char *end;
	unsigned long port;

	if (!colon)
		goto bad;
	if (*a == '[') {
		if (alen < 2 || arg[alen - 1] != ']')
			goto bad;
		a++;
		alen -= 2;
	}
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port > 65535 ||
	    alen >= sizeof(ec->addr))
		goto bad;
	snprintf(ec->addr, sizeof(ec->addr), "%.*s", (int)alen, a);
	if (!alen)
		snprintf(ec->addr, sizeof(ec->addr), DEFAULT_ADDR);
	ec->port = port;
	return KT_OK;
bad:
	return kt_usage_error(ec->ctx, NULL,
			      "bad --listen '%s' (ADDR:PORT, [ADDR]:PORT for IPv6)",
			      arg);
}

static int export_parse(struct export_cmd *ec, int argc, char **argv)
{
	struct kt_ctx *ctx = ec->ctx;
	struct kt_target *tg = &ec->co.tg;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+:l:e:r:p:aC:d:h", export_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(export_usage, ctx->out);
			return KT_OK;
		case 'l':
			ret = listen_parse(ec, optarg);
			break;
		case 'r':
			ret = kt_strv_add_list(ctx, &ec->recipes, "recipe",
					       optarg);
			break;
		case OPT_LATENCY:
			ec->latency = optarg;
			ret = KT_OK;
			break;
		case OPT_WEB_CONFIG:
			ec->web_config = optarg;
			ret = KT_OK;
			break;
		case '?':
		case ':':
			return kt_bad_option(ctx, export_usage, opt,
					     argv[optind - 1]);
		default:
			ret = kt_capture_opt(ctx, &ec->co, opt, optarg);
			if (ret < 0)
				ret = kt_usage_error(ctx, export_usage,
						     "bad option");
		}
		if (ret)
			return ret;
	}
	ret = kt_target_check(ctx, tg, argc - optind, argv + optind);
	if (ret)
		return ret;
	if (tg->argc)
		return kt_usage_error(ctx, export_usage,
				      "export serves until stopped: -p PID, -a or -C, not a command");
	if (tg->ncpus && (ec->recipes.n || ec->latency))
		return kt_usage_error(ctx, NULL,
				      "-C limits the -e counts only: not with -r or --latency");
	if (!ec->co.nspecs && !ec->recipes.n && !ec->latency)
		return kt_usage_error(ctx, export_usage,
				      "what to export? (-e EVENT, -r RECIPE, --latency OPTIONS)");
	return -1;
}

static int add_counter(void *arg, int i, const char *name)
{
	struct export_cmd *ec = arg;
	struct ktrace_err err = { .pos = -1 };
	int ret;

	(void)i;
	if (ktrace_stat_add(ec->st, name, &err) < 0) {
		ret = kt_error_detail(ec->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	return KT_OK;
}

/* The -e counters, open and counting. */
static int open_counters(struct export_cmd *ec)
{
	struct kt_target *tg = &ec->co.tg;
	struct ktrace_stat_opts so = { 0 };
	struct ktrace_err err = { .pos = -1 };
	int ret;

	if (!ec->co.nspecs)
		return KT_OK;
	ec->st = ktrace_stat_alloc(ec->ctx->tfs);
	if (!ec->st)
		return kt_error(ec->ctx, KT_FAIL, "out of memory");
	ret = kt_events_expand(ec->ctx, &ec->inl, ec->co.specs,
			       ec->co.nspecs, add_counter, ec);
	if (ret)
		return ret;
	so.pid = tg->npids ? tg->pids[0] : -1;
	so.cpus = tg->cpus;
	so.nr_cpus = tg->ncpus;
	so.inherit = so.pid > 0;
	if (ktrace_stat_open(ec->st, &so, &err) < 0) {
		ret = kt_error_detail(ec->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	ktrace_stat_enable(ec->st);
	return KT_OK;
}

/* Recipe i loaded: its event, trigger, metric name and help. */
static int load_recipe(struct export_cmd *ec, struct export_hist *h,
		       const char *name)
{
	char metric[160], *colon;
	int ret;

	ret = kt_hist_recipe_load(ec->ctx, name, &h->inl, &h->r);
	if (ret)
		return ret;
	/* a path names the recipe by its file name */
	name = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	h->name = strndup(name, strcspn(name, "."));
	colon = strchr(h->r.event, ':');
	h->sys = strndup(h->r.event, colon - h->r.event);
	h->ev = strdup(colon + 1);
	if (!h->name || !h->sys || !h->ev)
		return kt_error(ec->ctx, KT_FAIL, "out of memory");
	kt_prom_name(metric, sizeof(metric), h->name, false);
	if (asprintf(&h->metric, "ktrace_%s", metric) < 0) {
		h->metric = NULL;
		return kt_error(ec->ctx, KT_FAIL, "out of memory");
	}
	kt_recipe_summary(name, "hist", h->help, sizeof(h->help));
	if (!h->help[0])
		snprintf(h->help, sizeof(h->help), "%s", h->r.trigger);
	return KT_OK;
}

/* The recipes' triggers, in an instance of ktrace's own limited to the
 * -p processes. */
static int start_recipes(struct export_cmd *ec)
{
	struct kt_ctx *ctx = ec->ctx;
	struct ktrace_err err = { .pos = -1 };
	int ret = KT_OK;

	if (!ec->recipes.n)
		return KT_OK;
	ec->h = calloc(ec->recipes.n, sizeof(*ec->h));
	if (!ec->h)
		return kt_error(ctx, KT_FAIL, "out of memory");
	for (; ec->nh < ec->recipes.n && !ret; ec->nh++)
		ret = load_recipe(ec, &ec->h[ec->nh], ec->recipes.v[ec->nh]);
	for (int i = 0; !ret && i < ec->nh; i++)
		if (kt_hist_check(kt_tfs_top(ctx->tfs), ec->h[i].sys,
				  ec->h[i].ev, &err))
			ret = kt_error_detail(ctx, KT_FAIL, &err);
	if (ret)
		goto out;
	/* one own instance a process: --latency's, when it made one */
	ec->hr.inst = ec->lat ? kt_lat_export_inst(ec->lat) :
		      kt_own_inst_create(ctx->tfs);
	if (!ec->hr.inst)
		return kt_error(ctx, KT_FAIL, "cannot create an instance: %s%s",
				strerror(errno), kt_priv_hint(errno));
	ret = kt_hrun_limit(&ec->hr);
	for (int i = 0; !ret && i < ec->nh; i++) {
		struct export_hist *h = &ec->h[i];

		if (kt_hist_start(ctx->tfs, ec->hr.inst, h->sys, h->ev,
				  h->r.trigger, &err))
			ret = kt_error_detail(ctx, err.syntax ? KT_USAGE :
					      KT_FAIL, &err);
		h->started = !ret;
	}
out:
	ktrace_err_clear(&err);
	return ret;
}

/* --latency: its options split at blanks, after them the -p target. */
static int start_latency(struct export_cmd *ec)
{
	struct kt_target *tg = &ec->co.tg;
	char *copy = strdup(ec->latency), *save = NULL, pid[16];
	char *argv[40] = { "latency" };
	int argc = 1, ret;

	if (!copy)
		return kt_error(ec->ctx, KT_FAIL, "out of memory");
	for (char *w = strtok_r(copy, " \t", &save); w && argc < 36;
	     w = strtok_r(NULL, " \t", &save))
		argv[argc++] = w;
	if (tg->npids) {
		snprintf(pid, sizeof(pid), "%d", tg->pids[0]);
		argv[argc++] = "-p";
		argv[argc++] = pid;
	}
	argv[argc] = NULL;
	ret = kt_lat_export_start(ec->ctx, argc, argv, &ec->lat);
	if (!ret)
		kt_lat_export_describe(ec->lat, ec->lat_help,
				       sizeof(ec->lat_help));
	free(copy);
	return ret;
}

/* ------------------------------------------------------------ scrape */

static void write_counters(struct export_cmd *ec, FILE *f)
{
	const char *name = "ktrace_events_total";

	if (!ec->st)
		return;
	kt_prom_family(f, name, "counter",
		       "Events counted by perf (as ktrace stat counts them), by event.");
	for (int i = 0; i < ktrace_stat_count(ec->st); i++) {
		struct kt_prom_label l = { "event",
					   ktrace_stat_name(ec->st, i) };
		uint64_t v;

		if (ktrace_stat_read(ec->st, i, &v, NULL, NULL))
			ec->errors++;
		else
			kt_prom_u64(f, name, &l, 1, v);
	}
}

static void write_latency(struct export_cmd *ec, FILE *f)
{
	struct kt_promhist p = { .metric = "ktrace_latency_microseconds",
				 .help = ec->lat_help, .sum = "lat" };
	struct kt_hist_file *hf = NULL;
	struct kt_hist_table *t = NULL;

	if (!ec->lat)
		return;
	if (kt_lat_export_read(ec->lat, &hf, &t) ||
	    kt_promhist_write(f, &p, t))
		ec->errors++;
	kt_hist_file_free(hf);
}

static void write_recipes(struct export_cmd *ec, FILE *f)
{
	const char *dname = "ktrace_hist_dropped_total";

	for (int i = 0; i < ec->nh; i++) {
		struct export_hist *h = &ec->h[i];
		struct kt_promhist p = { .metric = h->metric, .help = h->help,
					 .sum = h->r.sum,
					 .total_only = h->r.total_only };
		struct kt_hist_file *hf = NULL;
		struct kt_hist_table *t = NULL;

		if (!kt_hist_read(ec->hr.inst, h->sys, h->ev, &hf))
			t = hf->n == 1 ? &hf->t[0] :
			    kt_hist_find(hf, h->r.trigger);
		if (!t || kt_promhist_write(f, &p, t))
			ec->errors++;
		else
			h->dropped = t->dropped;
		kt_hist_file_free(hf);
	}
	if (!ec->nh)
		return;
	kt_prom_family(f, dname, "counter",
		       "Events a recipe's full hist table did not count (raise its size).");
	for (int i = 0; i < ec->nh; i++) {
		struct kt_prom_label l = { "recipe", ec->h[i].name };

		kt_prom_u64(f, dname, &l, 1, ec->h[i].dropped);
	}
}

/* GET PATH: /metrics, from the MHD thread (one request at a time). */
static int scrape(void *arg, const char *path, char **body, size_t *len,
		  const char **ctype)
{
	struct export_cmd *ec = arg;
	struct timespec t0;
	FILE *f;

	if (strcmp(path, "/metrics"))
		return 404;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	f = open_memstream(body, len);
	if (!f)
		return 500;
	write_counters(ec, f);
	write_latency(ec, f);
	write_recipes(ec, f);
	kt_prom_family(f, "ktrace_scrape_errors_total", "counter",
		       "Counters or hist tables a scrape could not read.");
	kt_prom_u64(f, "ktrace_scrape_errors_total", NULL, 0, ec->errors);
	kt_prom_family(f, "ktrace_scrape_duration_seconds", "gauge",
		       "Time this scrape took to read the counters and tables.");
	kt_prom_double(f, "ktrace_scrape_duration_seconds", NULL, 0,
		       kt_elapsed(&t0));
	if (fclose(f)) {
		free(*body);
		*body = NULL;
		return 500;
	}
	*ctype = "text/plain; version=0.0.4; charset=utf-8";
	return 200;
}

/* ------------------------------------------------------------ run */

/* Room for KT_HTTPD_MAX_CONNS sockets besides the perf fds. */
static void raise_nofile(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

/* The server, its thread with the stop signals blocked: they come to
 * this thread, whose poll() they end. */
static int serve(struct export_cmd *ec)
{
	sigset_t stop, old;
	struct timespec t0;
	char why[512];
	int err;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	raise_nofile();
	if (ec->web_config &&
	    kt_webcfg_load(ec->web_config, &ec->web, why, sizeof(why)))
		return kt_error(ec->ctx, KT_FAIL, "--web-config %s: %s",
				ec->web_config, why);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	ec->httpd = kt_httpd_start(ec->addr, ec->port,
				   ec->web_config ? &ec->web : NULL, scrape,
				   ec, &err);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ec->httpd)
		return kt_error(ec->ctx, KT_FAIL, "cannot listen on %s:%u: %s",
				ec->addr, ec->port, err == -ENOTSUP ?
				"this ktrace is built without an HTTP server (the static one; use the shared build)" :
				strerror(-err));
	fprintf(ec->ctx->err, "ktrace export: serving http%s://%s%s%s:%u/metrics (%s)\n",
		ec->web.cert ? "s" : "",
		strchr(ec->addr, ':') ? "[" : "", ec->addr,
		strchr(ec->addr, ':') ? "]" : "", kt_httpd_port(ec->httpd),
		ec->what);
	fflush(ec->ctx->err);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!kt_stop_signal) {
		if (ec->co.duration > 0 &&
		    kt_elapsed(&t0) >= ec->co.duration)
			break;
		poll(NULL, 0, 200);
	}
	return KT_OK;
}

/* Take back what the run made: the server first (no scrape reads what
 * goes), the triggers, the instance, then the counters and probes. */
static int export_teardown(struct export_cmd *ec)
{
	int ret = KT_OK;

	kt_httpd_stop(ec->httpd);
	ec->httpd = NULL;
	kt_webcfg_free(&ec->web);
	for (int i = 0; i < ec->nh; i++) {
		struct export_hist *h = &ec->h[i];
		int r = h->started ? kt_hist_stop(ec->hr.inst, h->sys, h->ev,
						  h->r.trigger) : 0;

		if (r)
			ret = kt_error(ec->ctx, KT_FAIL,
				       "cannot remove the hist trigger on %s: %s",
				       h->r.event, strerror(-r));
	}
	if (ec->lat)
		ec->hr.inst = NULL;	/* --latency's, which removes it */
	if (kt_hrun_destroy(&ec->hr))
		ret = KT_FAIL;
	if (kt_lat_export_stop(ec->lat))
		ret = KT_FAIL;
	ec->lat = NULL;
	ktrace_stat_free(ec->st);
	ec->st = NULL;
	kt_inline_destroy(ec->ctx, &ec->inl);
	for (int i = 0; i < ec->nh; i++)
		kt_inline_destroy(ec->ctx, &ec->h[i].inl);
	return ret;
}

static void export_free(struct export_cmd *ec)
{
	for (int i = 0; i < ec->nh; i++) {
		kt_hist_recipe_free(&ec->h[i].r);
		free(ec->h[i].name);
		free(ec->h[i].metric);
		free(ec->h[i].sys);
		free(ec->h[i].ev);
	}
	free(ec->h);
	kt_strv_free(&ec->recipes);
	kt_capture_opts_free(&ec->co);
}

static int export_run(struct export_cmd *ec)
{
	struct kt_target *tg = &ec->co.tg;
	int ret;

	/* what a killed ktrace left: its instance, then its probes */
	ktrace_probe_cleanup_stale(ec->ctx->tfs);
	ret = kt_target_prepare(ec->ctx, tg, ec->recipes.n > 0);
	if (ret)
		return ret;
	kt_target_describe(tg, ec->what, sizeof(ec->what));
	ec->hr = (struct kt_hrun){ .ctx = ec->ctx, .tg = tg,
				   .what = ec->what, .pidfd = -1 };
	ret = open_counters(ec);
	if (!ret && ec->latency)
		ret = start_latency(ec);
	if (!ret)
		ret = start_recipes(ec);
	if (!ret && !kt_stop_signal)
		ret = serve(ec);
	return ret;
}

int cmd_export(struct kt_ctx *ctx, int argc, char **argv)
{
	struct export_cmd ec = { .ctx = ctx, .co = KT_CAPTURE_OPTS_INIT,
				 .port = DEFAULT_PORT,
				 .hr = { .pidfd = -1 } };
	int ret;

	snprintf(ec.addr, sizeof(ec.addr), DEFAULT_ADDR);
	ec.co.lists = true;
	ec.co.tg.max_pids = 1;	/* the counters follow one process */
	ret = export_parse(&ec, argc, argv);
	if (ret >= 0)
		goto out;
	if (!kt_tfs(ctx)) {
		ret = KT_FAIL;
		goto out;
	}
	kt_signals_install(&ec.sigs);
	ret = export_run(&ec);
	if (export_teardown(&ec) && !ret)
		ret = KT_FAIL;
	kt_signals_restore(&ec.sigs);
out:
	kt_target_finish(&ec.co.tg, true);
	export_free(&ec);
	return ret;
}
