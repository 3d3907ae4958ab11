// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's hist file (kt_hist_parse): the input is the text, not
 * NUL-terminated (a read past it is seen). What parses is walked whole
 * and must hold together (one entry per Entries, every string there);
 * each table is then looked up by its own trigger info and by a few
 * triggers ktrace could write (kt_hist_find).
 */
#include <stdlib.h>
#include <string.h>

#include "tracefs/hist.h"
#include "fuzz.h"

static const char *const triggers[] = {
	"hist:keys=id.syscall:sort=hitcount.descending",
	"hist:keys=cpu:vals=bytes_req,bytes_alloc:size=100 if id == 0",
	"hist:name=x:keys=stacktrace,common_pid.execname:nohitcount",
	"hist:keys=a.buckets=10:vals=hitcount.percent,b.graph:sort=a,b",
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* Every string of t read once: a bad pointer is seen */
static void walk(const struct kt_hist_table *t)
{
	size_t i, n = strlen(t->trigger);
	int k;

	for (k = 0; k < t->nkeys; k++)
		n += strlen(t->keys[k].name);
	for (k = 0; k < t->nvals; k++)
		n += strlen(t->vals[k]);
	for (i = 0; i < t->n; i++) {
		n += strlen(t->v[i].raw);
		for (k = 0; k < t->nkeys; k++)
			n += strlen(t->v[i].keys[k].text);
		for (k = 0; k < t->nvals; k++)
			n += t->v[i].vals[k] & 1;
	}
	if (!t->has_totals || t->entries != t->n || !n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kt_hist_file *f = NULL;
	size_t i;
	int j;

	if (size > 65536)
		return 0;
	if (kt_hist_parse((const char *)data, size, &f)) {
		if (f)
			abort();
		return 0;
	}
	for (j = 0; j < f->n; j++) {
		walk(&f->t[j]);
		kt_hist_find(f, f->t[j].trigger);
	}
	for (i = 0; i < sizeof(triggers) / sizeof(triggers[0]); i++)
		kt_hist_find(f, triggers[i]);
	kt_hist_file_free(f);
	return 0;
}
