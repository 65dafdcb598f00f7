// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobe backends: BPF kprobe/kretprobe at the function entry ("kprobe":
 * with KPROBES_ON_FTRACE this runs through an ftrace_ops callback) and a
 * kprobe past the entry ("kprobe-int3": the first instruction after the
 * fentry call, +5, or +9 behind an ENDBR on IBT kernels, a real int3;
 * riscv64: +8, past the auipc/jalr pair, an ebreak).
 * The templates are loaded once and cloned with the attachment's filters
 * in immediates (bpf_clone_hook): per hook with its slot when the
 * attachment has one function, once per attachment (the slot from the
 * BPF cookie) when it has several; every hook has its own kprobe perf
 * event and BPF perf link.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "stacks.h"
#include "../lib/log.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpfutil.h"
#include "kprobe.skel.h"

BPF_SKEL_ADAPTERS(kprobe_bpf)

static const struct bpf_skel kprobe_skel = {
	BPF_SKEL_FNS(kprobe_bpf),
	BPF_SKEL_NOBTF(kprobe_bpf),
	.name = "kprobe",
	.progs = (const char *const[]){ "kprobe_entry", "kprobe_return", "kprobe_entry_count",
					"kprobe_entry_lat", "kprobe_return_lat", NULL },
	.what = "kprobe programs",
	.maps_err_is_load_err = true,
};

static int kprobe_load(struct tracerd *d, char *err, size_t errlen)
{
	return bpf_skel_load(d, &kprobe_skel, NULL, &d->be_state[TRACERD_MODE_KPROBE], err, errlen);
}

/* An int read from a sysfs file with format fmt; -ENOENT when absent or unreadable. */
static int sysfs_int(const char *path, const char *fmt)
{
	FILE *f = fopen(path, "r");
	int v, n;

	if (!f)
		return -ENOENT;
	n = fscanf(f, fmt, &v);
	fclose(f);
	return n == 1 && v >= 0 ? v : -ENOENT;
}

/* A kprobe perf event on fn+off, a kretprobe when ret: its fd, or -errno. */
static int kprobe_event(const char *fn, size_t off, bool ret)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int type = sysfs_int("/sys/bus/event_source/devices/kprobe/type", "%d"), bit = 0, fd;

	if (ret)
		bit = sysfs_int("/sys/bus/event_source/devices/kprobe/format/retprobe",
				"config:%d");
	if (type < 0 || bit < 0)
		return -ENOENT;
	attr.type = (__u32)type;
	attr.config = ret ? 1ULL << bit : 0;
	attr.config1 = (__u64)(uintptr_t)fn;	/* kprobe_func */
	attr.config2 = off;			/* probe_offset */
	fd = (int)syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* prog on a kprobe (kretprobe when ret) at fn+off: the link's fd, or -errno. */
static int kprobe_link(int prog, const char *fn, size_t off, bool ret, __u64 cookie)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .perf_event.bpf_cookie = cookie);
	int ev = kprobe_event(fn, off, ret), fd;

	if (ev < 0)
		return ev;
	fd = bpf_link_create(prog, ev, BPF_PERF_EVENT, &opts);
	fd = fd < 0 ? -errno : fd;
	close(ev);	/* the link holds the event */
	return fd;
}

/* a->priv of an attachment of several functions: the clones its hooks share (-1: none) */
struct kprobe_shared {
	int prog[2];
};

/*
 * Attach tmpl (entry: which 0, return: 1) for hook h at offset off: the
 * shared clone (the slot from the cookie), or with shared < 0 a clone of
 * h's own, its slot and spec's filters baked in (spec NULL: read from
 * slot_cfg).
 */
static int kprobe_attach_prog(struct hook *h, const struct tracerd_spec *spec, int which,
			      const struct bpf_program *tmpl, int shared, size_t off)
{
	struct bpf_hook *b = bpf_hook(h);
	char ebuf[96], err[HOOK_ERR_MAX] = "";
	int fd = shared;

	if (fd < 0) {
		fd = bpf_clone_hook(tmpl, h->slot, spec, 0, 0, err, sizeof(err));
		if (fd < 0)
			return hook_err_msg(h, fd, err);
		b->prog_fd[which] = fd;
	}
	fd = kprobe_link(fd, h->name, off, which == 1, h->slot);
	if (fd >= 0) {
		b->link_fd[which] = fd;
		return 0;
	}
	return hook_err(h, fd, "failed to attach %s to '%s%s': %s",
			which ? "kretprobe" : "kprobe", h->name,
			off == 5	  ? "+5"
			: off == 9 ? "+9"
				  : "",
			errno_str(fd, ebuf, sizeof(ebuf)));
}

/*
 * int3 offset: x86 +5 past the fentry call, +9 when the kernel says EILSEQ
 * (ENDBR); riscv64 +8 past the auipc/jalr (or nop) pair at the symbol.
 */
static int kprobe_attach_int3(struct hook *h, const struct tracerd_spec *spec,
			      const struct bpf_program *prog, int shared)
{
#ifdef __riscv
	int ret = kprobe_attach_prog(h, spec, 0, prog, shared, 8);
#else
	int ret = kprobe_attach_prog(h, spec, 0, prog, shared, 5);
#endif

	if (ret == -EILSEQ) {
		bpf_hook_close(bpf_hook(h));
		ret = kprobe_attach_prog(h, spec, 0, prog, shared, 9);
		if (!ret)
			hook_err_clear(h);	/* +5's refusal */
	}
	return ret;
}

/*
 * riscv64: a traceable function's first instruction is its ftrace site,
 * where a kernel without KPROBES_ON_FTRACE (Debian's 6.12) refuses a
 * kprobe with EINVAL.
 */
#ifdef __riscv
#define RISCV_ENTRY_HINT "; a traceable function begins with its ftrace site, which this kernel " \
	"(no KPROBES_ON_FTRACE) does not let a kprobe take: mode kprobe-int3 probes past it"
#else
#define RISCV_ENTRY_HINT ""
#endif

static int kprobe_attach_hook(struct tracerd *d, struct attachment *a, struct hook *h, bool int3)
{
	struct kprobe_bpf *skel = d->be_state[TRACERD_MODE_KPROBE];
	const struct kprobe_shared *sh = a->priv;
	int ret, entry = sh ? sh->prog[0] : -1;

	if (!bpf_hook_new(h))
		return hook_err(h, -ENOMEM, "out of memory");
	if (int3)
		ret = kprobe_attach_int3(
			h, &a->spec, bpf_hook_tmpl(skel->obj, skel->progs.kprobe_entry, &a->spec),
			entry);
	else
		ret = kprobe_attach_prog(h, &a->spec, 0, bpf_hook_tmpl(skel->obj,
					 skel->progs.kprobe_entry, &a->spec), entry, 0);
	if (!ret && spec_returns(&a->spec))
		ret = kprobe_attach_prog(h, &a->spec, 1, bpf_hook_tmpl(skel->obj,
					 skel->progs.kprobe_return, &a->spec),
					 sh ? sh->prog[1] : -1, 0);
	/* the return half is a kretprobe at the entry: riscv64's ftrace site
	 * (RISCV_ENTRY_HINT). Not an error of the attach: the mode cannot time
	 * a function here (EADDRNOTAVAIL, which bench says is unavailable). */
	if (ret == -EINVAL && int3 && spec_returns(&a->spec) && RISCV_ENTRY_HINT[0])
		ret = hook_err(h, -EADDRNOTAVAIL, "%s; a kretprobe sits at the function's entry, "
			       "its ftrace site, which this kernel (no KPROBES_ON_FTRACE) does not "
			       "let a kprobe take: mode kprobe-int3 counts here, it cannot time",
			       h->err ? h->err : "kretprobe refused");
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

/*
 * Several functions: one clone pair for all (a->priv), the slot from each
 * link's cookie, so attaching costs a verification per attachment, not
 * per function. One function: its own clones with the slot immediate.
 */
static int kprobe_share(struct tracerd *d, struct attachment *a, char *err, size_t errlen)
{
	struct kprobe_bpf *skel = d->be_state[TRACERD_MODE_KPROBE];
	struct kprobe_shared *sh;

	if (a->nr_hooks < 2)
		return 0;
	sh = malloc(sizeof(*sh));
	if (!sh)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	sh->prog[1] = -1;
	a->priv = sh;
	sh->prog[0] = bpf_clone_hook(bpf_hook_tmpl(skel->obj, skel->progs.kprobe_entry, &a->spec),
				     TRACERD_SLOT_COOKIE, &a->spec, 0, 0,
				     err, errlen);
	if (sh->prog[0] < 0)
		return sh->prog[0];
	if (!spec_returns(&a->spec))
		return 0;
	sh->prog[1] = bpf_clone_hook(bpf_hook_tmpl(skel->obj, skel->progs.kprobe_return, &a->spec),
				     TRACERD_SLOT_COOKIE, &a->spec, 0, 0,
				     err, errlen);
	return sh->prog[1] < 0 ? sh->prog[1] : 0;
}

static int kprobe_attach_mode(struct tracerd *d, struct attachment *a, bool int3)
{
	char err[HOOK_ERR_MAX] = "";
	int ret = kprobe_load(d, err, sizeof(err));

	if (!ret)
		ret = kprobe_share(d, a, err, sizeof(err));
	if (ret)
		return hook_err_msg(&a->hooks[0], ret, err);
	return bpf_hooks_attach(d, a, int3 ? kprobe_int3_hook : kprobe_hook);
}

static int kprobe_attach(struct tracerd *d, struct attachment *a)
{
	return kprobe_attach_mode(d, a, false);
}

static int kprobe_int3_attach(struct tracerd *d, struct attachment *a)
{
	return kprobe_attach_mode(d, a, true);
}

static void kprobe_detach(struct tracerd *d, struct attachment *a)
{
	struct kprobe_shared *sh = a->priv;
	int i;

	bpf_hooks_detach(d, a);
	for (i = 0; sh && i < 2; i++)
		if (sh->prog[i] >= 0)
			close(sh->prog[i]);
	free(sh);
	a->priv = NULL;
}

/* the shared clones of a->priv, then each hook's own */
static int kprobe_progs(struct tracerd *d, struct attachment *a, int (*fn)(int prog_fd, void *ctx),
			void *ctx)
{
	const struct kprobe_shared *sh = a->priv;
	int i, ret, sum = 0;

	for (i = 0; sh && i < 2; i++) {
		if (sh->prog[i] < 0)
			continue;
		ret = fn(sh->prog[i], ctx);
		if (ret < 0)
			return ret;
		sum += ret;
	}
	ret = bpf_hooks_progs(d, a, fn, ctx);
	return ret < 0 ? ret : sum + ret;
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

static int link_missed(int fd, __u64 *out)
{
	struct link_info_kprobe info = {};
	__u32 len = sizeof(info);

	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
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
	if (link_missed(bpf_hook(h)->link_fd[0], out) ||
	    link_missed(bpf_hook(h)->link_fd[1], out)) {
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
	h.name = d->probe_fn;
	h.module = "";
	h.slot = TRACERD_MAX_SLOTS;	/* out of range: the program does nothing */
	ret = int3 ? kprobe_attach_int3(&h, NULL, skel->progs.kprobe_entry, -1) :
		     kprobe_attach_prog(&h, NULL, 0, skel->progs.kprobe_entry, -1, 0);
	if (ret) {
		if (access("/sys/bus/event_source/devices/kprobe", F_OK))
			snprintf(reason, len, "%s; no kprobe PMU (kernel without CONFIG_KPROBES?)",
				 h.err);
		else if (ret == -EINVAL && !int3 && RISCV_ENTRY_HINT[0])
			snprintf(reason, len, "%s%s", h.err, RISCV_ENTRY_HINT);
		else
			snprintf(reason, len, "%s", h.err);
	}
	hook_err_clear(&h);
	bpf_hook_close(&b);
	return ret;
}

static int kprobe_probe(struct tracerd *d, char *reason, size_t len)
{
	return kprobe_probe_mode(d, false, reason, len);
}

/*
 * kprobe-int3 is the breakpoint path past the ftrace call site: x86's
 * int3 after the fentry call, riscv64's ebreak after the 8-byte site
 * (there, without KPROBES_ON_FTRACE, the only kprobe a traceable function
 * can take). arm64 puts every kprobe on a breakpoint already (BRK at the
 * symbol, no KPROBES_ON_FTRACE), so there mode kprobe is that path.
 */
static int kprobe_int3_probe(struct tracerd *d, char *reason, size_t len)
{
#if !defined(__x86_64__) && !defined(__riscv)
	snprintf(reason, len,
		 "x86 and riscv64 only: every kprobe on this arch already takes the breakpoint "
		 "path (mode kprobe)");
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
	.stacks = bpf_stacks,
	.caps = BE_CAPS_BPF_FUNCTION,
	.probe = kprobe_probe,
	.attach = kprobe_attach,
	.detach = kprobe_detach,
	.progs = kprobe_progs,
	.misses = kprobe_misses,
	.fini = kprobe_fini,
	.variant = { [MODE_VARIANT_EMPTY] = &backend_kprobe_empty },
	/* per hook a perf event and its link (two of each with latency); the
	 * program clone (one, two with latency) once per attachment: measured
	 * 2330 fds for the 1132-function syscall glob on 6.12 (66 at rest) */
	.fds = { { 2, 4 }, { 1, 2 } },
};

const struct backend backend_kprobe_int3 = {
	.mode = TRACERD_MODE_KPROBE_INT3,
	.stacks = bpf_stacks,
	.caps = BE_CAPS_BPF_FUNCTION,
	.probe = kprobe_int3_probe,
	.attach = kprobe_int3_attach,
	.detach = kprobe_detach,
	.progs = kprobe_progs,
	.misses = kprobe_misses,
	.fini = NULL,	/* shares kprobe's state */
	.variant = { [MODE_VARIANT_EMPTY] = &backend_kprobe_int3_empty },
	.fds = { { 2, 4 }, { 1, 2 } },
};
