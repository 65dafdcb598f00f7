// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench report: the seed 000 analysis (docs/origins.md). A published measurement
 * of one relevant ftrace tracer beside I irrelevant ones (Spacemit K1,
 * riscv64, without and with the CALL_OPS patch) against each kernel's
 * kmod-callops ops points, and its two effects as measured ratios: a) 1
 * relevant tracer with I irrelevant over none, per kernel; b) a kernel
 * with CALL_OPS over one of the same arch without. The result is model
 * data (struct seed_view) that the screen and the page both render.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_model.h"

/* The published curve: overhead ns of 1 relevant tracer, I irrelevant. */
static const double seed_i[] = { 0, 1, 2, 10, 100, 200 };
static const double seed_without[] = { 123, 172, 215, 575, 5038, 15791 };
static const double seed_with[] = { 38, 38, 40, 38, 39, 39 };
#define SEED_N	6

/*
 * The published table (Spacemit K1, riscv64, without and with its CALL_OPS
 * patch), the rows the screen shows: its cross (R = 0 and 1 against every
 * I, every R against I = 0) for R <= 10. Overhead ns per call against its
 * 0/0 (NAN: the seed gives none); the 0/0 row is the base's ns per call.
 */
static const struct {
	int r, i;
	double without, with;
} seed_rows[SEED_ROWS] = {
	{ 0, 0, 13, 14 },
	{ 0, 1, NAN, NAN },	{ 0, 2, NAN, NAN },	{ 0, 10, NAN, NAN },
	{ 0, 100, NAN, NAN },	{ 0, 200, NAN, NAN },
	{ 1, 0, 123, 38 },	{ 1, 1, 172, 38 },	{ 1, 2, 215, 40 },
	{ 1, 10, 575, 38 },	{ 1, 100, 5038, 39 },	{ 1, 200, 15791, 39 },
	{ 2, 0, 184, 181 },	{ 10, 0, 664, 663 },
};
_Static_assert(sizeof(seed_rows) / sizeof(seed_rows[0]) == SEED_ROWS, "one row each");
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
		snprintf(buf, len, q >= 10 ? "%.0f / %.0f = %.0fx" : "%.0f / %.0f = %.2fx", num,
			 den, q);
}

/* why kernel role (demo kernel i) is not there for a ratio */
static void seed_missing(char *buf, size_t len, const struct report *r, size_t i, bool call_ops)
{
	const struct kern *k = seed_kernel(r, i);

	if (!k)
		snprintf(buf, len, "no %s run", seed_kernels[i].name);
	else if (!k->doc[BENCH_OPS])
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
	json_object *doc = k->doc[BENCH_OPS];
	char text[480], rt[200], nn[32], lab[40];
	const char *why;
	size_t off = 0, m;

	snprintf(lab, sizeof(lab), "%s%s", k->label, k->call_ops ? " (CALL_OPS)" : "");
	for (m = 0; m < 2 && off < sizeof(text); m++) {
		long long imax = report_ops_max_i(doc, modes[m]);
		double a = report_ops_overhead(doc, modes[m], 1, 0), b;

		if (m && (imax <= 0 || isnan(a)))
			continue;	/* kmod-direct: only when there is a ratio */
		if (!m && callops_unavailable(doc, &why)) {
			off += (size_t)snprintf(text + off, sizeof(text) - off,
						"kmod-callops n/a: %.150s", why);
			continue;
		}
		if (imax <= 0 || isnan(a)) {
			off += (size_t)snprintf(text + off, sizeof(text) - off, "kmod-callops: no "
						"measured 1/0 and 1/I (I > 0) in these results");
			continue;
		}
		b = report_ops_overhead(doc, modes[m], 1, imax);
		snprintf(nn, sizeof(nn), "1/%lld", imax);
		seed_ratio(rt, sizeof(rt), nn, b, "1/0", a);
		if (m)
			off += (size_t)snprintf(text + off, sizeof(text) - off,
						"; kmod-direct 1/%lld over 1/0: %s", imax, rt);
		else if (imax != 200)
			off += (size_t)snprintf(text + off, sizeof(text) - off,
						"kmod-callops 1/%lld over 1/0 (Imax %lld, "
						"not 200): %s", imax, imax, rt);
		else
			off += (size_t)snprintf(text + off, sizeof(text) - off,
						"kmod-callops 1/%lld over 1/0: %s", imax, rt);
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
		double num = report_ops_overhead(w->doc[BENCH_OPS], "kmod-callops", 1, 0);
		double den = report_ops_overhead(wo->doc[BENCH_OPS], "kmod-callops", 1, 0);

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
			snprintf(a, sizeof(a), "no %s kernel without CALL_OPS in these results",
				 arch);
	}
	if (!w) {
		if (pair)
			seed_missing(b, sizeof(b), r, pair[1], true);
		else
			snprintf(b, sizeof(b), "no %s kernel with CALL_OPS in these results", arch);
	}
	seed_say(v, 1, "%s: %s%s%s", arch, a, a[0] && b[0] ? "; " : "", b);
}

void seed_view(struct seed_view *v, const struct report *r)
{
	char missing[200];
	size_t i, rank, j, off = 0;
	int k, c;

	memset(v, 0, sizeof(*v));
	for (rank = 0; rank <= SEED_NK; rank++)	/* the demo's order, then the others */
		for (k = 0; k < r->nk; k++)
			if (r->k[k].doc[BENCH_OPS] && seed_rank(&r->k[k]) == rank)
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

		snprintf(v->label[i], sizeof(v->label[i]), "%d/%d", seed_rows[i].r, seed_rows[i].i);
		if (isnan(seed_rows[i].without))
			snprintf(v->cell[i][0], SEED_CELL, "-");
		else
			snprintf(v->cell[i][0], SEED_CELL, fmt, seed_rows[i].without);
		if (isnan(seed_rows[i].with))
			snprintf(v->cell[i][1], SEED_CELL, "-");
		else
			snprintf(v->cell[i][1], SEED_CELL, fmt, seed_rows[i].with);
		for (c = 0; c < v->nc; c++)
			seed_kcell(v->cell[i][2 + c], SEED_CELL, r->k[v->col[c]].doc[BENCH_OPS],
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

		if (kk && kk->doc[BENCH_OPS])
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

bool seed000_point(int r, long long i, double *without, double *with)
{
	size_t k;

	for (k = 0; k < SEED_ROWS; k++)
		if (seed_rows[k].r == r && seed_rows[k].i == i && !isnan(seed_rows[k].without)) {
			*without = seed_rows[k].without;
			*with = seed_rows[k].with;
			return true;
		}
	return false;
}

int seed000_curves(struct svg_line *l)
{
	static char keys[2][SEED_N][32];	/* the page's data-v: "seed000#without/1/200" */
	int j, c;

	l[0].name = "seed 000: riscv64 without CALL_OPS";
	l[1].name = "seed 000: riscv64 with CALL_OPS";
	for (j = 0; j < SEED_N; j++) {
		l[0].x[j] = l[1].x[j] = seed_i[j] + 1;
		l[0].y[j] = seed_without[j];
		l[1].y[j] = seed_with[j];
		for (c = 0; c < 2; c++) {
			snprintf(keys[c][j], sizeof(keys[c][j]), "%s/1/%.0f", c ? "with" : "without",
				 seed_i[j]);
			l[c].key[j] = keys[c][j];
		}
	}
	l[0].ref = l[1].ref = (struct svg_ref){ .src = "seed000" };
	l[0].n = l[1].n = SEED_N;
	return 2 * SEED_N;
}
