// SPDX-License-Identifier: GPL-2.0-only
/* ktrace report: print a file written by `ktrace record -o`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"

static const char report_usage[] =
	"Usage: ktrace report [-i FILE] [--json] [--raw] [--header] [--sort KEYS | --folded]\n"
	"       ktrace report [-i FILE] --flamegraph FILE.svg | --perfetto FILE.json\n"
	"       ktrace report [-i FILE] --pprof FILE.pb.gz\n"
	"       ktrace report [-i FILE] [--json] --children | --callers SYM | --callees SYM\n"
	"       ktrace report [--json] [--folded | --flamegraph FILE.svg] --diff OLD NEW\n"

	"Print a recording made with `ktrace record -o FILE` exactly as the live\n"
	"run would have printed it. The file is self-contained: it can be read on\n"
	"another machine.\n"
	"\n"
	"  -i, --input FILE  the recording (default: ktrace.data; '-': standard\n"
	"                    input, as written by `ktrace record -o -`)\n"
	"  -j, --json        one JSON object per record\n"
	"  -D, --raw         dump every perf record: type, size, header fields\n"
	"      --header      print only what the file says about its recording\n"
	"  -s, --sort KEYS   a flat profile, like perf report: overhead (share of the\n"
	"                    sampled period; 1 per record for tracepoints), samples,\n"
	"                    then KEYS, any of comm,dso,sym,event (default comm,dso,sym);\n"
	"                    by the record's own address (its innermost frame)\n"
	"      --children    per --sort key, the share of the samples it is in\n"
	"                    (Children: with what it calls) and its own (Self)\n"
	"      --callers SYM the paths into function SYM, from it outward\n"
	"      --callees SYM the paths out of function SYM, from it inward\n"
	"      --percent-limit PCT  leave out rows (and fold tree nodes) under PCT%\n"
	"                    of the period (trees: 0.5 by default)\n"
	"      --inline      inlined functions on their own (default: counted as\n"
	"                    the function they are inlined into, as perf does)\n"
	"      --diff OLD NEW  the change in each --sort key's share (default\n"
	"                    dso,sym) from recording OLD to NEW, largest first;\n"
	"                    with --folded each stack's samples in both, with\n"
	"                    --flamegraph a differential flame graph of NEW\n"
	"                    (red grew, blue shrank)\n"

	"      --folded      one line per distinct stack, 'comm;outer;...;inner COUNT',\n"
	"                    the input of flame graph tools\n"
	"      --flamegraph FILE.svg  a flame graph of the stacks: one SVG file that any\n"
	"                    browser opens (hover: name and share; click: zoom)\n"
	"      --perfetto FILE.json  the recording as a trace for the Perfetto UI or\n"
	"                    chrome://tracing: sched_switch as per-CPU slices, other\n"
	"                    records as instants with their fields, stacks, names\n"
	"      --pprof FILE.pb.gz  the stacks as a profile in pprof's format (gzipped\n"
	"                    protobuf) for go tool pprof, Pyroscope, Parca: samples\n"
	"                    and periods (cpu-clock: nanoseconds) per event, locations,\n"
	"                    mappings, functions, inlined frames\n"
	"  -h, --help        this help\n";

static const struct option report_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },
	{ "raw", no_argument, NULL, 'D' },
	{ "header", no_argument, NULL, 'H' },
	{ "sort", required_argument, NULL, 's' },
	{ "folded", no_argument, NULL, 'F' },
	{ "flamegraph", required_argument, NULL, 'G' },
	{ "perfetto", required_argument, NULL, 'P' },
	{ "pprof", required_argument, NULL, 'R' },
	{ "children", no_argument, NULL, 'C' },
	{ "callers", required_argument, NULL, 'U' },
	{ "callees", required_argument, NULL, 'E' },
	{ "percent-limit", required_argument, NULL, 'L' },
	{ "inline", no_argument, NULL, 'I' },
	{ "diff", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* ------------------------------------------------------------- profiles */

struct report_run {
	struct kt_ctx *ctx;
	const char *input;		/* -i */
	const char *svg;		/* --flamegraph */
	const char *trace;		/* --perfetto */
	const char *pprof;		/* --pprof */
	bool raw, header, profile;	/* -D, --header, --sort or --folded */
	struct ktrace_record *rec;
	bool json;
	unsigned long long n;
	/* --sort / --folded; --sort keys and call graphs in cg */
	struct kt_cg_opts cg;
	bool diff, input_set;		/* --diff OLD NEW; -i */
	const char *files[2];		/* --diff: OLD, NEW */
	bool folded;
	/* --folded, --flamegraph: a recording with off-CPU time weighs the
	 * stacks by period (nanoseconds off the CPU; cpu-clock's on it),
	 * not by samples */
	bool by_time;
	struct kt_profile prof;		/* --folded: every event */
	struct kt_profile *per_event;	/* --sort: one per event, as perf */
	int nr_events;
	int error;
};

static int profile_one(void *arg, const struct ktrace_sample *s)
{
	struct report_run *run = arg;
	struct ktrace_frame fr[KT_MAX_FRAMES];
	char comm[32], *key = NULL;
	size_t len = 0;
	FILE *f;
	int n;

	if (s->type != KTRACE_SAMPLE_EVENT)
		return 0;
	/* folded stacks are perf script's: inlined functions as frames */
	n = kt_sample_frames(run->rec, s, fr, KT_MAX_FRAMES,
			     run->folded || run->cg.inl);
	ktrace_record_comm(run->rec, s->tid, comm, sizeof(comm));
	f = open_memstream(&key, &len);
	if (!f)
		return run->error = -ENOMEM;
	if (run->folded)
		kt_folded_key(f, comm, fr, n);
	else
		kt_sort_key(f, run->cg.keys, run->cg.nkeys, comm,
			    n ? &fr[0] : NULL,
			    ktrace_record_event_name(run->rec, s->event));
	if (fclose(f)) {
		free(key);
		return run->error = -ENOMEM;
	}
	if (!run->folded && s->event >= run->nr_events) {
		struct kt_profile *nv = realloc(run->per_event,
					     (s->event + 1) * sizeof(*nv));

		if (!nv) {
			free(key);
			return run->error = -ENOMEM;
		}
		memset(nv + run->nr_events, 0,
		       (s->event + 1 - run->nr_events) * sizeof(*nv));
		run->per_event = nv;
		run->nr_events = s->event + 1;
	}
	run->error = kt_profile_add(run->folded ? &run->prof :
				 &run->per_event[s->event], key,
				 s->period ? s->period : 1);
	return run->error;
}

/* One event's profile (or the folded stacks of all). */
static void print_profile(struct report_run *run, struct kt_profile *p,
			  const char *event)
{
	struct kt_json *j = run->json ? kt_json(run->ctx) : NULL;
	FILE *out = run->ctx->out;
	size_t n = kt_profile_sort(p, run->folded ? kt_prow_by_key :
					kt_prow_by_period);

	if (run->folded) {
		for (size_t i = 0; i < n; i++)
			fprintf(out, "%s %llu\n", p->v[i].key,
				run->by_time ? p->v[i].period :
					       p->v[i].samples);
		return;
	}
	if (j) {
		kt_json_object_begin(j);
		kt_jstr(j, "event", event);
		kt_juint(j, "samples", p->samples);
		kt_juint(j, "period", p->period);
		kt_json_key(j, "rows");
		kt_json_array_begin(j);
	} else {
		fprintf(out, "# Event: %s\n# Samples: %llu, period %llu\n#\n# Overhead  Samples",
			event, p->samples, p->period);
		for (int k = 0; k < run->cg.nkeys; k++)
			fprintf(out, "  %s", kt_sort_titles[run->cg.keys[k]]);
		fputs("\n#\n", out);
	}
	for (size_t i = 0; i < n; i++) {
		double pct = p->period ? 100.0 * p->v[i].period / p->period : 0;
		char *field = p->v[i].key;

		if (pct < run->cg.limit)
			break;	/* sorted by period: the rest are below too */
		if (j) {
			kt_json_object_begin(j);
			kt_json_key(j, "overhead");
			kt_json_double(j, pct);
			kt_juint(j, "samples", p->v[i].samples);
			kt_juint(j, "period", p->v[i].period);
		} else {
			fprintf(out, "%9.2f%%  %7llu", pct, p->v[i].samples);
		}
		for (int k = 0; k < run->cg.nkeys; k++) {
			char *tab = strchr(field, '\t');

			if (tab)
				*tab = '\0';
			if (j)
				kt_jstr(j, kt_sort_names[run->cg.keys[k]],
					field);
			else
				fprintf(out, "  %s", field);
			field = tab ? tab + 1 : field + strlen(field);
		}
		if (j)
			kt_json_object_end(j);
		else
			putc('\n', out);
	}
	if (j) {
		kt_json_array_end(j);
		kt_json_object_end(j);
	} else {
		putc('\n', out);
	}
}

static void print_profiles(struct report_run *run)
{
	struct kt_json *j = run->json ? kt_json(run->ctx) : NULL;

	if (run->folded) {
		print_profile(run, &run->prof, NULL);
		return;
	}
	if (j)
		kt_json_array_begin(j);
	for (int e = 0; e < run->nr_events; e++)
		if (run->per_event[e].n)
			print_profile(run, &run->per_event[e],
				      ktrace_record_event_name(run->rec, e));
	if (j)
		kt_json_array_end(j);
}

/* The folded stacks as a flame graph in path. 0 or -errno. */
static int write_flamegraph(struct report_run *run, const char *path,
			    const char *input)
{
	struct kt_flame *fg = kt_flame_alloc();
	struct kt_profile *p = &run->prof;
	char title[512];
	int ret = fg ? 0 : -ENOMEM;
	FILE *f;

	for (size_t i = 0; !ret && i < p->cap; i++)
		if (p->v[i].key)
			ret = kt_flame_add(fg, p->v[i].key,
					   run->by_time ? p->v[i].period :
							  p->v[i].samples);
	if (ret) {
		kt_flame_free(fg);
		return ret;
	}
	f = strcmp(path, "-") ? fopen(path, "we") : stdout;
	if (!f) {
		ret = -errno;
		kt_flame_free(fg);
		return ret;
	}
	if (run->by_time)
		snprintf(title, sizeof(title),
			 "ktrace flame graph: %s, %.3f s (off-CPU time)", input,
			 p->period / 1e9);
	else
		snprintf(title, sizeof(title),
			 "ktrace flame graph: %s, %llu samples", input,
			 p->samples);
	ret = kt_flame_write(fg, f, title);
	if (f != stdout && fclose(f) && !ret)
		ret = -errno;
	kt_flame_free(fg);
	return ret;
}

/* A file cut off (ktrace killed while writing it): said after the
 * records, on stderr, so they stay a clean stream. */
void kt_report_truncated(struct kt_ctx *ctx, struct ktrace_record *rec,
			 const char *input, long n)
{
	if (n >= 0 && ktrace_record_truncated(rec))
		fprintf(ctx->err,
			"ktrace report: '%s' is truncated (its recording was cut off): %ld records recovered\n",
			input, n);
}

/* --perfetto: the trace into path ('-': standard output). Frees rec. */
static int perfetto(struct kt_ctx *ctx, struct ktrace_record *rec,
		    const char *path, const char *input)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "we") : ctx->out;
	unsigned long missed = 0;
	int error = 0;
	long n;

	if (!f) {
		ktrace_record_free(rec);
		return kt_error(ctx, KT_FAIL, "cannot write '%s': %m", path);
	}
	n = kt_perfetto_write(ctx, rec, f, &error, &missed);
	if (f != ctx->out && fclose(f) && !error)
		error = -errno;
	kt_report_truncated(ctx, rec, input, n);
	if (n >= 0 && missed)
		fprintf(ctx->err,
			"ktrace report: %lu context switches were not recorded by the kernel (a switch's previous task is not the one last switched in): their CPU slices say \"not_recorded\"\n",
			missed);
	ktrace_record_free(rec);
	if (n < 0)
		return kt_error(ctx, KT_FAIL, "'%s': %s", input,
				n == -EBADMSG ?
				"damaged or truncated after the last record written" :
				strerror((int)-n));
	if (error)
		return kt_error(ctx, KT_FAIL, error == -ENOMEM ?
				"out of memory" : "cannot write '%s': %s",
				path, strerror(-error));
	return KT_OK;
}

/* --pprof: the profile into path ('-': standard output). */
static int pprof(struct kt_ctx *ctx, struct ktrace_record *rec,
		 const char *path, const char *input)
{
	unsigned long long no_stack = 0;
	int error = 0;
	long n;

	fflush(ctx->out);
	n = kt_pprof_write(rec, path, input, &error, &no_stack);
	kt_report_truncated(ctx, rec, input, n);
	if (n < 0)
		return kt_error(ctx, KT_FAIL, "'%s': %s", input,
				n == -EBADMSG ?
				"damaged or truncated after the last record written" :
				strerror((int)-n));
	if (error == -ENODATA)
		return kt_error(ctx, KT_FAIL,
				"'%s' has no stack or sampled address to profile (%llu records): record with -g, or a sampling event (-e cpu-clock)",
				input, no_stack);
	if (error)
		return kt_error(ctx, KT_FAIL, error == -ENOMEM ?
				"out of memory" : "cannot write '%s': %s",
				path, strerror(-error));
	if (no_stack)
		fprintf(ctx->err,
			"ktrace report: %llu records without a stack are not in the profile\n",
			no_stack);
	return KT_OK;
}

/* "comm,dso,sym" into run->cg.keys; a usage error for anything else. */
static int sort_parse(struct kt_ctx *ctx, struct report_run *run,
		      const char *arg)
{
	run->cg.nkeys = kt_sort_parse(arg, run->cg.keys);
	if (run->cg.nkeys < 0)
		return kt_usage_error(ctx, NULL,
				      "bad sort key in '%s': comm, dso, sym or event",
				      arg);
	return KT_OK;
}

static int print_one(void *arg, const struct ktrace_sample *s)
{
	struct report_run *run = arg;
	size_t len;
	const char *line = ktrace_record_format(run->rec, s, run->json, &len);

	if (!line) {
		run->error = -ENOMEM;
		return 1;
	}
	fwrite_unlocked(line, 1, len, run->ctx->out);
	putc_unlocked('\n', run->ctx->out);
	return 0;
}

static const char *rec_type_name(uint32_t t)
{
	static const char *const names[] = {
		[1] = "MMAP", [2] = "LOST", [3] = "COMM", [4] = "EXIT",
		[5] = "THROTTLE", [6] = "UNTHROTTLE", [7] = "FORK",
		[8] = "READ", [9] = "SAMPLE", [10] = "MMAP2", [11] = "AUX",
		[12] = "ITRACE_START", [13] = "LOST_SAMPLES",
		[14] = "SWITCH", [15] = "SWITCH_CPU_WIDE",
		[16] = "NAMESPACES", [17] = "KSYMBOL", [18] = "BPF_EVENT",
		[19] = "CGROUP", [20] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
	};

	if (t < sizeof(names) / sizeof(names[0]) && names[t])
		return names[t];
	return "UNKNOWN";
}

static int print_raw(void *arg, uint32_t type, uint16_t misc, uint32_t size,
		     uint64_t time, const void *rec)
{
	struct report_run *run = arg;
	const unsigned char *p = rec;
	FILE *f = run->ctx->out;

	if (run->json) {
		struct kt_json *j = run->ctx->jw;
		char name[64];

		/* one document per line, as the decoded records */
		snprintf(name, sizeof(name), "PERF_RECORD_%s",
			 rec_type_name(type));
		kt_json_object_begin(j);
		kt_juint(j, "index", run->n);
		kt_juint(j, "type", type);
		kt_jstr(j, "name", name);
		kt_juint(j, "misc", misc);
		kt_juint(j, "size", size);
		kt_juint(j, "time", time);
		kt_json_object_end(j);
	} else {
		fprintf(f, "%llu %llu.%09llu [0x%x]: PERF_RECORD_%s misc 0x%x size %u\n",
			run->n, (unsigned long long)(time / 1000000000ull),
			(unsigned long long)(time % 1000000000ull), size,
			rec_type_name(type), misc, size);
		for (uint32_t i = 0; i < size; i += 16) {
			fprintf(f, "    %04x:", i);
			for (uint32_t j = i; j < i + 16 && j < size; j++)
				fprintf(f, " %02x", p[j]);
			putc('\n', f);
		}
	}
	run->n++;
	return 0;
}

/* --percent-limit PCT: a share, 0 to 100. */
static int limit_parse(struct kt_ctx *ctx, struct report_run *run,
		       const char *arg)
{
	char *end;

	errno = 0;
	run->cg.limit = strtod(arg, &end);
	if (errno || end == arg || *end || !(run->cg.limit >= 0) ||
	    run->cg.limit > 100)
		return kt_usage_error(ctx, NULL,
				      "bad --percent-limit '%s': a share from 0 to 100",
				      arg);
	return KT_OK;
}

/* The options into run. -1 to go on, else the exit status (--help, a
 * usage error). */
static int report_parse(struct report_run *run, int argc, char **argv)
{
	struct kt_ctx *ctx = run->ctx;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+:i:jDs:h", report_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 's':
			ret = sort_parse(ctx, run, optarg);
			if (ret)
				return ret;
			run->profile = true;
			break;
		case 'C':
			run->cg.children = true;
			break;
		case 'U':
			run->cg.callers = optarg;
			break;
		case 'E':
			run->cg.callees = optarg;
			break;
		case 'L':
			ret = limit_parse(ctx, run, optarg);
			if (ret)
				return ret;
			break;
		case 'I':
			run->cg.inl = true;
			break;
		case 'd':	/* OLD, then NEW: the next argument */
			run->diff = true;
			run->files[0] = optarg;
			if (optind < argc)
				run->files[1] = argv[optind++];
			break;
		case 'F':
			run->folded = true;
			run->profile = true;
			break;
		case 'G':
			run->svg = optarg;
			run->folded = true;
			run->profile = true;
			break;
		case 'P':
			run->trace = optarg;
			break;
		case 'R':
			run->pprof = optarg;
			break;
		case 'i':
			run->input = optarg;
			run->input_set = true;
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'D':
			run->raw = true;
			break;
		case 'H':
			run->header = true;
			break;
		case 'h':
			fputs(report_usage, ctx->out);
			return KT_OK;
		default:
			return kt_bad_option(ctx, report_usage, opt,
					     argv[optind - 1]);
		}
	}
	if (run->diff && (!run->files[1] || run->input_set))
		return kt_usage_error(ctx, report_usage,
				      "--diff takes two recordings, OLD NEW (and no -i)");
	if (optind < argc)
		return kt_usage_error(ctx, report_usage,
				      "unexpected argument '%s' (the file goes with -i)",
				      argv[optind]);
	return -1;
}

/* Which options go together. -1 to go on, else a usage error. */
static int report_check(struct report_run *run)
{
	struct kt_ctx *ctx = run->ctx;
	bool cg = run->cg.children || run->cg.callers || run->cg.callees;

	if (run->cg.children + !!run->cg.callers + !!run->cg.callees > 1)
		return kt_usage_error(ctx, report_usage,
				      "--children, --callers and --callees go one at a time");
	if (cg && (run->folded || run->raw || run->header || run->trace ||
		   run->pprof))
		return kt_usage_error(ctx, report_usage,
				      "--children, --callers and --callees go with --sort, --percent-limit, --inline and --json only");
	if (cg)
		run->profile = false;	/* --sort's keys are cg's */
	if (run->diff && (cg || run->raw || run->header || run->trace ||
			  run->pprof))
		return kt_usage_error(ctx, report_usage,
				      "--diff goes with --sort, --folded, --flamegraph, --percent-limit, --inline and --json only");
	if (run->diff && !run->cg.nkeys && !run->folded) {
		run->cg.keys[0] = KT_SK_DSO;	/* perf diff's default */
		run->cg.keys[1] = KT_SK_SYM;
		run->cg.nkeys = 2;
	}
	if (run->profile && (run->raw || run->header ||
			     (run->folded && run->cg.nkeys)))
		return kt_usage_error(ctx, report_usage,
				      "--sort, --folded, --raw and --header go alone");
	if (run->trace && (run->profile || run->raw || run->header ||
			   ctx->json))
		return kt_usage_error(ctx, report_usage,
				      "--perfetto goes alone (it writes JSON of its own)");
	if (run->pprof && (run->trace || run->profile || run->raw ||
			   run->header || ctx->json))
		return kt_usage_error(ctx, report_usage,
				      "--pprof goes alone (it writes a profile of its own)");
	if (run->folded && ctx->json)
		return kt_usage_error(ctx, report_usage,
				      "--folded and --flamegraph are not JSON");
	if (!run->cg.nkeys) {
		run->cg.keys[0] = KT_SK_COMM;
		run->cg.keys[1] = KT_SK_DSO;
		run->cg.keys[2] = KT_SK_SYM;
		run->cg.nkeys = 3;
	}
	return -1;
}

/* Every record: printed (decoded or -D raw), or into the profiles, which
 * are then printed or drawn. */
static int report_replay(struct report_run *run)
{
	struct kt_ctx *ctx = run->ctx;
	long n;

	run->by_time = ktrace_record_off_cpu_event(run->rec) >= 0;
	n = ktrace_record_replay(run->rec, run->raw ? NULL :
				 run->profile ? profile_one : print_one, run,
				 run->raw ? print_raw : NULL, run);
	if (run->svg && n >= 0 && !run->error)
		run->error = write_flamegraph(run, run->svg, run->input);
	else if (run->profile && n >= 0 && !run->error)
		print_profiles(run);
	kt_profile_free(&run->prof);
	for (int e = 0; e < run->nr_events; e++)
		kt_profile_free(&run->per_event[e]);
	free(run->per_event);
	fflush(ctx->out);
	kt_report_truncated(ctx, run->rec, run->input, n);
	if (run->error)
		return kt_error(ctx, KT_FAIL, run->error == -ENOMEM ?
				"out of memory" : "cannot write '%s': %s",
				run->svg, strerror(-run->error));
	if (n < 0)
		return kt_error(ctx, KT_FAIL, "'%s': %s", run->input,
				n == -EBADMSG ?
				"damaged or truncated after the last record shown" :
				strerror((int)-n));
	return KT_OK;
}

int cmd_report(struct kt_ctx *ctx, int argc, char **argv)
{
	struct report_run run = {
		.ctx = ctx, .input = "ktrace.data", .cg.limit = -1,
	};
	struct ktrace_err err = { .pos = -1 };
	int ret;

	ret = report_parse(&run, argc, argv);
	if (ret < 0)
		ret = report_check(&run);
	if (ret >= 0)
		return ret;
	if (run.diff) {
		run.cg.folded = run.folded;
		run.cg.svg = run.svg;
		return kt_pdiff_report(ctx, run.files[0], run.files[1],
				       &run.cg);
	}
	run.rec = ktrace_record_load(run.input, &err);
	if (!run.rec) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	run.json = ctx->json;
	if (run.json && !kt_json(ctx)) {
		ret = kt_error(ctx, KT_FAIL, "out of memory");
		goto out;
	}
	if (run.trace)	/* it frees rec */
		return perfetto(ctx, run.rec, run.trace, run.input);
	if (run.pprof) {
		ret = pprof(ctx, run.rec, run.pprof, run.input);
		goto out;
	}
	if (run.header) {
		ret = kt_report_header(ctx, run.rec, run.input);
		goto out;
	}
	if (ktrace_record_meta(run.rec, "tracer") && !run.raw) {
		ret = run.profile || run.cg.children || run.cg.callers ||
		      run.cg.callees ?
		      kt_usage_error(ctx, NULL,
				     "'%s' holds ktrace ftrace's records: --sort, --folded, --flamegraph and the call graphs take samples",
				     run.input) :
		      kt_ftrace_report(ctx, run.rec, run.input);
		goto out;
	}
	if (run.cg.children || run.cg.callers || run.cg.callees) {
		ret = kt_callgraph_report(ctx, run.rec, &run.cg, run.input);
		goto out;
	}
	ret = report_replay(&run);
out:
	ktrace_record_free(run.rec);
	return ret;
}
