// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod backends: kmod-callops, kmod-direct, kmod-kprobe through
 * /dev/tracerd (tracerd_kmod.ko, ABI in include/tracerd/kmod_abi.h). The
 * daemon resolves each function to its kallsyms address and hands address
 * and name to the module, which checks they agree. Attachments belong to
 * the open fd, so the kernel detaches everything when tracerd dies.
 * Counting is the module's (TRACERD_IOC_COUNTERS), with its tgid filter.
 * Latency (--latency, ABI 1.5) in kmod-kprobe (a kretprobe) and
 * kmod-callops (an fprobe, where the kernel has one the module can use):
 * the module's per-CPU log2 histogram (TRACERD_IOC_LATENCY), in the BPF
 * slot stats' layout. A comm filter (--comm, ABI 1.6) goes to the module
 * with the attach (TRACERD_IOC_ATTACH2, ATTACH_BATCH2), which counts only
 * calls of tasks so named; without --comm the ABI 1.0/1.3 ioctls, which
 * every module takes. kmod-direct times calls on x86_64 and arm64 (ABI 1.7): its
 * trampoline calls the function itself, so the module is told how the
 * arguments travel (argw, from BTF: btfargs.c) and takes only functions
 * whose arguments are all in registers; the daemon refuses the others
 * first, with the reason. Stacks (--stacks, ABI 1.8) in kmod-callops and
 * kmod-kprobe: the module counts each distinct kernel stack of a hook in
 * a table of its own (TRACERD_ATTACH_STACKS, the depth in ATTACH2's
 * stack_depth), read with TRACERD_IOC_STACKS; kmod-direct's trampoline is
 * asm and takes none.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <tracerd/kmod_abi.h>
#include "../lib/log.h"
#include "../lib/modes.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "backend.h"
#include "bpfutil.h"
#include "resolve.h"

int kmod_abi_mode(enum tracerd_mode m, enum mode_variant v, __u32 *mode, __u32 *flags)
{
	*flags = 0;
	switch (m) {
	case TRACERD_MODE_KMOD_CALLOPS:
		*mode = TRACERD_KMOD_CALLOPS;
		*flags = v == MODE_VARIANT_SAVE_REGS ? TRACERD_ATTACH_SAVE_REGS : 0;
		return v && v != MODE_VARIANT_SAVE_REGS ? -EINVAL : 0;
	case TRACERD_MODE_KMOD_DIRECT:
		*mode = TRACERD_KMOD_DIRECT;
		return v ? -EINVAL : 0;
	case TRACERD_MODE_KMOD_KPROBE:
		*mode = v == MODE_VARIANT_INT3 ? TRACERD_KMOD_KPROBE_INT3 : TRACERD_KMOD_KPROBE;
		return v && v != MODE_VARIANT_INT3 ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

/* Open /dev/tracerd once, check the ABI, read the features; fills d->kmod. */
static int kmod_open(struct tracerd *d, __u32 *modes)
{
	struct kmod_info *k = &d->kmod;
	struct tracerd_version v = {};
	struct tracerd_features f = {};
	char ebuf[96];
	int ret;

	*modes = k->feat_modes;
	if (k->fd >= 0)
		return 0;
	k->present = false;
	k->fd = open(TRACERD_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (k->fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			snprintf(k->reason, sizeof(k->reason),
				 "kmod: %s not present (tracerd_kmod.ko not loaded)",
				 TRACERD_DEV_PATH);
		else
			snprintf(k->reason, sizeof(k->reason), "kmod: cannot open %s: %s",
				 TRACERD_DEV_PATH, errno_str(ret, ebuf, sizeof(ebuf)));
		return ret;
	}
	if (ioctl(k->fd, TRACERD_IOC_VERSION, &v)) {
		ret = -errno;
		snprintf(k->reason, sizeof(k->reason), "kmod: version ioctl failed: %s",
			 errno_str(ret, ebuf, sizeof(ebuf)));
		goto fail;
	}
	k->abi_major = v.abi_major;
	k->abi_minor = v.abi_minor;
	v.module_version[sizeof(v.module_version) - 1] = '\0';
	str_copy(k->module_version, v.module_version, sizeof(k->module_version));
	if (v.abi_major != TRACERD_ABI_MAJOR) {
		ret = -EPROTO;
		snprintf(k->reason, sizeof(k->reason),
			 "kmod: module speaks ABI %u.%u, tracerd needs %u.x: install matching "
			 "versions",
			 v.abi_major, v.abi_minor, TRACERD_ABI_MAJOR);
		goto fail;
	}
	if (ioctl(k->fd, TRACERD_IOC_FEATURES, &f)) {
		ret = -errno;
		snprintf(k->reason, sizeof(k->reason), "kmod: features ioctl failed: %s",
			 errno_str(ret, ebuf, sizeof(ebuf)));
		goto fail;
	}
	k->feat_modes = f.modes;
	k->feat_attach_flags = f.attach_flags;
	k->feat_latency_modes = f.latency_modes;
	k->max_attach = f.max_attach;
	*modes = f.modes;
	k->feat_flags = f.flags;
	k->present = true;
	k->reason[0] = '\0';
	return 0;
fail:
	close(k->fd);
	k->fd = -1;
	return ret;
}

/*
 * The module fd a's hooks live on: its own when its attach ran on the
 * registry's worker thread (kmod_job_prepare), else the daemon's. The
 * module numbers attachments per fd and serializes an fd's ioctls, so an
 * own fd keeps the loop's ioctls (counters, other attachments) from
 * waiting behind a batch of every function.
 */
static int kfd(const struct tracerd *d, const struct attachment *a)
{
	return a->kfd > 0 ? a->kfd : d->kmod.fd;
}

/* Undo one hook: detach it from the module, free its part. */
static void kmod_hook_free(struct tracerd *d, struct attachment *a, struct hook *h)
{
	struct tracerd_detach det = { .id = h->kmod_id };

	if (det.id && kfd(d, a) >= 0 && ioctl(kfd(d, a), TRACERD_IOC_DETACH, &det))
		log_warn("kmod: failed to detach '%s' (id %llu): %s", h->name,
			 (unsigned long long)det.id, strerror(errno));
	h->kmod_id = 0;
	h->attached = false;
}

/* h's reason for refusal ret (an attach errno of the module). */
static int kmod_hook_err(const struct attachment *a, struct hook *h, int ret)
{
	char ebuf[96];

	return hook_err(h, ret, "kmod: failed to attach %s%s%s to '%s': %s%s",
			tracerd_mode_name(a->mode), a->spec.variant ? " variant " : "",
			mode_variant_name(a->spec.variant), h->name,
			errno_str(ret, ebuf, sizeof(ebuf)),
			ret == -EBUSY ? "; the function already carries a direct call" :
			ret == -EADDRNOTAVAIL ? "; the mode cannot hook there" :
			ret == -EEXIST ? "; the function is twice in the request" :
			ret == -ENOSPC && a->spec.stacks ?
				"; or the module's stack tables are at their limit (64 MiB): "
				"stacks on fewer functions, or a smaller depth" :
			ret == -ENOSPC ? "; the module's attachments per file "
				"(features.max_attach) are all in use" : "");
}

/* The module's mode and flags of attachment a (its variant, --latency). */
static int kmod_spec_flags(const struct attachment *a, __u32 *mode, __u32 *flags)
{
	int ret = kmod_abi_mode(a->mode, a->spec.variant, mode, flags);

	if (a->spec.latency)
		*flags |= TRACERD_ATTACH_LATENCY;
	if (a->spec.stacks)
		*flags |= TRACERD_ATTACH_STACKS;
	return ret;
}

/*
 * The argw field for hook h of a (ABI 1.7): 0 but for kmod-direct
 * --latency, where the function's arguments must all be in registers
 * (argw 1); else -EOPNOTSUPP in h->err.
 */
static int kmod_argw(const struct attachment *a, struct hook *h, __u32 *argw)
{
	*argw = 0;
	if (a->mode != TRACERD_MODE_KMOD_DIRECT || !a->spec.latency)
		return 0;
	if (h->argw == 1) {
		*argw = 1;
		return 0;
	}
	if (h->argw == 0)
		return hook_err(h, -EOPNOTSUPP,
				"kmod-direct --latency: no BTF says how '%s' takes its arguments "
				"(variadic, or a module without BTF); the trampoline calls the "
				"function itself and must know: time it in kmod-kprobe or fentry",
				h->name);
	return hook_err(h, -EOPNOTSUPP,
			"kmod-direct --latency: '%s' takes arguments on the stack (%u words); "
			"the trampoline calls the function with its register arguments only: "
			"time it in kmod-kprobe or fentry", h->name, h->argw - 1);
}

/* The module has a comm filter (ABI 1.6: ATTACH2, ATTACH_BATCH2). */
static bool kmod_comm_ok(const struct tracerd *d)
{
	return d->kmod.abi_minor >= 6;
}

static const char kmod_no_comm[] =
	"kmod: the module is older than ABI 1.6 (no comm filter: TRACERD_IOC_ATTACH2): "
	"install a matching one";

/*
 * Copy a's comm filter into the module's field (NUL-padded: spec_parse
 * took 1-15 bytes); -EOPNOTSUPP in err when the module has none.
 */
static int kmod_comm(const struct tracerd *d, const struct attachment *a,
		     char comm[TRACERD_COMM_FILTER_LEN], char *err, size_t errlen)
{
	_Static_assert(TRACERD_COMM_FILTER_LEN == TRACERD_COMM_LEN,
		       "the module's comm field is the spec's");
	memset(comm, 0, TRACERD_COMM_FILTER_LEN);
	if (!a->spec.comm[0])
		return 0;
	if (!kmod_comm_ok(d))
		return set_err(err, errlen, -EOPNOTSUPP, "%s", kmod_no_comm);
	if (str_copy(comm, a->spec.comm, TRACERD_COMM_FILTER_LEN))
		return set_err(err, errlen, -EINVAL, "comm '%s' too long", a->spec.comm);
	return 0;
}

static int kmod_attach_hook(struct tracerd *d, struct attachment *a, struct hook *h)
{
	struct tracerd_attach2 at = {
		.addr = h->addr,
		.tgid = a->spec.tgid,
	};
	char err[HOOK_ERR_MAX] = "";
	int ret;

	if (kmod_spec_flags(a, &at.mode, &at.flags))
		return hook_err(h, -EINVAL, "%s has no variant %s",
				tracerd_mode_name(a->mode), mode_variant_name(a->spec.variant));
	if (str_copy(at.name, h->name, sizeof(at.name)))
		return hook_err(h, -ENAMETOOLONG, "name '%s' too long",
				h->name);
	ret = kmod_comm(d, a, at.comm, err, sizeof(err));
	if (ret)
		return hook_err_msg(h, ret, err);
	ret = kmod_argw(a, h, &at.argw);
	if (ret)
		return ret;
	at.stack_depth = a->spec.stacks;
	/* without a comm or stacks, ATTACH (the prefix of ATTACH2): any module takes it */
	if (ioctl(kfd(d, a), at.comm[0] || at.stack_depth ? TRACERD_IOC_ATTACH2 : TRACERD_IOC_ATTACH,
		  &at))
		return kmod_hook_err(a, h, -errno);
	h->kmod_id = at.id;
	return 0;
}

/* The module takes batches (ABI 1.3): one ioctl, one kernel update. */
static bool kmod_batch_ok(const struct tracerd *d)
{
	return d->kmod.abi_minor >= 3;
}

/* Entry i of a batch stands for a->hooks[idx[i]]. */
struct kmod_batch {
	struct tracerd_batch_entry *e;
	size_t *idx;
	__u32 n;
	__u32 refused;		/* hooks the mode cannot take (kmod_argw) */
};

/* The batch of every hook the registry left to attach (or, detach, attached). */
static int kmod_batch_new(struct attachment *a, struct kmod_batch *b, bool attached)
{
	size_t i;

	b->n = 0;
	b->refused = 0;
	b->e = calloc(a->nr_hooks ? a->nr_hooks : 1, sizeof(*b->e));
	b->idx = calloc(a->nr_hooks ? a->nr_hooks : 1, sizeof(*b->idx));
	if (!b->e || !b->idx) {
		free(b->e);
		free(b->idx);
		return -ENOMEM;
	}
	for (i = 0; i < a->nr_hooks; i++) {
		struct hook *h = &a->hooks[i];
		struct tracerd_batch_entry *e = &b->e[b->n];

		if (attached) {
			if (!h->kmod_id)
				continue;
			e->id = h->kmod_id;
		} else {
			if (h->err)
				continue;
			if (str_copy(e->name, h->name, sizeof(e->name))) {
				hook_err(h, -ENAMETOOLONG, "name '%s' too long",
					 h->name);
				continue;
			}
			if (kmod_argw(a, h, &e->argw)) {
				b->refused++;
				continue;
			}
			e->addr = h->addr;
		}
		b->idx[b->n++] = i;
	}
	return 0;
}

static void kmod_batch_free(struct kmod_batch *b)
{
	free(b->e);
	free(b->idx);
}

/*
 * Every hook in one TRACERD_IOC_ATTACH_BATCH: the request, made in the
 * loop (kmod_attach_batch, or kmod_job_prepare for the worker thread).
 * 0 with *req, *cmd and *b set, else the error attach returns.
 */
static int kmod_batch_prepare(struct tracerd *d, struct attachment *a, struct tracerd_batch2 *req,
			      unsigned long *cmd, struct kmod_batch *b)
{
	char err[HOOK_ERR_MAX] = "";
	__u32 i;
	int ret;

	*req = (struct tracerd_batch2){ .tgid = a->spec.tgid };
	if (kmod_spec_flags(a, &req->mode, &req->flags))
		return hook_err(&a->hooks[0], -EINVAL,
				"%s has no variant %s", tracerd_mode_name(a->mode),
				mode_variant_name(a->spec.variant));
	ret = kmod_comm(d, a, req->comm, err, sizeof(err));
	if (ret)
		return hook_err_msg(&a->hooks[0], ret, err);
	ret = kmod_batch_new(a, b, false);
	if (ret)
		return hook_err(&a->hooks[0], ret, "out of memory");
	if (b->n == 0) {
		/* none left: the mode cannot take them (a refusal, as the
		 * module's would be), or nothing to attach */
		ret = b->refused ? -EOPNOTSUPP : -ENOENT;
		kmod_batch_free(b);
		return ret;
	}
	if (d->kmod.max_attach && b->n > d->kmod.max_attach) {
		/*
		 * More than the module takes per fd (max_attach bounds a
		 * batch and the fd's live attachments alike): several
		 * batches would fail past the first max_attach anyway, so
		 * refused as a whole, saying what would take them.
		 */
		for (i = 0; i < b->n; i++)
			hook_err(&a->hooks[b->idx[i]], -ENOSPC,
				 "kmod: %u functions in one attachment, the module (ABI %u.%u) "
				 "takes %u per client at most (features.max_attach): hook "
				 "fewer, or load a module of ABI 1.9 or later (%u)", b->n,
				 d->kmod.abi_major, d->kmod.abi_minor, d->kmod.max_attach,
				 TRACERD_MAX_ATTACH);
		kmod_batch_free(b);
		return -ENOSPC;
	}
	req->entries = (__u64)(unsigned long)b->e;
	req->count = b->n;
	req->stack_depth = a->spec.stacks;
	/* without a comm or stacks, ATTACH_BATCH (the prefix of ATTACH_BATCH2) */
	*cmd = req->comm[0] || req->stack_depth ? TRACERD_IOC_ATTACH_BATCH2 :
						  TRACERD_IOC_ATTACH_BATCH;
	return 0;
}

/*
 * The batch's outcome (ret: the ioctl's -errno): the refused hooks get
 * their reason, the rest stay attached; b is freed. -ENOTTY: the module
 * has no batches.
 */
static int kmod_batch_apply(struct attachment *a, struct kmod_batch *b, int ret)
{
	int first = 0, n = 0;
	__u32 i;

	if (ret) {
		kmod_batch_free(b);
		if (ret != -ENOTTY)
			for (i = 0; i < a->nr_hooks; i++)
				if (!a->hooks[i].err)
					kmod_hook_err(a, &a->hooks[i], ret);
		return ret;
	}
	for (i = 0; i < b->n; i++) {
		struct hook *h = &a->hooks[b->idx[i]];

		if (b->e[i].error) {
			ret = kmod_hook_err(a, h, b->e[i].error);
			first = first ? first : ret;
			continue;
		}
		h->kmod_id = b->e[i].id;
		h->attached = true;
		n++;
	}
	kmod_batch_free(b);
	return n ? 0 : first ? first : -ENOENT;
}

static int kmod_attach_batch(struct tracerd *d, struct attachment *a)
{
	struct tracerd_batch2 req;
	struct kmod_batch b;
	unsigned long cmd;
	int ret = kmod_batch_prepare(d, a, &req, &cmd, &b);

	if (ret)
		return ret;
	return kmod_batch_apply(a, &b, ioctl(kfd(d, a), cmd, &req) ? -errno : 0);
}

static int kmod_attach(struct tracerd *d, struct attachment *a)
{
	__u32 modes;
	int ret;

	if (kmod_open(d, &modes))
		return hook_err(&a->hooks[0], -ENODEV, "%s", d->kmod.reason);
	if (kmod_batch_ok(d)) {
		ret = kmod_attach_batch(d, a);
		if (ret != -ENOTTY)
			return ret;
	}
	return hooks_attach(d, a, kmod_attach_hook, kmod_hook_free);
}

/* A DETACH_BATCH's outcome (ret: the ioctl's -errno): the hooks forget their ids; b is freed. */
static int kmod_detach_apply(struct attachment *a, struct kmod_batch *b, int ret)
{
	char ebuf[96];
	__u32 i;

	for (i = 0; !ret && i < b->n; i++) {
		struct hook *h = &a->hooks[b->idx[i]];

		if (b->e[i].error)
			log_warn("kmod: failed to detach '%s' (id %llu): %s", h->name,
				 (unsigned long long)b->e[i].id,
				 errno_str(b->e[i].error, ebuf, sizeof(ebuf)));
		h->kmod_id = 0;
	}
	kmod_batch_free(b);
	return ret;
}

/* Detach every attached hook in one TRACERD_IOC_DETACH_BATCH. */
static int kmod_detach_batch(struct tracerd *d, struct attachment *a)
{
	struct tracerd_batch req = {};
	struct kmod_batch b;

	if (kfd(d, a) < 0 || !kmod_batch_ok(d) || kmod_batch_new(a, &b, true))
		return -ENOTTY;
	req.entries = (__u64)(unsigned long)b.e;
	req.count = b.n;
	return kmod_detach_apply(a, &b, b.n && ioctl(kfd(d, a), TRACERD_IOC_DETACH_BATCH, &req) ?
					 -errno : 0);
}

static void kmod_read_end(struct tracerd *d, struct attachment *a);

static void kmod_detach(struct tracerd *d, struct attachment *a)
{
	size_t i;

	kmod_read_end(d, a);	/* a pass's counters, if one was left open */
	kmod_detach_batch(d, a);	/* what it could not detach goes one by one */
	for (i = 0; i < a->nr_hooks; i++)
		kmod_hook_free(d, a, &a->hooks[i]);
	if (a->kfd > 0)
		close(a->kfd);	/* its own fd: nothing is left on it */
	a->kfd = 0;
}

/*
 * An attach or detach of every hook on the registry's worker thread
 * (backend.h, job_*): the batch ioctl on an fd of the attachment's own,
 * opened for it, so the daemon's fd stays free for the loop's ioctls.
 * The detach closes that fd after its DETACH_BATCH (the module detaches
 * whatever is left on a closed fd). NULL: the step runs in the loop, as
 * for a module without batches or no fd to spare (then on d->kmod.fd).
 */
struct kmod_job {
	int fd;
	bool detach;
	unsigned long cmd;
	struct tracerd_batch2 req;	/* detach: .entries and .count, struct tracerd_batch */
	struct kmod_batch b;
	int ret;
};

static void *kmod_job_prepare(struct tracerd *d, struct attachment *a, bool detach, int *err)
{
	struct kmod_job *j;
	__u32 modes;

	*err = 0;
	if (kmod_open(d, &modes) || !kmod_batch_ok(d) || (detach ? a->kfd <= 0 : a->kfd > 0))
		return NULL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->detach = detach;
	if (detach) {
		if (kmod_batch_new(a, &j->b, true)) {
			free(j);
			return NULL;
		}
		j->fd = a->kfd;
		j->cmd = TRACERD_IOC_DETACH_BATCH;
		j->req.entries = (__u64)(unsigned long)j->b.e;
		j->req.count = j->b.n;
		return j;
	}
	/* fd 0 cannot be an attachment's own (a->kfd 0 says "the daemon's"):
	 * it is given back, as no fd at all */
	j->fd = open(TRACERD_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (j->fd < 0)
		log_info("kmod: no fd of its own for attachment %u (%s): its attach holds the loop",
			 a->id, strerror(errno));
	else if (j->fd > 0)
		*err = kmod_batch_prepare(d, a, &j->req, &j->cmd, &j->b);
	if (j->fd <= 0 || *err) {
		if (j->fd >= 0)
			close(j->fd);
		free(j);
		return NULL;
	}
	return j;
}

static void kmod_job_run(void *job)
{
	struct kmod_job *j = job;

	j->ret = ioctl(j->fd, j->cmd, &j->req) ? -errno : 0;
	if (j->detach)
		close(j->fd);
}

static int kmod_job_finish(struct tracerd *d, struct attachment *a, void *job)
{
	struct kmod_job *j = job;
	int ret;

	(void)d;
	if (j->detach) {
		/* closed: whatever DETACH_BATCH missed went with the fd */
		ret = kmod_detach_apply(a, &j->b, 0);
		a->kfd = 0;
	} else {
		a->kfd = j->fd;
		ret = kmod_batch_apply(a, &j->b, j->ret);
	}
	free(j);
	return ret;
}

/*
 * An attachment's counters read in one pass (a->priv between read_begin
 * and read_end): [i] for a->hooks[i], valid where ok[i].
 */
struct kmod_counts {
	size_t n;
	__u64 *hits, *missed;
	bool *ok;
};

static void kmod_read_end(struct tracerd *d, struct attachment *a)
{
	struct kmod_counts *c = a->priv;

	(void)d;
	if (!c)
		return;
	free(c->hits);
	free(c->missed);
	free(c->ok);
	free(c);
	a->priv = NULL;
}

/*
 * Every hook's counters in TRACERD_IOC_COUNTERS_BATCH calls of up to
 * TRACERD_COUNTERS_BATCH_MAX (ABI 1.9): attach '*' read 50k counters one
 * ioctl each. Nothing cached (one COUNTERS per hook, as before) for an
 * older module, a few hooks, or when a call fails.
 */
static void kmod_read_begin(struct tracerd *d, struct attachment *a)
{
	struct tracerd_counters_entry *e;
	struct tracerd_counters_batch b = {};
	struct kmod_counts *c;
	size_t i, j, k, idx[TRACERD_COUNTERS_BATCH_MAX];

	kmod_read_end(d, a);
	if (kfd(d, a) < 0 || d->kmod.abi_minor < 9 || a->nr_hooks < 16)
		return;
	c = calloc(1, sizeof(*c));
	e = calloc(TRACERD_COUNTERS_BATCH_MAX, sizeof(*e));
	if (c) {
		c->n = a->nr_hooks;
		c->hits = calloc(c->n, sizeof(*c->hits));
		c->missed = calloc(c->n, sizeof(*c->missed));
		c->ok = calloc(c->n, sizeof(*c->ok));
	}
	a->priv = c;
	if (!e || !c || !c->hits || !c->missed || !c->ok)
		goto fail;
	for (i = 0; i < c->n;) {
		for (k = 0; i < c->n && k < TRACERD_COUNTERS_BATCH_MAX; i++) {
			if (!a->hooks[i].kmod_id)
				continue;
			e[k] = (struct tracerd_counters_entry){ .id = a->hooks[i].kmod_id };
			idx[k++] = i;
		}
		if (!k)
			break;
		b.entries = (__u64)(uintptr_t)e;
		b.count = (__u32)k;
		if (ioctl(kfd(d, a), TRACERD_IOC_COUNTERS_BATCH, &b))
			goto fail;
		for (j = 0; j < k; j++) {
			if (e[j].error)
				continue;
			c->hits[idx[j]] = e[j].hits;
			c->missed[idx[j]] = e[j].missed;
			c->ok[idx[j]] = true;
		}
	}
	free(e);
	return;
fail:
	free(e);
	kmod_read_end(d, a);
}

/* h's counters: read in the pass (kmod_read_begin), else one ioctl. */
static int kmod_counters(struct tracerd *d, const struct attachment *a, struct hook *h,
			 struct tracerd_counters *c)
{
	const struct kmod_counts *k = a->priv;
	size_t i = (size_t)(h - a->hooks);

	memset(c, 0, sizeof(*c));
	c->id = h->kmod_id;
	if (!c->id || kfd(d, a) < 0)
		return -ENOENT;
	if (k && h >= a->hooks && i < k->n && k->ok[i]) {
		c->hits = k->hits[i];
		c->missed = k->missed[i];
		return 0;
	}
	return ioctl(kfd(d, a), TRACERD_IOC_COUNTERS, c) ? -errno : 0;
}

_Static_assert(TRACERD_LAT_BUCKETS == TRACERD_HIST_BUCKETS,
	       "the module's histogram has the BPF slot stats' layout");

/*
 * The module's counters stand in for the BPF slot stats, and with
 * --latency its histogram (TRACERD_IOC_LATENCY) for theirs: calls,
 * lat_count (the sum of hist), lat_sum, lat_min, lat_max, hist[]. The
 * calls the kernel did not time are its misses (kernel_misses), not
 * the slot's own.
 */
static int kmod_read(struct tracerd *d, struct attachment *a, struct hook *h,
		     struct tracerd_slot_stats *s)
{
	struct tracerd_counters c;
	struct tracerd_latency l = { .id = h->kmod_id };
	int ret = kmod_counters(d, a, h, &c), b;

	memset(s, 0, sizeof(*s));
	if (ret)
		return ret;
	s->calls = c.hits;
	if (!a->spec.latency)
		return 0;
	if (ioctl(kfd(d, a), TRACERD_IOC_LATENCY, &l))
		return -errno;
	s->lat_count = l.count;
	s->lat_sum = l.sum_ns;
	s->lat_min = l.min_ns;
	s->lat_max = l.max_ns;
	for (b = 0; b < TRACERD_HIST_BUCKETS; b++)
		s->hist[b] = l.hist[b];
	return 0;
}

static int kmod_kprobe_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			      __u64 *out, const char **why);

static int kmod_ftrace_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			      __u64 *out, const char **why)
{
	if (a->spec.latency && a->mode == TRACERD_MODE_KMOD_CALLOPS)	/* an fprobe: its nmissed */
		return kmod_kprobe_misses(d, a, h, out, why);
	*why = a->spec.latency ? "the module's timing trampoline never skips a call" :
				 "the module's ftrace callbacks do not count misses";
	return -ENODATA;
}

static int kmod_kprobe_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			      __u64 *out, const char **why)
{
	struct tracerd_counters c;

	if (kmod_counters(d, a, h, &c)) {
		*why = "cannot read the module's counters";
		return -ENODATA;
	}
	*out = c.missed;
	return 0;
}

/* Really attach the mode (or its variant v) to the probe function, then detach. */
static int kmod_probe_mode(struct tracerd *d, enum tracerd_mode m, enum mode_variant v,
			   char *reason, size_t len)
{
	struct attachment a = { .mode = m, .spec.variant = v };
	struct hook h = {};
	__u32 modes, km, flags;
	int ret;

	ret = kmod_open(d, &modes);
	if (ret)
		return set_err(reason, len, ret, "%s", d->kmod.reason);
	kmod_abi_mode(m, v, &km, &flags);
	if (!(modes & (1U << km)))
		return set_err(
			reason, len, -EOPNOTSUPP,
			"kmod: the module cannot do %s on this kernel (TRACERD_IOC_FEATURES)",
			tracerd_mode_name(m));
	h.name = d->probe_fn;
	h.module = "";
	h.addr = resolve_addr(d, h.name);
	if (!h.addr)
		return set_err(reason, len, -ENOENT, "no kallsyms address for '%s'", h.name);
	a.hooks = &h;
	a.nr_hooks = 1;
	ret = kmod_attach_hook(d, &a, &h);
	if (ret)
		set_err(reason, len, ret, "%s", h.err ? h.err : "");
	hook_err_clear(&h);
	kmod_detach(d, &a);
	return ret;
}

static int kmod_callops_probe(struct tracerd *d, char *reason, size_t len)
{
	return kmod_probe_mode(d, TRACERD_MODE_KMOD_CALLOPS, MODE_VARIANT_NONE, reason, len);
}

static int kmod_direct_probe(struct tracerd *d, char *reason, size_t len)
{
	return kmod_probe_mode(d, TRACERD_MODE_KMOD_DIRECT, MODE_VARIANT_NONE, reason, len);
}

static int kmod_kprobe_probe(struct tracerd *d, char *reason, size_t len)
{
	return kmod_probe_mode(d, TRACERD_MODE_KMOD_KPROBE, MODE_VARIANT_NONE, reason, len);
}

static void kmod_fini(struct tracerd *d)
{
	if (d->kmod.fd >= 0)
		close(d->kmod.fd);
	d->kmod.fd = -1;
}

/* kmod-kprobe, variant int3: the module's kprobe past the ftrace call site */
static const char *kmod_int3_unavailable(struct tracerd *d)
{
	__u32 modes;

	if (kmod_open(d, &modes))
		return d->kmod.reason;
	if (!(modes & (1U << TRACERD_KMOD_KPROBE_INT3)))
		return "kmod: no int3 kprobe past an ftrace site on this kernel/arch";
	if (d->features[TRACERD_MODE_KMOD_KPROBE].available)
		return NULL;
	/* the kprobe at the entry was refused (the entry is the ftrace site
	 * and the kernel has no KPROBES_ON_FTRACE): try the one past it, once */
	if (!d->kmod.int3_probe)
		d->kmod.int3_probe = kmod_probe_mode(d, TRACERD_MODE_KMOD_KPROBE, MODE_VARIANT_INT3,
						     d->kmod.int3_reason,
						     sizeof(d->kmod.int3_reason)) ? -1 : 1;
	return d->kmod.int3_probe > 0 ? NULL : d->kmod.int3_reason;
}

/* --latency: the module says the mode times calls here (ABI 1.5) */
static const char *kmod_lat_unavailable(struct tracerd *d, __u32 km)
{
	__u32 modes;

	if (kmod_open(d, &modes))
		return d->kmod.reason;
	if (d->kmod.abi_minor < 5)
		return "kmod: the module is older than ABI 1.5 (no latency): install a matching "
		       "one";
	if (km == TRACERD_KMOD_DIRECT && d->kmod.abi_minor < 7)
		return "kmod: the module is older than ABI 1.7 (no kmod-direct latency): install a "
		       "matching one";
	if (d->kmod.feat_latency_modes & (1U << km))
		return NULL;
	if (km == TRACERD_KMOD_DIRECT)
		return "kmod: the module's trampoline times calls on x86_64, arm64 and riscv64 "
		       "only "
		       "(elsewhere kmod-kprobe's kretprobe does)";
	return km == TRACERD_KMOD_CALLOPS
		       ? "kmod: no fprobe the module can use on this kernel (CONFIG_FPROBE, Linux "
			 "6.5 to 6.13; from 6.14 fprobe rides on function-graph, left off: "
			 "kmod-kprobe times calls)"
		       : "kmod: no kretprobes on this kernel (CONFIG_KRETPROBES)";
}

/* --comm: the module has a comm filter (ABI 1.6) */
static const char *kmod_comm_unavailable(struct tracerd *d)
{
	__u32 modes;

	if (kmod_open(d, &modes))
		return d->kmod.reason;
	return kmod_comm_ok(d) ? NULL : kmod_no_comm;
}

static const char *kmod_direct_lat_unavailable(struct tracerd *d)
{
	return kmod_lat_unavailable(d, TRACERD_KMOD_DIRECT);
}

static const char *kmod_kprobe_lat_unavailable(struct tracerd *d)
{
	return kmod_lat_unavailable(d, TRACERD_KMOD_KPROBE);
}

static const char *kmod_callops_lat_unavailable(struct tracerd *d)
{
	return kmod_lat_unavailable(d, TRACERD_KMOD_CALLOPS);
}

/* --stacks: the module keeps stacks (ABI 1.8, TRACERD_FEAT_STACKS) */
static const char *kmod_stacks_unavailable(struct tracerd *d)
{
	__u32 modes;

	if (kmod_open(d, &modes))
		return d->kmod.reason;
	if (d->kmod.abi_minor < 8)
		return "kmod: the module is older than ABI 1.8 (no stack capture: "
		       "TRACERD_ATTACH_STACKS): install a matching one";
	return d->kmod.feat_flags & TRACERD_FEAT_STACKS ? NULL :
		"kmod: the kernel has no stack trace support the module can use "
		"(CONFIG_STACKTRACE)";
}

/* kmod-direct: whatever the module, its trampoline takes no stacks */
static const char *kmod_direct_stacks_unavailable(struct tracerd *d)
{
	return "kmod-direct: its trampoline is asm that calls no C per hit; a stack "
	       "capture would add one and undo the mode's point: use kmod-callops or "
	       "kmod-kprobe for --stacks";
}

/*
 * Call fn for every stack the module counted for h (TRACERD_IOC_STACKS):
 * asked once for the size, then read into a buffer that size; a table that
 * grew in between is read again (the module says ENOSPC), up to 4 times.
 */
static int kmod_stacks(struct tracerd *d, struct attachment *a, struct hook *h,
		       stack_visit_fn fn, void *ctx, __u64 *dropped)
{
	struct tracerd_stacks s = { .id = h->kmod_id };
	unsigned char *buf = NULL, *p;
	int ret = -EAGAIN, tries;
	__u32 i;

	*dropped = 0;
	if (!s.id || kfd(d, a) < 0)
		return -ENOENT;
	for (tries = 0; tries < 4 && ret == -EAGAIN; tries++) {
		unsigned char *nb = realloc(buf, s.need ? s.need : 1);

		if (!nb) {
			free(buf);
			return -ENOMEM;
		}
		buf = nb;
		s.buf = (__u64)(uintptr_t)buf;
		s.size = s.need;
		if (!ioctl(kfd(d, a), TRACERD_IOC_STACKS, &s))
			ret = 0;
		else
			ret = errno == ENOSPC ? -EAGAIN : -errno;
	}
	for (i = 0, p = buf; !ret && i < s.stacks; i++) {
		struct tracerd_stack_rec r;
		__u64 ips[TRACERD_STACK_MAX_DEPTH];

		memcpy(&r, p, sizeof(r));
		if (r.nr == 0 || r.nr > TRACERD_STACK_MAX_DEPTH) {
			ret = -EPROTO;
			break;
		}
		memcpy(ips, p + sizeof(r), r.nr * sizeof(*ips));
		p += sizeof(r) + r.nr * sizeof(*ips);
		ret = fn(ctx, r.count, 0, ips, r.nr);
		if (ret > 0)
			ret = 0;
	}
	if (ret != -EAGAIN)
		*dropped = s.dropped;
	free(buf);
	return ret;
}

/* kmod-callops, variant save_regs: FTRACE_OPS_FL_SAVE_REGS */
static const char *kmod_regs_unavailable(struct tracerd *d)
{
	__u32 modes;

	if (kmod_open(d, &modes))
		return d->kmod.reason;
	return d->kmod.feat_attach_flags & TRACERD_ATTACH_SAVE_REGS ? NULL :
		"kmod: no FTRACE_OPS_FL_SAVE_REGS on this kernel (no DYNAMIC_FTRACE_WITH_REGS)";
}

static const char *site_path_name(__u32 p)
{
	switch (p) {
	case TRACERD_SITE_NOP:
		return "nop";
	case TRACERD_SITE_DIRECT:
		return "direct";
	case TRACERD_SITE_CALLER:
		return "caller";
	default:
		return "unknown";
	}
}

/*
 * What h's ftrace call site branches to now (TRACERD_IOC_SITE): "direct"
 * (straight to the kmod-direct trampoline), "caller" (through
 * ftrace_caller or an ops trampoline), "nop". -ENOENT: h is not hooked.
 */
static int kmod_site(struct tracerd *d, const struct attachment *a, const struct hook *h,
		     struct hook_site *out)
{
	struct tracerd_site s = { .id = h->kmod_id };
	int err;

	memset(out, 0, sizeof(*out));
	if (!s.id)
		return -ENOENT;
	if (kfd(d, a) < 0 || ioctl(kfd(d, a), TRACERD_IOC_SITE, &s)) {
		err = kfd(d, a) < 0 ? -ENODEV : -errno;
		if (err == -ENOTTY)
			str_copy(out->err, "kmod: module older than ABI 1.2 (no SITE ioctl)",
				 sizeof(out->err));
		else
			errno_str(err, out->err, sizeof(out->err));
		return err;
	}
	s.target_sym[sizeof(s.target_sym) - 1] = '\0';
	out->path = site_path_name(s.path);
	str_copy(out->target, s.target_sym, sizeof(out->target));
	return 0;
}

/*
 * The call sites of n functions (e[i].addr set), TRACERD_IOC_SITES in
 * batches of TRACERD_SITES_MAX. -ENODEV with why when the module is not
 * there, -EOPNOTSUPP when it predates ABI 1.4, -errno of the ioctl else.
 */
int kmod_sites(struct tracerd *d, struct tracerd_site_entry *e, size_t n,
	       char *why, size_t len)
{
	struct tracerd_sites req = {};
	char ebuf[96];
	__u32 modes;
	size_t i;
	int ret;

	ret = kmod_open(d, &modes);
	if (ret)
		return set_err(why, len, -ENODEV, "%s", d->kmod.reason);
	if (d->kmod.abi_minor < 4)
		return set_err(
			why, len, -EOPNOTSUPP,
			"kmod: module speaks ABI %u.%u, live sites need 1.4 (TRACERD_IOC_SITES)",
			d->kmod.abi_major, d->kmod.abi_minor);
	for (i = 0; i < n; i += req.count) {
		req.entries = (__u64)(uintptr_t)&e[i];
		req.count = (__u32)(n - i < TRACERD_SITES_MAX ? n - i : TRACERD_SITES_MAX);
		req.done = 0;
		if (ioctl(d->kmod.fd, TRACERD_IOC_SITES, &req)) {
			ret = -errno;
			return set_err(why, len, ret, "kmod: sites ioctl failed: %s",
				       errno_str(ret, ebuf, sizeof(ebuf)));
		}
	}
	return 0;
}

/*
 * the module counts calls filtered by tgid and comm (comm_unavailable: ABI
 * 1.6), and times them in kmod-kprobe and kmod-callops where it says so
 * (latency_unavailable): no ring buffer, no return values
 */
#define KMOD_KPROBE_BATCH	16
#define KMOD_CAPS	(MODE_CAP_FUNCTION | MODE_CAP_PID | MODE_CAP_COMM | MODE_CAP_NEEDS_ADDR)

/* kmod-callops and kmod-kprobe (and their variants) keep stacks (ABI 1.8) */
#define KMOD_STACKS	.stacks_unavailable = kmod_stacks_unavailable, .stacks = kmod_stacks

/*
 * batch_: hooks per TRACERD_IOC_ATTACH_BATCH: every one for the ftrace
 * modes (one ftrace_ops, one kernel update); 16 for the kprobes, each a
 * text patch of its own (1150 took minutes to detach under TCG), so the
 * event loop answers between ioctls
 */
#define KMOD_BACKEND(var, m, caps_, batch_, probe_fn, misses_fn, fini_, ...)	\
	const struct backend var = {		\
		.mode = m,			\
		.caps = caps_,			\
		.probe = probe_fn,		\
		.batch = batch_,		\
		.attach = kmod_attach,		\
		.detach = kmod_detach,		\
		.read = kmod_read,		\
		.read_begin = kmod_read_begin,	\
		.read_end = kmod_read_end,	\
		.misses = misses_fn,		\
		.site = kmod_site,		\
		.job_prepare = kmod_job_prepare,	\
		.job_run = kmod_job_run,	\
		.job_finish = kmod_job_finish,	\
		.fini = fini_,			\
		.comm_unavailable = kmod_comm_unavailable, \
		.no_slots = true,		\
		__VA_ARGS__			\
	}

KMOD_BACKEND(backend_kmod_callops, TRACERD_MODE_KMOD_CALLOPS, KMOD_CAPS | MODE_CAP_STACKS | MODE_CAP_LATENCY,
	     BACKEND_BATCH_ALL, kmod_callops_probe,
	     kmod_ftrace_misses, kmod_fini,
	     .latency_unavailable = kmod_callops_lat_unavailable, KMOD_STACKS,
	     .batch_latency = KMOD_KPROBE_BATCH,	/* an fprobe per function */
	     .auto_why = { "one function: the module is loaded, and its native hook (an "
			   "ftrace_ops callback; for latency an fprobe; pid and comm filtered "
			   "in the module) costs less per call than a BPF program",
			   "many functions: the module is loaded, and one ftrace_ops of its own "
			   "hooks them all in one kernel update, with a native callback per call "
			   "(pid and comm filtered in the module)" },
	     .variant = { [MODE_VARIANT_SAVE_REGS] = &backend_kmod_callops_regs });
KMOD_BACKEND(backend_kmod_direct, TRACERD_MODE_KMOD_DIRECT,
	     KMOD_CAPS | MODE_CAP_DIRECT_CALL | MODE_CAP_DIRECT_EXCL | MODE_CAP_LATENCY,
	     BACKEND_BATCH_ALL, kmod_direct_probe,
	     kmod_ftrace_misses, NULL,
	     .latency_unavailable = kmod_direct_lat_unavailable,
	     .stacks_unavailable = kmod_direct_stacks_unavailable,	/* and no .stacks */
	     .batch_latency = KMOD_KPROBE_BATCH);	/* a direct ops per function */
KMOD_BACKEND(backend_kmod_kprobe, TRACERD_MODE_KMOD_KPROBE, KMOD_CAPS | MODE_CAP_STACKS | MODE_CAP_LATENCY,
	     KMOD_KPROBE_BATCH, kmod_kprobe_probe,
	     kmod_kprobe_misses, NULL,
	     .latency_unavailable = kmod_kprobe_lat_unavailable, KMOD_STACKS,
	     .variant = { [MODE_VARIANT_INT3] = &backend_kmod_kprobe_int3 });
/* the variants: the same paths with another TRACERD_KMOD_* mode or flag */
KMOD_BACKEND(backend_kmod_callops_regs, TRACERD_MODE_KMOD_CALLOPS, KMOD_CAPS | MODE_CAP_STACKS, BACKEND_BATCH_ALL,
	     NULL,
	     kmod_ftrace_misses, NULL, .unavailable = kmod_regs_unavailable, KMOD_STACKS);
KMOD_BACKEND(backend_kmod_kprobe_int3, TRACERD_MODE_KMOD_KPROBE, KMOD_CAPS | MODE_CAP_STACKS, KMOD_KPROBE_BATCH,
	     NULL,
	     kmod_kprobe_misses, NULL, .unavailable = kmod_int3_unavailable, .own_probe = true,
	     KMOD_STACKS);

/* The kernel config the module reports (TRACERD_FEAT_*), as status and bench show it; NULL without
 * it. */
json_object *kmod_config_json(const struct tracerd *d)
{
	static const struct { __u64 bit; const char *name; } cfg[] = {
		{ TRACERD_FEAT_DYNAMIC_FTRACE, "CONFIG_DYNAMIC_FTRACE" },
		{ TRACERD_FEAT_DIRECT_CALLS, "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS" },
		{ TRACERD_FEAT_CALL_OPS, "CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS" },
		{ TRACERD_FEAT_WITH_ARGS, "CONFIG_DYNAMIC_FTRACE_WITH_ARGS" },
		{ TRACERD_FEAT_WITH_REGS, "CONFIG_DYNAMIC_FTRACE_WITH_REGS" },
		{ TRACERD_FEAT_KPROBES, "CONFIG_KPROBES" },
		{ TRACERD_FEAT_KPROBES_ON_FTRACE, "CONFIG_KPROBES_ON_FTRACE" },
		{ TRACERD_FEAT_IBT, "CONFIG_X86_KERNEL_IBT" },
		{ TRACERD_FEAT_CALL_DEPTH, "CONFIG_CALL_DEPTH_TRACKING" },
		{ TRACERD_FEAT_FPROBE, "CONFIG_FPROBE" },
	};
	json_object *o;
	size_t i;

	if (!d->kmod.present)
		return NULL;
	o = json_object_new_object();
	for (i = 0; i < ARRAY_SIZE(cfg); i++)
		json_object_object_add(
			o, cfg[i].name,
			json_object_new_boolean(!!(d->kmod.feat_flags & cfg[i].bit)));
	return o;
}
