/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 ftrace direct-call trampolines for kmod-direct.
 *
 * With DYNAMIC_FTRACE_WITH_CALL_OPS the traced function starts with
 * "mov x9, x30; bl <target>": on entry here x9 holds the caller's return
 * address and x30 points back into the function body. When the module is
 * within branch range the call site branches here directly; otherwise (the
 * usual case with KASLR) it calls ftrace_caller, which finds the direct
 * trampoline through the callsite's ops and enters it with "br x17", with
 * the same x9/x30 — so every stub starts with a BTI landing pad.
 *
 * The function's arguments are live in x0-x7 (x8: indirect result):
 * they are saved around the C call (tracerd_direct_enter()). x16/x17
 * (IP0/IP1) are free scratch at a call site and carry the slot number;
 * x10 returns into the body. The frame record holds x9, the caller's
 * return address, so that an unwinder goes from here to the caller.
 *
 * A timed call (kmod-direct --latency) is run by the trampoline, as on
 * x86_64: the argument registers restored, x30 set to return here, and
 * "ret x16" into the body past the call site (a RET is never checked by
 * BTI; PAC signs whatever x30 the body finds, with this SP, and checks
 * it back). The function returns here, tracerd_direct_exit_hit() adds
 * the duration kept in this frame, and "ret x9" goes to the caller.
 * AAPCS64 returns in x0-x1 (larger results through x8's memory).
 *
 * Frame (112 bytes): x29, x9 | x0 x1 | x2 x3 | x4 x5 | x6 x7 | x8, the
 * return into the function | the entry time, the attachment.
 */
#include <linux/linkage.h>
#include <asm/assembler.h>
#include "arch.h"

	.text

SYM_CODE_START_LOCAL(tracerd_direct_common)
	stp	x29, x9, [sp, #-112]!
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
	stp	x8, x30, [sp, #80]
	mov	x0, x16
	mov	x1, x30			/* return address into the function */
	add	x2, sp, #96		/* the entry time, for a timed call */
	bl	tracerd_direct_enter
	cbnz	x0, .Ltimed
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldp	x8, x10, [sp, #80]
	ldp	x29, x9, [sp], #112
	/* back into the function body, with the caller's LR restored */
	mov	x30, x9
	ret	x10
.Ltimed:
	str	x0, [sp, #104]
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldp	x8, x16, [sp, #80]
	adr	x30, .Lreturned
	ret	x16
.Lreturned:
	stp	x0, x1, [sp, #16]	/* its return value */
	ldp	x1, x0, [sp, #96]	/* entry time, attachment */
	bl	tracerd_direct_exit_hit
	ldp	x0, x1, [sp, #16]
	ldp	x29, x9, [sp], #112
	mov	x30, x9
	ret	x9
SYM_CODE_END(tracerd_direct_common)

/* Stub for slot \n: its number in x16, then the common body. */
.macro tracerd_stub n
	.p2align 3
SYM_CODE_START_LOCAL(tracerd_direct_tramp_\n)
	bti	c
	mov	x16, #\n
	b	tracerd_direct_common
SYM_CODE_END(tracerd_direct_tramp_\n)
.endm

#include "tramp_slots.h"
