// SPDX-License-Identifier: GPL-2.0-or-later
/* Escaping, UTF-8 hygiene and safe truncation; see strutil.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "strutil.h"
#include "util.h"

size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c, min;
	size_t len, i;

	if (!n)
		return 0;
	c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, min = 0x80, c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, min = 0x800, c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, min = 0x10000, c &= 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

size_t utf8_boundary(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t start = n, need;

	/* back over at most 3 continuation bytes to the lead byte */
	while (start > 0 && n - start < 4 && (u[start - 1] & 0xc0) == 0x80)
		start--;
	if (start == 0 || n - start >= 4)
		return n;	/* no lead byte near: nothing to cut off */
	start--;
	if (u[start] < 0x80)
		return n;
	need = u[start] >= 0xf0 ? 4 : u[start] >= 0xe0 ? 3 : u[start] >= 0xc0 ? 2 : 1;
	return n - start < need ? start : n;
}

int str_vfmt(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n;

	if (!size)
		return -E2BIG;
	n = vsnprintf(buf, size, fmt, ap);
	if (n < 0) {
		buf[0] = '\0';
		return -EINVAL;
	}
	if ((size_t)n < size)
		return 0;
	buf[utf8_boundary(buf, size - 1)] = '\0';
	return -E2BIG;
}

int str_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = str_vfmt(buf, size, fmt, ap);
	va_end(ap);
	return ret;
}

size_t str_cat(char *buf, size_t size, size_t off, const char *fmt, ...)
{
	va_list ap;

	if (!size || off >= size - 1)
		return off;
	va_start(ap, fmt);
	str_vfmt(buf + off, size - off, fmt, ap);
	va_end(ap);
	return off + strlen(buf + off);
}

/* Format characters that reorder or split what a terminal shows. */
static bool is_format_char(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x061c || c == 0x200e || c == 0x200f ||
	       (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0xfeff;
}

/* Escape of one character at s into out (ESC_MAX bytes); returns bytes consumed. */
#define ESC_MAX 12

static size_t escape_one(const unsigned char *s, size_t n, char *out)
{
	uint32_t cp;
	size_t len = utf8_seq(s, n, &cp);

	if (!len) {
		snprintf(out, ESC_MAX, "\\x%02x", s[0]);
		return 1;
	}
	if (cp == '\\')
		strcpy(out, "\\\\");
	else if (cp == '\n')
		strcpy(out, "\\n");
	else if (cp == '\t')
		strcpy(out, "\\t");
	else if (cp < 0x20 || cp == 0x7f)
		snprintf(out, ESC_MAX, "\\x%02x", (unsigned int)cp);
	else if (is_format_char(cp))
		snprintf(out, ESC_MAX, "\\u%04x", (unsigned int)cp);
	else {
		memcpy(out, s, len);
		out[len] = '\0';
	}
	return len;
}

char *str_escape(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;
	char *out = malloc(n * 6 + 1), piece[ESC_MAX];

	if (!out)
		return NULL;
	while (i < n) {
		i += escape_one(u + i, n - i, piece);
		o += strlen(strcpy(out + o, piece));
	}
	out[o] = '\0';
	return out;
}

#define TTY_SLOTS 8

const char *tty_str(const char *s)
{
	static char *slots[TTY_SLOTS];
	static unsigned int next;
	char **slot = &slots[next++ % TTY_SLOTS];

	free(*slot);
	*slot = str_escape(s ? s : "-");
	return *slot ? *slot : "?";
}

size_t json_quote(char *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0, run, l;
	uint32_t cp;
	unsigned char c;

	out[o++] = '"';
	while (i < n) {
		/* the common case: a run of printable ASCII needing no escape */
		for (run = i; run < n && u[run] >= 0x20 && u[run] < 0x7f && u[run] != '"' &&
		     u[run] != '\\'; run++)
			;
		memcpy(out + o, u + i, run - i);
		o += run - i;
		i = run;
		if (i == n)
			break;
		c = u[i];
		if (c < 0x80) {		/* json-c's escapes (DEL: json_sanitize's) */
			out[o++] = '\\';
			switch (c) {
			case '\b': out[o++] = 'b'; break;
			case '\n': out[o++] = 'n'; break;
			case '\r': out[o++] = 'r'; break;
			case '\t': out[o++] = 't'; break;
			case '\f': out[o++] = 'f'; break;
			case '"': out[o++] = '"'; break;
			case '\\': out[o++] = '\\'; break;
			default:	/* other C0 controls, DEL */
				memcpy(out + o, "u00", 3);
				out[o + 3] = hex[c >> 4];
				out[o + 4] = hex[c & 0xf];
				o += 5;
			}
			i++;
			continue;
		}
		l = utf8_seq(u + i, n - i, &cp);	/* json_sanitize's rules */
		if (l && is_format_char(cp)) {
			o += (size_t)sprintf(out + o, "\\u%04x", (unsigned int)cp & 0xffff);
		} else if (l) {
			memcpy(out + o, u + i, l);
			o += l;
		} else {
			o += (size_t)sprintf(out + o, "\\\\x%02x", c);
			l = 1;
		}
		i += l;
	}
	out[o++] = '"';
	out[o] = '\0';
	return o;
}

char *json_sanitize(const char *s, size_t len, size_t *outlen)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0, l;
	char *out = malloc(len * 6 + 1);
	uint32_t cp;

	if (!out)
		return NULL;
	while (i < len) {
		if (u[i] < 0x7f) {	/* ASCII but DEL: as it is (a reply is mostly that) */
			out[o++] = (char)u[i++];
			continue;
		}
		l = utf8_seq(u + i, len - i, &cp);
		if (l && (cp == 0x7f || is_format_char(cp))) {
			/* the same string, but no terminal acts on it */
			o += sprintf(out + o, "\\u%04x", (unsigned int)cp & 0xffff);
			i += l;
		} else if (l) {
			memcpy(out + o, u + i, l);
			o += l;
			i += l;
		} else {
			o += sprintf(out + o, "\\\\x%02x", u[i++]);
		}
	}
	out[o] = '\0';
	if (outlen)
		*outlen = o;
	return out;
}

