// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench report: the screen, from the model (bench_model.h). Per
 * kernel: the overhead per call of each hook path (trigger, count variant)
 * as ns and as a ratio to the cheapest path; the entry+return (latency)
 * variants; tracerd against its peers; the seed 000 section (docs/origins.md); the attach and
 * detach times of the largest K; the untraced entry sequence against its
 * notrace twin; and each mode a kernel lacks, with the reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/strutil.h"
#include "bench_model.h"

#define COL		16	/* width of a kernel's column */

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

	fprintf(f, "Overhead per traced call (getpgid loop, median ns; x = times the cheapest "
		   "path)\n");
	if (!report_any_suite(r, BENCH_TRIGGER)) {	/* e.g. make demo DEMO_SUITES=ops */
		fprintf(f, "  (no bench trigger results)\n");
		return;
	}
	header(f, r, "path / mode", 30);
	for (k = 0; k < r->nk; k++)
		ref[k] = report_cheapest(r, &r->k[k], &best[k]);
	for (i = 0; i < (size_t)r->np; i++) {
		if (!report_has_count(r, r->path[i].mode))
			continue;
		snprintf(name, sizeof(name), "%-13s %s", r->path[i].path, r->path[i].mode);
		fprintf(f, "  %-30s", name);
		snprintf(key, sizeof(key), "%s/count", r->path[i].mode);
		for (k = 0; k < r->nk; k++)
			cell(f, r->k[k].doc[BENCH_TRIGGER], key, ref[k]);
		fputc('\n', f);
	}
	fprintf(f, "  %-30s", "cheapest");
	for (k = 0; k < r->nk; k++)
		fprintf(f, "%*s", COL, best[k] ? best[k] : "-");
	fprintf(f, "\n  %-30s", "entry+return (latency variant)");
	fputc('\n', f);
	for (i = 0; i < (size_t)r->np; i++) {
		snprintf(key, sizeof(key), "%s/latency", r->path[i].mode);
		for (k = 0; k < r->nk; k++)
			if (r->k[k].doc[BENCH_TRIGGER] &&
			    bench_find_point(r->k[k].doc[BENCH_TRIGGER], key))
				break;
		if (k == r->nk)
			continue;
		fprintf(f, "  %-30s", r->path[i].mode);
		for (k = 0; k < r->nk; k++)
			cell(f, r->k[k].doc[BENCH_TRIGGER], key, ref[k]);
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
				json_object *doc = r->k[k].doc[BENCH_TRIGGER];

				row = !isnan(peer_overhead(doc, peers[0], variants[v])) ||
				      (peers[1] &&
				       !isnan(peer_overhead(doc, peers[1], variants[v])));
				row &= !if_measured ||
				       !isnan(peer_overhead(doc, mode, variants[v]));
			}
			if (!row)
				continue;
			if (!header) {
				fprintf(f, "\ntracerd / peer overhead, same loop (reference "
					"program / bpftrace; < 1: tracerd cheaper)\n");
				header = true;
			}
			snprintf(name, sizeof(name), "%s %s", mode, variants[v]);
			fprintf(f, "  %-30s", name);
			for (k = 0; k < r->nk; k++) {
				json_object *doc = r->k[k].doc[BENCH_TRIGGER];
				double t = peer_overhead(doc, mode, variants[v]), p;
				size_t j;

				for (j = 0; j < 2; j++) {
					p = peers[j] ? peer_overhead(doc, peers[j], variants[v])
						     : NAN;
					snprintf(j ? b : a, sizeof(a),
						 t > 0 && p > 0 ? "%.2f" : "-", t / p);
				}
				snprintf(cell, sizeof(cell), peers[1] ? "%s / %s" : "%s", a, b);
				fprintf(f, "%*s", COL, cell);
			}
			fputc('\n', f);
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
		if (!v->shown[i])
			continue;
		fprintf(f, "  %-10s", v->label[i]);
		for (c = 0; c < 2 + v->nc; c++)
			fprintf(f, "%*s", COL, v->cell[i][c]);
		fputc('\n', f);
	}
	for (i = 0; i < (size_t)v->nl; i++)
		fprintf(f, "%s%s\n", v->line[i].level ? "    " : "  ", v->line[i].text);
	free(v);
}

static void screen_attach(FILE *f, const struct report *r)
{
	/* separate: in the attach tables; kernel: --kernel-funcs' curve, its largest K */
	static const char *const hows[] = { "one", "kernel" };
	char name[64], buf[48];
	size_t i, h;
	int k;
	bool any = false;

	for (k = 0; k < r->nk; k++)
		any |= r->k[k].doc[BENCH_ATTACH] != NULL;
	if (!any)
		return;
	fprintf(f, "\nAttach / detach of K functions as one attachment (median ms; K hooks "
		"apart: the attach tables)\n");
	header(f, r, "mode", 30);
	for (i = 0; i < (size_t)r->np; i++)
		for (h = 0; h < sizeof(hows) / sizeof(hows[0]); h++) {
			bool row = false;

			for (k = 0; k < r->nk; k++)
				row |= r->k[k].doc[BENCH_ATTACH] &&
				       report_attach_point(r->k[k].doc[BENCH_ATTACH],
							   r->path[i].mode, hows[h]);
			if (!row)
				continue;
			snprintf(name, sizeof(name), "%s%s", r->path[i].mode,
				 h ? " (kernel)" : "");
			fprintf(f, "  %-30s", name);
			for (k = 0; k < r->nk; k++) {
				json_object *p =
					r->k[k].doc[BENCH_ATTACH]
						? report_attach_point(r->k[k].doc[BENCH_ATTACH],
								      r->path[i].mode, hows[h])
						: NULL;

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

static void screen_entry(FILE *f, const struct report *r)
{
	char a[48], b[48];
	int k, shown = 0;

	fprintf(f,
		"\nEntry sequence (seed 003): an untraced function's entry against its notrace "
		"twin (bench entry, ns/call)\n  seed, hackbench: %s;\n    %s\n",
		SEED003_A53, SEED003_A57);
	for (k = 0; k < r->nk; k++) {
		json_object *doc = r->k[k].doc[BENCH_ENTRY], *t, *q, *l;

		if (!doc)
			continue;
		t = bench_find_point(doc, "traceable");
		q = report_entry_pair(doc);
		l = jget(q, "labels");
		entry_cell(a, sizeof(a), t, "overhead_ns", "ratio");
		entry_cell(b, sizeof(b), q, "against_ns", "against_ratio");
		fprintf(f, "  %-14s traceable `%s`: %s; `%s` vs `%s`: %s\n", r->k[k].label,
			jtty(jget(t, "labels"), "entry", "?"), a, jtty(l, "entry", "?"),
			jtty(jget(bench_find_point(doc, jstr(l, "against", "")), "labels"), "entry",
			     "?"),
			b);
		shown++;
	}
	if (!shown)
		fprintf(f, "  (no bench entry results)\n");
}

/* Kernel k lacks mode for the reason why. */
static bool lacks(const struct kern *k, const char *mode, const char *why)
{
	json_object *st = jget(report_modes(k), mode);

	return st && !jbool(st, "available") && !strcmp(jstr(st, "reason", ""), why);
}

/* One line per mode and reason a kernel lacks it (kernels sharing one joined). */
static void screen_unavailable(FILE *f, const struct report *r)
{
	char kernels[256];
	int k, j, shown = 0;

	fprintf(f, "\nUnavailable here, and why\n");
	for (k = 0; k < r->nk; k++) {
		json_object *modes = report_modes(&r->k[k]);

		if (!modes)
			continue;
		json_object_object_foreach(modes, mode, st) {
			const char *why = jstr(st, "reason", "?");
			size_t off;

			if (jbool(st, "available"))
				continue;
			for (j = 0; j < k && !lacks(&r->k[j], mode, why); j++)
				;	/* said for an earlier kernel already? */
			if (j < k)
				continue;
			off = (size_t)snprintf(kernels, sizeof(kernels), "%s", r->k[k].label);
			for (j = k + 1; j < r->nk && off < sizeof(kernels); j++)
				if (lacks(&r->k[j], mode, why))
					off += (size_t)snprintf(kernels + off,
								sizeof(kernels) - off, ", %s",
								r->k[j].label);
			fprintf(f, "  %s (%s): %.150s\n", mode, kernels, why);
			shown++;
		}
	}
	if (!shown)
		fprintf(f, "  every mode measured on every kernel\n");
}

/* The days of kernel k's results: "2026-12-01", or "2026-12-01 to 2026-12-02". */
static void days(const struct kern *k, char *buf, size_t len)
{
	const char *first, *last;
	int a, b;

	report_dates(k, &a, &b);
	if (a < 0) {
		snprintf(buf, len, "?");
		return;
	}
	first = jstr(k->doc[a], "date", "?");
	last = jstr(k->doc[b], "date", "?");
	if (strncmp(first, last, 10))
		snprintf(buf, len, "%.10s to %.10s", first, last);
	else
		snprintf(buf, len, "%.10s", first);
}

/* One line per kernel: the machine its results name, and their days. */
static void screen_machines(FILE *f, const struct report *r)
{
	char d[64];
	int k;

	fprintf(f, "Measured on\n");
	for (k = 0; k < r->nk; k++) {
		json_object *m = jget(report_first_doc(&r->k[k], NULL), "machine");

		days(&r->k[k], d, sizeof(d));
		fprintf(f, "  %-14s kernel %s, host %s, CPU %s, %lld cores%s; %s\n", r->k[k].label,
			jtty(m, "kernel", "?"), jtty(m, "hostname", "?"), jtty(m, "cpu_model", "?"),
			jint(m, "cpus", 0), jbool(m, "hypervisor") ? " (hypervisor)" : "", d);
	}
}

/* A sentence, wrapped at 100 columns: "  - " first, "    " after. */
static void wrapped(FILE *f, const char *s)
{
	const char *p = s, *cut, *sp;
	char line[512];
	int first = 1;

	while (*p) {
		size_t room = 96;

		if (strlen(p) <= room) {
			fprintf(f, "%s%s\n", first ? "  - " : "    ", tty_str(p));
			return;
		}
		for (cut = NULL, sp = p; (sp = strchr(sp, ' ')) && (size_t)(sp - p) <= room; sp++)
			cut = sp;
		if (!cut)
			cut = strchr(p, ' ') ? strchr(p, ' ') : p + strlen(p);
		snprintf(line, sizeof(line), "%.*s", (int)(cut - p), p);
		fprintf(f, "%s%s\n", first ? "  - " : "    ", tty_str(line));
		p = *cut ? cut + 1 : cut;
		first = 0;
	}
}

static void screen_conclusions(FILE *f, const struct report *r)
{
	struct conclusions *cs = calloc(1, sizeof(*cs));
	char buf[CONCL_PARTS * 160];
	int i;

	if (!cs)
		return;
	report_conclusions(cs, r);
	fprintf(f, "\nWhat these results say\n");
	for (i = 0; i < cs->n; i++) {
		concl_text(&cs->s[i], buf, sizeof(buf));
		wrapped(f, buf);
	}
	free(cs);
}

void report_text(FILE *f, const struct report *r)
{
	fprintf(f, "tracerd: what each hook path costs, %d kernel%s (QEMU TCG when booted by the "
		"harness: compare ratios, not ns)\n\n", r->nk, r->nk == 1 ? "" : "s");
	screen_machines(f, r);
	screen_conclusions(f, r);
	fputc('\n', f);
	screen_overhead(f, r);
	screen_peers(f, r);
	screen_seed000(f, r);
	screen_attach(f, r);
	screen_entry(f, r);
	screen_unavailable(f, r);
}
