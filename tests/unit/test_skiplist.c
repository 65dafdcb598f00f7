// SPDX-License-Identifier: GPL-2.0-or-later
/* The skipped-functions list (lib/skiplist.c): grows, truncates, caps. */
#include <string.h>
#include "../../lib/skiplist.h"
#include "test.h"

TEST(skiplist_add_free)
{
	struct skip_list l = {};
	char big[512];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	skip_list_add(&l, "do_sys_open", "not in available_filter_functions");
	skip_list_add(&l, big, big);
	skip_list_add(NULL, "ignored", "no list");
	if (!ASSERT_EQ(l.n, 2, "entries"))
		return;
	ASSERT_EQ(l.total, 2, "total");
	ASSERT_STREQ(l.v[0].function, "do_sys_open", "first function");
	ASSERT_STREQ(l.v[0].reason, "not in available_filter_functions", "first reason");
	ASSERT_EQ(strlen(l.v[1].function), sizeof(l.v[1].function) - 1, "function truncated");
	ASSERT_EQ(strlen(l.v[1].reason), sizeof(l.v[1].reason) - 1, "reason truncated");
	skip_list_free(&l);
	ASSERT_EQ(l.n, 0, "freed");
	ASSERT_TRUE(!l.v, "freed array");
}

TEST(skiplist_cap)
{
	struct skip_list l = {};
	int i;

	for (i = 0; i < SKIP_LIST_MAX + 10; i++)
		skip_list_add(&l, "f", "r");
	ASSERT_EQ(l.n, SKIP_LIST_MAX, "capped");
	ASSERT_EQ(l.total, SKIP_LIST_MAX + 10, "every one counted");
	skip_list_free(&l);
	ASSERT_TRUE(!l.kinds, "kinds freed");
}

/* The reasons past the list: counted by kind, the function's name out of them */
TEST(skiplist_reasons)
{
	struct skip_list l = {};
	json_object *r;
	char f[32], why[64];
	int i;

	for (i = 0; i < SKIP_LIST_MAX + 500; i++) {
		snprintf(f, sizeof(f), "fn_%d", i);
		snprintf(why, sizeof(why), i % 3 ? "no kallsyms address for '%s'" : "denylisted ('bpf_*')",
			 f);
		skip_list_add(&l, f, why);
	}
	for (i = 0; i < SKIP_KINDS_MAX + 2; i++) {
		snprintf(why, sizeof(why), "kind %d", i);
		skip_list_add(&l, "g", why);
	}
	r = skip_list_reasons_json(&l);
	if (!ASSERT_EQ(json_object_array_length(r), SKIP_KINDS_MAX + 1, "the kinds kept, then other"))
		goto out;
	ASSERT_STREQ(json_object_to_json_string(json_object_array_get_idx(r, 0)),
		     "{ \"reason\": \"no kallsyms address for 'FUNCTION'\", \"count\": 1000 }",
		     "most first, the name out");
	ASSERT_STREQ(json_object_to_json_string(json_object_array_get_idx(r, 1)),
		     "{ \"reason\": \"denylisted ('bpf_*')\", \"count\": 500 }", "second");
	ASSERT_STREQ(json_object_to_json_string(json_object_array_get_idx(r, SKIP_KINDS_MAX)),
		     "{ \"reason\": null, \"count\": 4 }", "past SKIP_KINDS_MAX: other");
	ASSERT_EQ(l.total, SKIP_LIST_MAX + 500 + SKIP_KINDS_MAX + 2, "total");
out:
	json_object_put(r);
	skip_list_free(&l);
}

TEST_MAIN()
