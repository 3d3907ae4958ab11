// SPDX-License-Identifier: LGPL-2.1-only
/* Small file and string helpers used across libktrace. */
#include <errno.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/internal.h"

char *kt_read_fd(int fd, size_t *len)
{
	return kt_read_fd_hint(fd, len, 4096);
}

char *kt_read_fd_hint(int fd, size_t *len, size_t hint)
{
	size_t cap = hint > 32 ? hint : 32, n = 0;
	char *buf, *nb;
	ssize_t r;
	int saved;

	buf = malloc(cap);
	if (!buf)
		return NULL;
	for (;;) {
		if (cap - n < 2 + KT_READ_PAD) {
			nb = realloc(buf, cap * 2);
			if (!nb)
				goto fail;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1 - KT_READ_PAD);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		n += r;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	saved = errno;
	free(buf);
	errno = saved;
	return NULL;
}

char *kt_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), saved;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = kt_read_fd(fd, len);
	saved = errno;
	close(fd);
	errno = saved;
	return buf;
}

int kt_buf_reserve(struct kt_buf *b, size_t n)
{
	size_t cap;
	unsigned char *p;

	if (n <= b->cap - b->len && (b->p || !n))
		return 0;
	if (n > SIZE_MAX - b->len)
		return -ENOMEM;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

/*
 * "dir/rel", malloc'ed (the caller frees), or NULL (errno ENOMEM). No
 * printf: a plain listing then never wakes its code (~8 us of a 1.5 ms
 * `ktrace list`).
 */
static char *kt_path_join(const char *dir, const char *rel)
{
	size_t ld = strlen(dir), lr = strlen(rel);
	char *p = malloc(ld + lr + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, ld);
	p[ld] = '/';
	memcpy(p + ld + 1, rel, lr + 1);
	return p;
}

char *kt_read_path_free(char *path, size_t *len)
{
	char *ret;
	int saved;

	if (!path)
		return NULL;
	ret = kt_read_file(path, len);
	saved = errno;
	free(path);
	errno = saved;
	return ret;
}

char *kt_read_at(const char *dir, const char *rel, size_t *len)
{
	return kt_read_path_free(kt_path_join(dir, rel), len);
}

int kt_write_file(const char *path, const char *buf, size_t len, int flags)
{
	ssize_t r;
	int fd, ret = 0;

	/* a file it creates (the state dir's marks) is root's alone */
	fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0600);
	if (fd < 0)
		return -errno;
	r = write(fd, buf, len);
	if (r < 0)
		ret = -errno;
	else if ((size_t)r != len)
		ret = -EIO;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

char *kt_path(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0) {
		errno = ENOMEM;
		return NULL;
	}
	if (n >= PATH_MAX) {
		free(p);
		errno = ENAMETOOLONG;
		return NULL;
	}
	return p;
}

bool kt_mem_headroom(size_t n)
{
	void *p = malloc(n);

	free(p);
	return p != NULL;
}

uint64_t kt_mem_available(void)
{
	char *t = kt_read_file("/proc/meminfo", NULL), *at;
	unsigned long long kb = 0;

	if (!t)
		return 0;
	at = strstr(t, "MemAvailable:");
	if (!at || sscanf(at, "MemAvailable: %llu kB", &kb) != 1)
		kb = 0;
	free(t);
	return kb * 1024;
}

int kt_strv_push(char ***v, size_t *n, char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

void ktrace_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

const char *ktrace_version(void)
{
	return KTRACE_VERSION;
}

/* Is fd's file on a file system of the kernel's own (proc, sysfs,
 * tracefs...), whose regular files may block (trace_pipe, kmsg) or claim
 * any size (kcore)? */
static bool pseudo_fs(int fd)
{
	static const unsigned long magic[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, TRACEFS_MAGIC, DEBUGFS_MAGIC,
		SECURITYFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
		BPF_FS_MAGIC, PSTOREFS_MAGIC, EFIVARFS_MAGIC,
		0x62656570 /* configfs */,
	};
	struct statfs sf;

	if (fstatfs(fd, &sf))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(magic); i++)
		if ((unsigned long)sf.f_type == magic[i])
			return true;
	return false;
}

int kt_open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	int e;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		e = errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || pseudo_fs(fd)) {
		e = KT_ENOTREG;
		goto fail;
	}
	/* Reads block again: a regular file never waits anyway. */
	if (fcntl(fd, F_SETFL, 0) < 0) {
		e = errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	errno = e;
	return -1;
}

size_t kt_text_escape(char *dst, const char *src, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *p = dst;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = src[i];

		if (c >= 0x20 && c != 0x7f && c != '\\') {
			*p++ = c;
			continue;
		}
		*p++ = '\\';
		if (c == '\n' || c == '\t' || c == '\r' || c == '\\') {
			*p++ = c == '\n' ? 'n' : c == '\t' ? 't' :
			       c == '\r' ? 'r' : '\\';
			continue;
		}
		*p++ = 'x';
		*p++ = hex[c >> 4];
		*p++ = hex[c & 15];
	}
	*p = '\0';
	return p - dst;
}
