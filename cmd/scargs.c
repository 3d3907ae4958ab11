// SPDX-License-Identifier: GPL-2.0-only
/*
 * System call arguments as strace shows them: AT_FDCWD for a directory
 * fd of -100, open(2) flags as O_ names, file modes in octal, *at(2)
 * flags, mmap(2) protections and flags. The values are those of the
 * architecture ktrace is built for, which is the kernel's it traces.
 * Anything else stays the number it is.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ktrace_cmd.h"

struct flag {
	long long bit;
	const char *name;
};

#define F(x) { x, #x }

static const struct flag open_flags[] = {
	F(O_CREAT), F(O_EXCL), F(O_NOCTTY), F(O_TRUNC), F(O_APPEND),
	F(O_NONBLOCK), F(O_DSYNC), F(O_ASYNC), F(O_DIRECT), F(O_DIRECTORY),
	F(O_NOFOLLOW), F(O_NOATIME), F(O_CLOEXEC), F(O_PATH),
	{ O_SYNC & ~O_DSYNC, "O_SYNC" }, { O_TMPFILE & ~O_DIRECTORY, "O_TMPFILE" },
	{ 0, NULL },
};

static const struct flag at_flags[] = {
	F(AT_SYMLINK_NOFOLLOW), F(AT_REMOVEDIR), F(AT_SYMLINK_FOLLOW),
	F(AT_NO_AUTOMOUNT), F(AT_EMPTY_PATH), F(AT_EACCESS),
	{ 0, NULL },
};

static const struct flag prot_flags[] = {
	F(PROT_READ), F(PROT_WRITE), F(PROT_EXEC),
	F(PROT_GROWSDOWN), F(PROT_GROWSUP),
	{ 0, NULL },
};

static const struct flag map_flags[] = {
	F(MAP_SHARED), F(MAP_PRIVATE), F(MAP_FIXED), F(MAP_ANONYMOUS),
	F(MAP_GROWSDOWN), F(MAP_DENYWRITE), F(MAP_EXECUTABLE), F(MAP_LOCKED),
	F(MAP_NORESERVE), F(MAP_POPULATE), F(MAP_NONBLOCK), F(MAP_STACK),
	F(MAP_HUGETLB), F(MAP_FIXED_NOREPLACE),
	{ 0, NULL },
};

/* The names of v's bits in t joined by '|' after what buf holds (at),
 * what no name covers as hex; "0" for none at all. */
static void bits(const struct flag *t, long long v, char *buf, size_t len,
		 size_t at)
{
	for (; t->name && v; t++) {
		if (!t->bit || (v & t->bit) != t->bit)
			continue;
		at += snprintf(buf + at, at < len ? len - at : 0, "%s%s",
			       at ? "|" : "", t->name);
		v &= ~t->bit;
	}
	if (v || !at)
		snprintf(buf + at, at < len ? len - at : 0, "%s%#llx",
			 at ? "|" : "", v);
}

static bool is(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static const char *const opens[] = { "open", "openat", "creat", NULL };
static const char *const moded[] = {
	"open", "openat", "creat", "mkdir", "mkdirat", "mknod", "mknodat",
	"chmod", "fchmod", "fchmodat", "fchmodat2", NULL,
};
static const char *const at_calls[] = {
	"unlinkat", "newfstatat", "fstatat64", "statx", "faccessat",
	"faccessat2", "fchownat", "linkat", "utimensat", "fchmodat2",
	"name_to_handle_at", "execveat", "open_tree", "mount_setattr", NULL,
};
static const char *const dfd_keys[] = { "dfd", "olddfd", "newdfd", NULL };

bool kt_scarg_text(const char *sc, const char *key, long long v, char *buf,
		   size_t len)
{
	if (is(key, dfd_keys) && (int)v == AT_FDCWD) {
		snprintf(buf, len, "AT_FDCWD");
		return true;
	}
	if (!strcmp(key, "flags") && is(sc, opens)) {
		static const char *const acc[] = { "O_RDONLY", "O_WRONLY",
						   "O_RDWR", "O_ACCMODE" };
		size_t at = snprintf(buf, len, "%s", acc[v & O_ACCMODE]);

		if (v & ~(long long)O_ACCMODE)
			bits(open_flags, v & ~(long long)O_ACCMODE, buf, len,
			     at);
		return true;
	}
	if (!strcmp(key, "mode") && is(sc, moded)) {
		snprintf(buf, len, "%#llo", v);
		return true;
	}
	if ((!strcmp(key, "flag") || !strcmp(key, "flags")) &&
	    is(sc, at_calls)) {
		bits(at_flags, v, buf, len, 0);
		return true;
	}
	if (!strcmp(key, "prot") &&
	    (!strcmp(sc, "mmap") || !strcmp(sc, "mprotect"))) {
		if (!v)
			snprintf(buf, len, "PROT_NONE");
		else
			bits(prot_flags, v, buf, len, 0);
		return true;
	}
	if (!strcmp(key, "flags") && !strcmp(sc, "mmap")) {
		bits(map_flags, v, buf, len, 0);
		return true;
	}
	return false;
}

bool kt_scarg_skip(const char *sc, const char *key, long long flags)
{
	/* open's mode is read only with O_CREAT or O_TMPFILE: else the
	 * register holds whatever was there (strace leaves it out too) */
	return !strcmp(key, "mode") && is(sc, opens) && strcmp(sc, "creat") &&
	       !(flags & (O_CREAT | (O_TMPFILE & ~O_DIRECTORY)));
}
