// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl reload: the daemon re-reads its config and answers when done
 * (systemd's ExecReload=, so `systemctl reload` waits and fails on a
 * refused config). Exit 0 when the config was taken, even if some attach
 * lines failed (said on stderr); non-zero when it was refused.
 */
#include <stdio.h>
#include "tracectl.h"

static int reload_exec(struct cli *cli, int argc, char **argv)
{
	json_object *r;
	long long failed;
	int ret;

	if (argc > 1)
		return cli_usage(cli, &cmd_reload, "unexpected argument '%s'", argv[1]);
	ret = client_call(cli, "reload", NULL, &r);
	if (ret)
		return ret;
	failed = jint(r, "failed", 0);
	if (cli->json) {
		cli_print_json(r);
	} else {
		printf("reloaded: %lld attached, %lld detached, %lld attachments now\n",
		       jint(r, "attached", 0), jint(r, "detached", 0), jint(r, "attachments", 0));
		if (failed)
			fprintf(stderr, "tracectl: %lld config attach line%s failed "
				"(tracectl status, or the daemon's log)\n", failed,
				failed == 1 ? "" : "s");
	}
	json_object_put(r);
	return 0;
}

const struct cmd_entry cmd_reload = {
	.name = "reload",
	.args = "",
	.summary = "re-read the daemon's config; waits for the result",
	.exec = reload_exec,
};
