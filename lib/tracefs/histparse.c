// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The parser of the kernel's `hist` file (tracefs/hist.h), and the lookup
 * of one trigger's table in it.
 *
 * A section is what hist_show() prints for one trigger: "# event
 * histogram", "#", "# trigger info: TEXT [active]", "#", a blank line,
 * one entry per line ("{ KEYS } hitcount: N  val: N"), a blank line and
 * the Totals block (Hits, Entries, Dropped); the kernel puts two blank
 * lines between sections. The trigger info gives the key and value names
 * in the order the entries print them, so an entry is cut at those names:
 *  - its key part ends at the last '}' of the entry followed by blanks and
 *    the first value's name and ':' (a stack key spans lines: the entry
 *    runs from its "{" line to the line holding that '}');
 *  - key i begins with its name and ':' (or the name the kernel prints for
 *    it: "cpu" for common_cpu), and ends at ", " followed by the next
 *    key's name and ':', the last one at the end of the key part;
 *  - then each value in turn: its name, ':' and digits (.hex: hex digits);
 *    ".percent" ("name (%):  1.23") and ".graph" ("name: ###  ") values
 *    are stepped over and not stored;
 *  - under the entry, a line per onmax() or onchange() of the trigger
 *    ("\tmax: N  next_comm: sh"), its "name: value" pairs kept as the
 *    entry's vars.
 * Anything else is -EINVAL: the work is linear in the text, whatever it is.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs/hist.h"

/* At most this many keys, and values, in one trigger (the kernel has at
 * most 3 keys and 6 fields) */
#define HP_MAX_FIELDS	16
/* The longest key or value of a trigger info ("name.modifier=N") */
#define HP_MAX_SPEC	128
/* The lines one stack key may take (the kernel prints at most 16 frames) */
#define HP_STACK_LINES	64

/* [p, e) of the text */
struct span {
	const char *p, *e;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_space(char c)
{
	return is_blank(c) || c == '\n' || c == '\r';
}

static const char *skip_blanks(const char *p, const char *e)
{
	while (p < e && is_blank(*p))
		p++;
	return p;
}

static struct span trim(const char *p, const char *e)
{
	while (p < e && is_space(*p))
		p++;
	while (e > p && is_space(e[-1]))
		e--;
	return (struct span){ p, e };
}

/* Does [p, e) begin with s? */
static bool starts(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);

	return p <= e && (size_t)(e - p) >= n && !memcmp(p, s, n);
}

static bool eq(const char *p, const char *e, const char *s)
{
	return p <= e && (size_t)(e - p) == strlen(s) && !memcmp(p, s, e - p);
}

/* Does [p, e) begin with name and ':'? */
static bool label_at(const char *p, const char *e, const char *name)
{
	size_t n = strlen(name);

	return starts(p, e, name) && p + n < e && p[n] == ':';
}

static char *dup_span(const char *p, const char *e)
{
	return strndup(p, e - p);
}

static int digit(char c, int base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static const char *digits_end(const char *p, const char *e, int base)
{
	while (p < e && digit(*p, base) >= 0)
		p++;
	return p;
}

/* The number [p, e) is, all digits of base: 0, or -EINVAL (none, another
 * character, more than 64 bits). */
static int parse_num(const char *p, const char *e, int base, uint64_t *out)
{
	uint64_t v = 0;

	if (p >= e)
		return -EINVAL;
	for (; p < e; p++) {
		int d = digit(*p, base);

		if (d < 0 || v > (UINT64_MAX - d) / base)
			return -EINVAL;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* The lines of the text, one by one. */
struct reader {
	const char *p, *end;
};

/* The next line (without its '\n') into *l; false at the end. */
static bool next_line(struct reader *r, struct span *l)
{
	const char *nl;

	if (r->p >= r->end)
		return false;
	nl = memchr(r->p, '\n', r->end - r->p);
	l->p = r->p;
	l->e = nl ? nl : r->end;
	r->p = nl ? nl + 1 : r->end;
	return true;
}

/* How an entry prints a value */
enum hp_vkind { HP_V_NUM, HP_V_HEX, HP_V_PERCENT, HP_V_GRAPH };

struct hp_val {
	char *label;		/* as printed: "bytes", "hitcount (%)" */
	enum hp_vkind kind;
	int idx;		/* in the table's vals, -1: not stored */
};

/* One section being parsed */
struct hp_table {
	struct kt_hist_table *t;
	struct hp_val v[HP_MAX_FIELDS]; /* the values printed, in order */
	int nv;
	int nstack;		/* stack keys */
	int ntrack;		/* onmax(), onchange(): a line each under an
				 * entry ("\tmax: N  saved: V...") */
	bool snapshot;		/* .snapshot(): lines before the Totals */
	size_t cap;		/* entries allocated in t->v */
};

static const struct {
	const char *mod;
	enum kt_hist_kind kind;
} key_mods[] = {
	{ "hex", KT_HK_HEX },
	{ "sym", KT_HK_SYM },
	{ "sym-offset", KT_HK_SYM_OFFSET },
	{ "execname", KT_HK_EXECNAME },
	{ "syscall", KT_HK_SYSCALL },
	{ "log2", KT_HK_LOG2 },
	{ "usecs", KT_HK_USECS },
	{ "stacktrace", KT_HK_STACK },
};

/* One key of the trigger info, "name[.modifier]", into kd. A modifier
 * this parser does not know leaves the key PLAIN (its printed text). */
static int parse_keydef(const char *p, const char *e,
			struct kt_hist_keydef *kd)
{
	const char *dot = memchr(p, '.', e - p), *be = dot ? dot : e;
	size_t i;

	if (be == p || e - p > HP_MAX_SPEC)
		return -EINVAL;
	if (!dot && (eq(p, e, "stacktrace") || eq(p, e, "common_stacktrace")))
		kd->kind = KT_HK_STACK;
	if (dot && starts(dot + 1, e, "buckets=")) {
		if (parse_num(dot + 9, e, 10, &kd->bucket_size) ||
		    !kd->bucket_size)
			return -EINVAL;
		kd->kind = KT_HK_BUCKETS;
	}
	for (i = 0; dot && i < sizeof(key_mods) / sizeof(key_mods[0]); i++)
		if (eq(dot + 1, e, key_mods[i].mod))
			kd->kind = key_mods[i].kind;
	kd->name = dup_span(p, be);
	return kd->name ? 0 : -ENOMEM;
}

/* Is kd a stack field ("FIELD.stacktrace"), printed without ':'? */
static bool field_stack(const struct kt_hist_keydef *kd)
{
	return kd->kind == KT_HK_STACK && strcmp(kd->name, "stacktrace") &&
	       strcmp(kd->name, "common_stacktrace");
}

/*
 * The length of key kd's name as an entry prints it at [p, e), its ':'
 * included, or 0. The kernel prints a generic field by the name it was
 * given (keys=cpu: trigger info "common_cpu", entries "cpu:").
 */
static size_t key_label(const struct kt_hist_keydef *kd, const char *p,
			const char *e)
{
	static const char *const alias[][3] = {
		{ "common_cpu", "cpu", "CPU" },
		{ "common_comm", "comm", "COMM" },
	};
	size_t n = strlen(kd->name), i;

	if (field_stack(kd))
		return starts(p, e, kd->name) &&
		       starts(p + n, e, ".stacktrace") ? n + 11 : 0;
	if (label_at(p, e, kd->name))
		return n + 1;
	for (i = 0; i < sizeof(alias) / sizeof(alias[0]); i++) {
		if (strcmp(kd->name, alias[i][0]))
			continue;
		if (label_at(p, e, alias[i][1]))
			return strlen(alias[i][1]) + 1;
		if (label_at(p, e, alias[i][2]))
			return strlen(alias[i][2]) + 1;
	}
	return 0;
}

/* The keys= list [p, e) of the trigger info into the table */
static int parse_keys(struct hp_table *c, const char *p, const char *e)
{
	struct kt_hist_table *t = c->t;
	const char *q;
	int ret;

	if (t->keys)
		return -EINVAL;		/* twice */
	t->keys = calloc(HP_MAX_FIELDS, sizeof(*t->keys));
	if (!t->keys)
		return -ENOMEM;
	for (;; p = q + 1) {
		q = memchr(p, ',', e - p);
		if (!q)
			q = e;
		if (t->nkeys == HP_MAX_FIELDS)
			return -EINVAL;
		ret = parse_keydef(p, q, &t->keys[t->nkeys]);
		if (ret)
			return ret;
		c->nstack += t->keys[t->nkeys++].kind == KT_HK_STACK;
		if (q == e)
			return 0;
	}
}

/* One value of the trigger info, "[$]name[.modifier]", as c->v[c->nv] */
static int parse_valdef(struct hp_table *c, const char *p, const char *e)
{
	struct kt_hist_table *t = c->t;
	struct hp_val *v = &c->v[c->nv];
	const char *dot, *be;

	if (p < e && *p == '$')
		p++;
	dot = memchr(p, '.', e - p);
	be = dot ? dot : e;
	if (be == p || e - p > HP_MAX_SPEC)
		return -EINVAL;
	v->kind = HP_V_NUM;
	if (dot && eq(dot + 1, e, "hex"))
		v->kind = HP_V_HEX;
	else if (dot && eq(dot + 1, e, "percent"))
		v->kind = HP_V_PERCENT;
	else if (dot && eq(dot + 1, e, "graph"))
		v->kind = HP_V_GRAPH;
	v->idx = -1;
	v->label = malloc(be - p + sizeof(" (%)"));
	if (!v->label)
		return -ENOMEM;
	memcpy(v->label, p, be - p);
	strcpy(v->label + (be - p), v->kind == HP_V_PERCENT ? " (%)" : "");
	c->nv++;
	if (v->kind == HP_V_PERCENT || v->kind == HP_V_GRAPH)
		return 0;
	t->vals[t->nvals] = dup_span(p, be);
	if (!t->vals[t->nvals])
		return -ENOMEM;
	v->idx = t->nvals++;
	return 0;
}

/* The vals= list [p, e) of the trigger info into the table */
static int parse_vals(struct hp_table *c, const char *p, const char *e)
{
	struct kt_hist_table *t = c->t;
	const char *q;
	int ret;

	if (t->vals)
		return -EINVAL;		/* twice */
	t->vals = calloc(HP_MAX_FIELDS, sizeof(*t->vals));
	if (!t->vals)
		return -ENOMEM;
	for (;; p = q + 1) {
		q = memchr(p, ',', e - p);
		if (!q)
			q = e;
		if (c->nv == HP_MAX_FIELDS)
			return -EINVAL;
		ret = parse_valdef(c, p, q);
		if (ret)
			return ret;
		if (q == e)
			return 0;
	}
}

/*
 * The trigger info: "hist:[NAME:]keys=...:vals=...[:PART...][ if FILTER]".
 * keys= and vals= are needed once each; the other parts (sort, size,
 * clock, variables, actions) are let be.
 */
static int parse_trigger(struct hp_table *c)
{
	const char *s = c->t->trigger, *e = s + strlen(s), *f, *p, *q;
	int ret;

	if (!starts(s, e, "hist:"))
		return -EINVAL;
	f = strstr(s, " if ");
	if (f)
		e = f;
	for (p = s + 5;; p = q + 1) {
		q = memchr(p, ':', e - p);
		if (!q)
			q = e;
		ret = 0;
		if (starts(p, q, "keys="))
			ret = parse_keys(c, p + 5, q);
		else if (starts(p, q, "vals="))
			ret = parse_vals(c, p + 5, q);
		else if (starts(p, q, "onmax(") || starts(p, q, "onchange("))
			c->ntrack++;
		if (memmem(p, q - p, ".snapshot(", 10))
			c->snapshot = true;
		if (ret)
			return ret;
		if (q == e)
			break;
	}
	return c->t->keys && c->nv ? 0 : -EINVAL;
}

/* "[ADDR] TEXT": num = ADDR, text = TEXT */
static int decode_addr(struct span v, struct kt_hist_key *k)
{
	const char *r = memchr(v.p, ']', v.e - v.p);
	struct span s;

	if (v.p == v.e || *v.p != '[' || !r ||
	    parse_num(v.p + 1, r, 16, &k->num))
		return -EINVAL;
	if (r + 1 < v.e && !is_blank(r[1]))
		return -EINVAL;
	s = trim(r + 1, v.e);
	k->is_num = true;
	k->text = dup_span(s.p, s.e);
	return k->text ? 0 : -ENOMEM;
}

/* "TEXT [  N]" (a comm may hold '[': the last one): num = N, text */
static int decode_named(struct span v, struct kt_hist_key *k)
{
	const char *r = v.e;
	struct span s;

	while (r > v.p && r[-1] != '[')
		r--;
	if (r == v.p || v.e[-1] != ']')
		return -EINVAL;
	s = trim(r, v.e - 1);
	if (parse_num(s.p, s.e, 10, &k->num))
		return -EINVAL;
	s = trim(v.p, r - 1);
	k->is_num = true;
	k->text = dup_span(s.p, s.e);
	return k->text ? 0 : -ENOMEM;
}

/* The frames, one a line: each trimmed, joined by '\n' */
static int decode_stack(struct span v, struct kt_hist_key *k)
{
	char *o = malloc(v.e - v.p + 1);
	const char *p = v.p;
	size_t n = 0;

	if (!o)
		return -ENOMEM;
	while (p < v.e) {
		const char *nl = memchr(p, '\n', v.e - p);
		struct span f = trim(p, nl ? nl : v.e);

		if (f.p < f.e) {
			if (n)
				o[n++] = '\n';
			memcpy(o + n, f.p, f.e - f.p);
			n += f.e - f.p;
		}
		p = nl ? nl + 1 : v.e;
	}
	o[n] = '\0';
	k->text = o;
	return 0;
}

/* "~ A-B" */
static int decode_buckets(struct span v, struct kt_hist_key *k)
{
	const char *m;

	if (!starts(v.p, v.e, "~ "))
		return -EINVAL;
	m = digits_end(v.p + 2, v.e, 10);
	if (m == v.e || *m != '-' || parse_num(v.p + 2, m, 10, &k->num) ||
	    parse_num(m + 1, v.e, 10, &k->num2) || k->num2 < k->num)
		return -EINVAL;
	return 0;
}

/* The printed value [p, e) of key kd into k */
static int decode_key(const struct kt_hist_keydef *kd, const char *p,
		      const char *e, struct kt_hist_key *k)
{
	struct span v = trim(p, e);
	int ret = 0;

	switch (kd->kind) {
	case KT_HK_STACK:
		return decode_stack(v, k);
	case KT_HK_SYM:
	case KT_HK_SYM_OFFSET:
		return decode_addr(v, k);
	case KT_HK_EXECNAME:
	case KT_HK_SYSCALL:
		return decode_named(v, k);
	case KT_HK_PLAIN:
		k->is_num = !parse_num(v.p, v.e, 10, &k->num);
		break;
	case KT_HK_HEX:
	case KT_HK_USECS:
		ret = parse_num(v.p, v.e, kd->kind == KT_HK_HEX ? 16 : 10,
				&k->num);
		break;
	case KT_HK_LOG2:
		ret = starts(v.p, v.e, "~ 2^") ?
		      parse_num(v.p + 4, v.e, 10, &k->num) : -EINVAL;
		break;
	case KT_HK_BUCKETS:
		ret = decode_buckets(v, k);
		break;
	}
	if (ret)
		return ret;
	k->is_num = k->is_num || kd->kind != KT_HK_PLAIN;
	k->text = dup_span(v.p, v.e);
	return k->text ? 0 : -ENOMEM;
}

/* The keys of the key part [p, e) (after "{", up to "}") into en */
static int entry_keys(struct hp_table *c, struct kt_hist_entry *en,
		      const char *p, const char *e)
{
	struct kt_hist_table *t = c->t;
	int i, ret;

	p = skip_blanks(p, e);
	for (i = 0; i < t->nkeys; i++) {
		const char *ve = e, *s;
		size_t n = key_label(&t->keys[i], p, e);

		if (!n)
			return -EINVAL;
		p += n;
		if (i + 1 < t->nkeys) {
			for (s = p; (s = memmem(s, e - s, ", ", 2)); s++)
				if (key_label(&t->keys[i + 1], s + 2, e))
					break;
			if (!s)
				return -EINVAL;
			ve = s;
		}
		ret = decode_key(&t->keys[i], p, ve, &en->keys[i]);
		if (ret)
			return ret;
		p = ve + (i + 1 < t->nkeys ? 2 : 0);
	}
	return 0;
}

/* Past one printed value of kind at p (after its "name:"), or NULL */
static const char *skip_val(enum hp_vkind kind, const char *p,
			    const char *e, uint64_t *out)
{
	const char *q;

	p = skip_blanks(p, e);
	switch (kind) {
	case HP_V_NUM:
	case HP_V_HEX:
		q = digits_end(p, e, kind == HP_V_HEX ? 16 : 10);
		if (parse_num(p, q, kind == HP_V_HEX ? 16 : 10, out) ||
		    (q < e && !is_blank(*q)))
			return NULL;
		return q;
	case HP_V_PERCENT:
		if (starts(p, e, "[ERROR]"))
			return p + 7;
		q = digits_end(p, e, 10);
		if (q == p || q == e || *q != '.')
			return NULL;
		p = q + 1;
		q = digits_end(p, e, 10);
		return q == p ? NULL : q;
	case HP_V_GRAPH:
		while (p < e && (*p == ' ' || *p == '#'))
			p++;
		return starts(p, e, "[ERROR]") ? p + 7 : p;
	}
	return NULL;
}

/* The values after the key part, [p, e) of the entry's last line */
static int entry_vals(struct hp_table *c, struct kt_hist_entry *en,
		      const char *p, const char *e)
{
	int j;

	for (j = 0; j < c->nv; j++) {
		const struct hp_val *v = &c->v[j];
		uint64_t x = 0;

		p = skip_blanks(p, e);
		if (!label_at(p, e, v->label))
			return -EINVAL;
		p = skip_val(v->kind, p + strlen(v->label) + 1, e, &x);
		if (!p)
			return -EINVAL;
		if (v->idx >= 0)
			en->vals[v->idx] = x;
	}
	/* an action prints under the entry, never after its values */
	return skip_blanks(p, e) == e ? 0 : -EINVAL;
}

/*
 * Where the key part of an entry closes on line l: its last '}' followed
 * by blanks and the first value's name and ':', or NULL. Linear: the
 * blanks after two '}' never overlap.
 */
static const char *key_close(const struct hp_table *c, struct span l)
{
	const char *q = l.e, *p;

	while (q > l.p) {
		if (*--q != '}')
			continue;
		p = q + 1;
		if (p == l.e || !is_blank(*p))
			continue;
		p = skip_blanks(p, l.e);
		if (label_at(p, l.e, c->v[0].label))
			return q;
	}
	return NULL;
}

/* A new zeroed entry at the end of the table, or NULL */
static struct kt_hist_entry *new_entry(struct hp_table *c)
{
	struct kt_hist_table *t = c->t;
	struct kt_hist_entry *en;

	if (t->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;

		en = realloc(t->v, cap * sizeof(*en));
		if (!en)
			return NULL;
		t->v = en;
		c->cap = cap;
	}
	en = &t->v[t->n++];
	memset(en, 0, sizeof(*en));
	en->keys = calloc(t->nkeys, sizeof(*en->keys));
	en->vals = calloc(t->nvals ? t->nvals : 1, sizeof(*en->vals));
	return en->keys && en->vals ? en : NULL;
}

/* The entry whose first line is first (it starts with '{') */
static int parse_entry(struct reader *r, struct hp_table *c,
		       struct span first)
{
	int max = c->nstack * HP_STACK_LINES + (c->nstack ? c->t->nkeys : 0);
	struct kt_hist_entry *en;
	struct span l = first;
	const char *q;
	int i, ret;

	/* a stack's lines: frames, then "}" or ", " and the next key */
	for (i = 0; !(q = key_close(c, l)); i++)
		if (i >= max || !next_line(r, &l) || l.p == l.e || *l.p == '{')
			return -EINVAL;
	en = new_entry(c);
	if (!en)
		return -ENOMEM;
	en->raw = dup_span(first.p, q + 1);
	if (!en->raw)
		return -ENOMEM;
	ret = entry_keys(c, en, first.p + 1, q);
	if (!ret)
		ret = entry_vals(c, en, q + 1, l.e);
	return ret;
}

/* Does an action's "NAME:" start at p (a name, then ':')? Its end. */
static const char *var_name_end(const char *p, const char *e)
{
	const char *q = p;

	while (q < e && (isalnum((unsigned char)*q) || *q == '_' ||
			 *q == '$' || *q == '.'))
		q++;
	return q > p && q < e && *q == ':' ? q : NULL;
}

/*
 * A line an action printed under the entry en ("\tmax: N  next_comm: sh
 * ..."): its "NAME: VALUE" pairs, a value running to the blanks before
 * the next "NAME:" (a comm may hold a space) or the end.
 */
static int parse_vars(struct kt_hist_entry *en, const char *p, const char *e)
{
	while ((p = skip_blanks(p, e)) < e) {
		const char *ne = var_name_end(p, e), *v, *q;
		struct kt_hist_var *nv;

		if (!ne || en->nvars >= HP_MAX_FIELDS)
			return -EINVAL;
		v = skip_blanks(ne + 1, e);
		/* tried once per run of blanks: linear */
		for (q = v; q < e; q++)
			if (is_blank(*q) && !is_blank(q[-1]) && q + 1 < e &&
			    is_blank(q[1]) && var_name_end(skip_blanks(q, e), e))
				break;
		nv = realloc(en->vars, (en->nvars + 1) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		en->vars = nv;
		nv = &en->vars[en->nvars];
		nv->name = dup_span(p, ne);
		nv->value = nv->name ? dup_span(v, trim(v, q).e) : NULL;
		if (!nv->value) {
			free(nv->name);
			return -ENOMEM;
		}
		en->nvars++;
		p = q;
	}
	return 0;
}

/* "NAME N" on the next line, after blanks */
static int parse_total(struct reader *r, const char *name, uint64_t *out)
{
	struct span l;
	const char *p;

	if (!next_line(r, &l))
		return -EINVAL;
	l = trim(l.p, l.e);
	if (!starts(l.p, l.e, name))
		return -EINVAL;
	p = skip_blanks(l.p + strlen(name), l.e);
	return parse_num(p, l.e, 10, out);
}

/* The four lines after "# event histogram", and the blank one */
static int parse_head(struct reader *r, struct hp_table *c)
{
	static const char info[] = "# trigger info: ";
	struct kt_hist_table *t = c->t;
	struct span l;
	const char *e;

	if (!next_line(r, &l) || !eq(l.p, l.e, "#") || !next_line(r, &l) ||
	    !starts(l.p, l.e, info) ||
	    l.e - l.p < (long)(sizeof(info) - 1 + 9))
		return -EINVAL;
	e = l.e - 9;
	if (eq(e, l.e, " [paused]"))
		t->paused = true;
	else if (!eq(e, l.e, " [active]"))
		return -EINVAL;
	t->trigger = dup_span(l.p + sizeof(info) - 1, e);
	if (!t->trigger)
		return -ENOMEM;
	if (!next_line(r, &l) || !eq(l.p, l.e, "#") || !next_line(r, &l) ||
	    l.p != l.e)
		return -EINVAL;
	return parse_trigger(c);
}

/* The entries up to a blank line, then the Totals */
static int parse_body(struct reader *r, struct hp_table *c)
{
	struct kt_hist_table *t = c->t;
	struct span l;
	int ret, track = c->ntrack;

	for (;;) {
		if (!next_line(r, &l))
			return -EINVAL;
		if (l.p == l.e)
			break;
		/* what an onmax() or onchange() of the entry above tracks */
		if (track < c->ntrack && (starts(l.p, l.e, "\tmax:") ||
					  starts(l.p, l.e, "\tchanged:"))) {
			track++;
			ret = parse_vars(&t->v[t->n - 1], l.p, l.e);
			if (ret)
				return ret;
			continue;
		}
		if (*l.p != '{')
			return -EINVAL;
		ret = parse_entry(r, c, l);
		if (ret)
			return ret;
		track = 0;
	}
	do {
		if (!next_line(r, &l))
			return -EINVAL;
	} while (c->snapshot && !eq(l.p, l.e, "Totals:"));
	if (!eq(l.p, l.e, "Totals:"))
		return -EINVAL;
	ret = parse_total(r, "Hits:", &t->hits);
	if (!ret)
		ret = parse_total(r, "Entries:", &t->entries);
	if (!ret)
		ret = parse_total(r, "Dropped:", &t->dropped);
	if (!ret && t->entries != t->n)
		ret = -EINVAL;	/* an entry is missing: cut text */
	t->has_totals = !ret;
	return ret;
}

static int parse_section(struct reader *r, struct kt_hist_table *t)
{
	struct hp_table c = { .t = t };
	int ret, i;

	ret = parse_head(r, &c);
	if (!ret)
		ret = parse_body(r, &c);
	for (i = 0; i < c.nv; i++)
		free(c.v[i].label);
	return ret;
}

static void free_table(struct kt_hist_table *t)
{
	size_t i;
	int j;

	for (i = 0; i < t->n; i++) {
		for (j = 0; t->v[i].keys && j < t->nkeys; j++)
			free(t->v[i].keys[j].text);
		free(t->v[i].keys);
		free(t->v[i].vals);
		free(t->v[i].raw);
		for (j = 0; j < t->v[i].nvars; j++) {
			free(t->v[i].vars[j].name);
			free(t->v[i].vars[j].value);
		}
		free(t->v[i].vars);
	}
	free(t->v);
	for (j = 0; t->keys && j < t->nkeys; j++)
		free(t->keys[j].name);
	free(t->keys);
	for (j = 0; t->vals && j < t->nvals; j++)
		free(t->vals[j]);
	free(t->vals);
	free(t->trigger);
}

void kt_hist_file_free(struct kt_hist_file *f)
{
	int i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++)
		free_table(&f->t[i]);
	free(f->t);
	free(f);
}

/* A new zeroed table at the end of f, or NULL */
static struct kt_hist_table *new_table(struct kt_hist_file *f, int *cap)
{
	struct kt_hist_table *t;

	if (f->n == *cap) {
		int n = *cap ? 2 * *cap : 4;

		t = realloc(f->t, n * sizeof(*t));
		if (!t)
			return NULL;
		f->t = t;
		*cap = n;
	}
	t = &f->t[f->n++];
	memset(t, 0, sizeof(*t));
	return t;
}

int kt_hist_parse(const char *text, size_t len, struct kt_hist_file **out)
{
	struct reader r = { text, text };
	struct kt_hist_file *f;
	struct kt_hist_table *t;
	struct span l;
	int ret = 0, cap = 0;

	*out = NULL;
	if (len && memchr(text, '\0', len))
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	if (len)
		r.end = text + len;
	while (!ret && next_line(&r, &l)) {
		if (l.p == l.e)
			continue;	/* between sections */
		if (!eq(l.p, l.e, "# event histogram")) {
			ret = -EINVAL;
			break;
		}
		t = new_table(f, &cap);
		ret = t ? parse_section(&r, t) : -ENOMEM;
	}
	if (ret) {
		kt_hist_file_free(f);
		return ret;
	}
	*out = f;
	return 0;
}

/*
 * kt_hist_find(): a trigger as ktrace wrote it, or a trigger info as the
 * kernel printed it, in parts. The lists point into buf.
 */
struct hp_desc {
	char *buf;
	const char *name;	/* "name=N", or the kernel's bare "N" */
	const char *keys, *vals, *sort;		/* NULL: not given */
	const char *filter;	/* trimmed; NULL: none */
	uint64_t size;		/* 0: not given */
	bool nohitcount;
};

static char *trim_in_place(char *s)
{
	char *e;

	while (is_space(*s))
		s++;
	e = s + strlen(s);
	while (e > s && is_space(e[-1]))
		*--e = '\0';
	return s;
}

/* Is part one of the kernel's flags (no '=')? */
static bool hist_flag(const char *part)
{
	static const char *const flags[] = {
		"pause", "cont", "continue", "clear", "nohitcount", "NOHC",
	};
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!strcmp(part, flags[i]))
			return true;
	return false;
}

/* One ':' part of a trigger into d; 0 or -EINVAL */
static int desc_part(struct hp_desc *d, const char *part)
{
	const char *v = strchr(part, '=');

	if (!strncmp(part, "keys=", 5) || !strncmp(part, "key=", 4))
		d->keys = v + 1;
	else if (!strncmp(part, "vals=", 5) || !strncmp(part, "val=", 4) ||
		 !strncmp(part, "values=", 7))
		d->vals = v + 1;
	else if (!strncmp(part, "sort=", 5))
		d->sort = v + 1;
	else if (!strncmp(part, "name=", 5))
		d->name = v + 1;
	else if (!strncmp(part, "size=", 5))
		return parse_num(v + 1, v + 1 + strlen(v + 1), 10, &d->size);
	else if (!strcmp(part, "nohitcount") || !strcmp(part, "NOHC"))
		d->nohitcount = true;
	else if (!v && !strchr(part, '(') && !hist_flag(part))
		d->name = part;
	return 0;
}

/* The parts of trigger text buf (cut in place) into d */
static int desc_split(struct hp_desc *d, char *buf)
{
	char *f, *p, *part;
	int ret;

	f = strstr(buf, " if ");
	if (f) {
		*f = '\0';
		d->filter = trim_in_place(f + 4);
		if (!*d->filter)
			d->filter = NULL;
	}
	p = trim_in_place(buf);
	if (strncmp(p, "hist:", 5))
		return -EINVAL;
	for (part = p + 5; part; part = p) {
		p = strchr(part, ':');
		if (p)
			*p++ = '\0';
		ret = desc_part(d, part);
		if (ret)
			return ret;
	}
	return d->keys ? 0 : -EINVAL;
}

/* trigger into d: 0 (free d->buf), or -errno (nothing to free) */
static int desc_parse(const char *trigger, struct hp_desc *d)
{
	char *buf = strdup(trigger);
	int ret;

	memset(d, 0, sizeof(*d));
	if (!buf)
		return -ENOMEM;
	ret = desc_split(d, buf);
	if (ret) {
		free(buf);
		return ret;
	}
	d->buf = buf;
	return 0;
}

/* The next item of the comma list at *p into [*s, *e); false at its end */
static bool next_item(const char **p, const char **s, const char **e)
{
	if (!*p)
		return false;
	*s = *p;
	*e = strchrnul(*p, ',');
	*p = **e ? *e + 1 : NULL;
	return true;
}

/* A field's name as the trigger info prints it (keys=cpu: common_cpu) */
static void canon(const char **s, size_t *n)
{
	static const char *const alias[][2] = {
		{ "cpu", "common_cpu" }, { "CPU", "common_cpu" },
		{ "comm", "common_comm" }, { "COMM", "common_comm" },
		{ "stacktrace", "common_stacktrace" },
	};
	size_t i;

	for (i = 0; i < sizeof(alias) / sizeof(alias[0]); i++) {
		if (*n == strlen(alias[i][0]) && !memcmp(*s, alias[i][0], *n)) {
			*s = alias[i][1];
			*n = strlen(*s);
			return;
		}
	}
}

/* Same field name [a, ae) and [b, be), after canon() */
static bool base_eq(const char *a, const char *ae, const char *b,
		    const char *be)
{
	size_t na = ae - a, nb = be - b;

	canon(&a, &na);
	canon(&b, &nb);
	return na == nb && !memcmp(a, b, na);
}

/* Same key or value "field[.modifier]": same modifier, same field */
static bool spec_eq(const char *a, const char *ae, const char *b,
		    const char *be)
{
	const char *da = memchr(a, '.', ae - a), *db = memchr(b, '.', be - b);

	da = da ? da : ae;
	db = db ? db : be;
	if (ae - da != be - db || memcmp(da, db, ae - da))
		return false;
	return base_eq(a, da, b, db);
}

/* Same sort key: same field and order, whatever its other modifier
 * (sort=common_pid is printed common_pid.execname) */
static bool sort_eq(const char *a, const char *ae, const char *b,
		    const char *be)
{
	static const char desc[] = ".descending", asc[] = ".ascending";
	const char *d;
	bool da = false, db = false;

	if (ae - a > 11 && eq(ae - 11, ae, desc))
		ae -= 11, da = true;
	else if (ae - a > 10 && eq(ae - 10, ae, asc))
		ae -= 10;
	if (be - b > 11 && eq(be - 11, be, desc))
		be -= 11, db = true;
	else if (be - b > 10 && eq(be - 10, be, asc))
		be -= 10;
	d = memchr(a, '.', ae - a);
	ae = d ? d : ae;
	d = memchr(b, '.', be - b);
	be = d ? d : be;
	return da == db && base_eq(a, ae, b, be);
}

typedef bool (*item_eq_fn)(const char *, const char *, const char *,
			   const char *);

static bool list_eq(const char *a, const char *b, item_eq_fn item_eq)
{
	const char *as, *ae, *bs, *be;

	for (;;) {
		bool ha = next_item(&a, &as, &ae), hb = next_item(&b, &bs, &be);

		if (!ha || !hb)
			return ha == hb;
		if (!item_eq(as, ae, bs, be))
			return false;
	}
}

/* The kernel's values: hitcount first (unless nohitcount), then the
 * user's, any "hitcount" of them left out (the kernel does) */
static bool vals_match(const struct hp_desc *u, const struct hp_desc *t)
{
	const char *up = u->vals, *tp = t->vals, *us, *ue, *ts, *te;
	bool hu;

	if (!u->nohitcount &&
	    (!next_item(&tp, &ts, &te) || !eq(ts, te, "hitcount")))
		return false;
	for (;;) {
		do
			hu = next_item(&up, &us, &ue);
		while (hu && eq(us, ue, "hitcount"));
		if (!next_item(&tp, &ts, &te))
			return !hu;
		if (!hu || !spec_eq(us, ue, ts, te))
			return false;
	}
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The kernel's size: the user's rounded up to a power of 2 */
static bool size_match(uint64_t u, uint64_t t)
{
	uint64_t r = 1;

	if (!u || u == t)
		return true;
	while (r < u && r <= UINT64_MAX / 2)
		r *= 2;
	return r == t;
}

static bool desc_match(const struct hp_desc *u, const struct hp_desc *t)
{
	return list_eq(u->keys, t->keys, spec_eq) && vals_match(u, t) &&
	       str_eq(u->filter, t->filter) && str_eq(u->name, t->name) &&
	       size_match(u->size, t->size);
}

/*
 * The table of trigger: same keys (keys=cpu is printed common_cpu,
 * stacktrace common_stacktrace on 6.12), same values once the kernel's
 * hitcount is put first, same filter (trimmed), same name, and the same
 * size if trigger gives one (rounded up to a power of 2 as the kernel
 * does). Sort, clock and the other parts are not compared (the kernel
 * rewrites them), but of two tables that match, one whose sort keys are
 * trigger's (field and order; default: hitcount) is preferred; else the
 * first one.
 */
struct kt_hist_table *kt_hist_find(struct kt_hist_file *f,
				   const char *trigger)
{
	struct kt_hist_table *found = NULL;
	struct hp_desc u, t;
	int i;

	if (!f || !trigger)
		return NULL;
	if (desc_parse(trigger, &u))
		return NULL;
	for (i = 0; i < f->n; i++) {
		bool m = false, s = false;

		if (!desc_parse(f->t[i].trigger, &t)) {
			m = desc_match(&u, &t);
			s = m && list_eq(u.sort ? u.sort : "hitcount",
					 t.sort ? t.sort : "hitcount", sort_eq);
			free(t.buf);
		}
		if (s || (m && !found))
			found = &f->t[i];
		if (s)
			break;
	}
	free(u.buf);
	return found;
}
