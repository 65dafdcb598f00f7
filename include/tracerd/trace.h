/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * Record layouts shared by the BPF programs (bpf/NAME.bpf.c) and tracerd.
 *
 * Every hooked function gets a "slot": an index into the per-CPU stats
 * array and the slot config array. BPF programs learn their slot either
 * from the BPF cookie (kprobe, kprobe.multi) or from an immediate that the
 * daemon patches into each program clone (fentry/fexit, tp_btf, raw_tp:
 * the MOV of TRACERD_SLOT_MAGIC). No hash lookup on the counting path.
 *
 * Fixed-width types only, natural alignment; sizes pinned below.
 */
#ifndef TRACERD_TRACE_H
#define TRACERD_TRACE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define TRACERD_MAX_SLOTS	4096	/* hooked functions at once */
#define TRACERD_HIST_BUCKETS	40	/* log2 ns: bucket 39 is >= 2^38 ns */
#define TRACERD_NEST_MAX	8	/* nested calls timed per task+slot */
#define TRACERD_TS_ENTRIES	16384	/* in-flight timed calls (LRU) */
#define TRACERD_COMM_LEN	16

/* The immediate the daemon replaces with the slot in every program clone. */
#define TRACERD_SLOT_MAGIC	0x7ace51d0
/*
 * The other immediates of a clone (bpf/hook.bpf.h, bpf_clone_hook): the
 * slot's flags, tgid and comm, baked in at load time so that no call
 * reads slot_cfg. TRACERD_SLOT_COOKIE in the slot immediate: the slot is
 * the BPF cookie (one kprobe.multi or tracing-multi program for many
 * functions).
 */
#define TRACERD_FLAGS_MAGIC	0x7ace51d1
#define TRACERD_TGID_MAGIC	0x7ace51d2
#define TRACERD_COMM0_MAGIC	0x7ace51d37ace51d3ULL	/* ld_imm64: comm bytes 0-7 */
#define TRACERD_COMM1_MAGIC	0x7ace51d47ace51d4ULL	/* bytes 8-15 */
#define TRACERD_SLOT_COOKIE	0x7fffffff

/* tracerd_slot_cfg.flags */
#define TRACERD_SLOT_ENABLED	(1U << 0)	/* count at all */
#define TRACERD_SLOT_LATENCY	(1U << 1)	/* time entry -> return */
#define TRACERD_SLOT_TGID	(1U << 2)	/* only tgid == cfg.tgid */
#define TRACERD_SLOT_COMM	(1U << 3)	/* only comm == cfg.comm */
#define TRACERD_SLOT_RECORD	(1U << 4)	/* send events (tracerd/record.h) */
#define TRACERD_SLOT_TASK_TS	(1U << 5)	/* entry times in task storage (clones
						 * only: set by the loader when the
						 * kernel allows it for the program type) */
#define TRACERD_SLOT_ERRORS	(1U << 6)	/* count error returns by errno (--errors):
						 * the return hook runs for it */
/* --by: calls per key in the hash map "by_keys" (one of the three at most) */
#define TRACERD_SLOT_BY_PID	(1U << 7)	/* key: the tgid */
#define TRACERD_SLOT_BY_COMM	(1U << 8)	/* key: the task's comm */
#define TRACERD_SLOT_BY_CGROUP	(1U << 9)	/* key: the cgroup v2 id */
#define TRACERD_SLOT_BY		(TRACERD_SLOT_BY_PID | TRACERD_SLOT_BY_COMM | \
				 TRACERD_SLOT_BY_CGROUP)
#define TRACERD_SLOT_STACKS	(1U << 10)	/* count calls per kernel stack (--stacks) */
#define TRACERD_SLOT_SLOW	(1U << 11)	/* --slower-than: count, and record only,
						 * the calls slower than cfg.slower_ns */
#define TRACERD_SLOT_ARGS	(1U << 12)	/* --args: a recorded call carries its
						 * arguments (cfg.nargs, cfg.strmask) */
#define TRACERD_SLOT_IF		(1U << 13)	/* --if: only the calls whose argument
						 * cfg.if_idx passes cfg.if_op if_val count */

/*
 * Arguments (--args, --if): the first TRACERD_ARGS_MAX integer-register
 * arguments of a function, as BTF types them; the daemon refuses more.
 * A char * argument (strmask bit) is read as a kernel string of up to
 * TRACERD_ARG_STR_LEN bytes, its NUL included.
 */
#define TRACERD_ARGS_MAX	6
#define TRACERD_ARG_STR_LEN	64

/* --if's comparisons (cfg.if_op) */
enum tracerd_if_op {
	TRACERD_IF_EQ = 1,
	TRACERD_IF_NE,
	TRACERD_IF_LT,
	TRACERD_IF_LE,
	TRACERD_IF_GT,
	TRACERD_IF_GE,
};

/* Per-slot configuration: array map "slot_cfg", written by the daemon. */
struct tracerd_slot_cfg {
	__u32 flags;
	__u32 tgid;
	char comm[TRACERD_COMM_LEN];
	__u64 slower_ns;	/* TRACERD_SLOT_SLOW: a call slower than this is slow */
	__u8 nargs;		/* TRACERD_SLOT_ARGS: arguments recorded, <= TRACERD_ARGS_MAX */
	__u8 strmask;		/* ... bit i: argument i is a char *, read as a string */
	__u8 if_idx;		/* TRACERD_SLOT_IF: the argument compared */
	__u8 if_op;		/* enum tracerd_if_op */
	__u8 if_size;		/* its size in bytes: 1, 2, 4 or 8 (the upper bits ignored) */
	__u8 if_signed;		/* compared as signed (sign-extended from if_size) */
	__u8 reserved[2];
	__u64 if_val;		/* the value compared with, as the argument's type holds it */
};

/*
 * Per-slot, per-CPU statistics: per-CPU array map "slot_stats".
 * misses: calls seen but not accounted (nesting deeper than
 * TRACERD_NEST_MAX, timestamp map full); the kernel's own misses
 * (recursion, kprobe nmissed) are read by the daemon separately.
 * lat_count is not written per call: it is the sum of hist (maps_slot_read);
 * lat_min is 0 until the first sample and meaningful only when the count
 * is > 0 (a 0 ns sample shows as hist[0]). Counters are atomic adds: a
 * fentry program is preemptible, and two programs (a slot's entry program,
 * another slot's) may interleave on one CPU writing the same misses.
 */
struct tracerd_slot_stats {
	__u64 calls;
	__u64 misses;
	__u64 lat_count;
	__u64 lat_sum;
	__u64 lat_min;
	__u64 lat_max;
	__u64 hist[TRACERD_HIST_BUCKETS];
	__u64 slow;		/* TRACERD_SLOT_SLOW: timed calls slower than slower_ns */
};

/*
 * Error returns of a slot (TRACERD_SLOT_ERRORS): array map "slot_errors",
 * one row per slot, shared by all CPUs (atomic adds; errors are the rare
 * path). A return value is an error when it is -1 to -4095: as an int
 * (its low 32 bits) when ret64 is 0, as a 64-bit value (a long, an
 * ERR_PTR: the upper 32 bits all ones too) when ret64 is 1. count[errno]
 * for errno < TRACERD_ERRNO_SLOTS (133, EHWPOISON, is the last Linux
 * errno), count[0] for the others ("other": the kernel-internal 512-530,
 * ERESTARTSYS, ENOTSUPP...).
 * ret64 is the daemon's, written with the zeroed row when it allocates
 * the slot: 1 when the function's BTF says it returns 8 bytes (a pointer,
 * a long, an 8-byte enum). Read only once the low 32 bits looked like an
 * error, so a call that returns no error pays nothing for it; it cannot
 * be a clone's immediate since one multi program serves functions of
 * every return type.
 */
#define TRACERD_ERRNO_SLOTS	134
#define TRACERD_ERRNO_MAX	4095

struct tracerd_slot_errors {
	__u64 count[TRACERD_ERRNO_SLOTS];
	__u32 ret64;
	__u32 reserved;
};

/*
 * --by (TRACERD_SLOT_BY_*): calls per key of a slot, hash map "by_keys"
 * (preallocated, by_max_keys entries shared by every slot; the daemon
 * deletes a slot's keys when it frees the slot). A call whose key is new
 * when the map is full is counted in its slot's "other" row, array map
 * "by_other" (the same value, one row per slot): sum over keys + other =
 * calls. Atomic adds: one row is written from every CPU.
 * Key: id is the tgid (BY_PID) or the cgroup id (BY_CGROUP), comm the
 * task's comm (BY_COMM), zero-padded as bpf_get_current_comm() pads;
 * the fields of the other kinds are 0.
 * Value: calls; timed, lat_sum: the calls timed entry to return (latency
 * attachments) and their total time, ns.
 */
struct tracerd_by_key {
	__u32 slot;
	__u32 reserved;
	__u64 id;
	char comm[TRACERD_COMM_LEN];
};

struct tracerd_by_val {
	__u64 calls;
	__u64 timed;
	__u64 lat_sum;
};

/*
 * --stacks (TRACERD_SLOT_STACKS): calls per kernel stack of a slot. The
 * stack itself is in the stack map "stack_traces" (BPF_MAP_TYPE_STACK_TRACE,
 * one entry per distinct stack of every slot, TRACERD_STACK_DEPTH_MAX
 * frames at most or the kernel's perf_event_max_stack), its id and the
 * slot the key of the hash map "stack_counts" (the value: calls, a __u64,
 * atomic adds). A call whose stack was not kept (the stack map or
 * stack_counts full, a hash collision in the stack map) adds 1 to its
 * slot's row of the array map "stack_drops" (a __u64): sum of the counts
 * + drops = calls. Both tables hold stack_max_entries (the config).
 * With --errors too (TRACERD_SLOT_ERRORS as well), only the calls that
 * returned an error are counted, at their return, keyed by the errno as
 * well (1..TRACERD_ERRNO_MAX; 0: every call, at its entry): retsnoop's
 * "why did it fail" view; the sum is then the error returns.
 */
#define TRACERD_STACK_DEPTH_MAX		127	/* the kernel's PERF_MAX_STACK_DEPTH */
#define TRACERD_STACK_DEPTH_DEFAULT	32

struct tracerd_stack_key {
	__u32 slot;
	__u32 id;		/* bpf_get_stackid() */
	__u32 err;		/* errno of an error return (--errors --stacks), else 0 */
	__u32 reserved;
};

/* Key/value of the per-task entry timestamps (LRU hash "entry_ts"). */
struct tracerd_ts_key {
	__u32 tid;
	__u32 slot;
};

struct tracerd_ts_val {
	__u32 depth;
	__u32 reserved;
	__u64 ts[TRACERD_NEST_MAX];
};

_Static_assert(sizeof(struct tracerd_slot_cfg) == 48, "tracerd_slot_cfg size");
_Static_assert(sizeof(struct tracerd_slot_stats) == 8 * (7 + TRACERD_HIST_BUCKETS),
	       "tracerd_slot_stats size");
_Static_assert(sizeof(struct tracerd_slot_errors) == 8 * TRACERD_ERRNO_SLOTS + 8,
	       "tracerd_slot_errors size");
_Static_assert(sizeof(struct tracerd_by_key) == 32, "tracerd_by_key size");
_Static_assert(sizeof(struct tracerd_by_val) == 24, "tracerd_by_val size");
_Static_assert(sizeof(struct tracerd_stack_key) == 16, "tracerd_stack_key size");
_Static_assert(sizeof(struct tracerd_ts_key) == 8, "tracerd_ts_key size");
_Static_assert(sizeof(struct tracerd_ts_val) == 8 + 8 * TRACERD_NEST_MAX,
	       "tracerd_ts_val size");

/*
 * log2 bucket of a duration in ns: 0 -> 0, [2^(i-1), 2^i) -> i, capped at
 * TRACERD_HIST_BUCKETS - 1. A binary search on the bit length (no clz, so
 * BPF can use it too). Each step is one compare, a shift and an add: the
 * empty asm keeps the compiler from turning a step into two selects (BPF
 * has none: each is a branch of its own), and the cap is on the 64-bit
 * register the index is used in (older verifiers, 6.1, lose the bound of
 * a zero-extended copy of a 32-bit value).
 */
#define tracerd_hist_keep(v)	__asm__ volatile("" : "+r"(v))

static inline __u64 tracerd_hist_bucket(__u64 v)
{
	__u64 r = 1, t = v >> 32;

	if (!v)
		return 0;
	if (t) {
		v = t;
		r += 32;
		tracerd_hist_keep(v);
	}
	if (v >= 1U << 16) {
		v >>= 16;
		r += 16;
		tracerd_hist_keep(v);
	}
	if (v >= 1U << 8) {
		v >>= 8;
		r += 8;
		tracerd_hist_keep(v);
	}
	if (v >= 1U << 4) {
		v >>= 4;
		r += 4;
		tracerd_hist_keep(v);
	}
	if (v >= 1U << 2) {
		v >>= 2;
		r += 2;
		tracerd_hist_keep(v);
	}
	if (v >= 2) {
		r += 1;
		tracerd_hist_keep(r);
	}
	/* r = floor(log2(v)) + 1 */
	tracerd_hist_keep(r);
	if (r > TRACERD_HIST_BUCKETS - 1)
		r = TRACERD_HIST_BUCKETS - 1;
	return r;
}

#endif /* TRACERD_TRACE_H */
