// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Attachments: resolve a spec into hooks, pick the mode (auto: the table
 * in docs/auto.md), attach through the backend, keep the result; detach;
 * read statistics. See registry.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/autosel.h"
#include "../lib/log.h"
#include "../lib/modes.h"
#include "../lib/util.h"
#include "backend.h"
#include "recorder.h"
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

static bool same_request(const struct tracerd_spec *a, const struct tracerd_spec *b)
{
	return !strcmp(a->target, b->target) && a->mode == b->mode &&
	       a->latency == b->latency && a->tgid == b->tgid && !strcmp(a->comm, b->comm);
}

/* Is function name hooked by a kmod-direct attachment (its one direct call)? */
static const struct attachment *direct_call_owner(struct tracerd *d, const char *name)
{
	const struct attachment *a;
	size_t i;

	for (a = d->attachments; a; a = a->next) {
		if (a->mode != TRACERD_MODE_KMOD_DIRECT)
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
	bool avail[TRACERD_MODE_NR];
	struct auto_request r = {
		.tracepoint = spec_is_tracepoint(spec->target),
		.nr_functions = nr,
		.direct_call_taken = owner != NULL,
		.latency = spec->latency,
		.comm = spec->comm[0] != '\0',
		.available = avail,
	};
	enum auto_skip skip[TRACERD_MODE_NR];
	enum tracerd_mode order[TRACERD_MODE_NR];
	size_t i, n, len, off = 0;
	char buf[256];
	int m;

	for (m = 0; m < TRACERD_MODE_NR; m++)
		avail[m] = d->features[m].available;
	n = auto_select(&r, out, skip, order, &len);
	why[0] = '\0';
	for (i = 0; i < len && (!n || order[i] != out[0]); i++) {
		const char *reason = NULL;

		switch (skip[order[i]]) {
		case AUTO_SKIP_UNAVAILABLE:
			reason = d->features[order[i]].reason;
			break;
		case AUTO_SKIP_DIRECT_CALL:
			snprintf(buf, sizeof(buf), "'%s' carries the direct call of kmod-direct "
				 "attachment %u (one direct call per function)",
				 hooks[0].name, owner->id);
			reason = buf;
			break;
		case AUTO_SKIP_KMOD_OPTIONS:
			reason = "kmod modes have no latency and no comm filter";
			break;
		default:
			continue;
		}
		off += snprintf(why + off, off < whylen ? whylen - off : 0, "; not %s: %s",
				tracerd_mode_name(order[i]), reason);
	}
	return n;
}

static enum proto_code errno_code(int err)
{
	switch (err) {
	case -ENOENT:
		return PROTO_E_NOT_FOUND;
	case -ENOSPC:
		return PROTO_E_LIMIT;
	case -ENOMEM:
		return PROTO_E_INTERNAL;
	default:
		return PROTO_E_ATTACH_FAILED;
	}
}

static void hooks_release(struct tracerd *d, struct hook *hooks, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		hook_close_fds(&hooks[i]);
		maps_slot_free(d, hooks[i].slot);
	}
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
static void hooks_compact(struct tracerd *d, struct attachment *a, json_object *skipped)
{
	size_t i, j = 0;

	for (i = 0; i < a->nr_hooks; i++) {
		struct hook *h = &a->hooks[i];

		if (h->attached) {
			a->hooks[j++] = *h;
			continue;
		}
		if (skipped) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "function", json_object_new_string(h->name));
			json_object_object_add(o, "reason", json_object_new_string(
				h->err[0] ? h->err : "not attached"));
			json_object_array_add(skipped, o);
		}
		hook_close_fds(h);
		maps_slot_free(d, h->slot);
	}
	a->nr_hooks = j;
}

/* Try each candidate mode in turn; 0 with a->mode set, or the last -errno. */
static int attach_modes(struct tracerd *d, struct attachment *a, const enum tracerd_mode *cand,
			size_t nc, char *why, size_t whylen, char *msg, size_t msglen)
{
	const struct backend *be;
	size_t i, k, off = strlen(why);
	int err = -EOPNOTSUPP;

	for (i = 0; i < nc; i++) {
		be = backend_get(cand[i]);
		a->mode = cand[i];
		for (k = 0; k < a->nr_hooks; k++)
			a->hooks[k].err[0] = '\0';
		err = be->attach(d, a);
		if (!err)
			return 0;
		snprintf(msg, msglen, "%s", a->hooks[0].err[0] ? a->hooks[0].err : strerror(-err));
		be->detach(d, a);
		for (k = 0; k < a->nr_hooks; k++)
			hook_close_fds(&a->hooks[k]);
		off += snprintf(why + off, off < whylen ? whylen - off : 0, "; not %s: %s",
				tracerd_mode_name(cand[i]), msg);
	}
	return err;
}

static void set_mode_reason(struct attachment *a, size_t nr_resolved, const char *why)
{
	const char *what;

	if (a->spec.mode != TRACERD_MODE_AUTO) {
		snprintf(a->mode_reason, sizeof(a->mode_reason), "requested");
		return;
	}
	if (a->mode == TRACERD_MODE_TP_BTF)
		what = "tracepoints are hooked by tp_btf (raw_tp fallback)";
	else if (a->mode == TRACERD_MODE_KPROBE_MULTI && nr_resolved > 1)
		what = "many functions: one kprobe.multi link attaches them all at once";
	else if (a->mode == TRACERD_MODE_FENTRY)
		what = nr_resolved > 1 ? "many functions, kprobe.multi unavailable: fentry is the "
					 "cheapest per call" :
					 "one function: fentry is the cheapest BPF hook per call";
	else
		what = "the cheapest mode available for this target";
	snprintf(a->mode_reason, sizeof(a->mode_reason), "auto: %s%s", what, why);
}

static enum proto_code attach_prepare(struct tracerd *d, const struct tracerd_spec *spec,
				      enum tracerd_mode *cand, size_t *nc, char *msg, size_t msglen)
{
	const struct attachment *o;
	const struct feature *f;

	if (spec_validate(spec, msg, msglen))
		return PROTO_E_BAD_REQUEST;
	for (o = d->attachments; o; o = o->next) {
		if (same_request(&o->spec, spec)) {
			snprintf(msg, msglen, "'%s' is already attached the same way (attachment %u)",
				 spec->target, o->id);
			return PROTO_E_EXISTS;
		}
	}
	if (spec->mode == TRACERD_MODE_AUTO) {
		*nc = 0;
		return PROTO_OK;
	}
	f = &d->features[spec->mode];
	if (!f->available) {
		snprintf(msg, msglen, "mode %s is not available on this kernel: %s",
			 tracerd_mode_name(spec->mode), f->reason);
		return PROTO_E_UNAVAILABLE;
	}
	cand[0] = spec->mode;
	*nc = 1;
	return PROTO_OK;
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

enum proto_code registry_attach(struct tracerd *d, const struct tracerd_spec *spec,
				json_object **result, char *msg, size_t msglen)
{
	enum tracerd_mode cand[TRACERD_MODE_NR];
	json_object *skipped = json_object_new_array();
	struct attachment *a = NULL;
	enum proto_code code;
	char why[1024] = "";
	size_t nc = 0, nr;
	int err;

	code = attach_prepare(d, spec, cand, &nc, msg, msglen);
	if (code)
		goto cleanup;
	code = PROTO_E_INTERNAL;
	a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(msg, msglen, "out of memory");
		goto cleanup;
	}
	a->spec = *spec;
	/* kallsyms addresses for the kmod modes, auto's last resort among them */
	code = resolve_target(d, spec, tracerd_mode_is_kmod(spec->mode) ||
			      spec->mode == TRACERD_MODE_AUTO, &a->hooks, &a->nr_hooks,
			      skipped, msg, msglen);
	if (code)
		goto cleanup;
	nr = a->nr_hooks;
	if (spec->mode == TRACERD_MODE_AUTO) {
		nc = auto_candidates(d, spec, a->hooks, nr, cand, why, sizeof(why));
		if (!nc) {
			snprintf(msg, msglen, "no mode can hook '%s' on this kernel%s", spec->target, why);
			code = PROTO_E_UNAVAILABLE;
			goto cleanup;
		}
	}
	err = hooks_slots(d, a);
	if (err) {
		snprintf(msg, msglen, "out of slots: %u hooked functions at most", TRACERD_MAX_SLOTS);
		code = PROTO_E_LIMIT;
		goto cleanup;
	}
	err = attach_modes(d, a, cand, nc, why, sizeof(why), msg, msglen);
	if (err) {
		code = errno_code(err);
		if (spec->mode == TRACERD_MODE_AUTO)
			snprintf(msg, msglen, "no mode could hook '%s'%s", spec->target, why);
		goto cleanup;
	}
	hooks_compact(d, a, skipped);
	set_mode_reason(a, nr, why);
	err = recorder_attach(d, a, msg, msglen);	/* record=NAME: daemon/recorder.c */
	if (err) {
		/* a bad name, or a mode without a ring buffer: the request's fault */
		code = err == -EINVAL || err == -EOPNOTSUPP ? PROTO_E_BAD_REQUEST : PROTO_E_INTERNAL;
		goto cleanup;
	}
	attachment_link(d, a);
	log_notice("attached %u: '%s' mode %s, %zu function%s (%s)", a->id, spec->target,
		   tracerd_mode_name(a->mode), a->nr_hooks, a->nr_hooks == 1 ? "" : "s",
		   a->mode_reason);
	*result = json_object_new_object();
	json_object_object_add(*result, "attachment", attachment_json(a));
	json_object_object_add(*result, "skipped", skipped);
	skipped = NULL;
	a = NULL;
	code = PROTO_OK;
cleanup:
	if (a)
		attachment_free(d, a);
	json_object_put(skipped);
	return code;
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

enum proto_code registry_detach(struct tracerd *d, unsigned int id, const char *target,
				bool all, json_object **result, char *msg, size_t msglen)
{
	json_object *ids = json_object_new_array();
	struct attachment *a, *next;

	for (a = d->attachments; a; a = next) {
		next = a->next;
		if (!all && a->id != id && !(target && !strcmp(a->spec.target, target)))
			continue;
		json_object_array_add(ids, json_object_new_int64(a->id));
		log_notice("detached %u: '%s' mode %s", a->id, a->spec.target,
			   tracerd_mode_name(a->mode));
		attachment_unlink(d, a);
		attachment_free(d, a);
	}
	if (!all && !json_object_array_length(ids)) {
		json_object_put(ids);
		if (target)
			snprintf(msg, msglen, "no attachment with target '%s'", target);
		else
			snprintf(msg, msglen, "no attachment %u", id);
		return PROTO_E_NOT_FOUND;
	}
	*result = json_object_new_object();
	json_object_object_add(*result, "detached", ids);
	return PROTO_OK;
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

/* ---------------------------------------------------------------- JSON */

json_object *attachment_json(const struct attachment *a)
{
	json_object *o = json_object_new_object(), *fns = json_object_new_array();
	size_t i;

	json_object_object_add(o, "id", json_object_new_int64(a->id));
	json_object_object_add(o, "target", json_object_new_string(a->spec.target));
	json_object_object_add(o, "mode", json_object_new_string(tracerd_mode_name(a->mode)));
	json_object_object_add(o, "requested_mode",
			       json_object_new_string(tracerd_mode_name(a->spec.mode)));
	json_object_object_add(o, "mode_reason", json_object_new_string(a->mode_reason));
	json_object_object_add(o, "latency", json_object_new_boolean(a->spec.latency));
	json_object_object_add(o, "pid", json_object_new_int64(a->spec.tgid));
	json_object_object_add(o, "comm", a->spec.comm[0] ?
			       json_object_new_string(a->spec.comm) : NULL);
	json_object_object_add(o, "record", a->spec.record[0] ?
			       json_object_new_string(a->spec.record) : NULL);
	json_object_object_add(o, "since", json_object_new_double(a->since_real_ns / 1e9));
	for (i = 0; i < a->nr_hooks; i++)
		json_object_array_add(fns, json_object_new_string(a->hooks[i].name));
	json_object_object_add(o, "functions", fns);
	return o;
}

static json_object *latency_json(const struct tracerd_slot_stats *s)
{
	json_object *o = json_object_new_object(), *b = json_object_new_array(), *e;
	int i;

	json_object_object_add(o, "count", json_object_new_int64(s->lat_count));
	json_object_object_add(o, "sum_ns", json_object_new_int64(s->lat_sum));
	json_object_object_add(o, "min_ns", s->lat_count ? json_object_new_int64(s->lat_min) : NULL);
	json_object_object_add(o, "max_ns", s->lat_count ? json_object_new_int64(s->lat_max) : NULL);
	for (i = 0; i < TRACERD_HIST_BUCKETS; i++) {
		if (!s->hist[i])
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "lo_ns", json_object_new_int64(i ? 1ULL << (i - 1) : 0));
		json_object_object_add(e, "hi_ns", i == TRACERD_HIST_BUCKETS - 1 ? NULL :
				       json_object_new_int64(i ? (1ULL << i) - 1 : 0));
		json_object_object_add(e, "count", json_object_new_int64(s->hist[i]));
		json_object_array_add(b, e);
	}
	json_object_object_add(o, "buckets", b);
	return o;
}

json_object *hook_stats_json(const struct hook_stats *hs, bool latency)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "calls", json_object_new_int64(hs->s.calls));
	if (hs->kernel_misses_known) {
		json_object_object_add(o, "misses",
				       json_object_new_int64(hs->kernel_misses + hs->s.misses));
		json_object_object_add(o, "misses_reason", NULL);
	} else {
		json_object_object_add(o, "misses", NULL);
		json_object_object_add(o, "misses_reason", json_object_new_string(hs->misses_why));
	}
	json_object_object_add(o, "bpf_misses", json_object_new_int64(hs->s.misses));
	json_object_object_add(o, "latency", latency ? latency_json(&hs->s) : NULL);
	return o;
}

static void stats_merge(struct hook_stats *into, const struct hook_stats *from)
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

static bool stats_match(const struct attachment *a, const struct hook *h, unsigned int id,
			const char *target)
{
	if (id && a->id != id)
		return false;
	if (target && strcmp(a->spec.target, target) && strcmp(h->name, target))
		return false;
	return true;
}

/* merge: one entry per function name; entries are found by a linear scan */
static void stats_add_merged(json_object *arr, struct hook_stats *acc, bool *lat, char **names,
			     size_t *n, const char *name, const struct hook_stats *hs, bool latency)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			break;
	if (i == *n) {
		names[i] = (char *)name;
		acc[i] = *hs;
		lat[i] = latency;
		(*n)++;
		return;
	}
	stats_merge(&acc[i], hs);
	lat[i] |= latency;
}

enum proto_code registry_stats(struct tracerd *d, unsigned int id, const char *target,
			       bool merge, json_object **result, char *msg, size_t msglen)
{
	json_object *arr = json_object_new_array(), *o;
	struct hook_stats hs, *acc = NULL;
	struct attachment *a;
	char **names = NULL;
	bool *lat = NULL;
	size_t i, n = 0, total = 0;

	for (a = d->attachments; a; a = a->next)
		total += a->nr_hooks;
	if (merge) {
		acc = calloc(total + 1, sizeof(*acc));
		names = calloc(total + 1, sizeof(*names));
		lat = calloc(total + 1, sizeof(*lat));
	}
	for (a = d->attachments; a; a = a->next) {
		for (i = 0; i < a->nr_hooks; i++) {
			struct hook *h = &a->hooks[i];

			if (!stats_match(a, h, id, target) || hook_stats(d, a, h, &hs))
				continue;
			if (merge && acc && names && lat) {
				stats_add_merged(arr, acc, lat, names, &n, h->name, &hs, a->spec.latency);
				continue;
			}
			o = hook_stats_json(&hs, a->spec.latency);
			json_object_object_add(o, "id", json_object_new_int64(a->id));
			json_object_object_add(o, "target", json_object_new_string(a->spec.target));
			json_object_object_add(o, "function", json_object_new_string(h->name));
			json_object_object_add(o, "mode", json_object_new_string(tracerd_mode_name(a->mode)));
			if (a->mode == TRACERD_MODE_TP_BTF)
				json_object_object_add(o, "via", json_object_new_string(
					h->via_raw_tp ? "raw_tp" : "tp_btf"));
			json_object_array_add(arr, o);
		}
	}
	for (i = 0; i < n; i++) {
		o = hook_stats_json(&acc[i], lat[i]);
		json_object_object_add(o, "function", json_object_new_string(names[i]));
		json_object_array_add(arr, o);
	}
	free(acc);
	free(names);
	free(lat);
	if ((id || target) && !json_object_array_length(arr)) {
		json_object_put(arr);
		snprintf(msg, msglen, "no attachment or function matches '%s'",
			 target ? target : "the id");
		return PROTO_E_NOT_FOUND;
	}
	*result = json_object_new_object();
	json_object_object_add(*result, "stats", arr);
	return PROTO_OK;
}
