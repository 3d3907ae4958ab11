// SPDX-License-Identifier: LGPL-2.1-only
/*
 * Opening the ELF files a traced program names (the binaries it maps,
 * the debug files they name) before libelf or libdw reads them: a FIFO,
 * a device, a file of a pseudo file system or a sparse file of many GB
 * at such a path would hang or starve ktrace.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/internal.h"

/* A field of the header's byte order (EI_DATA) at p, n bytes. */
static uint64_t get(const unsigned char *p, int n, bool big)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

struct elf_layout {
	bool is64, big;
	uint64_t phoff, shoff;
	unsigned int phnum, shnum, phentsize, shentsize;
};

static int read_layout(int fd, struct elf_layout *l)
{
	unsigned char h[64];

	if (pread(fd, h, sizeof(h), 0) < 52 || memcmp(h, ELFMAG, SELFMAG) ||
	    (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64) ||
	    (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB))
		return -ENOEXEC;
	l->is64 = h[EI_CLASS] == ELFCLASS64;
	l->big = h[EI_DATA] == ELFDATA2MSB;
	if (l->is64) {
		l->phoff = get(h + 32, 8, l->big);
		l->shoff = get(h + 40, 8, l->big);
		l->phentsize = get(h + 54, 2, l->big);
		l->phnum = get(h + 56, 2, l->big);
		l->shentsize = get(h + 58, 2, l->big);
		l->shnum = get(h + 60, 2, l->big);
	} else {
		l->phoff = get(h + 28, 4, l->big);
		l->shoff = get(h + 32, 4, l->big);
		l->phentsize = get(h + 42, 2, l->big);
		l->phnum = get(h + 44, 2, l->big);
		l->shentsize = get(h + 46, 2, l->big);
		l->shnum = get(h + 48, 2, l->big);
	}
	if ((l->phnum && l->phentsize < (l->is64 ? 56u : 32u)) ||
	    (l->shoff && l->shentsize < (l->is64 ? 64u : 40u)))
		return -ENOEXEC;
	return 0;
}

/* a + b, saturated: a hostile header may overflow */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * The bytes an ELF file's headers account for: its header, program and
 * section header tables, the segments' and the sections' file bytes.
 * 0 or -errno (-ENOEXEC: not ELF, or tables beyond size).
 */
static int elf_extent(int fd, uint64_t size, uint64_t *end)
{
	struct elf_layout l;
	unsigned char *t;
	size_t tlen;
	int ret = read_layout(fd, &l);

	if (ret)
		return ret;
	*end = l.is64 ? 64 : 52;
	/* section 0's sh_size holds the count when there are 65280+ */
	if (l.shoff && !l.shnum) {
		unsigned char s0[64];

		if (pread(fd, s0, l.shentsize > 64 ? 64 : l.shentsize,
			  l.shoff) < (l.is64 ? 40 : 24))
			return -ENOEXEC;
		l.shnum = get(s0 + (l.is64 ? 32 : 20), l.is64 ? 8 : 4, l.big);
	}
	for (int pass = 0; pass < 2; pass++) {
		uint64_t off = pass ? l.shoff : l.phoff;
		uint64_t num = pass ? l.shnum : l.phnum;
		unsigned int esz = pass ? l.shentsize : l.phentsize;

		if (!off || !num)
			continue;
		if (num > size / esz || add_sat(off, num * esz) > size)
			return -ENOEXEC;	/* a table past the end */
		tlen = num * esz;
		if (add_sat(off, tlen) > *end)
			*end = off + tlen;
		t = malloc(tlen);
		if (!t)
			return -ENOMEM;
		if (pread(fd, t, tlen, off) != (ssize_t)tlen) {
			free(t);
			return -EIO;
		}
		for (uint64_t i = 0; i < num; i++) {
			const unsigned char *e = t + i * esz;
			uint64_t o, n;

			if (pass && get(e + 4, 4, l.big) == SHT_NOBITS)
				continue;
			if (pass) {	/* sh_offset, sh_size */
				o = get(e + (l.is64 ? 24 : 16), l.is64 ? 8 : 4,
					l.big);
				n = get(e + (l.is64 ? 32 : 20), l.is64 ? 8 : 4,
					l.big);
			} else {	/* p_offset, p_filesz */
				o = get(e + (l.is64 ? 8 : 4), l.is64 ? 8 : 4,
					l.big);
				n = get(e + (l.is64 ? 32 : 16), l.is64 ? 8 : 4,
					l.big);
			}
			if (add_sat(o, n) > *end)
				*end = add_sat(o, n);
		}
		free(t);
	}
	return 0;
}

int kt_open_elf(const char *path, uint64_t max)
{
	int fd = kt_open_regular(path), e;
	struct stat st;
	uint64_t end;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		e = errno;
		goto fail;
	}
	e = EFBIG;
	if ((uint64_t)st.st_size > max)
		goto fail;
	e = -elf_extent(fd, st.st_size, &end);
	if (e)
		goto fail;
	/* What the headers leave out is padding: at most a page's worth
	 * past their extent rounded up to a page. */
	e = EFBIG;
	if ((uint64_t)st.st_size > add_sat(end | 4095, 4097))
		goto fail;
	return fd;
fail:
	close(fd);
	errno = e;
	return -1;
}
