// SPDX-License-Identifier: GPL-2.0-or-later
/* hist_quantile on made-up log2 histograms with known answers. */
#include <stdlib.h>
#include "test.h"
#include "../../lib/quantile.h"

TEST(empty)
{
	struct hist_bucket b[1] = { { 0, 0, 0 } };

	ASSERT_TRUE(hist_quantile(b, 1, 0.5) < 0, "empty histogram");
	ASSERT_TRUE(hist_quantile(b, 0, 0.5) < 0, "no buckets");
}

TEST(interpolated)
{
	/* 10 calls in [512, 1023], 30 in [1024, 2047] (the rules test's shape) */
	struct hist_bucket b[] = { { 512, 1023, 10 }, { 1024, 2047, 30 } };
	double p50 = hist_quantile(b, 2, 0.5), p99 = hist_quantile(b, 2, 0.99);

	/* rank 20: 10 into the second bucket of 30 -> 1024 + 1023 / 3 */
	ASSERT_TRUE(p50 > 1364.9 && p50 < 1365.1, "p50");
	/* rank 39.6: 29.6 of 30 -> 1024 + 1023 * 29.6 / 30 */
	ASSERT_TRUE(p99 > 2033.3 && p99 < 2033.5, "p99");
	ASSERT_TRUE(hist_quantile(b, 2, 1.0) == 2047, "p100 is the top bound");
	ASSERT_TRUE(hist_quantile(b, 2, 0.25) == 1023, "p25: the end of the first bucket");
}

TEST(skips_empty_buckets)
{
	struct hist_bucket b[] = { { 0, 0, 0 }, { 1, 1, 0 }, { 64, 127, 4 }, { 128, 255, 0 } };

	ASSERT_TRUE(hist_quantile(b, 4, 0.5) == 64 + 63 * 0.5, "p50 inside the only bucket");
	ASSERT_TRUE(hist_quantile(b, 4, 0.0) < 0, "q = 0 refused");
}

TEST(format)
{
	char buf[16];

	ASSERT_STREQ(fmt_ns(850, buf, sizeof(buf)), "850ns", "ns");
	ASSERT_STREQ(fmt_ns(1500, buf, sizeof(buf)), "1.5us", "us");
	ASSERT_STREQ(fmt_ns(12e6, buf, sizeof(buf)), "12ms", "ms");
	ASSERT_STREQ(fmt_ns(-1, buf, sizeof(buf)), "-", "unknown");
}

TEST(labels)
{
	char buf[40];

	ASSERT_STREQ(hist_label(0, 0, buf, sizeof(buf)), "[0]", "zero");
	ASSERT_STREQ(hist_label(1, 1, buf, sizeof(buf)), "[1]", "one");
	ASSERT_STREQ(hist_label(2, 3, buf, sizeof(buf)), "[2, 4)", "two");
	ASSERT_STREQ(hist_label(512, 1023, buf, sizeof(buf)), "[512, 1K)", "to 1K");
	ASSERT_STREQ(hist_label(1024, 2047, buf, sizeof(buf)), "[1K, 2K)", "K");
	ASSERT_STREQ(hist_label(1ULL << 20, (1ULL << 21) - 1, buf, sizeof(buf)), "[1M, 2M)", "M");
	ASSERT_STREQ(hist_label(1ULL << 38, 1ULL << 38, buf, sizeof(buf)), "[256G, ...)", "open");
	ASSERT_TRUE(hist_index(0) == 0 && hist_index(1) == 1 && hist_index(2) == 2 &&
		    hist_index(1024) == 11, "indexes");
}

TEST(print)
{
	struct hist_bucket b[8];
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	hist_init(b, 8);
	ASSERT_TRUE(b[3].lo_ns == 4 && b[3].hi_ns == 7 && b[7].hi_ns == 64, "bounds");
	b[2].count = 12;
	b[4].count = 26;	/* empty [4, 8) between them is printed, [0], [1] are not */
	f = open_memstream(&out, &len);
	hist_print(f, b, 8, "  ");
	fclose(f);
	ASSERT_STREQ(out,
		     "  [2, 4)                 12 |@@@@@@@@@@@@@@@@@@@@@@@@                            |\n"
		     "  [4, 8)                  0 |                                                    |\n"
		     "  [8, 16)                26 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n",
		     "bpftrace layout");
	free(out);
	hist_init(b, 8);
	f = open_memstream(&out, &len);
	hist_print(f, b, 8, "");
	fclose(f);
	ASSERT_STREQ(out, "", "empty: nothing");
	free(out);
}

TEST_MAIN()
