// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * HTTP metrics server on libevent's evhttp, in the daemon's one loop:
 * /metrics (Prometheus text), /metrics.json, /healthz; GET and HEAD only.
 * Limits (docs/metrics.md): headers <= 8 KiB, no body, read/write timeout
 * HTTP_TIMEOUT_S for idle and slow clients. Connections are bounded by
 * file descriptors: on each accept the daemon counts its open fds, and at
 * RLIMIT_NOFILE - HTTP_FD_RESERVE it stops accepting (new clients wait in
 * the backlog) and looks again every second; EMFILE/ENFILE pause it too.
 * The reserve keeps fds for the control socket and BPF objects. (libevent
 * 2.1 has no connection limit, and no callback when a server connection
 * closes, so the fd count is the measure.)
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include "../lib/log.h"
#include "service.h"

#define HTTP_FD_RESERVE		128
#define HTTP_TIMEOUT_S		10
#define HTTP_MAX_HEADERS	8192
#define HTTP_MAX_BODY		0
#define HTTP_MAX_INPUT		(64 * 1024)	/* unparsed request bytes buffered per connection */

struct http_server {
	struct tracerd *d;
	struct evhttp *http;
	struct evconnlistener *listener;
	struct event *resume;
	bool paused;
	unsigned int fd_limit;
	struct metrics_http st;
};

/* The listener's error callback gets evhttp's pointer, not ours: one server. */
static struct http_server *http_current;

static unsigned int open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	unsigned int n = 0;

	if (!dir)
		return 0;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n > 2 ? n - 3 : 0;	/* ".", "..", the directory's own fd */
}

const struct metrics_http *http_stats(struct http_server *h)
{
	h->st.open_fds = open_fds();
	return &h->st;
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

/* evhttp asks for a bufferevent per accepted connection: check the fd budget. */
static struct bufferevent *new_conn_bev(struct event_base *base, void *arg)
{
	struct http_server *h = arg;
	struct bufferevent *bev;

	if (open_fds() + 1 >= h->fd_limit)
		pause_accept(h, "file descriptor limit");
	bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	/* evhttp keeps reading pipelined requests while a reply waits for a
	 * peer that does not read it: cap the input (> HTTP_MAX_HEADERS, so
	 * one whole request always fits) to keep memory bounded */
	if (bev)
		bufferevent_setwatermark(bev, EV_READ, 0, HTTP_MAX_INPUT);
	return bev;
}

static void on_accept_error(struct evconnlistener *lev, void *arg)
{
	struct http_server *h = http_current;
	int err = EVUTIL_SOCKET_ERROR();

	if (h)
		pause_accept(h, strerror(err));
}

static void reply(struct evhttp_request *req, int code, const char *reason, const char *type,
		  const char *body, size_t len)
{
	struct evkeyvalq *hdr = evhttp_request_get_output_headers(req);
	struct evbuffer *buf = evbuffer_new();

	evhttp_add_header(hdr, "Content-Type", type);
	evhttp_add_header(hdr, "Cache-Control", "no-store");
	if (buf && body)
		evbuffer_add(buf, body, len);
	evhttp_send_reply(req, code, reason, buf);
	evbuffer_free(buf);
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct http_server *h = arg;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	json_object *o;
	size_t len;
	char *text;

	h->st.requests++;
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
		text = metrics_render_prometheus(h->d, &len);
		if (text)
			reply(req, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", text, len);
		else
			reply(req, 500, "Internal Server Error", "text/plain", "out of memory\n", 14);
		free(text);
	} else if (!strcmp(path, "/metrics.json")) {
		o = metrics_render_json(h->d);
		text = o ? (char *)json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								   JSON_C_TO_STRING_NOSLASHESCAPE) : NULL;
		if (text)
			reply(req, 200, "OK", "application/json", text, strlen(text));
		else
			reply(req, 500, "Internal Server Error", "text/plain", "out of memory\n", 14);
		json_object_put(o);
	} else if (!strcmp(path, "/healthz")) {
		reply(req, 200, "OK", "text/plain", "ok\n", 3);
	} else {
		h->st.not_found++;
		reply(req, 404, "Not Found", "text/plain", "not found: try /metrics, /metrics.json, /healthz\n", 49);
	}
}

/* "ADDR:PORT" / "[ADDR6]:PORT" -> host, port; logs when not loopback. */
static int parse_listen(const char *listen, char *host, size_t hostlen, unsigned short *port)
{
	const char *colon = strrchr(listen, ':');
	const char *h = listen;
	size_t n;
	unsigned char a[16];
	bool loop = false;

	if (!colon)
		return -EINVAL;
	n = (size_t)(colon - listen);
	if (listen[0] == '[') {
		h++;
		n -= 2;
	}
	if (n >= hostlen)
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	*port = (unsigned short)atoi(colon + 1);
	if (inet_pton(AF_INET, host, a) == 1)
		loop = a[0] == 127;
	else if (inet_pton(AF_INET6, host, a) == 1)
		loop = !memcmp(a, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16);
	else
		loop = !strcmp(host, "localhost");
	if (!loop)
		log_notice("http: metrics on non-loopback address %s: reachable beyond this host",
			   listen);
	return 0;
}

int http_start(struct tracerd *d, const char *listen, struct http_server **out)
{
	struct evhttp_bound_socket *bound;
	struct rlimit rl;
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
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		h->fd_limit = rl.rlim_cur > 65536 ? 65536 : (unsigned int)rl.rlim_cur;
	h->fd_limit = h->fd_limit > 2 * HTTP_FD_RESERVE ? h->fd_limit - HTTP_FD_RESERVE :
		      HTTP_FD_RESERVE;
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
	if (!h)
		return;
	if (http_current == h)
		http_current = NULL;
	if (h->http)
		evhttp_free(h->http);
	if (h->resume)
		event_free(h->resume);
	free(h);
}
