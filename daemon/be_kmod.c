// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod backends: kmod-callops, kmod-direct, kmod-kprobe through
 * /dev/tracerd (tracerd_kmod.ko, ABI in include/tracerd/kmod_abi.h). The
 * daemon resolves each function to its kallsyms address and hands address
 * and name to the module, which checks they agree. Attachments belong to
 * the open fd, so the kernel detaches everything when tracerd dies.
 * Counting is the module's (TRACERD_IOC_COUNTERS), with its tgid filter;
 * no comm filter and no latency on these paths.
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
#include "../lib/util.h"
#include "backend.h"
#include "bpfutil.h"
#include "commands.h"
#include "resolve.h"

static __u32 kmod_mode(enum tracerd_mode m)
{
	switch (m) {
	case TRACERD_MODE_KMOD_CALLOPS:
		return TRACERD_KMOD_CALLOPS;
	case TRACERD_MODE_KMOD_DIRECT:
		return TRACERD_KMOD_DIRECT;
	default:
		return TRACERD_KMOD_KPROBE;
	}
}

/* Open /dev/tracerd once, check the ABI, read the features; fills d->kmod. */
static int kmod_open(struct tracerd *d, __u32 *modes)
{
	static __u32 feat_modes;
	struct kmod_info *k = &d->kmod;
	struct tracerd_version v = {};
	struct tracerd_features f = {};
	char ebuf[96];
	int ret;

	*modes = feat_modes;
	if (k->fd >= 0)
		return 0;
	k->present = false;
	k->fd = open(TRACERD_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (k->fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			snprintf(k->reason, sizeof(k->reason),
				 "kmod: %s not present (tracerd_kmod.ko not loaded)", TRACERD_DEV_PATH);
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
			 "kmod: module speaks ABI %u.%u, tracerd needs %u.x: install matching versions",
			 v.abi_major, v.abi_minor, TRACERD_ABI_MAJOR);
		goto fail;
	}
	if (ioctl(k->fd, TRACERD_IOC_FEATURES, &f)) {
		ret = -errno;
		snprintf(k->reason, sizeof(k->reason), "kmod: features ioctl failed: %s",
			 errno_str(ret, ebuf, sizeof(ebuf)));
		goto fail;
	}
	feat_modes = *modes = f.modes;
	k->feat_flags = f.flags;
	k->present = true;
	k->reason[0] = '\0';
	return 0;
fail:
	close(k->fd);
	k->fd = -1;
	return ret;
}

/* What a kmod hook holds (hook->priv): the module's attachment id. */
struct kmod_hook {
	__u64 id;
};

static __u64 kmod_id(const struct hook *h)
{
	const struct kmod_hook *k = h->priv;

	return k ? k->id : 0;
}

/* Undo one hook: detach it from the module, free its part. */
static void kmod_hook_free(struct tracerd *d, struct attachment *a, struct hook *h)
{
	struct tracerd_detach det = { .id = kmod_id(h) };

	if (det.id && d->kmod.fd >= 0 && ioctl(d->kmod.fd, TRACERD_IOC_DETACH, &det))
		log_warn("kmod: failed to detach '%s' (id %llu): %s", h->name,
			 (unsigned long long)det.id, strerror(errno));
	free(h->priv);
	h->priv = NULL;
	h->attached = false;
}

/* h's reason for refusal ret (an attach errno of the module). */
static int kmod_hook_err(const struct attachment *a, struct hook *h, int ret)
{
	char ebuf[96];

	return set_err(h->err, sizeof(h->err), ret, "kmod: failed to attach %s to '%s': %s%s",
		       tracerd_mode_name(a->mode), h->name,
		       errno_str(ret, ebuf, sizeof(ebuf)),
		       ret == -EBUSY ? "; the function already carries a direct call" :
		       ret == -EADDRNOTAVAIL ? "; the mode cannot hook there" :
		       ret == -EEXIST ? "; the function is twice in the request" : "");
}

/* h's kmod part, made on first use (its id comes with the attach). */
static struct kmod_hook *kmod_hook_new(struct hook *h)
{
	if (!h->priv)
		h->priv = calloc(1, sizeof(struct kmod_hook));
	if (!h->priv)
		set_err(h->err, sizeof(h->err), -ENOMEM, "out of memory");
	return h->priv;
}

static int kmod_attach_hook(struct tracerd *d, struct attachment *a, struct hook *h)
{
	struct kmod_hook *k = kmod_hook_new(h);
	struct tracerd_attach at = {
		.addr = h->addr,
		.mode = kmod_mode(a->mode),
		.tgid = a->spec.tgid,
	};

	if (!k)
		return -ENOMEM;
	if (str_copy(at.name, h->name, sizeof(at.name)))
		return set_err(h->err, sizeof(h->err), -ENAMETOOLONG, "name '%s' too long", h->name);
	if (ioctl(d->kmod.fd, TRACERD_IOC_ATTACH, &at))
		return kmod_hook_err(a, h, -errno);
	k->id = at.id;
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
};

/* The batch of every hook the registry left to attach (or, detach, attached). */
static int kmod_batch_new(struct attachment *a, struct kmod_batch *b, bool attached)
{
	size_t i;

	b->n = 0;
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
			if (!kmod_id(h))
				continue;
			e->id = kmod_id(h);
		} else {
			if (h->err[0] || !kmod_hook_new(h))
				continue;
			if (str_copy(e->name, h->name, sizeof(e->name))) {
				set_err(h->err, sizeof(h->err), -ENAMETOOLONG, "name '%s' too long",
					h->name);
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
 * Every hook in one TRACERD_IOC_ATTACH_BATCH; the refused ones get their
 * reason, the rest stay attached. -ENOTTY: the module has no batches.
 */
static int kmod_attach_batch(struct tracerd *d, struct attachment *a)
{
	struct tracerd_batch req = { .mode = kmod_mode(a->mode), .tgid = a->spec.tgid };
	struct kmod_batch b;
	int ret, first = 0, n = 0;
	__u32 i;

	ret = kmod_batch_new(a, &b, false);
	if (ret)
		return set_err(a->hooks[0].err, sizeof(a->hooks[0].err), ret, "out of memory");
	if (b.n == 0) {
		kmod_batch_free(&b);
		return -ENOENT;
	}
	req.entries = (__u64)(unsigned long)b.e;
	req.count = b.n;
	if (ioctl(d->kmod.fd, TRACERD_IOC_ATTACH_BATCH, &req)) {
		ret = -errno;
		kmod_batch_free(&b);
		if (ret != -ENOTTY)
			for (i = 0; i < a->nr_hooks; i++)
				if (!a->hooks[i].err[0])
					kmod_hook_err(a, &a->hooks[i], ret);
		return ret;
	}
	for (i = 0; i < b.n; i++) {
		struct hook *h = &a->hooks[b.idx[i]];

		if (b.e[i].error) {
			ret = kmod_hook_err(a, h, b.e[i].error);
			first = first ? first : ret;
			continue;
		}
		((struct kmod_hook *)h->priv)->id = b.e[i].id;
		h->attached = true;
		n++;
	}
	kmod_batch_free(&b);
	return n ? 0 : first ? first : -ENOENT;
}

static int kmod_attach(struct tracerd *d, struct attachment *a)
{
	char *err = a->hooks[0].err;
	size_t errlen = sizeof(a->hooks[0].err);
	__u32 modes;
	int ret;

	if (kmod_open(d, &modes))
		return set_err(err, errlen, -ENODEV, "%s", d->kmod.reason);
	if (kmod_batch_ok(d)) {
		ret = kmod_attach_batch(d, a);
		if (ret != -ENOTTY)
			return ret;
	}
	return hooks_attach(d, a, kmod_attach_hook, kmod_hook_free);
}

/* Detach every attached hook in one TRACERD_IOC_DETACH_BATCH. */
static int kmod_detach_batch(struct tracerd *d, struct attachment *a)
{
	struct tracerd_batch req = {};
	struct kmod_batch b;
	char ebuf[96];
	__u32 i;
	int ret;

	if (d->kmod.fd < 0 || !kmod_batch_ok(d) || kmod_batch_new(a, &b, true))
		return -ENOTTY;
	req.entries = (__u64)(unsigned long)b.e;
	req.count = b.n;
	ret = b.n && ioctl(d->kmod.fd, TRACERD_IOC_DETACH_BATCH, &req) ? -errno : 0;
	for (i = 0; !ret && i < b.n; i++) {
		struct hook *h = &a->hooks[b.idx[i]];

		if (b.e[i].error)
			log_warn("kmod: failed to detach '%s' (id %llu): %s", h->name,
				 (unsigned long long)b.e[i].id,
				 errno_str(b.e[i].error, ebuf, sizeof(ebuf)));
		((struct kmod_hook *)h->priv)->id = 0;
	}
	kmod_batch_free(&b);
	return ret;
}

static void kmod_detach(struct tracerd *d, struct attachment *a)
{
	size_t i;

	kmod_detach_batch(d, a);	/* what it could not detach goes one by one */
	for (i = 0; i < a->nr_hooks; i++)
		kmod_hook_free(d, a, &a->hooks[i]);
}

static int kmod_counters(struct tracerd *d, struct hook *h, struct tracerd_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->id = kmod_id(h);
	if (!c->id || d->kmod.fd < 0)
		return -ENOENT;
	return ioctl(d->kmod.fd, TRACERD_IOC_COUNTERS, c) ? -errno : 0;
}

/* The module's counters stand in for the BPF slot stats. */
static int kmod_read(struct tracerd *d, struct attachment *a, struct hook *h,
		     struct tracerd_slot_stats *s)
{
	struct tracerd_counters c;
	int ret = kmod_counters(d, h, &c);

	memset(s, 0, sizeof(*s));
	if (ret)
		return ret;
	s->calls = c.hits;
	return 0;
}

static int kmod_ftrace_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			      __u64 *out, const char **why)
{
	*why = "the module's ftrace callbacks do not count misses";
	return -ENODATA;
}

static int kmod_kprobe_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			      __u64 *out, const char **why)
{
	struct tracerd_counters c;

	if (kmod_counters(d, h, &c)) {
		*why = "cannot read the module's counters";
		return -ENODATA;
	}
	*out = c.missed;
	return 0;
}

/* Really attach the mode to the probe function, then detach. */
static int kmod_probe_mode(struct tracerd *d, enum tracerd_mode m, char *reason, size_t len)
{
	struct attachment a = { .mode = m };
	struct hook h = {};
	__u32 modes;
	int ret;

	ret = kmod_open(d, &modes);
	if (ret)
		return set_err(reason, len, ret, "%s", d->kmod.reason);
	if (!(modes & (1U << kmod_mode(m))))
		return set_err(reason, len, -EOPNOTSUPP,
			       "kmod: the module cannot do %s on this kernel (TRACERD_IOC_FEATURES)",
			       tracerd_mode_name(m));
	str_copy(h.name, d->probe_fn, sizeof(h.name));
	h.addr = resolve_addr(d, h.name);
	if (!h.addr)
		return set_err(reason, len, -ENOENT, "no kallsyms address for '%s'", h.name);
	a.hooks = &h;
	a.nr_hooks = 1;
	ret = kmod_attach_hook(d, &a, &h);
	if (ret)
		set_err(reason, len, ret, "%s", h.err);
	kmod_detach(d, &a);
	return ret;
}

static int kmod_callops_probe(struct tracerd *d, char *reason, size_t len)
{
	return kmod_probe_mode(d, TRACERD_MODE_KMOD_CALLOPS, reason, len);
}

static int kmod_direct_probe(struct tracerd *d, char *reason, size_t len)
{
	return kmod_probe_mode(d, TRACERD_MODE_KMOD_DIRECT, reason, len);
}

static int kmod_kprobe_probe(struct tracerd *d, char *reason, size_t len)
{
	return kmod_probe_mode(d, TRACERD_MODE_KMOD_KPROBE, reason, len);
}

static void kmod_fini(struct tracerd *d)
{
	if (d->kmod.fd >= 0)
		close(d->kmod.fd);
	d->kmod.fd = -1;
}

/* the module counts calls filtered by tgid: no latency, comm or ring buffer */
#define KMOD_CAPS	(MODE_CAP_FUNCTION | MODE_CAP_PID | MODE_CAP_NEEDS_ADDR)

#define KMOD_BACKEND(var, m, caps_, probe_fn, misses_fn, fini_fn)	\
	const struct backend var = {		\
		.mode = m,			\
		.caps = caps_,			\
		.probe = probe_fn,		\
		.batch = true,			\
		.attach = kmod_attach,		\
		.detach = kmod_detach,		\
		.read = kmod_read,		\
		.misses = misses_fn,		\
		.fini = fini_fn,		\
	}

KMOD_BACKEND(backend_kmod_callops, TRACERD_MODE_KMOD_CALLOPS, KMOD_CAPS, kmod_callops_probe,
	     kmod_ftrace_misses, kmod_fini);
KMOD_BACKEND(backend_kmod_direct, TRACERD_MODE_KMOD_DIRECT,
	     KMOD_CAPS | MODE_CAP_DIRECT_CALL | MODE_CAP_DIRECT_EXCL, kmod_direct_probe,
	     kmod_ftrace_misses, NULL);
KMOD_BACKEND(backend_kmod_kprobe, TRACERD_MODE_KMOD_KPROBE, KMOD_CAPS, kmod_kprobe_probe,
	     kmod_kprobe_misses, NULL);

/* The kernel configuration that matters to the paths, as the module saw it. */
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
		json_object_object_add(o, cfg[i].name,
				       json_object_new_boolean(!!(d->kmod.feat_flags & cfg[i].bit)));
	return o;
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
 * Per function of a kmod attachment: what its ftrace call site branches to
 * now (TRACERD_IOC_SITE): "direct" (straight to the kmod-direct trampoline),
 * "caller" (through ftrace_caller or an ops trampoline), "nop".
 */
json_object *kmod_sites_json(struct tracerd *d, const struct attachment *a)
{
	json_object *arr;
	char ebuf[96];
	size_t i;

	if (backend_get(a->mode)->detach != kmod_detach)
		return NULL;	/* not a kmod attachment */
	arr = json_object_new_array();
	for (i = 0; i < a->nr_hooks; i++) {
		const struct hook *h = &a->hooks[i];
		struct tracerd_site s = { .id = kmod_id(h) };
		json_object *o;

		if (!s.id)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "function", json_object_new_string(h->name));
		if (d->kmod.fd < 0 || ioctl(d->kmod.fd, TRACERD_IOC_SITE, &s)) {
			int err = d->kmod.fd < 0 ? -ENODEV : -errno;

			json_object_object_add(o, "path", NULL);
			json_object_object_add(o, "error", json_object_new_string(
				err == -ENOTTY ? "kmod: module older than ABI 1.2 (no SITE ioctl)" :
				errno_str(err, ebuf, sizeof(ebuf))));
		} else {
			s.target_sym[sizeof(s.target_sym) - 1] = '\0';
			json_object_object_add(o, "path",
					       json_object_new_string(site_path_name(s.path)));
			json_object_object_add(o, "target", s.target_sym[0] ?
					       json_object_new_string(s.target_sym) : NULL);
		}
		json_object_array_add(arr, o);
	}
	return arr;
}
