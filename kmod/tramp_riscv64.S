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
 * C call (tracerd_direct_enter()) with ra, in a frame whose record
 * {s0, t0} (just below the new fp) an unwinder can follow.
 *
 * A timed call (kmod-direct --latency) is run by the trampoline, as on
 * x86_64 and arm64: the argument registers restored, ra set to return
 * here and "jr t0" into the body past the call site. The function
 * returns here (a0-a1: its result; a larger one went through the memory
 * a0 pointed to), tracerd_direct_exit_hit() adds the duration kept in
 * this frame, and "ret" goes to the caller with its ra. Meanwhile the
 * frame record holds the caller's ra, so an unwinder goes from the
 * function through here to the caller.
 *
 * Frame (14 words): a0-a7 | ra | - | the entry time | the attachment |
 * s0, the record's return address.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include "arch.h"

#define TRACERD_FRAME	(14 * SZREG)
#define TRACERD_RA	(8 * SZREG)
#define TRACERD_T0	(10 * SZREG)	/* the entry time of a timed call */
#define TRACERD_ATT	(11 * SZREG)	/* its attachment */
#define TRACERD_FP	(12 * SZREG)
#define TRACERD_REC	(13 * SZREG)

	.text

/* The argument registers, saved or restored by \op (REG_S or REG_L). */
.macro tracerd_args op
	\op	a0, 0 * SZREG(sp)
	\op	a1, 1 * SZREG(sp)
	\op	a2, 2 * SZREG(sp)
	\op	a3, 3 * SZREG(sp)
	\op	a4, 4 * SZREG(sp)
	\op	a5, 5 * SZREG(sp)
	\op	a6, 6 * SZREG(sp)
	\op	a7, 7 * SZREG(sp)
.endm

SYM_CODE_START_LOCAL(tracerd_direct_common)
	addi	sp, sp, -TRACERD_FRAME
	tracerd_args REG_S
	REG_S	ra, TRACERD_RA(sp)
	REG_S	s0, TRACERD_FP(sp)
	REG_S	t0, TRACERD_REC(sp)
	addi	s0, sp, TRACERD_FRAME
	mv	a0, t1
	mv	a1, t0			/* return address into the function */
	addi	a2, sp, TRACERD_T0	/* the entry time, for a timed call */
	call	tracerd_direct_enter
	bnez	a0, .Ltimed
	tracerd_args REG_L
	REG_L	ra, TRACERD_RA(sp)
	REG_L	s0, TRACERD_FP(sp)
	REG_L	t0, TRACERD_REC(sp)
	addi	sp, sp, TRACERD_FRAME
	/* back into the function body, the caller's ra as it was */
	jr	t0
.Ltimed:
	REG_S	a0, TRACERD_ATT(sp)
	REG_L	t0, TRACERD_REC(sp)
	REG_L	t1, TRACERD_RA(sp)
	REG_S	t1, TRACERD_REC(sp)	/* the record: caller's fp, caller's ra */
	tracerd_args REG_L
	lla	ra, .Lreturned
	jr	t0
.Lreturned:
	REG_S	a0, 0 * SZREG(sp)	/* its return value */
	REG_S	a1, 1 * SZREG(sp)
	REG_L	a0, TRACERD_ATT(sp)
	REG_L	a1, TRACERD_T0(sp)
	call	tracerd_direct_exit_hit
	REG_L	a0, 0 * SZREG(sp)
	REG_L	a1, 1 * SZREG(sp)
	REG_L	ra, TRACERD_RA(sp)
	REG_L	s0, TRACERD_FP(sp)
	addi	sp, sp, TRACERD_FRAME
	ret
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
