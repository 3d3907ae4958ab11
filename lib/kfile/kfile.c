// SPDX-License-Identifier: LGPL-2.1-only
/*
 * The ktrace record file: writer and checking reader. The format is
 * described in kfile.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/internal.h"
#include "kfile/kfile.h"

#define KF_BYTE_ORDER 0x01020304u
#define KF_MUL 0x9e3779b97f4a7c15ull
#define KF_TABLE_FLUSH (1u << 20)
#define KF_MAX_TABLE (256u << 20)	/* largest table section read */
#define KF_MAX_DATA (256u << 20)	/* largest data section read */

uint64_t kt_kf_sum(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = (h + w) * KF_MUL;
	}
	return h;
}

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* ---------------------------------------------------------- byte buffers */

static void bb_put(struct kt_buf *b, const void *p, size_t n)
{
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void bb_u32(struct kt_buf *b, uint32_t v)
{
	bb_put(b, &v, 4);
}

static void bb_u64(struct kt_buf *b, uint64_t v)
{
	bb_put(b, &v, 8);
}

static size_t str_need(const char *s)
{
	return 4 + strlen(s) + 1;
}

static void bb_str(struct kt_buf *b, const char *s)
{
	size_t n = strlen(s);

	bb_u32(b, n);
	bb_put(b, s, n + 1);
}

/* ---------------------------------------------------------------- writer */

#define KF_NR_TABLES 12	/* indexed by type, META..BUILDIDS */

struct kt_kfw {
	int fd;
	int err;
	unsigned char *buf;	/* section header + records */
	size_t cap, len;
	uint64_t h;		/* running checksum of the records */
	uint64_t nr_records, data_bytes, nr_sections;
	uint64_t file_bytes;	/* written to fd so far */
	/* fd's offset where the file started (-1: not a seekable file),
	 * and its size up to the last complete section */
	off_t base;
	uint64_t good_bytes;
	struct kt_buf tab[KF_NR_TABLES];
	bool tables_pending;
};

static int write_all(int fd, const void *p, size_t n);

/* A section is complete (ok) or the first write failed: the file then
 * ends with its last complete section, not with a part of one. */
static void kfw_section_end(struct kt_kfw *w, int err)
{
	if (!err) {
		w->nr_sections++;
		w->good_bytes = w->file_bytes;
		return;
	}
	w->err = err;
	if (w->base >= 0 && ftruncate(w->fd, w->base + w->good_bytes) < 0)
		return;	/* not a file that can be cut: as it is */
}

/* Write to the file, counting what reached it. */
static int kfw_write(struct kt_kfw *w, const void *p, size_t n)
{
	int err = write_all(w->fd, p, n);

	if (!err)
		w->file_bytes += n;
	return err;
}

static int write_all(int fd, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n) {
		ssize_t r = write(fd, b, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		b += r;
		n -= r;
	}
	return 0;
}

static void sec_header(unsigned char *hdr, uint32_t type, uint64_t size,
		       uint64_t payload_sum)
{
	uint32_t flags = 0;
	uint64_t h;

	memcpy(hdr, &type, 4);
	memcpy(hdr + 4, &flags, 4);
	memcpy(hdr + 8, &size, 8);
	h = kt_kf_sum_final(kt_kf_sum(payload_sum, hdr, 16));
	memcpy(hdr + 16, &h, 8);
}

/* Write one section whose payload is p/n (n need not be aligned). */
static int write_section(struct kt_kfw *w, uint32_t type, const void *p,
			 size_t n)
{
	unsigned char hdr[KT_KF_SEC_HDR_SIZE];
	static const unsigned char zero[8];
	size_t whole = n & ~(size_t)7, rest = n - whole;
	unsigned char tail[8] = { 0 };
	uint64_t h;
	int err;

	if (w->err)
		return w->err;
	memcpy(tail, (const unsigned char *)p + whole, rest);
	h = kt_kf_sum(KT_KF_SEED, p, whole);
	if (rest)
		h = kt_kf_sum(h, tail, 8);
	sec_header(hdr, type, n, h);
	err = kfw_write(w, hdr, sizeof(hdr));
	if (!err)
		err = kfw_write(w, p, n);
	if (!err && rest)
		err = kfw_write(w, zero, 8 - rest);
	kfw_section_end(w, err);
	return err;
}

static int flush_tables(struct kt_kfw *w)
{
	int t, err = 0;

	for (t = 0; t < KF_NR_TABLES; t++) {
		struct kt_buf *b = &w->tab[t];

		if (!b->len)
			continue;
		err = write_section(w, t, b->p, b->len);
		b->len = 0;
		if (err)
			break;
	}
	w->tables_pending = false;
	return err;
}

static int flush_data(struct kt_kfw *w)
{
	size_t n = w->len - KT_KF_SEC_HDR_SIZE;
	int err;

	if (!n)
		return w->err;
	if (w->err)
		return w->err;
	sec_header(w->buf, KT_KF_DATA, n, w->h);
	err = kfw_write(w, w->buf, w->len);
	w->len = KT_KF_SEC_HDR_SIZE;
	w->h = KT_KF_SEED;
	kfw_section_end(w, err);
	return err;
}

struct kt_kfw *kt_kfw_open(int fd, size_t bufsize)
{
	unsigned char hdr[KT_KF_HDR_SIZE];
	uint32_t v = KT_KF_VERSION, bo = KF_BYTE_ORDER;
	uint64_t flags = 0, h;
	struct kt_kfw *w;
	int err;

	if (fd < 0) {
		errno = EBADF;
		return NULL;
	}
	if (!bufsize)
		bufsize = 1u << 20;
	if (bufsize < 65536 + KT_KF_SEC_HDR_SIZE)
		bufsize = 65536 + KT_KF_SEC_HDR_SIZE;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->buf = malloc(bufsize);
	if (!w->buf) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	w->base = lseek(fd, 0, SEEK_CUR);
	w->cap = bufsize;
	w->len = KT_KF_SEC_HDR_SIZE;
	w->h = KT_KF_SEED;
	memcpy(hdr, KT_KF_MAGIC, 8);
	memcpy(hdr + 8, &v, 4);
	memcpy(hdr + 12, &bo, 4);
	memcpy(hdr + 16, &flags, 8);
	h = kt_kf_sum_final(kt_kf_sum(KT_KF_SEED, hdr, 24));
	memcpy(hdr + 24, &h, 8);
	err = kfw_write(w, hdr, sizeof(hdr));
	if (err) {
		free(w->buf);
		free(w);
		errno = -err;
		return NULL;
	}
	w->good_bytes = w->file_bytes;
	return w;
}

/* Room for n more bytes in table t, flushing it when it grew large. */
static int tab_reserve(struct kt_kfw *w, int t, size_t n)
{
	struct kt_buf *b = &w->tab[t];
	int err;

	if (w->err)
		return w->err;
	if (b->len && b->len + n > KF_TABLE_FLUSH) {
		err = write_section(w, t, b->p, b->len);
		b->len = 0;
		if (err)
			return err;
	}
	if (n > KF_MAX_TABLE / 2)
		return -EINVAL;
	err = kt_buf_reserve(b, n);
	if (!err)
		w->tables_pending = true;
	return err;
}

int kt_kfw_meta(struct kt_kfw *w, const char *key, const char *value)
{
	int err;

	if (!key || !value)
		return -EINVAL;
	err = tab_reserve(w, KT_KF_META, str_need(key) + str_need(value));
	if (err)
		return err;
	bb_str(&w->tab[KT_KF_META], key);
	bb_str(&w->tab[KT_KF_META], value);
	return 0;
}

int kt_kfw_attr(struct kt_kfw *w, const struct kt_kf_attr *a)
{
	struct kt_buf *b = &w->tab[KT_KF_ATTR];
	const char *name = a->name ? a->name : "";
	int err;

	err = tab_reserve(w, KT_KF_ATTR, 32 + str_need(name));
	if (err)
		return err;
	bb_u32(b, a->type);
	bb_u32(b, a->flags);
	bb_u64(b, a->config);
	bb_u64(b, a->sample_type);
	bb_u32(b, a->clockid);
	bb_str(b, name);
	return 0;
}

int kt_kfw_id(struct kt_kfw *w, uint64_t id, uint32_t attr, int32_t cpu)
{
	struct kt_buf *b = &w->tab[KT_KF_IDS];
	int err = tab_reserve(w, KT_KF_IDS, 16);

	if (err)
		return err;
	bb_u64(b, id);
	bb_u32(b, attr);
	bb_u32(b, (uint32_t)cpu);
	return 0;
}

int kt_kfw_format(struct kt_kfw *w, uint32_t id, const char *system,
		  const char *name, const char *format)
{
	struct kt_buf *b = &w->tab[KT_KF_FORMATS];
	int err;

	if (!system || !name || !format)
		return -EINVAL;
	err = tab_reserve(w, KT_KF_FORMATS, 4 + str_need(system) +
			  str_need(name) + str_need(format));
	if (err)
		return err;
	bb_u32(b, id);
	bb_str(b, system);
	bb_str(b, name);
	bb_str(b, format);
	return 0;
}

int kt_kfw_header_page(struct kt_kfw *w, const char *text)
{
	int err;

	if (!text)
		return -EINVAL;
	err = tab_reserve(w, KT_KF_HEADER_PAGE, str_need(text));
	if (err)
		return err;
	bb_str(&w->tab[KT_KF_HEADER_PAGE], text);
	return 0;
}

int kt_kfw_ksym(struct kt_kfw *w, uint64_t addr, char type, const char *name)
{
	struct kt_buf *b = &w->tab[KT_KF_KALLSYMS];
	int err;

	if (!name)
		return -EINVAL;
	err = tab_reserve(w, KT_KF_KALLSYMS, 12 + str_need(name));
	if (err)
		return err;
	bb_u64(b, addr);
	bb_u32(b, (unsigned char)type);
	bb_str(b, name);
	return 0;
}

int kt_kfw_comm(struct kt_kfw *w, uint32_t pid, uint32_t tid,
		const char *comm)
{
	struct kt_buf *b = &w->tab[KT_KF_COMMS];
	int err;

	if (!comm)
		return -EINVAL;
	err = tab_reserve(w, KT_KF_COMMS, 8 + str_need(comm));
	if (err)
		return err;
	bb_u32(b, pid);
	bb_u32(b, tid);
	bb_str(b, comm);
	return 0;
}

int kt_kfw_uframe(struct kt_kfw *w, const char *path, uint64_t vaddr,
		  const char *text)
{
	struct kt_buf *b = &w->tab[KT_KF_UFRAMES];
	int err;

	if (!path || !text)
		return -EINVAL;
	err = tab_reserve(w, KT_KF_UFRAMES,
			  8 + str_need(path) + str_need(text));
	if (err)
		return err;
	bb_str(b, path);
	bb_u64(b, vaddr);
	bb_str(b, text);
	return 0;
}

int kt_kfw_usrc(struct kt_kfw *w, const char *path, uint64_t vaddr,
		const char *src)
{
	struct kt_buf *b = &w->tab[KT_KF_USRC];
	int err;

	if (!path || !src)
		return -EINVAL;
	err = tab_reserve(w, KT_KF_USRC, 8 + str_need(path) + str_need(src));
	if (err)
		return err;
	bb_str(b, path);
	bb_u64(b, vaddr);
	bb_str(b, src);
	return 0;
}

int kt_kfw_build_id(struct kt_kfw *w, const char *path, const char *id)
{
	struct kt_buf *b = &w->tab[KT_KF_BUILDIDS];
	int err;

	if (!path || !id)
		return -EINVAL;
	err = tab_reserve(w, KT_KF_BUILDIDS, str_need(path) + str_need(id));
	if (err)
		return err;
	bb_str(b, path);
	bb_str(b, id);
	return 0;
}

int kt_kfw_mmap(struct kt_kfw *w, const struct kt_kf_mmap *m)
{
	struct kt_buf *b = &w->tab[KT_KF_MMAPS];
	int err;

	if (!m->filename)
		return -EINVAL;
	err = tab_reserve(w, KT_KF_MMAPS, 72 + str_need(m->filename));
	if (err)
		return err;
	bb_u32(b, m->pid);
	bb_u32(b, m->tid);
	bb_u64(b, m->start);
	bb_u64(b, m->len);
	bb_u64(b, m->pgoff);
	bb_u32(b, m->maj);
	bb_u32(b, m->min);
	bb_u64(b, m->ino);
	bb_u64(b, m->ino_generation);
	bb_u32(b, m->prot);
	bb_u32(b, m->flags);
	bb_str(b, m->filename);
	return 0;
}

int kt_kfw_record(struct kt_kfw *w, const struct perf_event_header *rec)
{
	size_t sz = rec->size;
	int err;

	if (__builtin_expect(w->tables_pending || w->err, 0)) {
		if (w->err)
			return w->err;
		/* Tables go before the records that follow them. */
		err = flush_data(w);
		if (!err)
			err = flush_tables(w);
		if (err)
			return err;
	}
	if (sz < sizeof(*rec) || (sz & 7))
		return -EINVAL;
	if (w->len + sz > w->cap) {
		err = flush_data(w);
		if (err)
			return err;
	}
	memcpy(w->buf + w->len, rec, sz);
	w->h = kt_kf_sum(w->h, w->buf + w->len, sz);
	w->len += sz;
	w->nr_records++;
	w->data_bytes += sz;
	return 0;
}

int kt_kfw_flush(struct kt_kfw *w)
{
	int err = flush_data(w);

	if (!err)
		err = flush_tables(w);
	return err;
}

size_t kt_kfw_pending(const struct kt_kfw *w)
{
	size_t n = w->len - KT_KF_SEC_HDR_SIZE;

	for (int t = 0; t < KF_NR_TABLES; t++)
		n += w->tab[t].len;
	return n;
}

int kt_kfw_error(const struct kt_kfw *w)
{
	return w->err;
}

int kt_kfw_close(struct kt_kfw *w, uint64_t *bytes)
{
	uint64_t end[3];
	int err, t;

	if (!w)
		return -EINVAL;
	flush_data(w);
	flush_tables(w);
	end[0] = w->nr_records;
	end[1] = w->data_bytes;
	end[2] = w->nr_sections;
	write_section(w, KT_KF_END, end, sizeof(end));
	err = w->err;
	if (bytes)
		*bytes = w->file_bytes;
	for (t = 0; t < KF_NR_TABLES; t++)
		free(w->tab[t].p);
	free(w->buf);
	free(w);
	return err;
}

/* ---------------------------------------------------------------- reader */

struct chunk {
	uint64_t off;	/* of the payload */
	uint64_t size;
	uint64_t csum;
	unsigned char hdr[16];
};

struct vec {
	void *v;
	size_t n, cap;
};

struct kt_kfile {
	int fd;			/* -1 for memory */
	const unsigned char *mem;
	uint64_t len;
	struct vec bufs;	/* unsigned char * payloads strings point into */
	struct vec meta, attrs, ids, formats, ksyms, comms, mmaps, uframes;
	struct vec usrcs, build_ids;
	const char *header_page;
	struct vec chunks;	/* struct chunk */
	uint64_t nr_records, data_bytes;
	bool truncated;		/* no END: cut off after its last section */
	/* iteration */
	size_t cur_chunk;
	unsigned char *cbuf;
	size_t cbuf_cap;
	uint64_t clen, cpos;
	uint64_t seen;
	int err;
};

static void *vec_push(struct vec *v, size_t esz)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		void *p = realloc(v->v, cap * esz);

		if (!p)
			return NULL;
		v->v = p;
		v->cap = cap;
	}
	return (unsigned char *)v->v + esz * v->n++;
}

/* Append a copy of the esz bytes at e to v. 0 or -ENOMEM. */
static int vec_add(struct vec *v, const void *e, size_t esz)
{
	void *slot = vec_push(v, esz);

	if (!slot)
		return -ENOMEM;
	memcpy(slot, e, esz);
	return 0;
}

static int src_read(struct kt_kfile *f, uint64_t off, void *buf, size_t n)
{
	unsigned char *b = buf;

	if (off > f->len || n > f->len - off)
		return -EBADMSG;
	if (f->mem) {
		memcpy(buf, f->mem + off, n);
		return 0;
	}
	while (n) {
		ssize_t r = pread(f->fd, b, n, off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EBADMSG;	/* shrank under us */
		b += r;
		off += r;
		n -= r;
	}
	return 0;
}

/* Cursor over a payload. */
struct cur {
	const unsigned char *p, *end;
};

static int get_u32(struct cur *c, uint32_t *v)
{
	if (c->end - c->p < 4)
		return -EBADMSG;
	memcpy(v, c->p, 4);
	c->p += 4;
	return 0;
}

static int get_u64(struct cur *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return -EBADMSG;
	memcpy(v, c->p, 8);
	c->p += 8;
	return 0;
}

static int get_str(struct cur *c, const char **s)
{
	uint32_t n;

	if (get_u32(c, &n))
		return -EBADMSG;
	if ((size_t)(c->end - c->p) < (size_t)n + 1 || c->p[n] != 0)
		return -EBADMSG;
	*s = (const char *)c->p;
	c->p += (size_t)n + 1;
	return 0;
}

/* Read one entry of a table of this type at c into its vector in f. */
static int read_entry(struct kt_kfile *f, uint32_t type, struct cur *c)
{
	switch (type) {
	case KT_KF_META: {
		struct kt_kf_meta e;

		if (get_str(c, &e.key) || get_str(c, &e.value))
			return -EBADMSG;
		return vec_add(&f->meta, &e, sizeof(e));
	}
	case KT_KF_ATTR: {
		struct kt_kf_attr e;

		if (get_u32(c, &e.type) || get_u32(c, &e.flags) ||
		    get_u64(c, &e.config) || get_u64(c, &e.sample_type) ||
		    get_u32(c, &e.clockid) || get_str(c, &e.name))
			return -EBADMSG;
		return vec_add(&f->attrs, &e, sizeof(e));
	}
	case KT_KF_IDS: {
		struct kt_kf_id e;
		uint32_t cpu;

		if (get_u64(c, &e.id) || get_u32(c, &e.attr) ||
		    get_u32(c, &cpu))
			return -EBADMSG;
		e.cpu = (int32_t)cpu;
		return vec_add(&f->ids, &e, sizeof(e));
	}
	case KT_KF_FORMATS: {
		struct kt_kf_format e;

		if (get_u32(c, &e.id) || get_str(c, &e.system) ||
		    get_str(c, &e.name) || get_str(c, &e.format))
			return -EBADMSG;
		return vec_add(&f->formats, &e, sizeof(e));
	}
	case KT_KF_HEADER_PAGE:
		return get_str(c, &f->header_page) ? -EBADMSG : 0;
	case KT_KF_KALLSYMS: {
		struct kt_kf_ksym e;

		if (get_u64(c, &e.addr) || get_u32(c, &e.type) ||
		    get_str(c, &e.name))
			return -EBADMSG;
		return vec_add(&f->ksyms, &e, sizeof(e));
	}
	case KT_KF_COMMS: {
		struct kt_kf_comm e;

		if (get_u32(c, &e.pid) || get_u32(c, &e.tid) ||
		    get_str(c, &e.comm))
			return -EBADMSG;
		return vec_add(&f->comms, &e, sizeof(e));
	}
	case KT_KF_MMAPS: {
		struct kt_kf_mmap e;

		if (get_u32(c, &e.pid) || get_u32(c, &e.tid) ||
		    get_u64(c, &e.start) || get_u64(c, &e.len) ||
		    get_u64(c, &e.pgoff) || get_u32(c, &e.maj) ||
		    get_u32(c, &e.min) || get_u64(c, &e.ino) ||
		    get_u64(c, &e.ino_generation) ||
		    get_u32(c, &e.prot) || get_u32(c, &e.flags) ||
		    get_str(c, &e.filename))
			return -EBADMSG;
		return vec_add(&f->mmaps, &e, sizeof(e));
	}
	case KT_KF_UFRAMES: {
		struct kt_kf_uframe e;

		if (get_str(c, &e.path) || get_u64(c, &e.vaddr) ||
		    get_str(c, &e.text))
			return -EBADMSG;
		return vec_add(&f->uframes, &e, sizeof(e));
	}
	case KT_KF_USRC: {
		struct kt_kf_uframe e;

		if (get_str(c, &e.path) || get_u64(c, &e.vaddr) ||
		    get_str(c, &e.text))
			return -EBADMSG;
		return vec_add(&f->usrcs, &e, sizeof(e));
	}
	case KT_KF_BUILDIDS: {
		struct kt_kf_buildid e;

		if (get_str(c, &e.path) || get_str(c, &e.id))
			return -EBADMSG;
		return vec_add(&f->build_ids, &e, sizeof(e));
	}
	default:
		return -EBADMSG;
	}
}

/* The entries of a table section's payload p (n bytes), into f. */
static int parse_table(struct kt_kfile *f, uint32_t type,
		       const unsigned char *p, size_t n)
{
	struct cur c = { p, p + n };
	int err;

	while (c.p < c.end) {
		err = read_entry(f, type, &c);
		if (err)
			return err;
	}
	return 0;
}

/* Read a whole section payload (with padding) and check its checksum. */
static int read_payload(struct kt_kfile *f, uint64_t off, uint64_t size,
			const unsigned char *hdr, uint64_t csum,
			unsigned char *buf)
{
	size_t padded = pad8(size);
	uint64_t h;
	size_t i;
	int err;

	err = src_read(f, off, buf, padded);
	if (err)
		return err;
	for (i = size; i < padded; i++)
		if (buf[i])
			return -EBADMSG;
	h = kt_kf_sum(KT_KF_SEED, buf, padded);
	h = kt_kf_sum_final(kt_kf_sum(h, hdr, 16));
	return h == csum ? 0 : -EBADMSG;
}

/* The file header: magic, version, byte order, no flags, its checksum. */
static int kf_check_header(struct kt_kfile *f)
{
	unsigned char hdr[KT_KF_HDR_SIZE];
	uint32_t version, bo;
	uint64_t flags, h;
	int err;

	if (f->len < 8 || src_read(f, 0, hdr, 8) ||
	    memcmp(hdr, KT_KF_MAGIC, 8))
		return -EINVAL;
	err = src_read(f, 0, hdr, sizeof(hdr));
	if (err)
		return err;
	memcpy(&version, hdr + 8, 4);
	memcpy(&bo, hdr + 12, 4);
	memcpy(&flags, hdr + 16, 8);
	memcpy(&h, hdr + 24, 8);
	if (kt_kf_sum_final(kt_kf_sum(KT_KF_SEED, hdr, 24)) != h)
		return -EBADMSG;
	if (version != KT_KF_VERSION || bo != KF_BYTE_ORDER)
		return -EINVAL;
	if (flags)
		return -EBADMSG;
	return 0;
}

/* One section as its header gives it; its payload is at off. */
struct sec {
	const unsigned char *hdr;	/* KT_KF_SEC_HDR_SIZE bytes */
	uint32_t type;
	uint64_t off, size, csum;
};

/* A DATA section is only noted: kt_kfile_next() reads and checks it. */
static int kf_add_chunk(struct kt_kfile *f, const struct sec *s)
{
	struct chunk *c;

	if (s->size > KF_MAX_DATA || !s->size)
		return -EBADMSG;
	c = vec_push(&f->chunks, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->off = s->off;
	c->size = s->size;
	c->csum = s->csum;
	memcpy(c->hdr, s->hdr, 16);
	f->data_bytes += s->size;
	return 0;
}

/* The END section: its counts agree with the nsec sections before it. */
static int kf_load_end(struct kt_kfile *f, const struct sec *s, uint64_t nsec)
{
	uint64_t e[3];
	int err;

	if (s->size != sizeof(e))
		return -EBADMSG;
	err = read_payload(f, s->off, s->size, s->hdr, s->csum,
			   (unsigned char *)e);
	if (err)
		return err;
	if (e[1] != f->data_bytes || e[2] != nsec ||
	    e[0] > e[1] / sizeof(struct perf_event_header))
		return -EBADMSG;
	f->nr_records = e[0];
	return 0;
}

/* A table section, read whole and checked, then parsed; the payload is
 * kept in f->bufs, the entries' strings point into it. */
static int kf_load_table(struct kt_kfile *f, const struct sec *s)
{
	unsigned char *buf, **slot;
	int err;

	if (s->size > KF_MAX_TABLE)
		return -EBADMSG;
	buf = malloc(pad8(s->size) ? pad8(s->size) : 1);
	if (!buf)
		return -ENOMEM;
	slot = vec_push(&f->bufs, sizeof(*slot));
	if (!slot) {
		free(buf);
		return -ENOMEM;
	}
	*slot = buf;
	err = read_payload(f, s->off, s->size, s->hdr, s->csum, buf);
	if (!err)
		err = parse_table(f, s->type, buf, s->size);
	return err;
}

static int kf_load(struct kt_kfile *f)
{
	uint64_t off, nsec = 0;
	bool end = false;
	int err;

	err = kf_check_header(f);
	if (err)
		return err;
	off = KT_KF_HDR_SIZE;
	while (off < f->len) {
		unsigned char sh[KT_KF_SEC_HDR_SIZE];
		struct sec s = { .hdr = sh };
		uint32_t sflags;
		uint64_t room;

		if (end)
			return -EBADMSG;	/* bytes after END */
		if (f->len - off < sizeof(sh))
			break;		/* cut off inside a section header */
		err = src_read(f, off, sh, sizeof(sh));
		if (err)
			return err;
		memcpy(&s.type, sh, 4);
		memcpy(&sflags, sh + 4, 4);
		memcpy(&s.size, sh + 8, 8);
		memcpy(&s.csum, sh + 16, 8);
		off += sizeof(sh);
		s.off = off;
		room = f->len - off;
		if (sflags || s.type > KT_KF_END)
			return -EBADMSG;
		/* a section cut off: the file ends before it does */
		if (s.size > room || pad8(s.size) > room)
			break;
		if (s.type == KT_KF_DATA) {
			err = kf_add_chunk(f, &s);
		} else if (s.type == KT_KF_END) {
			err = kf_load_end(f, &s, nsec);
			end = true;
		} else if (s.type >= KT_KF_META && s.type <= KT_KF_BUILDIDS) {
			err = kf_load_table(f, &s);
		} else {
			return -EBADMSG;
		}
		if (err)
			return err;
		off += pad8(s.size);
		nsec++;
	}
	if (!end) {
		/* The writer was killed: what it had written is whole and
		 * checked, the number of records is not known. */
		if (!f->attrs.n)
			return -EBADMSG;
		f->truncated = true;
		f->nr_records = UINT64_MAX;
	}
	return 0;
}

bool kt_kfile_truncated(const struct kt_kfile *f)
{
	return f->truncated;
}

void kt_kfile_free(struct kt_kfile *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->bufs.n; i++)
		free(((unsigned char **)f->bufs.v)[i]);
	free(f->bufs.v);
	free(f->meta.v);
	free(f->attrs.v);
	free(f->ids.v);
	free(f->formats.v);
	free(f->ksyms.v);
	free(f->comms.v);
	free(f->mmaps.v);
	free(f->uframes.v);
	free(f->usrcs.v);
	free(f->build_ids.v);
	free(f->chunks.v);
	free(f->cbuf);
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}

static struct kt_kfile *kf_finish(struct kt_kfile *f)
{
	int err = kf_load(f);

	if (err) {
		kt_kfile_free(f);
		errno = -err;
		return NULL;
	}
	return f;
}

struct kt_kfile *kt_kfile_open_mem(const void *buf, size_t len)
{
	struct kt_kfile *f;

	if (!buf && len) {
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->fd = -1;
	f->mem = buf ? buf : (const unsigned char *)"";
	f->len = len;
	return kf_finish(f);
}

struct kt_kfile *kt_kfile_open(const char *path)
{
	struct kt_kfile *f;
	struct stat st;
	int fd;

	fd = kt_open_regular(path);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		return NULL;
	}
	f->fd = fd;
	f->len = st.st_size;
	return kf_finish(f);
}

void kt_kfile_rewind(struct kt_kfile *f)
{
	f->cur_chunk = 0;
	f->clen = f->cpos = 0;
	f->seen = 0;
	f->err = 0;
}

static int load_chunk(struct kt_kfile *f)
{
	const struct chunk *c = &((struct chunk *)f->chunks.v)[f->cur_chunk];
	size_t padded = pad8(c->size);
	int err;

	if (padded > f->cbuf_cap) {
		unsigned char *b = realloc(f->cbuf, padded);

		if (!b)
			return -ENOMEM;
		f->cbuf = b;
		f->cbuf_cap = padded;
	}
	err = read_payload(f, c->off, c->size, c->hdr, c->csum, f->cbuf);
	if (err)
		return err;
	f->clen = c->size;
	f->cpos = 0;
	f->cur_chunk++;
	return 0;
}

int kt_kfile_next(struct kt_kfile *f, const struct perf_event_header **rec)
{
	struct perf_event_header h;
	int err;

	if (f->err)
		return f->err;
	while (f->cpos == f->clen) {
		if (f->cur_chunk == f->chunks.n) {
			if (f->seen != f->nr_records && !f->truncated)
				return f->err = -EBADMSG;
			return 0;
		}
		err = load_chunk(f);
		if (err)
			return f->err = err;
	}
	if (f->clen - f->cpos < sizeof(h))
		return f->err = -EBADMSG;
	memcpy(&h, f->cbuf + f->cpos, sizeof(h));
	if (h.size < sizeof(h) || (h.size & 7) || h.size > f->clen - f->cpos)
		return f->err = -EBADMSG;
	*rec = (const struct perf_event_header *)(f->cbuf + f->cpos);
	f->cpos += h.size;
	if (++f->seen > f->nr_records)
		return f->err = -EBADMSG;
	return 1;
}

#define KF_TABLE_GETTER(fn, type, field)				\
const type *fn(const struct kt_kfile *f, size_t *n)			\
{									\
	*n = f->field.n;						\
	return f->field.v;						\
}

KF_TABLE_GETTER(kt_kfile_attrs, struct kt_kf_attr, attrs)
KF_TABLE_GETTER(kt_kfile_ids, struct kt_kf_id, ids)
KF_TABLE_GETTER(kt_kfile_formats, struct kt_kf_format, formats)
KF_TABLE_GETTER(kt_kfile_ksyms, struct kt_kf_ksym, ksyms)
KF_TABLE_GETTER(kt_kfile_comms, struct kt_kf_comm, comms)
KF_TABLE_GETTER(kt_kfile_mmaps, struct kt_kf_mmap, mmaps)
KF_TABLE_GETTER(kt_kfile_uframes, struct kt_kf_uframe, uframes)
KF_TABLE_GETTER(kt_kfile_usrcs, struct kt_kf_uframe, usrcs)
KF_TABLE_GETTER(kt_kfile_build_ids, struct kt_kf_buildid, build_ids)

const char *kt_kfile_meta_get(const struct kt_kfile *f, const char *key)
{
	const struct kt_kf_meta *m = f->meta.v;
	size_t i;

	for (i = f->meta.n; i-- > 0;)
		if (!strcmp(m[i].key, key))
			return m[i].value;
	return NULL;
}

