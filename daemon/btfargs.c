// SPDX-License-Identifier: GPL-2.0-or-later
/* How a kernel function takes its arguments, by its BTF; see btfargs.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "../lib/util.h"
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

/*
 * Does the architecture's trampoline take what is certain on x86_64 (a
 * struct by value, arguments on the stack)? Elsewhere such a function is
 * doubtful (btf_tramp_refusal): arm64 and riscv64 took them later.
 */
#if defined(__x86_64__)
#define TRAMP_STRUCT_ARGS 1
#else
#define TRAMP_STRUCT_ARGS 0
#endif

/*
 * The kernel's __get_type_size (kernel/bpf/btf.c): a type's size as a
 * trampoline argument or return value once modifiers and typedefs are
 * skipped: pointers 8, integers, enums, structs and unions their size
 * (the kernel's takes a union since its union arguments, 2025); void 0;
 * anything else -1. *out: the type it ends at.
 */
static long tramp_type_size(const struct btf *btf, __u32 id, const struct btf_type **out)
{
	const struct btf_type *t;
	int depth;

	*out = NULL;
	if (!id)
		return 0;
	t = btf__type_by_id(btf, id);
	for (depth = 0; t && depth < 32 && (btf_is_mod(t) || btf_is_typedef(t)); depth++)
		t = btf__type_by_id(btf, t->type);
	*out = t;
	if (!t || depth == 32)
		return -1;
	if (btf_is_ptr(t))
		return 8;
	if (btf_is_int(t) || btf_is_any_enum(t) || btf_is_composite(t))
		return t->size;
	return -1;
}

static const char *kind_name(const struct btf_type *t)
{
	if (!t)
		return "unknown";
	switch (btf_kind(t)) {
	case BTF_KIND_UNION: return "a union";
	case BTF_KIND_STRUCT: return "a struct";
	case BTF_KIND_FLOAT: return "a float";
	case BTF_KIND_ARRAY: return "an array";
	case BTF_KIND_FUNC_PROTO: return "a function";
	default: return "of an unsupported kind";
	}
}

/* Functions the verifier refuses to any tracing program (btf_id_deny). */
static const char *const tramp_deny[] = {
	"migrate_disable", "migrate_enable", "rcu_read_unlock_strict",
	"preempt_count_add", "preempt_count_sub", "__rcu_read_lock", "__rcu_read_unlock",
};

/* And to fexit (and the session forms): the noreturn ones (noreturn_deny). */
static const char *const tramp_noreturn[] = {
	"__x64_sys_exit", "__x64_sys_exit_group", "__ia32_sys_exit", "__ia32_sys_exit_group",
	"__arm64_sys_exit", "__arm64_sys_exit_group", "__riscv_sys_exit",
	"__riscv_sys_exit_group", "do_exit", "do_group_exit", "kthread_complete_and_exit",
	"kthread_exit", "make_task_dead",
};

static bool name_in(const char *name, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, v[i]))
			return true;
	return false;
}

const char *btf_tramp_refusal(const struct btf *btf, __s32 id, bool ret_too, bool *doubt,
			      char *buf, size_t len)
{
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL, *at;
	const struct btf_param *p;
	const char *name;
	__u32 i, n;
	long size;

	*doubt = false;
	if (!t || !btf_is_func(t))
		return "no BTF function";
	name = btf__name_by_offset(btf, t->name_off);
	if (name && name_in(name, tramp_deny, ARRAY_SIZE(tramp_deny)))
		return "refused to tracing programs by the verifier (btf_id_deny)";
	if (ret_too && name && name_in(name, tramp_noreturn, ARRAY_SIZE(tramp_noreturn)))
		return "never returns: the verifier refuses fexit on it (noreturn_deny)";
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return "no BTF prototype";
	n = btf_vlen(t);
	if (n > TRAMP_MAX_ARGS) {
		snprintf(buf, len, "takes %u arguments: a trampoline takes at most %d", n,
			 TRAMP_MAX_ARGS);
		return buf;
	}
	size = tramp_type_size(btf, t->type, &at);
	if (size < 0 || (at && btf_is_composite(at))) {
		snprintf(buf, len, "returns %s: a trampoline cannot take it",
			 size < 0 || btf_is_union(at) ? kind_name(at) : "a struct by value");
		return buf;
	}
	p = btf_params(t);
	for (i = 0; i < n; i++) {
		if (!p[i].type) {
			if (i == n - 1)
				return "takes variable arguments ('...'): a trampoline cannot";
			snprintf(buf, len, "argument %u is void", i + 1);
			return buf;
		}
		size = tramp_type_size(btf, p[i].type, &at);
		if (size < 0) {
			snprintf(buf, len, "argument %u is %s: a trampoline cannot take it", i + 1,
				 kind_name(at));
			return buf;
		}
		if (size > 16) {
			snprintf(buf, len, "argument %u is a %s of %ld bytes by value: a "
				 "trampoline takes 16 at most", i + 1,
				 btf_is_union(at) ? "union" : "struct", size);
			return buf;
		}
		/* a union up to 16 bytes: refused by kernels before their union
		 * arguments (2025), taken since */
		if (at && (btf_is_union(at) || btf_is_struct(at)))
			*doubt |= btf_is_union(at) || !TRAMP_STRUCT_ARGS;
		if (!size) {
			snprintf(buf, len, "argument %u is void", i + 1);
			return buf;
		}
	}
	/* arguments on the stack: x86_64's trampolines take them since 6.6 */
	*doubt |= !TRAMP_STRUCT_ARGS && btf_func_argw(btf, id) > 1;
	return NULL;
}
