/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The functions of a request that were not hooked, and why: filled by the
 * resolver (daemon/resolve.c) and the registry (daemon/registry.c), shown
 * by `attach` (daemon/commands.c). Here, below both, so neither calls the
 * other for it.
 */
#ifndef TRACERD_LIB_SKIPLIST_H
#define TRACERD_LIB_SKIPLIST_H

#include <json-c/json.h>

#include <stddef.h>

/*
 * at most SKIP_LIST_MAX entries are kept: the reply stays bounded; total
 * counts every function added, kept or not (attach '*' skips a thousand
 * and more: the reply's skipped_total)
 */
#define SKIP_LIST_MAX	1000

struct skipped {
	char function[128];
	char reason[224];
};

struct skip_list {
	struct skipped *v;
	size_t n, cap;
	size_t total;
};

/* Append (function, reason), both truncated to fit; dropped when l is NULL,
 * full (SKIP_LIST_MAX) or out of memory. */
void skip_list_add(struct skip_list *l, const char *function, const char *reason);
void skip_list_free(struct skip_list *l);
/* [{"function", "reason"}] (docs/protocol.md: attach's "skipped") */
json_object *skip_list_json(const struct skip_list *l);

#endif
