// SPDX-License-Identifier: GPL-2.0
/*
 * TRACERD_IOC_SITES: the ftrace call site of any traceable function, what
 * it holds and where it branches now, attached or not (`tracectl sites
 * --live`). Addresses come from user space, so one is read only after
 * kallsyms says it starts a symbol and ftrace says that function has a
 * call site (ftrace_set_filter_ip() on a private ops that is never
 * registered: ftrace_location() itself is not exported); every read is a
 * nofault one, and nothing is ever written.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "arch.h"
#include "ftrace_compat.h"
#include "tracerd_kmod.h"

/* Is addr one of this module's direct trampoline stubs? */
static bool tracerd_is_our_tramp(unsigned long addr)
{
#if TRACERD_HAVE_ARCH_TRAMP
	unsigned int i;

	for (i = 0; addr && i < TRACERD_DIRECT_SLOTS; i++)
		if (tracerd_direct_tramps[i] == addr)
			return true;
#endif
	return false;
}

static bool tracerd_starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* e->kind from where the site branches (e->target, e->target_sym set). */
static u32 tracerd_target_kind(const struct tracerd_site_entry *e)
{
	const char *s = e->target_sym;

	if (tracerd_is_our_tramp(e->target))
		return TRACERD_SITEK_TRACERD;
	if (!strcmp(s, "ftrace_caller") || !strcmp(s, "ftrace_regs_caller"))
		return TRACERD_SITEK_CALLER;
	if (tracerd_starts(s, "ftrace_trampoline"))
		return TRACERD_SITEK_OPS_TRAMP;
	if (tracerd_starts(s, "bpf_trampoline_"))
		return TRACERD_SITEK_BPF;
	return TRACERD_SITEK_OTHER;
}

#if defined(CONFIG_ARM64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS)
/*
 * The CALL_OPS literal of the site at `site` (the BL): the kernel keeps it
 * at ALIGN_DOWN(site - 12, 8) (arch/arm64/kernel/ftrace.c). When the entry
 * did not decode (a kprobe's BRK over `mov x9, x30`), from the function:
 * the BL is at +4 (+8 behind BTI) of an 8-byte aligned function, so the
 * literal is the 8 bytes before it either way.
 */
static void tracerd_site_ops(struct tracerd_site_entry *e)
{
	unsigned long lit = e->kind == TRACERD_SITEK_UNKNOWN ?
		ALIGN_DOWN((unsigned long)e->addr - 4, 8) :
		ALIGN_DOWN((unsigned long)e->site - 12, 8);
	struct ftrace_ops *ops;
	unsigned long ptr = 0, func = 0, call = 0;

	if (copy_from_kernel_nofault(&ptr, (void *)lit, sizeof(ptr)) || !ptr)
		return;
	ops = (struct ftrace_ops *)ptr;
	e->ops = ptr;
	snprintf(e->ops_sym, sizeof(e->ops_sym), "%ps", ops);
	if (copy_from_kernel_nofault(&func, &ops->func, sizeof(func)))
		func = 0;
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	if (copy_from_kernel_nofault(&call, &ops->direct_call, sizeof(call)))
		call = 0;
#endif
	e->ops_call = call ? call : func;
	if (e->ops_call)
		snprintf(e->ops_call_sym, sizeof(e->ops_call_sym), "%ps",
			 (void *)e->ops_call);
	if (!strcmp(e->ops_sym, "ftrace_list_ops"))
		e->ops_kind = TRACERD_SITEOPS_LIST;
	else if (!strcmp(e->ops_sym, "ftrace_nop_ops"))
		e->ops_kind = TRACERD_SITEOPS_NOP;
	else if (within_module(func, THIS_MODULE) || tracerd_is_our_tramp(call))
		e->ops_kind = TRACERD_SITEOPS_TRACERD;
	else
		e->ops_kind = TRACERD_SITEOPS_OTHER;
}
#else
static void tracerd_site_ops(struct tracerd_site_entry *e)
{
}
#endif

/*
 * addr must start a kernel symbol (-ENXIO none, -ESRCH inside one) whose
 * function ftrace has a call site in (-EADDRNOTAVAIL). scratch: an ops
 * never registered, whose filter only serves to ask ftrace.
 */
static int tracerd_site_check(unsigned long addr, struct ftrace_ops *scratch,
			      char *sym)
{
	char *plus;
	int ret;

	sprint_symbol(sym, addr);
	if (!strncmp(sym, "0x", 2))
		return -ENXIO;
	plus = strchr(sym, '+');
	if (!plus || strncmp(plus, "+0x0/", 5))
		return -ESRCH;
	ret = ftrace_set_filter_ip(scratch, addr, 0, 1);
	if (ret)
		return ret == -ENOMEM ? ret : -EADDRNOTAVAIL;
	return 0;
}

/* Decode e->addr's site into e (e->addr and e->reserved already checked). */
static int tracerd_site_decode(struct tracerd_site_entry *e,
			       struct ftrace_ops *scratch, char *sym)
{
	unsigned long site = 0, target = 0;
	u32 insn = 0;
	int ret;

	ret = tracerd_site_check(e->addr, scratch, sym);
	if (ret)
		return ret;
	ret = tracerd_arch_site(e->addr, &site, &insn, &target);
	if (ret == -EADDRNOTAVAIL)
		return ret;
	e->site = site;
	e->insn = insn;
	if (ret < 0) {
		e->kind = TRACERD_SITEK_UNKNOWN;
	} else if (ret == 0) {
		e->kind = TRACERD_SITEK_NOP;
	} else {
		e->target = target;
		snprintf(e->target_sym, sizeof(e->target_sym), "%ps",
			 (void *)target);
		e->kind = tracerd_target_kind(e);
	}
	tracerd_site_ops(e);
	return 0;
}

long tracerd_ioc_sites(struct tracerd_file *f, unsigned int cmd, void __user *arg)
{
	struct tracerd_sites req;
	struct tracerd_site_entry *e = NULL;
	struct tracerd_site_entry __user *ue;
	struct ftrace_ops *scratch = NULL;
	char *sym = NULL;
	u32 i, done = 0;
	long ret = 0;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.count == 0 || req.reserved)
		return -EINVAL;
	if (req.count > TRACERD_SITES_MAX)
		return -E2BIG;
	ue = u64_to_user_ptr(req.entries);
	e = tracerd_zalloc(sizeof(*e));
	scratch = tracerd_zalloc(sizeof(*scratch));
	sym = tracerd_zalloc(KSYM_SYMBOL_LEN);
	if (!e || !scratch || !sym) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < req.count; i++) {
		u64 addr, reserved;
		int err;

		if (copy_from_user(e, &ue[i], sizeof(*e))) {
			ret = -EFAULT;
			goto out;
		}
		addr = e->addr;
		reserved = e->reserved;
		memset(e, 0, sizeof(*e));
		e->addr = addr;
		err = (addr == 0 || reserved) ? -EINVAL :
			tracerd_site_decode(e, scratch, sym);
		if (err) {
			memset(e, 0, sizeof(*e));
			e->addr = addr;
			e->error = err;
		} else {
			done++;
		}
		if (copy_to_user(&ue[i], e, sizeof(*e))) {
			ret = -EFAULT;
			goto out;
		}
		cond_resched();
	}
	req.done = done;
	if (copy_to_user(arg, &req, sizeof(req)))
		ret = -EFAULT;
out:
	if (scratch)
		ftrace_free_filter(scratch);
	tracerd_free(sym);
	tracerd_free(scratch);
	tracerd_free(e);
	return ret;
}
