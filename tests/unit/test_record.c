// SPDX-License-Identifier: GPL-2.0-or-later
/* Record files: N in = N out, cut files, rotation, write errors; format 4
 * (zstd, events with a stack) as written, 3 (zstd), 2 and 1 (zlib) as read. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "test.h"
#include "../../lib/record.h"
#include "../../lib/util.h"

static char tmpdir[] = "/tmp/test_record.XXXXXX";

static void make_event(struct tracerd_event *ev, unsigned int i)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts_ns = 1000000 + i;
	ev->duration_ns = i * 3;
	ev->ret = -(long long)i;
	ev->slot = i % 3;
	ev->cpu = i % 4;
	ev->pid = 100 + i % 5;
	ev->tid = 200 + i;
	ev->flags = TRACERD_EV_DURATION | (i % 2 ? TRACERD_EV_RET : 0);
	snprintf(ev->comm, sizeof(ev->comm), "comm%u", i % 7);
}

static struct record_writer *open_writer(const char *name, uint64_t max_bytes, unsigned int keep,
					 unsigned int flush_events)
{
	struct record_opts o = {
		.dir = test_tmp(tmpdir), .name = name, .max_bytes = max_bytes, .keep = keep,
		.flush_events = flush_events, .flush_ns = 1ULL << 62,
	};
	struct record_writer *w = NULL;
	char msg[256];
	int err;

	err = record_writer__new(&o, &w, msg, sizeof(msg));
	if (!ASSERT_OK(err, msg))
		return NULL;
	record_writer__define_target(w, 0, 5, 1, "tp:sched/sched_switch");
	record_writer__define_target(w, 1, 1, 2, "vfs_read");
	record_writer__define_target(w, 2, 1, 2, "vfs_write");
	return w;
}

/* Read every event; checks each against make_event. Returns the count or -1. */
static long read_all(const char *path, enum record_end *end, unsigned int first)
{
	struct record_reader *r;
	struct record_item it;
	struct tracerd_event want;
	static const char *const names[] = { "tp:sched/sched_switch", "vfs_read", "vfs_write" };
	char msg[256];
	long n = 0;
	int ret;

	if (!ASSERT_OK(record_reader__open(path, &r, msg, sizeof(msg)), msg))
		return -1;
	while ((ret = record_reader__next(r, &it)) == 1) {
		if (it.type != TRACERD_REC_EVENT)
			continue;
		make_event(&want, first + (unsigned int)n);
		if (!ASSERT_OK(memcmp(it.ev, &want, sizeof(want)), "event content") ||
		    !ASSERT_STREQ(it.target, names[want.slot], "target name")) {
			n = -1;
			break;
		}
		n++;
	}
	ASSERT_EQ(ret, 0, "next");
	*end = record_reader__end(r, NULL);
	record_reader__free(r);
	return n;
}

TEST(n_in_n_out)
{
	static const unsigned int counts[] = { 0, 1, 255, 256, 257, 100000 };
	struct tracerd_event ev;
	struct record_writer *w;
	enum record_end end;
	char path[256];
	unsigned int c, i;

	for (c = 0; c < ARRAY_SIZE(counts); c++) {
		w = open_writer("n", 0, 0, 256);
		if (!w)
			return;
		for (i = 0; i < counts[c]; i++) {
			make_event(&ev, i);
			if (!ASSERT_OK(record_writer__write(w, &ev, 0), "write"))
				break;
		}
		snprintf(path, sizeof(path), "%s", record_writer__path(w));
		record_writer__free(w);
		ASSERT_EQ(read_all(path, &end, 0), counts[c], "events read back");
		ASSERT_EQ(end, RECORD_END_CLEAN, "clean end");
	}
	test_tmp_clear(tmpdir);
}

/* A file cut at any byte reads up to the last flush at least, never garbage. */
TEST(truncated)
{
	struct tracerd_event ev;
	struct record_writer *w;
	struct stat sb;
	enum record_end end;
	char path[256], cut[300];
	off_t flushed_size, size;
	unsigned int i;
	long n, prev = 0;
	char *data;
	int fd;

	w = open_writer("cut", 0, 0, 100);
	if (!w)
		return;
	for (i = 0; i < 1000; i++) {	/* 10 flushes at 100 events each */
		make_event(&ev, i);
		record_writer__write(w, &ev, 0);
	}
	snprintf(path, sizeof(path), "%s", record_writer__path(w));
	stat(path, &sb);
	flushed_size = sb.st_size;
	for (i = 1000; i < 1050; i++) {	/* written but not flushed */
		make_event(&ev, i);
		record_writer__write(w, &ev, 0);
	}
	/* the cut file: what a crash right now leaves behind */
	snprintf(cut, sizeof(cut), "%s.cut", path);
	ASSERT_EQ(system("true"), 0, "sh");
	{
		char cmd[700];

		snprintf(cmd, sizeof(cmd), "cp %s %s", path, cut);
		ASSERT_EQ(system(cmd), 0, "cp");
	}
	n = read_all(cut, &end, 0);
	ASSERT_EQ(n, 1000, "a file being written holds its flushed events");
	ASSERT_EQ(end, RECORD_END_OPEN, "a file being written ends at a flush point");
	record_writer__free(w);

	/* every prefix of the whole file: monotonic counts, no errors */
	stat(path, &sb);
	size = sb.st_size;
	data = malloc(size);
	fd = open(path, O_RDONLY);
	ASSERT_EQ(read(fd, data, size), size, "read file");
	close(fd);
	/* start after header + meta: shorter files are refused at open */
	for (off_t len = 16 + ((struct tracerd_file_header *)data)->meta_len; len < size; len += 97) {
		fd = open(cut, O_WRONLY | O_TRUNC);
		ASSERT_EQ(write(fd, data, len), len, "write prefix");
		close(fd);
		n = read_all(cut, &end, 0);
		if (!ASSERT_TRUE(n >= prev, "more data, no fewer events") ||
		    !ASSERT_EQ(n % 100, 0, "whole blocks only") ||
		    !ASSERT_TRUE(end == RECORD_END_TRUNCATED || end == RECORD_END_OPEN, "cut end"))
			break;
		if (len >= flushed_size)
			ASSERT_TRUE(n >= 1000, "all flushed events present");
		prev = n;
	}
	free(data);
	test_tmp_clear(tmpdir);
}

/* Write 1000 events (flush every 100) to NAME; returns the file's bytes (malloc). */
static char *make_file(const char *name, char *path, size_t pathlen, off_t *size)
{
	struct tracerd_event ev;
	struct record_writer *w;
	struct stat sb;
	unsigned int i;
	char *data;
	int fd;

	w = open_writer(name, 0, 0, 100);
	if (!w)
		return NULL;
	for (i = 0; i < 1000; i++) {
		make_event(&ev, i);
		record_writer__write(w, &ev, 0);
	}
	snprintf(path, pathlen, "%s", record_writer__path(w));
	record_writer__free(w);
	stat(path, &sb);
	*size = sb.st_size;
	data = malloc(*size);
	fd = open(path, O_RDONLY);
	ASSERT_EQ(read(fd, data, *size), *size, "read file");
	close(fd);
	return data;
}

static void put_file(const char *path, const void *data, off_t len, off_t zeros)
{
	static const char z[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ASSERT_EQ(write(fd, data, len), len, "write");
	for (; zeros > 0; zeros -= (off_t)sizeof(z))
		ASSERT_TRUE(write(fd, z, zeros < (off_t)sizeof(z) ? (size_t)zeros : sizeof(z)) > 0,
			    "zeros");
	close(fd);
}

/*
 * What a power loss leaves: the file's tail (from any offset) zero-filled,
 * its length kept or grown. Never an invented or repeated event (read_all
 * checks each one against the sequence written), never a clean end.
 */
TEST(zero_tail)
{
	char path[256], bad[300];
	enum record_end end;
	off_t size, cut, start;
	char *data;
	long n;

	data = make_file("zero", path, sizeof(path), &size);
	if (!data)
		return;
	snprintf(bad, sizeof(bad), "%s.bad", path);
	start = 16 + ((struct tracerd_file_header *)data)->meta_len;
	for (cut = start; cut < size; cut += 13) {
		put_file(bad, data, cut, size - cut + (cut % 3) * 4096);
		n = read_all(bad, &end, 0);
		if (!ASSERT_TRUE(n >= 0 && n <= 1000, "only events written, a prefix") ||
		    !ASSERT_EQ(n % 100, 0, "whole blocks only") ||
		    !ASSERT_TRUE(end == RECORD_END_CORRUPT || end == RECORD_END_TRUNCATED,
				 "zero tail is an error"))
			break;
	}
	free(data);
	test_tmp_clear(tmpdir);
}

/* One bit flipped anywhere in the stream: a prefix of the events, or all of them. */
TEST(bit_flip)
{
	char path[256], bad[300];
	enum record_end end;
	off_t size, at, start;
	char *data;
	long n;

	data = make_file("flip", path, sizeof(path), &size);
	if (!data)
		return;
	snprintf(bad, sizeof(bad), "%s.bad", path);
	start = 16 + ((struct tracerd_file_header *)data)->meta_len;
	for (at = start; at < size; at += 7) {
		data[at] ^= (char)(1 << (at % 8));
		put_file(bad, data, size, 0);
		data[at] ^= (char)(1 << (at % 8));
		n = read_all(bad, &end, 0);
		/* format 3: the CRC frame covers every compressed bit */
		if (!ASSERT_TRUE(n >= 0 && n % 100 == 0, "whole verified blocks") ||
		    !ASSERT_TRUE(end == RECORD_END_CORRUPT || end == RECORD_END_TRUNCATED,
				 "error end"))
			break;
	}
	free(data);
	test_tmp_clear(tmpdir);
}

/*
 * Slow calls with their stacks (format 4): each event reads back with its
 * frames, exactly, among events without; more frames than a record holds
 * are cut to TRACERD_EVENT_STACK_MAX; a stack's nr that disagrees with
 * the record's length is corrupt, not read past.
 */
TEST(stack_round_trip)
{
	__u64 ips[TRACERD_EVENT_STACK_MAX + 5];
	struct tracerd_event ev, want;
	struct record_reader *r;
	struct record_writer *w;
	struct record_item it;
	char path[256], msg[256];
	unsigned int i, n = 0, k;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ips); i++)
		ips[i] = 0xffffffff81000000ULL + i * 0x40;
	w = open_writer("stk", 0, 0, 7);
	if (!w)
		return;
	for (i = 0; i < 300; i++) {
		make_event(&ev, i);
		/* every 3rd a stack of i % 130 frames (0: an empty one), others none */
		ret = i % 3 ? record_writer__write(w, &ev, 0) :
			      record_writer__write_stack(w, &ev, ips, i % 130, 0);
		if (!ASSERT_OK(ret, "write"))
			break;
	}
	snprintf(path, sizeof(path), "%s", record_writer__path(w));
	record_writer__free(w);
	if (!ASSERT_OK(record_reader__open(path, &r, msg, sizeof(msg)), msg))
		return;
	ASSERT_EQ(record_reader__version(r), TRACERD_FILE_VERSION, "reader version");
	while ((ret = record_reader__next(r, &it)) == 1) {
		if (it.type != TRACERD_REC_EVENT)
			continue;
		make_event(&want, n);
		k = n % 130 > TRACERD_EVENT_STACK_MAX ? TRACERD_EVENT_STACK_MAX : n % 130;
		if (n % 3 == 0) {
			want.flags |= TRACERD_EV_STACK;
			if (!ASSERT_TRUE(it.ips != NULL, "a stack") ||
			    !ASSERT_EQ(it.nr_ips, k, "its frames") ||
			    !ASSERT_OK(memcmp(it.ips, ips, k * sizeof(*ips)), "the frames"))
				break;
		} else if (!ASSERT_TRUE(it.ips == NULL && it.nr_ips == 0, "no stack")) {
			break;
		}
		if (!ASSERT_OK(memcmp(it.ev, &want, sizeof(want)), "event content"))
			break;
		n++;
	}
	ASSERT_EQ(ret, 0, "next");
	ASSERT_EQ(n, 300, "events read back");
	ASSERT_EQ(record_reader__end(r, NULL), RECORD_END_CLEAN, "clean end");
	record_reader__free(r);
	test_tmp_clear(tmpdir);
}

/*
 * Calls with their arguments (format 5): each reads back with its values,
 * the strings of its strmask (a fault as a fault, no bytes), and its
 * slot's PROTO; a file rotated mid-way declares the PROTO again.
 */
TEST(args_round_trip)
{
	static const char proto[] = "{\"args\":[{\"name\":\"file\",\"type\":\"struct file *\","
				    "\"kind\":\"ptr\",\"size\":8},{\"name\":\"name\",\"type\":"
				    "\"const char *\",\"kind\":\"str\",\"size\":8}]}";
	struct tracerd_event_args a;
	struct record_reader *r;
	struct record_writer *w;
	struct record_item it;
	char path[256], msg[256], *s;
	unsigned int i, n = 0;
	int ret;

	w = open_writer("args", 0, 0, 7);
	if (!w)
		return;
	ASSERT_EQ(record_writer__define_args(w, 9, proto), -ENOENT, "no such target");
	if (!ASSERT_OK(record_writer__define_args(w, 1, proto), "define_args"))
		return;
	for (i = 0; i < 50; i++) {
		memset(&a, 0xa5, sizeof(a));	/* what the ring buffer left: never written */
		make_event(&a.ev, i);
		a.ev.slot = 1;
		a.nr = 2;
		a.strmask = 2;
		a.faultmask = i % 5 == 0 ? 2 : 0;
		a.truncmask = i % 7 == 0 ? 2 : 0;
		a.args[0] = 0xffff888100000000ULL + i;
		a.args[1] = 0xffff888200000000ULL + i;
		snprintf(a.str[1], sizeof(a.str[1]), "name-%u\x1b[31m", i);
		if (!ASSERT_OK(record_writer__write_args(w, &a, 0), "write_args"))
			break;
	}
	snprintf(path, sizeof(path), "%s", record_writer__path(w));
	record_writer__free(w);
	if (!ASSERT_OK(record_reader__open(path, &r, msg, sizeof(msg)), msg))
		return;
	ASSERT_EQ(record_reader__version(r), TRACERD_FILE_VERSION, "reader version");
	while ((ret = record_reader__next(r, &it)) == 1) {
		if (it.type != TRACERD_REC_EVENT)
			continue;
		if (!ASSERT_TRUE(it.args != NULL && it.proto != NULL, "args and their proto"))
			break;
		ASSERT_TRUE(it.ev->flags & TRACERD_EV_ARGS, "flag");
		ASSERT_EQ(it.args->nr, 2, "nr");
		ASSERT_EQ(it.args->args[0], 0xffff888100000000ULL + n, "pointer value");
		ASSERT_EQ(it.args->args[1], 0xffff888200000000ULL + n, "string's pointer");
		ASSERT_EQ(it.args->faultmask, n % 5 == 0 ? 2 : 0, "fault");
		ASSERT_EQ(it.args->truncmask, n % 7 == 0 ? 2 : 0, "truncated");
		if (n % 5 == 0) {
			ASSERT_STREQ(it.args->str[1], "", "a fault keeps no bytes");
		} else {
			s = NULL;
			if (asprintf(&s, "name-%u\x1b[31m", n) > 0)
				ASSERT_STREQ(it.args->str[1], s, "string");
			free(s);
		}
		ASSERT_STREQ(json_object_get_string(json_object_object_get(
			json_object_array_get_idx(it.proto, 1), "name")), "name", "proto name");
		n++;
	}
	ASSERT_EQ(ret, 0, "next");
	ASSERT_EQ(n, 50, "events read back");
	record_reader__free(r);
	test_tmp_clear(tmpdir);
}

/* An args record in a format 4 file is corrupt, not read as something else. */
TEST(args_need_version_5)
{
	struct tracerd_event_args a = { 0 };
	struct record_writer *w;
	enum record_end end;
	char path[256], *data;
	off_t size;
	int fd;

	w = open_writer("args4", 0, 0, 7);
	if (!w)
		return;
	make_event(&a.ev, 0);
	a.nr = 1;
	record_writer__write_args(w, &a, 0);
	snprintf(path, sizeof(path), "%s", record_writer__path(w));
	record_writer__free(w);
	fd = open(path, O_RDONLY);
	size = lseek(fd, 0, SEEK_END);
	data = malloc(size);
	if (!ASSERT_EQ(pread(fd, data, size, 0), size, "read"))
		return;
	close(fd);
	((struct tracerd_file_header *)data)->version = 4;
	put_file(path, data, size, 0);
	ASSERT_EQ(read_all(path, &end, 0), 0, "no event read");
	ASSERT_EQ(end, RECORD_END_CORRUPT, "corrupt");
	free(data);
	test_tmp_clear(tmpdir);
}

/* Files of format 3 and 4 (no stack, no args records: the same bytes) read as they did. */
TEST(reads_version_3)
{
	enum record_end end;
	char path[256];
	off_t size;
	char *data = make_file("v3old", path, sizeof(path), &size);
	__u32 v;

	if (!data)
		return;
	for (v = 3; v <= 4; v++) {
		((struct tracerd_file_header *)data)->version = v;
		put_file(path, data, size, 0);
		ASSERT_EQ(read_all(path, &end, 0), 1000, "v3, v4 events");
		ASSERT_EQ(end, RECORD_END_CLEAN, "v3, v4 clean");
	}
	free(data);
	test_tmp_clear(tmpdir);
}

/* The writer makes format 5: zstd frames, each with its CRC frame, and an END frame. */
TEST(writes_version_5)
{
	struct record_reader *r;
	struct record_item it;
	const char *comp = NULL;
	char path[256], msg[256];
	off_t size, start;
	unsigned char *p;
	char *data;

	data = make_file("v3", path, sizeof(path), &size);
	if (!data)
		return;
	p = (unsigned char *)data;
	ASSERT_EQ(((struct tracerd_file_header *)data)->version, 5, "header version");
	start = 16 + ((struct tracerd_file_header *)data)->meta_len;
	ASSERT_TRUE(p[start] == 0x28 && p[start + 1] == 0xb5 && p[start + 2] == 0x2f &&
		    p[start + 3] == 0xfd, "a zstd frame after the meta");
	/* the file ends with the END frame's CRC frame */
	ASSERT_TRUE(p[size - 12] == 0x5e && p[size - 11] == 0x2a && p[size - 10] == 0x4d &&
		    p[size - 9] == 0x18 && p[size - 8] == 4, "CRC frame at the end");
	if (ASSERT_OK(record_reader__open(path, &r, msg, sizeof(msg)), msg)) {
		ASSERT_EQ(record_reader__version(r), 5, "reader version");
		json_object_object_foreach(record_reader__meta(r), k, v)
			if (!strcmp(k, "compression"))
				comp = json_object_get_string(v);
		ASSERT_STREQ(comp, "zstd", "meta compression");
		while (record_reader__next(r, &it) == 1)
			;
		ASSERT_EQ(record_reader__end(r, NULL), RECORD_END_CLEAN, "clean");
		record_reader__free(r);
	}
	/* data after the END frame (another file appended) is an error, not more events */
	{
		char bad[300];
		enum record_end end;

		snprintf(bad, sizeof(bad), "%s.twice", path);
		put_file(bad, data, size, 0);
		{
			int fd = open(bad, O_WRONLY | O_APPEND);

			ASSERT_EQ(write(fd, data + start, size - start), size - start, "append");
			close(fd);
		}
		ASSERT_EQ(read_all(bad, &end, 0), 1000, "the first file's events");
		ASSERT_EQ(end, RECORD_END_CORRUPT, "data after the end");
	}
	free(data);
	test_tmp_clear(tmpdir);
}

/*
 * Write a format 2 file as the zlib writer did: blocks of per_block events
 * closed by CHECK records, a sync flush after each, Z_FINISH when finish.
 */
static void write_v2(const char *path, unsigned int n, unsigned int per_block, bool finish)
{
	static const char meta[] = "{\"byte_order\":\"little\",\"compression\":\"zlib\"}";
	struct tracerd_file_header h = { .version = 2, .meta_len = sizeof(meta) - 1 };
	struct __attribute__((packed)) {
		struct tracerd_rec_hdr h;
		struct tracerd_rec_target t;
		char name[21] __attribute__((nonstring));	/* on disk without its NUL */
	} tr = {
		{ TRACERD_REC_TARGET, sizeof(tr.t) + 21 }, { .slot = 0 }, "tp:sched/sched_switch",
	};
	static const char *const names[] = { "vfs_read", "vfs_write" };
	unsigned char rec[4 + 512], out[65536];
	struct tracerd_rec_hdr rh;
	struct tracerd_rec_check c = { 0 };
	struct tracerd_rec_target t = { 0 };
	struct tracerd_event ev;
	z_stream zs = { 0 };
	unsigned int i, k;
	size_t len;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	memcpy(h.magic, TRACERD_FILE_MAGIC, sizeof(h.magic));
	ASSERT_EQ(write(fd, &h, sizeof(h)), (ssize_t)sizeof(h), "header");
	ASSERT_EQ(write(fd, meta, sizeof(meta) - 1), (ssize_t)sizeof(meta) - 1, "meta");
	ASSERT_EQ(deflateInit(&zs, 1), Z_OK, "deflateInit");
#define V2_PUT(buf, l, flush) do {						\
		zs.next_in = (unsigned char *)(buf);				\
		zs.avail_in = (uInt)(l);					\
		do {								\
			zs.next_out = out;					\
			zs.avail_out = sizeof(out);				\
			deflate(&zs, flush);					\
			ASSERT_EQ(write(fd, out, sizeof(out) - zs.avail_out),	\
				  (ssize_t)(sizeof(out) - zs.avail_out), "stream"); \
		} while (!zs.avail_out);					\
	} while (0)
#define V2_REC(type, a, alen, b, blen) do {					\
		rh = (struct tracerd_rec_hdr){ type, (uint16_t)((alen) + (blen)) }; \
		memcpy(rec, &rh, 4);						\
		memcpy(rec + 4, a, alen);					\
		memcpy(rec + 4 + (alen), b, blen);				\
		len = 4 + (alen) + (blen);					\
		if ((type) != TRACERD_REC_CHECK) {				\
			c.crc = (uint32_t)crc32(c.crc, rec, (uInt)len);		\
			c.records++;						\
		}								\
		V2_PUT(rec, len, Z_NO_FLUSH);					\
	} while (0)
	c.crc = (uint32_t)crc32(0, Z_NULL, 0);
	V2_PUT(&tr, sizeof(tr), Z_NO_FLUSH);
	c.crc = (uint32_t)crc32(c.crc, (void *)&tr, sizeof(tr));
	c.records = 1;
	for (k = 1; k <= 2; k++) {
		t.slot = k;
		V2_REC(TRACERD_REC_TARGET, &t, sizeof(t), names[k - 1], strlen(names[k - 1]));
	}
	for (i = 0; i < n; i++) {
		make_event(&ev, i);
		V2_REC(TRACERD_REC_EVENT, &ev, sizeof(ev), "", 0);
		if ((i + 1) % per_block == 0 || i + 1 == n) {
			V2_REC(TRACERD_REC_CHECK, &c, sizeof(c), "", 0);
			c.block++;
			c.records = 0;
			c.crc = (uint32_t)crc32(0, Z_NULL, 0);
			V2_PUT(NULL, 0, Z_SYNC_FLUSH);
		}
	}
	if (finish)
		V2_PUT(NULL, 0, Z_FINISH);
#undef V2_PUT
#undef V2_REC
	deflateEnd(&zs);
	close(fd);
}

/* Format 2 (zlib, CHECK records) still reads, with its checks. */
TEST(reads_version_2)
{
	char path[300], cut[310];
	enum record_end end;
	struct stat sb;
	char *data;
	off_t len;
	long n, prev = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/v2.trec", test_tmp(tmpdir));
	write_v2(path, 1000, 100, true);
	ASSERT_EQ(read_all(path, &end, 0), 1000, "v2 events");
	ASSERT_EQ(end, RECORD_END_CLEAN, "v2 clean");
	write_v2(path, 1000, 100, false);
	ASSERT_EQ(read_all(path, &end, 0), 1000, "v2 crash-cut: every flushed event");
	ASSERT_EQ(end, RECORD_END_OPEN, "v2 crash-cut: ends at a flush point");
	/* cut anywhere: whole blocks only */
	stat(path, &sb);
	data = malloc(sb.st_size);
	fd = open(path, O_RDONLY);
	ASSERT_EQ(read(fd, data, sb.st_size), sb.st_size, "read");
	close(fd);
	snprintf(cut, sizeof(cut), "%s.cut", path);
	for (len = 16 + ((struct tracerd_file_header *)data)->meta_len; len < sb.st_size; len += 61) {
		put_file(cut, data, len, 0);
		n = read_all(cut, &end, 0);
		if (!ASSERT_TRUE(n >= prev && n % 100 == 0, "whole blocks, growing") ||
		    !ASSERT_TRUE(end == RECORD_END_TRUNCATED || end == RECORD_END_OPEN, "cut end"))
			break;
		prev = n;
	}
	/* zeros over the tail: an error, a prefix of the events */
	len = sb.st_size / 2;
	put_file(cut, data, len, sb.st_size - len);
	n = read_all(cut, &end, 0);
	ASSERT_TRUE(n >= 0 && n < 1000 && n % 100 == 0, "v2 zero tail: whole blocks");
	ASSERT_TRUE(end == RECORD_END_CORRUPT || end == RECORD_END_TRUNCATED, "v2 zero tail: error");
	free(data);
	test_tmp_clear(tmpdir);
}

/* Format 1 (no CHECK records) still reads. */
TEST(reads_version_1)
{
	static const char meta[] = "{\"byte_order\":\"little\"}";
	struct tracerd_file_header h = { .version = 1, .meta_len = sizeof(meta) - 1 };
	struct __attribute__((packed)) {
		struct tracerd_rec_hdr h;
		struct tracerd_rec_target t;
		char name[21] __attribute__((nonstring));	/* on disk without its NUL */
	} tr = {
		{ TRACERD_REC_TARGET, sizeof(tr.t) + 21 }, { .slot = 0 }, "tp:sched/sched_switch",
	};
	struct __attribute__((packed)) { struct tracerd_rec_hdr h; struct tracerd_event ev; } er[3];
	unsigned char in[sizeof(tr) + sizeof(er)], out[4096];
	uLongf outlen = sizeof(out);
	char path[300];
	enum record_end end;
	unsigned int i;
	int fd;

	for (i = 0; i < 3; i++) {
		struct tracerd_event ev;

		er[i].h = (struct tracerd_rec_hdr){ TRACERD_REC_EVENT, sizeof(ev) };
		make_event(&ev, i * 3);	/* slot 0 */
		memcpy((char *)er + i * sizeof(er[0]) + sizeof(er[i].h), &ev, sizeof(ev));
	}
	memcpy(in, &tr, sizeof(tr));
	memcpy(in + sizeof(tr), er, sizeof(er));
	ASSERT_EQ(compress(out, &outlen, in, sizeof(in)), Z_OK, "compress");
	memcpy(h.magic, TRACERD_FILE_MAGIC, sizeof(h.magic));
	snprintf(path, sizeof(path), "%s/v1.trec", test_tmp(tmpdir));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_EQ(write(fd, &h, sizeof(h)), (ssize_t)sizeof(h), "header");
	ASSERT_EQ(write(fd, meta, sizeof(meta) - 1), (ssize_t)sizeof(meta) - 1, "meta");
	ASSERT_EQ(write(fd, out, outlen), (ssize_t)outlen, "stream");
	close(fd);
	{
		struct record_reader *r;
		struct record_item it;
		char msg[256];
		long n = 0;

		if (!ASSERT_OK(record_reader__open(path, &r, msg, sizeof(msg)), msg))
			return;
		while (record_reader__next(r, &it) == 1)
			n += it.type == TRACERD_REC_EVENT && it.target;
		end = record_reader__end(r, NULL);
		ASSERT_EQ(n, 3, "v1 events with their target");
		ASSERT_EQ(record_reader__version(r), 1, "version");
		record_reader__free(r);
	}
	ASSERT_EQ(end, RECORD_END_CLEAN, "v1 clean");
	test_tmp_clear(tmpdir);
}

/* Count the TARGET records a file declares. */
static long count_targets(const char *path)
{
	struct record_reader *r;
	struct record_item it;
	char msg[256];
	long n = 0;

	if (!ASSERT_OK(record_reader__open(path, &r, msg, sizeof(msg)), msg))
		return -1;
	while (record_reader__next(r, &it) == 1)
		n += it.type == TRACERD_REC_TARGET;
	record_reader__free(r);
	return n;
}

/* A file started after targets went away declares only the live ones. */
TEST(rotation_forgets_gone_targets)
{
	struct tracerd_event ev;
	struct record_writer *w;
	char path[300];
	unsigned int i;

	w = open_writer("gone", 4096, 2, 16);	/* slots 0..2 live */
	if (!w)
		return;
	for (i = 0; i < 3000; i++) {	/* attach/detach cycles on slot 7 */
		record_writer__define_target(w, 7, 5, 100 + i, "tp:task/task_rename");
		record_writer__forget_target(w, 7);
	}
	ASSERT_EQ(record_writer__nr_targets(w), 3, "live targets");
	record_writer__define_target(w, 2, 1, 9, "vfs_write");	/* slot reused */
	ASSERT_EQ(record_writer__nr_targets(w), 3, "a reused slot replaces");
	for (i = 0; i < 20000; i++) {
		make_event(&ev, i);
		record_writer__write(w, &ev, 0);
	}
	record_writer__free(w);
	snprintf(path, sizeof(path), "%s/gone.trec", tmpdir);
	ASSERT_EQ(count_targets(path), 3, "current file declares the 3 live targets");
	snprintf(path, sizeof(path), "%s/gone.trec.1", tmpdir);
	ASSERT_EQ(count_targets(path), 3, "rotated file declares the 3 live targets");
	test_tmp_clear(tmpdir);
}

/* A file deleted or moved under the writer: the tick stops it, nothing claims to record. */
TEST(deleted_file_stops)
{
	static const char *const how[] = { "rm", "mv" };
	struct record_writer_stats st;
	struct tracerd_event ev;
	struct record_writer *w;
	char path[300], moved[310];
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(how); k++) {
		w = open_writer(how[k], 0, 0, 10);
		if (!w)
			return;
		make_event(&ev, 0);
		record_writer__write(w, &ev, 0);
		ASSERT_OK(record_writer__tick(w, 0), "tick while the file is there");
		snprintf(path, sizeof(path), "%s", record_writer__path(w));
		snprintf(moved, sizeof(moved), "%s.moved", path);
		if (k)
			ASSERT_OK(rename(path, moved), "mv");
		else
			ASSERT_OK(unlink(path), "rm");
		ASSERT_EQ(record_writer__tick(w, 0), -ENOENT, how[k]);
		record_writer__stats(w, &st);
		ASSERT_TRUE(st.stopped, "stopped");
		ASSERT_EQ(st.error, -ENOENT, "error kept");
		ASSERT_EQ(record_writer__write(w, &ev, 0), -ENOENT, "later events refused");
		record_writer__free(w);
	}
	test_tmp_clear(tmpdir);
}

/*
 * logrotate's copytruncate: the file cut to 0 under the writer. The tick
 * (or the next flush) starts a new segment in place: the file reads on
 * its own again (header, targets), with every event written since the cut,
 * those the writer held unflushed included; truncations counts each.
 */
TEST(copytruncate_new_segment)
{
	struct record_writer_stats st;
	struct tracerd_event ev;
	struct record_writer *w;
	enum record_end end;
	char path[300];
	unsigned int i;

	w = open_writer("cut", 0, 0, 10);
	if (!w)
		return;
	snprintf(path, sizeof(path), "%s", record_writer__path(w));
	for (i = 0; i < 100; i++) {
		make_event(&ev, i);
		record_writer__write(w, &ev, 0);
	}
	ASSERT_EQ(read_all(path, &end, 0), 100, "before the cut");
	ASSERT_OK(truncate(path, 0), "truncate (as copytruncate)");
	for (; i < 105; i++) {	/* held in the block, not flushed yet */
		make_event(&ev, i);
		record_writer__write(w, &ev, 0);
	}
	ASSERT_OK(record_writer__tick(w, 0), "tick after the cut");	/* seen by the tick */
	for (; i < 150; i++) {
		make_event(&ev, i);
		record_writer__write(w, &ev, 0);
	}
	ASSERT_EQ(read_all(path, &end, 100), 50, "after the cut: a file of its own");
	ASSERT_EQ(end, RECORD_END_OPEN, "open end");
	ASSERT_OK(truncate(path, 0), "truncate again");
	for (; i < 160; i++) {	/* the 10th event flushes: seen by the flush */
		make_event(&ev, i);
		record_writer__write(w, &ev, 0);
	}
	record_writer__stats(w, &st);
	ASSERT_EQ(st.truncations, 2, "two cuts counted");
	ASSERT_FALSE(st.stopped, "still recording");
	ASSERT_EQ(st.write_errors, 0, "no write error");
	record_writer__free(w);
	ASSERT_EQ(read_all(path, &end, 150), 10, "after the second cut");
	ASSERT_EQ(end, RECORD_END_CLEAN, "finished cleanly");
	test_tmp_clear(tmpdir);
}

TEST(rotation)
{
	struct tracerd_event ev;
	struct record_writer_stats st;
	struct record_writer *w;
	enum record_end end;
	char path[300];
	unsigned int i, k;
	long total = 0, n;

	w = open_writer("rot", 8192, 3, 64);
	if (!w)
		return;
	for (i = 0; i < 20000; i++) {
		make_event(&ev, i);
		record_writer__write(w, &ev, 0);
	}
	record_writer__stats(w, &st);
	record_writer__free(w);
	ASSERT_TRUE(st.rotations > 3, "rotated more than keep");
	ASSERT_EQ(st.events, 20000, "events");
	/* current + 3 kept; each file reads clean and is self-contained */
	for (k = 0; k <= 4; k++) {
		if (k)
			snprintf(path, sizeof(path), "%s/rot.trec.%u", tmpdir, k);
		else
			snprintf(path, sizeof(path), "%s/rot.trec", tmpdir);
		if (k == 4) {
			ASSERT_EQ(access(path, F_OK), -1, "no file past keep");
			break;
		}
		{
			struct record_reader *r;
			struct record_item it;
			char msg[256];

			if (!ASSERT_OK(record_reader__open(path, &r, msg, sizeof(msg)), msg))
				break;
			n = 0;
			while (record_reader__next(r, &it) == 1)
				if (it.type == TRACERD_REC_EVENT) {
					ASSERT_OK_PTR(it.target, "target defined in each file");
					n++;
				}
			end = record_reader__end(r, NULL);
			record_reader__free(r);
		}
		ASSERT_EQ(end, RECORD_END_CLEAN, "rotated file is finished");
		ASSERT_TRUE(n > 0, "events in each file");
		total += n;
	}
	ASSERT_TRUE(total < 20000, "oldest files were removed");
	test_tmp_clear(tmpdir);
}

/* A file from an earlier run is kept (shifted to .1), never truncated. */
TEST(restart_keeps_old)
{
	struct tracerd_event ev;
	struct record_writer *w;
	enum record_end end;
	char path[300];

	w = open_writer("re", 0, 2, 10);
	make_event(&ev, 0);
	record_writer__write(w, &ev, 0);
	record_writer__free(w);
	w = open_writer("re", 0, 2, 10);
	record_writer__free(w);
	snprintf(path, sizeof(path), "%s/re.trec.1", tmpdir);
	ASSERT_EQ(read_all(path, &end, 0), 1, "old file");
	snprintf(path, sizeof(path), "%s/re.trec", tmpdir);
	ASSERT_EQ(read_all(path, &end, 0), 0, "new file");
	test_tmp_clear(tmpdir);
}

TEST(bad_names)
{
	static const char *const bad[] = { "", ".hidden", "../x", "a/b" };
	struct record_opts o = { .dir = test_tmp(tmpdir) };
	struct record_writer *w;
	char msg[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		o.name = bad[i];
		ASSERT_EQ(record_writer__new(&o, &w, msg, sizeof(msg)), -EINVAL, bad[i]);
	}
	o.name = "x";
	o.dir = "/nonexistent/dir";
	ASSERT_EQ(record_writer__new(&o, &w, msg, sizeof(msg)), -ENOENT, "missing dir");
}

TEST(not_a_record)
{
	struct record_reader *r;
	char path[300], msg[256];
	int fd;

	snprintf(path, sizeof(path), "%s/junk", test_tmp(tmpdir));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_EQ(write(fd, "hello world, no record here", 27), 27, "write");
	close(fd);
	ASSERT_EQ(record_reader__open(path, &r, msg, sizeof(msg)), -EINVAL, "junk");
	test_tmp_clear(tmpdir);
}

/* ENOSPC: the writer stops, keeps the error, counts drops, file stays readable. */
TEST(write_error_stops)
{
	struct tracerd_event ev;
	struct record_writer_stats st;
	struct record_writer *w;
	char dir[300];
	unsigned int i;
	int err = 0;

	/* a tiny tmpfs when we may mount one; else skip quietly */
	snprintf(dir, sizeof(dir), "%s/mnt", test_tmp(tmpdir));
	mkdir(dir, 0700);
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "mount -t tmpfs -o size=64k tmpfs %s 2>/dev/null", dir);
		if (system(cmd)) {
			printf("SKIP write_error_stops (cannot mount tmpfs)\n");
			return;
		}
	}
	{
		struct record_opts o = { .dir = dir, .name = "full", .flush_events = 16,
					 .flush_ns = 1ULL << 62 };
		char msg[256];

		if (!ASSERT_OK(record_writer__new(&o, &w, msg, sizeof(msg)), msg))
			goto cleanup;
	}
	for (i = 0; i < 200000; i++) {
		/* incompressible-ish: vary every field */
		make_event(&ev, i);
		ev.ts_ns = (uint64_t)rand() << 32 | (uint64_t)rand();
		ev.duration_ns = (uint64_t)rand() * 7919;
		err = record_writer__write(w, &ev, 0);
		if (err)
			break;
	}
	record_writer__stats(w, &st);
	ASSERT_EQ(err, -ENOSPC, "stops with ENOSPC");
	ASSERT_TRUE(st.stopped, "stopped");
	ASSERT_EQ(st.error, -ENOSPC, "error kept");
	ASSERT_EQ(st.write_errors, 1, "one write error");
	for (i = 0; i < 10; i++)
		ASSERT_EQ(record_writer__write(w, &ev, 0), -ENOSPC, "later writes refused");
	record_writer__stats(w, &st);
	ASSERT_TRUE(st.dropped >= 10, "drops counted");
	record_writer__free(w);
	{
		struct record_reader *r;
		struct record_item it;
		char path[400], msg[256];
		long n = 0;

		snprintf(path, sizeof(path), "%s/full.trec", dir);
		if (ASSERT_OK(record_reader__open(path, &r, msg, sizeof(msg)), msg)) {
			while (record_reader__next(r, &it) == 1)
				n += it.type == TRACERD_REC_EVENT;
			ASSERT_TRUE(n > 0 && n <= (long)st.events, "reads up to the cut");
			ASSERT_TRUE(record_reader__end(r, NULL) != RECORD_END_CLEAN, "not clean");
			record_reader__free(r);
		}
	}
cleanup:
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "umount %s", dir);
		ASSERT_EQ(system(cmd), 0, "umount");
	}
	test_tmp_clear(tmpdir);
}

TEST_MAIN()
