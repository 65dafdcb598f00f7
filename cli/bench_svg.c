// SPDX-License-Identifier: GPL-2.0-or-later
/* tracectl bench --svg: small self-contained line charts (no dependencies). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static const char *const colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
	"#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8", "#ff9896", "#98df8a",
	"#ffbb78", "#c5b0d5",
};

void svg_begin(FILE *f, int w, int h)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	svg_open(f, w, h, "");
}

/* An <svg> element (inline in HTML: no XML declaration); attrs added as is. */
void svg_open(FILE *f, int w, int h, const char *attrs)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\"%s%s>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", w, h, w, h,
		*attrs ? " " : "", attrs);
}

void svg_end(FILE *f)
{
	fprintf(f, "</svg>\n");
}

/* log10 and 10^x without libm (tracectl links none): series, plenty for a chart */
static double lg10(double v)
{
	double e = 0, z, z2, t, sum = 0;
	int k;

	while (v >= 10) {
		v /= 10;
		e++;
	}
	while (v < 1) {
		v *= 10;
		e--;
	}
	z = (v - 1) / (v + 1);	/* ln v = 2 atanh z */
	z2 = z * z;
	for (k = 1, t = z; k < 60; k += 2, t *= z2)
		sum += t / k;
	return e + 2 * sum / 2.302585092994046;
}

static double pw10(double x)
{
	double r = 1, t = 1, y;
	int k, n = (int)x - (x < 0 && x != (int)x);

	y = (x - n) * 2.302585092994046;	/* 10^x = 10^n e^y, 0 <= y < ln 10 */
	for (k = 1; k < 40; k++) {
		t *= y / k;
		r += t;
	}
	for (; n > 0; n--)
		r *= 10;
	for (; n < 0; n++)
		r /= 10;
	return r;
}

static double ceil_div(double v, double step)
{
	double q = v / step;
	long long k = (long long)q;

	return (double)(k + (q > (double)k + 1e-9));
}

/* A number for a label: 1.5k, 20M, 642, 14.1, 0.25 */
static const char *num(char *buf, size_t len, double v)
{
	double a = v < 0 ? -v : v;

	if (a >= 1e9)
		snprintf(buf, len, "%.3gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else if (a >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
	return buf;
}

static double tr(double v, bool lg)
{
	return lg ? lg10(v > 0 ? v : 1e-3) : v;
}

/* Text for SVG or HTML, element content or attribute: markup and control
 * characters escaped (a name from a result file is untrusted). */
void svg_esc(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
			fputc('?', f);
		else
			fputc(*s, f);
}

/*
 * Tick values for [lo, hi] (already log10 when lg): linear axes step by
 * 1, 2 or 5 x 10^k (4 to 10 ticks); log axes put a tick on every 1, 2 and
 * 5 x 10^k in range (only the decades when there are more than ten), so a
 * log axis reads 1, 2, 5, 10, 20, 50, ...
 */
static int ticks(double lo, double hi, bool lg, double *out, int max)
{
	static const double steps[] = { 1, 2, 5 };
	double span = hi - lo, step = 1, v;
	int n = 0, k, d;

	if (lg) {
		for (k = 0; k < 2 && (n == 0 || n > 10); k++) {
			n = 0;
			for (d = (int)lo - 2; d <= (int)hi + 1 && n < max; d++)
				for (int m = 0; m < 3 && n < max; m++) {
					if (k == 1 && m)
						continue;
					v = d + lg10(steps[m]);
					if (v >= lo - 1e-9 && v <= hi + 1e-9)
						out[n++] = v;
				}
		}
		return n;
	}
	while (span / step >= 10)
		step *= 10;
	while (span / step < 1)
		step /= 10;
	/* step <= span < 10 step: the largest of 5, 2, 1 x step giving >= 4 ticks */
	for (k = 2; k > 0 && span / (step * steps[k]) < 4; k--)
		;
	if (span / (step * steps[k]) < 4)
		step /= 2;	/* 1 x step still gives fewer than 4: halve it */
	else
		step *= steps[k];
	for (v = ceil_div(lo, step) * step; v <= hi + step * 1e-9 && n < max; v += step)
		out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

#define LEGEND_COLS	2
#define LEGEND_ROW	16
#define CHAR_W		7.2	/* px of a character of the 12px sans-serif font, for layout */

void svg_ref_attrs(FILE *f, const struct svg_ref *r, const char *key)
{
	if (!r->src || !key)
		return;
	fputs(" data-v=\"", f);
	svg_esc(f, r->src);
	fputc('#', f);
	if (r->value) {
		fputs("points[key=", f);
		svg_esc(f, key);
		fputs("].values.", f);
		svg_esc(f, r->value);
		fputs(".median", f);
	} else {
		svg_esc(f, key);
	}
	fputc('"', f);
	if (r->div)
		fprintf(f, " data-div=\"%g\"", r->div);
}

/* Height of a chart of nlines lines: plot, axis labels, legend rows. */
int svg_chart_height(int nlines)
{
	return 400 + 48 + (nlines + LEGEND_COLS - 1) / LEGEND_COLS * LEGEND_ROW + 8;
}

/* a legend of names in columns as wide as the longest one needs, within avail px */
static int legend_cols(const char *const *names, int n, double avail, double *colw)
{
	size_t len = 0;
	int i, cols;

	for (i = 0; i < n; i++)
		if (names[i] && strlen(names[i]) > len)
			len = strlen(names[i]);
	*colw = (double)(len + 5) * CHAR_W + 16 + 24;	/* box, gap; " (n/a)" */
	cols = (int)(avail / *colw);
	return cols < 1 ? 1 : cols;
}

static void legend(FILE *f, int i, const char *name, const char *color, bool na, double x,
		   double y, int cols, double colw)
{
	x += (i % cols) * colw;
	y += (i / cols) * (double)LEGEND_ROW;
	fprintf(f, "<g class=\"legend\"><rect x=\"%g\" y=\"%g\" width=\"12\" height=\"12\" "
		"fill=\"%s\"/><text x=\"%g\" y=\"%g\">", x, y, color, x + 16, y + 10);
	svg_esc(f, name);
	fprintf(f, "%s</text></g>\n", na ? " (n/a)" : "");
}

struct frame {
	int w, cols;
	double colw;
};

/* One chart fr->w wide at (xoff, yoff): axes with round ticks, a line per series, legend. */
static void chart(FILE *f, const struct frame *fr, const char *title, const char *xlabel,
		  const char *ylabel, bool logx, bool logy, const struct svg_line *lines,
		  int nlines, int xoff, int yoff)
{
	const double L = 70, R = fr->w - 20, T = 40, B = 400;
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, t, tk[64];
	char nb[32];
	int i, j, nt;

	for (i = 0; i < nlines; i++)
		for (j = 0; j < lines[i].n; j++) {
			t = tr(lines[i].x[j], logx);
			x0 = t < x0 ? t : x0;
			x1 = t > x1 ? t : x1;
			t = tr(lines[i].y[j], logy);
			y0 = t < y0 ? t : y0;
			y1 = t > y1 ? t : y1;
		}
	if (!isfinite(x0)) {
		x0 = 0;
		x1 = 1;
		y0 = 0;
		y1 = 1;
	}
	if (!logy && y0 > 0)
		y0 = 0;
	if (x1 - x0 < 1e-9)
		x1 = x0 + 1;
	if (y1 - y0 < 1e-9)
		y1 = y0 + 1;
#define PX(v) (xoff + L + ((v) - x0) / (x1 - x0) * (R - L))
#define PY(v) (yoff + B - ((v) - y0) / (y1 - y0) * (B - T))
	fprintf(f, "<text class=\"title\" x=\"%g\" y=\"%g\" font-size=\"14\" "
		"font-weight=\"bold\">", xoff + L, yoff + 24.0);
	svg_esc(f, title);
	fprintf(f, "</text>\n<path d=\"M%g %g V%g H%g\" stroke=\"black\" fill=\"none\"/>\n",
		xoff + L, yoff + T, yoff + B, xoff + R);
	nt = ticks(x0, x1, logx, tk, 64);
	for (i = 0; i < nt; i++)
		fprintf(f, "<text class=\"tick\" x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s</text>\n"
			"<path d=\"M%g %g v4\" stroke=\"black\"/>\n", PX(tk[i]), yoff + B + 16,
			num(nb, sizeof(nb), logx ? pw10(tk[i]) : tk[i]), PX(tk[i]), yoff + B);
	nt = ticks(y0, y1, logy, tk, 64);
	for (i = 0; i < nt; i++)
		fprintf(f, "<text class=\"tick\" x=\"%g\" y=\"%g\" text-anchor=\"end\">%s</text>\n"
			"<path d=\"M%g %g H%g\" stroke=\"#ddd\"/>\n", xoff + L - 4, PY(tk[i]) + 4,
			num(nb, sizeof(nb), logy ? pw10(tk[i]) : tk[i]), xoff + L, PY(tk[i]),
			xoff + R);
	fprintf(f, "<text class=\"axis\" x=\"%g\" y=\"%g\" text-anchor=\"middle\">",
		xoff + (L + R) / 2, yoff + B + 34);
	svg_esc(f, xlabel);
	fprintf(f, "%s</text>\n<text class=\"axis\" transform=\"translate(%g %g) rotate(-90)\" "
		"text-anchor=\"middle\">", logx ? " (log)" : "", xoff + 16.0, yoff + (T + B) / 2);
	svg_esc(f, ylabel);
	fprintf(f, "%s</text>\n", logy ? " (log)" : "");
	for (i = 0; i < nlines; i++) {
		const char *c = colors[i % 16];

		if (lines[i].n) {
			fprintf(f, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" "
				"stroke-width=\"2\" points=\"", c);
			for (j = 0; j < lines[i].n; j++)
				fprintf(f, "%.1f,%.1f ", PX(tr(lines[i].x[j], logx)),
					PY(tr(lines[i].y[j], logy)));
			fprintf(f, "\"/>\n");
			for (j = 0; j < lines[i].n; j++) {
				fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
					"fill=\"%s\"", PX(tr(lines[i].x[j], logx)),
					PY(tr(lines[i].y[j], logy)), c);
				svg_ref_attrs(f, &lines[i].ref, lines[i].key[j]);
				fprintf(f, "><title>%.4g, %.4g</title></circle>\n", lines[i].x[j],
					lines[i].y[j]);
			}
		}
		legend(f, i, lines[i].name, c, !lines[i].n, xoff + L, yoff + B + 48, fr->cols,
		       fr->colw);
	}
#undef PX
#undef PY
}

void svg_chart(FILE *f, const char *title, const char *xlabel, const char *ylabel, bool logx,
	       bool logy, const struct svg_line *lines, int nlines, int xoff, int yoff)
{
	const struct frame fr = { .w = 600, .cols = LEGEND_COLS, .colw = 255 };

	chart(f, &fr, title, xlabel, ylabel, logx, logy, lines, nlines, xoff, yoff);
}

static struct frame chart_frame(int w, const struct svg_line *lines, int nlines)
{
	const char *names[64];
	struct frame fr = { .w = w };
	int i;

	for (i = 0; i < nlines && i < 64; i++)
		names[i] = lines[i].name;
	fr.cols = legend_cols(names, i, w - 70 - 10, &fr.colw);
	return fr;
}

int svg_chart_w_height(int w, const struct svg_line *lines, int nlines)
{
	struct frame fr = chart_frame(w, lines, nlines);

	return 400 + 48 + (nlines + fr.cols - 1) / fr.cols * LEGEND_ROW + 8;
}

void svg_chart_w(FILE *f, int w, const char *title, const char *xlabel, const char *ylabel,
		 bool logx, bool logy, const struct svg_line *lines, int nlines)
{
	struct frame fr = chart_frame(w, lines, nlines);

	chart(f, &fr, title, xlabel, ylabel, logx, logy, lines, nlines, 0, 0);
}

/* Height of a bar chart of n bars. */
int svg_bars_height(int n)
{
	return 40 + (n ? n : 1) * 22 + 40;
}

/* the bars' label column: as wide as the longest label, at most half of w */
static double bars_left(int w, const struct svg_bar *bars, int n)
{
	size_t len = 0;
	double l;
	int i;

	for (i = 0; i < n; i++)
		if (strlen(bars[i].label) > len)
			len = strlen(bars[i].label);
	l = (double)len * CHAR_W + 16;
	return l > w / 2.0 ? w / 2.0 : l < 120 ? 120 : l;
}

/* A horizontal bar chart between L and R at (xoff, yoff); see svg_bars. */
static void bars_draw(FILE *f, double L, double R, const char *title, const char *unit,
		      const struct svg_bar *bars, int n, int xoff, int yoff)
{
	const double T = 40;
	double max = 0, tk[64];
	char nb[32], nv[32];
	int i, nt;

	for (i = 0; i < n; i++)
		if (!isnan(bars[i].value) && bars[i].value > max)
			max = bars[i].value;
	if (max <= 0)
		max = 1;
	fprintf(f, "<text class=\"title\" x=\"%d\" y=\"%d\" font-size=\"14\" "
		"font-weight=\"bold\">", xoff + 10, yoff + 24);
	svg_esc(f, title);
	fprintf(f, "</text>\n");
	nt = ticks(0, max, false, tk, 64);
	max = nt ? (tk[nt - 1] > max ? tk[nt - 1] : max) : max;
	for (i = 0; i < nt; i++)
		fprintf(f, "<path d=\"M%g %g V%g\" stroke=\"#ddd\"/><text class=\"tick\" x=\"%g\" "
			"y=\"%g\" text-anchor=\"middle\">%s</text>\n", xoff + L + tk[i] / max * (R - L),
			yoff + T, yoff + T + n * 22.0, xoff + L + tk[i] / max * (R - L),
			yoff + T + n * 22.0 + 14, num(nb, sizeof(nb), tk[i]));
	fprintf(f, "<text class=\"axis\" x=\"%g\" y=\"%g\" text-anchor=\"middle\">",
		xoff + (L + R) / 2, yoff + T + n * 22.0 + 30);
	svg_esc(f, unit);
	fprintf(f, "</text>\n");
	for (i = 0; i < n; i++) {
		double y = yoff + T + i * 22.0, bw;

		fprintf(f, "<text class=\"label\" x=\"%g\" y=\"%g\" text-anchor=\"end\">",
			xoff + L - 6, y + 15);
		svg_esc(f, bars[i].label);
		fprintf(f, "</text>\n");
		if (isnan(bars[i].value)) {
			fprintf(f, "<text class=\"note\" x=\"%g\" y=\"%g\" fill=\"#888\">", xoff + L + 4,
				y + 15);
			svg_esc(f, bars[i].note ? bars[i].note : "n/a");
			fprintf(f, "</text>\n");
			continue;
		}
		bw = (bars[i].value > 0 ? bars[i].value : 0) / max * (R - L);
		fprintf(f, "<rect class=\"bar\" x=\"%g\" y=\"%g\" width=\"%.1f\" height=\"16\" "
			"fill=\"%s\"", xoff + L, y + 3, bw, colors[bars[i].color % 16]);
		svg_ref_attrs(f, &bars[i].ref, bars[i].key);
		fprintf(f, "><title>%.4g</title></rect><text class=\"value\" x=\"%.1f\" y=\"%g\"",
			bars[i].value, xoff + L + bw + 4, y + 15);
		svg_ref_attrs(f, &bars[i].ref, bars[i].key);
		fprintf(f, ">%s</text>\n", num(nv, sizeof(nv), bars[i].value));
	}
}

/*
 * A horizontal bar chart, 600 wide, at (xoff, yoff): one labelled bar per
 * entry, its value written beside it; an entry without a value (NAN) says
 * why in place of its bar.
 */
void svg_bars(FILE *f, const char *title, const char *unit, const struct svg_bar *bars, int n,
	      int xoff, int yoff)
{
	bars_draw(f, 240, 540, title, unit, bars, n, xoff, yoff);
}

/* the names of a bar legend shown (not NULL) */
static int named(const char *const *names, int nnames)
{
	int i, n = 0;

	for (i = 0; i < nnames; i++)
		n += names[i] != NULL;
	return n;
}

int svg_bars_w_height(int w, int n, const char *const *names, int nnames)
{
	double colw;
	int cols = legend_cols(names, nnames, w - 20, &colw), shown = named(names, nnames);

	return svg_bars_height(n) + (shown + cols - 1) / cols * LEGEND_ROW + 8;
}

void svg_bars_w(FILE *f, int w, const char *title, const char *unit, const struct svg_bar *bars,
		int n, const char *const *names, int nnames)
{
	double colw;
	int cols = legend_cols(names, nnames, w - 20, &colw), i, at = 0;

	/* the value beside the longest bar: room for "12.3k" */
	bars_draw(f, bars_left(w, bars, n), w - 60, title, unit, bars, n, 0, 0);
	for (i = 0; i < nnames; i++)
		if (names[i])	/* colour i stays colour i */
			legend(f, at++, names[i], colors[i % 16], false, 10,
			       svg_bars_height(n) + 2, cols, colw);
}

/*
 * A bar per point of b (the baseline "none" points excluded) with the
 * median of value; points without it say why (their status). Colours
 * follow the mode, so count and latency of one mode share a colour.
 */
int svg_point_bars(struct bench *b, FILE *f, const char *title, const char *value,
		   const char *unit)
{
	size_t i, n = json_object_array_length(b->points);
	const char *modes[16] = {};
	struct svg_bar *bars = calloc(n + 1, sizeof(*bars));
	int nb = 0, nm = 0, k;

	if (!bars)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i);
		const char *mode = jstr(jget(p, "labels"), "mode", "?");

		if (!strcmp(mode, "none"))
			continue;
		for (k = 0; k < nm && strcmp(modes[k], mode); k++)
			;
		if (k == nm && nm < 16)
			modes[nm++] = mode;
		bars[nb].label = jstr(p, "key", "?");
		bars[nb].value = point_stat(p, value, "median");
		bars[nb].note = jstr(p, "status", "?");
		bars[nb++].color = k;
	}
	svg_begin(f, 600, svg_bars_height(nb));
	svg_bars(f, title, unit, bars, nb, 0, 0);
	svg_end(f);
	free(bars);
	return ferror(f) ? -EIO : 0;
}
