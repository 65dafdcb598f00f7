/* SPDX-License-Identifier: GPL-2.0 */
/*
 * riscv64 pieces of tracerd_kmod (kmod/arch.h selects one arch): the
 * direct trampoline slots of tramp_riscv64.S and the ftrace call site's
 * decoding. Usable from C and from tramp_riscv64.S.
 */
#ifndef TRACERD_ARCH_RISCV64_H
#define TRACERD_ARCH_RISCV64_H

/*
 * The slot scheme of x86_64 (tramp_riscv64.S). kprobe-int3 is the kprobe
 * past the 8-byte ftrace site (an ebreak at +8): without KPROBES_ON_FTRACE
 * (Debian's 6.12 and 7.2) the site itself, the symbol, cannot be probed.
 */
#define TRACERD_DIRECT_SLOTS	1280
#define TRACERD_HAVE_ARCH_TRAMP	1
#define TRACERD_HAVE_ARCH_INT3	1
#define TRACERD_HAVE_ARCH_DIRECT_LAT	1

#ifndef __ASSEMBLY__
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/*
 * The return address of a function stopped before its prologue (the
 * kprobe past its ftrace site): still in ra, in no frame, so the unwinder
 * cannot see it (stacks.c).
 */
static inline unsigned long tracerd_arch_entry_ret(const struct pt_regs *regs)
{
	return regs->ra;
}

#define TRACERD_RV_NOP4		0x00000013U	/* addi x0, x0, 0 */
#define TRACERD_RV_CNOP2	0x00010001U	/* two c.nop, as the compiler leaves them */
#define TRACERD_RV_AUIPC	0x17U
#define TRACERD_RV_JALR		0x67U

/*
 * The riscv64 site (-fpatchable-function-entry, 8 bytes at the symbol):
 * "auipc t0, hi; jalr t0, lo(t0)" when enabled (rd t0, or ra), nops when
 * not; from 6.16 the auipc stays and only the jalr becomes a nop. *insn
 * gets the second word (the jalr or its nop), *target where the pair
 * branches. Same contract as the x86_64 version (arch/x86_64.h).
 */
static inline int tracerd_arch_site(unsigned long addr, unsigned long *site,
				    u32 *insn, unsigned long *target)
{
	u32 w[2], rd;

	*site = addr;
	if (copy_from_kernel_nofault(w, (void *)addr, sizeof(w)))
		return -EADDRNOTAVAIL;
	w[0] = le32_to_cpu((__force __le32)w[0]);
	w[1] = le32_to_cpu((__force __le32)w[1]);
	*insn = w[1];
	if (w[1] == TRACERD_RV_NOP4 ||
	    (w[0] == TRACERD_RV_CNOP2 && w[1] == TRACERD_RV_CNOP2))
		return 0;
	rd = (w[0] >> 7) & 0x1f;
	/* auipc rd; jalr rd, imm(rd), rd one of t0 (x5) and ra (x1) */
	if ((w[0] & 0x7f) != TRACERD_RV_AUIPC || (rd != 5 && rd != 1) ||
	    (w[1] & 0xfffff) != (TRACERD_RV_JALR | rd << 7 | rd << 15))
		return -ENOEXEC;
	*target = addr + (long)(s32)(w[0] & 0xfffff000U) + (long)((s32)w[1] >> 20);
	return 1;
}

#define TRACERD_RV_EBREAK	0x00100073U

/*
 * Offset of the first instruction past the ftrace site: the site is the
 * 8 bytes at the symbol (nops or the auipc/jalr pair, tracerd_arch_site),
 * so 8. A kernel without KPROBES_ON_FTRACE (Debian's riscv64 6.12 and
 * 7.2) refuses a kprobe on the site itself, so for a traceable function
 * this is the only place a kprobe can go. 7.2 takes a kprobe at the
 * symbol too, an ebreak over the auipc (seen in 23-kmod-lifetime, with
 * the jalr enabled after it: a kprobe, a call-ops and a direct attachment
 * on one function): an ebreak with the jalr or its nop after it is a site
 * too. -EADDRNOTAVAIL when the function does not begin with a site.
 */
static inline int tracerd_arch_int3_offset(unsigned long addr,
					   unsigned long *off)
{
	unsigned long site, target;
	u32 insn, w0;
	int ret = tracerd_arch_site(addr, &site, &insn, &target);

	if (ret == -ENOEXEC &&
	    !copy_from_kernel_nofault(&w0, (void *)addr, sizeof(w0)) &&
	    le32_to_cpu((__force __le32)w0) == TRACERD_RV_EBREAK &&
	    (insn == TRACERD_RV_NOP4 ||
	     (insn & 0x7fff) == (TRACERD_RV_JALR | 5 << 7) ||
	     (insn & 0x7fff) == (TRACERD_RV_JALR | 1 << 7)))
		ret = 0;
	if (ret < 0)
		return -EADDRNOTAVAIL;
	*off = 8;
	return 0;
}
#endif /* __ASSEMBLY__ */
#endif /* TRACERD_ARCH_RISCV64_H */
