// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Control commands (docs/protocol.md): argument decoding and replies.
 * The work is done by the registry; this file only translates.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "../lib/modes.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bench.h"
#include "control.h"
#include "recorder.h"
#include "registry.h"
#include "service.h"

static json_object *feature_json(const struct feature *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "available", json_object_new_boolean(f->available));
	/* why not; for an available mode, the fallback it runs on (tp-btf via raw_tp) */
	json_object_object_add(o, "reason", !f->reason[0] ? NULL : json_object_new_string(f->reason));
	return o;
}

static json_object *kmod_json(const struct tracerd *d)
{
	const struct kmod_info *k = &d->kmod;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "present", json_object_new_boolean(k->present));
	json_object_object_add(o, "abi_major", k->present ? json_object_new_int(k->abi_major) : NULL);
	json_object_object_add(o, "abi_minor", k->present ? json_object_new_int(k->abi_minor) : NULL);
	json_object_object_add(o, "module_version", k->present ?
			       json_object_new_string(k->module_version) : NULL);
	json_object_object_add(o, "reason", k->reason[0] ? json_object_new_string(k->reason) : NULL);
	json_object_object_add(o, "config", kmod_config_json(d));
	return o;
}

#define F(n, t) { n, json_type_##t }
/* The arguments each command accepts (docs/protocol.md): anything else is refused. */
static const struct proto_field no_fields[] = { {} };
static const struct proto_field attach_fields[] = {
	F("target", string), F("mode", string), F("latency", boolean), F("pid", int),
	F("comm", string), F("record", string), {}
};
static const struct proto_field stats_fields[] = {
	F("id", int), F("target", string), F("merge", boolean), {}
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
		if (m == TRACERD_MODE_TP_BTF)
			json_object_object_add(f, "raw_tp", feature_json(&d->raw_tp));
	}
	json_object_object_add(o, "features", f);
	json_object_object_add(o, "kmod", kmod_json(d));
	json_object_object_add(o, "attachments", json_object_new_int(registry_count(d)));
	json_object_object_add(o, "slots_used", json_object_new_int(d->nr_slots_used));
	json_object_object_add(o, "config", config_state_json(d));	/* reload.c */
	*result = o;
	return PROTO_OK;
}

/* Decode attach args into a spec (validated by the registry). */
static enum proto_code attach_args(json_object *args, struct tracerd_spec *s, char *msg,
				   size_t msglen)
{
	const char *target, *mode, *comm, *record;
	bool bad = false;
	long long pid;
	int m;

	memset(s, 0, sizeof(*s));
	if (proto_args_check(args, "attach", attach_fields, msg, msglen))
		return PROTO_E_BAD_REQUEST;
	target = proto_arg_str(args, "target", &bad);
	mode = proto_arg_str(args, "mode", &bad);
	comm = proto_arg_str(args, "comm", &bad);
	record = proto_arg_str(args, "record", &bad);
	s->latency = proto_arg_bool(args, "latency", &bad);
	pid = proto_arg_int(args, "pid", 0, &bad);
	if (bad) {
		str_fmt(msg, msglen, "attach: an argument has the wrong JSON type");
		return PROTO_E_BAD_REQUEST;
	}
	if (!target || str_copy(s->target, target, sizeof(s->target))) {
		str_fmt(msg, msglen, "attach: \"target\" missing or longer than %d bytes",
			TRACERD_TARGET_MAX - 1);
		return PROTO_E_BAD_REQUEST;
	}
	if (mode) {
		m = tracerd_mode_parse(mode);
		if (m < 0) {
			str_fmt(msg, msglen, "unknown mode '%s'", mode);
			return PROTO_E_BAD_REQUEST;
		}
		s->mode = m;
	}
	if (pid < 0 || pid > 0x3fffffff) {
		str_fmt(msg, msglen, "invalid pid %lld", pid);
		return PROTO_E_BAD_REQUEST;
	}
	s->tgid = (__u32)pid;
	if (comm && (!comm[0] || str_copy(s->comm, comm, sizeof(s->comm)))) {
		str_fmt(msg, msglen, "invalid comm '%s' (1-15 bytes)", comm);
		return PROTO_E_BAD_REQUEST;
	}
	if (record && str_copy(s->record, record, sizeof(s->record))) {
		str_fmt(msg, msglen, "record name too long");
		return PROTO_E_BAD_REQUEST;
	}
	return PROTO_OK;
}

static enum proto_code cmd_attach(struct tracerd *d, json_object *args, json_object **result,
				  char *msg, size_t msglen)
{
	struct tracerd_spec spec;
	enum proto_code code = attach_args(args, &spec, msg, msglen);

	if (code)
		return code;
	return registry_attach(d, &spec, result, msg, msglen);
}

static enum proto_code cmd_list(struct tracerd *d, json_object *args, json_object **result,
				char *msg, size_t msglen)
{
	json_object *arr;
	struct attachment *a;

	if (proto_args_check(args, "list", no_fields, msg, msglen))
		return PROTO_E_BAD_REQUEST;
	arr = json_object_new_array();
	for (a = d->attachments; a; a = a->next) {
		json_object *o = attachment_json(a), *sites = kmod_sites_json(d, a);

		if (sites)
			json_object_object_add(o, "sites", sites);
		json_object_object_add(o, "recording", recorder_json(d, a));
		json_object_array_add(arr, o);
	}
	*result = json_object_new_object();
	json_object_object_add(*result, "attachments", arr);
	return PROTO_OK;
}

static enum proto_code cmd_stats(struct tracerd *d, json_object *args, json_object **result,
				 char *msg, size_t msglen)
{
	bool bad = false, merge = proto_arg_bool(args, "merge", &bad);
	const char *target = proto_arg_str(args, "target", &bad);
	long long id = proto_arg_int(args, "id", 0, &bad);

	if (proto_args_check(args, "stats", stats_fields, msg, msglen))
		return PROTO_E_BAD_REQUEST;
	if (bad || id < 0 || id > 0xffffffffLL) {
		str_fmt(msg, msglen, "stats: invalid arguments (id: integer, target: string, "
			"merge: bool)");
		return PROTO_E_BAD_REQUEST;
	}
	return registry_stats(d, (unsigned int)id, target, merge, result, msg, msglen);
}

static enum proto_code cmd_detach(struct tracerd *d, json_object *args, json_object **result,
				  char *msg, size_t msglen)
{
	bool bad = false, all = proto_arg_bool(args, "all", &bad);
	const char *target = proto_arg_str(args, "target", &bad);
	long long id = proto_arg_int(args, "id", 0, &bad);

	if (proto_args_check(args, "detach", detach_fields, msg, msglen))
		return PROTO_E_BAD_REQUEST;
	if (bad || id < 0 || id > 0xffffffffLL || (!!id + !!target + all) != 1) {
		str_fmt(msg, msglen, "detach: give exactly one of id (integer), target (string), "
			"all (true)");
		return PROTO_E_BAD_REQUEST;
	}
	return registry_detach(d, (unsigned int)id, target, all, result, msg, msglen);
}

const struct command tracerd_commands[] = {
	{ "status", false, cmd_status },
	{ "list", false, cmd_list },
	{ "stats", false, cmd_stats },
	{ "attach", true, cmd_attach },
	{ "detach", true, cmd_detach },
	{ "bench", true, cmd_bench },
	{ "reload", true, cmd_reload },	/* reload.c */
	{ NULL, false, NULL },
};
