// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobe-multi backend: BPF kprobe.multi (fprobe -> ftrace_ops -> BPF),
 * one link for every function of an attachment, the cookie of each
 * function its slot; kretprobe.multi on a second link for latency. The
 * kernel attaches all functions or none, so this backend is all or nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include "backend.h"
#include "kprobe_multi.skel.h"

static int multi_load(struct tracerd *d, char *err, size_t errlen)
{
	struct kprobe_multi_bpf *skel;
	char ebuf[96];
	int ret;

	if (d->be_state[TRACERD_MODE_KPROBE_MULTI])
		return 0;
	skel = kprobe_multi_bpf__open();
	if (!skel) {
		ret = -errno;
		return set_err(err, errlen, ret, "failed to open kprobe.multi BPF object: %s",
			       errno_str(ret, ebuf, sizeof(ebuf)));
	}
	bpf_program__set_autoload(skel->progs.multi_entry, true);
	bpf_program__set_autoload(skel->progs.multi_return, true);
	ret = maps_reuse(d, skel->obj);
	if (!ret)
		ret = kprobe_multi_bpf__load(skel);
	if (ret) {
		set_err(err, errlen, ret, "failed to load kprobe.multi programs: %s",
			errno_str(ret, ebuf, sizeof(ebuf)));
		kprobe_multi_bpf__destroy(skel);
		return ret;
	}
	d->be_state[TRACERD_MODE_KPROBE_MULTI] = skel;
	return 0;
}

/* One kprobe.multi link over syms[0..n) with cookies; NULL + errno on failure. */
static struct bpf_link *multi_link(const struct bpf_program *prog, const char **syms,
				   const __u64 *cookies, size_t n, bool ret)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = syms, .cookies = cookies, .cnt = n,
		    .retprobe = ret);

	return bpf_program__attach_kprobe_multi_opts(prog, NULL, &opts);
}

/* a->priv: the attachment's links, entry and return */
struct multi_links {
	struct bpf_link *l[2];
};

static int multi_attach(struct tracerd *d, struct attachment *a)
{
	struct multi_links *ml = calloc(1, sizeof(*ml));
	struct kprobe_multi_bpf *skel;
	const char **syms = NULL;
	__u64 *cookies = NULL;
	char ebuf[96], *err = a->hooks[0].err;
	size_t i, errlen = sizeof(a->hooks[0].err);
	int ret;

	if (!ml)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	a->priv = ml;
	ret = multi_load(d, err, errlen);
	if (ret)
		return ret;
	skel = d->be_state[TRACERD_MODE_KPROBE_MULTI];
	syms = calloc(a->nr_hooks, sizeof(*syms));
	cookies = calloc(a->nr_hooks, sizeof(*cookies));
	if (!syms || !cookies) {
		ret = set_err(err, errlen, -ENOMEM, "out of memory");
		goto cleanup;
	}
	for (i = 0; i < a->nr_hooks; i++) {
		syms[i] = a->hooks[i].name;
		cookies[i] = a->hooks[i].slot;
	}
	ml->l[0] = multi_link(skel->progs.multi_entry, syms, cookies, a->nr_hooks, false);
	if (!ml->l[0]) {
		ret = -errno;
		set_err(err, errlen, ret, "failed to attach kprobe.multi to %zu function%s ('%s'...): %s",
			a->nr_hooks, a->nr_hooks == 1 ? "" : "s", syms[0],
			errno_str(ret, ebuf, sizeof(ebuf)));
		goto cleanup;
	}
	if (a->spec.latency) {
		ml->l[1] = multi_link(skel->progs.multi_return, syms, cookies, a->nr_hooks, true);
		if (!ml->l[1]) {
			ret = -errno;
			set_err(err, errlen, ret, "failed to attach kretprobe.multi to '%s'...: %s",
				syms[0], errno_str(ret, ebuf, sizeof(ebuf)));
			goto cleanup;
		}
	}
	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].attached = true;
	ret = 0;
cleanup:
	free(syms);
	free(cookies);
	return ret;
}

static void multi_detach(struct tracerd *d, struct attachment *a)
{
	struct multi_links *ml = a->priv;
	size_t i;

	if (ml) {
		bpf_link__destroy(ml->l[0]);
		bpf_link__destroy(ml->l[1]);
		free(ml);
	}
	a->priv = NULL;
	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].attached = false;
}

static int multi_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			__u64 *out, const char **why)
{
	*why = "kprobe.multi misses are counted per link by the kernel, not per function";
	return -ENODATA;
}

static int multi_probe(struct tracerd *d, char *reason, size_t len)
{
	struct kprobe_multi_bpf *skel;
	const char *sym = d->probe_fn;
	__u64 cookie = TRACERD_MAX_SLOTS;	/* out of range: does nothing */
	struct bpf_link *l;
	char ebuf[96];
	int ret;

	ret = multi_load(d, reason, len);
	if (ret)
		return ret;
	skel = d->be_state[TRACERD_MODE_KPROBE_MULTI];
	l = multi_link(skel->progs.multi_entry, &sym, &cookie, 1, false);
	if (!l) {
		ret = -errno;
		return set_err(reason, len, ret, "attach to '%s' refused: %s%s", sym,
			       errno_str(ret, ebuf, sizeof(ebuf)),
			       ret == -EOPNOTSUPP ? "; kernel without fprobe (CONFIG_FPROBE)" : "");
	}
	bpf_link__destroy(l);
	return 0;
}

static void multi_fini(struct tracerd *d)
{
	kprobe_multi_bpf__destroy(d->be_state[TRACERD_MODE_KPROBE_MULTI]);
	d->be_state[TRACERD_MODE_KPROBE_MULTI] = NULL;
}

const struct backend backend_kprobe_multi = {
	.mode = TRACERD_MODE_KPROBE_MULTI,
	.caps = BE_CAPS_BPF_FUNCTION | MODE_CAP_MULTI,
	.auto_why = { NULL, "many functions: one kprobe.multi link attaches them all at once" },
	.probe = multi_probe,
	.attach = multi_attach,
	.detach = multi_detach,
	.misses = multi_misses,
	.fini = multi_fini,
	.variant = { [MODE_VARIANT_EMPTY] = &backend_kprobe_multi_empty },
	.batch = true,	/* one link for all: the kernel takes them at once */
	.fds = { { 0, 0 }, { 1, 2 } },
};
