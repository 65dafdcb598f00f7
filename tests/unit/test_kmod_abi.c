// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kmod ioctl ABI must not change by accident: ioctl numbers and struct
 * layouts are pinned here. Changing one on purpose means a new ioctl number
 * (never a reused one) and updating this test in the same commit.
 */
#include <stddef.h>
#include <tracerd/kmod_abi.h>
#include "test.h"

TEST(version_ioctl_number)
{
	ASSERT_EQ(TRACERD_IOC_VERSION, 0x80287801, "TRACERD_IOC_VERSION");
	ASSERT_EQ(_IOC_TYPE(TRACERD_IOC_VERSION), 'x', "magic");
}

TEST(version_struct_layout)
{
	ASSERT_EQ(sizeof(struct tracerd_version), 40, "size");
	ASSERT_EQ(offsetof(struct tracerd_version, abi_minor), 4, "abi_minor");
	ASSERT_EQ(offsetof(struct tracerd_version, module_version), 8, "module_version");
}

TEST(ioctl_numbers)
{
	ASSERT_EQ(TRACERD_IOC_FEATURES, 0x80887802, "FEATURES");
	ASSERT_EQ(TRACERD_IOC_ATTACH, 0xc0a87803, "ATTACH");
	ASSERT_EQ(TRACERD_IOC_DETACH, 0x40087804, "DETACH");
	ASSERT_EQ(TRACERD_IOC_COUNTERS, 0xc0407805, "COUNTERS");
	ASSERT_EQ(TRACERD_IOC_STATS, 0x80407806, "STATS");
	ASSERT_EQ(TRACERD_IOC_BENCH_OPS, 0xc0687807, "BENCH_OPS");
	ASSERT_EQ(TRACERD_IOC_BENCH_PATCH, 0xc0407808, "BENCH_PATCH");
}

TEST(features_layout)
{
	ASSERT_EQ(sizeof(struct tracerd_features), 136, "size");
	ASSERT_EQ(offsetof(struct tracerd_features, modes), 8, "modes");
	ASSERT_EQ(offsetof(struct tracerd_features, linux_version_code), 16, "version code");
	ASSERT_EQ(offsetof(struct tracerd_features, max_calls), 32, "max_calls");
	ASSERT_EQ(offsetof(struct tracerd_features, arch), 56, "arch");
	ASSERT_EQ(offsetof(struct tracerd_features, release), 72, "release");
}

TEST(attach_layout)
{
	ASSERT_EQ(sizeof(struct tracerd_attach), 168, "size");
	ASSERT_EQ(offsetof(struct tracerd_attach, mode), 8, "mode");
	ASSERT_EQ(offsetof(struct tracerd_attach, tgid), 16, "tgid");
	ASSERT_EQ(offsetof(struct tracerd_attach, id), 24, "id");
	ASSERT_EQ(offsetof(struct tracerd_attach, probe_addr), 32, "probe_addr");
	ASSERT_EQ(offsetof(struct tracerd_attach, name), 40, "name");
	ASSERT_EQ(sizeof(((struct tracerd_attach *)0)->name), TRACERD_NAME_LEN, "name size");
	ASSERT_EQ(sizeof(struct tracerd_detach), 8, "detach size");
}

TEST(counters_stats_layout)
{
	ASSERT_EQ(sizeof(struct tracerd_counters), 64, "counters size");
	ASSERT_EQ(offsetof(struct tracerd_counters, hits), 8, "hits");
	ASSERT_EQ(offsetof(struct tracerd_counters, missed), 24, "missed");
	ASSERT_EQ(offsetof(struct tracerd_counters, mode), 48, "mode");
	ASSERT_EQ(sizeof(struct tracerd_stats), 64, "stats size");
	ASSERT_EQ(offsetof(struct tracerd_stats, direct_slots), 24, "direct_slots");
}

TEST(bench_layout)
{
	ASSERT_EQ(sizeof(struct tracerd_bench_ops), 104, "ops size");
	ASSERT_EQ(offsetof(struct tracerd_bench_ops, reps), 96, "reps");
	ASSERT_EQ(offsetof(struct tracerd_bench_ops, calls), 8, "calls");
	ASSERT_EQ(offsetof(struct tracerd_bench_ops, relevant), 16, "relevant");
	ASSERT_EQ(offsetof(struct tracerd_bench_ops, total_ns), 24, "total_ns");
	ASSERT_EQ(offsetof(struct tracerd_bench_ops, hits), 64, "hits");
	ASSERT_EQ(offsetof(struct tracerd_bench_ops, detach_ns), 88, "detach_ns");
	ASSERT_EQ(sizeof(struct tracerd_bench_patch), 64, "patch size");
	ASSERT_EQ(offsetof(struct tracerd_bench_patch, one_attach_ns), 16, "one_attach_ns");
	ASSERT_EQ(offsetof(struct tracerd_bench_patch, sep_hits), 56, "sep_hits");
}

TEST(modes_and_flags)
{
	ASSERT_EQ(TRACERD_KMOD_CALLOPS, 1, "callops");
	ASSERT_EQ(TRACERD_KMOD_DIRECT, 2, "direct");
	ASSERT_EQ(TRACERD_KMOD_KPROBE, 3, "kprobe");
	ASSERT_EQ(TRACERD_KMOD_KPROBE_INT3, 4, "kprobe-int3");
	ASSERT_EQ(TRACERD_KMOD_MODE_MAX, 4, "max");
	ASSERT_EQ(TRACERD_ATTACH_SAVE_REGS, 1, "SAVE_REGS");
	ASSERT_EQ(TRACERD_ATTACH_FLAGS, 1, "all flags");
}

TEST(limits)
{
	ASSERT_EQ(TRACERD_NAME_LEN, 128, "name");
	ASSERT_EQ(TRACERD_BENCH_MAX_RELEVANT, 200, "R");
	ASSERT_EQ(TRACERD_BENCH_MAX_IRRELEVANT, 1000, "I");
	ASSERT_EQ(TRACERD_BENCH_MAX_FUNCS, 1024, "K");
	ASSERT_EQ(TRACERD_BENCH_MAX_REPS, 100, "reps");
}

TEST_MAIN()
