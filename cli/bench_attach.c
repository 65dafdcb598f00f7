// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench attach: what patching costs: attach and detach K
 * functions per mode (kmod: TRACERD_IOC_BENCH_PATCH, one ftrace_ops with K
 * entries and K attachments; BPF: the daemon times its registry on the test
 * module's functions, as one attachment and as K). Options: grid_opts()
 * (bench_ops.c), the parser bench ops shares.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/util.h"
#include "bench.h"

static const char *const attach_modes[] = {
	"kmod-callops", "kmod-direct", "kmod-kprobe", "kmod-kprobe-int3",
	"fentry", "kprobe", "kprobe-multi",
};

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
				series_add(&att,
					   jint(r, one ? "one_attach_ns" : "sep_attach_ns", 0) /
						   1e3);
				series_add(&det,
					   jint(r, one ? "one_detach_ns" : "sep_detach_ns", 0) /
						   1e3);
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
			point_status(b, p,
				     ret == -(int)PROTO_E_UNAVAILABLE ? "unavailable" : "error",
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

static void attach_table(struct bench *b, FILE *f)
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
		fprintf(f,
			"all: one kmod-callops ftrace_ops with an empty filter, every function in "
			"available_filter_functions (K)\n");
}

static int attach_svg(struct bench *b, FILE *f)
{
	struct svg_line at[16] = {}, dt[16] = {};
	size_t i, n = jlen(b->points);
	int nl = 0, k;
	char *names[16] = {};

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");
		char name[64];
		double ya = point_stat(p, "attach_us", "median"),
		       yd = point_stat(p, "detach_us", "median");

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

static int bench_attach(struct bench *b, int argc, char **argv)
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

const struct bench_suite bench_suite_attach = {
	.name = "attach",
	.help = "time to attach and detach K functions per mode\n"
		"              -k, --funcs=LIST       K values\n"
		"                  --modes=LIST       modes\n"
		"                  --all              + every traceable function (kmod-callops)\n",
	.run = bench_attach,
	.table = attach_table,
	.svg = attach_svg,
	.in_report = true,
};
