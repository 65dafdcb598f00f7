// SPDX-License-Identifier: GPL-2.0
/*
 * Foundation smoke test: count entries/exits of one function (fentry/fexit,
 * kprobe/kretprobe) or of one syscall (tp_btf sys_enter), for one process.
 * Every program is off by default ('?'); the loader enables one pair.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <tracerd/smoke.h>

const volatile __u32 target_tgid;
const volatile long target_syscall_nr = -1;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SMOKE_NR_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline int bump(__u32 slot)
{
	__u64 *v;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	v = bpf_map_lookup_elem(&counts, &slot);
	if (v)
		(*v)++;
	return 0;
}

SEC("?fentry")
int BPF_PROG(smoke_fentry)
{
	return bump(SMOKE_ENTRY);
}

SEC("?fexit")
int BPF_PROG(smoke_fexit)
{
	return bump(SMOKE_EXIT);
}

SEC("?kprobe")
int BPF_KPROBE(smoke_kprobe)
{
	return bump(SMOKE_ENTRY);
}

SEC("?kretprobe")
int BPF_KRETPROBE(smoke_kretprobe)
{
	return bump(SMOKE_EXIT);
}

SEC("?tp_btf/sys_enter")
int BPF_PROG(smoke_sys_enter, struct pt_regs *regs, long id)
{
	if (id != target_syscall_nr)
		return 0;
	return bump(SMOKE_ENTRY);
}

char LICENSE[] SEC("license") = "GPL";
