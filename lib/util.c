// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers; see util.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stdbool.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <unistd.h>
#include "strutil.h"
#include "util.h"

int set_err(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		str_vfmt(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* What is wrong with s as a decimal number, or NULL when it is one. */
static const char *dec_syntax_error(const char *s)
{
	const char *p;

	if (!s[0])
		return "empty number";
	if (s[0] == '-' || s[0] == '+')
		return "a sign is not allowed";
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return "hexadecimal is not allowed (decimal only)";
	if (s[0] == '0' && s[1])
		return "a leading 0 is not allowed (decimal only, never octal)";
	for (p = s; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f')
			return "whitespace is not allowed";
		if (*p < '0' || *p > '9')
			return "not a decimal number";
	}
	return NULL;
}

int parse_dec(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out, char *err, size_t errlen)
{
	const char *why = dec_syntax_error(s);
	unsigned long long v = 0;
	const char *p;

	if (why)
		return set_err(err, errlen, -EINVAL, "%s", why);
	for (p = s; *p; p++) {
		if (v > (UINT64_MAX - (unsigned int)(*p - '0')) / 10)
			return set_err(err, errlen, -ERANGE, "out of range %llu..%llu", min, max);
		v = v * 10 + (unsigned int)(*p - '0');
	}
	if (v < min || v > max)
		return set_err(err, errlen, -ERANGE, "out of range %llu..%llu", min, max);
	*out = v;
	return 0;
}

int parse_u64(const char *s, unsigned long long *out)
{
	return parse_dec(s, 0, UINT64_MAX, out, NULL, 0);
}

int parse_size(const char *s, unsigned long long *out)
{
	char buf[32], *end;
	size_t n = strlen(s);
	unsigned long long mult = 1, v;

	if (!n || n >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	end = buf + n - 1;
	switch (*end) {
	case 'K': case 'k': mult = 1ULL << 10; break;
	case 'M': case 'm': mult = 1ULL << 20; break;
	case 'G': case 'g': mult = 1ULL << 30; break;
	default: end = NULL;
	}
	if (end)
		*end = '\0';
	if (parse_u64(buf, &v) || v > UINT64_MAX / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

int str_copy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (!size)
		return -E2BIG;
	if (n >= size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, n + 1);
	return 0;
}

long open_fd_count(void)
{
	struct dirent *e;
	struct stat st;
	long n = -1;	/* the directory's own fd */
	DIR *dir;

	/* /metrics counts them on every scrape: a daemon with thousands of
	 * BPF fds spent more time in readdir than in rendering */
	if (!stat("/proc/self/fd", &st) && st.st_size > 0)
		return (long)st.st_size;
	dir = opendir("/proc/self/fd");
	if (!dir)
		return -errno;
	while ((e = readdir(dir)))
		n += e->d_name[0] != '.';
	closedir(dir);
	return n;
}

/* Fewer than a handful of fds left under RLIMIT_NOFILE. */
static bool fds_exhausted(const struct rlimit *rl)
{
	unsigned long long used = 0;
	struct dirent *e;
	DIR *dir;

	if (rl->rlim_cur == RLIM_INFINITY)
		return false;
	dir = opendir("/proc/self/fd");
	if (!dir)
		return errno == EMFILE;
	while ((e = readdir(dir)))
		used += e->d_name[0] != '.';
	closedir(dir);
	return used + 4 > (unsigned long long)rl->rlim_cur;	/* the dir's own fd counted */
}

/* Under RLIMIT_AS, no room left for the 64 MiB a BTF load may take. */
static bool as_exhausted(const struct rlimit *rl)
{
	void *p;

	if (rl->rlim_cur == RLIM_INFINITY)
		return false;
	p = mmap(NULL, 64 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return true;
	munmap(p, 64 << 20);
	return false;
}

int limit_explain(int err, char *buf, size_t len)
{
	struct rlimit nofile, as;
	int e = err < 0 ? -err : err;

	if (getrlimit(RLIMIT_NOFILE, &nofile) || getrlimit(RLIMIT_AS, &as))
		return 0;
	if (e == EMFILE || (e != ENOMEM && fds_exhausted(&nofile))) {
		if (nofile.rlim_cur == RLIM_INFINITY)
			str_fmt(buf, len, "too many open files (RLIMIT_NOFILE unlimited)");
		else
			str_fmt(buf, len, "too many open files (RLIMIT_NOFILE %llu)",
				(unsigned long long)nofile.rlim_cur);
		return 1;
	}
	if (e == ENFILE) {
		str_fmt(buf, len, "too many open files in the system (fs.file-max)");
		return 1;
	}
	if (as_exhausted(&as)) {
		str_fmt(buf, len, "out of address space (RLIMIT_AS %llu MiB)",
			(unsigned long long)as.rlim_cur >> 20);
		return 1;
	}
	return 0;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

uint64_t now_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t now_real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

int file_trusted(const char *what, const char *path, const struct stat *st, char *err,
		 size_t errlen)
{
	bool sticky_dir = S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX);

	if (st->st_uid != 0 && st->st_uid != geteuid())
		return set_err(err, errlen, -EPERM, "%s '%s' is owned by uid %u, not root: tracerd "
			       "obeys only files root owns (fix: chown root '%s')", what, path,
			       (unsigned int)st->st_uid, path);
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !sticky_dir)
		return set_err(err, errlen, -EPERM,
			       "%s '%s' is writable by %s (mode %04o): tracerd "
			       "obeys only files no other user can change (fix: chmod go-w '%s')",
			       what, path, st->st_mode & S_IWOTH ? "others" : "its group",
			       (unsigned int)(st->st_mode & 07777), path);
	return 0;
}

/* the host part of a listen address into out->host; its loopback-ness */
static int listen_host(const char *s, const char *h, size_t n, bool v6, struct listen_addr *out,
		       char *err, size_t errlen)
{
	unsigned char a[16];

	if (!n)
		return set_err(err, errlen, -EINVAL, v6 ? "listen '%s': empty [IPv6] address" :
			       "listen '%s' is not 'off' or ADDR:PORT", s);
	if (n >= sizeof(out->host))
		return set_err(err, errlen, -EINVAL, "listen '%s' is too long", s);
	memcpy(out->host, h, n);
	out->host[n] = '\0';
	if (v6) {
		if (inet_pton(AF_INET6, out->host, a) != 1)
			return set_err(err, errlen, -EINVAL, "listen '%s': '%s' is not an IPv6 "
				       "address", s, out->host);
		out->loopback = !memcmp(a, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16) ||
				(!memcmp(a, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) && a[12] == 127);
	} else if (!strcmp(out->host, "localhost")) {
		out->loopback = true;
	} else if (strchr(out->host, ':')) {
		return set_err(err, errlen, -EINVAL, "listen '%s': an IPv6 address goes in "
			       "brackets: [ADDR6]:PORT", s);
	} else if (inet_pton(AF_INET, out->host, a) != 1) {
		return set_err(err, errlen, -EINVAL, "listen '%s': '%s' is not an IPv4 address "
			       "(A.B.C.D), an [IPv6] address or localhost", s, out->host);
	} else {
		out->loopback = a[0] == 127;
	}
	return 0;
}

int listen_parse(const char *s, unsigned int min_port, struct listen_addr *out, char *err,
		 size_t errlen)
{
	const char *colon, *close;
	unsigned long long port;
	char why[96];
	int ret;

	memset(out, 0, sizeof(*out));
	if (!strcmp(s, "off")) {
		out->off = true;
		return 0;
	}
	if (strpbrk(s, " \t#"))
		return set_err(err, errlen, -EINVAL, "listen '%s': blanks and '#' belong to no "
			       "address ('off' or ADDR:PORT)", s);
	if (s[0] == '[') {
		close = strchr(s, ']');
		if (!close)
			return set_err(err, errlen, -EINVAL, "listen '%s': unterminated [IPv6] "
				       "address", s);
		if (close[1] != ':')
			return set_err(err, errlen, -EINVAL,
				       "listen '%s': no port after the [IPv6] "
				       "address ([ADDR6]:PORT)",
				       s);
		colon = close + 1;
		ret = listen_host(s, s + 1, (size_t)(close - s - 1), true, out, err, errlen);
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return set_err(err, errlen, -EINVAL,
				       "listen '%s' is not 'off' or ADDR:PORT", s);
		ret = listen_host(s, s, (size_t)(colon - s), false, out, err, errlen);
	}
	if (ret)
		return ret;
	if (parse_dec(colon + 1, min_port, 65535, &port, why, sizeof(why)))
		return set_err(err, errlen, -EINVAL, "listen '%s': port '%s': %s", s, colon + 1,
			       why);
	out->port = (unsigned short)port;
	return 0;
}

static const char *const errno_names[] = {
	[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH", [EINVAL] = "EINVAL",
	[EBUSY] = "EBUSY", [EEXIST] = "EEXIST", [ENODEV] = "ENODEV", [EACCES] = "EACCES",
	[ENOSPC] = "ENOSPC", [E2BIG] = "E2BIG", [EOPNOTSUPP] = "EOPNOTSUPP",
	[EILSEQ] = "EILSEQ", [EFAULT] = "EFAULT",
	[ENOMEM] = "ENOMEM", [ENOTTY] = "ENOTTY", [ENXIO] = "ENXIO",
	[EPROTO] = "EPROTO", [EMFILE] = "EMFILE", [ENFILE] = "ENFILE",
};

const char *errno_str(int err, char *buf, size_t len)
{
	int e = err < 0 ? -err : err;
	const char *n = (size_t)e < ARRAY_SIZE(errno_names) ? errno_names[e] : NULL;
	char lim[96];

	/* a resource limit named, not just the errno it caused */
	if ((e == EMFILE || e == ENFILE || e == ENOMEM) && limit_explain(e, lim, sizeof(lim)))
		snprintf(buf, len, "%s%s%s", e == ENOMEM ? "Cannot allocate memory (ENOMEM): " : "",
			 lim, e == ENOMEM ? "" : e == EMFILE ? " (EMFILE)" : " (ENFILE)");
	else if (e == 524)	/* kernel-internal ENOTSUPP leaks out of some paths */
		snprintf(buf, len, "Operation not supported (ENOTSUPP)");
	else if (n)
		snprintf(buf, len, "%s (%s)", strerror(e), n);
	else
		snprintf(buf, len, "%s (errno %d)", strerror(e), e);
	return buf;
}
