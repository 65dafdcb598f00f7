/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracectl bench report: the model both renderers read. A set of result
 * files grouped per kernel (machine.kernel's version and the arch), the
 * questions the screen and the page ask of them, and what the seed 000
 * section shows (bench_seed000.c). bench_report_text.c prints the screen
 * from it, bench_report_html.c the page (with bench_svg.c), section by
 * section in the same order; neither reads a file or the command line.
 */
#ifndef TRACECTL_BENCH_MODEL_H
#define TRACECTL_BENCH_MODEL_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "bench.h"

#define MAX_KERNELS	12

/* One kernel's results, per suite (enum bench_suite_id; the report's suites only). */
struct kern {
	char label[64];		/* "6.12 x86_64" */
	char arch[16];
	char rel[16];		/* "6.12" */
	bool call_ops;		/* CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS=y */
	json_object *doc[BENCH_NR_SUITES];
	const char *file[BENCH_NR_SUITES];
};

/* A hook path of the screen's rows: each a mode (or variant) of bench trigger. */
struct report_path {
	const char *path, *mode;
};

struct report {
	struct kern k[MAX_KERNELS];
	int nk;
	/* the bench's hooks grouped by path, in the order the screen shows them */
	struct report_path path[BENCH_MAX_HOOKS];
	int np;
	json_object *docs[MAX_KERNELS * BENCH_NR_SUITES];
	int nd;
};

/* Load the result files (kept, not copied: files[] must outlive r); 0 or the exit status. */
int report_load(struct report *r, struct cli *cli, int n, char **files);
void report_free(struct report *r);

/* Some kernel of the report has results of suite s. */
bool report_any_suite(const struct report *r, int s);
/* Some kernel's trigger results have the count point of mode. */
bool report_has_count(const struct report *r, const char *mode);
/* The cheapest count overhead of a kernel (> 0), and its mode. */
double report_cheapest(const struct report *r, const struct kern *k, const char **mode);
/* The largest I of the ops run with a 1/I point of mode measured, or -1. */
long long report_ops_max_i(json_object *doc, const char *mode);
/* The median overhead of ops point mode/R rel/I irr, NAN unless measured. */
double report_ops_overhead(json_object *doc, const char *mode, long long rel, long long irr);
/* The attach point of mode with the largest K that was measured, or NULL. */
json_object *report_attach_point(json_object *doc, const char *mode, const char *how);
/* The point of an entry result compared with its notrace twin (it has an "against" label). */
json_object *report_entry_pair(json_object *doc);
/* The modes object of a kernel's results: trigger's, else ops's (NULL when neither). */
json_object *report_modes(const struct kern *k);

/*
 * The published entry-sequence measurement the entry section quotes (seed
 * 003, docs/origins.md; J. Thierry, 2019-01-16): hackbench, s, average of
 * 20 runs.
 */
#define SEED003_A53 "4 x Cortex-A53: 43.899 s `nop; nop`, 44.835 s `mov x9, lr; nop`: \"a ~2% hit\""
#define SEED003_A57 "8 x Cortex-A57: 43.6813 s and 43.29825 s: \"within the noise (<1%)\""

/* ------------------------------------------------- bench_seed000.c */

#define SEED_ROWS	14
#define SEED_CELL	24
#define SEED_LINES	(2 * MAX_KERNELS + 8)

/*
 * The seed 000 section, for the screen and the page alike: the published
 * relevant x irrelevant table (Spacemit K1, riscv64, without and with its
 * CALL_OPS patch) beside each kernel's kmod-callops ops points, and its
 * two effects as measured ratios, as lines under it.
 */
struct seed_view {
	int col[MAX_KERNELS], nc;	/* kernels with ops results, in column order */
	char head[2][2 + MAX_KERNELS][SEED_CELL];
	char label[SEED_ROWS][16];	/* "R/I" of each row */
	char cell[SEED_ROWS][2 + MAX_KERNELS][SEED_CELL];
	bool shown[SEED_ROWS];		/* not a row of "-" only */
	struct {
		int level;		/* 0: a heading, 1: one of its items */
		char text[512];
	} line[SEED_LINES];
	int nl;
};
void seed_view(struct seed_view *v, const struct report *r);
/* The published curves of 1 relevant tracer against I irrelevant ones, without and
 * with CALL_OPS, into l[0] and l[1] (x: I + 1); their points in all. */
int seed000_curves(struct svg_line *l);
/* the seed's published overhead ns of R relevant, I irrelevant, without and with CALL_OPS */
bool seed000_point(int r, long long i, double *without, double *with);

/* ------------------------------------------------- bench_report_concl.c */

/*
 * The conclusions, sentences computed from the results: each a list of
 * parts, the numbers among them naming the JSON value each came from (v:
 * "FILE#points[key=KEY].values.VALUE.median", FILE a result's name
 * without its directory; "seed000#COLUMN/R/I" a published figure of
 * docs/origins.md); a ratio names both (v over v2). The screen prints the
 * text, the page the same text with the numbers marked (data-v, data-v2).
 */
#define CONCL_PARTS	48
#define CONCL_MAX	(2 * MAX_KERNELS + 1)
struct concl {
	struct concl_part {
		char text[160];
		char v[160], v2[160];	/* "" in plain text */
	} part[CONCL_PARTS];
	int n;
};
struct conclusions {
	struct concl s[CONCL_MAX];
	int n;
};
void report_conclusions(struct conclusions *cs, const struct report *r);
/* the sentence as one string */
void concl_text(const struct concl *c, char *buf, size_t len);
/* the name of kernel k's result file of suite s, without its directory (NULL: none) */
const char *report_src(const struct kern *k, int s);

/* the first result of kernel k (its suite into *suite unless NULL), NULL when none */
json_object *report_first_doc(const struct kern *k, int *suite);
/* the suites of k's earliest and latest results ("date"), -1 when none */
void report_dates(const struct kern *k, int *first, int *last);

/* bench_report_text.c: the screen */
void report_text(FILE *f, const struct report *r);
/*
 * bench_report_html.c: the page at path; the flame graphs of the
 * stacks-KERNEL.json files in its directory; 0 or -errno
 */
int report_html(const char *path, const struct report *r);

#endif
