// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracerd and its service manager, through libsystemd's sd_notify(3):
 * READY=1, RELOADING=1, STOPPING=1, EXTEND_TIMEOUT_USEC=, and STATUS=,
 * one line saying what the daemon holds:
 *
 *   "3 attachments, 1042 functions hooked; 1 attaching or detaching;
 *    1 of 4 config attach lines failed (see the log, tracectl status)"
 *
 * (the last two parts only when they apply; a tracepoint counts as one
 * function). It is sent when attachments change (the registry calls
 * d->on_attachments_changed, which main() points at
 * notify_status_changed), at most once a second from the event loop, and
 * only when the text changed. libsystemd reaches $NOTIFY_SOCKET in every
 * form systemd hands out (a path, an abstract "@" name, vsock) and follows
 * the protocol as it grows. Not under systemd (no NOTIFY_SOCKET): every
 * call is a no-op.
 *
 * The watchdog: when the service manager asks for one (WatchdogSec=, seen
 * as WATCHDOG_USEC and WATCHDOG_PID by sd_watchdog_enabled), a timer of
 * the event loop sends WATCHDOG=1 every half interval, so a loop that
 * stops turning gets the daemon killed and restarted. systemd arms it at
 * READY=1; the timer starts then. Work that holds the loop for long but
 * makes progress (reload's attach lines, bench's synchronous attaches,
 * each step of registry_attach/registry_detach) calls watchdog_kick()
 * between steps (the registry through d->on_progress); a single call
 * that may block for minutes (a kmod benchmark ioctl) is bracketed by
 * watchdog_hold/watchdog_release, which raise the limit to
 * WATCHDOG_HOLD_USEC for its duration (WATCHDOG_USEC=, systemd >= 236)
 * and set it back.
 *
 * The state lives in d->notify (struct notify_state, tracerd.h); the
 * failed config lines STATUS= counts are reload.c's d->reload.attach_failed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <systemd/sd-daemon.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include "notify.h"

#define STATUS_INTERVAL_NS	(1000ULL * 1000 * 1000)	/* at most one STATUS= a second */
#define WATCHDOG_HOLD_USEC	(3600ULL * 1000 * 1000)	/* a kmod benchmark: an hour */

/* NOTIFY_SOCKET as tracerd started: whether anyone listens */
static bool under_manager(void)
{
	/* a fact of the process (its environment at start), not of a struct
	 * tracerd: cached once */
	static int known = -1;

	if (known < 0) {
		const char *e = getenv("NOTIFY_SOCKET");

		known = e && e[0];
	}
	return known;
}

int notify_send(const char *state)
{
	static bool warned;	/* process-wide: the one socket of the process */
	int ret = sd_notify(0, state);

	if (ret >= 0)
		return 0;
	if (!warned)	/* once: a broken socket would flood the log */
		log_warn("sd_notify '%s': %s", state, strerror(-ret));
	warned = true;
	return ret;
}

int notify_extend_timeout(unsigned long long usec)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "EXTEND_TIMEOUT_USEC=%llu", usec);
	return notify_send(buf);
}

static void status_text(const struct tracerd *d, char *buf, size_t len)
{
	const struct attachment *a;
	unsigned int n = 0, busy = 0, failed = d->reload.attach_failed;
	size_t hooks = 0, off;

	for (a = d->attachments; a; a = a->next) {
		n++;
		hooks += a->nr_hooks;
	}
	for (a = d->changing; a; a = a->next)
		busy++;
	off = (size_t)snprintf(buf, len, "STATUS=%u attachment%s, %zu function%s hooked", n,
			       n == 1 ? "" : "s", hooks, hooks == 1 ? "" : "s");
	if (busy && off < len)
		off += (size_t)snprintf(buf + off, len - off, "; %u attaching or detaching", busy);
	if (failed && off < len)
		snprintf(buf + off, len - off,
			 "; %u of %zu config attach lines failed (see the log, "
			 "tracectl status)",
			 failed, d->cfg.nr_attach);
}

void notify_status(struct tracerd *d)
{
	struct notify_state *n = &d->notify;
	char buf[sizeof(n->status_last)];

	if (!under_manager())
		return;
	if (n->status_ev)
		event_del(n->status_ev);
	status_text(d, buf, sizeof(buf));
	n->status_sent_ns = now_mono_ns();
	if (!strcmp(buf, n->status_last))
		return;
	strcpy(n->status_last, buf);
	notify_send(buf);
}

static void status_cb(evutil_socket_t fd, short what, void *arg)
{
	notify_status(arg);
}

void notify_status_changed(struct tracerd *d)
{
	struct notify_state *n = &d->notify;
	uint64_t now, due;
	struct timeval tv = { 0, 0 };

	if (!n->status_ev || evtimer_pending(n->status_ev, NULL))
		return;
	now = now_mono_ns();
	due = n->status_sent_ns + STATUS_INTERVAL_NS;
	if (due > now) {
		tv.tv_sec = (time_t)((due - now) / 1000000000ULL);
		tv.tv_usec = (suseconds_t)((due - now) % 1000000000ULL / 1000);
	}
	evtimer_add(n->status_ev, &tv);
}

static void watchdog_ping(struct notify_state *n)
{
	n->wd_next_ns = now_mono_ns() + n->wd_usec * 1000 / 2;
	notify_send("WATCHDOG=1");
}

static void watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	struct notify_state *n = arg;

	if (!n->wd_holds)
		watchdog_ping(n);
}

void watchdog_kick(struct tracerd *d)
{
	struct notify_state *n = &d->notify;

	if (n->wd_usec && !n->wd_holds && now_mono_ns() >= n->wd_next_ns)
		watchdog_ping(n);
}

void watchdog_hold(struct tracerd *d)
{
	struct notify_state *n = &d->notify;
	char buf[64];

	if (!n->wd_usec || n->wd_holds++)
		return;
	snprintf(buf, sizeof(buf), "WATCHDOG=1\nWATCHDOG_USEC=%llu", WATCHDOG_HOLD_USEC);
	notify_send(buf);
}

void watchdog_release(struct tracerd *d)
{
	struct notify_state *n = &d->notify;
	char buf[64];

	if (!n->wd_usec || !n->wd_holds || --n->wd_holds)
		return;
	snprintf(buf, sizeof(buf), "WATCHDOG=1\nWATCHDOG_USEC=%llu",
		 (unsigned long long)n->wd_usec);
	n->wd_next_ns = now_mono_ns() + n->wd_usec * 1000 / 2;
	notify_send(buf);
}

static int watchdog_start(struct tracerd *d)
{
	struct notify_state *n = &d->notify;
	uint64_t usec = 0;
	struct timeval tv;
	int ret = sd_watchdog_enabled(0, &usec);

	if (ret < 0)
		log_warn("watchdog: %s (WATCHDOG_USEC, WATCHDOG_PID): none", strerror(-ret));
	if (ret <= 0 || !usec)
		return 0;
	n->wd_ev = event_new(d->base, -1, EV_PERSIST, watchdog_cb, n);
	if (!n->wd_ev)
		return -ENOMEM;
	n->wd_usec = usec;
	tv.tv_sec = (time_t)(usec / 2 / 1000000);
	tv.tv_usec = (suseconds_t)(usec / 2 % 1000000);
	if (event_add(n->wd_ev, &tv))
		return -ENOMEM;
	log_info("watchdog: WATCHDOG=1 every %llu ms (WatchdogSec=%llu ms)",
		 (unsigned long long)usec / 2000, (unsigned long long)usec / 1000);
	watchdog_ping(n);
	return 0;
}

int notify_loop_start(struct tracerd *d)
{
	if (!under_manager())
		return 0;
	d->notify.status_ev = evtimer_new(d->base, status_cb, d);
	if (!d->notify.status_ev)
		return -ENOMEM;
	return watchdog_start(d);
}

void notify_loop_stop(struct tracerd *d)
{
	struct notify_state *n = &d->notify;

	if (n->status_ev)
		event_free(n->status_ev);
	n->status_ev = NULL;
	if (n->wd_ev)
		event_free(n->wd_ev);
	n->wd_ev = NULL;
	n->wd_usec = 0;
}
