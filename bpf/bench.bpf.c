// SPDX-License-Identifier: GPL-2.0-only
/*
 * `tracectl bench trigger`, variant "empty": the smallest program that
 * still counts exactly, one per BPF path, so the cost of the hook shows
 * apart from tracerd's own program body (bpf/hook.bpf.h). Like the BPF
 * selftests' bench trig-* programs it counts; unlike them it filters on
 * the benchmark's tgid, so only the benchmark's own calls are counted.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 bench_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} bench_hits SEC(".maps");

static __always_inline int bench_hit(void)
{
	__u32 key = 0;
	__u64 *c;

	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != bench_tgid)
		return 0;
	c = bpf_map_lookup_elem(&bench_hits, &key);
	if (c)
		__sync_fetch_and_add(c, 1);	/* preempt-safe, as tracerd's */
	return 0;
}

SEC("?fentry")
int bench_fentry(void *ctx)
{
	return bench_hit();
}

SEC("?kprobe")
int bench_kprobe(void *ctx)
{
	return bench_hit();
}

SEC("?kprobe.multi")
int bench_kprobe_multi(void *ctx)
{
	return bench_hit();
}
