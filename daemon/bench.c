// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The `bench` control command (docs/bench.md, "Protocol"): one command, an
 * "op" argument per step, so tracectl can run a benchmark's loops in its
 * own process while the daemon owns the hooks:
 *
 *   info     kernel, arch, kmod features (the relevant config), mode list
 *   hook     attach one benchmark hook for a pid: a normal attachment
 *            (registry, visible in `list`), a kmod hook the registry has no
 *            mode for (kmod-kprobe-int3, kmod-callops with SAVE_REGS), or an
 *            "empty" BPF program (bpf/bench.bpf.c); returns a handle
 *   read     the exact count of a handle (and its latency samples)
 *   unhook   remove a handle, or every benchmark hook ("all")
 *   ops      TRACERD_IOC_BENCH_OPS, patch: TRACERD_IOC_BENCH_PATCH,
 *            patch_all: TRACERD_IOC_BENCH_ALL (every traceable function)
 *   store    keep a trigger result in state_dir (bench_store.c)
 *
 * A mode the kernel lacks is PROTO_E_UNAVAILABLE with the reason probed at
 * start (or the kernel's errno), never a silent skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <tracerd/kmod_abi.h>
#include "../lib/log.h"
#include "../lib/modes.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "backend.h"
#include "bench.h"
#include "commands.h"
#include "registry.h"
#include "resolve.h"
#include "bench.skel.h"

#define BENCH_HOOKS_MAX	16

enum bench_kind { BK_NONE, BK_REGISTRY, BK_KMOD, BK_EMPTY };

/* One live benchmark hook. */
struct bench_hook {
	enum bench_kind kind;
	unsigned int handle;
	unsigned int att_id;	/* BK_REGISTRY */
	__u64 kmod_id;		/* BK_KMOD */
	struct bench_bpf *skel;	/* BK_EMPTY */
	struct bpf_link *link;	/* BK_EMPTY */
};

/* Single-threaded daemon: the table is only touched from the loop. */
static struct bench_hook bench_hooks[BENCH_HOOKS_MAX];
static unsigned int bench_next_handle;

/* A hook request, decoded. */
struct bench_req {
	const char *mode_name;
	int mode;		/* enum tracerd_mode, or -1 for kmod-kprobe-int3 */
	const char *variant;	/* count, latency, empty */
	bool save_regs;
	__u32 pid;
	const char *target;
};

static const char *const kmod_mode_names[] = {
	[TRACERD_KMOD_CALLOPS] = "kmod-callops",
	[TRACERD_KMOD_DIRECT] = "kmod-direct",
	[TRACERD_KMOD_KPROBE] = "kmod-kprobe",
	[TRACERD_KMOD_KPROBE_INT3] = "kmod-kprobe-int3",
};

static int kmod_mode_parse(const char *name)
{
	unsigned int i;

	for (i = 1; i < ARRAY_SIZE(kmod_mode_names); i++)
		if (name && !strcmp(name, kmod_mode_names[i]))
			return (int)i;
	return -EINVAL;
}

static struct bench_hook *hook_find(unsigned int handle)
{
	unsigned int i;

	for (i = 0; i < BENCH_HOOKS_MAX; i++)
		if (bench_hooks[i].kind != BK_NONE && bench_hooks[i].handle == handle)
			return &bench_hooks[i];
	return NULL;
}

static void hook_release(struct tracerd *d, struct bench_hook *h)
{
	struct tracerd_detach det = { .id = h->kmod_id };
	struct attachment *a;

	switch (h->kind) {
	case BK_REGISTRY:
		a = registry_find(d, h->att_id);
		if (a)
			registry_detach(d, a);
		break;
	case BK_KMOD:
		if (d->kmod.fd >= 0 && ioctl(d->kmod.fd, TRACERD_IOC_DETACH, &det))
			log_warn("bench: kmod detach of %llu failed: %s",
				 (unsigned long long)h->kmod_id, strerror(errno));
		break;
	case BK_EMPTY:
		bpf_link__destroy(h->link);
		bench_bpf__destroy(h->skel);
		break;
	case BK_NONE:
		break;
	}
	memset(h, 0, sizeof(*h));
}

/* kmod hook the registry has no mode for: kprobe-int3, callops + SAVE_REGS. */
static enum proto_code hook_kmod(struct tracerd *d, const struct bench_req *q, int kmode,
				 struct bench_hook *h, char *msg, size_t msglen)
{
	struct tracerd_attach at = { .mode = (__u32)kmode, .tgid = q->pid };
	char ebuf[96];
	int ret;

	if (d->kmod.fd < 0) {
		str_fmt(msg, msglen, "%s", d->kmod.reason[0] ? d->kmod.reason :
			"kmod: /dev/tracerd not open (tracerd_kmod.ko not loaded)");
		return PROTO_E_UNAVAILABLE;
	}
	at.flags = q->save_regs ? TRACERD_ATTACH_SAVE_REGS : 0;
	at.addr = resolve_addr(d, q->target);
	if (!at.addr) {
		str_fmt(msg, msglen, "no kallsyms address for '%s'", q->target);
		return PROTO_E_NOT_FOUND;
	}
	if (str_copy(at.name, q->target, sizeof(at.name))) {
		str_fmt(msg, msglen, "function name too long");
		return PROTO_E_BAD_REQUEST;
	}
	if (ioctl(d->kmod.fd, TRACERD_IOC_ATTACH, &at)) {
		ret = -errno;
		str_fmt(msg, msglen, "kmod: failed to attach %s%s to '%s': %s", q->mode_name,
			 q->save_regs ? " (SAVE_REGS)" : "", q->target,
			 errno_str(ret, ebuf, sizeof(ebuf)));
		return command_code(ret);
	}
	h->kind = BK_KMOD;
	h->kmod_id = at.id;
	return PROTO_OK;
}

/* Attach the empty program of a BPF path (bpf/bench.bpf.c). */
static int empty_attach(struct bench_bpf *skel, int mode, const char *target, char *err,
			size_t errlen, struct bpf_link **link)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, mopts, .syms = &target, .cnt = 1);
	LIBBPF_OPTS(bpf_kprobe_opts, kopts);
	char ebuf[96];
	int ret;

	switch (mode) {
	case TRACERD_MODE_FENTRY:
		*link = bpf_program__attach_trace(skel->progs.bench_fentry);
		break;
	case TRACERD_MODE_KPROBE:
		*link = bpf_program__attach_kprobe_opts(skel->progs.bench_kprobe, target, &kopts);
		break;
	case TRACERD_MODE_KPROBE_INT3:
		/* past the fentry call: +5, +9 behind ENDBR (the kernel says EILSEQ) */
		kopts.offset = 5;
		*link = bpf_program__attach_kprobe_opts(skel->progs.bench_kprobe, target, &kopts);
		if (!*link && errno == EILSEQ) {
			kopts.offset = 9;
			*link = bpf_program__attach_kprobe_opts(skel->progs.bench_kprobe, target,
								&kopts);
		}
		break;
	default:
		*link = bpf_program__attach_kprobe_multi_opts(skel->progs.bench_kprobe_multi, NULL,
							      &mopts);
		break;
	}
	if (*link)
		return 0;
	ret = -errno;
	return set_err(err, errlen, ret, "failed to attach the empty %s program to '%s': %s",
		       tracerd_mode_name(mode), target, errno_str(ret, ebuf, sizeof(ebuf)));
}

static enum proto_code hook_empty(struct tracerd *d, const struct bench_req *q,
				  struct bench_hook *h, char *msg, size_t msglen)
{
	struct bench_bpf *skel;
	char ebuf[96];
	int ret;

	skel = bench_bpf__open();
	if (!skel) {
		ret = -errno;
		str_fmt(msg, msglen, "cannot open the bench BPF object: %s",
			errno_str(ret, ebuf, sizeof(ebuf)));
		return PROTO_E_INTERNAL;
	}
	skel->rodata->bench_tgid = q->pid;
	bpf_program__set_autoload(skel->progs.bench_fentry, q->mode == TRACERD_MODE_FENTRY);
	bpf_program__set_autoload(skel->progs.bench_kprobe, q->mode == TRACERD_MODE_KPROBE ||
				  q->mode == TRACERD_MODE_KPROBE_INT3);
	bpf_program__set_autoload(skel->progs.bench_kprobe_multi,
				  q->mode == TRACERD_MODE_KPROBE_MULTI);
	if (q->mode == TRACERD_MODE_FENTRY) {
		ret = bpf_program__set_attach_target(skel->progs.bench_fentry, 0, q->target);
		if (ret) {
			str_fmt(msg, msglen, "no BTF function '%s'", q->target);
			bench_bpf__destroy(skel);
			return PROTO_E_NOT_FOUND;
		}
	}
	ret = bench_bpf__load(skel);
	if (!ret)
		ret = empty_attach(skel, q->mode, q->target, msg, msglen, &h->link);
	else
		str_fmt(msg, msglen, "failed to load the empty %s program: %s", q->mode_name,
			errno_str(ret, ebuf, sizeof(ebuf)));
	if (ret) {
		bench_bpf__destroy(skel);
		return command_code(ret);
	}
	h->kind = BK_EMPTY;
	h->skel = skel;
	return PROTO_OK;
}

static enum proto_code hook_registry(struct tracerd *d, const struct bench_req *q,
				     struct bench_hook *h, char *msg, size_t msglen)
{
	struct tracerd_spec spec = { .mode = (enum tracerd_mode)q->mode, .tgid = q->pid };
	struct attachment *a;
	enum proto_code code;

	spec.latency = !strcmp(q->variant, "latency");
	if (str_copy(spec.target, q->target, sizeof(spec.target))) {
		str_fmt(msg, msglen, "target too long");
		return PROTO_E_BAD_REQUEST;
	}
	code = command_code(registry_attach(d, &spec, &a, NULL, msg, msglen));
	if (code)
		return code;
	h->kind = BK_REGISTRY;
	h->att_id = a->id;
	return PROTO_OK;
}

static enum proto_code hook_decode(struct tracerd *d, json_object *args, struct bench_req *q,
				   char *msg, size_t msglen)
{
	bool bad = false;
	long long pid;

	memset(q, 0, sizeof(*q));
	q->mode_name = proto_arg_str(args, "mode", &bad);
	q->variant = proto_arg_str(args, "variant", &bad);
	q->target = proto_arg_str(args, "target", &bad);
	q->save_regs = proto_arg_bool(args, "save_regs", &bad);
	pid = proto_arg_int(args, "pid", 0, &bad);
	if (!q->variant)
		q->variant = "count";
	if (!q->target)
		q->target = d->probe_fn;
	if (bad || !q->mode_name || pid <= 0 || pid > 0x3fffffff ||
	    (strcmp(q->variant, "count") && strcmp(q->variant, "latency") &&
	     strcmp(q->variant, "empty"))) {
		str_fmt(msg, msglen, "bench hook: needs mode (string), pid (> 0), variant "
			"count|latency|empty, optional target (string), save_regs (bool)");
		return PROTO_E_BAD_REQUEST;
	}
	q->pid = (__u32)pid;
	q->mode = tracerd_mode_parse(q->mode_name);
	if (q->mode < 0 && kmod_mode_parse(q->mode_name) == TRACERD_KMOD_KPROBE_INT3)
		q->mode = -1;
	else if (q->mode <= 0 || q->mode == TRACERD_MODE_TP_BTF) {
		str_fmt(msg, msglen, "bench hook: unknown or unsupported mode '%s'", q->mode_name);
		return PROTO_E_BAD_REQUEST;
	}
	if (q->save_regs && q->mode != TRACERD_MODE_KMOD_CALLOPS) {
		str_fmt(msg, msglen, "bench hook: save_regs is a kmod-callops flag");
		return PROTO_E_BAD_REQUEST;
	}
	return PROTO_OK;
}

/* Why (mode, variant) cannot be measured here; NULL when it can be tried. */
static const char *hook_unavailable(struct tracerd *d, const struct bench_req *q)
{
	bool kmod = q->mode < 0 || tracerd_mode_is_kmod(q->mode);

	if (kmod && strcmp(q->variant, "count"))
		return "kmod modes hook the entry only: no latency, no empty program";
	if (q->mode < 0 || q->save_regs)
		return d->kmod.fd < 0 ? (d->kmod.reason[0] ? d->kmod.reason :
					 "kmod: tracerd_kmod.ko not loaded") : NULL;
	if (!d->features[q->mode].available)
		return d->features[q->mode].reason[0] ? d->features[q->mode].reason :
			"not available on this kernel";
	return NULL;
}

static enum proto_code op_hook(struct tracerd *d, json_object *args, json_object **result,
			       char *msg, size_t msglen)
{
	struct bench_hook *h = NULL;
	struct bench_req q;
	enum proto_code code;
	const char *why;
	unsigned int i;

	code = hook_decode(d, args, &q, msg, msglen);
	if (code)
		return code;
	why = hook_unavailable(d, &q);
	if (why) {
		str_fmt(msg, msglen, "%s %s: %s", q.mode_name, q.variant, why);
		return PROTO_E_UNAVAILABLE;
	}
	for (i = 0; i < BENCH_HOOKS_MAX && !h; i++)
		if (bench_hooks[i].kind == BK_NONE)
			h = &bench_hooks[i];
	if (!h) {
		str_fmt(msg, msglen, "bench: %d hooks at most at once", BENCH_HOOKS_MAX);
		return PROTO_E_LIMIT;
	}
	if (q.mode < 0)
		code = hook_kmod(d, &q, TRACERD_KMOD_KPROBE_INT3, h, msg, msglen);
	else if (q.save_regs)
		code = hook_kmod(d, &q, TRACERD_KMOD_CALLOPS, h, msg, msglen);
	else if (!strcmp(q.variant, "empty"))
		code = hook_empty(d, &q, h, msg, msglen);
	else
		code = hook_registry(d, &q, h, msg, msglen);
	if (code)
		return code;
	h->handle = ++bench_next_handle;
	*result = json_object_new_object();
	json_object_object_add(*result, "handle", json_object_new_int64(h->handle));
	json_object_object_add(*result, "target", json_object_new_string(q.target));
	return PROTO_OK;
}

/* Sum a handle's counts: calls, and completed entry->return pairs. */
static int hook_read(struct tracerd *d, struct bench_hook *h, __u64 *calls, __u64 *lat)
{
	struct tracerd_counters c = { .id = h->kmod_id };
	struct attachment *a;
	struct hook_stats hs;
	__u32 key = 0;
	size_t i;
	int n, ret;

	*calls = *lat = 0;
	switch (h->kind) {
	case BK_REGISTRY:
		a = registry_find(d, h->att_id);
		if (!a)
			return -ENOENT;
		for (i = 0; i < a->nr_hooks; i++) {
			ret = hook_stats(d, a, &a->hooks[i], &hs);
			if (ret)
				return ret;
			*calls += hs.s.calls;
			*lat += hs.s.lat_count;
		}
		return 0;
	case BK_KMOD:
		if (ioctl(d->kmod.fd, TRACERD_IOC_COUNTERS, &c))
			return -errno;
		*calls = c.hits;
		return 0;
	case BK_EMPTY: {
		n = libbpf_num_possible_cpus();
		if (n <= 0)
			return n ? n : -EINVAL;
		__u64 v[n];

		if (bpf_map_lookup_elem(bpf_map__fd(h->skel->maps.bench_hits), &key, v))
			return -errno;
		while (n--)
			*calls += v[n];
		return 0;
	}
	default:
		return -ENOENT;
	}
}

static struct bench_hook *handle_arg(json_object *args, char *msg, size_t msglen)
{
	bool bad = false;
	long long handle = proto_arg_int(args, "handle", 0, &bad);
	struct bench_hook *h = bad || handle <= 0 ? NULL : hook_find((unsigned int)handle);

	if (!h)
		str_fmt(msg, msglen, "bench: no hook with handle %lld", handle);
	return h;
}

static enum proto_code op_read(struct tracerd *d, json_object *args, json_object **result,
			       char *msg, size_t msglen)
{
	struct bench_hook *h = handle_arg(args, msg, msglen);
	__u64 calls, lat;
	int ret;

	if (!h)
		return PROTO_E_NOT_FOUND;
	ret = hook_read(d, h, &calls, &lat);
	if (ret) {
		str_fmt(msg, msglen, "bench: cannot read handle %u: %s", h->handle, strerror(-ret));
		return PROTO_E_INTERNAL;
	}
	*result = json_object_new_object();
	json_object_object_add(*result, "calls", json_object_new_int64((int64_t)calls));
	json_object_object_add(*result, "latency_samples", json_object_new_int64((int64_t)lat));
	return PROTO_OK;
}

static enum proto_code op_unhook(struct tracerd *d, json_object *args, json_object **result,
				 char *msg, size_t msglen)
{
	bool bad = false, all = proto_arg_bool(args, "all", &bad);
	struct bench_hook *h;
	unsigned int i, n = 0;

	if (all) {
		for (i = 0; i < BENCH_HOOKS_MAX; i++)
			if (bench_hooks[i].kind != BK_NONE) {
				hook_release(d, &bench_hooks[i]);
				n++;
			}
	} else {
		h = handle_arg(args, msg, msglen);
		if (!h)
			return PROTO_E_NOT_FOUND;
		hook_release(d, h);
		n = 1;
	}
	*result = json_object_new_object();
	json_object_object_add(*result, "removed", json_object_new_int(n));
	return PROTO_OK;
}

/* mode + save_regs of an ops/patch request into the kmod's terms. */
static enum proto_code kmod_bench_args(struct tracerd *d, json_object *args, __u32 *mode,
				       __u32 *flags, char *msg, size_t msglen)
{
	bool bad = false;
	const char *name = proto_arg_str(args, "mode", &bad);
	bool regs = proto_arg_bool(args, "save_regs", &bad);
	int m = kmod_mode_parse(name);

	if (bad || m < 0 || (regs && m != TRACERD_KMOD_CALLOPS)) {
		str_fmt(msg, msglen, "bench: mode must be kmod-callops, kmod-direct, kmod-kprobe "
			"or kmod-kprobe-int3 (save_regs: kmod-callops only)");
		return PROTO_E_BAD_REQUEST;
	}
	if (d->kmod.fd < 0) {
		str_fmt(msg, msglen, "%s", d->kmod.reason[0] ? d->kmod.reason :
			"kmod: tracerd_kmod.ko not loaded");
		return PROTO_E_UNAVAILABLE;
	}
	*mode = (__u32)m;
	*flags = regs ? TRACERD_ATTACH_SAVE_REGS : 0;
	return PROTO_OK;
}

static void add_u64(json_object *o, const char *key, __u64 v)
{
	json_object_object_add(o, key, json_object_new_int64((int64_t)v));
}

static enum proto_code kmod_bench_error(int err, const char *what, char *msg, size_t msglen)
{
	char ebuf[96];

	str_fmt(msg, msglen, "kmod %s benchmark: %s%s", what, errno_str(err, ebuf, sizeof(ebuf)),
		 err == -EPROTO ? " (hook counts disagree with the calls made: the point is an "
		 "error, not a number)" : err == -E2BIG ? " (above the module's limits)" : "");
	return command_code(err);
}

static enum proto_code op_ops(struct tracerd *d, json_object *args, json_object **result,
			      char *msg, size_t msglen)
{
	struct tracerd_bench_ops b = {};
	bool bad = false;
	long long n = proto_arg_int(args, "calls", 100000, &bad);
	long long r = proto_arg_int(args, "relevant", 0, &bad);
	long long i = proto_arg_int(args, "irrelevant", 0, &bad);
	enum proto_code code = kmod_bench_args(d, args, &b.mode, &b.flags, msg, msglen);
	json_object *o;

	if (code)
		return code;
	if (bad || n <= 0 || r < 0 || i < 0 || r > 0xffff || i > 0xffff) {
		str_fmt(msg, msglen, "bench ops: calls (> 0), relevant, irrelevant (>= 0) integers");
		return PROTO_E_BAD_REQUEST;
	}
	b.calls = (__u64)n;
	b.relevant = (__u32)r;
	b.irrelevant = (__u32)i;
	if (ioctl(d->kmod.fd, TRACERD_IOC_BENCH_OPS, &b))
		return kmod_bench_error(-errno, "ops", msg, msglen);
	o = json_object_new_object();
	add_u64(o, "total_ns", b.total_ns);
	add_u64(o, "base_total_ns", b.base_total_ns);
	add_u64(o, "hits", b.hits);
	add_u64(o, "irrelevant_hits", b.irrelevant_hits);
	add_u64(o, "attach_ns", b.attach_ns);
	add_u64(o, "detach_ns", b.detach_ns);
	*result = o;
	return PROTO_OK;
}

static enum proto_code op_patch(struct tracerd *d, json_object *args, json_object **result,
				char *msg, size_t msglen)
{
	struct tracerd_bench_patch b = {};
	bool bad = false;
	long long k = proto_arg_int(args, "funcs", 1, &bad);
	enum proto_code code = kmod_bench_args(d, args, &b.mode, &b.flags, msg, msglen);
	json_object *o;

	if (code)
		return code;
	if (bad || k <= 0 || k > 0xffff) {
		str_fmt(msg, msglen, "bench patch: funcs must be a positive integer");
		return PROTO_E_BAD_REQUEST;
	}
	b.funcs = (__u32)k;
	if (ioctl(d->kmod.fd, TRACERD_IOC_BENCH_PATCH, &b))
		return kmod_bench_error(-errno, "patch", msg, msglen);
	o = json_object_new_object();
	add_u64(o, "one_attach_ns", b.one_attach_ns);
	add_u64(o, "one_detach_ns", b.one_detach_ns);
	add_u64(o, "sep_attach_ns", b.sep_attach_ns);
	add_u64(o, "sep_detach_ns", b.sep_detach_ns);
	add_u64(o, "one_hits", b.one_hits);
	add_u64(o, "sep_hits", b.sep_hits);
	*result = o;
	return PROTO_OK;
}

/* patch_all: one kmod-callops ops on every traceable function. */
static enum proto_code op_patch_all(struct tracerd *d, json_object *args, json_object **result,
				    char *msg, size_t msglen)
{
	struct tracerd_bench_all b = {};
	enum proto_code code = kmod_bench_args(d, args, &b.mode, &b.flags, msg, msglen);
	long long funcs;
	json_object *o;

	if (code)
		return code;
	if (b.mode != TRACERD_KMOD_CALLOPS) {
		str_fmt(msg, msglen, "bench patch_all: kmod-callops only (one ftrace_ops on every "
			"traceable function)");
		return PROTO_E_BAD_REQUEST;
	}
	funcs = resolve_nr_traceable(d);	/* what an all-ops patches */
	if (funcs <= 0) {
		str_fmt(msg, msglen, "bench patch_all: cannot read tracefs "
			"available_filter_functions (is tracefs mounted?)");
		return PROTO_E_UNAVAILABLE;
	}
	if (ioctl(d->kmod.fd, TRACERD_IOC_BENCH_ALL, &b))
		return kmod_bench_error(-errno, "all-functions", msg, msglen);
	o = json_object_new_object();
	add_u64(o, "attach_ns", b.attach_ns);
	add_u64(o, "detach_ns", b.detach_ns);
	add_u64(o, "hits", b.hits);
	add_u64(o, "tracee_hits", b.tracee_hits);
	add_u64(o, "functions", (__u64)funcs);
	*result = o;
	return PROTO_OK;
}

/*
 * attach: time attaching and detaching K of the test module's functions
 * (tracerd_testmod_fn_000 .. _3ff: distinct functions with BTF; tracerd's
 * own module is on the denylist) in a BPF mode through the registry, as one
 * attachment (a glob: K = 1, 16, 256 or 1024) or as K attachments. The
 * count behind the point: K functions hooked.
 */
static enum proto_code op_attach_time(struct tracerd *d, json_object *args,
				      json_object **result, char *msg, size_t msglen)
{
	static const char *const globs[] = { "000", "00?", "0??", "???" };
	bool bad = false;
	const char *mode = proto_arg_str(args, "mode", &bad), *how = proto_arg_str(args, "how", &bad);
	long long k = proto_arg_int(args, "funcs", 0, &bad), i, hooked = 0;
	struct tracerd_spec spec = {};
	struct attachment *a;
	unsigned int *ids = NULL;
	enum proto_code code = PROTO_OK;
	uint64_t t0, t_att = 0, t_det = 0;
	int m = tracerd_mode_parse(mode ? mode : "");
	bool one = how && !strcmp(how, "one");
	int g = k == 1 ? 0 : k == 16 ? 1 : k == 256 ? 2 : k == 1024 ? 3 : -1;

	if (bad || m <= 0 || m == TRACERD_MODE_TP_BTF || k < 1 || k > 1024 || !how ||
	    (strcmp(how, "one") && strcmp(how, "separate")) || (one && g < 0)) {
		str_fmt(msg, msglen, "bench attach: mode, how (one: funcs 1|16|256|1024, "
			"separate: funcs 1..1024)");
		return PROTO_E_BAD_REQUEST;
	}
	if (!d->features[m].available) {
		str_fmt(msg, msglen, "%s: %s", mode, d->features[m].reason);
		return PROTO_E_UNAVAILABLE;
	}
	if (access("/sys/module/tracerd_testmod", F_OK)) {
		str_fmt(msg, msglen, "bench attach: BPF modes attach to tracerd_testmod's 1024 "
			"functions: load tracerd_testmod.ko (tests/kmod)");
		return PROTO_E_UNAVAILABLE;
	}
	ids = calloc((size_t)k, sizeof(*ids));
	if (!ids)
		return PROTO_E_INTERNAL;
	spec.mode = (enum tracerd_mode)m;
	for (i = 0; i < (one ? 1 : k) && !code; i++) {
		if (one)
			snprintf(spec.target, sizeof(spec.target), "tracerd_testmod_fn_%s", globs[g]);
		else
			snprintf(spec.target, sizeof(spec.target), "tracerd_testmod_fn_%03llx", i);
		t0 = now_mono_ns();
		code = command_code(registry_attach(d, &spec, &a, NULL, msg, msglen));
		t_att += now_mono_ns() - t0;
		if (!code) {
			ids[i] = a->id;
			hooked += (long long)a->nr_hooks;
		}
	}
	for (i = 0; i < k; i++) {
		a = ids[i] ? registry_find(d, ids[i]) : NULL;
		if (!a)
			continue;
		t0 = now_mono_ns();
		registry_detach(d, a);
		t_det += now_mono_ns() - t0;
	}
	free(ids);
	if (code)
		return code;
	*result = json_object_new_object();
	add_u64(*result, "attach_ns", t_att);
	add_u64(*result, "detach_ns", t_det);
	add_u64(*result, "functions", (__u64)hooked);
	return PROTO_OK;
}

static enum proto_code op_info(struct tracerd *d, json_object *args, json_object **result,
			       char *msg, size_t msglen)
{
	json_object *o = json_object_new_object(), *modes = json_object_new_object();
	struct tracerd_features f = {};
	struct utsname u;
	int m;

	uname(&u);
	json_object_object_add(o, "version", json_object_new_string(TRACERD_VERSION));
	json_object_object_add(o, "kernel", json_object_new_string(u.release));
	json_object_object_add(o, "kernel_build", json_object_new_string(u.version));
	json_object_object_add(o, "arch", json_object_new_string(u.machine));
	json_object_object_add(o, "trigger_function", json_object_new_string(d->probe_fn));
	json_object_object_add(o, "kmod_config", kmod_config_json(d));
	for (m = 1; m < TRACERD_MODE_NR; m++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "available",
				       json_object_new_boolean(d->features[m].available));
		json_object_object_add(e, "reason", d->features[m].available ? NULL :
				       json_object_new_string(d->features[m].reason));
		json_object_object_add(modes, tracerd_mode_name(m), e);
	}
	if (d->kmod.fd >= 0)
		ioctl(d->kmod.fd, TRACERD_IOC_FEATURES, &f);
	{
		json_object *e = json_object_new_object();
		bool ok = f.modes & (1U << TRACERD_KMOD_KPROBE_INT3);

		json_object_object_add(e, "available", json_object_new_boolean(ok));
		json_object_object_add(e, "reason", ok ? NULL : json_object_new_string(
			d->kmod.fd < 0 ? d->kmod.reason :
			"kmod: no int3 kprobe past an ftrace site on this kernel/arch"));
		json_object_object_add(modes, "kmod-kprobe-int3", e);
	}
	json_object_object_add(o, "modes", modes);
	json_object_object_add(o, "save_regs", json_object_new_boolean(
		f.attach_flags & TRACERD_ATTACH_SAVE_REGS));
	*result = o;
	return PROTO_OK;
}

enum proto_code cmd_bench(struct tracerd *d, json_object *args, json_object **result,
			  char *msg, size_t msglen)
{
#define F(n, t) { n, json_type_##t }
	static const struct proto_field f_info[] = { F("op", string), {} },
		f_hook[] = { F("op", string), F("mode", string), F("variant", string),
			     F("target", string), F("save_regs", boolean), F("pid", int), {} },
		f_handle[] = { F("op", string), F("handle", int), {} },
		f_unhook[] = { F("op", string), F("handle", int), F("all", boolean), {} },
		f_ops[] = { F("op", string), F("mode", string), F("save_regs", boolean),
			    F("calls", int), F("relevant", int), F("irrelevant", int), {} },
		f_patch[] = { F("op", string), F("mode", string), F("save_regs", boolean),
			      F("funcs", int), {} },
		f_all[] = { F("op", string), F("mode", string), F("save_regs", boolean), {} },
		f_attach[] = { F("op", string), F("mode", string), F("save_regs", boolean),
			       F("how", string), F("funcs", int), {} },
		f_store[] = { F("op", string), F("kernel", string), F("overhead_ns", object), {} };
#undef F
	static const struct {
		const char *op;
		enum proto_code (*fn)(struct tracerd *, json_object *, json_object **, char *,
				      size_t);
		const struct proto_field *fields;
	} ops[] = {
		{ "info", op_info, f_info }, { "hook", op_hook, f_hook },
		{ "read", op_read, f_handle }, { "unhook", op_unhook, f_unhook },
		{ "ops", op_ops, f_ops }, { "patch", op_patch, f_patch },
		{ "patch_all", op_patch_all, f_all }, { "attach", op_attach_time, f_attach },
		{ "store", bench_store, f_store },
	};
	bool bad = false;
	const char *op = proto_arg_str(args, "op", &bad);
	enum proto_code code;
	char what[32];
	size_t i;

	for (i = 0; op && i < ARRAY_SIZE(ops); i++) {
		if (strcmp(op, ops[i].op))
			continue;
		snprintf(what, sizeof(what), "bench %s", ops[i].op);
		code = proto_args_check(args, what, ops[i].fields, msg, msglen);
		return code ? code : ops[i].fn(d, args, result, msg, msglen);
	}
	str_fmt(msg, msglen, "bench: \"op\" must be one of info, hook, read, unhook, ops, "
		"patch, patch_all, attach, store");
	return PROTO_E_BAD_REQUEST;
}
