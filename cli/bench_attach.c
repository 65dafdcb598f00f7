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
	/* --modes only (the batching modes of --kernel-funcs' default) */
	"fentry-multi", "kprobe-session",
};
#define ATTACH_MODES_DEFAULT	7	/* the test module's curve: the first seven */
/* --kernel-funcs' default: the modes that hook K functions in one kernel update */
static const char *const kernel_modes[] = {
	"kprobe-multi", "kmod-callops", "kmod-direct", "fentry-multi",
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

/* The per-repetition values of a kernel point, from the daemon's reply. */
struct kernel_series {
	struct series att, det, att_user, att_sys, det_user, det_sys, own, rss, per_fn;
};

static void kernel_add(struct kernel_series *s, json_object *r, long long hooked)
{
	double wall = (double)jint(r, "attach_ns", 0), user = (double)jint(r, "attach_user_ns", 0);
	long long rss0 = jint(r, "rss_before_kb", 0), rss1 = jint(r, "rss_attached_kb", 0);

	series_add(&s->att, wall / 1e3);
	series_add(&s->det, (double)jint(r, "detach_ns", 0) / 1e3);
	series_add(&s->att_user, user / 1e3);
	series_add(&s->att_sys, (double)jint(r, "attach_sys_ns", 0) / 1e3);
	series_add(&s->det_user, (double)jint(r, "detach_user_ns", 0) / 1e3);
	series_add(&s->det_sys, (double)jint(r, "detach_sys_ns", 0) / 1e3);
	series_add(&s->own, wall > 0 ? 100.0 * user / wall : 0);
	series_add(&s->rss, (double)rss1);
	series_add(&s->per_fn, hooked ? (double)(rss1 - rss0) * 1024.0 / (double)hooked : 0);
}

/*
 * --kernel-funcs: one attachment of the first K of the kernel's traceable
 * functions the daemon would hook (K = 0: all of them, attach '*'), in a
 * batching mode. The count behind the point: the same number of functions
 * hooked every run, K or (all, or a mode that refuses some of the K by
 * their BTF) what the first run hooked, then the label funcs; the names the
 * daemon or the kernel skipped among those it took are a label. Values: wall time, the daemon's CPU (user:
 * tracerd's own code; sys: the kernel's, in its syscalls) and its VmRSS.
 */
static void kernel_point(struct bench *b, const char *mode, long long k)
{
	struct kernel_series s = {};
	json_object *p, *args, *r;
	char key[96], msg[512];
	long long hooked = -1, h, skipped = 0, runs = 0;
	int i, ret;

	if (k)
		snprintf(key, sizeof(key), "%s/kernel/K%lld", mode, k);
	else
		snprintf(key, sizeof(key), "%s/kernel/all", mode);
	p = bench_point(b, key);
	point_label(p, "mode", mode);
	point_label(p, "how", "kernel");
	if (k)
		point_label_int(p, "funcs", k);
	for (i = -b->warmup; i < b->reps; i++) {
		bench_progress(b, "%s: %s", key, i < 0 ? "warm-up" : "measuring");
		args = mode_args(mode);
		json_object_object_add(args, "funcs", json_object_new_int64(k));
		json_object_object_add(args, "kernel", json_object_new_boolean(1));
		ret = bench_call(b, "attach", args, &r, msg, sizeof(msg));
		if (ret) {
			point_status(b, p, ret == -(int)PROTO_E_UNAVAILABLE ? "unavailable" : "error",
				     "%s", msg);
			return;
		}
		h = jint(r, "functions", -1);
		skipped = jint(r, "skipped", 0);
		/* the first run's count, then the same: K, or fewer where the mode
		 * refuses functions of the K by their own rules (fentry-multi: no
		 * BTF, a trampoline cannot take it; the reasons in the reply) */
		if (hooked < 0 && (!k || (h >= 1 && h <= k)))
			hooked = h;
		if (h != hooked || h < 1) {
			point_count(p, "functions", hooked, h);
			point_status(b, p, "error", "%lld of %lld functions hooked (%lld skipped)",
				     h, hooked > 0 ? hooked : k, skipped);
			json_object_put(r);
			return;
		}
		if (!k)
			point_label_int(p, "traceable", jint(r, "traceable", 0));
		if (i >= 0) {
			kernel_add(&s, r, h);
			runs++;
		}
		json_object_put(r);
	}
	if (!k || hooked < k)
		point_label_int(p, "funcs", hooked);	/* what was hooked of the K */
	point_label_int(p, "skipped", skipped);
	point_count(p, "functions", runs * hooked, runs * hooked);
	point_value(p, "attach_us", "us", &s.att);
	point_value(p, "detach_us", "us", &s.det);
	point_value(p, "attach_user_us", "us", &s.att_user);
	point_value(p, "attach_sys_us", "us", &s.att_sys);
	point_value(p, "detach_user_us", "us", &s.det_user);
	point_value(p, "detach_sys_us", "us", &s.det_sys);
	point_value(p, "attach_own_pct", "%", &s.own);
	point_value(p, "rss_kb", "kB", &s.rss);
	point_value(p, "rss_per_function_b", "B", &s.per_fn);
}

/*
 * --peers: bpftrace's kprobe:* (one kprobe.multi link of every function it
 * lists) on the same boot, beside kprobe-multi's all point. Unavailable
 * (with bpftrace's message) when it is not installed or refuses.
 */
static void kernel_peer_point(struct bench *b)
{
	struct series att = {}, det = {};
	long long probes = -1, funcs = -1, runs = 0;
	double a, d;
	json_object *p;
	char msg[512];
	int i, ret;

	p = bench_point(b, "bpftrace-kprobe/kernel/all");
	point_label(p, "mode", "bpftrace-kprobe");
	point_label(p, "how", "kernel");
	point_label(p, "peer", "bpftrace");
	for (i = -b->warmup; i < b->reps; i++) {
		bench_progress(b, "bpftrace kprobe:*: %s", i < 0 ? "warm-up" : "measuring");
		ret = attach_peer_bpftrace("*", &a, &d, &probes, &funcs, msg, sizeof(msg));
		if (ret) {
			point_status(b, p, "unavailable", "bpftrace kprobe:*: %s", msg);
			return;
		}
		if (i >= 0) {
			series_add(&att, a * 1e3);
			series_add(&det, d * 1e3);
			runs++;
		}
	}
	/* funcs: what ftrace hooked while it was attached (enabled_functions,
	 * nothing of tracerd's then); probes: bpftrace's own count */
	if (funcs > 0)
		point_label_int(p, "funcs", funcs);
	if (probes > 0)
		point_label_int(p, "probes", probes);
	point_count(p, "runs", runs, runs);
	point_value(p, "attach_us", "us", &att);
	point_value(p, "detach_us", "us", &det);
}

/* The median of key's value, NAN unless measured. */
static double kmed(struct bench *b, const char *key, const char *value)
{
	return point_median(b->doc, key, value);
}

/* "0.42x" of a / b, or "-" */
static const char *ratio(char *buf, size_t len, double a, double b)
{
	if (isnan(a) || isnan(b) || b <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2fx", a / b);
	return buf;
}

/*
 * a / b at the largest K both measured (kprobe-multi stops at its free
 * slots, short of all): the kmod-callops <= kprobe-multi there.
 */
static void kernel_common_k(struct bench *b, FILE *f, const char *a, const char *bm)
{
	size_t i, n = jlen(b->points);
	long long best = 0, k;
	char ka[96], kb[96], r1[32], r2[32];

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");
		const char *key = jstr(p, "key", "");

		k = jint(l, "funcs", 0);
		if (strncmp(key, a, strlen(a)) || strcmp(jstr(l, "how", ""), "kernel") ||
		    strstr(key, "/all") || k <= best)
			continue;
		snprintf(kb, sizeof(kb), "%s/kernel/K%lld", bm, k);
		if (!isnan(kmed(b, key, "attach_us")) && !isnan(kmed(b, kb, "attach_us")))
			best = k;
	}
	if (!best)
		return;
	snprintf(ka, sizeof(ka), "%s/kernel/K%lld", a, best);
	snprintf(kb, sizeof(kb), "%s/kernel/K%lld", bm, best);
	fprintf(f, "at K = %lld, the largest both measured:\n  %-14s / %-16s %7s %7s\n", best,
		a, bm, ratio(r1, sizeof(r1), kmed(b, ka, "attach_us"), kmed(b, kb, "attach_us")),
		ratio(r2, sizeof(r2), kmed(b, ka, "detach_us"), kmed(b, kb, "detach_us")));
}

/* --kernel-funcs: the curve, per mode, then the ratios at all. */
static void kernel_table(struct bench *b, FILE *f)
{
	static const char *const pairs[][2] = {
		{ "kprobe-multi", "bpftrace-kprobe" }, { "kmod-callops", "kprobe-multi" },
		{ "kmod-callops", "bpftrace-kprobe" }, { "kmod-direct", "bpftrace-kprobe" },
		{ "fentry-multi", "bpftrace-kprobe" },
	};
	size_t i, n = jlen(b->points);
	char ka[96], kb[96], r1[32], r2[32];
	bool header = false;

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");
		const char *key = jstr(p, "key", "");
		bool all = strstr(key, "/all") != NULL;

		if (strcmp(jstr(l, "how", ""), "kernel"))
			continue;
		if (!header)
			fprintf(f, "\nkernel functions: one attachment of the first K traceable "
				"functions (all: attach '*'), median of %d runs; CPU: the daemon's "
				"(user: tracerd's own code, sys: the kernel in its syscalls)\n"
				"%-16s %6s %6s %5s %9s %9s %8s %8s %6s %8s %8s %7s %6s\n", b->reps,
				"MODE", "K", "HOOKED", "SKIP", "attach_s", "detach_s", "a_user_s",
				"a_sys_s", "own_%", "d_user_s", "d_sys_s", "RSS_MB", "B/fn");
		header = true;
		if (all)
			snprintf(ka, sizeof(ka), "all");
		else
			snprintf(ka, sizeof(ka), "%lld", jint(l, "funcs", 0));
		fprintf(f, "%-16s %6s ", jtty(l, "mode", "?"), ka);
		if (strcmp(jstr(p, "status", ""), "ok")) {
			fprintf(f, "%s: %s\n", jtty(p, "status", "?"), jtty(p, "reason", ""));
			continue;
		}
		fprintf(f, "%6lld %5lld ", jint(l, "funcs", 0), jint(l, "skipped", 0));
		fprintf(f, "%9.3f %9.3f ", point_stat(p, "attach_us", "median") / 1e6,
			point_stat(p, "detach_us", "median") / 1e6);
		if (jget(l, "peer")) {
			fprintf(f, "(its start to attached, SIGINT to exit)\n");
			continue;
		}
		/* B per function: the growth of VmRSS, noise below a thousand */
		if (jint(l, "funcs", 0) >= 1000)
			snprintf(r1, sizeof(r1), "%.0f",
				 point_stat(p, "rss_per_function_b", "median"));
		else
			snprintf(r1, sizeof(r1), "-");
		fprintf(f, "%8.3f %8.3f %6.1f %8.3f %8.3f %7.1f %6s\n",
			point_stat(p, "attach_user_us", "median") / 1e6,
			point_stat(p, "attach_sys_us", "median") / 1e6,
			point_stat(p, "attach_own_pct", "median"),
			point_stat(p, "detach_user_us", "median") / 1e6,
			point_stat(p, "detach_sys_us", "median") / 1e6,
			point_stat(p, "rss_kb", "median") / 1024, r1);
	}
	if (!header)
		return;
	fprintf(f, "at all (attach, detach; < 1: the first is faster; issue #34's targets: "
		"kprobe-multi <= 0.5x bpftrace's kprobe:*, kmod-callops <= 1x kprobe-multi):\n");
	for (i = 0; i < ARRAY_SIZE(pairs); i++) {
		snprintf(ka, sizeof(ka), "%s/kernel/all", pairs[i][0]);
		snprintf(kb, sizeof(kb), "%s/kernel/all", pairs[i][1]);
		if (!bench_find_point(b->doc, ka) || !bench_find_point(b->doc, kb))
			continue;
		fprintf(f, "  %-14s / %-16s %7s %7s\n", pairs[i][0], pairs[i][1],
			ratio(r1, sizeof(r1), kmed(b, ka, "attach_us"), kmed(b, kb, "attach_us")),
			ratio(r2, sizeof(r2), kmed(b, ka, "detach_us"), kmed(b, kb, "detach_us")));
	}
	kernel_common_k(b, f, "kmod-callops", "kprobe-multi");
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

		if (!strcmp(jstr(l, "how", ""), "kernel"))
			continue;	/* kernel_table */
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
	kernel_table(b, f);
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
	for (i = 0; i < o.nks && o.kernel; i++)
		if (o.ks[i] < 1 || o.ks[i] > (1LL << 20)) {
			json_object_put(b->doc);
			json_object_put(b->info);
			return cli_error(b->cli, EXIT_USAGE, "usage",
					 "bench attach --kernel-funcs: K must be 1..1048576 or all");
		}
	if (!o.kernel && !o.modes_set)
		o.nmodes = ATTACH_MODES_DEFAULT;
	if (o.kernel && !o.modes_set)
		for (o.nmodes = 0; o.nmodes < (int)ARRAY_SIZE(kernel_modes); o.nmodes++)
			o.modes[o.nmodes] = kernel_modes[o.nmodes];
	for (i = 0; i < o.nks && !o.kernel; i++)
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
	json_object_object_add(b->options, "kernel_funcs", json_object_new_boolean(o.kernel));
	json_object_object_add(b->options, "kernel_all", json_object_new_boolean(o.k_all));
	json_object_object_add(b->options, "peers", json_object_new_boolean(o.peers));
	for (m = 0; m < o.nmodes; m++) {
		bool unavailable = false;

		for (i = 0; i < o.nks + o.k_all && o.kernel; i++)
			kernel_point(b, o.modes[m], i < o.nks ? o.ks[i] : 0);
		for (h = 0; h < 2 && !o.kernel; h++)
			for (i = 0; i < o.nks; i++)
				attach_point(b, o.modes[m], hows[h], o.ks[i], &unavailable);
	}
	if (o.peers)
		kernel_peer_point(b);
	if (o.all)
		attach_all_point(b);
	return bench_end(b, attach_table, attach_svg);
}

const struct bench_suite bench_suite_attach = {
	.name = "attach",
	.help = "time to attach and detach K functions per mode\n"
		"              -k, --funcs=LIST       K values\n"
		"                  --modes=LIST       modes\n"
		"                  --all              + every traceable function (kmod-callops)\n"
		"                  --kernel-funcs     K of the kernel's traceable functions, one\n"
		"                                     attachment per batching mode (K may be all)\n"
		"                  --peers            + bpftrace's kprobe:* (with --kernel-funcs)\n",
	.run = bench_attach,
	.table = attach_table,
	.svg = attach_svg,
	.in_report = true,
};
