// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Frame names for stacks and sampled addresses: kernel frames from
 * kallsyms (module symbols too) or a file's table, user frames from the
 * address space.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"

void kt_symbolizer_free(struct kt_symbolizer *sy)
{
	kt_symtab_free(&sy->ksyms);
	free(sy->ksym_used);
}

void kt_symbolizer_ksyms(struct kt_symbolizer *sy)
{
	if (sy->kallsyms && !sy->ksyms.loaded)
		kt_symtab_load_kallsyms(&sy->ksyms, NULL);
}

int kt_symbolizer_track(struct kt_symbolizer *sy)
{
	kt_symbolizer_ksyms(sy);
	sy->ksym_used = calloc(sy->ksyms.n / 8 + 1, 1);
	return sy->ksym_used ? 0 : -ENOMEM;
}

static void mark_kernel(struct kt_symbolizer *sy, uint64_t ip)
{
	const struct kt_sym *k;
	size_t at;

	if (!sy->ksym_used || !(k = kt_symtab_lookup(&sy->ksyms, ip)))
		return;
	at = k - sy->ksyms.v;
	sy->ksym_used[at / 8] |= 1 << (at % 8);
}

char *kt_symbolize_tep_ksym(void *priv, unsigned long long *addrp,
			    char **modp)
{
	struct kt_symbolizer *sy = priv;
	const struct kt_sym *k;
	const char *mod;
	size_t at;

	kt_symbolizer_ksyms(sy);
	k = kt_symtab_lookup(&sy->ksyms, *addrp);
	if (!k)
		return NULL;
	at = k - sy->ksyms.v;
	if (sy->ksym_used)
		sy->ksym_used[at / 8] |= 1 << (at % 8);
	/* "name [mod]": the module apart, as libtraceevent wants it */
	mod = strchr(k->name, ' ');
	snprintf(sy->ksym_buf, sizeof(sy->ksym_buf), "%.*s",
		 mod ? (int)(mod - k->name) : (int)strlen(k->name), k->name);
	*addrp = k->addr;
	*modp = NULL;
	return sy->ksym_buf;
}

void kt_symbolize_mark(struct kt_symbolizer *sy, struct kt_addrspace *as,
		       const struct ktrace_sample *s, bool own_ip)
{
	bool kernel = true;

	if (own_ip) {
		if (kt_kernel_ip(s->ip))
			mark_kernel(sy, s->ip);
		else
			kt_addrspace_mark(as, s->pid, s->ip);
	}
	for (uint32_t i = 0; i < s->nr_ips; i++) {
		uint64_t ip = s->ips[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (kernel)
			mark_kernel(sy, ip);
		else
			kt_addrspace_mark(as, s->pid, ip);
	}
}

const char *kt_symbolize_kernel_text(struct kt_symbolizer *sy, uint64_t ip,
				     char *buf, size_t len)
{
	uint64_t off = 0;
	const char *name = kt_symtab_find(&sy->ksyms, ip, &off);
	const char *mod = name ? strstr(name, " [") : NULL;

	if (!name)
		snprintf(buf, len, "[unknown] ([kernel.kallsyms])");
	else if (mod)	/* "name [mod]" */
		snprintf(buf, len, "%.*s+0x%llx (%s)", (int)(mod - name), name,
			 (unsigned long long)off, mod + 1);
	else
		snprintf(buf, len, "%s+0x%llx ([kernel.kallsyms])", name,
			 (unsigned long long)off);
	return buf;
}

/* ------------------------------------------------------------- profiles */

static int kernel_frame(struct kt_symbolizer *sy, struct kt_addrspace *as,
			uint64_t ip, struct ktrace_frame *f)
{
	const char *name = kt_symtab_find(&sy->ksyms, ip, NULL), *mod;

	f->ip = ip;
	f->inlined = false;
	f->sym = "[unknown]";
	f->dso = "[kernel.kallsyms]";
	if (!name)
		return 1;
	/* "name [mod]" */
	mod = strchr(name, ' ');
	f->sym = mod ? kt_addrspace_intern(as, name, mod - name) : name;
	if (mod && mod[1] == '[')
		f->dso = kt_addrspace_intern(as, mod + 1, strlen(mod + 1));
	if (!f->sym || !f->dso) {
		f->sym = "[unknown]";
		f->dso = "[kernel.kallsyms]";
	}
	return 1;
}

int ktrace_record_frames(struct ktrace_record *r,
			 const struct ktrace_sample *s,
			 struct ktrace_frame *v, int max)
{
	struct kt_symbolizer *sy = &r->sym;
	struct kt_addrspace *as = &r->as;
	bool kernel = true;
	int n = 0;

	if (s->type != KTRACE_SAMPLE_EVENT || max <= 0)
		return 0;
	kt_symbolizer_ksyms(sy);
	if (!s->nr_ips) {
		/* a sampling event's own address */
		if (!(r->dec.fmt.sample_type & PERF_SAMPLE_IP) || s->event < 0 ||
		    s->event >= r->evt.nev || r->evt.ev[s->event].te)
			return 0;
		if (kt_kernel_ip(s->ip))
			return kernel_frame(sy, as, s->ip, v);
		return kt_addrspace_user_frames(as, s->pid, s->ip, v, max);
	}
	for (uint32_t i = 0; i < s->nr_ips && n < max; i++) {
		uint64_t ip = s->ips[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (kernel)
			n += kernel_frame(sy, as, ip, &v[n]);
		else
			n += kt_addrspace_user_frames(as, s->pid, ip, v + n,
						      max - n);
	}
	return n;
}

const struct kt_map *kt_record_user_map(struct ktrace_record *r, int pid,
					uint64_t ip)
{
	if (kt_kernel_ip(ip))
		return NULL;
	return kt_addrspace_map_of(&r->as, pid, ip);
}

int kt_record_user_src(struct ktrace_record *r, int pid, uint64_t ip, int k,
		       struct kt_src *out)
{
	if (!kt_kernel_ip(ip))
		return kt_addrspace_user_src(&r->as, pid, ip, k, out);
	memset(out, 0, sizeof(*out));
	return -ENOENT;
}

const char *kt_record_build_id(struct ktrace_record *r, const char *path)
{
	return kt_addrspace_build_id(&r->as, path);
}

enum kt_period_unit kt_record_period_unit(const struct ktrace_record *r,
					  int event)
{
	const struct rec_event *e;

	if (event < 0 || event >= r->evt.nev)
		return KT_PERIOD_RECORDS;
	e = &r->evt.ev[event];
	if (r->off.has_event && event == r->off.event)
		return KT_PERIOD_NS;	/* time off the CPU */
	if (e->type == PERF_TYPE_TRACEPOINT)
		return KT_PERIOD_RECORDS;
	if (e->type == PERF_TYPE_SOFTWARE &&
	    (e->config == PERF_COUNT_SW_CPU_CLOCK ||
	     e->config == PERF_COUNT_SW_TASK_CLOCK))
		return KT_PERIOD_NS;
	return KT_PERIOD_EVENTS;
}
