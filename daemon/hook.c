// SPDX-License-Identifier: GPL-2.0-or-later
/* A hook's memory: the block of an attachment's hooks and a refusal; see tracerd.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/strutil.h"
#include "tracerd.h"

struct hook *hooks_new(size_t n, size_t strbytes, bool args, struct hook_strs *strs)
{
	size_t hsz = n * sizeof(struct hook), asz = args ? n * sizeof(struct hook_args) : 0;
	struct hook *hooks;
	char *p;
	size_t i;

	if (n > (SIZE_MAX - strbytes) / (sizeof(struct hook) + sizeof(struct hook_args)))
		return NULL;
	p = calloc(1, hsz + asz + strbytes ? hsz + asz + strbytes : 1);
	if (!p)
		return NULL;
	hooks = (struct hook *)p;
	for (i = 0; i < n; i++) {
		hooks[i].slot = TRACERD_MAX_SLOTS;	/* none yet */
		hooks[i].module = "";
		if (args)
			hooks[i].args = (struct hook_args *)(p + hsz) + i;
	}
	strs->next = p + hsz + asz;
	strs->end = strs->next + strbytes;
	return hooks;
}

const char *hook_str(struct hook_strs *strs, const char *s)
{
	size_t len = strlen(s) + 1;
	char *c = strs->next;

	if ((size_t)(strs->end - c) < len)
		return NULL;
	memcpy(c, s, len);
	strs->next += len;
	return c;
}

void hooks_free(struct hook *hooks, size_t n)
{
	size_t i;

	for (i = 0; hooks && i < n; i++)
		hook_err_clear(&hooks[i]);
	free(hooks);
}

/* out of memory for a message: this one, never freed */
static char hook_err_nomem[] = "out of memory (for this function's error message)";

int hook_err(struct hook *h, int ret, const char *fmt, ...)
{
	char buf[HOOK_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	str_vfmt(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	hook_err_clear(h);
	h->err = strdup(buf);
	if (!h->err)
		h->err = hook_err_nomem;
	return ret;
}

void hook_err_clear(struct hook *h)
{
	if (h->err != hook_err_nomem)
		free(h->err);
	h->err = NULL;
}

int hook_err_msg(struct hook *h, int ret, const char *msg)
{
	return ret < 0 && msg[0] ? hook_err(h, ret, "%s", msg) : ret;
}
