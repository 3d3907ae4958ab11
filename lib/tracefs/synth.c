// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Synthetic events of ktrace's own: defined for a run ("NAME FIELD; ..."
 * appended to synthetic_events), removed by name ("!NAME"), and those of
 * a ktrace killed with SIGKILL swept by their owner record (the name is
 * the owner's, kt_owner_group_name()). Their triggers live in the run's
 * own instance (kt_hist_start()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "tracefs/synth.h"
#include "tracefs/tfs_priv.h"

int kt_synth_create(struct ktrace_tfs *tfs, const char *def,
		    struct ktrace_err *err)
{
	char *klog, *cmd = NULL;
	const char *why;
	int ret, pos = -1;

	if (strchr(def, '\n'))
		return kt_err_set(err, EINVAL, "a synthetic event is one line");
	kt_errlog_clear(tfs, NULL);
	ret = kt_inst_write(&tfs->top, "synthetic_events", def, O_APPEND);
	if (!ret)
		return 0;
	if (ret == -ENOENT)
		return kt_err_set(err, EOPNOTSUPP,
				  "this kernel has no synthetic events (CONFIG_SYNTH_EVENTS is off: no synthetic_events)");
	klog = kt_errlog_read(tfs, NULL, &cmd, &pos);
	why = klog && strstr(klog, ": error: ") ?
	      strstr(klog, ": error: ") + strlen(": error: ") : klog;
	kt_err_set(err, -ret, "kernel refused synthetic event: %s",
		   why ? why : strerror(-ret));
	if (err) {
		err->klog = klog;
		err->input = strdup(def);
		err->pos = cmd && !strcmp(cmd, def) ? pos : -1;
	} else {
		free(klog);
	}
	free(cmd);
	return ret;
}

int kt_synth_destroy(struct ktrace_tfs *tfs, const char *name)
{
	char *line;
	int ret;

	if (kt_name_check(name))
		return -EINVAL;
	if (asprintf(&line, "!%s", name) < 0)
		return -ENOMEM;
	ret = kt_inst_write(&tfs->top, "synthetic_events", line, O_APPEND);
	free(line);
	if (!ret)
		kt_owner_release(tfs, name);
	return ret;
}

int kt_synth_sweep(struct ktrace_tfs *tfs)
{
	struct kt_dyn_set ds;
	int removed = 0, ret = kt_dyn_load(tfs, &ds);

	for (int i = 0; !ret && i < ds.n; i++) {
		const struct kt_dyn_def *d = &ds.v[i];

		if (d->kind != KTRACE_KIND_SYNTHETIC ||
		    strncmp(d->name, "ktrace_", strlen("ktrace_")) ||
		    !kt_owner_dead(tfs, d->name))
			continue;
		if (!kt_synth_destroy(tfs, d->name))
			removed++;
	}
	kt_dyn_free(&ds);
	return ret ? ret : removed;
}
