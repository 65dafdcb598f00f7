/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefs for the daemon: the mounted one (/sys/kernel/tracing, or where
 * /proc/mounts says), else a private detached mount (fsopen/fsmount, Linux
 * 5.2) that only this process holds and nobody else sees, so a host that
 * never mounted tracefs still has its events, their ids and
 * available_filter_functions. Opened once, kept until exit.
 */
#ifndef TRACERD_TRACEFS_H
#define TRACERD_TRACEFS_H

#include <stddef.h>

/*
 * A directory fd of tracefs's root (do not close it), or -errno with why
 * naming what is missing (no tracefs mounted and the private mount failed).
 */
int tracefs_root(char *why, size_t len);
/* Where tracefs_root came from: a path, or "a private tracefs mount". */
const char *tracefs_where(void);
/* Open path (relative to tracefs's root) for reading: an fd or -errno. */
int tracefs_open(const char *path, char *why, size_t len);
/* Does events/CAT (name NULL) or events/CAT/NAME exist? 1, 0, or -errno (why set). */
int tracefs_event_exists(const char *cat, const char *name, char *why, size_t len);
/* The perf event id of events/CAT/NAME, or -errno with why. */
int tracefs_event_id(const char *cat, const char *name, char *why, size_t len);
/*
 * Is target ("tp:CAT/NAME", well formed) an event of this kernel? 0, or
 * -ENOENT with msg naming what is missing: the category, the event in it,
 * or tracefs itself (then nothing can be checked, so nothing is hooked).
 */
int tracefs_check_tracepoint(const char *target, char *msg, size_t len);

#endif
