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

/*
 * The one errno -> protocol code table (docs/protocol.md, "Error codes"):
 * EINVAL bad_request, ENOENT/ESRCH/ENXIO not_found, EEXIST exists, EOPNOTSUPP/ENODEV
 * unavailable, ENOSPC/E2BIG limit, ENOMEM/EIO/EPROTO internal, anything
 * else (EREMOTEIO: the kernel refused) attach_failed.
 */
enum proto_code command_code(int err);

/* JSON views (docs/protocol.md: list, attach) */
json_object *attachment_json(const struct attachment *a);
json_object *skipped_json(const struct skip_list *l);
/* the kernel config the module reports (TRACERD_FEAT_*; NULL without it) */
json_object *kmod_config_json(const struct tracerd *d);
/*
 * The {glob, limit} arguments of the `functions` and `sites` requests:
 * no other field, glob absent (all) or non-empty, limit 1..max (default
 * max). PROTO_OK, or PROTO_E_BAD_REQUEST with msg naming the command.
 */
enum proto_code glob_limit_args(json_object *args, const char *cmd, long long max,
				const char **glob, size_t *limit, char *msg, size_t msglen);
/* functions.c: the `functions` command (tracectl functions) */
enum proto_code cmd_functions(struct tracerd *d, json_object *args, json_object **result,
			      char *msg, size_t msglen);

/* sites.c: the `sites` command (tracectl sites --live) */
enum proto_code cmd_sites(struct tracerd *d, json_object *args, json_object **result,
			  char *msg, size_t msglen);

#endif
