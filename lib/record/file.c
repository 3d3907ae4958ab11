// SPDX-License-Identifier: LGPL-2.1-only
/*
 * ktrace record -o FILE and ktrace report: write a recording into a
 * self-contained kfile (lib/kfile/kfile.h) and load one back for replay.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "base/internal.h"
#include "tracefs/tfs.h"
#include "kfile/kfile.h"
#include "capture/perf.h"
#include "capture/stat.h"
#include "record/record.h"

void kt_record_note_icomm(struct ktrace_record *r, int pid, const char *comm)
{
	struct kt_kf_comm *nv;

	nv = realloc(r->icomm, (r->nr_icomm + 1) * sizeof(*nv));
	if (!nv)
		return;
	r->icomm = nv;
	nv[r->nr_icomm].pid = pid;
	nv[r->nr_icomm].tid = pid;
	nv[r->nr_icomm].comm = strdup(comm);
	if (nv[r->nr_icomm].comm)
		r->nr_icomm++;
}

void kt_record_free_file(struct ktrace_record *r)
{
	for (size_t i = 0; i < r->nr_icomm; i++)
		free((char *)r->icomm[i].comm);
	free(r->icomm);
	r->icomm = NULL;
	r->nr_icomm = 0;
	free(r->ksym_used);
	free(r->ksym_written);
	if (r->kfw)
		kt_kfw_close(r->kfw, NULL);
	kt_kfile_free(r->kf);
	free(r->kf_mem);
}

static void file_sink(void *ctx, const struct perf_event_header *h,
		      const struct ktrace_sample *s)
{
	struct ktrace_record *r = ctx;

	if (s && (r->sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_IP)))
		kt_record_mark_frames(r, s);
	if (s && s->event >= 0 && r->ev[s->event].sym_fields)
		kt_record_mark_sym_fields(r, s);
	/* a task older than the recording: its comm into the file, as
	 * printing it live would have read it */
	if (s && s->type == KTRACE_SAMPLE_EVENT)
		kt_record_comm(r, s->tid);
	kt_kfw_record(r->kfw, h);
}

int ktrace_record_output(struct ktrace_record *r, int fd, const char *cmdline,
			 struct ktrace_err *err)
{
	struct utsname u;
	bool sym_fields = false;
	char *hp;
	int ret = 0;

	if (!r->perf)
		return kt_err_set(err, EINVAL, "recording not open");
	r->kfw = kt_kfw_open(fd, 0);
	if (!r->kfw)
		return kt_err_set(err, errno, "cannot start the file: %m");
	if (!uname(&u))
		ret |= kt_kfw_meta(r->kfw, "kernel", u.release);
	ret |= kt_kfw_meta(r->kfw, "ktrace", KTRACE_VERSION);
	if (cmdline)
		ret |= kt_kfw_meta(r->kfw, "command", cmdline);
	for (int i = 0; i < r->nev; i++) {
		struct kt_kf_attr a = {
			.type = r->ev[i].type,
			.flags = KT_KF_ATTR_SAMPLE_ID_ALL,
			.config = r->ev[i].config,
			.sample_type = r->sample_type,
			.clockid = CLOCK_MONOTONIC,
			.name = r->ev[i].fullname,
		};

		ret |= kt_kfw_attr(r->kfw, &a);
		/* a sampling event has no format: its name says it all */
		if (r->ev[i].te)
			ret |= kt_kfw_format(r->kfw, r->ev[i].id,
					     r->ev[i].system, r->ev[i].name,
					     r->ev[i].format);
	}
	for (int i = 0; i < r->nr_ids; i++)
		ret |= kt_kfw_id(r->kfw, r->ids[i].id, r->ids[i].event, -1);
	hp = kt_event_read(kt_tfs_top(r->tfs), NULL, NULL, "header_page", NULL);
	if (hp) {
		ret |= kt_kfw_header_page(r->kfw, hp);
		free(hp);
	}
	for (int i = 0; i < r->nev; i++)
		sym_fields |= r->ev[i].sym_fields;
	if (sym_fields ||
	    (r->sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_IP))) {
		if (!r->ksyms.loaded)
			kt_symtab_load_kallsyms(&r->ksyms, NULL);
		r->ksym_used = calloc(r->ksyms.n / 8 + 1, 1);
		r->ksym_written = calloc(r->ksyms.n / 8 + 1, 1);
		if (!r->ksym_used || !r->ksym_written) {
			free(r->ksym_used);
			free(r->ksym_written);
			r->ksym_used = r->ksym_written = NULL;
			ret = -1;
		}
	}
	if (ret)
		return kt_err_set(err, EIO, "cannot write the file header");
	r->sink = file_sink;
	r->sink_ctx = r;
	return 0;
}

/* Table entries learned since the last flush: comms of older tasks,
 * mappings read from /proc, kernel symbols the records use. */
static int write_new_tables(struct ktrace_record *r)
{
	int ret = 0;

	for (; r->icomm_written < r->nr_icomm; r->icomm_written++) {
		const struct kt_kf_comm *c = &r->icomm[r->icomm_written];

		ret |= kt_kfw_comm(r->kfw, c->pid, c->tid, c->comm);
	}
	for (; r->maps_written < r->nr_maps; r->maps_written++) {
		const struct kt_map *mp = &r->maps[r->maps_written];

		if (!mp->synth)
			continue;
		struct kt_kf_mmap m = {
			.pid = mp->pid, .tid = mp->pid,
			.start = mp->start, .len = mp->len,
			.pgoff = mp->pgoff, .prot = 4,
			.filename = mp->path,
		};
		ret |= kt_kfw_mmap(r->kfw, &m);
	}
	for (size_t i = 0; r->ksym_used && i < r->ksyms.n; i += 8) {
		unsigned char n = r->ksym_used[i / 8] & ~r->ksym_written[i / 8];

		for (int b = 0; n && b < 8; b++)
			if (n & (1 << b))
				ret |= kt_kfw_ksym(r->kfw,
						   r->ksyms.v[i + b].addr, 't',
						   r->ksyms.v[i + b].name);
		r->ksym_written[i / 8] |= n;
	}
	return ret;
}

int kt_record_output_flush(struct ktrace_record *r, uint64_t now_ns,
			   bool force)
{
	uint64_t since = now_ns - r->kfw_flushed_ns;

	if (!r->kfw)
		return 0;
	if (!force && since < 1000000000ull &&
	    (since < 100000000ull || kt_kfw_pending(r->kfw) >= 65536))
		return 0;
	r->kfw_flushed_ns = now_ns;
	if (write_new_tables(r) || kt_kfw_flush(r->kfw))
		return -EIO;
	return 0;
}

int ktrace_record_output_close(struct ktrace_record *r, uint64_t *bytes)
{
	int ret = 0, cerr;

	if (!r->kfw)
		return 0;
	ret |= write_new_tables(r);
	/* user frames are named once, at the end: reading DWARF while the
	 * rings fill would cost records */
	ret |= kt_record_write_uframes(r);
	/* the first write error sticks in the writer: its errno is said */
	cerr = kt_kfw_close(r->kfw, bytes);
	ret = cerr ? cerr : ret ? -EIO : 0;
	r->kfw = NULL;
	r->sink = NULL;
	return ret;
}

/* Field offsets and sizes of a format from a file: within a record. */
static bool fields_sane(struct tep_event *te)
{
	for (int pass = 0; pass < 2; pass++) {
		struct tep_format_field *f = pass ? te->format.fields :
						    te->format.common_fields;

		for (; f; f = f->next)
			if (f->offset < 0 || f->size < 0 ||
			    f->offset > 65535 || f->size > 65535)
				return false;
	}
	return true;
}

/* A file: comms of older tasks from its table, its own kernel symbols. */
static int file_comm(struct ktrace_record *r, int pid, char *buf, size_t len)
{
	for (size_t i = 0; i < r->nr_icomm; i++) {
		if ((int)r->icomm[i].tid == pid) {
			snprintf(buf, len, "%s", r->icomm[i].comm);
			return 0;
		}
	}
	return -ENOENT;
}

static void file_ksyms(struct ktrace_record *r)
{
	(void)r;	/* loaded with the file */
}

const struct kt_record_source kt_record_file_source = {
	.comm = file_comm,
	.ksyms = file_ksyms,
};

struct ktrace_record *ktrace_record_load(const char *path,
					 struct ktrace_err *err)
{
	const struct kt_kf_format *fm;
	const struct kt_kf_attr *at;
	const struct kt_kf_id *ids;
	const struct kt_kf_comm *cm;
	const struct kt_kf_mmap *mm;
	const struct kt_kf_ksym *ks;
	const struct kt_kf_uframe *uf;
	struct ktrace_record *r;
	size_t nf, na, ni, nc, nm, nk, nu;
	uint64_t *idv = NULL;
	int *evv = NULL, ret = 0;
	const char *why;

	r = ktrace_record_alloc(NULL);
	if (!r)
		return NULL;
	r->src = &kt_record_file_source;
	if (!strcmp(path, "-")) {
		/* a pipe (record -o - | report -i -): read it all first */
		size_t len = 0;

		r->kf_mem = kt_read_fd(STDIN_FILENO, &len);
		r->kf = r->kf_mem ? kt_kfile_open_mem(r->kf_mem, len) : NULL;
		path = "standard input";
	} else {
		r->kf = kt_kfile_open(path);
	}
	if (!r->kf) {
		ret = errno;
		kt_err_set(err, ret, ret == EINVAL ?
			   "'%s' is not a ktrace recording (version 1)" :
			   ret == EBADMSG ?
			   "'%s' is damaged or truncated" :
			   ret == KT_ENOTREG ?
			   "'%s' is not a regular file" :
			   "cannot read '%s': %m", path);
		goto fail;
	}
	fm = kt_kfile_formats(r->kf, &nf);
	at = kt_kfile_attrs(r->kf, &na);
	if (!na) {
		ret = EBADMSG;
		kt_err_set(err, ret, "'%s' records no event", path);
		goto fail;
	}
	for (size_t i = 0; i < na; i++) {
		const struct kt_kf_format *f = NULL;
		uint32_t ctype;
		uint64_t cconfig;
		int idx;

		if ((i && at[i].sample_type != r->sample_type) ||
		    (at[i].sample_type & ~(uint64_t)(KT_PERF_SAMPLE_TYPE |
						     PERF_SAMPLE_CALLCHAIN |
						     PERF_SAMPLE_IP |
						     PERF_SAMPLE_PERIOD))) {
			ret = EBADMSG;
			kt_err_set(err, ret, "'%s': bad event table", path);
			goto fail;
		}
		r->sample_type = at[i].sample_type;
		if (at[i].type != PERF_TYPE_TRACEPOINT) {
			/* a sampling event: known by name, and the name
			 * must say what the attr says */
			if (kt_counter_lookup(at[i].name, &ctype, &cconfig) ||
			    ctype != at[i].type || cconfig != at[i].config ||
			    kt_record_add_counter(r, at[i].name, ctype,
						  cconfig) < 0) {
				ret = EBADMSG;
				kt_err_set(err, ret,
					   "'%s': bad event table", path);
				goto fail;
			}
			continue;
		}
		for (size_t j = 0; j < nf && !f; j++)
			if (fm[j].id == at[i].config)
				f = &fm[j];
		if (!f) {
			ret = EBADMSG;
			kt_err_set(err, ret, "'%s': no format for event %s",
				   path, at[i].name);
			goto fail;
		}
		/* Names go into labels and JSON: the same rules as tracefs. */
		if (kt_name_check(f->system) || kt_name_check(f->name)) {
			ret = EBADMSG;
			kt_err_set(err, ret, "'%s': bad event table", path);
			goto fail;
		}
		idx = kt_record_add_format(r, f->system, f->name, f->id,
					   f->format, strlen(f->format), true,
					   &why);
		if (idx == -EBADMSG) {
			ret = EBADMSG;
			kt_err_set(err, ret,
				   "'%s': the format of %s:%s is refused: %s",
				   path, f->system, f->name, why);
			goto fail;
		}
		if (idx >= 0 && !fields_sane(r->ev[idx].te)) {
			ret = EBADMSG;
			kt_err_set(err, ret, "'%s': bad format for %s:%s",
				   path, f->system, f->name);
			goto fail;
		}
		if (idx < 0) {
			ret = EBADMSG;
			kt_err_set(err, ret,
				   "'%s': cannot parse the format of %s:%s",
				   path, f->system, f->name);
			goto fail;
		}
	}
	ids = kt_kfile_ids(r->kf, &ni);
	idv = calloc(ni + 1, sizeof(*idv));
	evv = calloc(ni + 1, sizeof(*evv));
	if (!idv || !evv) {
		ret = ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < ni; i++) {
		if (ids[i].attr >= na) {
			ret = EBADMSG;
			kt_err_set(err, ret, "'%s': bad id table", path);
			goto fail;
		}
		idv[i] = ids[i].id;
		evv[i] = ids[i].attr;
	}
	if (kt_record_ids_set(r, idv, evv, ni)) {
		ret = ENOMEM;
		goto fail;
	}
	/* the file's comms of older tasks, copied (owned by r) */
	cm = kt_kfile_comms(r->kf, &nc);
	for (size_t i = 0; i < nc; i++)
		kt_record_note_icomm(r, cm[i].tid, cm[i].comm);
	if (r->nr_icomm != nc) {
		ret = ENOMEM;
		goto fail;
	}
	mm = kt_kfile_mmaps(r->kf, &nm);
	for (size_t i = 0; i < nm; i++)
		kt_record_add_map(r, mm[i].pid, mm[i].start, mm[i].len,
				  mm[i].pgoff, mm[i].filename, true, 0);
	uf = kt_kfile_uframes(r->kf, &nu);
	r->kf_uframes = nu > 0;
	for (size_t i = 0; i < nu; i++) {
		if (kt_record_load_uframe(r, uf[i].path, uf[i].vaddr,
					  uf[i].text)) {
			ret = ENOMEM;
			goto fail;
		}
	}
	ks = kt_kfile_ksyms(r->kf, &nk);
	for (size_t i = 0; i < nk; i++)
		kt_symtab_add(&r->ksyms, ks[i].addr, 0, ks[i].name);
	kt_symtab_sort(&r->ksyms);
	r->mcfg.sample_type = r->sample_type;
	r->mcfg.sample_id_all = true;
	r->nr_cpus = 4096;
	r->lost_cpu = calloc(r->nr_cpus, sizeof(*r->lost_cpu));
	r->per_event = calloc(r->nev, sizeof(*r->per_event));
	if (!r->lost_cpu || !r->per_event) {
		ret = ENOMEM;
		goto fail;
	}
	free(idv);
	free(evv);
	return r;
fail:
	free(idv);
	free(evv);
	ktrace_record_free(r);
	errno = ret ? ret : EINVAL;
	return NULL;
}

const char *ktrace_record_meta(struct ktrace_record *r, const char *key)
{
	return r->kf ? kt_kfile_meta_get(r->kf, key) : NULL;
}

bool ktrace_record_truncated(struct ktrace_record *r)
{
	return r->kf && kt_kfile_truncated(r->kf);
}

long ktrace_record_replay(struct ktrace_record *r, ktrace_sample_fn fn,
			  void *ctx, ktrace_raw_fn raw, void *raw_ctx)
{
	const struct perf_event_header *h;
	long n = 0;
	int ret;

	if (!r->kf)
		return -EINVAL;
	kt_kfile_rewind(r->kf);
	r->fn = fn;
	r->fnctx = ctx;
	while ((ret = kt_kfile_next(r->kf, &h)) == 1) {
		uint64_t ts = 0;

		kt_merge_rec_time(&r->mcfg, h, &ts);
		if (raw) {
			ret = raw(raw_ctx, h->type, h->misc, h->size, ts, h);
			if (ret)
				return ret;
		} else {
			ret = kt_record_emit(r, 0, ts, h);
			if (ret)
				return ret;
		}
		n++;
	}
	return ret < 0 ? ret : n;
}
