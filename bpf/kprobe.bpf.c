// SPDX-License-Identifier: GPL-2.0-only
/* kprobe/kretprobe: one program, attached once per function; the BPF
 * cookie carries the slot. */
#include "hook.bpf.h"

SEC("?kprobe")
int kprobe_entry(struct pt_regs *ctx)
{
	return hook_entry((__u32)bpf_get_attach_cookie(ctx));
}

SEC("?kretprobe")
int kprobe_return(struct pt_regs *ctx)
{
	return hook_return((__u32)bpf_get_attach_cookie(ctx));
}
