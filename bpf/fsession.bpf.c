// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsession (7.x): one trampoline program run at entry and at return of
 * each call, the session cookie holding the entry time (session.bpf.h).
 * The daemon loads the template as BPF_TRACE_FSESSION against a real
 * function (the section is fentry so that every libbpf opens the object),
 * then clones it: per function (the slot patched in), or once per BTF
 * object as BPF_TRACE_FSESSION_MULTI, the slot then being the cookie the
 * link gives each function.
 */
#include "session.bpf.h"

SEC("?fentry")
int fsession_hook(void *ctx)
{
	__u32 slot = slot_imm();
	__u64 *cookie = session_cookie(ctx);
	__u64 ret = 0;

	if (slot == TRACERD_SLOT_COOKIE)
		slot = (__u32)bpf_get_attach_cookie(ctx);
	if (!session_is_return(ctx)) {
		session_entry(ctx, slot, cookie, HOOK_ARGS_FUNC);
		return 0;
	}
	bpf_get_func_ret(ctx, &ret);
	return session_return(ctx, slot, cookie, (__s64)ret, HOOK_ARGS_FUNC);
}
