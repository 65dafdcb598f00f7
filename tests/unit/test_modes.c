// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The mode table (include/tracerd/modes.h): names round-trip, and what
 * lib/modes.c answers from a row's columns (kind, target, path) is what the
 * rest of the tree used to check by hand, so a new row needs no new case
 * anywhere else. The record files store mode numbers: they must not move.
 */
#include "../../lib/modes.h"
#include "test.h"

TEST(names_round_trip)
{
	int m;

	for (m = 0; m < TRACERD_MODE_NR; m++)
		ASSERT_EQ(tracerd_mode_parse(tracerd_mode_name(m)), m, tracerd_mode_name(m));
	ASSERT_ERR(tracerd_mode_parse("no-such-mode"), "unknown name");
	ASSERT_STREQ(tracerd_mode_name(TRACERD_MODE_NR), "unknown", "out of range");
}

TEST(numbers_stable)
{
	/* record files name their targets' modes by these numbers */
	ASSERT_EQ(TRACERD_MODE_AUTO, 0, "auto");
	ASSERT_EQ(TRACERD_MODE_FENTRY, 1, "fentry");
	ASSERT_EQ(TRACERD_MODE_TP_BTF, 5, "tp-btf");
	ASSERT_EQ(TRACERD_MODE_KMOD_KPROBE, 8, "kmod-kprobe");
	ASSERT_EQ(TRACERD_MODE_FENTRY_MULTI, 11, "fentry-multi");
}

TEST(columns)
{
	int m;

	ASSERT_FALSE(tracerd_mode_is_function(TRACERD_MODE_AUTO), "auto hooks nothing itself");
	ASSERT_FALSE(tracerd_mode_is_tracepoint(TRACERD_MODE_AUTO), "auto");
	ASSERT_FALSE(tracerd_mode_is_kmod(TRACERD_MODE_AUTO), "auto");
	ASSERT_STREQ(tracerd_mode_path_name(TRACERD_MODE_AUTO), "", "auto's path");
	ASSERT_FALSE(tracerd_mode_is_function(TRACERD_MODE_NR), "out of range");
	ASSERT_TRUE(tracerd_mode_is_tracepoint(TRACERD_MODE_TP_BTF), "tp-btf");
	ASSERT_FALSE(tracerd_mode_is_function(TRACERD_MODE_TP_BTF), "tp-btf");
	ASSERT_STREQ(tracerd_mode_path_name(TRACERD_MODE_FENTRY), "direct-call", "fentry");
	ASSERT_STREQ(tracerd_mode_path_name(TRACERD_MODE_KMOD_CALLOPS), "indirect", "callops");
	ASSERT_STREQ(tracerd_mode_path_name(TRACERD_MODE_KPROBE_INT3), "kprobe", "int3");
	ASSERT_STREQ(tracerd_mode_path_name(TRACERD_MODE_FSESSION), "direct-call", "fsession");
	ASSERT_STREQ(tracerd_mode_path_name(TRACERD_MODE_KPROBE_SESSION), "indirect", "kprobe-session");
	ASSERT_STREQ(tracerd_mode_path_name(TRACERD_MODE_TP_BTF), "tracepoint", "tp-btf");
	for (m = 1; m < TRACERD_MODE_NR; m++) {
		const char *n = tracerd_mode_name(m);

		/* the hand-written checks these replace */
		ASSERT_EQ(tracerd_mode_is_kmod(m), !strncmp(n, "kmod-", 5), n);
		ASSERT_EQ(tracerd_mode_is_function(m), m != TRACERD_MODE_TP_BTF, n);
		ASSERT_EQ(tracerd_mode_is_tracepoint(m), !tracerd_mode_is_function(m), n);
		ASSERT_TRUE(tracerd_mode_path_name(m)[0], n);
		ASSERT_EQ(tracerd_mode_kind(m) == TRACERD_MODE_KIND_BPF, !tracerd_mode_is_kmod(m),
			  n);
	}
}

TEST_MAIN()
