// SPDX-License-Identifier: GPL-2.0-only
/* kprobe.multi/kretprobe.multi: one link for many functions, the cookie
 * of each function carries its slot. */
#include "hook.bpf.h"
#include <bpf/bpf_tracing.h>

SEC("?kprobe.multi")
int multi_entry(struct pt_regs *ctx)
{
	return hook_entry((__u32)bpf_get_attach_cookie(ctx));
}

SEC("?kretprobe.multi")
int multi_return(struct pt_regs *ctx)
{
	return hook_return_ret((__u32)bpf_get_attach_cookie(ctx), (__s64)PT_REGS_RC(ctx),
			       TRACERD_EV_RET);
}
