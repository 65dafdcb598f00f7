// SPDX-License-Identifier: GPL-2.0-or-later
/* How a kernel function takes its arguments, by its BTF; see btfargs.h. */
#include <bpf/btf.h>
#include "btfargs.h"

/*
 * How FUNC id of btf takes its arguments on x86_64 (System V): 1 + the
 * 8-byte stack words they need once the six integer registers are used
 * up, 0 when unknown (no BTF, variadic). A struct or union above 16
 * bytes travels in memory (and, returned, takes a register for the
 * hidden pointer); a smaller one takes one or two registers or, when
 * they do not fit, stack words. The kernel has no float arguments.
 */
__u32 btf_func_argw(const struct btf *btf, __s32 id)
{
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_param *p;
	__u32 regs = 0, stack = 0, words, i, n;
	__s64 size;
	int rid;

	t = t && btf_is_func(t) ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t))
		return 0;
	if (t->type) {
		rid = btf__resolve_type(btf, t->type);
		size = btf__resolve_size(btf, t->type);
		if (rid < 0 || size < 0)
			return 0;
		if (btf_is_composite(btf__type_by_id(btf, rid)) && size > 16)
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
		if (btf_is_composite(btf__type_by_id(btf, rid)) && size > 16)
			stack += words;
		else if (regs + words <= 6)
			regs += words;
		else
			stack += words;
	}
	return 1 + stack;
}
