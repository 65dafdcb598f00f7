/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Record files (format: include/tracerd/record.h): a writer for tracerd and
 * a reader for `tracectl dump`.
 *
 * Writer: DIR/NAME.trec is the current file; when it reaches max_bytes it
 * is finished and renamed NAME.trec.1 (older ones shift up, the ones past
 * `keep` are removed) and a new NAME.trec starts with its own header.
 * Flush policy: a flush after flush_events events or when flush_ns has
 * passed since the last flush (checked on each event and by
 * record_writer__tick). Every flush closes an integrity block, written as
 * one zstd frame (format version 3, include/tracerd/record.h): compressed
 * bytes reach the file only at flush points. Records are gathered
 * uncompressed until then; a block also closes when it reaches
 * TRACERD_BLOCK_MAX bytes.
 * A write error (ENOSPC, EDQUOT, EIO, ...), or the file found deleted or
 * moved by record_writer__tick (-ENOENT), stops the writer: it keeps the
 * error, counts what it drops, and never fails the caller's tracing. A
 * file cut short under it (logrotate's copytruncate), seen by the tick or
 * at a flush, gets a new segment in place (header, targets, then the
 * block it was writing), counted in truncations (docs/metrics.md,
 * "Rotation by other tools").
 */
#ifndef TRACERD_LIB_RECORD_H
#define TRACERD_LIB_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include <tracerd/record.h>

#define RECORD_SUFFIX		".trec"
/* 512: a block of events closes at TRACERD_BLOCK_MAX (32 KiB, 482 events)
 * first. A flush every 256 events made frames of 17 KiB: zstd's per-frame
 * cost was 15 % of the writer's, and files 7 % larger (bench record). */
#define RECORD_FLUSH_EVENTS	512
#define RECORD_FLUSH_NS		(1000ULL * 1000 * 1000)

struct record_writer;

struct record_opts {
	const char *dir;		/* must exist */
	const char *name;		/* [A-Za-z0-9._-], no leading '.' */
	uint64_t max_bytes;		/* rotate at this file size; 0: never */
	unsigned int keep;		/* rotated files kept (NAME.trec.1..keep) */
	unsigned int flush_events;	/* 0: RECORD_FLUSH_EVENTS */
	uint64_t flush_ns;		/* 0: RECORD_FLUSH_NS */
	json_object *meta;		/* extra meta fields (copied), or NULL */
};

struct record_writer_stats {
	uint64_t events;		/* events taken into a block */
	uint64_t dropped;		/* events not recorded (writer stopped) */
	uint64_t bytes;			/* compressed bytes written, all files */
	uint64_t flushes;
	uint64_t rotations;
	uint64_t truncations;		/* the file cut under it (copytruncate): a new
					 * segment started in place */
	uint64_t write_errors;		/* failed writes (0 or 1: it stops) */
	int error;			/* -errno that stopped it, or 0 */
	bool stopped;
};

/* 0 or -errno; msg says which file and why. */
int record_writer__new(const struct record_opts *o, struct record_writer **out,
		       char *msg, size_t msglen);
/* Close the last block, end the file (END frame) and close; NULL-safe. */
void record_writer__free(struct record_writer *w);
/* Name a slot in the current and every later file (a slot named again: the new name). */
int record_writer__define_target(struct record_writer *w, uint32_t slot, uint32_t mode,
				 uint32_t attachment, const char *name);
/* The slot is gone (detached): files started later do not declare it. */
void record_writer__forget_target(struct record_writer *w, uint32_t slot);
/* Targets a new file would declare. */
size_t record_writer__nr_targets(const struct record_writer *w);
/* Record one event; now_ns: monotonic clock (flush by time). 0 or -errno. */
int record_writer__write(struct record_writer *w, const struct tracerd_event *ev, uint64_t now_ns);
/* The same with its kernel stack (nr frames, innermost first; at most
 * TRACERD_EVENT_STACK_MAX kept): flags gets TRACERD_EV_STACK. */
int record_writer__write_stack(struct record_writer *w, const struct tracerd_event *ev,
			       const __u64 *ips, __u32 nr, uint64_t now_ns);
/* The same with its arguments (--args, TRACERD_EV_ARGS set; a stack's flag
 * cleared): nr values, the strings of strmask. */
int record_writer__write_args(struct record_writer *w, const struct tracerd_event_args *a,
			      uint64_t now_ns);
/* The slot's PROTO (record.h): how its functions' arguments read, a JSON
 * object of at most TRACERD_PROTO_MAX bytes, in the current and every later
 * file; after its define_target. 0, -ENOENT (no such target), -E2BIG. */
int record_writer__define_args(struct record_writer *w, uint32_t slot, const char *proto);
/* Count events lost before they reached the writer (ring-buffer drops). */
int record_writer__lost(struct record_writer *w, uint64_t count);
/* Time-based flush and a check that the file still exists (a deleted file
 * or record_dir stops the writer with -ENOENT); call periodically. */
int record_writer__tick(struct record_writer *w, uint64_t now_ns);
/* Close the current block: its frame goes to the file. */
int record_writer__flush(struct record_writer *w);
void record_writer__stats(const struct record_writer *w, struct record_writer_stats *st);
/* The path of the current file. */
const char *record_writer__path(const struct record_writer *w);

/* ---------------------------------------------------------------- reader */

struct record_reader;

enum record_end {
	RECORD_END_NONE = 0,	/* not at the end yet */
	RECORD_END_CLEAN,	/* file finished by the writer (end of stream, END frame) */
	RECORD_END_TRUNCATED,	/* file cut short: read up to the last whole block
				 * (version 1: the last whole record) */
	RECORD_END_CORRUPT,	/* bad data: read up to the last good block */
	RECORD_END_OPEN,	/* no end of stream, but it stops at a flush point:
				 * being written (or its writer stopped); nothing lost */
};

struct record_item {
	uint16_t type;			/* enum tracerd_rec_type */
	const struct tracerd_event *ev;	/* TRACERD_REC_EVENT */
	const __u64 *ips;		/* its stack, innermost first (TRACERD_EV_STACK) */
	uint32_t nr_ips;		/* frames in ips (0: none) */
	const struct tracerd_event_args *args;	/* its arguments (TRACERD_EV_ARGS), or NULL */
	json_object *proto;		/* ... their PROTO "args" array (owned by the
					 * reader), NULL when the file has none */
	const char *target;		/* event's target name, or NULL if undefined */
	uint64_t lost;			/* TRACERD_REC_LOST */
};

int record_reader__open(const char *path, struct record_reader **out, char *msg, size_t msglen);
void record_reader__free(struct record_reader *r);
/* The parsed meta object (owned by the reader). */
json_object *record_reader__meta(const struct record_reader *r);
/* 1: *it filled (valid until the next call), 0: end (see __end), -errno. */
int record_reader__next(struct record_reader *r, struct record_item *it);
/* How the read ended; why: what and where (record, event, offsets). */
enum record_end record_reader__end(const struct record_reader *r, const char **why);
/* The file's format version (1: no integrity checks; 1, 2: zlib; 3-5: zstd; 4: stacks;
 * 5: arguments). */
uint32_t record_reader__version(const struct record_reader *r);
/* Event ts (monotonic ns) -> realtime ns, from the header's clock pair. */
uint64_t record_reader__realtime(const struct record_reader *r, uint64_t ts_ns);

/*
 * Follow a file being written (tracectl dump --follow): after an open end
 * (RECORD_END_OPEN) or a block cut short (RECORD_END_TRUNCATED: maybe one
 * still being written), read on from where the read stopped, so the next
 * __next sees what was appended since; the unverified rest of a cut block
 * is kept and checked again with what follows. 0, or -EINVAL at any other
 * end (clean, corrupt: final) or before the end.
 */
int record_reader__resume(struct record_reader *r);

#endif
