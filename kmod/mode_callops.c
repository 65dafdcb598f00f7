// SPDX-License-Identifier: GPL-2.0
/*
 * kmod-callops: an ftrace_ops whose C callback counts, filtered to the
 * function's address (optionally FTRACE_OPS_FL_SAVE_REGS); a batch is one
 * ftrace_ops over all its functions, its callback finding the member by
 * the ip ftrace passes.
 *
 * With TRACERD_ATTACH_LATENCY: an fprobe (entry and exit handlers, the
 * entry time in its entry data): rethook before 6.14, the function graph
 * tracer from 6.14 (ftrace_compat.h).
 *
 * Unregistering an ftrace_ops waits for running callbacks (RCU tasks for
 * dynamic ops), so an attachment is freed only after its hook is gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/rcupdate.h>

#include "ftrace_compat.h"
#include "mode.h"

/* kmod-callops: the ftrace_ops callback. */
static void notrace tracerd_callops_func(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	tracerd_att_hit_stack(container_of(op, struct tracerd_att, ops), NULL);
}
NOKPROBE_SYMBOL(tracerd_callops_func);

/* kmod-callops batch: the shared ftrace_ops callback. */
static void notrace tracerd_group_func(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	tracerd_group_hit(container_of(op, struct tracerd_group, ops), ip);
}
NOKPROBE_SYMBOL(tracerd_group_func);

#if TRACERD_HAVE_FPROBE_LAT
/* kmod-callops + latency: an fprobe, the entry time in its entry data. */
static int notrace tracerd_fprobe_entry(struct fprobe *fp, unsigned long ip,
					unsigned long ret_ip,
					tracerd_fprobe_regs_t *regs, void *data)
{
	if (!tracerd_att_hit_stack(container_of(fp, struct tracerd_att, fp), NULL))
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

/* A batch member has its group's ops; latency: an fprobe, set up when armed. */
static int tracerd_callops_init(struct tracerd_att *a, bool member)
{
	if (member || tracerd_is_lat(a))
		return 0;
	a->ops.func = tracerd_callops_func;
	if (a->flags & TRACERD_ATTACH_SAVE_REGS)
		a->ops.flags |= FTRACE_OPS_FL_SAVE_REGS;
	return 0;
}

/* One ops on n addresses (the bench's one-ops-many-functions case). */
static int tracerd_callops_arm_ips(struct tracerd_att *a, unsigned long *ips,
				   unsigned int n)
{
	int ret;

	if (tracerd_is_lat(a))
		return -EINVAL;
	ret = tracerd_ops_filter(&a->ops, ips, n);
	if (ret)
		goto out_free_filter;
	ret = register_ftrace_function(&a->ops);
	if (ret)
		goto out_free_filter;
	a->armed = true;
	return 0;

out_free_filter:
	ftrace_free_filter(&a->ops);
	return ret;
}

static int tracerd_callops_arm(struct tracerd_att *a)
{
	int ret;

	if (!tracerd_is_lat(a))
		return tracerd_callops_arm_ips(a, &a->addr, 1);
	ret = tracerd_fprobe_arm(a);
	if (ret)
		return tracerd_where_err(ret);
	a->armed = true;
	return 0;
}

static int tracerd_callops_disarm(struct tracerd_att *a)
{
	int ret;

	if (tracerd_is_lat(a)) {
		/* waits for running handlers; nothing to leak */
		tracerd_fprobe_disarm(a);
		return 0;
	}
	ret = unregister_ftrace_function(&a->ops);
	if (!ret)
		ftrace_free_filter(&a->ops);
	return ret;
}

/* The fprobe's misses (latency); an ftrace_ops drops nothing. */
static u64 tracerd_callops_missed(const struct tracerd_att *a)
{
	return tracerd_is_lat(a) ? READ_ONCE(a->fp.nmissed) : 0;
}

static int tracerd_callops_group_register(struct tracerd_group *g, u32 flags)
{
	g->ops.func = tracerd_group_func;
	if (flags & TRACERD_ATTACH_SAVE_REGS)
		g->ops.flags |= FTRACE_OPS_FL_SAVE_REGS;
	return register_ftrace_function(&g->ops);
}

static int tracerd_callops_group_unregister(struct tracerd_group *g)
{
	return unregister_ftrace_function(&g->ops);
}

/* A member detached alone leaves the batch's filter at once. */
static void tracerd_callops_group_unhook(struct tracerd_group *g,
					 struct tracerd_att *a)
{
	if (ftrace_set_filter_ip(&g->ops, a->addr, 1, 0))
		pr_warn("cannot unhook %ps from its batch; it stays hooked, uncounted\n",
			(void *)a->addr);
}

const struct tracerd_mode_ops tracerd_mode_callops = {
	.available		= IS_ENABLED(CONFIG_DYNAMIC_FTRACE),
	.lat_available		= TRACERD_HAVE_FPROBE_LAT,
	.flags			= TRACERD_ATTACH_SAVE_REGS | TRACERD_ATTACH_LATENCY |
				  TRACERD_ATTACH_STACKS,
	.init			= tracerd_callops_init,
	.arm			= tracerd_callops_arm,
	.arm_ips		= tracerd_callops_arm_ips,
	.disarm			= tracerd_callops_disarm,
	.missed			= tracerd_callops_missed,
	.group_register		= tracerd_callops_group_register,
	.group_unregister	= tracerd_callops_group_unregister,
	.group_unhook		= tracerd_callops_group_unhook,
};

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
