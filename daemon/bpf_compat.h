/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * BPF API newer than the oldest one tracerd builds against (Debian 12:
 * libbpf 1.1 and 6.1's UAPI headers), in one place. What a newer libbpf
 * offers is compiled in where it is present (TRACERD_LIBBPF_*); without
 * it the same kernel call is made by hand. Whether the running kernel
 * allows it is for the backends' probes to find out.
 */
#ifndef TRACERD_BPF_COMPAT_H
#define TRACERD_BPF_COMPAT_H

#include <stdbool.h>
#include <stdbool.h>
#include <linux/types.h>
#include <bpf/libbpf_version.h>

#define TRACERD_LIBBPF_AT_LEAST(major, minor)					\
	(LIBBPF_MAJOR_VERSION > (major) ||					\
	 (LIBBPF_MAJOR_VERSION == (major) && LIBBPF_MINOR_VERSION >= (minor)))

/* libbpf 1.5: bpf_link_create() knows BPF_TRACE_KPROBE_SESSION */
#define TRACERD_LIBBPF_KPROBE_SESSION	TRACERD_LIBBPF_AT_LEAST(1, 5)

/* enum bpf_attach_type values past 6.1's linux/bpf.h (UAPI: never renumbered) */
enum {
	TRACERD_TRACE_KPROBE_SESSION	= 56,	/* 6.10 */
	TRACERD_TRACE_FSESSION		= 58,	/* 7.x */
	TRACERD_TRACE_FENTRY_MULTI	= 59,
	TRACERD_TRACE_FEXIT_MULTI	= 60,
	TRACERD_TRACE_FSESSION_MULTI	= 61,
};

/* The session kfuncs (bpf_session_cookie, bpf_session_is_return) in a kernel's BTF. */
enum session_kfuncs {
	SESSION_KFUNCS_NONE,	/* none: no session programs before 6.10 */
	SESSION_KFUNCS_VOID,	/* f(void): 6.10 to 6.x */
	SESSION_KFUNCS_CTX,	/* f(void *ctx): since fsession (7.x) */
};
struct btf;
enum session_kfuncs session_kfuncs(const struct btf *vmlinux);
/* Does the kernel have tracing-multi links (its BTF: bpf_multi_func, 7.x)? */
bool tracing_multi_kernel(const struct btf *vmlinux);

/*
 * One kprobe.session link of prog_fd over syms[0..cnt), each with its
 * cookie: the link fd, or -errno.
 */
int kprobe_session_link(int prog_fd, const char **syms, const __u64 *cookies, __u32 cnt);

/*
 * One tracing-multi link (BPF_TRACE_FENTRY_MULTI, _FEXIT_MULTI,
 * _FSESSION_MULTI, 7.x) of prog_fd over the BTF ids ids[0..cnt) of the
 * BTF object the program was loaded against, each with its cookie: the
 * link fd, or -errno. No libbpf has it yet (bpf_link_create): by hand.
 */
int tracing_multi_link(int prog_fd, unsigned int attach_type, const __u32 *ids,
		       const __u64 *cookies, __u32 cnt);

#endif
