/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Control protocol between tracectl (or any client) and tracerd: one JSON
 * object per line over the Unix socket; docs/protocol.md is the reference
 * and tests/unit/test_proto.c checks the two agree.
 *
 *   request:  {"v": 1, "cmd": "attach", "args": {...}, "id": 7}
 *   reply:    {"v": 1, "id": 7, "ok": true, "result": {...}}
 *             {"v": 1, "id": 7, "ok": false,
 *              "error": {"code": "not_found", "message": "..."}}
 */
#ifndef TRACERD_LIB_PROTO_H
#define TRACERD_LIB_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#define TRACERD_PROTO_VERSION	1
#define TRACERD_PROTO_MAX_REQUEST	(64 * 1024)	/* bytes, newline included */
#define TRACERD_PROTO_MAX_REPLY	(64 * 1024 * 1024)

/* Stable error codes: names on the wire, exit codes in tracectl. */
enum proto_code {
	PROTO_OK = 0,
	PROTO_E_BAD_REQUEST,	/* malformed JSON, wrong types, bad arguments */
	PROTO_E_VERSION,	/* protocol version not spoken */
	PROTO_E_TOO_LARGE,	/* request larger than the limit */
	PROTO_E_PERMISSION,	/* peer may not do this */
	PROTO_E_UNKNOWN_COMMAND,
	PROTO_E_NOT_FOUND,	/* unknown function, tracepoint or attachment */
	PROTO_E_EXISTS,		/* already attached the same way */
	PROTO_E_UNAVAILABLE,	/* mode not available on this kernel */
	PROTO_E_ATTACH_FAILED,	/* the kernel refused the hook */
	PROTO_E_LIMIT,		/* too many matches / attachments */
	PROTO_E_INTERNAL,
	PROTO_E_NR,
};

const char *proto_code_name(enum proto_code code);
/* wire name -> code; unknown names map to PROTO_E_INTERNAL */
enum proto_code proto_code_parse(const char *name);
/* tracectl exit status for a daemon error code (see docs/protocol.md) */
int proto_code_exit(enum proto_code code);
/*
 * The one errno -> protocol code table (docs/protocol.md, "Error codes"):
 * EINVAL bad_request, ENOENT/ESRCH/ENXIO not_found, EEXIST exists,
 * EOPNOTSUPP/ENODEV unavailable, ENOSPC/E2BIG/EMFILE limit,
 * ENOMEM/EIO/EPROTO internal, anything else (EREMOTEIO: the kernel
 * refused) attach_failed; 0 ok. With proto_code_exit: errno -> code -> exit.
 */
enum proto_code proto_code_errno(int err);
/*
 * The {glob, limit} arguments of the `functions` and `sites` requests:
 * no other field, glob absent (all) or non-empty, limit 1..max (default
 * max). PROTO_OK, or PROTO_E_BAD_REQUEST with msg naming the command.
 */
enum proto_code proto_glob_limit_args(json_object *args, const char *cmd, long long max,
				      const char **glob, size_t *limit, char *msg, size_t msglen);

/* tracectl exit statuses */
enum tracectl_exit {
	EXIT_OK_ = 0,
	EXIT_FAILURE_ = 1,	/* daemon reported an error not listed below */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_NO_DAEMON = 3,	/* cannot connect: daemon not running */
	EXIT_PERMISSION = 4,	/* socket or daemon refused this user */
	EXIT_NOT_FOUND = 5,	/* unknown target or attachment */
	EXIT_UNAVAILABLE = 6,	/* mode unavailable / kernel refused attach */
	EXIT_PROTOCOL = 7,	/* bad reply, version mismatch, request too large */
};

struct proto_request {
	json_object *root;	/* owned */
	const char *cmd;	/* points into root */
	json_object *args;	/* points into root; an object, maybe empty */
	json_object *id;	/* points into root, or NULL */
};

/*
 * Parse one request line (without its newline). On error returns the code
 * and fills msg; req->root is then NULL (but req->id is set if it could be
 * read, so the reply can carry it: caller must json_object_get it first).
 */
enum proto_code proto_parse_request(const char *line, size_t len, struct proto_request *req,
				    char *msg, size_t msglen);
void proto_request_free(struct proto_request *req);

/* Build requests and replies (new objects, caller puts). */
json_object *proto_request_new(const char *cmd, json_object *args);
json_object *proto_reply_ok(json_object *id, json_object *result);
json_object *proto_reply_error(json_object *id, enum proto_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Serialize as one line, newline-terminated; caller frees. */
char *proto_serialize(json_object *obj, size_t *len);
/*
 * One ok reply written in pieces (a result that grows with the kernel or
 * the config: daemon/control.c, control_stream), byte for byte what
 * proto_serialize makes of the whole reply {"v", "id", "ok": true,
 * "result": {KEY: [ITEMS...], REST...}}: the head up to KEY's '[', each
 * item (a ',' before all but the first), then the tail from ']' to the
 * newline with rest's members after KEY's. Each is malloc'd; NULL on ENOMEM.
 */
char *proto_stream_head(json_object *id, const char *key, size_t *len);
char *proto_stream_item(json_object *item, bool first, size_t *len);
char *proto_stream_tail(json_object *rest, size_t *len);

/* One argument a command accepts, and its JSON type. */
struct proto_field {
	const char *name;
	enum json_type type;
};

/*
 * Every member of args must be one of fields (a {NULL} terminated table)
 * with its type: else bad_request naming the member ("attach: unknown
 * argument 'pdi'", "... must be an integer, not null").
 */
enum proto_code proto_args_check(json_object *args, const char *cmd,
				 const struct proto_field *fields, char *msg, size_t msglen);

/* Argument accessors: the default when missing; *bad set when null or another type. */
const char *proto_arg_str(json_object *args, const char *key, bool *bad);
bool proto_arg_bool(json_object *args, const char *key, bool *bad);
long long proto_arg_int(json_object *args, const char *key, long long def, bool *bad);

#endif
