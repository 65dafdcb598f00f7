// SPDX-License-Identifier: GPL-2.0-or-later
/* tracectl's side of the control protocol; see tracectl.h. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include "../lib/jsonutil.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "tracectl.h"

void cli_print_json(json_object *o)
{
	json_print(stdout, o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static int cli_verror(struct cli *cli, int exit, const char *code, const char *fmt, va_list ap)
{
	json_object *o, *e;
	char buf[4096];

	str_vfmt(buf, sizeof(buf), fmt, ap);
	if (cli->json) {
		o = json_object_new_object();
		e = json_object_new_object();
		json_object_object_add(e, "code", json_object_new_string(code));
		json_object_object_add(e, "message", json_object_new_string(buf));
		json_object_object_add(e, "exit", json_object_new_int(exit));
		json_object_object_add(o, "error", e);
		cli_print_json(o);
		json_object_put(o);
	} else {
		fprintf(stderr, "%s: %s\n", cli->prog, tty_str(buf));
	}
	return exit;
}

int cli_error(struct cli *cli, int exit, const char *code, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = cli_verror(cli, exit, code, fmt, ap);
	va_end(ap);
	return ret;
}

int cli_usage(struct cli *cli, const struct cmd_entry *cmd, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	str_vfmt(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return cli_error(cli, EXIT_USAGE, "usage", "%s (usage: tracectl %s %s)", buf,
			 cmd->name, cmd->args);
}

const char *jstr(json_object *o, const char *key, const char *def)
{
	const char *s;

	return json_get_str(o, key, &s) ? def : s;
}

long long jint(json_object *o, const char *key, long long def)
{
	long long v;

	return json_get_int(o, key, &v) ? def : v;
}

bool jbool(json_object *o, const char *key)
{
	bool v;

	return !json_get_bool(o, key, &v) && v;
}

json_object *jget(json_object *o, const char *key)
{
	json_object *v;

	return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ?
	       v : NULL;
}

double client_timeout(const struct cli *cli, const char *cmd)
{
	if (cli->timeout >= 0)
		return cli->timeout;
	if (!strcmp(cmd, "bench"))
		return 0;
	if (!strcmp(cmd, "attach") || !strcmp(cmd, "detach") || !strcmp(cmd, "reload"))
		return CLI_TIMEOUT_MUTATE_S;
	return CLI_TIMEOUT_DEFAULT_S;
}

/* Deadline (monotonic ns) timeout_s from now; 0: none. */
static uint64_t deadline_after(double timeout_s)
{
	return timeout_s > 0 ? now_mono_ns() + (uint64_t)(timeout_s * 1e9) : 0;
}

/*
 * The peer must be root, or the uid in $TRACERD_UID (a tracerd run as
 * another user): a socket anyone else made (a path in /tmp, a stale
 * --socket) is not a daemon to send requests to or believe.
 */
static int check_peer(int fd, const char *path, char *msg, size_t msglen)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	const char *env = getenv("TRACERD_UID");
	unsigned long long want = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return set_err(msg, msglen, -errno, "cannot read the peer of %s: %s", path,
			       strerror(errno));
	if (env && env[0] && parse_u64(env, &want))
		return set_err(msg, msglen, -EINVAL, "TRACERD_UID '%s' is not a uid", env);
	if (cr.uid == 0 || cr.uid == want)
		return 0;
	return set_err(msg, msglen, -EPERM, "refusing to talk to %s: it is served by uid %u "
		       "(pid %d), not root%s: not tracerd's socket", path, (unsigned int)cr.uid,
		       (int)cr.pid, env && env[0] ? " or $TRACERD_UID" : "");
}

int client_connect(struct cli *cli, double timeout_s, char *msg, size_t msglen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { (time_t)timeout_s, (long)((timeout_s - (time_t)timeout_s) * 1e6) };
	int fd, err;

	if (str_copy(sa.sun_path, cli->socket, sizeof(sa.sun_path)))
		return set_err(msg, msglen, -ENAMETOOLONG, "socket path '%s' is too long",
			       cli->socket);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return set_err(msg, msglen, -errno, "socket: %s", strerror(errno));
	/* a daemon whose backlog is full: connect() waits at most this long,
	 * and so does each blocking read or write on the fd */
	if (timeout_s > 0 && (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
			      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))) {
		err = -errno;
		close(fd);
		return set_err(msg, msglen, err, "setsockopt: %s", strerror(-err));
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = errno == EAGAIN ? -ETIMEDOUT : -errno;
		close(fd);
		return set_err(msg, msglen, err, "cannot connect to %s: %s", cli->socket,
			       strerror(-err));
	}
	err = check_peer(fd, cli->socket, msg, msglen);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/*
 * A directory on the way to the socket this user may not search: the
 * reason, not the groups (a socket directory made 0700 under umask 077).
 */
static bool dir_unreachable(const char *sock, char *msg, size_t len)
{
	char dir[PATH_MAX];
	struct stat st;
	char *p;

	if (str_copy(dir, sock, sizeof(dir)))
		return false;
	for (p = strrchr(dir, '/'); p && p != dir; p = strrchr(dir, '/')) {
		*p = '\0';
		if (access(dir, X_OK) && errno == EACCES && !stat(dir, &st)) {
			str_fmt(msg, len, "cannot reach socket %s: its directory %s (mode %04o, "
				"uid %u) is not searchable by this user; the directory, not "
				"read_group, refuses", sock, dir, (unsigned int)(st.st_mode & 07777),
				(unsigned int)st.st_uid);
			return true;
		}
	}
	return false;
}

static int connect_daemon(struct cli *cli, double timeout_s)
{
	char msg[512];
	int fd = client_connect(cli, timeout_s, msg, sizeof(msg));

	if (fd >= 0)
		return fd;
	if (fd == -ENAMETOOLONG)
		return -cli_error(cli, EXIT_USAGE, "usage", "%s", msg);
	if (fd == -EPERM && strstr(msg, "refusing"))
		return -cli_error(cli, EXIT_PERMISSION, "untrusted_daemon", "%s", msg);
	if ((fd == -EACCES || fd == -EPERM) && dir_unreachable(cli->socket, msg, sizeof(msg)))
		return -cli_error(cli, EXIT_PERMISSION, "permission_denied", "%s", msg);
	if (fd == -EACCES || fd == -EPERM)
		return -cli_error(cli, EXIT_PERMISSION, "permission_denied",
				  "permission denied on socket %s: tracerd's read_group or "
				  "admin_group grants access", cli->socket);
	if (fd == -ETIMEDOUT)
		return -cli_error(cli, EXIT_PROTOCOL, "timeout", "%s (--timeout S to wait longer)",
				  msg);
	if (fd != -ECONNREFUSED && fd != -ENOENT && fd != -ENOTSOCK)
		return -cli_error(cli, EXIT_FAILURE_, "internal", "%s", msg);
	return -cli_error(cli, EXIT_NO_DAEMON, "no_daemon",
			  "daemon not running (%s): start it with "
			  "'systemctl start tracerd' or 'tracerd --socket %s'",
			  msg, cli->socket);
}

/* Wait until fd is ready for ev or the deadline (0: none) passes. */
static int wait_fd(int fd, short ev, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	uint64_t now;
	int n, ms;

	do {
		ms = -1;
		if (deadline) {
			now = now_mono_ns();
			if (now >= deadline)
				return -ETIMEDOUT;
			ms = (int)((deadline - now + 999999) / 1000000);
		}
		n = poll(&p, 1, ms);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

static int write_all(int fd, const char *buf, size_t len, uint64_t deadline)
{
	ssize_t n;
	int err;

	while (len) {
		err = wait_fd(fd, POLLOUT, deadline);
		if (err)
			return err;
		n = send(fd, buf, len,
			 MSG_NOSIGNAL | MSG_DONTWAIT); /* daemon gone: an error, not SIGPIPE */
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		buf += n;
		len -= n;
	}
	return 0;
}

/* Read one reply line (bounded); NULL on error (*err: -errno, -ETIMEDOUT). */
static char *read_line(int fd, size_t *len, uint64_t deadline, int *err)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap), *nl;
	ssize_t r;

	*err = -EPROTO;
	while (buf) {
		if (n + 1 >= cap) {
			char *b;

			if (cap >= TRACERD_PROTO_MAX_REPLY)
				break;
			b = realloc(buf, cap * 2);
			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
		*err = wait_fd(fd, POLLIN, deadline);
		if (*err)
			break;
		r = recv(fd, buf + n, cap - n - 1, MSG_DONTWAIT);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		*err = r < 0 ? -errno : -EPROTO;
		if (r <= 0)
			break;
		/* the new bytes only: a streamed reply of 50k rows comes in
		 * hundreds of reads, and rescanning all of it each time was
		 * quadratic */
		nl = memchr(buf + n, '\n', (size_t)r);
		n += r;
		buf[n] = '\0';
		if (nl) {
			*nl = '\0';
			*len = nl - buf;
			return buf;
		}
	}
	free(buf);
	return NULL;
}

/*
 * Send req, read one reply line by deadline: 0 with *line, or -errno. A
 * daemon that refused the connection wrote why, then closed it: the line
 * is still there to read after EPIPE, and says more than EPIPE.
 */
static int exchange(int fd, const char *req, size_t len, uint64_t deadline, char **line)
{
	size_t n;
	int err, rerr = 0;

	*line = NULL;
	err = write_all(fd, req, len, deadline);
	if (err && err != -EPIPE && err != -ECONNRESET)
		return err;
	*line = read_line(fd, &n, deadline, &rerr);
	return *line ? 0 : err ? err : rerr;
}

int client_exchange(int fd, const char *req, size_t len, double timeout_s, char **line)
{
	return exchange(fd, req, len, deadline_after(timeout_s), line);
}

static int handle_reply(struct cli *cli, const char *line, json_object **result)
{
	json_object *rep = json_parse_strict(line, strlen(line), NULL, 0), *err;
	const char *code;
	int ret;

	if (!rep || !json_object_is_type(rep, json_type_object) ||
	    (jbool(rep, "ok") && !jobj(rep, "result"))) {
		json_object_put(rep);
		return cli_error(cli, EXIT_PROTOCOL, "protocol", "malformed reply from the daemon");
	}
	if (jbool(rep, "ok")) {
		*result = json_object_get(jget(rep, "result"));
		json_object_put(rep);
		return 0;
	}
	err = jget(rep, "error");
	code = jstr(err, "code", "internal");
	ret = cli_error(cli, proto_code_exit(proto_code_parse(code)), code, "%s",
			jstr(err, "message", "unknown error"));
	json_object_put(rep);
	return ret;
}

int client_call(struct cli *cli, const char *cmd, json_object *args, json_object **result)
{
	json_object *req = proto_request_new(cmd, args);
	double timeout_s = client_timeout(cli, cmd);
	uint64_t deadline = deadline_after(timeout_s);
	char *out = NULL, *line = NULL;
	size_t len;
	int fd, ret, err;

	*result = NULL;
	fd = connect_daemon(cli, timeout_s);
	if (fd < 0) {
		json_object_put(req);
		return -fd;
	}
	out = proto_serialize(req, &len);
	if (!out || len > TRACERD_PROTO_MAX_REQUEST) {
		ret = cli_error(cli, EXIT_PROTOCOL, "too_large", "request too large");
		goto cleanup;
	}
	err = exchange(fd, out, len, deadline, &line);
	if (err == -ETIMEDOUT)
		ret = cli_error(cli, EXIT_PROTOCOL, "timeout", "no reply from the daemon at %s "
				"within %g s (--timeout S to wait longer, 0: forever)", cli->socket,
				timeout_s);
	else if (err && !line && out && err != -EPROTO)
		ret = cli_error(cli, EXIT_PROTOCOL, "protocol", "cannot talk to the daemon: %s",
				strerror(-err));
	else if (err)
		ret = cli_error(cli, EXIT_PROTOCOL, "protocol", "no reply from the daemon");
	else
		ret = handle_reply(cli, line, result);
cleanup:
	free(line);
	free(out);
	close(fd);
	json_object_put(req);
	return ret;
}

int client_show(struct cli *cli, const char *cmd, json_object *args,
		void (*print)(json_object *result))
{
	json_object *r;
	int ret = client_call(cli, cmd, args, &r);

	if (ret)
		return ret;
	if (cli->json)
		cli_print_json(r);
	else
		print(r);
	json_object_put(r);
	return 0;
}
