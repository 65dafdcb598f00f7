// SPDX-License-Identifier: GPL-2.0-or-later
/* The daemon's worker threads: see worker.h. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "../lib/log.h"
#include "worker.h"

bool worker_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	bool ok;

	sigfillset(&all);	/* the signals stay the loop's */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ok = !pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

void worker_done(int efd, const char *who)
{
	uint64_t one = 1;

	if (write(efd, &one, sizeof(one)) != sizeof(one))
		log_warn("%s: worker thread: eventfd write: %s", who, strerror(errno));
}
