/* SPDX-License-Identifier: LGPL-2.1-only */
/* libktrace internals shared between lib/ files. Not installed. */
#ifndef KTRACE_INTERNAL_H
#define KTRACE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include "ktrace.h"

/* The number of elements of array a. */
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Fill err (replacing what it held) with a message; returns -errnum, for
 * `return kt_err_set(err, ...)`. err NULL: only returns. */
int kt_err_set(struct ktrace_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Read a whole file into a malloc'ed NUL-terminated buffer (caller frees).
 * len (optional) receives the length. NULL + errno on failure.
 */
char *kt_read_file(const char *path, size_t *len);
/*
 * The same from an open fd (read to its end; not closed). Past the NUL
 * that ends the text, KT_READ_PAD more bytes are allocated (of no set
 * value): a word-wise scan may read them.
 */
#define KT_READ_PAD 8
char *kt_read_fd(int fd, size_t *len);
/* The same with a first buffer of hint bytes (big files: no regrowth). */
char *kt_read_fd_hint(int fd, size_t *len, size_t hint);
/*
 * Open a file a user names (a recording, a binary, a probe set) for
 * reading: regular files only, checked on a non-blocking open so a FIFO
 * never hangs. Returns the fd (the caller closes it), or -1 with errno
 * set (KT_ENOTREG: not a regular file).
 */
int kt_open_regular(const char *path);
/* errno of kt_open_regular() for a file that is not regular, or one of
 * a pseudo file system (proc, sysfs, tracefs, debugfs...: such a
 * "regular" file may block or never end) */
#define KT_ENOTREG ESPIPE
/*
 * Open an ELF file a traced program names (a binary it maps, the debug
 * file it names) before libelf or libdw reads it: kt_open_regular(), at
 * most max bytes, and no larger than the bytes its ELF headers account
 * for (tables, segments, sections), give or take a page, so a sparse or
 * padded file of many GB is refused before anything reads it. The fd (the
 * caller closes it), or -1 with errno: KT_ENOTREG, ENOEXEC (not ELF, or
 * tables past its end), EFBIG (over max, or more than it claims).
 */
int kt_open_elf(const char *path, uint64_t max);
/* The cap ktrace puts on such a file (a debug file of libLLVM: ~1.5 GB) */
#define KT_ELF_MAX (4ull << 30)
/* kt_read_file(path), then path freed (errno kept); NULL path: NULL,
 * errno as the caller's allocation left it. */
char *kt_read_path_free(char *path, size_t *len);
/* Read the small file dir/rel; same contract as kt_read_file(). */
char *kt_read_at(const char *dir, const char *rel, size_t *len);
/*
 * A growing byte buffer: p[0..len) used of cap allocated. Starts zeroed;
 * the owner frees p.
 */
struct kt_buf {
	unsigned char *p;
	size_t len, cap;
};

/* Room for n more bytes past len (doubling from 4 KiB): 0 or -ENOMEM. */
int kt_buf_reserve(struct kt_buf *b, size_t n);

/*
 * Write buf to path in a single write(2) (tracefs parses one write as one
 * command). flags: O_TRUNC or O_APPEND. Returns 0 or -errno.
 */
int kt_write_file(const char *path, const char *buf, size_t len, int flags);
/* Formatted path join; caller frees. NULL + errno (ENAMETOOLONG). */
char *kt_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Whether n bytes can be had from malloc now: had and freed at once (a
 * block below the mmap threshold stays in the heap for what follows).
 * Called before the libraries that allocate without checking
 * (libtraceevent's printing, libdw's unwinder), which crash under a
 * memory limit (ulimit -v) instead of failing.
 */
bool kt_mem_headroom(size_t n);
/*
 * The hot paths' integer printers (text lines by hand, not printf; inline
 * in each record's line): the
 * decimal digits of v at p, right-aligned in width (kt_put_uint: padded
 * with pad; kt_put_int: with blanks, the sign before the digits). p holds
 * max(width, 21) bytes; returns the end (not NUL-terminated).
 */
static inline char *kt_put_uint(char *p, unsigned long long v, int width, char pad)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (width-- > n)
		*p++ = pad;
	while (n)
		*p++ = tmp[--n];
	return p;
}

static inline char *kt_put_int(char *p, long long v, int width)
{
	if (v < 0) {
		char tmp[24], *e = kt_put_uint(tmp, -(unsigned long long)v, 0, ' ');
		int n = e - tmp;

		while (width-- > n + 1)
			*p++ = ' ';
		*p++ = '-';
		memcpy(p, tmp, n);
		return p + n;
	}
	return kt_put_uint(p, v, width, ' ');
}
/* MemAvailable of /proc/meminfo in bytes, or 0 when it does not say. */
uint64_t kt_mem_available(void);

/* Append s to the NULL-terminated vector *v (n entries). 0 or -ENOMEM. */
int kt_strv_push(char ***v, size_t *n, char *s);
/*
 * Text output's one escaper (JSON has its own, kt_json_seq_str): src[0..n)
 * into dst, every control character (below 0x20, and 0x7f) as \n, \t,
 * \r or \xHH, and a backslash as \\, so that what a traced program names
 * cannot forge lines, drive the terminal or pass for an escape. dst holds 4 * n + 1; returns the length written
 * (dst NUL-terminated).
 */
size_t kt_text_escape(char *dst, const char *src, size_t n);

#endif
