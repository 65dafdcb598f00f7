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

#define FDS_RESERVE_ATTACH	16
#define FDS_RESERVE_HTTP	128
/* fds_http_limit counts at most this many (the unit's LimitNOFILE=) */
#define FDS_HTTP_LIMIT_MAX	65536

/* Raise RLIMIT_NOFILE's soft limit to the hard limit (many HTTP/control clients). */
void fds_raise_limit(void);
/* Open fds at which the HTTP server stops accepting: RLIMIT_NOFILE (at most
 * FDS_HTTP_LIMIT_MAX) less FDS_RESERVE_HTTP, and never under FDS_RESERVE_HTTP. */
unsigned int fds_http_limit(void);

#endif
