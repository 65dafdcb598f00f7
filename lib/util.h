/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by tracerd and tracectl. */
#ifndef TRACERD_LIB_UTIL_H
#define TRACERD_LIB_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Format a message into err (if non-NULL) and return ret (a -errno). */
int set_err(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Strict decimal (or 0x hex) unsigned parse of the whole string. */
int parse_u64(const char *s, unsigned long long *out);
/* Size with optional K/M/G suffix (powers of 1024). */
int parse_size(const char *s, unsigned long long *out);
/* strscpy-like: copy with truncation check; -E2BIG when truncated. */
int str_copy(char *dst, const char *src, size_t size);
/* Monotonic and realtime clocks in ns. */
uint64_t now_mono_ns(void);
uint64_t now_real_ns(void);

#endif
