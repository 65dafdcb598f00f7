// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench report --html: the page, from the model (bench_model.h),
 * self-contained (inline SVG from bench_svg.c, no network): the screen's
 * text as its summary, then the plots section by section, then links to
 * the raw results.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_model.h"

/* Bars: the count overhead of every path on every kernel (colour = kernel). */
static int page_overhead(FILE *f, const struct report *r)
{
	struct svg_bar bars[BENCH_MAX_HOOKS * MAX_KERNELS];
	char labels[BENCH_MAX_HOOKS * MAX_KERNELS][64], key[96], attrs[96];
	int nb = 0, marks = 0, k;
	size_t i;

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
		fprintf(f, "<tr data-row=\"%s\"><th>%s</th>", v->label[i], v->label[i]);
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
				l->y[l->n++] = y;
			}
			if (!l->n)
				continue;
			snprintf(names[nl - 2], sizeof(names[0]), "%s %s%s", r->k[k].label,
				 modes[m], m == 0 && r->k[k].call_ops ? " (CALL_OPS)" : "");
			l->name = names[nl - 2];
			marks += l->n;
			nl++;
		}
	snprintf(attrs, sizeof(attrs), "data-plot=\"ops\" data-marks=\"%d\"", marks + seed_marks);
	svg_open(f, 600, svg_chart_height(nl), attrs);
	svg_chart(f, "1 relevant tracer, I irrelevant", "irrelevant tracers (I + 1)",
		  "overhead ns/call", true, true, lines, nl, 0, 0);
	svg_end(f);
	return marks;
}

/* Lines per kernel: attach time of K functions per mode (one attachment of all K). */
static int page_attach(FILE *f, const struct report *r, const struct kern *k)
{
	struct svg_line lines[BENCH_MAX_HOOKS] = {};
	json_object *pts = jget(k->doc[BENCH_ATTACH], "points");
	size_t i, j, n = pts ? json_object_array_length(pts) : 0;
	char attrs[128];
	int nl = 0, marks = 0;

	for (j = 0; j < (size_t)r->np; j++) {
		struct svg_line *l = &lines[nl];

		for (i = 0; i < n && l->n < 64; i++) {
			json_object *p = json_object_array_get_idx(pts, i), *lb = jget(p, "labels");
			double y = point_stat(p, "attach_us", "median");

			if (strcmp(jstr(lb, "mode", ""), r->path[j].mode) ||
			    strcmp(jstr(lb, "how", ""), "one") ||
			    strcmp(jstr(p, "status", ""), "ok") || !(y > 0))
				continue;
			l->x[l->n] = (double)jint(lb, "funcs", 1);
			l->y[l->n++] = y / 1e3;
		}
		if (!l->n)
			continue;
		l->name = r->path[j].mode;
		marks += l->n;
		nl++;
	}
	snprintf(attrs, sizeof(attrs), "data-plot=\"attach %s\" data-marks=\"%d\"", k->label,
		 marks);
	svg_open(f, 600, svg_chart_height(nl), attrs);
	svg_chart(f, k->label, "K functions (one attachment)", "attach ms", true, true, lines, nl,
		  0, 0);
	svg_end(f);
	return marks;
}

/* The page: ns/call of every variant on every kernel (colour = kernel), beside the seed. */
static void page_entry(FILE *f, const struct report *r)
{
	struct svg_bar bars[MAX_KERNELS * 8];
	char labels[MAX_KERNELS * 8][64], attrs[96];
	int nb = 0, marks = 0, k;
	size_t i;

	for (k = 0; k < r->nk; k++) {
		json_object *pts = jget(r->k[k].doc[BENCH_ENTRY], "points");

		for (i = 0; i < jlen(pts) && nb < MAX_KERNELS * 8; i++, nb++) {
			json_object *p = json_object_array_get_idx(pts, i);

			snprintf(labels[nb], sizeof(labels[nb]), "%s, %s", jstr(p, "key", "?"),
				 r->k[k].label);
			bars[nb].label = labels[nb];
			bars[nb].value = point_median(r->k[k].doc[BENCH_ENTRY], jstr(p, "key", ""),
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

int report_html(const char *path, const struct report *r, const char *text)
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
	      "table.seed th,table.seed td{padding:2px 10px;text-align:right;border-bottom:1px "
	      "solid #eee}\n"
	      "</style></head><body>\n<h1>tracerd: what each hook path costs</h1>\n"
	      "<p>Measured by <code>tracectl bench</code> on each kernel below. Under QEMU TCG "
	      "(how the project's harness boots them) the counts are exact and the times are "
	      "the emulator's: compare ratios, not nanoseconds.</p>\n<h2>Summary</h2>\n<pre>",
	      f);
	svg_esc(f, text);
	fputs("</pre>\n<h2>Overhead per call, per path and kernel</h2>\n", f);
	if (report_any_suite(r, BENCH_TRIGGER))
		page_overhead(f, r);
	else
		fputs("<p>No bench trigger results.</p>\n", f);
	fputs("\n<h2>Seed 000 side by side</h2>\n", f);
	page_seed000(f, r);
	fputs("\n<h2>Seed 000: one relevant tracer, I irrelevant ones</h2>\n", f);
	page_ops(f, r);
	fputs("\n<h2>Attach time against K</h2>\n", f);
	if (report_any_suite(r, BENCH_ATTACH)) {
		fputs("<div class=\"row\">\n", f);
		for (k = 0; k < r->nk; k++)
			if (r->k[k].doc[BENCH_ATTACH])
				page_attach(f, r, &r->k[k]);
		fputs("</div>\n", f);
	} else {
		fputs("<p>No bench attach results.</p>\n", f);
	}
	page_entry(f, r);
	fputs("<h2>Raw results</h2>\n<ul>\n", f);
	for (k = 0; k < r->nk; k++)
		for (s = 0; s < BENCH_NR_SUITES; s++) {
			if (!r->k[k].file[s])
				continue;
			if (!href(path, r->k[k].file[s], link, sizeof(link)))
				continue;
			fputs("<li><a href=\"", f);
			svg_esc(f, link);
			fprintf(f, "\">%s %s</a></li>\n", r->k[k].label, bench_suites[s]->name);
		}
	fputs("</ul>\n</body></html>\n", f);
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}
