// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobe-multi backend: BPF kprobe.multi (fprobe -> ftrace_ops -> BPF),
 * one link for every function of an attachment, the cookie of each
 * function its slot; kretprobe.multi on a second link for latency. Each
 * attachment gets its own clones of the templates, its filters baked in
 * (bpf_clone_hook; the slot too when it has one function). The
 * kernel attaches all functions or none, so this backend is all or nothing.
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
#include "kprobe_multi.skel.h"

BPF_SKEL_ADAPTERS(kprobe_multi_bpf)

static const struct bpf_skel multi_skel = {
	BPF_SKEL_FNS(kprobe_multi_bpf),
	BPF_SKEL_NOBTF(kprobe_multi_bpf),
	.name = "kprobe.multi",
	.progs = (const char *const[]){ "multi_entry", "multi_return", "multi_entry_count",
					"multi_entry_lat", "multi_return_lat", NULL },
	.what = "kprobe.multi programs",
	.maps_err_is_load_err = true,
};

static int multi_load(struct tracerd *d, char *err, size_t errlen)
{
	return bpf_skel_load(d, &multi_skel, NULL, &d->be_state[TRACERD_MODE_KPROBE_MULTI], err,
			     errlen);
}

/*
 * A clone of tmpl for slot (TRACERD_SLOT_COOKIE: the cookies say) with
 * spec's filters (NULL: read from slot_cfg), in one kprobe.multi link over
 * syms[0..n) with cookies: the link's fd, the clone's in *prog; -errno
 * with err set.
 */
static int multi_link(const struct bpf_program *tmpl, __u32 slot, const struct tracerd_spec *spec,
		      const char **syms, const __u64 *cookies, size_t n, bool ret, int *prog,
		      char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .kprobe_multi.syms = syms,
		    .kprobe_multi.cookies = cookies, .kprobe_multi.cnt = (__u32)n,
		    .kprobe_multi.flags = ret ? BPF_F_KPROBE_MULTI_RETURN : 0);
	char ebuf[96];
	int fd;

	*prog = bpf_clone_hook(tmpl, slot, spec, 0, 0, err, errlen);
	if (*prog < 0)
		return *prog;
	fd = bpf_link_create(*prog, 0, BPF_TRACE_KPROBE_MULTI, &opts);
	if (fd >= 0)
		return fd;
	fd = -errno;
	return set_err(err, errlen, fd, "failed to attach %s to %zu function%s ('%s'...): %s%s",
		       ret ? "kretprobe.multi" : "kprobe.multi", n, n == 1 ? "" : "s", syms[0],
		       errno_str(fd, ebuf, sizeof(ebuf)),
		       fd == -EOPNOTSUPP ? "; kernel without fprobe (CONFIG_FPROBE)" : "");
}

/* a->priv: the attachment's clones and links, entry and return (-1: none);
 * a count-tier attachment's counters (counts.fd -1: it has slots) */
struct multi_links {
	int prog[2], link[2];
	struct bpf_counts counts;
};

static void multi_links_close(struct multi_links *ml)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (ml->link[i] >= 0)
			close(ml->link[i]);
		if (ml->prog[i] >= 0)
			close(ml->prog[i]);
	}
	bpf_counts_close(&ml->counts);
	free(ml);
}

/*
 * The count tier (backend.h, count_tier): the entry clone counts in ml's
 * own per-CPU array, the cookie of hooks[i] i; the link's fd, the clone's
 * in ml->prog[0]; -errno with err set.
 */
static int multi_link_counts(struct kprobe_multi_bpf *skel, struct attachment *a,
			     struct multi_links *ml, const char **syms, __u64 *cookies,
			     char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .kprobe_multi.syms = syms,
		    .kprobe_multi.cookies = cookies, .kprobe_multi.cnt = (__u32)a->nr_hooks);
	uint64_t t0 = now_mono_ns(), t1, t2;
	char ebuf[96];
	size_t i;
	int fd;

	fd = bpf_counts_create(&ml->counts, a->nr_hooks, "tracerd_counts", err, errlen);
	if (fd)
		return fd;
	for (i = 0; i < a->nr_hooks; i++)
		cookies[i] = i;
	t1 = now_mono_ns();
	ml->prog[0] = bpf_clone_count(bpf_hook_tmpl(skel->obj, skel->progs.multi_entry, &a->spec),
				      BPF_TRACE_KPROBE_MULTI, &a->spec,
				      bpf_map__fd(skel->maps.slot_stats), ml->counts.fd, err,
				      errlen);
	if (ml->prog[0] < 0)
		return ml->prog[0];
	t2 = now_mono_ns();
	fd = bpf_link_create(ml->prog[0], 0, BPF_TRACE_KPROBE_MULTI, &opts);
	if (fd >= 0) {
		/* where an attach '*' spends its time (docs/limits.md, "Big globs") */
		log_info("kprobe-multi count tier: %zu functions: counters %llu ms, clone %llu ms, "
			 "link %llu ms", a->nr_hooks, (unsigned long long)(t1 - t0) / 1000000,
			 (unsigned long long)(t2 - t1) / 1000000,
			 (unsigned long long)(now_mono_ns() - t2) / 1000000);
		return fd;
	}
	fd = -errno;
	return set_err(err, errlen, fd, "failed to attach kprobe.multi to %zu function%s "
		       "('%s'...): %s%s", a->nr_hooks, a->nr_hooks == 1 ? "" : "s", syms[0],
		       errno_str(fd, ebuf, sizeof(ebuf)),
		       fd == -EOPNOTSUPP ? "; kernel without fprobe (CONFIG_FPROBE)" : "");
}

static int multi_attach_all(struct tracerd *d, struct attachment *a, char *err, size_t errlen)
{
	struct multi_links *ml = calloc(1, sizeof(*ml));	/* counts.calls NULL: bpf_counts_close frees it */
	struct kprobe_multi_bpf *skel;
	const char **syms = NULL;
	__u64 *cookies = NULL;
	size_t i;
	/* one function: its slot in the immediate, no cookie lookup per call */
	__u32 slot = a->nr_hooks == 1 ? a->hooks[0].slot : TRACERD_SLOT_COOKIE;
	int ret;

	if (!ml)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	ml->prog[0] = ml->prog[1] = ml->link[0] = ml->link[1] = -1;
	ml->counts.fd = -1;
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
	if (backend_slotless(a->be, &a->spec)) {
		ret = multi_link_counts(skel, a, ml, syms, cookies, err, errlen);
		if (ret < 0)
			goto cleanup;
		ml->link[0] = ret;
		goto attached;
	}
	ret = multi_link(bpf_hook_tmpl(skel->obj, skel->progs.multi_entry, &a->spec), slot,
			 &a->spec, syms, cookies, a->nr_hooks, false, &ml->prog[0], err, errlen);
	if (ret < 0)
		goto cleanup;
	ml->link[0] = ret;
	if (spec_returns(&a->spec)) {
		ret = multi_link(bpf_hook_tmpl(skel->obj, skel->progs.multi_return, &a->spec), slot,
				 &a->spec, syms, cookies, a->nr_hooks, true, &ml->prog[1], err,
				 errlen);
		if (ret < 0)
			goto cleanup;
		ml->link[1] = ret;
	}
attached:
	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].attached = true;
	ret = 0;
cleanup:
	free(syms);
	free(cookies);
	return ret;
}

static int multi_attach(struct tracerd *d, struct attachment *a)
{
	char err[HOOK_ERR_MAX] = "";

	return hook_err_msg(&a->hooks[0], multi_attach_all(d, a, err, sizeof(err)), err);
}

static int multi_progs(struct tracerd *d, struct attachment *a, int (*fn)(int prog_fd, void *ctx),
		       void *ctx)
{
	const struct multi_links *ml = a->priv;
	int i, ret, sum = 0;

	for (i = 0; ml && i < 2; i++) {
		if (ml->prog[i] < 0)
			continue;
		ret = fn(ml->prog[i], ctx);
		if (ret < 0)
			return ret;
		sum += ret;
	}
	return sum;
}

static void multi_detach(struct tracerd *d, struct attachment *a)
{
	size_t i;

	if (a->priv)
		multi_links_close(a->priv);
	a->priv = NULL;
	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].attached = false;
}

/* A hook's calls: the count tier's own counters, else its slot's. */
static int multi_read(struct tracerd *d, struct attachment *a, struct hook *h,
		      struct tracerd_slot_stats *s)
{
	const struct multi_links *ml = a->priv;

	if (!ml || ml->counts.fd < 0)
		return maps_slot_read(d, h->slot, s);
	return bpf_counts_read(&ml->counts, (size_t)(h - a->hooks), &s->calls);
}

static void multi_read_begin(struct tracerd *d, struct attachment *a)
{
	struct multi_links *ml = a->priv;

	if (ml)
		bpf_counts_read_begin(&ml->counts);
}

static void multi_read_end(struct tracerd *d, struct attachment *a)
{
	struct multi_links *ml = a->priv;

	if (ml)
		bpf_counts_read_end(&ml->counts);
}

static int multi_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			__u64 *out, const char **why)
{
	*why = "kprobe.multi misses are counted per link by the kernel, not per function";
	return -ENODATA;
}

static int multi_probe(struct tracerd *d, char *reason, size_t len)
{
	const char *sym = d->probe_fn;
	__u64 cookie = TRACERD_MAX_SLOTS;
	struct kprobe_multi_bpf *skel;
	int ret, prog = -1;

	ret = multi_load(d, reason, len);
	if (ret)
		return ret;
	skel = d->be_state[TRACERD_MODE_KPROBE_MULTI];
	/* an out-of-range slot and no filters baked in: the clone does nothing */
	ret = multi_link(skel->progs.multi_entry, TRACERD_MAX_SLOTS, NULL, &sym, &cookie, 1, false,
			 &prog, reason, len);
	if (ret >= 0)
		close(ret);
	if (prog >= 0)
		close(prog);
	return ret < 0 ? ret : 0;
}

static void multi_fini(struct tracerd *d)
{
	bpf_skel_free(&multi_skel, &d->be_state[TRACERD_MODE_KPROBE_MULTI]);
}

const struct backend backend_kprobe_multi = {
	.mode = TRACERD_MODE_KPROBE_MULTI,
	.stacks = bpf_stacks,
	.caps = BE_CAPS_BPF_FUNCTION | MODE_CAP_MULTI,
	.auto_why = { NULL, "many functions: one kprobe.multi link attaches them all at once" },
	.probe = multi_probe,
	.attach = multi_attach,
	.detach = multi_detach,
	.progs = multi_progs,
	.read = multi_read,
	.read_begin = multi_read_begin,
	.read_end = multi_read_end,
	.misses = multi_misses,
	.fini = multi_fini,
	.variant = { [MODE_VARIANT_EMPTY] = &backend_kprobe_multi_empty },
	.batch = BACKEND_BATCH_ALL,	/* one link for all: the kernel takes them at once */
	.count_tier = true,
	/* per attachment: the entry clone and its link, and the count tier's
	 * counters (which has no return hook) or the return clone and link */
	.fds = { { 0, 0 }, { 3, 4 } },
};
