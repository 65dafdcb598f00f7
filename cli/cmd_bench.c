// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench SUITE [options]: the one table of suites (each defined in its
 * bench_*.c), the dispatch and `bench --help` from it, and the options every
 * measuring suite takes. docs/bench.md.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/util.h"
#include "bench.h"

static const char bench_usage[] = "SUITE [OPTIONS] (tracectl bench --help)";

int bench_common_opt(struct bench *b, int c, const char *arg, const char *bad)
{
	unsigned long long v;

	switch (c) {
	case 'r':
		if (cli_number(b->cli, "-r (repetitions)", arg, 1, 60, &v))
			return EXIT_USAGE;
		b->reps = (int)v;
		return 0;
	case 'w':
		if (cli_number(b->cli, "-w (warm-up repetitions)", arg, 0, 10, &v))
			return EXIT_USAGE;
		b->warmup = (int)v;
		return 0;
	case 'o':
		b->out = arg;
		return 0;
	case 'S':
		b->svg = arg;
		return 0;
	case 'C':
		b->profile_ci = true;
		return 0;
	default:
		return cli_error(b->cli, EXIT_USAGE, "usage", "bench %s: unknown option '%s' "
				 "(tracectl bench --help)", b->suite, bad ? bad : "?");
	}
}

int bench_getopt(struct bench *b, int argc, char **argv, const char *shortopts,
		 const struct option *opts, bench_opt_fn *one, void *ctx)
{
	char letters[64];
	int c, ret;

	snprintf(letters, sizeof(letters), "%s%s", BENCH_COMMON_SHORT, shortopts);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, letters, opts, NULL)) != -1) {
		ret = one(b, c, optarg, ctx);
		if (ret == BENCH_OPT_COMMON)
			ret = bench_common_opt(b, c, optarg, argv[optind - 1]);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return cli_error(b->cli, EXIT_USAGE, "usage", "bench %s: unexpected '%s'", b->suite,
				 argv[optind]);
	return 0;
}

const struct bench_suite *const bench_suites[BENCH_NR_SUITES] = {
	[BENCH_TRIGGER] = &bench_suite_trigger,
	[BENCH_OPS] = &bench_suite_ops,
	[BENCH_ATTACH] = &bench_suite_attach,
	[BENCH_WORKLOAD] = &bench_suite_workload,
	[BENCH_ENTRY] = &bench_suite_entry,
	[BENCH_RECORD] = &bench_suite_record,
	[BENCH_COMPARE] = &bench_suite_compare,
	[BENCH_SHOW] = &bench_suite_show,
	[BENCH_REPORT] = &bench_suite_report,
};

int bench_suite_find(const char *name)
{
	int i;

	for (i = 0; i < BENCH_NR_SUITES; i++)
		if (!strcmp(name, bench_suites[i]->name))
			return i;
	return -1;
}

static void usage(void)
{
	int i;

	printf("Usage: tracectl bench SUITE [OPTIONS]\n"
	       "Measure every attach path on this kernel (docs/bench.md).\n\n"
	       "Suites:\n");
	for (i = 0; i < BENCH_NR_SUITES; i++)
		printf("  %-9s %s", bench_suites[i]->name, bench_suites[i]->help);
	printf("\n"
	       "Options of every suite:\n"
	       "  -r, --repetitions=N  measured repetitions per point (default 5)\n"
	       "  -w, --warmup=N       unmeasured repetitions first (default 1)\n"
	       "  -o, --output=FILE    write the JSON result (docs/bench.schema.json)\n"
	       "      --svg=FILE       write a chart of the result (SVG)\n"
	       "      --ci             small sizes (the test profile)\n"
	       "  -h, --help           this text (also after a suite: bench trigger --help)\n"
	       "  --json (global)      the JSON result on stdout instead of the table\n");
}

static int bench_exec(struct cli *cli, int argc, char **argv)
{
	struct bench b = { .cli = cli, .reps = 5, .warmup = 1 };
	const struct bench_suite *suite;
	int i;

	if (argc < 2)
		return cli_usage(cli, &cmd_bench, "which suite?");
	if (cli_wants_help(argc, argv)) {
		usage();
		return 0;
	}
	i = bench_suite_find(argv[1]);
	if (i < 0)
		return cli_usage(cli, &cmd_bench, "unknown suite '%s'", argv[1]);
	suite = bench_suites[i];
	if (suite->offline)
		return suite->offline(cli, argc - 1, argv + 1);
	b.suite = suite->name;
	return suite->run(&b, argc - 1, argv + 1);
}

const struct cmd_entry cmd_bench = {
	.name = "bench",
	.args = bench_usage,
	.summary = "measure each attach path (tracectl bench --help)",
	.exec = bench_exec,
	.own_help = true,
};
