// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl functions [GLOB|tp:GLOB] [--limit N]: what the kernel lets
 * tracerd hook (as bpftrace -l), and in which modes: a table, or the
 * daemon's JSON with --json (each function's refused modes and why).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "tracectl.h"

/* the MODES cell of a function: "fentry,kprobe", or why none */
static void modes_cell(json_object *f, char *buf, size_t len)
{
	json_object *modes = jarr(f, "modes"), *refused = jobj(f, "refused");
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < jlen(modes); i++)
		off = str_cat(buf, len, off, "%s%s", i ? "," : "",
			      tty_str(json_object_get_string(json_object_array_get_idx(modes, i))));
	if (off)
		return;
	if (jstr(f, "reason", NULL))
		str_fmt(buf, len, "- (%s)", jtty(f, "reason", ""));
	else if (refused && json_object_object_length(refused))
		str_fmt(buf, len, "- (every mode refused: see --json)");
	else
		str_fmt(buf, len, "- (no function mode works on this kernel: tracectl status)");
}

static void print_functions(json_object *r)
{
	json_object *arr = jarr(r, "functions");
	size_t i, n = jlen(arr);
	char cell[512];
	bool tp = n && !strncmp(jstr(json_object_array_get_idx(arr, 0), "name", ""), "tp:", 3);

	if (tp)
		printf("%-48s %-4s %-21s %s\n", "TRACEPOINT", "BTF", "VIA", "MODES");
	else
		printf("%-40s %-12s %-4s %s\n", "FUNCTION", "MODULE", "BTF", "MODES");
	for (i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(arr, i);

		modes_cell(f, cell, sizeof(cell));
		if (tp)
			printf("%-48s %-4s %-21s %s%s\n", jtty(f, "name", "?"),
			       jbool(f, "btf") ? "yes" : "no", jtty(f, "via", "?"), cell,
			       jbool(f, "latency") ? " (--latency)" : "");
		else
			printf("%-40s %-12s %-4s %s\n", jtty(f, "name", "?"),
			       jtty(f, "module", "-"), jbool(f, "btf") ? "yes" : "no", cell);
	}
	if (jbool(r, "truncated"))
		printf("(the first %zu of %lld: narrow the GLOB, or --limit up to 100000)\n", n,
		       jint(r, "total", 0));
	else
		printf("%zu %s\n", n, tp ? (n == 1 ? "tracepoint" : "tracepoints") :
		       (n == 1 ? "function" : "functions"));
}

static int functions_exec(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "limit", required_argument, NULL, 'l' },
		{ 0 }
	};
	json_object *args = json_object_new_object();
	unsigned long long limit;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "l:", opts, NULL)) != -1) {
		if (c != 'l') {
			json_object_put(args);
			return cli_usage(cli, &cmd_functions, "unknown option '%s'",
					 argv[optind - 1]);
		}
		if (cli_number(cli, "--limit", optarg, 1, 100000, &limit)) {
			json_object_put(args);
			return EXIT_USAGE;
		}
		json_object_object_add(args, "limit", json_object_new_int64((long long)limit));
	}
	if (argc - optind > 1) {
		json_object_put(args);
		return cli_usage(cli, &cmd_functions, "at most one GLOB");
	}
	if (optind < argc)
		json_object_object_add(args, "glob", json_object_new_string(argv[optind]));
	if (cli->timeout < 0)	/* a whole kernel's functions, under emulation too */
		cli->timeout = CLI_TIMEOUT_MUTATE_S;
	return client_show(cli, "functions", args, print_functions);
}

const struct cmd_entry cmd_functions = {
	.name = "functions",
	.args = "[GLOB|tp:CATEGORY/GLOB] [--limit N]",
	.summary = "traceable functions (or tracepoints) and the modes each allows",
	.exec = functions_exec,
	.help = "  GLOB             function names (* ? [...]); default every function\n"
		"  tp:CAT/GLOB      tracepoints instead, e.g. 'tp:syscalls/sys_enter_*'\n"
		"  -l, --limit=N    list at most N (1 to 100000, the default)\n"
		"  --json           each function's refused modes and why\n",
};
