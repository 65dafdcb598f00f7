/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * notify.c: tracerd and its service manager (the sd_notify(3) protocol,
 * never blocking the loop): READY=1 and the like, STATUS= with what the
 * daemon holds, the watchdog. Its state is d->notify (tracerd.h).
 */
#ifndef TRACERD_NOTIFY_H
#define TRACERD_NOTIFY_H

#include "tracerd.h"

/* one sd_notify(3) state to the manager, never blocking the loop for long:
 * STATUS= and WATCHDOG=1 dropped at once when its queue is full, the rest
 * after 100 ms (-EAGAIN, counted in d->notify); no-op without NOTIFY_SOCKET */
int notify_send(struct tracerd *d, const char *state);
/* "EXTEND_TIMEOUT_USEC=usec": the start, reload or stop under way needs that much more */
int notify_extend_timeout(struct tracerd *d, unsigned long long usec);
/* STATUS= with what the daemon holds (attachments, hooked functions, failed
 * config lines), now; sent only when the text changed */
void notify_status(struct tracerd *d);
/* attachments changed: STATUS= from the loop, at most once a second (main()
 * sets it as d->on_attachments_changed) */
void notify_status_changed(struct tracerd *d);
/* the loop's notify events (after READY=1): STATUS= and, when the manager
 * asks for it, the watchdog's WATCHDOG=1; freed before the event base */
int notify_loop_start(struct tracerd *d);
void notify_loop_stop(struct tracerd *d);
/* long work that holds the loop: WATCHDOG=1 when one is due (cheap
 * otherwise); main() sets it as d->on_progress */
void watchdog_kick(struct tracerd *d);
/* around one call that may block the loop for minutes (a kmod benchmark):
 * the watchdog's limit raised to an hour, then set back */
void watchdog_hold(struct tracerd *d);
void watchdog_release(struct tracerd *d);

#endif
