/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON at the trust boundary, for everything tracerd and tracectl read
 * (requests, replies, state_dir files) and write:
 *   - json_parse_strict: RFC 8259 only (json-c strict mode), valid UTF-8,
 *     the whole text one value, no string holding \u0000;
 *   - json_get_*: the one type-checked accessor: a missing key is -ENOENT,
 *     null or another type is -EINVAL, never a NULL pointer to crash on;
 *   - json_line: serialize, then make the text valid UTF-8 (json-c passes
 *     invalid bytes through unchanged): the one place strings leave as JSON.
 */
#ifndef TRACERD_LIB_JSONUTIL_H
#define TRACERD_LIB_JSONUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

/* Parse len bytes of text; NULL with err filled when it is not acceptable. */
json_object *json_parse_strict(const char *text, size_t len, char *err, size_t errlen);
/* Read a whole (regular, at most max bytes) file and json_parse_strict it. */
json_object *json_parse_file(const char *path, size_t max, char *err, size_t errlen);
/* Some string in o (at any depth) holds a NUL byte (\u0000). */
bool json_has_nul(json_object *o);

/* 0 when o[key] exists with type t (*out set), -ENOENT missing, -EINVAL else. */
int json_get(json_object *o, const char *key, enum json_type t, json_object **out);
int json_get_str(json_object *o, const char *key, const char **out);
int json_get_int(json_object *o, const char *key, long long *out);
int json_get_bool(json_object *o, const char *key, bool *out);
/* An int or a double. */
int json_get_num(json_object *o, const char *key, double *out);
/* Name of t as the messages say it: "a string", "an integer", ... */
const char *json_type_article(enum json_type t);

/* Serialized o with the flags, valid UTF-8, malloc'd (caller frees). */
char *json_line(json_object *o, int flags, size_t *len);
/* json_line of o and a newline on f; -errno on failure. */
int json_print(FILE *f, json_object *o, int flags);

#endif
