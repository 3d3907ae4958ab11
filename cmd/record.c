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
	"Usage: ktrace record [-e EVENT [--filter EXPR]...] [OPTIONS] [-- CMD ARGS...]\n"
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
	"                        (none given: cpu-clock, as perf without a PMU)\n"
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
	"      --off-cpu         where the traced tasks wait: one 'offcpu-time' sample\n"
	"                        per period a task is off the CPU waiting (not\n"
	"                        preempted), its period the nanoseconds until it ran\n"
	"                        again, with the stack it was switched out with\n"
	"                        (implies -g; alone, no cpu-clock sampling)\n"
	"      --strings         system calls' string arguments as text: each\n"
	"                        syscalls:sys_enter_* event with a 'const char *'\n"
	"                        argument recorded through an event probe\n"
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
	{ "strings", no_argument, NULL, 'S' },
	{ "off-cpu", no_argument, NULL, 'O' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A run of record: its options, then what it opened. */
struct rec_cmd {
	struct kt_ctx *ctx;
	struct kt_capture_opts co;	/* -e, --filter, the target, -d, -F, -c */
	struct ktrace_record_opts ro;
	bool cg_set;			/* --call-graph given: -g keeps it */
	bool strings;			/* --strings */
	bool off_cpu;			/* --off-cpu */
	const char *output;		/* -o */
	unsigned long long count;	/* --max-events */
	struct ktrace_record *rec;
	struct kt_inline inl;
	struct kt_signals sigs;
	int out_fd;
	unsigned long long printed;
	bool to_file;
	bool write_error;
	bool nomem;		/* a record could not be formatted */
};

static int print_sample(void *arg, const struct ktrace_sample *s)
{
	struct rec_cmd *rc = arg;
	size_t len;
	const char *line;

	if (rc->to_file) {
		if (s->type == KTRACE_SAMPLE_EVENT && rc->count &&
		    ++rc->printed >= rc->count)
			return 1;
		return 0;
	}
	line = ktrace_record_format(rc->rec, s, rc->ctx->json, &len);
	if (!line) {
		rc->nomem = true;
		return 1;
	}
	fwrite_unlocked(line, 1, len, rc->ctx->out);
	putc_unlocked('\n', rc->ctx->out);
	if (ferror_unlocked(rc->ctx->out)) {
		rc->write_error = true;	/* e.g. | head went away */
		return 1;
	}
	if (s->type == KTRACE_SAMPLE_EVENT && rc->count &&
	    ++rc->printed >= rc->count)
		return 1;
	return 0;
}

/* A round of the capture loop: the records the rings hold by now. */
static int record_round(void *arg, bool *gone)
{
	struct rec_cmd *rc = arg;
	long n = ktrace_record_poll(rc->rec, 100, gone, print_sample, rc);

	/* -o failed (a full disk): stop; record_finish() says it, once */
	if (rc->output && ktrace_record_output_error(rc->rec))
		return -1;
	if (n == -ENOMEM) {	/* said once, at the end */
		rc->nomem = true;
		return -1;
	}
	if (n < 0) {
		kt_error(rc->ctx, KT_FAIL, "reading the rings: %s",
			 strerror((int)-n));
		return -1;
	}
	if (rc->write_error || rc->nomem || (n > 0 && rc->count &&
				rc->printed >= rc->count))
		return 1;
	/* Lines reach a file or pipe at least once a round. */
	if (n > 0 && !rc->to_file)
		fflush(rc->ctx->out);
	return 0;
}

/* An event of -e i, with that -e's --filter. */
static int add_one(void *arg, int i, const char *name)
{
	struct rec_cmd *rc = arg;
	struct ktrace_err err = { .pos = -1 };
	int ret;

	if (ktrace_record_add_event(rc->rec, name, rc->co.filters[i],
				    &err) < 0) {
		ret = kt_error_detail(rc->ctx, KT_FAIL, &err);
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

/* An option of record's own (not shared with stat and top): KT_OK, a
 * usage error, or -1 when it is none of them. */
static int record_opt(struct rec_cmd *rc, int opt, const char *arg)
{
	struct kt_ctx *ctx = rc->ctx;
	char *end;
	int ret;

	switch (opt) {
	case 'm':
		if (kt_ring_pages_parse(arg, &rc->ro.ring_pages))
			return kt_usage_error(ctx, NULL,
					      "bad ring size '%s': pages (a power of two) or a size like 512K, 8M",
					      arg);
		return KT_OK;
	case 'g':
		rc->ro.callchain = true;
		if (!rc->cg_set)
			rc->ro.dwarf_stack = KT_DWARF_STACK_DEFAULT;
		return KT_OK;
	case 'G':
		ret = call_graph_parse(ctx, arg, &rc->ro);
		rc->cg_set = !ret;
		return ret;
	case 'o':
		rc->output = arg;
		return KT_OK;
	case 'S':
		rc->strings = true;
		return KT_OK;
	case 'O':
		/* the stack each wait starts at: -g's unless --call-graph */
		rc->off_cpu = true;
		return record_opt(rc, 'g', NULL);
	case 'j':
		ctx->json = true;
		return KT_OK;
	case 'M':
		rc->count = strtoull(arg, &end, 10);
		if (*end || !rc->count || *arg == '-')
			return kt_usage_error(ctx, NULL, "bad event count '%s'",
					      arg);
		return KT_OK;
	}
	return -1;
}

/* The command line into rc. -1 to go on, else the exit status (--help,
 * a usage error). */
static int record_parse(struct rec_cmd *rc, int argc, char **argv)
{
	struct kt_ctx *ctx = rc->ctx;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+:e:p:aC:m:go:jd:c:F:h",
				  record_opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(record_usage, ctx->out);
			return KT_OK;
		}
		ret = kt_capture_opt(ctx, &rc->co, opt, optarg);
		if (ret < 0)
			ret = record_opt(rc, opt, optarg);
		if (ret < 0)
			ret = kt_bad_option(ctx, record_usage, opt,
					    argv[optind - 1]);
		if (ret)
			return ret;
	}
	/* no -e: perf samples cycles, or cpu-clock where there is no PMU;
	 * --off-cpu alone records where the tasks wait only */
	if (!rc->co.nspecs && !rc->off_cpu) {
		ret = kt_capture_opt(ctx, &rc->co, 'e', "cpu-clock");
		if (ret)
			return ret;
	}
	ret = kt_target_check(ctx, &rc->co.tg, argc - optind, argv + optind);
	return ret ? ret : -1;
}

/* The events of -e (globs expanded, inline probes made), then the rings
 * for the target. The command waits on a pipe until every event is open;
 * -p PID: the process with the threads it has now (inherit follows the
 * ones it makes later). */
static int record_open(struct rec_cmd *rc)
{
	struct kt_target *tg = &rc->co.tg;
	struct ktrace_err err = { .pos = -1 };
	int ret;

	rc->rec = ktrace_record_alloc(rc->ctx->tfs);
	if (!rc->rec)
		return kt_error(rc->ctx, KT_FAIL, "out of memory");
	/* a signal ends the run whatever a binary's reader is doing */
	ktrace_record_set_stop(rc->rec, &kt_stop_signal);
	if (rc->strings) {
		ret = kt_inline_strings(rc->ctx, &rc->co);
		if (ret)
			return ret;
	}
	ret = kt_events_expand(rc->ctx, &rc->inl, rc->co.specs, rc->co.nspecs,
			       add_one, rc);
	if (ret)
		return ret;
	if (rc->off_cpu && ktrace_record_add_off_cpu(rc->rec, &err) < 0) {
		ret = kt_error_detail(rc->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	ret = kt_target_prepare(rc->ctx, tg, true);
	if (ret)
		return ret;
	rc->ro.pids = tg->pids;
	rc->ro.nr_pids = tg->npids;
	rc->ro.inherit = tg->npids > 0;
	rc->ro.enable_on_exec = tg->argc > 0;
	rc->ro.cpus = tg->cpus;
	rc->ro.nr_cpus = tg->ncpus;
	rc->ro.sample_freq = rc->co.sample_freq;
	rc->ro.sample_period = rc->co.sample_period;
	if (ktrace_record_open(rc->rec, &rc->ro, &err) < 0) {
		ret = kt_error_detail(rc->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
	}
	return ret;
}

/* -o FILE ('-': standard output): a ktrace file, which names the command. */
static int record_output(struct rec_cmd *rc)
{
	const struct kt_target *tg = &rc->co.tg;
	struct ktrace_err err = { .pos = -1 };
	char cmdline[1024] = "";
	int ret;

	rc->out_fd = kt_output_open(rc->ctx, tg, rc->output, cmdline,
				    sizeof(cmdline));
	if (rc->out_fd < 0)
		return KT_FAIL;
	if (ktrace_record_output(rc->rec, rc->out_fd, cmdline, &err) < 0) {
		ret = kt_error_detail(rc->ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	rc->to_file = true;
	return KT_OK;
}

/* After the loop: the records still in the rings, then the output's
 * errors and -o's file closed. ret, or KT_FAIL when writing failed. */
static int record_finish(struct rec_cmd *rc, int ret)
{
	struct kt_ctx *ctx = rc->ctx;

	ktrace_record_disable(rc->rec);
	if (!(rc->count && rc->printed >= rc->count) && !rc->write_error &&
	    !rc->nomem)
		ktrace_record_drain(rc->rec, print_sample, rc);
	if (rc->nomem) {
		fflush(ctx->out);
		return kt_error(ctx, KT_FAIL, "out of memory");
	}
	if (fflush(ctx->out) || rc->write_error) {
		ret = kt_error(ctx, KT_FAIL, "writing the records failed: %s",
			       strerror(errno ? errno : EIO));
		clearerr(ctx->out);
	}
	if (rc->output) {
		uint64_t bytes = 0;
		int werr = ktrace_record_output_close(rc->rec, &bytes);

		if (werr == -ENOMEM) {
			rc->nomem = true;
			ret = kt_error(ctx, KT_FAIL, "out of memory");
		} else if (werr < 0) {
			ret = kt_error(ctx, KT_FAIL, "writing '%s' failed: %s",
				       rc->output, strerror(-werr));
		} else {
			fprintf(ctx->err, "ktrace record: wrote %llu bytes to %s\n",
				(unsigned long long)bytes, rc->output);
		}
	}
	return ret;
}

/*
 * "N records captured; EVENT: COUNT, ..." with the events that have
 * records only (a 'syscalls:*' recording has hundreds without), wrapped
 * at 80 columns; the others counted at the end, or named when alone.
 */
static void summary_counts(struct rec_cmd *rc,
			   const struct ktrace_record_stats *st)
{
	FILE *err = rc->ctx->err;
	int nr = ktrace_record_nr_events(rc->rec), zero = 0, col, items = 0;
	const char *zero_name = NULL;
	char item[256];

	col = fprintf(err, "ktrace record: %llu records captured",
		      (unsigned long long)st->samples);
	for (int i = 0; i <= nr; i++) {
		if (i < nr && !st->per_event[i]) {
			zero++;
			zero_name = ktrace_record_event_name(rc->rec, i);
			continue;
		}
		if (i < nr)
			snprintf(item, sizeof(item), "%s: %llu",
				 ktrace_record_event_name(rc->rec, i),
				 (unsigned long long)st->per_event[i]);
		else if (zero == 1)
			snprintf(item, sizeof(item), "%s: 0", zero_name);
		else if (zero)
			snprintf(item, sizeof(item), "%d %sevents: 0",
				 zero, items ? "other " : "");
		else
			break;
		if (col + 2 + (int)strlen(item) > 79) {
			fputs(items ? ",\n " : ";\n ", err);
			col = 1;
		} else {
			fputs(items ? ", " : "; ", err);
			col += 2;
		}
		col += fprintf(err, "%s", item);
		items++;
	}
	fputc('\n', err);
}

/* What was captured, per event; what was lost, late or user space only. */
static void record_summary(struct rec_cmd *rc)
{
	FILE *err = rc->ctx->err;
	struct ktrace_record_stats st;

	ktrace_record_stats(rc->rec, &st);
	summary_counts(rc, &st);
	if (st.lost) {
		fprintf(err, "ktrace record: LOST %llu records:",
			(unsigned long long)st.lost);
		for (int c = 0; c < st.nr_cpus; c++)
			if (st.lost_per_cpu[c])
				fprintf(err, " cpu%d: %llu", c,
					(unsigned long long)st.lost_per_cpu[c]);
		fputs(" (use a larger -m)\n", err);
	}
	if (st.late)
		fprintf(err, "ktrace record: %llu records arrived after newer ones and are printed out of time order\n",
			(unsigned long long)st.late);
	if (st.user_only)
		fputs("ktrace record: sampled user space only: the kernel's side needs root or CAP_PERFMON, or a lower /proc/sys/kernel/perf_event_paranoid\n",
		      err);
	kt_inline_report_misses(rc->ctx, &rc->inl);
}

int cmd_record(struct kt_ctx *ctx, int argc, char **argv)
{
	struct rec_cmd rc = { .ctx = ctx, .co = KT_CAPTURE_OPTS_INIT,
			      .out_fd = -1 };
	struct kt_target *tg = &rc.co.tg;
	bool stopped = false;
	enum kt_loop_end end;
	struct timespec t0;
	int ret, status;

	ret = record_parse(&rc, argc, argv);
	if (ret >= 0)
		goto out;
	if (!kt_tfs(ctx)) {
		ret = KT_FAIL;
		goto out;
	}
	kt_signals_install(&rc.sigs);
	ret = record_open(&rc);
	if (!ret && rc.output)
		ret = record_output(&rc);
	if (ret)
		goto out;
	if (!rc.ro.enable_on_exec && ktrace_record_enable(rc.rec) < 0) {
		ret = kt_error(ctx, KT_FAIL, "cannot enable the events: %s",
			       strerror(errno));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = kt_target_start(ctx, tg);
	if (ret)
		goto out;
	end = kt_loop_run(tg, &t0, rc.co.duration, record_round, &rc);
	if (end == KT_LOOP_FAILED)
		ret = KT_FAIL;
	/* -d, --max-events: the command stopped on purpose */
	stopped = end == KT_LOOP_DURATION ||
		  (end == KT_LOOP_COMMAND && !rc.write_error && !rc.nomem);
	ret = record_finish(&rc, ret);
	if (!rc.nomem)	/* out of memory: that one line */
		record_summary(&rc);
out:
	/* A workload still running after -d, --max-events or a signal is
	 * stopped. */
	status = kt_target_finish(tg, kt_stop_signal || ret || stopped);
	/* Close the perf fds before removing the probes they use. */
	ktrace_record_free(rc.rec);
	if (rc.out_fd >= 0)
		close(rc.out_fd);
	kt_inline_destroy(ctx, &rc.inl);
	kt_signals_restore(&rc.sigs);
	kt_capture_opts_free(&rc.co);
	/* The workload's exit status, unless -d or --max-events ended it on
	 * purpose. */
	return kt_target_status(tg, ret, status, stopped);
}
