// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe.session: one kprobe.multi link whose one program runs at entry
 * and at return of each call; the link cookie of each function is its
 * slot, the session cookie the call's entry time (session.bpf.h).
 *
 * The section is kprobe.multi so that every libbpf can open the object
 * (1.1 does not know kprobe.session); the daemon sets the attach type
 * BPF_TRACE_KPROBE_SESSION before load (daemon/be_kprobe_session.c).
 */
#include "session.bpf.h"
#include <bpf/bpf_tracing.h>

SEC("?kprobe.multi")
int session_hook(struct pt_regs *ctx)
{
	__u32 slot = (__u32)bpf_get_attach_cookie(ctx);
	__u64 *cookie = session_cookie(ctx);

	if (!session_is_return(ctx))
		return session_entry(ctx, slot, cookie, HOOK_ARGS_REGS);
	return session_return(ctx, slot, cookie, (__s64)PT_REGS_RC(ctx), HOOK_ARGS_NONE);
}

/*
 * The count tier's (daemon/bpfutil.h, bpf_clone_count: a clone whose
 * cookie indexes the attachment's own counters): the entry counts and
 * returns 1, so the kernel skips the run at the return. session_count_count
 * counts alone (--pid at most: bpf_hook_tmpl's "count" form); session_count
 * takes --comm too.
 */
SEC("?kprobe.multi")
int session_count(struct pt_regs *ctx)
{
	hook_entry(ctx, cookie_slot(ctx), HOOK_ARGS_REGS);
	return 1;
}

SEC("?kprobe.multi")
int session_count_count(struct pt_regs *ctx)
{
	fast_count(cookie_slot64(ctx));
	return 1;
}
