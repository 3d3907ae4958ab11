// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/kfile/kfile.c: round trip and an untrusted reader. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "kfile/kfile.h"
#include "synring.h"

static uint64_t count_records(struct kt_kfile *f)
{
	const struct perf_event_header *h;
	uint64_t n = 0;

	while (kt_kfile_next(f, &h) > 0)
		n++;
	return n;
}

static const char fmt_text[] =
	"name: sys_enter_getppid\nID: 110\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"\"\n";

/* Write a file into a memfd; returns its bytes (caller frees). */
static unsigned char *make_file(int nrec, size_t bufsize, size_t *len)
{
	struct kt_kf_attr a = {
		.type = PERF_TYPE_TRACEPOINT, .flags = KT_KF_ATTR_SAMPLE_ID_ALL,
		.config = 110, .sample_type = SYN_SAMPLE_TYPE, .clockid = 1,
		.name = "syscalls:sys_enter_getppid",
	};
	struct kt_kf_mmap mm = {
		.pid = 10, .tid = 10, .start = 0x400000, .len = 0x1000,
		.pgoff = 0, .maj = 8, .min = 1, .ino = 1234,
		.ino_generation = 5, .prot = 5, .flags = 2,
		.filename = "/usr/bin/true",
	};
	unsigned char rec[256];
	struct kt_kfw *w;
	unsigned char *buf;
	struct stat st;
	int fd, i;

	fd = memfd_create("kfile", 0);
	assert_true(fd >= 0);
	w = kt_kfw_open(fd, bufsize);
	assert_non_null(w);
	assert_int_equal(kt_kfw_meta(w, "release", "6.18.0"), 0);
	assert_int_equal(kt_kfw_attr(w, &a), 0);
	assert_int_equal(kt_kfw_id(w, 77, 0, 1), 0);
	assert_int_equal(kt_kfw_id(w, 78, 0, -1), 0);
	assert_int_equal(kt_kfw_format(w, 110, "syscalls",
				       "sys_enter_getppid", fmt_text), 0);
	assert_int_equal(kt_kfw_header_page(w, "\tfield: u64 timestamp;\n"),
			 0);
	assert_int_equal(kt_kfw_ksym(w, 0xffffffff81000000ull, 'T',
				     "_stext"), 0);
	assert_int_equal(kt_kfw_comm(w, 10, 11, "worker"), 0);
	assert_int_equal(kt_kfw_mmap(w, &mm), 0);
	assert_int_equal(kt_kfw_uframe(w, "/usr/bin/true", 0x1234,
				       "inner+0x4 (inlined)\nouter+0x4 (/usr/bin/true)"),
			 0);
	assert_int_equal(kt_kfw_uframe(w, NULL, 0, "x"), -EINVAL);
	for (i = 0; i < nrec; i++) {
		size_t l = syn_sample(rec, 77, 10, 11, 1000 + i, i & 1,
				      4 + i % 40, i);

		assert_int_equal(l % 8, 0);
		assert_int_equal(kt_kfw_record(w, (void *)rec), 0);
		if (i == nrec / 2) {
			/* A table entry in the middle of the records. */
			assert_int_equal(kt_kfw_comm(w, 12, 12, "late"), 0);
			assert_int_equal(kt_kfw_meta(w, "release", "override"),
					 0);
		}
	}
	rec[0] = 1;	/* a size that is not a multiple of 8 */
	((struct perf_event_header *)rec)->size = 20;
	assert_int_equal(kt_kfw_record(w, (void *)rec), -EINVAL);
	assert_int_equal(kt_kfw_close(w, NULL), 0);
	assert_int_equal(fstat(fd, &st), 0);
	*len = st.st_size;
	buf = malloc(*len + 1);
	assert_int_equal(pread(fd, buf, *len, 0), (ssize_t)*len);
	close(fd);
	return buf;
}

/* Open and read everything; 0 if all fine, else the -errno met. */
static int read_all(const unsigned char *buf, size_t len, uint64_t *nrec)
{
	const struct perf_event_header *rec;
	struct kt_kfile *f = kt_kfile_open_mem(buf, len);
	int r;
	uint64_t n = 0;

	if (!f)
		return -errno;
	while ((r = kt_kfile_next(f, &rec)) == 1)
		n++;
	if (!r && kt_kfile_truncated(f))
		r = 1;
	kt_kfile_free(f);
	if (nrec)
		*nrec = n;
	return r;
}

/*
 * Read m as read_all() does, and check that whatever it gives is the
 * original's: a file cut off (1) or whole (0) yields a prefix of orig's
 * records, byte for byte; a damaged one is refused. Never a wrong record.
 */
static int read_prefix(const unsigned char *orig, size_t olen,
		       const unsigned char *m, size_t mlen, uint64_t *nrec)
{
	const struct perf_event_header *a, *b;
	struct kt_kfile *fo = kt_kfile_open_mem(orig, olen);
	struct kt_kfile *fm = kt_kfile_open_mem(m, mlen);
	uint64_t n = 0;
	int r;

	assert_non_null(fo);
	if (!fm) {
		kt_kfile_free(fo);
		return -errno;
	}
	while ((r = kt_kfile_next(fm, &b)) == 1) {
		assert_int_equal(kt_kfile_next(fo, &a), 1);
		assert_int_equal(a->size, b->size);
		assert_memory_equal(a, b, a->size);
		n++;
	}
	if (!r && kt_kfile_truncated(fm))
		r = 1;
	else if (!r)	/* whole: all of it */
		assert_int_equal(kt_kfile_next(fo, &a), 0);
	kt_kfile_free(fm);
	kt_kfile_free(fo);
	if (nrec)
		*nrec = n;
	return r;
}

static void test_roundtrip(void **state)
{
	const struct perf_event_header *rec;
	const struct kt_kf_attr *a;
	const struct kt_kf_id *ids;
	const struct kt_kf_format *fm;
	const struct kt_kf_ksym *ks;
	const struct kt_kf_comm *cm;
	const struct kt_kf_mmap *mm;
	const struct kt_kf_uframe *uf;
	struct kt_kfile *f;
	unsigned char *buf, exp[256];
	size_t len, n;
	int i, pass;

	(void)state;
	/* small buffer: many DATA sections, tables between them */
	buf = make_file(3000, 4096, &len);
	f = kt_kfile_open_mem(buf, len);
	assert_non_null(f);
	assert_int_equal(count_records(f), 3000);
	kt_kfile_rewind(f);
	assert_string_equal(kt_kfile_meta_get(f, "release"), "override");
	assert_null(kt_kfile_meta_get(f, "nope"));
	a = kt_kfile_attrs(f, &n);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(a[0].config, 110);
	assert_int_equal(a[0].sample_type, SYN_SAMPLE_TYPE);
	assert_int_equal(a[0].flags, KT_KF_ATTR_SAMPLE_ID_ALL);
	assert_string_equal(a[0].name, "syscalls:sys_enter_getppid");
	ids = kt_kfile_ids(f, &n);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0].id, 77);
	assert_int_equal(ids[0].cpu, 1);
	assert_int_equal(ids[1].cpu, -1);
	fm = kt_kfile_formats(f, &n);
	assert_int_equal(n, 1);
	assert_int_equal(fm[0].id, 110);
	assert_string_equal(fm[0].system, "syscalls");
	assert_string_equal(fm[0].name, "sys_enter_getppid");
	assert_string_equal(fm[0].format, fmt_text);
	ks = kt_kfile_ksyms(f, &n);
	assert_int_equal(n, 1);
	assert_int_equal(ks[0].addr, 0xffffffff81000000ull);
	assert_int_equal(ks[0].type, 'T');
	assert_string_equal(ks[0].name, "_stext");
	cm = kt_kfile_comms(f, &n);
	assert_int_equal(n, 2);
	assert_string_equal(cm[0].comm, "worker");
	assert_int_equal(cm[0].tid, 11);
	assert_string_equal(cm[1].comm, "late");
	mm = kt_kfile_mmaps(f, &n);
	assert_int_equal(n, 1);
	assert_string_equal(mm[0].filename, "/usr/bin/true");
	assert_int_equal(mm[0].start, 0x400000);
	assert_int_equal(mm[0].ino, 1234);
	assert_int_equal(mm[0].ino_generation, 5);
	assert_int_equal(mm[0].maj, 8);
	assert_int_equal(mm[0].prot, 5);
	uf = kt_kfile_uframes(f, &n);
	assert_int_equal(n, 1);
	assert_string_equal(uf[0].path, "/usr/bin/true");
	assert_int_equal(uf[0].vaddr, 0x1234);
	assert_string_equal(uf[0].text,
			    "inner+0x4 (inlined)\nouter+0x4 (/usr/bin/true)");
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 3000; i++) {
			size_t l = syn_sample(exp, 77, 10, 11, 1000 + i, i & 1,
					      4 + i % 40, i);

			assert_int_equal(kt_kfile_next(f, &rec), 1);
			assert_int_equal(rec->size, l);
			assert_memory_equal(rec, exp, l);
			assert_int_equal((uintptr_t)rec % 8, 0);
		}
		assert_int_equal(kt_kfile_next(f, &rec), 0);
		assert_int_equal(kt_kfile_next(f, &rec), 0);
		kt_kfile_rewind(f);
	}
	kt_kfile_free(f);
	free(buf);
}

/* The same through a real file and kt_kfile_open(). */
static void test_path(void **state)
{
	char path[] = "/tmp/ktrace-kfile-XXXXXX";
	unsigned char *buf;
	struct kt_kfile *f;
	size_t len;
	int fd;

	(void)state;
	buf = make_file(100, 0, &len);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	f = kt_kfile_open(path);
	assert_non_null(f);
	assert_int_equal(count_records(f), 100);
	assert_false(kt_kfile_truncated(f));
	kt_kfile_free(f);
	/* cut off on disk inside END (its writer killed): every record,
	 * said to be truncated */
	assert_int_equal(truncate(path, len - 8), 0);
	f = kt_kfile_open(path);
	assert_non_null(f);
	assert_true(kt_kfile_truncated(f));
	assert_int_equal(count_records(f), 100);
	kt_kfile_free(f);
	unlink(path);
	assert_null(kt_kfile_open(path));
	assert_int_equal(errno, ENOENT);
	assert_null(kt_kfile_open("/tmp"));
	assert_int_equal(errno, ESPIPE);
	free(buf);
}

static void test_not_kfile(void **state)
{
	static const char junk[] = "PERFILE2 this is not ours at all......";
	unsigned char *buf;
	size_t len;
	uint32_t v2 = 2;
	uint64_t h;

	(void)state;
	assert_int_equal(read_all((const unsigned char *)"", 0, NULL), -EINVAL);
	assert_int_equal(read_all((const unsigned char *)junk, sizeof(junk),
				  NULL), -EINVAL);
	buf = make_file(10, 0, &len);
	/* A well-formed header of another version. */
	memcpy(buf + 8, &v2, 4);
	h = kt_kf_sum_final(kt_kf_sum(KT_KF_SEED, buf, 24));
	memcpy(buf + 24, &h, 8);
	assert_int_equal(read_all(buf, len, NULL), -EINVAL);
	free(buf);
}

/*
 * Every truncation of a small file is either refused (cut inside the
 * header or before the event table) or read as cut off: the records of
 * its complete sections, exactly, never past the cut. The more is kept,
 * the more is recovered.
 */
static void test_truncate_everywhere(void **state)
{
	unsigned char *buf;
	size_t len, cut;
	uint64_t n, last = 0;
	int recovered = 0;

	(void)state;
	buf = make_file(40, 256, &len);
	assert_int_equal(read_all(buf, len, &n), 0);
	assert_int_equal(n, 40);
	for (cut = 0; cut < len; cut++) {
		/* an exact-size heap copy so valgrind sees over-reads */
		unsigned char *t = malloc(cut ? cut : 1);
		int r;

		memcpy(t, buf, cut);
		r = read_prefix(buf, len, t, cut, &n);
		if (r != -EINVAL && r != -EBADMSG && r != 1)
			fail_msg("cut at %zu of %zu: %d", cut, len, r);
		if (r == 1) {
			if (n < last)
				fail_msg("cut at %zu: %llu records, %llu before",
					 cut, (unsigned long long)n,
					 (unsigned long long)last);
			last = n;
			recovered++;
		}
		free(t);
	}
	/* cut inside END: all 40 */
	assert_int_equal(last, 40);
	assert_true(recovered > 0);
	free(buf);
}

/* Every single-byte change anywhere is detected. */
static void test_flip_every_byte(void **state)
{
	unsigned char *buf, *orig;
	size_t len, i;

	(void)state;
	buf = make_file(40, 256, &len);
	orig = malloc(len);
	assert_non_null(orig);
	memcpy(orig, buf, len);
	for (i = 0; i < len; i++) {
		static const unsigned char masks[] = { 0x01, 0x80, 0xff };
		unsigned int k;

		for (k = 0; k < sizeof(masks); k++) {
			int r;

			/* a flipped section size may read as a cut: only the
			 * records before it, the original's */
			buf[i] ^= masks[k];
			r = read_prefix(orig, len, buf, len, NULL);
			buf[i] ^= masks[k];
			if (r != -EINVAL && r != -EBADMSG && r != 1)
				fail_msg("flip %#x at %zu: %d", masks[k], i, r);
		}
	}
	assert_int_equal(read_all(buf, len, NULL), 0);
	free(orig);
	free(buf);
}

static uint64_t rs = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

/*
 * 10k random mutations: a few bytes overwritten (sizes and lengths
 * included), sometimes also cut or grown. None may crash or be taken.
 */
static void test_fuzz(void **state)
{
	unsigned char *buf, *m;
	size_t len;
	int it, taken = 0;

	(void)state;
	buf = make_file(60, 512, &len);
	m = malloc(len + 64);
	for (it = 0; it < 10000; it++) {
		size_t mlen = len;
		int k, nb = 1 + rnd() % 4, r;

		memcpy(m, buf, len);
		for (k = 0; k < nb; k++) {
			size_t at = rnd() % len;

			switch (rnd() % 3) {
			case 0:
				m[at] = rnd();
				break;
			case 1:	/* plausible-looking length words */
				if (at + 4 <= len) {
					uint32_t v = rnd() % 512;

					memcpy(m + at, &v, 4);
				}
				break;
			default:
				if (at + 8 <= len) {
					uint64_t v = rnd() % 4096;

					memcpy(m + at, &v, 8);
				}
				break;
			}
		}
		if (rnd() % 8 == 0)
			mlen = rnd() % (len + 64);
		if (mlen > len)
			memset(m + len, (int)rnd(), mlen - len);
		if (mlen == len && !memcmp(m, buf, len))
			continue;	/* the mutation changed nothing */
		/* refused, or read as cut off: the original's records */
		r = read_prefix(buf, len, m, mlen, NULL);
		if (r == 0)
			taken++;
		else
			assert_true(r == -EINVAL || r == -EBADMSG || r == 1);
	}
	assert_int_equal(taken, 0);
	free(m);
	free(buf);
}

static void test_write_error(void **state)
{
	unsigned char rec[128];
	struct kt_kfw *w;
	int fds[2];
	int i, err = 0;

	(void)state;
	assert_null(kt_kfw_open(-1, 0));
	assert_int_equal(errno, EBADF);
	/* a pipe whose reader is gone: EPIPE sticks */
	assert_int_equal(pipe(fds), 0);
	w = kt_kfw_open(fds[1], 0);
	assert_non_null(w);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	syn_sample(rec, 1, 1, 1, 1, 0, 40, 0);
	for (i = 0; i < 100000 && !err; i++)
		err = kt_kfw_record(w, (void *)rec);
	assert_int_equal(err, -EPIPE);
	assert_int_equal(kt_kfw_record(w, (void *)rec), -EPIPE);
	assert_int_equal(kt_kfw_close(w, NULL), -EPIPE);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_not_kfile),
		cmocka_unit_test(test_truncate_everywhere),
		cmocka_unit_test(test_flip_every_byte),
		cmocka_unit_test(test_fuzz),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
