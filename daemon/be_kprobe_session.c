// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobe-session backend: BPF kprobe.session (6.10+): one kprobe.multi
 * link over every function of an attachment, whose one program runs at
 * entry and at return; each function's link cookie is its slot, and the
 * kernel's per-call session cookie holds the entry time, so latency needs
 * neither a second link nor a per-call map. All or nothing, as
 * kprobe-multi. The program comes in the two kfunc forms kernels have
 * had (bpf_compat.h: session_kfuncs); the kernel's BTF picks one.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "stacks.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpf_compat.h"
#include "bpfutil.h"
#include "kprobe_session.skel.h"
#include "kprobe_session_v0.skel.h"

BPF_SKEL_ADAPTERS(kprobe_session_bpf)
BPF_SKEL_ADAPTERS(kprobe_session_v0_bpf)

#define KS_PROGS	((const char *const[]){ "session_hook", NULL })

static const struct bpf_skel ks_skel[] = {
	[SESSION_KFUNCS_VOID] = {
		BPF_SKEL_FNS(kprobe_session_v0_bpf), BPF_SKEL_NOBTF(kprobe_session_v0_bpf),
		.name = "kprobe.session", .progs = KS_PROGS, .what = "kprobe.session program",
		.attach_type = TRACERD_TRACE_KPROBE_SESSION,
	},
	[SESSION_KFUNCS_CTX] = {
		BPF_SKEL_FNS(kprobe_session_bpf), BPF_SKEL_NOBTF(kprobe_session_bpf),
		.name = "kprobe.session", .progs = KS_PROGS, .what = "kprobe.session program",
		.attach_type = TRACERD_TRACE_KPROBE_SESSION,
	},
};

/* d->be_state: the loaded object and which of ks_skel it is */
struct ks_state {
	enum session_kfuncs form;
	void *skel;
};

/* The loaded program's fd, or -errno with err set. */
static int ks_prog(struct tracerd *d, char *err, size_t errlen)
{
	struct ks_state *s = d->be_state[TRACERD_MODE_KPROBE_SESSION];
	enum session_kfuncs k = session_kfuncs(d->vmlinux_btf);
	int ret;

	if (k == SESSION_KFUNCS_NONE)
		return set_err(err, errlen, -EOPNOTSUPP,
			       "kernel without kprobe sessions: no bpf_session_cookie kfunc in its "
			       "BTF (Linux 6.10+)");
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return set_err(err, errlen, -ENOMEM, "out of memory");
		s->form = k;
		d->be_state[TRACERD_MODE_KPROBE_SESSION] = s;
	}
	ret = bpf_skel_load(d, &ks_skel[s->form], NULL, &s->skel, err, errlen);
	if (ret)
		return ret;
	return bpf_program__fd(bpf_object__find_program_by_name(ks_skel[s->form].obj(s->skel),
								"session_hook"));
}

/* One link over syms[0..n): its fd, or -errno with err set. */
static int ks_link(int prog_fd, const char **syms, const __u64 *cookies, size_t n,
		   char *err, size_t errlen)
{
	int fd = kprobe_session_link(prog_fd, syms, cookies, (__u32)n);
	char ebuf[96];

	if (fd < 0)
		set_err(err, errlen, fd,
			"failed to attach kprobe.session to %zu function%s ('%s'...): %s%s", n,
			n == 1 ? "" : "s", syms[0], errno_str(fd, ebuf, sizeof(ebuf)),
			fd == -EOPNOTSUPP ? "; kernel without fprobe (CONFIG_FPROBE)" : "");
	return fd;
}

/* a->priv: the attachment's one link fd */
static int ks_attach_all(struct tracerd *d, struct attachment *a, char *err, size_t errlen)
{
	size_t i;
	const char **syms = calloc(a->nr_hooks, sizeof(*syms));
	__u64 *cookies = calloc(a->nr_hooks, sizeof(*cookies));
	int *link = malloc(sizeof(*link));
	int prog, ret;

	if (!syms || !cookies || !link) {
		ret = set_err(err, errlen, -ENOMEM, "out of memory");
		goto cleanup;
	}
	prog = ret = ks_prog(d, err, errlen);
	if (ret < 0)
		goto cleanup;
	for (i = 0; i < a->nr_hooks; i++) {
		syms[i] = a->hooks[i].name;
		cookies[i] = a->hooks[i].slot;
	}
	ret = *link = ks_link(prog, syms, cookies, a->nr_hooks, err, errlen);
	if (ret < 0)
		goto cleanup;
	a->priv = link;
	link = NULL;
	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].attached = true;
	ret = 0;
cleanup:
	free(link);
	free(syms);
	free(cookies);
	return ret;
}

static int ks_attach(struct tracerd *d, struct attachment *a)
{
	char err[HOOK_ERR_MAX] = "";

	return hook_err_msg(&a->hooks[0], ks_attach_all(d, a, err, sizeof(err)), err);
}

static void ks_detach(struct tracerd *d, struct attachment *a)
{
	int *link = a->priv;
	size_t i;

	if (link) {
		close(*link);
		free(link);
	}
	a->priv = NULL;
	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].attached = false;
}

static int ks_misses(struct tracerd *d, struct attachment *a, struct hook *h,
		     __u64 *out, const char **why)
{
	*why = "kprobe.session misses are counted per link by the kernel, not per function";
	return -ENODATA;
}

static void ks_fini(struct tracerd *d);

/* A mode the kernel refuses keeps nothing open (fds are few: 85-limits). */
static int ks_probe(struct tracerd *d, char *reason, size_t len)
{
	const char *sym = d->probe_fn;
	__u64 cookie = TRACERD_MAX_SLOTS;	/* out of range: does nothing */
	int prog, fd;

	prog = ks_prog(d, reason, len);
	fd = prog < 0 ? prog : ks_link(prog, &sym, &cookie, 1, reason, len);
	if (fd < 0) {
		ks_fini(d);
		return fd;
	}
	close(fd);
	return 0;
}

static void ks_fini(struct tracerd *d)
{
	struct ks_state *s = d->be_state[TRACERD_MODE_KPROBE_SESSION];

	if (s)
		bpf_skel_free(&ks_skel[s->form], &s->skel);
	free(s);
	d->be_state[TRACERD_MODE_KPROBE_SESSION] = NULL;
}

const struct backend backend_kprobe_session = {
	.mode = TRACERD_MODE_KPROBE_SESSION,
	.stacks = bpf_stacks,
	.caps = BE_CAPS_BPF_FUNCTION | MODE_CAP_MULTI,
	.auto_why = {"latency: one kprobe.session program times entry to return without a map",
		     "many functions: one kprobe.session link attaches them all, and times calls "
		     "without a map"},
	.probe = ks_probe,
	.attach = ks_attach,
	.detach = ks_detach,
	.misses = ks_misses,
	.fini = ks_fini,
	.batch = BACKEND_BATCH_ALL, /* one link for all: the kernel takes them at once */
	.fds = {{0, 0}, {2, 2}},    /* a program and its link */
};
