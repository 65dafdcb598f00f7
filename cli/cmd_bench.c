// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench SUITE [options]: trigger, ops, attach, workload, entry, record (through
 * the daemon, which owns the hooks) and compare (offline). docs/bench.md.
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

static void usage(void)
{
	printf("Usage: tracectl bench SUITE [OPTIONS]\n"
	       "Measure every attach path on this kernel (docs/bench.md).\n\n"
	       "Suites:\n"
	       "  trigger   getpgid loop per mode and variant: M calls/s, overhead ns/call\n"
	       "              -n, --calls=N          getpgid() calls per run\n"
	       "              -p, --producers=P      threads making them (1..64)\n"
	       "                  --modes=LIST       modes to measure (default: all)\n"
	       "                  --variants=LIST    count, latency, empty\n"
	       "                  --peers            + the reference programs (tracerd-ref) and\n"
	       "                                     bpftrace on the same loop, with ratios\n"
	       "  ops       kmod in-kernel benchmark: relevant x irrelevant tracers\n"
	       "              -n, --calls=N          calls of the tracee per point\n"
	       "                  --relevant=LIST    R values; --irrelevant=LIST: I values\n"
	       "                  --grid             every R x I pair (default: R/0 and 1/I)\n"
	       "                  --modes=LIST       kmod modes\n"
	       "  attach    time to attach and detach K functions per mode\n"
	       "              -k, --funcs=LIST       K values\n"
	       "                  --modes=LIST       modes\n"
	       "                  --all              + every traceable function (kmod-callops)\n"
	       "  workload  dd-style writes and a hackbench-style load with a function traced\n"
	       "              -n, --writes=N         writes of the dd job\n"
	       "              -f, --function=F       the traced function (default vfs_write)\n"
	       "              -g, --groups=G         message groups; --senders=S per group\n"
	       "              -l, --loops=L          messages per sender and receiver\n"
	       "                  --modes=LIST       modes\n"
	       "  entry     an untraced traceable function's entry against its notrace twin\n"
	       "            (the test module's twins; seed 003); needs tracerd_testmod loaded\n"
	       "              -n, --calls=N          calls per variant and round (default 1000000)\n"
	       "                  --rounds=R         interleaved rounds (same as -r)\n"
	       "  record    writer threads make traced calls as fast as they can, recorded\n"
	       "            through the daemon: events/s made and recorded, %% dropped, bytes\n"
	       "            per event on disk, daemon CPU ns per event; recorded + dropped must\n"
	       "            equal the calls, and the file hold the recorded events\n"
	       "              -n, --calls=N          calls per run, all threads (default 2000000)\n"
	       "              -d, --duration=S       instead, calls for S seconds per run\n"
	       "              -p, --producers=T      writer threads (1..64, default 2)\n"
	       "              -t, --target=T         traced target (default tp:task/task_rename,\n"
	       "                                     prctl(PR_SET_NAME); else getpgid(0) calls)\n"
	       "                  --name=NAME        the recording (default bench-record)\n"
	       "  compare   A.json B.json [--all] [--force]: two runs side by side with ratios\n"
	       "  show      FILE [--svg OUT]: the table (and chart) of a saved result\n"
	       "  report    [--html FILE] RESULT.json...: one screen of what a set of results\n"
	       "            found per kernel (make demo ends with it), and a page with the plots\n\n"
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
	static const struct {
		const char *name;
		int (*fn)(struct bench *b, int argc, char **argv);
	} suites[] = {
		{ "trigger", bench_trigger }, { "ops", bench_ops },
		{ "attach", bench_attach }, { "workload", bench_workload },
		{ "entry", bench_entry }, { "record", bench_record },
	};
	struct bench b = { .cli = cli, .reps = 5, .warmup = 1 };
	size_t i;

	if (argc < 2)
		return cli_usage(cli, &cmd_bench, "which suite?");
	if (cli_wants_help(argc, argv)) {
		usage();
		return 0;
	}
	if (!strcmp(argv[1], "compare"))
		return bench_compare(cli, argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return bench_show(cli, argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return bench_report(cli, argc - 1, argv + 1);
	for (i = 0; i < ARRAY_SIZE(suites); i++) {
		if (strcmp(argv[1], suites[i].name))
			continue;
		b.suite = suites[i].name;
		return suites[i].fn(&b, argc - 1, argv + 1);
	}
	return cli_usage(cli, &cmd_bench, "unknown suite '%s'", argv[1]);
}

const struct cmd_entry cmd_bench = {
	.name = "bench",
	.args = bench_usage,
	.summary = "measure each attach path (tracectl bench --help)",
	.exec = bench_exec,
	.own_help = true,
};
