/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-architecture pieces of tracerd_kmod: the direct-call trampolines
 * (tramp_<arch>.S) and where a kprobe lands past the ftrace call site.
 * Usable from C and from the arch .S files.
 */
#ifndef TRACERD_ARCH_H
#define TRACERD_ARCH_H

#ifdef CONFIG_X86_64
/*
 * Direct trampoline slots: one asm stub per slot, each loading its slot
 * number and entering a common body that calls tracerd_direct_enter().
 * A slot is held by one live kmod-direct attachment.
 */
#define TRACERD_DIRECT_SLOTS	1280
#define TRACERD_HAVE_ARCH_TRAMP	1
#define TRACERD_HAVE_ARCH_INT3	1
/* the trampoline times calls (kmod-direct --latency) */
#define TRACERD_HAVE_ARCH_DIRECT_LAT	1
#elif defined(CONFIG_ARM64)
/* Same slot scheme (tramp_arm64.S); kprobes on arm64 always take BRK. */
#define TRACERD_DIRECT_SLOTS	1280
#define TRACERD_HAVE_ARCH_TRAMP	1
#define TRACERD_HAVE_ARCH_INT3	0
#define TRACERD_HAVE_ARCH_DIRECT_LAT	1
#elif defined(CONFIG_RISCV) && defined(CONFIG_64BIT)
/*
 * Same slot scheme (tramp_riscv64.S). kprobe-int3 is the kprobe past the
 * 8-byte ftrace site (an ebreak at +8): without KPROBES_ON_FTRACE (Debian's
 * 6.12 and 7.2) the site itself, the symbol, cannot be probed.
 */
#define TRACERD_DIRECT_SLOTS	1280
#define TRACERD_HAVE_ARCH_TRAMP	1
#define TRACERD_HAVE_ARCH_INT3	1
#define TRACERD_HAVE_ARCH_DIRECT_LAT	1
#else
#define TRACERD_DIRECT_SLOTS	0
#define TRACERD_HAVE_ARCH_TRAMP	0
#define TRACERD_HAVE_ARCH_INT3	0
#endif
#ifndef TRACERD_HAVE_ARCH_DIRECT_LAT
#define TRACERD_HAVE_ARCH_DIRECT_LAT	0
#endif

#ifndef __ASSEMBLY__
#include <linux/types.h>

#if TRACERD_HAVE_ARCH_TRAMP
/* Stub address of each slot, emitted by tramp_<arch>.S. */
extern const unsigned long tracerd_direct_tramps[TRACERD_DIRECT_SLOTS];
#endif

/*
 * Called by every trampoline stub with its slot number and the return
 * address into the traced function (a batch's slot finds its member by
 * it): counts the call and, when it is to be timed, returns the
 * attachment (*t0 its entry time), else NULL. The timed call's return
 * then calls tracerd_direct_exit_hit().
 */
struct tracerd_att;
struct tracerd_att *tracerd_direct_enter(unsigned long slot, unsigned long ip,
					 u64 *t0);
void tracerd_direct_exit_hit(struct tracerd_att *a, u64 t0);

#ifdef CONFIG_X86_64
#include <linux/string.h>
#include <linux/uaccess.h>

/*
 * Offset of the first instruction past the ftrace call site of the
 * function at addr: the site is a 5-byte nop or call at +0, or at +4
 * behind ENDBR (or the 4-byte nop that replaces a sealed ENDBR, the
 * kernel's gen_endbr_poison(): `osp nopl (%rax)` up to 6.x, `nopl
 * -42(%rax)` from 7.x), so the answer is 5 or 9. From 7.x the site may
 * also be a 5-byte jmp (CONFIG_DYNAMIC_FTRACE_WITH_JMP: a BPF fexit
 * trampoline there).
 * -EADDRNOTAVAIL when there is no such site.
 */
static inline int tracerd_arch_int3_offset(unsigned long addr,
					   unsigned long *off)
{
	static const u8 endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const u8 endbr32[4] = { 0xf3, 0x0f, 0x1e, 0xfb };
	static const u8 sealed[4] = { 0x66, 0x0f, 0x1f, 0x00 };
	static const u8 sealed7[4] = { 0x0f, 0x1f, 0x40, 0xd6 };
	static const u8 nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	u8 insn[9];
	unsigned int site = 0;

	if (copy_from_kernel_nofault(insn, (void *)addr, sizeof(insn)))
		return -EADDRNOTAVAIL;
	if (!memcmp(insn, endbr64, 4) || !memcmp(insn, endbr32, 4) ||
	    !memcmp(insn, sealed, 4) || !memcmp(insn, sealed7, 4))
		site = 4;
	if (insn[site] != 0xe8 && insn[site] != 0xe9 &&
	    memcmp(insn + site, nop5, 5))
		return -EADDRNOTAVAIL;
	*off = site + 5;
	return 0;
}

/*
 * Decode the ftrace call site of the function at addr: *site gets the
 * address of the 5-byte call/jmp/nop, *insn its first 4 bytes, and *target
 * where a call or jmp goes. Returns 1 for a call or jmp, 0 for the nop,
 * -ENOEXEC for anything else, -EADDRNOTAVAIL when the text cannot be read.
 */
static inline int tracerd_arch_site(unsigned long addr, unsigned long *site,
				    u32 *insn, unsigned long *target)
{
	static const u8 nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	unsigned long off;
	u8 code[5];
	s32 rel;

	if (tracerd_arch_int3_offset(addr, &off)) {
		/* not a call/nop5: report what is there */
		off = 5;
	}
	*site = addr + off - 5;
	if (copy_from_kernel_nofault(code, (void *)*site, sizeof(code)))
		return -EADDRNOTAVAIL;
	memcpy(insn, code, sizeof(*insn));
	if (!memcmp(code, nop5, 5))
		return 0;
	if (code[0] != 0xe8 && code[0] != 0xe9)
		return -ENOEXEC;
	memcpy(&rel, code + 1, sizeof(rel));
	*target = *site + 5 + (long)rel;
	return 1;
}
#elif defined(CONFIG_ARM64)
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
 * x86_64 version.
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
#elif defined(CONFIG_RISCV) && defined(CONFIG_64BIT)
#include <linux/string.h>
#include <linux/uaccess.h>

#define TRACERD_RV_NOP4		0x00000013U	/* addi x0, x0, 0 */
#define TRACERD_RV_CNOP2	0x00010001U	/* two c.nop, as the compiler leaves them */
#define TRACERD_RV_AUIPC	0x17U
#define TRACERD_RV_JALR		0x67U

/*
 * The riscv64 site (-fpatchable-function-entry, 8 bytes at the symbol):
 * "auipc t0, hi; jalr t0, lo(t0)" when enabled (rd t0, or ra), nops when
 * not; from 6.16 the auipc stays and only the jalr becomes a nop. *insn
 * gets the second word (the jalr or its nop), *target where the pair
 * branches. Same contract as the x86_64 version.
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
#else
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
#endif

#endif /* __ASSEMBLY__ */
#endif /* TRACERD_ARCH_H */
