/* SPDX-License-Identifier: GPL-2.0-or-later */
/* attach --by: an attachment's calls per pid, comm or cgroup (daemon/by.c). */
#ifndef TRACERD_BY_H
#define TRACERD_BY_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include <tracerd/trace.h>
#include "../lib/spec.h"

struct tracerd;
struct attachment;

/* every row of by_keys, read in one pass */
struct by_scan {
	struct tracerd_by_key *k;
	struct tracerd_by_val *v;
	size_t n;
	struct tracerd_by_key next_key;	/* the pass's cursor */
};

struct by_item {
	struct tracerd_by_key k;	/* slot 0: merged over the functions */
	struct tracerd_by_val v;
	char *cgroup;			/* SPEC_BY_CGROUP: the path, NULL: unknown */
};

struct by_summary {
	enum spec_by by;
	struct by_item *items;		/* the top keys, calls descending */
	size_t nr;			/* shown: at most top */
	size_t keys;			/* the attachment's keys in by_keys */
	size_t other_keys;		/* of them, folded into other */
	struct tracerd_by_val other;	/* the keys past the top, and unkept */
	__u64 unkept;			/* calls of keys the map had no room for */
	__u64 calls;			/* all: the items' and other's */
};

int by_scan(struct tracerd *d, struct by_scan *s);
void by_scan_free(struct by_scan *s);
/* a's keys in scan, its top ones and other; 0 or -ENOMEM */
int by_summarize(struct tracerd *d, const struct attachment *a, const struct by_scan *scan,
		 unsigned int top, struct by_summary *s);
void by_summary_free(struct by_summary *s);
/* The key as text: the pid, the comm (raw bytes: escape to print), the
 * cgroup's path or, unknown, its id. buf or a string of s. */
const char *by_item_label(const struct by_summary *s, const struct by_item *it, char *buf,
			  size_t len);
/* {key, calls, keys, top: [{key, pid|comm|cgroup_id+cgroup, calls, timed,
 * lat_sum_ns}], other: {calls, timed, lat_sum_ns, keys, unkept_calls}} */
json_object *by_json(const struct by_summary *s, bool latency);

#endif
