/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command layer (commands.c): the only place where the daemon's
 * objects and -errno become the control protocol's JSON and codes.
 */
#ifndef TRACERD_COMMANDS_H
#define TRACERD_COMMANDS_H

#include <json-c/json.h>
#include "../lib/proto.h"
#include "tracerd.h"

/* JSON views (docs/protocol.md: list, attach) */
json_object *attachment_json(const struct attachment *a);
/* functions.c: the `functions` command (tracectl functions) */
enum proto_code cmd_functions(struct tracerd *d, json_object *args, json_object **result,
			      char *msg, size_t msglen);

/* stats.c: the `stats` command (tracectl stats, top) */
enum proto_code cmd_stats(struct tracerd *d, json_object *args, json_object **result, char *msg,
			  size_t msglen);

/* sites.c: the `sites` command (tracectl sites --live) */
enum proto_code cmd_sites(struct tracerd *d, json_object *args, json_object **result,
			  char *msg, size_t msglen);

#endif
