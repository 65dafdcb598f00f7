/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket: JSON lines (docs/protocol.md) over a Unix stream
 * socket inside the libevent loop; peers checked with SO_PEERCRED and
 * SO_PEERGROUPS on accept; every request size-limited and version-checked.
 */
#ifndef TRACERD_CONTROL_H
#define TRACERD_CONTROL_H

#include <json-c/json.h>
#include "../lib/proto.h"
#include "tracerd.h"

/* A command: handlers fill *result (a new object) or msg. */
struct command {
	const char *name;
	bool mutate;	/* needs root or admin_group */
	enum proto_code (*fn)(struct tracerd *d, json_object *args, json_object **result,
			      char *msg, size_t msglen);
};

/* commands.c: the table, NULL-terminated by name; main hands it to control_start */
extern const struct command tracerd_commands[];

/*
 * From a command handler: its reply comes later, through control_answer
 * (the handler's own return is then ignored). The client gets no idle
 * timeout meanwhile; one that goes away is answered into the void (w
 * stays valid until answered). NULL: out of memory, or not in a handler.
 */
struct control_wait;
struct control_wait *control_wait(struct tracerd *d);
/* Send the reply (PROTO_OK: result, taken; else msg) and free w. */
void control_answer(struct control_wait *w, enum proto_code code, json_object *result,
		    const char *msg);

/* Listen on d->cfg.socket and serve the commands of the table (by name). */
int control_start(struct tracerd *d, const struct command *commands);
void control_stop(struct tracerd *d);

#endif
