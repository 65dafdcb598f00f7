// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the HTTP metrics server as a client reaches it. The
 * daemon's daemon/http.c runs on its own event base on 127.0.0.1 (an
 * ephemeral port); each input is sent on a fresh TCP connection, the write
 * side shut, and the loop run until the server has answered and closed (or
 * a bounded number of turns). The metrics renderers are stubs: what is
 * fuzzed is request parsing (libevent's evhttp, not instrumented for
 * coverage but under ASan's interceptors) and our routing, limits and
 * replies. Invariant: whatever arrives, any reply starts with a status line (evhttp echoes the
 * request's version, "HTTP/0.0" included).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <event2/event.h>
#include "../../../daemon/http.h"
#include "../../../daemon/metrics.h"
#include "../../../lib/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define TURNS	400

static struct tracerd daemon_;
static struct http_server *srv;
static struct sockaddr_in addr;

char *metrics_render_prometheus(struct tracerd *d, const struct metrics_http *http, size_t *len)
{
	static const char text[] = "# TYPE tracerd_up gauge\ntracerd_up 1\n";

	*len = sizeof(text) - 1;
	return strdup(text);
}

char *metrics_render_json(struct tracerd *d, const struct metrics_http *http, size_t offset,
			  size_t limit, size_t *len)
{
	static const char text[] = "{\"schema_version\":1}";

	*len = sizeof(text) - 1;
	return strdup(text);
}

/* the listening socket http_start() made: an AF_INET fd in listen state */
static int find_listener(void)
{
	socklen_t len;
	int fd, on;

	for (fd = 3; fd < 1024; fd++) {
		len = sizeof(on);
		if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) || !on)
			continue;
		len = sizeof(addr);
		if (!getsockname(fd, (struct sockaddr *)&addr, &len) && addr.sin_family == AF_INET)
			return 0;
	}
	return -1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	tlog_init("fuzz_http", TLOG_ERR);
	daemon_.base = event_base_new();
	if (!daemon_.base || http_start(&daemon_, "127.0.0.1:0", &srv) || !srv || find_listener())
		abort();
	return 0;
}

static void turn(void)
{
	event_base_loop(daemon_.base, EVLOOP_NONBLOCK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char reply[4096];
	size_t sent = 0, got = 0;
	bool eof = false;
	ssize_t n;
	int c, i;

	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0)
		abort();
	/* close with a reset: no TIME_WAIT piling up over millions of runs */
	setsockopt(c, SOL_SOCKET, SO_LINGER, &(struct linger){ 1, 0 }, sizeof(struct linger));
	if (connect(c, (struct sockaddr *)&addr, sizeof(addr))) {
		close(c);
		return 0;
	}
	for (i = 0; i < TURNS && sent < size; i++) {
		n = send(c, data + sent, size - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			sent += (size_t)n;
		else if (n < 0 && errno != EAGAIN)
			break;	/* the server closed early: fine */
		turn();
	}
	shutdown(c, SHUT_WR);
	for (i = 0; i < TURNS && !eof; i++) {
		turn();
		n = recv(c, reply + got, sizeof(reply) - got, MSG_DONTWAIT);
		if (n > 0) {
			got += (size_t)n;
			if (got == sizeof(reply))
				got = 16;	/* keep the start, drop the rest */
		} else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
			eof = true;
		}
	}
	if (getenv("FUZZ_HTTP_DEBUG"))
		fprintf(stderr, "turns %d eof %d got %zu: %.*s\n", i, eof, got, (int)(got > 200 ? 200 : got), reply);
	if (got >= 12 && strncmp(reply, "HTTP/", 5))
		abort();	/* something that is not an HTTP reply */
	close(c);
	for (i = 0; i < 4; i++)
		turn();	/* let the server see the close and free the connection */
	return 0;
}
