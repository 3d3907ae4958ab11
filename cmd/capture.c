// SPDX-License-Identifier: GPL-2.0-only
/*
 * What record and stat (and later commands that capture) share: one
 * target, events named by globs, the clock of -d and -I.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ktrace_cmd.h"

int kt_target_check(struct kt_ctx *ctx, bool command, bool pids, bool all)
{
	if (command + pids + all > 1)
		return kt_usage_error(ctx, NULL,
				      "give one target: a command, -p PID or -a");
	return KT_OK;
}

int kt_seconds_parse(struct kt_ctx *ctx, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out > 0))
		return kt_usage_error(ctx, NULL, "bad duration '%s'", s);
	return KT_OK;
}

double kt_elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

int kt_glob_events(struct kt_ctx *ctx, const char *glob,
		   int (*add)(void *arg, const char *event), void *arg)
{
	struct ktrace_events *evs;
	unsigned int hit = 0;
	int ret = KT_OK;

	if (ktrace_glob_check(glob))
		return kt_usage_error(ctx, NULL, "bad event pattern '%s'", glob);
	evs = ktrace_events_alloc(ctx->tfs, &glob, 1, &hit);
	if (!evs)
		return kt_error(ctx, KT_FAIL, "cannot list events in %s: %s%s",
				ktrace_tfs_dir(ctx->tfs), strerror(errno),
				errno == EACCES ? " (run as root)" : "");
	if (!hit)
		ret = kt_error(ctx, KT_FAIL, "no event matches '%s'", glob);
	for (int i = 0; !ret && i < ktrace_events_count(evs); i++) {
		const struct ktrace_event *e = ktrace_events_get(evs, i);
		char name[160];

		snprintf(name, sizeof(name), "%s:%s", e->system, e->name);
		ret = add(arg, name);
	}
	ktrace_events_free(evs);
	return ret;
}
