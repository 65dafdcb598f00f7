// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracepoint templates: tp_btf (BTF-typed raw tracepoint), plain raw_tp
 * and classic tracepoint (perf event) programs as the fallbacks; cloned
 * per tracepoint like fentry.
 */
#include "hook.bpf.h"

SEC("?tp_btf")
int tp_btf_hit(void *ctx)
{
	return hook_entry(ctx, slot_imm());
}

SEC("?raw_tp")
int raw_tp_hit(void *ctx)
{
	return hook_entry(ctx, slot_imm());
}

/* classic tracepoints (a perf event of the tracefs id): syscalls/... */
SEC("?tracepoint")
int tp_classic_hit(void *ctx)
{
	return hook_entry(ctx, slot_imm());
}

/* the sys_exit_X half of a timed sys_enter_X/sys_exit_X pair */
SEC("?tracepoint")
int tp_classic_return(void *ctx)
{
	return hook_return(ctx, slot_imm());
}
