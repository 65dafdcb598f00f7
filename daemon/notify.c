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
 * between steps; a single call that may block for minutes (a kmod
 * benchmark ioctl) is bracketed by watchdog_hold/watchdog_release, which
 * raise the limit to WATCHDOG_HOLD_USEC for its duration (WATCHDOG_USEC=,
 * systemd >= 236) and set it back.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <event2/event.h>
#include <systemd/sd-daemon.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include "service.h"

#define STATUS_INTERVAL_NS	(1000ULL * 1000 * 1000)	/* at most one STATUS= a second */
#define WATCHDOG_HOLD_USEC	(3600ULL * 1000 * 1000)	/* a kmod benchmark: an hour */

static struct event *status_ev;		/* a STATUS= due (notify_loop_start .. _stop) */
static uint64_t status_sent_ns;
static char status_last[384];

static struct event *wd_ev;		/* WATCHDOG=1 every wd_usec / 2 */
static uint64_t wd_usec;		/* the manager's interval; 0: no watchdog */
static uint64_t wd_next_ns;		/* when watchdog_kick sends the next one */
static unsigned int wd_holds;

/* NOTIFY_SOCKET as tracerd started: whether anyone listens */
static bool under_manager(void)
{
	static int known = -1;

	if (known < 0) {
		const char *e = getenv("NOTIFY_SOCKET");

		known = e && e[0];
	}
	return known;
}

int notify_send(const char *state)
{
	static bool warned;
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
	unsigned int n = 0, busy = 0, failed = config_attach_failures();
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
		snprintf(buf + off, len - off, "; %u of %zu config attach lines failed (see the log, "
			 "tracectl status)", failed, d->cfg.nr_attach);
}

void notify_status(struct tracerd *d)
{
	char buf[sizeof(status_last)];

	if (!under_manager())
		return;
	if (status_ev)
		event_del(status_ev);
	status_text(d, buf, sizeof(buf));
	status_sent_ns = now_mono_ns();
	if (!strcmp(buf, status_last))
		return;
	strcpy(status_last, buf);
	notify_send(buf);
}

static void status_cb(evutil_socket_t fd, short what, void *arg)
{
	notify_status(arg);
}

void notify_status_changed(struct tracerd *d)
{
	uint64_t now, due;
	struct timeval tv = { 0, 0 };

	if (!status_ev || evtimer_pending(status_ev, NULL))
		return;
	now = now_mono_ns();
	due = status_sent_ns + STATUS_INTERVAL_NS;
	if (due > now) {
		tv.tv_sec = (time_t)((due - now) / 1000000000ULL);
		tv.tv_usec = (suseconds_t)((due - now) % 1000000000ULL / 1000);
	}
	evtimer_add(status_ev, &tv);
}

static void watchdog_ping(void)
{
	wd_next_ns = now_mono_ns() + wd_usec * 1000 / 2;
	notify_send("WATCHDOG=1");
}

static void watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	if (!wd_holds)
		watchdog_ping();
}

void watchdog_kick(void)
{
	if (wd_usec && !wd_holds && now_mono_ns() >= wd_next_ns)
		watchdog_ping();
}

void watchdog_hold(void)
{
	char buf[64];

	if (!wd_usec || wd_holds++)
		return;
	snprintf(buf, sizeof(buf), "WATCHDOG=1\nWATCHDOG_USEC=%llu", WATCHDOG_HOLD_USEC);
	notify_send(buf);
}

void watchdog_release(void)
{
	char buf[64];

	if (!wd_usec || !wd_holds || --wd_holds)
		return;
	snprintf(buf, sizeof(buf), "WATCHDOG=1\nWATCHDOG_USEC=%llu", (unsigned long long)wd_usec);
	wd_next_ns = now_mono_ns() + wd_usec * 1000 / 2;
	notify_send(buf);
}

static int watchdog_start(struct tracerd *d)
{
	uint64_t usec = 0;
	struct timeval tv;
	int ret = sd_watchdog_enabled(0, &usec);

	if (ret < 0)
		log_warn("watchdog: %s (WATCHDOG_USEC, WATCHDOG_PID): none", strerror(-ret));
	if (ret <= 0 || !usec)
		return 0;
	wd_ev = event_new(d->base, -1, EV_PERSIST, watchdog_cb, NULL);
	if (!wd_ev)
		return -ENOMEM;
	wd_usec = usec;
	tv.tv_sec = (time_t)(usec / 2 / 1000000);
	tv.tv_usec = (suseconds_t)(usec / 2 % 1000000);
	if (event_add(wd_ev, &tv))
		return -ENOMEM;
	log_info("watchdog: WATCHDOG=1 every %llu ms (WatchdogSec=%llu ms)",
		 (unsigned long long)usec / 2000, (unsigned long long)usec / 1000);
	watchdog_ping();
	return 0;
}

int notify_loop_start(struct tracerd *d)
{
	if (!under_manager())
		return 0;
	status_ev = evtimer_new(d->base, status_cb, d);
	if (!status_ev)
		return -ENOMEM;
	return watchdog_start(d);
}

void notify_loop_stop(void)
{
	if (status_ev)
		event_free(status_ev);
	status_ev = NULL;
	if (wd_ev)
		event_free(wd_ev);
	wd_ev = NULL;
	wd_usec = 0;
}

void raise_nofile_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		log_warn("cannot raise the open-file limit: %s", strerror(errno));
}
