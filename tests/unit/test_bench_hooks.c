// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli/bench_hooks.c: the one list of hooks the bench suites and the report
 * compare, derived per suite by predicate (bench trigger: all; bench ops:
 * the kmod ones; bench workload: all but save_regs; the report: grouped by
 * hook path). Each name is a mode of the mode table or one of its variants.
 */
#include <string.h>
#include "../../lib/modes.h"
#include "../../cli/bench.h"
#include "test.h"

static bool same(const char *const *got, int n, const char *const *want, int nwant,
		 const char *what)
{
	int i;

	if (!ASSERT_EQ(n, nwant, what))
		return false;
	for (i = 0; i < n; i++)
		if (!ASSERT_STREQ(got[i], want[i], what))
			return false;
	return true;
}

TEST(bench_hooks_lists)
{
	static const char *const all[] = {
		"kprobe", "kprobe-int3", "kprobe-multi", "fentry", "kmod-callops",
		"kmod-callops+regs", "kmod-direct", "kmod-kprobe", "kmod-kprobe-int3",
	};
	static const char *const kmod[] = {
		"kmod-callops", "kmod-callops+regs", "kmod-direct",
		"kmod-kprobe",	"kmod-kprobe-int3",
	};
	static const char *const no_regs[] = {
		"kprobe", "kprobe-int3", "kprobe-multi", "fentry", "kmod-callops",
		"kmod-direct", "kmod-kprobe", "kmod-kprobe-int3",
	};
	const char *out[BENCH_MAX_HOOKS];

	same(out, bench_hooks(out, BENCH_HOOKS_ALL), all, 9, "trigger's default");
	same(out, bench_hooks(out, BENCH_HOOKS_KMOD), kmod, 5, "ops's default");
	same(out, bench_hooks(out, BENCH_HOOKS_NO_REGS), no_regs, 8, "workload's default");
}

TEST(bench_hooks_from_the_mode_table)
{
	const char *out[BENCH_MAX_HOOKS];
	char base[40];
	int i, n = bench_hooks(out, BENCH_HOOKS_ALL), m;

	for (i = 0; i < n; i++) {
		/* "kmod-callops+regs" -> kmod-callops, "kmod-kprobe-int3" -> kmod-kprobe */
		snprintf(base, sizeof(base), "%s", out[i]);
		base[strcspn(base, "+")] = 0;
		if (!strcmp(base, "kmod-kprobe-int3"))
			base[strlen("kmod-kprobe")] = 0;
		m = tracerd_mode_parse(base);
		ASSERT_TRUE(m > 0 && tracerd_mode_is_function(m), out[i]);
		ASSERT_EQ(bench_hook_is_kmod(out[i]), m > 0 && tracerd_mode_is_kmod(m), out[i]);
		ASSERT_TRUE(bench_hook_listed(out[i]), out[i]);
	}
	ASSERT_FALSE(bench_hook_listed("fsession"), "a table mode without a row");
	ASSERT_FALSE(bench_hook_listed("tp-btf"), "not a function mode");
	ASSERT_FALSE(bench_hook_is_kmod("kmod-nosuch"), "unknown");
}

TEST(bench_hooks_latency)
{
	ASSERT_FALSE(bench_hook_counts_only("kmod-kprobe"), "kretprobe");
	ASSERT_FALSE(bench_hook_counts_only("kmod-callops"), "fprobe");
	ASSERT_FALSE(bench_hook_counts_only("kmod-direct"), "its trampoline");
	ASSERT_TRUE(bench_hook_counts_only("kmod-callops+regs"), "save_regs");
	ASSERT_TRUE(bench_hook_counts_only("kmod-kprobe-int3"), "int3");
	ASSERT_FALSE(bench_hook_counts_only("fentry"), "BPF");
}

TEST(bench_hooks_paths)
{
	static const char *const path[] = {
		"kprobe", "kprobe", "kprobe (int3)", "kprobe (int3)", "indirect", "indirect",
		"indirect", "direct call", "direct call",
	};
	static const char *const mode[] = {
		"kprobe", "kmod-kprobe", "kprobe-int3", "kmod-kprobe-int3", "kprobe-multi",
		"kmod-callops", "kmod-callops+regs", "fentry", "kmod-direct",
	};
	const char *p[BENCH_MAX_HOOKS], *m[BENCH_MAX_HOOKS];
	int n = bench_hook_paths(p, m);

	same(p, n, path, 9, "the report's paths");
	same(m, n, mode, 9, "the report's rows");
}

TEST_MAIN()
