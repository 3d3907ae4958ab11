// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Probe sets: probes parsed and resolved together, created all or none,
 * and taken back together. `probe add` makes one set that stays; record
 * and stat make one for their inline probes in the set's own group
 * (ktrace_<pid>), taken back when they end. The dead-owner sweep of those
 * groups is ktrace_probe_cleanup_stale() (create.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/internal.h"
#include "tracefs/tfs.h"
#include "probe/probe_priv.h"

struct ktrace_probes {
	struct ktrace_tfs *tfs;
	struct ktrace_resolver *res;	/* one for the whole set */
	struct ktrace_probe **v;
	int n, cap;
	int made;			/* v[0..made) are in the kernel */
	char own_group[32];		/* ktrace_<pid> */
};

struct ktrace_probes *ktrace_probes_alloc(struct ktrace_tfs *tfs)
{
	struct ktrace_probes *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->tfs = tfs;
	ps->res = ktrace_resolver_alloc(tfs);
	if (!ps->res) {
		free(ps);
		return NULL;
	}
	/* its owner record (owner.c) is written when it is first used */
	kt_owner_group_name(ps->own_group, sizeof(ps->own_group));
	return ps;
}

void ktrace_probes_free(struct ktrace_probes *ps)
{
	if (!ps)
		return;
	for (int i = 0; i < ps->n; i++)
		ktrace_probe_free(ps->v[i]);
	free(ps->v);
	ktrace_resolver_free(ps->res);
	free(ps);
}

const char *ktrace_probes_own_group(const struct ktrace_probes *ps)
{
	return ps->own_group;
}

int ktrace_probes_add(struct ktrace_probes *ps, const char *spec,
		      const struct ktrace_probe_opts *opts,
		      struct ktrace_err *err)
{
	struct ktrace_probe *p;
	int ret;

	if (ps->made)
		return kt_err_set(err, EBUSY,
				  "the set is created already");
	if (ps->n == ps->cap) {
		int cap = ps->cap ? ps->cap * 2 : 8;
		struct ktrace_probe **nv = realloc(ps->v, cap * sizeof(*nv));

		if (!nv)
			return kt_err_set(err, ENOMEM, "out of memory");
		ps->v = nv;
		ps->cap = cap;
	}
	errno = 0;
	p = ktrace_probe_parse(spec, opts, err);
	if (!p)
		return -(errno ? errno : EINVAL);
	ret = ktrace_probe_resolve(p, ps->res, err);
	if (ret) {
		ktrace_probe_free(p);
		return ret;
	}
	ps->v[ps->n] = p;
	return ps->n++;
}

int ktrace_probes_count(const struct ktrace_probes *ps)
{
	return ps->n;
}

struct ktrace_probe *ktrace_probes_get(const struct ktrace_probes *ps, int i)
{
	return i >= 0 && i < ps->n ? ps->v[i] : NULL;
}

int ktrace_probes_create(struct ktrace_probes *ps, bool force, int *failed,
			 struct ktrace_err *err)
{
	int ret;

	if (failed)
		*failed = -1;
	/* Probes of a ktrace killed with SIGKILL go before new ones come. */
	ktrace_probe_cleanup_stale(ps->tfs);
	/* this process's group: its owner is on record before it exists,
	 * so a SIGKILL at any moment leaves a group the sweep can prove */
	for (int i = ps->made; i < ps->n; i++)
		if (!strcmp(ktrace_probe_group(ps->v[i]), ps->own_group)) {
			kt_owner_record(ps->tfs, ps->own_group);
			break;
		}
	for (int i = ps->made; i < ps->n; i++) {
		ret = ktrace_probe_create(ps->v[i], ps->tfs, force, err);
		if (ret) {
			if (failed)
				*failed = i;
			ktrace_probes_undo(ps);	/* all or nothing */
			return ret;
		}
		ps->made = i + 1;
		/* a group made with -g is remembered as ktrace's */
		if (!ktrace_probe_group_is_ktrace(ps->tfs,
						  ktrace_probe_group(ps->v[i])))
			kt_state_mark(ps->tfs, "group",
				      ktrace_probe_group(ps->v[i]));
	}
	return 0;
}

int ktrace_probes_undo(struct ktrace_probes *ps)
{
	int first = 0, ret;

	/* reverse order: a replaced probe comes back as it was */
	for (int i = ps->made - 1; i >= 0; i--) {
		ret = ktrace_probe_undo(ps->v[i], ps->tfs);
		if (ret && !first)
			first = ret;
	}
	ps->made = 0;
	/* this process's group is gone (or was never made): so is its
	 * owner record */
	if (!first && kt_owner_known(ps->tfs, ps->own_group)) {
		char *dir = kt_event_path(kt_tfs_top(ps->tfs), ps->own_group,
					  NULL, NULL);

		if (dir && access(dir, F_OK))
			kt_owner_forget(ps->tfs, ps->own_group);
		free(dir);
	}
	return first;
}
