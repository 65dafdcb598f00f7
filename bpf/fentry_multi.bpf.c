// SPDX-License-Identifier: GPL-2.0-only
/*
 * fentry.multi/fexit.multi (7.x) templates: loaded as plain fentry/fexit
 * against a real function (every libbpf knows those sections), then
 * cloned once per BTF object as BPF_TRACE_FENTRY_MULTI/_FEXIT_MULTI with
 * TRACERD_SLOT_COOKIE patched in: the slot is then the cookie the link
 * gives each function (daemon/tracing_multi.c).
 */
#include "hook.bpf.h"

static __always_inline __u32 multi_slot(void *ctx)
{
	__u32 slot = slot_imm();

	return slot == TRACERD_SLOT_COOKIE ? (__u32)bpf_get_attach_cookie(ctx) : slot;
}

SEC("?fentry")
int fmulti_entry(void *ctx)
{
	return hook_entry(ctx, multi_slot(ctx), HOOK_ARGS_FUNC);
}

/* the count tier's (bpfutil.h bpf_clone_count): the cookie indexes the counters */
SEC("?fentry")
int fmulti_entry_count(void *ctx)
{
	return fast_count(cookie_slot64(ctx));
}

SEC("?fexit")
int fmulti_return(void *ctx)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return hook_return_ret(ctx, multi_slot(ctx), (__s64)ret, TRACERD_EV_RET,
			       HOOK_ARGS_FUNC);
}
