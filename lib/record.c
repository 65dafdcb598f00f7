// SPDX-License-Identifier: GPL-2.0-or-later
/* Record file writer and reader; see record.h and include/tracerd/record.h. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "jsonutil.h"
#include "record.h"
#include "util.h"

/* largest record written: a slot's PROTO (record.h); a slow call's event with its stack,
 * a call's with its arguments, a target's name are shorter */
#define REC_MAX		(sizeof(struct tracerd_rec_hdr) + sizeof(struct tracerd_rec_proto) + \
			 TRACERD_PROTO_MAX)
_Static_assert(sizeof(struct tracerd_event_stack) <= sizeof(struct tracerd_rec_proto) +
	       TRACERD_PROTO_MAX, "REC_MAX holds a stack event");
_Static_assert(sizeof(struct tracerd_event_args) <= sizeof(struct tracerd_rec_proto) +
	       TRACERD_PROTO_MAX, "REC_MAX holds an args event");
#define CHECK_BYTES	(sizeof(struct tracerd_rec_hdr) + sizeof(struct tracerd_rec_check))
/* writer: one block's records and its CHECK (a block closes at TRACERD_BLOCK_MAX) */
#define BLK_BUF_SIZE	(TRACERD_BLOCK_MAX + REC_MAX + CHECK_BYTES)
#define FCRC_BYTES	sizeof(struct tracerd_frame_crc)
/* writer: one compressed block and its CRC frame; bytes reach the file only at flush points */
#define OUT_BUF_SIZE	(ZSTD_COMPRESSBOUND(BLK_BUF_SIZE) + FCRC_BYTES)
/* reader: a v3 frame larger than this is corrupt */
#define FRAME_MAX	(ZSTD_COMPRESSBOUND(TRACERD_BLOCK_LIMIT) + FCRC_BYTES)
#define IN_BUF_SIZE	(FRAME_MAX + 64 * 1024)
#define DEC_BUF_SIZE	(256 * 1024)	/* > largest record (4 + 65535), > TRACERD_BLOCK_LIMIT */
#define MAX_SLOT	(1U << 20)	/* reader: slot table bound */
#define WRITER_ZSTD_LEVEL 1 /* the writer runs in the daemon's event loop: speed first */

struct wtarget {
	uint32_t slot, mode, attachment;
	char *name;
	char *proto;			/* its PROTO's JSON (--args), or NULL */
};

struct record_writer {
	int dirfd, fd;
	char name[256];
	char fname[300];		/* NAME.trec, relative to dirfd */
	char path[PATH_MAX];
	uint64_t max_bytes;
	unsigned int keep, flush_events;
	uint64_t flush_ns;
	json_object *meta_extra;
	ZSTD_CCtx *cctx;
	uint64_t file_bytes;		/* bytes in the current file */
	unsigned int pending;		/* events since the last flush */
	uint64_t last_flush_ns;
	uint32_t block, blk_records;	/* current block: number, records so far */
	size_t blk_bytes;		/* its record bytes in blk */
	uint64_t seq;			/* files (and segments) started by this writer */
	bool restarting;		/* writer_restart: a new segment is being written */
	struct wtarget *targets;
	size_t nr_targets;
	struct record_writer_stats st;
	unsigned char blk[BLK_BUF_SIZE];
	unsigned char out[OUT_BUF_SIZE];
};

/* ---------------------------------------------------------------- writer */

static void writer_stop(struct record_writer *w, int err)
{
	if (w->st.stopped)
		return;
	w->st.stopped = true;
	w->st.error = err;
	w->st.write_errors++;
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

static int write_all(struct record_writer *w, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = write(w->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : -ENOSPC;

			writer_stop(w, err);
			return err;
		}
		p += n;
		len -= (size_t)n;
		w->file_bytes += (uint64_t)n;
		w->st.bytes += (uint64_t)n;
	}
	return 0;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_le32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Compress len bytes at src into one zstd frame, add its CRC frame, write both (one write). */
static int frame_write(struct record_writer *w, const void *src, size_t len)
{
	size_t n = ZSTD_compress2(w->cctx, w->out, sizeof(w->out) - FCRC_BYTES, src, len);
	unsigned char *t = w->out + n;

	if (ZSTD_isError(n)) {
		writer_stop(w, -EIO);
		return -EIO;
	}
	put_le32(t, TRACERD_FRAME_CRC_MAGIC);
	put_le32(t + 4, 4);
	put_le32(t + 8, (uint32_t)crc32(0, w->out, (uInt)n));
	return write_all(w, w->out, n + FCRC_BYTES);
}

static int writer_check_cut(struct record_writer *w);

/* Close the current block: its CHECK record, then the block as one frame. */
static int block_flush(struct record_writer *w)
{
	struct tracerd_rec_hdr h = {.type = TRACERD_REC_CHECK,
				    .len = sizeof(struct tracerd_rec_check)};
	struct tracerd_rec_check c;
	int err;

	if (!w->blk_records)
		return 0;
	if (w->fd >= 0 && !w->restarting) {
		err = writer_check_cut(w);	/* may start a new segment: block numbers anew */
		if (err)
			return err;
	}
	c = (struct tracerd_rec_check){ .block = w->block, .records = w->blk_records };
	c.crc = (uint32_t)crc32(0, w->blk, (uInt)w->blk_bytes);
	memcpy(w->blk + w->blk_bytes, &h, sizeof(h));
	memcpy(w->blk + w->blk_bytes + sizeof(h), &c, sizeof(c));
	err = frame_write(w, w->blk, w->blk_bytes + CHECK_BYTES);
	w->block++;
	w->blk_records = 0;
	w->blk_bytes = 0;
	return err;
}

static int put_record(struct record_writer *w, uint16_t type, const void *a, size_t alen,
		      const void *b, size_t blen)
{
	struct tracerd_rec_hdr h = { .type = type, .len = (uint16_t)(alen + blen) };
	unsigned char *p = w->blk + w->blk_bytes;
	size_t len = sizeof(h) + alen + blen;

	if (len > REC_MAX)
		return -E2BIG;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), a, alen);
	if (blen)
		memcpy(p + sizeof(h) + alen, b, blen);
	w->blk_records++;
	w->blk_bytes += len;
	/* a block stays small enough for the buffers and the reader */
	return w->blk_bytes >= TRACERD_BLOCK_MAX ? block_flush(w) : 0;
}

static int put_target(struct record_writer *w, const struct wtarget *t)
{
	struct tracerd_rec_target rt = {
		.slot = t->slot, .mode = t->mode, .attachment = t->attachment,
	};

	struct tracerd_rec_proto rp = { .slot = t->slot };
	int err;

	err = put_record(w, TRACERD_REC_TARGET, &rt, sizeof(rt), t->name, strlen(t->name));
	if (err || !t->proto)
		return err;
	return put_record(w, TRACERD_REC_PROTO, &rp, sizeof(rp), t->proto, strlen(t->proto));
}

static json_object *writer_meta(struct record_writer *w)
{
	json_object *m = json_object_new_object();
	struct utsname u;
	char host[256] = "";
	uint16_t probe = 1;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	json_object_object_add(m, "format", json_object_new_string("tracerd-record"));
	json_object_object_add(m, "version", json_object_new_int(TRACERD_FILE_VERSION));
	json_object_object_add(m, "compression", json_object_new_string("zstd"));
	json_object_object_add(m, "byte_order",
			       json_object_new_string(*(uint8_t *)&probe ? "little" : "big"));
	json_object_object_add(m, "event_size",
			       json_object_new_int((int)sizeof(struct tracerd_event)));
	json_object_object_add(m, "name", json_object_new_string(w->name));
	json_object_object_add(m, "sequence", json_object_new_int64((int64_t)w->seq));
	json_object_object_add(m, "created_realtime_ns",
			       json_object_new_int64((int64_t)now_real_ns()));
	json_object_object_add(m, "created_monotonic_ns",
			       json_object_new_int64((int64_t)now_mono_ns()));
	json_object_object_add(m, "hostname", json_object_new_string(host));
	json_object_object_add(m, "kernel", json_object_new_string(u.release));
	json_object_object_add(m, "arch", json_object_new_string(u.machine));
	json_object_object_add(m, "tracerd_version", json_object_new_string(TRACERD_VERSION));
	json_object_object_add(m, "flush_events", json_object_new_int((int)w->flush_events));
	json_object_object_add(m, "flush_ns", json_object_new_int64((int64_t)w->flush_ns));
	if (w->meta_extra) {
		json_object_object_foreach(w->meta_extra, k, v)
			if (!json_object_object_get_ex(m, k, NULL))
				json_object_object_add(m, k, json_object_get(v));
	}
	return m;
}

static int file_start(struct record_writer *w);

/* Create DIR/NAME.trec, write header + meta, start the stream and targets. */
static int file_open(struct record_writer *w)
{
	w->fd = openat(w->dirfd, w->fname, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		       0640);
	if (w->fd < 0)
		return -errno;
	return file_start(w);
}

/* A new segment at the start of w->fd (empty): header + meta, the stream, the targets. */
static int file_start(struct record_writer *w)
{
	struct tracerd_file_header h = { .version = TRACERD_FILE_VERSION };
	json_object *meta;
	unsigned char *hbuf;
	const char *js;
	size_t i, jlen;
	int err;

	w->file_bytes = 0;
	w->seq++;
	meta = writer_meta(w);
	js = json_object_to_json_string_ext(meta, JSON_C_TO_STRING_PLAIN);
	jlen = strlen(js);
	memcpy(h.magic, TRACERD_FILE_MAGIC, sizeof(h.magic));
	h.meta_len = (uint32_t)jlen;
	/* one write: a reader never finds the header without its meta */
	hbuf = jlen > TRACERD_FILE_META_MAX ? NULL : malloc(sizeof(h) + jlen);
	err = hbuf ? 0 : jlen > TRACERD_FILE_META_MAX ? -E2BIG : -ENOMEM;
	if (!err) {
		memcpy(hbuf, &h, sizeof(h));
		memcpy(hbuf + sizeof(h), js, jlen);
		err = write_all(w, hbuf, sizeof(h) + jlen);
	}
	free(hbuf);
	json_object_put(meta);
	if (err)
		return err;
	w->block = w->blk_records = 0;
	w->blk_bytes = 0;
	for (i = 0; i < w->nr_targets; i++) {
		err = put_target(w, &w->targets[i]);
		if (err)
			return err;
	}
	return 0;
}

/* NAME.trec.(keep-1) -> .keep, ..., NAME.trec -> NAME.trec.1 (dropping the oldest). */
static int shift_files(struct record_writer *w)
{
	char from[300], to[300];
	unsigned int i;

	for (i = w->keep; i >= 1; i--) {
		snprintf(to, sizeof(to), "%s%s.%u", w->name, RECORD_SUFFIX, i);
		if (i == 1)
			snprintf(from, sizeof(from), "%s", w->fname);
		else
			snprintf(from, sizeof(from), "%s%s.%u", w->name, RECORD_SUFFIX, i - 1);
		if (renameat(w->dirfd, from, w->dirfd, to) && errno != ENOENT)
			return -errno;
	}
	if (!w->keep) {
		snprintf(from, sizeof(from), "%s", w->fname);
		if (unlinkat(w->dirfd, from, 0) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/* A clean close: the last block, then the END frame. */
static int file_finish(struct record_writer *w)
{
	struct {
		struct tracerd_rec_hdr h;
		struct tracerd_rec_end e;
	} end = {
		.h = { .type = TRACERD_REC_END, .len = sizeof(end.e) },
		.e = { .magic = TRACERD_REC_END_MAGIC },
	};
	int err = 0;

	if (w->fd >= 0) {
		err = block_flush(w);
		end.e.blocks = w->block;
		if (!err)
			err = frame_write(w, &end, sizeof(end));
	}
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	return err;
}

static int writer_rotate(struct record_writer *w)
{
	int err;

	err = file_finish(w);
	if (!err)
		err = shift_files(w);
	if (!err)
		err = file_open(w);
	if (err) {
		writer_stop(w, err);
		return err;
	}
	w->st.rotations++;
	w->pending = 0;
	return 0;
}

/*
 * The file was cut under the writer (logrotate's copytruncate, a
 * truncate(1)): what the writer wrote is gone from it (the copy has it),
 * and a frame written at the old offset would leave a hole a reader
 * rejects from the start. Start a new segment in place: header, meta,
 * targets, at offset 0; the block being flushed follows it, so no event
 * the writer still holds is lost. A failure stops the writer.
 */
static int writer_restart(struct record_writer *w)
{
	size_t pend_bytes = w->blk_bytes;
	uint32_t pend_records = w->blk_records;
	unsigned char *pend = pend_bytes ? malloc(pend_bytes) : NULL;
	int err = 0;

	if (pend_bytes && !pend)
		err = -ENOMEM;
	else if (lseek(w->fd, 0, SEEK_SET) < 0 || ftruncate(w->fd, 0))
		err = -errno;
	if (err) {
		free(pend);
		writer_stop(w, err);
		return err;
	}
	if (pend_bytes)
		memcpy(pend, w->blk, pend_bytes);
	w->restarting = true;
	err = file_start(w);	/* a new sequence number too */	/* the targets into blk */
	if (!err)
		err = block_flush(w);
	w->restarting = false;
	if (!err) {
		memcpy(w->blk, pend, pend_bytes);
		w->blk_bytes = pend_bytes;
		w->blk_records = pend_records;
		w->st.truncations++;
	} else {
		writer_stop(w, err);
	}
	free(pend);
	return err;
}

/* 0 when the file still holds all the writer wrote, else a new segment (writer_restart). */
static int writer_check_cut(struct record_writer *w)
{
	struct stat st;

	if (fstat(w->fd, &st))
		return 0;	/* writer_check_file decides about a file gone */
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size >= w->file_bytes)
		return 0;
	return writer_restart(w);
}

int record_writer__new(const struct record_opts *o, struct record_writer **out,
		       char *msg, size_t msglen)
{
	struct record_writer *w;
	struct stat sb;
	int err;

	*out = NULL;
	if (!o->name[0] || o->name[0] == '.' || strchr(o->name, '/') ||
	    strlen(o->name) + sizeof(RECORD_SUFFIX) + 8 > sizeof(w->name))
		return set_err(msg, msglen, -EINVAL, "invalid record name '%s'", o->name);
	w = calloc(1, sizeof(*w));
	if (!w)
		return set_err(msg, msglen, -ENOMEM, "out of memory");
	w->fd = -1;
	strcpy(w->name, o->name);
	w->max_bytes = o->max_bytes;
	w->keep = o->keep;
	w->flush_events = o->flush_events ? o->flush_events : RECORD_FLUSH_EVENTS;
	w->flush_ns = o->flush_ns ? o->flush_ns : RECORD_FLUSH_NS;
	w->meta_extra = o->meta ? json_object_get(o->meta) : NULL;
	w->last_flush_ns = now_mono_ns();
	snprintf(w->fname, sizeof(w->fname), "%s%s", o->name, RECORD_SUFFIX);
	snprintf(w->path, sizeof(w->path), "%s/%s", o->dir, w->fname);
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx || ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel,
							       WRITER_ZSTD_LEVEL))) {
		w->dirfd = -1;
		err = set_err(msg, msglen, -ENOMEM, "out of memory");
		goto cleanup;
	}
	w->dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->dirfd < 0) {
		err = set_err(msg, msglen, -errno, "record_dir '%s': %s", o->dir, strerror(errno));
		goto cleanup;
	}
	/* A file left by an earlier run is kept: it becomes NAME.trec.1. */
	err = 0;
	if (!fstatat(w->dirfd, w->fname, &sb, AT_SYMLINK_NOFOLLOW))
		err = shift_files(w);
	if (!err)
		err = file_open(w);
	if (err) {
		set_err(msg, msglen, err, "cannot start record file '%s': %s", w->path,
			strerror(-err));
		goto cleanup;
	}
	*out = w;
	return 0;
cleanup:
	w->st.stopped = true;	/* nothing to count as a write error */
	record_writer__free(w);
	return err;
}

void record_writer__free(struct record_writer *w)
{
	size_t i;

	if (!w)
		return;
	if (!w->st.stopped)
		file_finish(w);
	if (w->fd >= 0)
		close(w->fd);
	ZSTD_freeCCtx(w->cctx);
	if (w->dirfd >= 0)
		close(w->dirfd);
	for (i = 0; i < w->nr_targets; i++) {
		free(w->targets[i].name);
		free(w->targets[i].proto);
	}
	free(w->targets);
	json_object_put(w->meta_extra);
	free(w);
}

static struct wtarget *target_find(struct record_writer *w, uint32_t slot)
{
	size_t i;

	for (i = 0; i < w->nr_targets; i++)
		if (w->targets[i].slot == slot)
			return &w->targets[i];
	return NULL;
}

int record_writer__define_target(struct record_writer *w, uint32_t slot, uint32_t mode,
				 uint32_t attachment, const char *name)
{
	struct wtarget *t;
	char *dup;

	if (strlen(name) > 480)
		return -E2BIG;
	dup = strdup(name);
	if (!dup)
		return -ENOMEM;
	t = target_find(w, slot);	/* a slot used again: the new name wins */
	if (!t) {
		t = realloc(w->targets, (w->nr_targets + 1) * sizeof(*t));
		if (!t) {
			free(dup);
			return -ENOMEM;
		}
		w->targets = t;
		t = &w->targets[w->nr_targets++];
		t->name = NULL;
		t->proto = NULL;
	}
	free(t->name);
	free(t->proto);
	*t = (struct wtarget){ .slot = slot, .mode = mode, .attachment = attachment, .name = dup };
	if (w->st.stopped)
		return w->st.error;
	return put_target(w, t);
}

int record_writer__define_args(struct record_writer *w, uint32_t slot, const char *proto)
{
	struct tracerd_rec_proto rp = { .slot = slot };
	struct wtarget *t = target_find(w, slot);

	if (!t)
		return -ENOENT;
	if (strlen(proto) > TRACERD_PROTO_MAX)
		return -E2BIG;
	free(t->proto);
	t->proto = strdup(proto);
	if (!t->proto)
		return -ENOMEM;
	if (w->st.stopped)
		return w->st.error;
	return put_record(w, TRACERD_REC_PROTO, &rp, sizeof(rp), proto, strlen(proto));
}

void record_writer__forget_target(struct record_writer *w, uint32_t slot)
{
	struct wtarget *t = target_find(w, slot);

	if (!t)
		return;
	free(t->name);
	free(t->proto);
	*t = w->targets[--w->nr_targets];
}

size_t record_writer__nr_targets(const struct record_writer *w)
{
	return w->nr_targets;
}

int record_writer__flush(struct record_writer *w)
{
	int err;

	if (w->st.stopped)
		return w->st.error;
	err = block_flush(w);
	if (err)
		return err;
	w->pending = 0;
	w->st.flushes++;
	w->last_flush_ns = now_mono_ns();
	if (w->max_bytes && w->file_bytes >= w->max_bytes)
		return writer_rotate(w);
	return 0;
}

static int writer_maybe_flush(struct record_writer *w, uint64_t now_ns)
{
	bool due = now_ns > w->last_flush_ns && now_ns - w->last_flush_ns >= w->flush_ns;

	if (w->pending >= w->flush_events || (w->pending && due))
		return record_writer__flush(w);
	return 0;
}

/* An event record; with a stack (ips, nr > 0 or TRACERD_EV_STACK): its tail (record.h) */
static int write_event(struct record_writer *w, const struct tracerd_event *ev,
		       const __u64 *ips, __u32 nr, uint64_t now_ns)
{
	struct {
		__u32 nr, reserved;
		__u64 ips[TRACERD_EVENT_STACK_MAX];
	} tail = { .nr = nr };
	int err;

	if (w->st.stopped) {
		w->st.dropped++;
		return w->st.error;
	}
	if (ev->flags & TRACERD_EV_STACK) {
		if (nr > TRACERD_EVENT_STACK_MAX)
			nr = tail.nr = TRACERD_EVENT_STACK_MAX;
		memcpy(tail.ips, ips, nr * sizeof(*ips));
		err = put_record(w, TRACERD_REC_EVENT, ev, sizeof(*ev), &tail,
				 8 + nr * sizeof(*ips));
	} else {
		err = put_record(w, TRACERD_REC_EVENT, ev, sizeof(*ev), NULL, 0);
	}
	if (err) {
		w->st.dropped++;
		return err;
	}
	w->st.events++;
	w->pending++;
	return writer_maybe_flush(w, now_ns);
}

int record_writer__write(struct record_writer *w, const struct tracerd_event *ev, uint64_t now_ns)
{
	struct tracerd_event plain = *ev;

	plain.flags &= ~(TRACERD_EV_STACK | TRACERD_EV_ARGS);	/* none given: none claimed */
	return write_event(w, &plain, NULL, 0, now_ns);
}

int record_writer__write_stack(struct record_writer *w, const struct tracerd_event *ev,
			       const __u64 *ips, __u32 nr, uint64_t now_ns)
{
	struct tracerd_event with = *ev;

	with.flags = (with.flags & ~TRACERD_EV_ARGS) | TRACERD_EV_STACK;
	return write_event(w, &with, ips, nr, now_ns);
}

/* popcount of a strmask: the strings an args record carries */
static unsigned int args_nr_str(__u8 mask)
{
	unsigned int n = 0;

	for (; mask; mask &= (__u8)(mask - 1))
		n++;
	return n;
}

int record_writer__write_args(struct record_writer *w, const struct tracerd_event_args *a,
			      uint64_t now_ns)
{
	unsigned char tail[8 + sizeof(a->args) + sizeof(a->str)];
	struct tracerd_event ev = a->ev;
	__u8 nr = a->nr, mask = a->strmask;
	size_t len;
	int i, err;

	if (w->st.stopped) {
		w->st.dropped++;
		return w->st.error;
	}
	if (nr > TRACERD_EVENT_ARGS_MAX)
		nr = TRACERD_EVENT_ARGS_MAX;
	mask &= (__u8)((1U << nr) - 1);	/* a string of an argument kept */
	ev.flags = (ev.flags & ~TRACERD_EV_STACK) | TRACERD_EV_ARGS;
	tail[0] = nr;
	tail[1] = mask;
	tail[2] = a->faultmask & mask;
	tail[3] = a->truncmask & mask;
	memset(tail + 4, 0, 4);
	memcpy(tail + 8, a->args, nr * sizeof(a->args[0]));
	len = 8 + nr * sizeof(a->args[0]);
	for (i = 0; i < nr; i++) {
		if (!(mask & (1U << i)))
			continue;
		/* NUL-terminated, zero after: no byte past the string leaves the kernel */
		memset(tail + len, 0, TRACERD_EVENT_STR_LEN);
		if (!(tail[2] & (1U << i)))
			memcpy(tail + len, a->str[i], strnlen(a->str[i], TRACERD_EVENT_STR_LEN - 1));
		len += TRACERD_EVENT_STR_LEN;
	}
	err = put_record(w, TRACERD_REC_EVENT, &ev, sizeof(ev), tail, len);
	if (err) {
		w->st.dropped++;
		return err;
	}
	w->st.events++;
	w->pending++;
	return writer_maybe_flush(w, now_ns);
}

int record_writer__lost(struct record_writer *w, uint64_t count)
{
	struct tracerd_rec_lost l = { .count = count };

	if (w->st.stopped)
		return w->st.error;
	return put_record(w, TRACERD_REC_LOST, &l, sizeof(l), NULL, 0);
}

/*
 * Writes into a file that was deleted, or whose record_dir was deleted,
 * replaced or moved, succeed and go nowhere anyone looks: when the path
 * no longer names the open file, stop the writer, so that nothing claims
 * to record to it.
 */
static int writer_check_file(struct record_writer *w)
{
	struct stat fsb, psb;

	if (fstat(w->fd, &fsb))
		return -errno;
	if (fsb.st_nlink && !stat(w->path, &psb) && psb.st_dev == fsb.st_dev &&
	    psb.st_ino == fsb.st_ino)
		return writer_check_cut(w);
	writer_stop(w, -ENOENT);
	return -ENOENT;
}

int record_writer__tick(struct record_writer *w, uint64_t now_ns)
{
	int err;

	if (w->st.stopped)
		return w->st.error;
	err = writer_check_file(w);
	return err ? err : writer_maybe_flush(w, now_ns);
}

void record_writer__stats(const struct record_writer *w, struct record_writer_stats *st)
{
	*st = w->st;
}

const char *record_writer__path(const struct record_writer *w)
{
	return w->path;
}

/* ---------------------------------------------------------------- reader */

struct record_reader {
	int fd;
	uint32_t version;		/* of the file: 1 has no CHECK records */
	json_object *meta;
	z_stream zs;			/* v1, v2 */
	bool zs_init, in_eof, z_end, out_full;
	bool done;			/* v2, v3: the end is final (reader_bad, reader_tail) */
	ZSTD_DCtx *dctx;		/* v3 */
	size_t in_pos, in_len;		/* v3: [in_pos, in_len) of in not decoded yet */
	uint64_t in_off;		/* v3: file offset of in[0] */
	uint64_t frame_off;		/* v3: file offset of the current frame */
	bool ended;			/* v3: END frame seen */
	unsigned char in[IN_BUF_SIZE];
	unsigned char *buf;		/* decompressed, [pos, len) unread */
	size_t pos, len;
	size_t vend;			/* v2, v3: [pos, vend) is verified */
	uint64_t base;			/* v1, v2: stream offset of buf[0] */
	uint64_t data_off;		/* file offset of the compressed data */
	uint32_t block;			/* v2, v3: the next block's number */
	uint64_t records, events;	/* handed out */
	enum record_end end;
	const char *why;
	char why_buf[512];
	char **names;			/* slot -> target name */
	size_t nr_names;
	struct tracerd_event ev;	/* aligned copy of the current event */
	__u64 ips[TRACERD_EVENT_STACK_MAX];	/* ... and its stack (TRACERD_EV_STACK) */
	struct tracerd_event_args args;		/* ... or its arguments (TRACERD_EV_ARGS) */
	json_object **protos;		/* slot -> its PROTO's "args" array (version 5) */
	size_t nr_protos;
	uint64_t real0, mono0;
};

static int64_t meta_int(json_object *m, const char *key)
{
	long long v;

	return json_get_int(m, key, &v) ? 0 : v;
}

static int reader_header(struct record_reader *r, const char *path, char *msg, size_t msglen)
{
	struct tracerd_file_header h;
	const char *bo;
	uint16_t probe = 1;
	char *js;
	ssize_t n;

	n = read(r->fd, &h, sizeof(h));
	if (n != (ssize_t)sizeof(h) || memcmp(h.magic, TRACERD_FILE_MAGIC, sizeof(h.magic)))
		return set_err(msg, msglen, -EINVAL, "%s: not a tracerd record file", path);
	if (h.version < TRACERD_FILE_VERSION_MIN || h.version > TRACERD_FILE_VERSION)
		return set_err(msg, msglen, -EPROTO,
			       "%s: record format version %u not supported (this reader: %d to %d)",
			       path, h.version, TRACERD_FILE_VERSION_MIN, TRACERD_FILE_VERSION);
	r->version = h.version;
	r->data_off = sizeof(h) + h.meta_len;
	if (h.meta_len > TRACERD_FILE_META_MAX)
		return set_err(msg, msglen, -EINVAL, "%s: bad header (meta length %u)", path,
			       h.meta_len);
	js = calloc(1, h.meta_len + 1);
	if (!js)
		return set_err(msg, msglen, -ENOMEM, "out of memory");
	n = read(r->fd, js, h.meta_len);
	if (n == (ssize_t)h.meta_len)
		r->meta = json_parse_strict(js, strlen(js), NULL, 0);
	free(js);
	if (!r->meta || !json_object_is_type(r->meta, json_type_object))
		return set_err(msg, msglen, -EINVAL, "%s: bad header (meta is not a JSON object)",
			       path);
	if (json_get_str(r->meta, "byte_order", &bo))
		return set_err(msg, msglen, -EINVAL,
			       "%s: bad header (\"byte_order\" is not a string)", path);
	if (strcmp(bo, *(uint8_t *)&probe ? "little" : "big"))
		return set_err(msg, msglen, -EPROTO, "%s: written with another byte order", path);
	r->real0 = (uint64_t)meta_int(r->meta, "created_realtime_ns");
	r->mono0 = (uint64_t)meta_int(r->meta, "created_monotonic_ns");
	return 0;
}

/*
 * A recording is a regular file: a FIFO, socket or device is refused with
 * -EINVAL (read(2) on one would wait for a writer, or never end), and the
 * fd goes back to blocking reads.
 */
static int reader_regular(int fd, const char *path, char *msg, size_t msglen)
{
	struct stat st;
	int fl;

	if (fstat(fd, &st))
		return set_err(msg, msglen, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return set_err(msg, msglen, -EINVAL, "%s: not a regular file (a %s): "
			       "recordings are files the daemon wrote under record_dir", path,
			       S_ISFIFO(st.st_mode) ? "FIFO" : S_ISDIR(st.st_mode) ? "directory" :
			       S_ISSOCK(st.st_mode) ? "socket" : "device");
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK))
		return set_err(msg, msglen, -errno, "%s: %s", path, strerror(errno));
	return 0;
}

int record_reader__open(const char *path, struct record_reader **out, char *msg, size_t msglen)
{
	struct record_reader *r;
	int err;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return set_err(msg, msglen, -ENOMEM, "out of memory");
	r->buf = malloc(DEC_BUF_SIZE);
	/* O_NONBLOCK: a FIFO (or a device) opens at once, to be refused below,
	 * instead of waiting in open() for a writer that may never come */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		err = set_err(msg, msglen, -errno, "%s: %s", path, strerror(errno));
		goto cleanup;
	}
	err = reader_regular(r->fd, path, msg, msglen);
	if (err)
		goto cleanup;
	if (!r->buf) {
		err = set_err(msg, msglen, -ENOMEM, "out of memory");
		goto cleanup;
	}
	err = reader_header(r, path, msg, msglen);
	if (err)
		goto cleanup;
	if (r->version >= 3) {
		r->dctx = ZSTD_createDCtx();
		r->in_off = r->data_off;
	} else if (inflateInit(&r->zs) == Z_OK) {
		r->zs_init = true;
	}
	if (!r->dctx && !r->zs_init) {
		err = set_err(msg, msglen, -ENOMEM, "out of memory");
		goto cleanup;
	}
	*out = r;
	return 0;
cleanup:
	record_reader__free(r);
	return err;
}

void record_reader__free(struct record_reader *r)
{
	size_t i;

	if (!r)
		return;
	if (r->zs_init)
		inflateEnd(&r->zs);
	ZSTD_freeDCtx(r->dctx);
	if (r->fd >= 0)
		close(r->fd);
	for (i = 0; i < r->nr_names; i++)
		free(r->names[i]);
	free(r->names);
	for (i = 0; i < r->nr_protos; i++)
		json_object_put(r->protos[i]);
	free(r->protos);
	free(r->buf);
	json_object_put(r->meta);
	free(r);
}

json_object *record_reader__meta(const struct record_reader *r)
{
	return r->meta;
}

__attribute__((format(printf, 3, 4)))
static void reader_end(struct record_reader *r, enum record_end end, const char *fmt, ...)
{
	va_list ap;

	r->end = end;
	va_start(ap, fmt);
	vsnprintf(r->why_buf, sizeof(r->why_buf), fmt, ap);
	va_end(ap);
	r->why = r->why_buf;
}

/* Where the reader stands, for messages: records and events handed out, offsets. */
static void reader_bad(struct record_reader *r, enum record_end end, size_t off, const char *what)
{
	char w[256];

	snprintf(w, sizeof(w), "%s", what);	/* what may be r->why_buf */
	r->done = true;
	if (r->version >= 3) {
		reader_end(r, end,
			   "%s, after record %llu (event %llu): block %u at file offset %llu", w,
			   (unsigned long long)r->records, (unsigned long long)r->events, r->block,
			   (unsigned long long)r->frame_off);
		return;
	}
	reader_end(r, end, "%s, after record %llu (event %llu): stream offset %llu, "
		   "file offset <= %llu", w, (unsigned long long)r->records,
		   (unsigned long long)r->events, (unsigned long long)(r->base + r->pos + off),
		   (unsigned long long)(r->data_off + r->zs.total_in));
}

/* Decompress more into buf; 0 with r->end set when nothing more comes. */
static int reader_fill(struct record_reader *r)
{
	size_t before;
	ssize_t n;
	int zr;

	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->vend -= r->vend >= r->pos ? r->pos : r->vend;
		r->base += r->pos;
		r->pos = 0;
	}
	before = r->len;
	while (!r->z_end && r->len == before) {
		if (!r->zs.avail_in && !r->in_eof) {
			n = read(r->fd, r->in, sizeof(r->in));
			if (n < 0)
				return -errno;
			r->in_eof = n == 0;
			r->zs.next_in = r->in;
			r->zs.avail_in = (uInt)n;
		}
		if (!r->zs.avail_in && r->in_eof && !r->out_full) {
			reader_end(r, RECORD_END_TRUNCATED, "file cut short (no end of stream)");
			return 0;
		}
		r->zs.next_out = r->buf + r->len;
		r->zs.avail_out = (uInt)(DEC_BUF_SIZE - r->len);
		zr = inflate(&r->zs, Z_SYNC_FLUSH);
		r->len = DEC_BUF_SIZE - r->zs.avail_out;
		r->out_full = !r->zs.avail_out;
		if (zr == Z_STREAM_END) {
			r->z_end = true;
		} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			reader_end(r, RECORD_END_CORRUPT, "corrupt compressed data (%s)",
				   r->zs.msg ? r->zs.msg : "zlib error");
			return 0;
		}
	}
	return 0;
}

static int reader_name(struct record_reader *r, const struct tracerd_rec_target *t,
		       const unsigned char *name, size_t len)
{
	char **names;
	size_t n;

	if (t->slot >= MAX_SLOT)
		return 0;
	if (t->slot >= r->nr_names) {
		n = t->slot + 64;
		names = realloc(r->names, n * sizeof(*names));
		if (!names)
			return -ENOMEM;
		memset(names + r->nr_names, 0, (n - r->nr_names) * sizeof(*names));
		r->names = names;
		r->nr_names = n;
	}
	free(r->names[t->slot]);
	r->names[t->slot] = strndup((const char *)name, len);
	return r->names[t->slot] ? 0 : -ENOMEM;
}

/*
 * An event's stack (version 4, TRACERD_EV_STACK): the tail after the event,
 * nr, reserved and nr frames, exactly; 0 or -EBADMSG. An event without the
 * flag carries none (a longer record of a later version: its tail skipped).
 */
static int reader_stack(struct record_reader *r, struct record_item *it, const unsigned char *p,
			size_t len)
{
	__u32 nr;

	if (!(r->ev.flags & TRACERD_EV_STACK))
		return 0;
	if (r->version < 4 || len < 8)
		return -EBADMSG;
	memcpy(&nr, p, sizeof(nr));
	if (nr > TRACERD_EVENT_STACK_MAX || len != 8 + nr * sizeof(__u64))
		return -EBADMSG;
	memcpy(r->ips, p + 8, nr * sizeof(__u64));
	it->ips = r->ips;
	it->nr_ips = nr;
	return 0;
}

/*
 * An event's arguments (version 5, TRACERD_EV_ARGS): the tail after the
 * event, exactly as record.h says; 0 or -EBADMSG. A string read back is
 * cut at its first NUL, whatever the bytes after it hold.
 */
static int reader_args(struct record_reader *r, struct record_item *it, const unsigned char *p,
		       size_t len)
{
	struct tracerd_event_args *a = &r->args;
	size_t off;
	int i;

	if (!(r->ev.flags & TRACERD_EV_ARGS))
		return 0;
	if (r->version < 5 || (r->ev.flags & TRACERD_EV_STACK) || len < 8)
		return -EBADMSG;
	memset(a, 0, sizeof(*a));
	a->ev = r->ev;
	a->nr = p[0];
	a->strmask = p[1];
	a->faultmask = p[2];
	a->truncmask = p[3];
	if (a->nr > TRACERD_EVENT_ARGS_MAX || (a->strmask >> a->nr) ||
	    len != 8 + a->nr * sizeof(a->args[0]) + args_nr_str(a->strmask) *
	    TRACERD_EVENT_STR_LEN)
		return -EBADMSG;
	memcpy(a->args, p + 8, a->nr * sizeof(a->args[0]));
	off = 8 + a->nr * sizeof(a->args[0]);
	for (i = 0; i < a->nr; i++) {
		if (!(a->strmask & (1U << i)))
			continue;
		memcpy(a->str[i], p + off, TRACERD_EVENT_STR_LEN);
		a->str[i][TRACERD_EVENT_STR_LEN - 1] = '\0';
		off += TRACERD_EVENT_STR_LEN;
	}
	it->args = a;
	return 0;
}

/* A slot's PROTO (version 5): its "args" array kept for its events; bad JSON: -EBADMSG */
static int reader_proto(struct record_reader *r, const unsigned char *p, size_t len)
{
	struct tracerd_rec_proto rp;
	json_object *o, *args, **protos;
	json_tokener *tok;
	size_t n;

	if (len < sizeof(rp))
		return -EBADMSG;
	memcpy(&rp, p, sizeof(rp));
	if (rp.slot >= MAX_SLOT)
		return 0;
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, (const char *)p + sizeof(rp), (int)(len - sizeof(rp)));
	if (o && json_tokener_get_parse_end(tok) != len - sizeof(rp)) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	if (!o || !json_object_object_get_ex(o, "args", &args) ||
	    !json_object_is_type(args, json_type_array)) {
		json_object_put(o);
		return -EBADMSG;
	}
	if (rp.slot >= r->nr_protos) {
		n = rp.slot + 64;
		protos = realloc(r->protos, n * sizeof(*protos));
		if (!protos) {
			json_object_put(o);
			return -ENOMEM;
		}
		memset(protos + r->nr_protos, 0, (n - r->nr_protos) * sizeof(*protos));
		r->protos = protos;
		r->nr_protos = n;
	}
	json_object_put(r->protos[rp.slot]);
	r->protos[rp.slot] = json_object_get(args);
	json_object_put(o);
	return 0;
}

/* One whole record at buf[pos..]: 1 item, 0 skip, -errno; *used set. */
static int reader_record(struct record_reader *r, struct record_item *it, size_t *used)
{
	struct tracerd_rec_hdr h;
	const unsigned char *p;
	struct tracerd_rec_target t;
	struct tracerd_rec_lost l;

	memcpy(&h, r->buf + r->pos, sizeof(h));
	p = r->buf + r->pos + sizeof(h);
	*used = sizeof(h) + h.len;
	memset(it, 0, sizeof(*it));
	it->type = h.type;
	switch (h.type) {
	case TRACERD_REC_EVENT:
		if (h.len < sizeof(r->ev))
			return -EBADMSG;
		memcpy(&r->ev, p, sizeof(r->ev));
		if (reader_stack(r, it, p + sizeof(r->ev), h.len - sizeof(r->ev)) ||
		    reader_args(r, it, p + sizeof(r->ev), h.len - sizeof(r->ev)))
			return -EBADMSG;
		it->ev = &r->ev;
		if (r->ev.slot < r->nr_names)
			it->target = r->names[r->ev.slot];
		if (it->args && r->ev.slot < r->nr_protos)
			it->proto = r->protos[r->ev.slot];
		return 1;
	case TRACERD_REC_PROTO:
		return reader_proto(r, p, h.len) ?: 0;	/* no item: it names its slot's events */
	case TRACERD_REC_TARGET:
		if (h.len < sizeof(t))
			return -EBADMSG;
		memcpy(&t, p, sizeof(t));
		return reader_name(r, &t, p + sizeof(t), h.len - sizeof(t)) ?: 1;
	case TRACERD_REC_LOST:
		if (h.len < sizeof(l))
			return -EBADMSG;
		memcpy(&l, p, sizeof(l));
		it->lost = l.count;
		return 1;
	default:
		return 0;	/* a CHECK, or a newer record type: skip it */
	}
}

/* The block's CHECK record at pos + off: [pos, pos + off + rl) verified, or the end. */
static void reader_check(struct record_reader *r, size_t off, size_t rl, uint32_t crc,
			 uint32_t n)
{
	struct tracerd_rec_check c;
	char what[128];

	if (rl < sizeof(struct tracerd_rec_hdr) + sizeof(c)) {
		reader_bad(r, RECORD_END_CORRUPT, off, "malformed check record");
		return;
	}
	memcpy(&c, r->buf + r->pos + off + sizeof(struct tracerd_rec_hdr), sizeof(c));
	if (c.block != r->block) {
		snprintf(what, sizeof(what), "block %u found where block %u was due "
			 "(repeated or misplaced data)", c.block, r->block);
		reader_bad(r, RECORD_END_CORRUPT, 0, what);
		return;
	}
	if (c.records != n || c.crc != crc) {
		snprintf(what, sizeof(what), "checksum mismatch in block %u (%u records)",
			 r->block, n);
		reader_bad(r, RECORD_END_CORRUPT, 0, what);
		return;
	}
	r->vend = r->pos + off + rl;
	r->block++;
}

/*
 * No more data after pos + off: the end is clean (Z_STREAM_END right after a
 * block), open (a file still being written: no end of stream, but it stops
 * at a flush point of the writer with nothing unverified), or cut short.
 */
static void reader_tail(struct record_reader *r, size_t off)
{
	size_t avail = r->len - r->pos;
	bool at_flush = !r->zs.total_in || r->zs.data_type == 128;

	if (r->end == RECORD_END_CORRUPT) {
		reader_bad(r, RECORD_END_CORRUPT, off, r->why_buf);
	} else if (r->z_end) {
		if (avail)
			reader_bad(r, RECORD_END_CORRUPT, 0,
				   "records without a check at end of stream");
		else if (r->zs.avail_in || read(r->fd, r->in, 1) > 0)
			reader_bad(r, RECORD_END_CORRUPT, 0, "data after the end of stream");
		else
			reader_end(r, RECORD_END_CLEAN, "end of stream");
	} else if (!avail && at_flush) {
		reader_end(r, RECORD_END_OPEN, "no end of stream: the file ends at a flush point "
			   "(still being written, or its writer stopped)");
	} else {
		reader_bad(r, RECORD_END_TRUNCATED, 0, "file cut short inside a block "
			   "(its records are not shown)");
	}
	r->done = true;
}

/* v2: check the block that starts at pos; sets vend, or the end. */
static int reader_verify(struct record_reader *r)
{
	uint32_t crc = (uint32_t)crc32(0, Z_NULL, 0), n = 0;
	struct tracerd_rec_hdr h;
	size_t off = 0, avail, rl;
	int err;

	for (;;) {
		avail = r->len - r->pos;
		if (avail - off >= sizeof(h)) {
			memcpy(&h, r->buf + r->pos + off, sizeof(h));
			rl = sizeof(h) + h.len;
			if (avail - off >= rl) {
				if (h.type == TRACERD_REC_CHECK) {
					reader_check(r, off, rl, crc, n);
					return 0;
				}
				crc = (uint32_t)crc32(crc, r->buf + r->pos + off, (uInt)rl);
				n++;
				off += rl;
				if (off > TRACERD_BLOCK_LIMIT) {
					reader_bad(r, RECORD_END_CORRUPT, 0,
						   "block without a check record");
					return 0;
				}
				continue;
			}
		}
		if (r->end || r->z_end) {
			reader_tail(r, off);
			return 0;
		}
		err = reader_fill(r);
		if (err)
			return err;
	}
}

/* v3: more of the file into in (kept from in_pos on); sets in_eof. */
static int v3_read(struct record_reader *r)
{
	ssize_t n;

	if (r->in_pos) {
		memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
		r->in_off += r->in_pos;
		r->in_len -= r->in_pos;
		r->in_pos = 0;
	}
	n = read(r->fd, r->in + r->in_len, sizeof(r->in) - r->in_len);
	if (n < 0)
		return -errno;
	r->in_eof = n == 0;
	r->in_len += (size_t)n;
	return 0;
}

/*
 * v3: decompress the next frame into buf: 1; 0 at the end (clean after the
 * END frame, open right after a frame, else cut short or corrupt); -errno.
 */
static int v3_frame(struct record_reader *r)
{
	static const unsigned char magic[4] = {0x28, 0xb5, 0x2f, 0xfd}; /* ZSTD_MAGICNUMBER */
	unsigned long long content;
	const unsigned char *p;
	size_t avail, csize = 0, dsize;
	char what[160];
	int err;

	for (;;) {
		avail = r->in_len - r->in_pos;
		p = r->in + r->in_pos;
		r->frame_off = r->in_off + r->in_pos;
		if (avail && r->ended) {
			reader_bad(r, RECORD_END_CORRUPT, 0, "data after the end of stream");
			return 0;
		}
		if (memcmp(p, magic, avail < sizeof(magic) ? avail : sizeof(magic))) {
			reader_bad(r, RECORD_END_CORRUPT, 0,
				   "corrupt data: not a compressed block");
			return 0;
		}
		/* frame header descriptor: no unused, reserved or dictionary bits */
		if (avail > sizeof(magic) && (p[sizeof(magic)] & 0x1b)) {
			reader_bad(r, RECORD_END_CORRUPT, 0, "corrupt block header");
			return 0;
		}
		if (avail) {
			csize = ZSTD_findFrameCompressedSize(p, avail);
			if (!ZSTD_isError(csize) && avail >= csize + FCRC_BYTES)
				break;
			if (ZSTD_isError(csize) &&
			    ZSTD_getErrorCode(csize) != ZSTD_error_srcSize_wrong) {
				snprintf(what, sizeof(what), "corrupt compressed data (%s)",
					 ZSTD_getErrorName(csize));
				reader_bad(r, RECORD_END_CORRUPT, 0, what);
				return 0;
			}
			if (avail >= FRAME_MAX) {
				reader_bad(r, RECORD_END_CORRUPT, 0,
					   "corrupt data: block too large");
				return 0;
			}
		}
		if (r->in_eof) {
			if (avail)
				reader_bad(r, RECORD_END_TRUNCATED, 0,
					   "file cut short inside a block "
					   "(its records are not shown)");
			else if (r->ended)
				reader_end(r, RECORD_END_CLEAN, "end of stream");
			else
				reader_end(
					r, RECORD_END_OPEN,
					"no end of stream: the file ends at a "
					"flush point (still being written, or its writer stopped)");
			r->done = true;
			return 0;
		}
		err = v3_read(r);
		if (err)
			return err;
	}
	if (get_le32(p + csize) != TRACERD_FRAME_CRC_MAGIC || get_le32(p + csize + 4) != 4) {
		reader_bad(r, RECORD_END_CORRUPT, 0, "corrupt data: no CRC frame after the block");
		return 0;
	}
	if (get_le32(p + csize + 8) != (uint32_t)crc32(0, p, (uInt)csize)) {
		snprintf(what, sizeof(what), "checksum mismatch in block %u (compressed bytes)",
			 r->block);
		reader_bad(r, RECORD_END_CORRUPT, 0, what);
		return 0;
	}
	content = ZSTD_getFrameContentSize(p, avail);
	if (content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR ||
	    content > TRACERD_BLOCK_LIMIT) {
		reader_bad(r, RECORD_END_CORRUPT, 0, "corrupt block header (block size)");
		return 0;
	}
	dsize = ZSTD_decompressDCtx(r->dctx, r->buf, DEC_BUF_SIZE, p, csize);
	if (ZSTD_isError(dsize) || dsize != content) {
		snprintf(what, sizeof(what), "corrupt compressed data (%s)",
			 ZSTD_isError(dsize) ? ZSTD_getErrorName(dsize) : "size mismatch");
		reader_bad(r, RECORD_END_CORRUPT, 0, what);
		return 0;
	}
	r->in_pos += csize + FCRC_BYTES;
	r->pos = r->vend = 0;
	r->len = dsize;
	return 1;
}

/* v3: the END frame's record (the frame's only one) at buf[0..rl). */
static void v3_end(struct record_reader *r, struct tracerd_rec_hdr h, size_t rl)
{
	struct tracerd_rec_end e;
	char what[128];

	if (rl != r->len || h.len != sizeof(e)) {
		reader_bad(r, RECORD_END_CORRUPT, 0, "malformed end record");
		return;
	}
	memcpy(&e, r->buf + sizeof(h), sizeof(e));
	if (e.blocks != r->block || e.magic != TRACERD_REC_END_MAGIC) {
		snprintf(what, sizeof(what), "end record after %u blocks where %u were read",
			 e.blocks, r->block);
		reader_bad(r, RECORD_END_CORRUPT, 0, what);
		return;
	}
	r->ended = true;
	r->len = 0;
}

/* v3: the next frame, verified: [0, vend) its records, or the end. */
static int v3_block(struct record_reader *r)
{
	uint32_t crc = (uint32_t)crc32(0, Z_NULL, 0), n = 0;
	struct tracerd_rec_hdr h;
	size_t off = 0, rl;
	int ret;

	ret = v3_frame(r);
	if (ret <= 0)
		return ret;
	while (r->len - off >= sizeof(h)) {
		memcpy(&h, r->buf + off, sizeof(h));
		rl = sizeof(h) + h.len;
		if (r->len - off < rl)
			break;
		if (h.type == TRACERD_REC_END && !off) {
			v3_end(r, h, rl);
			return 0;
		}
		if (h.type == TRACERD_REC_CHECK) {
			if (off + rl != r->len)
				reader_bad(r, RECORD_END_CORRUPT, 0, "data after a check record");
			else
				reader_check(r, off, rl, crc, n);
			return 0;
		}
		crc = (uint32_t)crc32(crc, r->buf + off, (uInt)rl);
		n++;
		off += rl;
	}
	reader_bad(r, RECORD_END_CORRUPT, 0, "block without a check record");
	return 0;
}

/* v2, v3: hand out records of verified blocks only. */
static int next_checked(struct record_reader *r, struct record_item *it)
{
	size_t used;
	int ret;

	for (;;) {
		if (r->pos < r->vend) {
			ret = reader_record(r, it, &used);
			if (ret == -EBADMSG) {
				reader_bad(r, RECORD_END_CORRUPT, 0, "malformed record");
				r->vend = r->pos;
				return 0;
			}
			if (ret < 0)
				return ret;
			r->pos += used;
			if (ret)
				return 1;
			continue;
		}
		if (r->done)
			return 0;
		ret = r->version >= 3 ? v3_block(r) : reader_verify(r);
		if (ret)
			return ret;
	}
}

/* v1: no checks; records as they decompress. */
static int next_unchecked(struct record_reader *r, struct record_item *it)
{
	struct tracerd_rec_hdr h;
	size_t avail, used;
	int ret;

	for (;;) {
		avail = r->len - r->pos;
		if (avail >= sizeof(h)) {
			memcpy(&h, r->buf + r->pos, sizeof(h));
			if (avail >= sizeof(h) + h.len) {
				ret = reader_record(r, it, &used);
				if (ret == -EBADMSG) {
					reader_end(r, RECORD_END_CORRUPT, "malformed record");
					return 0;
				}
				if (ret < 0)
					return ret;
				r->pos += used;
				if (ret)
					return 1;
				continue;
			}
		}
		if (r->end)
			return 0;
		if (r->z_end) {
			if (avail)
				reader_end(r, RECORD_END_CORRUPT,
					   "partial record at end of stream");
			else
				reader_end(r, RECORD_END_CLEAN, "end of stream");
			return 0;
		}
		ret = reader_fill(r);
		if (ret)
			return ret;
	}
}

int record_reader__next(struct record_reader *r, struct record_item *it)
{
	int ret = r->version >= 2 ? next_checked(r, it) : next_unchecked(r, it);

	if (ret == 1) {
		r->records++;
		r->events += it->type == TRACERD_REC_EVENT;
	}
	return ret;
}

uint32_t record_reader__version(const struct record_reader *r)
{
	return r->version;
}

enum record_end record_reader__end(const struct record_reader *r, const char **why)
{
	if (why)
		*why = r->why;
	return r->end;
}

uint64_t record_reader__realtime(const struct record_reader *r, uint64_t ts_ns)
{
	return ts_ns - r->mono0 + r->real0;
}

int record_reader__resume(struct record_reader *r)
{
	if (r->end != RECORD_END_OPEN && r->end != RECORD_END_TRUNCATED)
		return -EINVAL;
	r->end = RECORD_END_NONE;
	r->why = NULL;
	r->done = false;
	r->in_eof = false;
	return 0;
}
