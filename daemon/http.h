/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * http.c: the HTTP metrics server (/metrics, /metrics.json, /healthz) in
 * the daemon's loop; it renders with metrics.c.
 */
#ifndef TRACERD_HTTP_H
#define TRACERD_HTTP_H

#include "tracerd.h"

struct http_server;

/* listen is "ADDR:PORT", "[ADDR6]:PORT" or "off" (then *out = NULL). */
int http_start(struct tracerd *d, const char *listen, struct http_server **out);
void http_stop(struct http_server *h);

#endif
