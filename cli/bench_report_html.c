// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench report --html: the page, from the model (bench_model.h),
 * self-contained (inline SVG from bench_svg.c, no network): the machines
 * and kernels the results name, the conclusions (the screen's sentences,
 * bench_report_concl.c), then the plots at the page's width section by
 * section (seed 000's table beside its plot), the flame graphs of the
 * stacks files beside the page (stacks-KERNEL.json, `tracectl --json stats
 * ID --stacks`), and the raw results folded at the end. Every number that
 * comes from a result carries where (data-v="FILE#JSON path", a ratio also
 * data-v2: tests/host/report-check.py reads them back from the JSON).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../lib/strutil.h"
#include "bench_model.h"
#include "stacks.h"

#define PAGE_W		1000	/* the viewBox width of a full-width chart */
#define PAIR_W		500	/* of the plot beside seed 000's table */

/* Bars: the count overhead of every path on every kernel (colour = kernel). */
static int page_overhead(FILE *f, const struct report *r)
{
	struct svg_bar bars[BENCH_MAX_HOOKS * MAX_KERNELS] = {};
	char labels[BENCH_MAX_HOOKS * MAX_KERNELS][64], key[96], attrs[96];
	const char *names[MAX_KERNELS];
	int nb = 0, marks = 0, k;
	size_t i;

	for (k = 0; k < r->nk; k++)	/* a legend of the kernels with bars */
		names[k] = r->k[k].doc[BENCH_TRIGGER] ? r->k[k].label : NULL;

	for (i = 0; i < (size_t)r->np; i++) {
		if (!report_has_count(r, r->path[i].mode))
			continue;
		snprintf(key, sizeof(key), "%s/count", r->path[i].mode);
		for (k = 0; k < r->nk; k++) {
			json_object *p = r->k[k].doc[BENCH_TRIGGER] ?
				bench_find_point(r->k[k].doc[BENCH_TRIGGER], key) : NULL;

			if (!p)
				continue;
			snprintf(labels[nb], sizeof(labels[nb]), "%s, %s", r->path[i].mode,
				 r->k[k].label);
			bars[nb].label = labels[nb];
			bars[nb].value =
				point_median(r->k[k].doc[BENCH_TRIGGER], key, "overhead_ns");
			bars[nb].note = jstr(p, "status", "?");
			bars[nb].color = k;
			bars[nb].ref = (struct svg_ref){ report_src(&r->k[k], BENCH_TRIGGER),
							 "overhead_ns", 0 };
			bars[nb].key = jstr(p, "key", NULL);
			marks += !isnan(bars[nb].value);
			nb++;
		}
	}
	snprintf(attrs, sizeof(attrs), "class=\"chart\" data-plot=\"overhead\" data-marks=\"%d\"",
		 marks);
	svg_open(f, PAGE_W, svg_bars_w_height(PAGE_W, nb, names, r->nk), attrs);
	svg_bars_w(f, PAGE_W, "overhead per traced call, count variant (colour: kernel)",
		   "overhead, ns per call (median of the repetitions)", bars, nb, names, r->nk);
	svg_end(f);
	return marks;
}

/* a seed 000 table cell's data-v: column c's published figure or kernel's point, if a number */
static void seed_cell_ref(FILE *f, const struct report *r, const struct seed_view *v, size_t i,
			  int c)
{
	const char *cell = v->cell[i][c], *src;
	int rel = 0, irr = 0;

	if (!(cell[0] == '[' || cell[0] == '-' || (cell[0] >= '0' && cell[0] <= '9')) ||
	    !strcmp(cell, "-") || sscanf(v->label[i], "%d/%d", &rel, &irr) != 2)
		return;
	fputs(" data-v=\"", f);
	if (c < 2) {
		fprintf(f, "seed000#%s/%s\"", c ? "with" : "without", v->label[i]);
		return;
	}
	src = report_src(&r->k[v->col[c - 2]], BENCH_OPS);
	svg_esc(f, src ? src : "?");
	fprintf(f, "#points[key=kmod-callops/R%d/I%d].values.%s.median\"", rel, irr,
		rel || irr ? "overhead_ns" : "ns_per_call");
}

/* The page: seed 000's table side by side (the screen's). */
static void page_seed000_table(FILE *f, const struct report *r, const struct seed_view *v)
{
	size_t i;
	int c, h;

	fputs("<div class=\"scroll\"><table class=\"seed num\" data-table=\"seed000\">\n<thead>\n",
	      f);
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
		fprintf(f, "<tr data-row=\"%s\"><th>%s</th>", v->label[i], v->label[i]);
		for (c = 0; c < 2 + v->nc; c++) {
			fputs("<td", f);
			seed_cell_ref(f, r, v, i, c);
			fputc('>', f);
			svg_esc(f, v->cell[i][c]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table></div>\n", f);
}

/* Its two effects as measured ratios, the screen's lines under its table. */
static void page_seed000_lines(FILE *f, const struct seed_view *v)
{
	size_t i;
	int open = 0;

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
}

/* Lines: 1 relevant tracer, I irrelevant, per kernel and kmod mode, beside the seed's. */
static int page_ops(FILE *f, const struct report *r)
{
	static const char *const modes[] = { "kmod-callops", "kmod-direct" };
	struct svg_line lines[2 + 2 * MAX_KERNELS] = {};
	char names[2 * MAX_KERNELS][80], attrs[96];
	int nl = 2, marks = 0, k, m;

	int seed_marks = seed000_curves(lines);

	for (k = 0; k < r->nk; k++)
		for (m = 0; m < 2; m++) {
			json_object *pts = jget(r->k[k].doc[BENCH_OPS], "points");
			size_t i, n = pts ? json_object_array_length(pts) : 0;
			struct svg_line *l = &lines[nl];

			for (i = 0; i < n && l->n < 64; i++) {
				json_object *p = json_object_array_get_idx(pts, i),
					    *lb = jget(p, "labels");
				double y = point_stat(p, "overhead_ns", "median");

				if (strcmp(jstr(lb, "mode", ""), modes[m]) ||
				    jint(lb, "relevant", -1) != 1 ||
				    strcmp(jstr(p, "status", ""), "ok") || !(y > 0))
					continue; /* a log axis: noise at or below 0 is left out */
				l->x[l->n] = (double)jint(lb, "irrelevant", 0) + 1;
				l->key[l->n] = jstr(p, "key", NULL);
				l->y[l->n++] = y;
			}
			if (!l->n)
				continue;
			snprintf(names[nl - 2], sizeof(names[0]), "%s %s%s", r->k[k].label,
				 modes[m], m == 0 && r->k[k].call_ops ? " (CALL_OPS)" : "");
			l->name = names[nl - 2];
			l->ref = (struct svg_ref){ report_src(&r->k[k], BENCH_OPS), "overhead_ns", 0 };
			marks += l->n;
			nl++;
		}
	snprintf(attrs, sizeof(attrs), "class=\"chart\" data-plot=\"ops\" data-marks=\"%d\"",
		 marks + seed_marks);
	svg_open(f, PAIR_W, svg_chart_w_height(PAIR_W, lines, nl), attrs);
	svg_chart_w(f, PAIR_W, "1 relevant tracer, I irrelevant ones: overhead per call",
		    "irrelevant tracers + 1 (I + 1)", "overhead, ns per call", true, true, lines, nl);
	svg_end(f);
	return marks;
}

/*
 * Lines per kernel: attach time of K functions per mode (one attachment of
 * all K): the test module's, and the kernel's (--kernel-funcs, up to all).
 */
static int page_attach(FILE *f, const struct report *r, const struct kern *k)
{
	static const char *const hows[] = { "one", "kernel" };
	struct svg_line lines[2 * BENCH_MAX_HOOKS] = {};
	char names[2 * BENCH_MAX_HOOKS][64];
	json_object *pts = jget(k->doc[BENCH_ATTACH], "points");
	size_t i, j, n = pts ? json_object_array_length(pts) : 0, h, hj;
	char attrs[128], title[96];
	int nl = 0, marks = 0;

	/* the test module's lines, then the kernel's */
	for (hj = 0; hj < 2 * (size_t)r->np; hj++) {
		struct svg_line *l = &lines[nl];

		h = hj / (size_t)r->np;
		j = hj % (size_t)r->np;
		for (i = 0; i < n && l->n < 64; i++) {
			json_object *p = json_object_array_get_idx(pts, i), *lb = jget(p, "labels");
			double y = point_stat(p, "attach_us", "median");

			if (strcmp(jstr(lb, "mode", ""), r->path[j].mode) ||
			    strcmp(jstr(lb, "how", ""), hows[h]) ||
			    strcmp(jstr(p, "status", ""), "ok") || !(y > 0))
				continue;
			l->x[l->n] = (double)jint(lb, "funcs", 1);
			l->key[l->n] = jstr(p, "key", NULL);
			l->y[l->n++] = y / 1e3;
		}
		if (!l->n)
			continue;
		snprintf(names[nl], sizeof(names[nl]), "%s%s", r->path[j].mode,
			 h ? ", kernel's functions" : "");
		l->name = names[nl];
		l->ref = (struct svg_ref){ report_src(k, BENCH_ATTACH), "attach_us", 1e3 };
		marks += l->n;
		nl++;
	}
	snprintf(attrs, sizeof(attrs), "class=\"chart\" data-plot=\"attach %s\" data-marks=\"%d\"",
		 k->label, marks);
	snprintf(title, sizeof(title), "%s: attach time of K functions", k->label);
	svg_open(f, PAGE_W, svg_chart_w_height(PAGE_W, lines, nl), attrs);
	svg_chart_w(f, PAGE_W, title, "K functions, one attachment", "attach time, ms (median)", true,
		    true, lines, nl);
	svg_end(f);
	return marks;
}

/* The page: ns/call of every variant on every kernel (colour = kernel), beside the seed. */
static void page_entry(FILE *f, const struct report *r)
{
	struct svg_bar bars[MAX_KERNELS * 8] = {};
	char labels[MAX_KERNELS * 8][64], attrs[96];
	const char *names[MAX_KERNELS];
	int nb = 0, marks = 0, k;
	size_t i;

	for (k = 0; k < r->nk; k++) {
		json_object *pts = jget(r->k[k].doc[BENCH_ENTRY], "points");

		names[k] = jlen(pts) ? r->k[k].label : NULL;
		for (i = 0; i < jlen(pts) && nb < MAX_KERNELS * 8; i++, nb++) {
			json_object *p = json_object_array_get_idx(pts, i);

			snprintf(labels[nb], sizeof(labels[nb]), "%s, %s", jstr(p, "key", "?"),
				 r->k[k].label);
			bars[nb].label = labels[nb];
			bars[nb].value = point_median(r->k[k].doc[BENCH_ENTRY], jstr(p, "key", ""),
						      "ns_per_call");
			bars[nb].note = jstr(p, "status", "?");
			bars[nb].color = k;
			bars[nb].ref = (struct svg_ref){ report_src(&r->k[k], BENCH_ENTRY),
							 "ns_per_call", 0 };
			bars[nb].key = jstr(p, "key", NULL);
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
	snprintf(attrs, sizeof(attrs), "class=\"chart\" data-plot=\"entry\" data-marks=\"%d\"",
		 marks);
	svg_open(f, PAGE_W, svg_bars_w_height(PAGE_W, nb, names, r->nk), attrs);
	svg_bars_w(f, PAGE_W, "untraced entry: ns per call (colour: kernel)",
		   "ns per call (median)", bars, nb, names, r->nk);
	svg_end(f);
}

/* href of a file: relative to the page's directory when it lies under it,
 * else a file: URL of its absolute path; NULL when it cannot be found. */
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

static void td_str(FILE *f, json_object *o, const char *key)
{
	fputs("<td>", f);
	svg_esc(f, jstr(o, key, "?"));
	fputs("</td>", f);
}

static void td_num(FILE *f, const char *src, const char *path, double v, const char *fmt)
{
	char buf[64];

	fputs("<td data-v=\"", f);
	svg_esc(f, src);
	fputc('#', f);
	svg_esc(f, path);
	fputs("\">", f);
	snprintf(buf, sizeof(buf), fmt, v);
	svg_esc(f, buf);
	fputs("</td>", f);
}

/* The header: per kernel, the machine and the kernel its results name, and their dates. */
static void page_machines(FILE *f, const struct report *r)
{
	int k, s, a, b;

	fputs("<div class=\"scroll\"><table class=\"machines\" data-table=\"machines\">\n<thead><tr>"
	      "<th>kernel</th><th>release</th><th>build</th><th>host name</th><th>CPU model</th>"
	      "<th>cores</th><th>hypervisor</th><th>CALL_OPS</th><th>measured (UTC)</th></tr></thead>"
	      "\n<tbody>\n", f);
	for (k = 0; k < r->nk; k++) {
		json_object *doc = report_first_doc(&r->k[k], &s);
		json_object *m = jget(doc, "machine");
		const char *src = report_src(&r->k[k], s);

		fputs("<tr><th>", f);
		svg_esc(f, r->k[k].label);
		fputs("</th>", f);
		td_str(f, m, "kernel");
		td_str(f, m, "kernel_build");
		td_str(f, m, "hostname");
		td_str(f, m, "cpu_model");
		td_num(f, src, "machine.cpus", (double)jint(m, "cpus", 0), "%.0f");
		fprintf(f, "<td>%s</td><td>%s</td>", jbool(m, "hypervisor") ? "yes" : "no",
			r->k[k].call_ops ? "yes" : "no");
		report_dates(&r->k[k], &a, &b);
		fputs("<td>", f);
		if (a >= 0) {
			fputs("<span data-v=\"", f);
			svg_esc(f, report_src(&r->k[k], a));
			fputs("#date\">", f);
			svg_esc(f, jstr(r->k[k].doc[a], "date", "?"));
			fputs("</span>", f);
		}
		if (b >= 0 && b != a && strcmp(jstr(r->k[k].doc[a], "date", ""),
					       jstr(r->k[k].doc[b], "date", ""))) {
			fputs(" to <span data-v=\"", f);
			svg_esc(f, report_src(&r->k[k], b));
			fputs("#date\">", f);
			svg_esc(f, jstr(r->k[k].doc[b], "date", "?"));
			fputs("</span>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

static void page_conclusions(FILE *f, const struct report *r)
{
	struct conclusions *cs = calloc(1, sizeof(*cs));
	int i, j;

	if (!cs)
		return;
	report_conclusions(cs, r);
	fputs("<ul class=\"conclusions\" data-list=\"conclusions\">\n", f);
	for (i = 0; i < cs->n; i++) {
		fputs("<li>", f);
		for (j = 0; j < cs->s[i].n; j++) {
			const struct concl_part *p = &cs->s[i].part[j];

			if (!p->v[0]) {
				svg_esc(f, p->text);
				continue;
			}
			fputs("<span class=\"n\" data-v=\"", f);
			svg_esc(f, p->v);
			if (p->v2[0]) {
				fputs("\" data-v2=\"", f);
				svg_esc(f, p->v2);
			}
			fputs("\">", f);
			svg_esc(f, p->text);
			fputs("</span>", f);
		}
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
	free(cs);
}

/* The value names of doc's points, in their first order (the raw table's columns). */
static int value_names(json_object *doc, const char **out, int max)
{
	json_object *pts = jget(doc, "points");
	size_t i;
	int n = 0, j;

	for (i = 0; i < jlen(pts); i++) {
		json_object *vals = jget(json_object_array_get_idx(pts, i), "values");

		if (!json_object_is_type(vals, json_type_object))
			continue;
		json_object_object_foreach(vals, name, val) {
			(void)val;
			for (j = 0; j < n && strcmp(out[j], name); j++)
				;
			if (j == n && n < max)
				out[n++] = name;
		}
	}
	return n;
}

/* One result, folded: a row per point, the median of each value (or its status and why). */
static void page_raw(FILE *f, const char *page, const struct kern *k, int s)
{
	json_object *doc = k->doc[s], *pts = jget(doc, "points");
	const char *names[24], *src = report_src(k, s);
	char link[4096], path[256];
	size_t i;
	int n = value_names(doc, names, 24), j;

	fputs("<details class=\"raw\"><summary>", f);
	svg_esc(f, k->label);
	fprintf(f, " %s: %zu points (", bench_suites[s]->name, jlen(pts));
	if (href(page, k->file[s], link, sizeof(link))) {
		fputs("<a class=\"result\" href=\"", f);
		svg_esc(f, link);
		fputs("\">", f);
		svg_esc(f, src);
		fputs("</a>", f);
	} else {
		svg_esc(f, src);
	}
	fputs(")</summary>\n<div class=\"scroll\"><table class=\"num\"><thead><tr><th>point</th>"
	      "<th>status</th>", f);
	for (j = 0; j < n; j++) {
		fputs("<th>", f);
		svg_esc(f, names[j]);
		fputs(" (median)</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (i = 0; i < jlen(pts); i++) {
		json_object *p = json_object_array_get_idx(pts, i);
		const char *key = jstr(p, "key", "?");
		bool ok = !strcmp(jstr(p, "status", ""), "ok");

		fputs("<tr><th>", f);
		svg_esc(f, key);
		fputs("</th><td>", f);
		svg_esc(f, jstr(p, "status", "?"));
		fputs("</td>", f);
		if (!ok) {
			fprintf(f, "<td colspan=\"%d\" class=\"why\">", n ? n : 1);
			svg_esc(f, jstr(p, "reason", ""));
			fputs("</td></tr>\n", f);
			continue;
		}
		for (j = 0; j < n; j++) {
			double v = point_stat(p, names[j], "median");

			if (isnan(v)) {
				fputs("<td>-</td>", f);
				continue;
			}
			str_fmt(path, sizeof(path), "points[key=%s].values.%s.median", key, names[j]);
			/* 1e-16 of a subtraction is a 0 */
			td_num(f, src, path, fabs(v) < 5e-4 ? 0 : v, fabs(v) >= 100 ? "%.0f" : "%.3g");
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div></details>\n", f);
}

/*
 * The demo's kernel name of a result file, "6.12-arm64" of ".../6.12-arm64-ops.json"
 * (tests/vm/demo.sh names them KERNEL-SUITE.json); false when it is not named so.
 */
static bool demo_name(const struct kern *k, int s, char *buf, size_t len)
{
	const char *base = report_src(k, s);
	char suffix[64];
	size_t n, m;

	if (!base)
		return false;
	snprintf(suffix, sizeof(suffix), "-%s.json", bench_suites[s]->name);
	n = strlen(base);
	m = strlen(suffix);
	if (n <= m || strcmp(base + n - m, suffix))
		return false;
	return !str_fmt(buf, len, "%.*s", (int)(n - m), base);
}

/* One stacks file: its flame graph, or why there is none. */
static void page_flame(FILE *f, const char *name, const char *file, const char *base)
{
	json_object *doc = json_object_from_file(file);
	struct stacks st;
	uint64_t total = 0, dropped = 0;
	char title[256];
	size_t i, j;

	fputs("<h3>", f);
	svg_esc(f, name);
	fputs(" (<a class=\"stacks\" href=\"", f);
	svg_esc(f, base);
	fputs("\">", f);
	svg_esc(f, base);
	fputs("</a>)</h3>\n", f);
	if (!doc || !json_object_is_type(jget(doc, "stats"), json_type_array)) {
		fputs("<p class=\"why\">Not the output of <code>tracectl --json stats ID --stacks</code>"
		      " (no \"stats\" array): no flame graph.</p>\n", f);
		json_object_put(doc);
		return;
	}
	if (stacks_from_reply(doc, &st)) {
		fputs("<p class=\"why\">Out of memory: no flame graph.</p>\n", f);
		json_object_put(doc);
		return;
	}
	if (!st.nsets) {
		fputs("<p class=\"why\">No stacks in it (its attachments were made without "
		      "<code>--stacks</code>).</p>\n", f);
	} else {
		for (i = 0; i < st.nsets; i++) {
			dropped += st.sets[i].dropped;
			for (j = 0; j < st.sets[i].nrows; j++)
				total += st.sets[i].rows[j].count;
		}
		fputs("<p>", f);
		for (i = 0; i < st.nsets; i++) {
			fprintf(f, "%s<code>", i ? "; " : "");
			svg_esc(f, st.sets[i].function ? st.sets[i].function : "?");
			fprintf(f, "</code> (%s): <span data-v=\"", st.sets[i].mode ? st.sets[i].mode : "?");
			svg_esc(f, base);
			fprintf(f, "#stats[%zu].stacks.total\">%llu</span> calls in <span data-v=\"", i,
				(unsigned long long)st.sets[i].total);
			svg_esc(f, base);
			fprintf(f, "#stats[%zu].stacks.distinct\">%llu</span> distinct stacks",
				i, (unsigned long long)st.sets[i].distinct);
			if (st.sets[i].nrows < st.sets[i].distinct)
				fprintf(f, ", the %zu hottest drawn", st.sets[i].nrows);
		}
		fputs(". A click on a frame zooms on it; its calls and share show on hover.</p>\n", f);
		str_fmt(title, sizeof(title), "%s: kernel stacks, %llu calls in the stacks drawn%s",
			name, (unsigned long long)total,
			dropped ? " (and calls whose stack was not kept)" : "");
		flame_svg(f, &st, title, 1200, false);
	}
	stacks_free(&st);
	json_object_put(doc);
}

/* Flame graphs of the stacks-KERNEL.json files beside the page, one per kernel of the report. */
static void page_stacks(FILE *f, const char *page, const struct report *r)
{
	char dir[4096], name[64], file[4096 + 128], base[128], seen[MAX_KERNELS][64];
	const char *slash = strrchr(page, '/');
	int k, s, nseen = 0, i, shown = 0;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - page) : 1, slash ? page : ".");
	for (k = 0; k < r->nk; k++)
		for (s = 0; s < BENCH_NR_SUITES; s++) {
			if (!r->k[k].doc[s] || !demo_name(&r->k[k], s, name, sizeof(name)))
				continue;
			for (i = 0; i < nseen && strcmp(seen[i], name); i++)
				;
			if (i < nseen || nseen == MAX_KERNELS)
				continue;
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", name);
			snprintf(base, sizeof(base), "stacks-%s.json", name);
			snprintf(file, sizeof(file), "%s/%s", dir, base);
			if (access(file, R_OK))
				continue;
			page_flame(f, name, file, base);
			shown++;
		}
	if (!shown)
		fputs("<p>No stacks-KERNEL.json beside this page (the output of <code>tracectl "
		      "--json stats ID --stacks</code> for a kernel whose results are named "
		      "KERNEL-SUITE.json): no flame graph.</p>\n", f);
}

int report_html(const char *path, const struct report *r)
{
	struct seed_view *v = calloc(1, sizeof(*v));
	FILE *f = v ? fopen(path, "we") : NULL;
	int k, s;

	if (!f) {
		s = v ? -errno : -ENOMEM;
		free(v);
		return s;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>tracerd: what each hook path costs</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:1.5em auto;padding:0 1.5em;max-width:1400px;"
	      "line-height:1.4}\n"
	      "svg.chart,svg.flame{display:block;width:100%;height:auto;margin:0.5em 0;"
	      "border:1px solid #eee}\n"
	      /* seed 000's table as wide as it needs up to 62%, its plot the rest; one under
	       * the other on a narrow window */
	      ".pair{display:grid;grid-template-columns:fit-content(62%) minmax(0,1fr);gap:1.5em;"
	      "align-items:start}\n"
	      "@media (max-width:1100px){.pair{display:block}}\n"
	      ".scroll{overflow-x:auto}\n"
	      "table{border-collapse:collapse;font-size:13px}\n"
	      "th,td{padding:2px 10px;border-bottom:1px solid #eee;text-align:left}\n"
	      "table.num td,table.num thead th{text-align:right}\n"
	      "ul.conclusions li{margin:0.4em 0}\n"
	      "span.n{font-weight:bold}\n"
	      "details.raw{margin:0.3em 0}\n"
	      ".why{color:#666}\n"
	      "</style></head><body>\n<h1>tracerd: what each hook path costs</h1>\n", f);
	fprintf(f, "<p>Results of <code>tracectl bench</code> on %d kernel%s. Under QEMU TCG "
		"(how the project's harness boots them) the counts are exact and the times are "
		"the emulator's: compare ratios, not nanoseconds.</p>\n", r->nk, r->nk == 1 ? "" : "s");
	page_machines(f, r);
	fputs("<h2>What these results say</h2>\n", f);
	page_conclusions(f, r);
	fputs("<h2>Overhead per call, per path and kernel</h2>\n", f);
	if (report_any_suite(r, BENCH_TRIGGER))
		page_overhead(f, r);
	else
		fputs("<p>No bench trigger results.</p>\n", f);
	fputs("\n<h2>Seed 000: one relevant tracer, I irrelevant ones</h2>\n"
	      "<p>kmod-callops overhead ns per call against the 0/0 point of the same boot "
	      "(median); the 0/0 row is the base's ns per call; a row no column measured is left "
	      "out. The seed's columns: Spacemit K1, riscv64, without and with its CALL_OPS "
	      "patch.</p>\n<div class=\"pair\"><div class=\"seed\">\n", f);
	seed_view(v, r);
	page_seed000_table(f, r, v);
	fputs("</div><div class=\"plot\">\n", f);
	page_ops(f, r);
	fputs("</div></div>\n", f);
	page_seed000_lines(f, v);
	fputs("<h2>Attach time against K</h2>\n", f);
	if (report_any_suite(r, BENCH_ATTACH)) {
		for (k = 0; k < r->nk; k++)
			if (r->k[k].doc[BENCH_ATTACH])
				page_attach(f, r, &r->k[k]);
	} else {
		fputs("<p>No bench attach results.</p>\n", f);
	}
	page_entry(f, r);
	fputs("\n<h2>Kernel stacks</h2>\n", f);
	page_stacks(f, path, r);
	fputs("<h2>Raw results</h2>\n<p>Every point of every result, folded; the medians of "
	      "its values (the samples are in the JSON).</p>\n", f);
	for (k = 0; k < r->nk; k++)
		for (s = 0; s < BENCH_NR_SUITES; s++)
			if (r->k[k].doc[s])
				page_raw(f, path, &r->k[k], s);
	fputs("</body></html>\n", f);
	free(v);
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}
