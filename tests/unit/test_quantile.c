// SPDX-License-Identifier: GPL-2.0-or-later
/* hist_quantile on made-up log2 histograms with known answers. */
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

TEST_MAIN()
