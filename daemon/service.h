/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracerd as a service: the HTTP metrics server (http.c), the metrics
 * snapshot of the daemon's state (metrics.c), recordings (record.c),
 * sd_notify and configuration reload (notify.c, reload.c).
 */
#ifndef TRACERD_SERVICE_H
#define TRACERD_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include "../lib/metrics.h"
#include "../lib/proto.h"
#include "tracerd.h"

struct http_server;

/* metrics.c: render the current state: /metrics, /metrics.json; malloc'd text. */
char *metrics_render_prometheus(struct tracerd *d, size_t *len);
char *metrics_render_json(struct tracerd *d, size_t *len);

/* http.c: listen is "ADDR:PORT", "[ADDR6]:PORT" or "off" (then *out = NULL). */
int http_start(struct tracerd *d, const char *listen, struct http_server **out);
void http_stop(struct http_server *h);
const struct metrics_http *http_stats(struct http_server *h);

/* notify.c: libsystemd's sd_notify(3); no-op without NOTIFY_SOCKET. */
int notify_send(const char *state);
/* "EXTEND_TIMEOUT_USEC=usec": the start, reload or stop under way needs that much more */
int notify_extend_timeout(unsigned long long usec);
/* STATUS= with what the daemon holds (attachments, hooked functions, failed
 * config lines), now; sent only when the text changed */
void notify_status(struct tracerd *d);
/* attachments changed: STATUS= from the loop, at most once a second */
void notify_status_changed(struct tracerd *d);
/* the loop's notify events (after READY=1): STATUS= and, when the manager
 * asks for it, the watchdog's WATCHDOG=1; freed before the event base */
int notify_loop_start(struct tracerd *d);
void notify_loop_stop(void);
/* long work that holds the loop: WATCHDOG=1 when one is due (cheap otherwise) */
void watchdog_kick(void);
/* around one call that may block the loop for minutes (a kmod benchmark):
 * the watchdog's limit raised to an hour, then set back */
void watchdog_hold(void);
void watchdog_release(void);
/* Raise RLIMIT_NOFILE's soft limit to the hard limit (many HTTP/control clients). */
void raise_nofile_limit(void);

/* reload.c: the config's attachments at start-up; re-read the config and
 * reconcile them (SIGHUP, the control command `reload`). */
struct reload_opts {
	const char *path;	/* config file */
	bool path_given;	/* else a missing file means defaults */
	const char *listen;	/* --listen override, or NULL */
	const char *socket;	/* --socket override, or NULL */
	int verbose;		/* -v given: log_level does not apply */
};
extern struct reload_opts tracerd_reload_opts;	/* filled by main() */
struct reload_result {
	unsigned int attached, detached, failed;	/* failed: lines whose attach failed */
};
/* 0, or -errno when the new config was refused (err says why; nothing changed) */
int config_reload(struct tracerd *d, const struct reload_opts *o, struct reload_result *r,
		  char *err, size_t errlen);
/* attach d->cfg's lines at start-up; failures are logged, counted, in STATUS= */
void config_attach_startup(struct tracerd *d);
/* config attach lines whose attach failed at the last start-up or reload */
unsigned int config_attach_failures(void);
/* reloads taken (ok) and refused since start */
void config_reload_counts(unsigned int *ok, unsigned int *refused);
/* {"attach_lines", "attach_failed", "failures": [{"line", "target", "error"}]} */
json_object *config_state_json(const struct tracerd *d);
void config_state_free(const struct tracerd *d);
enum proto_code cmd_reload(struct tracerd *d, json_object *args, json_object **result,
			   char *msg, size_t msglen);

#endif
