// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Attachments: resolve a spec into hooks, pick the mode (auto: the table
 * in docs/auto.md), attach through the backend, keep the result; detach;
 * read statistics. Objects and -errno, no JSON: see registry.h.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <event2/event.h>
#include "../lib/autosel.h"
#include "../lib/log.h"
#include "../lib/modes.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "backend.h"
#include "fds.h"
#include "recorder.h"
#include "registry.h"
#include "resolve.h"
#include "worker.h"

unsigned int registry_count(const struct tracerd *d)
{
	const struct attachment *a;
	unsigned int n = 0;

	for (a = d->attachments; a; a = a->next)
		n++;
	for (a = d->changing; a; a = a->next)
		n++;
	return n;
}

struct attachment *registry_find(struct tracerd *d, unsigned int id)
{
	struct attachment *a;

	for (a = d->attachments; a && a->id != id; a = a->next)
		;
	if (!a)
		for (a = d->changing; a && a->id != id; a = a->next)
			;
	return a;
}

/* Does an attachment own function name's one direct call (MODE_CAP_DIRECT_EXCL)? */
static const struct attachment *direct_call_owner(struct tracerd *d, const char *name)
{
	const struct attachment *a;
	size_t i;

	int l;

	for (l = 0; l < 2; l++) {
		for (a = l ? d->changing : d->attachments; a; a = a->next) {
			if (!a->be || !(a->be->caps & MODE_CAP_DIRECT_EXCL))
				continue;
			for (i = 0; i < a->nr_hooks; i++)
				if (!strcmp(a->hooks[i].name, name))
					return a;
		}
	}
	return NULL;
}

/*
 * auto: the candidate modes for this request, cheapest first (the table
 * is lib/autosel.c, docs/auto.md), and why each mode passed over before
 * the first candidate was skipped.
 */
static size_t auto_candidates(struct tracerd *d, const struct request *req,
			      const struct hook *hooks, size_t nr, enum tracerd_mode *out,
			      char *why, size_t whylen)
{
	const struct attachment *owner = nr == 1 ? direct_call_owner(d, hooks[0].name) : NULL;
	const struct tracerd_spec *spec = &req->spec;
	unsigned int caps[TRACERD_MODE_NR];
	bool avail[TRACERD_MODE_NR];
	struct auto_request r = {
		.tracepoint = spec_kind_is_tracepoint(req->kind),
		.nr_functions = nr,
		.direct_call_taken = owner != NULL,
		.latency = spec->latency,
		.comm = spec->comm[0] != '\0',
		.record = spec->record[0] != '\0',
		.errors = spec->errors,
		.by = spec->by != SPEC_BY_NONE,
		.stacks = spec->stacks != 0,
		.slow = spec->slower_ns != 0,
		.args = spec->args || spec->cond[0],
		.args_ret = spec->args && spec->latency,
		.available = avail,
		.caps = caps,
	};
	enum auto_skip skip[TRACERD_MODE_NR];
	enum tracerd_mode order[TRACERD_MODE_NR];
	const char *opt_why[TRACERD_MODE_NR] = {};
	size_t i, n, len, off = 0;
	char buf[400], miss[160];
	int m;

	for (m = 0; m < TRACERD_MODE_NR; m++) {
		const struct backend *be = backend_get(m);
		const char *w;

		avail[m] = d->features[m].available;
		caps[m] = be ? be->caps : 0;
		/* the module's latency and comm filter: only where it says it
		 * has them (asked only of a mode that is here and only for a
		 * request with the option) */
		if (r.latency && avail[m] && be && be->latency_unavailable &&
		    (w = be->latency_unavailable(d))) {
			caps[m] &= ~MODE_CAP_LATENCY;
			opt_why[m] = w;
		}
		if (r.comm && avail[m] && be && be->comm_unavailable &&
		    (w = be->comm_unavailable(d))) {
			caps[m] &= ~MODE_CAP_COMM;
			opt_why[m] = opt_why[m] ? opt_why[m] : w;
		}
		if (r.stacks && avail[m] && be && be->stacks_unavailable &&
		    (w = be->stacks_unavailable(d))) {
			caps[m] &= ~MODE_CAP_STACKS;
			opt_why[m] = opt_why[m] ? opt_why[m] : w;
		}
	}
	n = auto_select(&r, out, skip, order, &len);
	why[0] = '\0';
	for (i = 0; i < len && (!n || order[i] != out[0]); i++) {
		const char *reason = NULL;

		switch (skip[order[i]]) {
		case AUTO_SKIP_UNAVAILABLE:
			reason = d->features[order[i]].reason;
			break;
		case AUTO_SKIP_DIRECT_CALL:
			str_fmt(buf, sizeof(buf), "'%s' carries the direct call of %s "
				 "attachment %u (one direct call per function)",
				 hooks[0].name, tracerd_mode_name(owner->mode), owner->id);
			reason = buf;
			break;
		case AUTO_SKIP_OPTIONS:
			snprintf(buf, sizeof(buf), "the mode has no %s%s%s", mode_caps_missing(
				caps[order[i]], r.latency, r.comm, r.record, r.errors, r.by,
				r.stacks, r.slow, r.args, r.args_ret, miss, sizeof(miss)),
				opt_why[order[i]] ? " here: " : "",
				opt_why[order[i]] ? opt_why[order[i]] : "");
			reason = buf;
			break;
		default:
			continue;
		}
		off = str_cat(why, whylen, off, "; not %s: %s", tracerd_mode_name(order[i]),
			      reason);
	}
	return n;
}

/*
 * A backend's failure is the kernel's refusal (-EREMOTEIO, the kernel's
 * own errno is in the message), unless it says no such function (or BTF),
 * out of room, out of memory, or that the mode cannot hook the function
 * so on this kernel (-EADDRNOTAVAIL: bench's "unavailable", daemon/bench.c).
 */
static int kernel_refusal(int err)
{
	return err == -ENOENT || err == -ENOSPC || err == -ENOMEM || err == -EADDRNOTAVAIL
		       ? err
		       : -EREMOTEIO;
}

static void hooks_release(struct tracerd *d, struct hook *hooks, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		maps_slot_free(d, hooks[i].slot);
	maps_sweep(d);
}

/* Give back the slots a's hooks hold: none is left to any of them. */
static void hooks_unslot(struct tracerd *d, struct attachment *a)
{
	size_t i;

	hooks_release(d, a->hooks, a->nr_hooks);
	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].slot = TRACERD_MAX_SLOTS;
}

/* Give every hook a configured slot: all of them, or none (-errno). */
static int hooks_slots(struct tracerd *d, struct attachment *a)
{
	size_t i;
	int err;

	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].slot = TRACERD_MAX_SLOTS;
	for (i = 0; i < a->nr_hooks; i++) {
		err = maps_slot_alloc(d, &a->hooks[i].slot, a->hooks[i].ret64);
		if (!err)
			err = maps_slot_config(d, a->hooks[i].slot, &a->spec, a->hooks[i].args);
		if (err) {
			hooks_unslot(d, a);
			return err;
		}
	}
	return 0;
}

/*
 * The slots for candidate a->be, taken when it starts (candidate_begin), not
 * at the request: a mode that takes none (kmod, struct backend's no_slots)
 * gives back what an earlier candidate took, so a glob of 50k functions is
 * not bounded by the 4096 slots there. A candidate that follows another
 * BPF one keeps its slots.
 */
static int candidate_slots(struct tracerd *d, struct attachment *a, char *msg, size_t msglen)
{
	int err;

	if (backend_slotless(a->be, &a->spec)) {
		hooks_unslot(d, a);
		return 0;
	}
	if (!a->nr_hooks || a->hooks[0].slot < TRACERD_MAX_SLOTS)
		return 0;
	err = hooks_slots(d, a);
	if (err)
		return set_err(msg, msglen, err, "cannot give the %zu functions their slots: %s",
			       a->nr_hooks, strerror(-err));
	return 0;
}

/* Drop hooks that did not attach (reported in skipped); keep the rest. */
static void hooks_compact(struct tracerd *d, struct attachment *a, struct skip_list *skipped)
{
	size_t i, j = 0;

	for (i = 0; i < a->nr_hooks; i++) {
		struct hook *h = &a->hooks[i];

		if (h->attached) {
			a->hooks[j++] = *h;
			continue;
		}
		/* the backend freed what it held of a hook it could not attach */
		skip_list_add(skipped, h->name, h->err ? h->err : "not attached");
		hook_err_clear(h);
		maps_slot_free(d, h->slot);
	}
	maps_sweep(d);
	a->nr_hooks = j;
}

/*
 * What be needs of a hook (MODE_CAP_NEEDS_*): a hook without it is marked
 * failed (err set: the backend leaves it alone, the registry skips it).
 * 0 when some hook can be attached, else -ENOENT.
 */
static int hooks_needs(const struct backend *be, struct hook *hooks, size_t nr)
{
	size_t k, n = 0;

	for (k = 0; k < nr; k++) {
		struct hook *h = &hooks[k];

		hook_err_clear(h);
		if ((be->caps & MODE_CAP_NEEDS_BTF) && h->btf_id <= 0)
			hook_err(h, 0, "no BTF for function '%s' (%s needs it)",
				 h->name, tracerd_mode_name(be->mode));
		else if ((be->caps & MODE_CAP_NEEDS_ADDR) && !h->addr)
			hook_err(h, 0, "no kallsyms address for '%s' (%s needs one)", h->name,
				 tracerd_mode_name(be->mode));
		else
			n++;
	}
	return n ? 0 : -ENOENT;
}

/*
 * Do the slots left suffice for be and spec (one per function, unless
 * backend_slotless)? The hooks that already hold one (an earlier
 * candidate's) count as had. 0, or -ENOSPC naming the count in msg.
 */
static int slots_fit(const struct tracerd *d, const struct backend *be,
		     const struct tracerd_spec *spec, const struct hook *hooks, size_t nr,
		     char *msg, size_t msglen)
{
	size_t i, held = 0, avail = TRACERD_MAX_SLOTS - d->nr_slots_used;

	if (backend_slotless(be, spec))
		return 0;
	for (i = 0; i < nr; i++)
		held += hooks[i].slot < TRACERD_MAX_SLOTS;
	if (nr - held <= avail)
		return 0;
	return set_err(msg, msglen, -ENOSPC, "mode %s takes a slot per function: %zu functions, "
		       "%zu of the %u slots (TRACERD_MAX_SLOTS, shared by all attachments) "
		       "free; hook fewer functions, only count them in kprobe-multi (without "
		       "--latency, --errors, --by, --stacks, --record, --args, --if: it takes "
		       "none then), or use a kmod mode (kmod-callops, kmod-direct, kmod-kprobe: "
		       "they take none)",
		       tracerd_mode_name(be->mode), nr, avail, TRACERD_MAX_SLOTS);
}

/*
 * Can candidate be take some of the hooks? 0, or -ENOENT with the first
 * hook's reason in msg (-ENOSPC: more functions than free slots) and
 * "; not MODE: reason" appended to why: the one test of a candidate, for
 * the plan and for attach alike.
 */
static int candidate_fits(const struct tracerd *d, const struct backend *be,
			  const struct tracerd_spec *spec, struct hook *hooks, size_t nr,
			  char *why, size_t whylen, char *msg, size_t msglen)
{
	int err;

	if (hooks_needs(be, hooks, nr)) {
		str_fmt(msg, msglen, "%s", hooks[0].err ? hooks[0].err : "");
		err = -ENOENT;
	} else {
		err = slots_fit(d, be, spec, hooks, nr, msg, msglen);
		if (!err)
			return 0;
	}
	str_cat(why, whylen, strlen(why), "; not %s: %s", tracerd_mode_name(be->mode), msg);
	return err;
}

/* Why this mode: "requested", or auto's reason and the modes it passed over. */
static void mode_reason(char *buf, size_t len, const struct request *r,
			const struct backend *be, size_t nr_resolved, const char *why)
{
	const char *what = be->auto_why[nr_resolved > 1];

	if (r->spec.mode != TRACERD_MODE_AUTO) {
		str_fmt(buf, len, "requested");
		return;
	}
	if (!what)
		what = "the cheapest mode available for this target";
	str_fmt(buf, len, "auto: %s%s", what, why);
}

/*
 * The one check of a request against what its mode (or the variant of it
 * asked for) supports: what it needs and the backend lacks (needs &
 * ~caps), before anything touches the kernel: -EINVAL naming it.
 */
static int request_check(struct tracerd *d, const struct request *r, char *msg, size_t msglen)
{
	const struct tracerd_spec *spec = &r->spec;
	unsigned int missing;
	char miss[160];

	if (!r->be)
		return set_err(msg, msglen, -EINVAL, "mode %s has no variant %s",
			       tracerd_mode_name(spec->mode), mode_variant_name(spec->variant));
	missing = r->needs & ~r->be->caps;
	if (!missing)
		return 0;
	if (missing & (MODE_CAP_TRACEPOINT | MODE_CAP_FUNCTION))
		return set_err(msg, msglen, -EINVAL, "mode %s cannot hook %s '%s'",
			       tracerd_mode_name(spec->mode),
			       missing & MODE_CAP_TRACEPOINT ? "tracepoint" : "function",
			       spec->target);
	if (missing & MODE_CAP_PID)
		return set_err(msg, msglen, -EINVAL, "mode %s has no pid filter",
			       tracerd_mode_name(spec->mode));
	/* a mode that says why it keeps no stacks (kmod-direct) says it here */
	if (missing == MODE_CAP_STACKS && r->be->stacks_unavailable)
		return set_err(msg, msglen, -EINVAL, "mode %s has no stacks: %s",
			       tracerd_mode_name(spec->mode), r->be->stacks_unavailable(d));
	mode_caps_missing(~missing, true, true, true, true, true, true, true, true, true, miss,
			  sizeof(miss));
	if (spec->variant)
		return set_err(msg, msglen, -EINVAL, "mode %s, variant %s, has no %s",
			       tracerd_mode_name(spec->mode), mode_variant_name(spec->variant),
			       miss);
	if (tracerd_mode_is_kmod(spec->mode))
		return set_err(msg, msglen, -EINVAL, "mode %s has no %s (the module counts "
			       "calls by pid and comm, and times them and keeps their stacks "
			       "in kmod-kprobe and kmod-callops only; recording, error "
			       "counting, by keys and arguments need a BPF mode)",
			       tracerd_mode_name(spec->mode), miss);
	return set_err(msg, msglen, -EINVAL, "mode %s has no %s",
		       tracerd_mode_name(spec->mode), miss);
}

/* Can the mode asked for (its variant) be used on this kernel, with these options? */
static int request_available(struct tracerd *d, const struct request *r, char *msg,
			     size_t msglen)
{
	const struct tracerd_spec *spec = &r->spec;
	const struct backend *mode_be = backend_get(spec->mode);
	const struct feature *f = &d->features[spec->mode];
	const char *why;

	if (!f->available && !(spec->variant && r->be->own_probe))
		return set_err(msg, msglen, -EOPNOTSUPP, "mode %s is not available on this "
			       "kernel: %s", tracerd_mode_name(spec->mode), f->reason);
	if (spec->variant && (why = backend_unavailable(d, spec->mode, spec->variant)))
		return set_err(msg, msglen, -EOPNOTSUPP, "mode %s, variant %s, is not available "
			       "here: %s", tracerd_mode_name(spec->mode),
			       mode_variant_name(spec->variant), why);
	if (spec->latency && mode_be->latency_unavailable &&
	    (why = mode_be->latency_unavailable(d)))
		return set_err(msg, msglen, -EOPNOTSUPP, "mode %s has no latency here: %s",
			       tracerd_mode_name(spec->mode), why);
	if (spec->comm[0] && mode_be->comm_unavailable && (why = mode_be->comm_unavailable(d)))
		return set_err(msg, msglen, -EOPNOTSUPP, "mode %s has no comm filter here: %s",
			       tracerd_mode_name(spec->mode), why);
	if (spec->stacks && mode_be->stacks_unavailable &&
	    (why = mode_be->stacks_unavailable(d)))
		return set_err(msg, msglen, -EOPNOTSUPP, "mode %s has no stacks here: %s",
			       tracerd_mode_name(spec->mode), why);
	return 0;
}

/* An attachment, attached or in progress, with the hooks spec asks for. */
static const struct attachment *same_hooks(struct tracerd *d, const struct tracerd_spec *spec)
{
	const struct attachment *o;

	for (o = d->attachments; o; o = o->next)
		if (spec_same_hooks(&o->spec, spec))
			return o;
	for (o = d->changing; o; o = o->next)
		if (spec_same_hooks(&o->spec, spec))
			return o;
	return NULL;
}

/*
 * Build the request once: the spec's syntax, what its target is and what
 * it needs (asked here and carried), no duplicate, and for a mode asked by
 * name its backend, set once, checked against the needs and the kernel.
 */
static int request_init(struct tracerd *d, const struct tracerd_spec *spec, struct request *r,
			char *msg, size_t msglen)
{
	const struct attachment *o;
	int err;

	memset(r, 0, sizeof(*r));
	r->spec = *spec;
	err = spec_validate(spec, msg, msglen);
	if (err)
		return err;
	r->kind = spec_kind(spec->target);
	err = spec_check_kind(spec, r->kind, msg, msglen);
	if (err)
		return err;
	r->needs = spec_needs(spec, r->kind);
	/* bpf_get_stackid walks no deeper than the sysctl (maps.c sized the stacks to it) */
	if (spec->stacks > d->stack_depth_max)
		return set_err(msg, msglen, -EINVAL, "stack depth %u: this kernel keeps %u frames "
			       "at most (kernel.perf_event_max_stack)", spec->stacks,
			       d->stack_depth_max);
	o = same_hooks(d, spec);
	if (o && o->state == ATTACHMENT_ATTACHING)
		return set_err(msg, msglen, -EEXIST, "'%s' is being attached the same way "
			       "(attachment %u, %zu of %zu functions tried)", spec->target, o->id,
			       o->nr_done, o->nr_total);
	if (o)
		return set_err(msg, msglen, -EEXIST, "'%s' is already attached the same way "
			       "(attachment %u%s)", spec->target, o->id,
			       o->state == ATTACHMENT_DETACHING ? ", being detached" : "");
	if (spec->mode == TRACERD_MODE_AUTO)
		return 0;
	r->be = backend_variant(spec->mode, spec->variant);
	/* what the mode cannot do first: the answer does not depend on the kernel */
	err = request_check(d, r, msg, msglen);
	if (!err)
		err = request_available(d, r, msg, msglen);
	return err;
}

void registry_plan_free(struct plan *p)
{
	hooks_free(p->hooks, p->nr_hooks);
	p->hooks = NULL;
	p->nr_hooks = 0;
	skip_list_free(&p->skipped);
}

/* kallsyms addresses for the kmod modes, auto's last resort among them */
static bool request_needs_addr(const struct request *r)
{
	return !r->be || (r->be->caps & MODE_CAP_NEEDS_ADDR);
}

/* The plan's choice of mode for its resolved hooks: 0, or -errno with msg (p freed). */
static int plan_choose(struct tracerd *d, const struct tracerd_spec *spec, struct plan *p,
		       char *msg, size_t msglen)
{
	const struct request *r = &p->req;
	int err;

	if (r->be) {
		p->cand[0] = spec->mode;
		p->nc = 1;
	} else {
		p->nc = auto_candidates(d, r, p->hooks, p->nr_hooks, p->cand, p->why,
					sizeof(p->why));
		if (!p->nc) {
			err = set_err(msg, msglen, -EOPNOTSUPP, "no mode can hook '%s' on this "
				      "kernel%s", spec->target, p->why);
			goto fail;
		}
	}
	for (p->chosen = 0; p->chosen < p->nc; p->chosen++) {
		p->be = r->be ? r->be : backend_get(p->cand[p->chosen]);
		err = candidate_fits(d, p->be, &r->spec, p->hooks, p->nr_hooks, p->why,
				     sizeof(p->why), msg, msglen);
		if (!err)
			break;
	}
	if (p->chosen == p->nc) {	/* msg: the hooks' reason for the mode asked for */
		if (!r->be) {
			str_fmt(msg, msglen, "no mode could hook '%s'%s", spec->target, p->why);
			err = -ENOENT;
		}
		goto fail;
	}
	mode_reason(p->mode_reason, sizeof(p->mode_reason), r, p->be, p->nr_hooks, p->why);
	return 0;
fail:
	registry_plan_free(p);
	return err;
}

/* A resolve's outcome (err, resolve_msg) into p, then its choice: 0, or -errno with msg (p freed). */
static int plan_take(struct tracerd *d, const struct tracerd_spec *spec, struct plan *p, int err,
		     struct hook *hooks, size_t nr, struct skip_list *skipped,
		     const char *resolve_msg, char *msg, size_t msglen)
{
	p->hooks = hooks;
	p->nr_hooks = nr;
	if (skipped)
		p->skipped = *skipped;
	if (err) {
		if (msg != resolve_msg)
			str_fmt(msg, msglen, "%s", resolve_msg);
		registry_plan_free(p);
		return err;
	}
	return plan_choose(d, spec, p, msg, msglen);
}

/*
 * p's hooks for its checked request, and its choice: resolved here when
 * that is a lookup (resolve_quick) or may_defer is false or no loop runs;
 * else started on the worker thread (*deferred: done(ctx) comes from the
 * loop). 0, or -errno with msg (p freed).
 */
static int plan_resolve(struct tracerd *d, const struct tracerd_spec *spec, struct plan *p,
			bool may_defer, resolve_done_fn done, void *ctx, bool *deferred,
			char *msg, size_t msglen)
{
	bool addr = request_needs_addr(&p->req);
	struct skip_list skipped = { 0 };
	struct hook *hooks;
	size_t nr;
	int err;

	*deferred = false;
	/* (a resolve that cannot start on the thread runs here, as before) */
	if (may_defer && d->base && !resolve_quick(d, p->req.kind, addr) &&
	    !resolve_target_start(d, spec, p->req.kind, addr, done, ctx)) {
		*deferred = true;
		return 0;
	}
	err = resolve_target(d, spec, p->req.kind, addr, &hooks, &nr, &skipped, msg, msglen);
	return plan_take(d, spec, p, err, hooks, nr, &skipped, msg, msg, msglen);
}

int registry_plan(struct tracerd *d, const struct tracerd_spec *spec, struct plan *p,
		  char *msg, size_t msglen)
{
	bool deferred;
	int err;

	memset(p, 0, sizeof(*p));
	err = request_init(d, spec, &p->req, msg, msglen);
	return err ? err : plan_resolve(d, spec, p, false, NULL, NULL, &deferred, msg, msglen);
}

/* registry_plan_start's wait for the worker thread */
struct plan_wait {
	struct plan p;
	struct tracerd_spec spec;
	registry_plan_fn done;
	void *ctx;
};

static void plan_resolved(struct tracerd *d, void *ctx, int err, struct hook *hooks, size_t nr,
			  struct skip_list *skipped, const char *resolve_msg)
{
	struct plan_wait *w = ctx;
	char msg[1024];

	err = plan_take(d, &w->spec, &w->p, err, hooks, nr, skipped, resolve_msg, msg,
			sizeof(msg));
	w->done(d, w->ctx, err, err ? NULL : &w->p, err ? msg : "");
	if (!err)
		registry_plan_free(&w->p);
	free(w);
}

void registry_plan_start(struct tracerd *d, const struct tracerd_spec *spec,
			 registry_plan_fn done, void *ctx)
{
	struct plan_wait *w = calloc(1, sizeof(*w));
	char msg[1024] = "";
	bool deferred = false;
	int err = -ENOMEM;

	if (w) {
		w->spec = *spec;
		w->done = done;
		w->ctx = ctx;
		err = request_init(d, spec, &w->p.req, msg, sizeof(msg));
		if (!err)
			err = plan_resolve(d, spec, &w->p, true, plan_resolved, w, &deferred, msg,
					   sizeof(msg));
	} else {
		str_fmt(msg, sizeof(msg), "out of memory");
	}
	if (deferred)
		return;
	done(d, ctx, err, err ? NULL : &w->p, err ? msg : "");
	if (w && !err)
		registry_plan_free(&w->p);
	free(w);
}

/*
 * Attach and detach run in steps in the event loop (issue #12 class 5):
 * an attachment in progress is on d->changing (list shows it, with
 * nr_done of nr_total), and each turn of the loop hooks or unhooks one
 * function (a batch backend: all of them, in one call) per attachment
 * until STEP_BUDGET_NS is spent, then lets the loop serve its clients.
 * a->op holds what is left to do.
 */
#define STEP_BUDGET_NS	(20ULL * 1000 * 1000)

struct attach_op {
	bool detaching;
	struct request req;	/* what was asked, built once (registry_plan) */
	enum tracerd_mode cand[TRACERD_MODE_NR];
	size_t nc, ci;		/* candidate modes, the one being tried */
	size_t nr_ok;		/* hooks cand[ci] attached so far */
	size_t nr_resolved;
	bool resolving;		/* its target is resolved on the worker thread
				 * (resolve_target_start): no step yet */
	int err;		/* cand[ci]'s first failure */
	char why[1024];
	char msg[1024];
	struct skip_list skipped;
	registry_done_fn done;
	void *ctx;
};

static void list_insert(struct attachment **head, struct attachment *a)
{
	struct attachment **pp = head;

	while (*pp && (*pp)->id < a->id)
		pp = &(*pp)->next;
	a->next = *pp;
	*pp = a;
}

static void list_unlink(struct attachment **head, struct attachment *a)
{
	struct attachment **pp;

	for (pp = head; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			a->next = NULL;
			return;
		}
	}
}

static void op_free(struct attachment *a)
{
	if (!a->op)
		return;
	skip_list_free(&a->op->skipped);
	free(a->op);
	a->op = NULL;
}

/* Tell the requester (if any is still waiting) how it ended; once. */
static void op_done(struct tracerd *d, struct attachment *a, int err, const char *msg)
{
	struct attach_op *op = a->op;
	registry_done_fn done = op->done;

	op->done = NULL;
	if (done)
		done(d, op->ctx, err, err ? NULL : a, &op->skipped, msg);
}

static void registry_steps_cb(evutil_socket_t fd, short what, void *arg);

/* The steps' next turn: now, or after a pause (later) */
static void steps_schedule_in(struct tracerd *d, bool later)
{
	static const struct timeval now = { 0, 0 }, pause = { 0, 10 * 1000 };

	if (!d->base)
		return;
	if (!d->registry_step)
		d->registry_step = evtimer_new(d->base, registry_steps_cb, d);
	if (d->registry_step && !evtimer_pending(d->registry_step, NULL))
		evtimer_add(d->registry_step, later ? &pause : &now);
}

static void steps_schedule(struct tracerd *d)
{
	steps_schedule_in(d, false);
}

/* The fds the attaches in progress other than a will still open. */
static unsigned long long fds_promised(const struct tracerd *d, const struct attachment *a)
{
	const struct attachment *o;
	unsigned long long n = 0;

	for (o = d->changing; o; o = o->next)
		if (o != a && o->state == ATTACHMENT_ATTACHING)
			n += (o->nr_total - o->nr_done) *
			     o->be->fds[0][spec_returns(&o->spec)];
	return n;
}

/*
 * Do the file descriptors suffice for be to hook a's hooks (struct
 * backend's fds), with what the attaches in progress still open? No:
 * -EMFILE naming RLIMIT_NOFILE, unless the request is partial: then the
 * hooks past what fits are marked skipped.
 */
static int fds_check(const struct tracerd *d, const struct backend *be, struct attachment *a,
		     char *msg, size_t msglen)
{
	unsigned int per = be->fds[0][spec_returns(&a->spec)],
		     fixed = be->fds[1][spec_returns(&a->spec)];
	unsigned long long need, used, avail, fit;
	struct rlimit rl;
	long open;
	size_t i, n;

	if ((!per && !fixed) || getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	for (i = 0, n = 0; i < a->nr_hooks; i++)
		n += !a->hooks[i].err;
	open = open_fd_count();	/* lib/util.c */
	if (open < 0)
		open = (long)rl.rlim_cur;	/* EMFILE most likely: none left */
	need = (unsigned long long)n * per + fixed;
	used = (unsigned long long)open + FDS_RESERVE_ATTACH + fds_promised(d, a);
	avail = rl.rlim_cur > used ? rl.rlim_cur - used : 0;
	if (need <= avail)
		return 0;
	fit = per && avail > fixed ? (avail - fixed) / per : 0;
	if (!a->spec.partial || !fit)
		return set_err(
			msg, msglen, -EMFILE,
			"mode %s needs %llu file descriptors for %zu "
			"function%s (%u per function, %u per attachment), but RLIMIT_NOFILE "
			"%llu with %ld open and %d kept for clients: %llu fit. Raise the limit "
			"(" FDS_RAISE_HOW "), hook fewer functions, use a mode with fewer fds "
			"(kprobe-multi, kmod-*)%s",
			tracerd_mode_name(be->mode), need, n, n == 1 ? "" : "s", per, fixed,
			(unsigned long long)rl.rlim_cur, open, FDS_RESERVE_ATTACH, fit,
			per ? ", or ask for partial (tracectl attach --partial)" : "");
	for (i = 0, n = 0; i < a->nr_hooks; i++) {
		struct hook *h = &a->hooks[i];

		if (h->err || n++ < fit)
			continue;
		hook_err(h, 0, "not attached: out of file descriptors "
			 "(RLIMIT_NOFILE %llu, %u per function; partial)",
			 (unsigned long long)rl.rlim_cur, per);
	}
	return 0;
}

/*
 * The next candidate mode that can start (the plan's test, candidate_fits,
 * then the fds): 0 with a->mode and a->be set, or -errno when none is left.
 */
static int candidate_begin(struct tracerd *d, struct attachment *a)
{
	struct attach_op *op = a->op;
	size_t i;
	int err;

	for (; op->ci < op->nc; op->ci++) {
		a->mode = op->cand[op->ci];
		a->be = op->req.be ? op->req.be : backend_get(a->mode);
		a->nr_done = 0;
		op->nr_ok = 0;
		op->err = 0;
		for (i = 0; i < a->nr_hooks; i++)
			a->hooks[i].attached = false;
		err = candidate_fits(d, a->be, &a->spec, a->hooks, a->nr_hooks, op->why,
				     sizeof(op->why), op->msg, sizeof(op->msg));
		if (!err) {
			err = fds_check(d, a->be, a, op->msg, sizeof(op->msg));
			if (!err)
				err = candidate_slots(d, a, op->msg, sizeof(op->msg));
			if (err)
				str_cat(op->why, sizeof(op->why), strlen(op->why), "; not %s: %s",
					tracerd_mode_name(a->mode), op->msg);
		}
		if (!err)
			return 0;
		op->err = err;
	}
	return op->err ? op->err : -EOPNOTSUPP;
}

/* cand[ci] hooked nothing: undo it, say why, and try the next one. */
static int candidate_failed(struct tracerd *d, struct attachment *a)
{
	struct attach_op *op = a->op;
	const struct hook *h = &a->hooks[0];
	size_t i, off = strlen(op->why);

	for (i = 0; i < a->nr_hooks && !a->hooks[i].err; i++)
		;
	if (i < a->nr_hooks)
		h = &a->hooks[i];
	str_fmt(op->msg, sizeof(op->msg), "%s", h->err ? h->err :
		strerror(-(op->err ? op->err : -ENOENT)));
	a->be->detach(d, a);
	str_cat(op->why, sizeof(op->why), off, "; not %s: %s", tracerd_mode_name(a->mode), op->msg);
	op->ci++;
	return candidate_begin(d, a);
}

static void attachment_free(struct tracerd *d, struct attachment *a)
{
	const struct backend *be = a->be;

	recorder_detach(d, a);
	if (be)
		be->detach(d, a);
	hooks_release(d, a->hooks, a->nr_hooks);
	op_free(a);
	hooks_free(a->hooks, a->nr_hooks);
	free(a);
}

/* No candidate mode hooked anything: the error, the message in op->msg. */
static int modes_failed(struct attachment *a, int err)
{
	struct attach_op *op = a->op;

	if (a->spec.mode == TRACERD_MODE_AUTO)
		str_fmt(op->msg, sizeof(op->msg), "no mode could hook '%s'%s", a->spec.target,
			op->why);
	return err == -EMFILE ? err : kernel_refusal(err);
}

/* The attach failed as a whole (op->msg says why): tell, undo, forget. */
static void attach_fail(struct tracerd *d, struct attachment *a, int err)
{
	struct attach_op *op = a->op;

	log_info("attach %u '%s' failed: %s", a->id, a->spec.target, op->msg);
	list_unlink(&d->changing, a);
	tracerd_attachments_changed(d);
	op_done(d, a, err, op->msg);
	attachment_free(d, a);
}

/* Every hook was tried and some are hooked: keep them, the attachment is attached. */
static void attach_finish(struct tracerd *d, struct attachment *a)
{
	struct attach_op *op = a->op;
	int err;

	hooks_compact(d, a, &op->skipped);
	mode_reason(a->mode_reason, sizeof(a->mode_reason), &op->req, a->be, op->nr_resolved,
		    op->why);
	/* record=NAME (daemon/recorder.c): a bad name is the request's fault */
	err = recorder_attach(d, a, op->msg, sizeof(op->msg));
	if (err) {
		attach_fail(d, a, err == -EINVAL ? err : -EIO);
		return;
	}
	list_unlink(&d->changing, a);
	a->state = ATTACHMENT_ATTACHED;
	a->nr_done = a->nr_total = a->nr_hooks;
	list_insert(&d->attachments, a);
	tracerd_attachments_changed(d);
	log_notice("attached %u: '%s' mode %s, %zu function%s (%s)", a->id, a->spec.target,
		   tracerd_mode_name(a->mode), a->nr_hooks, a->nr_hooks == 1 ? "" : "s",
		   a->mode_reason);
	op_done(d, a, 0, "");
	op_free(a);
}

/* a with its hooks [pos, pos + n) only: what a backend is handed in one call */
static struct attachment attach_view(const struct attachment *a, size_t pos, size_t n)
{
	struct attachment v = *a;

	v.hooks = a->hooks + pos;
	v.nr_hooks = n;
	v.next = NULL;
	return v;
}

/* be's batch for a (struct backend's batch, or batch_latency). */
static unsigned int step_batch(const struct backend *be, const struct attachment *a)
{
	return a->spec.latency && be->batch_latency ? be->batch_latency : be->batch;
}

/* How many of left hooks be takes in one call for a. */
static size_t step_size(const struct backend *be, const struct attachment *a, size_t left)
{
	unsigned int batch = step_batch(be, a);
	size_t n = batch ? batch : 1;

	return batch == BACKEND_BATCH_ALL || n > left ? left : n;
}

/*
 * The end of an attach step: n hooks of v were tried (err: the backend's
 * error); true when a is settled or gone.
 */
static bool attach_after(struct tracerd *d, struct attachment *a, const struct attachment *v,
			 size_t n, int err)
{
	struct attach_op *op = a->op;
	size_t i;

	a->priv = v->priv;
	a->kfd = v->kfd;
	for (i = 0; i < n; i++)
		op->nr_ok += v->hooks[i].attached;
	if (err && !op->err)
		op->err = err;
	a->nr_done += n;
	if (a->nr_done < a->nr_hooks)
		return false;
	if (op->nr_ok) {
		attach_finish(d, a);
		return true;
	}
	err = candidate_failed(d, a);
	if (err) {
		attach_fail(d, a, modes_failed(a, err));
		return true;
	}
	return false;
}

/*
 * A batch attach or detach that is one blocking call (a kmod ATTACH_BATCH
 * of every function, a kprobe.multi link's create or close: seconds,
 * minutes under TCG) runs on a worker thread (issue #34 step 5), so the
 * loop answers its clients meanwhile. One at a time, and while it runs
 * no other step does: they could wait in the loop on the kernel locks it
 * holds (ftrace_lock, text_mutex). A detach asked meanwhile waits for
 * its end (cancel); the stop waits for it (registry_loop_stop). Only the steps the loop runs (registry_steps_cb)
 * start one: registry_attach and registry_detach block as they did.
 */
struct registry_job {
	const struct backend *be;
	struct attachment *a;
	struct attachment v;	/* what the backend was handed */
	size_t n;
	bool detach;
	void *job;
	pthread_t th;
	bool threaded;		/* else job_run ran in the loop (no thread) */
	int efd;		/* the thread's "done" */
	struct event *ev;
	bool cancel;		/* a detach was asked while it ran */
	registry_done_fn cancel_done;
	void *cancel_ctx;
};

static void *job_thread(void *arg)
{
	struct registry_job *j = arg;

	j->be->job_run(j->job);
	worker_done(j->efd, "registry");
	return NULL;
}

static void job_done_cb(evutil_socket_t fd, short what, void *arg);

static void job_free(struct registry_job *j)
{
	if (j->ev)
		event_free(j->ev);
	if (j->efd >= 0)
		close(j->efd);
	free(j);
}

/*
 * Start a's step over v's n hooks on the worker thread, when its backend
 * splits it: true when started (or failed in job_prepare: *err).
 */
static bool job_start(struct tracerd *d, struct attachment *a, struct attachment *v, size_t n,
		      bool detach, int *err)
{
	const struct backend *be = a->be;
	struct registry_job *j;

	*err = 0;
	if (!be || !be->job_prepare || !d->base || d->job || n < REGISTRY_JOB_MIN ||
	    step_batch(be, a) != BACKEND_BATCH_ALL)
		return false;
	j = calloc(1, sizeof(*j));
	if (!j)
		return false;
	j->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (j->efd >= 0)
		j->ev = event_new(d->base, j->efd, EV_READ, job_done_cb, d);
	if (!j->ev || event_add(j->ev, NULL)) {
		job_free(j);
		return false;
	}
	j->job = be->job_prepare(d, v, detach, err);
	if (!j->job) {
		job_free(j);
		return false;	/* *err: the attach failed already */
	}
	j->be = be;
	j->a = a;
	j->v = *v;
	j->n = n;
	j->detach = detach;
	j->threaded = worker_start(&j->th, job_thread, j);
	if (!j->threaded) {
		log_warn("registry: no worker thread for %s %u: in the loop",
			 detach ? "detach" : "attach", a->id);
		job_thread(j);
	}
	d->job = j;
	return true;
}

static bool detach_after(struct tracerd *d, struct attachment *a);

/* The job's call returned: apply it, and the step it was goes on. */
static void job_end(struct tracerd *d)
{
	struct registry_job *j = d->job;
	struct attachment *a = j->a;
	int err;

	if (j->threaded)
		pthread_join(j->th, NULL);
	d->job = NULL;
	err = j->be->job_finish(d, &j->v, j->job);
	if (j->detach) {
		a->kfd = j->v.kfd;
		detach_after(d, a);
	} else if (j->cancel) {
		/* what it hooked is undone as any attach cut short is */
		a->priv = j->v.priv;
		a->kfd = j->v.kfd;
		a->nr_done += j->n;
		if (registry_detach_start(d, a, j->cancel_done, j->cancel_ctx) &&
		    j->cancel_done)
			j->cancel_done(d, j->cancel_ctx, -ENOMEM, NULL, NULL, "out of memory");
	} else {
		attach_after(d, a, &j->v, j->n, err);
	}
	job_free(j);
}

static void job_done_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tracerd *d = arg;

	(void)fd;
	(void)what;
	if (d->job)
		job_end(d);
	steps_schedule(d);
}

/* Hook the next functions (a batch backend: all); true when a is settled or gone. */
static bool attach_step(struct tracerd *d, struct attachment *a, bool may_job)
{
	const struct backend *be = a->be;
	size_t n = step_size(be, a, a->nr_hooks - a->nr_done);
	struct attachment v = attach_view(a, a->nr_done, n);
	int err = 0;

	if (may_job && job_start(d, a, &v, n, false, &err))
		return false;
	if (!err)
		err = be->attach(d, &v);
	return attach_after(d, a, &v, n, err);
}

/* A detach's last step: a is unhooked (a batch backend: by attachment_free) and gone. */
static bool detach_after(struct tracerd *d, struct attachment *a)
{
	log_notice("detached %u: '%s' mode %s", a->id, a->spec.target, tracerd_mode_name(a->mode));
	list_unlink(&d->changing, a);
	tracerd_attachments_changed(d);
	op_done(d, a, 0, "");
	a->nr_done = a->nr_total;
	attachment_free(d, a);	/* a batch backend's detach: here, all at once */
	return true;
}

/* Unhook the last functions (a batch backend: all); true when a is gone. */
static bool detach_step(struct tracerd *d, struct attachment *a, bool may_job)
{
	const struct backend *be = a->be;
	bool all;
	size_t i, n;
	struct attachment v;
	int err;

	if (!be)	/* detached while its target was resolved: nothing hooked */
		return detach_after(d, a);
	all = step_batch(be, a) == BACKEND_BATCH_ALL;
	n = step_size(be, a, a->nr_hooks);
	v = attach_view(a, a->nr_hooks - n, n);
	if (n && !all) {
		be->detach(d, &v);
		hooks_release(d, v.hooks, n);
		for (i = 0; i < n; i++)	/* past nr_hooks: hooks_free leaves them */
			hook_err_clear(&v.hooks[i]);
		a->nr_hooks -= n;
		a->nr_done += n;
		if (a->nr_hooks)
			return false;
	}
	if (n && all && may_job && job_start(d, a, &v, n, true, &err))
		return false;
	return detach_after(d, a);
}

static bool op_step(struct tracerd *d, struct attachment *a, bool may_job)
{
	return a->op->detaching ? detach_step(d, a, may_job) : attach_step(d, a, may_job);
}

static void registry_steps_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tracerd *d = arg;
	uint64_t end = now_mono_ns() + STEP_BUDGET_NS;
	struct attachment *a, *next;
	bool stepped;

	/* a resolve on the worker thread holds the symbol tables some steps
	 * read (a module's BTF): the steps wait, looking again every 10 ms
	 * (no step is left when its answer comes: steps_schedule) */
	if (resolve_busy(d)) {
		steps_schedule_in(d, true);
		return;
	}
	/* the budget is checked per step, not per pass: with a thousand
	 * attachments changing (a reload's), one pass held the loop for seconds;
	 * a step on the worker thread holds every other (job_done_cb goes on) */
	do {
		stepped = false;
		for (a = d->changing; a && !d->job && now_mono_ns() < end; a = next) {
			next = a->next;
			if (a->op->resolving && !a->op->detaching)
				continue;
			op_step(d, a, true);
			stepped = true;
		}
	} while (stepped && d->changing && !d->job && now_mono_ns() < end);
	if (d->job)
		return;
	if (d->changing)
		steps_schedule(d);
}

/* The plan's hooks, candidates and choice into a, whose first candidate starts: 0 or -errno (op->msg). */
static int attach_planned(struct tracerd *d, struct attachment *a, struct plan *p)
{
	struct attach_op *op = a->op;
	int err;

	op->req = p->req;
	a->hooks = p->hooks;
	a->nr_hooks = p->nr_hooks;
	op->skipped = p->skipped;
	memcpy(op->cand, p->cand, sizeof(op->cand));
	op->nc = p->nc;
	op->ci = p->chosen;
	str_fmt(op->why, sizeof(op->why), "%s", p->why);
	/* slots are taken by the candidate that starts (candidate_slots) */
	op->nr_resolved = a->nr_total = a->nr_hooks;
	err = candidate_begin(d, a);
	return err ? modes_failed(a, err) : 0;
}

/* a's target was resolved on the worker thread: its plan is made and it starts, or fails. */
static void attach_resolved(struct tracerd *d, void *ctx, int err, struct hook *hooks, size_t nr,
			    struct skip_list *skipped, const char *msg)
{
	struct attachment *a = ctx;
	struct attach_op *op = a->op;
	struct plan p;

	op->resolving = false;
	memset(&p, 0, sizeof(p));
	p.req = op->req;
	err = plan_take(d, &a->spec, &p, err, hooks, nr, skipped, msg, op->msg, sizeof(op->msg));
	if (!err)
		err = attach_planned(d, a, &p);
	if (err)
		attach_fail(d, a, err);
	steps_schedule(d);
}

/*
 * An attach: the request checked at once; its target resolved in the loop
 * when that is a lookup (resolve_quick), else on the worker thread (may_defer:
 * the loop runs, the caller waits for done), the attachment listed
 * meanwhile as attaching 0 of 0; then the steps.
 */
static int attach_begin(struct tracerd *d, const struct tracerd_spec *spec, bool may_defer,
			registry_done_fn done, void *ctx, struct attachment **out,
			char *msg, size_t msglen)
{
	struct attachment *a = NULL;
	struct attach_op *op;
	struct plan plan;
	int err;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	op = calloc(1, sizeof(*op));
	if (!a || !op) {
		free(a);
		free(op);
		return set_err(msg, msglen, -ENOMEM, "out of memory");
	}
	a->op = op;
	a->spec = *spec;
	a->state = ATTACHMENT_ATTACHING;
	memset(&plan, 0, sizeof(plan));
	err = request_init(d, spec, &plan.req, msg, msglen);
	op->req = plan.req;
	if (!err)
		err = plan_resolve(d, spec, &plan, may_defer, attach_resolved, a, &op->resolving,
				   msg, msglen);
	/* the plan's hooks, candidates and choice are what attach executes */
	if (!err && !op->resolving && (err = attach_planned(d, a, &plan)))
		str_fmt(msg, msglen, "%s", op->msg);
	if (err) {
		attachment_free(d, a);
		return err;
	}
	op->done = done;
	op->ctx = ctx;
	a->id = ++d->next_id;
	a->since_real_ns = now_real_ns();
	list_insert(&d->changing, a);
	tracerd_attachments_changed(d);
	if (!op->resolving)
		steps_schedule(d);
	*out = a;
	return 0;
}

int registry_attach_start(struct tracerd *d, const struct tracerd_spec *spec,
			  registry_done_fn done, void *ctx, struct attachment **out,
			  char *msg, size_t msglen)
{
	return attach_begin(d, spec, true, done, ctx, out, msg, msglen);
}

bool registry_resolving(const struct attachment *a)
{
	return a->op && a->op->resolving;
}

/* registry_attach's waiter: copy the outcome out */
struct sync_result {
	int err;
	struct attachment *a;
	struct skip_list *skipped;
	char *msg;
	size_t msglen;
};

static void sync_done(struct tracerd *d, void *ctx, int err, struct attachment *a,
		      const struct skip_list *skipped, const char *msg)
{
	struct sync_result *r = ctx;

	r->err = err;
	r->a = a;
	skip_list_merge(r->skipped, skipped);
	str_fmt(r->msg, r->msglen, "%s", msg);
}

int registry_attach(struct tracerd *d, const struct tracerd_spec *spec, struct attachment **out,
		    struct skip_list *skipped, char *msg, size_t msglen)
{
	struct sync_result r = { -EINPROGRESS, NULL, skipped, msg, msglen };
	struct attachment *a;
	int err;

	err = attach_begin(d, spec, false, sync_done, &r, &a, msg, msglen);
	if (err)
		return err;
	while (!op_step(d, a, false))
		tracerd_progress(d);
	*out = r.a;
	return r.err;
}

int registry_detach_start(struct tracerd *d, struct attachment *a, registry_done_fn done,
			  void *ctx)
{
	if (d->job && d->job->a == a && !d->job->detach) {	/* its attach call runs */
		if (d->job->cancel)
			return -EALREADY;
		d->job->cancel = true;
		d->job->cancel_done = done;
		d->job->cancel_ctx = ctx;
		return 0;
	}
	if (a->op && a->op->detaching) {
		if (a->op->done)
			return -EALREADY;
		a->op->done = done;
		a->op->ctx = ctx;
		return 0;
	}
	if (a->op && a->op->resolving) {	/* nothing hooked yet: its resolve is dropped */
		resolve_forget(d, a);
		a->op->resolving = false;
		str_fmt(a->op->msg, sizeof(a->op->msg), "attachment %u was detached while "
			"attaching (its functions were still being resolved)", a->id);
		op_done(d, a, -ECANCELED, a->op->msg);
		list_unlink(&d->changing, a);
	} else if (a->op) {	/* still attaching: what is hooked so far is undone */
		str_fmt(a->op->msg, sizeof(a->op->msg),
			"attachment %u was detached while attaching "
			"(%zu of %zu functions tried)",
			a->id, a->nr_done, a->nr_total);
		op_done(d, a, -ECANCELED, a->op->msg);
		hooks_compact(d, a, NULL);
		list_unlink(&d->changing, a);
	} else {
		a->op = calloc(1, sizeof(*a->op));
		if (!a->op)
			return -ENOMEM;
		list_unlink(&d->attachments, a);
	}
	recorder_detach(d, a);
	a->op->detaching = true;
	a->op->done = done;
	a->op->ctx = ctx;
	a->state = ATTACHMENT_DETACHING;
	a->nr_total = a->nr_hooks;
	a->nr_done = 0;
	list_insert(&d->changing, a);
	tracerd_attachments_changed(d);
	steps_schedule(d);
	return 0;
}

void registry_detach(struct tracerd *d, struct attachment *a)
{
	registry_job_wait(d);
	if (registry_detach_start(d, a, NULL, NULL))
		return;	/* out of memory: the attachment stays */
	while (!detach_step(d, a, false))
		tracerd_progress(d);
}

void registry_detach_all(struct tracerd *d, void (*progress)(struct tracerd *d, size_t left))
{
	uint64_t next = now_mono_ns();
	struct attachment *a;
	size_t left = 0;

	registry_job_wait(d);
	for (a = d->attachments; a; a = a->next)
		left += a->nr_hooks;
	for (a = d->changing; a; a = a->next)
		left += a->nr_hooks;
	while ((a = d->attachments) || (a = d->changing)) {
		if (!a->op || !a->op->detaching)
			registry_detach_start(d, a, NULL, NULL);
		do {
			if (progress && now_mono_ns() >= next) {
				progress(d, left);
				next = now_mono_ns() + 1000ULL * 1000 * 1000;
			}
			left -= left ? 1 : 0;
		} while (!detach_step(d, a, false));
	}
}

void registry_job_wait(struct tracerd *d)
{
	if (d->job)
		job_end(d);	/* its thread joined: the call returns when it returns */
}

/* The loop stops: a job's attach is not finished but undone (registry_detach_all). */
static void job_stop(struct tracerd *d)
{
	if (d->job && !d->job->detach && !d->job->cancel)
		d->job->cancel = true;
	registry_job_wait(d);
}

void registry_loop_stop(struct tracerd *d)
{
	job_stop(d);
	resolve_stop(d);	/* an attachment still resolving: undone as one cut short */
	if (d->registry_step)
		event_free(d->registry_step);
	d->registry_step = NULL;
}

void hook_stats_begin(struct tracerd *d, struct attachment *a)
{
	if (a->be && a->be->read_begin)
		a->be->read_begin(d, a);
}

void hook_stats_end(struct tracerd *d, struct attachment *a)
{
	if (a->be && a->be->read_end)
		a->be->read_end(d, a);
}

int hook_stats(struct tracerd *d, struct attachment *a, struct hook *h, struct hook_stats *out)
{
	const struct backend *be = a->be;
	int err;

	memset(out, 0, sizeof(*out));
	if (be && be->read)
		err = be->read(d, a, h, &out->s);
	else
		err = maps_slot_read(d, h->slot, &out->s);
	if (err)
		return err;
	if (a->spec.errors && h->slot < TRACERD_MAX_SLOTS) {	/* kmod: none */
		err = maps_slot_errors(d, h->slot, &out->errors);
		if (err)
			return err;
		out->errors_known = true;
	}
	out->misses_why = "not reported for this mode";
	if (be && be->misses)
		out->kernel_misses_known =
			!be->misses(d, a, h, &out->kernel_misses, &out->misses_why);
	return 0;
}

void hook_stats_merge(struct hook_stats *into, const struct hook_stats *from)
{
	int i;

	if (from->s.lat_count && (!into->s.lat_count || from->s.lat_min < into->s.lat_min))
		into->s.lat_min = from->s.lat_min;
	if (from->s.lat_max > into->s.lat_max)
		into->s.lat_max = from->s.lat_max;
	into->s.calls += from->s.calls;
	into->s.misses += from->s.misses;
	into->s.slow += from->s.slow;
	into->s.lat_count += from->s.lat_count;
	into->s.lat_sum += from->s.lat_sum;
	for (i = 0; i < TRACERD_HIST_BUCKETS; i++)
		into->s.hist[i] += from->s.hist[i];
	if (!from->kernel_misses_known && into->kernel_misses_known) {
		into->kernel_misses_known = false;
		into->misses_why = from->misses_why;
	}
	into->kernel_misses += from->kernel_misses;
	if (from->errors_known) {
		into->errors_known = true;
		for (i = 0; i < TRACERD_ERRNO_SLOTS; i++)
			into->errors.count[i] += from->errors.count[i];
	}
}
