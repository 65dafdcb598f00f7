// SPDX-License-Identifier: GPL-2.0
/*
 * The life of an attachment, whatever its hook mode: made, armed,
 * disarmed and freed here, batches and their members too, each
 * mode-specific step asked of the mode's row in tracerd_modes[] (mode.h):
 *
 *   kmod-callops     an ftrace_ops whose C callback counts (mode_callops.c)
 *   kmod-direct      an ftrace direct call to an asm trampoline slot
 *                    (mode_direct.c, tramp_<arch>.S)
 *   kmod-kprobe      a kprobe at the entry (mode_kprobe.c)
 *   kprobe-int3      a kprobe on the first instruction past the ftrace call
 *                    site, which takes the breakpoint path (mode_kprobe.c)
 *
 * With TRACERD_ATTACH_LATENCY an attachment hooks the return too, through
 * the kernel's own return hooks (kretprobe, fprobe) or kmod-direct's own
 * trampoline, and adds each call's duration to a per-CPU log2 histogram
 * (this_cpu ops and this_cpu_cmpxchg for min/max: lock-free,
 * interrupt-safe).
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
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <tracerd/trace.h>

#include "arch.h"
#include "mode.h"
#include "tracerd_kmod.h"

_Static_assert(TRACERD_LAT_BUCKETS == TRACERD_HIST_BUCKETS,
	       "the module's histogram has the BPF side's layout");

_Static_assert(sizeof(((struct task_struct *)0)->comm) >= TRACERD_COMM_FILTER_LEN,
	       "the comm filter reads the first 16 bytes of current->comm");

/* The modes, by TRACERD_KMOD_*: every mode-specific step goes through its row. */
static const struct tracerd_mode_ops *const tracerd_modes[TRACERD_KMOD_MODE_MAX + 1] = {
	[TRACERD_KMOD_CALLOPS]		= &tracerd_mode_callops,
	[TRACERD_KMOD_DIRECT]		= &tracerd_mode_direct,
	[TRACERD_KMOD_KPROBE]		= &tracerd_mode_kprobe,
	[TRACERD_KMOD_KPROBE_INT3]	= &tracerd_mode_kprobe_int3,
};

/* The row of a mode tracerd_att_check() took. */
static const struct tracerd_mode_ops *tracerd_mode(u32 mode)
{
	return tracerd_modes[mode];
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

/* Bit (1 << mode) for every mode this kernel and arch support. */
u32 tracerd_modes_available(void)
{
	u32 mode, m = 0;

	for (mode = 1; mode <= TRACERD_KMOD_MODE_MAX; mode++)
		if (tracerd_mode(mode)->available)
			m |= BIT(mode);
	return m;
}

/* Bit (1 << mode) for every mode TRACERD_ATTACH_LATENCY works in here. */
u32 tracerd_latency_modes(void)
{
	u32 mode, m = 0;

	for (mode = 1; mode <= TRACERD_KMOD_MODE_MAX; mode++)
		if (tracerd_mode(mode)->lat_available)
			m |= BIT(mode);
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
	if (IS_ENABLED(CONFIG_STACKTRACE))
		f |= TRACERD_ATTACH_STACKS;
	return f;
}

/* -EINVAL for a malformed mode/flags pair, -EOPNOTSUPP if not here. */
int tracerd_att_check(u32 mode, u32 flags)
{
	if (mode == 0 || mode > TRACERD_KMOD_MODE_MAX)
		return -EINVAL;
	if (flags & ~TRACERD_ATTACH_FLAGS)
		return -EINVAL;
	/* SAVE_REGS: callops only; LATENCY: not past the call site */
	if (flags & ~tracerd_mode(mode)->flags)
		return -EINVAL;
	/* a return hook sits at the entry, with an ops of its own */
	if ((flags & TRACERD_ATTACH_LATENCY) && (flags & TRACERD_ATTACH_SAVE_REGS))
		return -EINVAL;
	if (!(tracerd_modes_available() & BIT(mode)))
		return -EOPNOTSUPP;
	if (flags & ~tracerd_flags_available())
		return -EOPNOTSUPP;
	if ((flags & TRACERD_ATTACH_LATENCY) && !(tracerd_latency_modes() & BIT(mode)))
		return -EOPNOTSUPP;
	return 0;
}

/* kmod-direct timing a call: its trampoline calls the function itself (argw). */
bool tracerd_att_calls_fn(u32 mode, u32 flags)
{
	return tracerd_mode(mode)->lat_calls_fn && (flags & TRACERD_ATTACH_LATENCY);
}

/*
 * Does an attachment of mode and flags join a batch's group (callops,
 * direct), or get a hook of its own (kprobe modes; latency: an fprobe, a
 * kretprobe or a timing trampoline of its own)?
 */
static bool tracerd_att_grouped(u32 mode, u32 flags)
{
	return tracerd_mode(mode)->group_register && !(flags & TRACERD_ATTACH_LATENCY);
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
	}
	if (flags & TRACERD_ATTACH_STACKS) {
		ret = tracerd_stk_new(a, filt ? filt->stack_depth : 0,
				      filt ? filt->stack_slots : 0);
		if (ret)
			goto out_free_pcpu;
	}
	ret = tracerd_mode(mode)->init(a, member);
	if (ret)
		goto out_free_pcpu;
	atomic64_inc(&tracerd_live.attachments);
	return a;

out_free_pcpu:
	tracerd_stk_free(a);
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
	return tracerd_att_alloc(mode, flags, filt, addr,
				 tracerd_att_grouped(mode, flags));
}

/* Kernel errors that mean "cannot hook there" become -EADDRNOTAVAIL. */
int tracerd_where_err(int ret)
{
	return ret == -ENOMEM ? ret : -EADDRNOTAVAIL;
}

/*
 * Set ops' filter to ips[0..n) (callops, direct): 0, or the error as
 * tracerd_where_err() maps it. The caller frees the filter either way.
 */
int tracerd_ops_filter(struct ftrace_ops *ops, unsigned long *ips, unsigned int n)
{
	int ret;

	if (n == 1)
		ret = ftrace_set_filter_ip(ops, ips[0], 0, 0);
	else
		ret = ftrace_set_filter_ips(ops, ips, n, 0, 0);
	return ret ? tracerd_where_err(ret) : 0;
}

/*
 * Arm a callops or direct attachment on n addresses (the bench's
 * one-ops-many-functions case; n == 1 for a normal attachment).
 */
int tracerd_att_arm_ips(struct tracerd_att *a, unsigned long *ips,
			unsigned int n)
{
	const struct tracerd_mode_ops *m = tracerd_mode(a->mode);

	if (!m->arm_ips || a->armed || n == 0)
		return -EINVAL;
	return m->arm_ips(a, ips, n);
}

/* Arm a at its own address. */
int tracerd_att_arm(struct tracerd_att *a)
{
	if (a->armed)
		return -EINVAL;
	return tracerd_mode(a->mode)->arm(a);
}

/* Remove a's hook; false if the kernel refused (a must then be leaked). */
static bool tracerd_att_disarm(struct tracerd_att *a)
{
	int ret;

	if (!a->armed)
		return true;
	ret = tracerd_mode(a->mode)->disarm(a);
	if (ret) {
		/* the hook may still run: keep it and the module alive */
		pr_err("cannot unhook %ps (mode %u): %d; leaking it\n",
		       (void *)a->addr, a->mode, ret);
		__module_get(THIS_MODULE);
		return false;
	}
	a->armed = false;
	return true;
}

/* Free an unarmed a and its counters. */
void tracerd_att_destroy(struct tracerd_att *a)
{
	const struct tracerd_mode_ops *m = tracerd_mode(a->mode);

	if (m->release)
		m->release(a);
	tracerd_stk_free(a);
	free_percpu(a->pcpu);
	atomic64_dec(&tracerd_live.allocs);
	if (a->lat) {
		free_percpu(a->lat);
		atomic64_dec(&tracerd_live.allocs);
	}
	atomic64_dec(&tracerd_live.attachments);
	tracerd_free(a);
}

/* Do a's calls run through this module after its disarm (mode.h drains)? */
static bool tracerd_att_drains(const struct tracerd_att *a)
{
	const struct tracerd_mode_ops *m = tracerd_mode(a->mode);

	return m->drains && m->drains(a);
}

/*
 * a drains and was just disarmed: an RCU-tasks grace period first, then
 * true if it can be freed now, false if its mode took it over.
 */
static bool tracerd_att_settle(struct tracerd_att *a)
{
	synchronize_rcu_tasks();
	return tracerd_mode(a->mode)->settled(a);
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
	if (tracerd_att_drains(a) && !tracerd_att_settle(a))
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
	ret = tracerd_mode(g->mode)->group_unregister(g);
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
	const struct tracerd_mode_ops *m = tracerd_mode(g->mode);
	unsigned int i;

	if (!tracerd_group_disarm(g))
		return;
	if (m->group_free)
		m->group_free(g);
	for (i = 0; i < g->n; i++) {
		tracerd_att_destroy(g->ents[i].att);
		cond_resched();	/* a batch of up to 262144 */
	}
	tracerd_kvfree(g);
}

/*
 * a is detached: it stops counting at once; callops also unhooks its
 * function now when unhook is set (others of the group stay); the group
 * goes with its last live member.
 */
static void tracerd_member_drop(struct tracerd_att *a, bool unhook)
{
	struct tracerd_group *g = a->group;
	const struct tracerd_mode_ops *m = tracerd_mode(g->mode);

	WRITE_ONCE(a->retired, true);
	if (--g->live == 0) {
		tracerd_group_release(g);
		return;
	}
	if (unhook && m->group_unhook)
		m->group_unhook(g, a);
}

/*
 * Free n attachments at once: a group whose every live member is among
 * them is unhooked in one update, not one function at a time, and the
 * draining ones (timed kmod-direct) are all disarmed before one RCU-tasks
 * grace period, not one each.
 */
void tracerd_atts_free(struct tracerd_att **atts, unsigned int n)
{
	unsigned int i, timed = 0;

	for (i = 0; i < n; i++) {
		if (atts[i]->group) {
			atts[i]->group->dying++;
		} else if (tracerd_att_drains(atts[i])) {
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

		if (!g && tracerd_att_drains(a)) {
			if (!a->armed && tracerd_mode(a->mode)->settled(a))
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

	ips = tracerd_kvzalloc(array_size(g->n, sizeof(*ips)));
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < g->n; i++)
		ips[i] = g->ents[i].addr;
	ret = ftrace_set_filter_ips(&g->ops, ips, g->n, 0, 0);
	tracerd_kvfree(ips);
	if (ret) {
		ret = tracerd_where_err(ret);
		goto out_free_filter;
	}
	ret = tracerd_mode(g->mode)->group_register(g, flags);
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
	const struct tracerd_mode_ops *m = tracerd_mode(mode);
	struct tracerd_group *g;
	unsigned int i;
	int ret;

	g = tracerd_kvzalloc(struct_size(g, ents, n));
	if (!g)
		return ERR_PTR(-ENOMEM);
	g->mode = mode;
	g->slot = -1;
	g->n = n;
	g->live = n;
	memcpy(g->ents, ents, n * sizeof(*ents));
	if (m->group_new) {
		ret = m->group_new(g);
		if (ret < 0)
			goto out_free;
	}
	ret = tracerd_group_arm(g, flags);
	if (ret)
		goto out_free;
	for (i = 0; i < n; i++)
		ents[i].att->group = g;
	return g;

out_free:
	if (m->group_free)
		m->group_free(g);
	tracerd_kvfree(g);
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
	if (!tracerd_att_grouped(first->mode, first->flags)) {
		for (i = 0; i < n; i++)
			if (atts[i])
				errs[i] = tracerd_att_arm(atts[i]);
		return;
	}
	ents = tracerd_kvzalloc(array_size(n, sizeof(*ents)));
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
	tracerd_kvfree(ents);
}

/* Fill s (all but s->id) with what a's function call site does now. */
int tracerd_att_site(const struct tracerd_att *a, struct tracerd_site *s)
{
	const struct tracerd_mode_ops *m = tracerd_mode(a->mode);
	unsigned long site = 0, target = 0;
	u32 insn = 0;
	int ret;

	ret = tracerd_arch_site(a->addr, &site, &insn, &target);
	if (ret == -EADDRNOTAVAIL)
		return ret;
	s->site = site;
	s->insn = insn;
	if (m->tramp)
		s->tramp = m->tramp(a);
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
	const struct tracerd_mode_ops *m = tracerd_mode(a->mode);

	return m->missed ? m->missed(a) : 0;
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
