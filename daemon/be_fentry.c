// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fentry backend: BPF fentry (entry) and fexit (return, for latency)
 * through the BPF trampoline, i.e. an ftrace direct call. The templates
 * are loaded once against the probe function; each hook gets clones with
 * its own attach_btf_id and slot. The kernel counts recursion misses per
 * program, so per hook.
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
#include "fentry.skel.h"

static int fentry_load(struct tracerd *d, const char *target, char *err, size_t errlen)
{
	struct fentry_bpf *skel;
	char ebuf[96];
	int ret;

	if (d->be_state[TRACERD_MODE_FENTRY])
		return 0;
	skel = fentry_bpf__open();
	if (!skel) {
		ret = -errno;
		return set_err(err, errlen, ret, "failed to open fentry BPF object: %s",
			       errno_str(ret, ebuf, sizeof(ebuf)));
	}
	bpf_program__set_autoload(skel->progs.fentry_entry, true);
	bpf_program__set_autoload(skel->progs.fexit_return, true);
	ret = bpf_program__set_attach_target(skel->progs.fentry_entry, 0, target);
	if (!ret)
		ret = bpf_program__set_attach_target(skel->progs.fexit_return, 0, target);
	if (ret) {
		set_err(err, errlen, ret, "no BTF for function '%s': %s", target,
			errno_str(ret, ebuf, sizeof(ebuf)));
		goto cleanup;
	}
	ret = maps_reuse(d, skel->obj);
	if (ret) {
		set_err(err, errlen, ret, "failed to share maps: %s", errno_str(ret, ebuf, sizeof(ebuf)));
		goto cleanup;
	}
	ret = fentry_bpf__load(skel);
	if (ret) {
		set_err(err, errlen, ret, "failed to load fentry program for '%s': %s", target,
			errno_str(ret, ebuf, sizeof(ebuf)));
		goto cleanup;
	}
	d->be_state[TRACERD_MODE_FENTRY] = skel;
	return 0;
cleanup:
	fentry_bpf__destroy(skel);
	return ret;
}

/* Clone prog (entry or return) for hook h and attach it. */
static int fentry_attach_prog(struct hook *h, int which, const struct bpf_program *tmpl)
{
	char ebuf[96];
	int fd, ret;

	fd = bpf_clone_prog(tmpl, h->slot, (__u32)h->btf_id, h->btf_obj_fd, h->err, sizeof(h->err));
	if (fd < 0)
		return fd;
	h->prog_fd[which] = fd;
	fd = bpf_raw_tracepoint_open(NULL, fd);
	if (fd < 0) {
		ret = -errno;
		return set_err(h->err, sizeof(h->err), ret, "failed to attach %s to '%s': %s",
			       which ? "fexit" : "fentry", h->name, errno_str(ret, ebuf, sizeof(ebuf)));
	}
	h->link_fd[which] = fd;
	return 0;
}

static int fentry_attach(struct tracerd *d, struct attachment *a)
{
	struct fentry_bpf *skel;
	int ret, first = 0, n = 0;
	size_t i;

	ret = fentry_load(d, d->probe_fn[0] ? d->probe_fn : a->hooks[0].name,
			  a->hooks[0].err, sizeof(a->hooks[0].err));
	if (ret)
		return ret;
	skel = d->be_state[TRACERD_MODE_FENTRY];
	for (i = 0; i < a->nr_hooks; i++) {
		struct hook *h = &a->hooks[i];

		h->err[0] = '\0';
		if (h->btf_id <= 0) {
			ret = set_err(h->err, sizeof(h->err), -ENOENT,
				      "no BTF for function '%s' (fentry needs it)", h->name);
		} else {
			ret = fentry_attach_prog(h, 0, skel->progs.fentry_entry);
			if (!ret && a->spec.latency)
				ret = fentry_attach_prog(h, 1, skel->progs.fexit_return);
		}
		if (ret) {
			hook_close_fds(h);
			if (!first)
				first = ret;
			continue;
		}
		h->attached = true;
		n++;
	}
	return n ? 0 : first;
}

static void fentry_detach(struct tracerd *d, struct attachment *a)
{
	size_t i;

	for (i = 0; i < a->nr_hooks; i++)
		hook_close_fds(&a->hooks[i]);
}

static int fentry_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			 __u64 *out, const char **why)
{
	__u64 m;
	int i;

	*out = 0;
	for (i = 0; i < 2; i++) {
		if (h->prog_fd[i] < 0)
			continue;
		if (bpf_prog_misses(h->prog_fd[i], &m)) {
			*why = "cannot read program info";
			return -ENODATA;
		}
		*out += m;
	}
	return 0;
}

static int fentry_probe(struct tracerd *d, char *reason, size_t len)
{
	struct fentry_bpf *skel;
	struct bpf_link *l;
	char ebuf[96];
	int ret;

	ret = fentry_load(d, d->probe_fn, reason, len);
	if (ret)
		return ret;
	skel = d->be_state[TRACERD_MODE_FENTRY];
	l = bpf_program__attach_trace(skel->progs.fentry_entry);
	if (!l) {
		ret = -errno;
		return set_err(reason, len, ret, "attach to '%s' refused: %s", d->probe_fn,
			       errno_str(ret, ebuf, sizeof(ebuf)));
	}
	bpf_link__destroy(l);
	return 0;
}

static void fentry_fini(struct tracerd *d)
{
	fentry_bpf__destroy(d->be_state[TRACERD_MODE_FENTRY]);
	d->be_state[TRACERD_MODE_FENTRY] = NULL;
}

const struct backend backend_fentry = {
	.mode = TRACERD_MODE_FENTRY,
	.probe = fentry_probe,
	.attach = fentry_attach,
	.detach = fentry_detach,
	.misses = fentry_misses,
	.fini = fentry_fini,
};
