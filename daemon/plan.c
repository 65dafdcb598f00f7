// SPDX-License-Identifier: GPL-2.0-or-later
/* attach --dry-run; see plan.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/spec.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "commands.h"
#include "control.h"
#include "plan.h"
#include "registry.h"

static json_object *plan_hook_json(const struct hook *h)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "function", json_object_new_string(h->name));
	json_object_object_add(o, "module",
			       h->module[0] ? json_object_new_string(h->module) : NULL);
	json_object_object_add(o, "btf_id", json_object_new_int(h->btf_id));
	json_object_object_add(o, "address", json_object_new_boolean(h->addr != 0));
	json_object_object_add(o, "hooked", json_object_new_boolean(!h->err));
	json_object_object_add(o, "reason", h->err ? json_object_new_string(h->err) : NULL);
	return o;
}

static json_object *plan_json(const struct plan *p)
{
	json_object *o = json_object_new_object(), *c = json_object_new_array(), *f;
	size_t i;

	for (i = 0; i < p->nc; i++)
		json_object_array_add(c, json_object_new_string(tracerd_mode_name(p->cand[i])));
	f = json_object_new_array();
	for (i = 0; i < p->nr_hooks; i++)
		json_object_array_add(f, plan_hook_json(&p->hooks[i]));
	json_object_object_add(o, "target", json_object_new_string(p->req.spec.target));
	json_object_object_add(o, "mode", json_object_new_string(
		tracerd_mode_name(p->cand[p->chosen])));
	json_object_object_add(o, "mode_reason", json_object_new_string(p->mode_reason));
	json_object_object_add(o, "candidates", c);
	json_object_object_add(o, "functions", f);
	json_object_object_add(o, "skipped", skip_list_json(&p->skipped));
	json_object_object_add(o, "skipped_total", json_object_new_int64((int64_t)p->skipped.total));
	json_object_object_add(o, "skipped_reasons", skip_list_reasons_json(&p->skipped));
	return o;
}

/* registry_plan_start's outcome, to the client that waits (ctx: its control_wait) */
static void plan_answer(struct tracerd *d, void *ctx, int err, const struct plan *p,
			const char *msg)
{
	json_object *result = NULL;

	if (!err) {
		result = json_object_new_object();
		json_object_object_add(result, "plan", plan_json(p));
		json_object_object_add(result, "dry_run", json_object_new_boolean(1));
	}
	control_answer(ctx, proto_code_errno(err), result, msg);
}

void plan_attach(struct tracerd *d, const struct tracerd_spec *spec, struct control_wait *w)
{
	registry_plan_start(d, spec, plan_answer, w);
}
