// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobe-multi backend: BPF kprobe.multi (fprobe -> ftrace_ops -> BPF),
 * one link for every function of an attachment, the cookie of each
 * function its slot; kretprobe.multi on a second link for latency. Each
 * attachment gets its own clones of the templates, its filters baked in
 * (bpf_clone_hook; the slot too when it has one function). The
 * kernel attaches all functions or none, so this backend is all or nothing.
 * An attachment of REGISTRY_JOB_MIN functions or more creates and closes
 * its links on the registry's worker thread (struct bpf_job, bpfutil.h).
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
 * An attach of an attachment as a job (bpfutil.h, struct bpf_job): built
 * in the loop (the clones, the symbol and cookie arrays), its one or two
 * link creates run by bpf_job_run (the registry's worker thread for a big
 * one: attach '*' of 42k functions is a 9.6 s link create under TCG;
 * multi_attach runs it in place), applied by multi_job_finish. j->ctx:
 */
struct multi_job {
	struct multi_links *ml;	/* a->priv once applied */
	const char **syms;	/* the hooks' names */
	__u64 *cookies;
	size_t n;
	struct bpf_link_create_opts opts[2];	/* entry, return */
	__u64 ns_counts, ns_clone;	/* the count tier's map, the clones' loads */
};

static int multi_link_create(int prog_fd, const void *opts)
{
	int fd = bpf_link_create(prog_fd, 0, BPF_TRACE_KPROBE_MULTI, opts);

	return fd < 0 ? -errno : fd;
}

static void multi_job_free(struct bpf_job *j)
{
	struct multi_job *mj = j ? j->ctx : NULL;

	if (mj) {
		free(mj->syms);
		free(mj->cookies);
		free(mj);
	}
	free(j);
}

/*
 * The clone of link i (0 entry, 1 return) into ml->prog[i] and its create
 * in j->link[i]: the count tier's (backend.h, count_tier: it counts in
 * ml's own per-CPU array, the cookie of hooks[i] i) or one with the slots
 * (one function: its slot in the immediate, no cookie lookup per call).
 */
static int multi_job_clone(struct kprobe_multi_bpf *skel, struct attachment *a, struct bpf_job *j,
			   size_t i, char *err, size_t errlen)
{
	struct multi_job *mj = j->ctx;
	struct multi_links *ml = mj->ml;
	__u32 slot = a->nr_hooks == 1 ? a->hooks[0].slot : TRACERD_SLOT_COOKIE;
	const struct bpf_program *p = i ? skel->progs.multi_return : skel->progs.multi_entry;

	p = bpf_hook_tmpl(skel->obj, p, &a->spec);
	if (ml->counts.fd >= 0)
		ml->prog[i] = bpf_clone_count(p, BPF_TRACE_KPROBE_MULTI, &a->spec,
					      bpf_map__fd(skel->maps.slot_stats), ml->counts.fd,
					      0, err, errlen);
	else
		ml->prog[i] = bpf_clone_hook(p, slot, &a->spec, 0, 0, err, errlen);
	if (ml->prog[i] < 0)
		return ml->prog[i];
	mj->opts[i] = (struct bpf_link_create_opts){
		.sz = sizeof(mj->opts[i]),
		.kprobe_multi.syms = mj->syms,
		.kprobe_multi.cookies = mj->cookies,
		.kprobe_multi.cnt = (__u32)mj->n,
		.kprobe_multi.flags = i ? BPF_F_KPROBE_MULTI_RETURN : 0,
	};
	j->link[i].create = multi_link_create;
	j->link[i].prog_fd = ml->prog[i];
	j->link[i].arg = &mj->opts[i];
	return 0;
}

/* a's attach job; NULL with *ret (-errno) and err set, nothing left open */
static struct bpf_job *multi_attach_job(struct tracerd *d, struct attachment *a, int *ret,
					char *err, size_t errlen)
{
	bool counts = backend_slotless(a->be, &a->spec);
	struct kprobe_multi_bpf *skel;
	struct multi_links *ml;
	struct multi_job *mj;
	struct bpf_job *j;
	__u64 t0;
	size_t i;

	*ret = multi_load(d, err, errlen);
	if (*ret)
		return NULL;
	skel = d->be_state[TRACERD_MODE_KPROBE_MULTI];
	mj = calloc(1, sizeof(*mj));
	j = mj ? bpf_job_new(!counts && spec_returns(&a->spec) ? 2 : 1, false, mj) : NULL;
	ml = j ? calloc(1, sizeof(*ml)) : NULL;	/* counts.calls NULL: bpf_counts_close frees it */
	if (!ml) {
		free(mj);
		free(j);
		*ret = set_err(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	ml->prog[0] = ml->prog[1] = ml->link[0] = ml->link[1] = -1;
	ml->counts.fd = -1;
	mj->ml = ml;
	mj->n = a->nr_hooks;
	mj->syms = calloc(a->nr_hooks, sizeof(*mj->syms));
	mj->cookies = calloc(a->nr_hooks, sizeof(*mj->cookies));
	*ret = mj->syms && mj->cookies ? 0 : set_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; !*ret && i < a->nr_hooks; i++) {
		mj->syms[i] = a->hooks[i].name;
		mj->cookies[i] = counts ? i : a->hooks[i].slot;
	}
	t0 = now_mono_ns();
	if (!*ret && counts)
		*ret = bpf_counts_create(&ml->counts, a->nr_hooks, "tracerd_counts", err, errlen);
	mj->ns_counts = now_mono_ns() - t0;
	for (i = 0; !*ret && i < j->nr; i++)
		*ret = multi_job_clone(skel, a, j, i, err, errlen);
	mj->ns_clone = now_mono_ns() - t0 - mj->ns_counts;
	if (!*ret)
		return j;
	multi_links_close(ml);
	multi_job_free(j);
	return NULL;
}

/* Apply an attach job that ran: a->priv, the hooks attached; attach's return. */
static int multi_attach_finish(struct attachment *a, struct bpf_job *j)
{
	struct multi_job *mj = j->ctx;
	size_t i, bad = bpf_job_failed(j);
	char err[HOOK_ERR_MAX] = "", ebuf[96];
	int ret = 0;

	for (i = 0; i < j->nr; i++)
		if (j->link[i].fd >= 0)
			mj->ml->link[i] = j->link[i].fd;
	a->priv = mj->ml;	/* on failure too: detach closes what it holds */
	if (bad < j->nr) {
		ret = j->link[bad].fd;
		set_err(err, sizeof(err), ret, "failed to attach %s to %zu function%s ('%s'...): "
			"%s%s", bad ? "kretprobe.multi" : "kprobe.multi", mj->n,
			mj->n == 1 ? "" : "s", mj->syms[0], errno_str(ret, ebuf, sizeof(ebuf)),
			ret == -EOPNOTSUPP ? "; kernel without fprobe (CONFIG_FPROBE)" : "");
	} else {
		for (i = 0; i < a->nr_hooks; i++)
			a->hooks[i].attached = true;
		/* where an attach '*' spends its time (docs/limits.md, "Big globs") */
		if (mj->ml->counts.fd >= 0)
			log_info("kprobe-multi count tier: %zu functions: counters %llu ms, "
				 "clone %llu ms, link %llu ms", mj->n,
				 (unsigned long long)mj->ns_counts / 1000000,
				 (unsigned long long)mj->ns_clone / 1000000, bpf_job_ms(j));
	}
	multi_job_free(j);
	return hook_err_msg(&a->hooks[0], ret, err);
}

/* a detach's job: its links' fds moved from a->priv to be closed; NULL: none */
static struct bpf_job *multi_detach_job(struct attachment *a)
{
	struct multi_links *ml = a->priv;
	struct bpf_job *j;
	size_t i, n = 0;

	if (!ml || ml->link[0] < 0)
		return NULL;
	n = ml->link[1] >= 0 ? 2 : 1;
	j = bpf_job_new(n, true, NULL);
	for (i = 0; j && i < n; i++) {
		j->link[i].fd = ml->link[i];
		ml->link[i] = -1;
	}
	return j;
}

static int multi_attach(struct tracerd *d, struct attachment *a)
{
	char err[HOOK_ERR_MAX] = "";
	struct bpf_job *j;
	int ret;

	j = multi_attach_job(d, a, &ret, err, sizeof(err));
	if (!j)
		return hook_err_msg(&a->hooks[0], ret, err);
	bpf_job_run(j);
	return multi_attach_finish(a, j);
}

/* backend.h, job_prepare: the job of an attach or a detach of every hook */
static void *multi_job_prepare(struct tracerd *d, struct attachment *a, bool detach, int *err)
{
	char msg[HOOK_ERR_MAX] = "";
	struct bpf_job *j;

	*err = 0;
	if (detach)
		return multi_detach_job(a);
	j = multi_attach_job(d, a, err, msg, sizeof(msg));
	if (!j)
		*err = hook_err_msg(&a->hooks[0], *err, msg);
	return j;
}

static int multi_job_finish(struct tracerd *d, struct attachment *a, void *job)
{
	struct bpf_job *j = job;

	(void)d;
	if (!j->detach)
		return multi_attach_finish(a, j);
	/* the clones and the counters go with the attachment (multi_detach) */
	log_info("kprobe-multi: detach of %zu functions: link%s closed in %llu ms", a->nr_hooks,
		 j->nr == 1 ? "" : "s", bpf_job_ms(j));
	free(j);
	return 0;
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

	return bpf_counts_hook_read(d, ml ? &ml->counts : NULL, a, h, s);
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
	.job_prepare = multi_job_prepare,
	.job_run = bpf_job_run,
	.job_finish = multi_job_finish,
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
