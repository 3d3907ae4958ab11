// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The source side of an annotation: each instruction's file and line
 * from the DWARF line table (kt_dwarf_srcline()), the distinct lines of the
 * function, and their text from the source files when they are on disk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/internal.h"

#include "sym/annotate.h"

/* The index of file name in a->files, added when new; -1: no memory. */
static int file_index(struct kt_annot *a, const char *name)
{
	char **nv;

	for (int i = 0; i < a->nfiles; i++)
		if (!strcmp(a->files[i], name))
			return i;
	nv = realloc(a->files, (a->nfiles + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	a->files = nv;
	nv[a->nfiles] = strdup(name);
	if (!nv[a->nfiles])
		return -1;
	return a->nfiles++;
}

int kt_annot_srclines(struct kt_annot *a, struct kt_dwarf_file *f)
{
	for (size_t i = 0; f && i < a->ninsn; i++) {
		struct kt_ainsn *in = &a->insn[i];
		char *name = kt_dwarf_srcline(f, in->addr, &in->line);

		in->file = -1;
		if (!name || in->line <= 0) {
			free(name);
			in->line = 0;
			continue;
		}
		in->file = file_index(a, name);
		free(name);
		if (in->file < 0)
			return -ENOMEM;
	}
	return kt_annot_lines(a);
}

static int aline_cmp(const void *x, const void *y)
{
	const struct kt_aline *p = x, *q = y;

	if (p->file != q->file)
		return p->file < q->file ? -1 : 1;
	return (p->line > q->line) - (p->line < q->line);
}

int kt_annot_lines(struct kt_annot *a)
{
	size_t n = 0;

	free(a->lines);
	a->nlines = 0;
	a->lines = calloc(a->ninsn ? a->ninsn : 1, sizeof(*a->lines));
	if (!a->lines)
		return -ENOMEM;
	for (size_t i = 0; i < a->ninsn; i++)
		if (a->insn[i].file >= 0)
			a->lines[n++] = (struct kt_aline){
				.file = a->insn[i].file,
				.line = a->insn[i].line,
			};
	qsort(a->lines, n, sizeof(*a->lines), aline_cmp);
	/* one entry per (file, line) */
	a->nlines = 0;
	for (size_t i = 0; i < n; i++)
		if (!a->nlines || aline_cmp(&a->lines[a->nlines - 1],
					    &a->lines[i]))
			a->lines[a->nlines++] = a->lines[i];
	return 0;
}

/* Split buf (len bytes, NUL-terminated past them) into s's lines. */
static int split_lines(struct kt_asrc *s, char *buf, size_t len)
{
	int n = 0, cap = 0;

	s->buf = buf;
	for (size_t i = 0; i < len;) {
		char *nl = memchr(buf + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - buf) : len;

		if (n == cap) {
			const char **nv;

			cap = cap ? 2 * cap : 256;
			nv = realloc(s->line, cap * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			s->line = nv;
		}
		buf[end] = '\0';
		s->line[n++] = buf + i;
		i = end + 1;
	}
	s->nlines = n;
	return 0;
}

/* Source files over this are not read (a source file is far smaller). */
#define SRC_MAX (64u << 20)

/* Read files[i] into src[i]; a file not there (or not regular) is
 * left unread. 0 or -ENOMEM. */
static int read_src(struct kt_annot *a, int i)
{
	int fd = kt_open_regular(a->files[i]);
	struct stat st;
	size_t len;
	char *buf;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || st.st_size > SRC_MAX) {
		close(fd);
		return 0;
	}
	buf = kt_read_fd_hint(fd, &len, st.st_size + 1);
	close(fd);
	if (!buf)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (split_lines(&a->src[i], buf, len)) {
		free(buf);
		a->src[i].buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

int kt_annot_sources(struct kt_annot *a)
{
	a->src = calloc(a->nfiles ? a->nfiles : 1, sizeof(*a->src));
	if (!a->src)
		return -ENOMEM;
	for (int i = 0; i < a->nfiles; i++)
		if (read_src(a, i))
			return -ENOMEM;
	for (size_t k = 0; k < a->nlines; k++) {
		struct kt_aline *l = &a->lines[k];
		const struct kt_asrc *s = &a->src[l->file];

		if (s->buf && l->line <= s->nlines) {
			l->text = s->line[l->line - 1];
			l->text_len = strlen(l->text);
		}
	}
	return 0;
}
