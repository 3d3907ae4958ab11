// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of dynamic probes (no root): the spec parser, resolution to the
 * exact kprobe_events/uprobe_events line, errors with their caret position,
 * and `ktrace probe add --dry-run|list|del` on the fake tracefs, which a
 * dry run or a failure must leave byte-identical.
 *
 * Kernel specs resolve against tests/fixtures/probe/kallsyms (KTRACE_KALLSYMS)
 * and the host's BTF (/sys/kernel/btf/vmlinux, or $KTRACE_BTF); the tests
 * needing BTF are skipped without it. User specs resolve against
 * tests/targets/probed.c, compiled here into a temp dir (with and without
 * debug info), and the host's libc and bash.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "faketfs.h"
#include "srcdir.h"
#include "../targets/probed.h"

static char bindir[256];
static char probed[PATH_MAX];		/* with DWARF */
static char probed_nodbg[PATH_MAX];	/* --strip-debug */
static char *probed_real;		/* realpath(probed) */

/* ---------------------------------------------------------------- setup */

static bool have_btf(void)
{
	const char *b = getenv("KTRACE_BTF");

	return access(b && *b ? b : "/sys/kernel/btf/vmlinux", R_OK) == 0;
}

#define NEED_BTF() do { if (!have_btf()) { \
	fprintf(stderr, "no kernel BTF: skipped\n"); skip(); } } while (0)

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -1;
	ret = system(cmd);
	free(cmd);
	return ret;
}

static int group_setup(void **state)
{
	char tmpl[] = "/tmp/ktrace-probe-XXXXXX", *fx;

	(void)state;
	find_srcdir();
	if (!mkdtemp(tmpl))
		return -1;
	snprintf(bindir, sizeof(bindir), "%s", tmpl);
	snprintf(probed, sizeof(probed), "%s/probed", bindir);
	snprintf(probed_nodbg, sizeof(probed_nodbg), "%s/probed-nodbg", bindir);
	/* The flags of the Makefile's targets rule. */
	if (sh("cc -O1 -g -fno-inline -o '%s' '%s/tests/targets/probed.c' && "
	       "cp '%s' '%s' && strip --strip-debug '%s'", probed, srcdir,
	       probed, probed_nodbg, probed_nodbg)) {
		fprintf(stderr, "cannot build %s/tests/targets/probed.c\n",
			srcdir);
		return -1;
	}
	probed_real = realpath(probed, NULL);
	if (asprintf(&fx, "%s/tests/fixtures/probe/kallsyms", srcdir) < 0)
		return -1;
	setenv("KTRACE_KALLSYMS", fx, 1);
	free(fx);
	/* the loaded modules: binfmt_misc (in the kallsyms fixture), loop */
	if (asprintf(&fx, "%s/tests/fixtures/probe/modules", srcdir) < 0)
		return -1;
	setenv("KTRACE_MODULES", fx, 1);
	free(fx);
	if (asprintf(&fx, "%s/tests/fixtures", srcdir) < 0)
		return -1;
	setenv("KTRACE_FIXTURES", fx, 1);
	free(fx);
	return probed_real ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	sh("rm -rf '%s'", bindir);
	free(probed_real);
	unsetenv("KTRACE_KALLSYMS");
	unsetenv("KTRACE_MODULES");
	return 0;
}

static int setup(void **state)
{
	char *root = fake_tfs_make(), path[PATH_MAX];
	FILE *f;

	if (!root)
		return -1;
	/* Kernel specs need kprobe_events in the tree (the fixture has it;
	 * make sure). */
	snprintf(path, sizeof(path), "%s/tracefs/kprobe_events", root);
	if (access(path, F_OK)) {
		f = fopen(path, "w");
		if (!f)
			return -1;
		fclose(f);
	}
	*state = root;
	return 0;
}

static int teardown(void **state)
{
	fake_tfs_remove(*state);
	return 0;
}

/* -------------------------------------------------------------- helpers */

/*
 * Parse and resolve spec (binary: -x, group: -g) against the fake tree.
 * Returns the definition (malloc'ed) or NULL with err filled and *perr the
 * -errno. *kind receives the probe's kind when not NULL.
 */
static char *resolve(const char *spec, const char *binary, const char *group,
		     struct ktrace_err *err, int *ret, enum ktrace_kind *kind)
{
	struct ktrace_probe_opts opts = { .binary = binary, .group = group };
	struct ktrace_tfs *tfs = ktrace_tfs_open(NULL);
	struct ktrace_probe *p;
	char *def = NULL;

	assert_non_null(tfs);
	err->pos = -1;
	errno = 0;
	p = ktrace_probe_parse(spec, &opts, err);
	if (!p) {
		*ret = -errno;
	} else {
		struct ktrace_resolver *res = ktrace_resolver_alloc(tfs);

		assert_non_null(res);
		*ret = ktrace_probe_resolve(p, res, err);
		ktrace_resolver_free(res);
		if (!*ret) {
			def = strdup(ktrace_probe_definition(p));
			if (kind)
				*kind = ktrace_probe_kind(p);
		}
	}
	ktrace_probe_free(p);
	ktrace_tfs_free(tfs);
	return def;
}

static void expect_def(const char *spec, const char *binary,
		       const char *want, enum ktrace_kind want_kind)
{
	struct ktrace_err err = { .pos = -1 };
	enum ktrace_kind kind = KTRACE_KIND_OTHER;
	char *def;
	int ret;

	def = resolve(spec, binary, NULL, &err, &ret, &kind);
	if (!def)
		fail_msg("'%s': %d %s", spec, ret, err.msg ? err.msg : "");
	if (strcmp(def, want))
		fail_msg("'%s':\n got  %s\n want %s", spec, def, want);
	assert_int_equal(kind, want_kind);
	free(def);
	ktrace_err_clear(&err);
}

/* The spec must fail with -want_errno (0: any), the caret at want_pos in
 * the spec (-2: don't care), and a message containing every needle. */
static void expect_err(const char *spec, const char *binary, int want_errno,
		       int want_pos, const char *needle1, const char *needle2)
{
	struct ktrace_err err = { .pos = -1 };
	char *def;
	int ret;

	def = resolve(spec, binary, NULL, &err, &ret, NULL);
	if (def)
		fail_msg("'%s' resolved to '%s', want an error", spec, def);
	if (want_errno && ret != -want_errno)
		fail_msg("'%s': error %d (%s), want %d", spec, ret,
			 err.msg ? err.msg : "", -want_errno);
	assert_non_null(err.msg);
	if (needle1 && !strstr(err.msg, needle1))
		fail_msg("'%s': '%s' not in '%s'", spec, needle1, err.msg);
	if (needle2 && !strstr(err.msg, needle2))
		fail_msg("'%s': '%s' not in '%s'", spec, needle2, err.msg);
	if (want_pos != -2) {
		if (err.pos != want_pos)
			fail_msg("'%s' (%s): caret at %d, want %d", spec,
				 err.msg, err.pos, want_pos);
		if (want_pos >= 0) {
			assert_non_null(err.input);
			assert_string_equal(err.input, spec);
		}
	}
	ktrace_err_clear(&err);
}

/* Offset of the uprobe in "p:g/e /path:0xOFF ...". */
static unsigned long def_offset(const char *def)
{
	const char *c = strstr(def, ":0x");

	assert_non_null(c);
	return strtoul(c + 1, NULL, 16);
}

static char *user_def(const char *spec, const char *binary)
{
	struct ktrace_err err = { .pos = -1 };
	char *def;
	int ret;

	def = resolve(spec, binary, NULL, &err, &ret, NULL);
	if (!def)
		fail_msg("'%s': %d %s", spec, ret, err.msg ? err.msg : "");
	ktrace_err_clear(&err);
	return def;
}

/* The 1-based line of probed.c holding needle. */
static int probed_line(const char *needle)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int n = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/targets/probed.c", srcdir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		n++;
		if (strstr(line, needle)) {
			found = n;
			break;
		}
	}
	free(line);
	fclose(f);
	assert_true(found > 0);
	return found;
}

static size_t count_str(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The line of s containing needle (malloc'ed) or NULL. */
static char *line_with(const char *s, const char *needle)
{
	const char *p = strstr(s, needle), *b, *e;

	if (!p)
		return NULL;
	for (b = p; b > s && b[-1] != '\n'; b--)
		;
	e = strchrnul(p, '\n');
	return strndup(b, e - b);
}

/* -------------------------------------------- kernel: exact definitions */

static void test_kernel_raw(void **state)
{
	(void)state;
	expect_def("do_sys_open filename=+0(%si):string", NULL,
		   "p:ktrace/do_sys_open do_sys_open filename=+0(%si):string",
		   KTRACE_KIND_KPROBE);
	expect_def("mygrp:myev=do_sys_open+4 %di", NULL,
		   "p:mygrp/myev do_sys_open+4 arg1=%di", KTRACE_KIND_KPROBE);
	expect_def("do_sys_open a=%si b=%si:x32 $comm +8(%di):u64", NULL,
		   "p:ktrace/do_sys_open do_sys_open a=%si b=%si:x32 comm=$comm arg4=+8(%di):u64",
		   KTRACE_KIND_KPROBE);
	expect_def("  vfs_read\t+16(+0(%di)):x64  ", NULL,
		   "p:ktrace/vfs_read vfs_read arg1=+16(+0(%di)):x64",
		   KTRACE_KIND_KPROBE);
	expect_def("ev=vfs_read+0x10", NULL, "p:ktrace/ev vfs_read+16",
		   KTRACE_KIND_KPROBE);
}

/*
 * MOD:FUNC, a loaded module's function (KTRACE_MODULES' fixture): a kprobe
 * in the kprobe syntax, "-" in the module's name as the kernel spells it
 * ("_"); a name no module has stays BINARY:SYMBOL, and says so when no
 * program has it either; "did you mean" names the module's functions.
 */
static void test_kernel_module(void **state)
{
	(void)state;
	expect_def("binfmt_misc:load_misc_binary", NULL,
		   "p:ktrace/load_misc_binary binfmt_misc:load_misc_binary",
		   KTRACE_KIND_KPROBE);
	expect_def("ev=binfmt-misc:load_misc_binary+4 %di", NULL,
		   "p:ktrace/ev binfmt_misc:load_misc_binary+4 arg1=%di",
		   KTRACE_KIND_KPROBE);
	expect_def("binfmt_misc:load_misc_binary%return $retval:s32", NULL,
		   "r:ktrace/load_misc_binary__return binfmt_misc:load_misc_binary retval=$retval:s32",
		   KTRACE_KIND_KRETPROBE);
	/* the function is binfmt_misc's, not loop's nor vmlinux's */
	expect_err("binfmt_misc:load_misc_binry", NULL, ENOENT, 0,
		   "no such kernel function 'binfmt_misc:load_misc_binry'; did you mean: binfmt_misc:load_misc_binary",
		   NULL);
	expect_err("loop:load_misc_binary", NULL, ENOENT, 0,
		   "no such kernel function 'loop:load_misc_binary'", NULL);
	expect_err("binfmt_misc:do_sys_open", NULL, ENOENT, 0,
		   "'binfmt_misc:do_sys_open'", NULL);
	/* a data symbol of the module is no function */
	expect_err("binfmt_misc:bm_fs_type", NULL, ENOENT, 0,
		   "no such kernel function 'binfmt_misc:bm_fs_type'", NULL);
	/* plain FUNC: the module's function is suggested as MOD:FUNC */
	expect_err("load_misc_binry", NULL, ENOENT, 0,
		   "did you mean: binfmt_misc:load_misc_binary", NULL);
	/* no module, no program of that name */
	expect_err("kt_nomod:func", NULL, ENOENT, 0,
		   "nor is a kernel module 'kt_nomod' loaded", NULL);
	/* a loaded module's name close to it */
	expect_err("binfmt_msc:load_misc_binary", NULL, ENOENT, 0,
		   "nor is a kernel module 'binfmt_msc' loaded (did you mean the module binfmt_misc?)",
		   NULL);
	/* a path is a program, whatever is loaded */
	expect_err("./binfmt_misc:load_misc_binary", NULL, 0, 0, NULL, NULL);
}

static void test_kernel_group_option(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	char *def;
	int ret;

	(void)state;
	def = resolve("ev=do_sys_open", NULL, "mine", &err, &ret, NULL);
	assert_non_null(def);
	assert_string_equal(def, "p:mine/ev do_sys_open");
	free(def);
	/* GROUP: in the spec wins over the option. */
	def = resolve("g2:ev=do_sys_open", NULL, "mine", &err, &ret, NULL);
	assert_non_null(def);
	assert_string_equal(def, "p:g2/ev do_sys_open");
	free(def);
	ktrace_err_clear(&err);
}

static void test_kernel_btf(void **state)
{
	(void)state;
	NEED_BTF();
	/* struct open_how is UAPI: flags at 0, mode at 8. */
	expect_def("do_sys_openat2 dfd filename how->flags", NULL,
		   "p:ktrace/do_sys_openat2 do_sys_openat2 dfd=%di:s32 filename=+0(%si):ustring how_flags=+0(%dx):u64",
		   KTRACE_KIND_KPROBE);
	/* The user's name and :TYPE win over the derived ones. */
	expect_def("do_sys_openat2 path=filename:ustring m=how->mode:x64",
		   NULL,
		   "p:ktrace/do_sys_openat2 do_sys_openat2 path=+0(%si):ustring m=+8(%dx):x64",
		   KTRACE_KIND_KPROBE);
	expect_def("vfs_read%return $retval", NULL,
		   "r:ktrace/vfs_read__return vfs_read retval=$retval:s64",
		   KTRACE_KIND_KRETPROBE);
	expect_def("vfs_read count", NULL,
		   "p:ktrace/vfs_read vfs_read count=%dx:u64",
		   KTRACE_KIND_KPROBE);
}

/* ---------------------------- event probes, fprobes, tracepoint probes */

static void test_eprobe_defs(void **state)
{
	(void)state;
	/* a system call's char pointer: a user string */
	expect_def("e:syscalls/sys_enter_openat filename", NULL,
		   "e:ktrace/sys_enter_openat syscalls.sys_enter_openat filename=+0($filename):ustring",
		   KTRACE_KIND_EPROBE);
	/* SYS:EVENT and SYS.EVENT too; names, scalars by their size */
	expect_def("g:op=e:syscalls:sys_enter_openat fn=filename:ustring dfd flags:x32",
		   NULL,
		   "e:g/op syscalls.sys_enter_openat fn=+0($filename):ustring dfd=$dfd:u64 flags=$flags:x32",
		   KTRACE_KIND_EPROBE);
	/* the kernel's own syntax goes as it is */
	expect_def("e:syscalls.sys_enter_openat +0($filename):ustring $comm",
		   NULL,
		   "e:ktrace/sys_enter_openat syscalls.sys_enter_openat arg1=+0($filename):ustring comm=$comm",
		   KTRACE_KIND_EPROBE);
	/* text in the record (__data_loc, char[]): string, read in place */
	expect_def("e:sched/sched_process_exec filename pid", NULL,
		   "e:ktrace/sched_process_exec sched.sched_process_exec filename=$filename:string pid=$pid:s32",
		   KTRACE_KIND_EPROBE);
	expect_def("e:sched/sched_switch prev_comm next_pid", NULL,
		   "e:ktrace/sched_switch sched.sched_switch prev_comm=$prev_comm:string next_pid=$next_pid:s32",
		   KTRACE_KIND_EPROBE);
}

static void test_eprobe_errors(void **state)
{
	(void)state;
	/* the rule: a system call's pointer is user memory */
	expect_err("e:syscalls/sys_enter_openat filename:string", NULL,
		   EINVAL, 37, "user-space pointer", ":ustring");
	expect_err("e:sched/sched_process_exec filename:ustring", NULL,
		   EINVAL, 36, "text in the event's record", ":string");
	expect_err("e:sched/sched_switch next_pid:string", NULL, EINVAL, 30,
		   "not a pointer", NULL);
	/* fields by name and in the kernel's syntax */
	expect_err("e:syscalls/sys_enter_openat nope", NULL, ENOENT, 28,
		   "has no field 'nope'", "filename, flags");
	expect_err("e:syscalls/sys_enter_openat x=+0($fn):ustring", NULL,
		   ENOENT, 34, "has no field 'fn'", NULL);
	expect_err("e:syscalls/sys_enter_openat %di", NULL, EINVAL, 28,
		   "not registers", NULL);
	expect_err("e:syscalls/sys_enter_openat $arg1", NULL, EINVAL, 28,
		   "has no $arg1", NULL);
	/* '->' through BTF: a char pointer points to no struct */
	if (have_btf())
		expect_err("e:syscalls/sys_enter_openat filename->x", NULL,
			   EINVAL, 38, "'filename' points to", "not a struct");
	/* no pointer to follow: said before BTF is read */
	expect_err("e:syscalls/sys_enter_openat dfd->x", NULL, EINVAL, 31,
		   "'dfd' (int) is a value, not a pointer", NULL);
	expect_err("e:sched/sched_switch prev_comm[1]", NULL, EINVAL, 30,
		   "text in the event's record, not a pointer", NULL);
	/* a field's close names */
	expect_err("e:syscalls/sys_enter_openat filenme", NULL, ENOENT, 28,
		   "has no field 'filenme' (did you mean 'filename'?)", NULL);
	/* the event */
	expect_err("e:nosys/nothing", NULL, ENOENT, 2, "no event nosys:nothing",
		   NULL);
	expect_err("e:syscalls", NULL, EINVAL, 2, "expected SYSTEM:EVENT",
		   NULL);
	expect_err("e:sys/ev-x", NULL, EINVAL, 6, "bad event name", NULL);
	expect_err("e:syscalls/sys_enter_openat%return", NULL, EINVAL, 27,
		   "%return is for functions", NULL);
}

/*
 * Event probes through BTF (the host's): struct __kernel_timespec and
 * struct sockaddr are UAPI, their layout fixed. What a system call's
 * pointer points to is user memory (+u); a kernel tracepoint's pointer
 * reads kernel memory.
 */
static void test_eprobe_btf_defs(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	char *def;
	int ret;

	(void)state;
	NEED_BTF();
	expect_def("e:syscalls/sys_enter_clock_nanosleep rqtp->tv_nsec ns=rqtp->tv_sec",
		   NULL,
		   "e:ktrace/sys_enter_clock_nanosleep syscalls.sys_enter_clock_nanosleep rqtp_tv_nsec=+u8($rqtp):s64 ns=+u0($rqtp):s64",
		   KTRACE_KIND_EPROBE);
	/* [N] through the pointer, then a member; the user's :TYPE wins */
	expect_def("e:syscalls/sys_enter_clock_nanosleep rqtp[1].tv_nsec:x64",
		   NULL,
		   "e:ktrace/sys_enter_clock_nanosleep syscalls.sys_enter_clock_nanosleep rqtp_1_tv_nsec=+u24($rqtp):x64",
		   KTRACE_KIND_EPROBE);
	/* a char array in user memory is a ustring; an element a byte */
	expect_def("e:syscalls/sys_enter_connect uservaddr->sa_family uservaddr->sa_data uservaddr->sa_data[1]:u8",
		   NULL,
		   "e:ktrace/sys_enter_connect syscalls.sys_enter_connect uservaddr_sa_family=+u0($uservaddr):u16 uservaddr_sa_data=+u2($uservaddr):ustring uservaddr_sa_data_1=+u3($uservaddr):u8",
		   KTRACE_KIND_EPROBE);
	/* a kernel tracepoint's struct pointer: kernel memory, no +u */
	def = resolve("e:filemap/file_check_and_advance_wb_err file->f_path.dentry->d_name.name",
		      NULL, NULL, &err, &ret, NULL);
	if (!def)
		fail_msg("%d %s", ret, err.msg);
	assert_non_null(strstr(def, " file_f_path_dentry_d_name_name=+0(+"));
	assert_null(strstr(def, "+u"));
	assert_non_null(strstr(def, "($file))):string"));
	free(def);
	ktrace_err_clear(&err);
}

static void test_eprobe_btf_errors(void **state)
{
	(void)state;
	NEED_BTF();
	/* the member that does not exist, its close names, the caret on it */
	expect_err("e:syscalls/sys_enter_clock_nanosleep rqtp->tv_nsc", NULL,
		   ENOENT, 43,
		   "struct __kernel_timespec has no field 'tv_nsc' (did you mean 'tv_nsec'",
		   "fields: tv_sec, tv_nsec");
	expect_err("e:syscalls/sys_enter_clock_nanosleep x=rqtp->tv_sec.y", NULL,
		   EINVAL, 52, "'rqtp->tv_sec' is", "not a struct");
	expect_err("e:syscalls/sys_enter_clock_nanosleep rqtp.tv_nsec", NULL,
		   EINVAL, 42, "'rqtp' is a pointer; use '->'", NULL);
	/* user memory is read as ustring, not string */
	expect_err("e:syscalls/sys_enter_connect uservaddr->sa_data:string",
		   NULL, EINVAL, 48, "in user memory", ":ustring");
}

static void test_fprobe_defs(void **state)
{
	(void)state;
	/* the kernel resolves names from BTF: they go as they are */
	expect_def("f:vfs_read count", NULL,
		   "f:ktrace/vfs_read vfs_read count=count", KTRACE_KIND_FPROBE);
	expect_def("f:vfs_read%return $retval r=$retval:s64", NULL,
		   "f:ktrace/vfs_read__return vfs_read%return retval=$retval r=$retval:s64",
		   KTRACE_KIND_FPROBE);
	expect_def("t:sched_switch next", NULL,
		   "t:ktrace/sched_switch sched_switch next=next",
		   KTRACE_KIND_FPROBE);
	expect_def("g:sw=t:sched/sched_switch", NULL, "t:g/sw sched_switch",
		   KTRACE_KIND_FPROBE);
	expect_err("f:vfs_read+4", NULL, EINVAL, 2, "no offset", NULL);
	expect_err("f:no_such_fn_kt", NULL, ENOENT, 2,
		   "no such kernel function", NULL);
	expect_err("t:", NULL, EINVAL, 0, "missing event", NULL);
}

/* What the kernel's README does not list is refused before any write,
 * with the reason; what it lists goes to dynamic_events. */
static void test_dyn_kinds_cli(void **state)
{
	char *root = *state, *before = fake_snapshot(root), *after, *dyn;
	char path[PATH_MAX];
	struct cli_result r;
	FILE *f;

	r = run_cli("probe", "add", "e:syscalls/sys_enter_openat filename",
		    NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "this kernel has no event probes"));
	cli_result_free(&r);
	r = run_cli("probe", "add", "f:vfs_read", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err,
		"fprobe events need CONFIG_FPROBE_EVENTS (kernel 6.7+)"));
	cli_result_free(&r);
	r = run_cli("probe", "add", "t:sched_switch", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "tracepoint probes need CONFIG_FPROBE_EVENTS"));
	cli_result_free(&r);
	after = fake_snapshot(root);
	assert_string_equal(after, before);
	free(after);
	/* a README as 6.1's: e: listed, f: and t: not */
	snprintf(path, sizeof(path), "%s/tracefs/README", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("  dynamic_events\t\t- Create/append/remove/show the generic dynamic events\n"
	      "\t   Format: p[:[<group>/][<event>]] <place> [<args>]\n"
	      "\t           e[:[<group>/][<event>]] <attached-group>.<attached-event> [<args>] [if <filter>]\n",
	      f);
	fclose(f);
	r = run_cli("probe", "add", "e:syscalls/sys_enter_openat filename",
		    NULL);
	assert_int_equal(r.status, 0);
	cli_result_free(&r);
	dyn = fake_read(root, "tracefs/dynamic_events");
	assert_non_null(dyn);
	assert_non_null(strstr(dyn, "e:ktrace/sys_enter_openat syscalls.sys_enter_openat filename=+0($filename):ustring\n"));
	free(dyn);
	r = run_cli("probe", "add", "f:vfs_read", NULL);
	assert_int_equal(r.status, 1);
	cli_result_free(&r);
	free(before);
}

/* ------------------------------------------------ user: definitions */

static void test_user_defs(void **state)
{
	char want[PATH_MAX + 256], *def, *def2, spec[PATH_MAX + 64];
	unsigned long hot_off, parse_off, line_off;

	(void)state;
	def = user_def("parse_line line len", probed);
	snprintf(want, sizeof(want),
		 "p:ktrace/parse_line %s:0x%016lx line=+0(%%di):string len=%%si:s32",
		 probed_real, def_offset(def));
	assert_string_equal(def, want);
	parse_off = def_offset(def);
	free(def);

	/* BINARY:SYMBOL without -x: the same line. */
	snprintf(spec, sizeof(spec), "%s:parse_line line len", probed);
	def2 = user_def(spec, NULL);
	assert_string_equal(def2, want);
	free(def2);

	def = user_def("account acct->balance", probed);
	snprintf(want, sizeof(want),
		 "p:ktrace/account %s:0x%016lx acct_balance=+%zu(%%di):s64",
		 probed_real, def_offset(def),
		 offsetof(struct account, balance));
	assert_string_equal(def, want);
	free(def);

	def = user_def("hot%return $retval", probed);
	snprintf(want, sizeof(want),
		 "r:ktrace/hot__return %s:0x%016lx retval=$retval:s32",
		 probed_real, def_offset(def));
	assert_string_equal(def, want);
	hot_off = def_offset(def);
	free(def);
	expect_def("hot%return $retval", probed, want,
		   KTRACE_KIND_URETPROBE);
	assert_true(hot_off < parse_off);

	/* probed.c:LINE inside hot(): after hot's entry, before parse_line. */
	snprintf(spec, sizeof(spec), "probed.c:%d",
		 probed_line("hot_count++;"));
	def = user_def(spec, probed);
	line_off = def_offset(def);
	snprintf(want, sizeof(want), "p:ktrace/probed_%d %s:0x%016lx",
		 probed_line("hot_count++;"), probed_real, line_off);
	assert_string_equal(def, want);
	if (line_off < hot_off || line_off >= parse_off)
		fail_msg("%s: 0x%lx not in hot() [0x%lx, 0x%lx)", spec, line_off,
			 hot_off, parse_off);
	free(def);
	/* BINARY:FILE:LINE */
	snprintf(spec, sizeof(spec), "%s:probed.c:%d", probed,
		 probed_line("hot_count++;"));
	def = user_def(spec, NULL);
	assert_string_equal(def, want);
	free(def);

	/* Raw fetchargs need no debug info. */
	def = user_def("parse_line l=+0(%di):string n=%si:s32", probed_nodbg);
	assert_non_null(strstr(def, " l=+0(%di):string n=%si:s32"));
	assert_true(!strncmp(def, "p:ktrace/parse_line /", 21));
	free(def);
}

static void test_user_libc(void **state)
{
	char *def;

	(void)state;
	def = user_def("libc:malloc size=%di:u64", NULL);
	assert_true(!strncmp(def, "p:ktrace/malloc /", 17));
	assert_non_null(strstr(def, "libc.so"));
	assert_non_null(strstr(def, ":0x"));
	assert_true(strlen(def) > 13 &&
		    !strcmp(def + strlen(def) - 13, " size=%di:u64"));
	free(def);
	def = user_def("malloc size=%di:u64", "libc");
	assert_true(!strncmp(def, "p:ktrace/malloc /", 17));
	free(def);
}

/* C++ locations: blanks inside parameter and template lists, quotes, and
 * event names that keep overloads apart within the kernel's limit. */
static void test_parse_cxx_locations(void **state)
{
	struct ktrace_probe_opts opts = { .binary = "/bin/true" };
	struct ktrace_err err = { .pos = -1 };
	const char *specs[] = {
		"shop::cart::Basket::add(char const*) item:string",
		"'shop::cart::Basket::add(char const*)' item:string",
		"ev=\"shop::cart::Basket::add(char const*)\" item:string",
		"pair<int, long>::first() x",
	};
	const char *events[] = {
		"shop_cart_Basket_add_char_const", "shop_cart_Basket_add_char_const",
		"ev", "pair_int_long_first",
	};
	struct ktrace_probe *p, *q;

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(*specs); i++) {
		p = ktrace_probe_parse(specs[i], &opts, &err);
		if (!p)
			fail_msg("'%s': %s", specs[i], err.msg);
		assert_string_equal(ktrace_probe_event(p), events[i]);
		ktrace_probe_free(p);
	}
	/* long names: the last component, a hash of the whole, <= 63 */
	p = ktrace_probe_parse("very_long_namespace_name::another_quite_long_one::Container::insert_element(char const*, long)%return",
			       &opts, &err);
	q = ktrace_probe_parse("very_long_namespace_name::another_quite_long_one::Container::insert_element(long, long)%return",
			       &opts, &err);
	assert_non_null(p);
	assert_non_null(q);
	assert_true(strlen(ktrace_probe_event(p)) <= 63);
	assert_true(!strncmp(ktrace_probe_event(p), "insert_element_", 15));
	assert_string_not_equal(ktrace_probe_event(p), ktrace_probe_event(q));
	ktrace_probe_free(p);
	ktrace_probe_free(q);
}

/* ------------------------------------------------------ parse errors */

static void test_parse_errors(void **state)
{
	struct ktrace_probe_opts opts = { .group = "a b" };
	struct ktrace_err err = { .pos = -1 };

	(void)state;
	expect_err("../x=do_sys_open", NULL, EINVAL, 0, "bad probe name",
		   "'../x'");
	expect_err("my-ev=do_sys_open", NULL, EINVAL, 0, "bad probe name",
		   NULL);
	expect_err("g/x:ev=do_sys_open", NULL, EINVAL, 0, "bad probe name",
		   NULL);
	expect_err("do_sys_open$x", NULL, EINVAL, 11, "bad character '$'",
		   NULL);
	expect_err("ev=do;sys", NULL, EINVAL, 5, "bad character ';'", NULL);
	expect_err("vfs_read+4%return", NULL, EINVAL, 0,
		   "return probe cannot have an offset", NULL);
	expect_err("hot+4%return", probed, EINVAL, 0,
		   "return probe cannot have an offset", NULL);
	expect_err("do_sys_open+4x", NULL, EINVAL, 12, "bad offset", NULL);
	expect_err("do_sys_open 1x=%si", NULL, EINVAL, 12,
		   "bad argument name", NULL);
	expect_err("do_sys_open a=%si a=%di", NULL, EINVAL, 18,
		   "two arguments named 'a'", NULL);
	expect_err("do_sys_open a=", NULL, EINVAL, 14, "empty argument",
		   NULL);
	expect_err("", NULL, EINVAL, 0, "empty probe spec", NULL);
	expect_err("   ", NULL, EINVAL, 0, "empty probe spec", NULL);
	expect_err("probed.c:12%return", probed, EINVAL, 0,
		   "FILE:LINE cannot be a return probe", NULL);
	/* A group that is not a C identifier (given with -g). */
	assert_null(ktrace_probe_parse("do_sys_open", &opts, &err));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "bad group name 'a b'"));
	ktrace_err_clear(&err);
}

/*
 * A refused raw fetch argument is quoted in the message (spec.c parse_arg
 * once built it from the token after freeing it), and what is not the
 * kernel's fetcharg syntax never reaches it as raw text.
 */
static void test_bad_fetcharg_message(void **state)
{
	(void)state;
	expect_err("do_sys_open x=%si;rm", NULL, EINVAL, 14,
		   "bad fetch argument '%si;rm'", NULL);
	expect_err("do_sys_open x=`id`", NULL, EINVAL, 14,
		   "bad fetch argument '`id`'", NULL);
	/* unknown syntax never reaches the kernel as raw text */
	expect_err("do_sys_openat2 *how", NULL, EINVAL, 15,
		   "bad fetch argument '*how'", NULL);
	expect_err("do_sys_open v=123", NULL, EINVAL, 14,
		   "bad fetch argument '123'", NULL);
	expect_err("do_sys_open u=+0(%si", NULL, EINVAL, 14,
		   "bad fetch argument '+0(%si'", NULL);
}

/* --------------------------------------------------- resolve errors */

static void test_kernel_errors(void **state)
{
	(void)state;
	expect_err("do_sys_opn x", NULL, ENOENT, 0,
		   "no such kernel function 'do_sys_opn'", "do_sys_open");
	expect_err("ev=do_sys_opn", NULL, ENOENT, 3, "did you mean",
		   "do_sys_open");
	/* Data symbols are not functions. */
	expect_err("do_sys_opem", NULL, ENOENT, 0, "do_sys_opem", NULL);
	expect_err("fs/open.c:100", NULL, ENOENT, 0,
		   "kernel FILE:LINE probes need the kernel's DWARF debug info",
		   "vmlinux");
	expect_err("ev=fs/open.c:100 x", NULL, ENOENT, 3, "vmlinux", NULL);
}

static void test_kernel_btf_errors(void **state)
{
	(void)state;
	NEED_BTF();
	expect_err("do_sys_openat2 nosuch", NULL, ENOENT, 15,
		   "no parameter 'nosuch'", "parameters: dfd, filename, how");
	expect_err("do_sys_openat2 dfd x=how->nosuch", NULL, ENOENT, 26,
		   "nosuch", "flags");
	expect_err("do_sys_open%return dfd->x", NULL, EINVAL, 24, "not a pointer",
		   NULL);
	expect_err("vfs_read $retval", NULL, EINVAL, 9, "$retval", "return");
	/* a number type on text reached by name: its bytes, never the
	 * pointer, would be shown */
	expect_err("do_sys_openat2 filename:x64", NULL, EINVAL, 24,
		   "'filename' is text", "not the pointer");
	/* entry arguments at a return probe: only where the kernel's README
	 * says its return probes read $argN (the fake tree has no README) */
	expect_err("vfs_read%return file->f_flags", NULL, EOPNOTSUPP, 16,
		   "cannot read at a return probe", "Linux 6.12 has them");
	{
		char path[PATH_MAX], *def;
		FILE *f;

		snprintf(path, sizeof(path), "%s/tracefs/README", (char *)*state);
		f = fopen(path, "w");
		assert_non_null(f);
		fputs("\t  (*1) only for the probe on function entry (offs == 0).\n"
		      "\t     kernel return probes support: $retval, $arg<N>, $comm\n", f);
		fclose(f);
		def = user_def("vfs_read%return file->f_flags", NULL);
		assert_non_null(strstr(def, "($arg1)"));
		free(def);
		unlink(path);
	}
	/* names at an offset: BTF knows the entry only */
	expect_err("vfs_read+0x10 file count", NULL, EINVAL, 14,
		   "BTF gives a function's arguments at its entry only", NULL);
}

/*
 * An offset past the end of a kernel function is refused (resolve.c
 * resolve_kernel, with the size kt_btf_func_size() takes from kallsyms;
 * do_sys_open is 0x100 long in the fixture): the kernel would put the
 * probe in whatever function follows.
 */
static void test_kernel_offset_outside_function(void **state)
{
	(void)state;
	expect_err("do_sys_open+0x100000", NULL, 0, -2, "outside", NULL);
}

/*
 * "$retval->field" is a name to resolve (spec.c is_var_expr), not a raw
 * fetch argument refused for its '>': kt_btf_arg() resolves it from BTF.
 */
static void test_retval_field(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	char *def;
	int ret;

	(void)state;
	NEED_BTF();
	def = resolve("inet_csk_accept%return $retval->__sk_common.skc_num",
		      NULL, NULL, &err, &ret, NULL);
	if (!def)
		fail_msg("%d %s", ret, err.msg);
	assert_true(!strncmp(def, "r:ktrace/inet_csk_accept__return inet_csk_accept ", 49));
	assert_non_null(strstr(def, "($retval):u16"));
	free(def);
	ktrace_err_clear(&err);
}

static void test_user_errors(void **state)
{
	char spec[PATH_MAX + 64];

	(void)state;
	expect_err("parse_lin", probed, ENOENT, 0, "no function 'parse_lin'",
		   "did you mean: parse_line");
	expect_err("hot+0x1000", probed, 0, 0, "outside 'hot'", NULL);
	expect_err("parse_line nosuch", probed, ENOENT, 11,
		   "no variable 'nosuch'", "line, len");
	expect_err("account acct->nosuch", probed, ENOENT, 14,
		   "no field 'nosuch'", "id, balance, name, next");
	expect_err("parse_line $retval", probed, 0, 11, "$retval",
		   "return probe");
	expect_err("parse_line line", probed_nodbg, 0, 11,
		   "no DWARF debug info", "install");
	expect_err("parse_line x=line", probed_nodbg, 0, 13,
		   "no DWARF debug info", NULL);
	snprintf(spec, sizeof(spec), "%s/nosuch:main", bindir);
	expect_err(spec, NULL, 0, 0, "nosuch", NULL);
	expect_err("nosuchprog-kt:main", NULL, ENOENT, 0, "nosuchprog-kt",
		   NULL);
	/* BINARY:SYMBOL with an unknown symbol: the caret under the symbol */
	snprintf(spec, sizeof(spec), "%s:parse_lin", probed);
	expect_err(spec, NULL, ENOENT, (int)strlen(probed) + 1,
		   "no function 'parse_lin'", "did you mean: parse_line");
	if (access("/bin/bash", R_OK) == 0)
		expect_err("bash:readline%return $retval", NULL, 0, 21,
			   "no DWARF debug info", "install");
}

/*
 * "$retval:TYPE" needs no debug info (the fetcharg is $retval, the type is
 * given): spec.c parse_arg takes it as raw, so it works on binaries
 * without DWARF (libc without libc6-dbg, bash), as in
 * "malloc%return ptr=$retval:x64".
 */
static void test_retval_typed_without_dwarf(void **state)
{
	char *def;

	(void)state;
	def = user_def("hot%return r=$retval:x32", probed_nodbg);
	assert_non_null(strstr(def, " r=$retval:x32"));
	free(def);
}

static void test_no_kprobes(void **state)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/tracefs/kprobe_events",
		 (char *)*state);
	struct cli_result r;
	char *before, *after;

	assert_int_equal(unlink(path), 0);
	before = fake_snapshot(*state);
	/* resolving needs BTF and kallsyms only: a dry run shows the line
	 * and says this kernel cannot take it */
	r = run_cli("probe", "add", "--dry-run", "ev=do_sys_open x=%si", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "p:ktrace/ev do_sys_open x=%si\n");
	assert_non_null(strstr(r.err, "note: this kernel cannot take kprobes"));
	cli_result_free(&r);
	/* making it fails, the caret under the location */
	r = run_cli("probe", "add", "ev=do_sys_open x=%si", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "this kernel has no kprobe events"));
	assert_non_null(strstr(r.err, "\n  ev=do_sys_open x=%si\n     ^\n"));
	cli_result_free(&r);
	after = fake_snapshot(*state);
	assert_string_equal(after, before);
	free(after);
	free(before);
	/* Uprobes do not need kprobe_events. */
	free(user_def("parse_line len=%si:s32", probed));
}

/* ------------------------------------------------------------------ CLI */

static void test_cli_dry_run_writes_nothing(void **state)
{
	char *root = *state, *before = fake_snapshot(root), *after, *want;
	struct cli_result r;

	r = run_cli("probe", "add", "--dry-run",
		    "do_sys_open filename=+0(%si):string", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
			    "p:ktrace/do_sys_open do_sys_open filename=+0(%si):string\n");
	assert_string_equal(r.err, "");
	cli_result_free(&r);

	r = run_cli("probe", "add", "-n", "-x", probed, "-g", "grp",
		    "parse_line line len", "hot%return $retval", NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_str(r.out, "\n"), 2);
	assert_true(!strncmp(r.out, "p:grp/parse_line /", 18));
	assert_non_null(strstr(r.out, "\nr:grp/hot__return /"));
	cli_result_free(&r);

	r = run_cli("--json", "probe", "add", "-n",
		    "ev=do_sys_open a=%si", NULL);
	assert_int_equal(r.status, 0);
	if (asprintf(&want, "[\n{\"group\": \"ktrace\", \"event\": \"ev\", \"kind\": \"kprobe\", \"definition\": \"p:ktrace/ev do_sys_open a=%%si\", \"created\": false}\n]\n") < 0)
		fail();
	assert_string_equal(r.out, want);
	free(want);
	cli_result_free(&r);

	after = fake_snapshot(root);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

/* Status, stderr's first line contains msg, caret under column pos. */
static void expect_cli_err(const char *root, int status, const char *spec,
			   const char *msg, int pos)
{
	char *before = fake_snapshot(root), *after, caret[512], *l;
	struct cli_result r;

	r = run_cli("probe", "add", spec, NULL);
	if (r.status != status)
		fail_msg("'%s': exit %d, want %d; stderr %s", spec, r.status,
			 status, r.err);
	l = line_with(r.err, "ktrace probe: ");
	assert_non_null(l);
	if (!strstr(l, msg))
		fail_msg("'%s': '%s' not in '%s'", spec, msg, l);
	free(l);
	assert_string_equal(r.out, "");
	if (pos >= 0) {
		snprintf(caret, sizeof(caret), "\n  %s\n  %*s^\n", spec, pos,
			 "");
		if (!strstr(r.err, caret))
			fail_msg("'%s': no caret at %d in:\n%s", spec, pos,
				 r.err);
	}
	cli_result_free(&r);
	after = fake_snapshot(root);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_cli_errors(void **state)
{
	char *root = *state;
	struct cli_result r;

	expect_cli_err(root, 2, "../x=do_sys_open", "bad probe name", 0);
	expect_cli_err(root, 2, "do_sys_open$x", "bad character", 11);
	expect_cli_err(root, 2, "vfs_read+4%return", "offset", 0);
	expect_cli_err(root, 1, "do_sys_opn", "did you mean", 0);
	expect_cli_err(root, 1, "fs/open.c:100", "vmlinux", 0);
	/* a good fetch argument with a bad type: the type is named */
	expect_cli_err(root, 2, "do_sys_open x=%di:", "no type after ':'", 18);
	expect_cli_err(root, 2, "do_sys_open x=%di:bad-type",
		       "bad type 'bad-type'", 18);
	expect_cli_err(root, 2, "do_sys_open x=%di:u32:u64",
		       "two types ('u32' and 'u64')", 18);

	r = run_cli("probe", "add", "-n", "-g", "a b", "do_sys_open", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "bad group name 'a b'"));
	cli_result_free(&r);
	r = run_cli("probe", "add", NULL);
	assert_int_equal(r.status, 2);
	cli_result_free(&r);
	r = run_cli("probe", "add", "--bogus", "do_sys_open", NULL);
	assert_int_equal(r.status, 2);
	cli_result_free(&r);

	/* All or nothing: a bad second spec, nothing written. */
	expect_cli_err(root, 1, "do_sys_opn", "do_sys_open", 0);
	{
		char *before = fake_snapshot(root), *after;

		r = run_cli("probe", "add", "do_sys_open", "nosuchfn_kt", NULL);
		assert_int_equal(r.status, 1);
		assert_string_equal(r.out, "");
		cli_result_free(&r);
		after = fake_snapshot(root);
		assert_string_equal(before, after);
		free(before);
		free(after);
	}
}

static void test_cli_errors_btf(void **state)
{
	(void)state;
	NEED_BTF();
	expect_cli_err(*state, 1, "do_sys_openat2 nosuch",
		       "parameters: dfd, filename, how", 15);
}

/*
 * Under --json a spec that fails to resolve gives one JSON error object,
 * not `[{"error": ...}` (cmd/probe.c once printed the opening "[" before
 * resolving the specs).
 */
static void test_cli_json_error(void **state)
{
	struct cli_result r;

	(void)state;
	r = run_cli("--json", "probe", "add", "-n", "nosuchfn_kt", NULL);
	assert_int_equal(r.status, 1);
	if (strncmp(r.out, "{\"error\": ", 10))
		fail_msg("stdout is not a JSON error object: %s", r.out);
	cli_result_free(&r);
}

static void test_cli_list(void **state)
{
	char *root = *state, *before = fake_snapshot(root), *after, *l;
	struct cli_result r;

	r = run_cli("probe", "list", "--json", NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.out[0], '[');
	/* Only the two probes; tracepoints are not listed. */
	assert_int_equal(count_str(r.out, "{\"kind\": "), 2);
	assert_null(strstr(r.out, "sched"));
	l = line_with(r.out, "\"event\": \"parse_line\"");
	assert_non_null(l);
	assert_non_null(strstr(l, "\"kind\": \"uprobe\""));
	assert_non_null(strstr(l, "\"group\": \"ktrace\""));
	assert_non_null(strstr(l, "\"location\": \"/usr/bin/probed:0x0000000000001139\""));
	assert_non_null(strstr(l, "\"args\": \"line=+0(%di):string len=%si:s32\""));
	assert_null(strstr(l, "kprobe"));
	assert_null(strstr(l, "do_sys_openat2"));
	free(l);
	l = line_with(r.out, "\"event\": \"open\"");
	assert_non_null(l);
	assert_non_null(strstr(l, "\"kind\": \"kprobe\""));
	assert_non_null(strstr(l, "\"location\": \"do_sys_openat2\""));
	assert_non_null(strstr(l, "\"definition\": \"p:ktrace/open do_sys_openat2 filename=+0(%si):ustring\""));
	assert_null(strstr(l, "uprobe"));
	assert_null(strstr(l, "probed"));
	free(l);
	cli_result_free(&r);

	r = run_cli("probe", "list", NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_str(r.out, "\n"), 2);
	l = line_with(r.out, "ktrace:parse_line");
	assert_true(!strncmp(l, "uprobe ", 7));
	free(l);
	l = line_with(r.out, "ktrace:open");
	assert_true(!strncmp(l, "kprobe ", 7));
	free(l);
	cli_result_free(&r);

	r = run_cli("probe", "list", "ktrace:open", NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_str(r.out, "\n"), 1);
	cli_result_free(&r);

	/* Globs that match no probe (only tracepoints, or nothing). */
	r = run_cli("probe", "list", "sched:*", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "no probe matches 'sched:*'"));
	cli_result_free(&r);
	r = run_cli("probe", "list", "../x", NULL);
	assert_int_equal(r.status, 2);
	cli_result_free(&r);

	after = fake_snapshot(root);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_cli_del_nomatch(void **state)
{
	char *root = *state, *before = fake_snapshot(root), *after;
	struct cli_result r;

	r = run_cli("probe", "del", "nomatch:*", NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "no probe matches 'nomatch:*'"));
	assert_string_equal(r.out, "");
	cli_result_free(&r);
	/* A tracepoint is not a probe. */
	r = run_cli("probe", "del", "sched:sched_switch", NULL);
	assert_int_equal(r.status, 1);
	cli_result_free(&r);
	/* Every pattern must match before anything is deleted. */
	r = run_cli("probe", "del", "ktrace:open", "nomatch:*", NULL);
	assert_int_equal(r.status, 1);
	cli_result_free(&r);
	r = run_cli("probe", "del", NULL);
	assert_int_equal(r.status, 2);
	cli_result_free(&r);
	r = run_cli("probe", "del", "a/b", NULL);
	assert_int_equal(r.status, 2);
	cli_result_free(&r);

	after = fake_snapshot(root);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

/* --------------------------------------------------------- probe files */

static char *write_file(const char *name, const char *text)
{
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/%s", bindir, name) < 0)
		return NULL;
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_cli_probe_file_format(void **state)
{
	char *root = *state, *before = fake_snapshot(root), *after, *text,
	     *path, *l;
	struct cli_result r;

	if (asprintf(&text,
		     "# a comment\n"
		     "\n"
		     "  \t do_sys_open filename=+0(%%si):string   # trailing\n"
		     "-x %s\n"
		     "parse_line line len\n"
		     "hot%%return r=$retval\n", probed) < 0)
		fail();
	path = write_file("set.probe", text);
	free(text);
	r = run_cli("probe", "add", "-n", "-g", "kt", "-f", path, NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_str(r.out, "\n"), 3);
	{
		const char *w = "p:kt/do_sys_open do_sys_open filename=+0(%si):string\n";

		assert_true(!strncmp(r.out, w, strlen(w)));
	}
	l = line_with(r.out, "parse_line");
	assert_true(!strncmp(l, "p:kt/parse_line ", 16));
	assert_non_null(strstr(l, probed_real));
	free(l);
	assert_non_null(strstr(r.out, " r=$retval:s32\n"));
	cli_result_free(&r);
	free(path);

	/* An error names FILE:LINE. */
	path = write_file("bad.probe", "# x\ndo_sys_open\nnosuchfn_kt\n");
	r = run_cli("probe", "add", "-n", "-f", path, NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "bad.probe:3: no such kernel function 'nosuchfn_kt'"));
	assert_string_equal(r.out, "");
	cli_result_free(&r);
	free(path);

	path = write_file("empty.probe", "# nothing\n\n   # at all\n");
	r = run_cli("probe", "add", "-n", "-f", path, NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "defines no probe"));
	cli_result_free(&r);
	r = run_cli("probe", "add", "-n", "-f", path, "do_sys_open", NULL);
	assert_int_equal(r.status, 2);
	cli_result_free(&r);
	free(path);
	r = run_cli("probe", "add", "-n", "-f", "/nonexistent/x.probe", NULL);
	assert_int_equal(r.status, 1);
	cli_result_free(&r);

	after = fake_snapshot(root);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

/* Every probes/NAME.probe resolves (dry run); kernel ones against the host
 * BTF and the fixture kallsyms. */
static void check_set(const char *root, const char *name, int want_lines,
		      const char *const *want_exact)
{
	char path[PATH_MAX], *before = fake_snapshot(root), *after;
	struct cli_result r;

	snprintf(path, sizeof(path), "%s/probes/%s.probe", srcdir, name);
	r = run_cli("probe", "add", "-n", "-g", "kt_set", "-f", path, NULL);
	if (r.status != 0)
		fail_msg("%s: exit %d: %s", name, r.status, r.err);
	assert_int_equal(count_str(r.out, "\n"), want_lines);
	for (const char *l = r.out; *l; l = strchr(l, '\n') + 1)
		assert_true(!strncmp(l, "p:kt_set/", 9) ||
			    !strncmp(l, "r:kt_set/", 9));
	for (int i = 0; want_exact && want_exact[i]; i++) {
		char *l = line_with(r.out, want_exact[i]);

		if (!l || strcmp(l, want_exact[i]))
			fail_msg("%s: no line '%s' in:\n%s", name,
				 want_exact[i], r.out);
		free(l);
	}
	cli_result_free(&r);
	after = fake_snapshot(root);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_probe_sets_kernel(void **state)
{
	static const char *const opens[] = {
		"p:kt_set/open do_sys_openat2 dfd=%di:s32 filename=+0(%si):ustring flags=+0(%dx):x64 mode=+8(%dx):x64",
		"r:kt_set/open_ret do_sys_openat2 fd=$retval:s32",
		NULL,
	};
	static const char *const tcp[] = {
		"p:kt_set/connect tcp_v4_connect daddr=+4(%si):x32 dport=+2(%si):x16",
		"r:kt_set/connect_ret tcp_v4_connect ret=$retval:s32",
		"r:kt_set/accept inet_csk_accept daddr=+0($retval):x32 dport=+12($retval):x16 lport=+14($retval):u16",
		NULL,
	};
	static const char *const exits[] = {
		"p:kt_set/exit do_exit code=%di:s64",
		NULL,
	};
	char *root = *state;

	NEED_BTF();
	check_set(root, "file-opens", 2, opens);
	check_set(root, "exec", 1, NULL);
	check_set(root, "process", 3, exits);
	check_set(root, "tcp", 3, tcp);
	check_set(root, "block-io", 2, NULL);
	check_set(root, "vfs-rw", 4, NULL);
	check_set(root, "file-changes", 4, NULL);
}

static void test_probe_sets_user(void **state)
{
	char *root = *state;

	check_set(root, "libc-malloc", 5, NULL);
	check_set(root, "dns", 3, NULL);
	if (access("/bin/bash", R_OK) == 0)
		check_set(root, "bash-readline", 1, NULL);
}

/* Every set file starts with a comment and names what it needs. */
static void test_probe_sets_documented(void **state)
{
	static const char *const sets[] = {
		"file-opens", "exec", "process", "tcp", "block-io", "vfs-rw",
		"file-changes", "libc-malloc", "dns", "bash-readline", NULL,
	};

	(void)state;
	for (int i = 0; sets[i]; i++) {
		char path[128], *text;

		snprintf(path, sizeof(path), "probes/%s.probe", sets[i]);
		text = fake_read(srcdir, path);
		assert_non_null(text);
		if (strncmp(text, "# ", 2) || !strstr(text, "# Needs:") ||
		    !strstr(text, "# Example:") ||
		    !strstr(text, "ktrace probe add -f probes/"))
			fail_msg("%s: not documented", path);
		free(text);
	}
}

/*
 * Files users name are regular files: a FIFO (nobody writes it) or a
 * device is refused at once, in one line, with nothing written; a probe
 * set too large to be a probe set is refused before it is read.
 * alarm() turns a hang into a failure.
 */
static void test_cli_special_files_refused(void **state)
{
	char *root = *state, fifo[PATH_MAX], big[PATH_MAX], spec[PATH_MAX + 8];
	char *before = fake_snapshot(root), *after;
	struct {
		const char *argv[6];
		const char *msg;
	} cases[] = {
		{ { "report", "-i", fifo }, "is not a regular file" },
		{ { "probe", "add", "-f", fifo }, "is not a regular file" },
		{ { "probe", "add", "-f", "/dev/zero" }, "is not a regular file" },
		{ { "probe", "add", "-f", big }, "larger than 1024 KiB" },
		{ { "probe", "add", "-n", "-x", fifo, "main" },
		  "is not a regular file" },
		{ { "probe", "add", "--dry-run", spec }, "is not a regular file" },
	};
	FILE *f;

	snprintf(fifo, sizeof(fifo), "%s/fifo", root);
	snprintf(big, sizeof(big), "%s/big.probe", root);
	snprintf(spec, sizeof(spec), "%s:main", fifo);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	f = fopen(big, "w");
	assert_non_null(f);
	for (int i = 0; i < (2 << 20) / 32; i++)
		fputs("# a comment line of 32 bytes ..\n", f);
	fclose(f);
	alarm(20);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *const *a = cases[i].argv;
		struct cli_result r = run_cli(a[0], a[1], a[2], a[3], a[4],
					      a[5], NULL);
		char *nl = strchr(r.err, '\n');

		if (r.status != 1 || !strstr(r.err, cases[i].msg) || !nl)
			fail_msg("%s %s %s: exit %d, '%s'", a[0], a[1], a[2],
				 r.status, r.err);
		cli_result_free(&r);
	}
	alarm(0);
	after = fake_snapshot(root);
	assert_string_equal(before, after);
	free(before);
	free(after);
	unlink(fifo);
	unlink(big);
}

/*
 * $argN in a raw fetch argument at a function's entry is written as this
 * architecture's argument register (probe sets stay portable; kernels
 * before 6.6 have no $argN); past the registers, at an offset or in a
 * return probe it is left to the kernel.
 */
static void test_argn_at_entry_is_a_register(void **state)
{
	static const struct { const char *spec, *want; } cases[] = {
		{ "tcp_v4_connect daddr=+4($arg2):x32",
		  "p:ktrace/tcp_v4_connect tcp_v4_connect daddr=+4(%si):x32" },
		{ "do_sys_open a=$arg1 b=$arg6:u64",
		  "p:ktrace/do_sys_open do_sys_open a=%di b=%r9:u64" },
		{ "do_sys_open a=$arg7",
		  "p:ktrace/do_sys_open do_sys_open a=$arg7" },
		{ "do_sys_open%return a=$arg1",
		  "r:ktrace/do_sys_open__return do_sys_open a=$arg1" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct cli_result r = run_cli("probe", "add", "--dry-run",
					      cases[i].spec, NULL);

		if (r.status || strncmp(r.out, cases[i].want, strlen(cases[i].want)) ||
		    r.out[strlen(cases[i].want)] != '\n')
			fail_msg("%s: exit %d, '%s' (want '%s')", cases[i].spec,
				 r.status, r.out, cases[i].want);
		cli_result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kernel_raw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_group_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_module, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_btf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eprobe_defs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eprobe_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eprobe_btf_defs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_eprobe_btf_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fprobe_defs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dyn_kinds_cli, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_defs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_libc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_btf_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_kprobes, setup, teardown),
		cmocka_unit_test(test_parse_cxx_locations),
		cmocka_unit_test_setup_teardown(test_cli_dry_run_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_errors_btf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_del_nomatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_probe_file_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_sets_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_sets_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_sets_documented, setup, teardown),
		/* Bugs found while writing these tests (see each). */
		cmocka_unit_test_setup_teardown(test_bad_fetcharg_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_offset_outside_function, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retval_field, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retval_typed_without_dwarf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_json_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_special_files_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_argn_at_entry_is_a_register, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
