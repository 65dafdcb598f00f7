// SPDX-License-Identifier: GPL-2.0-or-later
/* tracectl list: attachments with their mode and why that mode. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "tracectl.h"

/*
 * kmod attachments: where each function's ftrace call site branches now
 * ("direct": straight to the kmod-direct trampoline; "caller": through
 * ftrace_caller or an ops trampoline; "nop").
 */
static void print_sites(json_object *sites)
{
	size_t i, n = jlen(sites);

	for (i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(sites, i);

		if (jget(s, "path"))
			printf("     site %s: %s%s%s\n", jtty(s, "function", "?"),
			       jtty(s, "path", "?"), jget(s, "target") ? " -> " : "",
			       jtty(s, "target", ""));
		else
			printf("     site %s: %s\n", jtty(s, "function", "?"),
			       jtty(s, "error", "?"));
	}
}

/* record=NAME: whether it records now, or why it stopped. */
static void print_recording(json_object *rec)
{
	if (!rec)
		return;
	if (jbool(rec, "active"))
		printf("     record %s: recording to %s\n", jstr(rec, "name", "?"),
		       jstr(rec, "file", "?"));
	else
		printf("     record %s: STOPPED: %s\n", jstr(rec, "name", "?"),
		       jstr(rec, "error", "?"));
}

/* attaching or detaching: how far it got */
static void print_progress(json_object *a)
{
	json_object *p = jget(a, "progress");

	if (p && jbool(p, "resolving"))
		printf("     %s: resolving its functions\n", jtty(a, "state", "?"));
	else if (p)
		printf("     %s: %lld of %lld functions done, %lld hooked\n", jtty(a, "state", "?"),
		       jint(p, "done", 0), jint(p, "total", 0), jint(p, "hooked", 0));
}

static void print_list(json_object *r)
{
	json_object *arr = jget(r, "attachments");
	size_t i, n = jlen(arr);
	char since[32], pid[16];
	struct tm tm;
	time_t t;

	printf("%-4s %-28s %-13s %5s %-3s %-8s %-8s %s\n", "ID", "TARGET", "MODE", "FUNCS",
	       "LAT", "PID", "SINCE", "WHY");
	for (i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(arr, i);

		t = (time_t)jnum(a, "since", 0);
		localtime_r(&t, &tm);
		strftime(since, sizeof(since), "%H:%M:%S", &tm);
		snprintf(pid, sizeof(pid), "%lld", jint(a, "pid", 0));
		printf("%-4lld %-28s %-13s %5zu %-3s %-8s %-8s %s\n", jint(a, "id", 0),
		       jtty(a, "target", "?"), jtty(a, "mode", "?"),
		       jlen(jget(a, "functions")),
		       jbool(a, "latency") ? "yes" : "no", jint(a, "pid", 0) ? pid : "-", since,
		       jtty(a, "mode_reason", ""));
		if (strcmp(jstr(a, "owner", "user"), "user"))	/* bench's: its own, not a user's */
			printf("     owner %s%s%s\n", jtty(a, "owner", "?"),
			       jget(a, "variant") ? ", variant " : "", jtty(a, "variant", ""));
		if (jbool(a, "errors"))
			printf("     counts error returns by errno (attach --errors; tracectl "
			       "stats)\n");
		if (jstr(a, "by", NULL))
			printf("     counts calls by %s (attach --by; tracectl stats)\n",
			       jtty(a, "by", "?"));
		print_progress(a);
		print_sites(jget(a, "sites"));
		print_recording(jget(a, "recording"));
	}
}

static int list_exec(struct cli *cli, int argc, char **argv)
{
	if (argc > 1)
		return cli_usage(cli, &cmd_list, "unexpected argument '%s'", argv[1]);
	return client_show(cli, "list", NULL, print_list);
}

const struct cmd_entry cmd_list = {
	.name = "list",
	.args = "",
	.summary = "attachments: id, target, mode, why that mode, since; kmod call sites",
	.exec = list_exec,
};
