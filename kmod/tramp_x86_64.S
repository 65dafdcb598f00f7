/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 ftrace direct-call trampolines for kmod-direct.
 *
 * ftrace patches the traced function's call site (at +0, or +4 behind
 * ENDBR) into "call tracerd_direct_tramp_N", or, when other ftrace_ops
 * share the function, ftrace_regs_caller jumps here with the same stack.
 * On entry (%rsp) returns into the traced function, whose arguments are
 * live in the argument registers: everything the function may read is
 * saved around the C call (tracerd_direct_enter()). A counted call
 * returns into the function. A timed one (kmod-direct --latency) calls
 * the function from the trampoline, past its call site, and on its
 * return adds the duration (tracerd_direct_exit_hit()) and returns
 * straight to the function's caller: the trampoline's frame holds the
 * entry time for the whole call, so no shadow stack is needed. While
 * such a call runs, the function's return address is in this module:
 * mode_direct.c keeps the module loaded until every timed call has returned.
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
 * stubs find the function by the return address of a call (and a counted
 * call returns into it), so they are always entered by a call:
 * they are 16-byte aligned (bit 0 clear) and tracerd_register_direct()
 * refuses an address that would be jump-entered. Call depth tracking
 * (retbleed=stuff): the call into the trampoline went through no call
 * thunk, so the common body accounts for it before its RET, as the
 * kernel's samples/ftrace do.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <linux/stringify.h>
#include <asm/alternative.h>
#include <asm/cpufeatures.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>
#include "ftrace_compat.h"
#include "arch.h"

	.text

SYM_FUNC_START_LOCAL(tracerd_direct_common)
	pushq	%rbp
	movq	%rsp, %rbp
	CALL_DEPTH_ACCOUNT
	pushq	%rdi			/* -8(%rbp) */
	pushq	%rsi			/* -16 */
	pushq	%rdx			/* -24 */
	pushq	%rcx			/* -32 */
	pushq	%r8			/* -40 */
	pushq	%r9			/* -48 */
	pushq	%rax			/* -56 */
	pushq	%r10			/* -64 */
	subq	$16, %rsp		/* -80: the entry time (timed calls) */
	movl	%r11d, %edi
	movq	8(%rbp), %rsi		/* return address into the function */
	movq	%rsp, %rdx
	call	tracerd_direct_enter
	testq	%rax, %rax
	jnz	.Ltimed
	addq	$16, %rsp
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
.Ltimed:
	/*
	 * Time this call: run the function from here, as a BPF fexit
	 * trampoline does, so that its return comes back to us. The
	 * attachment (%rax) and entry time stay in this frame, which lives
	 * as long as the call. The function finds its register arguments
	 * restored; tracerd_direct_enter() times only functions whose
	 * arguments all travel in registers, so none is on the stack.
	 */
	pushq	%rax			/* -88: the attachment */
	movq	-8(%rbp), %rdi
	movq	-16(%rbp), %rsi
	movq	-24(%rbp), %rdx
	movq	-32(%rbp), %rcx
	movq	-40(%rbp), %r8
	movq	-48(%rbp), %r9
	movq	-56(%rbp), %rax
	movq	-64(%rbp), %r10
	call	tracerd_direct_body
	pushq	%rax			/* its return value, rax:rdx */
	pushq	%rdx
	movq	-88(%rbp), %rdi
	movq	-80(%rbp), %rsi
	call	tracerd_direct_exit_hit
	popq	%rdx
	popq	%rax
	leave
	/* drop the return address into the function: back to its caller */
	addq	$8, %rsp
	UNWIND_HINT_FUNC
	RET
SYM_FUNC_END(tracerd_direct_common)

/*
 * Enter the traced function past its ftrace call site (8(%rbp): the
 * return address of that call, in tracerd_direct_common's frame) with
 * our return address on top, so that it returns to tracerd_direct_common.
 * Not a jmp: IBT would want an ENDBR there. The return-address swap
 * keeps the return stack buffer balanced, as the kernel's
 * return_to_handler does; with call depth tracking the swapped return
 * is a plain ret (its call was not accounted). A function for objtool
 * (a call to code is refused), with no unwind data: an unwinder in its
 * three instructions guesses by the frame pointer.
 */
SYM_FUNC_START_LOCAL(tracerd_direct_body)
	ANNOTATE_INTRA_FUNCTION_CALL
	call	.Ldo_rop
	int3
.Ldo_rop:
	movq	8(%rbp), %r11
	movq	%r11, (%rsp)
#ifdef X86_FEATURE_CALL_DEPTH
	ALTERNATIVE __stringify(RET), \
		    __stringify(ANNOTATE_UNRET_SAFE; ret; int3), \
		    X86_FEATURE_CALL_DEPTH
#else
	RET
#endif
SYM_FUNC_END(tracerd_direct_body)
/* its return goes elsewhere than its caller: no unwind data of its own */
STACK_FRAME_NON_STANDARD tracerd_direct_body

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
