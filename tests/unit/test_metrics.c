// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Metrics rendering from a made-up snapshot. With METRICS_SAMPLE_DIR set,
 * also writes sample.json / sample.prom there (tests/host/61-metrics-format.sh
 * validates them with python3-jsonschema and promtool).
 */
#include <stdlib.h>
#include <time.h>
#include "test.h"
#include "../../lib/jsonutil.h"
#include "../../lib/metrics.h"
#include "../../lib/util.h"

static struct metrics_latency lat_a, lat_b;
static struct metrics_function fn_small[2], fn_glob[40];
static struct metrics_record rec = {
	.name = "sw", .file = "/var/lib/tracerd/records/sw.trec", .active = false,
	.error = "write failed: No space left on device", .events = 12, .dropped = 3,
	.bytes = 4096, .errors = 1, .rotations = 0,
};
static struct metrics_attachment atts[3];
static const struct metrics_bpf_run run = { .count = 123, .time_ns = 1500, .programs = 2 };
static const struct metrics_errno errnos[] = { { 2, 5 }, { 13, 1 }, { 0, 2 } };
static const struct metrics_errors errs = { .total = 8, .by_errno = errnos, .nr = 3 };
static const struct metrics_by_key by_top[] = {
	{ "bash", 30, 30, 3000 }, { "we\"ird\\\n", 5, 4, 400 },
};
static const struct metrics_by by_comm = {
	.by = "comm", .top = by_top, .nr = 2, .keys = 5, .calls = 42,
	.other = { NULL, 7, 6, 600 }, .other_keys = 3, .unkept_calls = 2,
};
static const struct metrics_feature feats[] = {
	{ "fentry", false, "attach to 'x' refused: Operation not permitted (EPERM)" },
	{ "tp-btf", true, NULL },
};
static struct metrics_http http = { .requests = 10, .not_found = 2, .bad_method = 1 };
static struct metrics_snapshot snap = {
	.version = "0.1.0", .kernel = "6.1.0-28-amd64", .arch = "x86_64", .hostname = "h",
	.pid = 42, .start_real_ns = 1700000000123456789ULL, .uptime_ns = 1500000000,
	.features = feats, .nr_features = 2, .kmod_present = false, .kmod_reason = "no /dev/tracerd",
	.attachments = atts, .nr_attachments = 3, .ringbuf_drops = 7, .ringbuf_yields = 3, .http = &http,
	.function_top = 10,	/* the glob's 40: its 10 busiest, the rest as __other__ */
};

static void fill(void)
{
	unsigned int i;

	lat_a.buckets[0] = 1;		/* 0 ns */
	lat_a.buckets[3] = 5;		/* [4, 8) */
	lat_a.buckets[10] = 4;		/* [512, 1024) */
	lat_a.sum_ns = 5 * 5 + 4 * 700;
	lat_a.min_ns = 0;
	lat_a.max_ns = 900;
	lat_b.buckets[TRACERD_HIST_BUCKETS - 1] = 2;	/* >= 2^38 ns */
	lat_b.sum_ns = 2ULL << 39;
	lat_b.min_ns = 1ULL << 39;
	lat_b.max_ns = 1ULL << 39;
	fn_small[0] = (struct metrics_function){ "vfs_read", 1, 10, { true, 1, NULL }, &lat_a, 3 };
	fn_small[1] = (struct metrics_function){ "vfs_write", 2, 2, { true, 0, NULL }, &lat_b, 1 };
	for (i = 0; i < ARRAY_SIZE(fn_glob); i++)
		fn_glob[i] = (struct metrics_function){ "tcp_x", 10 + i, i, { false, 0, "kprobe misses need 6.7" }, NULL, 0 };
	atts[0] = (struct metrics_attachment){ .id = 1, .target = "vfs_*", .mode = "fentry",
		.requested_mode = "auto", .mode_reason = "cheapest", .latency = true,
		.since_real_ns = 1700000001000000000ULL, .functions = fn_small, .nr_functions = 2,
		.bpf_run = &run, .by = &by_comm, .slower_ns = 5000000 };
	atts[1] = (struct metrics_attachment){ .id = 2, .target = "tcp_*", .mode = "kprobe-multi",
		.requested_mode = "kprobe-multi", .mode_reason = "requested",
		.since_real_ns = 1700000002000000000ULL, .functions = fn_glob,
		.nr_functions = ARRAY_SIZE(fn_glob), .pid = 1234, .errors = &errs,
		.bpf_run_reason = "BPF run-time statistics are off (config: bpf_stats = on)" };
	atts[2] = (struct metrics_attachment){ .id = 3, .target = "tp:sched/\"we\\ird\"\nname",
		.mode = "tp-btf", .requested_mode = "auto", .mode_reason = "tracepoint",
		.since_real_ns = 1700000003000000000ULL, .functions = fn_small, .nr_functions = 1,
		.record = &rec };
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static size_t count_prefix(const char *text, const char *prefix)
{
	size_t n = 0;
	const char *p = text;

	while ((p = strstr(p, prefix))) {
		if (p == text || p[-1] == '\n')
			n++;
		p++;
	}
	return n;
}

static void write_sample(const char *name, const char *data)
{
	const char *dir = getenv("METRICS_SAMPLE_DIR");
	char path[512];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (ASSERT_OK_PTR(f, path)) {
		fputs(data, f);
		fclose(f);
	}
}

TEST(prometheus)
{
	size_t len;
	char *t;

	fill();
	t = metrics_prometheus(&snap, &len);
	if (!ASSERT_OK_PTR(t, "render"))
		return;
	ASSERT_EQ(strlen(t), len, "length");
	ASSERT_TRUE(has_line(t, "# TYPE tracerd_calls_total counter"), "TYPE line");
	ASSERT_TRUE(has_line(t, "tracerd_calls_total{id=\"1\",target=\"vfs_*\",mode=\"fentry\"} 12"),
		    "calls summed over functions");
	/* cumulative buckets: 1 at le=0, 6 from le=7ns, 10 from le=1023ns, +Inf = count */
	ASSERT_TRUE(has_line(t, "tracerd_latency_seconds_bucket{id=\"1\",target=\"vfs_*\",mode=\"fentry\",le=\"0\"} 1"), "le 0");
	ASSERT_TRUE(has_line(t, "tracerd_latency_seconds_bucket{id=\"1\",target=\"vfs_*\",mode=\"fentry\",le=\"0.000000007\"} 6"), "le 7ns");
	ASSERT_TRUE(has_line(t, "tracerd_latency_seconds_bucket{id=\"1\",target=\"vfs_*\",mode=\"fentry\",le=\"0.000001023\"} 10"), "le 1023ns");
	ASSERT_TRUE(has_line(t, "tracerd_latency_seconds_bucket{id=\"1\",target=\"vfs_*\",mode=\"fentry\",le=\"+Inf\"} 12"), "+Inf");
	ASSERT_TRUE(has_line(t, "tracerd_latency_seconds_count{id=\"1\",target=\"vfs_*\",mode=\"fentry\"} 12"), "count");
	ASSERT_TRUE(has_line(t, "tracerd_latency_seconds_sum{id=\"1\",target=\"vfs_*\",mode=\"fentry\"} 1099.511630601"), "sum");
	/* unknown misses: no series at all for attachment 2 */
	ASSERT_FALSE(strstr(t, "tracerd_misses_total{id=\"2\""), "unknown misses absent");
	ASSERT_TRUE(has_line(t, "tracerd_misses_total{id=\"1\",target=\"vfs_*\",mode=\"fentry\"} 1"), "misses");
	/* bounded cardinality: the glob's 10 busiest (calls 39..30), the other 30 summed */
	ASSERT_EQ(count_prefix(t, "tracerd_function_calls_total{id=\"2\""), 11, "glob: top 10 + other");
	ASSERT_TRUE(has_line(t, "tracerd_function_calls_total{id=\"2\",target=\"tcp_*\",mode=\"kprobe-multi\",function=\"__other__\"} 435"), "other: calls 0..29 summed");
	ASSERT_EQ(count_prefix(t, "tracerd_function_misses_total{id=\"2\""), 0, "unknown misses: no series, no other");
	ASSERT_EQ(count_prefix(t, "tracerd_function_calls_total{id=\"1\""), 2, "per-function series");
	ASSERT_FALSE(strstr(t, "tracerd_function_calls_total{id=\"1\",target=\"vfs_*\",mode=\"fentry\",function=\"__other__\""), "2 functions: no other");
	ASSERT_TRUE(has_line(t, "tracerd_function_misses_total{id=\"1\",target=\"vfs_*\",mode=\"fentry\",function=\"vfs_read\"} 1"), "known misses");
	/* escaped label values */
	ASSERT_TRUE(strstr(t, "target=\"tp:sched/\\\"we\\\\ird\\\"\\nname\"") != NULL, "escaping");
	/* overhead unknown: absent, never 0 */
	ASSERT_FALSE(strstr(t, "tracerd_call_overhead_seconds{"), "overhead absent");
	ASSERT_TRUE(has_line(t, "tracerd_record_active{id=\"3\",target=\"tp:sched/\\\"we\\\\ird\\\"\\nname\",mode=\"tp-btf\"} 0"), "record stopped");
	ASSERT_TRUE(has_line(t, "tracerd_ringbuf_drops_total 7"), "ringbuf drops");
	ASSERT_TRUE(has_line(t, "tracerd_ringbuf_drain_yields_total 3"), "ringbuf yields");
	ASSERT_TRUE(has_line(t, "tracerd_start_time_seconds 1700000000.123456789"), "start time");
	/* BPF run statistics where known (seconds), absent elsewhere */
	ASSERT_TRUE(has_line(t, "# TYPE tracerd_bpf_runs_total counter"), "bpf runs TYPE");
	ASSERT_TRUE(has_line(t, "tracerd_bpf_runs_total{id=\"1\",target=\"vfs_*\",mode=\"fentry\"} 123"), "bpf runs");
	ASSERT_TRUE(has_line(t, "tracerd_bpf_run_seconds_total{id=\"1\",target=\"vfs_*\",mode=\"fentry\"} 0.0000015"), "bpf run seconds");
	ASSERT_EQ(count_prefix(t, "tracerd_bpf_runs_total{"), 1, "bpf runs: attachment 1 only");
	ASSERT_EQ(count_prefix(t, "tracerd_bpf_run_seconds_total{"), 1, "bpf seconds: attachment 1 only");
	/* errors: a series per errno seen, other by name */
	ASSERT_TRUE(has_line(t, "tracerd_function_errors_total{id=\"2\",target=\"tcp_*\",mode=\"kprobe-multi\",errno=\"ENOENT\"} 5"), "ENOENT");
	ASSERT_TRUE(has_line(t, "tracerd_function_errors_total{id=\"2\",target=\"tcp_*\",mode=\"kprobe-multi\",errno=\"EACCES\"} 1"), "EACCES");
	ASSERT_TRUE(has_line(t, "tracerd_function_errors_total{id=\"2\",target=\"tcp_*\",mode=\"kprobe-multi\",errno=\"other\"} 2"), "other");
	ASSERT_EQ(count_prefix(t, "tracerd_function_errors_total{"), 3, "errors: attachment 2 only");
	/* --by: a series per top key, other and unkept without the key label */
	ASSERT_TRUE(has_line(t, "# TYPE tracerd_by_calls_total counter"), "by TYPE");
	ASSERT_TRUE(has_line(t, "tracerd_by_calls_total{id=\"1\",target=\"vfs_*\",mode=\"fentry\",comm=\"bash\"} 30"), "by bash");
	ASSERT_TRUE(has_line(t, "tracerd_by_calls_total{id=\"1\",target=\"vfs_*\",mode=\"fentry\",comm=\"we\\\"ird\\\\\\n\"} 5"), "by escaped");
	ASSERT_EQ(count_prefix(t, "tracerd_by_calls_total{"), 2, "by: the top keys only");
	ASSERT_TRUE(has_line(t, "tracerd_by_other_calls_total{id=\"1\",target=\"vfs_*\",mode=\"fentry\"} 7"), "by other");
	ASSERT_TRUE(has_line(t, "tracerd_by_unkept_calls_total{id=\"1\",target=\"vfs_*\",mode=\"fentry\"} 2"), "by unkept");
	ASSERT_TRUE(has_line(t, "tracerd_by_keys{id=\"1\",target=\"vfs_*\",mode=\"fentry\"} 5"), "by keys");
	ASSERT_TRUE(has_line(t, "# TYPE tracerd_by_latency_seconds summary"), "by latency TYPE");
	ASSERT_TRUE(has_line(t, "tracerd_by_latency_seconds_sum{id=\"1\",target=\"vfs_*\",mode=\"fentry\",comm=\"bash\"} 0.000003"), "by latency sum");
	ASSERT_TRUE(has_line(t, "tracerd_by_latency_seconds_count{id=\"1\",target=\"vfs_*\",mode=\"fentry\",comm=\"bash\"} 30"), "by latency count");
	ASSERT_TRUE(has_line(t, "tracerd_by_latency_seconds_count{id=\"1\",target=\"vfs_*\",mode=\"fentry\"} 6"), "by latency other");
	ASSERT_EQ(count_prefix(t, "tracerd_by_keys{"), 1, "by: attachment 1 only");
	/* --slower-than: one counter, its functions' slow calls summed */
	ASSERT_TRUE(has_line(t, "# TYPE tracerd_slow_calls_total counter"), "slow TYPE");
	ASSERT_TRUE(has_line(t, "tracerd_slow_calls_total{id=\"1\",target=\"vfs_*\",mode=\"fentry\"} 4"), "slow calls");
	ASSERT_EQ(count_prefix(t, "tracerd_slow_calls_total{"), 1, "slow: attachment 1 only");
	write_sample("sample.prom", t);
	free(t);
}

TEST(json)
{
	json_object *o, *a, *v, *lat, *b;

	fill();
	o = metrics_json(&snap);
	if (!ASSERT_OK_PTR(o, "render"))
		return;
	ASSERT_TRUE(json_object_object_get_ex(o, "schema_version", &v) && json_object_get_int(v) == 1, "version");
	json_object_object_get_ex(o, "attachments", &a);
	ASSERT_EQ(json_object_array_length(a), 3, "attachments");
	v = json_object_array_get_idx(a, 0);
	ASSERT_EQ(json_object_get_int64(json_object_object_get(v, "calls")), 12, "calls");
	ASSERT_TRUE(json_object_object_get(v, "overhead_ns_per_call") == NULL, "overhead null");
	lat = json_object_object_get(v, "latency");
	ASSERT_EQ(json_object_get_int64(json_object_object_get(lat, "count")), 12, "latency count");
	b = json_object_object_get(lat, "buckets");
	ASSERT_EQ(json_object_array_length(b), 4, "non-empty buckets");
	ASSERT_TRUE(json_object_object_get(json_object_array_get_idx(b, 3), "hi_ns") == NULL, "open last bucket");
	ASSERT_EQ(json_object_get_int64(json_object_object_get(json_object_array_get_idx(b, 2), "hi_ns")),
		  1023, "inclusive hi_ns");
	v = json_object_array_get_idx(a, 1);
	ASSERT_TRUE(json_object_object_get(v, "misses") == NULL, "misses null");
	ASSERT_STREQ(json_object_get_string(json_object_object_get(v, "misses_reason")),
		     "kprobe misses need 6.7", "misses reason");
	/* the default page: function_top (10) of the 40, busiest first; the rest summed */
	ASSERT_EQ(json_object_array_length(json_object_object_get(v, "functions")), 10, "a page of functions");
	ASSERT_EQ(json_object_get_int64(json_object_object_get(json_object_array_get_idx(
		json_object_object_get(v, "functions"), 0), "calls")), 39, "busiest first");
	ASSERT_EQ(json_object_get_int64(json_object_object_get(v, "functions_total")), 40, "functions_total");
	b = json_object_object_get(v, "functions_other");
	ASSERT_EQ(json_object_get_int64(json_object_object_get(b, "functions")), 30, "other: functions");
	ASSERT_EQ(json_object_get_int64(json_object_object_get(b, "calls")), 435, "other: calls");
	ASSERT_TRUE(json_object_object_get(b, "misses") == NULL, "other: misses unknown");
	ASSERT_TRUE(json_object_object_get(json_object_array_get_idx(a, 0), "functions_other") == NULL,
		    "2 functions: other null");
	ASSERT_TRUE(json_object_object_get(v, "bpf_run") == NULL, "bpf_run null");
	ASSERT_STREQ(json_object_get_string(json_object_object_get(v, "bpf_run_reason")),
		     "BPF run-time statistics are off (config: bpf_stats = on)", "bpf_run reason");
	b = json_object_object_get(json_object_object_get(v, "errors"), "by_errno");
	ASSERT_EQ(json_object_array_length(b), 3, "errnos");
	ASSERT_STREQ(json_object_get_string(json_object_object_get(json_object_array_get_idx(b, 0), "name")),
		     "ENOENT", "errno name");
	ASSERT_TRUE(json_object_object_get(json_object_array_get_idx(b, 2), "errno") == NULL, "other: errno null");
	ASSERT_EQ(json_object_get_int64(json_object_object_get(json_object_object_get(v, "errors"), "total")),
		  8, "errors total");
	v = json_object_array_get_idx(a, 0);
	ASSERT_EQ(json_object_get_int64(json_object_object_get(json_object_object_get(v, "bpf_run"), "count")),
		  123, "bpf_run count");
	ASSERT_TRUE(json_object_object_get(v, "errors") == NULL, "errors null");
	b = json_object_object_get(v, "by");
	ASSERT_STREQ(json_object_get_string(json_object_object_get(b, "key")), "comm", "by key");
	ASSERT_EQ(json_object_get_int64(json_object_object_get(b, "calls")), 42, "by calls");
	ASSERT_EQ(json_object_array_length(json_object_object_get(b, "top")), 2, "by top");
	ASSERT_STREQ(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(json_object_object_get(b, "top"), 1), "key")), "we\"ird\\\n",
		"by key text");
	ASSERT_EQ(json_object_get_int64(json_object_object_get(json_object_object_get(b, "other"),
							       "unkept_calls")), 2, "by unkept");
	ASSERT_TRUE(json_object_object_get(json_object_array_get_idx(a, 1), "by") == NULL, "by null");
	write_sample("sample.json", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
}

/*
 * The text is what json-c would write for the document: parsed and written
 * again by json-c (json_line, as /metrics.json was made before the direct
 * writer), it comes out the same, byte for byte; with strings that need
 * every escape, NULL strings, doubles and a feature named twice.
 */
TEST(json_text_as_json_c)
{
	static const struct metrics_feature feats2[] = {
		{ "fentry", false, NULL }, { "tp-btf", true, NULL }, { "fentry", false, "second" },
	};
	struct metrics_snapshot s = snap;
	struct metrics_attachment a[3];
	json_object *o;
	size_t len;
	char *t, *again;

	fill();
	memcpy(a, atts, sizeof(a));
	a[0].target = "\x01\x7f\xff\xc3\xa9\xe2\x80\xae/\"\\\t";
	a[0].mode_reason = NULL;
	a[0].comm = "sh";
	a[0].overhead_known = true;
	a[0].overhead_ns_per_call = 461.5;
	a[0].overhead_cpu_seconds_total = 3.0;
	a[1].overhead_known = true;
	a[1].overhead_ns_per_call = 0.1;
	a[1].overhead_cpu_seconds_total = 1e-300;
	s.attachments = a;
	s.features = feats2;
	s.nr_features = ARRAY_SIZE(feats2);
	s.hostname = NULL;
	s.pid = -1;
	t = metrics_json_text(&s, &len);
	if (!ASSERT_OK_PTR(t, "render"))
		return;
	ASSERT_EQ(strlen(t), len, "length");
	o = json_tokener_parse(t);
	ASSERT_OK_PTR(o, "parses");
	again = json_line(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, NULL);
	ASSERT_OK_PTR(again, "json_line");
	ASSERT_STREQ(t, again ? again : "", "json-c writes the same text");
	ASSERT_TRUE(strstr(t, "\"features\":{\"fentry\":{\"available\":false,\"reason\":\"second\"},"
			   "\"tp-btf\":{\"available\":true,\"reason\":null}}") != NULL,
		    "a feature named twice: first place, last value");
	ASSERT_TRUE(strstr(t, "\"overhead_ns_per_call\":461.5,\"overhead_cpu_seconds_total\":3.0,") != NULL,
		    "doubles as json-c writes them");
	ASSERT_TRUE(strstr(t, "\"stacks_dropped\":null,\"slow_calls\":4,") != NULL,
		    "slow_calls of --slower-than");
	ASSERT_TRUE(strstr(t, "\"stacks_dropped\":null,\"slow_calls\":null,") != NULL,
		    "slow_calls null without");
	free(again);
	json_object_put(o);
	free(t);
}

TEST(empty)
{
	struct metrics_snapshot s = { .version = "0", .kernel = "k", .arch = "a" };
	json_object *o;
	size_t len;
	char *t;

	t = metrics_prometheus(&s, &len);
	ASSERT_OK_PTR(t, "prom");
	ASSERT_TRUE(has_line(t, "tracerd_attachments 0"), "no attachments");
	write_sample("empty.prom", t);
	free(t);
	o = metrics_json(&s);
	ASSERT_OK_PTR(o, "json");
	write_sample("empty.json", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
}

/* the process_* family: this test's own process, read from /proc/self;
 * process.prom also carries a measured overhead (promtool-clean too) */
TEST(process)
{
	struct metrics_snapshot s = snap;
	struct metrics_attachment a[3];
	size_t len;
	char *t;

	fill();
	memcpy(a, atts, sizeof(a));
	a[0].overhead_known = true;
	a[0].overhead_ns_per_call = 461.5;
	a[0].overhead_cpu_seconds_total = 0.25;
	s.attachments = a;

	ASSERT_OK(metrics_process_read(&s.process), "read /proc/self");
	ASSERT_TRUE(s.process.resident_bytes > 0 && s.process.virtual_bytes >= s.process.resident_bytes,
		    "memory");
	ASSERT_TRUE(s.process.open_fds >= 3 && s.process.max_fds >= s.process.open_fds, "fds");
	t = metrics_prometheus(&s, &len);
	ASSERT_OK_PTR(t, "prom");
	ASSERT_FALSE(strstr(t, "process_"), "absent unless known");
	free(t);
	s.process_known = true;
	s.process.open_fds = 9;
	s.process.cpu_seconds = 1.25;
	t = metrics_prometheus(&s, &len);
	ASSERT_OK_PTR(t, "prom");
	ASSERT_TRUE(has_line(t, "process_open_fds 9"), "open fds");
	ASSERT_TRUE(has_line(t, "process_cpu_seconds_total 1.25"), "cpu");
	ASSERT_TRUE(has_line(t, "process_start_time_seconds 1700000000.123456789"), "start");
	ASSERT_TRUE(strstr(t, "tracerd_call_overhead_seconds{id=") &&
		    strstr(t, "\"} 4.615e-07\n"), "overhead in seconds");
	write_sample("process.prom", t);
	free(t);
}

TEST(escape_label)
{
	char buf[16];

	ASSERT_OK(metrics_escape_label("a\"b\\c\nd", buf, sizeof(buf)), "escape");
	ASSERT_STREQ(buf, "a\\\"b\\\\c\\nd", "escaped");
	ASSERT_ERR(metrics_escape_label("0123456789abcdef", buf, sizeof(buf)), "too long");
}

/* calls that repeat (many ties) and spread: a made-up glob's functions */
static uint64_t made_calls(size_t i)
{
	return (i * 2654435761u) % 1009 * (i % 3);
}

static int u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

/*
 * Pages of a 1000-function attachment, 97 at a time: together every
 * function once, each page's calls the next ranks of a full sort, and
 * page + other = the attachment's calls exactly, in every page.
 */
TEST(function_pages)
{
	enum { N = 1000, L = 97 };
	static struct metrics_function fns[N];
	static uint64_t sorted[N];
	static bool seen[N];
	struct metrics_attachment a = { .functions = fns, .nr_functions = N };
	struct metrics_fn_page p;
	uint64_t total = 0, page_calls;
	size_t i, off, k, ndup = 0;

	for (i = 0; i < N; i++) {
		fns[i] = (struct metrics_function){ .name = "f", .calls = made_calls(i),
						    .misses = { true, i % 5, NULL } };
		sorted[i] = fns[i].calls;
		total += fns[i].calls;
	}
	qsort(sorted, N, sizeof(*sorted), u64_desc);
	for (off = 0; off < N + L; off += L) {
		if (!ASSERT_OK(metrics_fn_page(&a, off, L, &p), "page"))
			return;
		ASSERT_EQ(p.n, off >= N ? 0 : N - off < L ? N - off : L, "page size");
		ASSERT_EQ(p.n + p.other_n, N, "page + other = all functions");
		page_calls = 0;
		for (k = 0; k < p.n; k++) {
			ndup += seen[p.idx[k]];
			seen[p.idx[k]] = true;
			page_calls += fns[p.idx[k]].calls;
			if (!ASSERT_EQ(fns[p.idx[k]].calls, sorted[off + k], "rank order"))
				break;
			/* equal calls: in the attachment's order */
			if (k && fns[p.idx[k]].calls == fns[p.idx[k - 1]].calls)
				ASSERT_TRUE(p.idx[k] > p.idx[k - 1], "ties in order");
		}
		ASSERT_EQ(page_calls + p.other_calls, total, "page + other = calls, exactly");
		ASSERT_TRUE(p.other_misses.known, "misses all known");
		metrics_fn_page_free(&p);
	}
	ASSERT_EQ(ndup, 0, "no function in two pages");
	for (i = 0, k = 0; i < N; i++)
		k += seen[i];
	ASSERT_EQ(k, N, "every function in a page");
}

/* this thread's CPU time: a render's cost on a host whose cores are shared */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* the value of each line of text that starts with prefix, summed; *n: how many */
static uint64_t sum_prefix(const char *text, const char *prefix, size_t *n)
{
	const char *p = text, *sp, *nl;
	uint64_t sum = 0;

	*n = 0;
	while ((p = strstr(p, prefix))) {
		nl = strchr(p, '\n');
		if ((p == text || p[-1] == '\n') && nl) {
			for (sp = nl; sp > p && sp[-1] != ' '; sp--)
				;
			sum += strtoull(sp, NULL, 10);
			(*n)++;
		}
		p++;
	}
	return sum;
}

/*
 * A glob of 50,000 timed functions (more than this host's kernel lets the
 * daemon hook; the renderer is what grows with them): /metrics stays
 * under 1 MiB with the default 100 per-function series plus __other__,
 * whose calls are exactly the rest (a sum over function is the
 * attachment's tracerd_calls_total), and the JSON pages are bounded too.
 * The render times are printed (for docs/metrics.md), never asserted.
 */
TEST(scale_50k)
{
	enum { N = 50000 };
	static struct metrics_function fns[N];
	static struct metrics_latency lats[N];
	static char names[N][24];
	struct metrics_attachment a = {
		.id = 1, .target = "*", .mode = "kprobe-multi", .requested_mode = "auto",
		.mode_reason = "glob", .latency = true, .functions = fns, .nr_functions = N,
	};
	struct metrics_snapshot s = snap;
	uint64_t total = 0, sum, t0, t_prom, t_json;
	size_t i, k, n, len, jlen;
	char line[160], *t, *j;

	for (i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "kernel_function_%05zu", i);
		lats[i].buckets[i % TRACERD_HIST_BUCKETS] = made_calls(i);
		lats[i].sum_ns = made_calls(i) * 100;
		fns[i] = (struct metrics_function){ names[i], (uint32_t)i, made_calls(i),
						    { true, i % 2, NULL }, &lats[i], 0 };
		total += made_calls(i);
	}
	s.attachments = &a;
	s.nr_attachments = 1;
	s.function_top = 0;	/* the default, METRICS_FUNCTION_TOP_DEFAULT (100) */
	t_prom = UINT64_MAX;
	for (k = 0, t = NULL; k < 5; k++) {	/* the fastest of 5: this host is shared */
		free(t);
		t0 = cpu_ns();
		t = metrics_prometheus(&s, &len);
		if (cpu_ns() - t0 < t_prom)
			t_prom = cpu_ns() - t0;
	}
	if (!ASSERT_OK_PTR(t, "render"))
		return;
	ASSERT_TRUE(len <= 1 << 20, "/metrics of 50k functions <= 1 MiB");
	sum = sum_prefix(t, "tracerd_function_calls_total{id=\"1\"", &n);
	ASSERT_EQ(n, METRICS_FUNCTION_TOP_DEFAULT + 1, "100 function series + __other__");
	ASSERT_EQ(sum, total, "sum over function = the attachment's calls, exactly");
	snprintf(line, sizeof(line), "tracerd_calls_total{id=\"1\",target=\"*\",mode=\"kprobe-multi\"} %" PRIu64, total);
	ASSERT_TRUE(has_line(t, line), "tracerd_calls_total");
	sum = sum_prefix(t, "tracerd_function_misses_total{id=\"1\"", &n);
	ASSERT_EQ(n, METRICS_FUNCTION_TOP_DEFAULT + 1, "misses: 100 + __other__");
	ASSERT_EQ(sum, N / 2, "misses summed over function: exact");
	ASSERT_EQ(count_prefix(t, "tracerd_latency_seconds_bucket{"), TRACERD_HIST_BUCKETS,
		  "one histogram per attachment, not per function");
	t_json = UINT64_MAX;
	for (k = 0, j = NULL; k < 5; k++) {
		free(j);
		t0 = cpu_ns();
		j = metrics_json_text(&s, &jlen);
		if (cpu_ns() - t0 < t_json)
			t_json = cpu_ns() - t0;
	}
	ASSERT_OK_PTR(j, "json");
	ASSERT_TRUE(jlen <= 1 << 20, "/metrics.json's default page <= 1 MiB");
	fprintf(stderr, "  scale_50k: /metrics %zu bytes in %.2f ms, /metrics.json (100 a page) %zu bytes in %.2f ms (CPU time, fastest of 5)\n",
		len, t_prom / 1e6, jlen, t_json / 1e6);
	free(t);
	free(j);
	s.json_offset = N - 10;
	s.json_limit = 100;
	j = metrics_json_text(&s, &jlen);
	if (ASSERT_OK_PTR(j, "json page")) {
		json_object *o = json_tokener_parse(j), *at, *f;

		at = json_object_array_get_idx(json_object_object_get(o, "attachments"), 0);
		f = json_object_object_get(at, "functions");
		ASSERT_EQ(json_object_array_length(f), 10, "the last page: 10 functions");
		ASSERT_EQ(json_object_get_int64(json_object_object_get(
			json_object_object_get(at, "functions_other"), "functions")), N - 10, "other");
		json_object_put(o);
		free(j);
	}
}

TEST_MAIN()
