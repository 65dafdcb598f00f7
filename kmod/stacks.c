// SPDX-License-Identifier: GPL-2.0
/*
 * TRACERD_ATTACH_STACKS (ABI 1.8): each counted call's kernel stack, kept
 * as a count per distinct stack in a table of the attachment's own.
 *
 * Capture. The hooks (callops callback and fprobe entry, kprobe pre and
 * kretprobe entry handlers) call tracerd_stk_hit() after counting the
 * call: stack_trace_save() into a per-CPU scratch array, deep enough for
 * the frames of the hook machinery too (this file, the mode's callback,
 * ftrace's trampoline or the kprobe handler and its exception entry: at
 * most TRACERD_STK_MACHINERY). Rather than a skip count per arch and
 * path, the stack kept starts at the first frame inside the traced
 * function ([addr, addr + size), the size kallsyms gives at attach): the
 * return address of its ftrace call (callops, x86 kprobes on ftrace), or
 * the probed instruction where the hook is an exception (kprobe-int3,
 * arm64 kprobes, whose pt_regs the unwinder walks through). So frame 0 is
 * always the traced function, frame 1 its caller. A kprobe stops the
 * function before its prologue: on x86_64 its return address is on the
 * stack and unwound; on arm64 and riscv64 it is still in the link register,
 * in no frame record, and the unwinder would go from the probed
 * instruction to the caller's caller: frame 1 is then taken from the
 * kprobe's regs (arch/<arch>.h tracerd_arch_entry_ret()). ftrace's
 * callers (callops, fprobe) build a frame for the call site themselves.
 * A stack that does not reach the traced function (an unwinder that
 * cannot cross the hook's frames) is dropped, never kept wrong. Where the
 * arch can unwind from a kprobe's registers (x86_64:
 * tracerd_arch_stack_regs(), as perf does for BPF kprobes), the kprobe
 * modes start there and walk none of the hook's frames, which cost an
 * unwinder step each.
 *
 * The table: slots fixed at attach (kvcalloc, at most
 * TRACERD_STACK_SLOTS, each 24 bytes + 8 per frame of stack_depth: at
 * most 1024 x 1040 bytes, 1040 KiB, per attachment; TRACERD_STACK_MEM_MAX,
 * 64 MiB, for every table of the module together), open addressing
 * from a jhash2 of the frames, 64 probes at most. Lock-free: a free slot is claimed with cmpxchg on its
 * state, filled, then published with a release store; a ready slot's
 * count is an atomic64 add. Nothing waits: a slot being filled by another
 * CPU, a table with no free slot among the probes, a capture nested in
 * another on this CPU (the per-CPU scratch is in use: an interrupt or NMI
 * inside a hook), count as dropped (per-CPU). So the hook is safe in any
 * context the kernel calls it in, NMI included.
 *
 * Lifetime: the table is freed with the attachment (tracerd_att_destroy()),
 * which happens only after the hook is gone: unregister_ftrace_function()
 * waits for running callbacks (ftrace_shutdown: RCU tasks for dynamic
 * ops), unregister_kprobe() and unregister_kretprobe() for running
 * handlers (synchronize_rcu), and the fprobe's disarm adds a
 * synchronize_rcu() for its exit handler; a batch member's table goes
 * with its batch, after the batch's ops is unregistered.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jhash.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>

#include "arch.h"
#include "mode.h"
#include "tracerd_kmod.h"

/* Frames of the hook machinery above the traced function, at most. */
#define TRACERD_STK_MACHINERY	24
/* Slots a new stack may probe before it counts as dropped. */
#define TRACERD_STK_PROBES	64

/*
 * Bytes of every stack table, against TRACERD_STACK_MEM_MAX: a glob of
 * thousands of functions with stacks must not take the machine's memory.
 */
static atomic64_t tracerd_stk_bytes = ATOMIC64_INIT(0);

enum { TRACERD_STK_FREE, TRACERD_STK_FILLING, TRACERD_STK_READY };

struct tracerd_stk_slot {
	u32 state;		/* TRACERD_STK_*: cmpxchg'd, then released */
	u32 hash;
	u32 nr;
	u32 pad;
	atomic64_t count;
	unsigned long ips[];	/* depth of them; nr used */
};

struct tracerd_stk {
	u32 depth;
	u32 slots;
	size_t slot_size;
	void *mem;		/* slots x slot_size, kvcalloc */
};

/* The scratch of one CPU's capture, and whether it is in use. */
struct tracerd_stk_scratch {
	int busy;
	unsigned long ips[TRACERD_STACK_MAX_DEPTH + TRACERD_STK_MACHINERY];
};
static DEFINE_PER_CPU(struct tracerd_stk_scratch, tracerd_stk_scratch);

_Static_assert(sizeof(unsigned long) == sizeof(__u64),
	       "a 64-bit kernel: stack frames copy out as __u64");

/* -EINVAL unless depth and slots suit flags (the ABI's ATTACH2 rules). */
int tracerd_stk_check(u32 flags, u32 depth, u32 slots)
{
	if (!(flags & TRACERD_ATTACH_STACKS))
		return depth || slots ? -EINVAL : 0;
	if (depth == 0 || depth > TRACERD_STACK_MAX_DEPTH || slots > TRACERD_STACK_SLOTS)
		return -EINVAL;
	return 0;
}

static struct tracerd_stk_slot *tracerd_stk_slot(const struct tracerd_stk *t, u32 i)
{
	return t->mem + (size_t)i * t->slot_size;
}

/* The size of the function at addr, from kallsyms ("name+0x0/0xSIZE [mod]"). */
static int tracerd_stk_fsize(unsigned long addr, unsigned long *size)
{
	char *sym, *p;
	int ret = -ENXIO;

	sym = tracerd_zalloc(KSYM_SYMBOL_LEN);
	if (!sym)
		return -ENOMEM;
	sprint_symbol(sym, addr);
	p = strchr(sym, '/');
	if (p && sscanf(p, "/0x%lx", size) == 1 && *size)
		ret = 0;
	tracerd_free(sym);
	return ret;
}

/* a's table: depth frames, slots distinct stacks (0: TRACERD_STACK_SLOTS). */
int tracerd_stk_new(struct tracerd_att *a, u32 depth, u32 slots)
{
	struct tracerd_stk *t;
	int ret;

	if (tracerd_stk_check(TRACERD_ATTACH_STACKS, depth, slots))
		return -EINVAL;
	ret = tracerd_stk_fsize(a->addr, &a->size);
	if (ret)
		return ret;
	t = tracerd_zalloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->depth = depth;
	t->slots = slots ? slots : TRACERD_STACK_SLOTS;
	t->slot_size = sizeof(struct tracerd_stk_slot) + depth * sizeof(unsigned long);
	if (atomic64_add_return(t->slots * t->slot_size, &tracerd_stk_bytes) >
	    TRACERD_STACK_MEM_MAX) {
		ret = -ENOSPC;
		goto out_unbudget;
	}
	t->mem = kvcalloc(t->slots, t->slot_size, GFP_KERNEL);
	if (!t->mem) {
		ret = -ENOMEM;
		goto out_unbudget;
	}
	atomic64_inc(&tracerd_live.allocs);
	a->stk = t;
	return 0;

out_unbudget:
	atomic64_sub(t->slots * t->slot_size, &tracerd_stk_bytes);
	tracerd_free(t);
	return ret;
}

/* Free a's table; its hook is gone (see the head of this file). NULL-safe. */
void tracerd_stk_free(struct tracerd_att *a)
{
	struct tracerd_stk *t = a->stk;

	if (!t)
		return;
	kvfree(t->mem);
	atomic64_sub(t->slots * t->slot_size, &tracerd_stk_bytes);
	atomic64_dec(&tracerd_live.allocs);
	tracerd_free(t);
	a->stk = NULL;
}

static __always_inline bool tracerd_stk_same(const unsigned long *x, const unsigned long *y,
					     u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

/* Count ips[0..nr) in t; false when it could not be kept (dropped). */
static __always_inline bool tracerd_stk_add(struct tracerd_stk *t, const unsigned long *ips,
					    u32 nr)
{
	u32 h = jhash2((const u32 *)ips, nr * sizeof(*ips) / sizeof(u32), nr);
	u32 p, i, n = min_t(u32, t->slots, TRACERD_STK_PROBES);

	for (p = 0; p < n; p++) {
		struct tracerd_stk_slot *s = tracerd_stk_slot(t, (h + p) % t->slots);
		u32 st = smp_load_acquire(&s->state);

		if (st == TRACERD_STK_FREE) {
			if (cmpxchg(&s->state, TRACERD_STK_FREE, TRACERD_STK_FILLING) !=
			    TRACERD_STK_FREE)
				return false;	/* another CPU took it just now */
			s->hash = h;
			s->nr = nr;
			for (i = 0; i < nr; i++)
				s->ips[i] = ips[i];
			atomic64_set(&s->count, 1);
			smp_store_release(&s->state, TRACERD_STK_READY);
			return true;
		}
		if (st == TRACERD_STK_FILLING)
			return false;	/* perhaps this very stack: not counted twice */
		if (s->hash == h && s->nr == nr && tracerd_stk_same(s->ips, ips, nr)) {
			atomic64_inc(&s->count);
			return true;
		}
	}
	return false;
}

/*
 * A kprobe stops the function before its prologue: where the return
 * address stays in a link register (arm64 x30, riscv64 ra), no frame holds
 * it and the unwinder goes from the probed instruction (ips[i], the pc of
 * the exception's regs) straight to the caller's caller. Put the caller
 * back as frame i + 1, unless the unwinder already has it. Returns n, one
 * more when a frame was added (the last one falls off a full scratch).
 */
static __always_inline unsigned int tracerd_stk_entry_ret(unsigned long *ips, unsigned int i,
							  unsigned int n, unsigned int max,
							  struct pt_regs *regs)
{
	unsigned long ret = regs ? tracerd_arch_entry_ret(regs) : 0;
	unsigned int k;

	if (!ret || ips[i] != instruction_pointer(regs) || (i + 1 < n && ips[i + 1] == ret))
		return n;
	if (n < max)
		n++;
	for (k = n - 1; k > i + 1; k--)
		ips[k] = ips[k - 1];
	if (i + 1 < n)
		ips[i + 1] = ret;
	return n;
}

/*
 * Keep the stack of a call a counted (the hook's context: any, NMI
 * included); regs: tracerd_att_hit_stack()'s. Preemption is off around the
 * per-CPU scratch.
 */
void notrace tracerd_stk_hit(struct tracerd_att *a, struct pt_regs *regs)
{
	struct tracerd_stk *t = a->stk;
	struct tracerd_stk_scratch *sc;
	unsigned int n, i;
	bool kept = false;

	preempt_disable_notrace();
	sc = this_cpu_ptr(&tracerd_stk_scratch);
	if (sc->busy)
		goto out;	/* an interrupt inside a capture on this CPU */
	WRITE_ONCE(sc->busy, 1);
	barrier();
	n = 0;
#ifdef TRACERD_HAVE_ARCH_STACK_REGS
	if (regs)	/* a kprobe's: unwound from the probed function on */
		n = tracerd_arch_stack_regs(regs, sc->ips, t->depth + TRACERD_STK_MACHINERY);
#endif
	if (!n)
		n = stack_trace_save(sc->ips, t->depth + TRACERD_STK_MACHINERY, 0);
	for (i = 0; i < n; i++)
		if (sc->ips[i] - a->addr < a->size)
			break;
	if (i < n) {
		n = tracerd_stk_entry_ret(sc->ips, i, n, ARRAY_SIZE(sc->ips), regs);
		kept = tracerd_stk_add(t, sc->ips + i, min_t(u32, n - i, t->depth));
	}
	barrier();
	WRITE_ONCE(sc->busy, 0);
out:
	if (!kept)
		this_cpu_inc(a->pcpu->stk_dropped);
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(tracerd_stk_hit);

/*
 * TRACERD_IOC_STACKS for a (all but req->id, checked by the caller): the
 * records that fit in req->size bytes at req->buf; -ENOSPC when not all
 * did, -ENODATA without a table. Runs under the file's lock, so a and its
 * table stay; records being filled meanwhile are left for the next read.
 */
int tracerd_stk_read(const struct tracerd_att *a, struct tracerd_stacks *req)
{
	const struct tracerd_stk *t = a->stk;
	void __user *out = u64_to_user_ptr(req->buf);
	u64 used = 0;
	u64 *rec;
	u32 i, k;
	int cpu, ret = 0;

	if (!t)
		return -ENODATA;
	for_each_possible_cpu(cpu)
		req->dropped += READ_ONCE(per_cpu_ptr(a->pcpu, cpu)->stk_dropped);
	req->depth = t->depth;
	req->slots = t->slots;
	rec = tracerd_zalloc(sizeof(struct tracerd_stack_rec) + t->depth * sizeof(u64));
	if (!rec)
		return -ENOMEM;
	for (i = 0; i < t->slots; i++) {
		const struct tracerd_stk_slot *s = tracerd_stk_slot(t, i);
		struct tracerd_stack_rec *r = (void *)rec;
		size_t len;

		if (smp_load_acquire(&s->state) != TRACERD_STK_READY)
			continue;
		r->count = atomic64_read(&s->count);
		r->nr = s->nr;
		r->reserved = 0;
		for (k = 0; k < s->nr; k++)
			rec[2 + k] = s->ips[k];
		len = sizeof(*r) + s->nr * sizeof(u64);
		req->total++;
		req->need += len;
		if (ret || used + len > req->size) {
			ret = -ENOSPC;
			continue;
		}
		if (copy_to_user(out + used, rec, len)) {
			tracerd_free(rec);
			return -EFAULT;
		}
		used += len;
		req->stacks++;
		cond_resched();
	}
	tracerd_free(rec);
	return ret;
}
