// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Control socket server; see control.h and docs/protocol.md.
 * Hygiene as in tmux's server.c: refuse to start over a live socket,
 * unlink a stale one (and nothing else), the socket file made with its
 * final owner and mode (control_bind), non-blocking fds, back off on
 * EMFILE, bounded clients and request sizes, idle timeouts. A client that
 * half-closes after its requests still gets every reply in full.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include "../lib/log.h"
#include "../lib/proto.h"
#include "../lib/util.h"
#include "control.h"

#define CONTROL_MAX_CLIENTS	256	/* root is not refused by this cap */
#define CONTROL_MAX_PER_UID	32	/* connections per non-root uid */
#define CONTROL_MAX_PENDING	(1024 * 1024)	/* unsent reply bytes before we stop reading */
#define CONTROL_IDLE_S		60
#define CONTROL_MAX_GROUPS	256
#define CONTROL_STREAMS_MAX	16	/* replies streamed at once (control_stream) */
#define CONTROL_STREAM_BUDGET_NS	(10ULL * 1000 * 1000)	/* per loop turn, all streams */
/* a reply this long freed a JSON tree of as many bytes and more: give them back (client_send) */
#define CONTROL_TRIM_BYTES	(64 * 1024)

struct client {
	struct control *ctl;
	struct bufferevent *bev;
	struct client *next;
	uid_t uid;
	pid_t pid;
	bool can_read, can_admin;
	bool closing;	/* close once the output is flushed */
	bool eof;	/* the peer shut down its side: answer what it sent, then close */
	bool grace;	/* an idle timeout was forgiven: a reply was still queued */
	struct control_wait *waits;	/* replies still to come (control_wait) */
	struct control_stream *stream;	/* the reply being streamed, if any */
};

/* A reply written in pieces (control_stream); on ctl->streams, oldest first. */
struct control_stream {
	struct client *c;
	const struct control_stream_ops *ops;
	void *ctx;
	struct control_stream *next;
};

/* A reply that comes later (control_wait); c NULL once the client is gone. */
struct control_wait {
	struct client *c;
	json_object *id;
	struct control_wait *next;
};

struct control {
	struct tracerd *d;
	const struct command *commands;	/* main's table (commands.c): control calls none by name */
	struct evconnlistener *listener;
	struct event *backoff;
	struct client *clients;
	unsigned int nr_clients;
	bool refusing;	/* a refusal was logged; quiet until a client leaves */
	struct client *current;		/* the client whose request runs, */
	json_object *current_id;	/* and its id (control_wait) */
	bool deferred;			/* the running command answers later */
	struct control_stream *streams;	/* in the order they get their next step */
	unsigned int nr_streams;
	struct event *stream_step;
	struct event *trim;		/* heap_release's, at the end of this loop turn */
	gid_t read_gid, admin_gid;	/* (gid_t)-1: not configured */
	char path[TRACERD_SOCKET_PATH_MAX];
	dev_t dev;	/* the socket file we made: unlinked at stop only if */
	ino_t ino;	/* the path still names it */
};

/* Off ctl->streams (not on it: nothing). */
static void stream_unlink(struct control *ctl, struct control_stream *s)
{
	struct control_stream **pp;

	for (pp = &ctl->streams; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			s->next = NULL;
			return;
		}
	}
}

static void stream_append(struct control *ctl, struct control_stream *s)
{
	struct control_stream **pp;

	for (pp = &ctl->streams; *pp; pp = &(*pp)->next)
		;
	*pp = s;
	s->next = NULL;
}

/* Run cb(arg) when this loop turn ends, once however often asked: *ev made on first use. */
static void control_soon(struct control *ctl, struct event **ev, event_callback_fn cb, void *arg)
{
	static const struct timeval now = { 0, 0 };

	if (!*ev)
		*ev = evtimer_new(ctl->d->base, cb, arg);
	if (*ev && !evtimer_pending(*ev, NULL))
		evtimer_add(*ev, &now);
}

static void heap_trim_cb(evutil_socket_t fd, short what, void *arg)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/*
 * A long reply was made, and its memory is freed: small blocks of the
 * heap (attach '*''s reply: a JSON string per function, ~110 B each)
 * under blocks that live on. glibc trims the heap's top only, so they
 * stayed resident (4.7 MB of VmRSS after attach '*', tests/vm/guest/t/55).
 * malloc_trim gives back the free pages wherever they are, once what the
 * request still holds is freed too (the attach's skipped list): when the
 * loop turn ends.
 */
static void heap_release(struct control *ctl)
{
	control_soon(ctl, &ctl->trim, heap_trim_cb, NULL);
}

static void stream_free(struct control *ctl, struct control_stream *s)
{
	stream_unlink(ctl, s);
	ctl->nr_streams--;
	s->c->stream = NULL;
	s->ops->free(s->ctx);
	free(s);
	heap_release(ctl);	/* a stream is a long reply (the rows of stats, functions) */
}

static void client_free(struct client *c)
{
	struct control *ctl = c->ctl;
	struct client **pp;

	for (pp = &ctl->clients; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	ctl->nr_clients--;
	ctl->refusing = false;
	if (c->stream)
		stream_free(ctl, c->stream);
	for (; c->waits; c->waits = c->waits->next)
		c->waits->c = NULL;	/* answered into the void, freed then */
	bufferevent_free(c->bev);
	free(c);
}

static void client_rearm(struct client *c);

static void client_send(struct client *c, json_object *reply)
{
	size_t len;
	char *s = proto_serialize(reply, &len);

	if (s)
		bufferevent_write(c->bev, s, len);
	free(s);
	json_object_put(reply);
	if (s && len >= CONTROL_TRIM_BYTES)
		heap_release(c->ctl);
}

static const struct command *command_find(const struct control *ctl, const char *name)
{
	const struct command *cmd;

	for (cmd = ctl->commands; cmd->name; cmd++)
		if (!strcmp(cmd->name, name))
			return cmd;
	return NULL;
}

static void client_handle(struct client *c, const char *line, size_t len)
{
	struct tracerd *d = c->ctl->d;
	const struct command *cmd;
	struct proto_request req;
	json_object *result = NULL, *reply;
	enum proto_code code;
	char msg[2048] = "";

	code = proto_parse_request(line, len, &req, msg, sizeof(msg));
	if (code) {
		reply = proto_reply_error(req.id, code, "%s", msg);
		json_object_put(req.id);
		client_send(c, reply);
		return;
	}
	cmd = command_find(c->ctl, req.cmd);
	if (!cmd) {
		reply = proto_reply_error(req.id, PROTO_E_UNKNOWN_COMMAND, "unknown command '%s'",
					  req.cmd);
	} else if (!(cmd->mutate ? c->can_admin : c->can_read)) {
		reply = proto_reply_error(req.id, PROTO_E_PERMISSION, "uid %u may not run '%s': %s",
					  (unsigned int)c->uid, cmd->name,
					  cmd->mutate ? "needs root or admin_group"
						      : "needs root, read_group or admin_group");
		log_info("refused '%s' from uid %u pid %d", cmd->name, (unsigned int)c->uid,
			 c->pid);
	} else {
		c->ctl->current = c;
		c->ctl->current_id = req.id;
		c->ctl->deferred = false;
		code = cmd->fn(d, req.args, &result, msg, sizeof(msg));
		c->ctl->current = NULL;
		if (c->ctl->deferred) {
			proto_request_free(&req);
			return;
		}
		if (code)
			reply = proto_reply_error(req.id, code, "%s", msg);
		else
			reply = proto_reply_ok(req.id, result);
	}
	client_send(c, reply);
	proto_request_free(&req);
}

/* Closing, everything sent and nothing more to come: the client can go. */
static bool client_finished(struct client *c)
{
	return c->closing && !c->waits && !c->stream &&
	       !evbuffer_get_length(bufferevent_get_output(c->bev));
}

struct control_wait *control_wait(struct tracerd *d)
{
	struct control *ctl = d->ctl;
	struct control_wait *w;

	if (!ctl || !ctl->current)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->c = ctl->current;
	w->id = ctl->current_id ? json_object_get(ctl->current_id) : NULL;
	w->next = w->c->waits;
	w->c->waits = w;
	ctl->deferred = true;
	/* no idle timeout while the daemon, not the client, is slow */
	bufferevent_set_timeouts(w->c->bev, NULL, NULL);
	return w;
}

void control_answer(struct control_wait *w, enum proto_code code, json_object *result,
		    const char *msg)
{
	struct client *c = w->c;
	struct control_wait **pp;

	if (c) {
		for (pp = &c->waits; *pp != w; pp = &(*pp)->next)
			;
		*pp = w->next;
		client_send(c, code ? proto_reply_error(w->id, code, "%s", msg) :
			    proto_reply_ok(w->id, result));
		result = NULL;
		if (!c->waits)
			client_rearm(c);
	}
	json_object_put(result);
	json_object_put(w->id);
	free(w);
	if (c && client_finished(c))
		client_free(c);
}

/*
 * A command may run long (a kmod benchmark ioctl: minutes under TCG), and
 * libevent's idle timers count from the time cached before it: restart
 * them from now, or the client would be dropped as idle just before its
 * reply is sent.
 */
static void client_rearm(struct client *c)
{
	struct timeval idle = { CONTROL_IDLE_S, 0 };

	if (c->closing || c->waits || c->stream)
		return;
	event_base_update_cache_time(bufferevent_get_base(c->bev));
	bufferevent_set_timeouts(c->bev, &idle, &idle);
}

/* After the peer's EOF: a last request without its newline, then close. */
static void client_last_line(struct client *c, struct evbuffer *in, size_t len)
{
	char *line = len ? malloc(len + 1) : NULL;

	if (line && evbuffer_remove(in, line, len) == (int)len) {
		line[len] = '\0';
		client_handle(c, line, len);
	}
	free(line);
	c->closing = true;
}

static void client_read(struct bufferevent *bev, void *arg)
{
	struct client *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer_ptr eol;
	size_t len;
	char *line;

	while (!c->closing && !c->stream) {	/* one streamed reply at a time */
		/* a peer that sends requests but does not read the replies: stop
		 * reading until it does (client_write resumes), memory stays bounded */
		if (evbuffer_get_length(bufferevent_get_output(bev)) > CONTROL_MAX_PENDING) {
			bufferevent_disable(bev, EV_READ);
			return;
		}
		eol = evbuffer_search_eol(in, NULL, NULL, EVBUFFER_EOL_LF);
		if (eol.pos < 0) {
			len = evbuffer_get_length(in);
			if (len < TRACERD_PROTO_MAX_REQUEST) {
				if (c->eof)
					client_last_line(c, in, len);
				return;
			}
		} else {
			len = (size_t)eol.pos;
		}
		if (len >= TRACERD_PROTO_MAX_REQUEST) {
			client_send(c, proto_reply_error(NULL, PROTO_E_TOO_LARGE,
				"request line exceeds %d bytes; closing the connection",
				TRACERD_PROTO_MAX_REQUEST - 1));
			c->closing = true;
			bufferevent_disable(bev, EV_READ);
			evbuffer_drain(in, evbuffer_get_length(in));
			return;
		}
		line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF);
		if (!line)
			return;
		client_handle(c, line, len);
		free(line);
		client_rearm(c);
	}
}

static void streams_step(evutil_socket_t fd, short what, void *arg);

static void streams_schedule(struct control *ctl)
{
	control_soon(ctl, &ctl->stream_step, streams_step, ctl);
}

/* Its client has more unsent than a reader takes at once: wait for client_write. */
static bool stream_full(const struct control_stream *s)
{
	return evbuffer_get_length(bufferevent_get_output(s->c->bev)) > CONTROL_MAX_PENDING / 2;
}

/* The stream's last piece is queued (or it gave up, err): the client reads requests again. */
static void stream_end(struct control *ctl, struct control_stream *s, int err)
{
	struct client *c = s->c;

	stream_free(ctl, s);
	if (err) {
		log_warn("control: a reply to uid %u pid %d cut short: %s", (unsigned int)c->uid,
			 c->pid, strerror(-err));
		client_free(c);
		return;
	}
	client_rearm(c);
	if (!c->eof)
		bufferevent_enable(c->bev, EV_READ);
	client_read(c->bev, c);	/* requests that came meanwhile */
	if (client_finished(c))
		client_free(c);
}

/* The next streams, round robin, one step each while the turn's budget lasts. */
static void streams_step(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;
	uint64_t end = now_mono_ns() + CONTROL_STREAM_BUDGET_NS;
	struct control_stream *s;
	int ret;

	do {
		for (s = ctl->streams; s && stream_full(s); s = s->next)
			;
		if (!s)
			return;	/* all wait for their clients (client_write) */
		stream_unlink(ctl, s);	/* to the back of the queue */
		ret = s->ops->step(ctl->d, s->ctx, bufferevent_get_output(s->c->bev));
		if (ret <= 0) {
			stream_end(ctl, s, ret);
			continue;
		}
		stream_append(ctl, s);
	} while (now_mono_ns() < end);
	streams_schedule(ctl);
}

int control_stream(struct tracerd *d, const char *key, const struct control_stream_ops *ops,
		   void *ctx, char *msg, size_t msglen)
{
	struct timeval idle = { CONTROL_IDLE_S, 0 };
	struct control *ctl = d->ctl;
	struct client *c = ctl ? ctl->current : NULL;
	struct control_stream *s;
	size_t len;
	char *head;

	if (!c)
		return set_err(msg, msglen, -EINVAL, "no client to stream to");
	if (ctl->nr_streams >= CONTROL_STREAMS_MAX)
		return set_err(msg, msglen, -EBUSY, "busy: %u long replies are being sent (at most "
			       "%d at once); try again when one is done", ctl->nr_streams,
			       CONTROL_STREAMS_MAX);
	s = calloc(1, sizeof(*s));
	head = s ? proto_stream_head(ctl->current_id, key, &len) : NULL;
	if (!head || bufferevent_write(c->bev, head, len)) {
		free(head);
		free(s);
		return set_err(msg, msglen, -ENOMEM, "out of memory");
	}
	free(head);
	s->c = c;
	s->ops = ops;
	s->ctx = ctx;
	stream_append(ctl, s);
	ctl->nr_streams++;
	c->stream = s;
	ctl->deferred = true;
	/* its next requests wait in the socket; a client that does not read
	 * is still dropped by the write timeout */
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_set_timeouts(c->bev, NULL, &idle);
	streams_schedule(ctl);
	return 0;
}

static void client_write(struct bufferevent *bev, void *arg)
{
	struct client *c = arg;

	c->grace = false;	/* the output went out */
	if (c->stream) {
		streams_schedule(c->ctl);	/* room for its next pieces */
		return;
	}
	if (!c->closing && !(bufferevent_get_enabled(bev) & EV_READ)) {
		if (!c->eof)
			bufferevent_enable(bev, EV_READ);
		client_read(bev, c);	/* lines already buffered */
	}
	if (client_finished(c))
		client_free(c);
}

static unsigned int uid_clients(struct control *ctl, uid_t uid)
{
	struct client *c;
	unsigned int n = 0;

	for (c = ctl->clients; c; c = c->next)
		n += c->uid == uid;
	return n;
}

/* Refuse a connection; log the first refusal of a run only. */
static void control_refuse(struct control *ctl, struct client *c, int fd, const char *why)
{
	json_object *r = proto_reply_error(NULL, PROTO_E_LIMIT, "connection refused: %s (at "
					   "most %d per non-root uid, %d in all): close some of them, "
					   "or wait", why, CONTROL_MAX_PER_UID, CONTROL_MAX_CLIENTS);
	const char *line = r ? json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN) : NULL;
	struct iovec iov[2] = { { (void *)line, line ? strlen(line) : 0 }, { "\n", 1 } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	/* the reason, one line into the fresh socket's empty send buffer (never
	 * blocks: MSG_DONTWAIT): the client reads it even after the close,
	 * instead of a bare "Broken pipe" */
	if (line && sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_debug("control: refusal not sent: %s", strerror(errno));
	json_object_put(r);
	if (!ctl->refusing)
		log_warn("refusing control clients: %s (uid %u pid %d)", why,
			 (unsigned int)c->uid, c->pid);
	ctl->refusing = true;
	free(c);
	close(fd);
}

/*
 * EOF is the peer's shutdown(SHUT_WR) as much as a hang-up: answer the
 * requests it sent (a last one may lack its newline) and close once the
 * replies are flushed; a peer that is really gone makes the write fail.
 */
static void client_event(struct bufferevent *bev, short what, void *arg)
{
	struct client *c = arg;

	if ((what & BEV_EVENT_EOF) && !(what & (BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))) {
		c->eof = true;
		bufferevent_disable(bev, EV_READ);
		client_read(bev, c);
		if (client_finished(c))
			client_free(c);
		return;
	}
	/*
	 * A timeout with a reply still queued may be the daemon's doing, not the
	 * client's: a long call (a kmod batch ioctl detaching 1000 kprobes,
	 * minutes under TCG) held the loop after the reply was queued, and the
	 * timers ran out before the write could happen. One more period to
	 * take it; a client that really does not read is dropped after that.
	 */
	if ((what & BEV_EVENT_TIMEOUT) && !(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) &&
	    !c->grace && evbuffer_get_length(bufferevent_get_output(bev))) {
		c->grace = true;
		client_rearm(c);
		bufferevent_enable(bev, c->eof || c->stream ? EV_WRITE : EV_READ | EV_WRITE);
		return;
	}
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
		client_free(c);
}

static bool in_groups(gid_t g, gid_t pgid, const gid_t *groups, int n)
{
	int i;

	if (g == (gid_t)-1)
		return false;
	if (g == pgid)
		return true;
	for (i = 0; i < n; i++)
		if (groups[i] == g)
			return true;
	return false;
}

/* Peer credentials decide what the client may do. */
static int client_creds(struct control *ctl, struct client *c, int fd)
{
	gid_t groups[CONTROL_MAX_GROUPS];
	socklen_t len = sizeof(struct ucred);
	struct ucred cr;
	int n = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return -errno;
	len = sizeof(groups);
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len))
		n = (int)(len / sizeof(gid_t));
	c->uid = cr.uid;
	c->pid = cr.pid;
	c->can_admin = cr.uid == 0 || in_groups(ctl->admin_gid, cr.gid, groups, n);
	c->can_read = c->can_admin || in_groups(ctl->read_gid, cr.gid, groups, n);
	return 0;
}

static void control_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
			   int socklen, void *arg)
{
	struct timeval idle = { CONTROL_IDLE_S, 0 };
	struct control *ctl = arg;
	struct client *c;

	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	c->ctl = ctl;
	if (client_creds(ctl, c, fd)) {
		log_warn("cannot read peer credentials: %s", strerror(errno));
		free(c);
		close(fd);
		return;
	}
	if (c->uid && ctl->nr_clients >= CONTROL_MAX_CLIENTS) {
		control_refuse(ctl, c, fd, "too many clients");
		return;
	}
	if (c->uid && uid_clients(ctl, c->uid) >= CONTROL_MAX_PER_UID) {
		control_refuse(ctl, c, fd, "too many connections from one uid");
		return;
	}
	c->bev = bufferevent_socket_new(ctl->d->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev) {
		free(c);
		close(fd);
		return;
	}
	c->next = ctl->clients;
	ctl->clients = c;
	ctl->nr_clients++;
	bufferevent_setcb(c->bev, client_read, client_write, client_event, c);
	bufferevent_set_timeouts(c->bev, &idle, &idle);
	bufferevent_setwatermark(c->bev, EV_WRITE, CONTROL_MAX_PENDING / 2, 0);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
}

static void control_resume(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;

	evconnlistener_enable(ctl->listener);
}

/* accept() failed (EMFILE and friends): stop accepting for a second. */
static void control_accept_error(struct evconnlistener *l, void *arg)
{
	struct control *ctl = arg;
	struct timeval tv = { 1, 0 };

	log_warn("control socket accept failed: %s; pausing 1s", strerror(errno));
	evconnlistener_disable(l);
	evtimer_add(ctl->backoff, &tv);
}

static const char *file_kind(mode_t m)
{
	return S_ISREG(m)    ? "a regular file"
	       : S_ISDIR(m)  ? "a directory"
	       : S_ISLNK(m)  ? "a symlink"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISSOCK(m) ? "a socket"
			     : "a device";
}

/*
 * Make the path free for our socket: nothing there, or a stale socket (one
 * nobody listens on: connect() gets ECONNREFUSED), which is removed.
 * Anything else (a file, FIFO, directory, symlink, a socket a daemon
 * listens on, or one we cannot tell) is an error and left untouched.
 */
static int path_clear(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat sb;
	int fd, err;

	if (lstat(path, &sb))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(sb.st_mode)) {
		log_err("'%s' is %s, not a socket: leaving it alone", path, file_kind(sb.st_mode));
		return -EEXIST;
	}
	str_copy(sa.sun_path, path, sizeof(sa.sun_path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ? errno : 0;
	close(fd);
	if (err != ECONNREFUSED) {
		log_err("another tracerd is listening on '%s'%s%s", path, err ? ": " : "",
			err ? strerror(err) : "");
		return -EADDRINUSE;
	}
	if (unlink(path) && errno != ENOENT)
		return -errno;
	log_notice("removed stale socket '%s'", path);
	return 0;
}

/*
 * bind() at tmp with the final owner and mode from the start: the umask
 * gives the mode (0660 with a group, else 0600) and the effective gid,
 * switched around bind(), the group. fchown/fchmod on an AF_UNIX socket fd
 * would only change the socket's sockfs inode, not the file bind() makes,
 * and chown/chmod of the final path after bind() leave a window (and
 * follow whatever the path is by then). Without CAP_SETGID (a unit that
 * gives the group as SupplementaryGroups=) the file is made 0600 and
 * given its group and mode while still at the temporary name, where no
 * client looks and only the daemon may write.
 */
static int bind_as(int fd, const char *tmp, gid_t g)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	bool grp = g != (gid_t)-1, switched = false;
	gid_t egid = getegid();
	mode_t old;
	int err;

	str_copy(sa.sun_path, tmp, sizeof(sa.sun_path));
	if (grp && g != egid) {
		if (setegid(g) && errno != EPERM)
			return -errno;
		switched = getegid() == g;
	}
	old = umask(grp && (switched || g == egid) ? 0117 : 0177);
	err = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old);
	if (switched && setegid(egid) && !err)
		err = -errno;
	if (!err && grp && !switched && g != egid &&
	    (fchownat(AT_FDCWD, tmp, (uid_t)-1, g, AT_SYMLINK_NOFOLLOW) ||
	     fchmodat(AT_FDCWD, tmp, 0660, 0)))
		err = -errno;
	return err;
}

/*
 * Create, bind and listen. The socket is bound at a temporary name next to
 * the path (same directory: the daemon made it, mode 0755) and renamed into
 * place with RENAME_NOREPLACE, so it appears whole, and only where nothing
 * is (path_clear removed a stale socket just before; anything that shows up
 * meanwhile is not replaced: EEXIST). Its dev/ino are kept for control_stop.
 */
static int control_bind(struct control *ctl)
{
	gid_t g = ctl->read_gid != (gid_t)-1 ? ctl->read_gid : ctl->admin_gid;
	char tmp[TRACERD_SOCKET_PATH_MAX + 32];
	struct stat sb;
	bool bound;
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%s.%d.new", ctl->path, (int)getpid());
	if (strlen(tmp) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		log_err("socket path '%s' is too long (a temporary name is made next to it)",
			ctl->path);
		return -ENAMETOOLONG;
	}
	err = path_clear(ctl->path);
	if (!err && !lstat(tmp, &sb))	/* ours, from a daemon of this pid that crashed */
		err = S_ISSOCK(sb.st_mode) ? (unlink(tmp) ? -errno : 0) : -EEXIST;
	if (err) {
		log_err("cannot listen on '%s': %s", ctl->path, strerror(-err));
		return err;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = bind_as(fd, tmp, g);
	bound = !err;
	if (!err && (listen(fd, 64) || lstat(tmp, &sb)))
		err = -errno;
	if (!err && renameat2(AT_FDCWD, tmp, AT_FDCWD, ctl->path, RENAME_NOREPLACE))
		err = -errno;
	if (err) {
		log_err("failed to listen on '%s': %s", ctl->path, strerror(-err));
		if (bound)
			unlink(tmp);
		close(fd);
		return err;
	}
	ctl->dev = sb.st_dev;
	ctl->ino = sb.st_ino;
	return fd;
}

/* The path still names the socket this daemon made (not a newer daemon's). */
static bool socket_is_ours(const struct control *ctl)
{
	struct stat sb;

	return !lstat(ctl->path, &sb) && S_ISSOCK(sb.st_mode) && sb.st_dev == ctl->dev &&
	       sb.st_ino == ctl->ino;
}

static gid_t group_id(const char *name)
{
	struct group *g;

	if (!name[0])
		return (gid_t)-1;
	g = getgrnam(name);
	return g ? g->gr_gid : (gid_t)-1;
}

/*
 * mkdir -p of the socket's directory (mode 0755). A directory others may
 * write (without the sticky bit) lets them rename or remove the socket:
 * warned about, since the file checks here cannot make that safe.
 */
static void make_parent(const char *path)
{
	char dir[TRACERD_SOCKET_PATH_MAX], *p;
	struct stat sb;

	str_copy(dir, path, sizeof(dir));
	for (p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		/* a directory made here is 0755 whatever the umask (under umask
		 * 077 it was 0700: no member of read_group could reach the
		 * socket, and tracectl blamed the groups) */
		if (!mkdir(dir, 0755) && chmod(dir, 0755))
			log_warn("socket directory '%s': chmod 0755: %s", dir, strerror(errno));
		*p = '/';
	}
	p = strrchr(dir, '/');
	if (p && p != dir)
		*p = '\0';
	if (p && !stat(dir, &sb) && (sb.st_mode & 022) && !(sb.st_mode & S_ISVTX))
		log_warn("socket directory '%s' is writable by others (mode %04o): they can "
			 "replace the socket", dir, (unsigned int)(sb.st_mode & 07777));
}

int control_start(struct tracerd *d, const struct command *commands)
{
	struct control *ctl = calloc(1, sizeof(*ctl));
	int fd;

	if (!ctl)
		return -ENOMEM;
	ctl->d = d;
	ctl->commands = commands;
	d->ctl = ctl;
	str_copy(ctl->path, d->cfg.socket, sizeof(ctl->path));
	ctl->read_gid = group_id(d->cfg.read_group);
	ctl->admin_gid = group_id(d->cfg.admin_group);
	make_parent(ctl->path);
	fd = control_bind(ctl);
	if (fd < 0)
		return fd;
	ctl->listener = evconnlistener_new(d->base, control_accept, ctl,
					   LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1, fd);
	ctl->backoff = evtimer_new(d->base, control_resume, ctl);
	if (!ctl->listener || !ctl->backoff) {
		if (!ctl->listener)
			close(fd);
		return -ENOMEM;
	}
	evconnlistener_set_error_cb(ctl->listener, control_accept_error);
	log_notice("listening on '%s'", ctl->path);
	return 0;
}

void control_stop(struct tracerd *d)
{
	struct control *ctl = d->ctl;

	if (!ctl)
		return;
	while (ctl->clients)
		client_free(ctl->clients);
	if (ctl->listener) {
		evconnlistener_free(ctl->listener);
		if (socket_is_ours(ctl))
			unlink(ctl->path);
		else
			log_notice("'%s' is no longer this daemon's socket: leaving it", ctl->path);
	}
	if (ctl->backoff)
		event_free(ctl->backoff);
	if (ctl->trim)
		event_free(ctl->trim);
	if (ctl->stream_step)
		event_free(ctl->stream_step);
	free(ctl);
	d->ctl = NULL;
}
