// SPDX-License-Identifier: LGPL-2.1-only
/* Listing the events of a tracefs tree, with their kind and format. */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "base/internal.h"

struct ktrace_events {
	struct ktrace_tfs *tfs;
	/*
	 * The entries own their strings (freed through casts), except a
	 * system and name that point into avail.
	 */
	struct ktrace_event *v;
	int n, cap;
	struct tep_handle *tep;
	char *avail;		/* available_events, cut into names */
	size_t avail_len;
};

/* One line of dynamic_events: "p:grp/ev ..." */
static const char *const kind_names[] = {
	[KTRACE_KIND_TRACEPOINT] = "tracepoint",
	[KTRACE_KIND_KPROBE] = "kprobe",
	[KTRACE_KIND_KRETPROBE] = "kretprobe",
	[KTRACE_KIND_UPROBE] = "uprobe",
	[KTRACE_KIND_URETPROBE] = "uretprobe",
	[KTRACE_KIND_SYNTHETIC] = "synthetic",
	[KTRACE_KIND_EPROBE] = "eprobe",
	[KTRACE_KIND_FPROBE] = "fprobe",
	[KTRACE_KIND_OTHER] = "dynamic",
};

const char *ktrace_kind_name(enum ktrace_kind kind)
{
	if ((unsigned int)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "unknown";
	return kind_names[kind];
}

void kt_dyn_free(struct kt_dyn_set *ds)
{
	for (int i = 0; i < ds->n; i++) {
		free(ds->v[i].system);
		free(ds->v[i].name);
		free(ds->v[i].line);
	}
	free(ds->v);
	ds->v = NULL;
	ds->n = 0;
}

/*
 * Parse the definitions in buf. uprobe_lines says the buffer came from
 * uprobe_events, which settles the kprobe/uprobe ambiguity of "p:" and "r:"
 * (the two share their prefix in dynamic_events).
 */
static int dyn_parse(struct kt_dyn_set *ds, char *buf, bool uprobe_lines)
{
	char *save = NULL, *line;

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *slash, *end;
		enum ktrace_kind kind;
		struct kt_dyn_def *d, *nv;

		if (!colon || colon == line)
			continue;
		switch (line[0]) {
		case 'p':
			kind = uprobe_lines ? KTRACE_KIND_UPROBE :
					      KTRACE_KIND_KPROBE;
			break;
		case 'r':
			kind = uprobe_lines ? KTRACE_KIND_URETPROBE :
					      KTRACE_KIND_KRETPROBE;
			break;
		case 's':
			kind = KTRACE_KIND_SYNTHETIC;
			break;
		case 'e':
			kind = KTRACE_KIND_EPROBE;
			break;
		case 'f':
		case 't':
			kind = KTRACE_KIND_FPROBE;
			break;
		default:
			kind = KTRACE_KIND_OTHER;
		}
		slash = strchr(colon + 1, '/');
		end = strpbrk(colon + 1, " \t");
		if (!slash || (end && slash > end))
			continue;
		nv = realloc(ds->v, (ds->n + 1) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		ds->v = nv;
		d = &ds->v[ds->n];
		d->kind = kind;
		d->system = strndup(colon + 1, slash - colon - 1);
		d->name = end ? strndup(slash + 1, end - slash - 1) :
				strdup(slash + 1);
		d->line = strdup(line);
		if (!d->system || !d->name || !d->line) {
			free(d->system);
			free(d->name);
			free(d->line);
			return -ENOMEM;
		}
		ds->n++;
	}
	return 0;
}

/* Every dynamic event defined in the tree, with its kind. */
int kt_dyn_load(struct ktrace_tfs *tfs, struct kt_dyn_set *ds)
{
	struct kt_dyn_set up = { 0 };
	char *buf;
	int ret = 0;

	memset(ds, 0, sizeof(*ds));
	buf = kt_read_at(tfs->dir, "uprobe_events", NULL);
	if (buf) {
		ret = dyn_parse(&up, buf, true);
		free(buf);
		if (ret)
			goto out;
	}
	buf = kt_read_at(tfs->dir, "dynamic_events", NULL);
	if (!buf)
		buf = kt_read_at(tfs->dir, "kprobe_events", NULL);
	if (buf) {
		ret = dyn_parse(ds, buf, false);
		free(buf);
		if (ret)
			goto out;
	}
	/* Kinds from uprobe_events win over the ambiguous "p:"/"r:". */
	for (int i = 0; i < up.n; i++) {
		bool found = false;

		for (int j = 0; j < ds->n; j++) {
			if (!strcmp(ds->v[j].system, up.v[i].system) &&
			    !strcmp(ds->v[j].name, up.v[i].name)) {
				ds->v[j].kind = up.v[i].kind;
				found = true;
			}
		}
		if (!found) {
			struct kt_dyn_def *nv = realloc(ds->v, (ds->n + 1) *
							    sizeof(*nv));

			if (!nv) {
				ret = -ENOMEM;
				goto out;
			}
			ds->v = nv;
			ds->v[ds->n++] = up.v[i];
			memset(&up.v[i], 0, sizeof(up.v[i]));
		}
	}
out:
	kt_dyn_free(&up);
	return ret;
}

static const struct kt_dyn_def *dyn_find(const struct kt_dyn_set *ds,
				      const char *sys, const char *name)
{
	for (int i = 0; i < ds->n; i++)
		if (!strcmp(ds->v[i].system, sys) &&
		    !strcmp(ds->v[i].name, name))
			return &ds->v[i];
	return NULL;
}

/* Whether e's system and name point into evs->avail (not to be freed). */
static bool ev_borrowed(const struct ktrace_events *evs,
			const struct ktrace_event *e)
{
	uintptr_t a = (uintptr_t)evs->avail, s = (uintptr_t)e->system;

	return evs->avail && s >= a && s < a + evs->avail_len;
}

/*
 * Add sys:name. borrow: the strings live as long as evs (they point into
 * evs->avail) and are not copied.
 */
static int ev_add(struct ktrace_events *evs, const char *sys, const char *name,
		  const struct kt_dyn_def *def, bool borrow)
{
	struct ktrace_event *e;

	if (evs->n == evs->cap) {
		int cap = evs->cap ? evs->cap * 2 : 256;
		struct ktrace_event *nv = realloc(evs->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		evs->v = nv;
		evs->cap = cap;
	}
	e = &evs->v[evs->n];
	memset(e, 0, sizeof(*e));
	e->system = borrow ? sys : strdup(sys);
	e->name = borrow ? name : strdup(name);
	e->definition = def ? strdup(def->line) : NULL;
	if (!e->system || !e->name || (def && !e->definition)) {
		if (!borrow) {
			free((char *)e->system);
			free((char *)e->name);
		}
		free((char *)e->definition);
		return -ENOMEM;
	}
	e->kind = def ? def->kind : KTRACE_KIND_TRACEPOINT;
	e->id = -1;
	evs->n++;
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct ev_key {
	const char *name;
	int rank;		/* of its system, in sorted order */
	int i;			/* index into evs->v */
};

/*
 * The rank of each entry's system in sorted order, in k[i].rank. Entries
 * of one system mostly come in runs, so only the runs' names are sorted.
 * The number of systems, or -ENOMEM.
 */
static int rank_systems(const struct ktrace_events *evs, struct ev_key *k)
{
	const char **runs = malloc(evs->n * sizeof(*runs));
	int nruns = 0, nuniq = 0;

	if (!runs)
		return -ENOMEM;
	for (int i = 0; i < evs->n; i++)
		if (!i || strcmp(evs->v[i].system, evs->v[i - 1].system))
			runs[nruns++] = evs->v[i].system;
	qsort(runs, nruns, sizeof(*runs), str_cmp);
	for (int i = 0; i < nruns; i++)
		if (!nuniq || strcmp(runs[i], runs[nuniq - 1]))
			runs[nuniq++] = runs[i];
	for (int i = 0; i < evs->n; i++) {
		const char *sys = evs->v[i].system, **r;

		k[i].name = evs->v[i].name;
		k[i].i = i;
		if (i && !strcmp(sys, evs->v[i - 1].system)) {
			k[i].rank = k[i - 1].rank;
			continue;
		}
		r = bsearch(&sys, runs, nuniq, sizeof(*runs), str_cmp);
		k[i].rank = r ? r - runs : 0;
	}
	free(runs);
	return nuniq;
}

/*
 * Order k[0..n), whose names agree before byte d, by name as strcmp
 * orders it: a three-way radix quicksort (Bentley and Sedgewick), which
 * looks at a shared prefix once, not in every comparison.
 */
static void key_qsort(struct ev_key *k, int n, int d)
{
	while (n > 1) {
		int lt = 0, i = 0, gt = n, p;
		struct ev_key t;

		if (n < 8) {
			for (int x = 1; x < n; x++) {
				int y = x;

				t = k[x];
				for (; y > 0 && strcmp(t.name + d,
						       k[y - 1].name + d) < 0;
				     y--)
					k[y] = k[y - 1];
				k[y] = t;
			}
			return;
		}
		/* the median of three bytes as the pivot */
		{
			int b0 = (unsigned char)k[0].name[d];
			int b1 = (unsigned char)k[n / 2].name[d];
			int b2 = (unsigned char)k[n - 1].name[d];

			p = b0 < b1 ? (b1 < b2 ? b1 : (b0 < b2 ? b2 : b0))
				    : (b0 < b2 ? b0 : (b1 < b2 ? b2 : b1));
		}
		while (i < gt) {
			int c = (unsigned char)k[i].name[d];

			if (c < p) {
				t = k[lt], k[lt++] = k[i], k[i++] = t;
			} else if (c > p) {
				t = k[--gt], k[gt] = k[i], k[i] = t;
			} else {
				i++;
			}
		}
		key_qsort(k, lt, d);
		key_qsort(k + gt, n - gt, d);
		if (!p)
			return;	/* equal names */
		k += lt;
		n = gt - lt;
		d++;
	}
}

/*
 * Group the keys by rank (a counting sort, in place along the
 * permutation's cycles: dest[i] is where k[i] goes). 0 or -ENOMEM; *at
 * (nsys + 1 entries, the caller frees) then holds where each rank's group
 * ends.
 */
static int group_by_rank(struct ev_key *k, int n, int nsys, int **atp)
{
	int *at = calloc(nsys + 1, sizeof(*at)), *dest = malloc(n * sizeof(*dest));

	if (!at || !dest) {
		free(at);
		free(dest);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		at[k[i].rank + 1]++;
	for (int r = 0; r < nsys; r++)
		at[r + 1] += at[r];
	for (int i = 0; i < n; i++)
		dest[i] = at[k[i].rank]++;
	for (int i = 0; i < n; i++) {
		while (dest[i] != i) {
			int j = dest[i];
			struct ev_key t = k[j];
			int dj = dest[j];

			k[j] = k[i];
			dest[j] = j;
			k[i] = t;
			dest[i] = dj;
		}
	}
	free(dest);
	*atp = at;
	return 0;
}

/*
 * Sort evs by system, then name: the keys are sorted, then the entries
 * move in place along the permutation's cycles (no second array of
 * entries: every page touched costs a fault). 0 or -ENOMEM.
 */
static int ev_sort(struct ktrace_events *evs)
{
	struct ev_key *k = malloc(evs->n * sizeof(*k));
	int nsys = k ? rank_systems(evs, k) : -ENOMEM, *at = NULL;

	if (nsys < 0 || group_by_rank(k, evs->n, nsys, &at)) {
		free(k);
		return -ENOMEM;
	}
	for (int r = 0, from = 0; r < nsys; from = at[r++])
		key_qsort(k + from, at[r] - from, 0);
	free(at);
	/* position j takes the entry at k[j].i */
	for (int i = 0; i < evs->n; i++) {
		struct ktrace_event tmp;
		int j = i;

		if (k[i].i < 0 || k[i].i == i)
			continue;
		tmp = evs->v[i];
		for (;;) {
			int src = k[j].i;

			k[j].i = -1;
			if (src == i) {
				evs->v[j] = tmp;
				break;
			}
			evs->v[j] = evs->v[src];
			j = src;
		}
	}
	free(k);
	return 0;
}

static bool is_dir_entry(const struct dirent *d)
{
	return d->d_type == DT_DIR || d->d_type == DT_UNKNOWN;
}

static int scan_system(struct ktrace_events *evs, const char *evdir,
		       const char *sys, const char *const *globs, int nglobs,
		       unsigned int *hits, const struct kt_dyn_set *ds)
{
	char *p = kt_path("%s/%s", evdir, sys);
	struct dirent *d;
	bool any = nglobs == 0;
	DIR *dir;
	int ret = 0;

	if (!p)
		return -errno;
	/* Skip whole systems that no glob can match. */
	for (int i = 0; i < nglobs && !any; i++) {
		const char *g = globs[i], *c = strchr(g, ':');
		char s[257];

		if (!c) {
			any = ktrace_glob_match(g, sys, "");
			continue;
		}
		if ((size_t)(c - g) >= sizeof(s))
			continue;
		memcpy(s, g, c - g);
		s[c - g] = '\0';
		any = ktrace_glob_match(c == g ? "*" : s, sys, "");
	}
	if (!any)
		goto out;
	/*
	 * Systems without an "enable" file (ftrace's own) hold internal
	 * events that cannot be enabled or recorded: not listed, as in
	 * available_events.
	 */
	{
		char *q = kt_path("%s/enable", p);
		bool skip = !q || access(q, F_OK);

		free(q);
		if (skip)
			goto out;
	}
	dir = opendir(p);
	if (!dir) {
		ret = errno == ENOTDIR ? 0 : -errno;
		goto out;
	}
	while ((d = readdir(dir))) {
		bool match = nglobs == 0;

		if (d->d_name[0] == '.' || !is_dir_entry(d))
			continue;
		if (d->d_type == DT_UNKNOWN) {
			char *q = kt_path("%s/%s/format", p, d->d_name);

			if (!q || access(q, F_OK)) {
				free(q);
				continue;
			}
			free(q);
		}
		for (int i = 0; i < nglobs; i++) {
			if (ktrace_glob_match(globs[i], sys, d->d_name)) {
				match = true;
				if (hits)
					hits[i]++;
			}
		}
		if (!match)
			continue;
		ret = ev_add(evs, sys, d->d_name, dyn_find(ds, sys, d->d_name),
			     false);
		if (ret)
			break;
	}
	closedir(dir);
out:
	free(p);
	return ret;
}

/*
 * The fast path: available_events names every event that can be enabled
 * ("system:event" per line, ftrace's internal ones left out), so a listing
 * needs one read, not a directory walk. 1: done, 0: no such file, -errno.
 */
static int read_available(struct ktrace_events *evs, const char *const *globs,
			  int nglobs, unsigned int *hits,
			  const struct kt_dyn_set *ds)
{
	char *path = kt_path("%s/available_events", evs->tfs->dir), *buf = NULL;
	size_t len;
	int fd, ret = 1;

	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	/* ~60 KiB on a distribution kernel: read it without regrowing */
	buf = kt_read_fd_hint(fd, &len, 128 * 1024);
	close(fd);
	if (!buf)
		return -errno;
	evs->avail = buf;	/* the names point into it */
	evs->avail_len = len;
	/* one allocation of the right size: no growth, fewer pages */
	if (!nglobs) {
		int lines = 0;

		for (const char *p = buf; (p = memchr(p, '\n', buf + len - p));
		     p++)
			lines++;
		if (lines > evs->cap) {
			struct ktrace_event *nv = realloc(evs->v,
						      lines * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			evs->v = nv;
			evs->cap = lines;
		}
	}
	for (char *line = buf, *end; line < buf + len; line = end + 1) {
		bool match = nglobs == 0;
		char *ev;

		end = memchr(line, '\n', buf + len - line);
		if (!end)
			end = buf + len;	/* buf[len] is the NUL */
		*end = '\0';
		ev = memchr(line, ':', end - line);
		/* names from the kernel: only what could leave the tree */
		if (!ev || line[0] == '.' || ev[1] == '.' ||
		    memchr(line, '/', end - line))
			continue;
		*ev++ = '\0';
		for (int i = 0; i < nglobs; i++) {
			if (ktrace_glob_match(globs[i], line, ev)) {
				match = true;
				if (hits)
					hits[i]++;
			}
		}
		if (!match)
			continue;
		if (ev_add(evs, line, ev, dyn_find(ds, line, ev), true)) {
			ret = -ENOMEM;
			break;
		}
	}
	return ret;
}

struct ktrace_events *ktrace_events_alloc(struct ktrace_tfs *tfs,
					  const char *const *globs, int nglobs,
					  unsigned int *hits)
{
	struct ktrace_events *evs;
	struct kt_dyn_set ds;
	struct dirent *d;
	char *evdir;
	DIR *dir;
	int ret;

	if (hits)
		memset(hits, 0, nglobs * sizeof(*hits));
	for (int i = 0; i < nglobs; i++) {
		if (ktrace_glob_check(globs[i])) {
			errno = EINVAL;
			return NULL;
		}
	}
	evs = calloc(1, sizeof(*evs));
	if (!evs)
		return NULL;
	evs->tfs = tfs;
	ret = kt_dyn_load(tfs, &ds);
	if (ret) {
		kt_dyn_free(&ds);
		free(evs);
		errno = -ret;
		return NULL;
	}
	evdir = NULL;
	ret = read_available(evs, globs, nglobs, hits, &ds);
	if (ret < 0)
		goto fail;
	if (ret == 0) {
		/* no available_events (an old or partial tree): walk it */
		evdir = kt_path("%s/events", tfs->dir);
		dir = evdir ? opendir(evdir) : NULL;
		if (!dir) {
			ret = -errno;
			goto fail;
		}
		while ((d = readdir(dir))) {
			if (d->d_name[0] == '.' || !is_dir_entry(d))
				continue;
			ret = scan_system(evs, evdir, d->d_name, globs, nglobs,
					  hits, &ds);
			if (ret)
				break;
		}
		closedir(dir);
		if (ret)
			goto fail;
	}
	free(evdir);
	evdir = NULL;
	kt_dyn_free(&ds);
	ret = evs->n ? ev_sort(evs) : 0;
	if (ret)
		goto fail;
	return evs;
fail:
	free(evdir);
	kt_dyn_free(&ds);
	ktrace_events_free(evs);
	errno = -ret;
	return NULL;
}

void ktrace_events_free(struct ktrace_events *evs)
{
	if (!evs)
		return;
	for (int i = 0; i < evs->n; i++) {
		struct ktrace_event *e = &evs->v[i];

		if (!ev_borrowed(evs, e)) {
			free((char *)e->system);
			free((char *)e->name);
		}
		free((char *)e->definition);
		for (int j = 0; j < e->nr_fields; j++) {
			free((char *)e->fields[j].type);
			free((char *)e->fields[j].name);
		}
		free((void *)e->fields);
		free((char *)e->print_fmt);
	}
	free(evs->v);
	free(evs->avail);
	if (evs->tep)
		tep_free(evs->tep);
	free(evs);
}

int ktrace_events_count(const struct ktrace_events *evs)
{
	return evs->n;
}

const struct ktrace_event *ktrace_events_get(const struct ktrace_events *evs,
					     int i)
{
	if (i < 0 || i >= evs->n)
		return NULL;
	return &evs->v[i];
}

static int copy_fields(struct ktrace_event *e, struct tep_event *te)
{
	struct tep_format_field *f;
	int n = te->format.nr_common + te->format.nr_fields, i = 0;
	struct ktrace_field *fields = calloc(n ? n : 1, sizeof(*fields));

	if (!fields)
		return -ENOMEM;
	e->fields = fields;
	for (int pass = 0; pass < 2; pass++) {
		f = pass ? te->format.fields : te->format.common_fields;
		for (; f && i < n; f = f->next, i++) {
			struct ktrace_field *k = &fields[i];

			k->type = strdup(f->type);
			k->name = strdup(f->name);
			if (!k->type || !k->name) {
				e->nr_fields = i + 1;
				return -ENOMEM;
			}
			k->offset = f->offset;
			k->size = f->size;
			k->is_signed = f->flags & TEP_FIELD_IS_SIGNED;
			k->is_common = !pass;
		}
	}
	e->nr_fields = i;
	return 0;
}

int ktrace_events_load_formats(struct ktrace_events *evs)
{
	char *p, *buf;
	size_t len;

	if (!evs->tep) {
		evs->tep = tep_alloc();
		if (!evs->tep)
			return -ENOMEM;
	}
	for (int i = 0; i < evs->n; i++) {
		struct ktrace_event *e = &evs->v[i];
		struct tep_event *te = NULL;
		char *pf;
		int ret;

		if (e->fields)
			continue;
		p = kt_path("%s/events/%s/%s", evs->tfs->dir, e->system,
			    e->name);
		if (!p)
			return -errno;
		buf = kt_read_at(p, "id", NULL);
		if (buf) {
			e->id = atoi(buf);
			free(buf);
		}
		buf = kt_read_at(p, "format", &len);
		free(p);
		if (!buf)
			continue;	/* unreadable format: listed without */
		if (tep_parse_format(evs->tep, &te, buf, len, e->system) ==
		    TEP_ERRNO__SUCCESS && te) {
			ret = copy_fields(e, te);
			if (ret) {
				free(buf);
				return ret;
			}
			pf = strstr(buf, "\nprint fmt: ");
			if (pf) {
				pf += strlen("\nprint fmt: ");
				e->print_fmt = strndup(pf,
							   strcspn(pf, "\n"));
			}
		}
		free(buf);
	}
	return 0;
}
