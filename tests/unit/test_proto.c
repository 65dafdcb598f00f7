// SPDX-License-Identifier: GPL-2.0-or-later
/* Control protocol: request parsing, replies, and docs/protocol.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../lib/proto.h"
#include "test.h"

static enum proto_code parse(const char *s, struct proto_request *r, char *msg)
{
	return proto_parse_request(s, strlen(s), r, msg, 256);
}

TEST(good_request)
{
	struct proto_request r;
	char msg[256] = "";

	ASSERT_EQ(parse("{\"v\":1,\"cmd\":\"list\",\"id\":3}", &r, msg), PROTO_OK, msg);
	ASSERT_STREQ(r.cmd, "list", "cmd");
	ASSERT_OK_PTR(r.args, "args defaulted");
	ASSERT_EQ(json_object_get_int(r.id), 3, "id");
	proto_request_free(&r);
}

static const struct {
	const char *req;
	enum proto_code code;
} bad[] = {
	{ "{", PROTO_E_BAD_REQUEST },
	{ "[1,2]", PROTO_E_BAD_REQUEST },
	{ "{\"cmd\":\"list\"}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":\"1\",\"cmd\":\"list\"}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":2,\"cmd\":\"list\"}", PROTO_E_VERSION },
	{ "{\"v\":1}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":1,\"cmd\":5}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":1,\"cmd\":\"list\",\"args\":[]}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":1,\"cmd\":\"list\"} {}", PROTO_E_BAD_REQUEST },
	/* issue #12: strict JSON, no \u0000, no unknown members, no null */
	{ "{\"v\":1,\"cmd\":\"li\\u0000st\"}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":1,\"cmd\":\"attach\",\"args\":{\"target\":\"tp:a/b\\u0000x\"}}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":1,\"cmd\":\"list\",\"args\":{\"k\":[{\"x\":\"\\u0000\"}]}}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":1,\"cmd\":\"list\",\"arg\":{}}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":1,\"cmd\":\"list\",\"args\":null}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":null,\"cmd\":\"list\"}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":1,\"cmd\":null}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":1,\"cmd\":\"list\",\"id\":null}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":1,\"cmd\":\"list\",\"id\":[1]}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":01,\"cmd\":\"list\"}", PROTO_E_BAD_REQUEST },
	{ "{\"v\":1,\"cmd\":\"l\xffist\"}", PROTO_E_BAD_REQUEST },
};

TEST(bad_requests)
{
	struct proto_request r;
	char msg[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(parse(bad[i].req, &r, msg), bad[i].code, bad[i].req);
		ASSERT_TRUE(r.root == NULL, "no root on error");
		json_object_put(r.id);
	}
}

TEST(error_keeps_id)
{
	struct proto_request r;
	char msg[256];
	json_object *rep;

	ASSERT_EQ(parse("{\"v\":9,\"cmd\":\"x\",\"id\":\"abc\"}", &r, msg), PROTO_E_VERSION, "v9");
	ASSERT_OK_PTR(r.id, "id kept");
	rep = proto_reply_error(r.id, PROTO_E_VERSION, "%s", msg);
	ASSERT_STREQ(json_object_to_json_string_ext(rep, JSON_C_TO_STRING_PLAIN),
		     "{\"v\":1,\"id\":\"abc\",\"ok\":false,\"error\":{\"code\":\"unsupported_version\","
		     "\"message\":\"protocol version 9 is not supported (this daemon speaks 1)\"}}",
		     "reply");
	json_object_put(rep);
	json_object_put(r.id);
}

/* Each command declares its arguments: unknown, null or mistyped ones are refused by name. */
TEST(args_checked)
{
	static const struct proto_field fields[] = {
		{ "id", json_type_int }, { "target", json_type_string }, { "all", json_type_boolean },
		{ NULL, json_type_null },
	};
	static const struct {
		const char *args, *msg;
	} cases[] = {
		{ "{\"id\":3,\"target\":\"x\",\"all\":true}", NULL },
		{ "{}", NULL },
		{ "{\"idd\":3}", "detach: unknown argument 'idd'" },
		{ "{\"\\u001b[2J\":3}", NULL },	/* rejected at parse time: see below */
		{ "{\"id\":null}", "detach: argument 'id' must be an integer, not null" },
		{ "{\"id\":\"3\"}", "detach: argument 'id' must be an integer, not a string" },
		{ "{\"all\":1}", "detach: argument 'all' must be a boolean, not an integer" },
		{ "{\"target\":{}}", "detach: argument 'target' must be a string, not an object" },
		{ "{\"id\":1.5}", "detach: argument 'id' must be an integer, not a number" },
	};
	char msg[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_object *a = json_tokener_parse(cases[i].args);
		enum proto_code c = proto_args_check(a, "detach", fields, msg, sizeof(msg));

		if (i == 3) {	/* an escape in a member name is escaped in the message */
			ASSERT_EQ(c, PROTO_E_BAD_REQUEST, cases[i].args);
			ASSERT_STREQ(msg, "detach: unknown argument '\\x1b[2J'", cases[i].args);
		} else if (!cases[i].msg) {
			ASSERT_EQ(c, PROTO_OK, cases[i].args);
		} else {
			ASSERT_EQ(c, PROTO_E_BAD_REQUEST, cases[i].args);
			ASSERT_STREQ(msg, cases[i].msg, cases[i].args);
		}
		json_object_put(a);
	}
}

/* Replies are valid UTF-8 and cut on a character boundary. */
TEST(reply_utf8)
{
	char big[2000], *line;
	json_object *rep;
	size_t i, len;

	for (i = 0; i + 2 < sizeof(big); i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	big[i] = '\0';
	rep = proto_reply_error(NULL, PROTO_E_NOT_FOUND, "x%s\xff", big);
	line = proto_serialize(rep, &len);
	ASSERT_OK_PTR(line, "serialized");
	ASSERT_TRUE(strstr(line, "\xc3\"") == NULL, "message not cut inside a character");
	ASSERT_TRUE(strstr(line, "\xc3\xa9\"}}") != NULL, line + len - 20);
	free(line);
	json_object_put(rep);
	rep = proto_reply_error(NULL, PROTO_E_NOT_FOUND, "no '%s'", "a\xff\xfe");
	line = proto_serialize(rep, &len);
	ASSERT_TRUE(strstr(line, "\"no 'a\\\\xff\\\\xfe'\"") != NULL, line);
	free(line);
	json_object_put(rep);
}

/* items, e.g. {"name": "n3", "path": "a/b", "u": "\xc3\xa9\xff"}: a stream is the whole reply */
static json_object *stream_item(int i)
{
	json_object *o = json_object_new_object();
	char name[16];

	snprintf(name, sizeof(name), "n%d", i);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "path", json_object_new_string("a/b"));
	json_object_object_add(o, "u", json_object_new_string("\xc3\xa9\xff"));
	return o;
}

static void stream_case(json_object *id, int nitems, bool rest)
{
	json_object *arr = json_object_new_array(), *result = json_object_new_object(), *o, *r;
	char *whole, *part, *s = calloc(1, 1 << 16);
	size_t len, n = 0, wlen;
	int i;

	json_object_object_add(result, "functions", arr);
	r = json_object_new_object();
	if (rest) {
		json_object_object_add(result, "total", json_object_new_int(nitems));
		json_object_object_add(result, "truncated", json_object_new_boolean(false));
		json_object_object_add(r, "total", json_object_new_int(nitems));
		json_object_object_add(r, "truncated", json_object_new_boolean(false));
	}
	part = proto_stream_head(id, "functions", &len);
	ASSERT_OK_PTR(part, "head");
	memcpy(s + n, part, len);
	n += len;
	free(part);
	for (i = 0; i < nitems; i++) {
		json_object_array_add(arr, stream_item(i));
		o = stream_item(i);
		part = proto_stream_item(o, i == 0, &len);
		ASSERT_OK_PTR(part, "item");
		memcpy(s + n, part, len);
		n += len;
		free(part);
		json_object_put(o);
	}
	part = proto_stream_tail(r, &len);
	ASSERT_OK_PTR(part, "tail");
	memcpy(s + n, part, len);
	n += len;
	free(part);
	json_object_put(r);
	o = proto_reply_ok(id, result);
	whole = proto_serialize(o, &wlen);
	ASSERT_EQ(n, wlen, whole);
	ASSERT_STREQ(s, whole, "streamed reply as the whole one");
	free(whole);
	free(s);
	json_object_put(o);
}

/* A reply written in pieces is byte for byte the reply built whole. */
TEST(stream_pieces)
{
	json_object *id = json_object_new_int(7), *sid = json_object_new_string("x/y");

	stream_case(id, 0, true);
	stream_case(id, 1, true);
	stream_case(id, 5, true);
	stream_case(NULL, 3, true);
	stream_case(sid, 2, false);
	stream_case(sid, 0, false);
	json_object_put(id);
	json_object_put(sid);
}

TEST(too_large)
{
	struct proto_request r;
	char msg[256], *big = malloc(TRACERD_PROTO_MAX_REQUEST + 1);

	memset(big, ' ', TRACERD_PROTO_MAX_REQUEST);
	ASSERT_EQ(proto_parse_request(big, TRACERD_PROTO_MAX_REQUEST, &r, msg, sizeof(msg)),
		  PROTO_E_TOO_LARGE, "too large");
	free(big);
}

/* docs/protocol.md's error-code table lists exactly proto.h's codes. */
TEST(doc_matches_codes)
{
	char path[4096], line[512], name[64];
	const char *src = getenv("SRC");
	FILE *f;
	int exitc, n = 0, i;

	if (src)
		snprintf(path, sizeof(path), "%s/docs/protocol.md", src);
	else
		snprintf(path, sizeof(path), "%.*s/../../docs/protocol.md",
			 (int)(strrchr(__FILE__, '/') - __FILE__), __FILE__);
	f = fopen(path, "r");
	if (!ASSERT_OK_PTR(f, path))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "| `%63[a-z_]` | %d |", name, &exitc) != 2)
			continue;
		i = proto_code_parse(name);
		ASSERT_STREQ(proto_code_name(i), name, "documented code exists");
		ASSERT_EQ(proto_code_exit(i), exitc, name);
		n++;
	}
	fclose(f);
	ASSERT_EQ(n, PROTO_E_NR - 1, "every code documented");
}

TEST_MAIN()
