// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench trigger: the BPF selftests' `bench trig-*` (seed 004 §2, docs/origins.md)
 * for every path. P producer threads of this process call getpgid() N
 * times in all, first with nothing attached (the baseline of this run),
 * then with each mode and variant hooked on the syscall's kernel handler,
 * filtered to this process. Every repetition checks that the hook counted
 * exactly N calls (and N returns for "latency"), else the point is an
 * error. The overheads go to the daemon, which keeps them for the metrics.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "../lib/modes.h"
#include "../lib/util.h"
#include "bench.h"

static const char *const all_variants[] = { "count", "latency", "empty", "stacks", "args" };

/* A BPF function mode of TRACERD_MODES named name (its table name), or NULL:
 * modes added to the table are benchmarked by name without a row here. */
static const char *table_mode(const char *name)
{
	int m = tracerd_mode_parse(name);

	if (m <= 0 || !tracerd_mode_is_function(m) || tracerd_mode_is_kmod(m))
		return NULL;
	return tracerd_mode_name(m);
}

/* the bench's hooks (bench_hooks.c), then every other BPF function mode of the table */
static int known_modes(const char **out)
{
	int m, n = bench_hooks(out, BENCH_HOOKS_ALL);

	for (m = 1; m < TRACERD_MODE_NR; m++)
		if (table_mode(tracerd_mode_name(m)) && !bench_hook_listed(tracerd_mode_name(m)))
			out[n++] = tracerd_mode_name(m);
	return n;
}

struct trig_opts {
	unsigned long long calls;
	int producers;
	const char *modes[16];
	int nmodes;
	const char *variants[5];
	int nvariants;
	bool peers;		/* --peers: reference programs and bpftrace too */
	bool kernel;		/* --kernel-funcs: the hot function with K others hooked */
	long long ks[16];	/* -k: those K (0: none) */
	int nks;
	bool k_all;		/* -k ...,all: and every traceable function */
	const char *ks_arg;	/* -k as given */
	const char *kmode;	/* --kernel-mode: the others' mode (NULL: per hot mode) */
	bool with_hot;		/* --with-hot: the others hook the hot function too */
	bool modes_set, variants_set;	/* --modes, --variants given */
};

/* --kernel-funcs: the K other functions hooked while a hot point is measured */
struct held {
	const char *mode;	/* their mode */
	long long k;		/* K (all: 0) */
	bool all;
	bool hot;		/* they hook the hot function too (not counted in K) */
	long long handle;	/* their attachment (0: none held) */
	long long hooked;	/* the functions it hooks */
	long long skipped;	/* the names it passed over among those it took */
	const char *failed;	/* the hold's status when it failed ("unavailable", "error") */
	char msg[512];		/* and why */
};

struct producer {
	pthread_t th;
	pthread_barrier_t *start;
	unsigned long long n;
	double t_start, t_end;	/* the thread's own clock readings */
};

static void *producer_fn(void *arg)
{
	struct producer *p = arg;
	unsigned long long i;

	pthread_barrier_wait(p->start);
	p->t_start = now_s();
	for (i = 0; i < p->n; i++)
		syscall(SYS_getpgid, 0);
	p->t_end = now_s();
	return NULL;
}

/*
 * Seconds for n getpgid() calls spread over np threads: from the first
 * thread's start to the last one's end, each read by the thread itself (the
 * main thread may run late after the barrier, when the loops have started).
 */
static double run_loop(unsigned long long n, int np)
{
	struct producer p[64];
	pthread_barrier_t start;
	double t0, t1;
	int i;

	if (np == 1) {
		t0 = now_s();
		for (unsigned long long k = 0; k < n; k++)
			syscall(SYS_getpgid, 0);
		return now_s() - t0;
	}
	pthread_barrier_init(&start, NULL, np + 1);
	for (i = 0; i < np; i++) {
		p[i].start = &start;
		p[i].n = n / np + (i < (int)(n % np));
		pthread_create(&p[i].th, NULL, producer_fn, &p[i]);
	}
	pthread_barrier_wait(&start);
	for (i = 0; i < np; i++)
		pthread_join(p[i].th, NULL);
	pthread_barrier_destroy(&start);
	t0 = p[0].t_start;
	t1 = p[0].t_end;
	for (i = 1; i < np; i++) {
		t0 = p[i].t_start < t0 ? p[i].t_start : t0;
		t1 = p[i].t_end > t1 ? p[i].t_end : t1;
	}
	return t1 - t0;
}

/* A hook's counts: calls, returns timed, calls whose stack was kept (-1
 * unless the stacks variant), events recorded and dropped (-1 unless the
 * args variant) */
struct hook_counts {
	long long calls, lat, stk, events, dropped;
};

static int read_counts(struct bench *b, long long handle, struct hook_counts *c, char *msg,
		       size_t msglen)
{
	json_object *args = json_object_new_object(), *r, *rec;
	int ret;

	json_object_object_add(args, "handle", json_object_new_int64(handle));
	ret = bench_call(b, "read", args, &r, msg, msglen);
	if (ret)
		return ret;
	c->calls = jint(r, "calls", -1);
	c->lat = jint(r, "latency_samples", -1);
	c->stk = jint(r, "stack_calls", -1);
	rec = jget(r, "recording");
	c->events = rec ? jint(rec, "events", -1) : -1;
	c->dropped = rec ? jint(rec, "dropped", -1) : -1;
	if (rec && jstr(rec, "error", NULL)) {
		snprintf(msg, msglen, "the recording stopped: %s", tty_str(jstr(rec, "error", "")));
		ret = -EIO;
	}
	json_object_put(r);
	return ret;
}

#define DRAIN_S	30	/* the args variant: the daemon drains its ring within this */

/*
 * The args variant: wait until the daemon has recorded or counted as
 * dropped every call of the run (c0 before it, c1 after: updated). The
 * recorder drains its ring while the loop runs; what is left after it is
 * not in the run's time. -ETIMEDOUT (msg set) when calls went missing.
 */
static int wait_recorded(struct bench *b, long long handle, const struct hook_counts *c0,
			 struct hook_counts *c1, long long n, char *msg, size_t msglen)
{
	int ms, ret;

	for (ms = 0;; ms += 50) {
		if (c1->events - c0->events + c1->dropped - c0->dropped == n)
			return 0;
		if (ms >= DRAIN_S * 1000)
			break;
		poll(NULL, 0, 50);
		ret = read_counts(b, handle, c1, msg, msglen);
		if (ret)
			return ret;
	}
	snprintf(msg, msglen, "recorded %lld + dropped %lld of %lld calls %d s after the run",
		 c1->events - c0->events, c1->dropped - c0->dropped, n, DRAIN_S);
	return -ETIMEDOUT;
}

/* Measure one point: reps loops, each checked against the hook's count. */
static void measure(struct bench *b, const struct trig_opts *o, json_object *p,
		    long long handle, bool latency, double base_ns)
{
	struct series mps = {}, ns = {}, ovh = {}, drop = {};
	struct hook_counts c0 = {}, c1 = {};
	long long n = (long long)o->calls;
	char msg[512];
	double dt;
	int i;

	for (i = 0; i < b->warmup; i++)
		run_loop(o->calls, o->producers);
	/* the warm-up's events drain before the first run's counts are read */
	if (handle && read_counts(b, handle, &c1, msg, sizeof(msg)))
		goto fail;
	if (handle && c1.events >= 0) {
		c0 = c1;
		c0.events = c0.dropped = 0;
		if (wait_recorded(b, handle, &c0, &c1, c1.calls, msg, sizeof(msg)))
			goto fail;
	}
	for (i = 0; i < b->reps; i++) {
		bench_progress(b, "%s: run %d/%d", json_object_get_string(jget(p, "key")), i + 1,
			       b->reps);
		if (handle && read_counts(b, handle, &c0, msg, sizeof(msg)))
			goto fail;
		dt = run_loop(o->calls, o->producers);
		if (handle && read_counts(b, handle, &c1, msg, sizeof(msg)))
			goto fail;
		if (handle && (c1.calls - c0.calls != n || (latency && c1.lat - c0.lat != n))) {
			point_count(p, "calls", n, c1.calls - c0.calls);
			if (latency)
				point_count(p, "returns", n, c1.lat - c0.lat);
			point_status(b, p, "error", "run %d: the hook counted %lld calls%s%lld "
				     "returns of %lld made", i + 1, c1.calls - c0.calls,
				     latency ? " and " : "", latency ? c1.lat - c0.lat : 0, n);
			return;
		}
		/* the stacks variant: each call's stack kept, none dropped */
		if (handle && c1.stk >= 0 && c1.stk - c0.stk != n) {
			point_count(p, "stacks", n, c1.stk - c0.stk);
			point_status(b, p, "error", "run %d: the hook kept the stacks of %lld "
				     "calls of %lld made", i + 1, c1.stk - c0.stk, n);
			return;
		}
		/* the args variant: each call recorded or counted as dropped */
		if (handle && c1.events >= 0) {
			if (wait_recorded(b, handle, &c0, &c1, n, msg, sizeof(msg))) {
				point_count(p, "events", n,
					    c1.events - c0.events + c1.dropped - c0.dropped);
				point_status(b, p, "error", "run %d: %s", i + 1, msg);
				return;
			}
			series_add(&drop, 100.0 * (double)(c1.dropped - c0.dropped) / (double)n);
		}
		series_add(&mps, n / dt / 1e6);
		series_add(&ns, dt * 1e9 * o->producers / n);
		if (!isnan(base_ns))
			series_add(&ovh, dt * 1e9 * o->producers / n - base_ns);
	}
	if (handle) {
		point_count(p, "calls", n * b->reps, n * b->reps);
		if (latency)
			point_count(p, "returns", n * b->reps, n * b->reps);
		if (c1.stk >= 0)
			point_count(p, "stacks", n * b->reps, n * b->reps);
		if (c1.events >= 0) {	/* recorded + dropped = calls */
			point_count(p, "events", n * b->reps, n * b->reps);
			point_value(p, "dropped_pct", "%", &drop);
		}
	}
	point_value(p, "mcalls_per_s", "M calls/s", &mps);
	point_value(p, "ns_per_call", "ns", &ns);
	if (ovh.n)
		point_value(p, "overhead_ns", "ns", &ovh);
	return;
fail:
	point_status(b, p, "error", "%s", msg);
}

/*
 * The baseline right before a point: on a busy (or emulated) machine the
 * speed drifts over a run, so each point's overhead is taken against the
 * untraced loop measured next to it, not only against the run's first one.
 */
static double local_base(struct bench *b, const struct trig_opts *o, json_object *p)
{
	struct series s = {};
	int i;

	for (i = 0; i < b->reps; i++)
		series_add(&s, run_loop(o->calls, o->producers) * 1e9 * o->producers / o->calls);
	point_value(p, "base_ns_per_call", "ns", &s);
	return series_median(&s);
}

static double peer_base(struct bench *b, const void *opts, json_object *p)
{
	return local_base(b, opts, p);
}

static long long peer_run(struct bench *b, const void *opts, json_object *p, bool latency,
			  double base_ns)
{
	const struct trig_opts *o = opts;

	measure(b, o, p, 0, latency, base_ns);
	return (long long)o->calls * (b->warmup + b->reps);
}

/*
 * A point's labels and counts for the functions held beside it (h): their
 * mode, their number, ftrace's hooked functions (enabled_functions: those
 * and the hot one, when the hot mode patches through ftrace). False (the
 * point's status set) when they could not be held.
 */
static bool held_point(struct bench *b, json_object *p, const char *mode, const struct held *h)
{
	point_label(p, "irrelevant_mode", h->mode);
	if (h->failed) {
		point_status(b, p, h->failed, "the %s others: %s", h->mode, h->msg);
		return false;
	}
	point_label_int(p, "irrelevant", h->hooked);
	point_label_int(p, "skipped", h->skipped);
	if (h->hot)
		point_label(p, "irrelevant_hot", "yes");
	/* a function carries one direct call: the others' and the hot one's */
	if (h->hot && !strcmp(h->mode, "kmod-direct") && !strcmp(mode, "kmod-direct")) {
		point_status(b, p, "unavailable", "kmod-direct: the others hook the hot "
			     "function with its one direct call (--with-hot)");
		return false;
	}
	point_count(p, "irrelevant", h->all ? h->hooked : h->k, h->hooked);
	if (!h->all && h->hooked != h->k) {
		point_status(b, p, "error", "%lld of %lld other functions hooked in %s (%lld "
			     "names skipped)", h->hooked, h->k, h->mode, h->skipped);
		return false;
	}
	return true;
}

static void trigger_point(struct bench *b, const struct trig_opts *o, const char *mode,
			  const char *variant, double base_ns, json_object *store,
			  const struct held *h)
{
	char key[160], msg[512], name[32];
	json_object *args = json_object_new_object(), *r, *p, *m, *mi;
	bool regs = strstr(mode, "+regs") != NULL;
	int ret;

	if (!h)
		snprintf(key, sizeof(key), "%s/%s", mode, variant);
	else if (h->all)
		snprintf(key, sizeof(key), "%s/%s/%s/all%s", mode, variant, h->mode,
			 h->hot ? "/hot" : "");
	else
		snprintf(key, sizeof(key), "%s/%s/%s/K%lld%s", mode, variant, h->mode, h->k,
			 h->hot ? "/hot" : "");
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(mode, "+"), mode);
	p = bench_point(b, key);
	point_label(p, "mode", mode);
	point_label(p, "variant", variant);
	if (h && !held_point(b, p, mode, h)) {
		json_object_put(args);
		return;
	}
	json_object_object_add(args, "mode", json_object_new_string(name));
	json_object_object_add(args, "variant", json_object_new_string(variant));
	json_object_object_add(args, "pid", json_object_new_int(getpid()));
	if (regs)
		json_object_object_add(args, "save_regs", json_object_new_boolean(1));
	mi = jget(jget(b->info, "modes"), name);
	if (!mi || jbool(mi, "available"))	/* before the hook: it would count these */
		base_ns = local_base(b, o, p);
	ret = bench_call(b, "hook", args, &r, msg, sizeof(msg));
	if (ret) {
		point_status(b, p, ret == -(int)PROTO_E_UNAVAILABLE ? "unavailable" : "error",
			     "%s", msg);
		return;
	}
	if (h)	/* the K others and the hot one, where the hot mode patches through ftrace */
		point_label_int(p, "enabled_functions", ftrace_enabled());
	measure(b, o, p, jint(r, "handle", 0), !strcmp(variant, "latency"), base_ns);
	args = json_object_new_object();
	json_object_object_add(args, "handle", json_object_new_int64(jint(r, "handle", 0)));
	json_object_put(r);
	if (bench_call(b, "unhook", args, &r, msg, sizeof(msg)))
		point_status(b, p, "error", "unhook: %s", msg);
	json_object_put(r);
	if (!h && !strcmp(jstr(p, "status", ""), "ok")) {
		if (!json_object_object_get_ex(store, mode, &m)) {
			m = json_object_new_object();
			json_object_object_add(store, mode, m);
		}
		json_object_object_add(m, variant, json_object_new_double(
			point_stat(p, "overhead_ns", "median")));
	}
}

/*
 * Does mode have this variant? kmod modes count with a C callback;
 * latency and stacks in the kmod modes themselves (latency: kmod-kprobe's
 * kretprobe, kmod-callops' fprobe, kmod-direct's trampoline; stacks: the
 * module's capture, which kmod-direct refuses, said as unavailable), not
 * in their variants; no empty. The empty program exists for the bench's
 * own hooks only.
 */
static bool variant_applies(const char *mode, const char *variant)
{
	if (bench_hook_is_kmod(mode) && strcmp(variant, "count") &&
	    ((strcmp(variant, "latency") && strcmp(variant, "stacks")) ||
	     bench_hook_counts_only(mode)))
		return false;
	return strcmp(variant, "empty") || bench_hook_listed(mode);
}

/* the modes that hook K functions in one kernel update (bench attach --kernel-funcs') */
static const char *const batch_modes[] = {
	"kmod-callops", "kmod-direct", "kprobe-multi", "fentry-multi", "kprobe-session",
};

/* The others' mode for hot mode: --kernel-mode, else its own when it
 * batches (kmod-callops+regs: kmod-callops), else kmod-callops. */
static const char *others_mode(const struct trig_opts *o, const char *hot)
{
	size_t i, n = strcspn(hot, "+");

	if (o->kmode)
		return o->kmode;
	for (i = 0; i < ARRAY_SIZE(batch_modes); i++)
		if (strlen(batch_modes[i]) == n && !strncmp(batch_modes[i], hot, n))
			return batch_modes[i];
	return batch_modes[0];
}

/* Hook h's K others (nothing for K = 0): the daemon's hold. */
static void hold_others(struct bench *b, struct held *h)
{
	json_object *args, *r;
	int ret;

	if (!h->k && !h->all && !h->hot)
		return;
	bench_progress(b, "holding %s others in %s", h->all ? "all" : "K", h->mode);
	args = json_object_new_object();
	json_object_object_add(args, "mode", json_object_new_string(h->mode));
	json_object_object_add(args, "funcs", json_object_new_int64(h->k));
	if (h->hot)
		json_object_object_add(args, "hot", json_object_new_boolean(1));
	if (h->all)
		json_object_object_add(args, "all", json_object_new_boolean(1));
	ret = bench_call(b, "hold", args, &r, h->msg, sizeof(h->msg));
	if (ret) {
		h->failed = ret == -(int)PROTO_E_UNAVAILABLE ? "unavailable" : "error";
		return;
	}
	h->handle = jint(r, "handle", 0);
	h->hooked = jint(r, "functions", -1) - h->hot;	/* the others: K */
	h->skipped = jint(r, "skipped", 0);
	json_object_put(r);
}

static void release_others(struct bench *b, struct held *h)
{
	json_object *args, *r = NULL;
	char msg[512];

	if (!h->handle)
		return;
	args = json_object_new_object();
	json_object_object_add(args, "handle", json_object_new_int64(h->handle));
	if (bench_call(b, "unhook", args, &r, msg, sizeof(msg)))
		fprintf(stderr, "tracectl: the %s others stay hooked: %s\n", h->mode,
			tty_str(msg));
	json_object_put(r);
}

/*
 * --kernel-funcs: per mode of the others, per K, the K others held while
 * every hot mode of that group is measured as trigger measures it: the
 * hot function's cost above the untraced loop with the others in place.
 */
static void kernel_points(struct bench *b, const struct trig_opts *o, double base)
{
	const char *groups[16];
	int ng = 0, g, i, j;

	for (i = 0; i < o->nmodes; i++) {
		for (g = 0; g < ng && strcmp(groups[g], others_mode(o, o->modes[i])); g++)
			;
		if (g == ng)
			groups[ng++] = others_mode(o, o->modes[i]);
	}
	for (g = 0; g < ng; g++)
		for (i = 0; i < o->nks + o->k_all; i++) {
			struct held h = { .mode = groups[g], .all = i == o->nks,
					  .k = i < o->nks ? o->ks[i] : 0, .hot = o->with_hot };

			hold_others(b, &h);
			for (j = 0; j < o->nmodes * o->nvariants; j++) {
				const char *m = o->modes[j / o->nvariants],
					   *v = o->variants[j % o->nvariants];

				if (!strcmp(others_mode(o, m), groups[g]) && variant_applies(m, v))
					trigger_point(b, o, m, v, base, NULL, &h);
			}
			release_others(b, &h);
		}
}

static int trigger_svg(struct bench *b, FILE *f)
{
	return svg_point_bars(b, f, "trigger: overhead per call, by mode and variant",
			      "overhead_ns", "overhead, ns per call (median)");
}

/* A measured point's "ns/call [min - max]", overhead and (min-min) cells, the line ended. */
static void overhead_cells(FILE *f, json_object *p, double base_min)
{
	char cell[64];

	snprintf(cell, sizeof(cell), "%.0f [%.0f - %.0f]", point_stat(p, "ns_per_call", "median"),
		 point_stat(p, "ns_per_call", "min"), point_stat(p, "ns_per_call", "max"));
	fprintf(f, "%-26s ", cell);
	if (isnan(point_stat(p, "overhead_ns", "median")))
		fprintf(f, "-\n");
	else	/* noise only adds time: min - min is the robust estimate on a busy host */
		fprintf(f, "%+-9.0f %+.0f\n", point_stat(p, "overhead_ns", "median"),
			point_stat(p, "ns_per_call", "min") -
			(isnan(point_stat(p, "base_ns_per_call", "min")) ? base_min :
			 point_stat(p, "base_ns_per_call", "min")));
}

/* a point not measured: its status and why, the line ended; false when measured */
static bool not_measured(FILE *f, json_object *p)
{
	if (!strcmp(jstr(p, "status", ""), "ok"))
		return false;
	fprintf(f, "%s: %s\n", jtty(p, "status", "?"), jtty(p, "reason", ""));
	return true;
}

/* --kernel-funcs: the hot function's points with K others held */
static void kernel_table(struct bench *b, FILE *f, double base_min)
{
	size_t i, n = jlen(b->points);
	bool header = false;
	const char *kk;
	char k[32];

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");

		if (!jget(l, "irrelevant_mode"))
			continue;
		if (!header)
			fprintf(f, "\nthe hot function with K other kernel functions hooked (count "
				"only, every process; under icount, ns are instructions)\n"
				"%-18s %-8s %-14s %6s %9s %-26s %-9s %s\n", "MODE", "VARIANT",
				"OTHERS", "K", "base ns", "ns/call", "overhead", "(min-min)");
		header = true;
		kk = strstr(jstr(p, "key", ""), "/K");	/* K asked: an error hooked fewer */
		snprintf(k, sizeof(k), "%.*s", kk ? (int)strcspn(kk + 2, "/") : 3,
			 kk ? kk + 2 : "all");
		fprintf(f, "%-18s %-8s %-14s %6s ", jtty(l, "mode", "?"), jtty(l, "variant", "-"),
			jtty(l, "irrelevant_mode", "?"), k);
		if (not_measured(f, p))
			continue;
		fprintf(f, "%9.0f ", point_stat(p, "base_ns_per_call", "median"));
		overhead_cells(f, p, base_min);
	}
	if (header)
		fprintf(f, "base: the untraced loop with the K others hooked; K all: the "
			"functions hooked\n");
}

static void trigger_table(struct bench *b, FILE *f)
{
	json_object *o = b->options;
	size_t i, n = jlen(b->points);
	double base_min;
	char cell[64];

	fprintf(f, "trigger: %lld x getpgid() (%s) per run, %lld producer%s, %d runs after %d "
		"warm-up; median [min - max]\n", jint(o, "calls", 0),
		jtty(o, "function", "?"), jint(o, "producers", 1),
		jint(o, "producers", 1) == 1 ? "" : "s", b->reps, b->warmup);
	fprintf(f, "%-18s %-8s %-26s %-26s %-9s %s\n", "MODE", "VARIANT", "M calls/s", "ns/call",
		"overhead", "(min-min)");
	base_min = n ? point_stat(json_object_array_get_idx(b->points, 0), "ns_per_call", "min") :
		NAN;
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");

		if (jget(l, "irrelevant_mode"))
			continue;	/* kernel_table */
		fprintf(f, "%-18s %-8s ", jtty(l, "mode", "?"), jtty(l, "variant", "-"));
		if (not_measured(f, p))
			continue;
		snprintf(cell, sizeof(cell), "%.3f [%.3f - %.3f]",
			 point_stat(p, "mcalls_per_s", "median"),
			 point_stat(p, "mcalls_per_s", "min"),
			 point_stat(p, "mcalls_per_s", "max"));
		fprintf(f, "%-26s ", cell);
		overhead_cells(f, p, base_min);
	}
	fprintf(f, "overhead: median ns/call minus the median of the untraced loop measured "
		"right before the point; (min-min): fastest run minus fastest untraced run\n");
	kernel_table(b, f, base_min);
	peers_table(b->doc, f, NULL);
}

static int trigger_opt(struct bench *b, int c, const char *arg, void *ctx)
{
	const char *known[BENCH_MAX_HOOKS + TRACERD_MODE_NR];
	struct trig_opts *o = ctx;
	unsigned long long v;

	switch (c) {
	case 'n':
		if (cli_number(b->cli, "-n (calls)", arg, 1, 1000000000ULL, &v))
			return EXIT_USAGE;
		o->calls = v;
		return 0;
	case 'p':
		if (cli_number(b->cli, "-p (producers)", arg, 1, 64, &v))
			return EXIT_USAGE;
		o->producers = (int)v;
		return 0;
	case 'm':
		o->modes_set = true;
		o->nmodes = bench_pick(b, "mode", arg, known, known_modes(known), o->modes, 16);
		return o->nmodes < 0 ? -o->nmodes : 0;
	case 'P':
		o->peers = true;
		return 0;
	case 'K':
		o->kernel = true;
		return 0;
	case 'k':
		o->ks_arg = arg;
		return 0;
	case 'H':
		o->with_hot = true;
		return 0;
	case 'M':
		if (bench_pick(b, "mode", arg, batch_modes, ARRAY_SIZE(batch_modes), &o->kmode, 1) <
		    0)
			return EXIT_USAGE;
		return 0;
	case 'V':
		o->variants_set = true;
		o->nvariants = bench_pick(b, "variant", arg, all_variants, ARRAY_SIZE(all_variants),
					  o->variants, (int)ARRAY_SIZE(o->variants));
		return o->nvariants < 0 ? -o->nvariants : 0;
	default:
		return BENCH_OPT_COMMON;
	}
}

static int trigger_opts(struct bench *b, int argc, char **argv, struct trig_opts *o)
{
	static const struct option opts[] = {
		BENCH_COMMON_OPTS,
		{ "calls", required_argument, NULL, 'n' },
		{ "producers", required_argument, NULL, 'p' },
		{ "modes", required_argument, NULL, 'm' },
		{ "variants", required_argument, NULL, 'V' },
		{ "peers", no_argument, NULL, 'P' },
		{ "kernel-funcs", no_argument, NULL, 'K' },
		{ "funcs", required_argument, NULL, 'k' },
		{ "kernel-mode", required_argument, NULL, 'M' },
		{ "with-hot", no_argument, NULL, 'H' },
		{ 0 }
	};
	int ret = bench_getopt(b, argc, argv, "n:p:k:", opts, trigger_opt, o);

	if (ret)
		return ret;
	if (o->kernel)
		o->nks = parse_k_list(o->ks_arg ? o->ks_arg : b->profile_ci ? "0,100" :
				      "0,100,1000,10000,all", o->ks, 16, &o->k_all);
	/* --kernel-funcs: the three paths (call ops, direct, fprobe), count */
	if (o->kernel && !o->modes_set)
		for (o->nmodes = 0; o->nmodes < 3; o->nmodes++)
			o->modes[o->nmodes] = batch_modes[o->nmodes];
	if (o->kernel && !o->variants_set)
		o->nvariants = 1;
	if (o->nks < 0 || ((o->ks_arg || o->kmode || o->with_hot) && !o->kernel))
		return cli_error(b->cli, EXIT_USAGE, "usage", "bench trigger: -k, --kernel-mode "
				 "and --with-hot go with --kernel-funcs; -k is a comma-separated "
				 "list of numbers (at most 16), and all, last");
	if (!o->calls)
		o->calls = b->profile_ci ? 20000 : 1000000;
	return 0;
}

static int bench_trigger(struct bench *b, int argc, char **argv)
{
	struct trig_opts o = { .producers = 1 };
	json_object *p, *store, *modes = json_object_new_array(), *vars = json_object_new_array();
	json_object *r = NULL, *args;
	char msg[512];
	double base;
	int i, j, ret;

	o.nmodes = bench_hooks(o.modes, BENCH_HOOKS_ALL);
	for (i = 0; i < 3; i++)
		o.variants[o.nvariants++] = all_variants[i];
	ret = trigger_opts(b, argc, argv, &o);
	if (!ret)
		ret = bench_begin(b);
	if (ret) {
		json_object_put(modes);
		json_object_put(vars);
		return ret;
	}
	for (i = 0; i < o.nmodes; i++)
		json_object_array_add(modes, json_object_new_string(o.modes[i]));
	for (i = 0; i < o.nvariants; i++)
		json_object_array_add(vars, json_object_new_string(o.variants[i]));
	json_object_object_add(b->options, "calls", json_object_new_int64((long long)o.calls));
	json_object_object_add(b->options, "producers", json_object_new_int(o.producers));
	json_object_object_add(b->options, "function", json_object_new_string(
		jstr(b->info, "trigger_function", "?")));
	json_object_object_add(b->options, "modes", modes);
	json_object_object_add(b->options, "variants", vars);
	json_object_object_add(b->options, "peers", json_object_new_boolean(o.peers));
	if (o.kernel) {
		json_object_object_add(b->options, "irrelevant", int_array(o.ks, o.nks));
		json_object_object_add(b->options, "kernel_all", json_object_new_boolean(o.k_all));
		json_object_object_add(b->options, "with_hot", json_object_new_boolean(o.with_hot));
		if (o.kmode)
			json_object_object_add(b->options, "irrelevant_mode",
					       json_object_new_string(o.kmode));
	}
	args = json_object_new_object();
	json_object_object_add(args, "all", json_object_new_boolean(1));
	bench_call(b, "unhook", args, &r, msg, sizeof(msg));
	json_object_put(r);

	p = bench_point(b, "none");
	point_label(p, "mode", "none");
	point_label(p, "variant", "-");
	measure(b, &o, p, 0, false, NAN);
	base = point_stat(p, "ns_per_call", "median");
	store = json_object_new_object();
	for (i = 0; i < o.nmodes && !o.kernel; i++)
		for (j = 0; j < o.nvariants; j++)
			if (variant_applies(o.modes[i], o.variants[j]))
				trigger_point(b, &o, o.modes[i], o.variants[j], base, store, NULL);
	if (o.kernel)
		kernel_points(b, &o, base);
	if (o.peers && !o.kernel) {
		struct peer_loop loop = { .opts = &o, .base = peer_base, .run = peer_run };

		trigger_peers(b, &loop, o.variants, o.nvariants);
	}
	if (o.kernel) {	/* its points are not the trigger's overheads */
		json_object_put(store);
		return bench_end(b, trigger_table, trigger_svg);
	}
	args = json_object_new_object();
	json_object_object_add(args, "kernel", json_object_new_string(
		jstr(jget(b->doc, "machine"), "kernel", "")));
	json_object_object_add(args, "overhead_ns", store);
	if (bench_call(b, "store", args, &r, msg, sizeof(msg)))
		fprintf(stderr, "tracectl: the results were not kept for the metrics: %s\n",
			tty_str(msg));
	else
		json_object_object_add(b->doc, "stored", json_object_new_string(
			jstr(r, "path", "")));
	json_object_put(r);
	return bench_end(b, trigger_table, trigger_svg);
}

const struct bench_suite bench_suite_trigger = {
	.name = "trigger",
	.help = "getpgid loop per mode and variant: M calls/s, overhead ns/call\n"
		"              -n, --calls=N          getpgid() calls per run\n"
		"              -p, --producers=P      threads making them (1..64)\n"
		"                  --modes=LIST       modes to measure (default: all)\n"
		"                  --variants=LIST    count, latency, empty, stacks, args\n"
		"                                     (default: count, latency, empty)\n"
		"                  --peers            + the reference programs (tracerd-ref) and\n"
		"                                     bpftrace on the same loop, with ratios\n"
		"                  --kernel-funcs     the hot function with K other kernel\n"
		"                                     functions hooked (count, every process)\n"
		"              -k, --funcs=LIST       those K (0: none; and all, last)\n"
		"                  --kernel-mode=M    their mode (default: the hot mode's own\n"
		"                                     when it batches, else kmod-callops)\n"
		"                  --with-hot         they hook the hot function too\n",
	.run = bench_trigger,
	.table = trigger_table,
	.svg = trigger_svg,
	.in_report = true,
};
