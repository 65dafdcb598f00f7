// SPDX-License-Identifier: GPL-2.0
/*
 * kmod-direct: an ftrace direct call to an asm trampoline slot
 * (tramp_<arch>.S) that calls tracerd_direct_enter(). Each attachment
 * holds a slot of its own; a batch is one direct ftrace_ops over all its
 * functions, routed to one slot, which finds the member by the return
 * address into the function.
 *
 * With TRACERD_ATTACH_LATENCY (x86_64, arm64, riscv64): its own
 * trampoline times the call: a timed call is run by the trampoline, which
 * keeps the entry time in its frame (tramp_<arch>.S). A detached timed
 * attachment whose calls are still running drains (below).
 *
 * Unregistering a direct call waits for running trampolines (RCU tasks),
 * so an attachment is freed only after its hook is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "arch.h"
#include "ftrace_compat.h"
#include "mode.h"

#define TRACERD_HAVE_DIRECT_MODE (TRACERD_HAVE_DIRECT && TRACERD_HAVE_ARCH_TRAMP)

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

/* A timing trampoline: its returns run through this module's text. */
static bool tracerd_direct_drains(const struct tracerd_att *a)
{
	return tracerd_is_lat(a);
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

/* A batch member uses its group's slot; any other a gets one of its own. */
static int tracerd_direct_init(struct tracerd_att *a, bool member)
{
	if (member)
		return 0;
	return tracerd_slot_get(a);
}

/*
 * One direct ops on n addresses (the bench's one-ops-many-functions
 * case); a timing trampoline takes one function only.
 */
static int tracerd_direct_arm_ips(struct tracerd_att *a, unsigned long *ips,
				  unsigned int n)
{
	int ret;

	if (tracerd_is_lat(a) && n != 1)
		return -EINVAL;
	ret = tracerd_ops_filter(&a->ops, ips, n);
	if (ret)
		goto out_free_filter;
	if (tracerd_is_lat(a))
		WRITE_ONCE(tracerd_direct_lat_used, true);
	ret = tracerd_register_direct(&a->ops, tracerd_slot_tramp(a->slot));
	if (ret)
		goto out_free_filter;
	a->armed = true;
	return 0;

out_free_filter:
	ftrace_free_filter(&a->ops);
	return ret;
}

static int tracerd_direct_arm(struct tracerd_att *a)
{
	return tracerd_direct_arm_ips(a, &a->addr, 1);
}

static int tracerd_direct_disarm(struct tracerd_att *a)
{
	int ret = tracerd_unregister_direct(&a->ops, tracerd_slot_tramp(a->slot));

	if (!ret)
		ftrace_free_filter(&a->ops);
	return ret;
}

/* The trampoline of a's slot, or of its batch's. */
static unsigned long tracerd_direct_tramp(const struct tracerd_att *a)
{
	int slot = a->group ? a->group->slot : a->slot;

	return slot >= 0 ? tracerd_slot_tramp(slot) : 0;
}

/* A batch's one slot, set before it is armed. */
static int tracerd_direct_group_new(struct tracerd_group *g)
{
	int ret = tracerd_slot_alloc();

	if (ret < 0)
		return ret;
	g->slot = ret;
	WRITE_ONCE(tracerd_slot_group[g->slot], g);
	return 0;
}

static void tracerd_direct_group_free(struct tracerd_group *g)
{
	if (g->slot >= 0)
		tracerd_slot_release(g->slot);
}

static int tracerd_direct_group_register(struct tracerd_group *g, u32 flags)
{
	return tracerd_register_direct(&g->ops, tracerd_slot_tramp(g->slot));
}

static int tracerd_direct_group_unregister(struct tracerd_group *g)
{
	return tracerd_unregister_direct(&g->ops, tracerd_slot_tramp(g->slot));
}

const struct tracerd_mode_ops tracerd_mode_direct = {
	.available		= TRACERD_HAVE_DIRECT_MODE,
	.lat_available		= TRACERD_HAVE_ARCH_DIRECT_LAT,
	.flags			= TRACERD_ATTACH_LATENCY,
	.lat_calls_fn		= true,
	.init			= tracerd_direct_init,
	.arm			= tracerd_direct_arm,
	.arm_ips		= tracerd_direct_arm_ips,
	.disarm			= tracerd_direct_disarm,
	.drains			= tracerd_direct_drains,
	.settled		= tracerd_direct_settled,
	.release		= tracerd_slot_put,
	.tramp			= tracerd_direct_tramp,
	.group_new		= tracerd_direct_group_new,
	.group_free		= tracerd_direct_group_free,
	.group_register		= tracerd_direct_group_register,
	.group_unregister	= tracerd_direct_group_unregister,
};
