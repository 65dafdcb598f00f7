// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kmod ioctl ABI must not change by accident: ioctl numbers and struct
 * layouts are pinned here, one table row each. Changing one on purpose
 * means a new ioctl number (never a reused one) and updating this test in
 * the same commit.
 */
#include <stddef.h>
#include <tracerd/kmod_abi.h>
#include "test.h"

struct pin {
	const char *what;
	long long got, want;
};
#define PIN(expr, want) { #expr, (long long)(expr), (want) }
#define OFF(type, field, want) PIN(offsetof(struct type, field), want)

static void check(const struct pin *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(p[i].got, p[i].want, p[i].what);
}
#define CHECK(table) check(table, sizeof(table) / sizeof(table[0]))

TEST(ioctl_numbers)
{
	static const struct pin t[] = {
		PIN(_IOC_TYPE(TRACERD_IOC_VERSION), 'x'),
		PIN(TRACERD_IOC_VERSION, 0x80287801),
		PIN(TRACERD_IOC_FEATURES, 0x80887802),
		PIN(TRACERD_IOC_ATTACH, 0xc0a87803),
		PIN(TRACERD_IOC_DETACH, 0x40087804),
		PIN(TRACERD_IOC_COUNTERS, 0xc0407805),
		PIN(TRACERD_IOC_STATS, 0x80407806),
		PIN(TRACERD_IOC_BENCH_OPS, 0xc0687807),
		PIN(TRACERD_IOC_BENCH_PATCH, 0xc0407808),
		PIN(TRACERD_IOC_SITE, 0xc0787809),
		PIN(TRACERD_IOC_BENCH_ALL, 0xc040780a),
		PIN(TRACERD_IOC_ATTACH_BATCH, 0xc020780b),
		PIN(TRACERD_IOC_SITES, 0xc018780d),
		PIN(TRACERD_IOC_DETACH_BATCH, 0xc020780c),
		PIN(TRACERD_IOC_LATENCY, 0xc180780e),
		PIN(TRACERD_IOC_ATTACH2, 0xc0c8780f),
		PIN(TRACERD_IOC_ATTACH_BATCH2, 0xc0407810),
		PIN(TRACERD_IOC_STACKS, 0xc0487811),
		PIN(TRACERD_IOC_COUNTERS_BATCH, 0xc0187812),
	};
	CHECK(t);
}

TEST(struct_layouts)
{
	static const struct pin t[] = {
		PIN(sizeof(struct tracerd_version), 40),
		OFF(tracerd_version, abi_minor, 4),
		OFF(tracerd_version, module_version, 8),
		PIN(sizeof(struct tracerd_features), 136),
		OFF(tracerd_features, modes, 8),
		OFF(tracerd_features, linux_version_code, 16),
		OFF(tracerd_features, max_calls, 32),
		OFF(tracerd_features, arch, 56),
		OFF(tracerd_features, release, 72),
		PIN(sizeof(struct tracerd_attach), 168),
		OFF(tracerd_attach, mode, 8),
		OFF(tracerd_attach, tgid, 16),
		OFF(tracerd_attach, id, 24),
		OFF(tracerd_attach, probe_addr, 32),
		OFF(tracerd_attach, name, 40),
		PIN(sizeof(((struct tracerd_attach *)0)->name), TRACERD_NAME_LEN),
		PIN(sizeof(struct tracerd_detach), 8),
		PIN(sizeof(struct tracerd_counters), 64),
		PIN(sizeof(struct tracerd_counters_entry), 40),
		OFF(tracerd_counters_entry, hits, 8),
		OFF(tracerd_counters_entry, missed, 24),
		OFF(tracerd_counters_entry, error, 32),
		PIN(sizeof(struct tracerd_counters_batch), 24),
		OFF(tracerd_counters_batch, count, 8),
		OFF(tracerd_counters_batch, done, 12),
		OFF(tracerd_counters_batch, reserved, 16),
		PIN(TRACERD_COUNTERS_BATCH_MAX, 4096),
		OFF(tracerd_counters, hits, 8),
		OFF(tracerd_counters, missed, 24),
		OFF(tracerd_counters, mode, 48),
		PIN(sizeof(struct tracerd_stats), 64),
		OFF(tracerd_stats, direct_slots, 24),
		PIN(sizeof(struct tracerd_bench_ops), 104),
		OFF(tracerd_bench_ops, calls, 8),
		OFF(tracerd_bench_ops, relevant, 16),
		OFF(tracerd_bench_ops, total_ns, 24),
		OFF(tracerd_bench_ops, hits, 64),
		OFF(tracerd_bench_ops, detach_ns, 88),
		OFF(tracerd_bench_ops, reps, 96),
		PIN(sizeof(struct tracerd_bench_patch), 64),
		OFF(tracerd_bench_patch, one_attach_ns, 16),
		OFF(tracerd_bench_patch, sep_hits, 56),
		PIN(sizeof(struct tracerd_site), 120),
		OFF(tracerd_site, target, 16),
		OFF(tracerd_site, tramp, 24),
		OFF(tracerd_site, path, 32),
		OFF(tracerd_site, insn, 36),
		OFF(tracerd_site, target_sym, 56),
		PIN(sizeof(struct tracerd_bench_all), 64),
		OFF(tracerd_bench_all, attach_ns, 8),
		OFF(tracerd_bench_all, tracee_hits, 32),
		OFF(tracerd_bench_all, reserved, 40),
		PIN(sizeof(struct tracerd_batch_entry), 160),
		OFF(tracerd_batch_entry, id, 8),
		OFF(tracerd_batch_entry, error, 24),
		OFF(tracerd_batch_entry, name, 32),
		PIN(sizeof(struct tracerd_batch), 32),
		OFF(tracerd_batch, count, 8),
		OFF(tracerd_batch, tgid, 20),
		OFF(tracerd_batch, done, 24),
		PIN(sizeof(struct tracerd_site_entry), 256),
		OFF(tracerd_site_entry, ops_call, 32),
		OFF(tracerd_site_entry, kind, 40),
		OFF(tracerd_site_entry, error, 52),
		OFF(tracerd_site_entry, reserved, 56),
		OFF(tracerd_site_entry, target_sym, 64),
		OFF(tracerd_site_entry, ops_sym, 128),
		OFF(tracerd_site_entry, ops_call_sym, 192),
		PIN(sizeof(struct tracerd_sites), 24),
		OFF(tracerd_sites, count, 8),
		OFF(tracerd_sites, done, 12),
		OFF(tracerd_sites, reserved, 16),
		OFF(tracerd_features, latency_modes, 52),
		PIN(sizeof(struct tracerd_latency), 384),
		OFF(tracerd_latency, count, 8),
		OFF(tracerd_latency, min_ns, 24),
		OFF(tracerd_latency, missed, 40),
		/* 1.8: stacks */
		PIN(sizeof(struct tracerd_stacks), 72),
		OFF(tracerd_stacks, buf, 8),
		OFF(tracerd_stacks, size, 16),
		OFF(tracerd_stacks, need, 24),
		OFF(tracerd_stacks, dropped, 32),
		OFF(tracerd_stacks, stacks, 40),
		OFF(tracerd_stacks, total, 44),
		OFF(tracerd_stacks, depth, 48),
		OFF(tracerd_stacks, slots, 52),
		OFF(tracerd_stacks, reserved, 56),
		PIN(sizeof(struct tracerd_stack_rec), 16),
		OFF(tracerd_stack_rec, nr, 8),
		OFF(tracerd_latency, hist, 64),
		/* 1.6: the old layouts are the new ones' prefixes */
		PIN(sizeof(struct tracerd_attach2), 200),
		OFF(tracerd_attach2, mode, 8),
		OFF(tracerd_attach2, tgid, 16),
		OFF(tracerd_attach2, argw, 20),	/* 1.7: was reserved */
		OFF(tracerd_attach2, id, 24),
		OFF(tracerd_attach2, probe_addr, 32),
		OFF(tracerd_attach2, name, 40),
		OFF(tracerd_attach2, comm, 168),
		OFF(tracerd_attach2, stack_depth, 184),	/* 1.8: was reserved2[0] */
		OFF(tracerd_attach2, stack_slots, 188),
		OFF(tracerd_attach2, reserved2, 192),
		PIN(sizeof(struct tracerd_batch2), 64),
		OFF(tracerd_batch2, count, 8),
		OFF(tracerd_batch2, tgid, 20),
		OFF(tracerd_batch2, done, 24),
		OFF(tracerd_batch2, reserved, 28),
		OFF(tracerd_batch2, comm, 32),
		OFF(tracerd_batch2, stack_depth, 48),	/* 1.8: was reserved2[0] */
		OFF(tracerd_batch2, stack_slots, 52),
		OFF(tracerd_batch2, reserved2, 56),
		/* 1.7: argw where reserved was, stats.draining */
		OFF(tracerd_attach, argw, 20),
		OFF(tracerd_batch_entry, argw, 28),
		OFF(tracerd_stats, draining, 32),
	};
	CHECK(t);
}

TEST(constants)
{
	static const struct pin t[] = {
		PIN(TRACERD_ABI_MAJOR, 1),
		PIN(TRACERD_KMOD_CALLOPS, 1),
		PIN(TRACERD_KMOD_DIRECT, 2),
		PIN(TRACERD_KMOD_KPROBE, 3),
		PIN(TRACERD_KMOD_KPROBE_INT3, 4),
		PIN(TRACERD_KMOD_MODE_MAX, 4),
		PIN(TRACERD_ATTACH_SAVE_REGS, 1),
		PIN(TRACERD_ATTACH_LATENCY, 2),
		PIN(TRACERD_ATTACH_STACKS, 4),
		PIN(TRACERD_ATTACH_FLAGS, 7),
		PIN(TRACERD_STACK_MAX_DEPTH, 127),
		PIN(TRACERD_STACK_SLOTS, 1024),
		PIN(TRACERD_FEAT_STACKS, 1ULL << 11),
		PIN(TRACERD_LAT_BUCKETS, 40),
		PIN(TRACERD_ABI_MINOR >= 6, 1),
		PIN(TRACERD_ABI_MINOR, 9),
		PIN(TRACERD_MAX_ATTACH, 262144),
		PIN(TRACERD_COMM_FILTER_LEN, 16),
		PIN(TRACERD_SITE_NOP, 0),
		PIN(TRACERD_SITE_DIRECT, 1),
		PIN(TRACERD_SITE_CALLER, 2),
		PIN(TRACERD_SITE_UNKNOWN, 3),
		PIN(TRACERD_NAME_LEN, 128),
		PIN(TRACERD_BENCH_MAX_RELEVANT, 200),
		PIN(TRACERD_BENCH_MAX_IRRELEVANT, 1000),
		PIN(TRACERD_BENCH_MAX_FUNCS, 1024),
		PIN(TRACERD_BENCH_MAX_REPS, 100),
		PIN(TRACERD_SITES_MAX, 64),
		PIN(TRACERD_SITEK_NOP, 0),
		PIN(TRACERD_SITEK_CALLER, 1),
		PIN(TRACERD_SITEK_OPS_TRAMP, 2),
		PIN(TRACERD_SITEK_TRACERD, 3),
		PIN(TRACERD_SITEK_BPF, 4),
		PIN(TRACERD_SITEK_OTHER, 5),
		PIN(TRACERD_SITEK_UNKNOWN, 6),
		PIN(TRACERD_SITEOPS_NONE, 0),
		PIN(TRACERD_SITEOPS_LIST, 1),
		PIN(TRACERD_SITEOPS_NOP, 2),
		PIN(TRACERD_SITEOPS_TRACERD, 3),
		PIN(TRACERD_SITEOPS_OTHER, 4),
	};
	CHECK(t);
}

TEST_MAIN()
