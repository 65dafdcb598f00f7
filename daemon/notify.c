// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracerd and its service manager, the sd_notify(3) protocol: READY=1,
 * RELOADING=1, STOPPING=1, EXTEND_TIMEOUT_USEC=, and STATUS=, one line
 * saying what the daemon holds:
 *
 *   "3 attachments, 1042 functions hooked; 1 attaching or detaching;
 *    1 of 4 config attach lines failed (see the log, tracectl status)"
 *
 * (the last two parts only when they apply; a tracepoint counts as one
 * function). It is sent when attachments change (the registry calls
 * d->on_attachments_changed, which main() points at
 * notify_status_changed), at most once a second from the event loop, and
 * only when the text changed. Not under systemd (no NOTIFY_SOCKET): every
 * call is a no-op.
 *
 * No notification blocks the event loop. libsystemd's sd_notify() does a
 * blocking sendmsg(), which waits for as long as the manager leaves its
 * queue full: a manager that stopped reading (hung, or hostile) would
 * stop the daemon, `tracectl status` unanswered. So the two forms of
 * $NOTIFY_SOCKET systemd hands out on a host, an absolute path and an
 * abstract "@name", are sent here, on a non-blocking socket; the rest
 * (vsock:, a relative path) are left to sd_notify(). When the queue is
 * full, STATUS= and WATCHDOG=1 are dropped at once: a dropped STATUS= is
 * tried again a second later, the next WATCHDOG=1 comes half an interval
 * later. The rest (READY=1, RELOADING=1, STOPPING=1, EXTEND_TIMEOUT_USEC=,
 * the watchdog's WATCHDOG_USEC=) say a state change the manager acts on:
 * they wait up to NOTIFY_WAIT_MS for room, then are dropped with a
 * warning. The log says once when the queue is found full and once when
 * it drained, with the count dropped meanwhile (counted in d->notify).
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
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <event2/event.h>
#include <systemd/sd-daemon.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include "notify.h"

#define STATUS_INTERVAL_NS	(1000ULL * 1000 * 1000)	/* at most one STATUS= a second */
#define WATCHDOG_HOLD_USEC	(3600ULL * 1000 * 1000)	/* a kmod benchmark: an hour */
#define NOTIFY_WAIT_MS		100	/* READY=1 and the like: the longest wait for room */

/*
 * "/path" or "@name", n bytes that fit sun_path, into addr (zeroed): its
 * length for connect(). An abstract name is the n - 1 bytes after a NUL,
 * without a NUL at the end; a path ends with one.
 */
static socklen_t unix_addr(struct sockaddr_un *addr, const char *e, size_t n)
{
	memcpy(addr->sun_path, e, n);
	if (e[0] == '@')
		addr->sun_path[0] = '\0';
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (e[0] == '/'));
}

/*
 * $NOTIFY_SOCKET as tracerd started, as an AF_UNIX address: 0 for an
 * absolute path or an abstract "@name", -ENOENT when unset or empty (no
 * manager), -EAFNOSUPPORT for the forms left to libsystemd. A fact of the
 * process (its environment at start), not of a struct tracerd: parsed once.
 */
static int notify_addr(const struct sockaddr_un **sa, socklen_t *salen)
{
	static struct sockaddr_un addr = { .sun_family = AF_UNIX };
	static socklen_t addr_len;
	static int known = 1;	/* 1: not parsed yet */
	const char *e;
	size_t n;

	if (known > 0) {
		e = getenv("NOTIFY_SOCKET");
		n = e ? strlen(e) : 0;
		known = 0;
		if (!n)
			known = -ENOENT;
		else if ((e[0] != '/' && e[0] != '@') || n >= sizeof(addr.sun_path))
			known = -EAFNOSUPPORT;
		else
			addr_len = unix_addr(&addr, e, n);
	}
	*sa = &addr;
	*salen = addr_len;
	return known;
}

/* NOTIFY_SOCKET as tracerd started: whether anyone listens */
static bool under_manager(void)
{
	const struct sockaddr_un *sa;
	socklen_t len;

	return notify_addr(&sa, &len) != -ENOENT;
}

/*
 * STATUS= and WATCHDOG=1 alone: the next one, due anyway, carries the
 * news, so a full queue drops them without waiting
 */
static bool droppable(const char *state)
{
	return !strcmp(state, "WATCHDOG=1") || (!strncmp(state, "STATUS=", 7) &&
						!strchr(state, '\n'));
}

/*
 * Until fd has room to send or the monotonic clock reaches end: 0 to try
 * again, -EAGAIN when the time is up.
 */
static int wait_room(int fd, uint64_t end)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	uint64_t now = now_mono_ns();

	if (now >= end)
		return -EAGAIN;
	if (poll(&p, 1, (int)((end - now + 999999) / 1000000)) < 0 && errno != EINTR)
		return -errno;
	return 0;
}

/*
 * One datagram to the manager, waiting at most wait_ms when its queue is
 * full (-EAGAIN then). A fresh socket each time, as sd_notify() makes one,
 * so a manager that re-created its socket is still reached. It is
 * connected: poll() on an unconnected datagram socket says POLLOUT as soon
 * as our own send buffer has room, while a connected one waits for room in
 * the peer's queue, which is what is full. MSG_DONTWAIT makes each try
 * return at once; MSG_NOSIGNAL, no SIGPIPE from a manager gone.
 */
static int send_dgram(const struct sockaddr_un *sa, socklen_t salen, const char *state,
		      int wait_ms)
{
	uint64_t end = now_mono_ns() + (uint64_t)wait_ms * 1000000;
	struct iovec iov = { .iov_base = (void *)state, .iov_len = strlen(state) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fd, ret;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	ret = connect(fd, (const struct sockaddr *)sa, salen) < 0 ? -errno : 0;
	while (!ret && sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		ret = -errno;
		if (ret == -EAGAIN || ret == -EINTR)
			ret = wait_room(fd, end);
	}
	close(fd);
	return ret;
}

/*
 * What a send's outcome tells the log: a full queue once when first met
 * and once when it drained (with the count dropped meanwhile), each
 * dropped state change, other errors once (a broken socket would flood
 * the log).
 */
static void sent(struct notify_state *n, const char *state, int ret)
{
	if (ret == -EAGAIN) {
		if (!n->full)
			log_warn("notify: $NOTIFY_SOCKET full (the service manager reads no more): "
				 "dropping STATUS= and WATCHDOG=1 until it drains");
		n->full = true;
		n->dropped++;
		n->dropped_full++;
		if (!droppable(state))
			log_warn("notify: '%s' dropped after %d ms without room", state,
				 NOTIFY_WAIT_MS);
		return;
	}
	if (!ret && n->full) {
		log_notice("notify: $NOTIFY_SOCKET drained; %llu notifications dropped while full",
			   n->dropped_full);
		n->full = false;
		n->dropped_full = 0;
	}
	if (ret && !n->warned)
		log_warn("notify '%s': %s", state, strerror(-ret));
	n->warned |= ret != 0;
}

int notify_send(struct tracerd *d, const char *state)
{
	const struct sockaddr_un *sa;
	socklen_t salen;
	int ret = notify_addr(&sa, &salen);

	if (ret == -ENOENT)
		return 0;
	if (ret) {	/* a form we do not send ourselves: libsystemd's */
		ret = sd_notify(0, state);
		ret = ret < 0 ? ret : 0;
	} else {
		ret = send_dgram(sa, salen, state, droppable(state) ? 0 : NOTIFY_WAIT_MS);
	}
	sent(&d->notify, state, ret);
	return ret;
}

int notify_extend_timeout(struct tracerd *d, unsigned long long usec)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "EXTEND_TIMEOUT_USEC=%llu", usec);
	return notify_send(d, buf);
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
	if (notify_send(d, buf) != -EAGAIN)
		return;
	/* dropped (the queue full): tried again at the rate limit until it goes */
	n->status_last[0] = '\0';
	notify_status_changed(d);
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

static void watchdog_ping(struct tracerd *d)
{
	struct notify_state *n = &d->notify;

	n->wd_next_ns = now_mono_ns() + n->wd_usec * 1000 / 2;
	notify_send(d, "WATCHDOG=1");
}

static void watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tracerd *d = arg;

	if (!d->notify.wd_holds)
		watchdog_ping(d);
}

void watchdog_kick(struct tracerd *d)
{
	struct notify_state *n = &d->notify;

	if (n->wd_usec && !n->wd_holds && now_mono_ns() >= n->wd_next_ns)
		watchdog_ping(d);
}

void watchdog_hold(struct tracerd *d)
{
	struct notify_state *n = &d->notify;
	char buf[64];

	if (!n->wd_usec || n->wd_holds++)
		return;
	snprintf(buf, sizeof(buf), "WATCHDOG=1\nWATCHDOG_USEC=%llu", WATCHDOG_HOLD_USEC);
	notify_send(d, buf);
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
	notify_send(d, buf);
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
	n->wd_ev = event_new(d->base, -1, EV_PERSIST, watchdog_cb, d);
	if (!n->wd_ev)
		return -ENOMEM;
	n->wd_usec = usec;
	tv.tv_sec = (time_t)(usec / 2 / 1000000);
	tv.tv_usec = (suseconds_t)(usec / 2 % 1000000);
	if (event_add(n->wd_ev, &tv))
		return -ENOMEM;
	log_info("watchdog: WATCHDOG=1 every %llu ms (WatchdogSec=%llu ms)",
		 (unsigned long long)usec / 2000, (unsigned long long)usec / 1000);
	watchdog_ping(d);
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
