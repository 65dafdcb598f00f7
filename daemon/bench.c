// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The `bench` control command (docs/bench.md, "Protocol"): one command, an
 * "op" argument per step, so tracectl can run a benchmark's loops in its
 * own process while the daemon owns the hooks:
 *
 *   info     kernel, arch, kmod features (the relevant config), mode list
 *   hook     attach one benchmark hook for a pid through the registry, like
 *            any client: an attachment owned by bench (visible in `list`),
 *            its mode's variant when asked for one (kmod-kprobe-int3:
 *            kmod-kprobe's int3, save_regs: kmod-callops', empty: the BPF
 *            modes' empty program, daemon/be_empty.c; stacks: --stacks;
 *            args: --args, recorded as bench-trigger-args); the handle is its id
 *   read     the exact count of a handle (hook_stats: and its latency samples,
 *            its stacks' calls, its recording's events and drops)
 *   unhook   remove a handle, or every bench-owned attachment ("all"): never
 *            a user's, which also never counts as a duplicate of bench's
 *   ops      TRACERD_IOC_BENCH_OPS, patch: TRACERD_IOC_BENCH_PATCH,
 *            patch_all: TRACERD_IOC_BENCH_ALL (every traceable function)
 *   hold     the first K kernel functions but the trigger function (and it,
 *            hot: true), one attachment that counts (trigger --kernel-funcs),
 *            until unhook
 *   store    keep a trigger result in state_dir (bench_store.c)
 *
 * A mode the kernel lacks is PROTO_E_UNAVAILABLE with the reason probed at
 * start (or the kernel's errno), never a silent skip.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include <tracerd/kmod_abi.h>
#include "../lib/config.h"
#include "../lib/modes.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "backend.h"
#include "bench.h"
#include "commands.h"
#include "registry.h"
#include "resolve.h"
#include "notify.h"
#include "recorder.h"

#define BENCH_ARGS_RECORD	"bench-trigger-args"	/* the args variant's recording */

/*
 * The bench protocol's mode names: a mode, or "kmod-kprobe-int3" (mode
 * kmod-kprobe, variant int3); save_regs asks for kmod-callops' variant
 * save_regs. -EINVAL for anything else.
 */
static int bench_mode(const char *name, bool save_regs, struct tracerd_spec *spec)
{
	bool int3 = name && !strcmp(name, "kmod-kprobe-int3");
	int m = int3 ? TRACERD_MODE_KMOD_KPROBE : name ? tracerd_mode_parse(name) : -EINVAL;

	if (m <= 0 || (int3 && save_regs))
		return -EINVAL;
	spec->mode = (enum tracerd_mode)m;
	spec->variant = int3 ? MODE_VARIANT_INT3 : save_regs ? MODE_VARIANT_SAVE_REGS :
		MODE_VARIANT_NONE;
	return 0;
}

/* A hook request as the spec of a bench-owned attachment. */
static enum proto_code hook_spec(struct tracerd *d, json_object *args, struct tracerd_spec *spec,
				 char *msg, size_t msglen)
{
	bool bad = false;
	const char *mode = proto_arg_str(args, "mode", &bad);
	const char *variant = proto_arg_str(args, "variant", &bad);
	const char *target = proto_arg_str(args, "target", &bad);
	bool regs = proto_arg_bool(args, "save_regs", &bad);
	long long pid = proto_arg_int(args, "pid", 0, &bad);
	bool empty = variant && !strcmp(variant, "empty");
	bool stacks = variant && !strcmp(variant, "stacks");
	bool with_args = variant && !strcmp(variant, "args");
	const struct backend *be;

	memset(spec, 0, sizeof(*spec));
	spec->owner = SPEC_OWNER_BENCH;
	if (bad || !mode || pid <= 0 || pid > 0x3fffffff || (variant && !empty && !stacks &&
	    !with_args && strcmp(variant, "count") && strcmp(variant, "latency"))) {
		str_fmt(msg, msglen, "bench hook: needs mode (string), pid (> 0), variant "
			"count|latency|empty|stacks|args, optional target (string), save_regs (bool)");
		return PROTO_E_BAD_REQUEST;
	}
	if (bench_mode(mode, regs, spec)) {
		str_fmt(msg, msglen, "bench hook: unknown mode '%s'%s", mode,
			regs ? " (save_regs is a variant of kmod-callops)" : "");
		return PROTO_E_BAD_REQUEST;
	}
	if (empty && spec->variant) {
		str_fmt(msg, msglen, "bench hook: one variant at a time (empty, or %s)",
			mode_variant_name(spec->variant));
		return PROTO_E_BAD_REQUEST;
	}
	if (empty)
		spec->variant = MODE_VARIANT_EMPTY;
	spec->latency = variant && !strcmp(variant, "latency");
	/* stacks: attach --stacks at its default depth; a mode that keeps
	 * none (kmod-direct, the module's variants) is unavailable for it */
	be = backend_variant(spec->mode, spec->variant);
	if (stacks && (!be || !(be->caps & MODE_CAP_STACKS) || !be->stacks)) {
		str_fmt(msg, msglen, "bench hook: mode %s keeps no stacks%s%s", mode,
			be && be->stacks_unavailable ? ": " : "",
			be && be->stacks_unavailable ? be->stacks_unavailable(d) : "");
		return PROTO_E_UNAVAILABLE;
	}
	if (stacks)
		spec->stacks = TRACERD_STACK_DEPTH_DEFAULT;
	/* args: attach --args, each call recorded with its arguments into
	 * BENCH_ARGS_RECORD in record_dir (an earlier one rotated aside) */
	if (with_args && (!be || !(be->caps & MODE_CAP_ARGS))) {
		str_fmt(msg, msglen, "bench hook: mode %s records no arguments (attach --args "
			"needs a BPF function or tracepoint mode)", mode);
		return PROTO_E_UNAVAILABLE;
	}
	if (with_args) {
		spec->args = true;
		str_copy(spec->record, BENCH_ARGS_RECORD, sizeof(spec->record));
	}
	spec->tgid = (__u32)pid;
	if (str_copy(spec->target, target ? target : d->probe_fn, sizeof(spec->target))) {
		str_fmt(msg, msglen, "bench hook: target too long");
		return PROTO_E_BAD_REQUEST;
	}
	return PROTO_OK;
}

/*
 * A hook the kernel refused: name the user's attachments of the same
 * function, the likely cause (a function carries one direct call).
 */
static void hook_hint_users(struct tracerd *d, const char *fn, char *msg, size_t msglen)
{
	const struct attachment *a;
	size_t i, off = strlen(msg);

	for (a = d->attachments; a; a = a->next) {
		if (a->spec.owner != SPEC_OWNER_USER)
			continue;
		for (i = 0; i < a->nr_hooks && strcmp(a->hooks[i].name, fn); i++)
			;
		if (i < a->nr_hooks)
			off = str_cat(msg, msglen, off, "; user attachment %u (%s) hooks '%s' too",
				      a->id, tracerd_mode_name(a->mode), fn);
	}
}

/* hook: an attachment of bench's own; its id is the handle. */
static enum proto_code op_hook(struct tracerd *d, json_object *args, json_object **result,
			       char *msg, size_t msglen)
{
	struct tracerd_spec spec;
	struct attachment *a;
	enum proto_code code = hook_spec(d, args, &spec, msg, msglen);
	int err;

	if (code)
		return code;
	err = registry_attach(d, &spec, &a, NULL, msg, msglen);
	/* the mode cannot hook this function so on this kernel (be_kprobe.c) */
	code = err == -EADDRNOTAVAIL ? PROTO_E_UNAVAILABLE : proto_code_errno(err);
	if (code == PROTO_E_ATTACH_FAILED)
		hook_hint_users(d, spec.target, msg, msglen);
	if (code)
		return code;
	*result = json_object_new_object();
	json_object_object_add(*result, "handle", json_object_new_int64(a->id));
	json_object_object_add(*result, "target", json_object_new_string(spec.target));
	return PROTO_OK;
}

/* The bench-owned attachment a handle names; NULL (msg set) when none. */
static struct attachment *handle_arg(struct tracerd *d, json_object *args, char *msg,
				     size_t msglen)
{
	bool bad = false;
	long long handle = proto_arg_int(args, "handle", 0, &bad);
	struct attachment *a = bad || handle <= 0 || handle > 0xffffffffLL ? NULL :
		registry_find(d, (unsigned int)handle);

	if (a && a->spec.owner == SPEC_OWNER_BENCH)
		return a;
	str_fmt(msg, msglen, "bench: no hook with handle %lld%s", handle,
		a ? " (that attachment is a user's, not bench's)" : "");
	return NULL;
}

/* stack_visit_fn of read: the calls of every stack, summed into ctx */
static int sum_stack(void *ctx, __u64 count, __u32 err, const __u64 *ips, __u32 nr)
{
	(void)err;
	(void)ips;
	(void)nr;
	*(__u64 *)ctx += count;
	return 0;
}

static enum proto_code op_read(struct tracerd *d, json_object *args, json_object **result,
			       char *msg, size_t msglen)
{
	struct attachment *a = handle_arg(d, args, msg, msglen);
	__u64 calls = 0, lat = 0, kept = 0, dropped = 0, n;
	struct hook_stats hs;
	size_t i;
	int ret = 0;

	if (!a)
		return PROTO_E_NOT_FOUND;
	hook_stats_begin(d, a);	/* one pass: the counters read at once (kmod, count tier) */
	for (i = 0; i < a->nr_hooks && !ret; i++) {
		ret = hook_stats(d, a, &a->hooks[i], &hs);
		calls += hs.s.calls;
		lat += hs.s.lat_count;
		/* the stacks variant: every call's stack kept, or counted as dropped */
		if (!ret && a->spec.stacks && a->be->stacks) {
			n = 0;
			ret = a->be->stacks(d, a, &a->hooks[i], sum_stack, &kept, &n);
			dropped += n;
		}
	}
	hook_stats_end(d, a);
	if (ret) {
		str_fmt(msg, msglen, "bench: cannot read handle %u: %s", a->id, strerror(-ret));
		return PROTO_E_INTERNAL;
	}
	*result = json_object_new_object();
	json_object_object_add(*result, "calls", json_object_new_int64((int64_t)calls));
	json_object_object_add(*result, "latency_samples", json_object_new_int64((int64_t)lat));
	/* the args variant: its recording's events and drops (recorder.c) */
	if (a->spec.args)
		json_object_object_add(*result, "recording", recorder_json(d, a));
	if (a->spec.stacks) {
		json_object_object_add(*result, "stack_calls", json_object_new_int64((int64_t)kept));
		json_object_object_add(*result, "stacks_dropped",
				       json_object_new_int64((int64_t)dropped));
	}
	return PROTO_OK;
}

/* unhook: one handle, or all: every bench-owned attachment, never a user's. */
static enum proto_code op_unhook(struct tracerd *d, json_object *args, json_object **result,
				 char *msg, size_t msglen)
{
	bool bad = false, all = proto_arg_bool(args, "all", &bad);
	struct attachment *a, *next;
	unsigned int n = 0;

	watchdog_hold(d);	/* a hold of every function: seconds to detach */
	if (all) {
		for (a = d->attachments; a; a = next) {
			next = a->next;
			if (a->spec.owner == SPEC_OWNER_BENCH) {
				registry_detach(d, a);
				n++;
			}
		}
	} else {
		a = handle_arg(d, args, msg, msglen);
		if (a)
			registry_detach(d, a);
		n = a ? 1 : 0;
	}
	watchdog_release(d);
	if (!n && !all)
		return PROTO_E_NOT_FOUND;
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
	struct tracerd_spec spec;

	if (bad || bench_mode(name, regs, &spec) ||
	    kmod_abi_mode(spec.mode, spec.variant, mode, flags)) {
		str_fmt(msg, msglen, "bench: mode must be kmod-callops, kmod-direct, kmod-kprobe "
			"or kmod-kprobe-int3 (save_regs: kmod-callops only)");
		return PROTO_E_BAD_REQUEST;
	}
	if (d->kmod.fd < 0) {
		str_fmt(msg, msglen, "%s", d->kmod.reason[0] ? d->kmod.reason :
			"kmod: tracerd_kmod.ko not loaded");
		return PROTO_E_UNAVAILABLE;
	}
	return PROTO_OK;
}

static void add_u64(json_object *o, const char *key, __u64 v)
{
	json_object_object_add(o, key, json_object_new_int64((int64_t)v));
}

/*
 * One kmod benchmark ioctl: it holds the event loop until the module is
 * done (minutes under emulation), so the watchdog's limit is raised for
 * its duration. -1 with errno as ioctl(2).
 */
static int bench_ioctl(struct tracerd *d, unsigned long req, void *arg)
{
	int ret, err;

	watchdog_hold(d);
	ret = ioctl(d->kmod.fd, req, arg);
	err = errno;
	watchdog_release(d);
	errno = err;
	return ret;
}

static enum proto_code kmod_bench_error(int err, const char *what, char *msg, size_t msglen)
{
	char ebuf[96];

	/* the mode cannot hook the module's own (traceable) tracee at all:
	 * riscv64 6.12's kprobe at an ftrace site. Unavailable, not an error. */
	if (err == -EADDRNOTAVAIL) {
		str_fmt(msg, msglen, "kmod %s benchmark: %s (the mode cannot hook a traceable "
			"function of the module on this kernel)", what,
			errno_str(err, ebuf, sizeof(ebuf)));
		return PROTO_E_UNAVAILABLE;
	}

	str_fmt(msg, msglen, "kmod %s benchmark: %s%s", what, errno_str(err, ebuf, sizeof(ebuf)),
		 err == -EPROTO ? " (hook counts disagree with the calls made: the point is an "
		 "error, not a number)" : err == -E2BIG ? " (above the module's limits)" : "");
	return proto_code_errno(err);
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
		str_fmt(msg, msglen,
			"bench ops: calls (> 0), relevant, irrelevant (>= 0) integers");
		return PROTO_E_BAD_REQUEST;
	}
	b.calls = (__u64)n;
	b.relevant = (__u32)r;
	b.irrelevant = (__u32)i;
	if (bench_ioctl(d, TRACERD_IOC_BENCH_OPS, &b))
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
	if (bench_ioctl(d, TRACERD_IOC_BENCH_PATCH, &b))
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
	if (bench_ioctl(d, TRACERD_IOC_BENCH_ALL, &b))
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

/* The daemon's CPU time so far (user, sys: getrusage of the process) in ns. */
static void cpu_ns(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru)) {
		*user = *sys = 0;
		return;
	}
	*user = (uint64_t)ru.ru_utime.tv_sec * 1000000000ULL + (uint64_t)ru.ru_utime.tv_usec * 1000;
	*sys = (uint64_t)ru.ru_stime.tv_sec * 1000000000ULL + (uint64_t)ru.ru_stime.tv_usec * 1000;
}

/* The daemon's VmRSS in kB (/proc/self/status), 0 when unreadable. */
static long long rss_kb(void)
{
	char line[128];
	long long kb = 0;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6)) {
			kb = strtoll(line + 6, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return kb;
}

/* What one timed operation (the attach, or the detach) cost: wall and CPU. */
struct op_cost {
	uint64_t t0, u0, s0;
	uint64_t wall, user, sys;
};

static void cost_begin(struct op_cost *c)
{
	cpu_ns(&c->u0, &c->s0);
	c->t0 = now_mono_ns();
}

static void cost_end(struct op_cost *c)
{
	uint64_t u, s;

	c->wall += now_mono_ns() - c->t0;
	cpu_ns(&u, &s);
	c->user += u - c->u0;
	c->sys += s - c->s0;
}

static void cost_json(json_object *o, const char *what, const struct op_cost *c)
{
	char key[32];

	snprintf(key, sizeof(key), "%s_ns", what);
	add_u64(o, key, c->wall);
	snprintf(key, sizeof(key), "%s_user_ns", what);
	add_u64(o, key, c->user);
	snprintf(key, sizeof(key), "%s_sys_ns", what);
	add_u64(o, key, c->sys);
}

/* The first K (0: all) of the kernel's traceable functions the daemon would
 * hook, attach '*' cut at K, as bench's own attachment in mode m. */
static void kernel_spec(struct tracerd_spec *spec, int m, long long k)
{
	memset(spec, 0, sizeof(*spec));
	spec->mode = (enum tracerd_mode)m;
	spec->owner = SPEC_OWNER_BENCH;	/* never a duplicate of a user's attachment */
	str_copy(spec->target, "*", sizeof(spec->target));
	spec->glob_limit = (__u32)k;
}

/*
 * hold: bench trigger --kernel-funcs' irrelevant hooks: the first K of
 * the kernel's traceable functions (or all), the trigger function left
 * out, as one bench-owned attachment that only counts, in every process,
 * in a mode that hooks them in one kernel update; held until unhook
 * (the handle). hot: the trigger function hooked besides them (one more:
 * its call site then carries two hooks). functions: those hooked;
 * skipped: the names passed over.
 */
static enum proto_code op_hold(struct tracerd *d, json_object *args, json_object **result,
			       char *msg, size_t msglen)
{
	bool bad = false;
	const char *mode = proto_arg_str(args, "mode", &bad);
	long long k = proto_arg_int(args, "funcs", 0, &bad);
	bool all = proto_arg_bool(args, "all", &bad), hot = proto_arg_bool(args, "hot", &bad);
	int m = tracerd_mode_parse(mode ? mode : ""), err;
	struct tracerd_spec spec;
	struct skip_list skipped = {};
	struct attachment *a;
	enum proto_code code;

	if (bad || m <= 0 || !tracerd_mode_is_function(m) || k < 0 ||
	    k > TRACERD_GLOB_MATCHES_LIMIT || (!k && !all && !hot)) {
		str_fmt(msg, msglen, "bench hold: mode (a function mode), funcs 1 .. %u or all "
			"(bool), hot (bool; alone with funcs 0)", TRACERD_GLOB_MATCHES_LIMIT);
		return PROTO_E_BAD_REQUEST;
	}
	if (!d->features[m].available) {
		str_fmt(msg, msglen, "%s: %s", mode, d->features[m].reason);
		return PROTO_E_UNAVAILABLE;
	}
	kernel_spec(&spec, m, all ? 0 : k);
	spec.glob_skip_hot = true;
	spec.glob_add_hot = hot;	/* the trigger function too: its site then has two hooks */
	if (!k && !all)	/* no others: the trigger function alone */
		str_copy(spec.target, d->probe_fn, sizeof(spec.target));
	watchdog_hold(d);	/* every function: one ioctl or link of many seconds */
	err = registry_attach(d, &spec, &a, &skipped, msg, msglen);
	watchdog_release(d);
	/* past the free BPF slots: it cannot hold K here (msg names the counts) */
	code = err == -ENOSPC ? PROTO_E_UNAVAILABLE : proto_code_errno(err);
	if (!code) {
		*result = json_object_new_object();
		add_u64(*result, "handle", a->id);
		add_u64(*result, "functions", (__u64)a->nr_hooks);
		add_u64(*result, "skipped", skipped.total);
	}
	skip_list_free(&skipped);
	return code;
}

/*
 * attach: time attaching and detaching K functions in a function mode
 * through the registry, with the daemon's CPU time (getrusage: user is
 * tracerd's own code, sys the kernel's work in its syscalls) beside the
 * wall time and its VmRSS before and once attached. The functions: the
 * test module's (tracerd_testmod_fn_000 .. _3ff: distinct functions with
 * BTF; tracerd's own module is on the denylist), as one attachment (a glob:
 * K = 1, 16, 256 or 1024) or as K attachments; or, kernel: the first K
 * names of the kernel's traceable functions the daemon would hook (attach
 * '*' cut at K; K = 0: all of them) as one attachment. The count behind
 * the point: the functions hooked (and, kernel, those the daemon or the
 * kernel skipped among the names it took).
 */
static enum proto_code op_attach_time(struct tracerd *d, json_object *args,
				      json_object **result, char *msg, size_t msglen)
{
	static const char *const globs[] = { "000", "00?", "0??", "???" };
	bool bad = false;
	const char *mode = proto_arg_str(args, "mode", &bad),
		   *how = proto_arg_str(args, "how", &bad);
	long long k = proto_arg_int(args, "funcs", 0, &bad), i, hooked = 0, rss0, rss1 = 0;
	bool kernel = proto_arg_bool(args, "kernel", &bad);
	struct tracerd_spec spec = {};
	struct skip_list skipped = {};
	struct attachment *a;
	unsigned int *ids = NULL;
	enum proto_code code = PROTO_OK;
	struct op_cost att = {}, det = {};
	int m = tracerd_mode_parse(mode ? mode : ""), err;
	bool one = kernel || (how && !strcmp(how, "one"));
	int g = k == 1 ? 0 : k == 16 ? 1 : k == 256 ? 2 : k == 1024 ? 3 : -1;

	if (bad || m <= 0 || !tracerd_mode_is_function(m) ||
	    (kernel ? k < 0 || k > TRACERD_GLOB_MATCHES_LIMIT :
	     k < 1 || k > 1024 || !how || (strcmp(how, "one") && strcmp(how, "separate")) ||
	     (one && g < 0))) {
		str_fmt(msg, msglen, "bench attach: mode, how (one: funcs 1|16|256|1024, "
			"separate: funcs 1..1024), or kernel: true and funcs 0 (all) .. %u",
			TRACERD_GLOB_MATCHES_LIMIT);
		return PROTO_E_BAD_REQUEST;
	}
	if (!d->features[m].available) {
		str_fmt(msg, msglen, "%s: %s", mode, d->features[m].reason);
		return PROTO_E_UNAVAILABLE;
	}
	if (!kernel && access("/sys/module/tracerd_testmod", F_OK)) {
		str_fmt(msg, msglen, "bench attach: BPF modes attach to tracerd_testmod's 1024 "
			"functions: load tracerd_testmod.ko (tests/kmod)");
		return PROTO_E_UNAVAILABLE;
	}
	ids = calloc(one ? 1 : (size_t)k, sizeof(*ids));
	if (!ids)
		return PROTO_E_INTERNAL;
	if (kernel) {
		kernel_spec(&spec, m, k);
	} else {
		spec.mode = (enum tracerd_mode)m;
		spec.owner = SPEC_OWNER_BENCH;	/* never a duplicate of a user's attachment */
	}
	rss0 = rss_kb();
	/* an attach of every function is one ioctl or link of many seconds */
	watchdog_hold(d);
	for (i = 0; i < (one ? 1 : k) && !code; i++) {
		if (!kernel && one)
			snprintf(spec.target, sizeof(spec.target), "tracerd_testmod_fn_%s",
				 globs[g]);
		else if (!kernel)
			snprintf(spec.target, sizeof(spec.target), "tracerd_testmod_fn_%03llx", i);
		cost_begin(&att);
		err = registry_attach(d, &spec, &a, &skipped, msg, msglen);
		cost_end(&att);
		/* a mode that takes a BPF slot per function, past the free slots:
		 * it cannot hold K here (the message names the counts) */
		code = err == -ENOSPC ? PROTO_E_UNAVAILABLE : proto_code_errno(err);
		if (!code) {
			ids[i] = a->id;
			hooked += (long long)a->nr_hooks;
		}
	}
	if (!code)
		rss1 = rss_kb();
	for (i = 0; i < (one ? 1 : k); i++) {
		a = ids[i] ? registry_find(d, ids[i]) : NULL;
		if (!a)
			continue;
		cost_begin(&det);
		registry_detach(d, a);
		cost_end(&det);
	}
	watchdog_release(d);
	free(ids);
	if (!code) {
		*result = json_object_new_object();
		cost_json(*result, "attach", &att);
		cost_json(*result, "detach", &det);
		add_u64(*result, "functions", (__u64)hooked);
		add_u64(*result, "skipped", skipped.total);
		add_u64(*result, "rss_before_kb", (__u64)rss0);
		add_u64(*result, "rss_attached_kb", (__u64)rss1);
		if (kernel)	/* the names the daemon chose from */
			add_u64(*result, "traceable", (__u64)resolve_nr_traceable(d));
	}
	skip_list_free(&skipped);
	return code;
}

/* The trigger function's parameter names, by its BTF (the args peers'
 * scripts name them); an empty array when BTF has none. */
static json_object *trigger_args(struct tracerd *d)
{
	json_object *arr = json_object_new_array();
	const struct btf_param *prm;
	const struct btf_type *t;
	__s32 id;
	__u16 i;

	id = d->vmlinux_btf ? btf__find_by_name_kind(d->vmlinux_btf, d->probe_fn, BTF_KIND_FUNC) :
		-1;
	t = id > 0 ? btf__type_by_id(d->vmlinux_btf, btf__type_by_id(d->vmlinux_btf, id)->type) :
		NULL;
	if (!t || !btf_is_func_proto(t))
		return arr;
	prm = btf_params(t);
	for (i = 0; i < btf_vlen(t); i++)
		json_object_array_add(arr, json_object_new_string(
			btf__name_by_offset(d->vmlinux_btf, prm[i].name_off)));
	return arr;
}

static enum proto_code op_info(struct tracerd *d, json_object *args, json_object **result,
			       char *msg, size_t msglen)
{
	json_object *o = json_object_new_object(), *modes = json_object_new_object(), *e;
	const char *why;
	struct utsname u;
	int m;

	uname(&u);
	json_object_object_add(o, "version", json_object_new_string(TRACERD_VERSION));
	json_object_object_add(o, "kernel", json_object_new_string(u.release));
	json_object_object_add(o, "kernel_build", json_object_new_string(u.version));
	json_object_object_add(o, "arch", json_object_new_string(u.machine));
	json_object_object_add(o, "trigger_function", json_object_new_string(d->probe_fn));
	json_object_object_add(o, "trigger_args", trigger_args(d));
	json_object_object_add(o, "kmod_config", kmod_config_json(d));
	for (m = 1; m < TRACERD_MODE_NR; m++) {
		e = json_object_new_object();
		json_object_object_add(e, "available",
				       json_object_new_boolean(d->features[m].available));
		json_object_object_add(e, "reason", d->features[m].available ? NULL :
				       json_object_new_string(d->features[m].reason));
		json_object_object_add(modes, tracerd_mode_name(m), e);
	}
	/* the variant int3 of kmod-kprobe, under the name bench gives it */
	why = backend_unavailable(d, TRACERD_MODE_KMOD_KPROBE, MODE_VARIANT_INT3);
	e = json_object_new_object();
	json_object_object_add(e, "available", json_object_new_boolean(!why));
	json_object_object_add(e, "reason", why ? json_object_new_string(why) : NULL);
	json_object_object_add(modes, "kmod-kprobe-int3", e);
	json_object_object_add(o, "modes", modes);
	json_object_object_add(o, "save_regs", json_object_new_boolean(
		!backend_unavailable(d, TRACERD_MODE_KMOD_CALLOPS, MODE_VARIANT_SAVE_REGS)));
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
			       F("how", string), F("funcs", int), F("kernel", boolean), {} },
		f_hold[] = { F("op", string), F("mode", string), F("funcs", int), F("all", boolean),
			     F("hot", boolean), {} },
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
		{ "hold", op_hold, f_hold }, { "store", bench_store, f_store },
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
		"patch, patch_all, attach, hold, store");
	return PROTO_E_BAD_REQUEST;
}
