// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reference programs (ref/ref.c, `tracectl bench trigger --peers`): the
 * minimal hand-written BPF a kernel engineer would write to count or time
 * one function for one process. They are what tracerd's own programs are
 * measured against, not part of tracerd: one counter in a per-CPU array
 * (count), an entry timestamp in task storage and a per-CPU log2 histogram
 * (latency). The process filter is a load-time constant. Counters are
 * atomic adds, as tracerd's are (a fentry program is preemptible and
 * tracerd has counters two programs write), so the two compare like for
 * like; fentry-count-plain has the plain ++ to show what that costs.
 * The stacks programs are bpftrace's `@[kstack] = count()` written by
 * hand: a stack map of the kernel's deepest stacks and a hash of counts
 * by stack id. The args programs send each call's time, task and first
 * argument through a ring buffer (libbpf-bootstrap's way: reserve, fill,
 * submit with the kernel's default wakeup) to ref/ref.c's reader; a full
 * ring is counted as dropped.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid;

#define REF_BUCKETS	64

struct ref_counts {
	__u64 calls, returns;
	__u64 hist[REF_BUCKETS];
	__u64 dropped;		/* args: calls the ring had no room for */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ref_counts);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} entry_ts SEC(".maps");

static __always_inline struct ref_counts *mine(void)
{
	__u32 zero = 0;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return NULL;
	return bpf_map_lookup_elem(&counts, &zero);
}

static __always_inline int count(void)
{
	struct ref_counts *c = mine();

	if (c)
		__sync_fetch_and_add(&c->calls, 1);
	return 0;
}

/* count() with a plain ++: what the atomic add costs (ref/ref.c "-plain") */
static __always_inline int count_plain(void)
{
	struct ref_counts *c = mine();

	if (c)
		c->calls++;
	return 0;
}

#define REF_STACK_DEPTH	127	/* PERF_MAX_STACK_DEPTH, as bcc's stackcount sizes it */
#define REF_STACKS	1024

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, REF_STACKS);
	__type(key, __u32);
	__uint(value_size, REF_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REF_STACKS);
	__type(key, __u32);
	__type(value, __u64);
} stack_counts SEC(".maps");

/* a call per stack; a stack not kept (a full map) is not counted, and the
 * bench then sees fewer calls than it made */
static __always_inline int count_stack(void *ctx)
{
	__u64 one = 1, *n;
	__u32 id;
	long ret;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	ret = bpf_get_stackid(ctx, &stacks, 0);
	if (ret < 0)
		return 0;
	id = (__u32)ret;
	n = bpf_map_lookup_elem(&stack_counts, &id);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return 0;
	}
	/* the first call of this stack; another CPU may have added it meanwhile */
	if (bpf_map_update_elem(&stack_counts, &id, &one, BPF_NOEXIST)) {
		n = bpf_map_lookup_elem(&stack_counts, &id);
		if (n)
			__sync_fetch_and_add(n, 1);
	}
	return 0;
}

static __always_inline int enter(void)
{
	struct ref_counts *c = mine();
	__u64 *ts;

	if (!c)
		return 0;
	__sync_fetch_and_add(&c->calls, 1);
	ts = bpf_task_storage_get(&entry_ts, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (ts)
		*ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int leave(void)
{
	struct ref_counts *c = mine();
	__u64 *ts, d;
	int b = 0;

	if (!c)
		return 0;
	ts = bpf_task_storage_get(&entry_ts, bpf_get_current_task_btf(), 0, 0);
	if (!ts || !*ts)
		return 0;
	d = bpf_ktime_get_ns() - *ts;
	*ts = 0;
	while (d && b < REF_BUCKETS - 1) {	/* bucket: bit length of d */
		d >>= 1;
		b++;
	}
	__sync_fetch_and_add(&c->hist[b & (REF_BUCKETS - 1)], 1);
	__sync_fetch_and_add(&c->returns, 1);
	return 0;
}

SEC("?fentry")
int BPF_PROG(ref_fentry_count) { return count(); }
SEC("?fentry")
int BPF_PROG(ref_fentry_count_plain) { return count_plain(); }
SEC("?fentry")
int BPF_PROG(ref_fentry_enter) { return enter(); }
SEC("?fexit")
int BPF_PROG(ref_fexit_leave) { return leave(); }
SEC("?kprobe")
int BPF_KPROBE(ref_kprobe_count) { return count(); }
SEC("?kprobe")
int BPF_KPROBE(ref_kprobe_enter) { return enter(); }
SEC("?kretprobe")
int BPF_KRETPROBE(ref_kretprobe_leave) { return leave(); }
SEC("?kprobe.multi")
int BPF_KPROBE(ref_kmulti_count) { return count(); }
SEC("?fentry")
int BPF_PROG(ref_fentry_stacks) { return count_stack(ctx); }
SEC("?kprobe")
int BPF_KPROBE(ref_kprobe_stacks) { return count_stack(ctx); }

#define REF_RING_BYTES	(4U << 20)	/* as tracerd's (include/tracerd/record.h) */

struct ref_event {
	__u64 ts, pid_tgid, arg0;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, REF_RING_BYTES);
} ref_events SEC(".maps");

static __always_inline int send_arg(__u64 arg0)
{
	struct ref_counts *c = mine();
	struct ref_event *e;

	if (!c)
		return 0;
	__sync_fetch_and_add(&c->calls, 1);
	e = bpf_ringbuf_reserve(&ref_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&c->dropped, 1);
		return 0;
	}
	e->ts = bpf_ktime_get_ns();
	e->pid_tgid = bpf_get_current_pid_tgid();
	e->arg0 = arg0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("?fentry")
int BPF_PROG(ref_fentry_args) { return send_arg(ctx[0]); }
SEC("?kprobe")
int BPF_KPROBE(ref_kprobe_args) { return send_arg(PT_REGS_PARM1(ctx)); }
