/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracectl: one file per command family (cmd_*.c), each exporting a
 * struct cmd_entry; main.c finds them by name or unique prefix. Thin
 * client: requests go to tracerd, answers are printed (tables, or the
 * daemon's JSON with --json). Exit codes: lib/proto.h, docs/protocol.md.
 */
#ifndef TRACECTL_H
#define TRACECTL_H

#include <stdbool.h>
#include <json-c/json.h>
#include "../lib/jsonutil.h"
#include "../lib/proto.h"
#include "../lib/strutil.h"

#define CLI_TIMEOUT_DEFAULT_S	5	/* read commands, without --timeout */
/* attach, detach, reload: a glob of 1000 fentry functions takes ~1 min under emulation */
#define CLI_TIMEOUT_MUTATE_S	120

struct cli {
	const char *socket;
	bool json;
	const char *prog;
	double timeout;		/* --timeout S; 0: none; < 0: the default */
};

struct cmd_entry {
	const char *name;
	const char *args;	/* usage after the name */
	const char *summary;
	int (*exec)(struct cli *cli, int argc, char **argv);
	const char *help;	/* options, one per line, for `tracectl NAME --help` */
	/* instead of help, when a line of it is made from a table (attach: the modes) */
	void (*print_help)(FILE *f);
	bool own_help;		/* exec handles --help itself */
};

extern const struct cmd_entry cmd_status, cmd_attach, cmd_list, cmd_stats, cmd_detach;
extern const struct cmd_entry cmd_bench;	/* cmd_bench.c */
extern const struct cmd_entry cmd_top;		/* cmd_top.c */
extern const struct cmd_entry cmd_reload;	/* cmd_reload.c */
extern const struct cmd_entry cmd_sites;	/* cmd_sites.c: offline, no daemon */
extern const struct cmd_entry cmd_functions;	/* cmd_functions.c */
extern const struct cmd_entry cmd_flame;	/* cmd_flame.c */

/*
 * Stacks (attachments made with --stacks), shared by stats --stacks and
 * flame (cli/cmd_flame.c; the model and renderers: cli/stacks.h).
 */
enum stacks_format { STACKS_TEXT, STACKS_FOLDED, STACKS_PPROF, STACKS_SVG };
extern const char *const stacks_format_names[];	/* indexed by the enum */
extern const char stacks_no_pprof[];	/* why there is no pprof in this build */
/* fmt to out (NULL: stdout) allowed? 0, else the usage error's status (printed) */
int stacks_check_output(struct cli *cli, const struct cmd_entry *cmd, enum stacks_format fmt,
			const char *out);
/* stats with args (+ "stacks": true) rendered as fmt to out (NULL: stdout): 0 or exit */
int stacks_command(struct cli *cli, json_object *args, enum stacks_format fmt, const char *out);
/* each stats row of result without stacks, a line on f: that it has none and how to get them */
void stacks_note_without(json_object *result, FILE *f, const char *prefix);
struct stacks;
/* 0, or the exit status of a reply (result) that has no stacks at all (said why) */
int stacks_require(struct cli *cli, const struct stacks *s, json_object *result);

/*
 * Send cmd with args (consumed) to the daemon. On success *result is the
 * result object (caller puts) and 0 is returned; otherwise the error has
 * been printed and the exit status is returned.
 */
int client_call(struct cli *cli, const char *cmd, json_object *args, json_object **result);
/* client_call, then the result as JSON (--json) or through print; 0 or the
 * exit status. */
int client_show(struct cli *cli, const char *cmd, json_object *args,
		void (*print)(json_object *result));
/* Seconds command cmd may wait for the daemon (0: forever): --timeout, else
 * CLI_TIMEOUT_DEFAULT_S, CLI_TIMEOUT_MUTATE_S for attach, detach and reload, none
 * for bench. */
double client_timeout(const struct cli *cli, const char *cmd);
/*
 * Connect to cli->socket (connect() bounded by timeout_s, 0: none) and check
 * with SO_PEERCRED that root (or $TRACERD_UID) serves it: the fd, or -errno
 * with msg set (-EPERM: an untrusted peer, -ETIMEDOUT, -ENOENT, ...).
 */
int client_connect(struct cli *cli, double timeout_s, char *msg, size_t msglen);
/*
 * Send one request line on fd and read its reply line (up to the
 * protocol's largest reply), within timeout_s (0: no limit). 0 and *line
 * (malloc'd, the newline cut), or -errno (-ETIMEDOUT, -EPROTO: no or an
 * oversized line) and *line NULL.
 */
int client_exchange(int fd, const char *req, size_t len, double timeout_s, char **line);
/* Print an error (JSON object on stdout with --json, else stderr); returns exit. */
int cli_error(struct cli *cli, int exit, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Usage error for a command: message + its usage line; returns EXIT_USAGE. */
int cli_usage(struct cli *cli, const struct cmd_entry *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * A decimal in min..max (parse_dec: no sign, 0x or leading 0): 0, else the
 * usage error "WHAT 'S': why" has been printed and EXIT_USAGE is returned.
 */
int cli_number(struct cli *cli, const char *what, const char *s, unsigned long long min,
	       unsigned long long max, unsigned long long *out);
/*
 * An argument that starts with a digit or a sign (after any blanks) is an
 * attachment id and
 * must be one: 0 (*id set); else -EXIT_USAGE (printed). 1: not an id (a
 * target).
 */
int cli_attachment_id(struct cli *cli, const char *s, unsigned long long *id);
/* --help or -h among a command's arguments argv[1..] (before any "--"): the
 * usage, whatever else is there. */
bool cli_wants_help(int argc, char **argv);
/* Print a JSON object on stdout (the --json output). */
void cli_print_json(json_object *o);
/* Accessors that tolerate missing keys. */
const char *jstr(json_object *o, const char *key, const char *def);
long long jint(json_object *o, const char *key, long long def);
bool jbool(json_object *o, const char *key);
json_object *jget(json_object *o, const char *key);
/*
 * Replies and result files are untrusted: these never hand a NULL or a
 * wrongly typed object to json-c (whose array and object walkers crash on
 * one). jobj/jarr: o[key] when an object/array, else NULL; jlen: the
 * length of an array, 0 for anything else; jnum: an int or double, else def.
 */
json_object *jobj(json_object *o, const char *key);
json_object *jarr(json_object *o, const char *key);
size_t jlen(json_object *arr);
double jnum(json_object *o, const char *key, double def);
/* jstr escaped for a terminal (lib/strutil.h tty_str): what tables print. */
static inline const char *jtty(json_object *o, const char *key, const char *def)
{
	return tty_str(jstr(o, key, def));
}

#endif
