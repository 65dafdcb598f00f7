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

static struct event *status_ev;		/* a STATUS= due (notify_loop_start .. _stop) */
static uint64_t status_sent_ns;
static char status_last[384];

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

int notify_loop_start(struct tracerd *d)
{
	if (!under_manager())
		return 0;
	status_ev = evtimer_new(d->base, status_cb, d);
	return status_ev ? 0 : -ENOMEM;
}

void notify_loop_stop(void)
{
	if (status_ev)
		event_free(status_ev);
	status_ev = NULL;
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
