// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fentry backend: BPF fentry (entry) and fexit (return, for latency)
 * through the BPF trampoline, i.e. an ftrace direct call. The templates
 * are loaded once against the probe function; each hook gets clones with
 * its own attach_btf_id, slot and filters (immediates). The kernel counts
 * recursion misses per program, so per hook.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "stacks.h"
#include "../lib/log.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpfutil.h"
#include "resolve.h"
#include "fentry.skel.h"

BPF_SKEL_ADAPTERS(fentry_bpf)

static const struct bpf_skel fentry_skel = {
	BPF_SKEL_FNS(fentry_bpf),
	.name = "fentry",
	.progs = (const char *const[]){ "fentry_entry", "fexit_return", "fentry_entry_count",
					"fentry_entry_lat", "fexit_return_lat", NULL },
	.aim = "function",
	.what = "fentry program",
};

static int fentry_load(struct tracerd *d, const char *target, char *err, size_t errlen)
{
	return bpf_skel_load(d, &fentry_skel, target, &d->be_state[TRACERD_MODE_FENTRY], err,
			     errlen);
}

/* Clone prog (entry or return) for hook h of a, its filters baked in, and attach it. */
static int fentry_attach_prog(struct tracerd *d, struct attachment *a, struct hook *h,
			      int which, const struct bpf_program *tmpl)
{
	int fd, ret, btf_fd = resolve_module_btf_fd(d, h->module);
	char ebuf[96], err[HOOK_ERR_MAX] = "";

	if (btf_fd < 0)
		return hook_err(h, btf_fd, "no BTF for module '%s' of '%s'",
				h->module, h->name);
	tmpl = bpf_hook_tmpl(((struct fentry_bpf *)d->be_state[TRACERD_MODE_FENTRY])->obj, tmpl,
			     &a->spec);
	fd = bpf_clone_hook(tmpl, h->slot, &a->spec, (__u32)h->btf_id, btf_fd, err,
			    sizeof(err));
	if (fd < 0)
		return hook_err_msg(h, fd, err);
	bpf_hook(h)->prog_fd[which] = fd;
	fd = bpf_raw_tracepoint_open(NULL, fd);
	if (fd < 0) {
		ret = -errno;
		return hook_err(h, ret, "failed to attach %s to '%s': %s",
				which ? "fexit" : "fentry", h->name,
				errno_str(ret, ebuf, sizeof(ebuf)));
	}
	bpf_hook(h)->link_fd[which] = fd;
	return 0;
}

static int fentry_attach_hook(struct tracerd *d, struct attachment *a, struct hook *h)
{
	struct fentry_bpf *skel = d->be_state[TRACERD_MODE_FENTRY];
	int ret;

	if (!bpf_hook_new(h))
		return hook_err(h, -ENOMEM, "out of memory");
	ret = fentry_attach_prog(d, a, h, 0, skel->progs.fentry_entry);
	if (!ret && spec_returns(&a->spec))
		ret = fentry_attach_prog(d, a, h, 1, skel->progs.fexit_return);
	return ret;
}

static int fentry_attach(struct tracerd *d, struct attachment *a)
{
	char err[HOOK_ERR_MAX] = "";
	int ret;

	ret = fentry_load(d, d->probe_fn[0] ? d->probe_fn : a->hooks[0].name, err, sizeof(err));
	if (ret)
		return hook_err_msg(&a->hooks[0], ret, err);
	return bpf_hooks_attach(d, a, fentry_attach_hook);
}

static int fentry_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			 __u64 *out, const char **why)
{
	if (hook_prog_misses(h, out) < 0) {
		*why = "cannot read program info";
		return -ENODATA;
	}
	return 0;
}

static int fentry_probe(struct tracerd *d, char *reason, size_t len)
{
	struct fentry_bpf *skel;
	int ret;

	ret = fentry_load(d, d->probe_fn, reason, len);
	if (ret)
		return ret;
	skel = d->be_state[TRACERD_MODE_FENTRY];
	return bpf_probe_link(bpf_program__attach_trace(skel->progs.fentry_entry), "",
			      d->probe_fn, reason, len);
}

static void fentry_fini(struct tracerd *d)
{
	bpf_skel_free(&fentry_skel, &d->be_state[TRACERD_MODE_FENTRY]);
}

const struct backend backend_fentry = {
	.mode = TRACERD_MODE_FENTRY,
	.stacks = bpf_stacks,
	/* args at the return too: fexit's ctx holds them */
	.caps = BE_CAPS_BPF_FUNCTION | MODE_CAP_DIRECT_CALL | MODE_CAP_NEEDS_BTF |
		MODE_CAP_ARGS_RET,
	.auto_why = { "one function: fentry is the cheapest BPF hook per call",
		      "many functions, kprobe.multi unavailable: fentry is the cheapest per call" },
	.probe = fentry_probe,
	.attach = fentry_attach,
	.detach = bpf_hooks_detach,
	.progs = bpf_hooks_progs,
	.misses = fentry_misses,
	.fini = fentry_fini,
	.variant = { [MODE_VARIANT_EMPTY] = &backend_fentry_empty },
	.fds = { { 2, 4 }, { 0, 0 } },	/* a program and its link, per program */
};
