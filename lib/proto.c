// SPDX-License-Identifier: GPL-2.0-or-later
/* Control protocol helpers; see proto.h and docs/protocol.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonutil.h"
#include "proto.h"
#include "strutil.h"
#include "util.h"

/* how every reply is serialized (proto_serialize, proto_stream_*) */
#define PROTO_JSON_FLAGS	(JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

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

/* Top-level request members: anything else is refused. */
static const struct proto_field request_fields[] = {
	{ "v", json_type_int },
	{ "cmd", json_type_string },
	{ "args", json_type_object },
	{ "id", json_type_int },	/* or a string: checked apart */
	{ NULL, json_type_null },
};

static enum proto_code request_check(json_object *root, struct proto_request *req,
				     char *msg, size_t msglen)
{
	json_object *v;
	long long ver;

	if (json_object_object_get_ex(root, "id", &v) &&
	    (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_string)))
		req->id = v;
	else if (json_object_object_get_ex(root, "id", &v)) {
		str_fmt(msg, msglen, "request member \"id\" must be an integer or a string");
		return PROTO_E_BAD_REQUEST;
	}
	json_object_object_foreach(root, k, val) {
		const struct proto_field *f;

		(void)val;
		for (f = request_fields; f->name && strcmp(f->name, k); f++)
			;
		if (!f->name) {
			str_fmt(msg, msglen, "unknown request member '%s' (v, cmd, args, id)",
				tty_str(k));
			return PROTO_E_BAD_REQUEST;
		}
	}
	if (json_get_int(root, "v", &ver)) {
		str_fmt(msg, msglen, "missing integer protocol version \"v\"");
		return PROTO_E_BAD_REQUEST;
	}
	if (ver != TRACERD_PROTO_VERSION) {
		str_fmt(msg, msglen,
			"protocol version %lld is not supported (this daemon speaks %d)", ver,
			TRACERD_PROTO_VERSION);
		return PROTO_E_VERSION;
	}
	if (json_get_str(root, "cmd", &req->cmd)) {
		str_fmt(msg, msglen, "missing string \"cmd\"");
		return PROTO_E_BAD_REQUEST;
	}
	switch (json_get(root, "args", json_type_object, &req->args)) {
	case -ENOENT:
		req->args = json_object_new_object();
		json_object_object_add(root, "args", req->args);
		break;
	case -EINVAL:
		str_fmt(msg, msglen, "\"args\" is not an object");
		return PROTO_E_BAD_REQUEST;
	}
	return PROTO_OK;
}

enum proto_code proto_parse_request(const char *line, size_t len, struct proto_request *req,
				    char *msg, size_t msglen)
{
	json_object *root;
	enum proto_code code = PROTO_E_BAD_REQUEST;

	memset(req, 0, sizeof(*req));
	if (len >= TRACERD_PROTO_MAX_REQUEST) {
		str_fmt(msg, msglen, "request of %zu bytes exceeds the limit of %d",
			len, TRACERD_PROTO_MAX_REQUEST - 1);
		return PROTO_E_TOO_LARGE;
	}
	if (memchr(line, '\0', len)) {
		str_fmt(msg, msglen, "request contains a NUL byte");
		return code;
	}
	root = json_parse_strict(line, len, msg, msglen);
	if (!root)
		return code;
	if (!json_object_is_type(root, json_type_object)) {
		str_fmt(msg, msglen, "request is not a JSON object");
		goto cleanup;
	}
	code = request_check(root, req, msg, msglen);
	if (code)
		goto cleanup;
	req->root = root;
	root = NULL;
cleanup:
	if (code != PROTO_OK && req->id)
		json_object_get(req->id);	/* survives root: caller puts */
	if (code != PROTO_OK)
		req->cmd = NULL, req->args = NULL;
	json_object_put(root);
	return code;
}

enum proto_code proto_args_check(json_object *args, const char *cmd,
				 const struct proto_field *fields, char *msg, size_t msglen)
{
	const struct proto_field *f;

	json_object_object_foreach(args, k, v) {
		for (f = fields; f->name && strcmp(f->name, k); f++)
			;
		if (!f->name) {
			str_fmt(msg, msglen, "%s: unknown argument '%s'", cmd, tty_str(k));
			return PROTO_E_BAD_REQUEST;
		}
		if (!json_object_is_type(v, f->type)) {
			str_fmt(msg, msglen, "%s: argument '%s' must be %s, not %s", cmd, k,
				json_type_article(f->type),
				json_type_article(json_object_get_type(v)));
			return PROTO_E_BAD_REQUEST;
		}
	}
	return PROTO_OK;
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
	str_vfmt(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_object_add(e, "code", json_object_new_string(proto_code_name(code)));
	json_object_object_add(e, "message", json_object_new_string(buf));
	json_object_object_add(o, "error", e);
	return o;
}

char *proto_serialize(json_object *obj, size_t *len)
{
	size_t n;
	char *s = json_line(obj, PROTO_JSON_FLAGS, &n);
	char *out = s ? realloc(s, n + 2) : NULL;

	if (!out) {
		free(s);
		return NULL;
	}
	out[n] = '\n';
	out[n + 1] = '\0';
	if (len)
		*len = n + 1;
	return out;
}

/* s (n bytes, a serialized reply line) without its last cut bytes; frees s on failure */
static char *cut_end(char *s, size_t n, size_t cut, size_t *len)
{
	if (!s || n < cut) {
		free(s);
		return NULL;
	}
	s[n - cut] = '\0';
	*len = n - cut;
	return s;
}

char *proto_stream_head(json_object *id, const char *key, size_t *len)
{
	json_object *result = json_object_new_object(), *reply;
	size_t n = 0;
	char *s;

	json_object_object_add(result, key, json_object_new_array());
	reply = proto_reply_ok(id, result);
	s = proto_serialize(reply, &n);	/* ...{"KEY":[]}}\n */
	json_object_put(reply);
	return cut_end(s, n, strlen("]}}\n"), len);
}

char *proto_stream_item(json_object *item, bool first, size_t *len)
{
	size_t n;
	char *s = json_line(item, PROTO_JSON_FLAGS, &n), *out;

	if (!s || first) {
		*len = s ? n : 0;
		return s;
	}
	out = malloc(n + 2);
	if (out) {
		out[0] = ',';
		memcpy(out + 1, s, n + 1);
		*len = n + 1;
	}
	free(s);
	return out;
}

char *proto_stream_tail(json_object *rest, size_t *len)
{
	size_t n;
	char *s = json_line(rest, PROTO_JSON_FLAGS, &n), *out;

	/* rest {"a":1,...} -> ],"a":1,...}}\n; an empty rest {} -> ]}}\n */
	out = s && n >= 2 ? malloc(n + 4) : NULL;
	if (out)
		*len = (size_t)sprintf(out, "]%s%s}\n", n > 2 ? "," : "", s + 1);
	free(s);
	return out;
}

const char *proto_arg_str(json_object *args, const char *key, bool *bad)
{
	json_object *v;

	if (!json_object_object_get_ex(args, key, &v))
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

	if (!json_object_object_get_ex(args, key, &v))
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

	if (!json_object_object_get_ex(args, key, &v))
		return def;
	if (!json_object_is_type(v, json_type_int)) {
		*bad = true;
		return def;
	}
	return json_object_get_int64(v);
}

enum proto_code proto_code_errno(int err)
{
	static const struct { int err; enum proto_code code;
	} table[] = {
		{-EINVAL, PROTO_E_BAD_REQUEST},	    {-ENAMETOOLONG, PROTO_E_BAD_REQUEST},
		{-ENOENT, PROTO_E_NOT_FOUND},	    {-ESRCH, PROTO_E_NOT_FOUND},
		{-ENXIO, PROTO_E_NOT_FOUND},	    {-EEXIST, PROTO_E_EXISTS},
		{-EOPNOTSUPP, PROTO_E_UNAVAILABLE}, {-ENODEV, PROTO_E_UNAVAILABLE},
		{-ENOSPC, PROTO_E_LIMIT},	    {-E2BIG, PROTO_E_LIMIT},
		{-EMFILE, PROTO_E_LIMIT},	    {-ENOMEM, PROTO_E_INTERNAL},
		{-EIO, PROTO_E_INTERNAL},	    {-EPROTO, PROTO_E_INTERNAL},
	};
	size_t i;

	if (!err)
		return PROTO_OK;
	for (i = 0; i < ARRAY_SIZE(table); i++)
		if (table[i].err == err)
			return table[i].code;
	return PROTO_E_ATTACH_FAILED;
}

enum proto_code proto_glob_limit_args(json_object *args, const char *cmd, long long max,
				      const char **glob, size_t *limit, char *msg, size_t msglen)
{
	static const struct proto_field fields[] = {
		{ "glob", json_type_string }, { "limit", json_type_int }, {}
	};
	bool bad = false;
	long long n;

	if (proto_args_check(args, cmd, fields, msg, msglen))
		return PROTO_E_BAD_REQUEST;
	*glob = proto_arg_str(args, "glob", &bad);
	n = proto_arg_int(args, "limit", max, &bad);
	if (bad || n < 1 || n > max || (*glob && !(*glob)[0])) {
		str_fmt(msg, msglen, "%s: invalid arguments (glob: a non-empty string, "
			"limit: 1 to %lld)", cmd, max);
		return PROTO_E_BAD_REQUEST;
	}
	*limit = (size_t)n;
	return PROTO_OK;
}
