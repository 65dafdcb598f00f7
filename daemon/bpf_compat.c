// SPDX-License-Identifier: GPL-2.0-or-later
/* BPF API newer than libbpf 1.1: see bpf_compat.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "bpf_compat.h"

enum session_kfuncs session_kfuncs(const struct btf *vmlinux)
{
	const struct btf_type *t;
	int id;

	if (!vmlinux)
		return SESSION_KFUNCS_NONE;
	id = btf__find_by_name_kind(vmlinux, "bpf_session_cookie", BTF_KIND_FUNC);
	if (id < 0)
		return SESSION_KFUNCS_NONE;
	t = btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, id)->type);
	return t && btf_vlen(t) ? SESSION_KFUNCS_CTX : SESSION_KFUNCS_VOID;
}

bool tracing_multi_kernel(const struct btf *vmlinux)
{
	return vmlinux && btf__find_by_name_kind(vmlinux, "bpf_multi_func", BTF_KIND_FUNC) >= 0;
}

int kprobe_session_link(int prog_fd, const char **syms, const __u64 *cookies, __u32 cnt)
{
	int fd;
#if TRACERD_LIBBPF_KPROBE_SESSION
	LIBBPF_OPTS(bpf_link_create_opts, opts, .kprobe_multi.syms = syms,
		    .kprobe_multi.cookies = cookies, .kprobe_multi.cnt = cnt);

	fd = bpf_link_create(prog_fd, 0, BPF_TRACE_KPROBE_SESSION, &opts);
#else
	/* libbpf 1.1 passes only the flags of an attach type it does not know */
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog_fd;
	attr.link_create.attach_type = TRACERD_TRACE_KPROBE_SESSION;
	attr.link_create.kprobe_multi.cnt = cnt;
	attr.link_create.kprobe_multi.syms = (__u64)(unsigned long)syms;
	attr.link_create.kprobe_multi.cookies = (__u64)(unsigned long)cookies;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
#endif
	return fd < 0 ? -errno : fd;
}

/* link_create.tracing_multi of 7.x's UAPI, after the fields every version has */
struct link_create_tracing_multi {
	__u32 prog_fd, target_fd, attach_type, flags;
	__aligned_u64 ids, cookies;
	__u32 cnt;
};

int tracing_multi_link(int prog_fd, unsigned int attach_type, const __u32 *ids,
		       const __u64 *cookies, __u32 cnt)
{
	union bpf_attr attr;
	struct link_create_tracing_multi *lc = (void *)&attr;
	int fd;

	_Static_assert(sizeof(*lc) <= sizeof(attr), "bpf_attr too small");
	memset(&attr, 0, sizeof(attr));
	lc->prog_fd = prog_fd;
	lc->attach_type = attach_type;
	lc->ids = (__u64)(unsigned long)ids;
	lc->cookies = (__u64)(unsigned long)cookies;
	lc->cnt = cnt;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}
