/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Session programs: one program runs at entry and at return of a call
 * (kprobe.session, fsession), and the kernel keeps 8 bytes per call for
 * it, the session cookie. The entry writes its timestamp there, so
 * latency needs no per-call map (hook.bpf.h's entry_ts). Counting,
 * filtering and recording are hook.bpf.h's.
 *
 * The session kfuncs took no argument when they came (6.10, kprobe
 * session) and take the program's context since fsession (7.x). Define
 * TRACERD_SESSION_KFUNC_VOID for the first form; the daemon picks the
 * object that matches the kernel's BTF (daemon/bpf_compat.h).
 */
#ifndef TRACERD_SESSION_BPF_H
#define TRACERD_SESSION_BPF_H

/* our own kfunc declarations, not those a newer bpftool writes into
 * vmlinux.h (7.x's, which would clash with the first form) */
#define BPF_NO_KFUNC_PROTOTYPES
#include "hook.bpf.h"

#ifdef TRACERD_SESSION_KFUNC_VOID
extern __u64 *bpf_session_cookie(void) __ksym;
extern bool bpf_session_is_return(void) __ksym;
#define session_cookie(ctx)	bpf_session_cookie()
#define session_is_return(ctx)	bpf_session_is_return()
#else
extern __u64 *bpf_session_cookie(void *ctx) __ksym;
extern bool bpf_session_is_return(void *ctx) __ksym;
#define session_cookie(ctx)	bpf_session_cookie(ctx)
#define session_is_return(ctx)	bpf_session_is_return(ctx)
#endif

/*
 * The entry half: count the call and, when the slot times calls, start
 * the clock in the cookie (1 when it only counts errors: not timed).
 * Returns what a kprobe session's entry returns: 0 to run the return
 * half, 1 to skip it (nothing to time or count).
 */
static __always_inline int session_entry(void *ctx, __u32 slot, __u64 *cookie, int how)
{
	struct tracerd_slot_stats *st;
	__u64 flags = slot_pass(slot);

	if (cookie)
		*cookie = 0;
	if (!flags || !slot_if(ctx, how, slot, flags))
		return 1;
	st = bpf_map_lookup_elem(&slot_stats, &slot);
	if (!st)
		return 1;
	__sync_fetch_and_add(&st->calls, 1);
	if (flags & TRACERD_SLOT_BY)
		by_count(slot, flags);
	/* with --errors, the stacks of failing calls only: at the return */
	if ((flags & (TRACERD_SLOT_STACKS | TRACERD_SLOT_ERRORS)) == TRACERD_SLOT_STACKS)
		stack_count(ctx, slot, 0);
	if (!(flags & TRACERD_SLOT_LATENCY) || !cookie) {
		if (flags & TRACERD_SLOT_RECORD)
			record_call(ctx, how, slot, flags, bpf_ktime_get_ns(), 0, 0, 0);
		if (!(flags & TRACERD_SLOT_ERRORS) || !cookie)
			return 1;
		*cookie = 1;	/* untimed: the return half counts errors only */
		return 0;
	}
	*cookie = bpf_ktime_get_ns();
	return 0;
}

/* The return half: the call's time since its entry wrote the cookie
 * (hook.bpf.h's slot_time: the same accounting as every other mode). */
static __always_inline int session_return(void *ctx, __u32 slot, __u64 *cookie, __s64 ret,
					  int how)
{
	__u64 now = bpf_ktime_get_ns(), flags;

	if (!cookie || !*cookie)
		return 0;	/* the entry did not time this call */
	flags = slot_pass(slot);
	if (flags & TRACERD_SLOT_ERRORS)
		slot_errors_count(ctx, slot, flags, ret);
	if (flags & TRACERD_SLOT_LATENCY)
		slot_time(ctx, how, slot, *cookie, now, flags, ret, TRACERD_EV_RET);
	return 0;
}

#endif
