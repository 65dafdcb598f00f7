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
 *   bit 2: --json output; bit 3: --target and --pid filters.
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

/* header + meta as the writer makes them, then the records compressed */
static void put_wrapped(const uint8_t *recs, size_t n, bool finish)
{
	static const char meta[] = "{\"byte_order\":\"little\",\"created_realtime_ns\":1,"
				   "\"created_monotonic_ns\":1}";
	struct tracerd_file_header h = { .version = TRACERD_FILE_VERSION,
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
		put_wrapped(data + 1, size - 1, how & 2);
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
