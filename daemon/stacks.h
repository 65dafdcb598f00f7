/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --stacks: the distinct kernel stacks of hooks and their counts, read
 * through their backend's stacks op (bpf_stacks for every BPF mode: the
 * maps of trace.h), cut to the attachment's depth, merged where the same
 * frames repeat (hooks of one function in --merge, stacks that differ
 * only below the depth) and sorted hottest first.
 */
#ifndef TRACERD_STACKS_H
#define TRACERD_STACKS_H

#include "backend.h"
#include "resolve.h"

struct stack_row {
	__u64 count;
	__u32 nr;		/* frames in ips, innermost first */
	__u32 err;		/* errno of its calls (--errors --stacks), 0: every call */
	__u64 *ips;
};

/*
 * Symbolizing the frames of one reply: kallsyms in address order read
 * when first needed, and once more when a frame does not resolve (a BPF
 * program or a module loaded since the last read; one unloaded since
 * stays unresolved).
 */
struct frames_sync {
	bool synced, reread;
};
/* resolve_frame for ip with fs's reads: 0, -ENOENT (no function holds it) or -EIO */
int stacks_frame(struct tracerd *d, struct frames_sync *fs, __u64 ip, struct frame_sym *out);
/* How many of the first frames of ips are tracerd's own (its BPF program,
 * subprogram, the fentry trampoline: kallsyms' [bpf]), to leave out. */
__u32 stacks_own_frames(struct tracerd *d, struct frames_sync *sync, const __u64 *ips, __u32 nr);

struct stack_set {
	struct stack_row *rows;
	size_t n, cap;
	__u32 depth;		/* the deepest --stacks of the attachments added */
	__u64 dropped;		/* calls whose stack was not kept */
	__u64 total;		/* calls counted in rows (all of them, before a top) */
	struct frames_sync sync;	/* for the BPF frames on top */
};

/*
 * Add the stacks of hook h of a (a --stacks attachment) to set: the
 * frames of BPF programs and trampolines on top dropped (tracerd's own),
 * then cut to a's depth. 0, or -errno (set keeps what it had).
 */
int stacks_add(struct tracerd *d, struct attachment *a, struct hook *h, struct stack_set *set);
/* The calls of a's hooks whose stack was not kept, summed. 0 or -errno. */
int stacks_dropped(struct tracerd *d, struct attachment *a, __u64 *dropped);
/* Merge the rows with the same frames and sort them by count, hottest first. */
void stacks_finish(struct stack_set *set);
void stacks_free(struct stack_set *set);

/*
 * Around the work of one request (a stats reply, a list, a scrape): the
 * BPF modes' hooks read their stacks from one pass over stack_counts,
 * made when the first of them needs it, instead of a pass each.
 */
void stacks_read_begin(struct tracerd *d);
void stacks_read_end(struct tracerd *d);

/* backend.stacks of every BPF mode: the slot's rows of stack_counts */
int bpf_stacks(struct tracerd *d, struct attachment *a, struct hook *h, stack_visit_fn fn,
	       void *ctx, __u64 *dropped);

#endif
