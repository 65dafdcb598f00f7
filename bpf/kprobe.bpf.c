// SPDX-License-Identifier: GPL-2.0-only
/* kprobe/kretprobe: one program, attached once per function; the BPF
 * cookie carries the slot. */
#include "hook.bpf.h"
#include <bpf/bpf_tracing.h>

SEC("?kprobe")
int kprobe_entry(struct pt_regs *ctx)
{
	return hook_entry((__u32)bpf_get_attach_cookie(ctx));
}

SEC("?kretprobe")
int kprobe_return(struct pt_regs *ctx)
{
	return hook_return_ret((__u32)bpf_get_attach_cookie(ctx), (__s64)PT_REGS_RC(ctx),
			       TRACERD_EV_RET);
}
