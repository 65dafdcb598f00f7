/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by tracerd and tracectl. */
#ifndef TRACERD_LIB_UTIL_H
#define TRACERD_LIB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Format a message into err (if non-NULL) and return ret (a -errno). */
int set_err(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * The one number parser (config, CLI, protocol, listen addresses): the
 * whole string is a decimal in min..max. No sign, whitespace, 0x or
 * leading 0 (but "0"): -EINVAL; overflow or out of range: -ERANGE; err
 * (if non-NULL) says which, e.g. "a leading 0 is not allowed ...".
 */
int parse_dec(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out, char *err, size_t errlen);
/* parse_dec over 0..UINT64_MAX, without a message. */
int parse_u64(const char *s, unsigned long long *out);
/* Size with optional K/M/G suffix (powers of 1024). */
int parse_size(const char *s, unsigned long long *out);
/* strscpy-like: copy with truncation check; -E2BIG when truncated. */
int str_copy(char *dst, const char *src, size_t size);
/*
 * When a resource limit of this process explains err, describe it in buf
 * ("too many open files (RLIMIT_NOFILE 64)", "out of address space
 * (RLIMIT_AS 20 MiB)") and return 1; else 0. EMFILE always names
 * RLIMIT_NOFILE; for other errors (libbpf turns a failed BTF load into
 * ESRCH or ENOENT) it checks whether the fds or the address space are
 * nearly used up right now.
 */
int limit_explain(int err, char *buf, size_t len);
/*
 * An errno for a message: "Operation not permitted (EPERM)", a resource
 * limit named for EMFILE/ENFILE/ENOMEM (limit_explain), the kernel's
 * internal ENOTSUPP (524) by name. err may be negative; returns buf.
 */
const char *errno_str(int err, char *buf, size_t len);
/*
 * The calling process's open file descriptors: the size Linux >= 6.2
 * reports for /proc/self/fd (one stat, whatever the count), else its
 * entries counted (the directory's own fd not included); -errno.
 */
long open_fd_count(void);
/*
 * The metrics address, one parser for the config key, --listen and the
 * HTTP server: "off", "A.B.C.D:PORT", "[IPv6]:PORT" or "localhost:PORT",
 * PORT min_port..65535. Nothing else: no host names (a resolver at start-up),
 * no short forms inet_aton would take (127.1), no blanks or '#'.
 */
struct listen_addr {
	bool off;
	char host[64];		/* the address without brackets */
	unsigned short port;
	bool loopback;		/* 127/8, ::1, ::ffff:127.0.0.0/104, localhost */
};
int listen_parse(const char *s, unsigned int min_port, struct listen_addr *out, char *err,
		 size_t errlen);
/*
 * May root's daemon obey a file or directory it reads (sshd's StrictModes)?
 * 0 when st belongs to root or to the daemon's own user and neither its
 * group nor others can write it (a directory with the sticky bit, as /tmp,
 * may be world-writable: nobody replaces another's file in it); else
 * -EPERM, err naming what (e.g. "config"), path, the owner or the mode,
 * and the command that fixes it.
 */
struct stat;
int file_trusted(const char *what, const char *path, const struct stat *st, char *err,
		 size_t errlen);
/* Monotonic and realtime clocks in ns. */
uint64_t now_mono_ns(void);
uint64_t now_real_ns(void);

#endif
