// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * HTTP metrics server on libevent's evhttp, in the daemon's one loop:
 * /metrics (Prometheus text), /metrics.json, /healthz; GET and HEAD only.
 * Limits (docs/metrics.md, docs/limits.md): headers <= 8 KiB, no body,
 * read/write timeout HTTP_TIMEOUT_S for idle and stalled clients. That
 * timeout restarts on every byte, so each connection also has deadlines
 * that do not: a whole request within HTTP_REQUEST_DEADLINE_S of the accept
 * (or of the end of the previous answer on a kept-alive connection), the
 * whole answer within HTTP_REPLY_DEADLINE_S of the request; past one, the
 * connection is closed and counted (tracerd_http_deadline_closes_total,
 * by deadline). Connections are bounded by file descriptors: on
 * each accept the daemon counts its open fds, and at RLIMIT_NOFILE -
 * FDS_RESERVE_HTTP (fds_http_limit, the HTTP part of the daemon's one fd
 * budget: fds.h) it stops accepting (new clients wait in the backlog) and
 * looks again every second; EMFILE/ENFILE pause it too. The reserve keeps
 * fds for the control socket and BPF objects. (libevent 2.1 has no
 * connection limit, so the fd count is the measure.)
 *
 * Scrapes share renders: /metrics and /metrics.json each keep their last
 * rendered body (struct snap) for HTTP_SNAPSHOT_MS (or until an attachment
 * comes or goes), and every request in that interval gets the same bytes,
 * by reference (evbuffer_add_reference), not a copy. A body lives until
 * the last reply carrying it is written or dropped; the bytes of all live
 * bodies are the bytes held for clients (tracerd_http_held_bytes;
 * d->http_held_bytes, over all servers). When a new render is due and
 * HTTP_HELD_MAX bytes are held already (clients that do not read), the
 * oldest connections with reply bytes still queued are closed until the held
 * bytes are under the cap (tracerd_http_held_closes_total): scrapers that
 * do read are served, the ones that do not lose their answers. The kernel's
 * share is bounded per connection: SO_SNDBUF HTTP_SNDBUF (the kernel
 * doubles it), so a body larger than that waits in the shared snap.
 *
 * A reply is written with reading off: a client that half-closes after its
 * request (HTTP/1.0 style) gets the whole reply before its EOF is seen.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include "fds.h"
#include "http.h"
#include "metrics.h"

#define HTTP_TIMEOUT_S		10
#define HTTP_REQUEST_DEADLINE_S	10	/* a whole request, from accept or the previous answer */
#define HTTP_REPLY_DEADLINE_S	60	/* a whole answer taken by the client, from its request */
#define HTTP_MAX_HEADERS	8192
/* a request body no handler reads: small ones reach on_request (a POST is
 * then told 405 with Allow, as without one), larger ones get 413 */
#define HTTP_MAX_BODY		1024
#define HTTP_MAX_INPUT		(64 * 1024)	/* unparsed request bytes buffered per connection */
#define HTTP_SNAPSHOT_MS	250	/* a rendered body is reused this long */
#define HTTP_HELD_MAX		(32u << 20)	/* bytes of rendered bodies held for clients */
#define HTTP_SNDBUF (64 * 1024) /* kernel send buffer per connection (no autotuning) */

/* a rendered body, shared by the replies that carry it (refs: the cache's
 * and one per evbuffer reference); freed with the last reference */
struct snap {
	unsigned int refs;
	size_t len;
	char *text;		/* malloc'd */
	size_t *held;		/* d->http_held_bytes: it counts len while the snap lives */
};

/* the bodies a server can serve, one cache slot each */
enum snap_kind {
	SNAP_PROMETHEUS,
	SNAP_JSON,
	SNAP_NR,
};

/* the deadline a connection's timer is armed for, once set up */
enum conn_deadline {
	DEADLINE_REQUEST,	/* HTTP_REQUEST_DEADLINE_S */
	DEADLINE_REPLY,		/* HTTP_REPLY_DEADLINE_S */
};

/*
 * One per accepted connection, for its deadline. Made in new_conn_bev,
 * before evhttp has its connection object; conn_setup, run from the loop
 * right after the accept, finds that object (the cbarg evhttp gives the
 * bufferevent; the cbarg is checked against the connection's own
 * bufferevent) and registers a close callback, which frees this. Until
 * then a reference on the bufferevent keeps it valid should evhttp drop it
 * first (only on its allocation failures). Looked up by fd (by_fd).
 */
struct http_conn {
	struct http_server *h;
	struct bufferevent *bev;		/* with our reference, until conn_setup */
	struct evhttp_connection *evcon;	/* set by conn_setup */
	struct event *timer;			/* conn_setup, then the deadline */
	enum conn_deadline deadline;		/* the one the timer is armed for */
	int fd;					/* index in by_fd once set up, else -1 */
	struct http_conn *prev, *next;
};

struct http_server {
	struct tracerd *d;
	struct evhttp *http;
	struct evconnlistener *listener;
	struct event *resume;
	bool paused;
	unsigned int fd_limit;
	struct metrics_http st;
	struct http_conn *conns;		/* all of them */
	struct http_conn **by_fd;		/* set-up ones, by fd */
	size_t n_by_fd;
	struct snap *cache[SNAP_NR];		/* the newest body of each kind */
	uint64_t cache_ns[SNAP_NR];		/* when it was rendered (monotonic) */
	uint64_t cache_set[SNAP_NR];		/* attachments_print() it was rendered with */
};

static void conn_free(struct http_conn *c);

/*
 * The server whose listener reported an accept error: http.c's one static
 * (not in struct tracerd), as libevent leaves no other way:
 * evconnlistener's error callback gets the listener's cbarg, which
 * evhttp_bind_socket sets to its struct evhttp (opaque, no user pointer),
 * not to ours. The newest server started is the one that listens for long
 * (a reload's move_listener stops the other at once).
 */
static struct http_server *http_current;

static unsigned int open_fds(void)
{
	long n = open_fd_count();

	return n > 0 ? (unsigned int)n : 0;
}

/* the server's counters, as metrics.c renders them */
static const struct metrics_http *server_stats(struct http_server *h)
{
	h->st.open_fds = open_fds();
	h->st.held_bytes = h->d->http_held_bytes;
	return &h->st;
}

static void snap_put(struct snap *s)
{
	if (!s || --s->refs)
		return;
	*s->held -= s->len;
	free(s->text);
	free(s);
}

/* evbuffer_add_reference's cleanup: a reply's reference is gone */
static void snap_unref(const void *data, size_t len, void *arg)
{
	snap_put(arg);
}

/* /metrics.json?offset=K&limit=L: the page of each attachment's functions (docs/metrics.md) */
struct json_page {
	size_t offset, limit;	/* limit 0: metrics_function_top */
};

static struct snap *snap_render(struct http_server *h, enum snap_kind kind,
				const struct json_page *pg)
{
	struct snap *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (kind == SNAP_PROMETHEUS)
		s->text = metrics_render_prometheus(h->d, server_stats(h), &s->len);
	else	/* valid UTF-8, one line */
		s->text = metrics_render_json(h->d, server_stats(h), pg ? pg->offset : 0,
					      pg ? pg->limit : 0, &s->len);
	if (!s->text) {
		free(s);
		return NULL;
	}
	s->refs = 1;
	s->held = &h->d->http_held_bytes;
	*s->held += s->len;
	h->st.renders[kind]++;
	return s;
}

/* The set of attachments (ids are never reused) and the configuration's
 * generation: a body rendered for another set or before a reload is stale
 * however young, e.g. just after a detach, or after bpf_stats went off. */
static uint64_t attachments_print(const struct tracerd *d)
{
	const struct attachment *a;
	uint64_t h = 14695981039346656037ull;	/* FNV-1a over the ids */

	for (a = d->attachments; a; a = a->next)
		h = (h ^ a->id) * 1099511628211ull;
	return (h ^ d->cfg_gen) * 1099511628211ull;
}

/* close a set-up connection now, without its close callback */
static void conn_close(struct http_conn *c)
{
	struct evhttp_connection *evcon = c->evcon;

	evhttp_connection_set_closecb(evcon, NULL, NULL);
	conn_free(c);
	evhttp_connection_free(evcon);
}

/*
 * HTTP_HELD_MAX bytes held: close the oldest connections that still have
 * reply bytes queued (clients that do not read) until under it. Their
 * output is drained first, so the snaps they hold go now (libevent frees a
 * closed connection's buffers later, from the loop). A snap shared by
 * several connections goes with the last of them.
 */
static void shed_stalled(struct http_server *h)
{
	struct http_conn *c, *prev;
	struct evbuffer *out;

	for (c = h->conns; c && c->next; c = c->next)
		;	/* the oldest: new ones go to the head */
	for (; c && h->d->http_held_bytes >= HTTP_HELD_MAX; c = prev) {
		prev = c->prev;
		out = c->evcon ? bufferevent_get_output(evhttp_connection_get_bufferevent(c->evcon))
			       : NULL;
		if (!out || !evbuffer_get_length(out))
			continue;
		/* a bufferevent's output is frozen at its start for users, as
		 * bufferevent_socket's own writer unfreezes it around a write */
		evbuffer_unfreeze(out, 1);
		evbuffer_drain(out, evbuffer_get_length(out));
		evbuffer_freeze(out, 1);
		h->st.held_closes++;
		log_debug("http: closing connection (fd %d): its unread reply holds memory", c->fd);
		conn_close(c);
	}
}

/*
 * The body to serve for kind: the cached one while it is fresh (younger
 * than HTTP_SNAPSHOT_MS, same attachments), else a new render, once the
 * held bytes are under HTTP_HELD_MAX. -ENOMEM when rendering fails.
 */
static int snap_get(struct http_server *h, enum snap_kind kind, struct snap **out)
{
	uint64_t now = now_mono_ns(), set = attachments_print(h->d);

	if (h->cache[kind] && now - h->cache_ns[kind] < HTTP_SNAPSHOT_MS * 1000000ull &&
	    set == h->cache_set[kind]) {
		*out = h->cache[kind];
		return 0;
	}
	snap_put(h->cache[kind]);
	h->cache[kind] = NULL;
	if (h->d->http_held_bytes >= HTTP_HELD_MAX)
		shed_stalled(h);
	h->cache[kind] = snap_render(h, kind, NULL);
	if (!h->cache[kind])
		return -ENOMEM;
	h->cache_ns[kind] = now;	/* one render per interval, from its start */
	h->cache_set[kind] = set;
	*out = h->cache[kind];
	return 0;
}

static void pause_accept(struct http_server *h, const char *why)
{
	struct timeval tv = { 1, 0 };

	if (!h->paused) {
		log_warn("http: not accepting connections for now: %s", why);
		h->st.accept_paused++;
	}
	h->paused = true;
	evconnlistener_disable(h->listener);
	event_add(h->resume, &tv);
}

static void on_resume(evutil_socket_t fd, short what, void *arg)
{
	struct http_server *h = arg;

	if (open_fds() >= h->fd_limit) {
		pause_accept(h, "file descriptor limit");
		return;
	}
	h->paused = false;
	evconnlistener_enable(h->listener);
	log_info("http: accepting connections again");
}

static void conn_free(struct http_conn *c)
{
	struct http_server *h = c->h;

	if (c->prev)
		c->prev->next = c->next;
	else
		h->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (c->fd >= 0 && (size_t)c->fd < h->n_by_fd && h->by_fd[c->fd] == c)
		h->by_fd[c->fd] = NULL;
	event_free(c->timer);
	if (c->bev)
		bufferevent_decref(c->bev);
	free(c);
}

static void conn_arm(struct http_conn *c, enum conn_deadline deadline)
{
	struct timeval tv = {
		deadline == DEADLINE_REPLY ? HTTP_REPLY_DEADLINE_S : HTTP_REQUEST_DEADLINE_S, 0
	};

	c->deadline = deadline;
	event_add(c->timer, &tv);
}

/* evhttp is freeing the connection (closecb) */
static void on_conn_close(struct evhttp_connection *evcon, void *arg)
{
	conn_free(arg);
}

static int by_fd_put(struct http_server *h, int fd, struct http_conn *c)
{
	struct http_conn **t;
	size_t n;

	if ((size_t)fd >= h->n_by_fd) {
		n = h->n_by_fd ? h->n_by_fd : 256;
		while (n <= (size_t)fd)
			n *= 2;
		t = realloc(h->by_fd, n * sizeof(*t));
		if (!t)
			return -ENOMEM;
		memset(t + h->n_by_fd, 0, (n - h->n_by_fd) * sizeof(*t));
		h->by_fd = t;
		h->n_by_fd = n;
	}
	h->by_fd[fd] = c;
	return 0;
}

/* The accept is done: evhttp has made its connection object. */
static void conn_setup(struct http_conn *c)
{
	bufferevent_event_cb eventcb;
	void *cbarg;
	struct evhttp_connection *evcon;
	int fd = bufferevent_getfd(c->bev);

	bufferevent_getcb(c->bev, NULL, NULL, &eventcb, &cbarg);
	evcon = cbarg;
	/* no callbacks: evhttp has already let go of this bufferevent */
	if (!eventcb || !evcon || fd < 0 || evhttp_connection_get_bufferevent(evcon) != c->bev ||
	    by_fd_put(c->h, fd, c)) {
		conn_free(c);
		return;
	}
	c->evcon = evcon;
	c->fd = fd;
	/* what the kernel holds for a client that does not read: without this,
	 * autotuning lets every connection pin up to tcp_wmem's 4 MB */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &(int){ HTTP_SNDBUF }, sizeof(int)))
		log_debug("http: SO_SNDBUF on fd %d: %s", fd, strerror(errno));
	evhttp_connection_set_closecb(evcon, on_conn_close, c);
	bufferevent_decref(c->bev);	/* evhttp holds it until on_conn_close */
	c->bev = NULL;
	conn_arm(c, DEADLINE_REQUEST);
}

static void on_conn_timer(evutil_socket_t fd, short what, void *arg)
{
	struct http_conn *c = arg;
	struct evhttp_connection *evcon = c->evcon;

	if (!evcon) {
		conn_setup(c);
		return;
	}
	if (c->deadline == DEADLINE_REPLY)
		c->h->st.reply_deadline_closes++;
	else
		c->h->st.request_deadline_closes++;
	log_debug("http: closing connection (fd %d): past its %s deadline", c->fd,
		  c->deadline == DEADLINE_REPLY ? "reply" : "request");
	conn_close(c);
}

/* the answer to a request has been written: the next request's deadline */
static void on_reply_sent(struct evhttp_request *req, void *arg)
{
	conn_arm(arg, DEADLINE_REQUEST);
}

/* A request is in: its answer gets HTTP_REPLY_DEADLINE_S, then (once
 * written, on a kept-alive connection) the next request its own deadline. */
static void conn_request(struct http_server *h, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	int fd = bev ? bufferevent_getfd(bev) : -1;
	struct http_conn *c;

	if (fd < 0 || (size_t)fd >= h->n_by_fd)
		return;
	c = h->by_fd[fd];
	if (!c || c->evcon != evcon)
		return;
	conn_arm(c, DEADLINE_REPLY);
	evhttp_request_set_on_complete_cb(req, on_reply_sent, c);
}

/*
 * evhttp asks for a bufferevent per accepted connection: check the fd
 * budget, and start the connection's deadline (conn_setup first, once
 * evhttp has set the connection up: the timer is made active now).
 */
static struct bufferevent *new_conn_bev(struct event_base *base, void *arg)
{
	struct http_server *h = arg;
	struct bufferevent *bev;
	struct http_conn *c;

	if (open_fds() + 1 >= h->fd_limit)
		pause_accept(h, "file descriptor limit");
	bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!bev)
		return NULL;
	/* evhttp keeps reading pipelined requests while a reply waits for a
	 * peer that does not read it: cap the input (> HTTP_MAX_HEADERS, so
	 * one whole request always fits) to keep memory bounded */
	bufferevent_setwatermark(bev, EV_READ, 0, HTTP_MAX_INPUT);
	c = calloc(1, sizeof(*c));
	if (c)
		c->timer = evtimer_new(base, on_conn_timer, c);
	if (!c || !c->timer) {
		log_warn("http: out of memory: a connection without deadline");
		free(c);
		return bev;
	}
	c->h = h;
	c->bev = bev;
	c->fd = -1;
	bufferevent_incref(bev);
	c->next = h->conns;
	if (h->conns)
		h->conns->prev = c;
	h->conns = c;
	event_active(c->timer, EV_TIMEOUT, 1);
	return bev;
}

static void on_accept_error(struct evconnlistener *lev, void *arg)
{
	struct http_server *h = http_current;
	int err = EVUTIL_SOCKET_ERROR();

	if (h)
		pause_accept(h, strerror(err));
}

/*
 * Send a reply; the body is a snap (by reference) or a copy of body. Reading
 * stays off until it is written: evhttp would take a half-close (EOF after
 * the request) for a failed connection and drop the unsent tail. evhttp
 * reads again (keep-alive) or closes once the reply is out.
 */
static void reply_with(struct evhttp_request *req, int code, const char *reason,
		       const char *type, const char *body, size_t len, struct snap *snap)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct evkeyvalq *hdr = evhttp_request_get_output_headers(req);
	struct evbuffer *buf = evbuffer_new();

	evhttp_add_header(hdr, "Content-Type", type);
	evhttp_add_header(hdr, "Cache-Control", "no-store");
	if (snap) {
		body = snap->text;
		len = snap->len;
	}
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		/* the length GET would send, and no body: libevent writes whatever
		 * the buffer holds, HEAD or not, and a keep-alive client would
		 * read it as the next response */
		char n[32];

		snprintf(n, sizeof(n), "%zu", len);
		evhttp_add_header(hdr, "Content-Length", n);
		body = NULL;
		snap = NULL;
	}
	if (buf && snap && !evbuffer_add_reference(buf, body, len, snap_unref, snap))
		snap->refs++;
	else if (buf && body)
		evbuffer_add(buf, body, len);	/* a copy, when no reference could be made */
	evhttp_send_reply(req, code, reason, buf);
	evbuffer_free(buf);
	if (evcon)
		bufferevent_disable(evhttp_connection_get_bufferevent(evcon), EV_READ);
}

static void reply(struct evhttp_request *req, int code, const char *reason, const char *type,
		  const char *body, size_t len)
{
	reply_with(req, code, reason, type, body, len, NULL);
}

static const char *const snap_types[SNAP_NR] = {
	[SNAP_PROMETHEUS] = "text/plain; version=0.0.4; charset=utf-8",
	[SNAP_JSON] = "application/json",
};

static void reply_snap(struct http_server *h, struct evhttp_request *req, enum snap_kind kind)
{
	struct snap *s;
	int err = snap_get(h, kind, &s);

	if (err) {
		reply(req, 500, "Internal Server Error", "text/plain", "out of memory\n", 14);
	} else {
		reply_with(req, 200, "OK", snap_types[kind], NULL, 0, s);
	}
}

/* "offset=K&limit=L" (either, any order, once each): 0, or -EINVAL */
static int json_page_parse(const char *query, struct json_page *pg)
{
	struct evkeyvalq q;
	struct evkeyval *kv;
	unsigned long long v;
	int err = 0, seen = 0;

	memset(pg, 0, sizeof(*pg));
	TAILQ_INIT(&q);
	if (evhttp_parse_query_str(query, &q))
		return -EINVAL;
	TAILQ_FOREACH(kv, &q, next) {
		int bit = !strcmp(kv->key, "offset") ? 1 : !strcmp(kv->key, "limit") ? 2 : 0;
		unsigned long long max = bit == 2 ? METRICS_FUNCTION_TOP_LIMIT : INT32_MAX;

		if (!bit || (seen & bit) || parse_dec(kv->value, bit == 2, max, &v, NULL, 0)) {
			err = -EINVAL;
			break;
		}
		seen |= bit;
		*(bit == 1 ? &pg->offset : &pg->limit) = (size_t)v;
	}
	evhttp_clear_headers(&q);
	return err;
}

/*
 * /metrics.json with a query: a page of each attachment's functions,
 * rendered for this request alone (the cache holds the default page).
 */
static void reply_json_page(struct http_server *h, struct evhttp_request *req, const char *query)
{
	static const char bad[] =
		"bad query: offset=K (0 to 2147483647) and limit=L (1 to 100000) only\n";
	struct json_page pg;
	struct snap *s;

	if (json_page_parse(query, &pg)) {
		h->st.bad_requests++;
		reply(req, 400, "Bad Request", "text/plain", bad, sizeof(bad) - 1);
		return;
	}
	if (h->d->http_held_bytes >= HTTP_HELD_MAX)
		shed_stalled(h);
	s = snap_render(h, SNAP_JSON, &pg);
	if (!s) {
		reply(req, 500, "Internal Server Error", "text/plain", "out of memory\n", 14);
		return;
	}
	reply_with(req, 200, "OK", snap_types[SNAP_JSON], NULL, 0, s);
	snap_put(s);	/* the reply holds its own reference */
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct http_server *h = arg;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL, *query;

	h->st.requests++;
	conn_request(h, req);
	if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD) {
		h->st.bad_method++;
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, HEAD");
		reply(req, 405, "Method Not Allowed", "text/plain", "method not allowed\n", 19);
		return;
	}
	if (!path) {
		h->st.bad_requests++;
		reply(req, 400, "Bad Request", "text/plain", "bad request\n", 12);
	} else if (!strcmp(path, "/metrics")) {
		reply_snap(h, req, SNAP_PROMETHEUS);
	} else if (!strcmp(path, "/metrics.json")) {
		query = evhttp_uri_get_query(uri);
		if (query && query[0])
			reply_json_page(h, req, query);
		else
			reply_snap(h, req, SNAP_JSON);
	} else if (!strcmp(path, "/healthz")) {
		reply(req, 200, "OK", "text/plain", "ok\n", 3);
	} else {
		h->st.not_found++;
		reply(req, 404, "Not Found", "text/plain",
		      "not found: try /metrics, /metrics.json, /healthz\n", 49);
	}
}

/* "ADDR:PORT" / "[ADDR6]:PORT" -> host, port (lib/util.h, listen_parse); logs when not loopback. */
static int parse_listen(const char *listen, char *host, size_t hostlen, unsigned short *port)
{
	struct listen_addr a;

	/* 0: an ephemeral port, for the fuzzer; the config refuses it (lib/config.c) */
	if (listen_parse(listen, 0, &a, NULL, 0) || a.off || str_copy(host, a.host, hostlen))
		return -EINVAL;
	*port = a.port;
	if (!a.loopback)
		log_notice("http: metrics on non-loopback address %s: reachable beyond this host",
			   listen);
	return 0;
}

int http_start(struct tracerd *d, const char *listen, struct http_server **out)
{
	struct evhttp_bound_socket *bound;
	struct http_server *h;
	unsigned short port;
	char host[128];
	int err;

	*out = NULL;
	if (!strcmp(listen, "off")) {
		log_info("http: metrics server off");
		return 0;
	}
	if (parse_listen(listen, host, sizeof(host), &port)) {
		log_err("http: bad listen address '%s'", listen);
		return -EINVAL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->d = d;
	h->fd_limit = fds_http_limit();
	h->http = evhttp_new(d->base);
	h->resume = evtimer_new(d->base, on_resume, h);
	if (!h->http || !h->resume) {
		err = -ENOMEM;
		goto cleanup;
	}
	evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_POST |
				   EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS |
				   EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
	evhttp_set_max_headers_size(h->http, HTTP_MAX_HEADERS);
	evhttp_set_max_body_size(h->http, HTTP_MAX_BODY);
	evhttp_set_timeout(h->http, HTTP_TIMEOUT_S);
	evhttp_set_bevcb(h->http, new_conn_bev, h);
	evhttp_set_gencb(h->http, on_request, h);
	bound = evhttp_bind_socket_with_handle(h->http, host, port);
	if (!bound) {
		err = errno ? -errno : -EADDRNOTAVAIL;
		log_err("http: cannot listen on %s: %s", listen, strerror(-err));
		goto cleanup;
	}
	h->listener = evhttp_bound_socket_get_listener(bound);
	evconnlistener_set_error_cb(h->listener, on_accept_error);
	http_current = h;
	log_notice("http: metrics on http://%s/metrics", listen);
	*out = h;
	return 0;
cleanup:
	http_stop(h);
	return err;
}

void http_stop(struct http_server *h)
{
	size_t i;

	if (!h)
		return;
	if (http_current == h)
		http_current = NULL;
	if (h->http)
		evhttp_free(h->http);	/* on_conn_close frees the set-up conns */
	while (h->conns)
		conn_free(h->conns);
	for (i = 0; i < SNAP_NR; i++)
		snap_put(h->cache[i]);
	free(h->by_fd);
	if (h->resume)
		event_free(h->resume);
	free(h);
}
