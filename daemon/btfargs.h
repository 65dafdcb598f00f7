/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How a kernel function takes its arguments, by its BTF. kmod-direct
 * --latency hands it to the module (argw, ABI 1.7), whose timing
 * trampolines (x86_64, arm64, riscv64) call the function with the
 * register arguments only.
 */
#ifndef TRACERD_BTFARGS_H
#define TRACERD_BTFARGS_H

#include <stdbool.h>
#include <stddef.h>
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

/* The kernel's MAX_BPF_FUNC_ARGS: the most arguments a trampoline takes. */
#define TRAMP_MAX_ARGS 12

/*
 * Why the verifier refuses FUNC id of btf to a tracing program (fentry,
 * fexit, their multi links), by the rules of its btf_distill_func_proto
 * and deny lists: variadic, more than TRAMP_MAX_ARGS arguments, an
 * argument that is a float or a struct or union above 16 bytes, a struct
 * or union returned; ret_too (fexit, the session forms): a function that never
 * returns. NULL when none of them holds, *doubt set when the kernel may
 * still refuse it (a union argument: taken by kernels since 2025; a struct by value
 * or stack arguments outside x86_64); else the reason, in buf or a
 * constant.
 */
const char *btf_tramp_refusal(const struct btf *btf, __s32 id, bool ret_too, bool *doubt,
			      char *buf, size_t len);

#endif
