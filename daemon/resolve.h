/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Target resolution: a function name, a glob of them, or a tracepoint
 * turned into hooks with what each mode needs (module, kallsyms address,
 * BTF id, module BTF fd). Sources: available_filter_functions (what ftrace
 * can hook), BTF (vmlinux and modules), /proc/kallsyms (addresses, and to
 * explain why a name is not traceable). Globs honour max_glob_matches and
 * the denylist (lib/symfilter.c).
 */
#ifndef TRACERD_RESOLVE_H
#define TRACERD_RESOLVE_H

#include <json-c/json.h>
#include "../lib/proto.h"
#include "tracerd.h"

struct resolver;

struct resolver *resolver_new(struct tracerd *d);
/* Closes module BTF fds handed out in hooks: call after attaching. */
void resolver_free(struct resolver *r);

/*
 * Resolve spec->target into *hooks (calloc'ed, n in *nr). Glob matches
 * that are not hooked are appended to skipped as {"function","reason"}.
 * need_addr: kallsyms addresses are needed (kmod modes).
 * Returns PROTO_OK or an error code with msg filled.
 */
enum proto_code resolve_target(struct resolver *r, const struct tracerd_spec *spec,
			       bool need_addr, struct hook **hooks, size_t *nr,
			       json_object *skipped, char *msg, size_t msglen);

/* vmlinux FUNC name index, built once at start. */
int resolve_init(struct tracerd *d);
void resolve_fini(struct tracerd *d);

#endif
