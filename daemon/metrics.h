/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.c: the metrics snapshot of the daemon's state, rendered by
 * lib/metrics.c. A view: it reads struct tracerd and the core, and what
 * only an edge knows (the HTTP server's counters) is passed in by it.
 */
#ifndef TRACERD_DAEMON_METRICS_H
#define TRACERD_DAEMON_METRICS_H

#include <stddef.h>
#include "../lib/metrics.h"
#include "tracerd.h"

/* /metrics, /metrics.json: malloc'd text (NULL on ENOMEM); http: the
 * serving server's counters, NULL for none; JSON: each attachment's
 * functions from offset, limit of them (0: metrics_function_top) */
char *metrics_render_prometheus(struct tracerd *d, const struct metrics_http *http, size_t *len);
char *metrics_render_json(struct tracerd *d, const struct metrics_http *http, size_t offset,
			  size_t limit, size_t *len);

#endif
