// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Kernel probe resolution: kallsyms, kprobe blacklist, ftrace-able functions
 * and BTF-based argument expressions. See btf.h.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "base/internal.h"
#include "arch/arch.h"
#include "probe/btf.h"
#include "probe/fetcharg.h"
#include "sym/symtab.h"

#define NAME_MAX_LEN	256
#define MODULE_NAME_LEN	56	/* the kernel's MODULE_NAME_LEN, with its NUL */
#define MAX_MOD_BTF	8	/* modules' BTF kept by one handle */
#define MAX_ARRAY_LEN	64	/* kernel's limit for "type[N]" */
#define LIST_FIELDS	10

/*
 * A sorted, deduplicated set of names pointing into one file buffer (or,
 * for kallsyms, into the symbol layer's table of it).
 */
struct symset {
	char *buf;
	struct kt_symtab tab;	/* kallsyms, from lib/sym */
	char **names;		/* each name once, in the file's order */
	size_t n;
	uint32_t *hash;		/* names index + 1 by name; 0: empty */
	size_t hcap;		/* a power of 2, over twice n */
	bool loaded;		/* load attempted */
	bool missing;		/* could not be read */
};

enum symfile {
	SYMFILE_KALLSYMS,	/* "addr type name [mod]", text symbols only */
	SYMFILE_BLACKLIST,	/* "0xstart-0xend\tname [mod]" */
	SYMFILE_FILTER,		/* "name [mod]" */
};

struct kt_btf {
	char *btf_path;
	char *kallsyms_path;
	char *blacklist_path;
	char *filter_path;
	struct symset ksyms;
	struct symset black;
	struct symset filter;
	struct btf *btf;
	/* modules' split BTF on top of btf, by name, on first use: the
	 * file's errno in err when it could not be read */
	struct mod_btf {
		char name[MODULE_NAME_LEN];
		struct btf *btf;
		int err;
	} mods[MAX_MOD_BTF];
	int nmods;
	const struct kt_arch *arch;	/* NULL: the running kernel's */
	int btf_err;		/* 0: not tried yet or loaded */
	bool btf_tried;
	bool btf_has_tags;	/* a "user" TYPE_TAG exists in the BTF */
};

/* ---------------------------------------------------------------- helpers */

/* name's slot in set->hash: the one holding it, or the empty one where
 * it would go. */
static uint32_t *symset_slot(const struct symset *set, const char *name)
{
	uint64_t h = 14695981039346656037ull;
	size_t i;

	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	for (i = h & (set->hcap - 1);; i = (i + 1) & (set->hcap - 1)) {
		uint32_t v = set->hash[i];

		if (!v || !strcmp(set->names[v - 1], name))
			return &set->hash[i];
	}
}

/*
 * Start of the field-th whitespace separated field of line, NUL-ended.
 * *rest (optional) receives where the rest of the line starts, or NULL
 * when the field ended the line.
 */
static char *line_field(char *line, int field, char **rest)
{
	char *p = line, *end;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return NULL;
		end = p;
		while (*end && *end != ' ' && *end != '\t')
			end++;
		if (field-- == 0) {
			if (rest)
				*rest = *end ? end + 1 : NULL;
			*end = '\0';
			return p;
		}
		if (!*end)
			return NULL;
		p = end;
	}
}

/*
 * The hash set over set->names, each name kept once (in the file's order):
 * a probe asks of a few names, not worth a sort of all (sorting 150,000
 * kallsyms names was most of a probe's start). 0 or -ENOMEM.
 */
static int symset_index(struct symset *set)
{
	size_t w = 0, n = set->n;

	set->hcap = 1;
	while (set->hcap < 2 * n)
		set->hcap <<= 1;
	set->hash = calloc(set->hcap, sizeof(*set->hash));
	if (!set->hash)
		return -ENOMEM;
	for (size_t r = 0; r < n; r++) {
		uint32_t *slot = symset_slot(set, set->names[r]);

		if (*slot)
			continue;	/* a name seen before */
		set->names[w] = set->names[r];
		*slot = (uint32_t)++w;
	}
	set->n = w;
	return 0;
}

static int symset_load(struct symset *set, const char *path, enum symfile kind)
{
	size_t cap = 0, len;
	char *line, *next, *name;
	char **nv;

	if (set->loaded)
		return set->missing ? -ENOENT : 0;
	set->loaded = true;
	set->n = 0;
	if (kind == SYMFILE_KALLSYMS) {
		/* text symbols, parsed once by lib/sym; "name [mod]" -> name */
		if (kt_symtab_load_kallsyms(&set->tab, path)) {
			set->missing = true;
			return -ENOENT;
		}
		set->names = malloc((set->tab.n ? set->tab.n : 1) *
				    sizeof(*set->names));
		if (!set->names)
			goto nomem;
		for (size_t i = 0; i < set->tab.n; i++) {
			char *n = set->tab.v[i].name;

			n[strcspn(n, " ")] = '\0';
			set->names[i] = n;
		}
		set->n = set->tab.n;
		goto index;
	}
	set->buf = kt_read_file(path, &len);
	if (!set->buf) {
		set->missing = true;
		return -ENOENT;
	}
	for (line = set->buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		switch (kind) {
		case SYMFILE_BLACKLIST:
			name = line_field(line, 1, NULL);
			break;
		default:
			if (*line == '#')
				continue;
			name = line_field(line, 0, NULL);
			break;
		}
		if (!name)
			continue;
		if (set->n == cap) {
			cap = cap ? cap * 2 : 4096;
			nv = realloc(set->names, cap * sizeof(*nv));
			if (!nv)
				goto nomem;
			set->names = nv;
		}
		set->names[set->n++] = name;
	}
index:
	if (symset_index(set))
		goto nomem;
	return 0;
nomem:
	free(set->hash);
	set->hash = NULL;
	free(set->names);
	free(set->buf);
	kt_symtab_free(&set->tab);
	set->names = NULL;
	set->buf = NULL;
	set->n = 0;
	set->loaded = false;	/* may be retried */
	return -ENOMEM;
}

static void symset_clear(struct symset *set)
{
	free(set->hash);
	free(set->names);
	free(set->buf);
	kt_symtab_free(&set->tab);
}

static bool symset_has(const struct symset *set, const char *name)
{
	return set->hash && *symset_slot(set, name);
}

static bool valid_module(const char *s, size_t n)
{
	if (!n || n >= MODULE_NAME_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* A kernel symbol, "MOD:" before it for a module's (kprobe syntax). */
static bool valid_symbol(const char *s)
{
	const char *colon = strchr(s, ':');
	size_t n = 0;

	if (colon) {
		if (!valid_module(s, colon - s))
			return false;
		s = colon + 1;
	}
	if (!*s)
		return false;
	for (; *s; s++, n++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return false;
	return n <= NAME_MAX_LEN;
}

/* The function of "MOD:FUNC" (func itself without a module). */
static const char *func_part(const char *func)
{
	const char *colon = strchr(func, ':');

	return colon ? colon + 1 : func;
}

/*
 * The module of kallsyms entry i, or NULL (vmlinux). Loading cut each
 * "name [mod]" at its blank, in kallsyms' text: "[mod]" follows the name's
 * NUL, inside the text, where a symbol without one has its line's end
 * (another NUL) or the next line's address.
 */
static const char *ksym_module(const struct symset *ks, const char *name,
			       size_t *len)
{
	const char *m;
	const char *end = ks->tab.pool + ks->tab.pool_len;

	*len = 0;
	if (name < ks->tab.pool || name >= end)
		return NULL;
	m = name + strlen(name) + 1;
	if (m >= end || *m != '[')
		return NULL;
	m++;
	*len = strcspn(m, "]");
	return m;
}

static bool is_module(const char *m, size_t len, const char *mod,
		      size_t mlen)
{
	return m && len == mlen && !strncmp(m, mod, len);
}

static bool valid_ident(const char *s, size_t n)
{
	if (!n || isdigit((unsigned char)*s))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* Length of the base of a compiler clone name ("foo" of "foo.isra.0"). */
static size_t base_len(const char *func)
{
	const char *dot = strchr(func, '.');

	return dot ? (size_t)(dot - func) : strlen(func);
}

/* ---------------------------------------------------------- open and free */

static int dup_path(char **dst, const char *path, const char *def)
{
	*dst = strdup(path ? path : def);
	return *dst ? 0 : -ENOMEM;
}

struct kt_btf *kt_btf_open(const char *btf_path, const char *kallsyms_path,
			   const char *blacklist_path,
			   const char *filter_funcs_path,
			   const struct kt_arch *arch)
{
	struct kt_btf *kb = calloc(1, sizeof(*kb));

	if (!kb)
		return NULL;
	kb->arch = arch;
	if (dup_path(&kb->btf_path, btf_path, KT_BTF_PATH) ||
	    dup_path(&kb->kallsyms_path, kallsyms_path,
		     KT_BTF_KALLSYMS_PATH) ||
	    dup_path(&kb->blacklist_path, blacklist_path,
		     KT_BTF_BLACKLIST_PATH) ||
	    dup_path(&kb->filter_path, filter_funcs_path,
		     KT_BTF_FILTER_PATH)) {
		kt_btf_free(kb);
		errno = ENOMEM;
		return NULL;
	}
	return kb;
}

void kt_btf_free(struct kt_btf *kb)
{
	if (!kb)
		return;
	symset_clear(&kb->ksyms);
	symset_clear(&kb->black);
	symset_clear(&kb->filter);
	for (int i = 0; i < kb->nmods; i++)
		btf__free(kb->mods[i].btf);
	btf__free(kb->btf);
	free(kb->btf_path);
	free(kb->kallsyms_path);
	free(kb->blacklist_path);
	free(kb->filter_path);
	free(kb);
}

/* ------------------------------------------------------------ suggestions */

/* Module mod's functions only (mlen 0: all), those of modules as
 * "MOD:FUNC". */
char **kt_btf_suggest(struct kt_btf *kb, const char *func, int max)
{
	const char *q = func_part(func), *m;
	size_t mlen = q == func ? 0 : (size_t)(q - func - 1), len;
	struct kt_suggest sg;
	char **v = NULL, *s;
	size_t nv = 0, blen, i;
	int ret;

	ret = symset_load(&kb->ksyms, kb->kallsyms_path, SYMFILE_KALLSYMS);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	if (kt_suggest_init(&sg, q, max, false))
		return NULL;
	/* Clones of the same function and the plain function itself. */
	blen = base_len(q);
	for (i = 0; sg.max && i < kb->ksyms.n; i++) {
		const char *name = kb->ksyms.names[i];

		if (strncmp(name, q, blen))
			continue;
		m = ksym_module(&kb->ksyms, name, &len);
		if (mlen && !is_module(m, len, func, mlen))
			continue;
		if ((name[blen] == '\0' || name[blen] == '.') &&
		    strcmp(name, q))
			kt_suggest_put(&sg, name, -1, 0);
	}
	for (i = 0; sg.max && i < kb->ksyms.n; i++) {
		const char *name = kb->ksyms.names[i];

		m = ksym_module(&kb->ksyms, name, &len);
		if (mlen && !is_module(m, len, func, mlen))
			continue;
		kt_suggest_add(&sg, name, strlen(name), name);
	}
	kt_suggest_fini(&sg);

	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	for (int k = 0; k < sg.nbest; k++) {
		const char *name = sg.best[k].name;

		m = ksym_module(&kb->ksyms, name, &len);
		if (!m)
			s = strdup(name);
		else if (asprintf(&s, "%.*s:%s", (int)len, m, name) < 0)
			s = NULL;
		if (!s || kt_strv_push(&v, &nv, s)) {
			free(s);
			ktrace_strv_free(v);
			errno = ENOMEM;
			return NULL;
		}
	}
	return v;
}

/*
 * The kallsyms entry of func ("MOD:FUNC": the one of module MOD), or NULL.
 * The kallsyms must be loaded.
 */
static const struct kt_sym *ksym_of(const struct kt_btf *kb, const char *func)
{
	const char *q = func_part(func), *m;
	size_t mlen = q == func ? 0 : (size_t)(q - func - 1), len;

	for (size_t i = 0; i < kb->ksyms.tab.n; i++) {
		const struct kt_sym *k = &kb->ksyms.tab.v[i];

		if (strcmp(k->name, q))
			continue;
		m = ksym_module(&kb->ksyms, k->name, &len);
		if (!mlen || is_module(m, len, func, mlen))
			return k;
	}
	return NULL;
}

unsigned long long kt_btf_func_size(struct kt_btf *kb, const char *func)
{
	const struct kt_sym *k;

	if (symset_load(&kb->ksyms, kb->kallsyms_path, SYMFILE_KALLSYMS))
		return 0;
	k = ksym_of(kb, func);
	return k ? k->size : 0;
}

char *kt_btf_func_module(struct kt_btf *kb, const char *func)
{
	const struct kt_sym *k;
	const char *m;
	size_t len, l2;

	errno = 0;
	if (symset_load(&kb->ksyms, kb->kallsyms_path, SYMFILE_KALLSYMS))
		return NULL;
	k = ksym_of(kb, func);
	m = k ? ksym_module(&kb->ksyms, k->name, &len) : NULL;
	if (!m)
		return NULL;
	for (size_t i = 0; i < kb->ksyms.tab.n; i++) {
		/* in vmlinux too: the kernel takes vmlinux's for FUNC */
		k = &kb->ksyms.tab.v[i];
		if (!strcmp(k->name, func) &&
		    !ksym_module(&kb->ksyms, k->name, &l2))
			return NULL;
	}
	return strndup(m, len);
}

/* "a, b, c" from a vector; caller frees. NULL on ENOMEM. */
static char *strv_join(char **v, const char *sep)
{
	size_t len = 1, sl = strlen(sep);
	char *s, *p;

	for (char **q = v; *q; q++)
		len += strlen(*q) + sl;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	*p = '\0';
	for (char **q = v; *q; q++) {
		if (q != v)
			p = stpcpy(p, sep);
		p = stpcpy(p, *q);
	}
	return s;
}

/* Module "MOD" of "MOD:FUNC" has symbols in the loaded kallsyms. */
static bool module_loaded(const struct kt_btf *kb, const char *func)
{
	size_t mlen = func_part(func) - func - 1, len;
	const char *m;

	for (size_t i = 0; i < kb->ksyms.tab.n; i++) {
		m = ksym_module(&kb->ksyms, kb->ksyms.tab.v[i].name, &len);
		if (is_module(m, len, func, mlen))
			return true;
	}
	return false;
}

/* func is in kallsyms: 0, or an error naming the close matches. */
static int func_exists(struct kt_btf *kb, const char *func,
		       struct ktrace_err *err)
{
	char **sugg, *list;
	int ret;

	ret = symset_load(&kb->ksyms, kb->kallsyms_path, SYMFILE_KALLSYMS);
	if (ret == -ENOMEM)
		return kt_err_set(err, ENOMEM, "out of memory");
	if (ret)
		return 0;	/* no kallsyms: the kernel will say */
	/* kallsyms shows every address as 0 to a user without the right:
	 * no symbol is known, which says nothing about func */
	if (!kb->ksyms.n)
		return kt_err_set(err, EACCES,
				  "the kernel's symbols are hidden from this user (/proc/kallsyms shows no addresses): run as root");
	if (func_part(func) == func ? symset_has(&kb->ksyms, func) :
	    ksym_of(kb, func) != NULL)
		return 0;
	if (func_part(func) != func && !module_loaded(kb, func))
		return kt_err_set(err, ENOENT,
				  "no module '%.*s' is loaded (no symbol of it in kallsyms): load it first",
				  (int)(func_part(func) - func - 1), func);
	sugg = kt_btf_suggest(kb, func, KT_BTF_MAX_MATCHES);
	if (!sugg)
		return kt_err_set(err, ENOMEM, "out of memory");
	if (!sugg[0]) {
		ktrace_strv_free(sugg);
		return kt_err_set(err, ENOENT,
				  "no such kernel function '%s'", func);
	}
	list = strv_join(sugg, ", ");
	ktrace_strv_free(sugg);
	if (!list)
		return kt_err_set(err, ENOMEM, "out of memory");
	ret = kt_err_set(err, ENOENT,
			 "no such kernel function '%s'; did you mean: %s?",
			 func, list);
	free(list);
	return ret;
}

int kt_btf_func(struct kt_btf *kb, const char *func,
		struct ktrace_err *err)
{
	const char *q = func_part(func);
	bool traceable;
	int ret, fret;

	if (!valid_symbol(func))
		return kt_err_set(err, EINVAL,
				  "'%s' is not a valid kernel symbol name",
				  func);
	/*
	 * available_filter_functions holds kernel text symbols only: a name
	 * there exists, and kallsyms (three times its size, and slow for the
	 * kernel to print: 2.5 s under TCG on arm64) is read only for the
	 * names it lacks.
	 */
	fret = symset_load(&kb->filter, kb->filter_path, SYMFILE_FILTER);
	if (fret == -ENOMEM)
		return kt_err_set(err, ENOMEM, "out of memory");
	traceable = !fret && symset_has(&kb->filter, q);
	/* (a module's function: kallsyms says which module has it) */
	ret = traceable && q == func ? 0 : func_exists(kb, func, err);
	if (ret)
		return ret;

	ret = symset_load(&kb->black, kb->blacklist_path, SYMFILE_BLACKLIST);
	if (ret == -ENOMEM)
		return kt_err_set(err, ENOMEM, "out of memory");
	if (!ret && symset_has(&kb->black, q))
		return kt_err_set(err, EPERM,
				  "kernel function '%s' is on the kprobe blacklist and cannot be probed",
				  func);

	if (!fret && !traceable)
		return kt_err_set(err, EOPNOTSUPP,
				  "kernel function '%s' is not traceable (not in available_filter_functions)",
				  func);
	return 0;
}

/* -------------------------------------------------------------------- BTF */

static int load_btf(struct kt_btf *kb, struct ktrace_err *err)
{
	libbpf_print_fn_t old;
	__u32 i, cnt;
	int e;

	if (!kb->btf_tried) {
		kb->btf_tried = true;
		old = libbpf_set_print(NULL);
		errno = 0;
		kb->btf = btf__parse(kb->btf_path, NULL);
		e = errno ? errno : EINVAL;
		libbpf_set_print(old);
		if (!kb->btf) {
			kb->btf_err = e;
		} else {
			cnt = btf__type_cnt(kb->btf);
			for (i = 1; i < cnt && !kb->btf_has_tags; i++) {
				const struct btf_type *t;

				t = btf__type_by_id(kb->btf, i);
				kb->btf_has_tags = btf_is_type_tag(t) &&
					!strcmp(btf__name_by_offset(kb->btf,
								    t->name_off),
						"user");
			}
		}
	}
	if (!kb->btf)
		return kt_err_set(err, kb->btf_err == ENOMEM ? ENOMEM : ENOENT,
				  "cannot read kernel BTF from %s: %s",
				  kb->btf_path, strerror(kb->btf_err));
	return 0;
}

/* Follow typedef/const/volatile/restrict/type tags. *user: saw "user". */
static __u32 skip_mods(const struct btf *btf, __u32 id, bool *user)
{
	const struct btf_type *t;

	while (id) {
		t = btf__type_by_id(btf, id);
		if (!t)
			return 0;
		if (btf_is_type_tag(t)) {
			if (user && !strcmp(btf__name_by_offset(btf, t->name_off),
					    "user"))
				*user = true;
		} else if (!btf_is_mod(t) && !btf_is_typedef(t)) {
			return id;
		}
		id = t->type;
	}
	return 0;
}

static void dump_printf(void *ctx, const char *fmt, va_list ap)
{
	vfprintf(ctx, fmt, ap);
}

/* C spelling of type id, with name when not NULL; caller frees. */
static char *type_decl(const struct btf *btf, __u32 id, const char *name)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts,
		    .field_name = name ? name : "");
	struct btf_dump *d;
	char *s = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	d = btf_dump__new(btf, dump_printf, f, NULL);
	if (!d) {
		fclose(f);
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	ret = btf_dump__emit_type_decl(d, id, &opts);
	btf_dump__free(d);
	if (fclose(f) || ret) {
		free(s);
		errno = ret ? -ret : ENOMEM;
		return NULL;
	}
	/* "char *" comes out as "char *" with an empty name: trim */
	while (len && s[len - 1] == ' ')
		s[--len] = '\0';
	return s;
}

/*
 * Module mod's BTF (mlen bytes at mod), split on top of vmlinux's: the
 * file named mod next to the vmlinux one (/sys/kernel/btf/MOD), read once.
 * NULL with err set (the return in *ret).
 */
static struct btf *mod_btf(struct kt_btf *kb, const char *mod, size_t mlen,
			   int *ret, struct ktrace_err *err)
{
	struct mod_btf *mb = NULL;
	libbpf_print_fn_t old;
	const char *slash;
	char *path;

	*ret = load_btf(kb, err);
	if (*ret)
		return NULL;
	for (int i = 0; i < kb->nmods && !mb; i++)
		if (strlen(kb->mods[i].name) == mlen &&
		    !strncmp(kb->mods[i].name, mod, mlen))
			mb = &kb->mods[i];
	slash = strrchr(kb->btf_path, '/');
	if (asprintf(&path, "%.*s%.*s", slash ? (int)(slash - kb->btf_path + 1) : 0,
		     kb->btf_path, (int)mlen, mod) < 0) {
		*ret = kt_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	if (!mb && kb->nmods < MAX_MOD_BTF) {
		mb = &kb->mods[kb->nmods++];
		snprintf(mb->name, sizeof(mb->name), "%.*s", (int)mlen, mod);
		old = libbpf_set_print(NULL);
		errno = 0;
		mb->btf = btf__parse_split(path, kb->btf);
		mb->err = mb->btf ? 0 : errno ? errno : EINVAL;
		libbpf_set_print(old);
	}
	if (mb && mb->btf) {
		free(path);
		return mb->btf;
	}
	*ret = kt_err_set(err, mb && mb->err == ENOMEM ? ENOMEM : ENOENT,
			  "cannot read the BTF of module %.*s from %s: %s",
			  (int)mlen, mod, path,
			  mb ? strerror(mb->err) : "too many modules");
	free(path);
	return NULL;
}

/*
 * The FUNC_PROTO of func (clones looked up under their base name), in
 * vmlinux's BTF or, for "MOD:FUNC" or a function only a module has, in
 * the module's (*btfp: the BTF it is in, for its types). Returns its type
 * or NULL with err set (-ENOENT / -ENOMEM in *ret).
 */
static const struct btf_type *find_proto(struct kt_btf *kb, const char *func,
					 const struct btf **btfp, int *ret,
					 struct ktrace_err *err)
{
	const char *q = func_part(func);
	const struct btf_type *t;
	struct btf *btf;
	char *base, *mod = NULL;
	int id;

	*ret = load_btf(kb, err);
	if (*ret)
		return NULL;
	base = strndup(q, base_len(q));
	if (!base) {
		*ret = kt_err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	btf = kb->btf;
	if (q != func) {
		btf = mod_btf(kb, func, q - func - 1, ret, err);
	} else if (btf__find_by_name_kind(btf, base, BTF_KIND_FUNC) <= 0 &&
		   (mod = kt_btf_func_module(kb, base))) {
		/* FUNC of a module, written without "MOD:" */
		btf = mod_btf(kb, mod, strlen(mod), ret, err);
	}
	if (!btf) {
		free(mod);
		free(base);
		return NULL;
	}
	id = btf__find_by_name_kind(btf, base, BTF_KIND_FUNC);
	/* a module's function is among its own types, past vmlinux's */
	if (btf != kb->btf && id > 0 && (__u32)id < btf__type_cnt(kb->btf))
		id = -ENOENT;
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (t)
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t)) {
		if (q != func || mod)
			*ret = kt_err_set(err, ENOENT,
					  "the BTF of module %.*s has no prototype for '%s' (inlined, or not a function)",
					  mod ? (int)strlen(mod) : (int)(q - func - 1),
					  mod ? mod : func, base);
		else
			*ret = kt_err_set(err, ENOENT,
					  "kernel BTF has no prototype for '%s' (inlined, or not a function)",
					  base);
		free(mod);
		free(base);
		return NULL;
	}
	free(mod);
	free(base);
	*btfp = btf;
	return t;
}

char **kt_btf_params(struct kt_btf *kb, const char *func, bool decl,
		     struct ktrace_err *err)
{
	const struct btf_type *proto;
	const struct btf_param *p;
	const struct btf *btf;
	char **v, *s;
	size_t nv = 0;
	int ret;

	proto = find_proto(kb, func, &btf, &ret, err);
	if (!proto) {
		errno = -ret;
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		goto nomem;
	p = btf_params(proto);
	for (int i = 0; i < btf_vlen(proto); i++) {
		const char *name = btf__name_by_offset(btf, p[i].name_off);

		if (!p[i].type)
			s = strdup("...");
		else if (decl)
			s = type_decl(btf, p[i].type, name);
		else
			s = strdup(name ? name : "");
		if (!s || kt_strv_push(&v, &nv, s)) {
			free(s);
			goto nomem;
		}
	}
	return v;
nomem:
	ktrace_strv_free(v);
	kt_err_set(err, ENOMEM, "out of memory");
	errno = ENOMEM;
	return NULL;
}

/* ------------------------------------------------------ argument resolver */

static bool user_name_heuristic(const char *func, const char *param)
{
	static const char *const funcs[] = {
		"__do_sys_", "__se_sys_", "__x64_sys_", "do_sys_", "ksys_",
	};
	static const char *const names[] = {
		"filename", "pathname", "oldname", "newname", "ubuf",
		"user_buf",
	};
	size_t i;

	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (!strncmp(func, funcs[i], strlen(funcs[i])))
			return true;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(param, names[i]))
			return true;
	return !strncmp(param, "user", 4);
}

/* The state of a walk through an expression. */
struct walk {
	const struct btf *btf;
	const struct kt_arch *arch;	/* argument registers */
	const char *func;		/* the probed function */
	bool tags;			/* the BTF has __user type tags */
	struct kt_fetcharg fa;	/* where the value is */
	__u32 tid;		/* type of the value (with modifiers) */
	__u32 bf_size;		/* bitfield width, 0: not a bitfield */
	__u32 bf_bits;		/* bitfield: bit offset from addr + off */
	const char *param;	/* the parameter, while no step was taken */
	char *what;		/* the text walked so far, for messages */
	bool user_mem;		/* every pointer reached is a user one */
};

/*
 * Visit the named members of composite t, those of anonymous members as
 * if they were t's own: visit(name, member type, bit offset from t's
 * start, bitfield width or 0, arg) until it returns true. Returns true
 * when a visit did.
 */
typedef bool (*member_fn)(const char *name, __u32 tid, __u32 bits,
			  __u32 bf_size, void *arg);

static bool walk_members(const struct btf *btf, const struct btf_type *t,
			 __u32 base, member_fn visit, void *arg)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(btf, m[i].name_off);
		__u32 bits = base + btf_member_bit_offset(t, i);
		__u32 bf_size = btf_member_bitfield_size(t, i);
		const struct btf_type *mt;

		if (!mn || !*mn) {
			mt = btf__type_by_id(btf, skip_mods(btf, m[i].type,
							    NULL));
			if (mt && btf_is_composite(mt) &&
			    walk_members(btf, mt, bits, visit, arg))
				return true;
			continue;
		}
		mt = btf__type_by_id(btf, m[i].type);
		/* old-style bitfield: the width lives in the INT type */
		if (!btf_kflag(t) && mt && btf_is_int(mt) &&
		    (btf_int_bits(mt) != mt->size * 8 || btf_int_offset(mt))) {
			bf_size = btf_int_bits(mt);
			bits += btf_int_offset(mt);
		}
		if (visit(mn, m[i].type, bits, bf_size, arg))
			return true;
	}
	return false;
}

struct field_list {
	FILE *f;
	int count;
};

static bool list_one(const char *name, __u32 tid, __u32 bits, __u32 bf_size,
		     void *arg)
{
	struct field_list *fl = arg;

	(void)tid, (void)bits, (void)bf_size;
	/* markers of cache line groups, not data */
	if (!strncmp(name, "__cacheline_group_", 18))
		return false;
	if (fl->count == LIST_FIELDS) {
		fputs(", ...", fl->f);
		return true;
	}
	fprintf(fl->f, "%s%s", fl->count ? ", " : "", name);
	fl->count++;
	return false;
}

/*
 * Comma separated names of the fields of composite t (anonymous ones
 * flattened), for messages: a string the caller frees, or NULL.
 */
static char *list_fields(const struct btf *btf, const struct btf_type *t)
{
	struct field_list fl = { 0 };
	char *text = NULL;
	size_t len = 0;

	fl.f = open_memstream(&text, &len);
	if (!fl.f)
		return NULL;
	walk_members(btf, t, 0, list_one, &fl);
	if (fclose(fl.f)) {
		free(text);
		return NULL;
	}
	return text;
}

struct member_find {
	const char *name;
	__u32 tid, bits, bf_size;
};

static bool find_one(const char *name, __u32 tid, __u32 bits, __u32 bf_size,
		     void *arg)
{
	struct member_find *mf = arg;

	if (strcmp(name, mf->name))
		return false;
	mf->tid = tid;
	mf->bits = bits;
	mf->bf_size = bf_size;
	return true;
}

/*
 * Find member name in composite t, looking through anonymous members.
 * Returns true with the member's type, bit offset and bitfield width.
 */
static bool find_member(const struct btf *btf, const struct btf_type *t,
			const char *name, __u32 *tid, __u32 *bits,
			__u32 *bf_size)
{
	struct member_find mf = { .name = name };

	if (!walk_members(btf, t, 0, find_one, &mf))
		return false;
	*tid = mf.tid;
	*bits = mf.bits;
	*bf_size = mf.bf_size;
	return true;
}

static bool near_one(const char *name, __u32 tid, __u32 bits, __u32 bf_size,
		     void *arg)
{
	struct kt_suggest *sg = arg;

	(void)tid, (void)bits, (void)bf_size;
	if (strncmp(name, "__cacheline_group_", 18))
		kt_suggest_add(sg, name, strlen(name), name);
	return false;
}

/*
 * "S has no field 'name' (did you mean 'a', 'b'?); fields: ...": the
 * members of composite t (type id sid) closest to name, then all of
 * them (up to LIST_FIELDS). Returns -ENOENT (or -ENOMEM) with err set.
 */
static int no_member(const struct btf *btf, __u32 sid,
		     const struct btf_type *t, const char *name,
		     struct ktrace_err *err)
{
	char *tname = type_decl(btf, sid, NULL), *fields = list_fields(btf, t);
	char near[256] = "";
	struct kt_suggest sg;
	size_t len = 0;
	int ret;

	if (!kt_suggest_init(&sg, name, 3, false)) {
		walk_members(btf, t, 0, near_one, &sg);
		for (int i = 0; i < sg.nbest && len < sizeof(near); i++)
			len += snprintf(near + len, sizeof(near) - len,
					"%s'%s'", i ? ", " : " (did you mean ",
					sg.best[i].name);
		kt_suggest_fini(&sg);
	}
	ret = kt_err_set(err, ENOENT, "%s has no field '%s'%s%s; fields: %s",
			 tname ? tname : "?", name, near, *near ? "?)" : "",
			 fields ? fields : "?");
	free(tname);
	free(fields);
	return ret;
}

static const char *kind_word(const struct btf_type *t)
{
	if (btf_is_union(t))
		return "union";
	if (btf_is_struct(t))
		return "struct";
	return "type";
}

static bool is_char(const struct btf *btf, __u32 id);

/* Does pointer type ptr (the walk's current value) point to user memory:
 * tagged __user, or, in a BTF without type tags, a char pointer named
 * like a user string? */
static bool points_to_user(const struct walk *w, const struct btf_type *ptr)
{
	bool user = w->user_mem;

	skip_mods(w->btf, ptr->type, &user);
	/* the name heuristic is about strings, as for ustring */
	if (!user && !w->tags && w->param && is_char(w->btf, ptr->type))
		user = user_name_heuristic(w->func, w->param);
	return user;
}

static int deref(struct walk *w, const struct btf_type *ptr, long off)
{
	return points_to_user(w, ptr) ? kt_fetcharg_deref_user(&w->fa, off) :
					 kt_fetcharg_deref(&w->fa, off);
}

/* Take one "->name" (arrow) or ".name" step. */
static int walk_step(struct walk *w, bool arrow, const char *name,
		     struct ktrace_err *err)
{
	const struct btf *btf = w->btf;
	const struct btf_type *t, *st;
	__u32 id, sid, mtid, bits, bfs;
	char *tname;
	int ret;

	id = skip_mods(btf, w->tid, NULL);
	t = btf__type_by_id(btf, id);
	if (w->bf_size)
		return kt_err_set(err, EINVAL, "'%s' is a bitfield",
				  w->what);
	if (arrow) {
		if (!t || !btf_is_ptr(t)) {
			tname = type_decl(btf, w->tid, NULL);
			ret = kt_err_set(err, EINVAL,
					 "'%s' is not a pointer (it is %s)%s",
					 w->what, tname ? tname : "?",
					 t && btf_is_composite(t) ?
					 "; use '.'" : "");
			free(tname);
			return ret;
		}
		sid = skip_mods(btf, t->type, NULL);
	} else {
		if (t && btf_is_ptr(t))
			return kt_err_set(err, EINVAL,
					  "'%s' is a pointer; use '->'",
					  w->what);
		sid = id;
	}
	st = btf__type_by_id(btf, sid);
	if (!st || !btf_is_composite(st)) {
		tname = type_decl(btf, arrow ? t->type : w->tid, NULL);
		if (st && btf_is_fwd(st))
			ret = kt_err_set(err, EINVAL,
					 "'%s' has no definition in BTF: cannot reach '%s'",
					 tname ? tname : "?", name);
		else
			ret = kt_err_set(err, EINVAL,
					 "'%s' %s %s, not a struct or union",
					 w->what,
					 arrow ? "points to" : "is",
					 tname ? tname : "?");
		free(tname);
		return ret;
	}
	if (!arrow && !kt_fetcharg_in_mem(&w->fa))
		return kt_err_set(err, EOPNOTSUPP,
				  "'%s' is a %s passed by value: its fields cannot be fetched",
				  w->what, kind_word(st));
	if (!find_member(btf, st, name, &mtid, &bits, &bfs))
		return no_member(btf, sid, st, name, err);

	/* whole bytes in the address, the rest (bitfields) in bf_bits */
	ret = arrow ? deref(w, t, bits / 8) :
		      kt_fetcharg_move(&w->fa, bits / 8);
	if (ret)
		return kt_err_set(err, -ret,
				  "'%s': too many dereferences for a probe",
				  w->what);
	w->bf_bits = bits % 8;
	w->bf_size = bfs;
	w->tid = mtid;
	w->param = NULL;
	return 0;
}

/* [index]: an element of the array or of what the pointer points to. */
static int walk_index(struct walk *w, unsigned long index,
		      struct ktrace_err *err)
{
	const struct btf *btf = w->btf;
	const struct btf_type *t;
	__u32 id, eid;
	__s64 esize;
	char *tname;
	int ret;

	if (w->bf_size)
		return kt_err_set(err, EINVAL, "'%s' is a bitfield",
				  w->what);
	id = skip_mods(btf, w->tid, NULL);
	t = btf__type_by_id(btf, id);
	if (t && btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);

		if (!kt_fetcharg_in_mem(&w->fa))
			return kt_err_set(err, EOPNOTSUPP,
					  "array '%s' is not in memory",
					  w->what);
		if (a->nelems && index >= a->nelems)
			return kt_err_set(err, ERANGE,
					  "index %lu is out of bounds ('%s' has %u elements)",
					  index, w->what, a->nelems);
		eid = a->type;
	} else if (t && btf_is_ptr(t)) {
		eid = t->type;
	} else {
		tname = type_decl(btf, w->tid, NULL);
		ret = kt_err_set(err, EINVAL,
				 "cannot index '%s': it is %s, not an array or a pointer",
				 w->what, tname ? tname : "?");
		free(tname);
		return ret;
	}
	esize = btf__resolve_size(btf, eid);
	if (esize <= 0)
		return kt_err_set(err, EINVAL,
				  "cannot index '%s': its elements have no size",
				  w->what);
	if (index > (unsigned long)(LONG_MAX / esize))
		return kt_err_set(err, ERANGE, "index %lu is too large",
				  index);
	if (btf_is_ptr(t))
		ret = deref(w, t, (long)index * esize);
	else
		ret = kt_fetcharg_move(&w->fa, (long)index * esize);
	if (ret)
		return kt_err_set(err, E2BIG,
				  "'%s': too many dereferences for a probe",
				  w->what);
	w->tid = eid;
	w->param = NULL;
	return 0;
}

static int kprobe_int_type(const struct btf_type *t, char *buf, size_t len,
			   const char *what, struct ktrace_err *err)
{
	bool is_signed;
	__u32 size = t->size;

	if (btf_is_int(t)) {
		if (btf_int_encoding(t) & BTF_INT_BOOL) {
			snprintf(buf, len, "u8");
			return 0;
		}
		is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
	} else if (btf_is_any_enum(t)) {
		is_signed = btf_kflag(t);
	} else {
		return kt_err_set(err, EINVAL, "'%s' is not an integer",
				  what);
	}
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return kt_err_set(err, EOPNOTSUPP,
				  "'%s' is a %u-byte integer; kprobes fetch at most 8 bytes",
				  what, size);
	snprintf(buf, len, "%c%u", is_signed ? 's' : 'u', size * 8);
	return 0;
}

/*
 * Is id a character type: char, signed char or unsigned char, possibly
 * const/volatile, but not behind a typedef (u8 and friends are bytes)?
 */
static bool is_char(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name;

	while (t && (btf_is_mod(t) || btf_is_type_tag(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_int(t) || t->size != 1 ||
	    (btf_int_encoding(t) & BTF_INT_BOOL))
		return false;
	name = btf__name_by_offset(btf, t->name_off);
	return name && strstr(name, "char");
}

/*
 * The steps of walk_finish(), one per kind of value: each sets *fa and *ty
 * (malloc'ed; NULL when out of memory) or returns -errno with err set,
 * and walk_finish() frees what was set either way.
 */

/* A bitfield: its container's bytes, and "bW@B/C" as the type. */
static int finish_bitfield(struct walk *w, const struct btf_type *t,
			   char **fa, char **ty, struct ktrace_err *err)
{
	__u32 cbits, abs, cbyte;

	if (!btf_is_int(t) && !btf_is_any_enum(t))
		return kt_err_set(err, EOPNOTSUPP,
				  "bitfield '%s' is not an integer",
				  w->what);
	cbits = t->size * 8;
	abs = kt_fetcharg_last_off(&w->fa) * 8 + w->bf_bits;
	cbyte = abs / cbits * t->size;
	if (abs - cbyte * 8 + w->bf_size > cbits)
		return kt_err_set(err, EOPNOTSUPP,
				  "bitfield '%s' straddles its %u-bit container",
				  w->what, cbits);
	kt_fetcharg_set_last_off(&w->fa, cbyte);
	*fa = kt_fetcharg_text(&w->fa, NULL);
	if (asprintf(ty, "b%u@%u/%u", w->bf_size, abs - cbyte * 8,
		     cbits) < 0)
		*ty = NULL;
	return 0;
}

/*
 * A pointer: to char, the string at it ("ustring" when it points to user
 * memory); to a function, its "symbol"; otherwise its value.
 */
static int finish_pointer(struct walk *w, const struct btf_type *t,
			  char **fa, char **ty, struct ktrace_err *err)
{
	const struct btf *btf = w->btf;
	const struct btf_type *pt;

	if (is_char(btf, t->type)) {
		bool user = points_to_user(w, t);

		/* the string types read at the address given */
		if (kt_fetcharg_deref(&w->fa, 0))
			return kt_err_set(err, E2BIG,
					  "'%s': too many dereferences for a probe",
					  w->what);
		*fa = kt_fetcharg_text(&w->fa, NULL);
		*ty = strdup(user ? "ustring" : "string");
		return 0;
	}
	pt = btf__type_by_id(btf, skip_mods(btf, t->type, NULL));
	*fa = kt_fetcharg_text(&w->fa, NULL);
	*ty = strdup(pt && btf_is_func_proto(pt) ? "symbol" : "x64");
	return 0;
}

/* An array in memory: of char, a string; of scalars, "TYPE[N]". */
static int finish_array(struct walk *w, const struct btf_type *t,
			char **fa, char **ty, struct ktrace_err *err)
{
	const struct btf *btf = w->btf;
	const struct btf_array *a = btf_array(t);
	const struct btf_type *et;
	char tbuf[32];
	int ret;

	if (!kt_fetcharg_in_mem(&w->fa))
		return kt_err_set(err, EOPNOTSUPP,
				  "array '%s' is not in memory",
				  w->what);
	if (is_char(btf, a->type)) {
		/* text in user memory: the level that reaches it is +u */
		*fa = kt_fetcharg_text(&w->fa, NULL);
		*ty = strdup(w->fa.user[w->fa.depth - 1] ? "ustring" :
			     "string");
		return 0;
	}
	et = btf__type_by_id(btf, skip_mods(btf, a->type, NULL));
	if (!et || (!btf_is_int(et) && !btf_is_any_enum(et) &&
		    !btf_is_ptr(et)))
		return kt_err_set(err, EOPNOTSUPP,
				  "'%s' is an array of non-scalars",
				  w->what);
	if (!a->nelems || a->nelems > MAX_ARRAY_LEN)
		return kt_err_set(err, EOPNOTSUPP,
				  "array '%s' has %u elements; kprobes fetch 1 to %d",
				  w->what, a->nelems, MAX_ARRAY_LEN);
	if (btf_is_ptr(et)) {
		snprintf(tbuf, sizeof(tbuf), "x64");
	} else {
		ret = kprobe_int_type(et, tbuf, sizeof(tbuf), w->what, err);
		if (ret)
			return ret;
	}
	*fa = kt_fetcharg_text(&w->fa, NULL);
	if (asprintf(ty, "%s[%u]", tbuf, a->nelems) < 0)
		*ty = NULL;
	return 0;
}

/* What kprobes cannot fetch: a whole struct (its fields named), or else. */
static int finish_refused(struct walk *w, __u32 id, const struct btf_type *t,
			  struct ktrace_err *err)
{
	char *tname, *fields;
	int ret;

	if (btf_is_composite(t) && !kt_fetcharg_in_mem(&w->fa)) {
		/* by value in registers ($retval too): no field either */
		return kt_err_set(err, EOPNOTSUPP,
				  "'%s' is a whole %s passed by value in registers, which kprobes cannot fetch, nor its fields",
				  w->what, kind_word(t));
	}
	if (btf_is_composite(t)) {
		fields = list_fields(w->btf, t);
		tname = type_decl(w->btf, id, NULL);
		ret = kt_err_set(err, EINVAL,
				 "'%s' is a whole %s; pick a field with '.' (fields: %s)",
				 w->what, tname ? tname : "struct",
				 fields ? fields : "?");
		free(tname);
		free(fields);
		return ret;
	}
	tname = type_decl(w->btf, w->tid, NULL);
	ret = kt_err_set(err, EOPNOTSUPP,
			 "'%s' has type %s, which kprobes cannot fetch",
			 w->what, tname ? tname : "?");
	free(tname);
	return ret;
}

/* Turn the end of the walk into fetcharg and type. */
static int walk_finish(struct walk *w, char **fetcharg, char **type,
		       struct ktrace_err *err)
{
	const struct btf_type *t;
	char tbuf[32], *fa = NULL, *ty = NULL;
	__u32 id;
	int ret;

	id = skip_mods(w->btf, w->tid, NULL);
	t = btf__type_by_id(w->btf, id);
	if (!t || btf_is_void(t) || !id)
		return kt_err_set(err, EOPNOTSUPP, "'%s' is void",
				  w->what);
	if (w->bf_size) {
		ret = finish_bitfield(w, t, &fa, &ty, err);
	} else if (btf_is_int(t) || btf_is_any_enum(t)) {
		ret = kprobe_int_type(t, tbuf, sizeof(tbuf), w->what, err);
		if (!ret) {
			fa = kt_fetcharg_text(&w->fa, NULL);
			ty = strdup(tbuf);
		}
	} else if (btf_is_ptr(t)) {
		ret = finish_pointer(w, t, &fa, &ty, err);
	} else if (btf_is_array(t)) {
		ret = finish_array(w, t, &fa, &ty, err);
	} else {
		return finish_refused(w, id, t, err);
	}
	if (!ret && (!fa || !ty))
		ret = kt_err_set(err, ENOMEM, "out of memory");
	if (ret) {
		free(fa);
		free(ty);
		return ret;
	}
	*fetcharg = fa;
	*type = ty;
	return 0;
}

/* Point err's caret at expr[pos]; keeps ret. */
static int err_at(struct ktrace_err *err, int ret, const char *expr, int pos)
{
	if (err && err->msg) {
		free(err->input);
		err->input = strdup(expr);
		err->pos = err->input ? pos : -1;
	}
	return ret;
}

/*
 * The natural alignment of type id as both conventions compute it: its
 * size for scalars, the largest of its members' for a composite, 1 for a
 * packed one. Notes in *unaligned a member off its alignment, in *fp a
 * floating-point one. 0: BTF does not say (or nests absurdly deep).
 */
static unsigned int type_align(const struct btf *btf, __u32 id,
			       bool *unaligned, bool *fp, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, skip_mods(btf, id,
								  NULL));
	unsigned int align = 1, a;
	bool packed = false;

	if (!t || depth > 32)
		return 0;
	if (btf_is_ptr(t))
		return sizeof(__u64);	/* both 64-bit kernels */
	if (btf_is_array(t))
		return type_align(btf, btf_array(t)->type, unaligned, fp,
				  depth + 1);
	if (btf_is_float(t))
		*fp = true;
	if (btf_is_int(t) || btf_is_float(t) || btf_is_any_enum(t))
		return t->size && t->size <= 16 &&
		       !(t->size & (t->size - 1)) ? t->size : 0;
	if (!btf_is_composite(t))
		return 0;
	for (int i = 0; i < btf_vlen(t); i++) {
		a = type_align(btf, btf_members(t)[i].type, unaligned, fp,
			       depth + 1);
		if (!a)
			return 0;
		if (!btf_member_bitfield_size(t, i) &&
		    btf_member_bit_offset(t, i) % (8 * a))
			packed = *unaligned = true;
		if (a > align)
			align = a;
	}
	return packed || t->size % align ? 1 : align;
}

/*
 * What parameter p is to the calling convention: NULL, or why ktrace
 * cannot tell where it is passed.
 */
static const char *param_type(const struct walk *w,
			      const struct btf_param *p,
			      struct kt_arg_type *at)
{
	const struct btf_type *t = btf__type_by_id(w->btf,
						   skip_mods(w->btf, p->type,
							     NULL));
	__s64 size = btf__resolve_size(w->btf, p->type);
	bool fp = false;

	memset(at, 0, sizeof(*at));
	at->align = type_align(w->btf, p->type, &at->unaligned, &fp, 0);
	if (!t || size < 0 || !at->align)
		return "of a type whose size or alignment BTF does not give";
	at->size = (unsigned int)size;
	if (btf_is_composite(t)) {
		at->cls = KT_ARG_COMPOSITE;
		/* x86-64 splits it by eightbytes, AAPCS64 by HFA rules */
		if (fp)
			return btf_is_union(t) ?
			       "a union with floating-point members" :
			       "a struct with floating-point members";
	} else if (btf_is_float(t)) {
		at->cls = KT_ARG_FP;
		if (size > 8)
			return "floating point wider than 8 bytes";
	}
	return NULL;
}

/*
 * The fetcharg of the parameter placed at pl: a register, a stack slot,
 * or, for a struct in memory, its address there; a struct passed by
 * reference is read through the pointer.
 */
static int param_base(struct walk *w, const struct kt_arg_type *at,
		      const struct kt_arg_place *pl, bool is_return,
		      struct ktrace_err *err)
{
	const struct kt_arch *a = w->arch;
	char arg[24];
	int ret;

	if (pl->where == KT_ARG_NOWHERE)
		return kt_err_set(err, EOPNOTSUPP,
				  "parameter '%s' is an empty struct: nothing is passed",
				  w->param);
	if (pl->where == KT_ARG_FPREG)
		return kt_err_set(err, EOPNOTSUPP,
				  "parameter '%s' is floating point: kprobes cannot read the registers %s passes it in",
				  w->param, a->abi);
	if (is_return && pl->by_ref)
		return kt_err_set(err, EOPNOTSUPP,
				  "parameter '%s' is passed as a pointer to the caller's copy (a struct over 16 bytes, %s), which the function may have changed by its return; probe the entry",
				  w->param, a->abi);
	if (pl->where == KT_ARG_REG) {
		/* a return probe reads the entry's arguments as $argN */
		if (is_return)
			snprintf(arg, sizeof(arg), "$arg%d", pl->reg + 1);
		ret = kt_fetcharg_base(&w->fa, is_return ? arg :
					       a->arg_regs[pl->reg]);
	} else if (a->stack_arg0 < 0) {
		return kt_err_set(err, E2BIG,
				  "parameter '%s' is not passed in a register (%s passes the first %d integer arguments in registers)",
				  w->param, a->abi, a->nr_arg_regs);
	} else if (is_return) {
		return kt_err_set(err, E2BIG,
				  "parameter '%s' is passed on the stack: a return probe cannot read it (its slot may be reused by then); probe the entry",
				  w->param);
	} else if (at->cls == KT_ARG_COMPOSITE && !pl->by_ref) {
		/* the struct itself is there, at the entry's stack pointer
		 * plus the slots below it */
		ret = kt_fetcharg_base_mem(&w->fa, a->sp_reg,
					   8L * (a->stack_arg0 + pl->slot));
	} else if (pl->nslots != 1) {
		return kt_err_set(err, E2BIG,
				  "parameter '%s' is in %d stack slots: kprobes read one at a time",
				  w->param, pl->nslots);
	} else {
		snprintf(arg, sizeof(arg), "$stack%d",
			 a->stack_arg0 + pl->slot);
		ret = kt_fetcharg_base(&w->fa, arg);
	}
	if (!ret && pl->by_ref)
		ret = kt_fetcharg_deref(&w->fa, 0);
	return ret;
}

/*
 * Start the walk at parameter idx of proto, placed as the convention
 * places it after the parameters before it (kt_arch_arg_place()).
 */
static int walk_param(struct walk *w, const struct btf_type *proto, int idx,
		      bool is_return, struct ktrace_err *err)
{
	const struct btf_param *p = btf_params(proto);
	struct kt_arg_count count = { 0 };
	struct kt_arg_place pl;
	struct kt_arg_type at;
	const char *why;

	w->param = btf__name_by_offset(w->btf, p[idx].name_off);
	if (!p[idx].type)
		return kt_err_set(err, EOPNOTSUPP,
				  "'%s' is a variadic argument", w->what);
	for (int i = 0; i <= idx; i++) {
		why = param_type(w, &p[i], &at);
		if (why && i == idx)
			return kt_err_set(err, EOPNOTSUPP,
					  "parameter '%s' is %s: ktrace does not know where %s passes it",
					  w->param, why, w->arch->abi);
		if (why)
			return kt_err_set(err, EOPNOTSUPP,
					  "parameter '%s' comes after '%s', %s: ktrace does not know where %s passes that, so nor where '%s' is",
					  w->param,
					  btf__name_by_offset(w->btf,
							      p[i].name_off),
					  why, w->arch->abi, w->param);
		kt_arch_arg_place(w->arch, &count, &at, &pl);
	}
	w->tid = p[idx].type;
	return param_base(w, &at, &pl, is_return, err);
}

static int no_param(struct kt_btf *kb, const char *func, const char *name,
		    struct ktrace_err *err)
{
	char **names, *list;
	int ret;

	names = kt_btf_params(kb, func, false, NULL);
	list = names ? strv_join(names, ", ") : NULL;
	ktrace_strv_free(names);
	if (!list)
		return kt_err_set(err, ENOMEM, "out of memory");
	ret = kt_err_set(err, ENOENT, "%s has no parameter '%s'; %s%s",
			 func, name,
			 *list ? "parameters: " : "it takes no parameters",
			 list);
	free(list);
	return ret;
}

/*
 * Start the walk at the head of the expression: $retval, $argN or a
 * parameter by name (n: its length). 0 or -errno with err set.
 */
static int walk_head(struct kt_btf *kb, struct walk *w,
		     const struct btf_type *proto, size_t n, bool is_return,
		     struct ktrace_err *err)
{
	const struct btf_param *params = btf_params(proto);
	int idx;

	if (!strcmp(w->what, "$retval")) {
		if (!is_return)
			return kt_err_set(err, EINVAL,
					  "$retval is only available in a return probe (%s%%return)",
					  w->func);
		w->tid = proto->type;
		kt_fetcharg_base(&w->fa, "$retval");
		return 0;
	}
	if (!strncmp(w->what, "$arg", 4) && n > 4 &&
	    strspn(w->what + 4, "0123456789") == n - 4) {
		idx = atoi(w->what + 4) - 1;
		if (idx < 0 || idx >= btf_vlen(proto))
			return kt_err_set(err, ENOENT,
					  "%s takes %d parameters; there is no %s",
					  w->func, btf_vlen(proto), w->what);
		return walk_param(w, proto, idx, is_return, err);
	}
	if (!valid_ident(w->what, n))
		return kt_err_set(err, EINVAL,
				  "expected a parameter name, $argN or $retval");
	for (idx = 0; idx < btf_vlen(proto); idx++)
		if (!strcmp(btf__name_by_offset(w->btf, params[idx].name_off),
			    w->what))
			break;
	if (idx == btf_vlen(proto))
		return no_param(kb, w->func, w->what, err);
	return walk_param(w, proto, idx, is_return, err);
}

/* Take the steps of ap (parsed from expr); the caret at a failing one. */
static int walk_steps(struct walk *w, const struct kt_apath *ap,
		      const char *expr, struct ktrace_err *err)
{
	int ret;

	for (int i = 0; i < ap->nr_steps; i++) {
		const struct kt_step *st = &ap->steps[i];

		if (st->kind == KT_STEP_INDEX)
			ret = walk_index(w, st->index, err);
		else
			ret = walk_step(w, st->kind == KT_STEP_ARROW,
					st->field, err);
		if (ret)
			return err_at(err, ret, expr, st->name_pos);
		free(w->what);
		w->what = strndup(expr, st->end);
		if (!w->what)
			return kt_err_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

int kt_btf_arg(struct kt_btf *kb, const char *func, const char *expr,
	       bool is_return, char **fetcharg, char **type,
	       struct ktrace_err *err)
{
	const struct btf_type *proto;
	struct walk w = { 0 };
	struct kt_apath ap;
	int ret;

	*fetcharg = NULL;
	*type = NULL;
	if (!valid_symbol(func))
		return kt_err_set(err, EINVAL,
				  "'%s' is not a valid kernel symbol name",
				  func);
	if (strchr(func, '.'))
		return kt_err_set(err, EINVAL,
				  "'%s' is a compiler-made copy of %.*s whose arguments may differ from its prototype; name them with raw fetch arguments",
				  func, (int)(func_part(func) - func +
					      base_len(func_part(func))), func);
	proto = find_proto(kb, func, &w.btf, &ret, err);
	if (!proto)
		return ret;
	w.func = func;
	w.tags = kb->btf_has_tags;
	w.arch = kb->arch ? kb->arch : kt_arch_host();
	if (!w.arch)
		return kt_err_set(err, EOPNOTSUPP,
				  "this architecture is not supported: ktrace has no register table for it");
	ret = kt_apath_parse(expr, &ap, err);
	if (ret)
		return ret;
	w.what = strdup(ap.name);
	if (!w.what)
		return kt_err_set(err, ENOMEM, "out of memory");
	ret = walk_head(kb, &w, proto, ap.name_len, is_return, err);
	if (ret) {
		ret = err_at(err, ret, expr, 0);
		goto out;
	}
	ret = walk_steps(&w, &ap, expr, err);
	if (!ret)
		ret = walk_finish(&w, fetcharg, type, err);
out:
	free(w.what);
	return ret;
}

/* ------------------------------------------- values of a named C type */

/*
 * The BTF id of the type a format file spells ctype ("const struct
 * __kernel_timespec *", "u32 *", "unsigned long"), qualifiers dropped,
 * without its '*'s, which are counted in *stars. 0 is void. -ENOENT when
 * BTF has no such type, -EINVAL when ctype is not one a format file
 * writes.
 */
static int ctype_base(const struct btf *btf, const char *ctype, int *stars)
{
	static const char *const ints[][2] = {
		{ "unsigned", "unsigned int" },
		{ "long", "long int" },
		{ "unsigned long", "long unsigned int" },
		{ "long long", "long long int" },
		{ "unsigned long long", "long long unsigned int" },
		{ "short", "short int" },
		{ "unsigned short", "short unsigned int" },
	};
	char words[NAME_MAX_LEN] = "", tok[NAME_MAX_LEN];
	const char *c = ctype;
	int kind = 0, n, id;
	size_t len = 0;

	*stars = 0;
	while (*c) {
		if (*c == '*' || isspace((unsigned char)*c)) {
			*stars += *c++ == '*';
			continue;
		}
		n = 0;
		while (c[n] && c[n] != '*' && !isspace((unsigned char)c[n]))
			n++;
		if (n >= (int)sizeof(tok) || len + n + 2 >= sizeof(words))
			return -EINVAL;
		snprintf(tok, sizeof(tok), "%.*s", n, c);
		c += n;
		if (!strcmp(tok, "const") || !strcmp(tok, "volatile") ||
		    !strcmp(tok, "__user") || !strcmp(tok, "restrict"))
			continue;
		if (!len && !kind && !strcmp(tok, "struct"))
			kind = BTF_KIND_STRUCT;
		else if (!len && !kind && !strcmp(tok, "union"))
			kind = BTF_KIND_UNION;
		else if (!len && !kind && !strcmp(tok, "enum"))
			kind = BTF_KIND_ENUM;
		else
			len += snprintf(words + len, sizeof(words) - len,
					"%s%s", len ? " " : "", tok);
	}
	if (!len)
		return -EINVAL;
	if (kind)
		return btf__find_by_name_kind(btf, words, kind);
	if (!strcmp(words, "void"))
		return 0;
	id = btf__find_by_name_kind(btf, words, BTF_KIND_TYPEDEF);
	if (id < 0)
		id = btf__find_by_name_kind(btf, words, BTF_KIND_INT);
	/* C's short spellings; BTF names base types as DWARF does */
	for (size_t i = 0; id < 0 && i < sizeof(ints) / sizeof(ints[0]); i++)
		if (!strcmp(words, ints[i][0]))
			id = btf__find_by_name_kind(btf, ints[i][1],
						    BTF_KIND_INT);
	return id;
}

/* A pointer type to id in BTF, made when BTF has none; 0 when no memory. */
static __u32 ptr_to(struct btf *btf, __u32 id)
{
	__u32 cnt = btf__type_cnt(btf);
	int made;

	for (__u32 i = 1; i < cnt; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		if (btf_is_ptr(t) && skip_mods(btf, t->type, NULL) == id)
			return i;
	}
	made = btf__add_ptr(btf, id);
	return made > 0 ? (__u32)made : 0;
}

/* The type of the value as a BTF id: ctype with its pointers. */
static int ctype_id(struct kt_btf *kb, const char *name, const char *ctype,
		    __u32 *tid, struct ktrace_err *err)
{
	int stars, id = ctype_base(kb->btf, ctype, &stars);

	if (id < 0)
		return kt_err_set(err, ENOENT,
				  "kernel BTF has no type '%s' (the type of '%s')",
				  ctype, name);
	if (!stars)
		return kt_err_set(err, EINVAL,
				  "'%s' is %s, not a pointer: '->' and '[N]' follow pointers",
				  name, ctype);
	while (stars--) {
		id = ptr_to(kb->btf, id);
		if (!id)
			return kt_err_set(err, ENOMEM, "out of memory");
	}
	*tid = id;
	return 0;
}

int kt_btf_value_arg(struct kt_btf *kb, const struct kt_fetcharg *value,
		     const char *ctype, bool user, const char *expr,
		     char **fetcharg, char **type, struct ktrace_err *err)
{
	struct walk w = { 0 };
	struct kt_apath ap;
	int ret;

	*fetcharg = NULL;
	*type = NULL;
	ret = load_btf(kb, err);
	if (ret)
		return ret;
	ret = kt_apath_parse(expr, &ap, err);
	if (ret)
		return ret;
	w.btf = kb->btf;
	w.func = "";
	w.tags = kb->btf_has_tags;
	w.fa = *value;
	w.user_mem = user;
	ret = ctype_id(kb, ap.name, ctype, &w.tid, err);
	if (ret)
		return err_at(err, ret, expr, 0);
	w.btf = kb->btf;	/* ptr_to() may have made it writable */
	w.what = strdup(ap.name);
	if (!w.what)
		return kt_err_set(err, ENOMEM, "out of memory");
	ret = walk_steps(&w, &ap, expr, err);
	if (!ret)
		ret = walk_finish(&w, fetcharg, type, err);
	free(w.what);
	return ret;
}
