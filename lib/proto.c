// SPDX-License-Identifier: GPL-2.0-or-later
/* Control protocol helpers; see proto.h and docs/protocol.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proto.h"

static const struct {
	const char *name;
	int exit;
} proto_codes[PROTO_E_NR] = {
	[PROTO_OK] = { "ok", EXIT_OK_ },
	[PROTO_E_BAD_REQUEST] = { "bad_request", EXIT_USAGE },
	[PROTO_E_VERSION] = { "unsupported_version", EXIT_PROTOCOL },
	[PROTO_E_TOO_LARGE] = { "too_large", EXIT_PROTOCOL },
	[PROTO_E_PERMISSION] = { "permission_denied", EXIT_PERMISSION },
	[PROTO_E_UNKNOWN_COMMAND] = { "unknown_command", EXIT_PROTOCOL },
	[PROTO_E_NOT_FOUND] = { "not_found", EXIT_NOT_FOUND },
	[PROTO_E_EXISTS] = { "exists", EXIT_FAILURE_ },
	[PROTO_E_UNAVAILABLE] = { "unavailable", EXIT_UNAVAILABLE },
	[PROTO_E_ATTACH_FAILED] = { "attach_failed", EXIT_UNAVAILABLE },
	[PROTO_E_LIMIT] = { "limit", EXIT_FAILURE_ },
	[PROTO_E_INTERNAL] = { "internal", EXIT_FAILURE_ },
};

const char *proto_code_name(enum proto_code code)
{
	if ((unsigned int)code >= PROTO_E_NR)
		return "internal";
	return proto_codes[code].name;
}

enum proto_code proto_code_parse(const char *name)
{
	int i;

	for (i = 0; i < PROTO_E_NR; i++)
		if (!strcmp(name, proto_codes[i].name))
			return i;
	return PROTO_E_INTERNAL;
}

int proto_code_exit(enum proto_code code)
{
	if ((unsigned int)code >= PROTO_E_NR)
		return EXIT_FAILURE_;
	return proto_codes[code].exit;
}

enum proto_code proto_parse_request(const char *line, size_t len, struct proto_request *req,
				    char *msg, size_t msglen)
{
	struct json_tokener *tok;
	json_object *root = NULL, *v, *cmd;
	enum proto_code code = PROTO_E_BAD_REQUEST;

	memset(req, 0, sizeof(*req));
	if (len >= TRACERD_PROTO_MAX_REQUEST) {
		snprintf(msg, msglen, "request of %zu bytes exceeds the limit of %d",
			 len, TRACERD_PROTO_MAX_REQUEST - 1);
		return PROTO_E_TOO_LARGE;
	}
	if (memchr(line, '\0', len)) {
		snprintf(msg, msglen, "request contains a NUL byte");
		return code;
	}
	tok = json_tokener_new_ex(32);
	if (!tok) {
		snprintf(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	root = json_tokener_parse_ex(tok, line, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success ||
	    tok->char_offset != (int)len) {
		snprintf(msg, msglen, "malformed JSON: %s",
			 root ? "trailing data after the object" :
			 json_tokener_error_desc(json_tokener_get_error(tok) == json_tokener_continue ?
						 json_tokener_error_parse_eof :
						 json_tokener_get_error(tok)));
		goto cleanup;
	}
	if (!json_object_is_type(root, json_type_object)) {
		snprintf(msg, msglen, "request is not a JSON object");
		goto cleanup;
	}
	if (json_object_object_get_ex(root, "id", &req->id) &&
	    !json_object_is_type(req->id, json_type_int) &&
	    !json_object_is_type(req->id, json_type_string))
		req->id = NULL;
	if (!json_object_object_get_ex(root, "v", &v) || !json_object_is_type(v, json_type_int)) {
		snprintf(msg, msglen, "missing integer protocol version \"v\"");
		goto cleanup;
	}
	if (json_object_get_int64(v) != TRACERD_PROTO_VERSION) {
		snprintf(msg, msglen, "protocol version %lld is not supported (this daemon speaks %d)",
			 (long long)json_object_get_int64(v), TRACERD_PROTO_VERSION);
		code = PROTO_E_VERSION;
		goto cleanup;
	}
	if (!json_object_object_get_ex(root, "cmd", &cmd) ||
	    !json_object_is_type(cmd, json_type_string)) {
		snprintf(msg, msglen, "missing string \"cmd\"");
		goto cleanup;
	}
	if (!json_object_object_get_ex(root, "args", &req->args)) {
		req->args = json_object_new_object();
		json_object_object_add(root, "args", req->args);
	} else if (!json_object_is_type(req->args, json_type_object)) {
		snprintf(msg, msglen, "\"args\" is not an object");
		goto cleanup;
	}
	req->cmd = json_object_get_string(cmd);
	req->root = root;
	root = NULL;
	code = PROTO_OK;
cleanup:
	if (code != PROTO_OK && req->id)
		json_object_get(req->id);	/* survives root: caller puts */
	else if (code != PROTO_OK)
		req->id = NULL;
	json_object_put(root);
	json_tokener_free(tok);
	return code;
}

void proto_request_free(struct proto_request *req)
{
	json_object_put(req->root);
	memset(req, 0, sizeof(*req));
}

json_object *proto_request_new(const char *cmd, json_object *args)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "v", json_object_new_int(TRACERD_PROTO_VERSION));
	json_object_object_add(o, "cmd", json_object_new_string(cmd));
	json_object_object_add(o, "args", args ? args : json_object_new_object());
	return o;
}

static json_object *reply_new(json_object *id, bool ok)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "v", json_object_new_int(TRACERD_PROTO_VERSION));
	if (id)
		json_object_object_add(o, "id", json_object_get(id));
	json_object_object_add(o, "ok", json_object_new_boolean(ok));
	return o;
}

json_object *proto_reply_ok(json_object *id, json_object *result)
{
	json_object *o = reply_new(id, true);

	json_object_object_add(o, "result", result ? result : json_object_new_object());
	return o;
}

json_object *proto_reply_error(json_object *id, enum proto_code code, const char *fmt, ...)
{
	json_object *o = reply_new(id, false), *e = json_object_new_object();
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_object_add(e, "code", json_object_new_string(proto_code_name(code)));
	json_object_object_add(e, "message", json_object_new_string(buf));
	json_object_object_add(o, "error", e);
	return o;
}

char *proto_serialize(json_object *obj, size_t *len)
{
	const char *s = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t n = strlen(s);
	char *out = malloc(n + 2);

	if (!out)
		return NULL;
	memcpy(out, s, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	if (len)
		*len = n + 1;
	return out;
}

const char *proto_arg_str(json_object *args, const char *key, bool *bad)
{
	json_object *v;

	if (!json_object_object_get_ex(args, key, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	if (!json_object_is_type(v, json_type_string)) {
		*bad = true;
		return NULL;
	}
	return json_object_get_string(v);
}

bool proto_arg_bool(json_object *args, const char *key, bool *bad)
{
	json_object *v;

	if (!json_object_object_get_ex(args, key, &v) || json_object_is_type(v, json_type_null))
		return false;
	if (!json_object_is_type(v, json_type_boolean)) {
		*bad = true;
		return false;
	}
	return json_object_get_boolean(v);
}

long long proto_arg_int(json_object *args, const char *key, long long def, bool *bad)
{
	json_object *v;

	if (!json_object_object_get_ex(args, key, &v) || json_object_is_type(v, json_type_null))
		return def;
	if (!json_object_is_type(v, json_type_int)) {
		*bad = true;
		return def;
	}
	return json_object_get_int64(v);
}
