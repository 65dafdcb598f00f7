/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counting and latency logic shared by every tracerd BPF program.
 *
 * The shared maps are created once by the daemon (daemon/maps.c) and
 * reused by every object (bpf_map__reuse_fd), so one slot index means the
 * same thing whichever mode hooks the function.
 *
 * A program the daemon clones per hook or attachment (bpf_clone_hook)
 * carries its configuration in immediates: the slot, its flags, its tgid
 * and comm filters. The verifier sees constants and drops every branch
 * that does not apply, so a count is the filter, one per-CPU lookup and
 * one atomic add. A program loaded as it is (the immediates still hold
 * their magic values) reads the slot's config from slot_cfg per call.
 *
 * Entry timestamps live in task storage (a small stack per task, all
 * slots, so nested and concurrent calls are timed correctly) where the
 * kernel allows it for the program type, else in an LRU hash keyed by
 * task and slot (a program type whose kernel refuses the helper, and
 * every program loaded as it is).
 */
#ifndef TRACERD_HOOK_BPF_H
#define TRACERD_HOOK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <tracerd/trace.h>
#include <tracerd/record.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACERD_MAX_SLOTS);
	__type(key, __u32);
	__type(value, struct tracerd_slot_stats);
} slot_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACERD_MAX_SLOTS);
	__type(key, __u32);
	__type(value, struct tracerd_slot_cfg);
} slot_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TRACERD_TS_ENTRIES);
	__type(key, struct tracerd_ts_key);
	__type(value, struct tracerd_ts_val);
} entry_ts SEC(".maps");

/* Timed calls in flight per task (all slots of one object); a power of 2. */
#define TRACERD_TASK_NEST	16

/*
 * A task's entry times: a stack over a ring of TRACERD_TASK_NEST entries,
 * top the next free one. An entry's tag and time are side by side: one
 * address per entry. A return takes the entry under top when it is its
 * call's (all but rare cases: a load, a compare, two stores); otherwise
 * (a call returned out of order, or its entry went unseen) it looks
 * deeper, leaves a hole (tag 0) where it took one, and lowers top past the
 * holes it finds there. A push onto a live entry (the ring wrapped: calls
 * nested deeper than the ring, or entries whose return never ran, as a
 * kretprobe over its maxactive leaves them) overwrites the oldest, whose
 * call goes untimed (a miss), so stale entries age out.
 */
struct tracerd_task_ent {
	__u32 tag;			/* slot + 1; 0: free, or returned */
	__u32 reserved;
	__u64 ts;
};

struct tracerd_task_ts {
	__u32 top;			/* next entry, mod TRACERD_TASK_NEST */
	__u32 reserved;
	struct tracerd_task_ent e[TRACERD_TASK_NEST];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tracerd_task_ts);
} task_ts SEC(".maps");

/* --errors (TRACERD_SLOT_ERRORS): error returns by errno, per slot. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACERD_MAX_SLOTS);
	__type(key, __u32);
	__type(value, struct tracerd_slot_errors);
} slot_errors SEC(".maps");

/*
 * --by (TRACERD_SLOT_BY_*): calls per key (trace.h, tracerd_by_key). The
 * daemon sizes by_keys (by_max_keys) before load; 1 here is a placeholder.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct tracerd_by_key);
	__type(value, struct tracerd_by_val);
} by_keys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACERD_MAX_SLOTS);
	__type(key, __u32);
	__type(value, struct tracerd_by_val);
} by_other SEC(".maps");

/*
 * --stacks (TRACERD_SLOT_STACKS, trace.h): the stacks, calls per (slot,
 * stack id), and the calls whose stack was not kept. The daemon sizes
 * them (stack_max_entries, the stack depth) before load; 1 and the
 * largest depth here are placeholders.
 */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, TRACERD_STACK_DEPTH_MAX * sizeof(__u64));
} stack_traces SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct tracerd_stack_key);
	__type(value, __u64);
} stack_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACERD_MAX_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} stack_drops SEC(".maps");

/* Recording (TRACERD_SLOT_RECORD): per-call events, and per-slot drops. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, TRACERD_RINGBUF_BYTES);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACERD_MAX_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} rec_drops SEC(".maps");

/*
 * An immediate the daemon patches in each clone (TRACERD_*_MAGIC): a
 * 32-bit one, non-negative, in a 64-bit register (compared as such, so no
 * zero-extension is left in a clone's path).
 */
#define hook_imm32(magic) ({						\
	__u64 __v;							\
	asm volatile("%0 = %1" : "=r"(__v) : "i"(magic));		\
	__v;								\
})
#define hook_imm64(magic) ({						\
	__u64 __v;							\
	asm volatile("%0 = %1 ll" : "=r"(__v) : "i"(magic));		\
	__v;								\
})

/*
 * Submit flags for a record: a wakeup per event cost the traced task
 * 0.5-1 us (irq_work and the consumer's wakeup), so wake the consumer only
 * when the ring's unread bytes (this record included) reach
 * TRACERD_RINGBUF_WAKEUP, and again at each TRACERD_RINGBUF_WAKEUP_STRIDE
 * after that; the daemon's timer drains what stays below.
 */
static __always_inline __u64 ringbuf_wakeup(void)
{
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	if (avail >= TRACERD_RINGBUF_WAKEUP &&
	    (avail & (TRACERD_RINGBUF_WAKEUP_STRIDE - 1)) < sizeof(struct tracerd_event) + 8)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void record_drop(__u32 slot)
{
	__u64 *drops = bpf_map_lookup_elem(&rec_drops, &slot);

	if (drops)
		__sync_fetch_and_add(drops, 1);
}

/*
 * The current task's comm: its 16 bytes read straight from the
 * task_struct (two loads through the BTF pointer) instead of by
 * bpf_get_current_comm, a helper call and a strscpy_pad per event
 * (docs/bench.md, "Arguments"). The kernel keeps comm NUL-terminated and
 * padded (__set_task_comm); a rename racing the read may mix two names,
 * as the helper's copy may, and the daemon bounds and escapes comm
 * anyway. The field read is a CO-RE relocation, which makes libbpf load
 * the kernel's BTF for the whole object: the objects whose modes work
 * without it (kprobe, kprobe.multi, kprobe.session, raw_tp and classic
 * tracepoints) are built a second time with HOOK_NO_TASK_BTF, the helper
 * instead (the Makefile's BPF_NOBTF), and the daemon loads that build
 * when the first does not load (daemon/bpfutil.c, bpf_skel_load;
 * tests/host/85-limits.sh: raw_tp under an RLIMIT_AS the kernel's BTF
 * does not fit in).
 */
static __always_inline void task_comm(void *dst)
{
#ifndef HOOK_NO_TASK_BTF
	const __u64 *c = (const __u64 *)bpf_get_current_task_btf()->comm;
	__u64 *d = dst;

	d[0] = c[0];
	d[1] = c[1];
#else
	bpf_get_current_comm(dst, TRACERD_COMM_LEN);
#endif
}

static __always_inline void event_fill(struct tracerd_event *e, __u32 slot, __u64 ts, __u64 dur,
				       __s64 ret, __u32 flags)
{
	__u64 id = bpf_get_current_pid_tgid();

	e->ts_ns = ts;
	e->duration_ns = dur;
	e->ret = ret;
	e->slot = slot;
	/* with the BPF JIT off the daemon replaces this call (TRACERD_CPU_UNKNOWN):
	 * daemon/bpfutil.c, bpf_obj_for_interpreter */
	e->cpu = bpf_get_smp_processor_id();
	e->pid = (__u32)(id >> 32);
	e->tid = (__u32)id;
	e->flags = flags;
	e->reserved = 0;
	task_comm(e->comm);
}

static __always_inline void record_event(__u32 slot, __u64 ts, __u64 dur, __s64 ret, __u32 flags)
{
	struct tracerd_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		record_drop(slot);
		return;
	}
	event_fill(e, slot, ts, dur, ret, flags);
	bpf_ringbuf_submit(e, ringbuf_wakeup());
}

/*
 * A slow call of a --stacks attachment: its event and its kernel stack in
 * one record (record.h, tracerd_event_stack); the daemon keeps the frames
 * of the traced code. A stack the kernel cannot give (a depth over its
 * perf_event_max_stack) leaves nr 0: the call is still recorded. Rare by
 * definition (a slow call), in a subprogram of its own.
 */
static __always_inline void record_slow_stack(void *ctx, __u64 slot_flags, __u64 ts, __u64 dur,
					 __s64 ret)
{
	struct tracerd_event_stack *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u32 slot = (__u32)slot_flags, flags = slot_flags >> 32;	/* 5 arguments at most */
	long n;

	if (!e) {
		record_drop(slot);
		return;
	}
	event_fill(&e->ev, slot, ts, dur, ret, flags | TRACERD_EV_STACK);
	n = bpf_get_stack(ctx, e->ips, sizeof(e->ips), 0);
	e->nr = n > 0 ? (__u32)(n / sizeof(__u64)) : 0;
	e->reserved = 0;
	bpf_ringbuf_submit(e, ringbuf_wakeup());
}

/*
 * Where a program finds its function's arguments (--args, --if): a
 * constant per program, so each keeps only its own way.
 */
#define HOOK_ARGS_NONE	0	/* nowhere (a classic tracepoint's record) */
#define HOOK_ARGS_FUNC	1	/* a tracing program's ctx: bpf_get_func_arg, inlined,
				 * 0 past the function's last argument */
#define HOOK_ARGS_REGS	2	/* pt_regs at the entry: the calling convention's registers */
#define HOOK_ARGS_RAW	3	/* a raw tracepoint's u64 array (tp_btf, raw_tp): read, not
				 * loaded, so no offset past its last argument is checked */

/* The sixth register argument (libbpf's bpf_tracing.h stops at the fifth before 1.2) */
#if defined(__TARGET_ARCH_x86)
#define hook_regs_parm6(x)	(((const struct pt_regs *)(x))->r9)
#elif defined(__TARGET_ARCH_arm64)
#define hook_regs_parm6(x)	(((const struct user_pt_regs *)(x))->regs[5])
#elif defined(__TARGET_ARCH_riscv)
#define hook_regs_parm6(x)	(((const struct user_regs_struct *)(x))->a5)
#else
#error "hook_regs_parm6: an architecture tracerd does not build for"
#endif

/* Argument i (a constant) of the hooked call */
static __always_inline __u64 arg_get(void *ctx, int how, int i)
{
	struct pt_regs *regs = ctx;
	__u64 v = 0;

	if (how == HOOK_ARGS_FUNC) {
		bpf_get_func_arg(ctx, i, &v);
	} else if (how == HOOK_ARGS_RAW) {
		bpf_probe_read_kernel(&v, sizeof(v), (__u64 *)ctx + i);
	} else if (how == HOOK_ARGS_REGS) {
		switch (i) {
		case 0: v = PT_REGS_PARM1(regs); break;
		case 1: v = PT_REGS_PARM2(regs); break;
		case 2: v = PT_REGS_PARM3(regs); break;
		case 3: v = PT_REGS_PARM4(regs); break;
		case 4: v = PT_REGS_PARM5(regs); break;
		case 5: v = hook_regs_parm6(regs); break;
		}
	}
	return v;
}

/*
 * Argument idx (from the map) of pt_regs: each register loaded at its
 * constant offset first, then chosen; the verifier refuses a load from
 * ctx at a variable offset, which a switch over the loads compiles to.
 */
static __always_inline __u64 regs_nth(void *ctx, __u32 idx)
{
	__u64 a0 = arg_get(ctx, HOOK_ARGS_REGS, 0), a1 = arg_get(ctx, HOOK_ARGS_REGS, 1);
	__u64 a2 = arg_get(ctx, HOOK_ARGS_REGS, 2), a3 = arg_get(ctx, HOOK_ARGS_REGS, 3);
	__u64 a4 = arg_get(ctx, HOOK_ARGS_REGS, 4), a5 = arg_get(ctx, HOOK_ARGS_REGS, 5);

	barrier_var(a0);
	barrier_var(a1);
	barrier_var(a2);
	barrier_var(a3);
	barrier_var(a4);
	barrier_var(a5);
	if (idx == 0)
		return a0;
	if (idx == 1)
		return a1;
	if (idx == 2)
		return a2;
	if (idx == 3)
		return a3;
	if (idx == 4)
		return a4;
	return idx == 5 ? a5 : 0;
}

/* Argument idx (from the map): each case a constant for arg_get */
static __always_inline __u64 arg_nth(void *ctx, int how, __u32 idx)
{
	if (how == HOOK_ARGS_REGS)
		return regs_nth(ctx, idx);
	switch (idx) {
	case 0: return arg_get(ctx, how, 0);
	case 1: return arg_get(ctx, how, 1);
	case 2: return arg_get(ctx, how, 2);
	case 3: return arg_get(ctx, how, 3);
	case 4: return arg_get(ctx, how, 4);
	case 5: return arg_get(ctx, how, 5);
	}
	return 0;
}

/*
 * --if: does this call's argument cfg->if_idx pass the comparison? The
 * value is cut to the argument's size (the upper bits of a register
 * holding an int are undefined) and extended as its type is signed or
 * not; if_val was extended the same way by the daemon.
 */
static __always_inline bool args_if_pass(void *ctx, int how, const struct tracerd_slot_cfg *cfg)
{
	__u64 v = arg_nth(ctx, how, cfg->if_idx), c = cfg->if_val;
	__u64 sh = (64 - 8 * (__u64)cfg->if_size) & 63;
	bool lt, eq;

	v <<= sh;
	v = cfg->if_signed ? (__u64)((__s64)v >> sh) : v >> sh;
	eq = v == c;
	lt = cfg->if_signed ? (__s64)v < (__s64)c : v < c;
	switch (cfg->if_op) {
	case TRACERD_IF_EQ: return eq;
	case TRACERD_IF_NE: return !eq;
	case TRACERD_IF_LT: return lt;
	case TRACERD_IF_LE: return lt || eq;
	case TRACERD_IF_GT: return !lt && !eq;
	case TRACERD_IF_GE: return !lt;
	}
	return false;
}

/* String argument i of e (a constant): a fault reads as one, never as the buffer */
static __always_inline void args_str(struct tracerd_event_args *e, int i)
{
	long n;

	if (!(e->strmask & (1U << i)))
		return;
	n = bpf_probe_read_kernel_str(e->str[i], sizeof(e->str[i]), (const void *)e->args[i]);
	if (n < 0) {
		e->faultmask |= 1U << i;
		e->str[i][0] = '\0';
	} else if (n >= (long)sizeof(e->str[i])) {
		e->truncmask |= 1U << i;
	}
}

/* The values of a call's arguments into e (all but the strings) */
static __always_inline void args_fill(struct tracerd_event_args *e, void *ctx, int how,
				      const struct tracerd_slot_cfg *cfg, __u32 slot, __u64 ts,
				      __u64 dur, __s64 ret, __u32 flags)
{
	__u32 nr = cfg->nargs;

	event_fill(&e->ev, slot, ts, dur, ret, flags | TRACERD_EV_ARGS);
	e->nr = nr > TRACERD_ARGS_MAX ? TRACERD_ARGS_MAX : nr;
	e->faultmask = 0;
	e->truncmask = 0;
	e->reserved = 0;
	e->args[0] = nr > 0 ? arg_get(ctx, how, 0) : 0;
	e->args[1] = nr > 1 ? arg_get(ctx, how, 1) : 0;
	e->args[2] = nr > 2 ? arg_get(ctx, how, 2) : 0;
	e->args[3] = nr > 3 ? arg_get(ctx, how, 3) : 0;
	e->args[4] = nr > 4 ? arg_get(ctx, how, 4) : 0;
	e->args[5] = nr > 5 ? arg_get(ctx, how, 5) : 0;
}

/*
 * A call recorded with its arguments (--args, record.h tracerd_event_args):
 * cfg's nargs raw values, and the strings of its char * ones. A function
 * without a string argument reserves the event without its string area
 * (TRACERD_EVENT_ARGS_NOSTR: 120 bytes of the ring, not 504; the daemon
 * reads a short event's strmask as 0).
 */
static __always_inline void record_args(void *ctx, int how, const struct tracerd_slot_cfg *cfg,
					__u32 slot, __u64 ts, __u64 dur, __s64 ret, __u32 flags)
{
	struct tracerd_event_args *e;

	if (!cfg->strmask) {
		e = bpf_ringbuf_reserve(&events, TRACERD_EVENT_ARGS_NOSTR, 0);
		if (!e) {
			record_drop(slot);
			return;
		}
		args_fill(e, ctx, how, cfg, slot, ts, dur, ret, flags);
		e->strmask = 0;
		bpf_ringbuf_submit(e, ringbuf_wakeup());
		return;
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		record_drop(slot);
		return;
	}
	args_fill(e, ctx, how, cfg, slot, ts, dur, ret, flags);
	e->strmask = cfg->strmask;
	args_str(e, 0);
	args_str(e, 1);
	args_str(e, 2);
	args_str(e, 3);
	args_str(e, 4);
	args_str(e, 5);
	bpf_ringbuf_submit(e, ringbuf_wakeup());
}

/*
 * A call's event: with its arguments when the slot asks for them and the
 * program sees them (how), else plain.
 */
static __always_inline void record_call(void *ctx, int how, __u32 slot, __u64 flags, __u64 ts,
					__u64 dur, __s64 ret, __u32 ev_flags)
{
	struct tracerd_slot_cfg *cfg;

	if (how != HOOK_ARGS_NONE && (flags & TRACERD_SLOT_ARGS)) {
		cfg = bpf_map_lookup_elem(&slot_cfg, &slot);
		if (cfg) {
			record_args(ctx, how, cfg, slot, ts, dur, ret, ev_flags);
			return;
		}
	}
	record_event(slot, ts, dur, ret, ev_flags);
}

/* The slot of a cloned program: the daemon patches this immediate. */
static __always_inline __u32 slot_imm(void)
{
	return (__u32)hook_imm32(TRACERD_SLOT_MAGIC);
}

/* slot_imm as a 64-bit value (a clone's slot is non-negative): no zero-extension */
static __always_inline __u64 slot_imm64(void)
{
	return hook_imm32(TRACERD_SLOT_MAGIC);
}

/*
 * The slot of a program with a BPF cookie (kprobe, kprobe.multi): its
 * immediate, or the cookie when the clone says so or it is not a clone.
 */
static __always_inline __u32 cookie_slot(void *ctx)
{
	__u32 slot = slot_imm();

	if (slot == TRACERD_SLOT_MAGIC || slot == TRACERD_SLOT_COOKIE)
		return (__u32)bpf_get_attach_cookie(ctx);
	return slot;
}

/*
 * cookie_slot as a 64-bit value: the immediate as it is (a clone's slot is
 * non-negative), so no zero-extension is left in a clone's path.
 */
static __always_inline __u64 cookie_slot64(void *ctx)
{
	__u64 slot = hook_imm32(TRACERD_SLOT_MAGIC);

	if (slot == TRACERD_SLOT_MAGIC || slot == TRACERD_SLOT_COOKIE)
		return (__u32)bpf_get_attach_cookie(ctx);
	return slot;
}

/* The slot's config (slot_cfg) when this call passes its filters, else NULL. */
static __always_inline struct tracerd_slot_cfg *slot_filter(__u32 slot)
{
	struct tracerd_slot_cfg *cfg = bpf_map_lookup_elem(&slot_cfg, &slot);
	char comm[TRACERD_COMM_LEN] __attribute__((aligned(8)));	/* task_comm: two 8-byte stores */
	int i;

	if (!cfg || !(cfg->flags & TRACERD_SLOT_ENABLED))
		return NULL;
	if ((cfg->flags & TRACERD_SLOT_TGID) &&
	    (__u32)(bpf_get_current_pid_tgid() >> 32) != cfg->tgid)
		return NULL;
	if (cfg->flags & TRACERD_SLOT_COMM) {
		task_comm(comm);
#pragma unroll
		for (i = 0; i < TRACERD_COMM_LEN; i++) {
			if (comm[i] != cfg->comm[i])
				return NULL;
			if (!comm[i])
				break;
		}
	}
	return cfg;
}

/*
 * Entry times in task storage? Only a clone may say so: in a program loaded
 * as it is the immediate is the magic, a constant the verifier prunes on,
 * so the helper is never seen where the kernel may lack it.
 */
static __always_inline bool task_ts_on(__u64 flags)
{
	return hook_imm32(TRACERD_FLAGS_MAGIC) != TRACERD_FLAGS_MAGIC &&
	       (flags & TRACERD_SLOT_TASK_TS);
}

/* Is the current task's comm the 16 bytes c0, c1 (zero-padded)? */
static __always_inline bool comm_is(__u64 c0, __u64 c1)
{
	__u64 comm[2] = {};	/* bpf_get_current_comm pads only from 6.x (strscpy_pad) */

	task_comm(comm);
	return comm[0] == c0 && comm[1] == c1;
}

/*
 * The flags of slot when this call passes its filters, else 0: from the
 * clone's immediates, or from slot_cfg in a program that is not a clone.
 */
static __always_inline __u64 slot_pass(__u32 slot)
{
	__u64 flags = hook_imm32(TRACERD_FLAGS_MAGIC);
	struct tracerd_slot_cfg *cfg;

	if (flags == TRACERD_FLAGS_MAGIC) {
		cfg = slot_filter(slot);
		return cfg ? cfg->flags : 0;
	}
	if ((flags & TRACERD_SLOT_TGID) &&
	    bpf_get_current_pid_tgid() >> 32 != hook_imm32(TRACERD_TGID_MAGIC))
		return 0;
	if ((flags & TRACERD_SLOT_COMM) &&
	    !comm_is(hook_imm64(TRACERD_COMM0_MAGIC), hook_imm64(TRACERD_COMM1_MAGIC)))
		return 0;
	return flags;
}

static __always_inline void slot_miss(__u32 slot)
{
	struct tracerd_slot_stats *st = bpf_map_lookup_elem(&slot_stats, &slot);

	if (st)
		__sync_fetch_and_add(&st->misses, 1);
}

/*
 * Push this call's entry time on the task's stack. A miss looks its slot
 * up again (rare) rather than keep the caller's row across the helper
 * call: one callee-saved register less, pushed and popped on every call.
 */
static __always_inline void task_push(__u64 slot)
{
	struct tracerd_task_ent *e;
	struct tracerd_task_ts *t;
	__u32 top;

	t = bpf_task_storage_get(&task_ts, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) {
		slot_miss(slot);
		return;
	}
	top = t->top;
	e = &t->e[top & (TRACERD_TASK_NEST - 1)];
	if (e->tag)	/* the ring wrapped: the oldest open call goes untimed */
		slot_miss(e->tag - 1);
	e->tag = slot + 1;
	t->top = top + 1;
	e->ts = bpf_ktime_get_ns();
}

/*
 * The entry time of the task's latest open call of tag (slot + 1) below
 * its top, taken off its stack; 0: none. Holes between top and that
 * entry (calls that returned out of order) leave with it. Rare: a loop,
 * in a subprogram of its own so that the registers it needs are saved
 * only when it runs, not on every return.
 */
static __noinline __u64 task_pop_deep(struct tracerd_task_ts *t, __u64 tag)
{
	struct tracerd_task_ent *e;
	__u32 k, top = t->top;
	bool holes = true;	/* nothing live between top and e */
	__u64 ts;

	for (k = 0; k < TRACERD_TASK_NEST; k++) {
		e = &t->e[(top - 1 - k) & (TRACERD_TASK_NEST - 1)];
		if (e->tag == tag) {
			ts = e->ts;
			e->tag = 0;
			if (holes)
				t->top = top - 1 - k;
			return ts;
		}
		if (e->tag)
			holes = false;
	}
	return 0;
}

/*
 * The entry time of the task's latest open call of slot, taken off its
 * stack; 0: none (entered before the hook was attached, or aged out).
 */
static __always_inline __u64 task_pop(__u64 slot)
{
	struct tracerd_task_ent *e;
	struct tracerd_task_ts *t;
	__u32 top;

	t = bpf_task_storage_get(&task_ts, bpf_get_current_task_btf(), 0, 0);
	if (!t)
		return 0;
	top = t->top - 1;
	e = &t->e[top & (TRACERD_TASK_NEST - 1)];
	if (e->tag != slot + 1)
		return task_pop_deep(t, slot + 1);
	e->tag = 0;
	t->top = top;
	return e->ts;
}

/* Push this call's entry time in the LRU hash (key: thread and slot). */
static __always_inline void hash_push(__u32 slot, struct tracerd_slot_stats *st)
{
	struct tracerd_ts_key key = { .tid = (__u32)bpf_get_current_pid_tgid(), .slot = slot };
	struct tracerd_ts_val *val, zero = {};
	__u32 d;

	val = bpf_map_lookup_elem(&entry_ts, &key);
	if (!val) {
		bpf_map_update_elem(&entry_ts, &key, &zero, BPF_NOEXIST);
		val = bpf_map_lookup_elem(&entry_ts, &key);
		if (!val) {
			__sync_fetch_and_add(&st->misses, 1);
			return;
		}
	}
	d = val->depth;
	if (d < TRACERD_NEST_MAX)
		val->ts[d & (TRACERD_NEST_MAX - 1)] = bpf_ktime_get_ns();
	else
		__sync_fetch_and_add(&st->misses, 1);	/* counted, but too deep to time */
	val->depth = d + 1;
}

/* The entry time of the thread's latest open call of slot (LRU hash); 0: none. */
static __always_inline __u64 hash_pop(__u32 slot)
{
	struct tracerd_ts_key key = { .tid = (__u32)bpf_get_current_pid_tgid(), .slot = slot };
	struct tracerd_ts_val *val;
	__u64 ts;
	__u32 d;

	val = bpf_map_lookup_elem(&entry_ts, &key);
	if (!val || !val->depth)
		return 0;	/* entered before the hook was attached */
	d = val->depth - 1;
	val->depth = d;
	if (d >= TRACERD_NEST_MAX)
		return 0;
	ts = val->ts[d & (TRACERD_NEST_MAX - 1)];
	if (!d)
		bpf_map_delete_elem(&entry_ts, &key);
	return ts;
}

/* This call's --by key for slot (flags: which kind). */
static __always_inline void by_key(struct tracerd_by_key *k, __u32 slot, __u64 flags)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->slot = slot;
	if (flags & TRACERD_SLOT_BY_PID)
		k->id = bpf_get_current_pid_tgid() >> 32;
	else if (flags & TRACERD_SLOT_BY_CGROUP)
		k->id = bpf_get_current_cgroup_id();
	else
		task_comm(k->comm);
}

/*
 * The --by row of this call: its key's, the key added when new and the
 * map has room, else the slot's other row (a full map, or an update the
 * kernel refused: -EBUSY when it nests in another update on this CPU).
 * Only under TRACERD_SLOT_BY_*, which a clone's flags immediate bakes in:
 * without it the verifier prunes this.
 */
static __always_inline struct tracerd_by_val *by_row(__u32 slot, __u64 flags, bool add)
{
	struct tracerd_by_val *v, zero = {};
	struct tracerd_by_key k;

	by_key(&k, slot, flags);
	v = bpf_map_lookup_elem(&by_keys, &k);
	if (v)
		return v;
	if (add) {
		bpf_map_update_elem(&by_keys, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&by_keys, &k);	/* ours, or another CPU's */
		if (v)
			return v;
	}
	return bpf_map_lookup_elem(&by_other, &slot);
}

/* Count this call under its --by key. */
static __always_inline void by_count(__u32 slot, __u64 flags)
{
	struct tracerd_by_val *v = by_row(slot, flags, true);

	if (v)
		__sync_fetch_and_add(&v->calls, 1);
}

/* Account a timed call under its key (the row its entry counted it in). */
static __always_inline void by_time(__u32 slot, __u64 flags, __u64 delta)
{
	struct tracerd_by_val *v = by_row(slot, flags, false);

	if (!v)
		return;
	__sync_fetch_and_add(&v->timed, 1);
	__sync_fetch_and_add(&v->lat_sum, delta);
}

/* --slower-than's threshold of slot (slot_cfg); none: no call is slow */
static __always_inline __u64 slot_slower_ns(__u32 slot)
{
	struct tracerd_slot_cfg *cfg = bpf_map_lookup_elem(&slot_cfg, &slot);

	return cfg ? cfg->slower_ns : ~0ULL;
}

/*
 * --slower-than (TRACERD_SLOT_SLOW, with TRACERD_SLOT_RECORD): a call
 * slower than the slot's threshold is counted (st->slow) and recorded,
 * with its stack under --stacks; the others are not recorded.
 */
static __always_inline void slot_slow(void *ctx, int how, __u32 slot,
				      struct tracerd_slot_stats *st, __u64 ts, __u64 delta,
				      __u64 flags, __s64 ret, __u32 ret_flags)
{
	if (delta <= slot_slower_ns(slot))
		return;
	__sync_fetch_and_add(&st->slow, 1);
	if (!(flags & TRACERD_SLOT_RECORD))
		return;
	if (flags & TRACERD_SLOT_STACKS)
		record_slow_stack(ctx, slot | (__u64)(TRACERD_EV_DURATION | ret_flags) << 32, ts,
				  delta, ret);
	else
		record_call(ctx, how, slot, flags, ts, delta, ret, TRACERD_EV_DURATION | ret_flags);
}

/* Account one call of slot timed from ts to now: histogram, sum, min, max, event. */
static __always_inline void slot_time(void *ctx, int how, __u32 slot, __u64 ts, __u64 now,
				      __u64 flags, __s64 ret, __u32 ret_flags)
{
	struct tracerd_slot_stats *st = bpf_map_lookup_elem(&slot_stats, &slot);
	__u64 b, delta = now - ts;

	if (!st)
		return;
	/* min and max are plain stores: a preempted update may miss an
	 * extreme, never a count */
	if (!st->lat_min || delta < st->lat_min)
		st->lat_min = delta;
	if (delta > st->lat_max)
		st->lat_max = delta;
	__sync_fetch_and_add(&st->lat_sum, delta);
	b = tracerd_hist_bucket(delta);
	__sync_fetch_and_add(&st->hist[b], 1);
	if (flags & TRACERD_SLOT_BY)
		by_time(slot, flags, delta);
	if (flags & TRACERD_SLOT_SLOW)
		slot_slow(ctx, how, slot, st, ts, delta, flags, ret, ret_flags);
	else if (flags & TRACERD_SLOT_RECORD)
		record_call(ctx, how, slot, flags, ts, delta, ret, TRACERD_EV_DURATION | ret_flags);
}

/*
 * Count this call under its kernel stack (--stacks). The stack map's flags
 * are 0 on purpose: its table is one stack per hash bucket, and
 * BPF_F_FAST_STACK_CMP (compare the hash only) would count a colliding
 * stack under the other's id, BPF_F_REUSE_STACKID would put the new stack
 * in the old one's bucket, so the old id's counts would read as the new
 * stack: both merge stacks silently. Without them a collision is -EEXIST
 * and a full map -ENOMEM: the call is counted in stack_drops, as one whose
 * new (slot, id) finds stack_counts full (-E2BIG). Under
 * TRACERD_SLOT_STACKS only, which a clone's flags immediate bakes in.
 * err: 0 at an entry; an error return's errno under --errors --stacks.
 */
static __always_inline void stack_count(void *ctx, __u32 slot, __u32 err)
{
	struct tracerd_stack_key k = { .slot = slot, .err = err };
	__u64 one = 1, *c;
	long id = bpf_get_stackid(ctx, &stack_traces, 0);

	if (id >= 0) {
		k.id = (__u32)id;
		c = bpf_map_lookup_elem(&stack_counts, &k);
		if (c) {
			__sync_fetch_and_add(c, 1);
			return;
		}
		if (!bpf_map_update_elem(&stack_counts, &k, &one, BPF_NOEXIST))
			return;
		c = bpf_map_lookup_elem(&stack_counts, &k);	/* another CPU's, just added */
		if (c) {
			__sync_fetch_and_add(c, 1);
			return;
		}
	}
	c = bpf_map_lookup_elem(&stack_drops, &slot);
	if (c)
		__sync_fetch_and_add(c, 1);
}

/*
 * --if: does this call pass the slot's comparison? A call that does not is
 * not counted at all (the filter, as --pid and --comm). Under
 * TRACERD_SLOT_IF only, which a clone's flags immediate bakes in.
 */
static __always_inline bool slot_if(void *ctx, int how, __u32 slot, __u64 flags)
{
	struct tracerd_slot_cfg *cfg;

	if (how == HOOK_ARGS_NONE || !(flags & TRACERD_SLOT_IF))
		return true;
	cfg = bpf_map_lookup_elem(&slot_cfg, &slot);
	return cfg && args_if_pass(ctx, how, cfg);
}

/* The entry hook; how: where this program finds the arguments (HOOK_ARGS_*) */
static __always_inline int hook_entry(void *ctx, __u32 slot, int how)
{
	struct tracerd_slot_stats *st;
	__u64 flags = slot_pass(slot);

	if (!flags || !slot_if(ctx, how, slot, flags))
		return 0;
	st = bpf_map_lookup_elem(&slot_stats, &slot);
	if (!st)
		return 0;
	__sync_fetch_and_add(&st->calls, 1);
	if (flags & TRACERD_SLOT_BY)
		by_count(slot, flags);
	/* with --errors, the stacks of failing calls only: at the return */
	if ((flags & (TRACERD_SLOT_STACKS | TRACERD_SLOT_ERRORS)) == TRACERD_SLOT_STACKS)
		stack_count(ctx, slot, 0);
	if (flags & TRACERD_SLOT_LATENCY) {
		if (task_ts_on(flags))
			task_push(slot);
		else
			hash_push(slot, st);
	} else if (flags & TRACERD_SLOT_RECORD) {
		record_call(ctx, how, slot, flags, bpf_ktime_get_ns(), 0, 0, 0);
	}
	return 0;
}

/*
 * Count ret when it is an error (trace.h, tracerd_slot_errors): only
 * under TRACERD_SLOT_ERRORS, which a clone's flags immediate bakes in, so
 * without it the verifier prunes this and the paths are as they were.
 * The low 32 bits first (an int's upper half is undefined: x86_64 eax);
 * then, for a function that returns 64 bits (the row's ret64), the upper
 * half must be all ones: a pointer or a long whose low half merely looks
 * like -4095..-1 is no error. Returns the errno counted (1..4095), 0 when
 * ret is no error.
 */
static __always_inline __u32 slot_error(__u32 slot, __s64 ret)
{
	struct tracerd_slot_errors *e;
	__u64 err = (__u32)(0U - (__u32)ret);	/* an int's errno, 0 for ret 0 */
	__u32 errno_;

	if (err - 1 >= TRACERD_ERRNO_MAX)
		return 0;
	e = bpf_map_lookup_elem(&slot_errors, &slot);
	if (!e)
		return 0;
	if (e->ret64 && (__u64)ret >> 32 != 0xffffffffULL)
		return 0;
	errno_ = (__u32)err;
	barrier_var(err);
	if (err > TRACERD_ERRNO_SLOTS - 1)
		err = 0;
	__sync_fetch_and_add(&e->count[err], 1);
	return errno_;
}

/*
 * --errors: count ret; with --stacks too, count the stack of a call that
 * failed, under its errno (trace.h, tracerd_stack_key).
 */
static __always_inline void slot_errors_count(void *ctx, __u32 slot, __u64 flags, __s64 ret)
{
	__u32 err = slot_error(slot, ret);

	if (err && (flags & TRACERD_SLOT_STACKS))
		stack_count(ctx, slot, err);
}

/*
 * The return hook; ret_flags is TRACERD_EV_RET when ret is the real return
 * value; how: where the arguments are still seen (fexit), else
 * HOOK_ARGS_NONE (a return probe's registers hold them no more).
 */
static __always_inline int hook_return_ret(void *ctx, __u32 slot, __s64 ret, __u32 ret_flags,
					   int how)
{
	__u64 flags = slot_pass(slot), now, ts;

	if (flags & TRACERD_SLOT_ERRORS)
		slot_errors_count(ctx, slot, flags, ret);
	if (!(flags & TRACERD_SLOT_LATENCY))
		return 0;
	now = bpf_ktime_get_ns();
	ts = task_ts_on(flags) ? task_pop(slot) : hash_pop(slot);
	if (ts)
		slot_time(ctx, how, slot, ts, now, flags, ret, ret_flags);
	return 0;
}

/*
 * The specialised templates (NAME_count, NAME_lat, beside NAME in each
 * object): the daemon clones one of them instead of NAME (bpf_hook_tmpl)
 * when the attachment's flags are exactly theirs, so a call runs no flag
 * test at all. The tgid immediate is 0 when the attachment has no tgid filter.
 */
static __always_inline bool fast_tgid_pass(void)
{
	__u64 tgid;

	if (!hook_imm32(TRACERD_TGID_MAGIC))
		return true;
	tgid = bpf_get_current_pid_tgid() >> 32;
	/* the immediate again after the call: no callee-saved register
	 * (pushed and popped by the JIT) to keep it across */
	return tgid == hook_imm32(TRACERD_TGID_MAGIC);
}

/* Count only (flags: ENABLED, TGID): the filter, one lookup, one add. */
static __always_inline int fast_count(__u64 slot64)
{
	struct tracerd_slot_stats *st;
	__u32 slot = slot64;

	if (!fast_tgid_pass())
		return 0;
	st = bpf_map_lookup_elem(&slot_stats, &slot);
	if (st)
		__sync_fetch_and_add(&st->calls, 1);
	return 0;
}

/*
 * Latency, entry (flags: ENABLED, LATENCY, TGID, TASK_TS). In the template
 * loaded as it is, the flags immediate holds its magic: nothing runs, and
 * the verifier never sees the task-storage helpers (bpf_clone_hook picks
 * this template only where the kernel allows them).
 */
static __always_inline int fast_lat_entry(__u64 slot64)
{
	struct tracerd_slot_stats *st;
	__u32 slot = slot64;

	if (hook_imm32(TRACERD_FLAGS_MAGIC) == TRACERD_FLAGS_MAGIC || !fast_tgid_pass())
		return 0;
	st = bpf_map_lookup_elem(&slot_stats, &slot);
	if (!st)
		return 0;
	__sync_fetch_and_add(&st->calls, 1);
	task_push(slot64);
	return 0;
}

/* Latency, return: the entry's time off the task's stack, accounted. */
static __always_inline int fast_lat_return(__u64 slot)
{
	__u64 now, ts;

	if (hook_imm32(TRACERD_FLAGS_MAGIC) == TRACERD_FLAGS_MAGIC || !fast_tgid_pass())
		return 0;
	now = bpf_ktime_get_ns();
	ts = task_pop(slot);
	if (ts)
		slot_time(NULL, HOOK_ARGS_NONE, slot, ts, now, 0, 0, 0);
	return 0;
}

#endif
