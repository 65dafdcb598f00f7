/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 ftrace direct-call trampolines for kmod-direct.
 *
 * ftrace patches the traced function's call site (at +0, or +4 behind
 * ENDBR) into "call tracerd_direct_tramp_N", or, when other ftrace_ops
 * share the function, ftrace_regs_caller jumps here with the same stack.
 * On entry (%rsp) returns into the traced function, whose arguments are
 * live in the argument registers: everything the function may read is
 * saved around the C call, and the trampoline returns into it.
 *
 * Each slot N is a tiny stub (ENDBR, slot number in %r11, jump) so that
 * one C function can find the attachment without a lookup; a batch's
 * slot serves many functions and finds the one by the return address,
 * passed as the second argument. %r10 and %r11
 * are free at a call site (ftrace_caller clobbers them too).
 *
 * IBT: every stub starts with an explicit ENDBR: ftrace_regs_caller enters
 * it by a tail call, and its address is taken (tracerd_direct_tramps[]).
 * SYM_FUNC_START_* added ENDBR up to 6.x and no longer does in 7.x, so the
 * stubs open with SYM_START, which never adds one, and ENDBR by hand: one
 * ENDBR on every kernel. The common body is reached by a direct jump only.
 *
 * Jump-entered direct calls (CONFIG_DYNAMIC_FTRACE_WITH_JMP, 7.x): an
 * address with bit 0 set makes the site (or ftrace_regs_caller) *jump* to
 * the trampoline, which then finds the caller's return address at (%rsp)
 * and must call the function itself, as BPF fexit trampolines do. These
 * stubs return into the function, so they are always entered by a call:
 * they are 16-byte aligned (bit 0 clear) and tracerd_register_direct()
 * refuses an address that would be jump-entered. Call depth tracking
 * (retbleed=stuff): the call into the trampoline went through no call
 * thunk, so the common body accounts for it before its RET, as the
 * kernel's samples/ftrace do.
 */
#include <linux/linkage.h>
#include <asm/nospec-branch.h>
#include "ftrace_compat.h"
#include "arch.h"

	.text

SYM_FUNC_START_LOCAL(tracerd_direct_common)
	pushq	%rbp
	movq	%rsp, %rbp
	CALL_DEPTH_ACCOUNT
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%rax
	pushq	%r10
	movl	%r11d, %edi
	movq	8(%rbp), %rsi		/* return address into the function */
	call	tracerd_direct_hit
	popq	%r10
	popq	%rax
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	leave
	RET
SYM_FUNC_END(tracerd_direct_common)

/* Stub for slot \n: its number in %r11, then the common body. */
.macro tracerd_stub n
	.p2align 4, 0x90
SYM_START(tracerd_direct_tramp_\n, SYM_L_LOCAL, SYM_A_NONE)
	ENDBR
	movl	$\n, %r11d
	jmp	tracerd_direct_common
SYM_FUNC_END(tracerd_direct_tramp_\n)
.endm

#include "tramp_slots.h"
