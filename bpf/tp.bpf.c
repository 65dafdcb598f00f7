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
	return hook_entry(ctx, slot_imm(), HOOK_ARGS_RAW);
}

SEC("?raw_tp")
int raw_tp_hit(void *ctx)
{
	return hook_entry(ctx, slot_imm(), HOOK_ARGS_RAW);
}

/* classic tracepoints (a perf event of the tracefs id): syscalls/... */
SEC("?tracepoint")
int tp_classic_hit(void *ctx)
{
	return hook_entry(ctx, slot_imm(), HOOK_ARGS_NONE);
}

/*
 * The sys_exit_X half of a timed sys_enter_X/sys_exit_X pair, with the
 * syscall's return value: the kernel's struct syscall_trace_exit (its
 * tracefs format: the 8-byte common header, int __syscall_nr, long ret at
 * offset 16 on a 64-bit kernel, the only kind tracerd runs on).
 */
SEC("?tracepoint")
int tp_classic_return(void *ctx)
{
	return hook_return_ret(ctx, slot_imm(), *(__s64 *)((char *)ctx + 16), TRACERD_EV_RET,
			       HOOK_ARGS_NONE);
}
