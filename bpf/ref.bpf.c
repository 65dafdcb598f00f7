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
