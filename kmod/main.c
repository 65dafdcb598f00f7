// SPDX-License-Identifier: GPL-2.0
/*
 * tracerd_kmod: native attach paths (ftrace direct calls, per-function
 * ftrace_ops, kprobes) and in-kernel benchmarks for tracerd.
 *
 * This file holds the misc device, the per-file attachment table, leak
 * accounting and the ioctl table (tracerd_iocs). The ABI, with every
 * errno, is include/tracerd/kmod_abi.h; an attachment's life is in
 * attach.c, the hook modes in mode_*.c (mode.h) and the benchmarks in
 * bench.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/threads.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/xarray.h>

#include "arch.h"
#include "ftrace_compat.h"
#include "tracerd_kmod.h"

/* From the VERSION file (Kbuild): the module and the packages carry one version. */
#ifndef TRACERD_KMOD_VERSION
#error "TRACERD_KMOD_VERSION is set by kmod/Kbuild from $(TRACERD_SRC)/VERSION"
#endif

struct tracerd_stats_live tracerd_live;

/* kzalloc() counted in tracerd_live.allocs. */
void *tracerd_zalloc(size_t size)
{
	void *p = kzalloc(size, GFP_KERNEL);

	if (p)
		atomic64_inc(&tracerd_live.allocs);
	return p;
}

/* kfree() of a tracerd_zalloc() block. NULL-safe. */
void tracerd_free(const void *p)
{
	if (!p)
		return;
	kfree(p);
	atomic64_dec(&tracerd_live.allocs);
}

/*
 * kvzalloc() counted in tracerd_live.allocs: the arrays of a batch's
 * size (up to TRACERD_MAX_ATTACH entries: 6 MiB of a group's ents), which
 * as kzalloc would be high-order pages that fragmentation can refuse.
 */
void *tracerd_kvzalloc(size_t size)
{
	void *p = kvzalloc(size, GFP_KERNEL);

	if (p)
		atomic64_inc(&tracerd_live.allocs);
	return p;
}

/* kvfree() of a tracerd_kvzalloc() block. NULL-safe. */
void tracerd_kvfree(const void *p)
{
	if (!p)
		return;
	kvfree(p);
	atomic64_dec(&tracerd_live.allocs);
}

/* State of one open /dev/tracerd: the attachments it owns. */
struct tracerd_file {
	struct mutex lock;	/* serializes this file's ioctls on atts */
	struct xarray atts;	/* id -> struct tracerd_att */
	u32 next_id;
	unsigned int nr;
};

static long tracerd_ioc_version(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	struct tracerd_version v;

	memset(&v, 0, sizeof(v));
	v.abi_major = TRACERD_ABI_MAJOR;
	v.abi_minor = TRACERD_ABI_MINOR;
	strscpy(v.module_version, TRACERD_KMOD_VERSION, sizeof(v.module_version));
	if (copy_to_user(arg, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

/* Kernel configuration flags for TRACERD_IOC_FEATURES. */
static u64 tracerd_feature_flags(void)
{
	u64 f = 0;

	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE))
		f |= TRACERD_FEAT_DYNAMIC_FTRACE;
	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS))
		f |= TRACERD_FEAT_DIRECT_CALLS;
	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS))
		f |= TRACERD_FEAT_CALL_OPS;
	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_ARGS))
		f |= TRACERD_FEAT_WITH_ARGS;
	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS))
		f |= TRACERD_FEAT_WITH_REGS;
	if (IS_ENABLED(CONFIG_KPROBES))
		f |= TRACERD_FEAT_KPROBES;
	if (IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		f |= TRACERD_FEAT_KPROBES_ON_FTRACE;
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT))
		f |= TRACERD_FEAT_IBT;
	if (IS_ENABLED(CONFIG_CALL_DEPTH_TRACKING) ||
	    IS_ENABLED(CONFIG_MITIGATION_CALL_DEPTH_TRACKING))
		f |= TRACERD_FEAT_CALL_DEPTH;
	if (IS_ENABLED(CONFIG_FPROBE))
		f |= TRACERD_FEAT_FPROBE;
	if (TRACERD_DIRECT_API_OPS)
		f |= TRACERD_FEAT_DIRECT_API_OPS;
	if (tracerd_flags_available() & TRACERD_ATTACH_STACKS)
		f |= TRACERD_FEAT_STACKS;
	return f;
}

static long tracerd_ioc_features(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	struct tracerd_features feat;

	memset(&feat, 0, sizeof(feat));
	feat.flags = tracerd_feature_flags();
	feat.modes = tracerd_modes_available();
	feat.attach_flags = tracerd_flags_available();
	feat.linux_version_code = TRACERD_BUILT_FOR_VERSION;
	feat.direct_slots = TRACERD_DIRECT_SLOTS;
	feat.name_len = TRACERD_NAME_LEN;
	feat.max_attach = TRACERD_MAX_ATTACH;
	feat.max_calls = TRACERD_BENCH_MAX_CALLS;
	feat.max_relevant = TRACERD_BENCH_MAX_RELEVANT;
	feat.max_irrelevant = TRACERD_BENCH_MAX_IRRELEVANT;
	feat.max_funcs = TRACERD_BENCH_MAX_FUNCS;
	feat.latency_modes = tracerd_latency_modes();
	strscpy(feat.arch, init_utsname()->machine, sizeof(feat.arch));
	strscpy(feat.release, init_utsname()->release, sizeof(feat.release));
	if (copy_to_user(arg, &feat, sizeof(feat)))
		return -EFAULT;
	return 0;
}

/*
 * A function name as the module accepts it: NUL-terminated within its
 * field (-ENAMETOOLONG), non-empty and made of symbol characters only, so
 * no glob character ever reaches the kernel (-EILSEQ).
 */
static int tracerd_check_name(const char *name)
{
	size_t i, len = strnlen(name, TRACERD_NAME_LEN);

	if (len == TRACERD_NAME_LEN)
		return -ENAMETOOLONG;
	if (len == 0)
		return -EILSEQ;
	for (i = 0; i < len; i++) {
		if (!isalnum(name[i]) && name[i] != '_' && name[i] != '.' &&
		    name[i] != '$')
			return -EILSEQ;
	}
	return 0;
}

/*
 * addr must be the start of the kernel symbol called name: -ENXIO when no
 * symbol holds addr, -ESRCH when another symbol does or addr is inside it.
 * symbuf: KSYM_SYMBOL_LEN bytes to use (a batch's one: 42743 entries
 * checked in 1.6-1.8 s under TCG, the buffer allocated for each), or NULL.
 */
static int tracerd_check_symbol(unsigned long addr, const char *name, char *symbuf)
{
	size_t len = strlen(name);
	char *sym = symbuf;
	int ret = 0;

	if (!sym)
		sym = tracerd_zalloc(KSYM_SYMBOL_LEN);
	if (!sym)
		return -ENOMEM;
	/* "name+0xoff/0xsize [module]", or "0x<addr>" when unknown */
	sprint_symbol(sym, addr);
	if (!strncmp(sym, "0x", 2))
		ret = -ENXIO;
	else if (strncmp(sym, name, len) || strncmp(sym + len, "+0x0/", 5))
		ret = -ESRCH;
	if (sym != symbuf)
		tracerd_free(sym);
	return ret;
}

/* mode, flags and tgid of an attach request (-EINVAL, -EOPNOTSUPP). */
static int tracerd_check_how(u32 mode, u32 flags, u32 tgid, u32 reserved)
{
	int ret = tracerd_att_check(mode, flags);

	if (ret == -EINVAL || reserved || tgid > PID_MAX_LIMIT)
		return -EINVAL;
	return ret;
}

/*
 * Functions that never return, or whose callers' tasks often end inside
 * them (a fatal signal: get_signal() calls do_group_exit(); a kthread's
 * function returns into kthread(), which exits): a timed call of one
 * would keep the trampoline's frame, and with it the module, forever (BPF
 * refuses fexit on the first kind for the same reason). A function above
 * these on a stack (a syscall that takes a fatal signal inside it) still
 * can: its attachment then drains until reboot (stats: draining), which
 * pins the module but harms nothing else.
 */
static const char *const tracerd_noreturn[] = {
	"do_exit", "do_group_exit", "make_task_dead", "kthread_exit",
	"kthread_complete_and_exit", "kthread", "__x64_sys_exit",
	"__x64_sys_exit_group", "__ia32_sys_exit", "__ia32_sys_exit_group",
	"__arm64_sys_exit", "__arm64_sys_exit_group", "__riscv_sys_exit",
	"__riscv_sys_exit_group", "__riscv_compat_sys_exit",
	"__riscv_compat_sys_exit_group", "__do_sys_exit",
	"__do_sys_exit_group", "__se_sys_exit", "__se_sys_exit_group",
	"get_signal", "arch_do_signal_or_restart", "do_signal", "do_notify_resume",
	"call_usermodehelper_exec_async", "panic", "nmi_panic", "__stack_chk_fail",
	"__ubsan_handle_builtin_unreachable", "rewind_stack_and_make_dead",
	"cpu_startup_entry", "machine_real_restart", "kernel_restart",
	"kernel_halt", "kernel_power_off", "emergency_restart",
};

/*
 * The argument words of an attach request (argw, ABI 1.7): 0 except for
 * kmod-direct --latency, whose trampoline calls the function with its
 * register arguments and so takes only functions with none on the stack
 * (argw 1: "1 + no stack words", from the function's BTF). Malformed
 * (-EINVAL, checked with the mode and flags): non-zero elsewhere, 0 (not
 * said) there.
 */
static int tracerd_check_argw_form(u32 mode, u32 flags, u32 argw)
{
	return !tracerd_att_calls_fn(mode, flags) == !argw ? 0 : -EINVAL;
}

/*
 * The function against argw, once it is known: stack arguments
 * (argw > 1) -EOPNOTSUPP, a function that never returns -EADDRNOTAVAIL
 * (as for any function the mode cannot hook).
 */
static int tracerd_check_argw(u32 mode, u32 flags, u32 argw, const char *name)
{
	size_t i;

	if (!tracerd_att_calls_fn(mode, flags))
		return 0;
	if (argw > 1)
		return -EOPNOTSUPP;
	for (i = 0; i < ARRAY_SIZE(tracerd_noreturn); i++)
		if (!strcmp(name, tracerd_noreturn[i]))
			return -EADDRNOTAVAIL;
	return 0;
}

/* The function of an attach request: its address and name agree (symbuf: as above). */
static int tracerd_check_func(u64 addr, const char *name, char *symbuf)
{
	int ret;

	if (addr == 0)
		return -EINVAL;
	ret = tracerd_check_name(name);
	if (ret)
		return ret;
	return tracerd_check_symbol(addr, name, symbuf);
}

/*
 * The filter of an attach request (tgid, comm, the stack request and
 * reserved2 of ATTACH2 or ATTACH_BATCH2; zero for the older layouts):
 * -EINVAL when malformed.
 */
static int tracerd_check_filter(struct tracerd_filter *filt, u32 flags, u32 tgid,
				const char *comm, u32 stack_depth, u32 stack_slots,
				u64 reserved2)
{
	if (reserved2 || tracerd_stk_check(flags, stack_depth, stack_slots))
		return -EINVAL;
	filt->tgid = tgid;
	filt->stack_depth = stack_depth;
	filt->stack_slots = stack_slots;
	return tracerd_filter_comm(filt, comm);
}

/* Validate a TRACERD_IOC_ATTACH(2) request; the errno table is in the ABI. */
static int tracerd_check_attach(const struct tracerd_attach2 *req,
				struct tracerd_filter *filt)
{
	int ret = tracerd_check_how(req->mode, req->flags, req->tgid, 0);

	if (ret == -EINVAL ||
	    tracerd_check_argw_form(req->mode, req->flags, req->argw))
		return -EINVAL;
	if (req->addr == 0)
		return -EINVAL;
	if (tracerd_check_filter(filt, req->flags, req->tgid, req->comm, req->stack_depth,
				 req->stack_slots, req->reserved2))
		return -EINVAL;
	if (ret)
		return ret;
	ret = tracerd_check_func(req->addr, req->name, NULL);
	return ret ?: tracerd_check_argw(req->mode, req->flags, req->argw, req->name);
}

_Static_assert(offsetof(struct tracerd_attach2, comm) == sizeof(struct tracerd_attach),
	       "TRACERD_IOC_ATTACH's layout is TRACERD_IOC_ATTACH2's prefix");
_Static_assert(offsetof(struct tracerd_batch2, comm) == sizeof(struct tracerd_batch),
	       "TRACERD_IOC_ATTACH_BATCH's layout is TRACERD_IOC_ATTACH_BATCH2's prefix");

/* TRACERD_IOC_ATTACH, or ATTACH2 (size: _IOC_SIZE of the command). */
static long tracerd_ioc_attach(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	size_t size = _IOC_SIZE(cmd);
	struct tracerd_attach2 req = {};
	struct tracerd_filter filt;
	struct tracerd_att *a;
	u32 id;
	int ret;

	if (copy_from_user(&req, arg, size))
		return -EFAULT;
	ret = tracerd_check_attach(&req, &filt);
	if (ret)
		return ret;
	if (f->nr >= TRACERD_MAX_ATTACH)
		return -ENOSPC;
	a = tracerd_att_new(req.mode, req.flags, &filt, req.addr);
	if (IS_ERR(a))
		return PTR_ERR(a);
	ret = tracerd_att_arm(a);
	if (ret)
		goto out_free_att;
	ret = xa_alloc_cyclic(&f->atts, &id, a, XA_LIMIT(1, U32_MAX),
			      &f->next_id, GFP_KERNEL);
	if (ret < 0)
		goto out_free_att;
	req.id = id;
	req.probe_addr = a->probe_addr;
	if (copy_to_user(arg, &req, size)) {
		ret = -EFAULT;
		goto out_erase;
	}
	f->nr++;
	return 0;

out_erase:
	xa_erase(&f->atts, id);
out_free_att:
	tracerd_att_free(a);
	return ret;
}

static long tracerd_ioc_detach(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	struct tracerd_detach req;
	struct tracerd_att *a;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.id == 0 || req.id > U32_MAX)
		return -ENOENT;
	a = xa_erase(&f->atts, req.id);
	if (!a)
		return -ENOENT;
	f->nr--;
	tracerd_att_free(a);
	return 0;
}

/*
 * Read and check entry i of an attach batch into e; e->error gets the
 * entry's errno, and the attachment is made (unarmed) when it is 0.
 * symbuf: the batch's KSYM_SYMBOL_LEN bytes for the symbol check.
 */
static struct tracerd_att *tracerd_batch_entry_new(const struct tracerd_batch2 *b,
						   const struct tracerd_filter *filt,
						   struct tracerd_batch_entry *e, char *symbuf)
{
	struct tracerd_att *a;

	e->error = tracerd_check_argw_form(b->mode, b->flags, e->argw) ?:
		   tracerd_check_func(e->addr, e->name, symbuf) ?:
		   tracerd_check_argw(b->mode, b->flags, e->argw, e->name);
	if (e->error)
		return NULL;
	a = tracerd_member_new(b->mode, b->flags, filt, e->addr);
	if (IS_ERR(a)) {
		e->error = PTR_ERR(a);
		return NULL;
	}
	return a;
}

/* Give each armed atts[i] an id in f; errs[i] says which are armed. */
static void tracerd_batch_ids(struct tracerd_file *f, struct tracerd_att **atts,
			      int *errs, u32 *ids, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		ids[i] = 0;
		if (!atts[i] || errs[i])
			continue;
		errs[i] = xa_alloc_cyclic(&f->atts, &ids[i], atts[i],
					  XA_LIMIT(1, U32_MAX), &f->next_id,
					  GFP_KERNEL);
		if (errs[i] > 0)
			errs[i] = 0;
		if (!errs[i])
			f->nr++;
		cond_resched();	/* up to TRACERD_MAX_ATTACH: 262144 */
	}
}

/* Copy the outcome of every entry back; -EFAULT if one cannot be written. */
static int tracerd_batch_put(struct tracerd_batch_entry __user *ue,
			     struct tracerd_att **atts, const int *errs,
			     const u32 *ids, unsigned int n, u32 *done)
{
	struct tracerd_batch_entry e;
	unsigned int i;

	*done = 0;
	for (i = 0; i < n; i++) {
		if (copy_from_user(&e, &ue[i], sizeof(e)))
			return -EFAULT;
		e.error = errs[i];
		e.id = e.error ? 0 : ids[i];
		e.probe_addr = e.error ? 0 : atts[i]->probe_addr;
		if (copy_to_user(&ue[i], &e, sizeof(e)))
			return -EFAULT;
		*done += !e.error;
		cond_resched();
	}
	return 0;
}

/* Undo the entries of a batch that failed as a whole (-EFAULT). */
static void tracerd_batch_undo(struct tracerd_file *f, struct tracerd_att **atts,
			       const int *errs, const u32 *ids, unsigned int n)
{
	unsigned int i, m = 0;

	for (i = 0; i < n; i++) {
		if (!atts[i])
			continue;
		if (!errs[i]) {
			xa_erase(&f->atts, ids[i]);
			f->nr--;
		}
		atts[m++] = atts[i];
	}
	tracerd_atts_free(atts, m);
}

/* The per-entry work arrays of a batch of n: one allocation. */
struct tracerd_batch_work {
	struct tracerd_att **atts;
	int *errs;
	u32 *ids;
};

static int tracerd_batch_work_new(struct tracerd_batch_work *w, unsigned int n)
{
	w->atts = kvcalloc(n, sizeof(*w->atts) + sizeof(*w->errs) +
			   sizeof(*w->ids), GFP_KERNEL);
	if (!w->atts)
		return -ENOMEM;
	atomic64_inc(&tracerd_live.allocs);
	w->errs = (int *)(w->atts + n);
	w->ids = (u32 *)(w->errs + n);
	return 0;
}

static void tracerd_batch_work_free(struct tracerd_batch_work *w)
{
	kvfree(w->atts);
	atomic64_dec(&tracerd_live.allocs);
}

/*
 * Read and check a batch header of size bytes (struct tracerd_batch, or
 * tracerd_batch2 for ATTACH_BATCH2; the errno table is in the ABI) and
 * make the work arrays for its entries. attach: filt gets the filter.
 */
static int tracerd_batch_begin(void __user *arg, size_t size, bool attach,
			       struct tracerd_batch2 *b, struct tracerd_filter *filt,
			       struct tracerd_batch_work *w)
{
	int ret;

	memset(b, 0, sizeof(*b));
	if (copy_from_user(b, arg, size))
		return -EFAULT;
	if (b->count == 0 || b->reserved)
		return -EINVAL;
	if (attach && tracerd_check_filter(filt, b->flags, b->tgid, b->comm, b->stack_depth,
					   b->stack_slots, b->reserved2))
		return -EINVAL;
	if (b->count > TRACERD_MAX_ATTACH)
		return -E2BIG;
	if (attach)
		ret = tracerd_check_how(b->mode, b->flags, b->tgid, 0);
	else
		ret = b->mode || b->flags || b->tgid ? -EINVAL : 0;
	return ret ?: tracerd_batch_work_new(w, b->count);
}

/* Read, check and make every entry's attachment (unarmed). */
static int tracerd_batch_read(struct tracerd_file *f, const struct tracerd_batch2 *b,
			      const struct tracerd_filter *filt,
			      struct tracerd_batch_entry __user *ue,
			      struct tracerd_batch_work *w)
{
	struct tracerd_batch_entry e;
	unsigned int i, room = TRACERD_MAX_ATTACH - f->nr;
	char *symbuf = tracerd_zalloc(KSYM_SYMBOL_LEN);
	int ret = 0;

	if (!symbuf)
		return -ENOMEM;
	for (i = 0; i < b->count; i++) {
		if (copy_from_user(&e, &ue[i], sizeof(e))) {
			ret = -EFAULT;
			break;
		}
		if (room == 0) {
			w->errs[i] = -ENOSPC;
			continue;
		}
		w->atts[i] = tracerd_batch_entry_new(b, filt, &e, symbuf);
		w->errs[i] = e.error;
		if (w->atts[i])
			room--;
		cond_resched();
	}
	tracerd_free(symbuf);
	return ret;
}

/* TRACERD_IOC_ATTACH_BATCH, or ATTACH_BATCH2 (size: _IOC_SIZE of the command). */
static long tracerd_ioc_attach_batch(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	size_t size = _IOC_SIZE(cmd);
	struct tracerd_batch __user *ub = arg;
	struct tracerd_batch_entry __user *ue;
	struct tracerd_filter filt;
	struct tracerd_batch_work w;
	struct tracerd_batch2 b;
	unsigned int i;
	int ret;

	ret = tracerd_batch_begin(arg, size, true, &b, &filt, &w);
	if (ret)
		return ret;
	ue = u64_to_user_ptr(b.entries);
	ret = tracerd_batch_read(f, &b, &filt, ue, &w);
	if (!ret) {
		tracerd_batch_arm(w.atts, b.count, w.errs);
		tracerd_batch_ids(f, w.atts, w.errs, w.ids, b.count);
		ret = tracerd_batch_put(ue, w.atts, w.errs, w.ids, b.count, &b.done);
	}
	if (!ret && copy_to_user(&ub->done, &b.done, sizeof(b.done)))
		ret = -EFAULT;
	if (ret) {
		tracerd_batch_undo(f, w.atts, w.errs, w.ids, b.count);
	} else {
		for (i = 0; i < b.count; i++)	/* the failed ones */
			if (w.atts[i] && w.errs[i])
				tracerd_att_free(w.atts[i]);
	}
	tracerd_batch_work_free(&w);
	return ret;
}

static long tracerd_ioc_detach_batch(struct tracerd_file *f, unsigned int cmd,
				     void __user *arg)
{
	struct tracerd_batch __user *ub = arg;
	struct tracerd_batch_entry __user *ue;
	struct tracerd_batch_entry e;
	struct tracerd_batch_work w;
	struct tracerd_batch2 b;
	unsigned int i, m = 0;
	int ret;

	ret = tracerd_batch_begin(arg, sizeof(struct tracerd_batch), false, &b, NULL, &w);
	if (ret)
		return ret;
	ue = u64_to_user_ptr(b.entries);
	for (i = 0; i < b.count; i++) {
		struct tracerd_att *a = NULL;

		if (copy_from_user(&e, &ue[i], sizeof(e))) {
			ret = -EFAULT;
			break;
		}
		if (e.id && e.id <= U32_MAX)
			a = xa_erase(&f->atts, e.id);
		e.error = a ? 0 : -ENOENT;
		if (a) {
			w.atts[m++] = a;
			f->nr--;
		}
		if (copy_to_user(&ue[i], &e, sizeof(e)))
			ret = -EFAULT;
		cond_resched();
	}
	/* once erased, an attachment goes, whatever could be written back */
	tracerd_atts_free(w.atts, m);
	tracerd_batch_work_free(&w);
	b.done = m;
	if (!ret && copy_to_user(&ub->done, &b.done, sizeof(b.done)))
		ret = -EFAULT;
	return ret;
}

/*
 * The attachment of f named by the id that leads the struct at arg (*id
 * gets it): ERR_PTR(-EFAULT) when arg cannot be read, -ENOENT when f has
 * no such attachment.
 */
static struct tracerd_att *tracerd_att_of(struct tracerd_file *f, void __user *arg, u64 *id)
{
	struct tracerd_att *a;

	if (copy_from_user(id, arg, sizeof(*id)))
		return ERR_PTR(-EFAULT);
	a = (*id == 0 || *id > U32_MAX) ? NULL : xa_load(&f->atts, *id);
	return a ? a : ERR_PTR(-ENOENT);
}

static long tracerd_ioc_counters(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	struct tracerd_counters c;
	struct tracerd_att *a;
	u64 id;

	a = tracerd_att_of(f, arg, &id);
	if (IS_ERR(a))
		return PTR_ERR(a);
	memset(&c, 0, sizeof(c));
	c.id = id;
	tracerd_att_sum(a, &c.hits, &c.filtered);
	c.missed = tracerd_att_missed(a);
	c.addr = a->addr;
	c.probe_addr = a->probe_addr;
	c.mode = a->mode;
	c.flags = a->flags;
	c.tgid = a->tgid;
	if (copy_to_user(arg, &c, sizeof(c)))
		return -EFAULT;
	return 0;
}

/* TRACERD_IOC_COUNTERS_BATCH: each entry's counters, as tracerd_ioc_counters'. */
static long tracerd_ioc_counters_batch(struct tracerd_file *f, unsigned int cmd,
				       void __user *arg)
{
	struct tracerd_counters_batch __user *ub = arg;
	struct tracerd_counters_entry __user *ue;
	struct tracerd_counters_batch b;
	struct tracerd_counters_entry e;
	struct tracerd_att *a;
	unsigned int i;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	if (b.count == 0 || b.reserved)
		return -EINVAL;
	if (b.count > TRACERD_COUNTERS_BATCH_MAX)
		return -E2BIG;
	ue = u64_to_user_ptr(b.entries);
	b.done = 0;
	for (i = 0; i < b.count; i++) {
		if (copy_from_user(&e, &ue[i], sizeof(e)))
			return -EFAULT;
		a = (e.id == 0 || e.id > U32_MAX) ? NULL : xa_load(&f->atts, e.id);
		e.hits = 0;
		e.filtered = 0;
		e.missed = 0;
		e.error = 0;
		e.reserved = 0;
		if (a) {
			tracerd_att_sum(a, &e.hits, &e.filtered);
			e.missed = tracerd_att_missed(a);
			b.done++;
		} else {
			e.error = -ENOENT;
		}
		if (copy_to_user(&ue[i], &e, sizeof(e)))
			return -EFAULT;
		if (!(i % 256))
			cond_resched();
	}
	if (copy_to_user(&ub->done, &b.done, sizeof(b.done)))
		return -EFAULT;
	return 0;
}

static long tracerd_ioc_latency(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	struct tracerd_latency l;	/* 384 bytes */
	struct tracerd_att *a;
	u64 id;
	int ret;

	a = tracerd_att_of(f, arg, &id);
	if (IS_ERR(a))
		return PTR_ERR(a);
	memset(&l, 0, sizeof(l));
	l.id = id;
	ret = tracerd_att_latency(a, &l);
	if (ret)
		return ret;
	if (copy_to_user(arg, &l, sizeof(l)))
		return -EFAULT;
	return 0;
}

/* TRACERD_IOC_STACKS: copied out on -ENOSPC too (stacks, total, need). */
static long tracerd_ioc_stacks(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	struct tracerd_stacks s;
	struct tracerd_att *a;
	u64 id;
	int ret;

	a = tracerd_att_of(f, arg, &id);
	if (IS_ERR(a))
		return PTR_ERR(a);
	if (copy_from_user(&s, arg, sizeof(s)))
		return -EFAULT;
	if (s.reserved[0] || s.reserved[1])
		return -EINVAL;
	s.need = 0;
	s.dropped = 0;
	s.stacks = 0;
	s.total = 0;
	ret = tracerd_stk_read(a, &s);
	if ((ret == 0 || ret == -ENOSPC) && copy_to_user(arg, &s, sizeof(s)))
		return -EFAULT;
	return ret;
}

static long tracerd_ioc_site(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	struct tracerd_site s;
	struct tracerd_att *a;
	u64 id;
	int ret;

	a = tracerd_att_of(f, arg, &id);
	if (IS_ERR(a))
		return PTR_ERR(a);
	memset(&s, 0, sizeof(s));
	s.id = id;
	ret = tracerd_att_site(a, &s);
	if (ret)
		return ret;
	if (copy_to_user(arg, &s, sizeof(s)))
		return -EFAULT;
	return 0;
}

static long tracerd_ioc_stats(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	struct tracerd_stats s;

	memset(&s, 0, sizeof(s));
	s.files = atomic64_read(&tracerd_live.files);
	s.attachments = atomic64_read(&tracerd_live.attachments);
	s.allocs = atomic64_read(&tracerd_live.allocs);
	s.direct_slots = atomic64_read(&tracerd_live.direct_slots);
	s.draining = atomic64_read(&tracerd_live.draining);
	if (copy_to_user(arg, &s, sizeof(s)))
		return -EFAULT;
	return 0;
}

/*
 * The benchmarks: copy in, run, copy out (on -EPROTO too, so the caller
 * sees the counts that disagreed). _IOC_SIZE(cmd) is the struct's size.
 */
static long tracerd_ioc_bench(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	union {
		struct tracerd_bench_ops ops;
		struct tracerd_bench_patch patch;
		struct tracerd_bench_all all;
	} b;
	size_t size = _IOC_SIZE(cmd);
	long ret;

	if (size > sizeof(b) || copy_from_user(&b, arg, size))
		return -EFAULT;
	if (cmd == TRACERD_IOC_BENCH_OPS)
		ret = tracerd_bench_ops(&b.ops);
	else if (cmd == TRACERD_IOC_BENCH_PATCH)
		ret = tracerd_bench_patch(&b.patch);
	else
		ret = tracerd_bench_all(&b.all);
	if ((ret == 0 || ret == -EPROTO) && copy_to_user(arg, &b, size))
		return -EFAULT;
	return ret;
}

/*
 * One ioctl command. The command number carries the argument's size and
 * direction (_IOC_SIZE, _IOC_DIR): a handler copies its struct in and out
 * itself, and tells a command from its older, shorter layout by the size
 * (ATTACH and ATTACH2). Every command needs CAP_SYS_ADMIN (tracerd_ioctl).
 */
struct tracerd_ioc {
	unsigned int cmd;
	long (*fn)(struct tracerd_file *f, unsigned int cmd, void __user *arg);
	bool locked;		/* works on f's attachments: under f->lock */
};

static const struct tracerd_ioc tracerd_iocs[] = {
	{ TRACERD_IOC_VERSION,		tracerd_ioc_version },
	{ TRACERD_IOC_FEATURES,		tracerd_ioc_features },
	{ TRACERD_IOC_STATS,		tracerd_ioc_stats },
	{ TRACERD_IOC_SITES,		tracerd_ioc_sites },
	{ TRACERD_IOC_BENCH_OPS,	tracerd_ioc_bench },
	{ TRACERD_IOC_BENCH_PATCH,	tracerd_ioc_bench },
	{ TRACERD_IOC_BENCH_ALL,	tracerd_ioc_bench },
	{ TRACERD_IOC_ATTACH,		tracerd_ioc_attach,		true },
	{ TRACERD_IOC_ATTACH2,		tracerd_ioc_attach,		true },
	{ TRACERD_IOC_DETACH,		tracerd_ioc_detach,		true },
	{ TRACERD_IOC_COUNTERS,		tracerd_ioc_counters,		true },
	{ TRACERD_IOC_SITE,		tracerd_ioc_site,		true },
	{ TRACERD_IOC_ATTACH_BATCH,	tracerd_ioc_attach_batch,	true },
	{ TRACERD_IOC_ATTACH_BATCH2,	tracerd_ioc_attach_batch,	true },
	{ TRACERD_IOC_DETACH_BATCH,	tracerd_ioc_detach_batch,	true },
	{ TRACERD_IOC_LATENCY,		tracerd_ioc_latency,		true },
	{ TRACERD_IOC_STACKS,		tracerd_ioc_stacks,		true },
	{ TRACERD_IOC_COUNTERS_BATCH,	tracerd_ioc_counters_batch,	true },
};

/* The row of cmd (number, size and direction alike), or NULL. */
static const struct tracerd_ioc *tracerd_ioc_find(unsigned int cmd)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tracerd_iocs); i++)
		if (tracerd_iocs[i].cmd == cmd)
			return &tracerd_iocs[i];
	return NULL;
}

static long tracerd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tracerd_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	const struct tracerd_ioc *ioc;
	long ret;

	/*
	 * open() already asked for CAP_SYS_ADMIN; ask again on every call, so
	 * an fd that reaches a less privileged process (fd passing, a dropped
	 * uid or capability set after open) cannot drive the module.
	 */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ioc = tracerd_ioc_find(cmd);
	if (!ioc)
		return -ENOTTY;
	if (!ioc->locked)
		return ioc->fn(f, cmd, uarg);
	mutex_lock(&f->lock);
	ret = ioc->fn(f, cmd, uarg);
	mutex_unlock(&f->lock);
	return ret;
}

static int tracerd_open(struct inode *inode, struct file *file)
{
	struct tracerd_file *f;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	f = tracerd_zalloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	xa_init_flags(&f->atts, XA_FLAGS_ALLOC1);
	file->private_data = f;
	atomic64_inc(&tracerd_live.files);
	return 0;
}

/* Last close (or death of the holder): detach everything this file owns. */
static int tracerd_release(struct inode *inode, struct file *file)
{
	struct tracerd_file *f = file->private_data;
	struct tracerd_batch_work w;
	struct tracerd_att *a;
	unsigned long id;
	unsigned int m = 0;

	/* all at once, so each batch goes in one update */
	if (f->nr && !tracerd_batch_work_new(&w, f->nr)) {
		xa_for_each(&f->atts, id, a) {
			if (m == f->nr)
				break;
			xa_erase(&f->atts, id);
			w.atts[m++] = a;
		}
		tracerd_atts_free(w.atts, m);
		tracerd_batch_work_free(&w);
	}
	xa_for_each(&f->atts, id, a) {
		xa_erase(&f->atts, id);
		tracerd_att_free(a);
		cond_resched();
	}
	xa_destroy(&f->atts);
	mutex_destroy(&f->lock);
	tracerd_free(f);
	atomic64_dec(&tracerd_live.files);
	return 0;
}

static const struct file_operations tracerd_fops = {
	.owner		= THIS_MODULE,
	.open		= tracerd_open,
	.release	= tracerd_release,
	.unlocked_ioctl	= tracerd_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice tracerd_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= TRACERD_DEV_NAME,
	.fops	= &tracerd_fops,
	.mode	= 0600,
};

static int __init tracerd_init(void)
{
	int ret;

	ret = misc_register(&tracerd_misc);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", TRACERD_DEV_NAME, ret);
		return ret;
	}
	pr_info("loaded, ABI %d.%d\n", TRACERD_ABI_MAJOR, TRACERD_ABI_MINOR);
	return 0;
}

static void __exit tracerd_exit(void)
{
	misc_deregister(&tracerd_misc);
	tracerd_direct_exit();
	if (atomic64_read(&tracerd_live.allocs) ||
	    atomic64_read(&tracerd_live.attachments))
		pr_err("unloaded with %lld allocations, %lld attachments live\n",
		       (long long)atomic64_read(&tracerd_live.allocs),
		       (long long)atomic64_read(&tracerd_live.attachments));
	else
		pr_info("unloaded\n");
}

module_init(tracerd_init);
module_exit(tracerd_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tracerd native attach paths and hook benchmarks");
MODULE_VERSION(TRACERD_KMOD_VERSION);
