/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Any other architecture (kmod/arch.h selects one arch): no direct
 * trampoline, no kprobe past the call site, no call site decoding; the
 * module offers what needs no arch code (kmod-callops, kmod-kprobe).
 */
#ifndef TRACERD_ARCH_NONE_H
#define TRACERD_ARCH_NONE_H

#define TRACERD_DIRECT_SLOTS	0
#define TRACERD_HAVE_ARCH_TRAMP	0
#define TRACERD_HAVE_ARCH_INT3	0
#define TRACERD_HAVE_ARCH_DIRECT_LAT	0

#ifndef __ASSEMBLY__
#include <linux/ptrace.h>
#include <linux/types.h>

/* Where a function's return address is at its entry is not known here. */
static inline unsigned long tracerd_arch_entry_ret(const struct pt_regs *regs)
{
	return 0;
}

static inline int tracerd_arch_int3_offset(unsigned long addr,
					   unsigned long *off)
{
	return -EOPNOTSUPP;
}

static inline int tracerd_arch_site(unsigned long addr, unsigned long *site,
				    u32 *insn, unsigned long *target)
{
	*site = addr;
	*insn = 0;
	return -ENOEXEC;
}
#endif /* __ASSEMBLY__ */
#endif /* TRACERD_ARCH_NONE_H */
