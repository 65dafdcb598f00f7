/* SPDX-License-Identifier: GPL-2.0 */
/*
 * riscv64 ftrace direct-call trampolines for kmod-direct.
 *
 * A traced function starts with "auipc t0, hi; jalr t0, lo(t0)" (the
 * patchable entry): on entry here t0 holds the address back into the
 * function body and ra the caller's return address, untouched. Either the
 * call site reaches the trampoline itself (6.12: the whole auipc/jalr pair
 * is patched, +-2 GiB), or it calls ftrace_caller, which finds the direct
 * trampoline in the ops (7.x, CALL_OPS) or in its saved registers and
 * enters it with "jr t1", with the same t0 and ra. Either way t1 is free
 * scratch and carries the slot number here; the trampoline returns with
 * "jr t0".
 *
 * The function's arguments are live in a0-a7: they are saved around the
 * C call with t0 and ra, in a frame record (s0) the unwinder can follow.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include "arch.h"

#define TRACERD_FRAME	(12 * SZREG)

	.text

/*
 * The registers saved around the C call, by \op (REG_S or REG_L): the
 * arguments, ra, and a frame record {s0, t0} just below the new fp (t0 is
 * where this frame returns to).
 */
.macro tracerd_regs op
	\op	a0, 0 * SZREG(sp)
	\op	a1, 1 * SZREG(sp)
	\op	a2, 2 * SZREG(sp)
	\op	a3, 3 * SZREG(sp)
	\op	a4, 4 * SZREG(sp)
	\op	a5, 5 * SZREG(sp)
	\op	a6, 6 * SZREG(sp)
	\op	a7, 7 * SZREG(sp)
	\op	ra, 8 * SZREG(sp)
	\op	s0, 10 * SZREG(sp)
	\op	t0, 11 * SZREG(sp)
.endm

SYM_CODE_START_LOCAL(tracerd_direct_common)
	addi	sp, sp, -TRACERD_FRAME
	tracerd_regs REG_S
	addi	s0, sp, TRACERD_FRAME
	mv	a0, t1
	mv	a1, t0			/* return address into the function */
	call	tracerd_direct_hit
	tracerd_regs REG_L
	addi	sp, sp, TRACERD_FRAME
	/* back into the function body, the caller's ra as it was */
	jr	t0
SYM_CODE_END(tracerd_direct_common)

/* Stub for slot \n: its number in t1, then the common body. */
.macro tracerd_stub n
	.p2align 2
SYM_CODE_START_LOCAL(tracerd_direct_tramp_\n)
	li	t1, \n
	j	tracerd_direct_common
SYM_CODE_END(tracerd_direct_tramp_\n)
.endm

#include "tramp_slots.h"
