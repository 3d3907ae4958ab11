// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/probe/btf.c: kallsyms checks, suggestions, BTF args. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/btf.h>

#include "arch/arch.h"
#include "probe/btf.h"
#include "probe/fetcharg.h"

#define FIX_DIR	"tests/fixtures/btf"

static char fix_dir[4096];
static char kallsyms[4200], blacklist[4200], filters[4200];

/* The fixtures live next to this source; find them from cwd or __FILE__. */
static int find_fixtures(void **state)
{
	const char *src = __FILE__;
	const char *slash = strrchr(src, '/');

	(void)state;
	if (access(FIX_DIR "/kallsyms", R_OK) == 0)
		snprintf(fix_dir, sizeof(fix_dir), "%s", FIX_DIR);
	else if (slash)
		snprintf(fix_dir, sizeof(fix_dir), "%.*s/../fixtures/btf",
			 (int)(slash - src), src);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", fix_dir);
	snprintf(blacklist, sizeof(blacklist), "%s/blacklist", fix_dir);
	snprintf(filters, sizeof(filters), "%s/available_filter_functions",
		 fix_dir);
	return access(kallsyms, R_OK);
}

static struct kt_btf *open_fixture(void)
{
	struct kt_btf *kb = kt_btf_open("/nonexistent/btf", kallsyms,
					blacklist, filters, NULL);

	assert_non_null(kb);
	return kb;
}

static void expect_func(struct kt_btf *kb, const char *func, int want,
			const char *msg)
{
	struct ktrace_err err = { .pos = -1 };
	int ret = kt_btf_func(kb, func, &err);

	assert_int_equal(ret, want);
	if (msg) {
		assert_non_null(err.msg);
		assert_string_equal(err.msg, msg);
	} else {
		assert_null(err.msg);
	}
	ktrace_err_clear(&err);
}

/* ------------------------------------------------------ kallsyms fixture */

static void test_func_known(void **state)
{
	struct kt_btf *kb = open_fixture();

	(void)state;
	expect_func(kb, "do_sys_open", 0, NULL);
	expect_func(kb, "do_sys_openat2", 0, NULL);
	expect_func(kb, "foo_helper.isra.0", 0, NULL);
	expect_func(kb, "mymod_init", 0, NULL);
	/* after a blank and a truncated line */
	expect_func(kb, "after_blank", 0, NULL);
	kt_btf_free(kb);
}

static void test_func_close_matches(void **state)
{
	struct kt_btf *kb = open_fixture();

	(void)state;
	expect_func(kb, "do_sys_opn", -ENOENT,
		    "no such kernel function 'do_sys_opn'; did you mean: do_sys_open, do_sys_openat2, do_sys_poll?");
	/* transposed letters */
	expect_func(kb, "vfs_raed", -ENOENT,
		    "no such kernel function 'vfs_raed'; did you mean: vfs_read, vfs_readv?");
	/* data symbols are not functions, even when spelled exactly */
	expect_func(kb, "do_sys_opem", -ENOENT,
		    "no such kernel function 'do_sys_opem'; did you mean: do_sys_open, do_sys_openat2, do_sys_poll?");
	expect_func(kb, "zzzzzzzzzzzz", -ENOENT,
		    "no such kernel function 'zzzzzzzzzzzz'");
	kt_btf_free(kb);
}

static void test_func_clones(void **state)
{
	struct kt_btf *kb = open_fixture();
	char **v;

	(void)state;
	expect_func(kb, "foo_helper", -ENOENT,
		    "no such kernel function 'foo_helper'; did you mean: foo_helper.isra.0, foo_helper.constprop.0?");
	/* a clone that does not exist: the other clones and the base */
	v = kt_btf_suggest(kb, "bar_split.isra.0", 5);
	assert_non_null(v);
	assert_non_null(v[0]);
	assert_non_null(v[1]);
	assert_string_equal(v[0], "bar_split");
	assert_string_equal(v[1], "bar_split.part.0");
	ktrace_strv_free(v);
	/* max is honoured */
	v = kt_btf_suggest(kb, "do_sys_opn", 1);
	assert_non_null(v);
	assert_string_equal(v[0], "do_sys_open");
	assert_null(v[1]);
	ktrace_strv_free(v);
	v = kt_btf_suggest(kb, "qqqqqqqqqqqqqqqq", 5);
	assert_non_null(v);
	assert_null(v[0]);
	ktrace_strv_free(v);
	kt_btf_free(kb);
}

static void test_func_blacklist_notrace(void **state)
{
	struct kt_btf *kb = open_fixture();

	(void)state;
	expect_func(kb, "exc_int3", -EPERM,
		    "kernel function 'exc_int3' is on the kprobe blacklist and cannot be probed");
	expect_func(kb, "mymod_func", -EPERM,
		    "kernel function 'mymod_func' is on the kprobe blacklist and cannot be probed");
	expect_func(kb, "notrace_helper", -EOPNOTSUPP,
		    "kernel function 'notrace_helper' is not traceable (not in available_filter_functions)");
	expect_func(kb, "do sys", -EINVAL,
		    "'do sys' is not a valid kernel symbol name");
	expect_func(kb, "", -EINVAL, "'' is not a valid kernel symbol name");
	kt_btf_free(kb);
}

static void test_func_missing_sources(void **state)
{
	struct kt_btf *kb;

	(void)state;
	/* unreadable blacklist and filter list: those checks are skipped */
	kb = kt_btf_open("/nonexistent/btf", kallsyms, "/nonexistent/bl",
			 "/nonexistent/aff", NULL);
	assert_non_null(kb);
	expect_func(kb, "exc_int3", 0, NULL);
	expect_func(kb, "notrace_helper", 0, NULL);
	expect_func(kb, "nope_nope", -ENOENT,
		    "no such kernel function 'nope_nope'");
	kt_btf_free(kb);
	/* no kallsyms: nothing can be said, suggestions fail */
	kb = kt_btf_open("/nonexistent/btf", "/nonexistent/kallsyms",
			 blacklist, filters, NULL);
	assert_non_null(kb);
	assert_null(kt_btf_suggest(kb, "do_sys_opn", 5));
	assert_int_equal(errno, ENOENT);
	expect_func(kb, "exc_int3", -EPERM,
		    "kernel function 'exc_int3' is on the kprobe blacklist and cannot be probed");
	kt_btf_free(kb);
}

/* ------------------------------------------------------ synthetic BTF */

static int write_btf(struct btf *btf, char *path, size_t len)
{
	const void *raw;
	__u32 size;
	int fd;

	snprintf(path, len, "/tmp/test_btf.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	raw = btf__raw_data(btf, &size);
	if (!raw || write(fd, raw, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * struct inner { int a; unsigned int bf1:3, bf2:5; char name[16];
 *                u32 arr[4]; };                              size 40
 * struct outer { long x; struct inner in; struct inner *pin;
 *                const char *str; union { int u1; long u2; };
 *                void (*fn)(void); bool flag; };              size 88
 * struct big { long a, b, c; };  struct small { long a, b; };
 * enum state f1(struct outer *o, int n, const char __user *up, u8 *bytes,
 *               struct big b, long p6, long p7, long p8);
 * long f2(struct small s, int x);
 * void f3(void);
 */
static int synth_btf(char *path, size_t len)
{
	struct btf *btf = btf__new_empty();
	int t_int, t_uint, t_char, t_uchar, t_long, t_bool, t_u8, t_u32;
	int t_inner, t_outer, t_union, t_cchar, t_user, t_fnp, t_proto;
	int t_big, t_small, t_enum, t_ret, t_pouter, t_pu8, t_pinner;
	int t_name, t_arr, ret;

	if (!btf)
		return -1;
	t_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	t_uint = btf__add_int(btf, "unsigned int", 4, 0);
	t_char = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	t_uchar = btf__add_int(btf, "unsigned char", 1, 0);
	t_long = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	t_bool = btf__add_int(btf, "_Bool", 1, BTF_INT_BOOL);
	t_u8 = btf__add_typedef(btf, "u8", t_uchar);
	t_u32 = btf__add_typedef(btf, "u32", t_uint);

	/* members must directly follow their struct: make their types first */
	t_name = btf__add_array(btf, t_int, t_char, 16);
	t_arr = btf__add_array(btf, t_int, t_u32, 4);
	t_inner = btf__add_struct(btf, "inner", 40);
	btf__add_field(btf, "a", t_int, 0, 0);
	btf__add_field(btf, "bf1", t_uint, 32, 3);
	btf__add_field(btf, "bf2", t_uint, 35, 5);
	btf__add_field(btf, "name", t_name, 64, 0);
	btf__add_field(btf, "arr", t_arr, 192, 0);

	t_union = btf__add_union(btf, NULL, 8);
	btf__add_field(btf, "u1", t_int, 0, 0);
	btf__add_field(btf, "u2", t_long, 0, 0);

	t_cchar = btf__add_ptr(btf, btf__add_const(btf, t_char));
	t_proto = btf__add_func_proto(btf, 0);
	t_fnp = btf__add_ptr(btf, t_proto);

	t_pinner = btf__add_ptr(btf, t_inner);
	t_outer = btf__add_struct(btf, "outer", 88);
	btf__add_field(btf, "x", t_long, 0, 0);
	btf__add_field(btf, "in", t_inner, 64, 0);
	btf__add_field(btf, "pin", t_pinner, 384, 0);
	btf__add_field(btf, "str", t_cchar, 448, 0);
	btf__add_field(btf, NULL, t_union, 512, 0);
	btf__add_field(btf, "fn", t_fnp, 576, 0);
	btf__add_field(btf, "flag", t_bool, 640, 0);

	t_big = btf__add_struct(btf, "big", 24);
	btf__add_field(btf, "a", t_long, 0, 0);
	btf__add_field(btf, "b", t_long, 64, 0);
	btf__add_field(btf, "c", t_long, 128, 0);
	t_small = btf__add_struct(btf, "small", 16);
	btf__add_field(btf, "a", t_long, 0, 0);
	btf__add_field(btf, "b", t_long, 64, 0);

	t_enum = btf__add_enum(btf, "state", 4);
	btf__add_enum_value(btf, "ST_A", 0);
	btf__add_enum_value(btf, "ST_B", 1);

	/* const char __user *: PTR -> TYPE_TAG(user) -> CONST -> char */
	t_user = btf__add_ptr(btf, btf__add_type_tag(btf, "user",
						     btf__add_const(btf,
								    t_char)));

	t_pouter = btf__add_ptr(btf, t_outer);
	t_pu8 = btf__add_ptr(btf, t_u8);
	/* parameters must directly follow their FUNC_PROTO */
	t_ret = btf__add_func_proto(btf, t_enum);
	btf__add_func_param(btf, "o", t_pouter);
	btf__add_func_param(btf, "n", t_int);
	btf__add_func_param(btf, "up", t_user);
	btf__add_func_param(btf, "bytes", t_pu8);
	btf__add_func_param(btf, "b", t_big);
	btf__add_func_param(btf, "p6", t_long);
	btf__add_func_param(btf, "p7", t_long);
	btf__add_func_param(btf, "p8", t_long);
	btf__add_func(btf, "f1", BTF_FUNC_GLOBAL, t_ret);

	t_ret = btf__add_func_proto(btf, t_long);
	btf__add_func_param(btf, "s", t_small);
	btf__add_func_param(btf, "x", t_int);
	btf__add_func(btf, "f2", BTF_FUNC_GLOBAL, t_ret);

	btf__add_func(btf, "f3", BTF_FUNC_GLOBAL, btf__add_func_proto(btf, 0));

	ret = write_btf(btf, path, len);
	btf__free(btf);
	return ret;
}

/* BTF without any "user" tag: the parameter name heuristic applies. */
static int synth_btf_notags(char *path, size_t len)
{
	struct btf *btf = btf__new_empty();
	int t_char, t_cchar, t_int, proto, ret;

	if (!btf)
		return -1;
	t_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	t_char = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	t_cchar = btf__add_ptr(btf, btf__add_const(btf, t_char));
	proto = btf__add_func_proto(btf, t_int);
	btf__add_func_param(btf, "filename", t_cchar);
	btf__add_func_param(btf, "kname", t_cchar);
	btf__add_func_param(btf, "user_path", t_cchar);
	btf__add_func(btf, "some_func", BTF_FUNC_GLOBAL, proto);
	proto = btf__add_func_proto(btf, t_int);
	btf__add_func_param(btf, "p", t_cchar);
	btf__add_func(btf, "ksys_thing", BTF_FUNC_GLOBAL, proto);
	ret = write_btf(btf, path, len);
	btf__free(btf);
	return ret;
}

/* One synthetic BTF, read as an x86-64 kernel's (kb) and an arm64's. */
struct synth_state {
	char path[64];
	struct kt_btf *kb;
	struct kt_btf *arm;
};

static int synth_open(void **state, int (*make)(char *path, size_t len))
{
	struct synth_state *st = calloc(1, sizeof(*st));

	*state = st;
	if (!st || make(st->path, sizeof(st->path)))
		return -1;
	st->kb = kt_btf_open(st->path, kallsyms, blacklist, filters,
			     &kt_arch_x86_64);
	st->arm = kt_btf_open(st->path, kallsyms, blacklist, filters,
			      &kt_arch_arm64);
	return st->kb && st->arm ? 0 : -1;
}

static int synth_setup(void **state)
{
	return synth_open(state, synth_btf);
}

static int synth_teardown(void **state)
{
	struct synth_state *st = *state;

	if (!st)
		return 0;
	kt_btf_free(st->kb);
	kt_btf_free(st->arm);
	if (st->path[0])
		unlink(st->path);
	free(st);
	return 0;
}

static void expect_arg(struct kt_btf *kb, const char *func, const char *expr,
		       bool ret_probe, const char *fetch, const char *type)
{
	struct ktrace_err err = { .pos = -1 };
	char *fa = NULL, *ty = NULL;
	int ret;

	ret = kt_btf_arg(kb, func, expr, ret_probe, &fa, &ty, &err);
	if (ret)
		fail_msg("%s %s: %d %s", func, expr, ret, err.msg);
	assert_string_equal(fa, fetch);
	assert_string_equal(ty, type);
	assert_null(err.msg);
	free(fa);
	free(ty);
}

/* msg NULL: only the error code is checked. pos < -1: not checked. */
static void expect_arg_err(struct kt_btf *kb, const char *func,
			   const char *expr, bool ret_probe, int want,
			   const char *msg, int pos)
{
	struct ktrace_err err = { .pos = -1 };
	char *fa = (char *)1, *ty = (char *)1;
	int ret;

	ret = kt_btf_arg(kb, func, expr, ret_probe, &fa, &ty, &err);
	assert_int_equal(ret, want);
	assert_null(fa);
	assert_null(ty);
	assert_non_null(err.msg);
	if (msg)
		assert_string_equal(err.msg, msg);
	if (pos >= -1)
		assert_int_equal(err.pos, pos);
	ktrace_err_clear(&err);
}

static void test_synth_scalars(void **state)
{
	struct kt_btf *kb = ((struct synth_state *)*state)->kb;

	expect_arg(kb, "f1", "o", false, "%di", "x64");
	expect_arg(kb, "f1", "n", false, "%si", "s32");
	expect_arg(kb, "f1", "$arg2", false, "%si", "s32");
	expect_arg(kb, "f1", "up", false, "+0(%dx)", "ustring");
	/* u8 * is a byte buffer, not a string */
	expect_arg(kb, "f1", "bytes", false, "%cx", "x64");
	/* b (24 bytes) goes on the stack: p6 and p7 take the last registers */
	expect_arg(kb, "f1", "p6", false, "%r8", "s64");
	expect_arg(kb, "f1", "p7", false, "%r9", "s64");
	/* p8: on the stack after b's three slots; $stack0 is the return
	 * address at the entry */
	expect_arg(kb, "f1", "p8", false, "$stack4", "s64");
	/* at a return the stack slot may be gone */
	expect_arg_err(kb, "f1", "p8", true, -E2BIG, NULL, 0);
	/* struct small (16 bytes) takes two registers */
	expect_arg(kb, "f2", "x", false, "%dx", "s32");
	expect_arg(kb, "f1", "$retval", true, "$retval", "u32");
	expect_arg(kb, "f2", "$retval", true, "$retval", "s64");
	expect_arg_err(kb, "f3", "$retval", true, -EOPNOTSUPP,
		       "'$retval' is void", -2);
	expect_arg_err(kb, "f1", "$retval", false, -EINVAL,
		       "$retval is only available in a return probe (f1%return)",
		       0);
	/* in a return probe, parameters come from the kernel's entry copy */
	expect_arg(kb, "f1", "n", true, "$arg2", "s32");
	expect_arg(kb, "f1", "o->x", true, "+0($arg1)", "s64");
	/* a user string pointer is indexed in user memory */
	expect_arg(kb, "f1", "up[3]", false, "+u3(%dx)", "s8");
}

static void test_synth_fields(void **state)
{
	struct kt_btf *kb = ((struct synth_state *)*state)->kb;

	expect_arg(kb, "f1", "o->x", false, "+0(%di)", "s64");
	expect_arg(kb, "f1", "o->in.a", false, "+8(%di)", "s32");
	expect_arg(kb, "f1", "o->in.bf1", false, "+12(%di)", "b3@0/32");
	expect_arg(kb, "f1", "o->in.bf2", false, "+12(%di)", "b5@3/32");
	expect_arg(kb, "f1", "o->in.name", false, "+16(%di)", "string");
	expect_arg(kb, "f1", "o->in.arr", false, "+32(%di)", "u32[4]");
	expect_arg(kb, "f1", "o->pin", false, "+48(%di)", "x64");
	expect_arg(kb, "f1", "o->pin->a", false, "+0(+48(%di))", "s32");
	expect_arg(kb, "f1", "o->pin->name", false, "+8(+48(%di))",
		   "string");
	/* BTF has user tags, so an untagged char * is a kernel string */
	expect_arg(kb, "f1", "o->str", false, "+0(+56(%di))", "string");
	expect_arg(kb, "f1", "o->u1", false, "+64(%di)", "s32");
	expect_arg(kb, "f1", "o->u2", false, "+64(%di)", "s64");
	expect_arg(kb, "f1", "o->fn", false, "+72(%di)", "symbol");
	expect_arg(kb, "f1", "o->flag", false, "+80(%di)", "u8");
	/* [N]: array elements in place, pointers deref'ed at N * size */
	expect_arg(kb, "f1", "o->in.arr[2]", false, "+40(%di)", "u32");
	expect_arg(kb, "f1", "o->in.arr[0]", false, "+32(%di)", "u32");
	expect_arg(kb, "f1", "o->pin[1].a", false, "+40(+48(%di))", "s32");
	expect_arg(kb, "f1", "o->pin[0].arr[3]", false, "+36(+48(%di))",
		   "u32");
	expect_arg(kb, "f1", "o->str[5]", false, "+5(+56(%di))", "s8");
	expect_arg(kb, "f1", "o[0].x", false, "+0(%di)", "s64");
	expect_arg(kb, "f1", "o->x", true, "+0($arg1)", "s64");
}

static void test_synth_errors(void **state)
{
	struct kt_btf *kb = ((struct synth_state *)*state)->kb;

	expect_arg_err(kb, "f1", "nope", false, -ENOENT,
		       "f1 has no parameter 'nope'; parameters: o, n, up, bytes, b, p6, p7, p8",
		       0);
	expect_arg_err(kb, "f3", "nope", false, -ENOENT,
		       "f3 has no parameter 'nope'; it takes no parameters", 0);
	expect_arg_err(kb, "f1", "o->nope", false, -ENOENT,
		       "struct outer has no field 'nope'; fields: x, in, pin, str, u1, u2, fn, flag",
		       3);
	expect_arg_err(kb, "f1", "n->x", false, -EINVAL,
		       "'n' is not a pointer (it is int)", 3);
	expect_arg_err(kb, "f1", "o.x", false, -EINVAL,
		       "'o' is a pointer; use '->'", 2);
	expect_arg_err(kb, "f1", "o->in->a", false, -EINVAL,
		       "'o->in' is not a pointer (it is struct inner); use '.'",
		       7);
	expect_arg_err(kb, "f1", "o->x.y", false, -EINVAL,
		       "'o->x' is long, not a struct or union", 5);
	expect_arg_err(kb, "f1", "o->in.bf1.z", false, -EINVAL,
		       "'o->in.bf1' is a bitfield", 10);
	/* 16 bytes by value: in registers, but fields cannot be had */
	expect_arg_err(kb, "f2", "s.a", false, -EOPNOTSUPP,
		       "'s' is a struct passed by value: its fields cannot be fetched",
		       2);
	expect_arg_err(kb, "f1", "o->in", false, -EINVAL,
		       "'o->in' is a whole struct inner; pick a field with '.' (fields: a, bf1, bf2, name, arr)",
		       -2);
	expect_arg_err(kb, "f1", "o-x", false, -EINVAL,
		       "expected '->', '.' or '[' after 'o'", 1);
	expect_arg_err(kb, "f1", "o->", false, -EINVAL,
		       "expected a field name after '->'", 3);
	expect_arg_err(kb, "f1", "n[0]", false, -EINVAL,
		       "cannot index 'n': it is int, not an array or a pointer",
		       2);
	expect_arg_err(kb, "f1", "o->in.arr[4]", false, -ERANGE,
		       "index 4 is out of bounds ('o->in.arr' has 4 elements)",
		       10);
	expect_arg_err(kb, "f1", "o->in.arr[x]", false, -EINVAL,
		       "expected a constant index in '[...]'", 10);
	expect_arg_err(kb, "f1", "o[1", false, -EINVAL,
		       "expected a constant index in '[...]'", 2);
	expect_arg_err(kb, "f1", "$arg9", false, -ENOENT,
		       "f1 takes 8 parameters; there is no $arg9", 0);
	expect_arg_err(kb, "f1", "9x", false, -EINVAL, NULL, 0);
	expect_arg_err(kb, "nofunc", "x", false, -ENOENT, NULL, -2);
	expect_arg_err(kb, "f1.isra.0", "o", false, -EINVAL, NULL, -2);
}

static void test_synth_params(void **state)
{
	struct kt_btf *kb = ((struct synth_state *)*state)->kb;
	struct ktrace_err err = { .pos = -1 };
	char **v;

	v = kt_btf_params(kb, "f2", false, &err);
	assert_non_null(v);
	assert_string_equal(v[0], "s");
	assert_string_equal(v[1], "x");
	assert_null(v[2]);
	ktrace_strv_free(v);
	v = kt_btf_params(kb, "f2", true, &err);
	assert_non_null(v);
	assert_string_equal(v[0], "struct small s");
	assert_string_equal(v[1], "int x");
	assert_null(v[2]);
	ktrace_strv_free(v);
	/* clones are looked up under their base name */
	v = kt_btf_params(kb, "f2.constprop.0", false, &err);
	assert_non_null(v);
	assert_string_equal(v[1], "x");
	ktrace_strv_free(v);
	assert_null(kt_btf_params(kb, "nofunc", false, &err));
	assert_int_equal(errno, ENOENT);
	assert_non_null(err.msg);
	ktrace_err_clear(&err);
}

/* ------------------------------------------------ calling conventions */

/*
 * Where x86-64 and AAPCS64 differ in placing arguments:
 * struct pk { u8 a; u32 b; } __packed;            size 5, b misaligned
 * struct fpair { double x, y; };  struct empty { };
 * long g_pair(long a, __int128 q, long c);
 * long g_miss(long a1, ..., long a7, struct small s, long z);
 * long g_left(long a1, ..., long a5, struct small s, long z);
 * long g_fp(long l1, ..., long l8, double d1, ..., double d9, long y);
 * long g_fpair(struct fpair fs, long x);
 * long g_pk(struct pk p, long x);
 * long g_empty(struct empty e, long x);
 * long g_ref(long a1, ..., long a8, struct big b, long z);
 */
static void abi_params(struct btf *btf, const char *prefix, int n, int type)
{
	char name[16];

	for (int i = 1; i <= n; i++) {
		snprintf(name, sizeof(name), "%s%d", prefix, i);
		btf__add_func_param(btf, name, type);
	}
}

static int abi_btf(char *path, size_t len)
{
	struct btf *btf = btf__new_empty();
	int t_long, t_i128, t_u8, t_u32, t_dbl, t_small, t_fpair, t_pk;
	int t_empty, t_big, proto, ret;

	if (!btf)
		return -1;
	t_long = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	t_i128 = btf__add_int(btf, "__int128", 16, BTF_INT_SIGNED);
	t_u8 = btf__add_int(btf, "unsigned char", 1, 0);
	t_u32 = btf__add_int(btf, "unsigned int", 4, 0);
	t_dbl = btf__add_float(btf, "double", 8);
	t_small = btf__add_struct(btf, "small", 16);
	btf__add_field(btf, "a", t_long, 0, 0);
	btf__add_field(btf, "b", t_long, 64, 0);
	t_fpair = btf__add_struct(btf, "fpair", 16);
	btf__add_field(btf, "x", t_dbl, 0, 0);
	btf__add_field(btf, "y", t_dbl, 64, 0);
	t_pk = btf__add_struct(btf, "pk", 5);
	btf__add_field(btf, "a", t_u8, 0, 0);
	btf__add_field(btf, "b", t_u32, 8, 0);
	t_empty = btf__add_struct(btf, "empty", 0);
	t_big = btf__add_struct(btf, "big", 24);
	btf__add_field(btf, "a", t_long, 0, 0);
	btf__add_field(btf, "b", t_long, 64, 0);
	btf__add_field(btf, "c", t_long, 128, 0);

	proto = btf__add_func_proto(btf, t_long);
	btf__add_func_param(btf, "a", t_long);
	btf__add_func_param(btf, "q", t_i128);
	btf__add_func_param(btf, "c", t_long);
	btf__add_func(btf, "g_pair", BTF_FUNC_GLOBAL, proto);

	for (int left = 0; left < 2; left++) {
		proto = btf__add_func_proto(btf, t_long);
		abi_params(btf, "a", left ? 5 : 7, t_long);
		btf__add_func_param(btf, "s", t_small);
		btf__add_func_param(btf, "z", t_long);
		btf__add_func(btf, left ? "g_left" : "g_miss",
			      BTF_FUNC_GLOBAL, proto);
	}

	proto = btf__add_func_proto(btf, t_long);
	abi_params(btf, "l", 8, t_long);
	abi_params(btf, "d", 9, t_dbl);
	btf__add_func_param(btf, "y", t_long);
	btf__add_func(btf, "g_fp", BTF_FUNC_GLOBAL, proto);

	proto = btf__add_func_proto(btf, t_long);
	btf__add_func_param(btf, "fs", t_fpair);
	btf__add_func_param(btf, "x", t_long);
	btf__add_func(btf, "g_fpair", BTF_FUNC_GLOBAL, proto);

	proto = btf__add_func_proto(btf, t_long);
	btf__add_func_param(btf, "p", t_pk);
	btf__add_func_param(btf, "x", t_long);
	btf__add_func(btf, "g_pk", BTF_FUNC_GLOBAL, proto);

	proto = btf__add_func_proto(btf, t_long);
	btf__add_func_param(btf, "e", t_empty);
	btf__add_func_param(btf, "x", t_long);
	btf__add_func(btf, "g_empty", BTF_FUNC_GLOBAL, proto);

	proto = btf__add_func_proto(btf, t_long);
	abi_params(btf, "a", 8, t_long);
	btf__add_func_param(btf, "b", t_big);
	btf__add_func_param(btf, "z", t_long);
	btf__add_func(btf, "g_ref", BTF_FUNC_GLOBAL, proto);

	ret = write_btf(btf, path, len);
	btf__free(btf);
	return ret;
}

static int abi_setup(void **state)
{
	return synth_open(state, abi_btf);
}

/* f1(o, n, up, bytes, struct big b (24 bytes), p6, p7, p8),
 * f2(struct small s (16 bytes), int x) */
static void test_abi_big_struct(void **state)
{
	struct synth_state *st = *state;

	/* x86-64: b is copied into the stack arguments, taking no register */
	expect_arg(st->kb, "f1", "bytes", false, "%cx", "x64");
	expect_arg(st->kb, "f1", "p6", false, "%r8", "s64");
	expect_arg(st->kb, "f1", "p8", false, "$stack4", "s64");
	/* b itself: its fields above the return address, at the entry */
	expect_arg(st->kb, "f1", "b.a", false, "+8(%sp)", "s64");
	expect_arg(st->kb, "f1", "b.c", false, "+24(%sp)", "s64");
	expect_arg(st->kb, "f1", "$arg5.b", false, "+16(%sp)", "s64");
	expect_arg_err(st->kb, "f1", "b.a", true, -E2BIG,
		       "parameter 'b' is passed on the stack: a return probe cannot read it (its slot may be reused by then); probe the entry",
		       0);
	expect_arg_err(st->kb, "f1", "b->a", false, -EINVAL,
		       "'b' is not a pointer (it is struct big); use '.'", 3);
	/* AAPCS64: a pointer to the caller's copy of b takes x4 */
	expect_arg(st->arm, "f1", "o", false, "%x0", "x64");
	expect_arg(st->arm, "f1", "bytes", false, "%x3", "x64");
	expect_arg(st->arm, "f1", "p6", false, "%x5", "s64");
	expect_arg(st->arm, "f1", "p7", false, "%x6", "s64");
	expect_arg(st->arm, "f1", "p8", false, "%x7", "s64");
	expect_arg(st->arm, "f1", "p8", true, "$arg8", "s64");
	expect_arg(st->arm, "f1", "b.a", false, "+0(%x4)", "s64");
	expect_arg(st->arm, "f1", "b.c", false, "+16(%x4)", "s64");
	expect_arg_err(st->arm, "f1", "b", false, -EINVAL,
		       "'b' is a whole struct big; pick a field with '.' (fields: a, b, c)",
		       -2);
	expect_arg_err(st->arm, "f1", "b.a", true, -EOPNOTSUPP,
		       "parameter 'b' is passed as a pointer to the caller's copy (a struct over 16 bytes, AAPCS64), which the function may have changed by its return; probe the entry",
		       0);
	/* 16 bytes take two registers on both */
	expect_arg(st->kb, "f2", "x", false, "%dx", "s32");
	expect_arg(st->arm, "f2", "x", false, "%x2", "s32");
	expect_arg(st->arm, "f2", "x", true, "$arg3", "s32");
	expect_arg_err(st->arm, "f2", "s.a", false, -EOPNOTSUPP,
		       "'s' is a struct passed by value: its fields cannot be fetched",
		       2);
	expect_arg_err(st->kb, "f2", "s", false, -EOPNOTSUPP,
		       "'s' is a whole struct passed by value in registers, which kprobes cannot fetch, nor its fields",
		       -2);
}

static void test_abi_pairs(void **state)
{
	struct synth_state *st = *state;

	/* a 16-byte aligned pair starts at an even register on arm64 */
	expect_arg(st->kb, "g_pair", "c", false, "%cx", "s64");
	expect_arg(st->arm, "g_pair", "c", false, "%x4", "s64");
	expect_arg_err(st->arm, "g_pair", "q", false, -EOPNOTSUPP,
		       "'q' is a 16-byte integer; kprobes fetch at most 8 bytes",
		       -2);
	/* a pair that does not fit: x86-64 leaves the last register to a
	 * later argument, AAPCS64 sends everything after to the stack */
	expect_arg(st->kb, "g_left", "z", false, "%r9", "s64");
	expect_arg(st->kb, "g_left", "s.b", false, "+16(%sp)", "s64");
	expect_arg(st->arm, "g_left", "z", false, "%x7", "s64");
	expect_arg(st->kb, "g_miss", "a7", false, "$stack1", "s64");
	expect_arg(st->kb, "g_miss", "s.a", false, "+16(%sp)", "s64");
	expect_arg(st->kb, "g_miss", "z", false, "$stack4", "s64");
	expect_arg(st->arm, "g_miss", "a7", false, "%x6", "s64");
	expect_arg(st->arm, "g_miss", "s.a", false, "+0(%sp)", "s64");
	expect_arg(st->arm, "g_miss", "s.b", false, "+8(%sp)", "s64");
	expect_arg(st->arm, "g_miss", "z", false, "$stack2", "s64");
	expect_arg_err(st->arm, "g_miss", "z", true, -E2BIG, NULL, 0);
	/* past the registers, the pointer to b's copy is a stack slot */
	expect_arg(st->arm, "g_ref", "b.c", false, "+16($stack0)", "s64");
	expect_arg(st->arm, "g_ref", "z", false, "$stack1", "s64");
	expect_arg(st->kb, "g_ref", "b.c", false, "+40(%sp)", "s64");
	expect_arg(st->kb, "g_ref", "z", false, "$stack6", "s64");
}

static void test_abi_other(void **state)
{
	struct synth_state *st = *state;

	/* floating point has its own registers; the ninth is on the stack */
	expect_arg(st->kb, "g_fp", "y", false, "$stack4", "s64");
	expect_arg(st->arm, "g_fp", "y", false, "$stack1", "s64");
	expect_arg(st->arm, "g_fp", "l8", false, "%x7", "s64");
	expect_arg_err(st->arm, "g_fp", "d1", false, -EOPNOTSUPP,
		       "parameter 'd1' is floating point: kprobes cannot read the registers AAPCS64 passes it in",
		       0);
	expect_arg_err(st->kb, "g_fp", "d9", false, -EOPNOTSUPP,
		       "'d9' has type double, which kprobes cannot fetch", -2);
	/* floating-point members: neither convention is worked out */
	expect_arg_err(st->kb, "g_fpair", "x", false, -EOPNOTSUPP,
		       "parameter 'x' comes after 'fs', a struct with floating-point members: ktrace does not know where x86-64 passes that, so nor where 'x' is",
		       0);
	expect_arg_err(st->arm, "g_fpair", "fs", false, -EOPNOTSUPP,
		       "parameter 'fs' is a struct with floating-point members: ktrace does not know where AAPCS64 passes it",
		       0);
	/* a misaligned member puts a small struct in memory on x86-64 */
	expect_arg(st->kb, "g_pk", "x", false, "%di", "s64");
	expect_arg(st->kb, "g_pk", "p.b", false, "+9(%sp)", "u32");
	expect_arg(st->arm, "g_pk", "x", false, "%x1", "s64");
	/* C passes nothing for an empty struct */
	expect_arg(st->kb, "g_empty", "x", false, "%di", "s64");
	expect_arg(st->arm, "g_empty", "x", false, "%x0", "s64");
	expect_arg_err(st->arm, "g_empty", "e", false, -EOPNOTSUPP,
		       "parameter 'e' is an empty struct: nothing is passed", 0);
}

static void test_heuristic_user(void **state)
{
	struct kt_btf *kb;
	char path[64];

	(void)state;
	assert_int_equal(synth_btf_notags(path, sizeof(path)), 0);
	kb = kt_btf_open(path, kallsyms, blacklist, filters, &kt_arch_x86_64);
	assert_non_null(kb);
	expect_arg(kb, "some_func", "filename", false, "+0(%di)", "ustring");
	expect_arg(kb, "some_func", "kname", false, "+0(%si)", "string");
	expect_arg(kb, "some_func", "user_path", false, "+0(%dx)", "ustring");
	expect_arg(kb, "ksys_thing", "p", false, "+0(%di)", "ustring");
	kt_btf_free(kb);
	unlink(path);
}

static void test_no_btf(void **state)
{
	struct kt_btf *kb = open_fixture();
	struct ktrace_err err = { .pos = -1 };
	char *fa, *ty;

	(void)state;
	assert_int_equal(kt_btf_arg(kb, "do_sys_open", "dfd", false, &fa,
				    &ty, &err), -ENOENT);
	assert_non_null(err.msg);
	assert_non_null(strstr(err.msg, "cannot read kernel BTF from /nonexistent/btf"));
	ktrace_err_clear(&err);
	kt_btf_free(kb);
}

/* -------------------------------------------------------------- modules */

/*
 * A vmlinux BTF in dir/vmlinux (struct binprm { long x; const char
 * *filename; }, vm_func(int)) and module mymod's split BTF on top of it in
 * dir/mymod (mymod_init(struct binprm *bprm, int n)), as the kernel has
 * them in /sys/kernel/btf. mymod_init is mymod's in the kallsyms fixture.
 */
static int module_btfs(const char *dir)
{
	struct btf *base = btf__new_empty(), *mod = NULL;
	int t_int, t_long, t_cchar, st, proto, ret = -1;
	char path[4200];
	const void *raw;
	__u32 size;
	FILE *f;

	if (!base)
		return -1;
	t_int = btf__add_int(base, "int", 4, BTF_INT_SIGNED);
	t_long = btf__add_int(base, "long", 8, BTF_INT_SIGNED);
	t_cchar = btf__add_ptr(base, btf__add_const(base,
		btf__add_int(base, "char", 1, BTF_INT_SIGNED)));
	st = btf__add_struct(base, "binprm", 16);
	btf__add_field(base, "x", t_long, 0, 0);
	btf__add_field(base, "filename", t_cchar, 64, 0);
	proto = btf__add_func_proto(base, t_int);
	btf__add_func_param(base, "n", t_int);
	btf__add_func(base, "vm_func", BTF_FUNC_GLOBAL, proto);
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	raw = btf__raw_data(base, &size);
	f = fopen(path, "w");
	if (!raw || !f || fwrite(raw, 1, size, f) != size)
		goto out;
	fclose(f);
	f = NULL;

	mod = btf__new_empty_split(base);
	if (!mod)
		goto out;
	st = btf__add_ptr(mod, st);	/* before the prototype and its params */
	proto = btf__add_func_proto(mod, t_int);
	btf__add_func_param(mod, "bprm", st);
	btf__add_func_param(mod, "n", t_int);
	btf__add_func(mod, "mymod_init", BTF_FUNC_GLOBAL, proto);
	snprintf(path, sizeof(path), "%s/mymod", dir);
	raw = btf__raw_data(mod, &size);
	f = fopen(path, "w");
	if (raw && f && fwrite(raw, 1, size, f) == size)
		ret = 0;
out:
	if (f)
		fclose(f);
	btf__free(mod);
	btf__free(base);
	return ret;
}

static void test_module(void **state)
{
	char dir[] = "/tmp/test_btf_mod.XXXXXX", path[4200];
	struct ktrace_err err = { .pos = -1 };
	struct kt_btf *kb;
	char **v;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(module_btfs(dir), 0);
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	kb = kt_btf_open(path, kallsyms, blacklist, filters, &kt_arch_x86_64);
	assert_non_null(kb);

	/* MOD:FUNC: kallsyms' "[mymod]", the module's split BTF */
	expect_func(kb, "mymod:mymod_init", 0, NULL);
	expect_func(kb, "mymod:mymod_func", -EPERM,
		    "kernel function 'mymod:mymod_func' is on the kprobe blacklist and cannot be probed");
	expect_func(kb, "mymod:mymod_int", -ENOENT,
		    "no such kernel function 'mymod:mymod_int'; did you mean: mymod:mymod_init, mymod:mymod_func?");
	expect_func(kb, "mymod:do_sys_open", -ENOENT,
		    "no such kernel function 'mymod:do_sys_open'");
	expect_func(kb, "othermod:mymod_init", -ENOENT,
		    "no module 'othermod' is loaded (no symbol of it in kallsyms): load it first");
	expect_func(kb, "my-mod:mymod_init", -EINVAL,
		    "'my-mod:mymod_init' is not a valid kernel symbol name");
	expect_arg(kb, "mymod:mymod_init", "bprm->filename", false,
		   "+0(+8(%di))", "string");
	expect_arg(kb, "mymod:mymod_init", "n", false, "%si", "s32");
	/* plain FUNC that only a module has: the module's BTF too */
	expect_arg(kb, "mymod_init", "bprm->x", false, "+0(%di)", "s64");
	expect_arg(kb, "vm_func", "n", false, "%di", "s32");
	expect_arg_err(kb, "mymod:vm_func", "n", false, -ENOENT,
		       "the BTF of module mymod has no prototype for 'vm_func' (inlined, or not a function)",
		       -2);
	expect_arg_err(kb, "mymod:mymod_init", "bprm->nope", false, -ENOENT,
		       NULL, 6);
	v = kt_btf_params(kb, "mymod:mymod_init", true, &err);
	assert_non_null(v);
	assert_string_equal(v[0], "struct binprm *bprm");
	assert_string_equal(v[1], "int n");
	assert_null(v[2]);
	ktrace_strv_free(v);
	/* suggestions name a module's functions as MOD:FUNC */
	v = kt_btf_suggest(kb, "mymod_int", 1);
	assert_non_null(v);
	assert_string_equal(v[0], "mymod:mymod_init");
	ktrace_strv_free(v);
	assert_int_equal(kt_btf_func_size(kb, "mymod:mymod_func"), 0x100);
	assert_int_equal(kt_btf_func_size(kb, "othermod:mymod_func"), 0);
	kt_btf_free(kb);

	/* no BTF file for the module */
	snprintf(path, sizeof(path), "%s/mymod", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	kb = kt_btf_open(path, kallsyms, blacklist, filters, &kt_arch_x86_64);
	assert_non_null(kb);
	snprintf(path, sizeof(path),
		 "cannot read the BTF of module mymod from %s/mymod: No such file or directory",
		 dir);
	expect_arg_err(kb, "mymod:mymod_init", "n", false, -ENOENT, path, -2);
	kt_btf_free(kb);
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	unlink(path);
	rmdir(dir);
}

/* ------------------------------------------------------ the host's BTF */

/* Byte offset of member name in struct sname, from BTF directly. */
static long btf_member_off(const char *sname, const char *name)
{
	struct btf *btf = btf__parse(KT_BTF_PATH, NULL);
	const struct btf_type *t;
	const struct btf_member *m;
	long off = -1;
	int id;

	if (!btf)
		return -1;
	id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++) {
		m = btf_members(t) + i;
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name))
			off = btf_member_bit_offset(t, i) / 8;
	}
	btf__free(btf);
	return off;
}

static void test_vmlinux(void **state)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_btf *kb;
	char buf[64];
	long off;
	char **v;

	(void)state;
	if (access(KT_BTF_PATH, R_OK))
		skip();
	kb = kt_btf_open(NULL, kallsyms, blacklist, filters, NULL);
	assert_non_null(kb);
	expect_arg(kb, "do_sys_openat2", "dfd", false, "%di", "s32");
	/* no __user tag in this BTF or a tag: ustring either way */
	expect_arg(kb, "do_sys_openat2", "filename", false, "+0(%si)",
		   "ustring");
	off = btf_member_off("open_how", "flags");
	assert_true(off >= 0);
	snprintf(buf, sizeof(buf), "+%ld(%%dx)", off);
	expect_arg(kb, "do_sys_openat2", "how->flags", false, buf, "u64");
	off = btf_member_off("open_how", "resolve");
	assert_true(off >= 0);
	snprintf(buf, sizeof(buf), "+%ld(%%dx)", off);
	expect_arg(kb, "do_sys_openat2", "how->resolve", false, buf, "u64");
	expect_arg(kb, "do_sys_openat2", "$retval", true, "$retval", "s32");
	/* [N] on a BTF argument: the user string's bytes, read as user
	 * memory; char is s8 or u8 as the kernel was built */
	{
		char *fa = NULL, *ty = NULL;

		assert_int_equal(kt_btf_arg(kb, "do_sys_openat2",
					    "filename[2]", false, &fa, &ty,
					    &err), 0);
		assert_string_equal(fa, "+u2(%si)");
		assert_true(!strcmp(ty, "u8") || !strcmp(ty, "s8"));
		free(fa);
		free(ty);
	}
	expect_arg(kb, "vfs_read", "$retval", true, "$retval", "s64");
	expect_arg_err(kb, "do_sys_openat2", "fname", false, -ENOENT,
		       "do_sys_openat2 has no parameter 'fname'; parameters: dfd, filename, how",
		       0);
	expect_arg_err(kb, "do_sys_openat2", "how->nope", false, -ENOENT,
		       "struct open_how has no field 'nope'; fields: flags, mode, resolve",
		       5);
	v = kt_btf_params(kb, "do_sys_openat2", false, &err);
	assert_non_null(v);
	assert_string_equal(v[0], "dfd");
	assert_string_equal(v[1], "filename");
	assert_string_equal(v[2], "how");
	assert_null(v[3]);
	ktrace_strv_free(v);
	kt_btf_free(kb);
}

/* ------------------------------- values of a named type (event probes) */

static void expect_val(struct kt_btf *kb, const char *ctype, bool user,
		       const char *expr, const char *fetch, const char *type)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_fetcharg base;
	char *fa = NULL, *ty = NULL, name[64];
	int ret;

	snprintf(name, sizeof(name), "$%.*s", (int)strcspn(expr, "-.["),
		 expr);
	assert_int_equal(kt_fetcharg_base(&base, name), 0);
	ret = kt_btf_value_arg(kb, &base, ctype, user, expr, &fa, &ty, &err);
	if (ret)
		fail_msg("(%s) %s: %d %s", ctype, expr, ret, err.msg);
	assert_string_equal(fa, fetch);
	assert_string_equal(ty, type);
	assert_null(err.msg);
	free(fa);
	free(ty);
}

/* msg: a part of the message; pos: the caret in expr. */
static void expect_val_err(struct kt_btf *kb, const char *ctype,
			   const char *expr, int want, const char *msg,
			   int pos)
{
	struct ktrace_err err = { .pos = -1 };
	struct kt_fetcharg base;
	char *fa = (char *)1, *ty = (char *)1;
	int ret;

	assert_int_equal(kt_fetcharg_base(&base, "$v"), 0);
	ret = kt_btf_value_arg(kb, &base, ctype, true, expr, &fa, &ty, &err);
	assert_int_equal(ret, want);
	assert_null(fa);
	assert_null(ty);
	assert_non_null(err.msg);
	if (!strstr(err.msg, msg))
		fail_msg("'%s': '%s' not in '%s'", expr, msg, err.msg);
	assert_int_equal(err.pos, pos);
	if (pos >= 0)
		assert_string_equal(err.input, expr);
	ktrace_err_clear(&err);
}

static void test_value_user(void **state)
{
	struct kt_btf *kb = ((struct synth_state *)*state)->kb;

	/* a system call's pointer: every level is user memory (+u) */
	expect_val(kb, "struct outer *", true, "o->x", "+u0($o)", "s64");
	expect_val(kb, "const struct outer *", true, "o->in.arr[2]",
		   "+u40($o)", "u32");
	expect_val(kb, "struct outer*", true, "o->in.bf2",
		   "+u12($o)", "b5@3/32");
	expect_val(kb, "struct outer *", true, "o->pin->a",
		   "+u0(+u48($o))", "s32");
	expect_val(kb, "struct outer *", true, "o[1].flag", "+u168($o)", "u8");
	expect_val(kb, "struct outer *", true, "o->u2", "+u64($o)", "s64");
	/* text: a char pointer read there, a char array in place */
	expect_val(kb, "struct outer *", true, "o->str", "+0(+u56($o))",
		   "ustring");
	expect_val(kb, "struct outer *", true, "o->in.name", "+u16($o)",
		   "ustring");
	/* base types and typedefs by the format file's names */
	expect_val(kb, "u32 *", true, "p[3]", "+u12($p)", "u32");
	expect_val(kb, "unsigned int *", true, "p[1]", "+u4($p)", "u32");
	expect_val(kb, "long *", true, "p[2]", "+u16($p)", "s64");
	expect_val(kb, "const char *const *", true, "argv[1]",
		   "+0(+u8($argv))", "ustring");
}

static void test_value_kernel(void **state)
{
	struct kt_btf *kb = ((struct synth_state *)*state)->kb;

	/* kernel memory: plain dereferences, strings as string */
	expect_val(kb, "struct outer *", false, "o->pin->a", "+0(+48($o))",
		   "s32");
	expect_val(kb, "struct outer *", false, "o->str", "+0(+56($o))",
		   "string");
	expect_val(kb, "struct outer *", false, "o->in.name", "+16($o)",
		   "string");
	expect_val(kb, "struct outer *", false, "o->fn", "+72($o)",
		   "symbol");
	expect_val(kb, "struct inner *", false, "i->arr", "+24($i)",
		   "u32[4]");
	expect_val(kb, "struct outer * *", false, "pp[1]->x",
		   "+0(+8($pp))", "s64");
}

static void test_value_errors(void **state)
{
	struct kt_btf *kb = ((struct synth_state *)*state)->kb;

	expect_val_err(kb, "struct outer *", "v->nope", -ENOENT,
		       "struct outer has no field 'nope'; fields: x, in,", 3);
	/* close names offered */
	expect_val_err(kb, "struct outer *", "v->in.nmae", -ENOENT,
		       "struct inner has no field 'nmae' (did you mean 'name'?); fields: a, bf1",
		       6);
	expect_val_err(kb, "struct outer *", "v->flg", -ENOENT,
		       "(did you mean 'flag'?)", 3);
	expect_val_err(kb, "struct outer *", "v.x", -EINVAL,
		       "'v' is a pointer; use '->'", 2);
	expect_val_err(kb, "struct outer *", "v->in.arr[4]", -ERANGE,
		       "out of bounds", 10);
	expect_val_err(kb, "struct outer *", "v->x->y", -EINVAL,
		       "'v->x' is not a pointer", 6);
	expect_val_err(kb, "struct outer *", "v->in", -EINVAL,
		       "is a whole struct", -1);
	expect_val_err(kb, "void *", "v->x", -EINVAL,
		       "points to void, not a struct", 3);
	expect_val_err(kb, "struct nosuch *", "v->x", -ENOENT,
		       "no type 'struct nosuch *'", 0);
	expect_val_err(kb, "long", "v[1]", -EINVAL, "not a pointer", 0);
	expect_val_err(kb, "struct outer *", "v->", -EINVAL,
		       "expected a field name after '->'", 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_func_known),
		cmocka_unit_test(test_func_close_matches),
		cmocka_unit_test(test_func_clones),
		cmocka_unit_test(test_func_blacklist_notrace),
		cmocka_unit_test(test_func_missing_sources),
		cmocka_unit_test_setup_teardown(test_synth_scalars,
						synth_setup, synth_teardown),
		cmocka_unit_test_setup_teardown(test_synth_fields,
						synth_setup, synth_teardown),
		cmocka_unit_test_setup_teardown(test_synth_errors,
						synth_setup, synth_teardown),
		cmocka_unit_test_setup_teardown(test_synth_params,
						synth_setup, synth_teardown),
		cmocka_unit_test_setup_teardown(test_abi_big_struct,
						synth_setup, synth_teardown),
		cmocka_unit_test_setup_teardown(test_abi_pairs,
						abi_setup, synth_teardown),
		cmocka_unit_test_setup_teardown(test_abi_other,
						abi_setup, synth_teardown),
		cmocka_unit_test_setup_teardown(test_value_user,
						synth_setup, synth_teardown),
		cmocka_unit_test_setup_teardown(test_value_kernel,
						synth_setup, synth_teardown),
		cmocka_unit_test_setup_teardown(test_value_errors,
						synth_setup, synth_teardown),
		cmocka_unit_test(test_heuristic_user),
		cmocka_unit_test(test_no_btf),
		cmocka_unit_test(test_module),
		cmocka_unit_test(test_vmlinux),
	};

	return cmocka_run_group_tests(tests, find_fixtures, NULL);
}
