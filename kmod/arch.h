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
 * number and entering a common body that calls tracerd_direct_hit(slot).
 * A slot is held by one live kmod-direct attachment.
 */
#define TRACERD_DIRECT_SLOTS	1280
#define TRACERD_HAVE_ARCH_TRAMP	1
#define TRACERD_HAVE_ARCH_INT3	1
#elif defined(CONFIG_ARM64)
/* Same slot scheme (tramp_arm64.S); kprobes on arm64 always take BRK. */
#define TRACERD_DIRECT_SLOTS	1280
#define TRACERD_HAVE_ARCH_TRAMP	1
#define TRACERD_HAVE_ARCH_INT3	0
#else
#define TRACERD_DIRECT_SLOTS	0
#define TRACERD_HAVE_ARCH_TRAMP	0
#define TRACERD_HAVE_ARCH_INT3	0
#endif

#ifndef __ASSEMBLY__
#include <linux/types.h>

#if TRACERD_HAVE_ARCH_TRAMP
/* Stub address of each slot, emitted by tramp_<arch>.S. */
extern const unsigned long tracerd_direct_tramps[TRACERD_DIRECT_SLOTS];
#endif

/* Called by every trampoline stub with its slot number. */
void tracerd_direct_hit(unsigned long slot);

#ifdef CONFIG_X86_64
#include <linux/string.h>
#include <linux/uaccess.h>

/*
 * Offset of the first instruction past the ftrace call site of the
 * function at addr: the site is a 5-byte nop or call at +0, or at +4
 * behind ENDBR (or the 4-byte nop that replaces a sealed ENDBR), so the
 * answer is 5 or 9. -EADDRNOTAVAIL when there is no such site.
 */
static inline int tracerd_arch_int3_offset(unsigned long addr,
					   unsigned long *off)
{
	static const u8 endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const u8 endbr32[4] = { 0xf3, 0x0f, 0x1e, 0xfb };
	static const u8 sealed[4] = { 0x66, 0x0f, 0x1f, 0x00 };
	static const u8 nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	u8 insn[9];
	unsigned int site = 0;

	if (copy_from_kernel_nofault(insn, (void *)addr, sizeof(insn)))
		return -EADDRNOTAVAIL;
	if (!memcmp(insn, endbr64, 4) || !memcmp(insn, endbr32, 4) ||
	    !memcmp(insn, sealed, 4))
		site = 4;
	if (insn[site] != 0xe8 && memcmp(insn + site, nop5, 5))
		return -EADDRNOTAVAIL;
	*off = site + 5;
	return 0;
}
#else
static inline int tracerd_arch_int3_offset(unsigned long addr,
					   unsigned long *off)
{
	return -EOPNOTSUPP;
}
#endif

#endif /* __ASSEMBLY__ */
#endif /* TRACERD_ARCH_H */
