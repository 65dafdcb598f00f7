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
#include <stdio.h>

struct hist_bucket {
	uint64_t lo_ns, hi_ns;		/* inclusive bounds */
	uint64_t count;
};

/* The q-quantile (0 < q <= 1) of n buckets in ascending order; -1 when empty. */
double hist_quantile(const struct hist_bucket *b, size_t n, double q);
/* "850ns", "1.5us", "12ms", "2.0s"; "-" for a negative value */
const char *fmt_ns(double ns, char *buf, size_t len);

/*
 * Log2 buckets from a histogram as tracerd reports it (JSON "buckets":
 * [lo, hi] ns each, lo = 0 or a power of two) into hist[idx]: the index
 * of the bucket whose lower bound is lo_ns (0 -> 0, 2^(k-1) -> k).
 */
int hist_index(uint64_t lo_ns);
/* n empty log2 buckets with their bounds (the last one open: hi = lo) */
void hist_init(struct hist_bucket *b, size_t n);
/* The bucket label bpftrace prints: "[0]", "[1]", "[2, 4)", "[1K, 2K)", "[256G, ...)". */
const char *hist_label(uint64_t lo_ns, uint64_t hi_ns, char *buf, size_t len);
/*
 * A bpftrace-style histogram (@usecs), from the first to the last
 * non-empty bucket: label, count and a bar of '@' scaled to the largest
 * count, each line prefixed with indent. Nothing for an empty histogram.
 */
void hist_print(FILE *f, const struct hist_bucket *b, size_t n, const char *indent);

#endif
