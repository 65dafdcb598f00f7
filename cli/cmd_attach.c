// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl attach TARGET [--mode M] [--latency] [--errors] [--by pid|comm|cgroup]
 * [--stacks[=DEPTH]] [--pid N] [--comm C] [--record NAME [--slower-than DURATION] [--args]]
 * [--if 'NAME OP VALUE']
 * [--record NAME] [--partial] [--dry-run]: --dry-run prints what would be
 * hooked, in which mode and why, touching nothing (daemon/plan.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/util.h"
#include "../lib/modes.h"
#include "../lib/spec.h"
#include "tracectl.h"

static void print_attach(json_object *r)
{
	json_object *a = jget(r, "attachment"), *sk = jget(r, "skipped");
	size_t i, n = jlen(sk);
	size_t nf = jlen(jget(a, "functions"));
	/* the daemon lists 1000 at most; skipped_total counts them all */
	long long total = jint(r, "skipped_total", (long long)n);

	printf("attached %lld: %s, mode %s, %zu function%s\n  why: %s\n", jint(a, "id", 0),
	       jtty(a, "target", "?"), jtty(a, "mode", "?"), nf, nf == 1 ? "" : "s",
	       jtty(a, "mode_reason", ""));
	if (n)
		printf("skipped %lld:\n", total > (long long)n ? total : (long long)n);
	for (i = 0; i < n && i < 20; i++) {
		json_object *s = json_object_array_get_idx(sk, i);

		printf("  %s: %s\n", jtty(s, "function", "?"), jtty(s, "reason", "?"));
	}
	if (n > 20)
		printf("  ... %zu more (--json lists them)\n", n - 20);
	if (total > (long long)n)
		printf("  ... and %lld not listed (the daemon lists %zu)\n", total - (long long)n, n);
}

/* --dry-run: what would be hooked and in which mode */
static void print_plan(json_object *p)
{
	json_object *f = jarr(p, "functions"), *sk = jarr(p, "skipped");
	size_t i, n = jlen(f), hooked = 0;

	for (i = 0; i < n; i++)
		hooked += jbool(json_object_array_get_idx(f, i), "hooked");
	printf("would attach %s: mode %s, %zu function%s (nothing done: --dry-run)\n  why: %s\n",
	       jtty(p, "target", "?"), jtty(p, "mode", "?"), hooked, hooked == 1 ? "" : "s",
	       jtty(p, "mode_reason", ""));
	for (i = 0; i < n && i < 20; i++) {
		json_object *h = json_object_array_get_idx(f, i);

		printf("  %-40s %s\n", jtty(h, "function", "?"),
		       jbool(h, "hooked") ? "hooked" : jtty(h, "reason", "skipped"));
	}
	if (n > 20)
		printf("  ... %zu more (--json lists them)\n", n - 20);
	if (jlen(sk))
		printf("skipped %zu (--json lists them)\n", jlen(sk));
}

static int attach_exec(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "latency", no_argument, NULL, 'l' },
		{ "errors", no_argument, NULL, 'e' },
		{ "by", required_argument, NULL, 'b' },
		{ "stacks", optional_argument, NULL, 's' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'c' },
		{ "record", required_argument, NULL, 'r' },
		{ "slower-than", required_argument, NULL, 'T' },	/* long only */
		{ "args", no_argument, NULL, 'A' },			/* long only */
		{ "if", required_argument, NULL, 'I' },			/* long only */
		{ "partial", no_argument, NULL, 'P' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ 0 }
	};
	json_object *args = json_object_new_object(), *r;
	unsigned long long pid, depth;
	char why[160];
	struct spec_if cond;
	bool by = false;
	__u64 ns;
	int c, ret;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "m:leb:s::p:c:r:Pn", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			json_object_object_add(args, "mode", json_object_new_string(optarg));
			break;
		case 'l':
			json_object_object_add(args, "latency", json_object_new_boolean(1));
			break;
		case 'e':
			json_object_object_add(args, "errors", json_object_new_boolean(1));
			break;
		case 'b':
			if (by || spec_by_parse(optarg) < 0) {
				json_object_put(args);
				return cli_usage(
					cli, &cmd_attach,
					by ? "--by: one key per attachment (pid, comm or cgroup)"
					   : "--by: pid, comm or cgroup, not '%s'",
					optarg);
			}
			by = true;
			json_object_object_add(args, "by", json_object_new_string(optarg));
			break;
		case 'T':	/* the daemon checks it again, with --latency and --record */
			if (spec_parse_duration(optarg, &ns, why, sizeof(why))) {
				json_object_put(args);
				return cli_usage(cli, &cmd_attach, "--slower-than: %s", why);
			}
			json_object_object_add(args, "slower_than", json_object_new_string(optarg));
			break;
		case 'A':
			json_object_object_add(args, "args", json_object_new_boolean(1));
			break;
		case 'I':	/* the syntax here; the name and the value against BTF: the daemon */
			if (spec_if_parse(optarg, &cond, why, sizeof(why))) {
				json_object_put(args);
				return cli_usage(cli, &cmd_attach, "%s", why);
			}
			json_object_object_add(args, "if", json_object_new_string(optarg));
			break;
		case 's':
			depth = TRACERD_STACK_DEPTH_DEFAULT;
			if (optarg && cli_number(cli, "--stacks", optarg, 1,
						 TRACERD_STACK_DEPTH_MAX, &depth)) {
				json_object_put(args);
				return EXIT_USAGE;
			}
			json_object_object_add(args, "stacks",
					       json_object_new_int64((long long)depth));
			break;
		case 'p':
			if (cli_number(cli, "--pid", optarg, 1, 0x3fffffff, &pid)) {
				json_object_put(args);
				return EXIT_USAGE;
			}
			json_object_object_add(args, "pid", json_object_new_int64((long long)pid));
			break;
		case 'c':
			json_object_object_add(args, "comm", json_object_new_string(optarg));
			break;
		case 'r':
			json_object_object_add(args, "record", json_object_new_string(optarg));
			break;
		case 'P':
			json_object_object_add(args, "partial", json_object_new_boolean(1));
			break;
		case 'n':
			json_object_object_add(args, "dry_run", json_object_new_boolean(1));
			break;
		default:
			json_object_put(args);
			return cli_usage(cli, &cmd_attach, "unknown or incomplete option '%s'",
					 argv[optind - 1]);
		}
	}
	if (optind != argc - 1) {
		json_object_put(args);
		return cli_usage(cli, &cmd_attach, "expected exactly one TARGET");
	}
	json_object_object_add(args, "target", json_object_new_string(argv[optind]));
	ret = client_call(cli, "attach", args, &r);
	if (ret)
		return ret;
	if (cli->json)
		cli_print_json(r);
	else if (jobj(r, "plan"))
		print_plan(jobj(r, "plan"));
	else
		print_attach(r);
	json_object_put(r);
	return 0;
}

/* "  -m, --mode=M     auto (default), fentry, ..." every mode of the table, wrapped */
static void print_modes(FILE *f)
{
	static const char indent[] = "                   ";
	int m, col = fprintf(f, "  -m, --mode=M     auto (default)");

	for (m = TRACERD_MODE_AUTO + 1; m < TRACERD_MODE_NR; m++) {
		const char *name = tracerd_mode_name(m);

		if (col + 2 + (int)strlen(name) > 79)
			col = fprintf(f, ",\n%s%s", indent, name) - 2;
		else
			col += fprintf(f, ", %s", name);
	}
	fputc('\n', f);
}

static void attach_help(FILE *f)
{
	fputs("  TARGET           a function, a glob of them (vfs_*), or tp:CATEGORY/NAME\n", f);
	print_modes(f);
	fputs("  -l, --latency    time entry to return (log2 histogram)\n"
	      "  -e, --errors     count the calls that return an error, by errno: a\n"
	      "                   return value of -1 to -4095 (functions returning int,\n"
	      "                   long or an ERR_PTR; a void one is refused), all 64 bits\n"
	      "                   of it when BTF says the return is 8 bytes wide; needs\n"
	      "                   a return hook: fentry, kprobe, kprobe-multi, fentry-multi\n"
	      "                   and the session modes, not tracepoints nor kmod modes\n"
	      "  -b, --by=KEY     count calls per KEY as well: pid (the process), comm\n"
	      "                   (the task's name) or cgroup (its cgroup v2; shown as\n"
	      "                   the path under /sys/fs/cgroup, else the id); one KEY\n"
	      "                   per attachment; the kernel keeps by_max_keys keys for\n"
	      "                   all attachments, the calls of keys past that count as\n"
	      "                   other; BPF modes only, not kmod modes\n"
	      "  -s, --stacks[=DEPTH]  count calls per kernel stack as well, DEPTH\n"
	      "                   frames (1 to 127, default 32; not above the kernel's\n"
	      "                   perf_event_max_stack), innermost first; the kernel keeps\n"
	      "                   stack_max_entries stacks for all attachments, the calls\n"
	      "                   whose stack found no room count as dropped; tracectl\n"
	      "                   stats --stacks shows them; BPF modes; with --errors,\n"
	      "                   only the failing calls' stacks, by errno\n"
	      "  -p, --pid=N      only calls of process N\n"
	      "  -c, --comm=C     only calls of tasks named C\n"
	      "  -r, --record=NAME  record each call into record_dir/NAME\n"
	      "      --slower-than=DURATION  record only the calls slower than DURATION\n"
	      "                   (10us, 2ms, 1s: an integer and ns, us, ms or s), each\n"
	      "                   with its duration, return value, task and, with\n"
	      "                   --stacks, its kernel stack; needs --latency and\n"
	      "                   --record NAME (refused without: where slow calls go is\n"
	      "                   said); every call is still counted and timed; stats\n"
	      "                   shows the slow ones' count; BPF modes\n"
	      "      --args       record each call with its arguments as BTF types them\n"
	      "                   (integers, enums by name, pointers as addresses, char *\n"
	      "                   as a kernel string of up to 63 bytes); needs --record\n"
	      "                   NAME; with --latency, fentry, fentry-multi and fsession\n"
	      "                   only (a return probe no longer sees them); BPF modes\n"
	      "      --if='NAME OP VALUE'  count (and record) only the calls whose integer\n"
	      "                   or enum argument NAME compares so (OP: == != < <= > >=,\n"
	      "                   VALUE an integer or an enumerator), e.g. 'count>=4096';\n"
	      "                   tested in the kernel: the other calls are not counted at\n"
	      "                   all; not with --errors; BPF modes\n"
	      "  -P, --partial    hook what the fd limit allows, skip the rest\n"
	      "  -n, --dry-run    say what would be hooked, in which mode and why\n", f);
}

const struct cmd_entry cmd_attach = {
	.name = "attach",
	.args = "TARGET [--mode M] [--latency] [--errors] [--by KEY] [--stacks[=DEPTH]] "
		"[--pid N] [--comm C] [--record NAME] [--slower-than DURATION] [--args] "
		"[--if 'NAME OP VALUE'] [--partial] [--dry-run]",
	.summary = "hook a function, a glob of them, or tp:CATEGORY/NAME",
	.exec = attach_exec,
	.print_help = attach_help,
};
