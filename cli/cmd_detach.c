// SPDX-License-Identifier: GPL-2.0-or-later
/* tracectl detach ID|TARGET|--all */
#include <stdio.h>
#include <string.h>
#include "../lib/util.h"
#include "tracectl.h"

static int detach_exec(struct cli *cli, int argc, char **argv)
{
	json_object *args, *r, *ids;
	unsigned long long id;
	size_t i, n;
	int ret;

	if (argc != 2)
		return cli_usage(cli, &cmd_detach, "expected one ID, TARGET or --all");
	args = json_object_new_object();
	if (!strcmp(argv[1], "--all"))
		json_object_object_add(args, "all", json_object_new_boolean(1));
	else if (!(ret = cli_attachment_id(cli, argv[1], &id)))
		json_object_object_add(args, "id", json_object_new_int64((long long)id));
	else if (ret < 0) {
		json_object_put(args);
		return -ret;
	} else
		json_object_object_add(args, "target", json_object_new_string(argv[1]));
	ret = client_call(cli, "detach", args, &r);
	if (ret)
		return ret;
	if (cli->json) {
		cli_print_json(r);
	} else {
		ids = jget(r, "detached");
		n = jlen(ids);
		printf("detached %zu attachment%s", n, n == 1 ? "" : "s");
		for (i = 0; i < n; i++)
			printf("%s%s", i ? " " : ": ",
			       tty_str(json_object_get_string(json_object_array_get_idx(ids, i))));
		printf("\n");
	}
	json_object_put(r);
	return 0;
}

const struct cmd_entry cmd_detach = {
	.name = "detach",
	.args = "ID|TARGET|--all",
	.summary = "remove attachments",
	.exec = detach_exec,
};
