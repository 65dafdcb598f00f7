/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal unit-test framework in the style of the kernel's test_progs.h:
 * assert macros print the failing expression and evaluate to bool, so a
 * test reads `if (!ASSERT_OK(err, "parse")) return;`.
 *
 *   TEST(name) { ... }        defines and registers a test
 *   TEST_MAIN()               once per file: runs every registered test
 *
 * Output, read by tests/run-layer.sh: one 'PASS name' / 'FAIL name' line
 * per test; exit status 1 when any failed.
 */
#ifndef TRACERD_TEST_H
#define TRACERD_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test_case {
	const char *name;
	void (*fn)(void);
};

#define TEST_MAX 256
extern struct test_case test_cases[TEST_MAX];
extern int test_count;
extern bool test_failed;

#define TEST(n)								\
	static void test_##n(void);					\
	__attribute__((constructor)) static void test_reg_##n(void)	\
	{								\
		if (test_count < TEST_MAX)				\
			test_cases[test_count++] = (struct test_case){ #n, test_##n }; \
	}								\
	static void test_##n(void)

#define TEST_FAIL_(fmt, ...) ({						\
	fprintf(stderr, "  %s:%d: " fmt "\n", __FILE__, __LINE__, ##__VA_ARGS__); \
	test_failed = true;						\
	false; })

#define ASSERT_TRUE(c, what) ((c) ? true : TEST_FAIL_("%s: expected true: %s", what, #c))
#define ASSERT_FALSE(c, what) (!(c) ? true : TEST_FAIL_("%s: expected false: %s", what, #c))
#define ASSERT_EQ(a, b, what) ({					\
	long long a_ = (long long)(a), b_ = (long long)(b);		\
	a_ == b_ ? true : TEST_FAIL_("%s: %s == %s: %lld != %lld", what, #a, #b, a_, b_); })
#define ASSERT_NEQ(a, b, what) ({					\
	long long a_ = (long long)(a), b_ = (long long)(b);		\
	a_ != b_ ? true : TEST_FAIL_("%s: %s != %s: both %lld", what, #a, #b, a_); })
#define ASSERT_OK(err, what) ({						\
	long long e_ = (long long)(err);				\
	e_ == 0 ? true : TEST_FAIL_("%s: unexpected error %lld (%s)", what, e_, strerror((int)(e_ < 0 ? -e_ : e_))); })
#define ASSERT_ERR(err, what) ({					\
	long long e_ = (long long)(err);				\
	e_ < 0 ? true : TEST_FAIL_("%s: expected an error, got %lld", what, e_); })
#define ASSERT_STREQ(a, b, what) ({					\
	const char *a_ = (a), *b_ = (b);				\
	(a_ && b_ && !strcmp(a_, b_)) ? true :				\
		TEST_FAIL_("%s: \"%s\" != \"%s\"", what, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); })
#define ASSERT_OK_PTR(p, what) ((p) ? true : TEST_FAIL_("%s: unexpected NULL", what))

#define TEST_MAIN()							\
	struct test_case test_cases[TEST_MAX];				\
	int test_count;							\
	bool test_failed;						\
	int main(int argc, char **argv)					\
	{								\
		int i, nfail = 0;					\
		for (i = 0; i < test_count; i++) {			\
			if (argc > 1 && strcmp(argv[1], test_cases[i].name)) \
				continue;				\
			test_failed = false;				\
			test_cases[i].fn();				\
			printf("%s %s\n", test_failed ? "FAIL" : "PASS", test_cases[i].name); \
			nfail += test_failed;				\
		}							\
		return nfail ? 1 : 0;					\
	}

/*
 * A scratch directory of the test file's own: tmpl, its mkdtemp template
 * ("/tmp/NAME.XXXXXX", a static array), is made on the first call.
 * Returns the path (tmpl), NULL when it cannot be made; test_tmp_clear()
 * empties it.
 */
static inline const char *test_tmp(char *tmpl)
{
	size_t n = strlen(tmpl);

	if (n >= 6 && !strcmp(tmpl + n - 6, "XXXXXX") && !mkdtemp(tmpl))
		return NULL;
	return tmpl;
}

static inline void test_tmp_clear(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/*", dir);
	if (system(cmd))
		fprintf(stderr, "cleanup of %s failed\n", dir);
}

#endif /* TRACERD_TEST_H */
