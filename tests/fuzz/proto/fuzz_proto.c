// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: one control-protocol request line, as the daemon's
 * client_handle() sees it (lib/proto.c), then what the commands do with
 * the arguments (typed accessors, spec validation) and the error reply.
 * Invariant checked: whatever the request, the reply is one JSON line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../../lib/proto.h"
#include "../../../lib/spec.h"
#include "../../../lib/modes.h"
#include "../../../lib/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reply must serialize to exactly one parseable JSON line. */
static void check_reply(json_object *reply)
{
	size_t len;
	char *s = proto_serialize(reply, &len);
	json_object *back;

	if (!s)
		abort();
	if (len == 0 || s[len - 1] != '\n' || memchr(s, '\n', len - 1))
		abort();
	back = json_tokener_parse(s);
	if (!back || !json_object_is_type(back, json_type_object))
		abort();
	json_object_put(back);
	free(s);
	json_object_put(reply);
}

/* Decode the attach arguments as daemon/commands.c does (lib/spec.c), then check them. */
static void attach_args(json_object *args, char *msg, size_t msglen)
{
	struct tracerd_spec s;
	bool bad = false;

	(void)proto_arg_int(args, "id", 0, &bad);	/* detach's and stats' */
	(void)proto_arg_bool(args, "all", &bad);
	(void)proto_arg_bool(args, "merge", &bad);
	if (spec_from_json(args, &s, msg, msglen))
		return;
	if (!spec_validate(&s, msg, msglen))
		spec_check_kind(&s, spec_kind(s.target), msg, msglen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_request req;
	enum proto_code code;
	char msg[2048] = "";

	code = proto_parse_request((const char *)data, size, &req, msg, sizeof(msg));
	if (code) {
		if (req.root)
			abort();	/* documented: root is NULL on error */
		check_reply(proto_reply_error(req.id, code, "%s", msg));
		json_object_put(req.id);
		return 0;
	}
	if (!req.root || !req.cmd || !req.args || !json_object_is_type(req.args, json_type_object))
		abort();
	attach_args(req.args, msg, sizeof(msg));
	check_reply(proto_reply_error(req.id, PROTO_E_UNKNOWN_COMMAND, "unknown command '%s': %s",
				      req.cmd, msg));
	check_reply(proto_reply_ok(req.id, json_object_get(req.args)));
	proto_request_free(&req);
	return 0;
}
