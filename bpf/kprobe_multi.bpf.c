// SPDX-License-Identifier: GPL-2.0-only
/* kprobe.multi/kretprobe.multi templates: the daemon clones them per
 * attachment (its filters in immediates) for one link over its functions;
 * the cookie of each function carries its slot, or the slot immediate
 * does when the attachment has one function. */
#include "hook.bpf.h"
#include <bpf/bpf_tracing.h>

SEC("?kprobe.multi")
int multi_entry(struct pt_regs *ctx)
{
	return hook_entry(ctx, cookie_slot(ctx), HOOK_ARGS_REGS);
}

SEC("?kretprobe.multi")
int multi_return(struct pt_regs *ctx)
{
	return hook_return_ret(ctx, cookie_slot(ctx), (__s64)PT_REGS_RC(ctx),
			       TRACERD_EV_RET, HOOK_ARGS_NONE);
}

SEC("?kprobe.multi")
int multi_entry_count(struct pt_regs *ctx)
{
	return fast_count(cookie_slot64(ctx));
}

SEC("?kprobe.multi")
int multi_entry_lat(struct pt_regs *ctx)
{
	return fast_lat_entry(cookie_slot64(ctx));
}

SEC("?kretprobe.multi")
int multi_return_lat(struct pt_regs *ctx)
{
	return fast_lat_return(cookie_slot64(ctx));
}
