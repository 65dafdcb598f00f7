// SPDX-License-Identifier: GPL-2.0-or-later
/* Quantiles of log2 histograms; see quantile.h. */
#include <stdio.h>
#include "quantile.h"

double hist_quantile(const struct hist_bucket *b, size_t n, double q)
{
	uint64_t total = 0, cum = 0;
	double rank;
	size_t i;

	for (i = 0; i < n; i++)
		total += b[i].count;
	if (!total || q <= 0 || q > 1)
		return -1;
	rank = q * (double)total;
	for (i = 0; i < n; i++) {
		if (!b[i].count || (double)(cum + b[i].count) < rank) {
			cum += b[i].count;
			continue;
		}
		/* rank falls in bucket i: interpolate between its bounds */
		return (double)b[i].lo_ns + (double)(b[i].hi_ns - b[i].lo_ns) *
		       ((rank - (double)cum) / (double)b[i].count);
	}
	return (double)b[n - 1].hi_ns;
}

const char *fmt_ns(double ns, char *buf, size_t len)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3gms", ns / 1e6);
	else
		snprintf(buf, len, "%.3gs", ns / 1e9);
	return buf;
}
