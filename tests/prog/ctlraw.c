// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctlraw: one raw request on tracerd's control socket, for guest tests
 * that need a request field tracectl does not send (the guest has no
 * python3 json, no socat).
 *   ctlraw SOCKET 'JSON-LINE'   send the line (a newline added), print the
 *                               reply line; exit 0 when one came, else 1
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[65536];
	size_t len = strlen(argc == 3 ? argv[2] : "");
	ssize_t n;
	int fd;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: ctlraw SOCKET 'JSON-LINE'\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("ctlraw: connect");
		return 1;
	}
	if (write(fd, argv[2], len) != (ssize_t)len || write(fd, "\n", 1) != 1) {
		perror("ctlraw: write");
		return 1;
	}
	/* the reply is one line: print until its newline or the end */
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		fwrite(buf, 1, n, stdout);
		if (buf[n - 1] == '\n')
			return 0;
	}
	return 1;
}
