/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-architecture pieces of tracerd_kmod: the direct-call trampolines
 * (tramp_<arch>.S) and where a kprobe lands past the ftrace call site.
 * Usable from C and from the arch .S files.
 */
#ifndef TRACERD_ARCH_H
#define TRACERD_ARCH_H

#if defined(CONFIG_X86_64)
#include "arch/x86_64.h"
#elif defined(CONFIG_ARM64)
#include "arch/arm64.h"
#elif defined(CONFIG_RISCV) && defined(CONFIG_64BIT)
#include "arch/riscv64.h"
#else
#include "arch/none.h"
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

#endif /* __ASSEMBLY__ */
#endif /* TRACERD_ARCH_H */
