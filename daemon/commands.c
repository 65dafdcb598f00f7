// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Control commands (docs/protocol.md): argument decoding and replies.
 * The work is done by the registry; this file only translates: objects
 * into JSON, -errno into codes through one table (lib/proto.c, proto_code_errno).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <tracerd/kmod_abi.h>
#include "../lib/metrics.h"
#include "../lib/modes.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "backend.h"
#include "bench.h"
#include "bpf_stats.h"
#include "by.h"
#include "commands.h"
#include "plan.h"
#include "control.h"
#include "recorder.h"
#include "registry.h"
#include "reload.h"
#include "stacks.h"

static const char *const attachment_states[] = {
	[ATTACHMENT_ATTACHED] = "attached",
	[ATTACHMENT_ATTACHING] = "attaching",
	[ATTACHMENT_DETACHING] = "detaching",
};

/* attaching or detaching: functions done (tried, unhooked) of total, hooked now */
static json_object *progress_json(const struct attachment *a, size_t hooked)
{
	json_object *o;

	if (a->state == ATTACHMENT_ATTACHED)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "done", json_object_new_int64((int64_t)a->nr_done));
	json_object_object_add(o, "total", json_object_new_int64((int64_t)a->nr_total));
	json_object_object_add(o, "hooked", json_object_new_int64((int64_t)hooked));
	return o;
}

json_object *attachment_json(const struct attachment *a)
{
	json_object *o = json_object_new_object(), *fns = json_object_new_array();
	size_t i, hooked = 0;

	json_object_object_add(o, "id", json_object_new_int64(a->id));
	json_object_object_add(o, "target", json_object_new_string(a->spec.target));
	json_object_object_add(o, "mode", json_object_new_string(tracerd_mode_name(a->mode)));
	json_object_object_add(o, "requested_mode",
			       json_object_new_string(tracerd_mode_name(a->spec.mode)));
	json_object_object_add(o, "mode_reason", json_object_new_string(a->mode_reason));
	json_object_object_add(o, "latency", json_object_new_boolean(a->spec.latency));
	json_object_object_add(o, "errors", json_object_new_boolean(a->spec.errors));
	json_object_object_add(
		o, "by", a->spec.by ? json_object_new_string(spec_by_name(a->spec.by)) : NULL);
	json_object_object_add(o, "stacks", a->spec.stacks ? json_object_new_object() : NULL);
	if (a->spec.stacks)
		json_object_object_add(json_object_object_get(o, "stacks"), "depth",
				       json_object_new_int64(a->spec.stacks));
	json_object_object_add(o, "pid", json_object_new_int64(a->spec.tgid));
	json_object_object_add(o, "comm", a->spec.comm[0] ?
			       json_object_new_string(a->spec.comm) : NULL);
	json_object_object_add(o, "record", a->spec.record[0] ?
			       json_object_new_string(a->spec.record) : NULL);
	json_object_object_add(o, "slower_than_ns", a->spec.slower_ns ?
			       json_object_new_int64((int64_t)a->spec.slower_ns) : NULL);
	json_object_object_add(o, "args", json_object_new_boolean(a->spec.args));
	json_object_object_add(o, "if", a->spec.cond[0] ? json_object_new_string(a->spec.cond) :
			       NULL);
	json_object_object_add(o, "since", json_object_new_double(a->since_real_ns / 1e9));
	json_object_object_add(o, "owner", json_object_new_string(
		a->spec.owner == SPEC_OWNER_BENCH ? "bench" : "user"));
	json_object_object_add(o, "variant", a->spec.variant ?
			       json_object_new_string(mode_variant_name(a->spec.variant)) : NULL);
	for (i = 0; i < a->nr_hooks; i++) {
		if (!a->hooks[i].attached)
			continue;
		json_object_array_add(fns, json_object_new_string(a->hooks[i].name));
		hooked++;
	}
	json_object_object_add(o, "functions", fns);
	json_object_object_add(o, "state", json_object_new_string(attachment_states[a->state]));
	json_object_object_add(o, "progress", progress_json(a, hooked));
	return o;
}

static json_object *latency_json(const struct tracerd_slot_stats *s)
{
	json_object *o = json_object_new_object(), *b = json_object_new_array(), *e;
	int i;

	json_object_object_add(o, "count", json_object_new_int64(s->lat_count));
	json_object_object_add(o, "sum_ns", json_object_new_int64(s->lat_sum));
	json_object_object_add(o, "min_ns",
			       s->lat_count ? json_object_new_int64(s->lat_min) : NULL);
	json_object_object_add(o, "max_ns",
			       s->lat_count ? json_object_new_int64(s->lat_max) : NULL);
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

/* {total, by_errno: [{errno (null: other), name, count}]}: the errnos seen, other last */
static json_object *errors_json(const struct tracerd_slot_errors *e)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array(), *x;
	__u64 total = 0;
	char nbuf[16];
	int i, k;

	for (k = 1; k <= TRACERD_ERRNO_SLOTS; k++) {
		i = k % TRACERD_ERRNO_SLOTS;	/* 1..133, then 0 (other) */
		if (!e->count[i])
			continue;
		total += e->count[i];
		x = json_object_new_object();
		json_object_object_add(x, "errno", i ? json_object_new_int(i) : NULL);
		json_object_object_add(
			x, "name",
			json_object_new_string(metrics_errno_name(i, nbuf, sizeof(nbuf))));
		json_object_object_add(x, "count", json_object_new_int64((int64_t)e->count[i]));
		json_object_array_add(arr, x);
	}
	json_object_object_add(o, "total", json_object_new_int64((int64_t)total));
	json_object_object_add(o, "by_errno", arr);
	return o;
}

/* a reply's frames are symbolized through one frames_sync (stacks.h) */
struct frames_ctx {
	struct tracerd *d;
	struct frames_sync sync;
};

static json_object *frame_json(struct frames_ctx *fc, __u64 addr)
{
	json_object *o = json_object_new_object();
	struct frame_sym fs;
	char buf[24];
	int err = stacks_frame(fc->d, &fc->sync, addr, &fs);

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	json_object_object_add(o, "addr", json_object_new_string(buf));
	if (err) {
		json_object_object_add(o, "sym", NULL);
		json_object_object_add(o, "why", json_object_new_string(
			err == -ENOENT ? "unloaded or unknown: no kernel function holds this "
					 "address (a module unloaded since?)" :
					 "no symbol table (/proc/kallsyms unreadable)"));
		return o;
	}
	json_object_object_add(o, "sym", json_object_new_string(fs.name));
	json_object_object_add(o, "off", json_object_new_int64((int64_t)fs.off));
	if (fs.module)
		json_object_object_add(o, "module", json_object_new_string(fs.module));
	return o;
}

/*
 * --stacks of a stats row: {depth, distinct, dropped, total} and, when
 * the request asked for them, rows (top: at most that many, 0: all),
 * hottest first, frames innermost first (docs/protocol.md, stats).
 */
static json_object *stacks_json(struct frames_ctx *fc, const struct stack_set *set, bool rows,
				unsigned int top)
{
	json_object *o = json_object_new_object(), *arr, *r, *frames;
	size_t i, n = top && top < set->n ? top : set->n;
	char nbuf[16];
	__u32 k;

	json_object_object_add(o, "depth", json_object_new_int64(set->depth));
	json_object_object_add(o, "distinct", json_object_new_int64((int64_t)set->n));
	json_object_object_add(o, "dropped", json_object_new_int64((int64_t)set->dropped));
	json_object_object_add(o, "total", json_object_new_int64((int64_t)set->total));
	if (!rows)
		return o;
	arr = json_object_new_array();
	for (i = 0; i < n; i++) {
		r = json_object_new_object();
		frames = json_object_new_array();
		json_object_object_add(r, "count",
				       json_object_new_int64((int64_t)set->rows[i].count));
		if (set->rows[i].err)	/* --errors --stacks: the failing calls' errno */
			json_object_object_add(r, "errno", json_object_new_string(
				metrics_errno_name((int)set->rows[i].err, nbuf, sizeof(nbuf))));
		for (k = 0; k < set->rows[i].nr; k++)
			json_object_array_add(frames, frame_json(fc, set->rows[i].ips[k]));
		json_object_object_add(r, "frames", frames);
		json_object_array_add(arr, r);
	}
	json_object_object_add(o, "rows", arr);
	return o;
}

static json_object *hook_stats_json(const struct hook_stats *hs, bool latency)
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
	json_object_object_add(o, "errors", hs->errors_known ? errors_json(&hs->errors) : NULL);
	return o;
}


static json_object *feature_json(const struct feature *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "available", json_object_new_boolean(f->available));
	/* why not; for an available mode, the fallback it runs on (tp-btf via raw_tp) */
	json_object_object_add(o, "reason",
			       !f->reason[0] ? NULL : json_object_new_string(f->reason));
	return o;
}

/* The kernel configuration that matters to the paths, as the module saw it. */
/* Per hooked function of a kmod attachment: where its call site branches now. */
static json_object *sites_json(struct tracerd *d, const struct attachment *a)
{
	const struct backend *be = backend_get(a->mode);
	struct hook_site s;
	json_object *arr, *o;
	size_t i;
	int err;

	if (!be->site)
		return NULL;
	arr = json_object_new_array();
	for (i = 0; i < a->nr_hooks; i++) {
		err = be->site(d, &a->hooks[i], &s);
		if (err == -ENOENT)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "function", json_object_new_string(a->hooks[i].name));
		json_object_object_add(o, "path", err ? NULL : json_object_new_string(s.path));
		if (err)
			json_object_object_add(o, "error", json_object_new_string(s.err));
		else
			json_object_object_add(o, "target", s.target[0] ?
					       json_object_new_string(s.target) : NULL);
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *kmod_json(const struct tracerd *d)
{
	const struct kmod_info *k = &d->kmod;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "present", json_object_new_boolean(k->present));
	json_object_object_add(o, "abi_major",
			       k->present ? json_object_new_int(k->abi_major) : NULL);
	json_object_object_add(o, "abi_minor",
			       k->present ? json_object_new_int(k->abi_minor) : NULL);
	json_object_object_add(o, "module_version", k->present ?
			       json_object_new_string(k->module_version) : NULL);
	json_object_object_add(o, "reason",
			       k->reason[0] ? json_object_new_string(k->reason) : NULL);
	json_object_object_add(o, "config", kmod_config_json(d));
	return o;
}

#define F(n, t) { n, json_type_##t }
/* The arguments each command accepts (docs/protocol.md): anything else is refused. */
static const struct proto_field no_fields[] = { {} };
static const struct proto_field attach_fields[] = {
	F("target", string), F("mode", string), F("latency", boolean), F("errors", boolean),
	F("by", string), F("stacks", int), F("pid", int),
	F("comm", string), F("record", string), F("partial", boolean),
	F("slower_than", string), F("args", boolean), F("if", string), F("dry_run", boolean), {}
};
static const struct proto_field stats_fields[] = {
	F("id", int), F("target", string), F("merge", boolean), F("top", int),
	F("stacks", boolean), {}
};
static const struct proto_field detach_fields[] = {
	F("id", int), F("target", string), F("all", boolean), {}
};
#undef F

static enum proto_code cmd_status(struct tracerd *d, json_object *args, json_object **result,
				  char *msg, size_t msglen)
{
	json_object *o = json_object_new_object(), *f = json_object_new_object();
	enum proto_code code = proto_args_check(args, "status", no_fields, msg, msglen);
	struct utsname u;
	int m;

	if (code) {
		json_object_put(o);
		json_object_put(f);
		return code;
	}
	uname(&u);
	json_object_object_add(o, "version", json_object_new_string(TRACERD_VERSION));
	json_object_object_add(o, "protocol", json_object_new_int(TRACERD_PROTO_VERSION));
	json_object_object_add(o, "pid", json_object_new_int(getpid()));
	json_object_object_add(o, "uptime_s",
			       json_object_new_double((now_mono_ns() - d->start_mono_ns) / 1e9));
	json_object_object_add(o, "kernel", json_object_new_string(u.release));
	json_object_object_add(o, "arch", json_object_new_string(u.machine));
	json_object_object_add(o, "probe_function", json_object_new_string(d->probe_fn));
	for (m = 1; m < TRACERD_MODE_NR; m++) {
		json_object_object_add(f, tracerd_mode_name(m), feature_json(&d->features[m]));
		if (tracerd_mode_is_tracepoint(m))	/* its fallback follows it */
			json_object_object_add(f, "raw_tp", feature_json(&d->raw_tp));
	}
	json_object_object_add(o, "features", f);
	json_object_object_add(o, "kmod", kmod_json(d));
	json_object_object_add(o, "attachments", json_object_new_int(registry_count(d)));
	json_object_object_add(o, "slots_used", json_object_new_int(d->nr_slots_used));
	json_object_object_add(o, "config", reload_state_json(d));	/* reload.c */
	*result = o;
	return PROTO_OK;
}

/* Decode attach args into a spec (lib/spec.c; validated by the registry). */
static enum proto_code attach_args(json_object *args, struct tracerd_spec *s, char *msg,
				   size_t msglen)
{
	if (proto_args_check(args, "attach", attach_fields, msg, msglen))
		return PROTO_E_BAD_REQUEST;
	return proto_code_errno(spec_from_json(args, s, msg, msglen));
}

/* the attach a client waits for ended (registry_attach_start) */
static void attach_done(struct tracerd *d, void *ctx, int err, struct attachment *a,
			const struct skip_list *skipped, const char *msg)
{
	json_object *r = NULL;

	if (!err) {
		r = json_object_new_object();
		json_object_object_add(r, "attachment", attachment_json(a));
		json_object_object_add(r, "skipped", skip_list_json(skipped));
	}
	control_answer(ctx, proto_code_errno(err), r, msg);
}

/* The reply comes when every function was tried (docs/protocol.md, attach). */
static enum proto_code cmd_attach(struct tracerd *d, json_object *args, json_object **result,
				  char *msg, size_t msglen)
{
	struct tracerd_spec spec;
	enum proto_code code = attach_args(args, &spec, msg, msglen);
	struct control_wait *w;
	struct attachment *a;
	int err;

	bool bad = false;

	if (code)
		return code;
	if (proto_arg_bool(args, "dry_run", &bad) && !bad)
		return plan_attach(d, &spec, result, msg, msglen);	/* plan.c */
	w = control_wait(d);
	if (!w) {
		str_fmt(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	err = registry_attach_start(d, &spec, attach_done, w, &a, msg, msglen);
	if (err)
		control_answer(w, proto_code_errno(err), NULL, msg);
	return PROTO_OK;
}

static enum proto_code cmd_list(struct tracerd *d, json_object *args, json_object **result,
				char *msg, size_t msglen)
{
	json_object *arr;
	struct attachment *a, *c;
	__u64 dropped;

	if (proto_args_check(args, "list", no_fields, msg, msglen))
		return PROTO_E_BAD_REQUEST;
	arr = json_object_new_array();
	for (a = d->attachments, c = d->changing; a || c;) {
		struct attachment *x = !c || (a && a->id < c->id) ? a : c;
		json_object *o = attachment_json(x), *sites;

		if (x == a)
			a = a->next;
		else
			c = c->next;
		sites = x->state == ATTACHMENT_ATTACHED ? sites_json(d, x) : NULL;
		if (sites)
			json_object_object_add(o, "sites", sites);
		json_object_object_add(o, "recording", x->state == ATTACHMENT_ATTACHED ?
				       recorder_json(d, x) : NULL);
		/* stacks.dropped: null until attached, or when unread */
		if (x->spec.stacks)
			json_object_object_add(json_object_object_get(o, "stacks"), "dropped",
					       x->state == ATTACHMENT_ATTACHED &&
					       !stacks_dropped(d, x, &dropped) ?
					       json_object_new_int64((int64_t)dropped) : NULL);
		json_object_array_add(arr, o);
	}
	*result = json_object_new_object();
	json_object_object_add(*result, "attachments", arr);
	return PROTO_OK;
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

/* merge: one entry per function name (its index returned); found by a linear scan */
static size_t stats_add_merged(struct hook_stats *acc, bool *lat, char **names,
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
		return i;
	}
	hook_stats_merge(&acc[i], hs);
	lat[i] |= latency;
	return i;
}

/* What a stats request asks of --stacks: rows or only the counts, and how many rows. */
struct stats_stacks {
	bool rows;
	unsigned int top;	/* 0: all */
	struct frames_ctx fc;
};

/* a stats row's "stacks" (set finished here), or "stacks_error" when unread */
static void stats_stacks_add(json_object *o, struct stats_stacks *ss, struct stack_set *set,
			     int err)
{
	char ebuf[96];

	if (err) {
		json_object_object_add(o, "stacks", NULL);
		json_object_object_add(o, "stacks_error", json_object_new_string(
			errno_str(err, ebuf, sizeof(ebuf))));
		return;
	}
	stacks_finish(set);
	json_object_object_add(o, "stacks", stacks_json(&ss->fc, set, ss->rows, ss->top));
}

/* an attachment's --by keys: its top ones and other (daemon/by.c); NULL on error */
static json_object *stats_by_json(struct tracerd *d, const struct attachment *a,
				  struct by_scan *scan, bool *scanned, unsigned int top)
{
	struct by_summary s;
	json_object *o;

	if (!*scanned && by_scan(d, scan))
		return NULL;
	*scanned = true;
	if (by_summarize(d, a, scan, top, &s))
		return NULL;
	o = by_json(&s, a->spec.latency);
	by_summary_free(&s);
	return o;
}

/*
 * The per-attachment part of a stats reply: the BPF programs' run
 * statistics, and the --by keys (top of them) of those made with --by.
 */
static json_object *stats_bpf_json(struct tracerd *d, unsigned int id, const char *target,
				   unsigned int top)
{
	json_object *arr = json_object_new_array(), *o, *r;
	struct by_scan scan = { 0 };
	bool scanned = false;
	struct bpf_run_stats rs;
	struct attachment *a;
	const char *why;
	size_t i;

	for (a = d->attachments; a; a = a->next) {
		for (i = 0; i < a->nr_hooks && !stats_match(a, &a->hooks[i], id, target); i++)
			;
		if (i == a->nr_hooks)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_int64(a->id));
		json_object_object_add(o, "target", json_object_new_string(a->spec.target));
		json_object_object_add(o, "mode",
				       json_object_new_string(tracerd_mode_name(a->mode)));
		r = NULL;
		why = NULL;
		if (!bpf_stats_read(d, a, &rs, &why)) {
			r = json_object_new_object();
			json_object_object_add(r, "count", json_object_new_int64((int64_t)rs.runs));
			json_object_object_add(r, "time_ns",
					       json_object_new_int64((int64_t)rs.run_ns));
			json_object_object_add(r, "programs", json_object_new_int64(rs.progs));
		}
		json_object_object_add(o, "bpf_run", r);
		json_object_object_add(o, "bpf_run_reason",
				       why ? json_object_new_string(why) : NULL);
		json_object_object_add(o, "by", a->spec.by ?
				       stats_by_json(d, a, &scan, &scanned, top) : NULL);
		json_object_array_add(arr, o);
	}
	by_scan_free(&scan);
	return arr;
}

/* stats filtered by id (0: any) and target (NULL: any); merged per function */
static enum proto_code stats_view(struct tracerd *d, unsigned int id, const char *target,
				  bool merge, unsigned int top, struct stats_stacks *ss,
				  json_object **result, char *msg, size_t msglen)
{
	json_object *arr = json_object_new_array(), *o;
	struct hook_stats hs, *acc = NULL;
	struct stack_set *sets = NULL, set;
	struct attachment *a;
	char **names = NULL;
	const char *why;
	bool *lat = NULL;
	size_t i, k, i_merged, n = 0, total = 0;
	int *stack_err = NULL;

	for (a = d->attachments; a; a = a->next)
		total += a->nr_hooks;
	if (merge) {
		acc = calloc(total + 1, sizeof(*acc));
		names = calloc(total + 1, sizeof(*names));
		lat = calloc(total + 1, sizeof(*lat));
		sets = calloc(total + 1, sizeof(*sets));
		/* 1: no --stacks attachment in the merged row */
		stack_err = calloc(total + 1, sizeof(*stack_err));
	}
	for (a = d->attachments; a; a = a->next) {
		for (i = 0; i < a->nr_hooks; i++) {
			struct hook *h = &a->hooks[i];

			if (!stats_match(a, h, id, target) || hook_stats(d, a, h, &hs))
				continue;
			if (merge && acc && names && lat && sets && stack_err) {
				k = n;
				i_merged = stats_add_merged(acc, lat, names, &n, h->name, &hs,
							    a->spec.latency);
				if (n > k)
					stack_err[i_merged] = 1;
				/* the first error of the row's hooks stays */
				if (a->spec.stacks && stack_err[i_merged] >= 0)
					stack_err[i_merged] = stacks_add(d, a, h, &sets[i_merged]);
				continue;
			}
			o = hook_stats_json(&hs, a->spec.latency);
			/* --slower-than: the calls slower than it (recorded), else null */
			json_object_object_add(o, "slow", a->spec.slower_ns ?
					       json_object_new_int64((int64_t)hs.s.slow) : NULL);
			if (a->spec.stacks) {
				memset(&set, 0, sizeof(set));
				stats_stacks_add(o, ss, &set, stacks_add(d, a, h, &set));
				stacks_free(&set);
			}
			json_object_object_add(o, "id", json_object_new_int64(a->id));
			json_object_object_add(o, "target", json_object_new_string(a->spec.target));
			json_object_object_add(o, "function", json_object_new_string(h->name));
			json_object_object_add(o, "mode",
					       json_object_new_string(tracerd_mode_name(a->mode)));
			if (backend_get(a->mode)->path)
				json_object_object_add(o, "via", json_object_new_string(
					backend_get(a->mode)->path(h)));
			json_object_array_add(arr, o);
		}
	}
	for (i = 0; i < n; i++) {
		o = hook_stats_json(&acc[i], lat[i]);
		/* merged: the slow calls of its attachments with --slower-than */
		json_object_object_add(o, "slow", json_object_new_int64((int64_t)acc[i].s.slow));
		json_object_object_add(o, "function", json_object_new_string(names[i]));
		if (stack_err[i] != 1)	/* the stacks of the same frames, merged */
			stats_stacks_add(o, ss, &sets[i], stack_err[i]);
		stacks_free(&sets[i]);
		json_object_array_add(arr, o);
	}
	free(acc);
	free(names);
	free(lat);
	free(sets);
	free(stack_err);
	if ((id || target) && !json_object_array_length(arr)) {
		json_object_put(arr);
		if (target)
			snprintf(msg, msglen, "no attachment or function matches '%s'", target);
		else
			snprintf(msg, msglen, "no attachment %u", id);
		return PROTO_E_NOT_FOUND;
	}
	*result = json_object_new_object();
	json_object_object_add(*result, "stats", arr);
	o = json_object_new_object();
	json_object_object_add(o, "enabled", json_object_new_boolean(bpf_stats_on(d, &why)));
	json_object_object_add(o, "reason", why ? json_object_new_string(why) : NULL);
	json_object_object_add(*result, "bpf_stats", o);
	json_object_object_add(*result, "attachments", stats_bpf_json(d, id, target, top));
	return PROTO_OK;
}

static enum proto_code cmd_stats(struct tracerd *d, json_object *args, json_object **result,
				 char *msg, size_t msglen)
{
	bool bad = false, merge = proto_arg_bool(args, "merge", &bad);
	const char *target = proto_arg_str(args, "target", &bad);
	long long id = proto_arg_int(args, "id", 0, &bad);
	long long top = proto_arg_int(args, "top", d->cfg.by_top, &bad);
	struct stats_stacks ss = { .rows = proto_arg_bool(args, "stacks", &bad), .fc.d = d };

	if (proto_args_check(args, "stats", stats_fields, msg, msglen))
		return PROTO_E_BAD_REQUEST;
	if (bad || id < 0 || id > 0xffffffffLL || top < 1 || top > TRACERD_BY_TOP_LIMIT) {
		str_fmt(msg, msglen, "stats: invalid arguments (id: integer, target: string, "
			"merge: bool, top: 1 to %d)", TRACERD_BY_TOP_LIMIT);
		return PROTO_E_BAD_REQUEST;
	}
	/* the stack rows: all of them unless the request says how many */
	ss.top = json_object_object_get_ex(args, "top", NULL) ? (unsigned int)top : 0;
	return stats_view(d, (unsigned int)id, target, merge, (unsigned int)top, &ss, result, msg,
			  msglen);
}

/* a detach request: answered when the last of its attachments is gone */
struct detach_wait {
	struct control_wait *w;
	json_object *ids;
	unsigned int left;
};

static void detach_done(struct tracerd *d, void *ctx, int err, struct attachment *a,
			const struct skip_list *skipped, const char *msg)
{
	struct detach_wait *dw = ctx;
	json_object *r;

	if (--dw->left)
		return;
	r = json_object_new_object();
	json_object_object_add(r, "detached", dw->ids);
	control_answer(dw->w, PROTO_OK, r, "");
	free(dw);
}

static bool detach_match(const struct attachment *a, bool all, long long id, const char *target)
{
	return all || a->id == id || (target && !strcmp(a->spec.target, target));
}

/* Start detaching what matches; the reply comes when all of it is gone. */
static enum proto_code detach_matches(struct tracerd *d, struct detach_wait *dw, bool all,
				      long long id, const char *target)
{
	struct attachment *a, *next;
	int l;

	dw->left = 1;	/* held until every detach is started */
	for (l = 0; l < 2; l++) {
		for (a = l ? d->changing : d->attachments; a; a = next) {
			next = a->next;
			if (!detach_match(a, all, id, target) ||
			    (a->state == ATTACHMENT_DETACHING && !l))
				continue;
			if (registry_detach_start(d, a, detach_done, dw))
				continue;	/* being detached for another request */
			json_object_array_add(dw->ids, json_object_new_int64(a->id));
			dw->left++;
		}
	}
	return json_object_array_length(dw->ids) || all ? PROTO_OK : PROTO_E_NOT_FOUND;
}

static enum proto_code cmd_detach(struct tracerd *d, json_object *args, json_object **result,
				  char *msg, size_t msglen)
{
	bool bad = false, all = proto_arg_bool(args, "all", &bad);
	const char *target = proto_arg_str(args, "target", &bad);
	long long id = proto_arg_int(args, "id", 0, &bad);
	struct detach_wait *dw;
	enum proto_code code;

	if (proto_args_check(args, "detach", detach_fields, msg, msglen))
		return PROTO_E_BAD_REQUEST;
	if (bad || id < 0 || id > 0xffffffffLL || (!!id + !!target + all) != 1) {
		str_fmt(msg, msglen, "detach: give exactly one of id (integer), target (string), "
			"all (true)");
		return PROTO_E_BAD_REQUEST;
	}
	dw = calloc(1, sizeof(*dw));
	if (dw)
		dw->w = control_wait(d);
	if (!dw || !dw->w) {
		free(dw);
		str_fmt(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	dw->ids = json_object_new_array();
	code = detach_matches(d, dw, all, id, target);
	if (code) {
		if (target)
			snprintf(msg, msglen, "no attachment with target '%s'", target);
		else
			snprintf(msg, msglen, "no attachment %lld", id);
		json_object_put(dw->ids);
		control_answer(dw->w, code, NULL, msg);
		free(dw);
		return code;
	}
	detach_done(d, dw, 0, NULL, NULL, "");	/* drops the hold: answers if all are gone */
	return PROTO_OK;
}

const struct command tracerd_commands[] = {
	{ "status", false, cmd_status },
	{ "list", false, cmd_list },
	{ "stats", false, cmd_stats },
	{ "attach", true, cmd_attach },
	{ "detach", true, cmd_detach },
	{ "bench", true, cmd_bench },
	{ "reload", true, cmd_reload },	/* reload.c */
	{ "functions", false, cmd_functions },	/* functions.c */
	{ "sites", true, cmd_sites },
	{ NULL, false, NULL },
};
