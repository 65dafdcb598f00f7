/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracerd_kmod internals shared by main.c (device, ioctls), attach.c (an
 * attachment's life), the mode_*.c files (the hook modes, behind mode.h's
 * table) and bench.c (in-kernel benchmarks).
 */
#ifndef TRACERD_KMOD_H
#define TRACERD_KMOD_H

#include <linux/atomic.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/types.h>

#include <tracerd/kmod_abi.h>

/* Per-CPU counters of one attachment. */
struct tracerd_pcpu {
	u64 hits;
	u64 filtered;
	u64 stk_dropped;	/* TRACERD_ATTACH_STACKS: stacks not kept */
};

/*
 * Per-CPU latency of one attachment made with TRACERD_ATTACH_LATENCY:
 * written with this_cpu ops only (min/max by this_cpu_cmpxchg), so an
 * interrupt timing another call on the same CPU loses nothing. min is 0
 * until the first sample (a 0 ns sample shows as hist[0]).
 */
struct tracerd_lat_pcpu {
	u64 entered;			/* kmod-direct: timed calls in, */
	u64 left;			/* and out of the trampoline */
	u64 sum;
	u64 min;
	u64 max;
	u64 hist[TRACERD_LAT_BUCKETS];
};

/*
 * Who an attachment counts (TRACERD_IOC_ATTACH2): tgid 0 = every task;
 * comm_mask[0] 0 = every comm, else a task whose first 16 comm bytes b
 * satisfy (b ^ comm) & comm_mask == 0, the mask covering the comm and
 * its NUL (tracerd_filter_comm()).
 */
struct tracerd_filter {
	u32 tgid;
	u64 comm[2];
	u64 comm_mask[2];
	/* and what it keeps of each call: TRACERD_ATTACH_STACKS (ABI 1.8) */
	u32 stack_depth;
	u32 stack_slots;
};

struct tracerd_stk;		/* stacks.c: a stack table */

/*
 * One hook: a kmod-callops or kmod-direct ftrace_ops, or a kprobe.
 * Created by tracerd_att_new(), armed by tracerd_att_arm*() (or a kprobe
 * batch), disarmed and freed by tracerd_att_free().
 */
struct tracerd_group;

struct tracerd_att {
	u32 mode;
	u32 flags;
	u32 tgid;
	u64 comm[2];			/* struct tracerd_filter's */
	u64 comm_mask[2];
	bool armed;
	bool retired;			/* batch member detached: no counting */
	struct tracerd_group *group;	/* its batch (callops, direct), or NULL */
	int slot;			/* direct trampoline slot, or -1 */
	unsigned long addr;		/* function entry */
	unsigned long probe_addr;	/* where the hook sits */
	unsigned long size;		/* the function's, with TRACERD_ATTACH_STACKS */
	struct tracerd_stk *stk;	/* TRACERD_ATTACH_STACKS, or NULL */
	struct tracerd_pcpu __percpu *pcpu;
	struct tracerd_lat_pcpu __percpu *lat;	/* TRACERD_ATTACH_LATENCY, or NULL */
	struct list_head drain;		/* kmod-direct latency, detached in flight */
	union {
		struct ftrace_ops ops;	/* callops, direct */
		struct kprobe kp;	/* kprobe, kprobe-int3 */
		struct kretprobe krp;	/* kprobe + latency (krp.kp is kp) */
		struct fprobe fp;	/* callops + latency */
	};
};

/* Leak accounting (TRACERD_IOC_STATS). */
struct tracerd_stats_live {
	atomic64_t files;
	atomic64_t attachments;
	atomic64_t allocs;
	atomic64_t direct_slots;
	atomic64_t draining;
};
extern struct tracerd_stats_live tracerd_live;

void *tracerd_zalloc(size_t size);
void tracerd_free(const void *p);
void *tracerd_kvzalloc(size_t size);
void tracerd_kvfree(const void *p);

/* attach.c: an attachment's life, the modes' table (mode.h) */
u32 tracerd_modes_available(void);
u32 tracerd_flags_available(void);
int tracerd_att_check(u32 mode, u32 flags);
bool tracerd_att_calls_fn(u32 mode, u32 flags);
int tracerd_filter_comm(struct tracerd_filter *f, const char *comm);
struct tracerd_att *tracerd_att_new(u32 mode, u32 flags,
				    const struct tracerd_filter *filt,
				    unsigned long addr);
int tracerd_att_arm(struct tracerd_att *a);
int tracerd_att_arm_ips(struct tracerd_att *a, unsigned long *ips,
			unsigned int n);
void tracerd_att_free(struct tracerd_att *a);
void tracerd_att_sum(const struct tracerd_att *a, u64 *hits, u64 *filtered);
u32 tracerd_latency_modes(void);
u64 tracerd_att_missed(const struct tracerd_att *a);
int tracerd_att_latency(const struct tracerd_att *a, struct tracerd_latency *l);
int tracerd_att_site(const struct tracerd_att *a, struct tracerd_site *s);
struct tracerd_att *tracerd_member_new(u32 mode, u32 flags,
				       const struct tracerd_filter *filt,
				       unsigned long addr);
void tracerd_batch_arm(struct tracerd_att **atts, unsigned int n, int *errs);
void tracerd_atts_free(struct tracerd_att **atts, unsigned int n);

/* stacks.c: TRACERD_ATTACH_STACKS */
int tracerd_stk_check(u32 flags, u32 depth, u32 slots);
int tracerd_stk_new(struct tracerd_att *a, u32 depth, u32 slots);
void tracerd_stk_free(struct tracerd_att *a);
struct pt_regs;
void tracerd_stk_hit(struct tracerd_att *a, struct pt_regs *regs);
struct tracerd_stacks;
int tracerd_stk_read(const struct tracerd_att *a, struct tracerd_stacks *req);

/* mode_callops.c */
int tracerd_att_arm_all(struct tracerd_att *a, ftrace_func_t func);

/* mode_direct.c */
void tracerd_direct_exit(void);

/* mode_kprobe.c */
int tracerd_kprobes_arm(struct tracerd_att **atts, unsigned int n);
void tracerd_kprobes_disarm(struct tracerd_att **atts, unsigned int n);

/* sites.c (an ioctl of main.c's table) */
struct tracerd_file;
long tracerd_ioc_sites(struct tracerd_file *f, unsigned int cmd, void __user *arg);

/* bench.c */
long tracerd_bench_ops(struct tracerd_bench_ops *b);
long tracerd_bench_patch(struct tracerd_bench_patch *b);
long tracerd_bench_all(struct tracerd_bench_all *b);

#endif /* TRACERD_KMOD_H */
