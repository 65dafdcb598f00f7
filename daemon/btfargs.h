/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How a kernel function takes its arguments, by its BTF. kmod-direct
 * --latency hands it to the module (argw, ABI 1.7), whose timing
 * trampolines (x86_64, arm64, riscv64) call the function with the
 * register arguments only.
 */
#ifndef TRACERD_BTFARGS_H
#define TRACERD_BTFARGS_H

#include <linux/types.h>

struct btf;

/* The calling conventions the module's timing trampolines know. */
enum argw_abi {
	ARGW_ABI_X86_64,	/* System V: six integer registers */
	ARGW_ABI_ARM64,		/* AAPCS64: eight */
	ARGW_ABI_RISCV64,	/* LP64: eight, a0-a7 */
};

/*
 * 1 + the 8-byte stack words FUNC id of btf needs for its arguments under
 * abi, 0 when unknown (not a FUNC, variadic, a size BTF cannot give).
 */
__u32 btf_func_argw_abi(const struct btf *btf, __s32 id, enum argw_abi abi);
/* The same for the architecture tracerd runs on (the kernel's). */
__u32 btf_func_argw(const struct btf *btf, __s32 id);

#endif
