// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench entry: seed 003's question (docs/origins.md) on the running kernel, without
 * a rebuild: what an UNTRACED traceable function's entry sequence costs per
 * call, against its notrace twin (and, on arm64, `mov x9, x30; nop` against
 * `nop; nop`). The twins and the timing loop live in the test module
 * (tests/kmod/tracerd_testmod.c, debugfs entry_sites and entry_bench); this
 * file reads their checked entry bytes, runs the loop and builds the result
 * document (docs/bench.md). It loads nothing itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../lib/util.h"
#include "bench.h"

#define ENTRY_MODULE	"/sys/module/tracerd_testmod"
#define ENTRY_DIR	"/sys/kernel/debug/tracerd_testmod"
#define ENTRY_MAX	8		/* variants the module can report */
#define ENTRY_REF	"notrace"	/* what every variant is compared with */

/* The seed's comparison per arch: this variant against that one. */
static const struct {
	const char *variant, *against;
} entry_pairs[] = {
	{ "asm-mov-nop", "asm-nop-nop" },	/* arm64: seed 003 itself */
	{ "asm-nop5", "asm-none" },		/* x86_64: the analogue */
};

struct entry_var {
	char name[32], claim[40], bytes[80], reason[200];
	bool refused;
	long long good;		/* calls that returned x + 1 */
	struct series ns;	/* ns per call, per round */
	json_object *p;
};

struct entry_run {
	unsigned long long calls;
	struct entry_var v[ENTRY_MAX];
	int nv;
};

static int entry_opt(struct bench *b, int c, const char *arg, void *ctx)
{
	struct entry_run *e = ctx;
	unsigned long long v;

	switch (c) {
	case 'n':
		if (cli_number(b->cli, "-n (calls)", arg, 1, 10000000ULL, &v))
			return EXIT_USAGE;
		e->calls = v;
		return 0;
	case 'R':	/* the rounds are the repetitions */
		if (cli_number(b->cli, "--rounds", arg, 1, 60, &v))
			return EXIT_USAGE;
		b->reps = (int)v;
		return 0;
	default:
		return BENCH_OPT_COMMON;
	}
}

static int entry_opts(struct bench *b, int argc, char **argv, struct entry_run *e)
{
	static const struct option opts[] = {
		BENCH_COMMON_OPTS,
		{ "calls", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'R' },
		{ 0 }
	};
	int ret;

	e->calls = 0;
	ret = bench_getopt(b, argc, argv, "n:", opts, entry_opt, e);
	if (ret)
		return ret;
	if (!e->calls)
		e->calls = b->profile_ci ? 20000 : 1000000;
	return 0;
}

/* The module and its files, or exactly what is missing. */
static int entry_module(struct bench *b)
{
	if (access(ENTRY_MODULE, F_OK))
		return cli_error(b->cli, EXIT_FAILURE_, "no_module", "bench entry needs the test "
				 "module: load it with 'insmod tracerd_testmod.ko' (built by 'make "
				 "kmod' into build/kmod/; source tests/kmod/tracerd_testmod.c)");
	if (access(ENTRY_DIR, F_OK) && errno == EACCES)
		return cli_error(b->cli, EXIT_FAILURE_, "permission", "bench entry needs root: "
				 "the test module's files are in debugfs (%s)", ENTRY_DIR);
	if (access(ENTRY_DIR, F_OK))
		return cli_error(b->cli, EXIT_FAILURE_, "no_debugfs", "tracerd_testmod is loaded "
				 "but %s is not there: mount debugfs ('mount -t debugfs none "
				 "/sys/kernel/debug') and run as root", ENTRY_DIR);
	if (access(ENTRY_DIR "/entry_bench", F_OK))
		return cli_error(b->cli, EXIT_FAILURE_, "no_module", "the loaded tracerd_testmod "
				 "has no entry benchmark (%s/entry_bench): load this tree's "
				 "build/kmod/tracerd_testmod.ko instead", ENTRY_DIR);
	return 0;
}

/* The whole of a debugfs file (after writing cmd, when not NULL). */
static int entry_read(const char *name, const char *cmd, char *buf, size_t len)
{
	char path[128];
	size_t n = 0;
	ssize_t r;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", ENTRY_DIR, name);
	fd = open(path, (cmd ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (cmd && write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		err = -errno;
	while (!err && n < len - 1 && (r = read(fd, buf + n, len - 1 - n)) != 0) {
		if (r < 0)
			err = -errno;
		else
			n += (size_t)r;
	}
	buf[n] = '\0';
	close(fd);
	return err;
}

static struct entry_var *entry_var(struct entry_run *e, const char *name)
{
	int i;

	for (i = 0; i < e->nv; i++)
		if (!strcmp(e->v[i].name, name))
			return &e->v[i];
	return NULL;
}

/* entry_sites: "name\tok|refused\tclaim\tbytes\treason" per variant */
static int entry_sites(struct entry_run *e, char *buf)
{
	char *line, *save = NULL, *f[5];
	struct entry_var *v;
	int i;

	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		for (i = 0; i < 5; i++)
			f[i] = strsep(&line, "\t");
		if (!f[4] || e->nv == ENTRY_MAX)
			return -EPROTO;
		v = &e->v[e->nv++];
		str_fmt(v->name, sizeof(v->name), "%s", f[0]);
		str_fmt(v->claim, sizeof(v->claim), "%s", f[2]);
		str_fmt(v->bytes, sizeof(v->bytes), "%s", f[3]);
		v->refused = strcmp(f[1], "ok") != 0;
		str_fmt(v->reason, sizeof(v->reason), "%s", v->refused ? f[4] : "");
	}
	return e->nv ? 0 : -EPROTO;
}

/* entry_bench: "name\tGOOD\tNS,NS,..." or "name\trefused\tWHY" per variant */
static int entry_results(struct entry_run *e, char *buf, int rounds)
{
	char *line, *save = NULL, *name, *good, *tok, *s2;
	struct entry_var *v;

	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		name = strsep(&line, "\t");
		good = strsep(&line, "\t");
		if (!line || !strcmp(name, "calls") || !strcmp(name, "rounds"))
			continue;
		v = entry_var(e, name);
		if (!v)
			return -EPROTO;
		if (!strcmp(good, "refused")) {	/* refused since entry_sites was read */
			v->refused = true;
			str_fmt(v->reason, sizeof(v->reason), "%s", line);
			continue;
		}
		v->good = strtoll(good, NULL, 10);
		for (tok = strtok_r(line, ",", &s2); tok; tok = strtok_r(NULL, ",", &s2))
			series_add(&v->ns, strtod(tok, NULL) / (double)e->calls);
		if (v->ns.n != rounds)
			return -EPROTO;
	}
	return 0;
}

/* Per round: v's ns/call minus ref's, and the ratio. */
static void entry_against(json_object *p, const struct entry_var *v, const struct entry_var *ref,
			  const char *diff, const char *ratio)
{
	struct series d = {}, q = {};
	int i;

	if (!ref || ref->refused || ref->ns.n != v->ns.n)
		return;
	for (i = 0; i < v->ns.n; i++) {
		series_add(&d, v->ns.v[i] - ref->ns.v[i]);
		series_add(&q, v->ns.v[i] / ref->ns.v[i]);
	}
	point_value(p, diff, "ns", &d);
	point_value(p, ratio, "x", &q);
}

static void entry_points(struct bench *b, struct entry_run *e)
{
	struct entry_var *ref = entry_var(e, ENTRY_REF), *v;
	long long expected = (long long)e->calls * b->reps;
	size_t j;
	int i;

	for (i = 0; i < e->nv; i++) {
		v = &e->v[i];
		v->p = bench_point(b, v->name);
		point_label(v->p, "mode", v->name);
		point_label(v->p, "entry", v->claim);
		point_label(v->p, "bytes", v->bytes);
		if (v->refused) {
			point_status(b, v->p, "unavailable", "the module refused it: %s",
				     v->reason);
			continue;
		}
		point_count(v->p, "calls", expected, v->good);
		if (v->good != expected) {
			point_status(b, v->p, "error", "%lld of %lld calls returned x + 1", v->good,
				     expected);
			continue;
		}
		point_value(v->p, "ns_per_call", "ns", &v->ns);
		if (v != ref)
			entry_against(v->p, v, ref, "overhead_ns", "ratio");
		for (j = 0; j < ARRAY_SIZE(entry_pairs); j++)
			if (!strcmp(v->name, entry_pairs[j].variant)) {
				point_label(v->p, "against", entry_pairs[j].against);
				entry_against(v->p, v, entry_var(e, entry_pairs[j].against),
					      "against_ns", "against_ratio");
			}
	}
}

static int entry_run(struct bench *b, struct entry_run *e)
{
	char *buf = malloc(16384), cmd[48];
	int ret;

	if (!buf)
		return cli_error(b->cli, EXIT_FAILURE_, "internal", "out of memory");
	ret = entry_read("entry_sites", NULL, buf, 16384);
	if (!ret)
		ret = entry_sites(e, buf) ? -EPROTO : 0;
	if (!ret && b->warmup) {
		snprintf(cmd, sizeof(cmd), "%llu %d\n", e->calls, b->warmup);
		ret = entry_read("entry_bench", cmd, buf, 16384);
	}
	if (!ret) {
		bench_progress(b, "%llu calls x %d rounds per variant", e->calls, b->reps);
		snprintf(cmd, sizeof(cmd), "%llu %d\n", e->calls, b->reps);
		ret = entry_read("entry_bench", cmd, buf, 16384);
	}
	if (!ret)
		ret = entry_results(e, buf, b->reps);
	free(buf);
	if (ret)
		return cli_error(b->cli, EXIT_FAILURE_, "bench", "bench entry: %s/entry_*: %s",
				 ENTRY_DIR, ret == -EPROTO ? "unexpected reply from the module" :
				 strerror(-ret));
	entry_points(b, e);
	return 0;
}

void entry_cell(char *buf, size_t len, json_object *p, const char *diff, const char *ratio)
{
	double d = point_stat(p, diff, "median"), q = point_stat(p, ratio, "median");

	if (p && strcmp(jstr(p, "status", ""), "ok"))
		snprintf(buf, len, "%s", jstr(p, "status", "?"));
	else if (isnan(d))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.3f (%.3fx)", d, q);
}

static void entry_table(struct bench *b, FILE *f)
{
	json_object *o = jget(b->doc, "options");
	size_t i, n = jlen(b->points);
	char vs[48];

	fprintf(f, "bench entry: untraced entry sequences, %lld calls x %lld rounds per variant, "
		"interleaved (tracerd_testmod, ktime)\n", jint(o, "calls", 0),
		jint(o, "repetitions", 0));
	fprintf(f, "%-12s %-17s %-34s %-26s %s\n", "variant", "entry", "bytes (pad|entry body)",
		"ns/call median (min-max)", "vs " ENTRY_REF " (ratio)");
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");
		char ns[48];

		if (strcmp(jstr(p, "status", ""), "ok")) {
			fprintf(f, "%-12s %-17s %-34s %s: %s\n", jtty(l, "mode", "?"),
				jtty(l, "entry", "?"), jtty(l, "bytes", "?"),
				jtty(p, "status", "?"), jtty(p, "reason", "?"));
			continue;
		}
		snprintf(ns, sizeof(ns), "%.3f (%.3f-%.3f)", point_stat(p, "ns_per_call", "median"),
			 point_stat(p, "ns_per_call", "min"), point_stat(p, "ns_per_call", "max"));
		entry_cell(vs, sizeof(vs), p, "overhead_ns", "ratio");
		fprintf(f, "%-12s %-17s %-34s %-26s %s\n", jtty(l, "mode", "?"),
			jtty(l, "entry", "?"), jtty(l, "bytes", "?"), ns, vs);
	}
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");
		json_object *q = bench_find_point(b->doc, jstr(l, "against", ""));

		if (!q)
			continue;
		entry_cell(vs, sizeof(vs), p, "against_ns", "against_ratio");
		fprintf(f, "seed 003: `%s` against `%s` (%s vs %s): %s ns/call\n",
			jtty(l, "entry", "?"), jtty(jget(q, "labels"), "entry", "?"),
			jtty(l, "mode", "?"), jtty(jget(q, "labels"), "mode", "?"), vs);
	}
}

static int entry_svg(struct bench *b, FILE *f)
{
	return svg_point_bars(b, f, "bench entry: untraced entry sequences", "ns_per_call",
			      "ns per call (median)");
}

static int bench_entry(struct bench *b, int argc, char **argv)
{
	struct entry_run *e = calloc(1, sizeof(*e));
	int ret;

	if (!e)
		return cli_error(b->cli, EXIT_FAILURE_, "internal", "out of memory");
	ret = entry_opts(b, argc, argv, e);
	if (!ret)
		ret = entry_module(b);
	if (!ret)
		ret = bench_begin(b);
	if (ret) {
		free(e);
		return ret;
	}
	json_object_object_add(b->options, "calls", json_object_new_int64((int64_t)e->calls));
	ret = entry_run(b, e);
	free(e);
	if (ret) {
		json_object_put(b->doc);
		json_object_put(b->info);
		return ret;
	}
	return bench_end(b, entry_table, entry_svg);
}

const struct bench_suite bench_suite_entry = {
	.name = "entry",
	.help = "an untraced traceable function's entry against its notrace twin\n"
		"            (the test module's twins; seed 003); needs tracerd_testmod loaded\n"
		"              -n, --calls=N          calls per variant and round (default "
		"1000000)\n"
		"                  --rounds=R         interleaved rounds (same as -r)\n",
	.run = bench_entry,
	.table = entry_table,
	.svg = entry_svg,
	.in_report = true,
};
