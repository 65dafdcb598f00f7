// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "skiplist.h"
#include "util.h"

/* reason with 'function' in it made 'FUNCTION', into out */
static void reason_kind(const char *function, const char *reason, char *out, size_t len)
{
	size_t fl = strlen(function), o = 0;
	const char *p = reason;

	while (*p && o + 1 < len) {
		if (fl && p[0] == '\'' && !strncmp(p + 1, function, fl) && p[fl + 1] == '\'') {
			o += (size_t)snprintf(out + o, len - o, "'FUNCTION'");
			p += fl + 2;
			continue;
		}
		out[o++] = *p++;
	}
	out[o < len ? o : len - 1] = '\0';
}

/* count n more of kind k (a reason_kind) */
static void kind_add(struct skip_list *l, const char *k, size_t n)
{
	size_t i;

	if (!l->kinds)
		l->kinds = calloc(SKIP_KINDS_MAX, sizeof(*l->kinds));
	if (!l->kinds) {
		l->other += n;
		return;
	}
	for (i = 0; i < l->nkinds; i++) {
		if (!strcmp(l->kinds[i].reason, k)) {
			l->kinds[i].count += n;
			return;
		}
	}
	if (l->nkinds == SKIP_KINDS_MAX) {
		l->other += n;
		return;
	}
	str_copy(l->kinds[l->nkinds].reason, k, sizeof(l->kinds[0].reason));
	l->kinds[l->nkinds++].count = n;
}

/* keep (function, reason) in the list while it has room */
static void list_append(struct skip_list *l, const char *function, const char *reason)
{
	struct skipped *v;

	if (l->n >= SKIP_LIST_MAX)
		return;
	if (l->n == l->cap) {
		v = realloc(l->v, (l->cap ? l->cap * 2 : 16) * sizeof(*v));
		if (!v)
			return;
		l->v = v;
		l->cap = l->cap ? l->cap * 2 : 16;
	}
	str_copy(l->v[l->n].function, function, sizeof(l->v[l->n].function));
	str_copy(l->v[l->n].reason, reason, sizeof(l->v[l->n].reason));
	l->n++;
}

void skip_list_add(struct skip_list *l, const char *function, const char *reason)
{
	char k[sizeof(l->kinds[0].reason)];

	if (!l)
		return;
	l->total++;
	reason_kind(function, reason, k, sizeof(k));
	kind_add(l, k, 1);
	list_append(l, function, reason);
}

void skip_list_merge(struct skip_list *into, const struct skip_list *from)
{
	size_t i;

	if (!into)
		return;
	for (i = 0; i < from->n; i++)
		list_append(into, from->v[i].function, from->v[i].reason);
	for (i = 0; i < from->nkinds; i++)
		kind_add(into, from->kinds[i].reason, from->kinds[i].count);
	into->other += from->other;
	into->total += from->total;
}

void skip_list_free(struct skip_list *l)
{
	free(l->v);
	free(l->kinds);
	memset(l, 0, sizeof(*l));
}

json_object *skip_list_json(const struct skip_list *l)
{
	json_object *arr = json_object_new_array(), *o;
	size_t i;

	for (i = 0; i < l->n; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "function", json_object_new_string(l->v[i].function));
		json_object_object_add(o, "reason", json_object_new_string(l->v[i].reason));
		json_object_array_add(arr, o);
	}
	return arr;
}

static int kind_cmp(const void *a, const void *b)
{
	const struct skip_kind *x = a, *y = b;

	return (x->count < y->count) - (x->count > y->count);
}

json_object *skip_list_reasons_json(const struct skip_list *l)
{
	json_object *arr = json_object_new_array(), *o;
	struct skip_kind *k = NULL;
	size_t i;

	if (l->nkinds)
		k = malloc(l->nkinds * sizeof(*k));
	if (k) {
		memcpy(k, l->kinds, l->nkinds * sizeof(*k));
		qsort(k, l->nkinds, sizeof(*k), kind_cmp);
	}
	for (i = 0; k && i < l->nkinds; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "reason", json_object_new_string(k[i].reason));
		json_object_object_add(o, "count", json_object_new_int64((int64_t)k[i].count));
		json_object_array_add(arr, o);
	}
	/* reason null: the kinds past SKIP_KINDS_MAX (all, out of memory) */
	if (l->other || (l->nkinds && !k)) {
		o = json_object_new_object();
		json_object_object_add(o, "reason", NULL);
		json_object_object_add(o, "count", json_object_new_int64(
			(int64_t)(k ? l->other : l->total)));
		json_object_array_add(arr, o);
	}
	free(k);
	return arr;
}
