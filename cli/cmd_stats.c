// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl stats [ID|TARGET|FUNCTION] [--merge] [--hist] [--bpf] [--top N]
 * [--interval S [--count K]]: calls, misses and, for latency attachments, p50/p90/p99
 * of the log2 histogram (lib/quantile.c) and with --hist the histogram as
 * bpftrace prints one; the attachments' BPF run count and time where the
 * daemon has them (bpf_stats = on), with --bpf why not where it has not. --interval S samples every
 * S seconds and prints what happened in each interval (calls, calls/s, misses, the interval's
 * percentiles) until ^C or K intervals. Attachments made with --by: their
 * top N keys by calls (--top, default by_top) and the rest as other.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tracerd/trace.h>
#include "../lib/config.h"
#include "../lib/quantile.h"
#include "../lib/util.h"
#include "stacks.h"
#include "tracectl.h"

#define STATS_MAX	4096	/* rows followed by --interval */
#define STATS_TOP	20	/* rows shown without --top or --all: a glob's busiest */

/* one row of a stats reply: a hooked function of an attachment (or merged) */
struct stats_row {
	long long id;		/* -1: merged */
	char function[128], mode[32];
	uint64_t calls, misses;
	bool misses_known, timed;
	bool slow_known;		/* --slower-than: slow is its calls slower than it */
	uint64_t slow;
	uint64_t lat_count, lat_sum, lat_min, lat_max;
	struct hist_bucket hist[TRACERD_HIST_BUCKETS];
	bool errors;		/* counts errors (--errors) */
	uint64_t err_total;
	char err_text[160];	/* "ENOENT 10, EACCES 2" (the first that fit) */
};

struct stats_snap {
	struct stats_row *rows;
	size_t n;
	uint64_t t_ns;
	long long total;	/* rows the daemon has (its reply's total) */
	struct stats_row *iv;	/* --interval: the interval's rows, most calls first */
};

struct stats_opts {
	bool hist, merge, bpf, stacks;
	bool all;		/* --all: every row */
	unsigned long long top;	/* --top N, else 0 */
	int format;		/* enum stacks_format; -1: none given */
	const char *out;	/* -o FILE */
	double interval;	/* 0: one reply */
	unsigned long long count;	/* intervals; 0: until ^C */
};

static volatile sig_atomic_t stats_stop;

static void on_signal(int sig)
{
	(void)sig;
	stats_stop = 1;
}

static void row_latency(struct stats_row *r, json_object *lat)
{
	json_object *b = jarr(lat, "buckets");
	size_t i, n = jlen(b);
	int k;

	r->timed = true;
	r->lat_count = (uint64_t)jint(lat, "count", 0);
	r->lat_sum = (uint64_t)jint(lat, "sum_ns", 0);
	r->lat_min = (uint64_t)jint(lat, "min_ns", 0);
	r->lat_max = (uint64_t)jint(lat, "max_ns", 0);
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(b, i);

		k = hist_index((uint64_t)jint(e, "lo_ns", 0));
		if (k < TRACERD_HIST_BUCKETS)
			r->hist[k].count += (uint64_t)jint(e, "count", 0);
	}
}

static void row_errors(struct stats_row *r, json_object *e)
{
	json_object *arr = jarr(e, "by_errno"), *x;
	size_t i, off = 0;
	int n;

	r->errors = true;
	r->err_total = (uint64_t)jint(e, "total", 0);
	for (i = 0; i < jlen(arr); i++) {
		x = json_object_array_get_idx(arr, i);
		n = snprintf(r->err_text + off, sizeof(r->err_text) - off, "%s%s %lld",
			     i ? ", " : "", jtty(x, "name", "?"), jint(x, "count", 0));
		if (n < 0 || (size_t)n >= sizeof(r->err_text) - off) {
			r->err_text[off] = '\0';
			snprintf(r->err_text + off, sizeof(r->err_text) - off, ", ...");
			break;
		}
		off += (size_t)n;
	}
}

static void row_from_json(struct stats_row *r, json_object *s)
{
	memset(r, 0, sizeof(*r));
	r->id = json_object_is_type(jget(s, "id"), json_type_int) ? jint(s, "id", 0) : -1;
	snprintf(r->function, sizeof(r->function), "%s", jtty(s, "function", "?"));
	snprintf(r->mode, sizeof(r->mode), "%s", jtty(s, "mode", "(merged)"));
	r->calls = (uint64_t)jint(s, "calls", 0);
	r->misses_known = json_object_is_type(jget(s, "misses"), json_type_int);
	r->misses = (uint64_t)jint(s, "misses", 0);
	r->slow_known = json_object_is_type(jget(s, "slow"), json_type_int);
	r->slow = (uint64_t)jint(s, "slow", 0);
	hist_init(r->hist, TRACERD_HIST_BUCKETS);
	if (jobj(s, "latency"))
		row_latency(r, jobj(s, "latency"));
	if (jobj(s, "errors"))
		row_errors(r, jobj(s, "errors"));
}

/* The daemon's stats for args (not consumed) into snap (--interval: STATS_MAX rows at most). */
static int snap_fetch(struct cli *cli, json_object *args, struct stats_snap *snap)
{
	json_object *r, *arr;
	size_t i, n;
	int ret;

	ret = client_call(cli, "stats", json_object_get(args), &r);
	if (ret)
		return ret;
	arr = jarr(r, "stats");
	n = jlen(arr) < STATS_MAX ? jlen(arr) : STATS_MAX;
	free(snap->rows);
	snap->rows = calloc(n + 1, sizeof(*snap->rows));
	snap->n = snap->rows ? n : 0;
	snap->t_ns = now_mono_ns();
	snap->total = jint(r, "total", (long long)jlen(arr));
	for (i = 0; i < snap->n; i++)
		row_from_json(&snap->rows[i], json_object_array_get_idx(arr, i));
	json_object_put(r);
	return snap->rows ? 0 : cli_error(cli, EXIT_FAILURE_, "error", "out of memory");
}

static const struct stats_row *snap_find(const struct stats_snap *s, const struct stats_row *r)
{
	size_t i;

	for (i = 0; s && i < s->n; i++)
		if (s->rows[i].id == r->id && !strcmp(s->rows[i].function, r->function))
			return &s->rows[i];
	return NULL;
}

/* r minus was (the same row a sample earlier): what happened in between */
static void row_sub(struct stats_row *r, const struct stats_row *was)
{
	int k;

	if (!was)
		return;
	r->calls -= was->calls <= r->calls ? was->calls : r->calls;
	r->misses -= was->misses <= r->misses ? was->misses : r->misses;
	r->lat_count -= was->lat_count <= r->lat_count ? was->lat_count : r->lat_count;
	r->lat_sum -= was->lat_sum <= r->lat_sum ? was->lat_sum : r->lat_sum;
	for (k = 0; k < TRACERD_HIST_BUCKETS; k++)
		if (was->hist[k].count <= r->hist[k].count)
			r->hist[k].count -= was->hist[k].count;
}

/* q-quantile of r's histogram; totals know min and max, and the quantile stays inside them */
static double row_quantile(const struct stats_row *r, double q, bool totals)
{
	double v = hist_quantile(r->hist, TRACERD_HIST_BUCKETS, q);

	if (totals && v >= 0 && v > (double)r->lat_max)
		v = (double)r->lat_max;
	if (totals && v >= 0 && v < (double)r->lat_min)
		v = (double)r->lat_min;
	return v;
}

/* "latency: N calls, avg A, p50 X, p90 Y, p99 Z" (min/max for totals only) */
static void print_latency(const struct stats_row *r, bool totals)
{
	char a[16], p50[16], p90[16], p99[16], lo[16], hi[16];

	printf("     latency: %llu calls, avg %s, p50 %s, p90 %s, p99 %s",
	       (unsigned long long)r->lat_count,
	       fmt_ns(r->lat_count ? (double)r->lat_sum / (double)r->lat_count : -1, a, sizeof(a)),
	       fmt_ns(row_quantile(r, 0.5, totals), p50, sizeof(p50)),
	       fmt_ns(row_quantile(r, 0.9, totals), p90, sizeof(p90)),
	       fmt_ns(row_quantile(r, 0.99, totals), p99, sizeof(p99)));
	if (totals && r->lat_count)
		printf(", min %s, max %s", fmt_ns((double)r->lat_min, lo, sizeof(lo)),
		       fmt_ns((double)r->lat_max, hi, sizeof(hi)));
	putchar('\n');
}

static void print_hist(const struct stats_row *r)
{
	if (!r->lat_count)
		return;
	printf("\n@ns[%s]:\n", r->function);
	hist_print(stdout, r->hist, TRACERD_HIST_BUCKETS, "");
	putchar('\n');
}

static void print_row(const struct stats_row *r, const struct stats_opts *o, double dt)
{
	char id[24], misses[24], rate[32];

	snprintf(id, sizeof(id), r->id < 0 ? "*" : "%lld", r->id);
	snprintf(misses, sizeof(misses), r->misses_known ? "%llu" : "-",
		 (unsigned long long)r->misses);
	if (dt > 0) {
		snprintf(rate, sizeof(rate), "%.1f", (double)r->calls / dt);
		printf("%-5s %-36s %-13s %12llu %12s %8s\n", id, r->function, r->mode,
		       (unsigned long long)r->calls, rate, misses);
	} else {
		printf("%-5s %-36s %-13s %12llu %8s\n", id, r->function, r->mode,
		       (unsigned long long)r->calls, misses);
	}
	if (r->timed)
		print_latency(r, dt <= 0);
	/* a merged row has slow always: shown when some were */
	if (r->slow_known && (r->id >= 0 || r->slow) && dt <= 0)
		printf("     slow: %llu (slower than --slower-than, recorded)\n",
		       (unsigned long long)r->slow);
	if (r->errors && dt <= 0)
		printf("     errors: %llu%s%s%s\n", (unsigned long long)r->err_total,
		       r->err_total ? " (" : "", r->err_text, r->err_total ? ")" : "");
	if (r->timed && o->hist)
		print_hist(r);
}

/* rows a table shows: --top N, every one with --all, else STATS_TOP */
static size_t rows_shown(const struct stats_opts *o)
{
	return o->all ? SIZE_MAX : o->top ? (size_t)o->top : STATS_TOP;
}

/* after a table of shown of total rows: how to see the others */
static void print_more(size_t total, size_t shown, const struct stats_opts *o)
{
	if (total > shown)
		printf("(%zu of %zu rows, most calls first%s: --top N for more, --all for all)\n",
		       shown, total, o->interval ? " in the interval" : "");
}

/* most calls first, equal calls as the daemon sent them */
static int iv_cmp(const void *a, const void *b)
{
	const struct stats_row *x = a, *y = b;

	return (x->calls < y->calls) - (x->calls > y->calls);
}

/* now's rows minus prev's (the interval's), most calls first, into now->iv; false: no memory */
static bool snap_interval(struct stats_snap *now, const struct stats_snap *prev)
{
	size_t i;

	free(now->iv);
	now->iv = calloc(now->n + 1, sizeof(*now->iv));
	if (!now->iv)
		return false;
	for (i = 0; i < now->n; i++) {
		now->iv[i] = now->rows[i];
		row_sub(&now->iv[i], snap_find(prev, &now->iv[i]));
	}
	qsort(now->iv, now->n, sizeof(*now->iv), iv_cmp);	/* stable enough: rows differ */
	return true;
}

/* the interval's rows: now's minus prev's (dt seconds) */
static void print_snap(struct stats_snap *now, const struct stats_snap *prev,
		       const struct stats_opts *o)
{
	double dt = (double)(now->t_ns - prev->t_ns) / 1e9;
	char when[16];
	time_t t = time(NULL);
	size_t i;

	if (!snap_interval(now, prev))
		return;

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	printf("%s  interval %.3gs\n", when, dt);
	printf("%-5s %-36s %-13s %12s %12s %8s\n", "ID", "FUNCTION", "MODE", "CALLS",
	       "CALLS/S", "MISSES");
	for (i = 0; i < now->n && i < rows_shown(o); i++)
		print_row(&now->iv[i], o, dt);
	print_more(now->n, i, o);
	putchar('\n');
	fflush(stdout);
}

/*
 * One reply's table: its rows printed as they are read, one stats_row at
 * a time, so --all shows every row of a 50k-function glob (a snapshot
 * keeps STATS_MAX, for --interval) without a copy of each.
 */
static void print_reply(json_object *r, const struct stats_opts *o)
{
	json_object *arr = jarr(r, "stats");
	size_t i, n = jlen(arr);
	struct stats_row row;

	printf("%-5s %-36s %-13s %12s %8s\n", "ID", "FUNCTION", "MODE", "CALLS", "MISSES");
	for (i = 0; i < n; i++) {
		row_from_json(&row, json_object_array_get_idx(arr, i));
		print_row(&row, o, 0);
	}
	print_more((size_t)jint(r, "total", (long long)n), n, o);
	fflush(stdout);
}

/* Sleep s seconds unless ^C comes first: true when interrupted. */
static bool nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (!stats_stop && nanosleep(&ts, &ts))
		;
	return stats_stop;
}

static int stats_watch(struct cli *cli, json_object *args, const struct stats_opts *o)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct stats_snap snaps[2] = { { 0 } };
	unsigned long long done = 0;
	int ret, cur = 0;

	stats_stop = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = snap_fetch(cli, args, &snaps[cur]);
	while (!ret && (!o->count || done < o->count) && !nap(o->interval)) {
		cur = !cur;
		ret = snap_fetch(cli, args, &snaps[cur]);
		if (!ret)
			print_snap(&snaps[cur], &snaps[!cur], o);
		done++;
	}
	free(snaps[0].rows);
	free(snaps[1].rows);
	free(snaps[0].iv);
	free(snaps[1].iv);
	return ret;
}

/* the calls of a --by row, and its average latency when timed */
static void print_by_row(const char *key, json_object *v)
{
	uint64_t timed = (uint64_t)jint(v, "timed", 0);
	char avg[16];

	printf("  %-40s %12llu", key, (unsigned long long)jint(v, "calls", 0));
	if (jobj(v, "timed"))
		printf(" %12llu %9s", (unsigned long long)timed,
		       fmt_ns(timed ? (double)jint(v, "lat_sum_ns", 0) / (double)timed : -1, avg,
			      sizeof(avg)));
	putchar('\n');
}

/* Each --by attachment's top keys by calls, then other (the rest, and unkept keys). */
static void print_by(json_object *r)
{
	json_object *arr = jarr(r, "attachments"), *a, *by, *top, *other;
	char label[64];
	size_t i, k;

	for (i = 0; i < jlen(arr); i++) {
		a = json_object_array_get_idx(arr, i);
		by = jobj(a, "by");
		if (!by)
			continue;
		top = jarr(by, "top");
		other = jobj(by, "other");
		printf("\n%lld %s: calls by %s (%lld keys, top %zu)\n", jint(a, "id", 0),
		       jtty(a, "target", "?"), jtty(by, "key", "?"), jint(by, "keys", 0),
		       jlen(top));
		printf("  %-40s %12s", jtty(by, "key", "?"), "CALLS");
		if (jobj(other, "timed"))
			printf(" %12s %9s", "TIMED", "AVG");
		putchar('\n');
		for (k = 0; k < jlen(top); k++)
			print_by_row(jtty(json_object_array_get_idx(top, k), "key", "?"),
				     json_object_array_get_idx(top, k));
		snprintf(label, sizeof(label), "(other: %lld keys%s)", jint(other, "keys", 0),
			 jint(other, "unkept_calls", 0) ? ", and unkept" : "");
		print_by_row(label, other);
	}
}

/*
 * The attachments' BPF run-time statistics (bpf_stats on): a table of
 * those that have them; with --bpf also those that do not, and why, or
 * that the statistics are off.
 */
static void print_bpf(json_object *r, const struct stats_opts *o)
{
	json_object *arr = jarr(r, "attachments"), *a, *run;
	char t[16], avg[16];
	bool header = false;
	size_t i;

	if (!jbool(jobj(r, "bpf_stats"), "enabled")) {
		if (o->bpf)
			printf("\n%s\n",
			       jtty(jobj(r, "bpf_stats"), "reason", "BPF statistics are off"));
		return;
	}
	for (i = 0; i < jlen(arr); i++) {
		a = json_object_array_get_idx(arr, i);
		run = jobj(a, "bpf_run");
		if (!run && !o->bpf)
			continue;
		if (!header)
			printf("\n%-5s %-36s %-13s %12s %10s %9s\n", "ID", "TARGET", "MODE",
			       "BPF RUNS", "BPF TIME", "AVG/RUN");
		header = true;
		if (!run) {
			printf("%-5lld %-36s %-13s %s\n", jint(a, "id", 0), jtty(a, "target", "?"),
			       jtty(a, "mode", "?"), jtty(a, "bpf_run_reason", "-"));
			continue;
		}
		uint64_t n = (uint64_t)jint(run, "count", 0),
			 ns = (uint64_t)jint(run, "time_ns", 0);

		printf("%-5lld %-36s %-13s %12llu %10s %9s\n", jint(a, "id", 0),
		       jtty(a, "target", "?"), jtty(a, "mode", "?"), (unsigned long long)n,
		       fmt_ns((double)ns, t, sizeof(t)),
		       fmt_ns(n ? (double)ns / (double)n : -1, avg, sizeof(avg)));
	}
}

/* 0 when the reply r has a row with stacks, else the error's exit status (printed) */
static int stacks_fetched(struct cli *cli, json_object *r)
{
	struct stacks s;
	int ret;

	if (stacks_from_reply(r, &s))
		return cli_error(cli, EXIT_FAILURE_, "error", "out of memory");
	ret = stacks_require(cli, &s, r);
	stacks_free(&s);
	return ret;
}

/* --stacks: each row's hottest stacks after the tables, and the rows that have none */
static void print_stacks(json_object *r)
{
	struct stacks s;

	if (stacks_from_reply(r, &s))
		return;
	stacks_print_text(stdout, &s);
	if (s.without)
		putchar('\n');
	stacks_note_without(r, stdout, "");
	stacks_free(&s);
}

static int stats_once(struct cli *cli, json_object *args, const struct stats_opts *o)
{
	json_object *r = NULL;	/* unset when the call fails */
	int ret;

	if (cli->json) {
		ret = client_call(cli, "stats", json_object_get(args), &r);
		if (!ret)
			cli_print_json(r);
		json_object_put(r);
		return ret;
	}
	ret = client_call(cli, "stats", json_object_get(args), &r);
	if (!ret && o->stacks)
		ret = stacks_fetched(cli, r);
	if (!ret) {
		print_reply(r, o);
		print_by(r);
		print_bpf(r, o);
		if (o->stacks)
			print_stacks(r);
	}
	json_object_put(r);
	return ret;
}

/* --format F: text, folded or pprof (the flame graph is `tracectl flame`) */
static int stacks_format(struct cli *cli, const char *s, int *out)
{
	int f;

	for (f = STACKS_TEXT; f < STACKS_SVG; f++)
		if (!strcmp(s, stacks_format_names[f])) {
			*out = f;
			return 0;
		}
	return cli_usage(cli, &cmd_stats,
			 "--format: text, folded or pprof, not '%s' (the SVG: tracectl flame)",
			 tty_str(s));
}

static int parse_seconds(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return end == s || *end || !(*out >= 0.1 && *out <= 3600) ? -1 : 0;
}

/*
 * The rows to ask for (the daemon sorts them by calls): a table's
 * rows_shown; with --interval, up to STATS_MAX by calls since attach, of
 * which the table shows the busiest in each interval; --json: every row
 * unless --top; --format folded or pprof: every row (one profile).
 */
static void stats_limit(struct cli *cli, const struct stats_opts *o, json_object *args)
{
	size_t n = o->interval ? STATS_MAX : rows_shown(o);

	if (o->all || (cli->json && !o->top) || o->format > STACKS_TEXT)
		return;
	json_object_object_add(args, "limit", json_object_new_int64((long long)n));
}

/* options into o and args ("merge"); 0 or the usage error's exit status */
static int stats_options(struct cli *cli, int argc, char **argv, struct stats_opts *o,
			 json_object *args)
{
	static const struct option opts[] = {
		{ "merge", no_argument, NULL, 'M' },
		{ "hist", no_argument, NULL, 'H' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "bpf", no_argument, NULL, 'B' },
		{ "top", required_argument, NULL, 't' },
		{ "all", no_argument, NULL, 'A' },
		{ "stacks", no_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ 0 }
	};
	unsigned long long top;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "MHi:n:Bt:ASf:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			o->stacks = true;
			json_object_object_add(args, "stacks", json_object_new_boolean(1));
			break;
		case 'f':
			if (stacks_format(cli, optarg, &o->format))
				return EXIT_USAGE;
			break;
		case 'o':
			if (!*optarg)
				return cli_usage(cli, &cmd_stats, "-o needs a file name");
			o->out = optarg;
			break;
		case 'M':
			o->merge = true;
			json_object_object_add(args, "merge", json_object_new_boolean(1));
			break;
		case 'H':
			o->hist = true;
			break;
		case 'B':
			o->bpf = true;
			break;
		case 't':
			if (cli_number(cli, "--top", optarg, 1, TRACERD_BY_TOP_LIMIT, &top))
				return EXIT_USAGE;
			json_object_object_add(args, "top", json_object_new_int64((long long)top));
			o->top = top;
			break;
		case 'A':
			o->all = true;
			break;
		case 'i':
			if (parse_seconds(optarg, &o->interval))
				return cli_usage(cli, &cmd_stats,
						 "--interval: seconds, 0.1 to 3600, not '%s'",
						 optarg);
			break;
		case 'n':
			if (cli_number(cli, "--count", optarg, 1, 1000000000, &o->count))
				return EXIT_USAGE;
			break;
		default:
			return cli_usage(cli, &cmd_stats, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->count && !o->interval)
		return cli_usage(cli, &cmd_stats, "--count needs --interval");
	if (o->format >= 0 && !o->stacks)
		return cli_usage(cli, &cmd_stats, "--format renders stacks: it needs --stacks");
	if (o->out && o->format <= STACKS_TEXT)
		return cli_usage(cli, &cmd_stats,
				 "-o writes --format folded or pprof; the text goes to stdout");
	if (o->stacks && o->interval)
		return cli_usage(cli, &cmd_stats, "--stacks: counts since attach, not --interval");
	if (o->stacks && o->format > STACKS_TEXT)
		return stacks_check_output(cli, &cmd_stats, (enum stacks_format)o->format, o->out);
	if (o->interval && cli->json)
		return cli_usage(cli, &cmd_stats,
				 "--interval prints tables: poll `tracectl --json stats` instead");
	stats_limit(cli, o, args);
	return 0;
}

static int stats_exec(struct cli *cli, int argc, char **argv)
{
	json_object *args = json_object_new_object();
	struct stats_opts o = { .format = -1 };
	unsigned long long id;
	int ret;

	ret = stats_options(cli, argc, argv, &o, args);
	if (!ret && argc - optind > 1)
		ret = cli_usage(cli, &cmd_stats, "at most one ID or TARGET");
	if (!ret && optind < argc) {
		int k = cli_attachment_id(cli, argv[optind], &id);

		if (k < 0)
			ret = -k;
		else if (!k)
			json_object_object_add(args, "id", json_object_new_int64((long long)id));
		else
			json_object_object_add(args, "target",
					       json_object_new_string(argv[optind]));
	}
	if (!ret && o.format > STACKS_TEXT)
		ret = stacks_command(cli, args, (enum stacks_format)o.format, o.out);
	else if (!ret)
		ret = o.interval ? stats_watch(cli, args, &o) : stats_once(cli, args, &o);
	json_object_put(args);
	return ret;
}

const struct cmd_entry cmd_stats = {
	.name = "stats",
	.args = "[ID|TARGET] [--merge] [--hist] [--bpf] [--top N|--all] [--interval S [--count K]] "
		"[--stacks [--format text|folded|pprof] [-o FILE]]",
	.summary = "calls, misses, latency p50/p90/p99, histograms (ns), kernel stacks",
	.exec = stats_exec,
	.help = "  ID|TARGET        one attachment, or every hooked function of that target\n"
		"  -M, --merge      one row per function across attachments\n"
		"  -H, --hist       the latency histogram, as bpftrace prints @usecs (log2 ns)\n"
		"  -B, --bpf        the BPF programs' run count and time for every attachment\n"
		"                   (shown anyway where known), or why there are none: the\n"
		"                   kernel counts them only with bpf_stats = on in tracerd.conf\n"
		"  -t, --top=N      the N rows with the most calls (1 to 1000; default 20,\n"
		"                   what a glob attachment's busiest fill), and for\n"
		"                   attachments counting calls per key the N keys with most\n"
		"                   calls (default by_top in tracerd.conf, 10), the rest\n"
		"                   summed as other\n"
		"  -A, --all        every row (a glob's every function), not the top 20\n"
		"  -i, --interval=S every S seconds (0.1 to 3600) what happened in the\n"
		"                   interval: calls, calls/s, misses, p50/p90/p99\n"
		"  -n, --count=K    stop after K intervals (default: until ^C)\n"
		"  -S, --stacks     attachments made with --stacks: their kernel stacks,\n"
		"                   hottest first (--top N of them per function), each\n"
		"                   frame func+0xoff [module], with its calls and percent,\n"
		"                   then the calls whose stack was not kept (no room)\n"
		"  -f, --format=F   the stacks as text (default), folded (one line per\n"
		"                   stack, outermost frame first, ';' between frames, then\n"
		"                   the calls: flamegraph.pl, inferno, speedscope; with\n"
		"                   several functions, each one's is the root frame) or\n"
		"                   pprof (gzipped profile.proto: go tool pprof, Pyroscope,\n"
		"                   Parca; not to a terminal)\n"
		"  -o, --output=FILE\n"
		"                   write the folded or pprof output to FILE (replaced\n"
		"                   whole, or left as it was on error)\n",
};
