// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fentry-multi backend (7.x): one fentry program attached to many
 * functions in one link (BPF_TRACE_FENTRY_MULTI), and one fexit program
 * in a second for latency (_FEXIT_MULTI); a link per BTF object the
 * functions live in (tracing_multi.c). All or nothing, as kprobe-multi,
 * but through BPF trampolines (direct calls) instead of fprobe.
 */
#include <errno.h>
#include <bpf/libbpf.h>
#include "stacks.h"
#include "../lib/util.h"
#include "bpf_compat.h"
#include "bpfutil.h"
#include "tracing_multi.h"
#include "fentry_multi.skel.h"

BPF_SKEL_ADAPTERS(fentry_multi_bpf)

static const struct bpf_skel fmulti_skel = {
	BPF_SKEL_FNS(fentry_multi_bpf),
	.name = "fentry.multi",
	.progs = (const char *const[]){ "fmulti_entry", "fmulti_return", NULL },
	.aim = "function",
	.what = "fentry.multi templates",
};

static struct fentry_multi_bpf *fmulti_load(struct tracerd *d, char *err, size_t errlen)
{
	void **skel = &d->be_state[TRACERD_MODE_FENTRY_MULTI];

	if (!tracing_multi_kernel(d->vmlinux_btf)) {
		set_err(err, errlen, -EOPNOTSUPP,
			"kernel without fentry.multi (BPF_TRACE_FENTRY_MULTI, "
			"Linux 7.x): no bpf_multi_func in its BTF");
		return NULL;
	}
	if (bpf_skel_load(d, &fmulti_skel, d->probe_fn, skel, err, errlen))
		return NULL;
	return *skel;
}

static int fmulti_attach(struct tracerd *d, struct attachment *a)
{
	char err[HOOK_ERR_MAX] = "";
	struct fentry_multi_bpf *skel = fmulti_load(d, err, sizeof(err));
	int ret;

	if (!skel)
		return hook_err_msg(&a->hooks[0], -EOPNOTSUPP, err);
	/* the return half first: the kernel refuses fexit on a __noreturn
	 * function (tracing_multi.c skips it), and its entry must then not be
	 * linked either (its slot is freed with the skipped hook) */
	if (spec_returns(&a->spec)) {
		ret = tmulti_attach(d, a, skel->progs.fmulti_return, TRACERD_TRACE_FEXIT_MULTI,
				    "fexit.multi");
		if (ret)
			return ret;
	}
	return tmulti_attach(d, a, skel->progs.fmulti_entry, TRACERD_TRACE_FENTRY_MULTI,
			     "fentry.multi");
}

static int fmulti_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			 __u64 *out, const char **why)
{
	*why = "fentry.multi misses are counted per program, shared by the functions of a link";
	return -ENODATA;
}

static void fmulti_fini(struct tracerd *d)
{
	bpf_skel_free(&fmulti_skel, &d->be_state[TRACERD_MODE_FENTRY_MULTI]);
}

/* A mode the kernel refuses keeps nothing open (fds are few: 85-limits). */
static int fmulti_probe(struct tracerd *d, char *reason, size_t len)
{
	struct fentry_multi_bpf *skel = fmulti_load(d, reason, len);
	int ret;

	if (!skel)
		return -EOPNOTSUPP;
	ret = tmulti_probe(d, skel->progs.fmulti_entry, TRACERD_TRACE_FENTRY_MULTI,
			   "fentry.multi", reason, len);
	if (ret)
		fmulti_fini(d);
	return ret;
}

const struct backend backend_fentry_multi = {
	.mode = TRACERD_MODE_FENTRY_MULTI,
	.stacks = bpf_stacks,
	.caps = BE_CAPS_BPF_FUNCTION | MODE_CAP_MULTI | MODE_CAP_DIRECT_CALL | MODE_CAP_NEEDS_BTF |
		MODE_CAP_ARGS_RET,
	.auto_why = {NULL,
		     "many functions: one fentry.multi link per BTF object attaches them all, "
		     "through trampolines (cheaper per call than kprobe.multi)"},
	.probe = fmulti_probe,
	.attach = fmulti_attach,
	.detach = tmulti_detach,
	.misses = fmulti_misses,
	.fini = fmulti_fini,
	.progs = tmulti_progs,
	.batch = BACKEND_BATCH_ALL, /* one link pair per BTF object */
	.fds = {{0, 0}, {8, 8}},    /* entry and exit programs and links, vmlinux and a module */
};
