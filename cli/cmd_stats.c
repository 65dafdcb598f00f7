// SPDX-License-Identifier: GPL-2.0-or-later
/* tracectl stats [ID|TARGET|FUNCTION] [--merge]: calls, misses, log2 histograms. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/util.h"
#include "tracectl.h"

static void print_hist(json_object *lat)
{
	json_object *b = jget(lat, "buckets");
	size_t i, n = jlen(b);
	long long max = 1, c;
	int w;

	printf("    latency: %lld samples, min %lld ns, max %lld ns, avg %lld ns\n",
	       jint(lat, "count", 0), jint(lat, "min_ns", 0), jint(lat, "max_ns", 0),
	       jint(lat, "count", 0) ? jint(lat, "sum_ns", 0) / jint(lat, "count", 1) : 0);
	for (i = 0; i < n; i++)
		if ((c = jint(json_object_array_get_idx(b, i), "count", 0)) > max)
			max = c;
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(b, i);

		c = jint(e, "count", 0);
		w = (int)(c * 40 / max);
		printf("    %12lld -> %-12lld : %-10lld |%-40.*s|\n", jint(e, "lo_ns", 0),
		       jint(e, "hi_ns", -1), c, w, "****************************************");
	}
}

static void print_stats(json_object *r)
{
	json_object *arr = jget(r, "stats");
	size_t i, n = jlen(arr);
	char misses[32];

	printf("%-4s %-36s %-13s %12s %8s\n", "ID", "FUNCTION", "MODE", "CALLS", "MISSES");
	for (i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(arr, i), *lat = jget(s, "latency");

		if (jget(s, "misses"))
			snprintf(misses, sizeof(misses), "%lld", jint(s, "misses", 0));
		else
			snprintf(misses, sizeof(misses), "-");
		printf("%-4s %-36s %-13s %12lld %8s\n",
		       jget(s, "id") ? tty_str(json_object_get_string(jget(s, "id"))) : "*",
		       jtty(s, "function", "?"), jtty(s, "mode", "(merged)"), jint(s, "calls", 0),
		       misses);
		if (lat)
			print_hist(lat);
	}
}

static int stats_exec(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "merge", no_argument, NULL, 'M' },
		{ 0 }
	};
	json_object *args = json_object_new_object(), *r;
	unsigned long long id;
	int c, ret;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "M", opts, NULL)) != -1) {
		if (c != 'M') {
			json_object_put(args);
			return cli_usage(cli, &cmd_stats, "unknown option '%s'", argv[optind - 1]);
		}
		json_object_object_add(args, "merge", json_object_new_boolean(1));
	}
	if (argc - optind > 1) {
		json_object_put(args);
		return cli_usage(cli, &cmd_stats, "at most one ID or TARGET");
	}
	if (optind < argc) {
		ret = cli_attachment_id(cli, argv[optind], &id);
		if (ret < 0) {
			json_object_put(args);
			return -ret;
		}
		if (!ret)
			json_object_object_add(args, "id", json_object_new_int64((long long)id));
		else
			json_object_object_add(args, "target", json_object_new_string(argv[optind]));
	}
	ret = client_call(cli, "stats", args, &r);
	if (ret)
		return ret;
	if (cli->json)
		cli_print_json(r);
	else
		print_stats(r);
	json_object_put(r);
	return 0;
}

const struct cmd_entry cmd_stats = {
	.name = "stats",
	.args = "[ID|TARGET|FUNCTION] [--merge]",
	.summary = "calls, misses and log2 latency histograms (ns)",
	.exec = stats_exec,
};
