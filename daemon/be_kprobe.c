// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobe backends: BPF kprobe/kretprobe at the function entry ("kprobe":
 * with KPROBES_ON_FTRACE this runs through an ftrace_ops callback) and a
 * kprobe past the entry ("kprobe-int3": the first instruction after the
 * fentry call, +5, or +9 behind an ENDBR on IBT kernels; a real int3).
 * One program, attached once per function; the BPF cookie is the slot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include "bpfutil.h"
#include "kprobe.skel.h"

BPF_SKEL_ADAPTERS(kprobe_bpf)

static const struct bpf_skel kprobe_skel = {
	BPF_SKEL_FNS(kprobe_bpf),
	.name = "kprobe",
	.progs = (const char *const[]){ "kprobe_entry", "kprobe_return", NULL },
	.what = "kprobe programs",
	.maps_err_is_load_err = true,
};

static int kprobe_load(struct tracerd *d, char *err, size_t errlen)
{
	return bpf_skel_load(d, &kprobe_skel, NULL, &d->be_state[TRACERD_MODE_KPROBE], err, errlen);
}

/* Attach one kprobe (or kretprobe) of hook h at offset off. */
static int kprobe_attach_prog(struct hook *h, int which, const struct bpf_program *prog,
			      size_t off)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = h->slot, .retprobe = which == 1,
		    .offset = off);
	char ebuf[96];
	int ret;

	struct bpf_hook *b = bpf_hook(h);

	b->link[which] = bpf_program__attach_kprobe_opts(prog, h->name, &opts);
	if (b->link[which])
		return 0;
	ret = -errno;
	return set_err(h->err, sizeof(h->err), ret, "failed to attach %s to '%s%s': %s",
		       which ? "kretprobe" : "kprobe", h->name, off == 5 ? "+5" : off == 9 ? "+9" : "",
		       errno_str(ret, ebuf, sizeof(ebuf)));
}

/* int3 offset: +5 past the fentry call; +9 when the kernel says EILSEQ (ENDBR). */
static int kprobe_attach_int3(struct hook *h, const struct bpf_program *prog)
{
	int ret = kprobe_attach_prog(h, 0, prog, 5);

	if (ret == -EILSEQ)
		ret = kprobe_attach_prog(h, 0, prog, 9);
	return ret;
}

static int kprobe_attach_hook(struct tracerd *d, struct attachment *a, struct hook *h, bool int3)
{
	struct kprobe_bpf *skel = d->be_state[TRACERD_MODE_KPROBE];
	int ret;

	if (!bpf_hook_new(h))
		return set_err(h->err, sizeof(h->err), -ENOMEM, "out of memory");
	if (int3)
		ret = kprobe_attach_int3(h, skel->progs.kprobe_entry);
	else
		ret = kprobe_attach_prog(h, 0, skel->progs.kprobe_entry, 0);
	if (!ret && a->spec.latency)
		ret = kprobe_attach_prog(h, 1, skel->progs.kprobe_return, 0);
	return ret;
}

static int kprobe_hook(struct tracerd *d, struct attachment *a, struct hook *h)
{
	return kprobe_attach_hook(d, a, h, false);
}

static int kprobe_int3_hook(struct tracerd *d, struct attachment *a, struct hook *h)
{
	return kprobe_attach_hook(d, a, h, true);
}

static int kprobe_attach(struct tracerd *d, struct attachment *a)
{
	int ret = kprobe_load(d, a->hooks[0].err, sizeof(a->hooks[0].err));

	return ret ? ret : bpf_hooks_attach(d, a, kprobe_hook);
}

static int kprobe_int3_attach(struct tracerd *d, struct attachment *a)
{
	int ret = kprobe_load(d, a->hooks[0].err, sizeof(a->hooks[0].err));

	return ret ? ret : bpf_hooks_attach(d, a, kprobe_int3_hook);
}

/*
 * struct bpf_link_info for a perf-event kprobe link as of Linux 6.7 (the
 * first with "missed"); the uapi headers of this build may be older.
 */
struct link_info_kprobe {
	__u32 type, id, prog_id, reserved0;
	__u32 perf_event_type, reserved1;
	__u64 func_name;
	__u32 name_len, offset;
	__u64 addr, missed, cookie;
};

static bool kernel_at_least(int maj, int min)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return false;
	return a > maj || (a == maj && b >= min);
}

static int link_missed(struct bpf_link *l, __u64 *out)
{
	struct link_info_kprobe info = {};
	__u32 len = sizeof(info);

	if (!l)
		return 0;
	if (bpf_obj_get_info_by_fd(bpf_link__fd(l), &info, &len))
		return -errno;
	*out += info.missed;
	return 0;
}

static int kprobe_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			 __u64 *out, const char **why)
{
	/* the kernel reports kprobe link misses since 6.7 (BPF link info) */
	if (!kernel_at_least(6, 7)) {
		*why = "the kernel reports BPF kprobe misses only since Linux 6.7";
		return -ENODATA;
	}
	*out = 0;
	if (link_missed(bpf_hook(h)->link[0], out) || link_missed(bpf_hook(h)->link[1], out)) {
		*why = "cannot read link info";
		return -ENODATA;
	}
	return 0;
}

static int kprobe_probe_mode(struct tracerd *d, bool int3, char *reason, size_t len)
{
	struct bpf_hook b = { .prog_fd = { -1, -1 }, .link_fd = { -1, -1 } };
	struct hook h = { .priv = &b };
	struct kprobe_bpf *skel;
	int ret;

	ret = kprobe_load(d, reason, len);
	if (ret)
		return ret;
	skel = d->be_state[TRACERD_MODE_KPROBE];
	str_copy(h.name, d->probe_fn, sizeof(h.name));
	h.slot = TRACERD_MAX_SLOTS;	/* out of range: the program does nothing */
	ret = int3 ? kprobe_attach_int3(&h, skel->progs.kprobe_entry) :
		     kprobe_attach_prog(&h, 0, skel->progs.kprobe_entry, 0);
	if (ret) {
		if (access("/sys/bus/event_source/devices/kprobe", F_OK))
			snprintf(reason, len, "%s; no kprobe PMU (kernel without CONFIG_KPROBES?)", h.err);
		else
			snprintf(reason, len, "%s", h.err);
	}
	bpf_hook_close(&b);
	return ret;
}

static int kprobe_probe(struct tracerd *d, char *reason, size_t len)
{
	return kprobe_probe_mode(d, false, reason, len);
}

/*
 * kprobe-int3 is x86's breakpoint path past the fentry call site. Other
 * arches (arm64: no KPROBES_ON_FTRACE) put every kprobe on a breakpoint
 * already, so there mode kprobe is that path and this one does not exist.
 */
static int kprobe_int3_probe(struct tracerd *d, char *reason, size_t len)
{
#ifndef __x86_64__
	snprintf(reason, len, "x86 only: every kprobe on this arch already takes the breakpoint path (mode kprobe)");
	return -EOPNOTSUPP;
#endif
	return kprobe_probe_mode(d, true, reason, len);
}

static void kprobe_fini(struct tracerd *d)
{
	bpf_skel_free(&kprobe_skel, &d->be_state[TRACERD_MODE_KPROBE]);
}

const struct backend backend_kprobe = {
	.mode = TRACERD_MODE_KPROBE,
	.caps = BE_CAPS_BPF_FUNCTION,
	.probe = kprobe_probe,
	.attach = kprobe_attach,
	.detach = bpf_hooks_detach,
	.misses = kprobe_misses,
	.fini = kprobe_fini,
	.variant = { [MODE_VARIANT_EMPTY] = &backend_kprobe_empty },
	.fds = { { 3, 6 }, { 0, 0 } },	/* a program, its perf event and link */
};

const struct backend backend_kprobe_int3 = {
	.mode = TRACERD_MODE_KPROBE_INT3,
	.caps = BE_CAPS_BPF_FUNCTION,
	.probe = kprobe_int3_probe,
	.attach = kprobe_int3_attach,
	.detach = bpf_hooks_detach,
	.misses = kprobe_misses,
	.fini = NULL,	/* shares kprobe's state */
	.variant = { [MODE_VARIANT_EMPTY] = &backend_kprobe_int3_empty },
	.fds = { { 3, 6 }, { 0, 0 } },
};
