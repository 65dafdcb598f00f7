/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Quantiles of a log2 latency histogram (buckets as tracerd reports them:
 * [lo, hi] ns and a count), linearly interpolated inside the bucket the
 * rank falls in, as Prometheus' histogram_quantile does.
 */
#ifndef TRACERD_LIB_QUANTILE_H
#define TRACERD_LIB_QUANTILE_H

#include <stddef.h>
#include <stdint.h>

struct hist_bucket {
	uint64_t lo_ns, hi_ns;		/* inclusive bounds */
	uint64_t count;
};

/* The q-quantile (0 < q <= 1) of n buckets in ascending order; -1 when empty. */
double hist_quantile(const struct hist_bucket *b, size_t n, double q);
/* "850ns", "1.5us", "12ms", "2.0s"; "-" for a negative value */
const char *fmt_ns(double ns, char *buf, size_t len);

#endif
