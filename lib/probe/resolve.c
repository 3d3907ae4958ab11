// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Dynamic probes, resolving: the location and the arguments by name
 * (btf.c for the kernel, uelf.c/dwarf.c for user space), then the
 * kprobe_events / uprobe_events line. Reads files, writes nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/internal.h"
#include "tracefs/tfs.h"
#include "arch/arch.h"
#include "probe/btf.h"
#include "probe/dwarf.h"
#include "probe/uelf.h"
#include "probe/probe_priv.h"
#include "sym/symtab.h"

struct ktrace_resolver {
	struct ktrace_tfs *tfs;
	struct kt_btf *btf;	/* kernel symbols and BTF, on first use */
};

struct ktrace_resolver *ktrace_resolver_alloc(struct ktrace_tfs *tfs)
{
	struct ktrace_resolver *res = calloc(1, sizeof(*res));

	if (res)
		res->tfs = tfs;
	return res;
}

void ktrace_resolver_free(struct ktrace_resolver *res)
{
	if (!res)
		return;
	kt_btf_free(res->btf);
	free(res);
}

static struct kt_btf *res_kernel(struct ktrace_resolver *res)
{
	char *filt;

	if (res->btf)
		return res->btf;
	filt = kt_inst_path(kt_tfs_top(res->tfs), "available_filter_functions");
	res->btf = kt_btf_open(getenv("KTRACE_BTF"),
			       getenv("KTRACE_KALLSYMS"), NULL, filt, NULL);
	free(filt);
	return res->btf;
}

/* Move a resolver's error into err, its position shifted into the spec. */
static int arg_err(struct ktrace_probe *p, struct probe_arg *a, int ret,
		   struct ktrace_err *sub, struct ktrace_err *err)
{
	int pos = a->estart;

	if (sub->pos >= 0 && sub->pos <= (int)strlen(a->expr))
		pos += sub->pos;
	ret = kt_probe_err(err, p->spec, pos, -ret, "%s",
		   sub->msg ? sub->msg : strerror(-ret));
	ktrace_err_clear(sub);
	return ret;
}

/*
 * A raw fetch argument with "$argN" for the registers that pass the first
 * arguments on this architecture ("+4($arg2)" -> "+4(%si)" on x86-64,
 * "+4(%x1)" on arm64); $argN past them stays for the kernel to judge.
 * NULL: no memory.
 */
static char *args_to_regs(const char *expr)
{
	const struct kt_arch *arch = kt_arch_host();
	size_t cap = strlen(expr) * 2 + 16, len = 0;
	char *out = malloc(cap);
	const char *p = expr;

	if (!out)
		return NULL;
	while (*p) {
		char *end;
		long n;

		if (!strncmp(p, "$arg", 4) && isdigit((unsigned char)p[4])) {
			n = strtol(p + 4, &end, 10);
			if (arch && n >= 1 && n <= arch->nr_arg_regs &&
			    !isalnum((unsigned char)*end) && *end != '_') {
				len += snprintf(out + len, cap - len, "%s",
						arch->arg_regs[n - 1]);
				p = end;
				continue;
			}
		}
		if (len + 2 >= cap)
			break;
		out[len++] = *p++;
	}
	out[len] = '\0';
	return out;
}

/* Can this kernel's return probes read entry arguments ($argN)? Its
 * tracefs README says so ("kernel return probes support: ... $arg<N>"). */
static bool return_args_supported(struct ktrace_tfs *tfs)
{
	char *readme = tfs ? kt_inst_read(kt_tfs_top(tfs), "README", NULL) :
			     NULL;
	const char *l = readme ? strstr(readme, "return probes support:") : NULL;
	bool ok = false;

	if (l) {
		size_t n = strcspn(l, "\n");

		ok = memmem(l, n, "$arg", 4) != NULL;
	}
	free(readme);
	return ok;
}

/* The loaded modules' list: /proc/modules ($KTRACE_MODULES); the caller
 * frees it. NULL when it cannot be read. */
static char *modules_read(void)
{
	const char *path = getenv("KTRACE_MODULES");

	return kt_read_file(path && *path ? path : "/proc/modules", NULL);
}

/* Is kernel module mod loaded? */
static bool module_loaded(const char *mod)
{
	char *buf = modules_read();
	size_t n = strlen(mod);
	bool found = false;

	/* "binfmt_misc 24576 1 - Live 0xffffffffc0a00000" */
	for (char *l = buf; l && *l && !found; l = strchr(l, '\n')) {
		if (*l == '\n')
			l++;
		found = !strncmp(l, mod, n) && l[n] == ' ';
	}
	free(buf);
	return found;
}

/* The loaded module whose name is closest to mod's (a string the caller
 * frees), or NULL: none is close, or no memory. */
static char *module_close(const char *mod)
{
	char *buf = modules_read(), *best = NULL;
	struct kt_suggest sg;

	if (!buf || kt_suggest_init(&sg, mod, 1, false)) {
		free(buf);
		return NULL;
	}
	for (char *l = buf; *l; ) {
		size_t n = strcspn(l, " \n");

		kt_suggest_add(&sg, l, (int)n, l);
		l += strcspn(l, "\n");
		if (*l)
			l++;
	}
	kt_suggest_fini(&sg);
	if (sg.nbest)
		best = strndup(sg.best[0].name,
			       strcspn(sg.best[0].name, " \n"));
	free(buf);
	return best;
}

/*
 * "MOD:FUNC" parsed as BINARY:SYMBOL: when MOD is a loaded kernel module,
 * a kprobe on its function FUNC (kprobe syntax "MOD:FUNC", kept as p->func
 * for the BTF lookups). A program of that name is reached by a path
 * ("./MOD:SYMBOL"). 0 or -ENOMEM.
 */
static int module_probe(struct ktrace_probe *p)
{
	char *mod, *func;

	if (!p->maybe_module || p->dyn != PROBE_KU || !p->func)
		return 0;
	mod = strdup(p->binary);
	if (!mod)
		return -ENOMEM;
	for (char *c = mod; *c; c++)
		if (*c == '-')
			*c = '_';
	if (!module_loaded(mod)) {
		free(mod);
		return 0;
	}
	if (asprintf(&func, "%s:%s", mod, p->func) < 0) {
		free(mod);
		return -ENOMEM;
	}
	free(mod);
	free(p->func);
	free(p->binary);
	p->func = func;
	p->binary = NULL;
	p->user = false;
	p->maybe_module = false;
	return 0;
}

static int resolve_kernel(struct ktrace_probe *p, struct ktrace_resolver *res,
			  struct ktrace_err *err)
{
	struct ktrace_err sub = { .pos = -1 };
	struct kt_btf *kb;
	int ret;

	if (p->file) {
		struct utsname u;
		char path[512];

		uname(&u);
		snprintf(path, sizeof(path), "/usr/lib/debug/boot/vmlinux-%s",
			 u.release);
		if (access(path, R_OK) == 0)
			return kt_probe_err(err, p->spec, p->lstart, EOPNOTSUPP,
				    "kernel FILE:LINE probes are not supported yet (%s is there, but ktrace does not read it): use FUNC[+OFFS]",
				    path);
		return kt_probe_err(err, p->spec, p->lstart, ENOENT,
			    "kernel FILE:LINE probes need the kernel's DWARF debug info (%s), and none is installed: install linux-image-%s-dbg or use FUNC[+OFFS]",
			    path, u.release);
	}
	kb = res_kernel(res);
	if (!kb)
		return -ENOMEM;
	ret = kt_btf_func(kb, p->func, &sub);
	/* Not ftrace-able is fine for a kprobe (int3 is used instead), but
	 * worth saying. */
	if (ret == -EOPNOTSUPP && sub.msg) {
		free(p->warning);
		if (asprintf(&p->warning, "%s; the kprobe will use a breakpoint",
			     sub.msg) < 0)
			p->warning = NULL;
	}
	if (ret && ret != -EOPNOTSUPP) {
		ret = kt_probe_err(err, p->spec, p->lstart, -ret, "%s",
			   sub.msg ? sub.msg : strerror(-ret));
		ktrace_err_clear(&sub);
		return ret;
	}
	ktrace_err_clear(&sub);
	if (p->offs) {
		unsigned long long size = kt_btf_func_size(kb, p->func);

		if (size && p->offs >= size)
			return kt_probe_err(err, p->spec, p->lstart, ERANGE,
				    "offset +%lu is outside %s (%llu bytes)",
				    p->offs, p->func, size);
	}
	for (int i = 0; i < p->nargs; i++) {
		struct probe_arg *a = &p->args[i];

		if (a->raw) {
			/* $argN at a function's entry is this architecture's
			 * Nth argument register: probe sets stay portable,
			 * and kernels before 6.6 take them */
			if (!p->is_return && !p->offs && strstr(a->expr, "$arg")) {
				a->fetch = args_to_regs(a->expr);
				if (!a->fetch)
					return -ENOMEM;
			}
			continue;
		}
		/* BTF knows where arguments are at the entry only; past it
		 * their registers hold whatever the code put there since */
		if (p->offs && strcmp(a->expr, "$retval"))
			return kt_probe_err(err, p->spec, a->estart, EINVAL,
				    "'%s' by name at %s+%lu: BTF gives a function's arguments at its entry only, and at an offset their registers may hold anything; probe %s itself, or fetch what you need raw (%%di, +8(%%si)...)",
				    a->expr, p->func, p->offs, p->func);
		ret = kt_btf_arg(kb, p->func, a->expr, p->is_return,
				 &a->fetch, &a->rtype, &sub);
		if (ret)
			return arg_err(p, a, ret, &sub, err);
		if (p->is_return && strstr(a->fetch, "$arg") &&
		    !return_args_supported(res->tfs))
			return kt_probe_err(err, p->spec, a->estart, EOPNOTSUPP,
				    "'%s' is an entry argument, which this kernel cannot read at a return probe (its tracefs README lists no $arg<N> for return probes; Linux 6.12 has them, 6.1 does not): probe %s's entry for it, or read it there into a variable you can reach at the return",
				    a->expr, p->func);
	}
	if (p->offs) {
		if (asprintf(&p->location, "%s+%lu", p->func, p->offs) < 0)
			return -ENOMEM;
	} else {
		p->location = strdup(p->func);
	}
	return p->location ? 0 : -ENOMEM;
}

/*
 * As perf probe does: a probe on a function by name whose arguments are
 * named is placed after the function's prologue (DWARF line table), where
 * the arguments are where the debug info says. The user is told.
 * Raw fetchargs (registers at entry), offsets, lines and return probes
 * stay where they were asked for.
 */
static int after_prologue(struct ktrace_probe *p, struct kt_uelf *ue)
{
	struct ktrace_err sub = { .pos = -1 };
	unsigned long off;
	bool named = false;

	for (int i = 0; i < p->nargs; i++)
		named |= !p->args[i].raw;
	if (!named || p->file || p->offs || p->is_return)
		return 0;
	/* No line table, or not a function entry: the entry stays, and the
	 * argument resolver says what it cannot read there. */
	if (kt_dwarf_skip_prologue(ue, p->file_off, &off, &sub) ||
	    off == p->file_off) {
		ktrace_err_clear(&sub);
		return 0;
	}
	free(p->warning);
	if (asprintf(&p->warning,
		     "%s is probed after its prologue, at %s+0x%lx, where its arguments are set up",
		     p->func, p->func, off - p->file_off) < 0) {
		p->warning = NULL;
		return -ENOMEM;
	}
	p->file_off = off;
	return 0;
}

static int resolve_user(struct ktrace_probe *p, struct ktrace_err *err)
{
	struct ktrace_err sub = { .pos = -1 };
	struct kt_uelf *ue;
	int ret = 0;
	bool named = false;

	ue = kt_uelf_open(p->binary, &sub);
	if (!ue) {
		char *close = p->maybe_module ? module_close(p->binary) : NULL;

		ret = -errno;
		ret = kt_probe_err(err, p->spec, p->lstart, ret ? -ret : ENOENT,
			   "%s%s%s%s%s%s%s", sub.msg ? sub.msg : "cannot open binary",
			   p->maybe_module ? "; nor is a kernel module '" : "",
			   p->maybe_module ? p->binary : "",
			   p->maybe_module ? "' loaded" : "",
			   close ? " (did you mean the module " : "",
			   close ? close : "", close ? "?)" : "");
		free(close);
		ktrace_err_clear(&sub);
		return ret;
	}
	p->path = strdup(kt_uelf_path(ue));
	if (p->file)
		ret = kt_dwarf_line(ue, p->file, p->line, &p->file_off, &sub);
	else
		ret = kt_uelf_symbol(ue, p->func, p->offs, &p->file_off,
				     &sub);
	if (ret) {
		/* under the symbol, not its binary's path */
		ret = kt_probe_err(err, p->spec, p->file ? p->lstart :
				   p->fstart, -ret, "%s",
				   sub.msg ? sub.msg : strerror(-ret));
		ktrace_err_clear(&sub);
		goto out;
	}
	for (int i = 0; i < p->nargs; i++)
		named |= !p->args[i].raw;
	ret = after_prologue(p, ue);
	if (ret)
		goto out;
	for (int i = 0; i < p->nargs; i++) {
		struct probe_arg *a = &p->args[i];

		if (a->raw) {
			/* $argN at a function's entry (nothing named moved
			 * the probe past the prologue): the ABI's register,
			 * as for kernel probes; uprobes have no $argN */
			if (!p->is_return && !p->offs && !p->file && !named &&
			    strstr(a->expr, "$arg")) {
				a->fetch = args_to_regs(a->expr);
				if (!a->fetch) {
					ret = -ENOMEM;
					goto out;
				}
			}
			continue;
		}
		ret = kt_dwarf_arg(ue, p->file_off, a->expr, p->is_return,
				   &a->fetch, &a->rtype, &sub);
		if (ret) {
			ret = arg_err(p, a, ret, &sub, err);
			goto out;
		}
	}
	if (!p->path || asprintf(&p->location, "%s:0x%016lx", p->path,
				 p->file_off) < 0)
		ret = -ENOMEM;
out:
	kt_uelf_free(ue);
	return ret;
}

/*
 * An fprobe (f:FUNC[%return]) or a tracepoint probe (t:TRACEPOINT): the
 * kernel resolves their arguments by name from BTF itself (the names go
 * as they are); ktrace checks the function (ftrace-able: fprobes have no
 * breakpoint fallback) and raw $argN at an entry.
 */
static int resolve_fprobe(struct ktrace_probe *p, struct ktrace_resolver *res,
			  struct ktrace_err *err)
{
	struct ktrace_err sub = { .pos = -1 };
	struct kt_btf *kb;
	int ret;

	if (p->dyn == PROBE_TPROBE) {
		p->location = strdup(p->eevent);
		return p->location ? 0 : -ENOMEM;
	}
	kb = res_kernel(res);
	if (!kb)
		return -ENOMEM;
	ret = kt_btf_func(kb, p->func, &sub);
	if (ret) {
		ret = kt_probe_err(err, p->spec, p->fstart, -ret, "%s%s",
				   sub.msg ? sub.msg : strerror(-ret),
				   ret == -EOPNOTSUPP ?
				   " (an fprobe needs an ftrace-able function; a kprobe can take it)" :
				   "");
		ktrace_err_clear(&sub);
		return ret;
	}
	if (asprintf(&p->location, "%s%s", p->func,
		     p->is_return ? "%return" : "") < 0) {
		p->location = NULL;
		return -ENOMEM;
	}
	return 0;
}

char kt_probe_letter(const struct ktrace_probe *p)
{
	switch (p->dyn) {
	case PROBE_EVENT:
		return 'e';
	case PROBE_FPROBE:
		return 'f';
	case PROBE_TPROBE:
		return 't';
	default:
		return p->is_return ? 'r' : 'p';
	}
}

/* The fetcharg, type and "NAME=FETCH[:TYPE]" text of every argument. */
static int build_definition(struct ktrace_probe *p)
{
	size_t cap = 256, len;
	char *fmt = malloc(cap), *def;
	int n = 0, hdr;

	if (!fmt)
		return -ENOMEM;
	fmt[0] = '\0';
	len = 0;
	hdr = snprintf(NULL, 0, "%c:%s/%s %s ", kt_probe_letter(p),
		       p->group, p->event, p->location);
	for (int i = 0; i < p->nargs; i++) {
		struct probe_arg *a = &p->args[i];
		/* raw, or by name for the kernel to resolve (f:, t:) */
		const char *fetch = a->fetch ? a->fetch : a->expr;
		const char *type = a->type ? a->type : a->rtype;
		size_t need = strlen(a->name) + strlen(fetch) +
			      (type ? strlen(type) : 0) + 4;

		if (len + need >= cap) {
			char *nf;

			cap = (len + need) * 2;
			nf = realloc(fmt, cap);
			if (!nf) {
				free(fmt);
				return -ENOMEM;
			}
			fmt = nf;
		}
		a->dstart = hdr + len + (i ? 1 : 0);
		n = sprintf(fmt + len, "%s%s=%s%s%s", i ? " " : "", a->name,
			    fetch, type ? ":" : "", type ? type : "");
		len += n;
		a->dend = hdr + len;
	}
	if (asprintf(&def, "%c:%s/%s %s%s%s", kt_probe_letter(p),
		     p->group, p->event, p->location, len ? " " : "",
		     fmt) < 0) {
		free(fmt);
		return -ENOMEM;
	}
	p->dloc = hdr - (int)strlen(p->location) - 1;
	free(p->fmt);
	free(p->def);
	p->fmt = fmt;
	p->def = def;
	return 0;
}

static bool is_text_type(const char *t)
{
	return !strcmp(t, "string") || !strcmp(t, "ustring");
}

/*
 * A name that resolved to text (a char pointer or array, read as a
 * string) given a number type: its fetch reads the text, so the number
 * would be its first bytes, never the pointer. Refused with the way out.
 */
static int check_text_types(const struct ktrace_probe *p,
			    struct ktrace_err *err)
{
	for (int i = 0; i < p->nargs; i++) {
		const struct probe_arg *a = &p->args[i];

		if (a->raw || !a->type || !a->rtype ||
		    !is_text_type(a->rtype) || is_text_type(a->type))
			continue;
		return kt_probe_err(err, p->spec,
				    a->uend - (int)strlen(a->type), EINVAL,
				    "'%s' is text, read as a %s: ':%s' would show its first bytes, not the pointer; drop ':%s', or fetch the pointer raw (a register or $argN)",
				    a->expr, a->rtype, a->type, a->type);
	}
	return 0;
}

int ktrace_probe_resolve(struct ktrace_probe *p, struct ktrace_resolver *res,
			 struct ktrace_err *err)
{
	int ret;

	ret = module_probe(p);
	if (ret)
		return ret;

	if (!p->user && !res->tfs)
		return kt_probe_err(err, p->spec, p->lstart, EINVAL,
				    "a kernel probe needs a resolver with a tracefs tree");
	if (p->dyn == PROBE_EVENT)
		ret = kt_eprobe_resolve(p, res->tfs, res_kernel(res), err);
	else if (p->dyn != PROBE_KU)
		ret = resolve_fprobe(p, res, err);
	else if (p->user)
		ret = resolve_user(p, err);
	else
		ret = resolve_kernel(p, res, err);
	if (!ret)
		ret = check_text_types(p, err);
	if (ret)
		return ret;
	return build_definition(p);
}

const char *ktrace_probe_definition(const struct ktrace_probe *p)
{
	return p->def;
}

const char *ktrace_probe_warning(const struct ktrace_probe *p)
{
	return p->warning;
}

const char *ktrace_probe_group(const struct ktrace_probe *p)
{
	return p->group;
}

const char *ktrace_probe_event(const struct ktrace_probe *p)
{
	return p->event;
}

enum ktrace_kind ktrace_probe_kind(const struct ktrace_probe *p)
{
	if (p->dyn == PROBE_EVENT)
		return KTRACE_KIND_EPROBE;
	if (p->dyn != PROBE_KU)
		return KTRACE_KIND_FPROBE;	/* f: and t: (trace_fprobe.c) */
	if (p->user)
		return p->is_return ? KTRACE_KIND_URETPROBE :
				      KTRACE_KIND_UPROBE;
	return p->is_return ? KTRACE_KIND_KRETPROBE : KTRACE_KIND_KPROBE;
}
