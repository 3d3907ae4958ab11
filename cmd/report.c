// SPDX-License-Identifier: GPL-2.0-only
/* ktrace report: print a file written by `ktrace record -o`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"

static const char report_usage[] =
	"Usage: ktrace report [-i FILE] [--json] [--raw] [--header]\n"
	"Print a recording made with `ktrace record -o FILE` exactly as the live\n"
	"run would have printed it. The file is self-contained: it can be read on\n"
	"another machine.\n"
	"\n"
	"  -i, --input FILE  the recording (default: ktrace.data; '-': standard\n"
	"                    input, as written by `ktrace record -o -`)\n"
	"  -j, --json        one JSON object per record\n"
	"  -D, --raw         dump every perf record: type, size, header fields\n"
	"      --header      print only what the file says about its recording\n"
	"  -h, --help        this help\n";

static const struct option report_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },
	{ "raw", no_argument, NULL, 'D' },
	{ "header", no_argument, NULL, 'H' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct report_run {
	struct kt_ctx *ctx;
	struct ktrace_record *rec;
	bool json;
	unsigned long long n;
};

static int print_one(void *arg, const struct ktrace_sample *s)
{
	struct report_run *run = arg;
	size_t len;
	const char *line = ktrace_record_format(run->rec, s, run->json, &len);

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
		struct ktrace_json *j = run->ctx->jw;
		char name[64];

		/* one document per line, as the decoded records */
		snprintf(name, sizeof(name), "PERF_RECORD_%s",
			 rec_type_name(type));
		ktrace_json_object_begin(j);
		kt_juint(j, "index", run->n);
		kt_juint(j, "type", type);
		kt_jstr(j, "name", name);
		kt_juint(j, "misc", misc);
		kt_juint(j, "size", size);
		kt_juint(j, "time", time);
		ktrace_json_object_end(j);
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

/* What the file says about the recording, like perf report --header-only. */
static void print_header(struct kt_ctx *ctx, struct ktrace_record *rec)
{
	static const char *const keys[] = { "command", "kernel", "ktrace" };
	struct ktrace_json *j = ctx->json ? kt_json(ctx) : NULL;
	const char *v;

	if (j)
		ktrace_json_object_begin(j);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = ktrace_record_meta(rec, keys[i]);
		if (j)
			kt_jstr(j, keys[i], v);
		else if (v)
			fprintf(ctx->out, "# %s: %s\n", keys[i], v);
	}
	if (j)
		ktrace_json_object_end(j);
}

int cmd_report(struct kt_ctx *ctx, int argc, char **argv)
{
	struct ktrace_err err = { .pos = -1 };
	struct report_run run = { .ctx = ctx };
	const char *input = "ktrace.data";
	bool raw = false, header = false;
	long n;
	int opt;

	while ((opt = getopt_long(argc, argv, "+i:jDHh", report_opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'i':
			input = optarg;
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'D':
			raw = true;
			break;
		case 'H':
			header = true;
			break;
		case 'h':
			fputs(report_usage, ctx->out);
			return KT_OK;
		default:
			return kt_usage_error(ctx, report_usage,
					      "bad option '%s'",
					      argv[optind - 1]);
		}
	}
	if (optind < argc)
		return kt_usage_error(ctx, report_usage,
				      "unexpected argument '%s' (the file goes with -i)",
				      argv[optind]);
	run.rec = ktrace_record_load(input, &err);
	if (!run.rec) {
		int ret = kt_error_detail(ctx, KT_FAIL, &err);

		ktrace_err_clear(&err);
		return ret;
	}
	run.json = ctx->json;
	if (run.json && !kt_json(ctx)) {
		ktrace_record_free(run.rec);
		return kt_error(ctx, KT_FAIL, "out of memory");
	}
	if (header) {
		print_header(ctx, run.rec);
		ktrace_record_free(run.rec);
		return KT_OK;
	}
	n = ktrace_record_replay(run.rec, raw ? NULL : print_one, &run,
				 raw ? print_raw : NULL, &run);
	fflush(ctx->out);
	ktrace_record_free(run.rec);
	if (n < 0)
		return kt_error(ctx, KT_FAIL, "'%s': %s", input,
				n == -EBADMSG ?
				"damaged or truncated after the last record shown" :
				strerror((int)-n));
	return KT_OK;
}
