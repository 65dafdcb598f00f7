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
/*
 * How a reload ended: err 0 with r, or -errno with msg (refused: a reload
 * queued behind another, whose files were bad by then; -ECANCELED: the
 * daemon stopped first).
 */
typedef void (*reload_done_fn)(struct tracerd *d, void *ctx, int err,
			       const struct reload_result *r, const char *msg);
/*
 * Re-read the config and apply it in steps from the event loop: 0, and
 * done(ctx) (may be NULL) once every line has been tried; or -errno when
 * the new config was refused at once (err says why; nothing changed, done
 * not called). While one is being applied, another is queued behind it.
 */
int reload_config(struct tracerd *d, const struct reload_opts *o, reload_done_fn done, void *ctx,
		  char *err, size_t errlen);
/* the reload being applied: {"detached", "to_detach", "lines_done", "lines", "queued"}, or NULL */
json_object *reload_applying_json(const struct tracerd *d);
/* Free the step event (before the event base goes). */
void reload_loop_stop(struct tracerd *d);
/* attach d->cfg's lines at start-up; failures are logged, counted, in STATUS= */
void reload_attach_startup(struct tracerd *d);
/* {"attach_lines", "files", "attach_failed", "failures": [{"line", "file", "target",
 * "error"}], "reloads", "applying"} */
json_object *reload_state_json(const struct tracerd *d);
void reload_state_free(struct tracerd *d);
enum proto_code cmd_reload(struct tracerd *d, json_object *args, json_object **result,
			   char *msg, size_t msglen);

#endif
