// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl: command-line client of tracerd. Global options (--socket,
 * --json, --timeout) are accepted anywhere on the line, dump's too; the
 * command is found by name or unique prefix (tmux's cmd_find), ambiguity
 * reported; `CMD --help` prints the command's usage from the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "../lib/config.h"
#include "dump.h"
#include "tracectl.h"

static const struct cmd_entry *const commands[] = {
	&cmd_status, &cmd_attach, &cmd_list, &cmd_stats, &cmd_top, &cmd_detach, &cmd_bench,
	&cmd_reload, &cmd_sites, &cmd_functions, &cmd_flame, NULL,
};

static void usage(FILE *f)
{
	const struct cmd_entry *const *c;

	fprintf(f, "Usage: tracectl [--socket PATH] [--json] [--timeout S] COMMAND [ARGS]...\n"
		   "Control the tracerd kernel tracing daemon.\n\nCommands:\n");
	for (c = commands; *c; c++)
		fprintf(f, "  %-8s %-42s %s\n", (*c)->name, (*c)->args, (*c)->summary);
	fprintf(f, "  %-8s %-42s %s\n", "dump", "FILE... [--format F] [--follow]",
		"print a recording (offline, no daemon)");
	fprintf(f,
		"\nOptions:\n"
		"  -s, --socket=PATH  daemon socket (default %s, or $TRACERD_SOCKET)\n"
		"  -j, --json         machine output: JSON on stdout, errors as {\"error\": ...}\n"
		"  -T, --timeout=S    wait at most S seconds for the daemon (default %d,\n"
		"                     attach, detach, reload and functions %d, bench no\n"
		"                     limit; 0: no limit)\n"
		"  -h, --help         show this help and exit\n"
		"  -V, --version      show version and exit\n\n"
		"Global options go before or after the command; tracectl COMMAND --help\n"
		"shows a command's own.\n\n"
		"Exit status: 0 ok, 1 daemon error, 2 usage, 3 daemon not running,\n"
		"4 permission denied, 5 not found, 6 mode unavailable or attach refused,\n"
		"7 protocol error or timeout.\n",
		TRACERD_DEFAULT_SOCKET, CLI_TIMEOUT_DEFAULT_S, CLI_TIMEOUT_MUTATE_S);
}

/*
 * --timeout S: a plain decimal, seconds with an optional fraction, no sign,
 * no leading zero but for "0" and "0.x", at most a year (0: no limit).
 */
static int parse_timeout(const char *s, double *out)
{
	const char *p = s;
	char *end;

	if (!*p || (p[0] == '0' && p[1] && p[1] != '.'))
		return -1;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p == s || (*p == '.' && !(p[1] >= '0' && p[1] <= '9')))
		return -1;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (*p)
		return -1;
	*out = strtod(s, &end);
	if (*end || !isfinite(*out) || *out < 0 || *out > 365.0 * 86400)
		return -1;
	return 0;
}

/* Remove global options from argv (anywhere); returns new argc, -1 or -2 (bad timeout). */
static int global_options(struct cli *cli, int argc, char **argv, bool *help, bool *version)
{
	int i, j = 1;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json") || !strcmp(a, "-j")) {
			cli->json = true;
		} else if (!strcmp(a, "--socket") || !strcmp(a, "-s")) {
			if (++i >= argc)
				return -1;
			cli->socket = argv[i];
		} else if (!strncmp(a, "--socket=", 9)) {
			cli->socket = a + 9;
		} else if (!strcmp(a, "--timeout") || !strcmp(a, "-T") ||
			   !strncmp(a, "--timeout=", 10)) {
			const char *v = a[2] == 't' && a[9] == '=' ? a + 10 : NULL;

			if (!v && ++i >= argc)
				return -2;
			if (parse_timeout(v ? v : argv[i], &cli->timeout))
				return -2;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			*version = true;
		} else if (j == 1 && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
			*help = true;
		} else if (!strcmp(a, "--")) {
			while (i < argc)
				argv[j++] = argv[i++];
			break;
		} else {
			argv[j++] = argv[i];
		}
	}
	argv[j] = NULL;
	return j;
}

static const struct cmd_entry *find_command(struct cli *cli, const char *name, int *exit)
{
	const struct cmd_entry *const *c, *found = NULL;
	size_t len = strlen(name), off = 0;
	char amb[256] = "";
	int n = 0;

	for (c = commands; *c; c++) {
		if (!strcmp((*c)->name, name))
			return *c;
		if (!len || strncmp((*c)->name, name, len))
			continue;
		found = *c;
		n++;
		off += snprintf(amb + off, off < sizeof(amb) ? sizeof(amb) - off : 0, "%s%s",
				n > 1 ? ", " : "", (*c)->name);
	}
	if (n > 1) {
		*exit = cli_error(cli, EXIT_USAGE, "usage", "ambiguous command '%s': %s", name,
				  amb);
		return NULL;
	}
	if (!found)
		*exit = cli_error(cli, EXIT_USAGE, "usage",
				  "unknown command '%s' (tracectl --help)", name);
	return found;
}

/* dump with the global --json (given anywhere) passed on as its own */
static int dump_command(struct cli *cli, int argc, char **argv)
{
	char **v = calloc((size_t)argc + 2, sizeof(*v));
	int n = argc, ret;

	if (!v)
		return cli_error(cli, EXIT_FAILURE_, "error", "out of memory");
	memcpy(v, argv, (size_t)argc * sizeof(*v));
	if (cli->json) {	/* before any "--", where dump's getopt reads options */
		memmove(v + 2, v + 1, (size_t)(argc - 1) * sizeof(*v));
		v[1] = "--json";
		n++;
	}
	ret = tracectl_dump(n, v);
	free(v);
	return ret;
}

/* `tracectl CMD --help`: the command's usage line, summary and options */
static int command_help(const struct cmd_entry *cmd)
{
	printf("Usage: tracectl %s %s\n%s\n", cmd->name, cmd->args, cmd->summary);
	if (cmd->print_help) {
		printf("\nOptions:\n");
		cmd->print_help(stdout);
	} else if (cmd->help) {
		printf("\nOptions:\n%s", cmd->help);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cli cli = { .socket = getenv("TRACERD_SOCKET"), .prog = "tracectl", .timeout = -1 };
	const struct cmd_entry *cmd;
	bool help = false, version = false;
	int exit = EXIT_USAGE;

	if (!cli.socket || !cli.socket[0])
		cli.socket = TRACERD_DEFAULT_SOCKET;
	argc = global_options(&cli, argc, argv, &help, &version);
	if (argc == -2)
		return cli_error(&cli, EXIT_USAGE, "usage",
				 "--timeout needs seconds: a decimal number such as 5 or 0.5");
	if (argc < 0)
		return cli_error(&cli, EXIT_USAGE, "usage", "--socket needs a path");
	if (help) {
		usage(stdout);
		return 0;
	}
	if (version) {
		printf("tracectl %s\n", TRACERD_VERSION);
		return 0;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* offline, its own options (cli/dump.c); the global ones are taken anywhere */
	if (!strcmp(argv[1], "dump"))
		return dump_command(&cli, argc - 1, argv + 1);
	cmd = find_command(&cli, argv[1], &exit);
	if (!cmd)
		return exit;
	if (!cmd->own_help && cli_wants_help(argc - 1, argv + 1))
		return command_help(cmd);
	return cmd->exec(&cli, argc - 1, argv + 1);
}
