// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers shared by the BPF backends: program clones, misses, logging. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/filter.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include "backend.h"

static const char *const errno_names[] = {
	[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH", [EINVAL] = "EINVAL",
	[EBUSY] = "EBUSY", [EEXIST] = "EEXIST", [ENODEV] = "ENODEV", [EACCES] = "EACCES",
	[ENOSPC] = "ENOSPC", [E2BIG] = "E2BIG", [EOPNOTSUPP] = "EOPNOTSUPP",
	[EILSEQ] = "EILSEQ", [EFAULT] = "EFAULT",
	[ENOMEM] = "ENOMEM", [ENOTTY] = "ENOTTY", [ENXIO] = "ENXIO",
	[EPROTO] = "EPROTO",
};

const char *errno_str(int err, char *buf, size_t len)
{
	int e = err < 0 ? -err : err;
	const char *n = (size_t)e < ARRAY_SIZE(errno_names) ? errno_names[e] : NULL;

	if (e == 524)	/* kernel-internal ENOTSUPP leaks out of some paths */
		snprintf(buf, len, "Operation not supported (ENOTSUPP)");
	else if (n)
		snprintf(buf, len, "%s (%s)", strerror(e), n);
	else
		snprintf(buf, len, "%s (errno %d)", strerror(e), e);
	return buf;
}

static int libbpf_verbose;

/* libbpf warnings are expected while probing: shown with -v, its debug with -vv */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int l = level == LIBBPF_WARN ? TLOG_INFO : TLOG_DEBUG;
	char *msg, *line, *save = NULL;

	if (level == LIBBPF_DEBUG && libbpf_verbose < 2)
		return 0;
	/* verifier logs come as one long message: log them line by line */
	if (vasprintf(&msg, fmt, ap) < 0)
		return 0;
	for (line = strtok_r(msg, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		tlog(l, "%s", line);
	free(msg);
	return 0;
}

void libbpf_log_setup(int verbose)
{
	libbpf_verbose = verbose;
	libbpf_set_print(libbpf_print);
}

int bpf_clone_prog(const struct bpf_program *tmpl, __u32 slot, __u32 attach_btf_id,
		   int attach_btf_obj_fd, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		.expected_attach_type = bpf_program__expected_attach_type(tmpl),
		.attach_btf_id = attach_btf_id,
		.attach_btf_obj_fd = attach_btf_obj_fd,
	);
	size_t i, n = bpf_program__insn_cnt(tmpl), patched = 0;
	struct bpf_insn *insns;
	char ebuf[96];
	int fd;

	insns = malloc(n * sizeof(*insns));
	if (!insns)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	memcpy(insns, bpf_program__insns(tmpl), n * sizeof(*insns));
	for (i = 0; i < n; i++) {
		__u8 cls = BPF_CLASS(insns[i].code);

		if ((cls == BPF_ALU64 || cls == BPF_ALU) &&
		    BPF_OP(insns[i].code) == BPF_MOV && BPF_SRC(insns[i].code) == BPF_K &&
		    insns[i].imm == TRACERD_SLOT_MAGIC) {
			insns[i].imm = (__s32)slot;
			patched++;
		}
	}
	if (!patched) {
		free(insns);
		return set_err(err, errlen, -EINVAL, "program '%s' has no slot immediate",
			       bpf_program__name(tmpl));
	}
	fd = bpf_prog_load(bpf_program__type(tmpl), bpf_program__name(tmpl), "GPL",
			   insns, n, &opts);
	if (fd < 0) {
		fd = -errno;
		set_err(err, errlen, fd, "failed to load %s clone: %s",
			bpf_program__name(tmpl), errno_str(fd, ebuf, sizeof(ebuf)));
	}
	free(insns);
	return fd;
}

int bpf_prog_misses(int prog_fd, __u64 *out)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	*out = info.recursion_misses;
	return 0;
}

void hook_close_fds(struct hook *h)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (h->link_fd[i] >= 0)
			close(h->link_fd[i]);
		if (h->prog_fd[i] >= 0)
			close(h->prog_fd[i]);
		h->link_fd[i] = h->prog_fd[i] = -1;
		bpf_link__destroy(h->link[i]);
		h->link[i] = NULL;
	}
	h->attached = false;
}
