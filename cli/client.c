// SPDX-License-Identifier: GPL-2.0-or-later
/* tracectl's side of the control protocol; see tracectl.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
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

static int connect_daemon(struct cli *cli)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	if (str_copy(sa.sun_path, cli->socket, sizeof(sa.sun_path))) {
		cli_error(cli, EXIT_USAGE, "usage", "socket path '%s' is too long", cli->socket);
		return -EXIT_USAGE;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -cli_error(cli, EXIT_FAILURE_, "internal", "socket: %s", strerror(errno));
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	err = errno;
	close(fd);
	if (err == EACCES || err == EPERM)
		return -cli_error(cli, EXIT_PERMISSION, "permission_denied",
				  "permission denied on socket %s: tracerd's read_group or "
				  "admin_group grants access", cli->socket);
	return -cli_error(cli, EXIT_NO_DAEMON, "no_daemon",
			  "daemon not running (cannot connect to %s: %s): start it with "
			  "'systemctl start tracerd' or 'tracerd --socket %s'",
			  cli->socket, strerror(err), cli->socket);
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);	/* daemon gone: an error, not SIGPIPE */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

/* Read one reply line (bounded); NULL on error. */
static char *read_line(int fd, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap), *nl;
	ssize_t r;

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
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
		buf[n] = '\0';
		nl = memchr(buf, '\n', n);
		if (nl) {
			*nl = '\0';
			*len = nl - buf;
			return buf;
		}
	}
	free(buf);
	return NULL;
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
	char *out = NULL, *line = NULL;
	size_t len;
	int fd, ret;

	*result = NULL;
	fd = connect_daemon(cli);
	if (fd < 0) {
		json_object_put(req);
		return -fd;
	}
	out = proto_serialize(req, &len);
	if (!out || len > TRACERD_PROTO_MAX_REQUEST) {
		ret = cli_error(cli, EXIT_PROTOCOL, "too_large", "request too large");
		goto cleanup;
	}
	if (write_all(fd, out, len)) {
		ret = cli_error(cli, EXIT_PROTOCOL, "protocol", "cannot send to the daemon: %s",
				strerror(errno));
		goto cleanup;
	}
	line = read_line(fd, &len);
	if (!line) {
		ret = cli_error(cli, EXIT_PROTOCOL, "protocol", "no reply from the daemon");
		goto cleanup;
	}
	ret = handle_reply(cli, line, result);
cleanup:
	free(line);
	free(out);
	close(fd);
	json_object_put(req);
	return ret;
}
