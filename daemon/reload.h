/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reload.c: the config's attachments at start-up; re-read the config and
 * reconcile them (SIGHUP, the control command `reload`). Its state is
 * d->reload (tracerd.h); lib/config.c parses the files.
 */
#ifndef TRACERD_RELOAD_H
#define TRACERD_RELOAD_H

#include <stddef.h>
#include <json-c/json.h>
#include "../lib/proto.h"
#include "tracerd.h"

struct reload_result {
	unsigned int attached, detached, failed;	/* failed: lines whose attach failed */
};
/* 0, or -errno when the new config was refused (err says why; nothing changed) */
int reload_config(struct tracerd *d, const struct reload_opts *o, struct reload_result *r,
		  char *err, size_t errlen);
/* attach d->cfg's lines at start-up; failures are logged, counted, in STATUS= */
void reload_attach_startup(struct tracerd *d);
/* {"attach_lines", "files", "attach_failed", "failures": [{"line", "file", "target",
 * "error"}], "reloads"} */
json_object *reload_state_json(const struct tracerd *d);
void reload_state_free(struct tracerd *d);
enum proto_code cmd_reload(struct tracerd *d, json_object *args, json_object **result,
			   char *msg, size_t msglen);

#endif
