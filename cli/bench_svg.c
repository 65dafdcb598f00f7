// SPDX-License-Identifier: GPL-2.0-or-later
/* tracectl bench --svg: small self-contained line charts (no dependencies). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"

static const char *const colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
	"#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8", "#ff9896", "#98df8a",
	"#ffbb78", "#c5b0d5",
};

void svg_begin(FILE *f, int w, int h)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", w, h, w, h);
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

static double tr(double v, bool lg)
{
	return lg ? lg10(v > 0 ? v : 1e-3) : v;
}

static void esc(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
}

/* One 600x520 chart at (xoff, yoff): axes with ticks, a line per series, legend. */
void svg_chart(FILE *f, const char *title, const char *xlabel, const char *ylabel, bool logx,
	       bool logy, const struct svg_line *lines, int nlines, int xoff, int yoff)
{
	const double L = 70, R = 580, T = 40, B = 400;
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, t;
	int i, j;

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
	fprintf(f, "<text x=\"%g\" y=\"%g\" font-size=\"14\" font-weight=\"bold\">", xoff + L,
		yoff + 24.0);
	esc(f, title);
	fprintf(f, "</text>\n<path d=\"M%g %g V%g H%g\" stroke=\"black\" fill=\"none\"/>\n",
		xoff + L, yoff + T, yoff + B, xoff + R);
	for (i = 0; i <= 4; i++) {
		double xv = x0 + (x1 - x0) * i / 4, yv = y0 + (y1 - y0) * i / 4;

		fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%.4g</text>\n", PX(xv),
			yoff + B + 16, logx ? pw10(xv) : xv);
		fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%.4g</text>\n"
			"<path d=\"M%g %g H%g\" stroke=\"#ddd\"/>\n", xoff + L - 4, PY(yv) + 4,
			logy ? pw10(yv) : yv, xoff + L, PY(yv), xoff + R);
	}
	fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">", xoff + (L + R) / 2,
		yoff + B + 34);
	esc(f, xlabel);
	fprintf(f, "%s</text>\n<text transform=\"translate(%g %g) rotate(-90)\" "
		"text-anchor=\"middle\">", logx ? " (log)" : "", xoff + 16.0, yoff + (T + B) / 2);
	esc(f, ylabel);
	fprintf(f, "%s</text>\n", logy ? " (log)" : "");
	for (i = 0; i < nlines; i++) {
		const char *c = colors[i % 16];

		if (lines[i].n) {
			fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
			for (j = 0; j < lines[i].n; j++)
				fprintf(f, "%.1f,%.1f ", PX(tr(lines[i].x[j], logx)),
					PY(tr(lines[i].y[j], logy)));
			fprintf(f, "\"/>\n");
			for (j = 0; j < lines[i].n; j++)
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
					PX(tr(lines[i].x[j], logx)), PY(tr(lines[i].y[j], logy)), c);
		}
		fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%g\" y=\"%g\">", xoff + L + (i % 3) * 170.0,
			yoff + B + 48 + (i / 3) * 16.0, c, xoff + L + (i % 3) * 170.0 + 16,
			yoff + B + 58 + (i / 3) * 16.0);
		esc(f, lines[i].name);
		fprintf(f, "%s</text>\n", lines[i].n ? "" : " (n/a)");
	}
#undef PX
#undef PY
}
