// SPDX-License-Identifier: LGPL-2.1-only
/*
 * ktrace report: a recording written by writer.c loaded back, its tables
 * checked (the file may come from elsewhere), and its records replayed
 * through the decoder as the live run saw them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "base/internal.h"
#include "kfile/kfile.h"
#include "capture/stat.h"
#include "tracefs/tfs.h"
#include "record/record.h"

void kt_replay_free(struct kt_replay *rp)
{
	kt_kfile_free(rp->kf);
	free(rp->mem);
}

/* Open the file (*path "-": standard input, then renamed for messages);
 * 0 or a positive errno with err set. */
static int open_file(struct kt_replay *rp, const char **path,
		     struct ktrace_err *err)
{
	int ret;

	if (!strcmp(*path, "-")) {
		/* a pipe (record -o - | report -i -): read it all first */
		size_t len = 0;

		rp->mem = kt_read_fd(STDIN_FILENO, &len);
		rp->kf = rp->mem ? kt_kfile_open_mem(rp->mem, len) : NULL;
		*path = "standard input";
	} else {
		rp->kf = kt_kfile_open(*path);
	}
	if (rp->kf)
		return 0;
	ret = errno;
	kt_err_set(err, ret, ret == EINVAL ?
		   "'%s' is not a ktrace recording (version 1)" :
		   ret == EBADMSG ?
		   "'%s' is damaged or truncated" :
		   ret == KT_ENOTREG ?
		   "'%s' is not a regular file" :
		   "cannot read '%s': %m", *path);
	return ret ? ret : EINVAL;
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

/* A sampling event of the file: known by name, and the name must say
 * what the attr says. 0 or EBADMSG with err set. */
static int load_counter(struct ktrace_record *r, const char *path,
			const struct kt_kf_attr *at, struct ktrace_err *err)
{
	uint32_t ctype;
	uint64_t cconfig;
	int idx;

	if (at->type == KT_KF_OFFCPU_TYPE &&
	    at->config == KT_KF_OFFCPU_CONFIG &&
	    !strcmp(at->name, KT_KF_OFFCPU_NAME) && !r->off.has_event) {
		/* record --off-cpu's periods (kfile.h) */
		idx = kt_evtable_add_counter(&r->evt, at->name, at->type,
					     at->config);
		if (idx < 0)
			return -kt_err_set(err, ENOMEM, "out of memory");
		r->off.event = idx;
		r->off.has_event = true;
		return 0;
	}
	if (kt_counter_lookup(at->name, &ctype, &cconfig) ||
	    ctype != at->type || cconfig != at->config ||
	    kt_evtable_add_counter(&r->evt, at->name, ctype, cconfig) < 0)
		return -kt_err_set(err, EBADMSG, "'%s': bad event table",
				   path);
	return 0;
}

/* A tracepoint or probe of the file, with its format f (untrusted);
 * 0 or EBADMSG with err set. */
static int load_format(struct ktrace_record *r, const char *path,
		       const struct kt_kf_format *f, struct ktrace_err *err)
{
	const char *why;
	int idx;

	/* Names go into labels and JSON: the same rules as tracefs. */
	if (kt_name_check(f->system) || kt_name_check(f->name))
		return -kt_err_set(err, EBADMSG, "'%s': bad event table",
				   path);
	idx = kt_evtable_add_format(&r->evt, f->system, f->name, f->id,
				    f->format, strlen(f->format), true, &why);
	if (idx == -EBADMSG)
		return -kt_err_set(err, EBADMSG,
				   "'%s': the format of %s:%s is refused: %s",
				   path, f->system, f->name, why);
	if (idx >= 0 && !fields_sane(r->evt.ev[idx].te))
		return -kt_err_set(err, EBADMSG,
				   "'%s': bad format for %s:%s",
				   path, f->system, f->name);
	if (idx < 0)
		return -kt_err_set(err, EBADMSG,
				   "'%s': cannot parse the format of %s:%s",
				   path, f->system, f->name);
	return 0;
}

/* The file's events, one per attr (all of one sample_type); 0 or
 * EBADMSG with err set. */
static int load_events(struct ktrace_record *r, const char *path,
		       struct ktrace_err *err)
{
	const uint64_t known = KT_PERF_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN |
			       PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	const struct kt_kf_format *fm;
	const struct kt_kf_attr *at;
	size_t nf, na;
	int ret;

	fm = kt_kfile_formats(r->file.kf, &nf);
	at = kt_kfile_attrs(r->file.kf, &na);
	if (!na)
		return -kt_err_set(err, EBADMSG, "'%s' records no event",
				   path);
	for (size_t i = 0; i < na; i++) {
		const struct kt_kf_format *f = NULL;

		if ((i && at[i].sample_type != r->dec.fmt.sample_type) ||
		    (at[i].sample_type & ~known))
			return -kt_err_set(err, EBADMSG,
					   "'%s': bad event table", path);
		r->dec.fmt.sample_type = at[i].sample_type;
		if (at[i].type != PERF_TYPE_TRACEPOINT) {
			ret = load_counter(r, path, &at[i], err);
			if (ret)
				return ret;
			continue;
		}
		for (size_t j = 0; j < nf && !f; j++)
			if (fm[j].id == at[i].config)
				f = &fm[j];
		if (!f)
			return -kt_err_set(err, EBADMSG,
					   "'%s': no format for event %s",
					   path, at[i].name);
		ret = load_format(r, path, f, err);
		if (ret)
			return ret;
	}
	return 0;
}

/* The file's sample ids, each of one of its attrs; 0, ENOMEM, or
 * EBADMSG with err set. */
static int load_ids(struct ktrace_record *r, const char *path,
		    struct ktrace_err *err)
{
	const struct kt_kf_id *ids;
	size_t ni, na;
	uint64_t *idv;
	int *evv, ret = 0;

	kt_kfile_attrs(r->file.kf, &na);
	ids = kt_kfile_ids(r->file.kf, &ni);
	idv = calloc(ni + 1, sizeof(*idv));
	evv = calloc(ni + 1, sizeof(*evv));
	if (!idv || !evv) {
		ret = ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ni; i++) {
		if (ids[i].attr >= na) {
			ret = -kt_err_set(err, EBADMSG,
					  "'%s': bad id table", path);
			goto out;
		}
		idv[i] = ids[i].id;
		evv[i] = ids[i].attr;
	}
	if (kt_evtable_set_ids(&r->evt, idv, evv, ni))
		ret = ENOMEM;
out:
	free(idv);
	free(evv);
	return ret;
}

/* The file's comms of older tasks, mappings, user frames and kernel
 * symbols, copied (owned by r's parts); 0 or ENOMEM. */
static int load_tables(struct ktrace_record *r)
{
	const struct kt_kf_comm *cm;
	const struct kt_kf_mmap *mm;
	const struct kt_kf_ksym *ks;
	const struct kt_kf_uframe *uf;
	const struct kt_kf_buildid *bi;
	size_t nc, nm, nk, nu, nb;

	cm = kt_kfile_comms(r->file.kf, &nc);
	for (size_t i = 0; i < nc; i++)
		kt_comms_note_old(&r->comm, cm[i].tid, cm[i].comm);
	if (r->comm.nr_old != nc)
		return ENOMEM;
	mm = kt_kfile_mmaps(r->file.kf, &nm);
	for (size_t i = 0; i < nm; i++)
		kt_addrspace_add_map(&r->as, mm[i].pid, mm[i].start, mm[i].len,
				     mm[i].pgoff, mm[i].filename, true, 0);
	uf = kt_kfile_uframes(r->file.kf, &nu);
	r->as.from_file = nu > 0;
	for (size_t i = 0; i < nu; i++)
		if (kt_addrspace_load_frame(&r->as, uf[i].path, uf[i].vaddr,
					    uf[i].text))
			return ENOMEM;
	uf = kt_kfile_usrcs(r->file.kf, &nu);
	for (size_t i = 0; i < nu; i++)
		if (kt_addrspace_load_src(&r->as, uf[i].path, uf[i].vaddr,
					  uf[i].text))
			return ENOMEM;
	bi = kt_kfile_build_ids(r->file.kf, &nb);
	for (size_t i = 0; i < nb; i++)
		if (kt_addrspace_load_build_id(&r->as, bi[i].path, bi[i].id))
			return ENOMEM;
	ks = kt_kfile_ksyms(r->file.kf, &nk);
	for (size_t i = 0; i < nk; i++)
		kt_symtab_add(&r->sym.ksyms, ks[i].addr, 0, ks[i].name);
	kt_symtab_sort(&r->sym.ksyms);
	return 0;
}

int kt_replay_load(struct ktrace_record *r, const char *path,
		   struct ktrace_err *err)
{
	int ret;

	/* what no record says comes from the file's own tables */
	r->comm.from_table = true;
	r->sym.kallsyms = false;
	ret = open_file(&r->file, &path, err);
	if (!ret)
		ret = load_events(r, path, err);
	if (!ret)
		ret = load_ids(r, path, err);
	if (!ret)
		ret = load_tables(r);
	if (ret)
		return ret;
	r->dec.fmt.sample_id_all = true;
	r->dec.mcfg.sample_type = r->dec.fmt.sample_type;
	r->dec.mcfg.sample_id_all = true;
	return kt_decoder_stats_alloc(&r->dec, 4096, r->evt.nev) ? ENOMEM : 0;
}

const char *ktrace_record_meta(struct ktrace_record *r, const char *key)
{
	return r->file.kf ? kt_kfile_meta_get(r->file.kf, key) : NULL;
}

bool ktrace_record_truncated(struct ktrace_record *r)
{
	return r->file.kf && kt_kfile_truncated(r->file.kf);
}

long ktrace_record_replay(struct ktrace_record *r, ktrace_sample_fn fn,
			  void *ctx, ktrace_raw_fn raw, void *raw_ctx)
{
	const struct perf_event_header *h;
	long n = 0;
	int ret;

	if (!r->file.kf)
		return -EINVAL;
	kt_kfile_rewind(r->file.kf);
	r->dec.fn = fn;
	r->dec.fnctx = ctx;
	while ((ret = kt_kfile_next(r->file.kf, &h)) == 1) {
		uint64_t ts = 0;

		kt_merge_rec_time(&r->dec.mcfg, h, &ts);
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
