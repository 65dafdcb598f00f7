/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * Per-call events and the record file format.
 *
 * struct tracerd_event is what the BPF programs reserve in the ring buffer
 * ("events") for attachments that record, and what a record file stores,
 * byte for byte. The slot is the target id of tracerd/trace.h: the file
 * maps it to a name with a TRACERD_REC_TARGET record before its first use.
 *
 * Record file (docs/metrics.md, "Record files"):
 *
 *   struct tracerd_file_header          fixed, uncompressed, host byte order
 *   meta_len bytes of JSON               self-description ("byte_order", ...)
 *   compressed records:                  struct tracerd_rec_hdr + payload
 *
 * Readers skip record types they do not know (the length says how far).
 *
 * Integrity (version >= 2): records come in blocks, each closed by a
 * TRACERD_REC_CHECK record holding the block's number in the file, its
 * record count and the CRC-32 of its bytes (headers and payloads of the
 * records since the previous CHECK). Every flush point ends a block, and
 * the writer writes compressed bytes to the file only at flush points, so
 * a file that is still being written ends at a block boundary. A reader
 * hands out a block's records only once its CHECK matched: a file cut
 * short, zero-filled (a power loss) or bit-flipped stops at the last whole
 * verified block, never with invented or repeated events (the block number
 * catches a repeated block, the CRC anything else).
 *
 * Version 5 (what the writer makes): version 4, and an event record may
 * carry its call's arguments (struct tracerd_event_args, TRACERD_EV_ARGS),
 * described by its slot's PROTO record (struct tracerd_rec_proto).
 *
 * Version 4: version 3, and an event record may carry a stack (struct
 * tracerd_event_stack, TRACERD_EV_STACK).
 *
 * Version 3: each block is one zstd frame
 * (RFC 8878, content size in its header, no dictionary) holding the
 * block's records and, last, its CHECK, followed by a zstd skippable frame
 * (struct tracerd_frame_crc) with the CRC-32 of the compressed frame's
 * bytes: a flipped bit the decoder would not notice (or not report) still
 * fails a check. A clean close appends one more frame and its CRC frame,
 * holding only a TRACERD_REC_END record. A file that ends right after a
 * CRC frame without an END is still being written (or its writer was
 * killed): nothing is lost; one that ends anywhere else was cut short.
 * `zstd -dc` on the bytes after the meta gives the record stream.
 *
 * Version 2: one zlib stream (RFC 1950) of the blocks, sync-flushed at
 * every flush point, finished (Z_FINISH) by a clean close. Version 1: the
 * same without CHECK records. Both are still read.
 *
 * Fixed-width types only, natural alignment; sizes pinned below.
 */
#ifndef TRACERD_RECORD_H
#define TRACERD_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define TRACERD_EVENT_COMM_LEN	16
#define TRACERD_RINGBUF_BYTES	(4U << 20)	/* ring buffer "events" */
/*
 * Wakeups are batched: a producer submits with BPF_RB_NO_WAKEUP, except
 * that it wakes the consumer once the ring holds TRACERD_RINGBUF_WAKEUP
 * bytes, and again every TRACERD_RINGBUF_WAKEUP_STRIDE bytes past that
 * while nobody drained (a wakeup two CPUs both stepped over is made up
 * one stride later). The daemon also drains on a timer, so a quiet ring
 * is read within that period.
 */
#define TRACERD_RINGBUF_WAKEUP		(256U << 10)
#define TRACERD_RINGBUF_WAKEUP_STRIDE	(64U << 10)	/* a power of 2 */

/* tracerd_event.flags */
#define TRACERD_EV_DURATION	(1U << 0)	/* duration_ns is valid */
#define TRACERD_EV_RET		(1U << 1)	/* ret is valid */
#define TRACERD_EV_STACK	(1U << 2)	/* a struct tracerd_event_stack (version 4) */
#define TRACERD_EV_ARGS		(1U << 3)	/* a struct tracerd_event_args (version 5) */
#define TRACERD_CPU_UNKNOWN	0xffffffffU	/* tracerd_event.cpu not known */

struct tracerd_event {
	__u64 ts_ns;		/* bpf_ktime_get_ns() at entry (CLOCK_MONOTONIC) */
	__u64 duration_ns;	/* entry -> return, with TRACERD_EV_DURATION */
	__s64 ret;		/* return value, with TRACERD_EV_RET */
	__u32 slot;		/* target id (tracerd/trace.h slot) */
	__u32 cpu;		/* TRACERD_CPU_UNKNOWN: the kernel ran the program
				 * without its JIT (daemon/bpfutil.c) */
	__u32 pid;		/* tgid */
	__u32 tid;
	__u32 flags;		/* TRACERD_EV_* */
	__u32 reserved;
	char comm[TRACERD_EVENT_COMM_LEN];
};

/*
 * A slow call (--slower-than) of an attachment with --stacks: the event,
 * flags TRACERD_EV_STACK, then its kernel stack, innermost first. The ring
 * buffer holds the whole struct (bpf_get_stack fills ips); a file holds
 * the event, nr, reserved and the nr frames the daemon kept (tracerd's
 * own BPF frames left out, cut to the attachment's depth): a
 * TRACERD_REC_EVENT record whose len is sizeof(struct tracerd_event) + 8
 * + 8 * nr (version 4; before, an event record was 64 bytes, always).
 * The frames are addresses: a file is read after the daemon, the stack
 * map, even the boot that made it are gone.
 */
#define TRACERD_EVENT_STACK_MAX	127	/* tracerd/trace.h, TRACERD_STACK_DEPTH_MAX */
struct tracerd_event_stack {
	struct tracerd_event ev;
	__u32 nr;		/* frames in ips */
	__u32 reserved;
	__u64 ips[TRACERD_EVENT_STACK_MAX];
};

/*
 * A call recorded with its arguments (--args): the event, flags
 * TRACERD_EV_ARGS, then the raw 64-bit argument values and the strings of
 * its char * arguments. The ring buffer holds the whole struct; a file
 * holds the event, the 8 bytes nr .. reserved, nr values and, for each bit
 * of strmask in order, its TRACERD_ARG_STR_LEN bytes (NUL-terminated, zero
 * after): a TRACERD_REC_EVENT record of len sizeof(struct tracerd_event) +
 * 8 + 8 * nr + 64 * popcount(strmask) (version 5). What the values are
 * (names, types, enum names) is the slot's TRACERD_REC_PROTO record.
 * faultmask bit i: string i could not be read (a bad pointer): its bytes
 * are zero and it shows as a fault, never as what the buffer held.
 * truncmask bit i: the string filled its buffer: it may be longer.
 */
#define TRACERD_EVENT_ARGS_MAX	6	/* tracerd/trace.h, TRACERD_ARGS_MAX */
#define TRACERD_EVENT_STR_LEN	64	/* tracerd/trace.h, TRACERD_ARG_STR_LEN */
struct tracerd_event_args {
	struct tracerd_event ev;
	__u8 nr;		/* values in args */
	__u8 strmask;		/* bit i: args[i] is a char *, its string in str[i] */
	__u8 faultmask;		/* bit i: reading string i faulted */
	__u8 truncmask;		/* bit i: string i filled its buffer */
	__u32 reserved;
	__u64 args[TRACERD_EVENT_ARGS_MAX];
	char str[TRACERD_EVENT_ARGS_MAX][TRACERD_EVENT_STR_LEN];
};
/* An args event of a function without string arguments ends before str:
 * the BPF programs reserve only this much (bpf/hook.bpf.h, record_args) */
#define TRACERD_EVENT_ARGS_NOSTR	__builtin_offsetof(struct tracerd_event_args, str)

/* File header: "TRACERDR", then the version and the JSON meta length. */
#define TRACERD_FILE_MAGIC	"TRACERDR"
#define TRACERD_FILE_VERSION	5	/* 5: arguments; 4: events with a stack; 3: zstd;
					 * 2, 1: zlib */
#define TRACERD_FILE_VERSION_MIN	1	/* oldest version readers accept */
#define TRACERD_BLOCK_MAX	(32U * 1024)	/* writer: record bytes per block */
#define TRACERD_BLOCK_LIMIT	(160U * 1024)	/* reader: larger is corrupt */
#define TRACERD_FILE_META_MAX	65536

struct tracerd_file_header {
	char magic[8];		/* TRACERD_FILE_MAGIC, no NUL */
	__u32 version;		/* TRACERD_FILE_VERSION */
	__u32 meta_len;		/* JSON bytes that follow, <= TRACERD_FILE_META_MAX */
};

/* Records inside the compressed data. */
enum tracerd_rec_type {
	TRACERD_REC_TARGET = 1,	/* struct tracerd_rec_target + name */
	TRACERD_REC_EVENT = 2,	/* struct tracerd_event */
	TRACERD_REC_LOST = 3,	/* struct tracerd_rec_lost */
	TRACERD_REC_CHECK = 4,	/* struct tracerd_rec_check (version >= 2) */
	TRACERD_REC_END = 5,	/* struct tracerd_rec_end (version >= 3) */
	TRACERD_REC_PROTO = 6,	/* struct tracerd_rec_proto + JSON (version >= 5) */
};

struct tracerd_rec_hdr {
	__u16 type;		/* enum tracerd_rec_type */
	__u16 len;		/* payload bytes after this header */
};

/* Slot -> target name; name (not NUL-terminated) fills the rest of len. */
struct tracerd_rec_target {
	__u32 slot;
	__u32 mode;		/* enum tracerd_mode */
	__u32 attachment;	/* the daemon's attachment id */
	__u32 reserved;
};

/*
 * Version 5: how slot's function takes the arguments its --args events
 * carry, written before its first event: the rest of len is a JSON object
 * (not NUL-terminated) {"args": [{"name": N, "type": T, "kind": K,
 * "size": S, "signed": B, "enum": {"VALUE": "NAME", ...}}, ...]}; kind
 * "int", "uint", "enum", "ptr" or "str"; "signed" and "enum" with kind
 * "enum" only, as many of its names as fit TRACERD_PROTO_MAX (a value
 * without one prints as a number); a value is cut to its size.
 */
#define TRACERD_PROTO_MAX	4000	/* JSON bytes of a PROTO record at most */
struct tracerd_rec_proto {
	__u32 slot;
	__u32 reserved;
};

/* Events the writer could not record since the previous LOST record. */
struct tracerd_rec_lost {
	__u64 count;
};

/* Closes a block: the records since the previous CHECK (or the stream start). */
struct tracerd_rec_check {
	__u32 block;		/* 0, 1, ... in this file */
	__u32 records;		/* records in the block, this one excluded */
	__u32 crc;		/* zlib crc32() of the block's record bytes */
	__u32 reserved;
};

/*
 * Version 3: the only record of the last frame of a cleanly closed file.
 * It ends with a non-zero magic, so a zero-filled tail never reads as it.
 */
#define TRACERD_REC_END_MAGIC	0x21444e45U	/* "END!" */
struct tracerd_rec_end {
	__u32 blocks;		/* blocks in the file (the next CHECK's number) */
	__u32 magic;		/* TRACERD_REC_END_MAGIC */
};

/* Version 3: after each zstd frame, a skippable frame (little-endian fields). */
#define TRACERD_FRAME_CRC_MAGIC	0x184D2A5EU	/* a zstd skippable-frame magic */
struct tracerd_frame_crc {
	__u32 magic;		/* TRACERD_FRAME_CRC_MAGIC */
	__u32 size;		/* 4: the payload's bytes */
	__u32 crc;		/* zlib crc32() of the zstd frame before it */
};

_Static_assert(sizeof(struct tracerd_event) == 64, "tracerd_event size");
_Static_assert(sizeof(struct tracerd_event_stack) == 64 + 8 + 8 * TRACERD_EVENT_STACK_MAX,
	       "tracerd_event_stack size");
_Static_assert(sizeof(struct tracerd_event_args) == 64 + 8 + 8 * 6 + 64 * 6,
	       "tracerd_event_args size");
_Static_assert(sizeof(struct tracerd_file_header) == 16, "tracerd_file_header size");
_Static_assert(sizeof(struct tracerd_rec_hdr) == 4, "tracerd_rec_hdr size");
_Static_assert(sizeof(struct tracerd_rec_target) == 16, "tracerd_rec_target size");
_Static_assert(sizeof(struct tracerd_rec_lost) == 8, "tracerd_rec_lost size");
_Static_assert(sizeof(struct tracerd_rec_check) == 16, "tracerd_rec_check size");
_Static_assert(sizeof(struct tracerd_rec_end) == 8, "tracerd_rec_end size");
_Static_assert(sizeof(struct tracerd_frame_crc) == 12, "tracerd_frame_crc size");

#endif /* TRACERD_RECORD_H */
