// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench report: the conclusions, in sentences computed from the
 * results (never written in advance): per kernel, which hook path is
 * cheapest and how many times dearer the others are (bench trigger, count
 * variant), and whether seed 000's irrelevant-tracer effect (docs/origins.md)
 * shows (bench ops: kmod-callops 1/Imax over 1/0). A difference is called
 * "within noise" when the two points' samples overlap (the min of the one
 * at or below the max of the other), or when an overhead is at or below 0.
 * Each number is a part that names the JSON value it came from, so the
 * page can carry it (data-v) and a test can check it; the screen prints
 * the same sentences.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/strutil.h"
#include "bench_model.h"

/* The result file's name without its directory: what the page's data-v names. */
const char *report_src(const struct kern *k, int s)
{
	const char *f = k->file[s], *slash = f ? strrchr(f, '/') : NULL;

	return slash ? slash + 1 : f;
}

static struct concl_part *part(struct concl *c)
{
	if (c->n == CONCL_PARTS)	/* never cut silently: the last part says so */
		return &c->part[CONCL_PARTS - 1];
	memset(&c->part[c->n], 0, sizeof(c->part[0]));
	return &c->part[c->n++];
}

static void say(struct concl *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct concl *c, const char *fmt, ...)
{
	struct concl_part *p;
	va_list ap;

	if (c->n && !c->part[c->n - 1].v[0]) {	/* text after text: one part */
		size_t n = strlen(c->part[c->n - 1].text);

		va_start(ap, fmt);
		str_vfmt(c->part[c->n - 1].text + n, sizeof(c->part[0].text) - n, fmt, ap);
		va_end(ap);
		return;
	}
	p = part(c);
	va_start(ap, fmt);
	str_vfmt(p->text, sizeof(p->text), fmt, ap);
	va_end(ap);
}

/* "file#points[key=KEY].values.VALUE.median" */
static void ref(char *buf, size_t len, const char *src, const char *key, const char *value)
{
	str_fmt(buf, len, "%s#points[key=%s].values.%s.median", src, key, value);
}

/* a measured median as "%.0f" (or fmt), traced to its point */
static void num(struct concl *c, const char *fmt, double v, const char *src, const char *key,
		const char *value)
{
	struct concl_part *p = part(c);

	str_fmt(p->text, sizeof(p->text), fmt, v);
	ref(p->v, sizeof(p->v), src, key, value);
}

/* a published figure of seed 000 (docs/origins.md): data-v "seed000#COLUMN/R/I" */
static void seed_num(struct concl *c, double v, const char *col, int r, int i)
{
	struct concl_part *p = part(c);

	str_fmt(p->text, sizeof(p->text), "%.0f", v);
	str_fmt(p->v, sizeof(p->v), "seed000#%s/%d/%d", col, r, i);
}

/* a / b as "6.80x" ("46x" from 10 up): data-v and data-v2 the two values' refs */
static void ratio(struct concl *c, double a, double b, const char *va, const char *vb)
{
	struct concl_part *p = part(c);
	double q = a / b;

	str_fmt(p->text, sizeof(p->text), q >= 10 ? "%.0fx" : "%.2fx", q);
	str_fmt(p->v, sizeof(p->v), "%s", va);
	str_fmt(p->v2, sizeof(p->v2), "%s", vb);
}

/* a point's samples at or below b's and b's at or below a's: indistinguishable */
static bool overlap(json_object *a, json_object *b, const char *value)
{
	return point_stat(a, value, "min") <= point_stat(b, value, "max") &&
	       point_stat(b, value, "min") <= point_stat(a, value, "max");
}

static struct concl *sentence(struct conclusions *cs)
{
	struct concl *c;

	if (cs->n == CONCL_MAX)
		return NULL;
	c = &cs->s[cs->n++];
	c->n = 0;
	return c;
}

/* the cheapest measured mode of path p on k (> 0 ns), its key, NAN when none */
static double path_best(const struct report *r, const struct kern *k, const char *path,
			const char **mode)
{
	double best = NAN, v;
	char key[96];
	int i;

	*mode = NULL;
	for (i = 0; i < r->np; i++) {
		if (strcmp(r->path[i].path, path))
			continue;
		snprintf(key, sizeof(key), "%s/count", r->path[i].mode);
		v = point_median(k->doc[BENCH_TRIGGER], key, "overhead_ns");
		if (v > 0 && (isnan(best) || v < best)) {
			best = v;
			*mode = r->path[i].mode;
		}
	}
	return best;
}

/* "On K the cheapest hook path is P (mode, N ns per call); Q (mode, N ns) costs Rx as much, ..." */
static void cheapest(struct conclusions *cs, const struct report *r, const struct kern *k)
{
	const char *paths[BENCH_MAX_HOOKS], *modes[BENCH_MAX_HOOKS], *src, *tmp;
	double v[BENCH_MAX_HOOKS], t;
	char key[BENCH_MAX_HOOKS][96], kt[96], va[160], vb[160], noise[400];
	struct concl *c = sentence(cs);
	int np = 0, i, j;
	size_t off = 0;

	if (!c)
		return;
	if (!k->doc[BENCH_TRIGGER]) {
		say(c, "On %s the cheapest hook path: n/a (no bench trigger results).", k->label);
		return;
	}
	src = report_src(k, BENCH_TRIGGER);
	for (i = 0; i < r->np; i++) {	/* each path once, by its cheapest mode */
		for (j = 0; j < np && strcmp(paths[j], r->path[i].path); j++)
			;
		if (j < np)
			continue;
		v[np] = path_best(r, k, r->path[i].path, &modes[np]);
		if (isnan(v[np]))
			continue;
		paths[np] = r->path[i].path;
		snprintf(key[np], sizeof(key[0]), "%s/count", modes[np]);
		np++;
	}
	for (i = 1; i < np; i++)	/* cheapest first */
		for (j = i; j > 0 && v[j] < v[j - 1]; j--) {
			t = v[j], v[j] = v[j - 1], v[j - 1] = t;
			tmp = paths[j], paths[j] = paths[j - 1], paths[j - 1] = tmp;
			tmp = modes[j], modes[j] = modes[j - 1], modes[j - 1] = tmp;
			memcpy(kt, key[j], sizeof(kt));
			memcpy(key[j], key[j - 1], sizeof(kt));
			memcpy(key[j - 1], kt, sizeof(kt));
		}
	if (!np) {
		say(c, "On %s the cheapest hook path: n/a (no path measured above 0 ns per call).",
		    k->label);
		return;
	}
	say(c, "On %s the %s path is cheapest: %s, ", k->label, paths[0], modes[0]);
	num(c, "%.0f", v[0], src, key[0], "overhead_ns");
	say(c, " ns per call");
	ref(vb, sizeof(vb), src, key[0], "overhead_ns");
	for (i = 1; i < np; i++) {
		say(c, i == 1 ? "; %s costs " : ", %s ", paths[i]);
		ref(va, sizeof(va), src, key[i], "overhead_ns");
		ratio(c, v[i], v[0], va, vb);
		say(c, i == 1 ? " as much (%s, " : " (%s, ", modes[i]);
		num(c, "%.0f", v[i], src, key[i], "overhead_ns");
		say(c, " ns)");
	}
	if (np > 1 && overlap(bench_find_point(k->doc[BENCH_TRIGGER], key[0]),
			      bench_find_point(k->doc[BENCH_TRIGGER], key[1]), "overhead_ns"))
		say(c, "; the two cheapest are within noise (their samples overlap)");
	if (np == 1)
		say(c, "; no other path measured above 0 ns");
	noise[0] = 0;
	for (i = 0; i < r->np; i++) {	/* measured, but at or below 0: no ratio */
		double m;

		snprintf(va, sizeof(va), "%s/count", r->path[i].mode);
		m = point_median(k->doc[BENCH_TRIGGER], va, "overhead_ns");
		if (m <= 0)
			off = str_cat(noise, sizeof(noise), off, "%s%s", off ? ", " : "",
				      r->path[i].mode);
	}
	say(c, ".");
	if (noise[0])
		say(c, " Within noise (0 ns or less, no ratio): %s.", noise);
}

static void seed_reference(struct conclusions *cs)
{
	struct concl *c = sentence(cs);

	if (!c)
		return;
	say(c, "Seed 000 (Spacemit K1, riscv64): 200 irrelevant tracers made a traced call cost ");
	ratio(c, 15791, 123, "seed000#without/1/200", "seed000#without/1/0");
	say(c, " what it cost with none without CALL_OPS (");
	seed_num(c, 15791, "without", 1, 200);
	say(c, " / ");
	seed_num(c, 123, "without", 1, 0);
	say(c, " ns), ");
	ratio(c, 39, 38, "seed000#with/1/200", "seed000#with/1/0");
	say(c, " with it (");
	seed_num(c, 39, "with", 1, 200);
	say(c, " / ");
	seed_num(c, 38, "with", 1, 0);
	say(c, " ns).");
}

/* "; seed 000 at I = 2: 1.75x without CALL_OPS, 1.05x with" when the seed measured that I */
static void seed_same_i(struct concl *c, long long imax)
{
	double without, with, w0, wi0;
	char va[64], vb[64];

	if (!seed000_point(1, imax, &without, &with) || !seed000_point(1, 0, &w0, &wi0)) {
		say(c, "; the seed measured up to 200");
		return;
	}
	say(c, "; the seed at I=%lld: ", imax);
	snprintf(va, sizeof(va), "seed000#without/1/%lld", imax);
	ratio(c, without, w0, va, "seed000#without/1/0");
	say(c, " without CALL_OPS, ");
	snprintf(va, sizeof(va), "seed000#with/1/%lld", imax);
	snprintf(vb, sizeof(vb), "seed000#with/1/0");
	ratio(c, with, wi0, va, vb);
	say(c, " with");
}

/* seed 000's effect on k: kmod-callops 1/Imax over 1/0, and whether it is more than noise */
static void irrelevant(struct conclusions *cs, const struct kern *k)
{
	json_object *doc = k->doc[BENCH_OPS], *pa, *pb, *st;
	struct concl *c = sentence(cs);
	struct concl_part *lab;
	char ka[64], kb[64], va[160], vb[160];
	const char *src = report_src(k, BENCH_OPS);
	long long imax;
	double a, b;

	if (!c)
		return;
	say(c, "On %s (%s) seed 000's effect", k->label, k->call_ops ? "CALL_OPS" : "no CALL_OPS");
	if (!doc) {
		say(c, ": n/a (no bench ops results).");
		return;
	}
	pa = bench_find_point(doc, "kmod-callops/R0/I0");
	st = jget(jget(doc, "modes"), "kmod-callops");
	if ((pa && !strcmp(jstr(pa, "status", ""), "unavailable")) ||
	    (!pa && st && !jbool(st, "available"))) {
		say(c, ": n/a (kmod-callops unavailable: %.150s).",
		    pa ? jstr(pa, "reason", "?") : jstr(st, "reason", "?"));
		return;
	}
	imax = report_ops_max_i(doc, "kmod-callops");
	snprintf(ka, sizeof(ka), "kmod-callops/R1/I0");
	a = point_median(doc, ka, "overhead_ns");
	if (imax <= 0 || isnan(a)) {
		say(c, ": n/a (no measured kmod-callops 1/0 and 1/I with I > 0).");
		return;
	}
	snprintf(kb, sizeof(kb), "kmod-callops/R1/I%lld", imax);
	b = point_median(doc, kb, "overhead_ns");
	if (isnan(b)) {
		say(c, ": n/a (kmod-callops 1/%lld has no overhead_ns).", imax);
		return;
	}
	pa = bench_find_point(doc, ka);
	pb = bench_find_point(doc, kb);
	ref(va, sizeof(va), src, kb, "overhead_ns");
	ref(vb, sizeof(vb), src, ka, "overhead_ns");
	if (a <= 0 || b <= 0)
		say(c, " is within noise: ");
	else if (overlap(pa, pb, "overhead_ns"))
		say(c, " is within noise (the samples overlap): ");
	else if (b > a && b < a * 1.05)	/* steady runs (icount) part at 1 %: not an effect */
		say(c, " is negligible (under 5 %%, the samples apart): ");
	else if (b > a)
		say(c, " shows: ");
	else
		say(c, " does not show (fewer ns, not more): ");
	lab = part(c);	/* Imax: from the point's labels */
	str_fmt(lab->text, sizeof(lab->text), "%lld", imax);
	str_fmt(lab->v, sizeof(lab->v), "%s#points[key=%s].labels.irrelevant", src, kb);
	say(c, " irrelevant tracer%s make%s a kmod-callops call cost ", imax == 1 ? "" : "s",
	    imax == 1 ? "s" : "");
	if (a > 0 && b > 0) {
		ratio(c, b, a, va, vb);
		say(c, " what it costs with none (");
	} else {
		say(c, "no ratio (");
	}
	num(c, "%.0f", b, src, kb, "overhead_ns");
	say(c, " / ");
	num(c, "%.0f", a, src, ka, "overhead_ns");
	say(c, " ns");
	seed_same_i(c, imax);
	say(c, ").");
}

void report_conclusions(struct conclusions *cs, const struct report *r)
{
	bool ops = report_any_suite(r, BENCH_OPS);
	struct concl *c;
	int k;

	cs->n = 0;
	if (!report_any_suite(r, BENCH_TRIGGER) && (c = sentence(cs)))	/* one n/a for all */
		say(c, "The cheapest hook path: n/a (no bench trigger results).");
	for (k = 0; k < r->nk && report_any_suite(r, BENCH_TRIGGER); k++)
		cheapest(cs, r, &r->k[k]);
	if (!ops)
		return;
	seed_reference(cs);
	for (k = 0; k < r->nk; k++)
		irrelevant(cs, &r->k[k]);
}

void concl_text(const struct concl *c, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < c->n; i++)
		off = str_cat(buf, len, off, "%s", c->part[i].text);
}

json_object *report_first_doc(const struct kern *k, int *suite)
{
	int s;

	for (s = 0; s < BENCH_NR_SUITES; s++)
		if (k->doc[s]) {
			if (suite)
				*suite = s;
			return k->doc[s];
		}
	return NULL;
}

void report_dates(const struct kern *k, int *first, int *last)
{
	const char *a = NULL, *b = NULL, *d;
	int s;

	*first = *last = -1;
	for (s = 0; s < BENCH_NR_SUITES; s++) {
		if (!k->doc[s])
			continue;
		d = jstr(k->doc[s], "date", "");
		if (!a || strcmp(d, a) < 0)
			a = d, *first = s;
		if (!b || strcmp(d, b) > 0)
			b = d, *last = s;
	}
}
