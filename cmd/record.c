// SPDX-License-Identifier: GPL-2.0-only
/* ktrace record: capture events through perf ring buffers and print them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktrace_cmd.h"

static const char record_usage[] =
	"Usage: ktrace record -e EVENT [--filter EXPR] [-e EVENT...] [OPTIONS] [-- CMD ARGS...]\n"
	"Record events through perf_event_open ring buffers and print one line per\n"
	"record in time order across CPUs (or write them to a file with -o).\n"
	"\n"
	"EVENT is a glob on SYSTEM:EVENT ('sched:*'), a probe made with\n"
	"`ktrace probe add`, or an inline probe created for this run only and removed\n"
	"at its end: 'kprobe:SPEC', 'kretprobe:SPEC', 'uprobe:BINARY:SYMBOL ARGS',\n"
	"'uretprobe:BINARY:SYMBOL ARGS' (SPEC as in `ktrace probe add`).\n"
	"\n"
	"  -e, --event EVENT     event(s) to record (repeatable); also sampling events:\n"
	"                        cpu-clock, task-clock, page-faults, context-switches,\n"
	"                        cpu-migrations, major-faults, minor-faults, cycles...\n"
	"  -F, --freq HZ         sampling events: HZ samples a second (default 4000)\n"
	"  -c, --count PERIOD    sampling events: a sample every PERIOD events\n"
	"      --filter EXPR     kernel filter for the events of the -e before it\n"
	"  -p, --pid PID[,PID]   existing processes and their threads\n"
	"  -a, --all-cpus        system-wide (default without CMD or -p)\n"
	"  -C, --cpu CPUS        only these CPUs (0,2-3)\n"
	"  -m, --mmap-pages SIZE ring buffer per CPU: pages or size (4M); default 8M,\n"
	"                  32M with DWARF stacks (at most 256M over all CPUs)\n"
	"  -g                    record call stacks (--call-graph dwarf)\n"
	"      --call-graph MODE fp (frame pointers) or dwarf[,SIZE] (DWARF CFI on a\n"
	"                        SIZE-byte copy of the user stack; default 8192)\n"
	"  -o, --output FILE     write a ktrace file (read it with ktrace report)\n"
	"  -j, --json            one JSON object per record\n"
	"  -d, --duration SECS   stop after SECS seconds\n"
	"      --max-events N    stop after N records\n"
	"  -h, --help            this help\n";

static const struct option record_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "filter", required_argument, NULL, 'f' },
	{ "freq", required_argument, NULL, 'F' },
	{ "max-events", required_argument, NULL, 'M' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "call-graph", required_argument, NULL, 'G' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, 'j' },
	{ "duration", required_argument, NULL, 'd' },
	{ "count", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct ev_arg {
	const char *spec;
	const char *filter;
};

struct rec_run {
	struct kt_ctx *ctx;
	struct ktrace_record *rec;
	unsigned long long count;	/* -c */
	unsigned long long printed;
	bool json;
	bool to_file;
	bool write_error;
};

static int print_sample(void *arg, const struct ktrace_sample *s)
{
	struct rec_run *run = arg;
	size_t len;
	const char *line;

	if (run->to_file) {
		if (s->type == KTRACE_SAMPLE_EVENT && run->count &&
		    ++run->printed >= run->count)
			return 1;
		return 0;
	}
	line = ktrace_record_format(run->rec, s, run->json, &len);
	fwrite_unlocked(line, 1, len, run->ctx->out);
	putc_unlocked('\n', run->ctx->out);
	if (ferror_unlocked(run->ctx->out)) {
		run->write_error = true;	/* e.g. | head went away */
		return 1;
	}
	if (s->type == KTRACE_SAMPLE_EVENT && run->count &&
	    ++run->printed >= run->count)
		return 1;
	return 0;
}

/* A round of the capture loop: the records the rings hold by now. */
static int record_round(void *arg, bool *gone)
{
	struct rec_run *run = arg;
	long n = ktrace_record_poll(run->rec, 100, gone, print_sample, run);

	if (n < 0) {
		kt_error(run->ctx, KT_FAIL, "reading the rings: %s",
			 strerror((int)-n));
		return -1;
	}
	if (run->write_error || (n > 0 && run->count &&
				 run->printed >= run->count))
		return 1;
	/* Lines reach a file or pipe at least once a round. */
	if (n > 0 && !run->to_file)
		fflush(run->ctx->out);
	return 0;
}

struct rec_add {
	struct kt_ctx *ctx;
	struct ktrace_record *rec;
	const struct ev_arg *evargs;	/* the filter of each -e */
};

static int add_one(void *arg, int i, const char *name)
{
	struct rec_add *ra = arg;
	struct ktrace_err err = { .pos = -1 };
	int ret;

	if (ktrace_record_add_event(ra->rec, name, ra->evargs[i].filter,
				    &err) < 0) {
		ret = kt_error_detail(ra->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	return KT_OK;
}

/* perf's default user stack copy for --call-graph dwarf. */
#define KT_DWARF_STACK_DEFAULT 8192

/* --call-graph fp | dwarf[,SIZE], as perf record takes it. */
static int call_graph_parse(struct kt_ctx *ctx, const char *arg,
			    struct ktrace_record_opts *ro)
{
	char *end;
	unsigned long size;

	ro->callchain = true;
	if (!strcmp(arg, "fp")) {
		ro->dwarf_stack = 0;
		return KT_OK;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		return kt_usage_error(ctx, NULL,
				      "bad call graph mode '%s': fp or dwarf[,SIZE]",
				      arg);
	ro->dwarf_stack = KT_DWARF_STACK_DEFAULT;
	if (!arg[5])
		return KT_OK;
	errno = 0;
	size = strtoul(arg + 6, &end, 0);
	if (errno || end == arg + 6 || *end || !size || size > 65528 ||
	    size % 8)
		return kt_usage_error(ctx, NULL,
				      "bad DWARF stack size '%s': bytes, a multiple of 8 up to 65528",
				      arg + 6);
	ro->dwarf_stack = size;
	return KT_OK;
}

int cmd_record(struct kt_ctx *ctx, int argc, char **argv)
{
	struct ktrace_record_opts ro = { 0 };
	struct ktrace_err err = { .pos = -1 };
	struct ev_arg *evargs = NULL;
	struct kt_inline inl = { 0 };
	char **specs = NULL;
	struct ktrace_record *rec = NULL;
	struct rec_run run = { .ctx = ctx };
	struct kt_signals sigs = { 0 };
	struct kt_target tg = KT_TARGET_INIT;
	const char *output = NULL;
	int nev = 0, opt, ret = KT_OK, out_fd = -1, status;
	bool stopped = false, cg_set = false;
	enum kt_loop_end end;
	double duration = 0;
	struct timespec t0;

	while ((opt = getopt_long(argc, argv, "+e:p:aC:m:go:jd:c:F:h",
				  record_opts, NULL)) != -1) {
		switch (opt) {
		case 'e': {
			struct ev_arg *nv = realloc(evargs,
						    (nev + 1) * sizeof(*nv));

			if (!nv) {
				ret = kt_error(ctx, KT_FAIL, "out of memory");
				goto out;
			}
			evargs = nv;
			evargs[nev].spec = optarg;
			evargs[nev].filter = NULL;
			nev++;
			break;
		}
		case 'f':
			if (!nev) {
				ret = kt_usage_error(ctx, NULL,
						     "--filter must follow the -e it applies to");
				goto out;
			}
			if (evargs[nev - 1].filter) {
				ret = kt_usage_error(ctx, NULL,
						     "two --filter for -e '%s'",
						     evargs[nev - 1].spec);
				goto out;
			}
			evargs[nev - 1].filter = optarg;
			break;
		case 'p':
		case 'a':
		case 'C':
			ret = kt_target_opt(ctx, &tg, opt, optarg);
			if (ret)
				goto out;
			break;
		case 'm':
			if (kt_ring_pages_parse(optarg, &ro.ring_pages)) {
				ret = kt_usage_error(ctx, NULL,
						     "bad ring size '%s': pages (a power of two) or a size like 512K, 8M",
						     optarg);
				goto out;
			}
			break;
		case 'g':
			ro.callchain = true;
			if (!cg_set)
				ro.dwarf_stack = KT_DWARF_STACK_DEFAULT;
			break;
		case 'G':
			ret = call_graph_parse(ctx, optarg, &ro);
			if (ret)
				goto out;
			cg_set = true;
			break;
		case 'o':
			output = optarg;
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'd':
			ret = kt_seconds_parse(ctx, optarg, &duration);
			if (ret)
				goto out;
			break;
		case 'M': {
			char *end;

			run.count = strtoull(optarg, &end, 10);
			if (*end || !run.count || *optarg == '-') {
				ret = kt_usage_error(ctx, NULL,
						     "bad event count '%s'", optarg);
				goto out;
			}
			break;
		}
		case 'c':
		case 'F': {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || *end || !v || *optarg == '-' ||
			    (opt == 'F' && v > 1000000)) {
				ret = kt_usage_error(ctx, NULL, opt == 'F' ?
						     "bad frequency '%s' (samples a second, 1 to 1000000)" :
						     "bad period '%s' (events per sample)",
						     optarg);
				goto out;
			}
			if (opt == 'F') {
				ro.sample_freq = v;
				ro.sample_period = 0;
			} else {
				ro.sample_period = v;
				ro.sample_freq = 0;
			}
			break;
		}
		case 'h':
			fputs(record_usage, ctx->out);
			goto out;
		default:
			ret = kt_usage_error(ctx, record_usage,
					     "bad option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	argc -= optind;
	argv += optind;
	if (!nev) {
		ret = kt_usage_error(ctx, record_usage,
				     "missing -e EVENT");
		goto out;
	}
	ret = kt_target_check(ctx, &tg, argc, argv);
	if (ret)
		goto out;
	for (int i = 0; i < nev; i++) {
		if (!kt_inline_is(evargs[i].spec) &&
		    kt_glob_check(evargs[i].spec)) {
			ret = kt_usage_error(ctx, NULL,
					     "bad event '%s': expected SYSTEM:EVENT (globs allowed) or kprobe:/kretprobe:/uprobe:/uretprobe:SPEC",
					     evargs[i].spec);
			goto out;
		}
	}
	if (!kt_tfs(ctx)) {
		ret = KT_FAIL;
		goto out;
	}
	kt_signals_install(&sigs);
	rec = ktrace_record_alloc(ctx->tfs);
	specs = calloc(nev, sizeof(*specs));
	if (!rec || !specs) {
		ret = kt_error(ctx, KT_FAIL, "out of memory");
		goto out;
	}
	run.rec = rec;
	run.json = ctx->json;
	for (int i = 0; i < nev; i++)
		specs[i] = (char *)evargs[i].spec;
	/* Events: globs expanded; filters go with the -e before them. */
	{
		struct rec_add add = { .ctx = ctx, .rec = rec,
				       .evargs = evargs };

		ret = kt_events_expand(ctx, &inl, specs, nev, add_one, &add);
		if (ret)
			goto out;
	}
	/* The command waits on a pipe until every event is open; -p PID:
	 * the process with the threads it has now (inherit follows the
	 * ones it makes later). */
	ret = kt_target_prepare(ctx, &tg, true);
	if (ret)
		goto out;
	ro.pids = tg.pids;
	ro.nr_pids = tg.npids;
	ro.inherit = tg.npids > 0;
	ro.enable_on_exec = tg.argc > 0;
	ro.cpus = tg.cpus;
	ro.nr_cpus = tg.ncpus;
	if (ktrace_record_open(rec, &ro, &err) < 0) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		goto out;
	}
	if (output) {
		char cmdline[1024] = "";

		for (int i = 0; i < argc && strlen(cmdline) < 900; i++) {
			strcat(cmdline, i ? " " : "");
			strncat(cmdline, argv[i], 900 - strlen(cmdline));
		}
		out_fd = strcmp(output, "-") ?
			 open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0644) : dup(STDOUT_FILENO);
		if (out_fd < 0) {
			ret = kt_error(ctx, KT_FAIL, "cannot create '%s': %s",
				       output, strerror(errno));
			goto out;
		}
		if (ktrace_record_output(rec, out_fd, cmdline, &err) < 0) {
			ret = kt_error_detail(ctx, KT_FAIL, &err);
			goto out;
		}
		run.to_file = true;
	}

	if (!ro.enable_on_exec && ktrace_record_enable(rec) < 0) {
		ret = kt_error(ctx, KT_FAIL, "cannot enable the events: %s",
			       strerror(errno));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = kt_target_start(ctx, &tg);
	if (ret)
		goto out;
	end = kt_loop_run(&tg, &t0, duration, record_round, &run);
	if (end == KT_LOOP_FAILED)
		ret = KT_FAIL;
	/* -d, --max-events: the command stopped on purpose */
	stopped = end == KT_LOOP_DURATION ||
		  (end == KT_LOOP_COMMAND && !run.write_error);
	ktrace_record_disable(rec);
	if (!(run.count && run.printed >= run.count) && !run.write_error)
		ktrace_record_drain(rec, print_sample, &run);
	if (fflush(ctx->out) || run.write_error) {
		ret = kt_error(ctx, KT_FAIL, "writing the records failed: %s",
			       strerror(errno ? errno : EIO));
		clearerr(ctx->out);
	}
	if (output) {
		uint64_t bytes = 0;

		int werr = ktrace_record_output_close(rec, &bytes);

		if (werr < 0)
			ret = kt_error(ctx, KT_FAIL, "writing '%s' failed: %s",
				       output, strerror(-werr));
		else
			fprintf(ctx->err, "ktrace record: wrote %llu bytes to %s\n",
				(unsigned long long)bytes, output);
	}
	{
		struct ktrace_record_stats st;

		ktrace_record_stats(rec, &st);
		fprintf(ctx->err, "ktrace record: %llu records captured",
			(unsigned long long)st.samples);
		for (int i = 0; i < ktrace_record_nr_events(rec); i++)
			fprintf(ctx->err, "%s %s: %llu", i ? "," : ";",
				ktrace_record_event_name(rec, i),
				(unsigned long long)st.per_event[i]);
		fputc('\n', ctx->err);
		if (st.lost) {
			fprintf(ctx->err, "ktrace record: LOST %llu records:",
				(unsigned long long)st.lost);
			for (int c = 0; c < st.nr_cpus; c++)
				if (st.lost_per_cpu[c])
					fprintf(ctx->err, " cpu%d: %llu", c,
						(unsigned long long)
						st.lost_per_cpu[c]);
			fputs(" (use a larger -m)\n", ctx->err);
		}
		if (st.late)
			fprintf(ctx->err, "ktrace record: %llu records arrived after newer ones and are printed out of time order\n",
				(unsigned long long)st.late);
		if (st.user_only)
			fputs("ktrace record: sampled user space only: the kernel's side needs root or CAP_PERFMON, or a lower /proc/sys/kernel/perf_event_paranoid\n",
			      ctx->err);
		kt_inline_report_misses(ctx, &inl);
	}
out:
	/* A workload still running after -d, -c or a signal is stopped. */
	status = kt_target_finish(&tg, kt_stop_signal || ret || stopped);
	/* Close the perf fds before removing the probes they use. */
	ktrace_record_free(rec);
	if (out_fd >= 0)
		close(out_fd);
	kt_inline_destroy(ctx, &inl);
	kt_signals_restore(&sigs);
	free(specs);
	free(evargs);
	ktrace_err_clear(&err);
	/* The workload's exit status, unless -d/-c ended it on purpose. */
	ret = kt_target_status(&tg, ret, status, stopped);
	return ret;
}
