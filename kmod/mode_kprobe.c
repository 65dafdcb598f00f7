// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe modes, one kprobe per function (a batch arms them one at a
 * time, still in one ioctl):
 *
 *   kmod-kprobe      a kprobe at the entry (on x86 this runs through ftrace)
 *   kprobe-int3      a kprobe on the first instruction past the ftrace call
 *                    site (arch/<arch>.h), which takes the breakpoint path
 *
 * kmod-kprobe with TRACERD_ATTACH_LATENCY: a kretprobe (entry_handler;
 * the entry time in the instance's data).
 *
 * Unregistering a kprobe waits for running handlers (synchronize_rcu), so
 * an attachment is freed only after its hook is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>

#include "arch.h"
#include "mode.h"

/* kmod-kprobe, kprobe-int3: the kprobe handlers. */
static int notrace tracerd_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	tracerd_att_hit_stack(container_of(p, struct tracerd_att, kp), regs);
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

	/* the entry handler runs before the return hook takes the return address */
	if (!tracerd_att_hit_stack(a, regs))
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

/* a's kprobe off bytes past its function's entry. */
static void tracerd_kprobe_at(struct tracerd_att *a, unsigned long off)
{
	a->probe_addr = a->addr + off;
	a->kp.addr = (kprobe_opcode_t *)a->probe_addr;
	a->kp.pre_handler = tracerd_kprobe_pre;
}

/* kmod-kprobe: at the entry, or latency: a kretprobe there. */
static int tracerd_kprobe_init(struct tracerd_att *a, bool member)
{
	if (tracerd_is_lat(a)) {
		a->krp.kp.addr = (kprobe_opcode_t *)a->addr;
		a->krp.entry_handler = tracerd_kret_entry;
		a->krp.handler = tracerd_kret_return;
		a->krp.data_size = sizeof(u64);
		return 0;
	}
	tracerd_kprobe_at(a, 0);
	return 0;
}

/* kprobe-int3: past the call site; -EADDRNOTAVAIL where there is none. */
static int tracerd_kprobe_int3_init(struct tracerd_att *a, bool member)
{
	unsigned long off = 0;
	int ret;

	ret = tracerd_arch_int3_offset(a->addr, &off);
	if (ret)
		return ret;
	a->kp.post_handler = tracerd_kprobe_post;
	tracerd_kprobe_at(a, off);
	return 0;
}

static int tracerd_kprobe_arm(struct tracerd_att *a)
{
	int ret;

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

/* Both wait for running handlers; nothing to leak. */
static int tracerd_kprobe_disarm(struct tracerd_att *a)
{
	if (tracerd_is_lat(a))
		unregister_kretprobe(&a->krp);
	else
		unregister_kprobe(&a->kp);
	return 0;
}

/* kprobe nmissed, and the kretprobe's (latency; krp.kp is kp). */
static u64 tracerd_kprobe_missed(const struct tracerd_att *a)
{
	u64 m = READ_ONCE(a->kp.nmissed);

	if (tracerd_is_lat(a))
		m += READ_ONCE(a->krp.nmissed);
	return m;
}

const struct tracerd_mode_ops tracerd_mode_kprobe = {
	.available	= IS_ENABLED(CONFIG_KPROBES),
	.lat_available	= IS_ENABLED(CONFIG_KRETPROBES),
	.flags		= TRACERD_ATTACH_LATENCY | TRACERD_ATTACH_STACKS,
	.init		= tracerd_kprobe_init,
	.arm		= tracerd_kprobe_arm,
	.disarm		= tracerd_kprobe_disarm,
	.missed		= tracerd_kprobe_missed,
};

/* A return hook sits at the entry: no latency past the call site. */
const struct tracerd_mode_ops tracerd_mode_kprobe_int3 = {
	.available	= IS_ENABLED(CONFIG_KPROBES) && TRACERD_HAVE_ARCH_INT3,
	.flags		= TRACERD_ATTACH_STACKS,
	.init		= tracerd_kprobe_int3_init,
	.arm		= tracerd_kprobe_arm,
	.disarm		= tracerd_kprobe_disarm,
	.missed		= tracerd_kprobe_missed,
};

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
