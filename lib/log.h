/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging for tracerd and tracectl: stderr, one line per message.
 * Under systemd (JOURNAL_STREAM set) lines carry sd-daemon priority
 * prefixes ("<3>...") so journald keeps the level; otherwise
 * "PROG: LEVEL: message". libbpf's own log is routed here (debug level).
 */
#ifndef TRACERD_LIB_LOG_H
#define TRACERD_LIB_LOG_H

#include <stdarg.h>

enum tlog_level {
	TLOG_ERR = 3,
	TLOG_WARNING = 4,
	TLOG_NOTICE = 5,
	TLOG_INFO = 6,
	TLOG_DEBUG = 7,
};

void tlog_init(const char *prog, int level);
void tlog_set_level(int level);
int tlog_get_level(void);
/* "err", "warning", "notice", "info", "debug" -> level; -EINVAL otherwise */
int tlog_level_parse(const char *s);
const char *tlog_level_name(int level);
void tlog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tlogv(int level, const char *fmt, va_list ap);

#define log_err(...) tlog(TLOG_ERR, __VA_ARGS__)
#define log_warn(...) tlog(TLOG_WARNING, __VA_ARGS__)
#define log_notice(...) tlog(TLOG_NOTICE, __VA_ARGS__)
#define log_info(...) tlog(TLOG_INFO, __VA_ARGS__)
#define log_debug(...) tlog(TLOG_DEBUG, __VA_ARGS__)

#endif
