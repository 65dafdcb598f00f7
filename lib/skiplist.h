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

/*
 * Every skipped function counted by its reason, the function's quoted
 * name in it made 'FUNCTION': the reasons of the thousands past the list
 * (attach '*'). At most SKIP_KINDS_MAX distinct ones, the rest counted
 * as other.
 */
#define SKIP_KINDS_MAX	64

struct skip_kind {
	char reason[224];
	size_t count;
};

struct skip_list {
	struct skipped *v;
	size_t n, cap;
	size_t total;
	struct skip_kind *kinds;	/* SKIP_KINDS_MAX, allocated on the first add */
	size_t nkinds, other;
};

/* Append (function, reason), both truncated to fit; dropped when l is NULL,
 * full (SKIP_LIST_MAX) or out of memory. Counted (total, by reason) but
 * when l is NULL. */
void skip_list_add(struct skip_list *l, const char *function, const char *reason);
/* Add from's entries (as far as into has room), counts and kinds to into (NULL: none). */
void skip_list_merge(struct skip_list *into, const struct skip_list *from);
void skip_list_free(struct skip_list *l);
/* [{"function", "reason"}] (docs/protocol.md: attach's "skipped") */
json_object *skip_list_json(const struct skip_list *l);
/* [{"reason", "count"}], most first (attach's "skipped_reasons") */
json_object *skip_list_reasons_json(const struct skip_list *l);

#endif
