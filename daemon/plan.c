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
#include "plan.h"
#include "registry.h"
#include "resolve.h"

/* The first candidate that can take some hook (as attach_modes tries them); -1: none. */
static int plan_mode(struct attachment *a, const enum tracerd_mode *cand, size_t nc,
		     char *why, size_t whylen)
{
	size_t i, off = strlen(why);

	for (i = 0; i < nc; i++) {
		if (!registry_hooks_needs(backend_get(cand[i]), a))
			return (int)i;
		off = str_cat(why, whylen, off, "; not %s: %s", tracerd_mode_name(cand[i]),
			      a->hooks[0].err);
	}
	return -1;
}

static json_object *plan_hook_json(const struct hook *h)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "function", json_object_new_string(h->name));
	json_object_object_add(o, "module", h->module[0] ? json_object_new_string(h->module) : NULL);
	json_object_object_add(o, "btf_id", json_object_new_int(h->btf_id));
	json_object_object_add(o, "address", json_object_new_boolean(h->addr != 0));
	json_object_object_add(o, "hooked", json_object_new_boolean(!h->err[0]));
	json_object_object_add(o, "reason", h->err[0] ? json_object_new_string(h->err) : NULL);
	return o;
}

static json_object *plan_json(const struct attachment *a, const enum tracerd_mode *cand,
			      size_t nc, int chosen, const char *why, const struct skip_list *sk)
{
	json_object *o = json_object_new_object(), *c = json_object_new_array(), *f;
	const struct backend *be = backend_get(cand[chosen]);
	char reason[1200];
	size_t i;

	if (a->spec.mode == TRACERD_MODE_AUTO)
		str_fmt(reason, sizeof(reason), "auto: %s%s", be->auto_why[a->nr_hooks > 1] ?
			be->auto_why[a->nr_hooks > 1] : "the cheapest mode available", why);
	else
		str_fmt(reason, sizeof(reason), "requested");
	for (i = 0; i < nc; i++)
		json_object_array_add(c, json_object_new_string(tracerd_mode_name(cand[i])));
	f = json_object_new_array();
	for (i = 0; i < a->nr_hooks; i++)
		json_object_array_add(f, plan_hook_json(&a->hooks[i]));
	json_object_object_add(o, "target", json_object_new_string(a->spec.target));
	json_object_object_add(o, "mode", json_object_new_string(tracerd_mode_name(cand[chosen])));
	json_object_object_add(o, "mode_reason", json_object_new_string(reason));
	json_object_object_add(o, "candidates", c);
	json_object_object_add(o, "functions", f);
	json_object_object_add(o, "skipped", skipped_json(sk));
	return o;
}

enum proto_code plan_attach(struct tracerd *d, const struct tracerd_spec *spec,
			    json_object **result, char *msg, size_t msglen)
{
	struct attachment a = { .spec = *spec };
	enum tracerd_mode cand[TRACERD_MODE_NR];
	struct skip_list skipped = {};
	char why[1024] = "";
	size_t nc = 0;
	int err, chosen = -1;

	err = registry_prepare(d, spec, cand, &nc, msg, msglen);
	if (!err)
		err = resolve_target(d, spec, spec->mode == TRACERD_MODE_AUTO ||
				     (backend_get(spec->mode)->caps & MODE_CAP_NEEDS_ADDR),
				     &a.hooks, &a.nr_hooks, &skipped, msg, msglen);
	if (!err && spec->mode == TRACERD_MODE_AUTO) {
		nc = registry_auto_candidates(d, spec, a.hooks, a.nr_hooks, cand, why, sizeof(why));
		if (!nc)
			err = set_err(msg, msglen, -EOPNOTSUPP, "no mode can hook '%s' on this "
				      "kernel%s", spec->target, why);
	}
	if (!err) {
		chosen = plan_mode(&a, cand, nc, why, sizeof(why));
		if (chosen < 0)
			err = set_err(msg, msglen, -ENOENT, "no mode could hook '%s'%s",
				      spec->target, why);
	}
	if (!err) {
		*result = json_object_new_object();
		json_object_object_add(*result, "plan", plan_json(&a, cand, nc, chosen, why, &skipped));
		json_object_object_add(*result, "dry_run", json_object_new_boolean(1));
	}
	free(a.hooks);
	skip_list_free(&skipped);
	return err ? command_code(err) : PROTO_OK;
}
