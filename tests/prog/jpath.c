// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jpath: a tiny JSON path printer for tests in the VM guest, which has no
 * jq and no python3 json module. Reads one JSON document on stdin and
 * prints the value at each PATH, one per line (strings raw, null/true/
 * false/numbers as JSON, objects and arrays as compact JSON).
 *   PATH := ('.' KEY | '[' N ']' | '[*]')* ['|length']
 * KEY runs to the next '.', '[' or '|'. '[*]' prints every element.
 * Exit 1 when a path does not exist, 2 on bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

static void print_value(json_object *v, int length)
{
	if (length) {
		if (json_object_is_type(v, json_type_array))
			printf("%zu\n", json_object_array_length(v));
		else if (json_object_is_type(v, json_type_object))
			printf("%d\n", json_object_object_length(v));
		else if (json_object_is_type(v, json_type_string))
			printf("%d\n", json_object_get_string_len(v));
		else
			printf("0\n");
		return;
	}
	if (json_object_is_type(v, json_type_string))
		printf("%s\n", json_object_get_string(v));
	else
		printf("%s\n", v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN) : "null");
}

/* Walk p from v; returns 0 when every branch existed. */
static int walk(json_object *v, const char *p)
{
	char key[256];
	size_t n, i;
	int ret = 0;

	while (*p && *p != '|') {
		if (*p == '.') {
			n = strcspn(p + 1, ".[|");
			if (n >= sizeof(key))
				return 1;
			memcpy(key, p + 1, n);
			key[n] = '\0';
			if (!json_object_is_type(v, json_type_object) ||
			    !json_object_object_get_ex(v, key, &v))
				return 1;
			p += 1 + n;
		} else if (!strncmp(p, "[*]", 3)) {
			if (!json_object_is_type(v, json_type_array))
				return 1;
			for (i = 0; i < json_object_array_length(v); i++)
				ret |= walk(json_object_array_get_idx(v, i), p + 3);
			return ret;
		} else if (*p == '[') {
			char *end;
			long idx = strtol(p + 1, &end, 10);

			if (*end != ']' || !json_object_is_type(v, json_type_array))
				return 1;
			if (idx < 0)
				idx += (long)json_object_array_length(v);
			if (idx < 0 || (size_t)idx >= json_object_array_length(v))
				return 1;
			v = json_object_array_get_idx(v, (size_t)idx);
			p = end + 1;
		} else {
			return 1;
		}
	}
	print_value(v, !strcmp(p, "|length"));
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[16 << 20];
	size_t len = fread(buf, 1, sizeof(buf) - 1, stdin);
	json_object *root;
	int i, ret = 0;

	buf[len] = '\0';
	root = json_tokener_parse(buf);
	if (!root && strcmp(buf, "null")) {
		fprintf(stderr, "jpath: stdin is not JSON\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		ret |= walk(root, argv[i]);
	json_object_put(root);
	return ret;
}
