/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counting and latency logic shared by every tracerd BPF program.
 *
 * The three maps are created once by the daemon (daemon/maps.c) and reused
 * by every object (bpf_map__reuse_fd), so one slot index means the same
 * thing whichever mode hooks the function. Entry timestamps are kept per
 * task and slot with a small stack, so nested and concurrent calls are
 * timed correctly.
 */
#ifndef TRACERD_HOOK_BPF_H
#define TRACERD_HOOK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
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

static __always_inline void record_event(__u32 slot, __u64 ts, __u64 dur, __s64 ret, __u32 flags)
{
	struct tracerd_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u64 id = bpf_get_current_pid_tgid(), *drops;

	if (!e) {
		drops = bpf_map_lookup_elem(&rec_drops, &slot);
		if (drops)
			(*drops)++;
		return;
	}
	e->ts_ns = ts;
	e->duration_ns = dur;
	e->ret = ret;
	e->slot = slot;
	e->cpu = bpf_get_smp_processor_id();
	e->pid = (__u32)(id >> 32);
	e->tid = (__u32)id;
	e->flags = flags;
	e->reserved = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
}

/* The slot of a cloned program: the daemon patches this immediate. */
static __always_inline __u32 slot_imm(void)
{
	__u64 slot;

	asm volatile("%0 = %1" : "=r"(slot) : "i"(TRACERD_SLOT_MAGIC));
	return (__u32)slot;
}

/* The slot's config when this call passes its filters, else NULL. */
static __always_inline struct tracerd_slot_cfg *slot_filter(__u32 slot)
{
	struct tracerd_slot_cfg *cfg = bpf_map_lookup_elem(&slot_cfg, &slot);
	char comm[TRACERD_COMM_LEN];
	int i;

	if (!cfg || !(cfg->flags & TRACERD_SLOT_ENABLED))
		return NULL;
	if ((cfg->flags & TRACERD_SLOT_TGID) &&
	    (__u32)(bpf_get_current_pid_tgid() >> 32) != cfg->tgid)
		return NULL;
	if (cfg->flags & TRACERD_SLOT_COMM) {
		bpf_get_current_comm(comm, sizeof(comm));
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

static __always_inline int hook_entry(__u32 slot)
{
	struct tracerd_ts_key key = {};
	struct tracerd_slot_stats *st;
	struct tracerd_slot_cfg *cfg;
	struct tracerd_ts_val *val, zero = {};
	__u32 d;

	cfg = slot_filter(slot);
	if (!cfg)
		return 0;
	st = bpf_map_lookup_elem(&slot_stats, &slot);
	if (!st)
		return 0;
	st->calls++;
	if (!(cfg->flags & TRACERD_SLOT_LATENCY)) {
		if (cfg->flags & TRACERD_SLOT_RECORD)
			record_event(slot, bpf_ktime_get_ns(), 0, 0, 0);
		return 0;
	}
	key.tid = (__u32)bpf_get_current_pid_tgid();
	key.slot = slot;
	val = bpf_map_lookup_elem(&entry_ts, &key);
	if (!val) {
		bpf_map_update_elem(&entry_ts, &key, &zero, BPF_NOEXIST);
		val = bpf_map_lookup_elem(&entry_ts, &key);
		if (!val) {
			st->misses++;
			return 0;
		}
	}
	d = val->depth;
	if (d < TRACERD_NEST_MAX)
		val->ts[d & (TRACERD_NEST_MAX - 1)] = bpf_ktime_get_ns();
	else
		st->misses++;	/* counted, but too deep to time */
	val->depth = d + 1;
	return 0;
}

/* The return hook; ret_flags is TRACERD_EV_RET when ret is the real return value. */
static __always_inline int hook_return_ret(__u32 slot, __s64 ret, __u32 ret_flags)
{
	struct tracerd_ts_key key = {};
	struct tracerd_slot_stats *st;
	struct tracerd_slot_cfg *cfg;
	struct tracerd_ts_val *val;
	__u64 now = bpf_ktime_get_ns(), delta, b;
	__u32 d;

	cfg = slot_filter(slot);
	if (!cfg || !(cfg->flags & TRACERD_SLOT_LATENCY))
		return 0;
	key.tid = (__u32)bpf_get_current_pid_tgid();
	key.slot = slot;
	val = bpf_map_lookup_elem(&entry_ts, &key);
	if (!val || !val->depth)
		return 0;	/* entered before the hook was attached */
	d = val->depth - 1;
	val->depth = d;
	if (d >= TRACERD_NEST_MAX)
		return 0;
	delta = now - val->ts[d & (TRACERD_NEST_MAX - 1)];
	if (!d)
		bpf_map_delete_elem(&entry_ts, &key);
	st = bpf_map_lookup_elem(&slot_stats, &slot);
	if (!st)
		return 0;
	if (!st->lat_count || delta < st->lat_min)
		st->lat_min = delta;
	if (delta > st->lat_max)
		st->lat_max = delta;
	st->lat_count++;
	st->lat_sum += delta;
	/* 64-bit, clamped in place: older verifiers (6.1) lose the bound
	 * when clang compares a zero-extended copy of a 32-bit index */
	b = tracerd_hist_bucket(delta);
	barrier_var(b);
	if (b > TRACERD_HIST_BUCKETS - 1)
		b = TRACERD_HIST_BUCKETS - 1;
	st->hist[b]++;
	if (cfg->flags & TRACERD_SLOT_RECORD)
		record_event(slot, now - delta, delta, ret, TRACERD_EV_DURATION | ret_flags);
	return 0;
}

static __always_inline int hook_return(__u32 slot)
{
	return hook_return_ret(slot, 0, 0);
}

#endif
