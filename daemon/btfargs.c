// SPDX-License-Identifier: GPL-2.0-or-later
/* How a kernel function takes its arguments, by its BTF; see btfargs.h. */
#include <stdbool.h>
#include <bpf/btf.h>
#include "btfargs.h"

/*
 * How FUNC id of btf takes its arguments under abi: 1 + the 8-byte stack
 * words they need once the integer argument registers are used up, 0
 * when unknown (no BTF, variadic). The kernel has no float arguments.
 *   x86_64 (System V): six registers; a struct or union above 16 bytes
 *   travels in memory (and, returned, takes a register for the hidden
 *   pointer); a smaller one takes one or two registers or, when they do
 *   not fit, stack words.
 *   arm64 (AAPCS64): eight registers; a composite above 16 bytes is passed
 *   by reference (a pointer: one register) and returned through x8; a
 *   16-byte-aligned two-register argument starts at an even register;
 *   what does not fit goes on the stack, whole.
 *   riscv64 (LP64 psABI, integer): eight registers, a0-a7; an aggregate
 *   above 16 bytes is passed by reference and, returned, takes a0 for the
 *   hidden pointer; a two-word argument with one register left is split,
 *   its second word on the stack.
 */
__u32 btf_func_argw_abi(const struct btf *btf, __s32 id, enum argw_abi abi)
{
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const __u32 nregs = abi == ARGW_ABI_X86_64 ? 6 : 8;
	const struct btf_param *p;
	__u32 regs = 0, stack = 0, words, i, n;
	__s64 size, align;
	bool big;
	int rid;

	t = t && btf_is_func(t) ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t))
		return 0;
	if (t->type) {
		rid = btf__resolve_type(btf, t->type);
		size = btf__resolve_size(btf, t->type);
		if (rid < 0 || size < 0)
			return 0;
		if (abi != ARGW_ABI_ARM64 && btf_is_composite(btf__type_by_id(btf, rid)) &&
		    size > 16)
			regs = 1;
	}
	n = btf_vlen(t);
	p = btf_params(t);
	for (i = 0; i < n; i++) {
		if (!p[i].type)
			return 0;	/* ... */
		rid = btf__resolve_type(btf, p[i].type);
		size = btf__resolve_size(btf, p[i].type);
		if (rid < 0 || size <= 0)
			return 0;
		words = (__u32)((size + 7) / 8);
		big = btf_is_composite(btf__type_by_id(btf, rid)) && size > 16;
		if (abi == ARGW_ABI_ARM64) {
			if (big)
				words = 1;	/* a pointer to a copy */
			align = btf__align_of(btf, rid);
			if (words == 2 && align == 16)
				regs += regs & 1;
			if (regs + words <= nregs) {
				regs += words;
			} else {
				regs = nregs;
				stack += words;
			}
			continue;
		}
		if (abi == ARGW_ABI_RISCV64) {
			if (big)
				words = 1;	/* a pointer to a copy */
			if (regs + words <= nregs) {
				regs += words;
			} else {
				stack += words - (nregs - regs);	/* split */
				regs = nregs;
			}
			continue;
		}
		if (big)
			stack += words;
		else if (regs + words <= nregs)
			regs += words;
		else
			stack += words;
	}
	return 1 + stack;
}

__u32 btf_func_argw(const struct btf *btf, __s32 id)
{
#if defined(__aarch64__)
	return btf_func_argw_abi(btf, id, ARGW_ABI_ARM64);
#elif defined(__riscv) && __riscv_xlen == 64
	return btf_func_argw_abi(btf, id, ARGW_ABI_RISCV64);
#else
	return btf_func_argw_abi(btf, id, ARGW_ABI_X86_64);
#endif
}
