/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The registry of attachments: attach (resolve, choose the mode, hook),
 * detach, and the read side used by the control protocol and by any other
 * exporter (HTTP metrics): iterate d->attachments and call hook_stats().
 * Objects and -errno only: daemon/commands.c renders them as JSON and
 * turns the errno into the protocol's code (one table, command_code()).
 */
#ifndef TRACERD_REGISTRY_H
#define TRACERD_REGISTRY_H

#include "tracerd.h"

/* A snapshot of one hook's statistics. */
struct hook_stats {
	struct tracerd_slot_stats s;	/* summed over CPUs */
	bool kernel_misses_known;
	__u64 kernel_misses;
	const char *misses_why;		/* when !kernel_misses_known */
};

/*
 * Attach spec: 0 with *out the new attachment (owned by the registry) and
 * skipped (may be NULL) holding the glob matches not hooked, or -errno
 * with msg saying why: -EINVAL bad request, -ENOENT no such target,
 * -EEXIST the same attachment exists, -EOPNOTSUPP mode unavailable here,
 * -ENOSPC out of slots, -E2BIG more matches than max_glob_matches,
 * -ENOMEM, -EIO (no function list, a recording that cannot start),
 * -EREMOTEIO the kernel refused (its errno is in msg).
 */
int registry_attach(struct tracerd *d, const struct tracerd_spec *spec, struct attachment **out,
		    struct skip_list *skipped, char *msg, size_t msglen);
struct attachment *registry_find(struct tracerd *d, unsigned int id);
/* Detach and free a (unlinked from d->attachments). */
void registry_detach(struct tracerd *d, struct attachment *a);
void registry_detach_all(struct tracerd *d);
unsigned int registry_count(const struct tracerd *d);

int hook_stats(struct tracerd *d, struct attachment *a, struct hook *h, struct hook_stats *out);
/* Add from into into (the per-function merge of `stats --merge`). */
void hook_stats_merge(struct hook_stats *into, const struct hook_stats *from);

/* skipped lists: at most SKIP_LIST_MAX entries are kept */
#define SKIP_LIST_MAX	1000
void skip_list_add(struct skip_list *l, const char *function, const char *reason);
void skip_list_free(struct skip_list *l);

#endif
