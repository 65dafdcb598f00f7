/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included at the end of tramp_<arch>.S, after the arch has defined
 * ".macro tracerd_stub n" (the stub of slot n: load n, enter the common
 * body). Emits TRACERD_DIRECT_SLOTS stubs and tracerd_direct_tramps[], the
 * table of their addresses that kmod-direct hands to ftrace.
 */
#ifndef TRACERD_TRAMP_SLOTS_H
#define TRACERD_TRAMP_SLOTS_H

.macro tracerd_tramp n
	tracerd_stub \n
	.pushsection .rodata, "a"
	.quad	tracerd_direct_tramp_\n
	.popsection
.endm

	.pushsection .rodata, "a"
	.balign 8
	.globl	tracerd_direct_tramps
	.type	tracerd_direct_tramps, @object
tracerd_direct_tramps:
	.popsection

	.altmacro
	.set	tracerd_slot, 0
	.rept	TRACERD_DIRECT_SLOTS
	tracerd_tramp %tracerd_slot
	.set	tracerd_slot, tracerd_slot + 1
	.endr
	.noaltmacro

	.pushsection .rodata, "a"
	.size	tracerd_direct_tramps, . - tracerd_direct_tramps
	.popsection

#endif /* TRACERD_TRAMP_SLOTS_H */
