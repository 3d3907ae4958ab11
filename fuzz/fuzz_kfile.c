// SPDX-License-Identifier: GPL-2.0-only
/*
 * The record-file reader, from the bytes up: the input is a ktrace file
 * whose checksums are recomputed first (so mutations reach the parsers
 * instead of stopping at the first checksum), read section by section
 * (kt_kfile), then loaded as report -i loads it and every record printed
 * as text and as JSON.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <event-parse.h>

#include "ktrace.h"
#include "kfile/kfile.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Make every checksum right: the file header's and each section's whose
 * payload is all there. */
static void fix_sums(unsigned char *b, size_t len)
{
	uint64_t h, size;
	size_t off;

	if (len < KT_KF_HDR_SIZE)
		return;
	h = kt_kf_sum_final(kt_kf_sum(KT_KF_SEED, b, 24));
	memcpy(b + 24, &h, 8);
	for (off = KT_KF_HDR_SIZE; len - off >= KT_KF_SEC_HDR_SIZE;) {
		unsigned char *sh = b + off;

		memcpy(&size, sh + 8, 8);
		off += KT_KF_SEC_HDR_SIZE;
		if (size > len - off || pad8(size) > len - off)
			break;
		h = kt_kf_sum(KT_KF_SEED, b + off, pad8(size));
		h = kt_kf_sum_final(kt_kf_sum(h, sh, 16));
		memcpy(sh + 16, &h, 8);
		off += pad8(size);
	}
}

static int print_one(void *ctx, const struct ktrace_sample *s)
{
	struct ktrace_record *r = ctx;
	size_t n;

	ktrace_record_format(r, s, false, &n);
	ktrace_record_format(r, s, true, &n);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct perf_event_header *rec;
	struct ktrace_err err = { .pos = -1 };
	struct ktrace_record *r;
	struct kt_kfile *f;
	unsigned char *b;
	char path[64];
	int fd;

	if (size > (1 << 20))
		return 0;
	b = malloc(size ? size : 1);
	if (!b)
		return 0;
	memcpy(b, data, size);
	fix_sums(b, size);
	f = kt_kfile_open_mem(b, size);
	if (f) {
		while (kt_kfile_next(f, &rec) == 1)
			;
		kt_kfile_free(f);
	}
	/* the whole path of report -i: a file by name */
	fd = memfd_create("fuzz.kt", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, b, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		r = ktrace_record_load(path, &err);
		if (r)
			ktrace_record_replay(r, print_one, r, NULL, NULL);
		ktrace_record_free(r);
		ktrace_err_clear(&err);
	}
	if (fd >= 0)
		close(fd);
	free(b);
	return 0;
}
