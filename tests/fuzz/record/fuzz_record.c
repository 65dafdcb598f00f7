// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: record files as `tracectl dump` reads them (lib/record.c
 * through cli/dump.c). The first input byte chooses how the rest becomes a
 * file:
 *   bit 0 clear: the rest is the whole file, byte for byte;
 *   bit 0 set:   the rest is the decompressed record stream, behind a valid
 *                header and compressed here (bit 1: finished, else cut at
 *                a flush point like a file whose writer was killed), so the
 *                fuzzer reaches the record parser without having to forge
 *                compressed data;
 *   bit 2: --json output; bit 3: --target and --pid filters;
 *   bit 4 (wrapped): a version 1 header (no checks), else a CHECK record
 *                closes the records, so they are handed out;
 *   bit 5 (wrapped, bit 4 clear): the current version (3 and later: zstd), the
 *                records and their CHECK
 *                one zstd frame with its CRC frame (bit 1: then the END
 *                frame), else version 2 (one zlib stream: bit 1 Z_FINISH,
 *                else sync-flushed).
 * The file lives in a memfd, opened by its /proc/self/fd path.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <zlib.h>
#include <zstd.h>
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

/* One zstd frame of n bytes at src and its CRC frame, as the v3 writer makes them. */
static void put_frame(const void *src, size_t n)
{
	size_t cap = ZSTD_compressBound(n) + 12, c;
	unsigned char *out = malloc(cap);
	uint32_t crc[3] = { 0x184D2A5EU, 4, 0 };

	if (!out)
		abort();
	c = ZSTD_compress(out, cap, src, n, 1);
	if (ZSTD_isError(c))
		abort();
	crc[2] = (uint32_t)crc32(0, out, (uInt)c);
	put(out, c);
	put(crc, sizeof(crc));	/* the fields are little-endian: so is the fuzzing host */
	free(out);
}

/* version 3: the records and a CHECK closing them as block 0, then END when finish */
static void put_v3(const uint8_t *recs, size_t n, bool finish)
{
	struct __attribute__((packed)) {
		struct tracerd_rec_hdr h;
		struct tracerd_rec_check c;
	} chk = { .h = { TRACERD_REC_CHECK, sizeof(chk.c) } };
	struct __attribute__((packed)) {
		struct tracerd_rec_hdr h;
		struct tracerd_rec_end e;
	} end = { .h = { TRACERD_REC_END, sizeof(end.e) },
		  .e = { .blocks = 1, .magic = TRACERD_REC_END_MAGIC } };
	struct tracerd_rec_hdr h;
	size_t off = 0;
	unsigned char *blk = malloc(n + sizeof(chk));

	if (!blk)
		abort();
	while (off + sizeof(h) <= n) {
		memcpy(&h, recs + off, sizeof(h));
		if (off + sizeof(h) + h.len > n)
			break;
		off += sizeof(h) + h.len;
		chk.c.records++;
	}
	chk.c.crc = (uint32_t)crc32(0, recs, (uInt)off);
	memcpy(blk, recs, n);	/* what is past the last whole record stays: the reader says so */
	memcpy(blk + n, &chk, sizeof(chk));
	put_frame(blk, n + sizeof(chk));
	if (finish)
		put_frame(&end, sizeof(end));
	free(blk);
}

/* header + meta as the writer makes them, then the records compressed */
static void put_wrapped(const uint8_t *recs, size_t n, bool finish, bool v1, bool v3)
{
	static const char meta[] = "{\"byte_order\":\"little\",\"created_realtime_ns\":1,"
				   "\"created_monotonic_ns\":1}";
	struct tracerd_file_header h = { .version = v1 ? 1 : v3 ? TRACERD_FILE_VERSION : 2,
					 .meta_len = sizeof(meta) - 1 };
	unsigned char out[16384];
	z_stream zs = { 0 };
	int zr;

	memcpy(h.magic, TRACERD_FILE_MAGIC, sizeof(h.magic));
	put(&h, sizeof(h));
	put(meta, sizeof(meta) - 1);
	if (v3) {
		put_v3(recs, n, finish);
		return;
	}
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
		put_wrapped(data + 1, size - 1, how & 2, how & 16, !(how & 16) && (how & 32));
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
