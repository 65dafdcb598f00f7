// SPDX-License-Identifier: GPL-2.0-only
/*
 * fentry/fexit templates: the daemon loads them once against a real
 * target, then clones them per hooked function (new attach_btf_id, the
 * slot patched into the TRACERD_SLOT_MAGIC immediate).
 */
#include "hook.bpf.h"

SEC("?fentry")
int fentry_entry(void *ctx)
{
	return hook_entry(ctx, slot_imm(), HOOK_ARGS_FUNC);
}

SEC("?fexit")
int fexit_return(void *ctx)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);	/* inlined: works in every clone */
	return hook_return_ret(ctx, slot_imm(), (__s64)ret, TRACERD_EV_RET,
			       HOOK_ARGS_FUNC);
}

SEC("?fentry")
int fentry_entry_count(void *ctx)
{
	return fast_count(slot_imm64());
}

SEC("?fentry")
int fentry_entry_lat(void *ctx)
{
	return fast_lat_entry(slot_imm64());
}

SEC("?fexit")
int fexit_return_lat(void *ctx)
{
	return fast_lat_return(slot_imm64());
}
