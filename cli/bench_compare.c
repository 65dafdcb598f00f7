// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench compare A.json B.json [--all] [--force]: two results side
 * by side, point by point (medians), with the ratio B/A — the "without
 * patch / with patch" tables of the seeds (docs/origins.md). Offline: no daemon. By default
 * only the figures a reader compares (overhead, ns per call, attach and
 * detach times); --all adds every other value. Runs of different suites or
 * options are refused unless --force; a syscall handler is compared by the
 * syscall it handles (__x64_sys_getpgid and __arm64_sys_getpgid are the
 * same point on two architectures).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "bench.h"

json_object *bench_load(struct cli *cli, const char *path, int *exit)
{
	char err[256];
	json_object *o = json_parse_file(path, 64 << 20, err, sizeof(err));

	if (!o) {
		*exit = cli_error(cli, EXIT_USAGE, "bad_input", "%s: cannot read it as JSON (%s)",
				  path, err);
		return NULL;
	}
	if (!json_object_is_type(o, json_type_object) ||
	    strcmp(jstr(o, "schema", ""), BENCH_SCHEMA) ||
	    !json_object_is_type(jget(o, "points"), json_type_array) ||
	    !json_object_is_type(jget(o, "options"), json_type_object)) {
		*exit = cli_error(cli, EXIT_USAGE, "bad_input", "%s: not a tracectl bench result "
				  "(expected \"schema\": \"%s\" with options and points)", path,
				  BENCH_SCHEMA);
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The values shown without --all: what the seeds' tables compare. */
static bool primary_value(const char *name)
{
	static const char *const names[] = {
		"overhead_ns", "ns_per_call", "ns_per_write", "ns_per_message",
		"attach_us", "detach_us",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/*
 * The syscall a handler name stands for: "__x64_sys_getpgid",
 * "__arm64_sys_getpgid" and "__riscv_sys_getpgid" all give "sys_getpgid";
 * any other name is itself.
 */
static const char *syscall_of(const char *fn)
{
	const char *p;

	if (strncmp(fn, "__", 2))
		return fn;
	p = strstr(fn + 2, "_sys_");
	if (!p || p == fn + 2 || strspn(fn + 2, "abcdefghijklmnopqrstuvwxyz0123456789") !=
	    (size_t)(p - fn - 2))
		return fn;
	return p + 1;
}

static bool same_option(const char *k, json_object *va, json_object *vb)
{
	if (!vb)
		return false;
	if (!strcmp(k, "function") && json_object_is_type(va, json_type_string) &&
	    json_object_is_type(vb, json_type_string))
		return !strcmp(syscall_of(json_object_get_string(va)),
			       syscall_of(json_object_get_string(vb)));
	return json_object_equal(va, vb);
}

/* The options that must agree: everything but repetitions and warm-up. */
static bool same_options(json_object *a, json_object *b, char *diff, size_t len)
{
	json_object *oa = jget(a, "options"), *ob = jget(b, "options"), *v;

	json_object_object_foreach(oa, k, va) {
		if (!strcmp(k, "repetitions") || !strcmp(k, "warmup"))
			continue;
		v = jget(ob, k);
		if (!same_option(k, va, v)) {
			snprintf(diff, len, "option '%s': %s vs %s", k,
				 json_object_to_json_string(va),
				 v ? json_object_to_json_string(v) : "(absent)");
			return false;
		}
	}
	json_object_object_foreach(ob, k2, vb) {
		(void)vb;
		if (strcmp(k2, "repetitions") && strcmp(k2, "warmup") && !jget(oa, k2)) {
			snprintf(diff, len, "option '%s' only in B", k2);
			return false;
		}
	}
	return true;
}

static void add_side(json_object *o, const char *name, const char *path, json_object *doc)
{
	json_object *s = json_object_new_object(), *m = jget(doc, "machine");

	json_object_object_add(s, "file", json_object_new_string(path));
	json_object_object_add(s, "kernel", json_object_new_string(jstr(m, "kernel", "?")));
	json_object_object_add(s, "arch", json_object_new_string(jstr(m, "arch", "?")));
	json_object_object_add(s, "date", json_object_new_string(jstr(doc, "date", "?")));
	json_object_object_add(o, name, s);
}

/* The keys of the points of a that b lacks. */
static json_object *only_in(json_object *a, json_object *b)
{
	json_object *keys = json_object_new_array(), *pa = jget(a, "points");
	size_t i, n = json_object_array_length(pa);

	for (i = 0; i < n; i++) {
		const char *key = jstr(json_object_array_get_idx(pa, i), "key", "?");

		if (!bench_find_point(b, key))
			json_object_array_add(keys, json_object_new_string(key));
	}
	return keys;
}

/* Rows for the values of every point of A that B has too (all: every value). */
static json_object *compare_rows(json_object *a, json_object *b, bool all)
{
	json_object *rows = json_object_new_array(), *pa = jget(a, "points");
	size_t i, n = jlen(pa);

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(pa, i), *q;
		const char *key = jstr(p, "key", "?");

		q = bench_find_point(b, key);
		if (!q)
			continue;
		if (strcmp(jstr(p, "status", ""), "ok") || strcmp(jstr(q, "status", ""), "ok")) {
			json_object *r = json_object_new_object();

			json_object_object_add(r, "key", json_object_new_string(key));
			json_object_object_add(r, "value", NULL);
			json_object_object_add(r, "a_status",
					       json_object_new_string(jstr(p, "status", "?")));
			json_object_object_add(r, "b_status",
					       json_object_new_string(jstr(q, "status", "?")));
			json_object_array_add(rows, r);
			continue;
		}
		if (!jobj(p, "values"))
			continue;
		json_object_object_foreach(jobj(p, "values"), name, va) {
			double x = jnum(va, "median", NAN);
			double y = point_stat(q, name, "median");
			json_object *r;

			if (!all && !primary_value(name))
				continue;
			r = json_object_new_object();

			json_object_object_add(r, "key", json_object_new_string(key));
			json_object_object_add(r, "value", json_object_new_string(name));
			json_object_object_add(r, "unit",
					       json_object_new_string(jstr(va, "unit", "")));
			json_object_object_add(r, "a", json_object_new_double(x));
			json_object_object_add(r, "b", isnan(y) ? NULL : json_object_new_double(y));
			json_object_object_add(r, "ratio", isnan(y) || x == 0 ? NULL :
					       json_object_new_double(y / x));
			json_object_array_add(rows, r);
		}
	}
	return rows;
}

/*
 * Points one side lacks, one line per mode (the key up to its first '/'):
 * "fentry: 2 points only in A (fentry/count, fentry/latency)".
 */
static void print_only_in(json_object *keys, const char *side)
{
	size_t i, j, n = json_object_array_length(keys), len, cnt;
	const char *k, *mode;
	char prefix[128];

	for (i = 0; i < n; i++) {
		k = json_object_get_string(json_object_array_get_idx(keys, i));
		len = strcspn(k, "/");
		for (j = 0; j < i; j++) {	/* this mode printed already? */
			mode = json_object_get_string(json_object_array_get_idx(keys, j));
			if (strcspn(mode, "/") == len && !strncmp(mode, k, len))
				break;
		}
		if (j < i)
			continue;
		for (cnt = 0, j = i; j < n; j++) {
			mode = json_object_get_string(json_object_array_get_idx(keys, j));
			cnt += strcspn(mode, "/") == len && !strncmp(mode, k, len);
		}
		snprintf(prefix, sizeof(prefix), "%.*s", (int)len, k);
		printf("%s: %zu point%s only in %s (", tty_str(prefix), cnt, cnt == 1 ? "" : "s",
		       side);
		for (j = i; j < n; j++) {
			mode = json_object_get_string(json_object_array_get_idx(keys, j));
			if (strcspn(mode, "/") == len && !strncmp(mode, k, len))
				printf("%s%s", j == i ? "" : ", ", tty_str(mode));
		}
		printf(")\n");
	}
}

static void print_compare(json_object *o)
{
	json_object *rows = jget(o, "rows"), *sa = jget(o, "a"), *sb = jget(o, "b");
	size_t i, n = jlen(rows);
	char ca[48], cb[48];

	printf("compare %s: A = %s (%s, %s)\n                B = %s (%s, %s)\n",
	       jtty(o, "suite", "?"), jtty(sa, "file", "?"), jtty(sa, "kernel", "?"),
	       jtty(sa, "arch", "?"), jtty(sb, "file", "?"), jtty(sb, "kernel", "?"),
	       jtty(sb, "arch", "?"));
	printf("%-34s %-20s %14s %14s %8s\n", "POINT", "VALUE (median)", "A", "B", "B/A");
	for (i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(rows, i);

		if (!jget(r, "value")) {
			printf("%-34s %-20s %14s %14s %8s\n", jtty(r, "key", "?"), "-",
			       jtty(r, "a_status", "?"), jtty(r, "b_status", "?"), "-");
			continue;
		}
		snprintf(ca, sizeof(ca), "%.2f", jnum(r, "a", NAN));
		snprintf(cb, sizeof(cb), "%.2f", jnum(r, "b", NAN));
		printf("%-34s %-20s %14s %14s ", jtty(r, "key", "?"), jtty(r, "value", "?"), ca,
		       jget(r, "b") ? cb : "-");
		if (jget(r, "ratio"))
			printf("%8.3f\n", jnum(r, "ratio", NAN));
		else
			printf("%8s\n", "-");
	}
	print_only_in(jget(o, "only_in_a"), "A");
	print_only_in(jget(o, "only_in_b"), "B");
}

static int bench_compare(struct cli *cli, int argc, char **argv)
{
	json_object *a = NULL, *b = NULL, *o;
	const char *files[2] = {};
	char diff[512];
	bool force = false, all = false;
	int i, nf = 0, exit = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--force") || !strcmp(argv[i], "-f"))
			force = true;
		else if (!strcmp(argv[i], "--all") || !strcmp(argv[i], "-a"))
			all = true;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_error(cli, EXIT_USAGE, "usage",
					 "bench compare: unknown option '%s'", argv[i]);
		else if (nf < 2)
			files[nf++] = argv[i];
		else
			nf = 3;
	}
	if (nf != 2)
		return cli_error(cli, EXIT_USAGE, "usage",
				 "usage: tracectl bench compare A.json B.json [--all] [--force]");
	a = bench_load(cli, files[0], &exit);
	if (a)
		b = bench_load(cli, files[1], &exit);
	if (!a || !b)
		goto cleanup;
	if (strcmp(jstr(a, "suite", "a"), jstr(b, "suite", "b")) && !force) {
		exit = cli_error(cli, EXIT_USAGE, "mismatch", "different suites: %s is '%s', %s is "
				 "'%s' (--force compares the points they share)", files[0],
				 jstr(a, "suite", "?"), files[1], jstr(b, "suite", "?"));
		goto cleanup;
	}
	if (!same_options(a, b, diff, sizeof(diff)) && !force) {
		exit = cli_error(cli, EXIT_USAGE, "mismatch", "different options: %s "
				 "(--force compares anyway)", diff);
		goto cleanup;
	}
	o = json_object_new_object();
	json_object_object_add(o, "schema", json_object_new_string("tracerd-bench-compare/1"));
	json_object_object_add(o, "suite", json_object_new_string(jstr(a, "suite", "?")));
	add_side(o, "a", files[0], a);
	add_side(o, "b", files[1], b);
	json_object_object_add(o, "forced", json_object_new_boolean(force));
	json_object_object_add(o, "all", json_object_new_boolean(all));
	json_object_object_add(o, "rows", compare_rows(a, b, all));
	json_object_object_add(o, "only_in_a", only_in(a, b));
	json_object_object_add(o, "only_in_b", only_in(b, a));
	if (cli->json)
		cli_print_json(o);
	else
		print_compare(o);
	json_object_put(o);
cleanup:
	json_object_put(a);
	json_object_put(b);
	return exit;
}

/* tracectl bench show FILE [--svg OUT]: a stored result's table (and chart) again. */
static int bench_show(struct cli *cli, int argc, char **argv)
{
	const struct bench_suite *suite;
	struct bench b = { .cli = cli };
	const char *svg = NULL;
	int exit = 0, i;
	FILE *f;

	if (argc == 4 && !strcmp(argv[2], "--svg"))
		svg = argv[3];
	else if (argc == 3 && !strncmp(argv[2], "--svg=", 6))
		svg = argv[2] + 6;
	else if (argc != 2)
		return cli_error(cli, EXIT_USAGE, "usage",
				 "usage: tracectl bench show FILE [--svg OUT]");
	b.doc = bench_load(cli, argv[1], &exit);
	if (!b.doc)
		return exit;
	b.options = jget(b.doc, "options");
	b.points = jget(b.doc, "points");
	b.reps = (int)jint(b.options, "repetitions", 0);
	b.warmup = (int)jint(b.options, "warmup", 0);
	i = bench_suite_find(jstr(b.doc, "suite", ""));
	suite = i < 0 ? NULL : bench_suites[i];
	if (!suite || !suite->table) {
		exit = cli_error(cli, EXIT_USAGE, "bad_input", "%s: unknown suite '%s'", argv[1],
				 jstr(b.doc, "suite", "?"));
		goto cleanup;
	}
	if (svg) {
		f = fopen(svg, "we");
		if (!f || suite->svg(&b, f) || fclose(f)) {
			exit = cli_error(cli, EXIT_FAILURE_, "io", "cannot write %s: %s", svg,
					 strerror(errno));
			goto cleanup;
		}
	}
	if (cli->json)
		cli_print_json(b.doc);
	else
		suite->table(&b, stdout);
cleanup:
	json_object_put(b.doc);
	return exit;
}

const struct bench_suite bench_suite_compare = {
	.name = "compare",
	.help = "A.json B.json [--all] [--force]: two runs side by side with ratios\n",
	.offline = bench_compare,
};

const struct bench_suite bench_suite_show = {
	.name = "show",
	.help = "FILE [--svg OUT]: the table (and chart) of a saved result\n",
	.offline = bench_show,
};
