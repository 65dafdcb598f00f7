/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * attach --dry-run: the plan registry_plan() makes of a request (the one
 * registry_attach_start executes), rendered as the attach reply would carry
 * it, and stopped before the first thing that touches the kernel or the
 * maps: no slot, no program, no link, no module call.
 */
#ifndef TRACERD_PLAN_H
#define TRACERD_PLAN_H

#include <json-c/json.h>
#include "../lib/proto.h"
#include "tracerd.h"

/*
 * Answer w with the plan of spec as the attach reply would carry it
 * ({"plan": {target, mode, mode_reason, candidates, functions: [{function,
 * module, btf_id, address, hooked, reason}], skipped}}), or the error
 * attach would give; a glob's resolve runs on the worker thread
 * (registry_plan_start), the loop answering others meanwhile.
 */
struct control_wait;
void plan_attach(struct tracerd *d, const struct tracerd_spec *spec, struct control_wait *w);

#endif
