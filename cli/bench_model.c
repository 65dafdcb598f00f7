// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench report: the model (bench_model.h). Loads the result
 * files, groups them per kernel, and answers the renderers' questions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "bench_model.h"

/* The suite of a result the report reads (enum bench_suite_id), or -1. */
static int report_suite(json_object *doc)
{
	int s = bench_suite_find(jstr(doc, "suite", ""));

	return s >= 0 && bench_suites[s]->in_report ? s : -1;
}

/* "6.12.117+deb12-amd64" -> "6.12"; "6.1.0-57-amd64" -> "6.1" */
static void short_release(const char *rel, char *out, size_t len)
{
	size_t n = strspn(rel, "0123456789"), m;

	if (rel[n] == '.') {
		m = strspn(rel + n + 1, "0123456789");
		n += 1 + m;
	}
	snprintf(out, len, "%.*s", (int)n, rel);
}

static struct kern *kern_for(struct report *r, json_object *doc)
{
	json_object *m = jget(doc, "machine"), *cfg = jget(doc, "kernel_config");
	char rel[16], label[40];
	int i, s = report_suite(doc);

	short_release(jstr(m, "kernel", "?"), rel, sizeof(rel));
	snprintf(label, sizeof(label), "%s %s", rel, jstr(m, "arch", "?"));
	for (i = 0; i < r->nk; i++)	/* the same kernel, this suite not seen yet */
		if (!strncmp(r->k[i].label, label, strlen(label)) && s >= 0 && !r->k[i].doc[s])
			return &r->k[i];
	if (r->nk == MAX_KERNELS)
		return NULL;
	for (i = 0, s = 1; i < r->nk; i++)	/* booted twice: "6.12 x86_64 #2" */
		s += !strncmp(r->k[i].label, label, strlen(label));
	i = r->nk++;
	memset(&r->k[i], 0, sizeof(r->k[i]));
	if (s > 1)
		snprintf(r->k[i].label, sizeof(r->k[i].label), "%s #%d", label, s);
	else
		snprintf(r->k[i].label, sizeof(r->k[i].label), "%s", label);
	snprintf(r->k[i].arch, sizeof(r->k[i].arch), "%s", jstr(m, "arch", "?"));
	snprintf(r->k[i].rel, sizeof(r->k[i].rel), "%s", rel);
	r->k[i].call_ops = !strcmp(jstr(cfg, "CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS", "n"), "y");
	return &r->k[i];
}

int report_load(struct report *r, struct cli *cli, int n, char **files)
{
	struct kern *k;
	const char *path[BENCH_MAX_HOOKS], *mode[BENCH_MAX_HOOKS];
	int i, s, exit = 0, nsuites = 0;

	r->np = bench_hook_paths(path, mode);
	for (i = 0; i < r->np; i++)
		r->path[i] = (struct report_path){ path[i], mode[i] };
	for (s = 0; s < BENCH_NR_SUITES; s++)
		nsuites += bench_suites[s]->in_report;
	for (i = 0; i < n; i++) {
		json_object *doc = bench_load(cli, files[i], &exit);

		if (!doc)
			return exit;
		r->docs[r->nd++] = doc;
		s = report_suite(doc);
		k = s >= 0 ? kern_for(r, doc) : NULL;
		if (!k)
			return cli_error(cli, EXIT_USAGE, "bad_input", "%s: %s", files[i], s >= 0 ?
					 "more kernels than a report holds (12)" : "unknown suite");
		k->doc[s] = doc;
		k->file[s] = files[i];
		if (r->nd == MAX_KERNELS * nsuites && i + 1 < n)
			return cli_error(cli, EXIT_USAGE, "usage", "at most %d result files",
					 MAX_KERNELS * nsuites);
	}
	return 0;
}

void report_free(struct report *r)
{
	int i;

	for (i = 0; i < r->nd; i++)
		json_object_put(r->docs[i]);
	r->nd = 0;
}

bool report_any_suite(const struct report *r, int s)
{
	int k;

	for (k = 0; k < r->nk; k++)
		if (r->k[k].doc[s])
			return true;
	return false;
}

bool report_has_count(const struct report *r, const char *mode)
{
	char key[96];
	int i;

	snprintf(key, sizeof(key), "%s/count", mode);
	for (i = 0; i < r->nk; i++)
		if (r->k[i].doc[BENCH_TRIGGER] && bench_find_point(r->k[i].doc[BENCH_TRIGGER], key))
			return true;
	return false;
}

double report_cheapest(const struct report *r, const struct kern *k, const char **mode)
{
	double best = NAN, v;
	char key[96];
	size_t i;

	*mode = NULL;
	for (i = 0; i < (size_t)r->np; i++) {
		snprintf(key, sizeof(key), "%s/count", r->path[i].mode);
		v = point_median(k->doc[BENCH_TRIGGER], key, "overhead_ns");
		if (v > 0 && (isnan(best) || v < best)) {
			best = v;
			*mode = r->path[i].mode;
		}
	}
	return best;
}

long long report_ops_max_i(json_object *doc, const char *mode)
{
	json_object *pts = jget(doc, "points");
	size_t i, n = pts ? json_object_array_length(pts) : 0;
	long long best = -1;

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(pts, i), *l = jget(p, "labels");

		if (!strcmp(jstr(l, "mode", ""), mode) && jint(l, "relevant", -1) == 1 &&
		    !strcmp(jstr(p, "status", ""), "ok") && jint(l, "irrelevant", -1) > best)
			best = jint(l, "irrelevant", -1);
	}
	return best;
}

double report_ops_overhead(json_object *doc, const char *mode, long long rel, long long irr)
{
	char key[96];

	snprintf(key, sizeof(key), "%s/R%lld/I%lld", mode, rel, irr);
	return point_median(doc, key, "overhead_ns");
}

json_object *report_attach_point(json_object *doc, const char *mode, const char *how)
{
	json_object *pts = jget(doc, "points"), *best = NULL;
	size_t i, n = pts ? json_object_array_length(pts) : 0;

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(pts, i), *l = jget(p, "labels");

		if (strcmp(jstr(l, "mode", ""), mode) || strcmp(jstr(l, "how", ""), how) ||
		    strcmp(jstr(p, "status", ""), "ok"))
			continue;
		if (!best || jint(l, "funcs", 0) > jint(jget(best, "labels"), "funcs", 0))
			best = p;
	}
	return best;
}

json_object *report_entry_pair(json_object *doc)
{
	size_t i, n = jlen(jget(doc, "points"));

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(jget(doc, "points"), i);

		if (jget(jget(p, "labels"), "against"))
			return p;
	}
	return NULL;
}

json_object *report_modes(const struct kern *k)
{
	return jget(k->doc[BENCH_TRIGGER] ? k->doc[BENCH_TRIGGER] : k->doc[BENCH_OPS], "modes");
}
