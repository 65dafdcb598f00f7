// SPDX-License-Identifier: GPL-2.0-or-later
/* Logging to stderr, journald-friendly; see log.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "log.h"
#include "strutil.h"

static const char *log_prog = "tracerd";
static int log_level = TLOG_NOTICE;
static int log_journal = -1;

static const char *const level_names[] = {
	[TLOG_ERR] = "err", [TLOG_WARNING] = "warning", [TLOG_NOTICE] = "notice",
	[TLOG_INFO] = "info", [TLOG_DEBUG] = "debug",
};

void tlog_init(const char *prog, int level)
{
	log_prog = prog;
	log_level = level;
	log_journal = getenv("JOURNAL_STREAM") != NULL;
}

void tlog_set_level(int level)
{
	log_level = level;
}

int tlog_get_level(void)
{
	return log_level;
}

int tlog_level_parse(const char *s)
{
	int i;

	for (i = TLOG_ERR; i <= TLOG_DEBUG; i++)
		if (!strcmp(s, level_names[i]))
			return i;
	if (!strcmp(s, "error"))
		return TLOG_ERR;
	if (!strcmp(s, "warn"))
		return TLOG_WARNING;
	return -EINVAL;
}

const char *tlog_level_name(int level)
{
	if (level < TLOG_ERR || level > TLOG_DEBUG)
		return "?";
	return level_names[level];
}

void tlogv(int level, const char *fmt, va_list ap)
{
	char buf[2048], *esc;
	size_t n;

	if (level > log_level)
		return;
	str_vfmt(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	/* names from users and the kernel: one line, no terminal escapes */
	esc = str_escape(buf);
	if (log_journal == 1)
		fprintf(stderr, "<%d>%s\n", level, esc ? esc : buf);
	else
		fprintf(stderr, "%s: %s: %s\n", log_prog, tlog_level_name(level), esc ? esc : buf);
	free(esc);
}

void tlog(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tlogv(level, fmt, ap);
	va_end(ap);
}
