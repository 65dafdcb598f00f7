// SPDX-License-Identifier: GPL-2.0-or-later
/* The file descriptor budget: see fds.h. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include "fds.h"

void fds_raise_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		log_warn("cannot raise the open-file limit: %s", strerror(errno));
}

unsigned int fds_http_limit(void)
{
	struct rlimit rl;
	unsigned int n = 0;

	if (!getrlimit(RLIMIT_NOFILE, &rl))
		n = rl.rlim_cur > FDS_HTTP_LIMIT_MAX ? FDS_HTTP_LIMIT_MAX :
		    (unsigned int)rl.rlim_cur;
	return n > 2 * FDS_RESERVE_HTTP ? n - FDS_RESERVE_HTTP : FDS_RESERVE_HTTP;
}

int fds_check_start(char *err, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= FDS_START_MIN)
		return 0;
	return set_err(err, len, -EMFILE, "RLIMIT_NOFILE %llu is below the %d file descriptors "
		       "tracerd needs to start (its BPF maps and programs, the event loop, the "
		       "control socket): raise it (%s)", (unsigned long long)rl.rlim_cur,
		       FDS_START_MIN, FDS_RAISE_HOW);
}

int fds_check_ready(char *err, size_t len)
{
	struct rlimit rl;
	long open = open_fd_count();

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || open < 0 ||
	    rl.rlim_cur >= (rlim_t)open + FDS_READY_FREE)
		return 0;
	return set_err(err, len, -EMFILE, "RLIMIT_NOFILE %llu leaves %lld file descriptors free "
		       "after start-up (%ld held: maps, programs, sockets), and tracerd needs %d "
		       "(%d kept for clients, 4 for a first attach and its requester): raise it "
		       "to %ld or more (%s)",
		       (unsigned long long)rl.rlim_cur, (long long)rl.rlim_cur - open, open,
		       FDS_READY_FREE, FDS_RESERVE_ATTACH, open + FDS_READY_FREE, FDS_RAISE_HOW);
}

void fds_std_open(void)
{
	int fd;

	/* fd 0, 1 or 2 closed at exec: the first files opened (a BPF map, the
	 * control socket) would become them, and log lines or a stray read
	 * would go to that file; /dev/null holds their place instead */
	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			log_warn("cannot open /dev/null as fd %d: %s", fd, strerror(errno));
}
