// SPDX-License-Identifier: GPL-2.0
/*
 * The hook modes of tracerd_kmod, one attachment each:
 *
 *   kmod-callops     an ftrace_ops whose C callback counts, filtered to the
 *                    function's address (optionally FTRACE_OPS_FL_SAVE_REGS)
 *   kmod-direct      an ftrace direct call to an asm trampoline slot
 *                    (tramp_<arch>.S) that calls tracerd_direct_enter()
 *   kmod-kprobe      a kprobe at the entry (on x86 this runs through ftrace)
 *   kprobe-int3      a kprobe on the first instruction past the ftrace call
 *                    site, which takes the breakpoint path
 *
 * With TRACERD_ATTACH_LATENCY an attachment hooks the return too, through
 * the kernel's own return hooks, never a trampoline of ours:
 *
 *   kmod-kprobe      a kretprobe (entry_handler; the entry time in the
 *                    instance's data)
 *   kmod-callops     an fprobe (entry and exit handlers, the entry time in
 *                    its entry data): rethook before 6.14, the function
 *                    graph tracer from 6.14 (ftrace_compat.h)
 *   kmod-direct      its own trampoline (x86_64, arm64, riscv64): a timed
 *                    call is run by the trampoline, which keeps the entry
 *                    time in its frame (tramp_<arch>.S)
 *
 * and adds each call's duration to a per-CPU log2 histogram (this_cpu ops
 * and this_cpu_cmpxchg for min/max: lock-free, interrupt-safe).
 *
 * Every callback checks the attachment's filters (tgid; comm: two masked
 * 8-byte compares of current->comm against a copy made at attach) and
 * bumps a per-CPU counter: no locks, no calls, so it is
 * safe in any context, NMI included, and cannot recurse into itself. The
 * callbacks are notrace and NOKPROBE so that tracing them cannot recurse
 * either. Unregistering waits for running callbacks (ftrace: RCU tasks for
 * dynamic ops; kprobes: synchronize_rcu), so an attachment is freed only
 * after its hook is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <tracerd/trace.h>

#include "arch.h"
#include "ftrace_compat.h"
#include "tracerd_kmod.h"

#define TRACERD_HAVE_DIRECT_MODE (TRACERD_HAVE_DIRECT && TRACERD_HAVE_ARCH_TRAMP)

_Static_assert(TRACERD_LAT_BUCKETS == TRACERD_HIST_BUCKETS,
	       "the module's histogram has the BPF side's layout");

_Static_assert(sizeof(((struct task_struct *)0)->comm) >= TRACERD_COMM_FILTER_LEN,
	       "the comm filter reads the first 16 bytes of current->comm");

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
 * f's comm filter from a request's comm field (TRACERD_COMM_FILTER_LEN
 * bytes): -EINVAL unless NUL-terminated and NUL-padded. "" is no filter
 * (comm_mask 0); else the mask covers the comm and its NUL, so only that
 * exact comm passes.
 */
int tracerd_filter_comm(struct tracerd_filter *f, const char *comm)
{
	size_t i, len = strnlen(comm, TRACERD_COMM_FILTER_LEN);
	u8 mask[TRACERD_COMM_FILTER_LEN] = {};

	if (len == TRACERD_COMM_FILTER_LEN)
		return -EINVAL;
	for (i = len; i < TRACERD_COMM_FILTER_LEN; i++)
		if (comm[i])
			return -EINVAL;
	memset(f->comm, 0, sizeof(f->comm));
	memset(f->comm_mask, 0, sizeof(f->comm_mask));
	if (!len)
		return 0;
	memcpy(f->comm, comm, len);
	memset(mask, 0xff, len + 1);
	memcpy(f->comm_mask, mask, sizeof(mask));
	return 0;
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

/* kmod-callops: the ftrace_ops callback. */
static void notrace tracerd_callops_func(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	tracerd_att_hit(container_of(op, struct tracerd_att, ops));
}
NOKPROBE_SYMBOL(tracerd_callops_func);

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

/* Count one call of the group member at ip, unless it was detached. */
static __always_inline void tracerd_group_hit(const struct tracerd_group *g,
					      unsigned long ip)
{
	struct tracerd_att *a = tracerd_group_find(g, ip);

	if (a && !READ_ONCE(a->retired))
		tracerd_att_hit(a);
}

/* kmod-callops batch: the shared ftrace_ops callback. */
static void notrace tracerd_group_func(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	tracerd_group_hit(container_of(op, struct tracerd_group, ops), ip);
}
NOKPROBE_SYMBOL(tracerd_group_func);

/*
 * kmod-direct: slot -> attachment or batch, set before arming, cleared
 * after.
 */
static struct tracerd_att *tracerd_slot_att[TRACERD_DIRECT_SLOTS ?: 1];
static struct tracerd_group *tracerd_slot_group[TRACERD_DIRECT_SLOTS ?: 1];
static DEFINE_IDA(tracerd_slot_ida);

/*
 * Called from the trampoline stub of slot, ip inside the function: count
 * the call. For a call to time (kmod-direct --latency) return its
 * attachment with the entry time in *t0, the call counted in flight;
 * else NULL.
 */
struct tracerd_att *notrace tracerd_direct_enter(unsigned long slot,
						 unsigned long ip, u64 *t0)
{
	struct tracerd_group *g;
	struct tracerd_att *a;

	if (slot >= ARRAY_SIZE(tracerd_slot_att))
		return NULL;
	a = READ_ONCE(tracerd_slot_att[slot]);
	if (a) {
		if (!tracerd_att_hit(a) || !a->lat)
			return NULL;
		this_cpu_inc(a->lat->entered);
		*t0 = ktime_get_mono_fast_ns();
		return a;
	}
	g = READ_ONCE(tracerd_slot_group[slot]);
	if (g)
		tracerd_group_hit(g, ip);
	return NULL;
}
NOKPROBE_SYMBOL(tracerd_direct_enter);

/*
 * A timed call of a returned, t0 its entry time (the trampoline). The
 * call leaves the in-flight count last: a drained attachment may be freed
 * right after (tracerd_drain_fn()).
 */
void notrace tracerd_direct_exit_hit(struct tracerd_att *a, u64 t0)
{
	struct tracerd_lat_pcpu __percpu *lat = a->lat;

	tracerd_lat_add(a, t0);
	smp_wmb();
	this_cpu_inc(lat->left);
}
NOKPROBE_SYMBOL(tracerd_direct_exit_hit);

/*
 * Detached kmod-direct latency attachments with timed calls still running
 * (a task asleep in the function returns through the trampoline): each
 * holds a module reference until its calls have returned, checked every
 * 100 ms. rmmod meanwhile says the module is in use.
 */
static LIST_HEAD(tracerd_draining);
static bool tracerd_direct_lat_used;	/* a timing trampoline was ever armed */
static DEFINE_MUTEX(tracerd_drain_lock);
static void tracerd_drain_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(tracerd_drain_work, tracerd_drain_fn);

/* Timed calls of a (disarmed: no new ones) not yet returned. */
static u64 tracerd_inflight(const struct tracerd_att *a)
{
	u64 in = 0, out = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		out += READ_ONCE(per_cpu_ptr(a->lat, cpu)->left);
	smp_rmb();
	for_each_possible_cpu(cpu)
		in += READ_ONCE(per_cpu_ptr(a->lat, cpu)->entered);
	return in - out;
}

static void tracerd_att_destroy(struct tracerd_att *a);

static void tracerd_drain_fn(struct work_struct *w)
{
	struct tracerd_att *a, *t;
	LIST_HEAD(done);
	bool more;

	mutex_lock(&tracerd_drain_lock);
	list_for_each_entry_safe(a, t, &tracerd_draining, drain)
		if (!tracerd_inflight(a))
			list_move(&a->drain, &done);
	more = !list_empty(&tracerd_draining);
	mutex_unlock(&tracerd_drain_lock);
	if (!list_empty(&done))
		synchronize_rcu_tasks();	/* the returns have left the trampoline */
	list_for_each_entry_safe(a, t, &done, drain) {
		list_del(&a->drain);
		tracerd_att_destroy(a);
		atomic64_dec(&tracerd_live.draining);
		module_put(THIS_MODULE);
	}
	if (more)
		schedule_delayed_work(&tracerd_drain_work, HZ / 10);
}

/*
 * a (kmod-direct latency) was disarmed before an RCU-tasks grace period
 * that has now passed, so every call that entered the trampoline has been
 * counted in: true if it can be freed now, false if it went to drain.
 */
static bool tracerd_direct_settled(struct tracerd_att *a)
{
	if (!tracerd_inflight(a))
		return true;
	__module_get(THIS_MODULE);
	atomic64_inc(&tracerd_live.draining);
	mutex_lock(&tracerd_drain_lock);
	list_add_tail(&a->drain, &tracerd_draining);
	mutex_unlock(&tracerd_drain_lock);
	schedule_delayed_work(&tracerd_drain_work, HZ / 10);
	return false;
}

/* The same for a just disarmed: the grace period first. */
static bool tracerd_direct_settle(struct tracerd_att *a)
{
	synchronize_rcu_tasks();
	return tracerd_direct_settled(a);
}

static unsigned long tracerd_slot_tramp(int slot)
{
#if TRACERD_HAVE_ARCH_TRAMP
	return tracerd_direct_tramps[slot];
#else
	return 0;
#endif
}

/* A free trampoline slot, or -ENOSPC when all are taken. */
static int tracerd_slot_alloc(void)
{
	int slot;

	if (!TRACERD_DIRECT_SLOTS)
		return -ENOSPC;
	slot = ida_alloc_max(&tracerd_slot_ida, TRACERD_DIRECT_SLOTS - 1,
			     GFP_KERNEL);
	if (slot >= 0)
		atomic64_inc(&tracerd_live.direct_slots);
	return slot;
}

static void tracerd_slot_release(int slot)
{
	WRITE_ONCE(tracerd_slot_att[slot], NULL);
	WRITE_ONCE(tracerd_slot_group[slot], NULL);
	ida_free(&tracerd_slot_ida, slot);
	atomic64_dec(&tracerd_live.direct_slots);
}

/* Give a a trampoline slot of its own: -ENOSPC when all are taken. */
static int tracerd_slot_get(struct tracerd_att *a)
{
	int slot = tracerd_slot_alloc();

	if (slot < 0)
		return slot;
	a->slot = slot;
	WRITE_ONCE(tracerd_slot_att[slot], a);
	return 0;
}

static void tracerd_slot_put(struct tracerd_att *a)
{
	if (a->slot < 0)
		return;
	tracerd_slot_release(a->slot);
	a->slot = -1;
}

/*
 * Module exit: every slot has been put and nothing drains (each draining
 * attachment holds a module reference) by then. A timed call that
 * returned may still be on its way out of the trampoline: RCU tasks
 * waits for it.
 */
void tracerd_direct_exit(void)
{
	cancel_delayed_work_sync(&tracerd_drain_work);
	if (tracerd_direct_lat_used)
		synchronize_rcu_tasks();
	ida_destroy(&tracerd_slot_ida);
}

/* kmod-kprobe, kprobe-int3: the kprobe handlers. */
static int notrace tracerd_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	tracerd_att_hit(container_of(p, struct tracerd_att, kp));
	return 0;
}
NOKPROBE_SYMBOL(tracerd_kprobe_pre);

/*
 * kprobe-int3 only: a post handler keeps the kprobe from being optimized
 * into a jump, so the breakpoint path is what gets measured.
 */
static void notrace tracerd_kprobe_post(struct kprobe *p, struct pt_regs *regs,
					unsigned long flags)
{
}
NOKPROBE_SYMBOL(tracerd_kprobe_post);

/*
 * kmod-kprobe + latency: a kretprobe. The entry handler counts the call
 * and keeps its entry time in the instance; a call the tgid or comm filter skips
 * gets no return hook (non-zero).
 */
static int notrace tracerd_kret_entry(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	struct tracerd_att *a = container_of(get_kretprobe(ri),
					     struct tracerd_att, krp);

	if (!tracerd_att_hit(a))
		return 1;
	*(u64 *)ri->data = ktime_get_mono_fast_ns();
	return 0;
}
NOKPROBE_SYMBOL(tracerd_kret_entry);

static int notrace tracerd_kret_return(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		tracerd_lat_add(container_of(rp, struct tracerd_att, krp),
				*(u64 *)ri->data);
	return 0;
}
NOKPROBE_SYMBOL(tracerd_kret_return);

#if TRACERD_HAVE_FPROBE_LAT
/* kmod-callops + latency: an fprobe, the entry time in its entry data. */
static int notrace tracerd_fprobe_entry(struct fprobe *fp, unsigned long ip,
					unsigned long ret_ip,
					tracerd_fprobe_regs_t *regs, void *data)
{
	if (!tracerd_att_hit(container_of(fp, struct tracerd_att, fp)))
		return 1;
	*(u64 *)data = ktime_get_mono_fast_ns();
	return 0;
}
NOKPROBE_SYMBOL(tracerd_fprobe_entry);

static void notrace tracerd_fprobe_exit(struct fprobe *fp, unsigned long ip,
					unsigned long ret_ip,
					tracerd_fprobe_regs_t *regs, void *data)
{
	tracerd_lat_add(container_of(fp, struct tracerd_att, fp), *(u64 *)data);
}
NOKPROBE_SYMBOL(tracerd_fprobe_exit);

static int tracerd_fprobe_arm(struct tracerd_att *a)
{
	a->fp.entry_handler = tracerd_fprobe_entry;
	a->fp.exit_handler = tracerd_fprobe_exit;
	a->fp.entry_data_size = sizeof(u64);
	return register_fprobe_ips(&a->fp, &a->addr, 1);
}

static void tracerd_fprobe_disarm(struct tracerd_att *a)
{
	unregister_fprobe(&a->fp);
	/* an exit handler may still be running: see ftrace_compat.h */
	synchronize_rcu();
}
#else
static int tracerd_fprobe_arm(struct tracerd_att *a)
{
	return -EOPNOTSUPP;
}

static void tracerd_fprobe_disarm(struct tracerd_att *a)
{
}
#endif

/* Bit (1 << mode) for every mode this kernel and arch support. */
u32 tracerd_modes_available(void)
{
	u32 m = 0;

	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE))
		m |= BIT(TRACERD_KMOD_CALLOPS);
	if (TRACERD_HAVE_DIRECT_MODE)
		m |= BIT(TRACERD_KMOD_DIRECT);
	if (IS_ENABLED(CONFIG_KPROBES))
		m |= BIT(TRACERD_KMOD_KPROBE);
	if (IS_ENABLED(CONFIG_KPROBES) && TRACERD_HAVE_ARCH_INT3)
		m |= BIT(TRACERD_KMOD_KPROBE_INT3);
	return m;
}

/* Bit (1 << mode) for every mode TRACERD_ATTACH_LATENCY works in here. */
u32 tracerd_latency_modes(void)
{
	u32 m = 0;

	if (IS_ENABLED(CONFIG_KRETPROBES))
		m |= BIT(TRACERD_KMOD_KPROBE);
	if (TRACERD_HAVE_FPROBE_LAT)
		m |= BIT(TRACERD_KMOD_CALLOPS);
	if (TRACERD_HAVE_ARCH_DIRECT_LAT)
		m |= BIT(TRACERD_KMOD_DIRECT);
	return m & tracerd_modes_available();
}

/* TRACERD_ATTACH_* flags this kernel supports (in some mode). */
u32 tracerd_flags_available(void)
{
	u32 f = 0;

	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS))
		f |= TRACERD_ATTACH_SAVE_REGS;
	if (tracerd_latency_modes())
		f |= TRACERD_ATTACH_LATENCY;
	return f;
}

/* -EINVAL for a malformed mode/flags pair, -EOPNOTSUPP if not here. */
int tracerd_att_check(u32 mode, u32 flags)
{
	if (mode == 0 || mode > TRACERD_KMOD_MODE_MAX)
		return -EINVAL;
	if (flags & ~TRACERD_ATTACH_FLAGS)
		return -EINVAL;
	if ((flags & TRACERD_ATTACH_SAVE_REGS) && mode != TRACERD_KMOD_CALLOPS)
		return -EINVAL;
	/* a return hook sits at the entry, with an ops of its own */
	if ((flags & TRACERD_ATTACH_LATENCY) &&
	    (mode == TRACERD_KMOD_KPROBE_INT3 || (flags & TRACERD_ATTACH_SAVE_REGS)))
		return -EINVAL;
	if (!(tracerd_modes_available() & BIT(mode)))
		return -EOPNOTSUPP;
	if (flags & ~tracerd_flags_available())
		return -EOPNOTSUPP;
	if ((flags & TRACERD_ATTACH_LATENCY) && !(tracerd_latency_modes() & BIT(mode)))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * a's hook is an fprobe or a kretprobe (TRACERD_ATTACH_LATENCY), or a
 * timing trampoline (tracerd_is_direct_lat()).
 */
static bool tracerd_is_lat(const struct tracerd_att *a)
{
	return a->flags & TRACERD_ATTACH_LATENCY;
}

static bool tracerd_is_direct_lat(const struct tracerd_att *a)
{
	return tracerd_is_lat(a) && a->mode == TRACERD_KMOD_DIRECT;
}

static bool tracerd_is_kprobe(const struct tracerd_att *a)
{
	return a->mode == TRACERD_KMOD_KPROBE ||
	       a->mode == TRACERD_KMOD_KPROBE_INT3;
}

/*
 * A new, unarmed attachment of mode at addr (already checked by
 * tracerd_att_check()); a batch member (callops, direct) is hooked by its
 * group and has neither a callback nor a slot of its own. Returns an
 * ERR_PTR on failure.
 */
static struct tracerd_att *tracerd_att_alloc(u32 mode, u32 flags,
					     const struct tracerd_filter *filt,
					     unsigned long addr, bool member)
{
	struct tracerd_att *a;
	unsigned long off = 0;
	int ret;

	a = tracerd_zalloc(sizeof(*a));
	if (!a)
		return ERR_PTR(-ENOMEM);
	a->mode = mode;
	a->flags = flags;
	if (filt) {
		a->tgid = filt->tgid;
		memcpy(a->comm, filt->comm, sizeof(a->comm));
		memcpy(a->comm_mask, filt->comm_mask, sizeof(a->comm_mask));
	}
	a->slot = -1;
	a->addr = addr;
	a->probe_addr = addr;
	a->pcpu = alloc_percpu(struct tracerd_pcpu);
	if (!a->pcpu) {
		ret = -ENOMEM;
		goto out_free_att;
	}
	atomic64_inc(&tracerd_live.allocs);
	if (flags & TRACERD_ATTACH_LATENCY) {
		a->lat = alloc_percpu(struct tracerd_lat_pcpu);
		if (!a->lat) {
			ret = -ENOMEM;
			goto out_free_pcpu;
		}
		atomic64_inc(&tracerd_live.allocs);
		/*
		 * its own hook, never a batch member: fprobe or kretprobe, or
		 * a trampoline slot of its own (direct: the switch below)
		 */
		if (mode == TRACERD_KMOD_KPROBE) {
			a->krp.kp.addr = (kprobe_opcode_t *)addr;
			a->krp.entry_handler = tracerd_kret_entry;
			a->krp.handler = tracerd_kret_return;
			a->krp.data_size = sizeof(u64);
		}
		member = mode != TRACERD_KMOD_DIRECT;	/* nothing of the switch below */
	}

	switch (member ? 0 : mode) {
	case TRACERD_KMOD_CALLOPS:
		a->ops.func = tracerd_callops_func;
		if (flags & TRACERD_ATTACH_SAVE_REGS)
			a->ops.flags |= FTRACE_OPS_FL_SAVE_REGS;
		break;
	case TRACERD_KMOD_DIRECT:
		ret = tracerd_slot_get(a);
		if (ret)
			goto out_free_pcpu;
		break;
	case TRACERD_KMOD_KPROBE_INT3:
		ret = tracerd_arch_int3_offset(addr, &off);
		if (ret)
			goto out_free_pcpu;
		a->kp.post_handler = tracerd_kprobe_post;
		fallthrough;
	case TRACERD_KMOD_KPROBE:
		a->probe_addr = addr + off;
		a->kp.addr = (kprobe_opcode_t *)a->probe_addr;
		a->kp.pre_handler = tracerd_kprobe_pre;
		break;
	}
	atomic64_inc(&tracerd_live.attachments);
	return a;

out_free_pcpu:
	free_percpu(a->pcpu);
	atomic64_dec(&tracerd_live.allocs);
	if (a->lat) {
		free_percpu(a->lat);
		atomic64_dec(&tracerd_live.allocs);
	}
out_free_att:
	tracerd_free(a);
	return ERR_PTR(ret);
}

/* filt NULL: every task. */
struct tracerd_att *tracerd_att_new(u32 mode, u32 flags,
				    const struct tracerd_filter *filt,
				    unsigned long addr)
{
	return tracerd_att_alloc(mode, flags, filt, addr, false);
}

/* An attachment for tracerd_batch_arm(): a member where mode has batches. */
struct tracerd_att *tracerd_member_new(u32 mode, u32 flags,
				       const struct tracerd_filter *filt,
				       unsigned long addr)
{
	bool member = (mode == TRACERD_KMOD_CALLOPS || mode == TRACERD_KMOD_DIRECT) &&
		      !(flags & TRACERD_ATTACH_LATENCY);

	return tracerd_att_alloc(mode, flags, filt, addr, member);
}

/* Kernel errors that mean "cannot hook there" become -EADDRNOTAVAIL. */
static int tracerd_where_err(int ret)
{
	return ret == -ENOMEM ? ret : -EADDRNOTAVAIL;
}

/*
 * Arm a callops or direct attachment on n addresses (the bench's
 * one-ops-many-functions case; n == 1 for a normal attachment).
 */
int tracerd_att_arm_ips(struct tracerd_att *a, unsigned long *ips,
			unsigned int n)
{
	int ret;

	if (tracerd_is_kprobe(a) || a->armed || n == 0 ||
	    (tracerd_is_lat(a) && !(tracerd_is_direct_lat(a) && n == 1)))
		return -EINVAL;
	if (n == 1)
		ret = ftrace_set_filter_ip(&a->ops, ips[0], 0, 0);
	else
		ret = ftrace_set_filter_ips(&a->ops, ips, n, 0, 0);
	if (ret) {
		ret = tracerd_where_err(ret);
		goto out_free_filter;
	}
	if (a->mode == TRACERD_KMOD_DIRECT) {
		if (tracerd_is_direct_lat(a))
			WRITE_ONCE(tracerd_direct_lat_used, true);
		ret = tracerd_register_direct(&a->ops,
					      tracerd_slot_tramp(a->slot));
	}
	else
		ret = register_ftrace_function(&a->ops);
	if (ret)
		goto out_free_filter;
	a->armed = true;
	return 0;

out_free_filter:
	ftrace_free_filter(&a->ops);
	return ret;
}

/* Arm a at its own address. */
int tracerd_att_arm(struct tracerd_att *a)
{
	int ret;

	if (!tracerd_is_kprobe(a) && (!tracerd_is_lat(a) || tracerd_is_direct_lat(a)))
		return tracerd_att_arm_ips(a, &a->addr, 1);
	if (a->armed)
		return -EINVAL;
	if (tracerd_is_lat(a) && a->mode == TRACERD_KMOD_CALLOPS) {
		ret = tracerd_fprobe_arm(a);
		if (ret)
			return tracerd_where_err(ret);
		a->armed = true;
		return 0;
	}
	if (tracerd_is_lat(a))
		ret = register_kretprobe(&a->krp);
	else
		ret = register_kprobe(&a->kp);
	if (ret)
		return tracerd_where_err(ret);
	/* the kernel may move an entry probe behind ENDBR */
	a->probe_addr = (unsigned long)a->kp.addr;
	a->armed = true;
	return 0;
}

/* Arm n kprobe attachments with one register_kprobes() call. */
int tracerd_kprobes_arm(struct tracerd_att **atts, unsigned int n)
{
	struct kprobe **kps;
	unsigned int i;
	int ret;

	kps = tracerd_zalloc(n * sizeof(*kps));
	if (!kps)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		kps[i] = &atts[i]->kp;
	ret = register_kprobes(kps, n);
	if (ret) {
		ret = tracerd_where_err(ret);
	} else {
		for (i = 0; i < n; i++)
			atts[i]->armed = true;
	}
	tracerd_free(kps);
	return ret;
}

/* Disarm n kprobe attachments with one unregister_kprobes() call. */
void tracerd_kprobes_disarm(struct tracerd_att **atts, unsigned int n)
{
	struct kprobe **kps;
	unsigned int i;

	kps = tracerd_zalloc(n * sizeof(*kps));
	if (kps) {
		for (i = 0; i < n; i++)
			kps[i] = &atts[i]->kp;
		unregister_kprobes(kps, n);
		tracerd_free(kps);
	} else {
		for (i = 0; i < n; i++)
			unregister_kprobe(&atts[i]->kp);
	}
	for (i = 0; i < n; i++)
		atts[i]->armed = false;
}

/* Remove a's hook; false if the kernel refused (a must then be leaked). */
static bool tracerd_att_disarm(struct tracerd_att *a)
{
	int ret = 0;

	if (!a->armed)
		return true;
	if (tracerd_is_lat(a) && !tracerd_is_direct_lat(a)) {
		/* both wait for running handlers; nothing to leak */
		if (a->mode == TRACERD_KMOD_CALLOPS)
			tracerd_fprobe_disarm(a);
		else
			unregister_kretprobe(&a->krp);
		a->armed = false;
		return true;
	}
	switch (a->mode) {
	case TRACERD_KMOD_CALLOPS:
		ret = unregister_ftrace_function(&a->ops);
		break;
	case TRACERD_KMOD_DIRECT:
		ret = tracerd_unregister_direct(&a->ops,
						tracerd_slot_tramp(a->slot));
		break;
	default:
		unregister_kprobe(&a->kp);
		break;
	}
	if (ret) {
		/* the hook may still run: keep it and the module alive */
		pr_err("cannot unhook %ps (mode %u): %d; leaking it\n",
		       (void *)a->addr, a->mode, ret);
		__module_get(THIS_MODULE);
		return false;
	}
	if (!tracerd_is_kprobe(a))
		ftrace_free_filter(&a->ops);
	a->armed = false;
	return true;
}

/* Free an unarmed a and its counters. */
static void tracerd_att_destroy(struct tracerd_att *a)
{
	tracerd_slot_put(a);
	free_percpu(a->pcpu);
	atomic64_dec(&tracerd_live.allocs);
	if (a->lat) {
		free_percpu(a->lat);
		atomic64_dec(&tracerd_live.allocs);
	}
	atomic64_dec(&tracerd_live.attachments);
	tracerd_free(a);
}

static void tracerd_member_drop(struct tracerd_att *a, bool unhook);

/* Disarm (if armed) and free a; a batch member leaves its group. NULL-safe. */
void tracerd_att_free(struct tracerd_att *a)
{
	if (IS_ERR_OR_NULL(a))
		return;
	if (a->group) {
		tracerd_member_drop(a, true);
		return;
	}
	if (!tracerd_att_disarm(a))
		return;
	if (tracerd_is_direct_lat(a) && !tracerd_direct_settle(a))
		return;
	tracerd_att_destroy(a);
}

/* By address, then by place in the request (sort() is not stable). */
static int tracerd_gent_cmp(const void *x, const void *y)
{
	const struct tracerd_gent *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Remove g's hook; false if the kernel refused (g must then be leaked). */
static bool tracerd_group_disarm(struct tracerd_group *g)
{
	int ret;

	if (!g->armed)
		return true;
	if (g->mode == TRACERD_KMOD_DIRECT)
		ret = tracerd_unregister_direct(&g->ops, tracerd_slot_tramp(g->slot));
	else
		ret = unregister_ftrace_function(&g->ops);
	if (ret) {
		pr_err("cannot unhook a batch of %u (mode %u): %d; leaking it\n",
		       g->n, g->mode, ret);
		__module_get(THIS_MODULE);
		return false;
	}
	ftrace_free_filter(&g->ops);
	g->armed = false;
	return true;
}

/* Unhook g (unregistering waits for running hooks), free it and its members. */
static void tracerd_group_release(struct tracerd_group *g)
{
	unsigned int i;

	if (!tracerd_group_disarm(g))
		return;
	if (g->slot >= 0)
		tracerd_slot_release(g->slot);
	for (i = 0; i < g->n; i++)
		tracerd_att_destroy(g->ents[i].att);
	tracerd_free(g);
}

/*
 * a is detached: it stops counting at once; callops also unhooks its
 * function now when unhook is set (others of the group stay); the group
 * goes with its last live member.
 */
static void tracerd_member_drop(struct tracerd_att *a, bool unhook)
{
	struct tracerd_group *g = a->group;

	WRITE_ONCE(a->retired, true);
	if (--g->live == 0) {
		tracerd_group_release(g);
		return;
	}
	if (unhook && g->mode == TRACERD_KMOD_CALLOPS &&
	    ftrace_set_filter_ip(&g->ops, a->addr, 1, 0))
		pr_warn("cannot unhook %ps from its batch; it stays hooked, uncounted\n",
			(void *)a->addr);
}

/*
 * Free n attachments at once: a group whose every live member is among
 * them is unhooked in one update, not one function at a time, and the
 * timed kmod-direct ones are all disarmed before one RCU-tasks grace
 * period, not one each.
 */
void tracerd_atts_free(struct tracerd_att **atts, unsigned int n)
{
	unsigned int i, timed = 0;

	for (i = 0; i < n; i++) {
		if (atts[i]->group) {
			atts[i]->group->dying++;
		} else if (tracerd_is_direct_lat(atts[i])) {
			tracerd_att_disarm(atts[i]);	/* false: leaked, armed */
			timed++;
		}
	}
	if (timed)
		synchronize_rcu_tasks();
	for (i = 0; i < n; i++) {
		struct tracerd_att *a = atts[i];
		struct tracerd_group *g = a->group;
		bool whole;

		if (!g && tracerd_is_direct_lat(a)) {
			if (!a->armed && tracerd_direct_settled(a))
				tracerd_att_destroy(a);
		} else if (!g) {
			tracerd_att_free(a);
		} else {
			whole = g->dying == g->live;
			g->dying--;
			tracerd_member_drop(a, !whole);
		}
		cond_resched();
	}
}

/* Hook every function of g with one ops: one filter, one registration. */
static int tracerd_group_arm(struct tracerd_group *g, u32 flags)
{
	unsigned long *ips;
	unsigned int i;
	int ret;

	ips = tracerd_zalloc(g->n * sizeof(*ips));
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < g->n; i++)
		ips[i] = g->ents[i].addr;
	ret = ftrace_set_filter_ips(&g->ops, ips, g->n, 0, 0);
	tracerd_free(ips);
	if (ret) {
		ret = tracerd_where_err(ret);
		goto out_free_filter;
	}
	if (g->mode == TRACERD_KMOD_DIRECT) {
		ret = tracerd_register_direct(&g->ops, tracerd_slot_tramp(g->slot));
	} else {
		g->ops.func = tracerd_group_func;
		if (flags & TRACERD_ATTACH_SAVE_REGS)
			g->ops.flags |= FTRACE_OPS_FL_SAVE_REGS;
		ret = register_ftrace_function(&g->ops);
	}
	if (ret)
		goto out_free_filter;
	g->armed = true;
	return 0;

out_free_filter:
	ftrace_free_filter(&g->ops);
	return ret;
}

/* A group of ents[0..n) (sorted, distinct), armed, or an ERR_PTR. */
static struct tracerd_group *tracerd_group_new(u32 mode, u32 flags,
					       const struct tracerd_gent *ents,
					       unsigned int n)
{
	struct tracerd_group *g;
	unsigned int i;
	int ret;

	g = tracerd_zalloc(struct_size(g, ents, n));
	if (!g)
		return ERR_PTR(-ENOMEM);
	g->mode = mode;
	g->slot = -1;
	g->n = n;
	g->live = n;
	memcpy(g->ents, ents, n * sizeof(*ents));
	if (mode == TRACERD_KMOD_DIRECT) {
		ret = tracerd_slot_alloc();
		if (ret < 0)
			goto out_free;
		g->slot = ret;
		WRITE_ONCE(tracerd_slot_group[g->slot], g);
	}
	ret = tracerd_group_arm(g, flags);
	if (ret)
		goto out_free;
	for (i = 0; i < n; i++)
		ents[i].att->group = g;
	return g;

out_free:
	if (g->slot >= 0)
		tracerd_slot_release(g->slot);
	tracerd_free(g);
	return ERR_PTR(ret);
}

/*
 * Arm ents[0..n) as one group; when the kernel refuses the whole (one
 * function it cannot hook, one already carrying a direct call), arm each
 * half the same way, so only the functions at fault are refused.
 */
static void tracerd_batch_split(u32 mode, u32 flags, struct tracerd_gent *ents,
				unsigned int n, int *errs)
{
	struct tracerd_group *g;
	unsigned int i;
	int ret;

	g = tracerd_group_new(mode, flags, ents, n);
	if (!IS_ERR(g))
		return;
	ret = PTR_ERR(g);
	if (n > 1 && ret != -ENOMEM && ret != -ENOSPC) {
		tracerd_batch_split(mode, flags, ents, n / 2, errs);
		tracerd_batch_split(mode, flags, ents + n / 2, n - n / 2, errs);
		return;
	}
	for (i = 0; i < n; i++)
		errs[ents[i].idx] = ret;
}

/*
 * Arm atts[i] (NULL where errs[i] already holds an error), all of one
 * mode, flags and tgid; errs[i] gets 0 or the entry's errno. callops and
 * direct: as one group (or as few as the kernel lets); kprobe modes: one
 * at a time. Failed entries stay unarmed, for the caller to free.
 */
void tracerd_batch_arm(struct tracerd_att **atts, unsigned int n, int *errs)
{
	struct tracerd_gent *ents;
	unsigned int i, m = 0, k = 0;
	struct tracerd_att *first = NULL;

	for (i = 0; i < n && !first; i++)
		first = atts[i];
	if (!first)
		return;
	if (tracerd_is_kprobe(first) || tracerd_is_lat(first)) {
		for (i = 0; i < n; i++)
			if (atts[i])
				errs[i] = tracerd_att_arm(atts[i]);
		return;
	}
	ents = tracerd_zalloc(n * sizeof(*ents));
	if (!ents) {
		for (i = 0; i < n; i++)
			if (atts[i])
				errs[i] = -ENOMEM;
		return;
	}
	for (i = 0; i < n; i++)
		if (atts[i])
			ents[m++] = (struct tracerd_gent){ atts[i]->addr, atts[i], i };
	sort(ents, m, sizeof(*ents), tracerd_gent_cmp, NULL);
	for (i = 0; i < m; i++) {
		if (k && ents[k - 1].addr == ents[i].addr)
			errs[ents[i].idx] = -EEXIST;
		else
			ents[k++] = ents[i];
	}
	tracerd_batch_split(first->mode, first->flags, ents, k, errs);
	tracerd_free(ents);
}

/* Fill s (all but s->id) with what a's function call site does now. */
int tracerd_att_site(const struct tracerd_att *a, struct tracerd_site *s)
{
	unsigned long site = 0, target = 0;
	int slot = a->group ? a->group->slot : a->slot;
	u32 insn = 0;
	int ret;

	ret = tracerd_arch_site(a->addr, &site, &insn, &target);
	if (ret == -EADDRNOTAVAIL)
		return ret;
	s->site = site;
	s->insn = insn;
	if (a->mode == TRACERD_KMOD_DIRECT && slot >= 0)
		s->tramp = tracerd_slot_tramp(slot);
	if (ret < 0) {
		s->path = TRACERD_SITE_UNKNOWN;
	} else if (ret == 0) {
		s->path = TRACERD_SITE_NOP;
	} else {
		s->target = target;
		s->path = s->tramp && target == s->tramp ? TRACERD_SITE_DIRECT :
							   TRACERD_SITE_CALLER;
		snprintf(s->target_sym, sizeof(s->target_sym), "%ps",
			 (void *)target);
	}
	return 0;
}

/*
 * Arm a callops attachment with an empty filter, on every function ftrace
 * can trace, with func as its callback (the bench's --all case).
 */
int tracerd_att_arm_all(struct tracerd_att *a, ftrace_func_t func)
{
	int ret;

	if (a->mode != TRACERD_KMOD_CALLOPS || a->armed)
		return -EINVAL;
	a->ops.func = func;
	ret = register_ftrace_function(&a->ops);
	if (ret)
		return ret;
	a->armed = true;
	return 0;
}

/* a's counters summed over every CPU. */
void tracerd_att_sum(const struct tracerd_att *a, u64 *hits, u64 *filtered)
{
	int cpu;

	*hits = 0;
	*filtered = 0;
	for_each_possible_cpu(cpu) {
		const struct tracerd_pcpu *pc = per_cpu_ptr(a->pcpu, cpu);

		*hits += READ_ONCE(pc->hits);
		*filtered += READ_ONCE(pc->filtered);
	}
}

/* Calls the kernel's hook dropped: kprobe nmissed, kretprobe/fprobe misses. */
u64 tracerd_att_missed(const struct tracerd_att *a)
{
	u64 m = 0;

	if (tracerd_is_kprobe(a))
		m = READ_ONCE(a->kp.nmissed);	/* krp.kp is kp */
	if (tracerd_is_lat(a) && a->mode == TRACERD_KMOD_KPROBE)
		m += READ_ONCE(a->krp.nmissed);
	if (tracerd_is_lat(a) && a->mode == TRACERD_KMOD_CALLOPS)
		m += READ_ONCE(a->fp.nmissed);
	return m;
}

/* a's latency summed over every CPU (all but l->id); -ENODATA: not timed. */
int tracerd_att_latency(const struct tracerd_att *a, struct tracerd_latency *l)
{
	int cpu, b;

	if (!a->lat)
		return -ENODATA;
	for_each_possible_cpu(cpu) {
		const struct tracerd_lat_pcpu *pc = per_cpu_ptr(a->lat, cpu);
		u64 n = 0, min;

		for (b = 0; b < TRACERD_LAT_BUCKETS; b++) {
			u64 v = READ_ONCE(pc->hist[b]);

			l->hist[b] += v;
			n += v;
		}
		l->sum_ns += READ_ONCE(pc->sum);
		if (!n)
			continue;
		/* min is 0 until the first sample: a 0 ns one is hist[0] */
		min = READ_ONCE(pc->hist[0]) ? 0 : READ_ONCE(pc->min);
		if (!l->count || min < l->min_ns)
			l->min_ns = min;
		if (READ_ONCE(pc->max) > l->max_ns)
			l->max_ns = READ_ONCE(pc->max);
		l->count += n;
	}
	l->missed = tracerd_att_missed(a);
	return 0;
}
