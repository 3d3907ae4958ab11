// SPDX-License-Identifier: LGPL-2.1-only
/*
 * User-space probe resolution, ELF part: finding the binary (path, $PATH,
 * ld.so.cache, library directories) and symbol -> uprobe file offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>

#include "base/internal.h"
#include "arch/arch.h"
#include "sym/symtab.h"
#include "probe/uelf_priv.h"

/* -------------------------------------------------------------- ld.so.cache */

#define LDCACHE_MAGIC "glibc-ld.so.cache1.1"

/* Layout of the "new" ld.so.cache format (glibc >= 2.32 writes only it). */
struct ldcache_head {
	char magic[20];
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t pad[3];
	uint32_t extension_offset;
	uint32_t unused[3];
};

struct ldcache_entry {
	int32_t flags;
	uint32_t key;		/* string offsets from the start of the file */
	uint32_t value;
	uint32_t osversion;
	uint64_t hwcap;
};

/*
 * Class and machine of an ELF file's header (e_machine in host byte
 * order: the files compared are this machine's). 0 or -1.
 */
static int elf_ident(const char *path, unsigned char *class, uint16_t *machine)
{
	unsigned char id[EI_NIDENT + 4];
	ssize_t n;
	int fd;

	fd = kt_open_regular(path);
	if (fd < 0)
		return -1;
	n = pread(fd, id, sizeof(id), 0);
	close(fd);
	if (n != (ssize_t)sizeof(id) || memcmp(id, ELFMAG, SELFMAG))
		return -1;
	*class = id[EI_CLASS];
	/* e_machine follows e_ident and e_type */
	memcpy(machine, id + EI_NIDENT + 2, sizeof(*machine));
	return 0;
}

/* The class and machine ktrace itself was built for, read once. */
static void self_ident(unsigned char *class, uint16_t *machine)
{
	static unsigned char self_class;
	static uint16_t self_machine;

	if (!self_class &&
	    elf_ident("/proc/self/exe", &self_class, &self_machine)) {
		self_class = sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
		self_machine = EM_NONE;	/* no /proc: any machine */
	}
	*class = self_class;
	*machine = self_machine;
}

/* Does the ELF file at path have this process's class and machine? */
static bool elf_matches_self(const char *path)
{
	unsigned char class, self_class;
	uint16_t machine, self_machine;

	self_ident(&self_class, &self_machine);
	if (elf_ident(path, &class, &machine) || class != self_class)
		return false;
	return self_machine == EM_NONE || machine == self_machine;
}

/* Does the cache key (a soname) answer to name? */
static bool ldcache_key_matches(const char *key, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(key, name))
		return true;
	if (strncmp(key, name, n))
		return false;
	/* "libc" -> "libc.so.6", "libc.so" -> "libc.so.6" */
	if (!strncmp(key + n, ".so", 3))
		return true;
	if (n >= 3 && !strcmp(name + n - 3, ".so") && key[n] == '.')
		return true;
	return false;
}

int kt_uelf_ldcache_lookup(const char *cache, const char *name,
			   bool check_elf, char **path)
{
	const struct ldcache_head *head;
	const struct ldcache_entry *ents;
	struct stat st;
	const char *map;
	int ret = -ENOENT;
	uint32_t i;
	int fd;

	if (!cache)
		cache = "/etc/ld.so.cache";
	fd = open(cache, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if ((size_t)st.st_size < sizeof(*head)) {
		close(fd);
		return -EINVAL;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ret = -errno;
	close(fd);
	if (map == MAP_FAILED)
		return ret;

	ret = -EINVAL;
	head = (const struct ldcache_head *)map;
	if (memcmp(head->magic, LDCACHE_MAGIC, strlen(LDCACHE_MAGIC)))
		goto out;
	if (head->nlibs > ((size_t)st.st_size - sizeof(*head)) / sizeof(*ents))
		goto out;
	ents = (const struct ldcache_entry *)(map + sizeof(*head));
	ret = -ENOENT;
	for (i = 0; i < head->nlibs; i++) {
		const char *key, *val;

		if (ents[i].key >= st.st_size || ents[i].value >= st.st_size ||
		    !memchr(map + ents[i].key, '\0', st.st_size - ents[i].key) ||
		    !memchr(map + ents[i].value, '\0',
			    st.st_size - ents[i].value)) {
			ret = -EINVAL;
			goto out;
		}
		key = map + ents[i].key;
		val = map + ents[i].value;
		if (!ldcache_key_matches(key, name))
			continue;
		if (check_elf && !elf_matches_self(val))
			continue;
		*path = strdup(val);
		ret = *path ? 0 : -ENOMEM;
		break;
	}
out:
	munmap((void *)map, st.st_size);
	return ret;
}

/* ------------------------------------------------------------ binary lookup */

static const char *const lib_dirs[] = {
	"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
};

/*
 * Directory d of the search order: Debian's multiarch directories of
 * this machine (lib/arch names them) first, then lib_dirs. NULL past the
 * end.
 */
static const char *lib_dir(int d, char *buf, size_t size)
{
	const struct kt_arch *a;
	unsigned char class;
	uint16_t machine;

	self_ident(&class, &machine);
	a = kt_arch_by_machine(machine);
	if (a && a->multiarch && d < 2) {
		snprintf(buf, size, "%s/%s", d ? "/usr/lib" : "/lib",
			 a->multiarch);
		return buf;
	}
	if (a && a->multiarch)
		d -= 2;
	if (d >= (int)(sizeof(lib_dirs) / sizeof(lib_dirs[0])))
		return NULL;
	return lib_dirs[d];
}

static int lookup_lib_dirs(const char *name, char **path)
{
	static const char *const pats[] = { "%s/%s", "%s/%s.so", "%s/%s.so.*" };
	char buf[PATH_MAX], dbuf[64];
	const char *dir;
	int d, p;

	for (d = 0; (dir = lib_dir(d, dbuf, sizeof(dbuf))); d++) {
		for (p = 0; p < 3; p++) {
			glob_t g;
			size_t i;

			if (snprintf(buf, sizeof(buf), pats[p], dir,
				     name) >= (int)sizeof(buf))
				continue;
			if (glob(buf, 0, NULL, &g))
				continue;
			for (i = 0; i < g.gl_pathc; i++) {
				if (!elf_matches_self(g.gl_pathv[i]))
					continue;
				*path = strdup(g.gl_pathv[i]);
				globfree(&g);
				return *path ? 0 : -ENOMEM;
			}
			globfree(&g);
		}
	}
	return -ENOENT;
}

static int lookup_path_env(const char *name, char **path)
{
	const char *env = getenv("PATH");
	char buf[PATH_MAX];
	const char *p, *end;

	if (!env || !*env)
		env = "/usr/local/bin:/usr/bin:/bin";
	for (p = env; ; p = end + 1) {
		size_t len;

		end = strchrnul(p, ':');
		len = end - p;
		if (len == 0) {
			/* empty entry: current directory */
			p = ".";
			len = 1;
		}
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, name) <
		    (int)sizeof(buf) && access(buf, X_OK) == 0) {
			struct stat st;

			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
				*path = strdup(buf);
				return *path ? 0 : -ENOMEM;
			}
		}
		if (!*end)
			break;
	}
	return -ENOENT;
}

static bool looks_like_lib(const char *name)
{
	return !strncmp(name, "lib", 3) || strstr(name, ".so");
}

int kt_uelf_find_binary(const char *name, char **path,
			struct ktrace_err *err)
{
	char *found = NULL, *real;
	int ret;

	if (!name || !*name)
		return kt_err_set(err, EINVAL, "no binary given");
	if (strchr(name, '/')) {
		found = strdup(name);
		if (!found)
			return kt_err_set(err, ENOMEM, "out of memory");
	} else if (looks_like_lib(name)) {
		ret = kt_uelf_ldcache_lookup(NULL, name, true, &found);
		if (ret)
			ret = lookup_lib_dirs(name, &found);
		if (ret)
			ret = lookup_path_env(name, &found);
		if (ret)
			return kt_err_set(err, ENOENT,
				"library '%s' not found in /etc/ld.so.cache, the standard library directories or $PATH",
				name);
	} else {
		ret = lookup_path_env(name, &found);
		if (ret)
			ret = kt_uelf_ldcache_lookup(NULL, name, true, &found);
		if (ret)
			return kt_err_set(err, ENOENT,
				"'%s' not found in $PATH (give a path to use another file)",
				name);
	}
	real = realpath(found, NULL);
	if (!real) {
		ret = errno;
		kt_err_set(err, ret, "cannot resolve '%s': %s", found,
			   strerror(ret));
		free(found);
		return -ret;
	}
	free(found);
	*path = real;
	return 0;
}

/* ------------------------------------------------------------------ handle */

struct kt_uelf *kt_uelf_open(const char *binary, struct ktrace_err *err)
{
	struct kt_uelf *ue;
	int ret;

	ue = calloc(1, sizeof(*ue));
	if (!ue) {
		kt_err_set(err, ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	ue->fd = -1;
	ue->dw_fd = -1;
	ret = kt_uelf_find_binary(binary, &ue->path, err);
	if (!ret && !ue->path) {
		kt_err_set(err, ENOENT, "no binary found");
		ret = -ENOENT;
	}
	if (ret)
		goto fail;
	elf_version(EV_CURRENT);
	ue->fd = kt_open_elf(ue->path, KT_ELF_MAX);
	if (ue->fd < 0) {
		ret = -errno;
		if (ret == -KT_ENOTREG)
			kt_err_set(err, ret, "'%s' is not a regular file",
				   ue->path);
		else if (ret == -ENOEXEC)
			kt_err_set(err, ret, "'%s' is not an ELF file",
				   ue->path);
		else if (ret == -EFBIG)
			kt_err_set(err, ret,
				   "'%s' is larger than its ELF headers account for, or than 4 GiB",
				   ue->path);
		else
			kt_err_set(err, ret, "cannot open '%s': %s",
				   ue->path, strerror(-ret));
		goto fail;
	}
	ue->elf = elf_begin(ue->fd, ELF_C_READ_MMAP, NULL);
	if (!ue->elf || elf_kind(ue->elf) != ELF_K_ELF ||
	    !gelf_getehdr(ue->elf, &ue->ehdr)) {
		ret = kt_err_set(err, ENOEXEC, "'%s' is not an ELF file",
				 ue->path);
		goto fail;
	}
	if (ue->ehdr.e_type != ET_EXEC && ue->ehdr.e_type != ET_DYN) {
		ret = kt_err_set(err, ENOEXEC,
			"'%s' is neither an executable nor a shared library",
			ue->path);
		goto fail;
	}
	ret = kt_segs_read(&ue->segs, ue->elf);
	if (ret == -ENOMEM) {
		kt_err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	if (ret) {
		ret = kt_err_set(err, ENOEXEC,
				 "'%s': cannot read program headers: %s",
				 ue->path, elf_errmsg(-1));
		goto fail;
	}
	if (!ue->segs.n) {
		ret = kt_err_set(err, ENOEXEC,
				 "'%s' has no loadable segment", ue->path);
		goto fail;
	}
	return ue;
fail:
	kt_uelf_free(ue);
	errno = -ret;
	return NULL;
}

static void free_syms(struct kt_uelf *ue)
{
	size_t i;

	for (i = 0; i < ue->nsyms; i++) {
		free(ue->syms[i].name);
		free(ue->syms[i].version);
		free(ue->syms[i].demangled);
	}
	free(ue->syms);
	ue->syms = NULL;
	ue->nsyms = 0;
}

void kt_uelf_free(struct kt_uelf *ue)
{
	if (!ue)
		return;
	kt_dwarf_free(ue);
	free_syms(ue);
	if (ue->elf)
		elf_end(ue->elf);
	if (ue->fd >= 0)
		close(ue->fd);
	kt_segs_free(&ue->segs);
	free(ue->path);
	free(ue);
}

const char *kt_uelf_path(const struct kt_uelf *ue)
{
	return ue->path;
}

/* ----------------------------------------------------------------- symbols */

/* Version names of SHT_GNU_verdef, indexed by vd_ndx. */
struct sym_load {
	struct kt_uelf *ue;
	size_t cap;
};

static int add_sym(const struct kt_elf_sym *es, void *arg)
{
	struct sym_load *ld = arg;
	struct kt_uelf *ue = ld->ue;
	const char *raw = es->name, *ver = es->version, *at;
	bool hidden = es->hidden;
	struct usym *u;

	if (ue->nsyms == ld->cap) {
		size_t nc = ld->cap ? ld->cap * 2 : 256;
		struct usym *n = realloc(ue->syms, nc * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ue->syms = n;
		ld->cap = nc;
	}
	u = &ue->syms[ue->nsyms];
	memset(u, 0, sizeof(*u));
	at = strchr(raw, '@');
	if (at && !ver) {
		/* .symtab spelling: name@VER or name@@VER */
		hidden = at[1] != '@';
		ver = at + (hidden ? 1 : 2);
	}
	u->name = at ? strndup(raw, at - raw) : strdup(raw);
	u->version = ver && *ver ? strdup(ver) : NULL;
	if (!u->name || (ver && *ver && !u->version)) {
		free(u->name);
		free(u->version);
		return -ENOMEM;
	}
	u->hidden = hidden;
	u->addr = es->sym.st_value;
	u->size = es->sym.st_size;
	u->demangled = kt_demangle(u->name);
	ue->nsyms++;
	return 0;
}

static int load_syms(struct kt_uelf *ue)
{
	struct sym_load ld = { .ue = ue };
	int ret;

	if (ue->syms_loaded)
		return 0;
	ret = kt_elf_code_syms(ue->elf, add_sym, &ld);
	/* stripped: the names its debug file (or MiniDebugInfo) keeps */
	if (ret == 0) {
		ret = kt_elf_debug_syms(ue->elf, ue->path, add_sym, &ld);
		if (ret == -ENOENT)
			ret = 0;
		else if (!ret)
			ret = 1;
	}
	if (ret < 0) {
		free_syms(ue);
		return ret;
	}
	ue->has_symtab = ret == 1;
	ue->syms_loaded = true;
	return 0;
}

/* Length of a demangled name without its parameter list and qualifiers. */
static size_t demangled_base_len(const char *d)
{
	int depth = 0;
	const char *p;

	for (p = d; *p; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (*p == '(' && depth == 0 && p != d &&
			 (p - d < 8 || strncmp(p - 8, "operator", 8)))
			return p - d;
	}
	return p - d;
}

/* Compare ignoring blanks, so "f(int, char)" == "f(int,char)". */
static bool same_ignoring_blanks(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ')
			a++;
		while (*b == ' ')
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/*
 * Where the function's own name starts in a demangled name: after the
 * return type the demangler prints for template functions ("long
 * twice<long>(long)"), i.e. after the last blank outside <> and () before
 * the parameter list ("operator new" keeps its blank).
 */
static size_t demangled_name_start(const char *d)
{
	size_t end = demangled_base_len(d), start = 0;
	int depth = 0;

	for (size_t i = 0; i < end; i++) {
		if (d[i] == '<' || d[i] == '(')
			depth++;
		else if ((d[i] == '>' || d[i] == ')') && depth > 0)
			depth--;
		else if (d[i] == ' ' && !depth &&
			 (i < 8 || strncmp(d + i - 8, "operator", 8)))
			start = i + 1;
	}
	return start;
}

/*
 * Does u's demangled name match want: "ns::C::f" (any overload),
 * "ns::C::f(int)" (that one), "twice<long>" (a template instance), or,
 * when loose, "twice" (every instance of a template)?
 */
static bool cxx_matches(const struct usym *u, const char *want, bool loose)
{
	const char *d = u->demangled;
	size_t start, end, n = strlen(want);

	if (!d)
		return false;
	start = demangled_name_start(d);
	end = demangled_base_len(d);
	if (strchr(want, '('))
		return same_ignoring_blanks(d + start, want);
	if (loose) {
		const char *lt = memchr(d + start, '<', end - start);

		if (lt)
			end = lt - d;
	}
	return n == end - start && !strncmp(d + start, want, n);
}

/* A name as the user can type it back (no template return type). */
static const char *usym_display(const struct usym *u)
{
	return u->demangled ? u->demangled + demangled_name_start(u->demangled) :
			      u->name;
}

/* Up to 5 names close to want, as ", "-separated text (caller frees);
 * NULL when none (or no memory). Names are compared without their
 * parameter lists, and a name that holds want qualifies too. */
static char *close_matches(struct kt_uelf *ue, const char *want)
{
	struct kt_suggest sg;
	size_t len = 1;
	char *out;

	if (kt_suggest_init(&sg, want, 5, true))
		return NULL;
	for (size_t i = 0; i < ue->nsyms; i++) {
		const char *name = usym_display(&ue->syms[i]);

		kt_suggest_add(&sg, name, demangled_base_len(name), name);
	}
	kt_suggest_fini(&sg);
	if (!sg.nbest)
		return NULL;
	for (int k = 0; k < sg.nbest; k++)
		len += strlen(sg.best[k].name) + 2;
	out = malloc(len);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (int k = 0; k < sg.nbest; k++) {
		if (k)
			strcat(out, ", ");
		strcat(out, sg.best[k].name);
	}
	return out;
}

/* Candidate list for an ambiguity message (caller frees). */
static char *list_candidates(struct kt_uelf *ue, const size_t *idx, size_t n)
{
	char *out = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (i = 0; i < n && i < 8; i++) {
		const struct usym *u = &ue->syms[idx[i]];

		fprintf(f, "%s%s%s%s at 0x%lx", i ? ", " : "", usym_display(u),
			u->version ? (u->hidden ? "@" : "@@") : "",
			u->version ? u->version : "", u->addr);
	}
	if (n > 8)
		fprintf(f, ", ... (%zu in all)", n);
	fclose(f);
	return out;
}

/*
 * Fill idx with the indexes into ue->syms of the functions named base,
 * of version ver when set (want_default: "@@", the default one). Pass 0:
 * exact symbol names. Pass 1: demangled C++ names. Pass 2: a template's
 * name without its arguments (all instances). Returns how many.
 */
static size_t match_syms(const struct kt_uelf *ue, const char *base,
			 const char *ver, bool want_default, size_t *idx)
{
	bool cxx = strstr(base, "::") || strchr(base, '(');
	size_t nidx = 0, i, pass;

	for (pass = 0; pass < 3 && !nidx; pass++) {
		if (pass == 0 && cxx && strncmp(base, "_Z", 2))
			continue;
		if (pass == 2 && strpbrk(base, "<("))
			break;
		for (i = 0; i < ue->nsyms; i++) {
			const struct usym *u = &ue->syms[i];

			if (pass == 0 ? strcmp(u->name, base) :
					!cxx_matches(u, base, pass == 2))
				continue;
			if (ver && (!u->version || strcmp(u->version, ver) ||
				    (want_default && u->hidden)))
				continue;
			idx[nidx++] = i;
		}
	}
	return nidx;
}

/* No function base (of version ver): the error, with close names. */
static int no_such_sym(struct kt_uelf *ue, const char *base, const char *ver,
		       struct ktrace_err *err)
{
	char *near = close_matches(ue, base);
	const char *hint = ue->has_symtab ? "" :
		" (no .symtab: only exported functions are known)";
	char path[PATH_MAX], why[PATH_MAX + 128];
	const char *link, *r;
	GElf_Word crc;
	int ret;

	/* stripped, and its debug file refused: say which and why */
	link = ue->has_symtab ? NULL : dwelf_elf_gnu_debuglink(ue->elf, &crc);
	r = link ? kt_debuglink_refusal(kt_debuglink_path(link, crc, ue->path,
							  path, sizeof(path))) :
		   NULL;
	if (r) {
		snprintf(why, sizeof(why),
			 " (no .symtab; its debug file '%s' is %s)", path, r);
		hint = why;
	}

	if (ver)
		ret = kt_err_set(err, ENOENT,
			"no function '%s' with version '%s' in '%s'%s%s%s",
			base, ver, ue->path, hint,
			near ? "; did you mean: " : "", near ? near : "");
	else
		ret = kt_err_set(err, ENOENT,
			"no function '%s' in '%s'%s%s%s", base, ue->path,
			hint, near ? "; did you mean: " : "",
			near ? near : "");
	free(near);
	return ret;
}

/*
 * One of the nidx matches in idx per address (.symtab and .dynsym name
 * most functions twice): the one with the bigger size, else the versioned
 * spelling, for messages. Without a version asked for (!versioned), the
 * default versions only, when there are some. Returns how many are left.
 */
static size_t unique_syms(const struct kt_uelf *ue, size_t *idx, size_t nidx,
			  bool versioned)
{
	size_t i, j;

	for (i = 0, j = 0; i < nidx; i++) {
		size_t k;
		bool dup = false;

		for (k = 0; k < j; k++) {
			if (ue->syms[idx[k]].addr == ue->syms[idx[i]].addr) {
				dup = true;
				if (ue->syms[idx[i]].size > ue->syms[idx[k]].size)
					idx[k] = idx[i];
				/* prefer the versioned spelling for messages */
				else if (!ue->syms[idx[k]].version)
					idx[k] = idx[i];
			}
		}
		if (!dup)
			idx[j++] = idx[i];
	}
	nidx = j;
	if (nidx > 1 && !versioned) {
		/* a plain name means the default version */
		for (i = 0, j = 0; i < nidx; i++)
			if (!ue->syms[idx[i]].hidden)
				idx[j++] = idx[i];
		if (j)
			nidx = j;
	}
	return nidx;
}

int kt_uelf_symbol(struct kt_uelf *ue, const char *sym, unsigned long add,
		   unsigned long *file_off, struct ktrace_err *err)
{
	char *base, *ver = NULL, *at;
	bool want_default = false;
	size_t *idx = NULL, nidx;
	const struct usym *pick;
	unsigned long size;
	uint64_t off64;
	int ret;

	ret = load_syms(ue);
	if (ret)
		return kt_err_set(err, -ret, "'%s': cannot read symbols",
				  ue->path);
	base = strdup(sym);
	idx = calloc(ue->nsyms ? ue->nsyms : 1, sizeof(*idx));
	if (!base || !idx) {
		ret = kt_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	at = strchr(base, '@');
	if (at) {
		*at = '\0';
		want_default = at[1] == '@';
		ver = at + (want_default ? 2 : 1);
	}
	nidx = match_syms(ue, base, ver, want_default, idx);
	if (!nidx) {
		ret = no_such_sym(ue, base, ver, err);
		goto out;
	}
	nidx = unique_syms(ue, idx, nidx, ver != NULL);
	if (nidx > 1) {
		char *list = list_candidates(ue, idx, nidx);

		ret = kt_err_set(err, EINVAL,
			"'%s' is ambiguous in '%s': %s", sym, ue->path,
			list ? list : "several addresses");
		free(list);
		goto out;
	}
	pick = &ue->syms[idx[0]];
	size = pick->size;
	if (add && !size) {
		ret = kt_err_set(err, EINVAL,
			"'%s' has no size in the symbol table: cannot check offset +%lu",
			sym, add);
		goto out;
	}
	if (add && add >= size) {
		ret = kt_err_set(err, ERANGE,
			"offset +%lu (0x%lx) is outside '%s', which is %lu bytes long",
			add, add, sym, size);
		goto out;
	}
	if (kt_segs_vaddr_to_off(&ue->segs, pick->addr + add, &off64)) {
		ret = kt_err_set(err, ENOEXEC,
			"address 0x%lx of '%s' is not in a loadable segment of '%s'",
			pick->addr + add, sym, ue->path);
		goto out;
	}
	*file_off = off64;
	ret = 0;
out:
	free(idx);
	free(base);
	return ret;
}
