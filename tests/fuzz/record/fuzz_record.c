// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: record files as `tracectl dump` reads them (lib/record.c
 * through cli/dump.c). The first input byte chooses how the rest becomes a
 * file:
 *   bit 0 clear: the rest is the whole file, byte for byte;
 *   bit 0 set:   the rest is the decompressed record stream, behind a valid
 *                header and compressed here (bit 1: finished with Z_FINISH,
 *                else sync-flushed like a file cut by a crash), so the
 *                fuzzer reaches the record parser without having to forge
 *                deflate data;
 *   bit 2: --json output; bit 3: --target and --pid filters;
 *   bit 4 (wrapped): a version 1 header (no checks), else version 2 with a
 *                CHECK record closing the records, so they are handed out.
 * The file lives in a memfd, opened by its /proc/self/fd path.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <zlib.h>
#include "../../../lib/record.h"
#include "../../../cli/dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static int memfd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	memfd = memfd_create("fuzz_record", MFD_CLOEXEC);
	if (memfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

static void put(const void *p, size_t n)
{
	if (n && write(memfd, p, n) != (ssize_t)n)
		abort();
}

/* The fuzzer's records as one verified block: a CHECK record after them. */
static void put_check(z_stream *zs, const uint8_t *recs, size_t n, unsigned char *out,
		      size_t outlen)
{
	struct __attribute__((packed)) {
		struct tracerd_rec_hdr h;
		struct tracerd_rec_check c;
	} chk = { .h = { TRACERD_REC_CHECK, sizeof(chk.c) } };
	struct tracerd_rec_hdr h;
	size_t off = 0;

	while (off + sizeof(h) <= n) {
		memcpy(&h, recs + off, sizeof(h));
		if (off + sizeof(h) + h.len > n)
			break;
		off += sizeof(h) + h.len;
		chk.c.records++;
	}
	chk.c.crc = (uint32_t)crc32(0, recs, (uInt)off);
	zs->next_in = (unsigned char *)&chk;
	zs->avail_in = sizeof(chk);
	zs->next_out = out;
	zs->avail_out = (uInt)outlen;
	if (deflate(zs, Z_NO_FLUSH) != Z_OK)
		abort();
	put(out, outlen - zs->avail_out);
}

/* header + meta as the writer makes them, then the records compressed */
static void put_wrapped(const uint8_t *recs, size_t n, bool finish, bool v1)
{
	static const char meta[] = "{\"byte_order\":\"little\",\"created_realtime_ns\":1,"
				   "\"created_monotonic_ns\":1}";
	struct tracerd_file_header h = { .version = v1 ? 1 : TRACERD_FILE_VERSION,
					 .meta_len = sizeof(meta) - 1 };
	unsigned char out[16384];
	z_stream zs = { 0 };
	int zr;

	memcpy(h.magic, TRACERD_FILE_MAGIC, sizeof(h.magic));
	put(&h, sizeof(h));
	put(meta, sizeof(meta) - 1);
	if (deflateInit(&zs, 1) != Z_OK)
		abort();
	zs.next_in = (unsigned char *)recs;
	zs.avail_in = (uInt)n;
	do {	/* Z_NO_FLUSH: takes all of recs into the stream */
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		if (deflate(&zs, Z_NO_FLUSH) != Z_OK)
			abort();
		put(out, sizeof(out) - zs.avail_out);
	} while (zs.avail_in);
	if (!v1)
		put_check(&zs, recs, n, out, sizeof(out));
	do {
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		zr = deflate(&zs, finish ? Z_FINISH : Z_SYNC_FLUSH);
		put(out, sizeof(out) - zs.avail_out);
	} while (zs.avail_out == 0 && zr != Z_STREAM_END);
	deflateEnd(&zs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[8];
	int argc = 0;
	uint8_t how;

	if (size < 1 || size > (1 << 20))
		return 0;
	how = data[0];
	if (ftruncate(memfd, 0) || lseek(memfd, 0, SEEK_SET))
		abort();
	if (how & 1)
		put_wrapped(data + 1, size - 1, how & 2, how & 16);
	else
		put(data + 1, size - 1);

	argv[argc++] = "dump";
	if (how & 4)
		argv[argc++] = "--json";
	if (how & 8) {
		argv[argc++] = "--target=*_*";
		argv[argc++] = "--pid=1";
	}
	argv[argc++] = path;
	argv[argc] = NULL;
	tracectl_dump(argc, argv);
	fflush(stdout);
	return 0;
}
