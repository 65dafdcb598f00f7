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
	bool errors_known;		/* the attachment counts errors (--errors) */
	struct tracerd_slot_errors errors;
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
/*
 * How an attach or detach started in the event loop ended: err 0 with a
 * (attached, or about to be freed after a detach) and skipped (the glob
 * matches not hooked), or -errno with msg (a NULL). Called once, from the
 * loop (a requester that went away still is: daemon/control.c answers
 * into the void).
 */
typedef void (*registry_done_fn)(struct tracerd *d, void *ctx, int err, struct attachment *a,
				 const struct skip_list *skipped, const char *msg);
/*
 * registry_attach in steps: 0 with *out on d->changing (state attaching,
 * nr_done of nr_total), done(ctx) called when it ends; or -errno and msg
 * at once, as registry_attach (-EMFILE: the fds do not suffice, msg names
 * RLIMIT_NOFILE; spec->partial hooks what fits instead).
 */
int registry_attach_start(struct tracerd *d, const struct tracerd_spec *spec,
			  registry_done_fn done, void *ctx, struct attachment **out,
			  char *msg, size_t msglen);
/*
 * Detach a in steps (an attachment still attaching: its attach ends with
 * -ECANCELED and what it hooked so far is undone); done(ctx) when it is
 * gone. -EALREADY: a is being detached for another requester already.
 */
int registry_detach_start(struct tracerd *d, struct attachment *a, registry_done_fn done,
			  void *ctx);
/* Attached or in progress; NULL when no attachment has the id. */
struct attachment *registry_find(struct tracerd *d, unsigned int id);
/* Detach and free a now (unlinked from its list), not in steps. */
void registry_detach(struct tracerd *d, struct attachment *a);
/* Detach everything now (stopping); progress(hooks left) about once a second. */
void registry_detach_all(struct tracerd *d, void (*progress)(size_t left));
/* Free the step event (before the event base goes). */
void registry_loop_stop(struct tracerd *d);
/* attached and in progress */
unsigned int registry_count(const struct tracerd *d);

int hook_stats(struct tracerd *d, struct attachment *a, struct hook *h, struct hook_stats *out);
/* Add from into into (the per-function merge of `stats --merge`). */
void hook_stats_merge(struct hook_stats *into, const struct hook_stats *from);

#endif
