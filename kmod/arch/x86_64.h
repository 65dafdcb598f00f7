/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 pieces of tracerd_kmod (kmod/arch.h selects one arch): the
 * direct trampoline slots of tramp_x86_64.S and the ftrace call site's
 * decoding. Usable from C and from tramp_x86_64.S.
 */
#ifndef TRACERD_ARCH_X86_64_H
#define TRACERD_ARCH_X86_64_H

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

#ifndef __ASSEMBLY__
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/*
 * A function stopped before its prologue has its return address on the
 * stack, where the unwinder finds it: none to add (stacks.c).
 */
static inline unsigned long tracerd_arch_entry_ret(const struct pt_regs *regs)
{
	return 0;
}

#include <asm/processor-flags.h>
#include <asm/unwind.h>

/*
 * The stack of a call a kprobe stopped, unwound from the kprobe's
 * registers as perf does for a BPF kprobe program (perf_callchain_kernel):
 * the probed instruction, then the return addresses, without walking the
 * hook's own frames (the handler, kprobe_ftrace_handler or the int3
 * entry: an ORC lookup each, which made kmod-kprobe's capture 2.4x BPF
 * kprobe's, docs/bench.md "Stacks"). 0 unless regs are a whole register
 * set (X86_EFLAGS_FIXED, as perf_hw_regs() checks): the caller then
 * unwinds from its own frame (stacks.c).
 */
#define TRACERD_HAVE_ARCH_STACK_REGS	1
static __always_inline unsigned int tracerd_arch_stack_regs(struct pt_regs *regs,
							    unsigned long *ips, unsigned int max)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	if (!max || !(regs->flags & X86_EFLAGS_FIXED))
		return 0;
	ips[n++] = regs->ip;
	for (unwind_start(&state, current, regs, NULL); !unwind_done(&state) && n < max;
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		ips[n++] = addr;
	}
	return n;
}

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
#endif /* __ASSEMBLY__ */
#endif /* TRACERD_ARCH_X86_64_H */
