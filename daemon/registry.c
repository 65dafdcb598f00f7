// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Attachments: resolve a spec into hooks, pick the mode (auto: the table
 * in docs/auto.md), attach through the backend, keep the result; detach;
 * read statistics. Objects and -errno, no JSON: see registry.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/autosel.h"
#include "../lib/log.h"
#include "../lib/modes.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "backend.h"
#include "recorder.h"
#include "plan.h"
#include "registry.h"
#include "resolve.h"

unsigned int registry_count(const struct tracerd *d)
{
	const struct attachment *a;
	unsigned int n = 0;

	for (a = d->attachments; a; a = a->next)
		n++;
	return n;
}

struct attachment *registry_find(struct tracerd *d, unsigned int id)
{
	struct attachment *a;

	for (a = d->attachments; a && a->id != id; a = a->next)
		;
	return a;
}

void skip_list_add(struct skip_list *l, const char *function, const char *reason)
{
	struct skipped *v;

	if (!l || l->n >= SKIP_LIST_MAX)
		return;
	if (l->n == l->cap) {
		v = realloc(l->v, (l->cap ? l->cap * 2 : 16) * sizeof(*v));
		if (!v)
			return;
		l->v = v;
		l->cap = l->cap ? l->cap * 2 : 16;
	}
	str_copy(l->v[l->n].function, function, sizeof(l->v[l->n].function));
	str_copy(l->v[l->n].reason, reason, sizeof(l->v[l->n].reason));
	l->n++;
}

void skip_list_free(struct skip_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static unsigned int mode_caps(enum tracerd_mode m)
{
	const struct backend *be = backend_get(m);

	return be ? be->caps : 0;
}

/* Does an attachment own function name's one direct call (MODE_CAP_DIRECT_EXCL)? */
static const struct attachment *direct_call_owner(struct tracerd *d, const char *name)
{
	const struct attachment *a;
	size_t i;

	for (a = d->attachments; a; a = a->next) {
		if (!(mode_caps(a->mode) & MODE_CAP_DIRECT_EXCL))
			continue;
		for (i = 0; i < a->nr_hooks; i++)
			if (!strcmp(a->hooks[i].name, name))
				return a;
	}
	return NULL;
}

/*
 * auto: the candidate modes for this request, cheapest first (the table
 * is lib/autosel.c, docs/auto.md), and why each mode passed over before
 * the first candidate was skipped.
 */
static size_t auto_candidates(struct tracerd *d, const struct tracerd_spec *spec,
			      const struct hook *hooks, size_t nr, enum tracerd_mode *out,
			      char *why, size_t whylen)
{
	const struct attachment *owner = nr == 1 ? direct_call_owner(d, hooks[0].name) : NULL;
	unsigned int caps[TRACERD_MODE_NR];
	bool avail[TRACERD_MODE_NR];
	struct auto_request r = {
		.tracepoint = spec_is_tracepoint(spec->target),
		.nr_functions = nr,
		.direct_call_taken = owner != NULL,
		.latency = spec->latency,
		.comm = spec->comm[0] != '\0',
		.record = spec->record[0] != '\0',
		.available = avail,
		.caps = caps,
	};
	enum auto_skip skip[TRACERD_MODE_NR];
	enum tracerd_mode order[TRACERD_MODE_NR];
	size_t i, n, len, off = 0;
	char buf[256], miss[64];
	int m;

	for (m = 0; m < TRACERD_MODE_NR; m++) {
		avail[m] = d->features[m].available;
		caps[m] = mode_caps(m);
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
			snprintf(buf, sizeof(buf), "the mode has no %s", mode_caps_missing(
				caps[order[i]], r.latency, r.comm, r.record, miss, sizeof(miss)));
			reason = buf;
			break;
		default:
			continue;
		}
		off = str_cat(why, whylen, off, "; not %s: %s", tracerd_mode_name(order[i]), reason);
	}
	return n;
}

/*
 * A backend's failure is the kernel's refusal (-EREMOTEIO, the kernel's
 * own errno is in the message), unless it says no such function (or BTF),
 * out of room or out of memory.
 */
static int kernel_refusal(int err)
{
	return err == -ENOENT || err == -ENOSPC || err == -ENOMEM ? err : -EREMOTEIO;
}

static void hooks_release(struct tracerd *d, struct hook *hooks, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		maps_slot_free(d, hooks[i].slot);
}

static void attachment_free(struct tracerd *d, struct attachment *a)
{
	const struct backend *be = backend_get(a->mode);

	recorder_detach(d, a);
	if (be)
		be->detach(d, a);
	hooks_release(d, a->hooks, a->nr_hooks);
	free(a->hooks);
	free(a);
}

/* Give every hook a configured slot. */
static int hooks_slots(struct tracerd *d, struct attachment *a)
{
	size_t i;
	int err;

	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].slot = TRACERD_MAX_SLOTS;
	for (i = 0; i < a->nr_hooks; i++) {
		err = maps_slot_alloc(d, &a->hooks[i].slot);
		if (!err)
			err = maps_slot_config(d, a->hooks[i].slot, &a->spec);
		if (err)
			return err;
	}
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
		skip_list_add(skipped, h->name, h->err[0] ? h->err : "not attached");
		maps_slot_free(d, h->slot);
	}
	a->nr_hooks = j;
}

/*
 * What be needs of a hook (MODE_CAP_NEEDS_*): a hook without it is marked
 * failed (err set: the backend leaves it alone, the registry skips it).
 * 0 when some hook can be attached, else -ENOENT.
 */
static int hooks_needs(const struct backend *be, struct attachment *a)
{
	size_t k, n = 0;

	for (k = 0; k < a->nr_hooks; k++) {
		struct hook *h = &a->hooks[k];

		h->err[0] = '\0';
		if ((be->caps & MODE_CAP_NEEDS_BTF) && h->btf_id <= 0)
			str_fmt(h->err, sizeof(h->err), "no BTF for function '%s' (%s needs it)",
				 h->name, tracerd_mode_name(be->mode));
		else if ((be->caps & MODE_CAP_NEEDS_ADDR) && !h->addr)
			str_fmt(h->err, sizeof(h->err), "no kallsyms address for '%s' (%s needs one)",
				 h->name, tracerd_mode_name(be->mode));
		else
			n++;
	}
	return n ? 0 : -ENOENT;
}

/* Try each candidate mode in turn; 0 with a->mode set, or the last -errno. */
static int attach_modes(struct tracerd *d, struct attachment *a, const enum tracerd_mode *cand,
			size_t nc, char *why, size_t whylen, char *msg, size_t msglen)
{
	const struct backend *be;
	size_t i, off = strlen(why);
	int err = -EOPNOTSUPP;

	for (i = 0; i < nc; i++) {
		be = backend_get(cand[i]);
		a->mode = cand[i];
		err = hooks_needs(be, a);
		if (!err)
			err = be->attach(d, a);
		if (!err)
			return 0;
		str_fmt(msg, msglen, "%s", a->hooks[0].err[0] ? a->hooks[0].err : strerror(-err));
		be->detach(d, a);
		off = str_cat(why, whylen, off, "; not %s: %s", tracerd_mode_name(cand[i]), msg);
	}
	return err;
}

static void set_mode_reason(struct attachment *a, size_t nr_resolved, const char *why)
{
	const char *what = backend_get(a->mode)->auto_why[nr_resolved > 1];

	if (a->spec.mode != TRACERD_MODE_AUTO) {
		snprintf(a->mode_reason, sizeof(a->mode_reason), "requested");
		return;
	}
	if (!what)
		what = "the cheapest mode available for this target";
	str_fmt(a->mode_reason, sizeof(a->mode_reason), "auto: %s%s", what, why);
}

/*
 * The one check of a request against what its mode supports (struct
 * backend's caps), before anything touches the kernel: -EINVAL naming the
 * options the mode cannot honour.
 */
static int request_check(const struct backend *be, const struct tracerd_spec *spec,
			 char *msg, size_t msglen)
{
	char miss[64];
	bool tp = spec_is_tracepoint(spec->target);

	if (!(be->caps & (tp ? MODE_CAP_TRACEPOINT : MODE_CAP_FUNCTION)))
		return set_err(msg, msglen, -EINVAL, "mode %s cannot hook %s '%s'",
			       tracerd_mode_name(be->mode), tp ? "tracepoint" : "function",
			       spec->target);
	if (spec->tgid && !(be->caps & MODE_CAP_PID))
		return set_err(msg, msglen, -EINVAL, "mode %s has no pid filter",
			       tracerd_mode_name(be->mode));
	if (mode_caps_missing(be->caps, spec->latency, spec->comm[0], spec->record[0], miss,
			      sizeof(miss))[0])
		return set_err(msg, msglen, -EINVAL, "mode %s has no %s (the module counts calls "
			       "by pid only; latency, comm and recording need a BPF mode)",
			       tracerd_mode_name(be->mode), miss);
	return 0;
}

static int attach_prepare(struct tracerd *d, const struct tracerd_spec *spec,
			  enum tracerd_mode *cand, size_t *nc, char *msg, size_t msglen)
{
	const struct attachment *o;
	const struct feature *f;
	int err;

	err = spec_validate(spec, msg, msglen);
	if (err)
		return err;
	for (o = d->attachments; o; o = o->next)
		if (spec_same_hooks(&o->spec, spec))
			return set_err(msg, msglen, -EEXIST, "'%s' is already attached the same way "
				       "(attachment %u)", spec->target, o->id);
	*nc = 0;
	if (spec->mode == TRACERD_MODE_AUTO)
		return 0;
	/* what the mode cannot do first: the answer does not depend on the kernel */
	err = request_check(backend_get(spec->mode), spec, msg, msglen);
	if (err)
		return err;
	f = &d->features[spec->mode];
	if (!f->available)
		return set_err(msg, msglen, -EOPNOTSUPP, "mode %s is not available on this kernel: %s",
			       tracerd_mode_name(spec->mode), f->reason);
	cand[0] = spec->mode;
	*nc = 1;
	return 0;
}

static void attachment_link(struct tracerd *d, struct attachment *a)
{
	struct attachment **pp = &d->attachments;

	a->id = ++d->next_id;
	a->since_real_ns = now_real_ns();
	while (*pp)
		pp = &(*pp)->next;
	*pp = a;
}

/* Resolve a's target into hooks with slots; auto: its candidates into cand. */
static int attach_resolve(struct tracerd *d, struct attachment *a, enum tracerd_mode *cand,
			  size_t *nc, struct skip_list *skipped, char *why, size_t whylen,
			  char *msg, size_t msglen)
{
	const struct tracerd_spec *spec = &a->spec;
	int err;

	/* kallsyms addresses for the kmod modes, auto's last resort among them */
	err = resolve_target(d, spec, spec->mode == TRACERD_MODE_AUTO ||
			     (mode_caps(spec->mode) & MODE_CAP_NEEDS_ADDR), &a->hooks,
			     &a->nr_hooks, skipped, msg, msglen);
	if (err)
		return err;
	if (spec->mode == TRACERD_MODE_AUTO) {
		*nc = auto_candidates(d, spec, a->hooks, a->nr_hooks, cand, why, whylen);
		if (!*nc)
			return set_err(msg, msglen, -EOPNOTSUPP, "no mode can hook '%s' on this "
				       "kernel%s", spec->target, why);
	}
	if (hooks_slots(d, a))
		return set_err(msg, msglen, -ENOSPC, "out of slots: %u hooked functions at most",
			       TRACERD_MAX_SLOTS);
	return 0;
}

int registry_attach(struct tracerd *d, const struct tracerd_spec *spec, struct attachment **out,
		    struct skip_list *skipped, char *msg, size_t msglen)
{
	enum tracerd_mode cand[TRACERD_MODE_NR];
	struct attachment *a = NULL;
	char why[1024] = "";
	size_t nc = 0, nr;
	int err;

	err = attach_prepare(d, spec, cand, &nc, msg, msglen);
	if (err)
		goto cleanup;
	a = calloc(1, sizeof(*a));
	if (!a) {
		err = set_err(msg, msglen, -ENOMEM, "out of memory");
		goto cleanup;
	}
	a->spec = *spec;
	err = attach_resolve(d, a, cand, &nc, skipped, why, sizeof(why), msg, msglen);
	if (err)
		goto cleanup;
	nr = a->nr_hooks;
	err = attach_modes(d, a, cand, nc, why, sizeof(why), msg, msglen);
	if (err) {
		err = kernel_refusal(err);
		if (spec->mode == TRACERD_MODE_AUTO)
			str_fmt(msg, msglen, "no mode could hook '%s'%s", spec->target, why);
		goto cleanup;
	}
	hooks_compact(d, a, skipped);
	set_mode_reason(a, nr, why);
	/* record=NAME (daemon/recorder.c): a bad name is the request's fault */
	err = recorder_attach(d, a, msg, msglen);
	if (err) {
		err = err == -EINVAL ? err : -EIO;
		goto cleanup;
	}
	attachment_link(d, a);
	log_notice("attached %u: '%s' mode %s, %zu function%s (%s)", a->id, spec->target,
		   tracerd_mode_name(a->mode), a->nr_hooks, a->nr_hooks == 1 ? "" : "s",
		   a->mode_reason);
	*out = a;
	return 0;
cleanup:
	if (a)
		attachment_free(d, a);
	return err;
}

static void attachment_unlink(struct tracerd *d, struct attachment *a)
{
	struct attachment **pp;

	for (pp = &d->attachments; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			return;
		}
	}
}

void registry_detach(struct tracerd *d, struct attachment *a)
{
	log_notice("detached %u: '%s' mode %s", a->id, a->spec.target, tracerd_mode_name(a->mode));
	attachment_unlink(d, a);
	attachment_free(d, a);
}

void registry_detach_all(struct tracerd *d)
{
	struct attachment *a;

	while ((a = d->attachments)) {
		d->attachments = a->next;
		attachment_free(d, a);
	}
}

int hook_stats(struct tracerd *d, struct attachment *a, struct hook *h, struct hook_stats *out)
{
	const struct backend *be = backend_get(a->mode);
	int err;

	memset(out, 0, sizeof(*out));
	if (be && be->read)
		err = be->read(d, a, h, &out->s);
	else
		err = maps_slot_read(d, h->slot, &out->s);
	if (err)
		return err;
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
	into->s.lat_count += from->s.lat_count;
	into->s.lat_sum += from->s.lat_sum;
	for (i = 0; i < TRACERD_HIST_BUCKETS; i++)
		into->s.hist[i] += from->s.hist[i];
	if (!from->kernel_misses_known && into->kernel_misses_known) {
		into->kernel_misses_known = false;
		into->misses_why = from->misses_why;
	}
	into->kernel_misses += from->kernel_misses;
}

/*
 * attach --dry-run (daemon/plan.c): the registry's own checks, called as
 * registry_attach calls them, so a plan and an attach never disagree.
 */
int registry_prepare(struct tracerd *d, const struct tracerd_spec *spec, enum tracerd_mode *cand,
		     size_t *nc, char *msg, size_t msglen)
{
	return attach_prepare(d, spec, cand, nc, msg, msglen);
}

size_t registry_auto_candidates(struct tracerd *d, const struct tracerd_spec *spec,
				const struct hook *hooks, size_t nr, enum tracerd_mode *out,
				char *why, size_t whylen)
{
	return auto_candidates(d, spec, hooks, nr, out, why, whylen);
}

int registry_hooks_needs(const struct backend *be, struct attachment *a)
{
	return hooks_needs(be, a);
}
