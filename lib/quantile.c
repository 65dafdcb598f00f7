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

int hist_index(uint64_t lo_ns)
{
	int k = 0;

	while (lo_ns >> k > 1)
		k++;
	return k + (lo_ns > 0);
}

/* 2^e as bpftrace writes it: 1, 2, ..., 512, 1K, ..., 512K, 1M, ... */
static int pow2_str(int e, char *buf, size_t len)
{
	static const char suffix[] = " KMGTPE";

	return snprintf(buf, len, "%llu%.*s", 1ULL << (e % 10), e >= 10, &suffix[e / 10]);
}

const char *hist_label(uint64_t lo_ns, uint64_t hi_ns, char *buf, size_t len)
{
	int k = hist_index(lo_ns);
	char lo[16], hi[16];

	if (k <= 1 && hi_ns == lo_ns) {
		snprintf(buf, len, "[%llu]", (unsigned long long)lo_ns);
		return buf;
	}
	pow2_str(k - 1, lo, sizeof(lo));
	if (hi_ns <= lo_ns)	/* the open top bucket */
		snprintf(hi, sizeof(hi), "...");
	else
		pow2_str(k, hi, sizeof(hi));
	snprintf(buf, len, "[%s, %s)", lo, hi);
	return buf;
}

void hist_init(struct hist_bucket *b, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		b[k].lo_ns = k ? 1ULL << (k - 1) : 0;
		b[k].hi_ns = !k || k + 1 == n ? b[k].lo_ns : (1ULL << k) - 1;
		b[k].count = 0;
	}
}

#define HIST_BAR	52	/* bpftrace's bar width */

void hist_print(FILE *f, const struct hist_bucket *b, size_t n, const char *indent)
{
	static const char bar[HIST_BAR + 1] =
		"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	size_t i, first = n, last = 0;
	uint64_t max = 0;
	char label[40];

	for (i = 0; i < n; i++) {
		if (!b[i].count)
			continue;
		first = first < i ? first : i;
		last = i;
		max = b[i].count > max ? b[i].count : max;
	}
	for (i = first; i < n && i <= last; i++)
		fprintf(f, "%s%-16s %8llu |%-*.*s|\n", indent,
			hist_label(b[i].lo_ns, b[i].hi_ns, label, sizeof(label)),
			(unsigned long long)b[i].count, HIST_BAR,
			(int)(b[i].count * HIST_BAR / max), bar);
}
