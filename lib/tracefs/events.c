// SPDX-License-Identifier: LGPL-2.1-only
/* Listing the events of a tracefs tree, with their kind and format. */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <event-parse.h>

#include "base/internal.h"
#include "tracefs/tfs_priv.h"

struct ev_key;

struct ktrace_events {
	struct ktrace_tfs *tfs;
	/*
	 * "system\0name\0" per event: available_events cut in place, or
	 * what the directory walk found.
	 */
	struct kt_buf names;
	struct ev_key *keys;	/* one per event, sorted */
	int n, keys_cap;
	struct kt_dyn_set ds;	/* the tree's dynamic events */
	const struct kt_dyn_def **defs; /* per event, NULL: none has one */
	/*
	 * The entries, filled as ktrace_events_get() first asks for each
	 * (zeroed until then): a plain listing touches none of their pages.
	 * Systems, names and definitions are borrowed from the above;
	 * fields and print formats are the entries' own.
	 */
	struct ktrace_event *v;
	bool owns;		/* formats were loaded */
	struct tep_handle *tep;
};

static inline const char *ev_names(const struct ktrace_events *evs)
{
	return (const char *)evs->names.p;
}

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

/*
 * Every dynamic event defined in the tree, with its kind. uprobe_events is
 * read only when a "p:" or "r:" line needs it.
 */
int kt_dyn_load(struct ktrace_tfs *tfs, struct kt_dyn_set *ds)
{
	struct kt_dyn_set up = { 0 };
	bool ambiguous = false, all;
	char *buf;
	int ret = 0;

	memset(ds, 0, sizeof(*ds));
	buf = kt_inst_read(&tfs->top, "dynamic_events", NULL);
	all = buf != NULL;
	if (!buf)
		buf = kt_inst_read(&tfs->top, "kprobe_events", NULL);
	if (buf) {
		ret = dyn_parse(ds, buf, false);
		free(buf);
		if (ret)
			goto out;
	}
	for (int i = 0; i < ds->n && !ambiguous; i++)
		ambiguous = ds->v[i].kind == KTRACE_KIND_KPROBE ||
			    ds->v[i].kind == KTRACE_KIND_KRETPROBE;
	/* without dynamic_events, uprobes are in uprobe_events alone */
	buf = ambiguous || !all ? kt_inst_read(&tfs->top, "uprobe_events", NULL)
				: NULL;
	if (buf) {
		ret = dyn_parse(&up, buf, true);
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

/*
 * An event as gathered, before sorting: "system\0name" at names + off.
 * Compared as bytes, with the shorter first when one is a prefix of the
 * other, this key orders events by system, then name, as strcmp orders
 * each (neither holds a NUL, and every key has its one NUL after its
 * system).
 */
struct ev_key {
	uint32_t off;
	uint16_t len;		/* system, NUL, name */
	uint16_t sys_len;
};

/* A name this long is not the kernel's: refused, not cut. */
#define EV_KEY_MAX UINT16_MAX

/* Append an event's key; its text is already at names + off. */
static int key_push(struct ktrace_events *evs, size_t off, size_t sys_len,
		    size_t len)
{
	if (len > EV_KEY_MAX || off > UINT32_MAX)
		return -ENAMETOOLONG;
	if (evs->n == evs->keys_cap) {
		int cap = evs->keys_cap ? evs->keys_cap * 2 : 256;
		struct ev_key *nk = realloc(evs->keys, cap * sizeof(*nk));

		if (!nk)
			return -ENOMEM;
		evs->keys = nk;
		evs->keys_cap = cap;
	}
	evs->keys[evs->n++] = (struct ev_key){
		.off = off, .len = len, .sys_len = sys_len,
	};
	return 0;
}

/*
 * Bytes [d, d + 8) of k as a big-endian number, zeros past its end. The
 * names buffer has KT_READ_PAD bytes past its text: a key's last digit is
 * one load, masked.
 */
static inline uint64_t key_digit(const char *names, const struct ev_key *k,
				 unsigned int d)
{
	unsigned int left = k->len > d ? k->len - d : 0;
	uint64_t v;

	if (!left)
		return 0;
	memcpy(&v, names + k->off + d, 8);
	v = be64toh(v);
	return left >= 8 ? v : v & ~(UINT64_MAX >> (8 * left));
}

/* a against b, both agreeing before byte d */
static int key_cmp(const char *names, const struct ev_key *a,
		   const struct ev_key *b, unsigned int d)
{
	unsigned int n = a->len < b->len ? a->len : b->len;
	int c = n > d ? memcmp(names + a->off + d, names + b->off + d, n - d)
		      : 0;

	return c ? c : (int)a->len - (int)b->len;
}

/* Insertion sort of k[0..n), whose keys agree before byte d. */
static void key_isort(const char *names, struct ev_key *k, int n,
		      unsigned int d)
{
	for (int x = 1; x < n; x++) {
		struct ev_key t = k[x];
		int y = x;

		for (; y > 0 && key_cmp(names, &t, &k[y - 1], d) < 0; y--)
			k[y] = k[y - 1];
		k[y] = t;
	}
}

/*
 * Order k[0..n), whose keys agree before byte d: a three-way radix
 * quicksort (Bentley and Sedgewick) whose digits are 8 bytes, so that a
 * long shared prefix ("syscalls\0sys_enter_") costs a few passes, not one
 * per byte.
 */
static void key_sort(const char *names, struct ev_key *k, int n,
		     unsigned int d)
{
	while (n > 1) {
		int lt = 0, i = 0, gt = n;
		unsigned int longest = 0;
		uint64_t p, b0, b1, b2;
		struct ev_key t;

		if (n < 12) {
			key_isort(names, k, n, d);
			return;
		}
		/* the median of three digits as the pivot */
		b0 = key_digit(names, &k[0], d);
		b1 = key_digit(names, &k[n / 2], d);
		b2 = key_digit(names, &k[n - 1], d);
		p = b0 < b1 ? (b1 < b2 ? b1 : (b0 < b2 ? b2 : b0))
			    : (b0 < b2 ? b0 : (b1 < b2 ? b2 : b1));
		while (i < gt) {
			uint64_t c = key_digit(names, &k[i], d);

			if (c < p) {
				t = k[lt], k[lt++] = k[i], k[i++] = t;
			} else if (c > p) {
				t = k[--gt], k[gt] = k[i], k[i] = t;
			} else {
				if (k[i].len > longest)
					longest = k[i].len;
				i++;
			}
		}
		key_sort(names, k, lt, d);
		key_sort(names, k + gt, n - gt, d);
		k += lt;
		n = gt - lt;
		if (longest <= d + 8) {
			/* every key ends here: they differ in length only */
			key_isort(names, k, n, d);
			return;
		}
		d += 8;
	}
}

/* Each event's dynamic definition, when any event has one. */
static int ev_defs(struct ktrace_events *evs)
{
	if (!evs->ds.n || !evs->n)
		return 0;
	evs->defs = malloc(evs->n * sizeof(*evs->defs));
	if (!evs->defs)
		return -ENOMEM;
	for (int i = 0; i < evs->n; i++) {
		const char *sys = ev_names(evs) + evs->keys[i].off;

		evs->defs[i] = dyn_find(&evs->ds, sys,
					sys + evs->keys[i].sys_len + 1);
	}
	return 0;
}

static bool is_dir_entry(const struct dirent *d)
{
	return d->d_type == DT_DIR || d->d_type == DT_UNKNOWN;
}

/* Append "sys\0name\0" to evs->names (the walk's own buffer) and its key. */
static int names_add(struct ktrace_events *evs, const char *sys,
		     const char *name)
{
	size_t ls = strlen(sys), ln = strlen(name), need = ls + ln + 2;
	struct kt_buf *b = &evs->names;

	/* KT_READ_PAD spare bytes at the end, as kt_read_fd() leaves */
	if (kt_buf_reserve(b, need + KT_READ_PAD))
		return -ENOMEM;
	memcpy(b->p + b->len, sys, ls + 1);
	memcpy(b->p + b->len + ls + 1, name, ln + 1);
	b->len += need;
	return key_push(evs, b->len - need, ls, ls + 1 + ln);
}

static int scan_system(struct ktrace_events *evs, const char *sys,
		       const char *const *globs, int nglobs, unsigned int *hits)
{
	struct ktrace_inst *top = &evs->tfs->top;
	char *p = kt_event_path(top, sys, NULL, NULL);
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
			any = kt_glob_match(g, sys, "");
			continue;
		}
		if ((size_t)(c - g) >= sizeof(s))
			continue;
		memcpy(s, g, c - g);
		s[c - g] = '\0';
		any = kt_glob_match(c == g ? "*" : s, sys, "");
	}
	if (!any)
		goto out;
	/*
	 * Systems without an "enable" file (ftrace's own) hold internal
	 * events that cannot be enabled or recorded: not listed, as in
	 * available_events.
	 */
	{
		char *q = kt_event_path(top, sys, NULL, "enable");
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
			char *q = kt_event_path(top, sys, d->d_name,
						"format");

			if (!q || access(q, F_OK)) {
				free(q);
				continue;
			}
			free(q);
		}
		for (int i = 0; i < nglobs; i++) {
			if (kt_glob_match(globs[i], sys, d->d_name)) {
				match = true;
				if (hits)
					hits[i]++;
			}
		}
		if (!match)
			continue;
		ret = names_add(evs, sys, d->d_name);
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
 * needs one read, not a directory walk. The file becomes evs->names, cut
 * in place into keys. 1: done, 0: no such file, -errno.
 */
static int read_available(struct ktrace_events *evs, const char *const *globs,
			  int nglobs, unsigned int *hits)
{
	char *path = kt_inst_path(&evs->tfs->top, "available_events"), *buf;
	bool slashes;
	size_t len;
	int fd;

	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	/*
	 * ~70 KiB on a distribution kernel: read without regrowing, into
	 * the heap (glibc maps 128 KiB and more apart, then unmaps them)
	 */
	buf = kt_read_fd_hint(fd, &len, 128 * 1024 - 64);
	close(fd);
	if (!buf)
		return -errno;
	/* the text with its NUL and KT_READ_PAD after it */
	evs->names = (struct kt_buf){
		.p = (unsigned char *)buf, .len = len,
		.cap = len + 1 + KT_READ_PAD,
	};
	/* lines are ~30 bytes: keys that seldom move (key_push grows them) */
	evs->keys = malloc((len / 16 + 64) * sizeof(*evs->keys));
	if (!evs->keys)
		return -ENOMEM;
	evs->keys_cap = len / 16 + 64;
	/* looked for line by line only when the file has one at all */
	slashes = memchr(buf, '/', len);
	for (char *line = buf, *end; line < buf + len; line = end + 1) {
		bool match = nglobs == 0;
		char *ev;
		int ret;

		/* ':' after a short system: a plain loop beats a call */
		for (ev = line; ev < buf + len && *ev != ':' && *ev != '\n';
		     ev++)
			;
		end = ev < buf + len && *ev == '\n' ? ev :
			memchr(ev, '\n', buf + len - ev);
		if (!end)
			end = buf + len;	/* buf[len] is the NUL */
		*end = '\0';
		if (ev >= end)
			ev = NULL;
		/* names from the kernel: only what could leave the tree */
		if (!ev || ev == line || ev + 1 == end || line[0] == '.' ||
		    ev[1] == '.' || (slashes && memchr(line, '/', end - line)))
			continue;
		*ev = '\0';
		for (int i = 0; i < nglobs; i++) {
			if (kt_glob_match(globs[i], line, ev + 1)) {
				match = true;
				if (hits)
					hits[i]++;
			}
		}
		if (!match)
			continue;
		ret = key_push(evs, line - buf, ev - line, end - line);
		if (ret)
			return ret;
	}
	return 1;
}

struct ktrace_events *ktrace_events_alloc(struct ktrace_tfs *tfs,
					  const char *const *globs, int nglobs,
					  unsigned int *hits)
{
	struct ktrace_events *evs;
	struct dirent *d;
	char *evdir = NULL;
	DIR *dir;
	int ret;

	if (hits)
		memset(hits, 0, nglobs * sizeof(*hits));
	for (int i = 0; i < nglobs; i++) {
		if (kt_glob_check(globs[i])) {
			errno = EINVAL;
			return NULL;
		}
	}
	evs = calloc(1, sizeof(*evs));
	if (!evs)
		return NULL;
	evs->tfs = tfs;
	ret = kt_dyn_load(tfs, &evs->ds);
	if (ret)
		goto fail;
	ret = read_available(evs, globs, nglobs, hits);
	if (ret < 0)
		goto fail;
	if (ret == 0) {
		/* no available_events (an old or partial tree): walk it */
		evdir = kt_event_path(&tfs->top, NULL, NULL, NULL);
		dir = evdir ? opendir(evdir) : NULL;
		if (!dir) {
			ret = -errno;
			goto fail;
		}
		ret = 0;
		while ((d = readdir(dir))) {
			if (d->d_name[0] == '.' || !is_dir_entry(d))
				continue;
			ret = scan_system(evs, d->d_name, globs, nglobs, hits);
			if (ret)
				break;
		}
		closedir(dir);
		if (ret)
			goto fail;
	}
	key_sort(ev_names(evs), evs->keys, evs->n, 0);
	ret = ev_defs(evs);
	if (ret)
		goto fail;
	/*
	 * Fresh zero pages, each touched only when an entry on it is first
	 * asked for (calloc would clear them all: ~50 us for 2,000 events).
	 */
	if (evs->n) {
		void *v = mmap(NULL, evs->n * sizeof(*evs->v),
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (v == MAP_FAILED) {
			ret = -errno;
			goto fail;
		}
		evs->v = v;
	}
	free(evdir);
	return evs;
fail:
	free(evdir);
	ktrace_events_free(evs);
	errno = -ret;
	return NULL;
}

void ktrace_events_free(struct ktrace_events *evs)
{
	if (!evs)
		return;
	for (int i = 0; evs->owns && i < evs->n; i++) {
		struct ktrace_event *e = &evs->v[i];

		for (int j = 0; j < e->nr_fields; j++) {
			free((char *)e->fields[j].type);
			free((char *)e->fields[j].name);
		}
		free((void *)e->fields);
		free((char *)e->print_fmt);
	}
	if (evs->v)
		munmap(evs->v, evs->n * sizeof(*evs->v));
	free(evs->defs);
	kt_dyn_free(&evs->ds);
	free(evs->keys);
	free(evs->names.p);
	if (evs->tep)
		tep_free(evs->tep);
	free(evs);
}

int ktrace_events_count(const struct ktrace_events *evs)
{
	return evs->n;
}

int ktrace_events_brief(const struct ktrace_events *evs, int i,
			struct ktrace_event_brief *b)
{
	const struct ev_key *k;

	if (i < 0 || i >= evs->n)
		return -ERANGE;
	k = &evs->keys[i];
	b->system = ev_names(evs) + k->off;
	b->system_len = k->sys_len;
	b->name = b->system + k->sys_len + 1;
	b->name_len = k->len - k->sys_len - 1;
	b->kind = evs->defs && evs->defs[i] ? evs->defs[i]->kind :
					      KTRACE_KIND_TRACEPOINT;
	return 0;
}

const struct ktrace_event *ktrace_events_get(const struct ktrace_events *evs,
					     int i)
{
	struct ktrace_event_brief b;
	struct ktrace_event *e;

	if (i < 0 || i >= evs->n)
		return NULL;
	e = &evs->v[i];
	if (e->system)
		return e;
	/* first asked for: filled from the key (nothing to allocate) */
	ktrace_events_brief(evs, i, &b);
	e->system = b.system;
	e->name = b.name;
	e->kind = b.kind;
	e->id = -1;
	e->definition = evs->defs && evs->defs[i] ? evs->defs[i]->line : NULL;
	return e;
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
	struct ktrace_inst *top = &evs->tfs->top;
	char *buf;
	size_t len;

	if (!evs->tep) {
		evs->tep = tep_alloc();
		if (!evs->tep)
			return -ENOMEM;
	}
	evs->owns = true;	/* fields and print formats from here on */
	for (int i = 0; i < evs->n; i++) {
		struct ktrace_event *e = &evs->v[i];
		struct tep_event *te = NULL;
		char *pf;
		int ret;

		ktrace_events_get(evs, i);	/* fills *e */
		if (e->fields)
			continue;
		buf = kt_event_read(top, e->system, e->name, "id", NULL);
		if (buf) {
			e->id = atoi(buf);
			free(buf);
		} else if (errno == ENOMEM) {
			return -ENOMEM;
		}
		buf = kt_event_read(top, e->system, e->name, "format", &len);
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
