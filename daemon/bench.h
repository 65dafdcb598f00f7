/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmarks (`tracectl bench`, docs/bench.md). The daemon owns the hooks:
 * the `bench` control command attaches them for the client's own process,
 * reads their exact counts and runs the kmod's in-kernel benchmarks; the
 * client runs the user-space loops and does the statistics.
 *
 * Trigger results are kept in state_dir (bench-trigger.json) and feed the
 * metrics' overhead_ns_per_call / overhead_cpu_seconds_total.
 */
#ifndef TRACERD_BENCH_H
#define TRACERD_BENCH_H

#include <stdbool.h>
#include <json-c/json.h>
#include "../lib/proto.h"
#include "tracerd.h"

#define BENCH_TRIGGER_FILE	"bench-trigger.json"

enum proto_code cmd_bench(struct tracerd *d, json_object *args, json_object **result,
			  char *msg, size_t msglen);

/*
 * The per-call overhead measured by the last `bench trigger` on this
 * kernel for mode and variant (latency or count), in ns: 0, or -ENOENT when
 * there is no such result (none stored, another kernel, mode not measured).
 * For the metrics: overhead_cpu_seconds_total = calls * ns / 1e9.
 */
int bench_overhead(struct tracerd *d, enum tracerd_mode mode, bool latency, double *ns);
/* Free the stored results read back (d->store), at exit. */
void bench_store_free(struct tracerd *d);

/*
 * Fill an attachment's overhead_ns_per_call (the stored overhead of its
 * mode and variant, clamped at 0) and overhead_cpu_seconds_total (its calls
 * times that) for the metrics; left unknown (null) without a result.
 * m->functions must hold the attachment's calls already.
 */
struct metrics_attachment;
void bench_metrics_overhead(struct tracerd *d, const struct attachment *a,
			    struct metrics_attachment *m);

/* bench_store.c */
enum proto_code bench_store(struct tracerd *d, json_object *args, json_object **result,
			    char *msg, size_t msglen);

#endif
