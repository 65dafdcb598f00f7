// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record_reader__resume (tracectl dump --follow): a file read while it
 * grows, in pieces cut at any byte, yields every event once and in order,
 * never a corrupt end, and ends clean; resume is refused at a final end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "../../lib/record.h"

static char tmpdir[] = "/tmp/test_record_follow.XXXXXX";

static void make_event(struct tracerd_event *ev, unsigned int i)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts_ns = 5000000 + i;
	ev->duration_ns = i * 7;
	ev->slot = i % 2;
	ev->pid = 300 + i % 3;
	ev->tid = 400 + i;
	ev->flags = TRACERD_EV_DURATION;
	snprintf(ev->comm, sizeof(ev->comm), "f%u", i % 5);
}

/* 1000 events, a flush every 64, finished: the file's bytes (malloc'd). */
static char *make_file(char *path, size_t pathlen, off_t *size)
{
	struct record_opts o = {
		.dir = tmpdir, .name = "follow", .flush_events = 64, .flush_ns = 1ULL << 62,
	};
	struct record_writer *w = NULL;
	struct tracerd_event ev;
	struct stat sb;
	char msg[256], *data;
	unsigned int i;
	int fd;

	if (!ASSERT_OK(record_writer__new(&o, &w, msg, sizeof(msg)), msg))
		return NULL;
	record_writer__define_target(w, 0, 5, 1, "tp:task/task_rename");
	record_writer__define_target(w, 1, 5, 2, "tp:sched/sched_switch");
	for (i = 0; i < 1000; i++) {
		make_event(&ev, i);
		record_writer__write(w, &ev, 0);
	}
	snprintf(path, pathlen, "%s", record_writer__path(w));
	record_writer__free(w);
	if (stat(path, &sb))
		return NULL;
	*size = sb.st_size;
	data = malloc((size_t)*size);
	fd = open(path, O_RDONLY);
	if (!data || fd < 0 || read(fd, data, (size_t)*size) != *size) {
		free(data);
		data = NULL;
	}
	if (fd >= 0)
		close(fd);
	return data;
}

/* Read what is there; each event checked against the sequence. -1 on a mismatch. */
static long drain(struct record_reader *r, long n)
{
	static const char *const names[] = { "tp:task/task_rename", "tp:sched/sched_switch" };
	struct tracerd_event want;
	struct record_item it;
	int ret;

	while ((ret = record_reader__next(r, &it)) == 1) {
		if (it.type != TRACERD_REC_EVENT)
			continue;
		make_event(&want, (unsigned int)n);
		if (!ASSERT_OK(memcmp(it.ev, &want, sizeof(want)), "event content") ||
		    !ASSERT_STREQ(it.target, names[want.slot], "target name"))
			return -1;
		n++;
	}
	return ASSERT_EQ(ret, 0, "next") ? n : -1;
}

/* The file appended STEP bytes at a time (the header and meta in one piece). */
static void grow(const char *data, off_t size, off_t step)
{
	char path[256], msg[256];
	struct record_reader *r;
	enum record_end end = RECORD_END_NONE;
	uint32_t meta_len;
	off_t at;
	long n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/grown.trec", tmpdir);
	memcpy(&meta_len, data + 12, sizeof(meta_len));
	at = (off_t)(sizeof(struct tracerd_file_header) + meta_len);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!ASSERT_TRUE(fd >= 0, "create") || !ASSERT_EQ(write(fd, data, (size_t)at), at, "header"))
		goto out;
	if (!ASSERT_OK(record_reader__open(path, &r, msg, sizeof(msg)), msg))
		goto out;
	for (;;) {
		n = drain(r, n);
		if (n < 0)
			break;
		end = record_reader__end(r, NULL);
		if (end != RECORD_END_OPEN && end != RECORD_END_TRUNCATED)
			break;
		if (at == size) {
			TEST_FAIL_("step %lld: the whole file, but no clean end (%d)", (long long)step, end);
			break;
		}
		if (!ASSERT_EQ(write(fd, data + at, (size_t)(at + step > size ? size - at : step)),
			       at + step > size ? size - at : step, "append"))
			break;
		at = at + step > size ? size : at + step;
		if (!ASSERT_OK(record_reader__resume(r), "resume"))
			break;
	}
	if (n >= 0) {
		ASSERT_EQ(end, RECORD_END_CLEAN, "clean end after the last piece");
		ASSERT_EQ(n, 1000, "every event once");
		ASSERT_EQ(record_reader__resume(r), -EINVAL, "no resume after a clean end");
	}
	record_reader__free(r);
out:
	if (fd >= 0)
		close(fd);
}

TEST(follow_growing_file)
{
	static const off_t steps[] = { 1, 7, 64, 333, 4096, 1 << 20 };
	char path[256];
	off_t size;
	char *data;
	size_t i;

	if (!ASSERT_TRUE(test_tmp(tmpdir), "mkdtemp"))
		return;
	data = make_file(path, sizeof(path), &size);
	if (ASSERT_TRUE(data != NULL, "make_file"))
		for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
			grow(data, size, steps[i]);
	free(data);
	test_tmp_clear(tmpdir);
}

/* Resume only where the read stopped at an end that can move on. */
TEST(resume_refused)
{
	struct record_reader *r;
	struct record_item it;
	char path[256], msg[256];
	off_t size;
	int fd;

	if (!ASSERT_TRUE(test_tmp(tmpdir), "mkdtemp"))
		return;
	free(make_file(path, sizeof(path), &size));
	snprintf(path, sizeof(path), "%s/junk.trec", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	close(fd);
	ASSERT_ERR(record_reader__open(path, &r, msg, sizeof(msg)), "an empty file is not a record");
	snprintf(path, sizeof(path), "%s/follow.trec", tmpdir);
	if (!ASSERT_OK(record_reader__open(path, &r, msg, sizeof(msg)), msg))
		return;
	ASSERT_EQ(record_reader__resume(r), -EINVAL, "not at the end yet");
	while (record_reader__next(r, &it) == 1)
		;
	ASSERT_EQ(record_reader__end(r, NULL), RECORD_END_CLEAN, "clean end");
	ASSERT_EQ(record_reader__resume(r), -EINVAL, "clean end is final");
	record_reader__free(r);
	test_tmp_clear(tmpdir);
}

TEST_MAIN()
