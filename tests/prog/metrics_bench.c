// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metrics_bench [-a ATTACHMENTS] [-f FUNCTIONS] [-b BUCKETS] [-n RENDERS] [-o DIR] [-B] [-E]
 *
 * Times lib/metrics.c on a made-up snapshot, as the daemon renders it for
 * HTTP: /metrics (metrics_prometheus) and /metrics.json
 * (metrics_json_text). ATTACHMENTS attachments (default 1000) of
 * FUNCTIONS timed functions each (default 1), every
 * function with BUCKETS non-empty latency buckets (default 32). Prints the
 * min, median and max of RENDERS renders (default 50) of each format, in ms,
 * and the body sizes. With -o, writes both bodies to DIR/metrics.prom and
 * DIR/metrics.json (the snapshot is the same on every run, so two builds'
 * outputs can be diffed). -B: every attachment but the kmod ones has BPF
 * run statistics (bpf_stats = on); -E: every other one counts errors
 * (--errors, 3 errnos seen). A benchmark: it reports, never asserts a time.
 * docs/limits.md ("Rendering cost and idle memory") has numbers and the command.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../../lib/metrics.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "metrics_bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct metrics_feature feats[] = {
		{ "kprobe", false, "no kprobes in this kernel (CONFIG_KPROBES)" },
		{ "fentry", false, "attach to 'x' refused: Operation not permitted (EPERM)" },
		{ "tp-btf", true, NULL },
		{ "raw_tp", true, NULL },
	};
	static const char *const modes[] = { "fentry", "kprobe-multi", "tp-btf", "kmod-callops" };
	struct metrics_http http = { .requests = 1234, .not_found = 2, .bad_method = 1,
				     .renders = { 100, 50 }, .held_bytes = 1 << 20, .open_fds = 2100 };
	struct metrics_snapshot s = {
		.version = "0.1.0", .kernel = "6.1.0-28-amd64", .arch = "x86_64", .hostname = "bench",
		.pid = 4242, .start_real_ns = 1700000000123456789ull, .uptime_ns = 86400123456789ull,
		.features = feats, .nr_features = sizeof(feats) / sizeof(feats[0]),
		.kmod_reason = "no /dev/tracerd", .ringbuf_drops = 7, .ringbuf_yields = 3,
		.config_attach_lines = 12, .http = &http, .process_known = true,
		.process = { 12.5, 11 << 20, 300 << 20, 2100, 65536 },
	};
	unsigned long natt = 1000, nfn = 1, nbuckets = 32, n = 50, i, j, k;
	struct metrics_attachment *atts;
	struct metrics_function *fns;
	struct metrics_latency *lats;
	struct metrics_record rec = { .name = "sw", .file = "/var/lib/tracerd/records/sw.trec",
				      .active = true, .events = 123456, .bytes = 1 << 20 };
	uint64_t *t[2], t0;
	size_t len[2] = { 0, 0 };
	char *names, *targets, *body;
	const char *dir = NULL;
	bool bpf = false, errs = false;
	struct metrics_bpf_run *runs;
	static const struct metrics_errno by_errno[] = { { 2, 1000 }, { 13, 10 }, { 0, 1 } };
	static const struct metrics_errors errors = { 1011, by_errno, 3 };
	int c, f;

	while ((c = getopt(argc, argv, "a:f:b:n:o:BE")) != -1) {
		switch (c) {
		case 'a': natt = strtoul(optarg, NULL, 10); break;
		case 'f': nfn = strtoul(optarg, NULL, 10); break;
		case 'b': nbuckets = strtoul(optarg, NULL, 10); break;
		case 'n': n = strtoul(optarg, NULL, 10); break;
		case 'o': dir = optarg; break;
		case 'B': bpf = true; break;
		case 'E': errs = true; break;
		default:
			fprintf(stderr, "usage: metrics_bench [-a ATTACHMENTS] [-f FUNCTIONS] "
				"[-b BUCKETS] [-n RENDERS] [-o DIR] [-B] [-E]\n");
			return 2;
		}
	}
	if (!natt || !nfn || !n || natt > 100000 || nfn > 100000 || natt * nfn > 1000000 ||
	    nbuckets > TRACERD_HIST_BUCKETS) {
		fprintf(stderr, "metrics_bench: 1 <= a, f <= 100000, a * f <= 1000000, b <= %d, n >= 1\n",
			TRACERD_HIST_BUCKETS);
		return 2;
	}
	atts = calloc(natt, sizeof(*atts));
	fns = calloc(natt * nfn, sizeof(*fns));
	lats = calloc(natt * nfn, sizeof(*lats));
	names = calloc(natt * nfn, 32);
	targets = calloc(natt, 48);
	runs = calloc(natt, sizeof(*runs));
	t[0] = calloc(n, sizeof(uint64_t));
	t[1] = calloc(n, sizeof(uint64_t));
	if (!atts || !fns || !lats || !names || !targets || !runs || !t[0] || !t[1]) {
		fprintf(stderr, "metrics_bench: out of memory\n");
		return 1;
	}
	for (i = 0; i < natt * nfn; i++) {
		struct metrics_latency *l = &lats[i];
		uint64_t calls = 0;

		/* the first nbuckets buckets, spread over the 40: 0 ns to the open one */
		for (k = 0; k < nbuckets; k++) {
			size_t b = nbuckets > 1 ? k * (TRACERD_HIST_BUCKETS - 1) / (nbuckets - 1) : 3;

			l->buckets[b] = 1 + (i * 7 + k * 13) % 1000;
			calls += l->buckets[b];
		}
		l->sum_ns = calls * 1234 + i;
		l->min_ns = nbuckets == 1 ? 4 : 0;	/* bucket 0 holds 0 ns */
		l->max_ns = 1ull << 38;
		snprintf(names + i * 32, 32, "fn_%06lu", i);
		fns[i] = (struct metrics_function){
			.name = names + i * 32, .slot = (uint32_t)(i % 4096), .calls = calls,
			.misses = { true, i % 5, NULL }, .latency = nbuckets ? l : NULL,
		};
		if (i % 10 == 9)
			fns[i].misses = (struct metrics_opt_u64){ false, 0, "not reported for this mode" };
	}
	for (i = 0; i < natt; i++) {
		/* every 97th: what escaping must handle (quotes, backslash, newline,
		 * control bytes, DEL, invalid and valid UTF-8, a slash) */
		snprintf(targets + i * 48, 48, i % 97 == 5 ? "tp:x/\"q\\\n\x01\t\x7f\xff\xc3\xa9%lu" :
			 i % 2 ? "tp:task/task_rename" : "vfs_%lu*", i);
		atts[i] = (struct metrics_attachment){
			.id = (unsigned int)i + 1, .target = targets + i * 48, .mode = modes[i % 4],
			.requested_mode = "auto", .mode_reason = "cheapest available mode here",
			.latency = nbuckets > 0, .pid = i % 3 ? 0 : 100000 + (uint32_t)i,
			.comm = i % 7 ? "" : "bash", .since_real_ns = 1700000001000000000ull + i * 1000,
			.functions = fns + i * nfn, .nr_functions = nfn,
			.record = i % 50 ? NULL : &rec,
			.overhead_known = i % 4 == 0, .overhead_ns_per_call = 42.25 + (double)i / 8,
			.overhead_cpu_seconds_total = 0.001 * (double)i,
		};
		runs[i] = (struct metrics_bpf_run){ 1000000 + i, 123456789 + i * 1000, 2 };
		if (bpf && i % 4 != 3)
			atts[i].bpf_run = &runs[i];
		else
			atts[i].bpf_run_reason = "BPF run-time statistics are off (config: bpf_stats = on)";
		if (errs && i % 2)
			atts[i].errors = &errors;
	}
	s.attachments = atts;
	s.nr_attachments = natt;

	for (f = 0; f < 2; f++) {
		for (j = 0; j <= n; j++) {	/* one unmeasured render first */
			t0 = now_ns();
			body = f ? metrics_json_text(&s, &len[f]) : metrics_prometheus(&s, &len[f]);
			if (j)
				t[f][j - 1] = now_ns() - t0;
			if (!body) {
				fprintf(stderr, "metrics_bench: render failed\n");
				return 1;
			}
			if (!j && dir && write_file(dir, f ? "metrics.json" : "metrics.prom", body, len[f]))
				return 1;
			free(body);
		}
		qsort(t[f], n, sizeof(uint64_t), cmp_u64);
	}
	printf("snapshot: %lu attachments x %lu functions, %lu latency buckets each; %lu renders\n",
	       natt, nfn, nbuckets, n);
	printf("%-14s %10s %10s %10s %10s\n", "format", "min ms", "median ms", "max ms", "bytes");
	for (f = 0; f < 2; f++)
		printf("%-14s %10.3f %10.3f %10.3f %10zu\n", f ? "/metrics.json" : "/metrics",
		       t[f][0] / 1e6, t[f][n / 2] / 1e6, t[f][n - 1] / 1e6, len[f]);
	free(t[0]);
	free(t[1]);
	free(targets);
	free(names);
	free(lats);
	free(fns);
	free(atts);
	return 0;
}
