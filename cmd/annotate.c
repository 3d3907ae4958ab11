// SPDX-License-Identifier: GPL-2.0-only
/*
 * ktrace annotate: one function of a recording, line by line and
 * instruction by instruction with the share of its samples on each, as
 * perf annotate --stdio shows it. The samples are those whose own
 * address (the innermost frame, inlined functions counted in the
 * function that holds them) is in the function; the binary is read from
 * disk (lib/sym/annotate.c) and must be the one recorded (build-id).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_cmd.h"
#include "record/symbolize.h"
#include "sym/annotate.h"
#include "sym/symtab.h"

static const char annotate_usage[] =
	"Usage: ktrace annotate [-i FILE] [--stdio | --json] SYM\n"
	"Show function SYM of a recording made with `ktrace record -o FILE`: its\n"
	"source lines (DWARF line table; the text when the source file is on\n"
	"disk) and its instructions, each with its share of the samples that\n"
	"fell in SYM, the hottest marked. The binary is read from disk (a\n"
	"stripped one with its debug file too).\n"
	"\n"
	"  -i, --input FILE  the recording (default: ktrace.data)\n"
	"      --stdio       text (the default)\n"
	"  -j, --json        one JSON object: lines and instructions\n"
	"  -h, --help        this help\n";

static const struct option annotate_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "stdio", no_argument, NULL, 'S' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Samples at file offset off of binary bins[bin], of one event. */
struct hit {
	int event, bin;
	uint64_t off;
	uint64_t samples, period;
};

struct annotate_run {
	struct kt_ctx *ctx;
	const char *input, *sym;
	struct ktrace_record *rec;
	struct hit *hits;
	size_t nhits, cap;
	char **bins;		/* binaries met, by path */
	int nbins;
	unsigned long long kernel;	/* samples in a kernel SYM */
	/* the other functions sampled (strings owned by rec), a set by
	 * pointer (open addressing, cap a power of 2): "did you mean" */
	const char **names;
	size_t nnames, names_cap;
	int error;
};

#define MAX_FRAMES 64

/* bins[] index of path, added when new; -1: no memory. */
static int bin_index(struct annotate_run *run, const char *path)
{
	char **nv;

	for (int i = 0; i < run->nbins; i++)
		if (!strcmp(run->bins[i], path))
			return i;
	nv = realloc(run->bins, (run->nbins + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	run->bins = nv;
	nv[run->nbins] = strdup(path);
	return nv[run->nbins] ? run->nbins++ : -1;
}

static int add_hit(struct annotate_run *run, const struct hit *h)
{
	if (run->nhits == run->cap) {
		size_t cap = run->cap ? 2 * run->cap : 1024;
		struct hit *nv = realloc(run->hits, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		run->hits = nv;
		run->cap = cap;
	}
	run->hits[run->nhits++] = *h;
	return 0;
}

/* Note name (owned by rec: one pointer per name) among those sampled. */
static int name_add(struct annotate_run *run, const char *name)
{
	size_t cap = run->names_cap, i;

	if (2 * (run->nnames + 1) > cap) {
		const char **old = run->names, **nv;

		cap = cap ? 2 * cap : 256;
		nv = calloc(cap, sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		run->names = nv;
		run->names_cap = cap;
		run->nnames = 0;
		for (size_t k = 0; old && k < cap / 2; k++)
			if (old[k])
				name_add(run, old[k]);
		free(old);
	}
	i = ((uintptr_t)name >> 3) & (run->names_cap - 1);
	while (run->names[i] && run->names[i] != name)
		i = (i + 1) & (run->names_cap - 1);
	if (!run->names[i]) {
		run->names[i] = name;
		run->nnames++;
	}
	return 0;
}

/* A sample whose own address is in SYM: noted by binary and offset. */
static int collect_one(void *arg, const struct ktrace_sample *s)
{
	struct annotate_run *run = arg;
	struct ktrace_frame fr[MAX_FRAMES];
	const struct kt_map *m;
	struct hit h = { .event = s->event, .samples = 1,
			 .period = s->period };
	int n, k = 0;

	n = ktrace_record_frames(run->rec, s, fr, MAX_FRAMES);
	while (k < n && fr[k].inlined)	/* the function holding them */
		k++;
	if (k == n)
		return 0;
	if (strcmp(fr[k].sym, run->sym)) {
		if (!kt_kernel_ip(fr[k].ip) && name_add(run, fr[k].sym))
			run->error = -ENOMEM;
		return run->error;
	}
	if (kt_kernel_ip(fr[k].ip)) {
		run->kernel++;
		return 0;
	}
	m = kt_record_user_map(run->rec, s->pid, fr[k].ip);
	if (!m)
		return 0;
	h.off = fr[k].ip - m->start + m->pgoff;
	h.bin = bin_index(run, m->path);
	if (h.bin < 0 || add_hit(run, &h))
		return run->error = -ENOMEM;
	return 0;
}

static int hit_cmp(const void *x, const void *y)
{
	const struct hit *p = x, *q = y;

	if (p->event != q->event)
		return p->event < q->event ? -1 : 1;
	if (p->bin != q->bin)
		return p->bin < q->bin ? -1 : 1;
	return (p->off > q->off) - (p->off < q->off);
}

/* Merge equal (event, binary, offset) hits; return the first and count
 * of the (event, binary) with the most samples (*rest: the others'). */
static size_t hits_pick(struct annotate_run *run, size_t *count,
			unsigned long long *rest)
{
	size_t n = 0, best = 0, bestn = 0;
	unsigned long long best_s = 0, all = 0;

	qsort(run->hits, run->nhits, sizeof(*run->hits), hit_cmp);
	for (size_t i = 0; i < run->nhits; i++) {
		struct hit *h = &run->hits[i];

		if (n && !hit_cmp(&run->hits[n - 1], h)) {
			run->hits[n - 1].samples += h->samples;
			run->hits[n - 1].period += h->period;
		} else {
			run->hits[n++] = *h;
		}
	}
	run->nhits = n;
	for (size_t i = 0; i < n;) {
		unsigned long long s = 0;
		size_t j = i;

		for (; j < n && run->hits[j].event == run->hits[i].event &&
		       run->hits[j].bin == run->hits[i].bin; j++)
			s += run->hits[j].samples;
		all += s;
		if (s > best_s) {
			best_s = s;
			best = i;
			bestn = j - i;
		}
		i = j;
	}
	*count = bestn;
	*rest = all - best_s;
	return best;
}

/* ------------------------------------------------------------- output */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* s[0..n) onto out, tabs expanded (stops of 8), then escaped for a
 * terminal (kt_text_escape): a source file is not ktrace's to trust. */
static void put_text(FILE *out, const char *s, size_t n)
{
	char *exp = malloc(8 * n + 1), *buf = malloc(32 * n + 1);
	size_t m = 0;

	if (!exp || !buf)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\t') {
			exp[m++] = s[i];
			continue;
		}
		do
			exp[m++] = ' ';
		while (m % 8);
	}
	kt_text_escape(buf, exp, m);
	fputs(buf, out);
out:
	free(exp);
	free(buf);
}

/* The source row above instructions of line l (NULL: none known). */
static void print_src_row(FILE *out, const struct kt_annot *a,
			  const struct kt_aline *l, bool hot)
{
	if (!l) {
		fputs("         :  (no line)\n", out);
		return;
	}
	fprintf(out, "         :  %s:%d", base_name(a->files[l->file]),
		l->line);
	if (l->text) {
		fputs("  ", out);
		put_text(out, l->text, l->text_len);
	}
	fputs(hot ? "    <-- hottest line\n" : "\n", out);
}

/* The line entry of instruction in (a->lines is sorted), or NULL. */
static const struct kt_aline *line_of(const struct kt_annot *a,
				      const struct kt_ainsn *in)
{
	for (size_t k = 0; in->file >= 0 && k < a->nlines; k++)
		if (a->lines[k].file == in->file &&
		    a->lines[k].line == in->line)
			return &a->lines[k];
	return NULL;
}

static void print_head(FILE *out, const struct annotate_run *run,
		       const struct kt_annot *a, int event,
		       unsigned long long rest)
{
	fprintf(out, "# ktrace annotate: %s in %s", run->sym, a->path);
	if (a->build_id)
		fprintf(out, " (build-id %s)", a->build_id);
	fprintf(out, "\n# %s: %llu samples in %s (period %llu)",
		ktrace_record_event_name(run->rec, event),
		(unsigned long long)a->samples, a->name,
		(unsigned long long)a->period);
	if (rest)
		fprintf(out, "; %llu more in other binaries or events, not shown",
			rest);
	fprintf(out, "\n# code: 0x%llx, %llu bytes, %zu instructions\n",
		(unsigned long long)a->addr, (unsigned long long)a->size,
		a->ninsn);
	if (!a->has_dwarf)
		fputs("# source: no DWARF line table (nor a debug file with one)\n",
		      out);
	for (int i = 0; i < a->nfiles; i++)
		fprintf(out, "# source: %s%s\n", a->files[i],
			a->src[i].buf ? "" : " (not on disk: lines shown as file:line)");
}

/* The lines with samples, hottest first (perf's sorted summary). */
static void print_summary(FILE *out, const struct kt_annot *a)
{
	bool *done = calloc(a->nlines ? a->nlines : 1, sizeof(*done));

	if (!done)
		return;
	fputs("#\n# Hottest lines:\n", out);
	for (;;) {
		long best = -1;

		for (size_t k = 0; k < a->nlines; k++)
			if (!done[k] && a->lines[k].samples &&
			    (best < 0 || a->lines[k].period >
					 a->lines[best].period ||
			     (!a->period && a->lines[k].samples >
					    a->lines[best].samples)))
				best = (long)k;
		if (best < 0)
			break;
		done[best] = true;
		fprintf(out, "#  %7.2f%%  %s:%d\n",
			100 * kt_annot_share(a, a->lines[best].samples,
					     a->lines[best].period),
			base_name(a->files[a->lines[best].file]),
			a->lines[best].line);
	}
	free(done);
	fputs("#\n Percent |  Source and disassembly\n", out);
	fputs("---------+--------------------------------------------------------------\n",
	      out);
}

static void print_stdio(const struct annotate_run *run,
			const struct kt_annot *a, int event,
			unsigned long long rest)
{
	FILE *out = run->ctx->out;
	const struct kt_aline *prev = NULL;

	print_head(out, run, a, event, rest);
	print_summary(out, a);
	for (size_t i = 0; i < a->ninsn; i++) {
		const struct kt_ainsn *in = &a->insn[i];
		const struct kt_aline *l = line_of(a, in);

		if (!i || l != prev)
			print_src_row(out, a, l, l && a->hot_line >= 0 &&
				      l == &a->lines[a->hot_line]);
		prev = l;
		fprintf(out, "%8.2f :  %8llx:  ",
			100 * kt_annot_share(a, in->samples, in->period),
			(unsigned long long)in->addr);
		put_text(out, in->text, strlen(in->text));
		fputs((long)i == a->hot_insn ? "    <-- hottest\n" : "\n", out);
	}
}

static void json_lines(struct kt_json *j, const struct kt_annot *a)
{
	kt_json_key(j, "lines");
	kt_json_array_begin(j);
	for (size_t k = 0; k < a->nlines; k++) {
		const struct kt_aline *l = &a->lines[k];

		kt_json_object_begin(j);
		kt_jstr(j, "file", a->files[l->file]);
		kt_jint(j, "line", l->line);
		kt_juint(j, "samples", l->samples);
		kt_juint(j, "period", l->period);
		kt_json_key(j, "percent");
		kt_json_double(j, 100 * kt_annot_share(a, l->samples,
						       l->period));
		kt_jbool(j, "hottest", (long)k == a->hot_line);
		kt_json_key(j, "source");
		if (l->text) {
			char *t = strndup(l->text, l->text_len);

			kt_json_string(j, t);
			free(t);
		} else {
			kt_json_null(j);
		}
		kt_json_object_end(j);
	}
	kt_json_array_end(j);
}

static void json_insns(struct kt_json *j, const struct kt_annot *a)
{
	kt_json_key(j, "instructions");
	kt_json_array_begin(j);
	for (size_t i = 0; i < a->ninsn; i++) {
		const struct kt_ainsn *in = &a->insn[i];

		kt_json_object_begin(j);
		kt_juint(j, "address", in->addr);
		kt_juint(j, "size", in->len);
		kt_jstr(j, "text", in->text);
		kt_jstr(j, "file", in->file >= 0 ? a->files[in->file] : NULL);
		kt_jint(j, "line", in->line);
		kt_juint(j, "samples", in->samples);
		kt_juint(j, "period", in->period);
		kt_json_key(j, "percent");
		kt_json_double(j, 100 * kt_annot_share(a, in->samples,
						       in->period));
		kt_jbool(j, "hottest", (long)i == a->hot_insn);
		kt_json_object_end(j);
	}
	kt_json_array_end(j);
}

static void print_json(const struct annotate_run *run,
		       const struct kt_annot *a, int event,
		       unsigned long long rest)
{
	struct kt_json *j = kt_json(run->ctx);

	kt_json_object_begin(j);
	kt_jstr(j, "symbol", a->name);
	kt_jstr(j, "binary", a->path);
	kt_jstr(j, "build_id", a->build_id);
	kt_jstr(j, "event", ktrace_record_event_name(run->rec, event));
	kt_juint(j, "address", a->addr);
	kt_juint(j, "size", a->size);
	kt_juint(j, "samples", a->samples);
	kt_juint(j, "period", a->period);
	kt_juint(j, "outside", a->outside);
	kt_juint(j, "not_shown", rest);
	kt_jbool(j, "dwarf", a->has_dwarf);
	json_lines(j, a);
	json_insns(j, a);
	kt_json_object_end(j);
}

/* ------------------------------------------------------------- the run */

/* Why the binary of the samples cannot be annotated, as a message. */
static int open_error(struct kt_ctx *ctx, const char *path, int err)
{
	switch (err) {
	case -ENOENT:
		return kt_error(ctx, KT_FAIL, "cannot read '%s': %s", path,
				strerror(ENOENT));
	case -ENOEXEC:
		return kt_error(ctx, KT_FAIL,
				"'%s' is not an ELF file of an architecture ktrace disassembles",
				path);
	case -ESRCH:
		return kt_error(ctx, KT_FAIL,
				"no function of '%s' holds the samples (not the binary recorded?)",
				path);
	case -EFBIG:
		return kt_error(ctx, KT_FAIL,
				"the function in '%s' is over 1 MiB of code",
				path);
	default:
		return kt_error(ctx, KT_FAIL, "'%s': %s", path,
				strerror(-err));
	}
}

/* Annotate the hits h[0..n) (one event, one binary) and print them. */
static int annotate_hits(struct annotate_run *run, const struct hit *h,
			 size_t n, unsigned long long rest)
{
	const char *path = run->bins[h[0].bin];
	const char *rec_id = kt_record_build_id(run->rec, path);
	struct kt_annot a;
	struct kt_ahit *ah = calloc(n, sizeof(*ah));
	size_t hot = 0, m = 0;
	int ret;

	if (!ah)
		return kt_error(run->ctx, KT_FAIL, "out of memory");
	for (size_t i = 1; i < n; i++)
		if (h[i].samples > h[hot].samples)
			hot = i;
	ret = kt_annot_open(&a, path, h[hot].off);
	if (ret) {
		ret = open_error(run->ctx, path, ret);
		goto out;
	}
	if (rec_id && a.build_id && strcmp(rec_id, a.build_id)) {
		ret = kt_error(run->ctx, KT_FAIL,
			       "'%s' is not the binary recorded: build-id %s, recorded %s",
			       path, a.build_id, rec_id);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (!kt_annot_vaddr(&a, h[i].off, &ah[m].addr)) {
			ah[m].samples = h[i].samples;
			ah[m++].period = h[i].period;
		}
	kt_annot_count(&a, ah, m);
	if (run->ctx->json)
		print_json(run, &a, h[0].event, rest + a.outside);
	else
		print_stdio(run, &a, h[0].event, rest + a.outside);
	ret = KT_OK;
out:
	kt_annot_free(&a);
	free(ah);
	return ret;
}

/* The options into run. -1 to go on, else the exit status. */
static int annotate_parse(struct annotate_run *run, int argc, char **argv)
{
	struct kt_ctx *ctx = run->ctx;
	int opt;

	while ((opt = getopt_long(argc, argv, "+:i:jh", annotate_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'i':
			run->input = optarg;
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'S':
			break;	/* text is the default (perf's spelling) */
		case 'h':
			fputs(annotate_usage, ctx->out);
			return KT_OK;
		default:
			return kt_bad_option(ctx, annotate_usage, opt,
					     argv[optind - 1]);
		}
	}
	if (optind == argc)
		return kt_usage_error(ctx, annotate_usage,
				      "which function? (annotate SYM)");
	if (optind + 1 < argc)
		return kt_usage_error(ctx, annotate_usage,
				      "one function at a time: unexpected '%s'",
				      argv[optind + 1]);
	run->sym = argv[optind];
	return -1;
}

/* No sample in SYM: one line, with the closest names sampled. */
static int no_samples(struct annotate_run *run)
{
	struct kt_suggest sg;
	int ret;

	if (kt_suggest_init(&sg, run->sym, 3, true))
		return kt_error(run->ctx, KT_FAIL, "out of memory");
	for (size_t i = 0; i < run->names_cap; i++)
		if (run->names[i])
			kt_suggest_add(&sg, run->names[i],
				       strlen(run->names[i]), run->names[i]);
	if (sg.nbest)
		ret = kt_error(run->ctx, KT_FAIL,
			       "no samples in '%s' in '%s'; did you mean '%s'%s%s%s?",
			       run->sym, run->input, sg.best[0].name,
			       sg.nbest > 1 ? " or '" : "",
			       sg.nbest > 1 ? sg.best[1].name : "",
			       sg.nbest > 1 ? "'" : "");
	else
		ret = kt_error(run->ctx, KT_FAIL,
			       "no samples in '%s' in '%s' (see report --sort sym)",
			       run->sym, run->input);
	kt_suggest_fini(&sg);
	return ret;
}

/* Every record through collect_one(), then the function annotated. */
static int annotate_replay(struct annotate_run *run)
{
	struct kt_ctx *ctx = run->ctx;
	unsigned long long rest;
	size_t first, count;
	long n;

	n = ktrace_record_replay(run->rec, collect_one, run, NULL, NULL);
	if (run->error)
		return kt_error(ctx, KT_FAIL, "out of memory");
	if (n < 0)
		return kt_error(ctx, KT_FAIL, "'%s': %s", run->input,
				n == -EBADMSG ?
				"damaged or truncated after the last record" :
				strerror((int)-n));
	if (!run->nhits && run->kernel)
		return kt_error(ctx, KT_FAIL,
				"'%s' is a kernel function (%llu samples): annotate reads user binaries only",
				run->sym, run->kernel);
	if (!run->nhits)
		return no_samples(run);
	first = hits_pick(run, &count, &rest);
	return annotate_hits(run, &run->hits[first], count, rest);
}

int cmd_annotate(struct kt_ctx *ctx, int argc, char **argv)
{
	struct annotate_run run = { .ctx = ctx, .input = "ktrace.data" };
	struct ktrace_err err = { .pos = -1 };
	int ret;

	ret = annotate_parse(&run, argc, argv);
	if (ret >= 0)
		return ret;
	run.rec = ktrace_record_load(run.input, &err);
	if (!run.rec) {
		ret = kt_error_detail(ctx, KT_FAIL, &err);
		ktrace_err_clear(&err);
		return ret;
	}
	if (ctx->json && !kt_json(ctx))
		ret = kt_error(ctx, KT_FAIL, "out of memory");
	else
		ret = annotate_replay(&run);
	ktrace_record_free(run.rec);
	for (int i = 0; i < run.nbins; i++)
		free(run.bins[i]);
	free(run.bins);
	free(run.hits);
	free(run.names);
	return ret;
}
