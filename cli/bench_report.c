// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench report [--html FILE] RESULT.json...: what a set of bench
 * results found, on one screen (make demo ends with it), and optionally a
 * self-contained HTML page with the plots (inline SVG, no network).
 *
 * Results are grouped per kernel (machine.kernel's version and the arch).
 * The screen answers, per kernel: the overhead per call of each hook path
 * (trigger, count variant) as ns and as a ratio to the cheapest path; the
 * entry+return (latency) variants; seed 000's table side by side with each
 * kernel's kmod-callops ops points, and its two effects as measured ratios
 * (1 relevant tracer with I irrelevant against none, and CALL_OPS against a
 * kernel of the same arch without it); the attach and detach times of the
 * largest K; the untraced entry sequence against its notrace twin (bench
 * entry, seed 003); and each mode a kernel lacks, with the reason. Offline.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

enum { S_TRIGGER, S_OPS, S_ATTACH, S_WORKLOAD, S_ENTRY, S_NR };
static const char *const suite_names[S_NR] = { "trigger", "ops", "attach", "workload", "entry" };

#define MAX_KERNELS	12
#define COL		16	/* width of a kernel's column */

struct kern {
	char label[64];		/* "6.12 x86_64" */
	char arch[16];
	char rel[16];		/* "6.12" */
	bool call_ops;		/* CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS=y */
	json_object *doc[S_NR];
	const char *file[S_NR];
};

struct report {
	struct kern k[MAX_KERNELS];
	int nk;
	json_object *docs[MAX_KERNELS * S_NR];
	int nd;
};

/* The hook paths of DESIGN.md, in the order the screen shows them. */
static const struct {
	const char *path, *mode;
} path_rows[] = {
	{ "kprobe", "kprobe" },		{ "kprobe", "kmod-kprobe" },
	{ "kprobe (int3)", "kprobe-int3" }, { "kprobe (int3)", "kmod-kprobe-int3" },
	{ "indirect", "kprobe-multi" },	{ "indirect", "kmod-callops" },
	{ "indirect", "kmod-callops+regs" },
	{ "direct call", "fentry" },	{ "direct call", "kmod-direct" },
};
#define NR_PATH_ROWS	(sizeof(path_rows) / sizeof(path_rows[0]))

/* Seed 000 (RISC-V, Spacemit K1): overhead ns of 1 relevant tracer, I irrelevant. */
static const double seed_i[] = { 0, 1, 2, 10, 100, 200 };
static const double seed_without[] = { 123, 172, 215, 575, 5038, 15791 };
static const double seed_with[] = { 38, 38, 40, 38, 39, 39 };
#define SEED_N	6

/* "6.12.117+deb12-amd64" -> "6.12"; "6.1.0-57-amd64" -> "6.1" */
static void short_release(const char *rel, char *out, size_t len)
{
	size_t n = strspn(rel, "0123456789"), m;

	if (rel[n] == '.') {
		m = strspn(rel + n + 1, "0123456789");
		n += 1 + m;
	}
	snprintf(out, len, "%.*s", (int)n, rel);
}

static struct kern *kern_for(struct report *r, json_object *doc)
{
	json_object *m = jget(doc, "machine"), *cfg = jget(doc, "kernel_config");
	const char *suite = jstr(doc, "suite", "");
	char rel[16], label[40];
	int i, s;

	short_release(jstr(m, "kernel", "?"), rel, sizeof(rel));
	snprintf(label, sizeof(label), "%s %s", rel, jstr(m, "arch", "?"));
	for (s = 0; s < S_NR && strcmp(suite, suite_names[s]); s++)
		;
	for (i = 0; i < r->nk; i++)	/* the same kernel, this suite not seen yet */
		if (!strncmp(r->k[i].label, label, strlen(label)) && s < S_NR && !r->k[i].doc[s])
			return &r->k[i];
	if (r->nk == MAX_KERNELS)
		return NULL;
	for (i = 0, s = 1; i < r->nk; i++)	/* booted twice: "6.12 x86_64 #2" */
		s += !strncmp(r->k[i].label, label, strlen(label));
	i = r->nk++;
	memset(&r->k[i], 0, sizeof(r->k[i]));
	if (s > 1)
		snprintf(r->k[i].label, sizeof(r->k[i].label), "%s #%d", label, s);
	else
		snprintf(r->k[i].label, sizeof(r->k[i].label), "%s", label);
	snprintf(r->k[i].arch, sizeof(r->k[i].arch), "%s", jstr(m, "arch", "?"));
	snprintf(r->k[i].rel, sizeof(r->k[i].rel), "%s", rel);
	r->k[i].call_ops = !strcmp(jstr(cfg, "CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS", "n"), "y");
	return &r->k[i];
}

static int report_load(struct report *r, struct cli *cli, int n, char **files)
{
	struct kern *k;
	int i, s, exit = 0;

	for (i = 0; i < n; i++) {
		json_object *doc = bench_load(cli, files[i], &exit);

		if (!doc)
			return exit;
		r->docs[r->nd++] = doc;
		for (s = 0; s < S_NR && strcmp(jstr(doc, "suite", ""), suite_names[s]); s++)
			;
		k = s < S_NR ? kern_for(r, doc) : NULL;
		if (!k)
			return cli_error(cli, EXIT_USAGE, "bad_input", "%s: %s", files[i], s < S_NR ?
					 "more kernels than a report holds (12)" : "unknown suite");
		k->doc[s] = doc;
		k->file[s] = files[i];
		if (r->nd == MAX_KERNELS * S_NR && i + 1 < n)
			return cli_error(cli, EXIT_USAGE, "usage", "at most %d result files",
					 MAX_KERNELS * S_NR);
	}
	return 0;
}

/* The median of value of point key, NAN when absent or not ok. */
/* Some kernel of the report has results of suite s. */
static bool any_suite(const struct report *r, int s)
{
	int k;

	for (k = 0; k < r->nk; k++)
		if (r->k[k].doc[s])
			return true;
	return false;
}

static bool mode_in_trigger(const struct report *r, const char *mode)
{
	char key[96];
	int i;

	snprintf(key, sizeof(key), "%s/count", mode);
	for (i = 0; i < r->nk; i++)
		if (r->k[i].doc[S_TRIGGER] && bench_find_point(r->k[i].doc[S_TRIGGER], key))
			return true;
	return false;
}

/* The cheapest count overhead of a kernel (> 0), and its mode. */
static double cheapest(const struct kern *k, const char **mode)
{
	double best = NAN, v;
	char key[96];
	size_t i;

	*mode = NULL;
	for (i = 0; i < NR_PATH_ROWS; i++) {
		snprintf(key, sizeof(key), "%s/count", path_rows[i].mode);
		v = point_median(k->doc[S_TRIGGER], key, "overhead_ns");
		if (v > 0 && (isnan(best) || v < best)) {
			best = v;
			*mode = path_rows[i].mode;
		}
	}
	return best;
}

static void cell(FILE *f, json_object *doc, const char *key, double ref)
{
	json_object *p = doc ? bench_find_point(doc, key) : NULL;
	double v = p ? point_stat(p, "overhead_ns", "median") : NAN;
	char buf[48];

	if (!doc || !p)
		snprintf(buf, sizeof(buf), "-");
	else if (strcmp(jstr(p, "status", ""), "ok"))
		snprintf(buf, sizeof(buf), "%s", !strcmp(jstr(p, "status", ""), "error") ?
			 "error" : "n/a");
	else if (isnan(v))
		snprintf(buf, sizeof(buf), "?");
	else if (ref > 0 && v > 0)
		snprintf(buf, sizeof(buf), "%.0f (%.1fx)", v, v / ref);
	else
		snprintf(buf, sizeof(buf), "%.0f (noise)", v);
	fprintf(f, "%*s", COL, buf);
}

static void header(FILE *f, const struct report *r, const char *first, int width)
{
	int i;

	fprintf(f, "  %-*s", width, first);
	for (i = 0; i < r->nk; i++)
		fprintf(f, "%*s", COL, r->k[i].label);
	fputc('\n', f);
}

static void screen_overhead(FILE *f, const struct report *r)
{
	double ref[MAX_KERNELS];
	const char *best[MAX_KERNELS];
	char key[96], name[48];
	size_t i;
	int k;

	fprintf(f, "Overhead per traced call (getpgid loop, median ns; x = times the cheapest path)\n");
	if (!any_suite(r, S_TRIGGER)) {	/* e.g. make demo DEMO_SUITES=ops */
		fprintf(f, "  (no bench trigger results)\n");
		return;
	}
	header(f, r, "path / mode", 30);
	for (k = 0; k < r->nk; k++)
		ref[k] = cheapest(&r->k[k], &best[k]);
	for (i = 0; i < NR_PATH_ROWS; i++) {
		if (!mode_in_trigger(r, path_rows[i].mode))
			continue;
		snprintf(name, sizeof(name), "%-13s %s", path_rows[i].path, path_rows[i].mode);
		fprintf(f, "  %-30s", name);
		snprintf(key, sizeof(key), "%s/count", path_rows[i].mode);
		for (k = 0; k < r->nk; k++)
			cell(f, r->k[k].doc[S_TRIGGER], key, ref[k]);
		fputc('\n', f);
	}
	fprintf(f, "  %-30s", "cheapest");
	for (k = 0; k < r->nk; k++)
		fprintf(f, "%*s", COL, best[k] ? best[k] : "-");
	fprintf(f, "\n  %-30s", "entry+return (latency variant)");
	fputc('\n', f);
	for (i = 0; i < NR_PATH_ROWS; i++) {
		snprintf(key, sizeof(key), "%s/latency", path_rows[i].mode);
		for (k = 0; k < r->nk; k++)
			if (r->k[k].doc[S_TRIGGER] && bench_find_point(r->k[k].doc[S_TRIGGER], key))
				break;
		if (k == r->nk)
			continue;
		fprintf(f, "  %-30s", path_rows[i].mode);
		for (k = 0; k < r->nk; k++)
			cell(f, r->k[k].doc[S_TRIGGER], key, ref[k]);
		fputc('\n', f);
	}
}

/* tracerd / peer per hook, variant and kernel: "1.28 / 0.69" (reference / bpftrace). */
static void screen_peers(FILE *f, const struct report *r)
{
	static const char *const variants[] = { "count", "latency" };
	const char *const *peers, *mode;
	char name[48], cell[40], a[16], b[16];
	bool header = false, row, if_measured;
	size_t i, v;
	int k;

	for (i = 0; peer_pair(i, &mode, &peers, &if_measured); i++)
		for (v = 0; v < 2; v++) {
			for (k = 0, row = false; k < r->nk && !row; k++) {
				json_object *doc = r->k[k].doc[S_TRIGGER];

				row = !isnan(peer_overhead(doc, peers[0], variants[v])) ||
				      (peers[1] && !isnan(peer_overhead(doc, peers[1], variants[v])));
				row &= !if_measured || !isnan(peer_overhead(doc, mode, variants[v]));
			}
			if (!row)
				continue;
			if (!header)
				header = (fprintf(f, "\ntracerd / peer overhead, same loop (reference program / "
						  "bpftrace; < 1: tracerd cheaper)\n"), true);
			snprintf(name, sizeof(name), "%s %s", mode, variants[v]);
			fprintf(f, "  %-30s", name);
			for (k = 0; k < r->nk; k++) {
				json_object *doc = r->k[k].doc[S_TRIGGER];
				double t = peer_overhead(doc, mode, variants[v]), p;
				size_t j;

				for (j = 0; j < 2; j++) {
					p = peers[j] ? peer_overhead(doc, peers[j], variants[v]) : NAN;
					snprintf(j ? b : a, sizeof(a), t > 0 && p > 0 ? "%.2f" : "-", t / p);
				}
				snprintf(cell, sizeof(cell), peers[1] ? "%s / %s" : "%s", a, b);
				fprintf(f, "%*s", COL, cell);
			}
			fputc('\n', f);
		}
}

/* The largest I of the ops run with a 1/I point of mode measured, or -1. */
static long long ops_max_i(json_object *doc, const char *mode)
{
	json_object *pts = jget(doc, "points");
	size_t i, n = pts ? json_object_array_length(pts) : 0;
	long long best = -1;

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(pts, i), *l = jget(p, "labels");

		if (!strcmp(jstr(l, "mode", ""), mode) && jint(l, "relevant", -1) == 1 &&
		    !strcmp(jstr(p, "status", ""), "ok") && jint(l, "irrelevant", -1) > best)
			best = jint(l, "irrelevant", -1);
	}
	return best;
}

static double ops_overhead(json_object *doc, const char *mode, long long rel, long long irr)
{
	char key[96];

	snprintf(key, sizeof(key), "%s/R%lld/I%lld", mode, rel, irr);
	return point_median(doc, key, "overhead_ns");
}

/* ------------------------------------------------ seed 000, side by side */

/*
 * Seed 000's table (Spacemit K1, riscv64, without and with its CALL_OPS
 * patch), the rows the screen shows: its cross (R = 0 and 1 against every
 * I, every R against I = 0) for R <= 10. Overhead ns per call against its
 * 0/0 (NAN: the seed gives none); the 0/0 row is the base's ns per call.
 */
static const struct {
	int r, i;
	double without, with;
} seed_rows[] = {
	{ 0, 0, 13, 14 },
	{ 0, 1, NAN, NAN },	{ 0, 2, NAN, NAN },	{ 0, 10, NAN, NAN },
	{ 0, 100, NAN, NAN },	{ 0, 200, NAN, NAN },
	{ 1, 0, 123, 38 },	{ 1, 1, 172, 38 },	{ 1, 2, 215, 40 },
	{ 1, 10, 575, 38 },	{ 1, 100, 5038, 39 },	{ 1, 200, 15791, 39 },
	{ 2, 0, 184, 181 },	{ 10, 0, 664, 663 },
};
#define SEED_ROWS	(sizeof(seed_rows) / sizeof(seed_rows[0]))
#define SEED_1_0_WITHOUT	123	/* its 1/0 in the I sweep (the 128x) */
#define SEED_1_200_WITHOUT	15791
#define SEED_1_0_WITH		38
#define SEED_1_200_WITH		39
#define SEED_R_1_0_WITHOUT	122	/* its 1/0 in the R sweep (the text's 122 -> 38) */

/* make demo's kernels (tests/vm/demo.sh names), in the table's column order */
static const struct {
	const char *arch, *rel, *name;
} seed_kernels[] = {
	{ "riscv64", "6.12", "6.12-riscv64" },	{ "riscv64", "7.2", "7.2-riscv64" },
	{ "aarch64", "6.1", "6.1-arm64" },	{ "aarch64", "6.12", "6.12-arm64" },
	{ "x86_64", "6.12", "6.12 (x86_64)" },
};
#define SEED_NK		(sizeof(seed_kernels) / sizeof(seed_kernels[0]))

/* per arch, the demo's kernel without CALL_OPS and the one with it (seed_kernels[]) */
static const struct {
	const char *arch;
	size_t without, with;
} seed_pairs[] = { { "riscv64", 0, 1 }, { "aarch64", 2, 3 } };
#define SEED_NPAIRS	(sizeof(seed_pairs) / sizeof(seed_pairs[0]))

#define SEED_CELL	24
#define SEED_LINES	(2 * MAX_KERNELS + 8)

/* What the section shows, for the screen and the page alike. */
struct seed_view {
	int col[MAX_KERNELS], nc;	/* kernels with ops results, in column order */
	char head[2][2 + MAX_KERNELS][SEED_CELL];
	char cell[SEED_ROWS][2 + MAX_KERNELS][SEED_CELL];
	bool shown[SEED_ROWS];		/* not a row of "-" only */
	struct {
		int level;		/* 0: a heading, 1: one of its items */
		char text[512];
	} line[SEED_LINES];
	int nl;
};

static void seed_say(struct seed_view *v, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void seed_say(struct seed_view *v, int level, const char *fmt, ...)
{
	va_list ap;

	if (v->nl == SEED_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(v->line[v->nl].text, sizeof(v->line[v->nl].text), fmt, ap);
	va_end(ap);
	v->line[v->nl++].level = level;
}

static size_t seed_rank(const struct kern *k)
{
	size_t i;

	for (i = 0; i < SEED_NK; i++)
		if (!strcmp(k->arch, seed_kernels[i].arch) && !strcmp(k->rel, seed_kernels[i].rel))
			break;
	return i;
}

/* The first kernel of the report that is demo kernel i, or NULL. */
static const struct kern *seed_kernel(const struct report *r, size_t i)
{
	int k;

	for (k = 0; k < r->nk; k++)
		if (seed_rank(&r->k[k]) == i)
			return &r->k[k];
	return NULL;
}

/* kmod-callops unavailable in doc (its 0/0 point or the features say so) */
static bool callops_unavailable(json_object *doc, const char **why)
{
	json_object *p = bench_find_point(doc, "kmod-callops/R0/I0");
	json_object *st = jget(jget(doc, "modes"), "kmod-callops");

	if (p && !strcmp(jstr(p, "status", ""), "unavailable")) {
		*why = jstr(p, "reason", "?");
		return true;
	}
	if (!p && st && !jbool(st, "available")) {
		*why = jstr(st, "reason", "?");
		return true;
	}
	return false;
}

static void seed_kcell(char *buf, size_t len, json_object *doc, int r, int i)
{
	json_object *p;
	const char *st, *why;
	char key[64];
	double v;

	snprintf(key, sizeof(key), "kmod-callops/R%d/I%d", r, i);
	p = bench_find_point(doc, key);
	if (!p) {
		snprintf(buf, len, "%s", callops_unavailable(doc, &why) ? "n/a" : "-");
		return;
	}
	st = jstr(p, "status", "");
	if (strcmp(st, "ok")) {
		snprintf(buf, len, "%s", !strcmp(st, "error") ? "error" : "n/a");
		return;
	}
	v = point_stat(p, r || i ? "overhead_ns" : "ns_per_call", "median");
	if (isnan(v))
		snprintf(buf, len, "?");
	else	/* noise of -0.4 is a 0, not a "-0" */
		snprintf(buf, len, r || i ? "%.0f" : "[%.0f]", fabs(v) <= 0.5 ? 0.0 : v);
}

/* "num / den = q x", or why it is noise: an overhead at or below 0 */
static void seed_ratio(char *buf, size_t len, const char *nname, double num, const char *dname,
		       double den)
{
	double q = num / den;

	if (num <= 0 || den <= 0)
		snprintf(buf, len, "noise: %s %.1f ns, %s %.1f ns (an overhead at or below 0 is "
			 "the emulator's noise, no ratio)", nname, num, dname, den);
	else
		snprintf(buf, len, q >= 10 ? "%.0f / %.0f = %.0fx" : "%.0f / %.0f = %.2fx", num, den,
			 q);
}

/* why kernel role (demo kernel i) is not there for a ratio */
static void seed_missing(char *buf, size_t len, const struct report *r, size_t i, bool call_ops)
{
	const struct kern *k = seed_kernel(r, i);

	if (!k)
		snprintf(buf, len, "no %s run", seed_kernels[i].name);
	else if (!k->doc[S_OPS])
		snprintf(buf, len, "no %s ops run", seed_kernels[i].name);
	else
		snprintf(buf, len, "no %s kernel %s CALL_OPS in these results (%s's config: %s)",
			 seed_kernels[i].arch, call_ops ? "with" : "without", k->label,
			 k->call_ops ? "CALL_OPS" : "no CALL_OPS");
}

/* effect a) on kernel k: 1/Imax over 1/0 of kmod-callops (and kmod-direct) */
static void seed_effect_a(struct seed_view *v, const struct kern *k)
{
	static const char *const modes[] = { "kmod-callops", "kmod-direct" };
	json_object *doc = k->doc[S_OPS];
	char text[480], rt[200], nn[32], lab[40];
	const char *why;
	size_t off = 0, m;

	snprintf(lab, sizeof(lab), "%s%s", k->label, k->call_ops ? " (CALL_OPS)" : "");
	for (m = 0; m < 2 && off < sizeof(text); m++) {
		long long imax = ops_max_i(doc, modes[m]);
		double a = ops_overhead(doc, modes[m], 1, 0), b;

		if (m && (imax <= 0 || isnan(a)))
			continue;	/* kmod-direct: only when there is a ratio */
		if (!m && callops_unavailable(doc, &why)) {
			off += (size_t)snprintf(text + off, sizeof(text) - off, "kmod-callops n/a: %.150s",
						why);
			continue;
		}
		if (imax <= 0 || isnan(a)) {
			off += (size_t)snprintf(text + off, sizeof(text) - off, "kmod-callops: no "
						"measured 1/0 and 1/I (I > 0) in these results");
			continue;
		}
		b = ops_overhead(doc, modes[m], 1, imax);
		snprintf(nn, sizeof(nn), "1/%lld", imax);
		seed_ratio(rt, sizeof(rt), nn, b, "1/0", a);
		if (m)
			off += (size_t)snprintf(text + off, sizeof(text) - off, "; kmod-direct 1/%lld "
						"over 1/0: %s", imax, rt);
		else if (imax != 200)
			off += (size_t)snprintf(text + off, sizeof(text) - off, "kmod-callops 1/%lld "
						"over 1/0 (Imax %lld, not 200): %s", imax, imax, rt);
		else
			off += (size_t)snprintf(text + off, sizeof(text) - off, "kmod-callops 1/%lld "
						"over 1/0: %s", imax, rt);
	}
	seed_say(v, 1, "%-25s %s", lab, text);
}

/* effect b) on arch: 1/0 with CALL_OPS over without; pair: the demo's kernels or NULL */
static void seed_effect_b(struct seed_view *v, const struct report *r, const char *arch,
			  const size_t *pair)
{
	const struct kern *w = NULL, *wo = NULL;
	char rt[200], a[160], b[160];
	int c;

	for (c = 0; c < v->nc; c++) {
		const struct kern *k = &r->k[v->col[c]];

		if (strcmp(k->arch, arch))
			continue;
		if (k->call_ops && !w)
			w = k;
		else if (!k->call_ops && !wo)
			wo = k;
	}
	if (w && wo) {
		double num = ops_overhead(w->doc[S_OPS], "kmod-callops", 1, 0);
		double den = ops_overhead(wo->doc[S_OPS], "kmod-callops", 1, 0);

		if (isnan(num) || isnan(den))
			snprintf(rt, sizeof(rt), "kmod-callops 1/0 not measured on %s",
				 isnan(num) ? w->label : wo->label);
		else
			seed_ratio(rt, sizeof(rt), w->label, num, wo->label, den);
		seed_say(v, 1, "%s: %s over %s: %s", arch, w->label, wo->label, rt);
		return;
	}
	a[0] = b[0] = 0;
	if (!wo) {
		if (pair)
			seed_missing(a, sizeof(a), r, pair[0], false);
		else
			snprintf(a, sizeof(a), "no %s kernel without CALL_OPS in these results", arch);
	}
	if (!w) {
		if (pair)
			seed_missing(b, sizeof(b), r, pair[1], true);
		else
			snprintf(b, sizeof(b), "no %s kernel with CALL_OPS in these results", arch);
	}
	seed_say(v, 1, "%s: %s%s%s", arch, a, a[0] && b[0] ? "; " : "", b);
}

static void seed_view(struct seed_view *v, const struct report *r)
{
	char missing[200];
	size_t i, rank, j, off = 0;
	int k, c;

	memset(v, 0, sizeof(*v));
	for (rank = 0; rank <= SEED_NK; rank++)	/* the demo's order, then the others */
		for (k = 0; k < r->nk; k++)
			if (r->k[k].doc[S_OPS] && seed_rank(&r->k[k]) == rank)
				v->col[v->nc++] = k;
	snprintf(v->head[0][0], SEED_CELL, "seed 000 K1");
	snprintf(v->head[1][0], SEED_CELL, "no CALL_OPS");
	snprintf(v->head[0][1], SEED_CELL, "seed 000 K1");
	snprintf(v->head[1][1], SEED_CELL, "CALL_OPS");
	for (c = 0; c < v->nc; c++) {
		snprintf(v->head[0][2 + c], SEED_CELL, "%s", r->k[v->col[c]].label);
		snprintf(v->head[1][2 + c], SEED_CELL, "%s",
			 r->k[v->col[c]].call_ops ? "CALL_OPS" : "no CALL_OPS");
	}
	for (i = 0; i < SEED_ROWS; i++) {
		const char *fmt = seed_rows[i].r || seed_rows[i].i ? "%.0f" : "[%.0f]";

		if (isnan(seed_rows[i].without))
			snprintf(v->cell[i][0], SEED_CELL, "-");
		else
			snprintf(v->cell[i][0], SEED_CELL, fmt, seed_rows[i].without);
		if (isnan(seed_rows[i].with))
			snprintf(v->cell[i][1], SEED_CELL, "-");
		else
			snprintf(v->cell[i][1], SEED_CELL, fmt, seed_rows[i].with);
		for (c = 0; c < v->nc; c++)
			seed_kcell(v->cell[i][2 + c], SEED_CELL, r->k[v->col[c]].doc[S_OPS],
				   seed_rows[i].r, seed_rows[i].i);
		for (c = 0; c < 2 + v->nc; c++)
			v->shown[i] |= strcmp(v->cell[i][c], "-") != 0;
	}

	/* a) per kernel */
	{
		char s1[96], s2[96];

		seed_ratio(s1, sizeof(s1), "1/200", SEED_1_200_WITHOUT, "1/0", SEED_1_0_WITHOUT);
		seed_ratio(s2, sizeof(s2), "1/200", SEED_1_200_WITH, "1/0", SEED_1_0_WITH);
		seed_say(v, 0, "a) 1 relevant tracer, I irrelevant: overhead 1/Imax over 1/0 (Imax "
			 "200 unless said; seed: without CALL_OPS %s, with %s)", s1, s2);
	}
	for (c = 0; c < v->nc; c++)
		seed_effect_a(v, &r->k[v->col[c]]);
	missing[0] = 0;
	for (i = 0; i < SEED_NK && off < sizeof(missing); i++) {
		const struct kern *kk = seed_kernel(r, i);

		if (kk && kk->doc[S_OPS])
			continue;
		off += (size_t)snprintf(missing + off, sizeof(missing) - off, "%sno %s %srun",
					off ? "; " : "", seed_kernels[i].name, kk ? "ops " : "");
	}
	if (missing[0])
		seed_say(v, 1, "%s", missing);
	if (!v->nc)
		seed_say(v, 1, "(no ops results)");

	/* b) per arch: the demo's pairs, then any other arch with a CALL_OPS kernel */
	{
		char s[96];

		seed_ratio(s, sizeof(s), "with", SEED_1_0_WITH, "without", SEED_R_1_0_WITHOUT);
		seed_say(v, 0, "b) 1/0 with CALL_OPS over without, same arch, kmod-callops "
			 "(seed: %s)", s);
	}
	for (j = 0; j < SEED_NPAIRS; j++) {
		size_t pair[2] = { seed_pairs[j].without, seed_pairs[j].with };

		seed_effect_b(v, r, seed_pairs[j].arch, pair);
	}
	for (c = 0; c < v->nc; c++) {
		const struct kern *kk = &r->k[v->col[c]];
		int d;

		for (j = 0; j < SEED_NPAIRS && strcmp(kk->arch, seed_pairs[j].arch); j++)
			;
		if (!kk->call_ops || j < SEED_NPAIRS)
			continue;
		for (d = 0; d < c; d++)	/* once per arch */
			if (r->k[v->col[d]].call_ops && !strcmp(r->k[v->col[d]].arch, kk->arch))
				break;
		if (d == c)
			seed_effect_b(v, r, kk->arch, NULL);
	}
}

static void screen_seed000(FILE *f, const struct report *r)
{
	struct seed_view *v = calloc(1, sizeof(*v));
	size_t i;
	int c, h;

	if (!v)
		return;
	seed_view(v, r);
	fprintf(f, "\nSeed 000 side by side: kmod-callops overhead ns/call against 0/0 of the same "
		"boot (median; 0/0: [base ns/call])\n");
	for (h = 0; h < 2; h++) {
		fprintf(f, "  %-10s", h ? "" : "R/I");
		for (c = 0; c < 2 + v->nc; c++)
			fprintf(f, "%*s", COL, v->head[h][c]);
		fputc('\n', f);
	}
	for (i = 0; i < SEED_ROWS; i++) {
		char rl[16];

		if (!v->shown[i])
			continue;
		snprintf(rl, sizeof(rl), "%d/%d", seed_rows[i].r, seed_rows[i].i);
		fprintf(f, "  %-10s", rl);
		for (c = 0; c < 2 + v->nc; c++)
			fprintf(f, "%*s", COL, v->cell[i][c]);
		fputc('\n', f);
	}
	for (i = 0; i < (size_t)v->nl; i++)
		fprintf(f, "%s%s\n", v->line[i].level ? "    " : "  ", v->line[i].text);
	free(v);
}

/* The attach point of mode with the largest K that was measured, or NULL. */
static json_object *attach_point(json_object *doc, const char *mode, const char *how)
{
	json_object *pts = jget(doc, "points"), *best = NULL;
	size_t i, n = pts ? json_object_array_length(pts) : 0;

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(pts, i), *l = jget(p, "labels");

		if (strcmp(jstr(l, "mode", ""), mode) || strcmp(jstr(l, "how", ""), how) ||
		    strcmp(jstr(p, "status", ""), "ok"))
			continue;
		if (!best || jint(l, "funcs", 0) > jint(jget(best, "labels"), "funcs", 0))
			best = p;
	}
	return best;
}

static void screen_attach(FILE *f, const struct report *r)
{
	static const char *const hows[] = { "one" };	/* separate: in the attach tables */
	char name[64], buf[48];
	size_t i, h;
	int k;
	bool any = false;

	for (k = 0; k < r->nk; k++)
		any |= r->k[k].doc[S_ATTACH] != NULL;
	if (!any)
		return;
	fprintf(f, "\nAttach / detach of K functions as one attachment (median ms; K hooks "
		"apart: the attach tables)\n");
	header(f, r, "mode", 30);
	for (i = 0; i < NR_PATH_ROWS; i++)
		for (h = 0; h < sizeof(hows) / sizeof(hows[0]); h++) {
			bool row = false;

			for (k = 0; k < r->nk; k++)
				row |= r->k[k].doc[S_ATTACH] &&
				       attach_point(r->k[k].doc[S_ATTACH], path_rows[i].mode, hows[h]);
			if (!row)
				continue;
			snprintf(name, sizeof(name), "%s", path_rows[i].mode);
			fprintf(f, "  %-30s", name);
			for (k = 0; k < r->nk; k++) {
				json_object *p = r->k[k].doc[S_ATTACH] ?
					attach_point(r->k[k].doc[S_ATTACH], path_rows[i].mode, hows[h]) : NULL;

				if (p)
					snprintf(buf, sizeof(buf), "K%lld %.0f/%.0f",
						 jint(jget(p, "labels"), "funcs", 0),
						 point_stat(p, "attach_us", "median") / 1e3,
						 point_stat(p, "detach_us", "median") / 1e3);
				else
					snprintf(buf, sizeof(buf), "n/a");
				fprintf(f, "%*s", COL, buf);
			}
			fputc('\n', f);
		}
}

/* ------------------------------------------------- entry sequence (seed 003) */

/* Seed 003 (J. Thierry, linux-arm-kernel, 2019-01-16): hackbench, s, average of 20 runs. */
#define SEED003_A53 "4 x Cortex-A53: 43.899 s `nop; nop`, 44.835 s `mov x9, lr; nop`: \"a ~2% hit\""
#define SEED003_A57 "8 x Cortex-A57: 43.6813 s and 43.29825 s: \"within the noise (<1%)\""

/* The point of doc compared in seed 003's pair (it has an "against" label). */
static json_object *entry_pair(json_object *doc)
{
	size_t i, n = jlen(jget(doc, "points"));

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(jget(doc, "points"), i);

		if (jget(jget(p, "labels"), "against"))
			return p;
	}
	return NULL;
}

static void screen_entry(FILE *f, const struct report *r)
{
	char a[48], b[48];
	int k, shown = 0;

	fprintf(f, "\nEntry sequence (seed 003): an untraced function's entry against its notrace "
		"twin (bench entry, ns/call)\n  seed, hackbench: %s;\n    %s\n", SEED003_A53, SEED003_A57);
	for (k = 0; k < r->nk; k++) {
		json_object *doc = r->k[k].doc[S_ENTRY], *t, *q, *l;

		if (!doc)
			continue;
		t = bench_find_point(doc, "traceable");
		q = entry_pair(doc);
		l = jget(q, "labels");
		entry_cell(a, sizeof(a), t, "overhead_ns", "ratio");
		entry_cell(b, sizeof(b), q, "against_ns", "against_ratio");
		fprintf(f, "  %-14s traceable `%s`: %s; `%s` vs `%s`: %s\n", r->k[k].label,
			jtty(jget(t, "labels"), "entry", "?"), a, jtty(l, "entry", "?"),
			jtty(jget(bench_find_point(doc, jstr(l, "against", "")), "labels"), "entry", "?"),
			b);
		shown++;
	}
	if (!shown)
		fprintf(f, "  (no bench entry results)\n");
}

/* The page: ns/call of every variant on every kernel (colour = kernel), beside the seed. */
static void page_entry(FILE *f, const struct report *r)
{
	struct svg_bar bars[MAX_KERNELS * 8];
	char labels[MAX_KERNELS * 8][64], attrs[96];
	int nb = 0, marks = 0, k;
	size_t i;

	for (k = 0; k < r->nk; k++) {
		json_object *pts = jget(r->k[k].doc[S_ENTRY], "points");

		for (i = 0; i < jlen(pts) && nb < MAX_KERNELS * 8; i++, nb++) {
			json_object *p = json_object_array_get_idx(pts, i);

			snprintf(labels[nb], sizeof(labels[nb]), "%s, %s", jstr(p, "key", "?"),
				 r->k[k].label);
			bars[nb].label = labels[nb];
			bars[nb].value = point_median(r->k[k].doc[S_ENTRY], jstr(p, "key", ""),
						      "ns_per_call");
			bars[nb].note = jstr(p, "status", "?");
			bars[nb].color = k;
			marks += !isnan(bars[nb].value);
		}
	}
	if (!nb)
		return;
	fputs("\n<h2>Entry sequence (seed 003)</h2>\n<p>An untraced traceable function against "
	      "its notrace twin and hand-written twins (tracerd_testmod), ns per call. The seed, "
	      "hackbench, average of 20 runs: ", f);
	svg_esc(f, SEED003_A53 "; " SEED003_A57 ".");
	fputs("</p>\n", f);
	snprintf(attrs, sizeof(attrs), "data-plot=\"entry\" data-marks=\"%d\"", marks);
	svg_open(f, 600, svg_bars_height(nb), attrs);
	svg_bars(f, "untraced entry: ns per call (colour: kernel)", "ns per call (median)", bars,
		 nb, 0, 0);
	svg_end(f);
}

/* One line per mode and reason a kernel lacks it (kernels sharing one joined). */
static void screen_unavailable(FILE *f, const struct report *r)
{
	char kernels[256];
	int k, j, shown = 0;

	fprintf(f, "\nUnavailable here, and why\n");
	for (k = 0; k < r->nk; k++) {
		json_object *modes = jget(r->k[k].doc[S_TRIGGER] ? r->k[k].doc[S_TRIGGER] :
					  r->k[k].doc[S_OPS], "modes");

		if (!modes)
			continue;
		json_object_object_foreach(modes, mode, st) {
			const char *why = jstr(st, "reason", "?");
			size_t off;

			if (jbool(st, "available"))
				continue;
			for (j = 0; j < k; j++) {	/* said for an earlier kernel already? */
				json_object *m2 = jget(r->k[j].doc[S_TRIGGER] ? r->k[j].doc[S_TRIGGER] :
						       r->k[j].doc[S_OPS], "modes"), *s2 = jget(m2, mode);

				if (s2 && !jbool(s2, "available") && !strcmp(jstr(s2, "reason", ""), why))
					break;
			}
			if (j < k)
				continue;
			off = (size_t)snprintf(kernels, sizeof(kernels), "%s", r->k[k].label);
			for (j = k + 1; j < r->nk && off < sizeof(kernels); j++) {
				json_object *m2 = jget(r->k[j].doc[S_TRIGGER] ? r->k[j].doc[S_TRIGGER] :
						       r->k[j].doc[S_OPS], "modes"), *s2 = jget(m2, mode);

				if (s2 && !jbool(s2, "available") && !strcmp(jstr(s2, "reason", ""), why))
					off += (size_t)snprintf(kernels + off, sizeof(kernels) - off, ", %s",
								r->k[j].label);
			}
			fprintf(f, "  %s (%s): %.150s\n", mode, kernels, why);
			shown++;
		}
	}
	if (!shown)
		fprintf(f, "  every mode measured on every kernel\n");
}

static void screen(FILE *f, const struct report *r)
{
	fprintf(f, "tracerd: what each hook path costs, %d kernel%s (QEMU TCG when booted by the "
		"harness: compare ratios, not ns)\n\n", r->nk, r->nk == 1 ? "" : "s");
	screen_overhead(f, r);
	screen_peers(f, r);
	screen_seed000(f, r);
	screen_attach(f, r);
	screen_entry(f, r);
	screen_unavailable(f, r);
}

/* ------------------------------------------------------------ the page */

/* Bars: the count overhead of every path on every kernel (colour = kernel). */
static int page_overhead(FILE *f, const struct report *r)
{
	struct svg_bar bars[NR_PATH_ROWS * MAX_KERNELS];
	char labels[NR_PATH_ROWS * MAX_KERNELS][64], key[96], attrs[96];
	int nb = 0, marks = 0, k;
	size_t i;

	for (i = 0; i < NR_PATH_ROWS; i++) {
		if (!mode_in_trigger(r, path_rows[i].mode))
			continue;
		snprintf(key, sizeof(key), "%s/count", path_rows[i].mode);
		for (k = 0; k < r->nk; k++) {
			json_object *p = r->k[k].doc[S_TRIGGER] ?
				bench_find_point(r->k[k].doc[S_TRIGGER], key) : NULL;

			if (!p)
				continue;
			snprintf(labels[nb], sizeof(labels[nb]), "%s, %s", path_rows[i].mode, r->k[k].label);
			bars[nb].label = labels[nb];
			bars[nb].value = point_median(r->k[k].doc[S_TRIGGER], key, "overhead_ns");
			bars[nb].note = jstr(p, "status", "?");
			bars[nb].color = k;
			marks += !isnan(bars[nb].value);
			nb++;
		}
	}
	snprintf(attrs, sizeof(attrs), "data-plot=\"overhead\" data-marks=\"%d\"", marks);
	svg_open(f, 600, svg_bars_height(nb), attrs);
	svg_bars(f, "overhead per call, count variant (colour: kernel)", "ns per call (median)",
		 bars, nb, 0, 0);
	svg_end(f);
	return marks;
}

static void seed_line(struct svg_line *l, const char *name, const double *y)
{
	int j;

	l->name = name;
	for (j = 0; j < SEED_N; j++) {
		l->x[j] = seed_i[j] + 1;
		l->y[j] = y[j];
	}
	l->n = SEED_N;
}

/* The page: seed 000's table side by side (the screen's), its two ratios under it. */
static void page_seed000(FILE *f, const struct report *r)
{
	struct seed_view *v = calloc(1, sizeof(*v));
	size_t i;
	int c, h, open = 0;

	if (!v)
		return;
	seed_view(v, r);
	fputs("<p>kmod-callops overhead ns per call against the 0/0 point of the same boot "
	      "(median); the 0/0 row is the base's ns per call; a row no column measured is left "
	      "out. The seed's columns: Spacemit K1, riscv64, without and with its CALL_OPS "
	      "patch.</p>\n"
	      "<table class=\"seed\" data-table=\"seed000\">\n<thead>\n", f);
	for (h = 0; h < 2; h++) {
		fprintf(f, "<tr><th>%s</th>", h ? "" : "R/I");
		for (c = 0; c < 2 + v->nc; c++) {
			fputs("<th>", f);
			svg_esc(f, v->head[h][c]);
			fputs("</th>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</thead>\n<tbody>\n", f);
	for (i = 0; i < SEED_ROWS; i++) {
		if (!v->shown[i])
			continue;
		fprintf(f, "<tr data-row=\"%d/%d\"><th>%d/%d</th>", seed_rows[i].r, seed_rows[i].i,
			seed_rows[i].r, seed_rows[i].i);
		for (c = 0; c < 2 + v->nc; c++) {
			fputs("<td>", f);
			svg_esc(f, v->cell[i][c]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	for (i = 0; i < (size_t)v->nl; i++) {
		if (v->line[i].level && !open) {
			fputs("<ul data-list=\"seed000\">\n", f);
			open = 1;
		} else if (!v->line[i].level && open) {
			fputs("</ul>\n", f);
			open = 0;
		}
		fputs(v->line[i].level ? "<li>" : "<p>", f);
		svg_esc(f, v->line[i].text);
		fputs(v->line[i].level ? "</li>\n" : "</p>\n", f);
	}
	if (open)
		fputs("</ul>\n", f);
	free(v);
}

/* Lines: 1 relevant tracer, I irrelevant, per kernel and kmod mode, beside the seed's. */
static int page_ops(FILE *f, const struct report *r)
{
	static const char *const modes[] = { "kmod-callops", "kmod-direct" };
	struct svg_line lines[2 + 2 * MAX_KERNELS] = {};
	char names[2 * MAX_KERNELS][80], attrs[96];
	int nl = 2, marks = 0, k, m;

	seed_line(&lines[0], "seed 000: riscv64 without CALL_OPS", seed_without);
	seed_line(&lines[1], "seed 000: riscv64 with CALL_OPS", seed_with);
	for (k = 0; k < r->nk; k++)
		for (m = 0; m < 2; m++) {
			json_object *pts = jget(r->k[k].doc[S_OPS], "points");
			size_t i, n = pts ? json_object_array_length(pts) : 0;
			struct svg_line *l = &lines[nl];

			for (i = 0; i < n && l->n < 64; i++) {
				json_object *p = json_object_array_get_idx(pts, i), *lb = jget(p, "labels");
				double y = point_stat(p, "overhead_ns", "median");

				if (strcmp(jstr(lb, "mode", ""), modes[m]) || jint(lb, "relevant", -1) != 1 ||
				    strcmp(jstr(p, "status", ""), "ok") || !(y > 0))
					continue;	/* a log axis: noise at or below 0 is left out */
				l->x[l->n] = (double)jint(lb, "irrelevant", 0) + 1;
				l->y[l->n++] = y;
			}
			if (!l->n)
				continue;
			snprintf(names[nl - 2], sizeof(names[0]), "%s %s%s", r->k[k].label, modes[m],
				 m == 0 && r->k[k].call_ops ? " (CALL_OPS)" : "");
			l->name = names[nl - 2];
			marks += l->n;
			nl++;
		}
	snprintf(attrs, sizeof(attrs), "data-plot=\"ops\" data-marks=\"%d\"", marks + 2 * SEED_N);
	svg_open(f, 600, svg_chart_height(nl), attrs);
	svg_chart(f, "1 relevant tracer, I irrelevant", "irrelevant tracers (I + 1)",
		  "overhead ns/call", true, true, lines, nl, 0, 0);
	svg_end(f);
	return marks;
}

/* Lines per kernel: attach time of K functions per mode (one attachment of all K). */
static int page_attach(FILE *f, const struct kern *k)
{
	struct svg_line lines[NR_PATH_ROWS] = {};
	json_object *pts = jget(k->doc[S_ATTACH], "points");
	size_t i, j, n = pts ? json_object_array_length(pts) : 0;
	char attrs[128];
	int nl = 0, marks = 0;

	for (j = 0; j < NR_PATH_ROWS; j++) {
		struct svg_line *l = &lines[nl];

		for (i = 0; i < n && l->n < 64; i++) {
			json_object *p = json_object_array_get_idx(pts, i), *lb = jget(p, "labels");
			double y = point_stat(p, "attach_us", "median");

			if (strcmp(jstr(lb, "mode", ""), path_rows[j].mode) ||
			    strcmp(jstr(lb, "how", ""), "one") || strcmp(jstr(p, "status", ""), "ok") ||
			    !(y > 0))
				continue;
			l->x[l->n] = (double)jint(lb, "funcs", 1);
			l->y[l->n++] = y / 1e3;
		}
		if (!l->n)
			continue;
		l->name = path_rows[j].mode;
		marks += l->n;
		nl++;
	}
	snprintf(attrs, sizeof(attrs), "data-plot=\"attach %s\" data-marks=\"%d\"", k->label, marks);
	svg_open(f, 600, svg_chart_height(nl), attrs);
	svg_chart(f, k->label, "K functions (one attachment)", "attach ms", true, true, lines, nl,
		  0, 0);
	svg_end(f);
	return marks;
}

/* href of a result file: relative to the page's directory when it lies under
 * it, else a file: URL of its absolute path; NULL when it cannot be found. */
static const char *href(const char *page, const char *file, char *buf, size_t len)
{
	char dir[4096], abs[4096];
	const char *slash = strrchr(page, '/');
	size_t n;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - page) : 1, slash ? page : ".");
	if (!realpath(dir, buf) || !realpath(file, abs))
		return NULL;
	n = strlen(buf);
	if (!strncmp(abs, buf, n) && abs[n] == '/')
		snprintf(buf, len, "%s", abs + n + 1);
	else
		snprintf(buf, len, "file://%.*s", (int)(len > 8 ? len - 8 : 0), abs);
	return buf;
}

static int write_page(const char *path, const struct report *r, const char *text)
{
	FILE *f = fopen(path, "we");
	char link[4096];
	int k, s;

	if (!f)
		return -errno;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<title>tracerd: what each hook path costs</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:2em;max-width:1250px}\n"
	      "pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}\n"
	      "svg{margin:0.5em 1em 0.5em 0;vertical-align:top;border:1px solid #eee}\n"
	      ".row{display:flex;flex-wrap:wrap}\n"
	      "table.seed{border-collapse:collapse;font-size:13px}\n"
	      "table.seed th,table.seed td{padding:2px 10px;text-align:right;border-bottom:1px solid #eee}\n"
	      "</style></head><body>\n<h1>tracerd: what each hook path costs</h1>\n"
	      "<p>Measured by <code>tracectl bench</code> on each kernel below. Under QEMU TCG "
	      "(how the project's harness boots them) the counts are exact and the times are "
	      "the emulator's: compare ratios, not nanoseconds.</p>\n<h2>Summary</h2>\n<pre>", f);
	svg_esc(f, text);
	fputs("</pre>\n<h2>Overhead per call, per path and kernel</h2>\n", f);
	if (any_suite(r, S_TRIGGER))
		page_overhead(f, r);
	else
		fputs("<p>No bench trigger results.</p>\n", f);
	fputs("\n<h2>Seed 000 side by side</h2>\n", f);
	page_seed000(f, r);
	fputs("\n<h2>Seed 000: one relevant tracer, I irrelevant ones</h2>\n", f);
	page_ops(f, r);
	fputs("\n<h2>Attach time against K</h2>\n", f);
	if (any_suite(r, S_ATTACH)) {
		fputs("<div class=\"row\">\n", f);
		for (k = 0; k < r->nk; k++)
			if (r->k[k].doc[S_ATTACH])
				page_attach(f, &r->k[k]);
		fputs("</div>\n", f);
	} else {
		fputs("<p>No bench attach results.</p>\n", f);
	}
	page_entry(f, r);
	fputs("<h2>Raw results</h2>\n<ul>\n", f);
	for (k = 0; k < r->nk; k++)
		for (s = 0; s < S_NR; s++) {
			if (!r->k[k].file[s])
				continue;
			if (!href(path, r->k[k].file[s], link, sizeof(link)))
				continue;
			fputs("<li><a href=\"", f);
			svg_esc(f, link);
			fprintf(f, "\">%s %s</a></li>\n", r->k[k].label, suite_names[s]);
		}
	fputs("</ul>\n</body></html>\n", f);
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}

static int bench_report(struct cli *cli, int argc, char **argv)
{
	struct report r = {};
	const char *html = NULL;
	char *text = NULL;
	size_t len = 0;
	int i, nf = 0, exit = 0, err;
	char **files = calloc((size_t)argc + 1, sizeof(*files));
	FILE *f;

	if (!files)
		return cli_error(cli, EXIT_FAILURE_, "internal", "out of memory");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--html") && i + 1 < argc)
			html = argv[++i];
		else if (!strncmp(argv[i], "--html=", 7))
			html = argv[i] + 7;
		else if (argv[i][0] == '-' && argv[i][1]) {
			exit = cli_error(cli, EXIT_USAGE, "usage", "bench report: unknown option '%s'",
					 argv[i]);
			goto cleanup;
		} else
			files[nf++] = argv[i];
	}
	if (!nf) {
		exit = cli_error(cli, EXIT_USAGE, "usage",
				 "usage: tracectl bench report [--html FILE] RESULT.json...");
		goto cleanup;
	}
	exit = report_load(&r, cli, nf, files);
	if (exit)
		goto cleanup;
	f = open_memstream(&text, &len);
	if (!f) {
		exit = cli_error(cli, EXIT_FAILURE_, "internal", "out of memory");
		goto cleanup;
	}
	screen(f, &r);
	fclose(f);
	fputs(text, stdout);
	if (html) {
		err = write_page(html, &r, text);
		if (err)
			exit = cli_error(cli, EXIT_FAILURE_, "io", "cannot write %s: %s", html,
					 strerror(-err));
		else
			printf("\nreport page: %s\n", html);
	}
cleanup:
	for (i = 0; i < r.nd; i++)
		json_object_put(r.docs[i]);
	free(text);
	free(files);
	return exit;
}

const struct bench_suite bench_suite_report = {
	.name = "report",
	.help = "[--html FILE] RESULT.json...: one screen of what a set of results\n"
		"            found per kernel (make demo ends with it), and a page with the plots\n",
	.offline = bench_report,
};
