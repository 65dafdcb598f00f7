// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracerd and its service manager, through libsystemd's sd_notify(3):
 * READY=1, RELOADING=1, STOPPING=1, EXTEND_TIMEOUT_USEC=. libsystemd
 * reaches $NOTIFY_SOCKET in every form systemd hands out (a path, an
 * abstract "@" name, vsock) and follows the protocol as it grows. Not
 * under systemd (no NOTIFY_SOCKET): every call is a no-op.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <systemd/sd-daemon.h>
#include "../lib/log.h"
#include "service.h"

int notify_send(const char *state)
{
	static bool warned;
	int ret = sd_notify(0, state);

	if (ret >= 0)
		return 0;
	if (!warned)	/* once: a broken socket would flood the log */
		log_warn("sd_notify '%s': %s", state, strerror(-ret));
	warned = true;
	return ret;
}

int notify_extend_timeout(unsigned long long usec)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "EXTEND_TIMEOUT_USEC=%llu", usec);
	return notify_send(buf);
}

void raise_nofile_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		log_warn("cannot raise the open-file limit: %s", strerror(errno));
}
