// SPDX-License-Identifier: GPL-2.0-or-later
/* tracectl status: is the daemon up, which modes work here and why not. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "tracectl.h"

static void print_status(json_object *r)
{
	json_object *f = jobj(r, "features"), *k = jobj(r, "kmod"), *c = jobj(r, "config");

	printf("tracerd %s (pid %lld), up %.1f s, kernel %s %s, %lld attachment%s\n",
	       jtty(r, "version", "?"), jint(r, "pid", 0),
	       jnum(r, "uptime_s", 0), jtty(r, "kernel", "?"),
	       jtty(r, "arch", "?"), jint(r, "attachments", 0),
	       jint(r, "attachments", 0) == 1 ? "" : "s");
	if (jint(c, "attach_failed", 0))
		printf("config: %lld of %lld attach lines failed at the last start-up or reload "
		       "(tracectl --json status lists them)\n", jint(c, "attach_failed", 0),
		       jint(c, "attach_lines", 0));
	if (!strcmp(jstr(jget(c, "reloads"), "last", ""), "refused"))
		printf("config: the last reload was refused, the running configuration stays "
		       "(tracectl --json status says why)\n");
	printf("modes (probed on %s):\n", jtty(r, "probe_function", "?"));
	if (!f)
		f = json_object_new_object();	/* absent or mistyped: no modes */
	else
		json_object_get(f);
	json_object_object_foreach(f, name, v) {
		printf("  %-13s %-3s %s\n", tty_str(name), jbool(v, "available") ? "yes" : "no",
		       jtty(v, "reason", ""));
	}
	json_object_put(f);
	if (jbool(k, "present")) {
		json_object *cfg = jobj(k, "config");
		const char *sep = "";

		printf("kmod: present, ABI %lld.%lld, module %s\n", jint(k, "abi_major", 0),
		       jint(k, "abi_minor", 0), jtty(k, "module_version", "?"));
		printf("kernel config (as the module was built):");
		if (cfg) {
			json_object_object_foreach(cfg, cname, cv) {
				if (json_object_is_type(cv, json_type_boolean) &&
				    json_object_get_boolean(cv)) {
					printf("%s %s", sep, tty_str(cname));
					sep = ",";
				}
			}
		}
		printf("%s\n", *sep ? "" : " (none reported)");
	} else
		printf("%s\n", jtty(k, "reason", "kmod: absent"));
}

static int status_exec(struct cli *cli, int argc, char **argv)
{
	if (argc > 1)
		return cli_usage(cli, &cmd_status, "unexpected argument '%s'", argv[1]);
	return client_show(cli, "status", NULL, print_status);
}

const struct cmd_entry cmd_status = {
	.name = "status",
	.args = "",
	.summary = "daemon state, and which modes this kernel allows (and why not)",
	.exec = status_exec,
};
