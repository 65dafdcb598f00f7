// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsession backend (7.x): BPF_TRACE_FSESSION, one trampoline program run
 * at entry and at return of each call, the kernel's per-call session
 * cookie holding the entry time: latency without a map or a second
 * program. One function: a clone per hook, as fentry. Many functions:
 * BPF_TRACE_FSESSION_MULTI, one clone and link per BTF object
 * (tracing_multi.c), all or nothing, where the kernel has tracing-multi
 * links (x86_64); else a clone per hook too (arm64 7.x has fsession only).
 */
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "stacks.h"
#include "../lib/log.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpf_compat.h"
#include "bpfutil.h"
#include "resolve.h"
#include "tracing_multi.h"
#include "fsession.skel.h"

BPF_SKEL_ADAPTERS(fsession_bpf)

static const struct bpf_skel fsession_skel = {
	BPF_SKEL_FNS(fsession_bpf),
	.name = "fsession",
	.progs = (const char *const[]){ "fsession_hook", NULL },
	.aim = "function",
	.what = "fsession program",
	.attach_type = TRACERD_TRACE_FSESSION,
};

/* d->be_state: the template, and whether the multi form linked at probe time */
struct fs_state {
	void *skel;
	bool multi;
};

/* The loaded template, or NULL with err set. */
static struct fsession_bpf *fs_load(struct tracerd *d, char *err, size_t errlen)
{
	struct fs_state *s = d->be_state[TRACERD_MODE_FSESSION];

	if (session_kfuncs(d->vmlinux_btf) != SESSION_KFUNCS_CTX) {
		set_err(err, errlen, -EOPNOTSUPP,
			"kernel without fsession (BPF_TRACE_FSESSION, Linux 7.x): %s",
			session_kfuncs(d->vmlinux_btf) == SESSION_KFUNCS_NONE
				? "no session kfuncs in its BTF"
				: "its bpf_session_cookie takes no context");
		return NULL;
	}
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s) {
			set_err(err, errlen, -ENOMEM, "out of memory");
			return NULL;
		}
		d->be_state[TRACERD_MODE_FSESSION] = s;
	}
	if (bpf_skel_load(d, &fsession_skel, d->probe_fn, &s->skel, err, errlen))
		return NULL;
	return s->skel;
}

static bool fs_multi(struct tracerd *d)
{
	struct fs_state *s = d->be_state[TRACERD_MODE_FSESSION];

	return s && s->multi;
}

/* One function: a clone of the template aimed at h, linked. */
static int fs_attach_hook(struct tracerd *d, struct attachment *a, struct hook *h)
{
	struct fsession_bpf *skel = ((struct fs_state *)d->be_state[TRACERD_MODE_FSESSION])->skel;
	int fd, ret, btf_fd = resolve_module_btf_fd(d, h->module);
	char ebuf[96], err[HOOK_ERR_MAX] = "";

	if (!bpf_hook_new(h))
		return hook_err(h, -ENOMEM, "out of memory");
	if (btf_fd < 0)
		return hook_err(h, btf_fd, "no BTF for module '%s' of '%s'",
				h->module, h->name);
	fd = bpf_clone_hook(skel->progs.fsession_hook, h->slot, &a->spec, (__u32)h->btf_id, btf_fd,
			    err, sizeof(err));
	if (fd < 0)
		return hook_err_msg(h, fd, err);
	bpf_hook(h)->prog_fd[0] = fd;
	fd = bpf_raw_tracepoint_open(NULL, fd);
	if (fd < 0) {
		ret = -errno;
		return hook_err(h, ret, "failed to attach fsession to '%s': %s",
				h->name, errno_str(ret, ebuf, sizeof(ebuf)));
	}
	bpf_hook(h)->link_fd[0] = fd;
	return 0;
}

static int fs_attach(struct tracerd *d, struct attachment *a)
{
	char err[HOOK_ERR_MAX] = "";
	struct fsession_bpf *skel = fs_load(d, err, sizeof(err));

	if (!skel)
		return hook_err_msg(&a->hooks[0], -EOPNOTSUPP, err);
	if (a->nr_hooks == 1 || !fs_multi(d))
		return bpf_hooks_attach(d, a, fs_attach_hook);
	return tmulti_attach(d, a, skel->obj, skel->progs.fsession_hook, TRACERD_TRACE_FSESSION_MULTI,
			     "fsession.multi");
}

static void fs_detach(struct tracerd *d, struct attachment *a)
{
	if (a->priv)
		tmulti_detach(d, a);
	else
		bpf_hooks_detach(d, a);
}

static int fs_progs(struct tracerd *d, struct attachment *a, int (*fn)(int prog_fd, void *ctx),
		    void *ctx)
{
	return a->priv ? tmulti_progs(d, a, fn, ctx) : bpf_hooks_progs(d, a, fn, ctx);
}

static int fs_misses(struct tracerd *d, struct attachment *a, struct hook *h,
		     __u64 *out, const char **why)
{
	if (a->priv) {
		*why = "fsession.multi misses are counted per program, shared by the functions of "
		       "a link";
		return -ENODATA;
	}
	if (hook_prog_misses(h, out) < 0) {
		*why = "cannot read program info";
		return -ENODATA;
	}
	return 0;
}

static void fs_fini(struct tracerd *d)
{
	struct fs_state *s = d->be_state[TRACERD_MODE_FSESSION];

	if (s)
		bpf_skel_free(&fsession_skel, &s->skel);
	free(s);
	d->be_state[TRACERD_MODE_FSESSION] = NULL;
}

/* Both forms really attached once: the single decides, the multi is used
 * when it links too. A mode the kernel refuses keeps nothing open (fds
 * are few: 85-limits). */
static int fs_probe(struct tracerd *d, char *reason, size_t len)
{
	struct fsession_bpf *skel = fs_load(d, reason, len);
	char why[256];
	int ret;

	if (!skel) {
		fs_fini(d);
		return -EOPNOTSUPP;
	}
	ret = bpf_probe_link(bpf_program__attach_trace(skel->progs.fsession_hook), "",
			     d->probe_fn, reason, len);
	if (ret) {
		fs_fini(d);
		return ret;
	}
	ret = tmulti_probe(d, skel->progs.fsession_hook, TRACERD_TRACE_FSESSION_MULTI,
			   "fsession.multi", why, sizeof(why));
	((struct fs_state *)d->be_state[TRACERD_MODE_FSESSION])->multi = !ret;
	if (ret)
		log_info("mode fsession: many functions get a program each: %s", why);
	return 0;
}

const struct backend backend_fsession = {
	.mode = TRACERD_MODE_FSESSION,
	.stacks = bpf_stacks,
	.caps = BE_CAPS_BPF_FUNCTION | MODE_CAP_MULTI | MODE_CAP_DIRECT_CALL | MODE_CAP_NEEDS_BTF |
		MODE_CAP_ARGS_RET,
	.auto_why = {"latency: one fsession program times entry to return with its session cookie, "
		     "no map",
		     "many functions, latency: one fsession.multi link per BTF object times them "
		     "all, no map"},
	.probe = fs_probe,
	.attach = fs_attach,
	.detach = fs_detach,
	.misses = fs_misses,
	.fini = fs_fini,
	.progs = fs_progs,
	.batch = BACKEND_BATCH_ALL, /* one link per BTF object (the multi form) */
	/* per function at worst: a clone and its link each (no multi form) */
	.fds = {{2, 2}, {0, 0}},
};
