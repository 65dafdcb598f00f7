// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl top [--interval S] [--count N] [--limit N]: a refreshing view of
 * the busiest attachments: calls per second, p50/p99 of the calls timed in
 * the last interval, and misses per second, from `stats` every S seconds
 * (its attachments' totals, never a row per function).
 * On a terminal the screen is redrawn in place and `q` (or Ctrl-C) quits;
 * otherwise each refresh is printed as a block, so a pipe or a log gets
 * every sample. --count N stops after N refreshes.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <tracerd/trace.h>
#include "../lib/quantile.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "tracectl.h"

#define TOP_MAX	512	/* attachments followed */

struct top_row {
	unsigned int id;
	char target[128], mode[32];
	uint64_t calls, misses;
	bool misses_known, timed;
	struct hist_bucket hist[TRACERD_HIST_BUCKETS];
};

struct top_snap {
	struct top_row rows[TOP_MAX];
	size_t n;
	uint64_t t_ns;
};

static volatile sig_atomic_t top_stop;
static struct termios top_saved;
static bool top_raw;

static void on_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

/* A name from the daemon, escaped for the terminal (lib/strutil.h). */
static void clean(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", tty_str(src));
}

static struct top_row *row_for(struct top_snap *s, json_object *st)
{
	unsigned int id = (unsigned int)jint(st, "id", 0);
	struct top_row *r;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->rows[i].id == id)
			return &s->rows[i];
	if (s->n == TOP_MAX)
		return NULL;
	r = &s->rows[s->n++];
	memset(r, 0, sizeof(*r));
	r->id = id;
	clean(r->target, sizeof(r->target), jstr(st, "target", "?"));
	clean(r->mode, sizeof(r->mode), jstr(st, "mode", "?"));
	r->misses_known = true;
	return r;
}

/* Add one function's latency buckets to the attachment's histogram. */
static void add_hist(struct top_row *r, json_object *lat)
{
	json_object *b = jget(lat, "buckets");
	size_t i, n = b ? json_object_array_length(b) : 0;
	int k;

	if (!r->timed)
		hist_init(r->hist, TRACERD_HIST_BUCKETS);
	r->timed = true;
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(b, i);

		k = hist_index((uint64_t)jint(e, "lo_ns", 0));
		if (k < TRACERD_HIST_BUCKETS)
			r->hist[k].count += (uint64_t)jint(e, "count", 0);
	}
}

/*
 * The attachments' totals: `stats` with limit 0 sends no per-function row,
 * only each attachment's sums (calls, misses, latency), so a glob of 50k
 * functions costs a refresh as much as one function does.
 */
static int top_fetch(struct cli *cli, struct top_snap *s)
{
	json_object *r, *arr, *args = json_object_new_object();
	struct top_row *row;
	size_t i, n;
	int ret;

	json_object_object_add(args, "limit", json_object_new_int64(0));
	ret = client_call(cli, "stats", args, &r);
	if (ret)
		return ret;
	s->n = 0;
	s->t_ns = now_mono_ns();
	arr = jget(r, "attachments");
	n = json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
	for (i = 0; i < n; i++) {
		json_object *st = json_object_array_get_idx(arr, i);

		row = row_for(s, st);
		if (!row)
			continue;
		row->calls += (uint64_t)jint(st, "calls", 0);
		if (json_object_is_type(jget(st, "misses"), json_type_int))
			row->misses += (uint64_t)jint(st, "misses", 0);
		else
			row->misses_known = false;
		if (json_object_is_type(jget(st, "latency"), json_type_object))
			add_hist(row, jget(st, "latency"));
	}
	json_object_put(r);
	return 0;
}

struct top_line {
	const struct top_row *now;
	double rate, miss_rate;	/* per second over the interval; NAN on the first */
	double p50, p99;	/* of the interval's calls; < 0 unknown */
};

static const struct top_row *find(const struct top_snap *s, unsigned int id)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->rows[i].id == id)
			return &s->rows[i];
	return NULL;
}

static void line_for(struct top_line *l, const struct top_row *now, const struct top_snap *prev,
		     double dt)
{
	const struct top_row *was = prev ? find(prev, now->id) : NULL;
	struct hist_bucket d[TRACERD_HIST_BUCKETS];
	int k;

	l->now = now;
	l->rate = l->miss_rate = NAN;
	if (was && dt > 0 && now->calls >= was->calls) {
		l->rate = (double)(now->calls - was->calls) / dt;
		if (now->misses_known && was->misses_known && now->misses >= was->misses)
			l->miss_rate = (double)(now->misses - was->misses) / dt;
	}
	for (k = 0; k < TRACERD_HIST_BUCKETS; k++) {	/* the interval's calls only */
		d[k] = now->hist[k];
		if (was && was->hist[k].count <= d[k].count)
			d[k].count -= was->hist[k].count;
	}
	l->p50 = now->timed ? hist_quantile(d, TRACERD_HIST_BUCKETS, 0.5) : -1;
	l->p99 = now->timed ? hist_quantile(d, TRACERD_HIST_BUCKETS, 0.99) : -1;
}

static int by_rate(const void *a, const void *b)
{
	const struct top_line *x = a, *y = b;
	double rx = isnan(x->rate) ? -1 : x->rate, ry = isnan(y->rate) ? -1 : y->rate;

	if (rx != ry)
		return rx < ry ? 1 : -1;
	return x->now->calls < y->now->calls ? 1 : x->now->calls > y->now->calls ? -1 : 0;
}

static void draw(const struct top_snap *now, const struct top_snap *prev, double interval,
		 size_t limit, bool tty)
{
	static struct top_line lines[TOP_MAX];
	char p50[16], p99[16], rate[24], miss[24], when[16];
	time_t t = time(NULL);
	double dt = prev ? (double)(now->t_ns - prev->t_ns) / 1e9 : 0;
	size_t i;

	for (i = 0; i < now->n; i++)
		line_for(&lines[i], &now->rows[i], prev, dt);
	qsort(lines, now->n, sizeof(lines[0]), by_rate);
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	if (tty)
		fputs("\033[H\033[2J", stdout);
	printf("tracectl top  %s  %zu attachment%s  every %.3gs%s\n", when, now->n,
	       now->n == 1 ? "" : "s", interval, tty ? "  (q quits)" : "");
	printf("%-5s %-32s %-13s %11s %12s %9s %9s %9s\n", "ID", "TARGET", "MODE", "CALLS/S",
	       "CALLS", "P50", "P99", "MISSES/S");
	for (i = 0; i < now->n && i < limit; i++) {
		const struct top_line *l = &lines[i];

		snprintf(rate, sizeof(rate), isnan(l->rate) ? "-" : "%.0f", l->rate);
		snprintf(miss, sizeof(miss), isnan(l->miss_rate) ? "-" : "%.0f", l->miss_rate);
		printf("%-5u %-32.32s %-13.13s %11s %12llu %9s %9s %9s\n", l->now->id,
		       l->now->target, l->now->mode, rate, (unsigned long long)l->now->calls,
		       fmt_ns(l->p50, p50, sizeof(p50)), fmt_ns(l->p99, p99, sizeof(p99)), miss);
	}
	if (now->n > limit)
		printf("(%zu more)\n", now->n - limit);
	if (!tty)
		putchar('\n');
	fflush(stdout);
}

static void raw_off(void)
{
	if (top_raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &top_saved);
	top_raw = false;
}

/* stdin as single keys without echo, when it is a terminal */
static void raw_on(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &top_saved))
		return;
	t = top_saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (!tcsetattr(STDIN_FILENO, TCSANOW, &t))
		top_raw = true;
}

/* Sleep up to ms; true when the user asked to quit (q or a signal). */
static bool wait_key(int ms)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	char c;

	if (top_stop)
		return true;
	if (!top_raw) {
		poll(NULL, 0, ms);
		return top_stop;
	}
	if (poll(&p, 1, ms) > 0 && read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q'))
		return true;
	return top_stop;
}

static int parse_interval(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.1 && v <= 3600))
		return -EINVAL;
	*out = v;
	return 0;
}

static int top_exec(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "limit", required_argument, NULL, 'l' },
		{ 0 }
	};
	static struct top_snap snaps[2];
	unsigned long long count = 0, limit = 20, v;
	struct sigaction sa = { .sa_handler = on_signal };
	double interval = 2;
	unsigned long long done;
	bool tty = isatty(STDOUT_FILENO);
	int c, ret = 0, cur = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:n:l:", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (parse_interval(optarg, &interval))
				return cli_usage(cli, &cmd_top,
						 "--interval: seconds, 0.1 to 3600, not '%s'",
						 optarg);
			break;
		case 'n':
		case 'l':
			if (parse_u64(optarg, &v) || !v || v > 1000000)
				return cli_usage(cli, &cmd_top, "-%c: a number from 1, not '%s'", c,
						 optarg);
			*(c == 'n' ? &count : &limit) = v;
			break;
		default:
			return cli_usage(cli, &cmd_top, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage(cli, &cmd_top, "unexpected argument '%s'", argv[optind]);
	if (cli->json)
		return cli_usage(cli, &cmd_top, "no --json view: use `tracectl --json stats`");
	top_stop = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	raw_on();
	for (done = 0; !count || done < count; done++) {
		ret = top_fetch(cli, &snaps[cur]);
		if (ret)
			break;
		draw(&snaps[cur], done ? &snaps[!cur] : NULL, interval, (size_t)limit, tty);
		cur = !cur;
		if ((count && done + 1 == count) || wait_key((int)(interval * 1000)))
			break;
	}
	raw_off();
	return ret;
}

const struct cmd_entry cmd_top = {
	.name = "top",
	.args = "[--interval S] [--count N] [--limit N]",
	.summary = "a refreshing view of the busiest attachments (calls/s, p50/p99, misses)",
	.exec = top_exec,
};
