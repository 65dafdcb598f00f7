// SPDX-License-Identifier: GPL-2.0-or-later
/* JSON at the trust boundary; see jsonutil.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "jsonutil.h"
#include "strutil.h"
#include "util.h"

bool json_has_nul(json_object *o)
{
	size_t i, n;

	switch (json_object_get_type(o)) {
	case json_type_string:
		return strlen(json_object_get_string(o)) != (size_t)json_object_get_string_len(o);
	case json_type_array:
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			if (json_has_nul(json_object_array_get_idx(o, i)))
				return true;
		return false;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			if (json_has_nul(v))
				return true;
		}
		return false;
	}
	default:
		return false;
	}
}

json_object *json_parse_strict(const char *text, size_t len, char *err, size_t errlen)
{
	struct json_tokener *tok;
	json_object *o = NULL;
	enum json_tokener_error e;

	if (len > INT32_MAX || memchr(text, '\0', len)) {
		set_err(err, errlen, -EINVAL, "%s",
			len > INT32_MAX ? "too large" : "contains a NUL byte");
		return NULL;
	}
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!tok) {
		set_err(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	if (!o || e != json_tokener_success) {
		set_err(err, errlen, -EINVAL, "malformed JSON: %s",
			json_tokener_error_desc(e == json_tokener_continue ||
								e == json_tokener_success
							? json_tokener_error_parse_eof
							: e));
		goto fail;
	}
	if (tok->char_offset != (int)len) {
		set_err(err, errlen, -EINVAL, "malformed JSON: trailing data after the value");
		goto fail;
	}
	if (json_has_nul(o)) {
		set_err(err, errlen, -EINVAL, "a string holds \\u0000");
		goto fail;
	}
	json_tokener_free(tok);
	return o;
fail:
	json_object_put(o);
	json_tokener_free(tok);
	return NULL;
}

json_object *json_parse_file(const char *path, size_t max, char *err, size_t errlen)
{
	json_object *o = NULL;
	char *buf = NULL;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		set_err(err, errlen, -errno, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		set_err(err, errlen, -EINVAL, "not a regular file of at most %zu bytes", max);
		goto cleanup;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		set_err(err, errlen, -ENOMEM, "out of memory");
		goto cleanup;
	}
	n = read(fd, buf, (size_t)st.st_size + 1);
	if (n < 0 || (size_t)n > (size_t)st.st_size) {
		set_err(err, errlen, -EIO, "%s", n < 0 ? strerror(errno) : "file grew while read");
		goto cleanup;
	}
	o = json_parse_strict(buf, (size_t)n, err, errlen);
cleanup:
	free(buf);
	close(fd);
	return o;
}

int json_get(json_object *o, const char *key, enum json_type t, json_object **out)
{
	json_object *v;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return -ENOENT;
	if (!v || !json_object_is_type(v, t))
		return -EINVAL;
	*out = v;
	return 0;
}

int json_get_str(json_object *o, const char *key, const char **out)
{
	json_object *v;
	int ret = json_get(o, key, json_type_string, &v);

	if (!ret)
		*out = json_object_get_string(v);
	return ret;
}

int json_get_int(json_object *o, const char *key, long long *out)
{
	json_object *v;
	int ret = json_get(o, key, json_type_int, &v);

	if (!ret)
		*out = json_object_get_int64(v);
	return ret;
}

int json_get_bool(json_object *o, const char *key, bool *out)
{
	json_object *v;
	int ret = json_get(o, key, json_type_boolean, &v);

	if (!ret)
		*out = json_object_get_boolean(v);
	return ret;
}

int json_get_num(json_object *o, const char *key, double *out)
{
	json_object *v;
	int ret = json_get(o, key, json_type_double, &v);

	if (ret == -EINVAL && !json_get(o, key, json_type_int, &v))
		ret = 0;
	if (!ret)
		*out = json_object_get_double(v);
	return ret;
}

const char *json_type_article(enum json_type t)
{
	switch (t) {
	case json_type_string: return "a string";
	case json_type_int: return "an integer";
	case json_type_double: return "a number";
	case json_type_boolean: return "a boolean";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	default: return "null";
	}
}

char *json_line(json_object *o, int flags, size_t *len)
{
	const char *s = json_object_to_json_string_ext(o, flags);

	return json_sanitize(s, strlen(s), len);
}

int json_print(FILE *f, json_object *o, int flags)
{
	char *s = json_line(o, flags, NULL);
	int ret = s && fprintf(f, "%s\n", s) >= 0 ? 0 : -EIO;

	free(s);
	return ret;
}
