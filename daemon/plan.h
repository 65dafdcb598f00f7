/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * attach --dry-run: what registry_attach would do with a request, worked
 * out by the registry's own checks (registry_prepare, resolve_target,
 * registry_auto_candidates, registry_hooks_needs) and stopped before the
 * first thing that touches the kernel or the maps: no slot, no program,
 * no link, no module call.
 */
#ifndef TRACERD_PLAN_H
#define TRACERD_PLAN_H

#include <json-c/json.h>
#include "../lib/proto.h"
#include "backend.h"
#include "tracerd.h"

/* registry.c: the steps of registry_attach that touch nothing */
int registry_prepare(struct tracerd *d, const struct tracerd_spec *spec, enum tracerd_mode *cand,
		     size_t *nc, char *msg, size_t msglen);
size_t registry_auto_candidates(struct tracerd *d, const struct tracerd_spec *spec,
				const struct hook *hooks, size_t nr, enum tracerd_mode *out,
				char *why, size_t whylen);
int registry_hooks_needs(const struct backend *be, struct attachment *a);

/*
 * The plan of spec as the attach reply would carry it ({"plan": {target,
 * mode, mode_reason, candidates, functions: [{function, module, btf_id,
 * address, hooked, reason}], skipped}}), or the error attach would give.
 */
enum proto_code plan_attach(struct tracerd *d, const struct tracerd_spec *spec,
			    json_object **result, char *msg, size_t msglen);

#endif
