// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output hygiene (issue #12, class 1): terminal escaping, UTF-8-safe
 * truncation and valid-UTF-8 JSON; and the one decimal parser (class 3).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../../lib/jsonutil.h"
#include "../../lib/strutil.h"
#include "../../lib/util.h"
#include "test.h"

/* Nothing a terminal acts on: no C0/C1 control, DEL or invalid UTF-8 left. */
static bool tty_clean(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, l;
	uint32_t cp;

	while (i < n) {
		l = utf8_seq(u + i, n - i, &cp);
		if (!l || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
		    cp == 0x202e || cp == 0x2028)
			return false;
		i += l;
	}
	return true;
}

static bool utf8_valid(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, l;
	uint32_t cp;

	for (; i < n; i += l)
		if (!(l = utf8_seq(u + i, n - i, &cp)))
			return false;
	return true;
}

TEST(escape_controls)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "vfs_read", "vfs_read" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },			/* printable UTF-8 kept */
		{ "a\x1b[2Jb", "a\\x1b[2Jb" },			/* CSI */
		{ "x\ny\tz\r", "x\\ny\\tz\\x0d" },
		{ "back\\slash", "back\\\\slash" },
		{ "del\x7f", "del\\x7f" },
		{ "c1\xc2\x9b" "31m", "c1\\u009b31m" },		/* C1 CSI as UTF-8 */
		{ "bad\xff\xfe", "bad\\xff\\xfe" },		/* not UTF-8 */
		{ "cut\xe2\x82", "cut\\xe2\\x82" },
		{ "rlo\xe2\x80\xae" "txt", "rlo\\u202etxt" },	/* bidi override */
		{ "osc\x1b]0;title\x07", "osc\\x1b]0;title\\x07" },
		{ "over\xc0\xaf", "over\\xc0\\xaf" },		/* overlong '/' */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *e = str_escape(cases[i].in);

		ASSERT_STREQ(e, cases[i].out, cases[i].out);
		ASSERT_TRUE(tty_clean(e), cases[i].out);
		free(e);
	}
	ASSERT_STREQ(tty_str(NULL), "-", "NULL");
}

TEST(escape_every_byte)
{
	char in[3] = "", *e;
	int b;

	for (b = 1; b < 256; b++) {
		in[0] = (char)b;
		e = str_escape(in);
		ASSERT_TRUE(tty_clean(e), "byte");
		free(e);
	}
}

TEST(truncate_on_boundary)
{
	char buf[8];
	int ret;

	/* "ab" + 3 x U+20AC (3 bytes each): cut inside the second euro sign */
	ret = str_fmt(buf, sizeof(buf), "ab%s", "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac");
	ASSERT_EQ(ret, -E2BIG, "cut");
	ASSERT_STREQ(buf, "ab\xe2\x82\xac", "backed off");
	ASSERT_EQ(str_fmt(buf, sizeof(buf), "%s", "abc"), 0, "fits");
	ASSERT_STREQ(buf, "abc", "whole");
	/* 4-byte character cut after 1, 2 and 3 bytes */
	ASSERT_EQ(utf8_boundary("a\xf0\x9f\x98\x80", 2), 1, "after 1");
	ASSERT_EQ(utf8_boundary("a\xf0\x9f\x98\x80", 3), 1, "after 2");
	ASSERT_EQ(utf8_boundary("a\xf0\x9f\x98\x80", 4), 1, "after 3");
	ASSERT_EQ(utf8_boundary("a\xf0\x9f\x98\x80", 5), 5, "whole");
	/* str_cat builds messages in loops: same rule, length returned */
	{
		char why[10] = "";
		size_t off = 0;

		off = str_cat(why, sizeof(why), off, "; %s", "ab");
		ASSERT_EQ(off, 4, "first piece");
		off = str_cat(why, sizeof(why), off, "; %s", "\xc3\xa9\xc3\xa9\xc3\xa9");
		ASSERT_STREQ(why, "; ab; \xc3\xa9", "cut after a whole character");
		ASSERT_EQ(off, strlen(why), "length");
		off = str_cat(why, sizeof(why), off, "more");
		ASSERT_EQ(off, 9, "the last byte of room");
		ASSERT_EQ(str_cat(why, sizeof(why), off, "more"), 9, "full: unchanged");
	}
	/* set_err is the daemon's message formatter: same rule */
	set_err(buf, sizeof(buf), -EINVAL, "%s", "x\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	ASSERT_STREQ(buf, "x\xc3\xa9\xc3\xa9\xc3\xa9", "set_err");
}

TEST(json_line_valid_utf8)
{
	json_object *o = json_object_new_object(), *back;
	char *line;

	json_object_object_add(o, "comm", json_object_new_string("a\xff" "b\xe2\x82"));
	json_object_object_add(o, "ok", json_object_new_string("caf\xc3\xa9\x01"));
	json_object_object_add(o, "c1", json_object_new_string("\xc2\x9b" "1m\xe2\x80\xae\x7f"));
	line = json_line(o, JSON_C_TO_STRING_PLAIN, NULL);
	ASSERT_OK_PTR(line, "line");
	ASSERT_TRUE(utf8_valid(line), line);
	ASSERT_STREQ(line, "{\"comm\":\"a\\\\xffb\\\\xe2\\\\x82\",\"ok\":\"caf\xc3\xa9\\u0001\","
		     "\"c1\":\"\\u009b1m\\u202e\\u007f\"}", "escaped");
	back = json_parse_strict(line, strlen(line), NULL, 0);
	ASSERT_OK_PTR(back, "reparses strictly");
	json_object_put(back);
	free(line);
	json_object_put(o);
}

/* json_quote writes a string as json_line writes a json-c string, byte for byte */
static bool quote_matches(const char *str, size_t n)
{
	json_object *o = json_object_new_string_len(str, (int)n);
	char *want = json_line(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, NULL);
	char *got = malloc(6 * n + 3);
	bool same = want && got && json_quote(got, str, n) == strlen(want) && !strcmp(got, want);

	free(got);
	free(want);
	json_object_put(o);
	return same;
}

TEST(json_quote_as_json_line)
{
	static const char *const cases[] = {
		"", "plain", "a/b", "q\"b\\s", "\b\f\n\r\t\x01\x1f\x7f", "caf\xc3\xa9",
		"\xff\xfe", "\xc3", "x\xe2\x80", "\xe2\x80\xae rtl", "\xc2\x85", "\xef\xbb\xbf",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf0\x9f\x98\x80", "\xc0\xaf", "tp:sched/\"we\\ird\"\nname",
	};
	char all[256], mix[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		ASSERT_TRUE(quote_matches(cases[i], strlen(cases[i])), cases[i]);
	for (i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	ASSERT_TRUE(quote_matches(all, 255), "every byte");
	for (i = 0; i < 2000; i++) {	/* runs of bytes around the UTF-8 boundaries */
		size_t j;

		for (j = 0; j < sizeof(mix); j++)
			mix[j] = (char)"\x01\"\\/a\x7f\x80\xbf\xc2\xe0\xed\xef\xf0\xf4\xff\xa0"[(i * 31 + j * j * 7 + j * i) % 16];
		ASSERT_TRUE(quote_matches(mix, sizeof(mix)), "mixed bytes");
	}
}

TEST(decimal_parser)
{
	static const struct {
		const char *s;
		int ret;
		unsigned long long v;
	} cases[] = {
		{ "0", 0, 0 }, { "7", 0, 7 }, { "10", 0, 10 },
		{ "18446744073709551615", 0, 18446744073709551615ULL },
		{ "010", -EINVAL, 0 }, { "00", -EINVAL, 0 }, { "0x10", -EINVAL, 0 }, { "0X1", -EINVAL, 0 },
		{ "", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { "+1", -EINVAL, 0 }, { " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 }, { "1\n", -EINVAL, 0 }, { "\t1", -EINVAL, 0 }, { "1e3", -EINVAL, 0 },
		{ "12a", -EINVAL, 0 }, { "18446744073709551616", -ERANGE, 0 },
		{ "99999999999999999999999", -ERANGE, 0 },
	};
	unsigned long long v;
	char err[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		v = 12345;
		err[0] = '\0';
		ASSERT_EQ(parse_dec(cases[i].s, 0, UINT64_MAX, &v, err, sizeof(err)), cases[i].ret,
			  cases[i].s);
		if (!cases[i].ret)
			ASSERT_EQ(v, cases[i].v, cases[i].s);
		else
			ASSERT_TRUE(err[0] && v == 12345, cases[i].s);
		ASSERT_EQ(parse_u64(cases[i].s, &v), cases[i].ret, cases[i].s);
	}
	ASSERT_EQ(parse_dec("65536", 1, 65535, &v, err, sizeof(err)), -ERANGE, "max");
	ASSERT_STREQ(err, "out of range 1..65535", "range message");
	ASSERT_EQ(parse_dec("0", 1, 65535, &v, err, sizeof(err)), -ERANGE, "min");
	parse_dec("010", 0, 9, &v, err, sizeof(err));
	ASSERT_TRUE(strstr(err, "leading 0") != NULL, err);
	parse_dec("0x8", 0, 9, &v, err, sizeof(err));
	ASSERT_TRUE(strstr(err, "hexadecimal") != NULL, err);
	ASSERT_OK(parse_size("4K", &v), "size");
	ASSERT_EQ(v, 4096, "4K");
	ASSERT_ERR(parse_size("010K", &v), "size octal");
	ASSERT_ERR(parse_size("0x10", &v), "size hex");
}

TEST(typed_json_access)
{
	const char *text = "{\"s\":\"x\",\"n\":null,\"i\":3,\"d\":1.5,\"b\":true}";
	json_object *o = json_parse_strict(text, strlen(text), NULL, 0);
	const char *s = NULL;
	long long i = 0;
	double d = 0;
	bool b = false;

	if (!ASSERT_OK_PTR(o, "parse"))
		return;
	ASSERT_OK(json_get_str(o, "s", &s), "s");
	ASSERT_STREQ(s, "x", "s value");
	ASSERT_EQ(json_get_str(o, "n", &s), -EINVAL, "null is not a string");
	ASSERT_EQ(json_get_int(o, "n", &i), -EINVAL, "null is not an int");
	ASSERT_EQ(json_get_str(o, "i", &s), -EINVAL, "int is not a string");
	ASSERT_EQ(json_get_str(o, "zz", &s), -ENOENT, "missing");
	ASSERT_EQ(json_get_str(NULL, "s", &s), -ENOENT, "no object");
	ASSERT_OK(json_get_num(o, "i", &d), "int as number");
	ASSERT_OK(json_get_num(o, "d", &d), "double");
	ASSERT_EQ(json_get_num(o, "b", &d), -EINVAL, "bool is not a number");
	ASSERT_OK(json_get_bool(o, "b", &b), "bool");
	ASSERT_OK(json_get_int(o, "i", &i), "int");
	json_object_put(o);
}

TEST(strict_json)
{
	static const char *const bad[] = {
		"{\"a\":\"x\\u0000y\"}", "[\"\\u0000\"]", "{\"a\":{\"b\":[\"\\u0000\"]}}",
		"{\"a\":010}", "{\"a\":1,}", "{\"a\":\"\xff\"}", "{\"a\":1} x", "",
	};
	char err[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		json_object *o = json_parse_strict(bad[i], strlen(bad[i]), err, sizeof(err));

		ASSERT_TRUE(o == NULL, bad[i]);
		json_object_put(o);
	}
	json_parse_strict(bad[0], strlen(bad[0]), err, sizeof(err));
	ASSERT_TRUE(strstr(err, "\\u0000") != NULL, err);
}

TEST_MAIN()
