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
 * one C function can find the attachment without a lookup. %r10 and %r11
 * are free at a call site (ftrace_caller clobbers them too).
 *
 * IBT: every stub starts with ENDBR (SYM_FUNC_START_* adds it), since
 * ftrace_regs_caller reaches it by an indirect jump. Call depth tracking
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
SYM_FUNC_START_LOCAL_NOALIGN(tracerd_direct_tramp_\n)
	movl	$\n, %r11d
	jmp	tracerd_direct_common
SYM_FUNC_END(tracerd_direct_tramp_\n)
.endm

#include "tramp_slots.h"
