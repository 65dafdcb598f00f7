/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket: JSON lines (docs/protocol.md) over a Unix stream
 * socket inside the libevent loop; peers checked with SO_PEERCRED and
 * SO_PEERGROUPS on accept; every request size-limited and version-checked.
 */
#ifndef TRACERD_CONTROL_H
#define TRACERD_CONTROL_H

#include <json-c/json.h>
#include <event2/buffer.h>
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

/*
 * From a command handler: the reply is an ok result {KEY: [items...],
 * rest...} too big to build whole (every function of the kernel), written
 * in pieces (lib/proto.h, proto_stream_*) from the event loop: step(ctx,
 * out) appends the next few items to out (a bounded amount of work), and
 * returns 1 while more are to come, 0 once it appended the tail, -errno to
 * give up (the connection is closed: a cut reply). Steps run between the
 * loop's other work, CONTROL_STREAM_BUDGET_NS per turn shared by all
 * streams, and pause while the client's unsent output exceeds
 * CONTROL_MAX_PENDING / 2, so a client that does not read costs that much
 * memory at most. A client streams one reply at a time (its next requests
 * wait); CONTROL_STREAMS_MAX in all. 0 (the head is written, ctx is owned
 * by the stream: free(ctx) when it ends), or -EBUSY (that many streams
 * already, msg says so) / -ENOMEM, ctx still the caller's.
 */
struct control_stream_ops {
	int (*step)(struct tracerd *d, void *ctx, struct evbuffer *out);
	void (*free)(void *ctx);
};
int control_stream(struct tracerd *d, const char *key, const struct control_stream_ops *ops,
		   void *ctx, char *msg, size_t msglen);

/* Listen on d->cfg.socket and serve the commands of the table (by name). */
int control_start(struct tracerd *d, const struct command *commands);
void control_stop(struct tracerd *d);

#endif
