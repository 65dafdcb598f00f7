// SPDX-License-Identifier: GPL-2.0-only
/* kprobe/kretprobe templates: the daemon clones them per hooked function,
 * the slot and the filters in immediates (a program loaded as is takes its
 * slot from the BPF cookie). */
#include "hook.bpf.h"
#include <bpf/bpf_tracing.h>

SEC("?kprobe")
int kprobe_entry(struct pt_regs *ctx)
{
	return hook_entry(ctx, cookie_slot(ctx), HOOK_ARGS_REGS);
}

SEC("?kretprobe")
int kprobe_return(struct pt_regs *ctx)
{
	return hook_return_ret(ctx, cookie_slot(ctx), (__s64)PT_REGS_RC(ctx),
			       TRACERD_EV_RET, HOOK_ARGS_NONE);
}

SEC("?kprobe")
int kprobe_entry_count(struct pt_regs *ctx)
{
	return fast_count(cookie_slot64(ctx));
}

SEC("?kprobe")
int kprobe_entry_lat(struct pt_regs *ctx)
{
	return fast_lat_entry(cookie_slot64(ctx));
}

SEC("?kretprobe")
int kprobe_return_lat(struct pt_regs *ctx)
{
	return fast_lat_return(cookie_slot64(ctx));
}
