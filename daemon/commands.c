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
	json_object_object_add(o, "resolving", json_object_new_boolean(registry_resolving(a)));
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
		err = be->site(d, a, &a->hooks[i], &s);
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
	/* passes over the --stacks count table since start: one per request that reads it */
	json_object_object_add(o, "stack_table_reads",
			       json_object_new_int64((int64_t)d->stack_table_reads));
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
		json_object_object_add(r, "skipped_total",
				       json_object_new_int64((int64_t)skipped->total));
		json_object_object_add(r, "skipped_reasons", skip_list_reasons_json(skipped));
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
	w = control_wait(d);
	if (!w) {
		str_fmt(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	if (proto_arg_bool(args, "dry_run", &bad) && !bad) {
		plan_attach(d, &spec, w);	/* plan.c */
		return PROTO_OK;
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
	stacks_read_begin(d);	/* stacks.dropped: one pass over the stack table */
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
	stacks_read_end(d);
	*result = json_object_new_object();
	json_object_object_add(*result, "attachments", arr);
	return PROTO_OK;
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
	{ "stats", false, cmd_stats },	/* stats.c */
	{ "attach", true, cmd_attach },
	{ "detach", true, cmd_detach },
	{ "bench", true, cmd_bench },
	{ "reload", true, cmd_reload },	/* reload.c */
	{ "functions", false, cmd_functions },	/* functions.c */
	{ "sites", true, cmd_sites },
	{ NULL, false, NULL },
};
