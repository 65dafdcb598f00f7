/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracectl bench: shared pieces of the suites (cmd_bench.c dispatches,
 * bench_*.c run one suite each). The daemon owns the hooks (the `bench`
 * control command, daemon/bench.c); the suites run the user-space loops,
 * check that every hook counted exactly the calls made, and build the
 * result document of docs/bench.md (schema docs/bench.schema.json), from
 * which the tables, the SVG charts and `compare` are all printed.
 */
#ifndef TRACECTL_BENCH_H
#define TRACECTL_BENCH_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>
#include "../lib/proto.h"
#include "tracectl.h"

#define BENCH_SCHEMA	"tracerd-bench/1"

struct bench {
	struct cli *cli;
	const char *suite;
	int reps;		/* -r: measured repetitions per point */
	int warmup;		/* -w: unmeasured repetitions first */
	const char *out;	/* -o FILE */
	const char *svg;	/* --svg FILE */
	bool profile_ci;	/* --ci: small sizes */
	bool progress;		/* stderr is a TTY */
	/* the code of the daemon's last error reply (PROTO_OK: none): its exit status */
	enum proto_code last_code;
	json_object *info;	/* the daemon's bench info */
	json_object *doc;	/* the result document */
	json_object *options;	/* doc.options */
	json_object *points;	/* doc.points */
	int errors;		/* points with status "error" */
};

/* One measured value over the repetitions. */
struct series {
	double v[64];
	int n;
};

/* Options every suite takes (getopt_long rows and short letters). */
#define BENCH_COMMON_OPTS						\
	{ "repetitions", required_argument, NULL, 'r' },		\
	{ "warmup", required_argument, NULL, 'w' },			\
	{ "output", required_argument, NULL, 'o' },			\
	{ "svg", required_argument, NULL, 'S' },			\
	{ "ci", no_argument, NULL, 'C' }
#define BENCH_COMMON_SHORT	"r:w:o:"
/* cmd_bench.c: handle one common option; 0, or the usage exit status */
int bench_common_opt(struct bench *b, int c, const char *arg, const char *bad);
/* One option of a suite's own: 0, a usage exit status, or BENCH_OPT_COMMON
 * when c is not the suite's (bench_common_opt takes it then). */
#define BENCH_OPT_COMMON	(-1)
typedef int bench_opt_fn(struct bench *b, int c, const char *arg, void *ctx);
/* Parse a suite's options (shortopts: its own letters; opts begins with
 * BENCH_COMMON_OPTS): each through one(), the rest through
 * bench_common_opt; an operand is a usage error. 0 or the exit status. */
int bench_getopt(struct bench *b, int argc, char **argv, const char *shortopts,
		 const struct option *opts, bench_opt_fn *one, void *ctx);

/* bench_common.c */
/* Any control command (args consumed); on failure msg says why (nothing printed). */
int bench_cmd(struct bench *b, const char *cmd, json_object *args, json_object **result,
	      char *msg, size_t msglen);
/* The daemon's `bench` command; on failure *code/msg say why (nothing printed). */
int bench_call(struct bench *b, const char *op, json_object *args, json_object **result,
	       char *msg, size_t msglen);
int bench_begin(struct bench *b);
/* Finish: print the table (unless --json), write -o / --svg, exit status. */
int bench_end(struct bench *b, void (*table)(struct bench *b, FILE *f),
	      int (*svg)(struct bench *b, FILE *f));
void bench_progress(struct bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A new point with its labels (name, value string pairs, NULL-ended) in doc.points. */
json_object *bench_point(struct bench *b, const char *key);
void point_label(json_object *p, const char *name, const char *value);
void point_label_int(json_object *p, const char *name, long long value);
void point_status(struct bench *b, json_object *p, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void point_value(json_object *p, const char *name, const char *unit, const struct series *s);
void point_count(json_object *p, const char *name, long long expected, long long counted);
double series_median(const struct series *s);
void series_add(struct series *s, double v);
/* value's statistic ("min", "median", "max") of a point, NAN when absent */
double point_stat(json_object *p, const char *value, const char *stat);
/* the point of a result document with that key, NULL when absent */
json_object *bench_find_point(json_object *doc, const char *key);
/* value's median of point key of doc, NAN unless the point is measured (ok) */
double point_median(json_object *doc, const char *key, const char *value);
int parse_list(const char *s, long long *out, int max);
/* a K list that may end in "all" (*all set, not in out): the numbers' count, or -EINVAL */
int parse_k_list(const char *s, long long *out, int max, bool *all);
/*
 * A comma-separated list of names (--modes, --variants), each one of
 * known[0..nknown): into out (at most max, known's own strings); the count,
 * or -EXIT_USAGE after saying which name is unknown (what: "mode").
 */
int bench_pick(struct bench *b, const char *what, const char *list, const char *const *known,
	       int nknown, const char **out, int max);
double now_s(void);

/*
 * One suite of `tracectl bench`. Each bench_*.c defines its own (name, the
 * lines of `bench --help`, how it runs, its table and chart), and
 * bench_suites[] (cmd_bench.c) lists them once: the dispatch, `bench
 * --help`, `bench show` and `bench report` all walk that table. A new
 * suite is its file, one enum bench_suite_id row and one table row.
 */
struct bench_suite {
	const char *name;	/* the word after `bench`, and the result's "suite" */
	/* its lines of `bench --help`: after the name column, each line ended */
	const char *help;
	/* a measuring suite: through the daemon, b filled in by cmd_bench.c */
	int (*run)(struct bench *b, int argc, char **argv);
	/* an offline one (compare, show, report): on saved results; argv[0] is its name */
	int (*offline)(struct cli *cli, int argc, char **argv);
	/* the table and the chart of its result (the run's end and `bench show`) */
	void (*table)(struct bench *b, FILE *f);
	int (*svg)(struct bench *b, FILE *f);
	bool in_report;		/* `bench report` reads its results */
};

/* The index of each suite in bench_suites[], in the order `bench --help` lists them. */
enum bench_suite_id {
	BENCH_TRIGGER,
	BENCH_OPS,
	BENCH_ATTACH,
	BENCH_WORKLOAD,
	BENCH_ENTRY,
	BENCH_RECORD,
	BENCH_COMPARE,
	BENCH_SHOW,
	BENCH_REPORT,
	BENCH_NR_SUITES,
};
extern const struct bench_suite *const bench_suites[BENCH_NR_SUITES];
/* the suite named name (a result's "suite" or the command line's), or -1 */
int bench_suite_find(const char *name);

extern const struct bench_suite bench_suite_trigger, bench_suite_ops, bench_suite_attach,
	bench_suite_workload, bench_suite_entry, bench_suite_record, bench_suite_compare,
	bench_suite_show, bench_suite_report;

/*
 * bench_hooks.c: the hooks the bench compares (modes of TRACERD_MODES and
 * the variants it names kmod-callops+regs and kmod-kprobe-int3), in the
 * order the suites measure them.
 */
#define BENCH_MAX_HOOKS		16
#define BENCH_HOOKS_ALL		0U
#define BENCH_HOOKS_KMOD	(1U << 0)	/* the kmod modes only */
#define BENCH_HOOKS_NO_REGS	(1U << 1)	/* without kmod-callops+regs (save_regs) */
/* their names into out (BENCH_MAX_HOOKS at most), which: BENCH_HOOKS_*; the count */
int bench_hooks(const char **out, unsigned int which);
/* name is one of them (not only a mode of the table) */
bool bench_hook_listed(const char *name);
/* name is one of them, and a kmod mode or variant */
bool bench_hook_is_kmod(const char *name);
/* a kmod variant (kmod-callops+regs, kmod-kprobe-int3): the count variant only */
bool bench_hook_counts_only(const char *name);
/* each hook with its path ("kprobe", "kprobe (int3)", "indirect", "direct call"), grouped
 * by path in the report's order, into path[] and mode[] (BENCH_MAX_HOOKS); the count */
int bench_hook_paths(const char **path, const char **mode);

/* bench_ops.c: the options bench ops and bench attach share */
struct grid_opts {
	unsigned long long calls;
	long long rel[16], irr[16], ks[16];
	int nrel, nirr, nks;
	bool grid;
	bool all;		/* attach --all: every traceable function, callops */
	bool kernel;		/* attach --kernel-funcs: K of the kernel's functions */
	bool k_all;		/* attach -k ...,all: and every one of them */
	bool peers;		/* attach --peers: bpftrace's kprobe:* beside */
	bool modes_set;		/* --modes given */
	const char *modes[16];
	int nmodes;
};
/* parse them (--modes: one of known[0..nknown), all by default); 0 or the exit status */
int grid_opts(struct bench *b, int argc, char **argv, struct grid_opts *o,
	      const char *const *known, int nknown);
json_object *str_array(const char *const *v, int n);
json_object *int_array(const long long *v, int n);
/* the daemon's arguments for mode: "kmod-callops+regs" -> kmod-callops, save_regs */
json_object *mode_args(const char *mode);

/* bench_entry.c: "+0.012 (1.001x)": medians of diff and ratio of point p, or its status */
void entry_cell(char *buf, size_t len, json_object *p, const char *diff, const char *ratio);
/* bench_peers.c: bench trigger --peers, the loop as two callbacks of the suite */
struct peer_loop {
	const void *opts;
	/* the untraced loop next to the point (its base_ns_per_call); median ns/call */
	double (*base)(struct bench *b, const void *opts, json_object *p);
	/* the measured loops (warm-up included) on point p; the calls made */
	long long (*run)(struct bench *b, const void *opts, json_object *p, bool latency,
			 double base_ns);
};
void trigger_peers(struct bench *b, const struct peer_loop *loop, const char *const *variants,
		   int nvariants);
/* bench attach --peers: bpftrace's kprobe:<glob> from its start to attached
 * (attach_ms) and from SIGINT to its exit (detach_ms), the probes it said
 * it attached (-1: it did not say; kprobe:* is one) and the functions
 * ftrace hooked meanwhile (enabled_functions; -1: unreadable); 0, or
 * 127 (not installed) or another status with msg */
/* the functions ftrace has a hook on (lines of enabled_functions), -1 when unreadable */
long long ftrace_enabled(void);
int attach_peer_bpftrace(const char *glob, double *attach_ms, double *detach_ms,
			 long long *probes, long long *funcs, char *msg, size_t len);
/* tracerd's overhead beside its peers' (trigger table, report screen) */
void peers_table(json_object *doc, FILE *f, const char *label);
double peer_overhead(json_object *doc, const char *mode, const char *variant);
/* the i-th tracerd mode with peers, and its two peers (the second may be NULL) */
bool peer_pair(size_t i, const char **mode, const char *const **peers, bool *if_measured);
/* bench_compare.c: a result file, checked; NULL with the error printed */
json_object *bench_load(struct cli *cli, const char *path, int *exit);

/*
 * Where a mark's value came from, for the report page (its numbers are
 * traced to their JSON): the result file src, the point key and the value
 * name: data-v="src#points[key=KEY].values.VALUE.median" (divided by div
 * when not 0, data-div); without value, data-v="src#KEY" (the published
 * figures of docs/origins.md: src "seed000"). src NULL: no attribute.
 */
struct svg_ref {
	const char *src, *value;
	double div;
};
/* data-v (and data-div) of a mark, or nothing without src */
void svg_ref_attrs(FILE *f, const struct svg_ref *r, const char *key);

/* bench_svg.c: a line chart; series of (x, y), log x when asked */
struct svg_line {
	const char *name;
	double x[64], y[64];
	int n;
	struct svg_ref ref;
	const char *key[64];	/* each point's, with ref.src */
};
void svg_chart(FILE *f, const char *title, const char *xlabel, const char *ylabel, bool logx,
	       bool logy, const struct svg_line *lines, int nlines, int xoff, int yoff);
int svg_chart_height(int nlines);
/* the same, w wide, its legend in as many columns as its longest name leaves room for */
void svg_chart_w(FILE *f, int w, const char *title, const char *xlabel, const char *ylabel,
		 bool logx, bool logy, const struct svg_line *lines, int nlines);
int svg_chart_w_height(int w, const struct svg_line *lines, int nlines);
/* a horizontal bar chart: value NAN draws note (why there is no bar) */
struct svg_bar {
	const char *label, *note;
	double value;
	int color;
	struct svg_ref ref;
	const char *key;
};
void svg_bars(FILE *f, const char *title, const char *unit, const struct svg_bar *bars, int n,
	      int xoff, int yoff);
int svg_bars_height(int n);
/* the same, w wide, with a legend of the colours (names[i]: colour i; NULL: none) under it */
void svg_bars_w(FILE *f, int w, const char *title, const char *unit, const struct svg_bar *bars,
		int n, const char *const *names, int nnames);
int svg_bars_w_height(int w, int n, const char *const *names, int nnames);
/* a bar per point of b: the median of value (trigger, workload) */
int svg_point_bars(struct bench *b, FILE *f, const char *title, const char *value,
		   const char *unit);
void svg_begin(FILE *f, int w, int h);
void svg_open(FILE *f, int w, int h, const char *attrs);
void svg_esc(FILE *f, const char *s);
void svg_end(FILE *f);

#endif
