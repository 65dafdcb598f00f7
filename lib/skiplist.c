// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>
#include "skiplist.h"
#include "util.h"

void skip_list_add(struct skip_list *l, const char *function, const char *reason)
{
	struct skipped *v;

	if (!l || l->n >= SKIP_LIST_MAX)
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
