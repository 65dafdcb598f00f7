/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 pieces of tracerd_kmod (kmod/arch.h selects one arch): the
 * direct trampoline slots of tramp_arm64.S and the ftrace call site's
 * decoding. Usable from C and from tramp_arm64.S.
 */
#ifndef TRACERD_ARCH_ARM64_H
#define TRACERD_ARCH_ARM64_H

/*
 * The slot scheme of x86_64 (tramp_arm64.S); kprobes on arm64 always take
 * BRK.
 */
#define TRACERD_DIRECT_SLOTS	1280
#define TRACERD_HAVE_ARCH_TRAMP	1
#define TRACERD_HAVE_ARCH_INT3	0
#define TRACERD_HAVE_ARCH_DIRECT_LAT	1

#ifndef __ASSEMBLY__
#include <linux/ptrace.h>
#include <linux/uaccess.h>

#define TRACERD_A64_NOP		0xd503201fU	/* nop */
#define TRACERD_A64_MOV_X9_LR	0xaa1e03e9U	/* mov x9, x30 */
#define TRACERD_A64_BL_MASK	0xfc000000U
#define TRACERD_A64_BL		0x94000000U	/* bl imm26 */

static inline int tracerd_arch_int3_offset(unsigned long addr,
					   unsigned long *off)
{
	return -EOPNOTSUPP;
}

/*
 * The return address of a function stopped at its entry by a kprobe,
 * before its prologue: still in the link register (and not yet signed by
 * paciasp), in no frame record, so the unwinder cannot see it (stacks.c).
 */
static inline unsigned long tracerd_arch_entry_ret(const struct pt_regs *regs)
{
	return regs->regs[30];
}

#define TRACERD_A64_BR_X16	0xd61f0200U	/* br x16 */

/*
 * A module's ftrace calls go through a PLT in the module (`adrp x16; add
 * x16, x16, #lo12; br x16` to ftrace_caller): follow one, so the target
 * reported is where the branch really ends up.
 */
static inline void tracerd_a64_plt(unsigned long *target)
{
	__le32 code[3];
	u32 adrp, add;
	long page;

	if (copy_from_kernel_nofault(code, (void *)*target, sizeof(code)))
		return;
	adrp = le32_to_cpu(code[0]);
	add = le32_to_cpu(code[1]);
	if ((adrp & 0x9f00001fU) != 0x90000010U ||	/* adrp x16 */
	    (add & 0xffc003ffU) != 0x91000210U ||	/* add x16, x16, #imm12 */
	    le32_to_cpu(code[2]) != TRACERD_A64_BR_X16)
		return;
	/* immhi:immlo, 21 bits of 4 KiB pages, sign-extended */
	page = (long)((s32)((((adrp >> 5) & 0x7ffffU) << 2 | ((adrp >> 29) & 3U)) << 11) >> 11);
	*target = (*target & ~0xfffUL) + (page << 12) + ((add >> 10) & 0xfffU);
}

/*
 * The arm64 site (-fpatchable-function-entry): `mov x9, x30` then a nop or
 * `bl <caller or trampoline>`, possibly behind `bti c`. Same contract as the
 * x86_64 version (arch/x86_64.h).
 */
static inline int tracerd_arch_site(unsigned long addr, unsigned long *site,
				    u32 *insn, unsigned long *target)
{
	__le32 code[3];
	u32 i, op;

	if (copy_from_kernel_nofault(code, (void *)addr, sizeof(code)))
		return -EADDRNOTAVAIL;
	for (i = 0; i + 1 < ARRAY_SIZE(code); i++)
		if (le32_to_cpu(code[i]) == TRACERD_A64_MOV_X9_LR)
			break;
	i++;
	*site = addr + 4 * i;
	op = le32_to_cpu(code[i < ARRAY_SIZE(code) ? i : 0]);
	*insn = op;
	if (i >= ARRAY_SIZE(code))
		return -ENOEXEC;
	if (op == TRACERD_A64_NOP)
		return 0;
	if ((op & TRACERD_A64_BL_MASK) != TRACERD_A64_BL)
		return -ENOEXEC;
	/* imm26, in instructions, sign-extended */
	*target = *site + (long)((s32)((op & 0x03ffffffU) << 6) >> 4);
	tracerd_a64_plt(target);
	return 1;
}
#endif /* __ASSEMBLY__ */
#endif /* TRACERD_ARCH_ARM64_H */
