// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>
#include "skiplist.h"
#include "util.h"

void skip_list_add(struct skip_list *l, const char *function, const char *reason)
{
	struct skipped *v;

	if (!l)
		return;
	l->total++;
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

void skip_list_free(struct skip_list *l)
{
	free(l->v);
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
