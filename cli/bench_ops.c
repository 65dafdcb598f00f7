// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench ops: the relevant x irrelevant table of seed 000 (docs/origins.md), through
 * the kmod's in-kernel benchmark (TRACERD_IOC_BENCH_OPS), per native mode.
 * tracectl bench attach: seed 002's "what does patching cost": attach and
 * detach K functions per mode (kmod: TRACERD_IOC_BENCH_PATCH, one ftrace_ops
 * with K entries and K attachments; BPF: the daemon times its registry on
 * the test module's functions, as one attachment and as K).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/util.h"
#include "bench.h"

static const char *const ops_modes[] = {
	"kmod-callops", "kmod-callops+regs", "kmod-direct", "kmod-kprobe", "kmod-kprobe-int3",
};
static const char *const attach_modes[] = {
	"kmod-callops", "kmod-direct", "kmod-kprobe", "kmod-kprobe-int3",
	"fentry", "kprobe", "kprobe-multi",
};

struct grid_opts {
	unsigned long long calls;
	long long rel[16], irr[16], ks[16];
	int nrel, nirr, nks;
	bool grid;
	bool all;		/* attach --all: every traceable function, callops */
	const char *modes[16];
	int nmodes;
};

static json_object *str_array(const char *const *v, int n)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static json_object *int_array(const long long *v, int n)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64(v[i]));
	return a;
}

/* "kmod-callops+regs" -> mode "kmod-callops", save_regs */
static json_object *mode_args(const char *mode)
{
	json_object *args = json_object_new_object();
	char name[32];

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(mode, "+"), mode);
	json_object_object_add(args, "mode", json_object_new_string(name));
	if (strstr(mode, "+regs"))
		json_object_object_add(args, "save_regs", json_object_new_boolean(1));
	return args;
}

/* What grid_opts parses into: the options and the lists still as text. */
struct grid_parse {
	struct grid_opts *o;
	const char *rel, *irr, *ks;
	const char *const *known;
	int nknown;
};

static int grid_opt(struct bench *b, int c, const char *arg, void *ctx)
{
	struct grid_parse *g = ctx;
	struct grid_opts *o = g->o;
	unsigned long long v;

	switch (c) {
	case 'n':
		if (cli_number(b->cli, "-n (calls)", arg, 1, 100000000ULL, &v))
			return EXIT_USAGE;
		o->calls = v;
		return 0;
	case 'R':
		g->rel = arg;
		return 0;
	case 'I':
		g->irr = arg;
		return 0;
	case 'k':
		g->ks = arg;
		return 0;
	case 'G':
		o->grid = true;
		return 0;
	case 'A':
		o->all = true;
		return 0;
	case 'm':
		o->nmodes = bench_pick(b, "mode", arg, g->known, g->nknown, o->modes, 16);
		return o->nmodes < 0 ? -o->nmodes : 0;
	default:
		return BENCH_OPT_COMMON;
	}
}

static int grid_opts(struct bench *b, int argc, char **argv, struct grid_opts *o,
		     const char *const *known, int nknown)
{
	static const struct option opts[] = {
		BENCH_COMMON_OPTS,
		{ "calls", required_argument, NULL, 'n' },
		{ "relevant", required_argument, NULL, 'R' },
		{ "irrelevant", required_argument, NULL, 'I' },
		{ "grid", no_argument, NULL, 'G' },
		{ "funcs", required_argument, NULL, 'k' },
		{ "modes", required_argument, NULL, 'm' },
		{ "all", no_argument, NULL, 'A' },
		{ 0 }
	};
	struct grid_parse g = { .o = o, .known = known, .nknown = nknown };
	const char *rel, *irr, *ks;
	int ret, i;

	for (i = 0; i < nknown; i++)
		o->modes[o->nmodes++] = known[i];
	ret = bench_getopt(b, argc, argv, "n:k:", opts, grid_opt, &g);
	if (ret)
		return ret;
	rel = g.rel;
	irr = g.irr;
	ks = g.ks;
	if (!rel)
		rel = b->profile_ci ? "0,1,2" : "0,1,2,10,100,200";
	if (!irr)
		irr = b->profile_ci ? "0,1,2" : "0,1,2,10,100,200";
	if (!ks)
		ks = b->profile_ci ? "1,16" : "1,16,256,1024";
	o->nrel = parse_list(rel, o->rel, 16);
	o->nirr = parse_list(irr, o->irr, 16);
	o->nks = parse_list(ks, o->ks, 16);
	if (o->nrel < 0 || o->nirr < 0 || o->nks < 0)
		return cli_error(b->cli, EXIT_USAGE, "usage", "bench %s: lists are comma-separated "
				 "numbers (at most 16)", b->suite);
	if (!o->calls)
		o->calls = b->profile_ci ? 1000 : 100000;
	return 0;
}

/* ------------------------------------------------------------------ ops */

/* One (R, I) point of a mode; false when the mode is unavailable. */
static bool ops_point(struct bench *b, const struct grid_opts *o, const char *mode,
		      long long rel, long long irr, double *base)
{
	struct series tot = {}, per = {}, ovh = {}, inc = {};
	long long n = (long long)o->calls, hits = 0;
	json_object *p, *args, *r;
	char key[96], msg[512];
	int i, ret;

	snprintf(key, sizeof(key), "%s/R%lld/I%lld", mode, rel, irr);
	p = bench_point(b, key);
	point_label(p, "mode", mode);
	point_label_int(p, "relevant", rel);
	point_label_int(p, "irrelevant", irr);
	for (i = -b->warmup; i < b->reps; i++) {
		bench_progress(b, "%s: %s", key, i < 0 ? "warm-up" : "measuring");
		args = mode_args(mode);
		json_object_object_add(args, "calls", json_object_new_int64(n));
		json_object_object_add(args, "relevant", json_object_new_int64(rel));
		json_object_object_add(args, "irrelevant", json_object_new_int64(irr));
		ret = bench_call(b, "ops", args, &r, msg, sizeof(msg));
		if (ret) {
			point_status(b, p, ret == -(int)PROTO_E_UNAVAILABLE ? "unavailable" : "error",
				     "%s", msg);
			return ret != -(int)PROTO_E_UNAVAILABLE;
		}
		if (jint(r, "hits", -1) != n * rel || jint(r, "irrelevant_hits", -1) != 0) {
			point_count(p, "relevant_hits", n * rel, jint(r, "hits", -1));
			point_count(p, "irrelevant_hits", 0, jint(r, "irrelevant_hits", -1));
			point_status(b, p, "error", "hooks counted %lld + %lld irrelevant, expected "
				     "%lld", jint(r, "hits", -1), jint(r, "irrelevant_hits", -1),
				     n * rel);
			json_object_put(r);
			return true;
		}
		if (i >= 0) {
			double t = (double)jint(r, "total_ns", 0);

			hits += n * rel;
			series_add(&tot, t);
			series_add(&per, t / n);
			series_add(&inc, (t - (double)jint(r, "base_total_ns", 0)) / n);
		}
		json_object_put(r);
	}
	if (rel == 0 && irr == 0)
		*base = series_median(&per);
	for (i = 0; i < per.n; i++)
		series_add(&ovh, per.v[i] - *base);
	point_count(p, "relevant_hits", hits, hits);
	point_value(p, "total_ns", "ns", &tot);
	point_value(p, "ns_per_call", "ns", &per);
	if (!isnan(*base))
		point_value(p, "overhead_ns", "ns", &ovh);
	point_value(p, "overhead_in_call_ns", "ns", &inc);
	return true;
}

static bool ops_want(const struct grid_opts *o, long long r, long long i)
{
	/* seed 000's cross: R = 0 and R = 1 against every I, every R against I = 0 */
	return o->grid || r <= 1 || i == 0;
}

void ops_table(struct bench *b, FILE *f)
{
	size_t i, n = jlen(b->points);
	const char *last = "";
	long long lastr = -1;
	const char *sep = "+----------+------------+-----------------+------------+---------------+\n";

	fprintf(f, "ops: %lld calls of the module's tracee per point, %d runs after %d warm-up; "
		"median (overhead against 0/0 of the same mode)\n",
		jint(b->options, "calls", 0), b->reps, b->warmup);
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");
		const char *mode = jstr(l, "mode", "?");
		long long r = jint(l, "relevant", 0);

		if (strcmp(mode, last)) {
			if (*last)
				fprintf(f, "%s", sep);
			fprintf(f, "\n%s\n%s", tty_str(mode), sep);
			fprintf(f, "| Relevant | Irrelevant | Total (ns)      | Per-call   | "
				"Overhead (ns) |\n%s", sep);
			last = mode;
			lastr = r;
		} else if ((lastr <= 1) != (r <= 1) || (r <= 1 && r != lastr)) {
			fprintf(f, "%s", sep);
		}
		lastr = r;
		if (strcmp(jstr(p, "status", ""), "ok")) {
			fprintf(f, "| %s: %s\n", jtty(p, "status", "?"), jtty(p, "reason", ""));
			continue;
		}
		fprintf(f, "| %8lld | %10lld | %15.0f | %10.1f | ", r, jint(l, "irrelevant", 0),
			point_stat(p, "total_ns", "median"), point_stat(p, "ns_per_call", "median"));
		if (r == 0 && jint(l, "irrelevant", 0) == 0)
			fprintf(f, "%13s |\n", "-");
		else
			fprintf(f, "%13.1f |\n", point_stat(p, "overhead_ns", "median"));
	}
	if (*last)
		fprintf(f, "%s", sep);
	fprintf(f, "kmod-direct: one relevant tracer at most (a function takes one direct call)\n");
}

int ops_svg(struct bench *b, FILE *f)
{
	struct svg_line rel[8] = {}, irr[8] = {};
	size_t i, n = jlen(b->points);
	int nl = 0, k;

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");
		const char *mode = jstr(l, "mode", "?");
		long long r = jint(l, "relevant", 0), ir = jint(l, "irrelevant", 0);
		double y = point_stat(p, "overhead_ns", "median");

		for (k = 0; k < nl && strcmp(rel[k].name, mode); k++)
			;
		if (k == nl) {
			if (nl == 8)
				continue;
			rel[nl].name = irr[nl].name = mode;
			nl++;
		}
		if (isnan(y))
			continue;
		if (ir == 0 && r >= 1 && rel[k].n < 64) {
			rel[k].x[rel[k].n] = (double)r;
			rel[k].y[rel[k].n++] = y;
		}
		if (r == 1 && irr[k].n < 64) {
			irr[k].x[irr[k].n] = (double)ir + 1;
			irr[k].y[irr[k].n++] = y;
		}
	}
	svg_begin(f, 1200, svg_chart_height(nl));
	svg_chart(f, "R relevant tracers, 0 irrelevant", "relevant tracers (R)",
		  "overhead ns/call", true, false, rel, nl, 0, 0);
	svg_chart(f, "1 relevant tracer, I irrelevant", "irrelevant tracers (I + 1)",
		  "overhead ns/call", true, false, irr, nl, 600, 0);
	svg_end(f);
	return ferror(f) ? -EIO : 0;
}

int bench_ops(struct bench *b, int argc, char **argv)
{
	struct grid_opts o = {};
	double base;
	int m, i, j, ret;

	ret = grid_opts(b, argc, argv, &o, ops_modes, ARRAY_SIZE(ops_modes));
	if (!ret)
		ret = bench_begin(b);
	if (ret)
		return ret;
	json_object_object_add(b->options, "calls", json_object_new_int64((long long)o.calls));
	json_object_object_add(b->options, "relevant", int_array(o.rel, o.nrel));
	json_object_object_add(b->options, "irrelevant", int_array(o.irr, o.nirr));
	json_object_object_add(b->options, "grid", json_object_new_boolean(o.grid));
	json_object_object_add(b->options, "modes", str_array(o.modes, o.nmodes));
	for (m = 0; m < o.nmodes; m++) {
		bool direct = !strcmp(o.modes[m], "kmod-direct"), ok = true;

		base = NAN;
		/* the 0/0 baseline first, so every overhead has its reference */
		ok = ops_point(b, &o, o.modes[m], 0, 0, &base);
		for (i = 0; ok && i < o.nrel; i++)
			for (j = 0; ok && j < o.nirr; j++) {
				if ((!o.rel[i] && !o.irr[j]) || !ops_want(&o, o.rel[i], o.irr[j]))
					continue;
				if (direct && o.rel[i] > 1)
					continue;
				ok = ops_point(b, &o, o.modes[m], o.rel[i], o.irr[j], &base);
			}
	}
	return bench_end(b, ops_table, ops_svg);
}

/* --------------------------------------------------------------- attach */

static void attach_point(struct bench *b, const char *mode, const char *how, long long k,
			 bool *unavailable)
{
	struct series att = {}, det = {};
	bool kmod = !strncmp(mode, "kmod-", 5);
	json_object *p, *args, *r;
	char key[96], msg[512];
	long long hooked = 0;
	int i, ret;

	snprintf(key, sizeof(key), "%s/%s/K%lld", mode, how, k);
	p = bench_point(b, key);
	point_label(p, "mode", mode);
	point_label(p, "how", how);
	point_label_int(p, "funcs", k);
	if (*unavailable) {
		point_status(b, p, "unavailable", "see %s above", mode);
		return;
	}
	for (i = -b->warmup; i < b->reps; i++) {
		bench_progress(b, "%s: %s", key, i < 0 ? "warm-up" : "measuring");
		args = mode_args(mode);
		json_object_object_add(args, "funcs", json_object_new_int64(k));
		if (!kmod)
			json_object_object_add(args, "how", json_object_new_string(how));
		ret = bench_call(b, kmod ? "patch" : "attach", args, &r, msg, sizeof(msg));
		if (ret) {
			*unavailable = ret == -(int)PROTO_E_UNAVAILABLE;
			point_status(b, p, *unavailable ? "unavailable" : "error", "%s", msg);
			return;
		}
		if (kmod) {
			bool one = !strcmp(how, "one");
			long long h = jint(r, one ? "one_hits" : "sep_hits", -1);

			if (h != k) {
				point_count(p, "hits", k, h);
				point_status(b, p, "error", "%lld of %lld functions counted", h, k);
				json_object_put(r);
				return;
			}
			if (i >= 0) {
				series_add(&att, jint(r, one ? "one_attach_ns" : "sep_attach_ns", 0) / 1e3);
				series_add(&det, jint(r, one ? "one_detach_ns" : "sep_detach_ns", 0) / 1e3);
			}
		} else {
			if (jint(r, "functions", -1) != k) {
				point_count(p, "functions", k, jint(r, "functions", -1));
				point_status(b, p, "error", "%lld of %lld functions hooked",
					     jint(r, "functions", -1), k);
				json_object_put(r);
				return;
			}
			if (i >= 0) {
				series_add(&att, jint(r, "attach_ns", 0) / 1e3);
				series_add(&det, jint(r, "detach_ns", 0) / 1e3);
			}
		}
		if (i >= 0)
			hooked += k;
		json_object_put(r);
	}
	point_count(p, kmod ? "hits" : "functions", hooked, hooked);
	point_value(p, "attach_us", "us", &att);
	point_value(p, "detach_us", "us", &det);
}

/*
 * attach --all: one kmod-callops ftrace_ops with an empty filter, on every
 * function ftrace can trace (module time). The counts behind the point:
 * the module's tracee, called once while attached, counted exactly once.
 */
static void attach_all_point(struct bench *b)
{
	struct series att = {}, det = {};
	json_object *p, *args, *r;
	char msg[512];
	long long funcs = 0, runs = 0;
	int i, ret;

	p = bench_point(b, "kmod-callops/all");
	point_label(p, "mode", "kmod-callops");
	point_label(p, "how", "all");
	for (i = -b->warmup; i < b->reps; i++) {
		bench_progress(b, "kmod-callops/all: %s", i < 0 ? "warm-up" : "measuring");
		args = mode_args("kmod-callops");
		ret = bench_call(b, "patch_all", args, &r, msg, sizeof(msg));
		if (ret) {
			point_status(b, p, ret == -(int)PROTO_E_UNAVAILABLE ? "unavailable" : "error",
				     "%s", msg);
			return;
		}
		if (jint(r, "tracee_hits", -1) != 1) {
			point_count(p, "tracee_hits", 1, jint(r, "tracee_hits", -1));
			point_status(b, p, "error", "the tracee was counted %lld times, expected 1",
				     jint(r, "tracee_hits", -1));
			json_object_put(r);
			return;
		}
		funcs = jint(r, "functions", 0);
		if (i >= 0) {
			series_add(&att, jint(r, "attach_ns", 0) / 1e3);
			series_add(&det, jint(r, "detach_ns", 0) / 1e3);
			runs++;
		}
		json_object_put(r);
	}
	point_label_int(p, "funcs", funcs);
	point_count(p, "tracee_hits", runs, runs);
	point_value(p, "attach_us", "us", &att);
	point_value(p, "detach_us", "us", &det);
}

void attach_table(struct bench *b, FILE *f)
{
	size_t i, n = jlen(b->points);

	fprintf(f, "attach: attach then detach K functions (kmod: tracerd_kmod's "
		"tracerd_bench_fn_*, module time; BPF: tracerd_testmod_fn_*, daemon time), %d runs "
		"after %d warm-up; median [min - max] in us\n", b->reps, b->warmup);
	fprintf(f, "%-18s %-9s %5s  %-32s %-32s\n", "MODE", "HOW", "K", "attach us", "detach us");
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");
		char a[64], d[64];

		fprintf(f, "%-18s %-9s %5lld  ", jtty(l, "mode", "?"), jtty(l, "how", "?"),
			jint(l, "funcs", 0));
		if (strcmp(jstr(p, "status", ""), "ok")) {
			fprintf(f, "%s: %s\n", jtty(p, "status", "?"), jtty(p, "reason", ""));
			continue;
		}
		snprintf(a, sizeof(a), "%.1f [%.1f - %.1f]", point_stat(p, "attach_us", "median"),
			 point_stat(p, "attach_us", "min"), point_stat(p, "attach_us", "max"));
		snprintf(d, sizeof(d), "%.1f [%.1f - %.1f]", point_stat(p, "detach_us", "median"),
			 point_stat(p, "detach_us", "min"), point_stat(p, "detach_us", "max"));
		fprintf(f, "%-32s %-32s\n", a, d);
	}
	fprintf(f, "one: one hook for all K (kmod: one ftrace_ops with K filter entries or one "
		"register_kprobes batch; BPF: one attachment of a glob); separate: K hooks\n");
	if (jget(b->options, "all") && json_object_get_boolean(jget(b->options, "all")))
		fprintf(f, "all: one kmod-callops ftrace_ops with an empty filter, every function in "
			"available_filter_functions (K)\n");
}

int attach_svg(struct bench *b, FILE *f)
{
	struct svg_line at[16] = {}, dt[16] = {};
	size_t i, n = jlen(b->points);
	int nl = 0, k;
	char *names[16] = {};

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");
		char name[64];
		double ya = point_stat(p, "attach_us", "median"), yd = point_stat(p, "detach_us", "median");

		snprintf(name, sizeof(name), "%s %s", jstr(l, "mode", "?"), jstr(l, "how", "?"));
		for (k = 0; k < nl && strcmp(names[k], name); k++)
			;
		if (k == nl) {
			if (nl == 16)
				continue;
			names[nl] = strdup(name);
			at[nl].name = dt[nl].name = names[nl];
			nl++;
		}
		if (isnan(ya) || at[k].n >= 64)
			continue;
		at[k].x[at[k].n] = dt[k].x[dt[k].n] = (double)jint(l, "funcs", 1);
		at[k].y[at[k].n++] = ya;
		dt[k].y[dt[k].n++] = yd;
	}
	svg_begin(f, 1200, svg_chart_height(nl));
	svg_chart(f, "attach K functions", "K functions", "us", true, true, at, nl, 0, 0);
	svg_chart(f, "detach K functions", "K functions", "us", true, true, dt, nl, 600, 0);
	svg_end(f);
	for (k = 0; k < nl; k++)
		free(names[k]);
	return ferror(f) ? -EIO : 0;
}

int bench_attach(struct bench *b, int argc, char **argv)
{
	static const char *const hows[] = { "one", "separate" };
	struct grid_opts o = {};
	int m, h, i, ret;

	ret = grid_opts(b, argc, argv, &o, attach_modes, ARRAY_SIZE(attach_modes));
	if (!ret)
		ret = bench_begin(b);
	if (ret)
		return ret;
	for (i = 0; i < o.nks; i++)
		if (o.ks[i] < 1 || o.ks[i] > 1024 ||
		    (o.ks[i] != 1 && o.ks[i] != 16 && o.ks[i] != 256 && o.ks[i] != 1024)) {
			json_object_put(b->doc);
			json_object_put(b->info);
			return cli_error(b->cli, EXIT_USAGE, "usage",
					 "bench attach: K must be 1, 16, 256 or 1024");
		}
	json_object_object_add(b->options, "funcs", int_array(o.ks, o.nks));
	json_object_object_add(b->options, "modes", str_array(o.modes, o.nmodes));
	json_object_object_add(b->options, "all", json_object_new_boolean(o.all));
	for (m = 0; m < o.nmodes; m++) {
		bool unavailable = false;

		for (h = 0; h < 2; h++)
			for (i = 0; i < o.nks; i++)
				attach_point(b, o.modes[m], hows[h], o.ks[i], &unavailable);
	}
	if (o.all)
		attach_all_point(b);
	return bench_end(b, attach_table, attach_svg);
}
