/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's one file descriptor budget: RLIMIT_NOFILE's soft limit,
 * raised to the hard one at start (fds_raise_limit; the hard limit is the
 * administrator's: LimitNOFILE= in tracerd.service). Each of its two
 * consumers that grow on demand keeps a part back for the others
 * (docs/limits.md):
 *   - an attach (registry.c, fds_check) may use what the limit leaves less
 *     the fds open now, less FDS_RESERVE_ATTACH: kept for the control and
 *     HTTP clients that connect meanwhile, files, /dev/tracerd;
 *   - the HTTP server (http.c) stops accepting at fds_http_limit(), the
 *     limit less FDS_RESERVE_HTTP: kept for the control socket and the BPF
 *     objects of attaches, so scrapers never starve them.
 * The HTTP part is the larger: clients come faster and in greater numbers
 * than attaches, and an attach that does not fit is refused with a message
 * while a client that does not fit only waits in the listen backlog.
 */
#ifndef TRACERD_FDS_H
#define TRACERD_FDS_H

#include <stddef.h>

#define FDS_RESERVE_ATTACH	16
#define FDS_RESERVE_HTTP	128
/* fds_http_limit counts at most this many (the unit's LimitNOFILE=) */
#define FDS_HTTP_LIMIT_MAX	65536

/*
 * Start-up needs (docs/limits.md, "File descriptors"): below FDS_START_MIN
 * the maps and probes cannot all be made, and a daemon that cannot attach
 * anything or take a client must not say it is ready; at ready, the limit
 * must leave FDS_READY_FREE beyond what start-up holds: the attach reserve,
 * and for the first attach the requester's connection, the tracefs
 * directory and the two fds of the smallest one (a tracepoint's program
 * and link).
 */
#define FDS_START_MIN	80
#define FDS_READY_FREE	(FDS_RESERVE_ATTACH + 4)
/* 0, or -EMFILE with err naming the limit and what to raise it to */
int fds_check_start(char *err, size_t len);
int fds_check_ready(char *err, size_t len);
/* fds 0-2 closed at start: /dev/null in their place */
void fds_std_open(void);
/* how to raise the limit, in every message that asks it (fds.c, registry.c) */
#define FDS_RAISE_HOW	"LimitNOFILE= in tracerd.service, prlimit or ulimit -n for a daemon " \
			"started by hand"
/* Raise RLIMIT_NOFILE's soft limit to the hard limit (many HTTP/control clients). */
void fds_raise_limit(void);
/* Open fds at which the HTTP server stops accepting: RLIMIT_NOFILE (at most
 * FDS_HTTP_LIMIT_MAX) less FDS_RESERVE_HTTP, and never under FDS_RESERVE_HTTP. */
unsigned int fds_http_limit(void);

#endif
