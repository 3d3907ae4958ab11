// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Address -> name tables: the kernel's (kallsyms, modules included) and a
 * binary's. The start of the one symbol layer the stacks build on.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "sym/symtab.h"

#include <elfutils/libdwelf.h>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>

/* Does name point into the pool (then it is not freed alone)? */
static bool pooled(const struct kt_symtab *t, const char *name)
{
	return t->pool && name >= t->pool && name < t->pool + t->pool_len;
}

void kt_symtab_free(struct kt_symtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (!pooled(t, t->v[i].name))
			free(t->v[i].name);
	free(t->pool);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int sym_push(struct kt_symtab *t, uint64_t addr, uint64_t size,
		    char *name)
{
	struct kt_sym *nv;

	if ((t->n & (t->n - 1)) == 0 || t->n == 0) {
		nv = realloc(t->v, (t->n ? t->n * 2 : 1024) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->v = nv;
	}
	t->v[t->n].addr = addr;
	t->v[t->n].size = size;
	t->v[t->n].prio = 0;
	t->v[t->n].name = name;
	t->n++;
	return 0;
}

int kt_symtab_add(struct kt_symtab *t, uint64_t addr, uint64_t size,
		  const char *name)
{
	char *copy = strdup(name);

	if (!copy || sym_push(t, addr, size, copy)) {
		free(copy);
		return -ENOMEM;
	}
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct kt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->prio - y->prio;	/* the best name last */
}

void kt_symtab_sort(struct kt_symtab *t)
{
	size_t i = 1;

	while (i < t->n && sym_cmp(&t->v[i - 1], &t->v[i]) <= 0)
		i++;
	if (i < t->n)	/* kallsyms comes sorted: no qsort then */
		qsort(t->v, t->n, sizeof(*t->v), sym_cmp);
	/* as perf does: an unknown end is the next symbol's start */
	for (size_t i = 0, j = 0; i < t->n; i++) {
		if (t->v[i].size)
			continue;
		if (j <= i)
			j = i + 1;
		while (j < t->n && t->v[j].addr == t->v[i].addr)
			j++;
		if (j < t->n)
			t->v[i].size = t->v[j].addr - t->v[i].addr;
	}
	t->loaded = true;
}

const struct kt_sym *kt_symtab_lookup(const struct kt_symtab *t,
				      uint64_t addr)
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
	/* among the symbols starting there, one that reaches addr */
	for (size_t i = lo + 1; i-- > 0 && t->v[i].addr == t->v[lo].addr;) {
		const struct kt_sym *s = &t->v[i];

		if (!s->size || addr - s->addr < s->size)
			return s;
	}
	return NULL;
}

const char *kt_symtab_find(const struct kt_symtab *t, uint64_t addr,
			   uint64_t *off)
{
	const struct kt_sym *s = kt_symtab_lookup(t, addr);

	if (s && off)
		*off = addr - s->addr;
	return s ? s->name : NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int kt_symtab_load_kallsyms(struct kt_symtab *t, const char *path)
{
	size_t len;
	char *buf = kt_read_file(path ? path : "/proc/kallsyms", &len);

	if (!buf)
		return -errno;
	/* "ffffffff81000000 T name\t[module]": ~200k lines, parsed by hand;
	 * the names stay in the text (the pool) */
	t->pool = buf;
	t->pool_len = len;
	for (char *line = buf, *end; line < buf + len; line = end + 1) {
		unsigned long long addr = 0;
		char *p = line, *name, *mod, type;
		int d;

		end = memchr(line, '\n', buf + len - line);
		if (!end)
			end = buf + len;
		*end = '\0';
		while ((d = hexval(*p)) >= 0)
			addr = addr << 4 | d, p++;
		if (p == line || *p != ' ' || !addr || end - p < 4)
			continue;
		type = p[1];
		if ((type != 't' && type != 'T' && type != 'W' && type != 'w') ||
		    p[2] != ' ')
			continue;
		name = p + 3;
		mod = memchr(name, '\t', end - name);
		if (mod)
			*mod = ' ';	/* "name [mod]" */
		if (*name && sym_push(t, addr, 0, name))
			return -ENOMEM;
	}
	kt_symtab_sort(t);
	return 0;
}

/*
 * Which of the names of one address to show, as perf chooses: a global
 * over a weak over a local one, fewer leading underscores, the longer
 * name; never a version-suffixed alias ("f@GLIBC_2.2.5") over a plain one.
 */
static int name_prio(const char *n, unsigned char info)
{
	int bind = GELF_ST_BIND(info), under = 0, len = strlen(n);

	while (n[under] == '_')
		under++;
	return (strchr(n, '@') ? 0 : 1 << 24) |
	       (bind == STB_GLOBAL ? 2 : bind == STB_WEAK) << 20 |
	       (15 - (under < 15 ? under : 15)) << 16 |
	       (len < 65535 ? len : 65535);
}

/* Functions only: an untyped label has no size, so no extent to hold an
 * address (the nearest name below would be a guess). */
static int add_elf_sym(const struct kt_elf_sym *es, void *arg)
{
	struct kt_symtab *t = arg;
	int type = GELF_ST_TYPE(es->sym.st_info);

	if (type != STT_FUNC && type != STT_GNU_IFUNC)
		return 0;
	if (kt_symtab_add(t, es->sym.st_value, es->sym.st_size, es->name))
		return 0;	/* a name lost to memory: still the others */
	t->v[t->n - 1].prio = name_prio(es->name, es->sym.st_info);
	return 0;
}

bool kt_symtab_add_elf(struct kt_symtab *t, Elf *elf)
{
	return kt_elf_code_syms(elf, add_elf_sym, t) == 1;
}

/* The code symbols of the ELF file at path (a debug file) through fn;
 * 0 or -errno (or what fn stopped with). */
static int add_file(kt_elf_sym_fn fn, void *arg, const char *path)
{
	int fd = kt_open_elf(path, KT_ELF_MAX), ret = -EINVAL;
	Elf *e;

	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e)
		ret = kt_elf_code_syms(e, fn, arg);
	elf_end(e);
	close(fd);
	return ret < 0 ? ret : 0;
}

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

/* CRC-32 (IEEE, as .gnu_debuglink records it) of the ELF file at path
 * (kt_open_elf(): a sparse or endless file is never read whole); -errno
 * when it cannot be read. Thread-safe (stacks read binaries in threads). */
static int64_t file_crc32(const char *path)
{
	const uint32_t *table = crc_table;
	unsigned char buf[65536];
	uint32_t crc = 0xffffffff;
	int fd = kt_open_elf(path, KT_ELF_MAX);
	ssize_t n;

	if (fd < 0)
		return -errno;
	pthread_once(&crc_once, crc_init);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : (int64_t)(crc ^ 0xffffffff);
}

int kt_debuglink_path(const char *name, uint32_t crc, const char *binary,
		      char *path, size_t len)
{
	static const char *const where[] = { "%s/%s", "%s/.debug/%s",
					     "/usr/lib/debug%s/%s" };
	const char *slash;
	char dir[4096], first[8192] = "";
	int64_t c, why = -ENOENT;

	if (!name || !binary || strchr(name, '/'))
		return -ENOENT;
	slash = strrchr(binary, '/');
	if (!slash || (size_t)(slash - binary) >= sizeof(dir))
		return -ENOENT;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - binary), binary);
	for (size_t i = 0; i < sizeof(where) / sizeof(*where); i++) {
		if ((size_t)snprintf(path, len, where[i], dir, name) >= len ||
		    !strcmp(path, binary))
			continue;
		c = file_crc32(path);
		if (c == crc)
			return 0;
		/* the first file there that is not it: why not */
		if (c != -ENOENT && !first[0]) {
			snprintf(first, sizeof(first), "%s", path);
			why = c >= 0 ? -ESTALE : c;
		}
	}
	if (first[0])
		snprintf(path, len, "%s", first);
	return why;
}

const char *kt_debuglink_refusal(int err)
{
	switch (err) {
	case -ESTALE:
		return "not the one it was built with (CRC differs)";
	case -EFBIG:
		return "larger than its ELF headers account for, or than 4 GiB";
	case -ENOEXEC:
		return "not an ELF file";
	case -KT_ENOTREG:
		return "not a regular file";
	case 0: case -ENOENT: case -ENOMEM:
		return NULL;
	default:
		return strerror(-err);
	}
}

char *kt_elf_build_id_hex(Elf *elf)
{
	const unsigned char *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, (const void **)&id);
	char *hex;

	if (n <= 0 || n > 64)
		return NULL;
	hex = malloc(2 * n + 1);
	for (ssize_t i = 0; hex && i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return hex;
}

int kt_debug_build_id_path(const unsigned char *id, size_t n, char *path,
			   size_t len)
{
	size_t at;

	/* "/usr/lib/debug/.build-id/" 25, "xx/" 3, the rest 2 (n - 1),
	 * ".debug" 6, NUL */
	if (n < 2 || n > 64 || len < 33 + 2 * n)
		return -ENOENT;
	at = snprintf(path, len, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (size_t i = 1; i < n; i++)
		at += snprintf(path + at, len - at, "%02x", id[i]);
	snprintf(path + at, len - at, ".debug");
	return 0;
}

/* MiniDebugInfo (Fedora's): an xz-compressed ELF with the local function
 * symbols in the section .gnu_debugdata. */
#define MINIDEBUG_MAX (64u << 20)
static int add_minidebuginfo(kt_elf_sym_fn fn, void *arg, Elf *elf)
{
	lzma_stream z = LZMA_STREAM_INIT;
	unsigned char *out = NULL;
	size_t cap = 0, shstrndx;
	Elf_Scn *scn = NULL;
	Elf_Data *d = NULL;
	lzma_ret lr = LZMA_MEM_ERROR;
	int ret = -EINVAL;
	Elf *mini;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, ".gnu_debugdata") && sh.sh_type == SHT_PROGBITS) {
			d = elf_rawdata(scn, NULL);
			break;
		}
	}
	if (!d || !d->d_size)
		return -ENOENT;
	if (lzma_stream_decoder(&z, MINIDEBUG_MAX, 0) != LZMA_OK)
		return -ENOMEM;
	z.next_in = d->d_buf;
	z.avail_in = d->d_size;
	do {
		if (!z.avail_out) {
			unsigned char *nb;

			if (cap >= MINIDEBUG_MAX)
				break;
			nb = realloc(out, cap ? cap * 2 : 1 << 16);
			if (!nb)
				break;
			out = nb;
			z.next_out = out + cap;
			z.avail_out = cap ? cap : 1 << 16;
			cap = cap ? cap * 2 : 1 << 16;
		}
		lr = lzma_code(&z, LZMA_FINISH);
	} while (lr == LZMA_OK);
	lzma_end(&z);
	if (lr != LZMA_STREAM_END) {
		free(out);
		return -EINVAL;
	}
	mini = elf_memory((char *)out, cap - z.avail_out);
	if (mini) {
		ret = kt_elf_code_syms(mini, fn, arg);
		elf_end(mini);
	}
	free(out);
	return ret < 0 ? ret : 0;
}

int kt_symtab_add_debug(struct kt_symtab *t, Elf *elf, const char *binary)
{
	return kt_elf_debug_syms(elf, binary, add_elf_sym, t);
}

int kt_elf_debug_syms(Elf *elf, const char *binary, kt_elf_sym_fn fn,
		      void *arg)
{
	const unsigned char *id;
	char path[8192];
	ssize_t n = dwelf_elf_gnu_build_id(elf, (const void **)&id);
	const char *link;
	GElf_Word crc;
	int ret;

	if (n > 0 && !kt_debug_build_id_path(id, n, path, sizeof(path))) {
		ret = add_file(fn, arg, path);
		if (!ret || ret == -ENOMEM)
			return ret;
	}
	link = dwelf_elf_gnu_debuglink(elf, &crc);
	if (!kt_debuglink_path(link, crc, binary, path, sizeof(path))) {
		ret = add_file(fn, arg, path);
		if (!ret || ret == -ENOMEM)
			return ret;
	}
	return add_minidebuginfo(fn, arg, elf);
}

int kt_symtab_load_perf_map(struct kt_symtab *t, const char *path)
{
	char line[1024];
	struct stat st;
	FILE *f;
	int fd;

	/* Written by the traced program: perf's rule, the file must be
	 * ours or root's, and a regular file reached without a link. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
			O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		close(fd);
		return -EPERM;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -errno;
	}
	/* "START SIZE name", hex without 0x (JIT runtimes: python -X perf,
	 * node --perf-basic-prof, Java agents) */
	while (fgets_unlocked(line, sizeof(line), f)) {
		unsigned long long start, size;
		char *p = line, *end;

		start = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		size = strtoull(p, &end, 16);
		if (end == p || *end != ' ' || !size)
			continue;
		p = end + 1;
		p[strcspn(p, "\n")] = '\0';
		for (char *c = p; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		if (*p && kt_symtab_add(t, start, size, p))
			break;
	}
	fclose(f);
	return 0;
}
