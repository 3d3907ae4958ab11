// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Address -> name tables: the kernel's (kallsyms, modules included) and a
 * binary's. The start of the one symbol layer the stacks build on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "sym/symtab.h"

void kt_symtab_free(struct kt_symtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int kt_symtab_add(struct kt_symtab *t, uint64_t addr, const char *name)
{
	struct kt_sym *nv;

	if ((t->n & (t->n - 1)) == 0 || t->n == 0) {
		nv = realloc(t->v, (t->n ? t->n * 2 : 1024) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->v = nv;
	}
	t->v[t->n].addr = addr;
	t->v[t->n].name = strdup(name);
	if (!t->v[t->n].name)
		return -ENOMEM;
	t->n++;
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct kt_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void kt_symtab_sort(struct kt_symtab *t)
{
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), sym_cmp);
	t->loaded = true;
}

const char *kt_symtab_find(const struct kt_symtab *t, uint64_t addr,
			   uint64_t *off)
{
	size_t lo = 0, hi = t->n;

	if (!t->n || addr < t->v[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (off)
		*off = addr - t->v[lo].addr;
	return t->v[lo].name;
}

int kt_symtab_load_kallsyms(struct kt_symtab *t, const char *path)
{
	char line[512];
	FILE *f = fopen(path ? path : "/proc/kallsyms", "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[400];
		char *mod;

		if (sscanf(line, "%llx %c %399s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'W' && type != 'w')
			continue;
		if (!addr)
			continue;
		mod = strchr(line, '[');
		if (mod) {
			char full[512];

			mod[strcspn(mod, "\n")] = '\0';
			snprintf(full, sizeof(full), "%s %s", name, mod);
			kt_symtab_add(t, addr, full);
		} else {
			kt_symtab_add(t, addr, name);
		}
	}
	fclose(f);
	kt_symtab_sort(t);
	return 0;
}
