/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The registry of attachments: attach (resolve, choose the mode, hook),
 * detach, and the read side used by the control protocol and by any other
 * exporter (HTTP metrics): iterate d->attachments and call hook_stats().
 * Objects and -errno only: daemon/commands.c renders them as JSON and
 * turns the errno into the protocol's code (one table, lib/proto.c proto_code_errno()).
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

struct backend;

/*
 * One attach request, built once per attach (and per --dry-run): every
 * later step reads what it needs here instead of asking the spec again.
 */
struct request {
	struct tracerd_spec spec;
	enum spec_kind kind;		/* function, glob, tracepoint, syscall pair */
	unsigned int needs;		/* MODE_CAP_* the spec needs of a mode */
	const struct backend *be;	/* the mode's (its variant's); NULL: auto */
};

/*
 * What an attach of a spec does before it touches the kernel or the maps:
 * the checked request, its hooks (each hook's err set for the chosen mode:
 * "" hooked, else why it is skipped), the glob matches left out, the
 * candidate modes (auto's, cheapest first, or the one asked for) and the
 * one chosen: cand[chosen], be, the first whose backend takes some hook.
 */
struct plan {
	struct request req;
	struct hook *hooks;
	size_t nr_hooks;
	struct skip_list skipped;
	enum tracerd_mode cand[TRACERD_MODE_NR];
	size_t nc, chosen;
	const struct backend *be;
	char why[1024];			/* the modes passed over: "; not MODE: why" */
	char mode_reason[320];		/* as the attachment's */
};

/*
 * The plan of spec, or -errno with msg, the same as registry_attach's:
 * --dry-run (daemon/plan.c) renders it, registry_attach_start executes it,
 * so the two cannot drift. 0: the caller frees it (registry_plan_free).
 */
int registry_plan(struct tracerd *d, const struct tracerd_spec *spec, struct plan *p,
		  char *msg, size_t msglen);
void registry_plan_free(struct plan *p);
/* a is attaching, its target still being resolved on the worker thread (no hooks yet) */
bool registry_resolving(const struct attachment *a);
/*
 * registry_plan for a client that waits (--dry-run): done gets the plan
 * (freed after the call) or -errno with msg, at once when the target is a
 * lookup, else from the loop once the worker thread resolved it
 * (resolve_target_start; the loop answers others meanwhile).
 */
typedef void (*registry_plan_fn)(struct tracerd *d, void *ctx, int err, const struct plan *p,
				 const char *msg);
void registry_plan_start(struct tracerd *d, const struct tracerd_spec *spec,
			 registry_plan_fn done, void *ctx);

/*
 * Attach spec: 0 with *out the new attachment (owned by the registry) and
 * skipped (may be NULL) holding the glob matches not hooked, or -errno
 * with msg saying why: -EINVAL bad request, -ENOENT no such target,
 * -EEXIST the same attachment exists, -EOPNOTSUPP mode unavailable here,
 * -ENOSPC out of slots, -E2BIG more matches than max_glob_matches,
 * -ENOMEM, -EIO (no function list, a recording that cannot start),
 * -EREMOTEIO the kernel refused (its errno is in msg), -EADDRNOTAVAIL
 * the mode cannot hook the function so on this kernel (kprobe-int3
 * --latency where a kretprobe cannot take the entry).
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
void registry_detach_all(struct tracerd *d, void (*progress)(struct tracerd *d, size_t left));
/* Wait for a job on the worker thread (an attach is then undone by
 * registry_detach_all), free the step event (before the event base goes). */
void registry_loop_stop(struct tracerd *d);
/* An attach or detach call on the worker thread (registry.c, struct
 * registry_job): wait for it to return and apply it. */
void registry_job_wait(struct tracerd *d);
/* attached and in progress */
unsigned int registry_count(const struct tracerd *d);

int hook_stats(struct tracerd *d, struct attachment *a, struct hook *h, struct hook_stats *out);
/*
 * Around a pass of hook_stats over a's hooks (stats, a metrics snapshot):
 * the backend may read them all at once (kmod: TRACERD_IOC_COUNTERS_BATCH)
 * and answer hook_stats from what it read until hook_stats_end.
 */
void hook_stats_begin(struct tracerd *d, struct attachment *a);
void hook_stats_end(struct tracerd *d, struct attachment *a);
/* Add from into into (the per-function merge of `stats --merge`). */
void hook_stats_merge(struct hook_stats *into, const struct hook_stats *from);

#endif
