// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench ops: the relevant x irrelevant table of seed 000 (docs/origins.md), through
 * the kmod's in-kernel benchmark (TRACERD_IOC_BENCH_OPS), per native mode.
 * Its options (the R, I and K lists, --modes) are parsed by grid_opts(),
 * which bench attach (bench_attach.c) shares.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/util.h"
#include "bench.h"

json_object *str_array(const char *const *v, int n)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

json_object *int_array(const long long *v, int n)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64(v[i]));
	return a;
}

/* "kmod-callops+regs" -> mode "kmod-callops", save_regs */
json_object *mode_args(const char *mode)
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
	case 'K':
		o->kernel = true;
		return 0;
	case 'P':
		o->peers = true;
		return 0;
	case 'm':
		o->modes_set = true;
		o->nmodes = bench_pick(b, "mode", arg, g->known, g->nknown, o->modes, 16);
		return o->nmodes < 0 ? -o->nmodes : 0;
	default:
		return BENCH_OPT_COMMON;
	}
}

int grid_opts(struct bench *b, int argc, char **argv, struct grid_opts *o,
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
		{ "kernel-funcs", no_argument, NULL, 'K' },
		{ "peers", no_argument, NULL, 'P' },
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
	if (!ks && o->kernel)
		ks = b->profile_ci ? "1,100" : "1,10,100,1000,10000,all";
	if (!ks)
		ks = b->profile_ci ? "1,16" : "1,16,256,1024";
	o->nrel = parse_list(rel, o->rel, 16);
	o->nirr = parse_list(irr, o->irr, 16);
	/* --kernel-funcs: "all" in the K list, last (every traceable function) */
	o->nks = o->kernel ? parse_k_list(ks, o->ks, 16, &o->k_all) : parse_list(ks, o->ks, 16);
	if (o->nrel < 0 || o->nirr < 0 || o->nks < 0)
		return cli_error(b->cli, EXIT_USAGE, "usage", "bench %s: lists are comma-separated "
				 "numbers (at most 16; -k with --kernel-funcs: and all, last)",
				 b->suite);
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
			point_status(b, p,
				     ret == -(int)PROTO_E_UNAVAILABLE ? "unavailable" : "error",
				     "%s", msg);
			return ret != -(int)PROTO_E_UNAVAILABLE;
		}
		if (jint(r, "hits", -1) != n * rel || jint(r, "irrelevant_hits", -1) != 0) {
			point_count(p, "relevant_hits", n * rel, jint(r, "hits", -1));
			point_count(p, "irrelevant_hits", 0, jint(r, "irrelevant_hits", -1));
			point_status(b, p, "error",
				     "hooks counted %lld + %lld irrelevant, expected "
				     "%lld",
				     jint(r, "hits", -1), jint(r, "irrelevant_hits", -1), n * rel);
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

static void ops_table(struct bench *b, FILE *f)
{
	size_t i, n = jlen(b->points);
	const char *last = "";
	long long lastr = -1;
	const char *sep =
		"+----------+------------+-----------------+------------+---------------+\n";

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
			point_stat(p, "total_ns", "median"),
			point_stat(p, "ns_per_call", "median"));
		if (r == 0 && jint(l, "irrelevant", 0) == 0)
			fprintf(f, "%13s |\n", "-");
		else
			fprintf(f, "%13.1f |\n", point_stat(p, "overhead_ns", "median"));
	}
	if (*last)
		fprintf(f, "%s", sep);
	fprintf(f, "kmod-direct: one relevant tracer at most (a function takes one direct call)\n");
}

static int ops_svg(struct bench *b, FILE *f)
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

static int bench_ops(struct bench *b, int argc, char **argv)
{
	const char *kmod[BENCH_MAX_HOOKS];
	struct grid_opts o = {};
	double base;
	int m, i, j, ret;

	ret = grid_opts(b, argc, argv, &o, kmod, bench_hooks(kmod, BENCH_HOOKS_KMOD));
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

const struct bench_suite bench_suite_ops = {
	.name = "ops",
	.help = "kmod in-kernel benchmark: relevant x irrelevant tracers\n"
		"              -n, --calls=N          calls of the tracee per point\n"
		"                  --relevant=LIST    R values; --irrelevant=LIST: I values\n"
		"                  --grid             every R x I pair (default: R/0 and 1/I)\n"
		"                  --modes=LIST       kmod modes\n",
	.run = bench_ops,
	.table = ops_table,
	.svg = ops_svg,
	.in_report = true,
};
