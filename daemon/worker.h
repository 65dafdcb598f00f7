/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's worker threads (daemon/registry.c's jobs, daemon/resolve.c's
 * resolves): a thread that takes no signal (they stay the event loop's)
 * and tells the loop it is done through an eventfd the loop watches.
 */
#ifndef TRACERD_WORKER_H
#define TRACERD_WORKER_H

#include <pthread.h>
#include <stdbool.h>

/* Start fn(arg) on *th with every signal blocked; false when no thread
 * could be made (the caller then runs fn in place). */
bool worker_start(pthread_t *th, void *(*fn)(void *), void *arg);

/* From the worker: wake the loop (one 1 added to eventfd efd); who names
 * the worker in the log line of a failed write. */
void worker_done(int efd, const char *who);

#endif
