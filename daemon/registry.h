/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The registry of attachments: attach (resolve, choose the mode, hook),
 * detach, and the read side used by the control protocol and by any other
 * exporter (HTTP metrics): iterate d->attachments and call hook_stats().
 */
#ifndef TRACERD_REGISTRY_H
#define TRACERD_REGISTRY_H

#include <json-c/json.h>
#include "../lib/proto.h"
#include "tracerd.h"

/* A snapshot of one hook's statistics. */
struct hook_stats {
	struct tracerd_slot_stats s;	/* summed over CPUs */
	bool kernel_misses_known;
	__u64 kernel_misses;
	const char *misses_why;		/* when !kernel_misses_known */
};

enum proto_code registry_attach(struct tracerd *d, const struct tracerd_spec *spec,
				json_object **result, char *msg, size_t msglen);
/* Detach by id (> 0), by target (non-NULL), or everything (all). */
enum proto_code registry_detach(struct tracerd *d, unsigned int id, const char *target,
				bool all, json_object **result, char *msg, size_t msglen);
void registry_detach_all(struct tracerd *d);
unsigned int registry_count(const struct tracerd *d);

int hook_stats(struct tracerd *d, struct attachment *a, struct hook *h, struct hook_stats *out);

/* JSON views (docs/protocol.md: list, stats). */
json_object *attachment_json(const struct attachment *a);
json_object *hook_stats_json(const struct hook_stats *hs, bool latency);
/* be_kmod.c: the kernel config the module reports, and where the ftrace call
 * site of each of a's functions branches now (kmod modes; NULL otherwise) */
json_object *kmod_config_json(const struct tracerd *d);
json_object *kmod_sites_json(struct tracerd *d, const struct attachment *a);
/* stats filtered by id (0: any) and target (NULL: any); merged per function */
enum proto_code registry_stats(struct tracerd *d, unsigned int id, const char *target,
			       bool merge, json_object **result, char *msg, size_t msglen);

#endif
