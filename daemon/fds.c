// SPDX-License-Identifier: GPL-2.0-or-later
/* The file descriptor budget: see fds.h. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include "../lib/log.h"
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
