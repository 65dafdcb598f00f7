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
#include "../lib/log.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpf_compat.h"
#include "bpfutil.h"
#include "kprobe_session.skel.h"
#include "kprobe_session_v0.skel.h"

BPF_SKEL_ADAPTERS(kprobe_session_bpf)
BPF_SKEL_ADAPTERS(kprobe_session_v0_bpf)

#define KS_PROGS	((const char *const[]){ "session_hook", "session_count", \
					"session_count_count", NULL })

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

/* The loaded object (ks_prog loaded it) */
static struct bpf_object *ks_obj(struct tracerd *d)
{
	struct ks_state *s = d->be_state[TRACERD_MODE_KPROBE_SESSION];

	return ks_skel[s->form].obj(s->skel);
}

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

/* err says link creation over n functions from first failed with ret; ret */
static int ks_link_err(char *err, size_t errlen, int ret, size_t n, const char *first)
{
	char ebuf[96];

	return set_err(err, errlen, ret,
		       "failed to attach kprobe.session to %zu function%s ('%s'...): %s%s", n,
		       n == 1 ? "" : "s", first, errno_str(ret, ebuf, sizeof(ebuf)),
		       ret == -EOPNOTSUPP ? "; kernel without fprobe (CONFIG_FPROBE)" : "");
}

/* a->priv: the link, and a count-tier attachment's clone and counters
 * (prog and counts.fd -1: it has slots, and the object's program) */
struct ks_links {
	int link, prog;
	struct bpf_counts counts;
};

static void ks_links_close(struct ks_links *kl)
{
	if (!kl)
		return;
	if (kl->link >= 0)
		close(kl->link);
	if (kl->prog >= 0)
		close(kl->prog);
	bpf_counts_close(&kl->counts);
	free(kl);
}

/*
 * An attach as a job (bpfutil.h, struct bpf_job), as kprobe-multi's: the
 * program loaded (the count tier's clone and counters made) and the symbol
 * and cookie arrays built in the loop, the one link create run by
 * bpf_job_run (on the registry's worker thread for REGISTRY_JOB_MIN
 * functions or more, in place for fewer), applied by ks_attach_finish. A
 * detach's job closes the link. j->ctx:
 */
struct ks_job {
	const char **syms;	/* the hooks' names */
	__u64 *cookies;		/* their slots (count tier: their indexes) */
	size_t n;
	struct ks_links *kl;	/* a->priv once applied */
};

static int ks_link_create(int prog_fd, const void *arg)
{
	const struct ks_job *kj = arg;

	return kprobe_session_link(prog_fd, kj->syms, kj->cookies, (__u32)kj->n);
}

static void ks_job_free(struct bpf_job *j)
{
	struct ks_job *kj = j ? j->ctx : NULL;

	if (kj) {
		free(kj->syms);
		free(kj->cookies);
		ks_links_close(kj->kl);
		free(kj);
	}
	free(j);
}

/* The count tier's clone into kl (backend.h count_tier: counts in kl's own
 * counters, the cookie of hooks[i] i): its fd, or -errno with err set */
static int ks_count_prog(struct tracerd *d, struct attachment *a, struct ks_links *kl,
			 char *err, size_t errlen)
{
	struct bpf_object *obj = ks_obj(d);
	const struct bpf_program *p = bpf_object__find_program_by_name(obj, "session_count");
	int ret;

	if (!p || bpf_program__fd(p) < 0)
		return set_err(err, errlen, -ENOENT, "no kprobe.session count program loaded");
	ret = bpf_counts_create(&kl->counts, a->nr_hooks, "tracerd_counts", err, errlen);
	if (ret)
		return ret;
	kl->prog = bpf_clone_count(bpf_hook_tmpl(obj, p, &a->spec), TRACERD_TRACE_KPROBE_SESSION,
				   &a->spec, bpf_map__fd(bpf_object__find_map_by_name(obj, "slot_stats")),
				   kl->counts.fd, 0, err, errlen);
	return kl->prog;
}

/* a's attach job; NULL with *ret (-errno) and err set */
static struct bpf_job *ks_attach_job(struct tracerd *d, struct attachment *a, int *ret,
				     char *err, size_t errlen)
{
	bool counts = backend_slotless(a->be, &a->spec);
	struct ks_job *kj = calloc(1, sizeof(*kj));
	struct bpf_job *j = kj ? bpf_job_new(1, false, kj) : NULL;
	size_t i;
	int prog;

	if (j) {	/* else only kj to free: nothing allocated in it */
		kj->n = a->nr_hooks;
		kj->syms = calloc(a->nr_hooks, sizeof(*kj->syms));
		kj->cookies = calloc(a->nr_hooks, sizeof(*kj->cookies));
		kj->kl = calloc(1, sizeof(*kj->kl));
		if (kj->kl) {
			kj->kl->link = kj->kl->prog = -1;
			kj->kl->counts.fd = -1;
		}
	}
	if (!j || !kj->syms || !kj->cookies || !kj->kl) {
		if (!j)
			free(kj);
		ks_job_free(j);
		*ret = set_err(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	prog = *ret = ks_prog(d, err, errlen);
	if (prog >= 0 && counts)
		prog = *ret = ks_count_prog(d, a, kj->kl, err, errlen);
	if (prog < 0) {
		ks_job_free(j);
		return NULL;
	}
	*ret = 0;
	for (i = 0; i < a->nr_hooks; i++) {
		kj->syms[i] = a->hooks[i].name;
		kj->cookies[i] = counts ? i : a->hooks[i].slot;
	}
	j->link[0].create = ks_link_create;
	j->link[0].prog_fd = prog;
	j->link[0].arg = kj;
	return j;
}

/* Apply an attach job that ran: a->priv (the link, the count tier's clone
 * and counters), the hooks attached; attach's return. */
static int ks_attach_finish(struct attachment *a, struct bpf_job *j)
{
	struct ks_job *kj = j->ctx;
	char err[HOOK_ERR_MAX] = "";
	int fd = j->link[0].fd;
	size_t i;

	if (fd < 0) {
		ks_link_err(err, sizeof(err), fd, kj->n, kj->syms[0]);
	} else {
		kj->kl->link = fd;
		a->priv = kj->kl;
		kj->kl = NULL;
		for (i = 0; i < a->nr_hooks; i++)
			a->hooks[i].attached = true;
		fd = 0;
	}
	ks_job_free(j);
	return hook_err_msg(&a->hooks[0], fd, err);
}

static int ks_attach(struct tracerd *d, struct attachment *a)
{
	char err[HOOK_ERR_MAX] = "";
	struct bpf_job *j;
	int ret;

	j = ks_attach_job(d, a, &ret, err, sizeof(err));
	if (!j)
		return hook_err_msg(&a->hooks[0], ret, err);
	bpf_job_run(j);
	return ks_attach_finish(a, j);
}

/* backend.h, job_prepare: the job of an attach, or of a detach (its link
 * moved out of a->priv to be closed; NULL: none, or out of memory, and the
 * detach runs in the loop) */
static void *ks_job_prepare(struct tracerd *d, struct attachment *a, bool detach, int *err)
{
	char msg[HOOK_ERR_MAX] = "";
	struct ks_links *kl = a->priv;
	struct bpf_job *j;

	*err = 0;
	if (detach) {
		j = kl && kl->link >= 0 ? bpf_job_new(1, true, NULL) : NULL;
		if (j) {	/* the clone and the counters go with the attachment (ks_detach) */
			j->link[0].fd = kl->link;
			kl->link = -1;
		}
		return j;
	}
	j = ks_attach_job(d, a, err, msg, sizeof(msg));
	if (!j)
		*err = hook_err_msg(&a->hooks[0], *err, msg);
	return j;
}

static int ks_job_finish(struct tracerd *d, struct attachment *a, void *job)
{
	struct bpf_job *j = job;

	(void)d;
	if (!j->detach)
		return ks_attach_finish(a, j);
	log_info("kprobe-session: detach of %zu functions: link closed in %llu ms", a->nr_hooks,
		 bpf_job_ms(j));
	free(j);
	return 0;
}

static void ks_detach(struct tracerd *d, struct attachment *a)
{
	size_t i;

	ks_links_close(a->priv);
	a->priv = NULL;
	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].attached = false;
}

/* A hook's calls: the count tier's own counters, else its slot's. */
static int ks_read(struct tracerd *d, struct attachment *a, struct hook *h,
		   struct tracerd_slot_stats *s)
{
	const struct ks_links *kl = a->priv;

	return bpf_counts_hook_read(d, kl ? &kl->counts : NULL, a, h, s);
}

static void ks_read_begin(struct tracerd *d, struct attachment *a)
{
	struct ks_links *kl = a->priv;

	if (kl)
		bpf_counts_read_begin(&kl->counts);
}

static void ks_read_end(struct tracerd *d, struct attachment *a)
{
	struct ks_links *kl = a->priv;

	if (kl)
		bpf_counts_read_end(&kl->counts);
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
	fd = prog < 0 ? prog : kprobe_session_link(prog, &sym, &cookie, 1);
	if (prog >= 0 && fd < 0)
		ks_link_err(reason, len, fd, 1, sym);
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
	.read = ks_read,
	.read_begin = ks_read_begin,
	.read_end = ks_read_end,
	.misses = ks_misses,
	.fini = ks_fini,
	.batch = BACKEND_BATCH_ALL, /* one link for all: the kernel takes them at once */
	.job_prepare = ks_job_prepare,
	.job_run = bpf_job_run,
	.job_finish = ks_job_finish,
	.count_tier = true,
	/* the link, and the count tier's clone and counters */
	.fds = {{0, 0}, {3, 2}},
};
