/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strings from the kernel or a user on their way out: to a terminal
 * (str_escape, tty_str), into JSON (json_sanitize: valid UTF-8 only) and
 * into fixed buffers (str_fmt: truncation backs off to a UTF-8 boundary).
 * docs/protocol.md ("Strings") describes the escapes.
 */
#ifndef TRACERD_LIB_STRUTIL_H
#define TRACERD_LIB_STRUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Length (1..4) of the well-formed UTF-8 sequence at s (n bytes left), its
 * code point in *cp; 0 when the bytes there are not one (stray
 * continuation, overlong, surrogate, > U+10FFFF, cut short).
 */
size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp);
/* Largest n' <= n such that s[0..n') does not end inside a character. */
size_t utf8_boundary(const char *s, size_t n);
/*
 * vsnprintf into buf, backing off to a UTF-8 boundary when the output is
 * cut; -E2BIG when it was cut, else 0.
 */
int str_vfmt(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int str_fmt(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Append to the string of length off in buf (size bytes) the same way;
 * returns the new length (stays below size), for loops that build a message.
 */
size_t str_cat(char *buf, size_t size, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * Terminal-safe copy of s (malloc'd, NULL on ENOMEM): C0 controls, DEL,
 * backslash and bytes that are not UTF-8 become \n \t \\ \xNN; C1
 * controls and Unicode bidi/line-separator format characters become
 * \uNNNN. Printable UTF-8 is kept.
 */
char *str_escape(const char *s);
/*
 * str_escape for printf arguments: the result lives in one of 8 rotating
 * slots (so up to 8 in one call), freed on reuse. NULL prints as "-".
 * Single-threaded callers only (tracectl, logging).
 */
const char *tty_str(const char *s);
/*
 * JSON text (as json-c writes it) made valid UTF-8: every byte that is not
 * part of a well-formed UTF-8 sequence becomes the five characters \\xNN
 * (inside a JSON string: a literal backslash, x and two hex digits); DEL,
 * C1 controls and bidi/line-separator characters become \uNNNN escapes
 * (the same string, nothing a terminal acts on).
 * Returns a malloc'd copy and its length, NULL on ENOMEM.
 */
char *json_sanitize(const char *s, size_t len, size_t *outlen);

/*
 * The n bytes at s as a quoted JSON string, exactly as json_sanitize()
 * leaves what json-c writes for it (JSON_C_TO_STRING_NOSLASHESCAPE): for
 * writers that build JSON text without a json-c tree. out holds at least
 * 6 * n + 3 bytes; NUL-terminated; returns the length.
 */
size_t json_quote(char *out, const char *s, size_t n);

#endif
