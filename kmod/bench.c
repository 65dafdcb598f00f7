// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel hook benchmarks (TRACERD_IOC_BENCH_OPS, _PATCH, _ALL).
 *
 * The tracees are this module's own functions, so the benchmarks need
 * nothing else loaded: tracerd_bench_tracee() is the relevant function of
 * the ops benchmark, tracerd_bench_fn_000 .. _3ff carry its irrelevant
 * attachments and the K functions of the patch benchmark. They are
 * __noipa (not only noinline): GCC would otherwise drop calls whose result
 * it can see, merge identical bodies or clone them.
 *
 * Benchmarks run one at a time (tracerd_bench_lock), so only the running
 * one calls the tracees and its hook counts are exact: ops must count
 * N x R x reps relevant hits and no irrelevant one, patch K hits per variant;
 * anything else is -EPROTO. Loops yield every 64k calls and between
 * attachments; N, R, I and K are bounded (kmod_abi.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "tracerd_kmod.h"

#ifndef __noipa
#define __noipa __attribute__((__noipa__))
#endif

/* The relevant tracee of the ops benchmark. */
static __noipa int tracerd_bench_tracee(int x)
{
	return x + 1;
}

/* 1024 distinct functions, tracerd_bench_fn_000 .. tracerd_bench_fn_3ff. */
#define TB_FN(n)							\
	static __noipa int tracerd_bench_fn_##n(int x) { return x ^ 0x##n; }
#define TB_D1(p) TB_FN(p##0) TB_FN(p##1) TB_FN(p##2) TB_FN(p##3)	\
		 TB_FN(p##4) TB_FN(p##5) TB_FN(p##6) TB_FN(p##7)	\
		 TB_FN(p##8) TB_FN(p##9) TB_FN(p##a) TB_FN(p##b)	\
		 TB_FN(p##c) TB_FN(p##d) TB_FN(p##e) TB_FN(p##f)
#define TB_D2(p) TB_D1(p##0) TB_D1(p##1) TB_D1(p##2) TB_D1(p##3)	\
		 TB_D1(p##4) TB_D1(p##5) TB_D1(p##6) TB_D1(p##7)	\
		 TB_D1(p##8) TB_D1(p##9) TB_D1(p##a) TB_D1(p##b)	\
		 TB_D1(p##c) TB_D1(p##d) TB_D1(p##e) TB_D1(p##f)
TB_D2(0) TB_D2(1) TB_D2(2) TB_D2(3)

#undef TB_FN
#define TB_FN(n) tracerd_bench_fn_##n,
static int (*const tracerd_bench_fns[])(int) = {
	TB_D2(0) TB_D2(1) TB_D2(2) TB_D2(3)
};
static_assert(ARRAY_SIZE(tracerd_bench_fns) >= TRACERD_BENCH_MAX_FUNCS);
static_assert(ARRAY_SIZE(tracerd_bench_fns) >= TRACERD_BENCH_MAX_IRRELEVANT);

static DEFINE_MUTEX(tracerd_bench_lock);
static int tracerd_bench_sink;

/*
 * Call the tracee n times, reps times over; *ns gets the fastest run.
 * Yields every 64k calls and gives up with -EINTR when the caller is being
 * killed.
 */
static int tracerd_bench_loop(u64 n, u32 reps, u64 *ns)
{
	u64 i, t0, best = U64_MAX;
	int sink = 0;
	u32 r;

	for (r = 0; r < reps; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < n; i++) {
			sink += tracerd_bench_tracee((int)i);
			if ((i & 0xffff) == 0xffff) {
				if (fatal_signal_pending(current))
					return -EINTR;
				cond_resched();
			}
		}
		best = min(best, ktime_get_ns() - t0);
	}
	WRITE_ONCE(tracerd_bench_sink, sink);
	*ns = best;
	return 0;
}

/* Call each of the first k bench functions once. */
static void tracerd_bench_call_fns(unsigned int k)
{
	unsigned int i;
	int sink = 0;

	for (i = 0; i < k; i++)
		sink += tracerd_bench_fns[i]((int)i);
	WRITE_ONCE(tracerd_bench_sink, sink);
}

static unsigned long tracerd_bench_fn_addr(unsigned int i)
{
	return (unsigned long)tracerd_bench_fns[i];
}

/* Create and arm one attachment; ERR_PTR on failure. */
static struct tracerd_att *tracerd_bench_att(u32 mode, u32 flags,
					     unsigned long addr)
{
	struct tracerd_att *a = tracerd_att_new(mode, flags, NULL, addr);
	int ret;

	if (IS_ERR(a))
		return a;
	ret = tracerd_att_arm(a);
	if (ret) {
		tracerd_att_free(a);
		return ERR_PTR(ret);
	}
	return a;
}

/* Free the n attachments of atts (NULL entries skipped); ns spent. */
static u64 tracerd_bench_free_atts(struct tracerd_att **atts, unsigned int n)
{
	u64 t0 = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < n; i++) {
		tracerd_att_free(atts[i]);
		atts[i] = NULL;
		cond_resched();
	}
	return ktime_get_ns() - t0;
}

/* Sum of the hit counters of atts[from .. to). */
static u64 tracerd_bench_hits(struct tracerd_att **atts, unsigned int from,
			      unsigned int to)
{
	u64 sum = 0, hits, filtered;
	unsigned int i;

	for (i = from; i < to; i++) {
		tracerd_att_sum(atts[i], &hits, &filtered);
		sum += hits;
	}
	return sum;
}

static int tracerd_bench_ops_check(const struct tracerd_bench_ops *b)
{
	int ret = tracerd_att_check(b->mode, b->flags);

	/* stacks need a depth, which no benchmark request carries */
	if (ret == -EINVAL || b->calls == 0 || b->reserved ||
	    (b->flags & TRACERD_ATTACH_STACKS))
		return -EINVAL;
	if (b->calls > TRACERD_BENCH_MAX_CALLS ||
	    b->reps > TRACERD_BENCH_MAX_REPS ||
	    b->relevant > TRACERD_BENCH_MAX_RELEVANT ||
	    b->irrelevant > TRACERD_BENCH_MAX_IRRELEVANT ||
	    (b->mode == TRACERD_KMOD_DIRECT && b->relevant > 1))
		return -E2BIG;
	return ret;
}

/*
 * ops: the loop with nothing attached, then with I irrelevant attachments
 * (one per bench function) and R relevant ones on the tracee.
 */
long tracerd_bench_ops(struct tracerd_bench_ops *b)
{
	unsigned int i, n = b->relevant + b->irrelevant;
	struct tracerd_att **atts;
	u64 t0;
	long ret;

	ret = tracerd_bench_ops_check(b);
	if (ret)
		return ret;
	if (b->reps == 0)
		b->reps = 1;
	atts = tracerd_zalloc((n ?: 1) * sizeof(*atts));
	if (!atts)
		return -ENOMEM;
	if (mutex_lock_interruptible(&tracerd_bench_lock)) {
		ret = -EINTR;
		goto out_free_array;
	}

	ret = tracerd_bench_loop(b->calls, b->reps, &b->base_total_ns);
	if (ret)
		goto out_unlock;
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		unsigned long addr = i < b->irrelevant ?
			tracerd_bench_fn_addr(i) :
			(unsigned long)tracerd_bench_tracee;

		atts[i] = tracerd_bench_att(b->mode, b->flags, addr);
		if (IS_ERR(atts[i])) {
			ret = PTR_ERR(atts[i]);
			atts[i] = NULL;
			goto out_free_atts;
		}
		cond_resched();
	}
	b->attach_ns = ktime_get_ns() - t0;
	ret = tracerd_bench_loop(b->calls, b->reps, &b->total_ns);
	if (ret)
		goto out_free_atts;
	b->irrelevant_hits = tracerd_bench_hits(atts, 0, b->irrelevant);
	b->hits = tracerd_bench_hits(atts, b->irrelevant, n);
	b->detach_ns = tracerd_bench_free_atts(atts, n);

	b->per_call_ns = div64_u64(b->total_ns, b->calls);
	b->base_per_call_ns = div64_u64(b->base_total_ns, b->calls);
	b->overhead_ps = div64_s64(((s64)b->total_ns - (s64)b->base_total_ns) * 1000,
				   (s64)b->calls);
	if (b->hits != b->calls * b->relevant * b->reps || b->irrelevant_hits)
		ret = -EPROTO;

out_free_atts:
	tracerd_bench_free_atts(atts, n);
out_unlock:
	mutex_unlock(&tracerd_bench_lock);
out_free_array:
	tracerd_free(atts);
	return ret;
}

/* patch (a): one hook on all k functions; fills the one_* results. */
static long tracerd_bench_patch_one(struct tracerd_bench_patch *b,
				    struct tracerd_att **atts,
				    unsigned long *ips)
{
	unsigned int i, k = b->funcs;
	bool kprobe = b->mode == TRACERD_KMOD_KPROBE ||
		      b->mode == TRACERD_KMOD_KPROBE_INT3;
	unsigned int n = kprobe ? k : 1;
	long ret;
	u64 t0;

	for (i = 0; i < n; i++) {
		atts[i] = tracerd_att_new(b->mode, b->flags, NULL, ips[i]);
		if (IS_ERR(atts[i])) {
			ret = PTR_ERR(atts[i]);
			atts[i] = NULL;
			goto out_free_atts;
		}
	}
	t0 = ktime_get_ns();
	if (kprobe)
		ret = tracerd_kprobes_arm(atts, k);
	else
		ret = tracerd_att_arm_ips(atts[0], ips, k);
	if (ret)
		goto out_free_atts;
	b->one_attach_ns = ktime_get_ns() - t0;
	tracerd_bench_call_fns(k);
	b->one_hits = tracerd_bench_hits(atts, 0, n);
	t0 = ktime_get_ns();
	if (kprobe)
		tracerd_kprobes_disarm(atts, k);
	tracerd_bench_free_atts(atts, n);
	b->one_detach_ns = ktime_get_ns() - t0;
	return 0;

out_free_atts:
	tracerd_bench_free_atts(atts, n);
	return ret;
}

/* patch (b): k separate attachments; fills the sep_* results. */
static long tracerd_bench_patch_sep(struct tracerd_bench_patch *b,
				    struct tracerd_att **atts,
				    unsigned long *ips)
{
	unsigned int i, k = b->funcs;
	long ret = 0;
	u64 t0;

	t0 = ktime_get_ns();
	for (i = 0; i < k; i++) {
		atts[i] = tracerd_bench_att(b->mode, b->flags, ips[i]);
		if (IS_ERR(atts[i])) {
			ret = PTR_ERR(atts[i]);
			atts[i] = NULL;
			goto out_free_atts;
		}
		cond_resched();
	}
	b->sep_attach_ns = ktime_get_ns() - t0;
	tracerd_bench_call_fns(k);
	b->sep_hits = tracerd_bench_hits(atts, 0, k);
	b->sep_detach_ns = tracerd_bench_free_atts(atts, k);
	return 0;

out_free_atts:
	tracerd_bench_free_atts(atts, k);
	return ret;
}

/* patch: attach and detach K functions as one hook, then as K hooks. */
long tracerd_bench_patch(struct tracerd_bench_patch *b)
{
	struct tracerd_att **atts;
	unsigned long *ips;
	unsigned int i;
	long ret;

	ret = tracerd_att_check(b->mode, b->flags);
	if (ret == -EINVAL || b->reserved || b->funcs == 0 ||
	    (b->flags & (TRACERD_ATTACH_LATENCY | TRACERD_ATTACH_STACKS)))
		return -EINVAL;
	if (b->funcs > TRACERD_BENCH_MAX_FUNCS)
		return -E2BIG;
	if (ret)
		return ret;
	atts = tracerd_zalloc(b->funcs * sizeof(*atts));
	if (!atts)
		return -ENOMEM;
	ips = tracerd_zalloc(b->funcs * sizeof(*ips));
	if (!ips) {
		ret = -ENOMEM;
		goto out_free_atts;
	}
	for (i = 0; i < b->funcs; i++)
		ips[i] = tracerd_bench_fn_addr(i);
	if (mutex_lock_interruptible(&tracerd_bench_lock)) {
		ret = -EINTR;
		goto out_free_ips;
	}
	ret = tracerd_bench_patch_one(b, atts, ips);
	if (!ret)
		ret = tracerd_bench_patch_sep(b, atts, ips);
	if (!ret && (b->one_hits != b->funcs || b->sep_hits != b->funcs))
		ret = -EPROTO;
	mutex_unlock(&tracerd_bench_lock);
out_free_ips:
	tracerd_free(ips);
out_free_atts:
	tracerd_free(atts);
	return ret;
}

/*
 * all: one callops ops on every traceable function. Its callback counts
 * every call, and the tracee's apart: ip is the tracee's call site, which
 * lies within its first instructions (+0, +4 behind ENDBR/BTI, +8).
 */
static DEFINE_PER_CPU(u64, tracerd_all_hits);
static DEFINE_PER_CPU(u64, tracerd_all_tracee_hits);
static unsigned long tracerd_all_tracee;

static void notrace tracerd_all_func(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
	this_cpu_inc(tracerd_all_hits);
	if (ip - READ_ONCE(tracerd_all_tracee) < 16)
		this_cpu_inc(tracerd_all_tracee_hits);
}
NOKPROBE_SYMBOL(tracerd_all_func);

static void tracerd_all_sum(u64 *hits, u64 *tracee)
{
	int cpu;

	*hits = 0;
	*tracee = 0;
	for_each_possible_cpu(cpu) {
		*hits += per_cpu(tracerd_all_hits, cpu);
		*tracee += per_cpu(tracerd_all_tracee_hits, cpu);
	}
}

static void tracerd_all_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu(tracerd_all_hits, cpu) = 0;
		per_cpu(tracerd_all_tracee_hits, cpu) = 0;
	}
}

/* all: attach to every traceable function, call the tracee once, detach. */
long tracerd_bench_all(struct tracerd_bench_all *b)
{
	struct tracerd_att *a;
	long ret;
	u64 t0;

	ret = tracerd_att_check(b->mode, b->flags);
	if (ret == -EINVAL || b->mode != TRACERD_KMOD_CALLOPS ||
	    (b->flags & (TRACERD_ATTACH_LATENCY | TRACERD_ATTACH_STACKS)) ||
	    memchr_inv(b->reserved, 0, sizeof(b->reserved)))
		return -EINVAL;
	if (ret)
		return ret;
	if (mutex_lock_interruptible(&tracerd_bench_lock))
		return -EINTR;
	tracerd_all_reset();
	WRITE_ONCE(tracerd_all_tracee, (unsigned long)tracerd_bench_tracee);
	a = tracerd_att_new(b->mode, b->flags, NULL,
			    (unsigned long)tracerd_bench_tracee);
	if (IS_ERR(a)) {
		ret = PTR_ERR(a);
		goto out_unlock;
	}
	t0 = ktime_get_ns();
	ret = tracerd_att_arm_all(a, tracerd_all_func);
	if (ret) {
		tracerd_att_free(a);
		goto out_unlock;
	}
	b->attach_ns = ktime_get_ns() - t0;
	WRITE_ONCE(tracerd_bench_sink, tracerd_bench_tracee(1));
	t0 = ktime_get_ns();
	tracerd_att_free(a);
	b->detach_ns = ktime_get_ns() - t0;
	tracerd_all_sum(&b->hits, &b->tracee_hits);
	if (b->tracee_hits != 1)
		ret = -EPROTO;
out_unlock:
	mutex_unlock(&tracerd_bench_lock);
	return ret;
}
