/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hook modes of tracerd_kmod behind one table (attach.c): what a mode
 * does (struct tracerd_mode_ops, one per mode file: mode_callops.c,
 * mode_direct.c, mode_kprobe.c) and what every mode's callbacks share
 * (counting a call, timing it, finding a batch member). attach.c keeps an
 * attachment's life (allocation, arm, disarm, free, batches, the order
 * of grace periods) and asks the mode's row for each mode-specific step.
 */
#ifndef TRACERD_MODE_H
#define TRACERD_MODE_H

#include <linux/ftrace.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <tracerd/trace.h>

#include "tracerd_kmod.h"

/*
 * A batch (TRACERD_IOC_ATTACH_BATCH): one ftrace_ops for many functions.
 * callops: its callback finds the member by the ip ftrace passes; direct:
 * every function goes to the group's one trampoline slot, which finds the
 * member by the return address into the function. Both are addresses
 * inside the function, so the member is the one with the greatest entry
 * address not above it (ftrace only calls in for the ops' own functions).
 * Members are freed with the group, when the last one is detached, so a
 * hook that found one never sees it freed.
 */
struct tracerd_gent {
	unsigned long addr;
	struct tracerd_att *att;
	unsigned int idx;		/* its entry in the batch request */
};

struct tracerd_group {
	struct ftrace_ops ops;
	u32 mode;
	int slot;			/* direct: the trampoline slot, or -1 */
	bool armed;
	unsigned int n;			/* members, sorted by addr in ents */
	unsigned int live;		/* members not yet detached */
	unsigned int dying;		/* of them, in the detach under way */
	struct tracerd_gent ents[];
};

/*
 * One mode: a row of attach.c's table, indexed by TRACERD_KMOD_*. Every
 * call is made by attach.c with the file's (or the benchmark's) lock held,
 * never from a hook.
 */
struct tracerd_mode_ops {
	bool available;		/* this kernel and arch have the mode */
	bool lat_available;	/* and TRACERD_ATTACH_LATENCY in it */
	u32 flags;		/* the TRACERD_ATTACH_* flags the mode takes */
	/*
	 * With latency, the mode's trampoline calls the function itself,
	 * with the argument registers as they came (the request's argw)
	 */
	bool lat_calls_fn;
	/*
	 * A new attachment's hook, not armed: its callback, kprobe address,
	 * trampoline slot. member: a batch member (never with latency), hooked
	 * by its group. An error frees a.
	 */
	int (*init)(struct tracerd_att *a, bool member);
	/* Hook a at its own address (a is not armed). */
	int (*arm)(struct tracerd_att *a);
	/* Hook a on ips[0..n), n > 0 (a not armed); NULL: the mode cannot. */
	int (*arm_ips)(struct tracerd_att *a, unsigned long *ips, unsigned int n);
	/* Unhook an armed a: 0, or the kernel's error (the hook may still run). */
	int (*disarm)(struct tracerd_att *a);
	/*
	 * Optional: true when calls of a may still be running through this
	 * module after disarm (kmod-direct --latency): a is then freed after
	 * an RCU-tasks grace period, when settled(a) says so (false: the mode
	 * took a over and frees it later).
	 */
	bool (*drains)(const struct tracerd_att *a);
	bool (*settled)(struct tracerd_att *a);
	/* Optional: the last step before a is freed (its trampoline slot). */
	void (*release)(struct tracerd_att *a);
	/* Optional: calls the kernel's hook dropped. */
	u64 (*missed)(const struct tracerd_att *a);
	/* Optional: a's own trampoline (TRACERD_IOC_SITE), or 0. */
	unsigned long (*tramp)(const struct tracerd_att *a);

	/* Batches, NULL where each function gets a hook of its own. */
	/* Optional: g's resources before it is armed (a trampoline slot). */
	int (*group_new)(struct tracerd_group *g);
	/* Optional: undo group_new(), g unhooked. */
	void (*group_free)(struct tracerd_group *g);
	/* Register g's ops, its filter set; flags: the batch's. */
	int (*group_register)(struct tracerd_group *g, u32 flags);
	/* Unregister g's ops: 0, or the kernel's error (it may still run). */
	int (*group_unregister)(struct tracerd_group *g);
	/* Optional: a leaves the armed g, whose other members stay. */
	void (*group_unhook)(struct tracerd_group *g, struct tracerd_att *a);
};

extern const struct tracerd_mode_ops tracerd_mode_callops;
extern const struct tracerd_mode_ops tracerd_mode_direct;
extern const struct tracerd_mode_ops tracerd_mode_kprobe;
extern const struct tracerd_mode_ops tracerd_mode_kprobe_int3;

/* attach.c, for the mode files */
int tracerd_where_err(int ret);
int tracerd_ops_filter(struct ftrace_ops *ops, unsigned long *ips, unsigned int n);
void tracerd_att_destroy(struct tracerd_att *a);

/*
 * a's hook is an fprobe or a kretprobe (TRACERD_ATTACH_LATENCY), or a
 * timing trampoline (kmod-direct).
 */
static inline bool tracerd_is_lat(const struct tracerd_att *a)
{
	return a->flags & TRACERD_ATTACH_LATENCY;
}

/*
 * Does the current task's comm pass a's comm filter? Two 8-byte loads of
 * current->comm, masked to the filter's bytes and its NUL: the bytes past
 * the NUL need not be zero. No lock, no call; a concurrent rename may be
 * seen half done, as bpf_get_current_comm() may.
 */
typedef u64 __attribute__((aligned(1), may_alias)) tracerd_u64_unaligned;

static __always_inline bool tracerd_comm_pass(const struct tracerd_att *a)
{
	const tracerd_u64_unaligned *c = (const void *)current->comm;

	return !(((c[0] ^ a->comm[0]) & a->comm_mask[0]) |
		 ((c[1] ^ a->comm[1]) & a->comm_mask[1]));
}

/* Count one call for a, honouring its tgid and comm filters; true if it passed. */
static __always_inline bool tracerd_att_hit(struct tracerd_att *a)
{
	if ((a->tgid && a->tgid != (u32)current->tgid) ||
	    (a->comm_mask[0] && !tracerd_comm_pass(a))) {
		this_cpu_inc(a->pcpu->filtered);
		return false;
	}
	this_cpu_inc(a->pcpu->hits);
	return true;
}

/*
 * One call of a returned, t0 its entry time. Lock-free, any context: each
 * field is one this_cpu op, min/max a this_cpu_cmpxchg loop.
 */
static __always_inline void tracerd_lat_add(struct tracerd_att *a, u64 t0)
{
	u64 now = ktime_get_mono_fast_ns();
	u64 d = now > t0 ? now - t0 : 0;
	u64 old, prev;

	this_cpu_inc(a->lat->hist[tracerd_hist_bucket(d)]);
	this_cpu_add(a->lat->sum, d);
	old = this_cpu_read(a->lat->max);
	while (d > old) {
		prev = this_cpu_cmpxchg(a->lat->max, old, d);
		if (prev == old)
			break;
		old = prev;
	}
	old = this_cpu_read(a->lat->min);
	while (old == 0 || d < old) {
		prev = this_cpu_cmpxchg(a->lat->min, old, d);
		if (prev == old)
			break;
		old = prev;
	}
}

/* The member whose function holds ip, or NULL. Any context. */
static __always_inline struct tracerd_att *
tracerd_group_find(const struct tracerd_group *g, unsigned long ip)
{
	unsigned int lo = 0, hi = g->n;

	while (hi - lo > 1) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (g->ents[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	if (!g->n || g->ents[lo].addr > ip)
		return NULL;
	return g->ents[lo].att;
}

/*
 * Count one call for a as tracerd_att_hit() does, and keep its stack when
 * a asked for stacks (a call the filters skip has none). regs: a kprobe's,
 * stopped before the function's prologue, or NULL (ftrace's callbacks).
 * True if it passed.
 */
static __always_inline bool tracerd_att_hit_stack(struct tracerd_att *a,
						  struct pt_regs *regs)
{
	if (!tracerd_att_hit(a))
		return false;
	if (a->stk)
		tracerd_stk_hit(a, regs);
	return true;
}

/* Count one call of the group member at ip, unless it was detached. */
static __always_inline void tracerd_group_hit(const struct tracerd_group *g,
					      unsigned long ip)
{
	struct tracerd_att *a = tracerd_group_find(g, ip);

	if (a && !READ_ONCE(a->retired))
		tracerd_att_hit_stack(a, NULL);
}

#endif /* TRACERD_MODE_H */
