/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Attach backends: one file per mode (be_*.c), one small interface. The
 * registry resolves targets into hooks (name, module, address, BTF id) and
 * allocates a slot per hook before calling attach; a backend only hooks.
 *
 * caps: what the mode supports (MODE_CAP_*, lib/modes.h). The registry
 *   checks a request against them before anything touches the kernel
 *   (registry.c:request_check) and hands them to auto (lib/autosel.c);
 *   hooks lacking what NEEDS_BTF / NEEDS_ADDR ask for are skipped before
 *   attach is called. A backend never re-checks the options.
 * auto_why: why auto picks this mode, for one function and for many
 *   (NULL: a generic sentence).
 *
 * attach: hook every entry of a->hooks. A hook that cannot be attached
 *   keeps attached == false and says why in hook->err (the registry reports
 *   it as skipped); return 0 when at least one hook is attached, else the
 *   first -errno. All-or-nothing backends (kprobe-multi) fail as a whole.
 * detach: undo attach and free what attach put in hook->priv and
 *   attachment->priv (NULL-safe on partially attached attachments).
 * read: optional; a hook's statistics when they do not live in the BPF
 *   slot maps (kmod modes: the module's counters).
 * misses: the kernel's own miss count for a hook, or -ENODATA with *why.
 * probe: can this mode attach here at all? Really tries (on d->probe_fn).
 *
 * variant: the mode's variants (MODE_VARIANT_*, lib/modes.h), each a
 *   backend of its own (same mode, its own caps and ops; NULL: the mode has
 *   no such variant). request_check refuses a variant the mode does not
 *   declare, and checks the request against the variant's caps.
 * unavailable: a variant's: why this kernel (or module) lacks it, NULL
 *   when it has it; asks, never changes the kernel (NULL: as its mode).
 * latency_unavailable: optional, for a mode whose MODE_CAP_LATENCY depends
 *   on the kernel (kmod: the module's TRACERD_IOC_FEATURES latency_modes):
 *   why latency cannot be had here, NULL when it can; asks, never changes
 *   the kernel. attach refuses --latency with it, auto skips the mode.
 * comm_unavailable: the same for MODE_CAP_COMM (kmod: a module older than
 *   ABI 1.6 has no comm filter): attach refuses --comm with it, auto skips
 *   the mode.
 * site: optional; where a hook's ftrace call site branches now (kmod).
 * batch: how many hooks attach and detach take per call. BACKEND_BATCH_ALL:
 *   the whole set in one call (one link: kprobe-multi; one kernel update:
 *   kmod-callops' and kmod-direct's TRACERD_IOC_ATTACH_BATCH / DETACH_BATCH);
 *   otherwise the registry hands them up to batch hooks at a time (0: one;
 *   a view of a->hooks), so the event loop answers between steps (kmod-kprobe:
 *   a batch ioctl per 16 kprobes, each kprobe a text patch of its own).
 * progs: optional; call fn(prog_fd, ctx) for every BPF program the
 *   attachment owns (its clones, entry and return); the sum of fn's
 *   non-negative returns or the first negative one. A backend whose
 *   programs are shared with other attachments (kprobe-session) or that
 *   has none (kmod) leaves it NULL: no BPF run-time statistics
 *   (daemon/bpf_stats.c).
 * batch_latency: the same for an attachment with --latency, when it differs
 *   (0: batch): kmod-callops' latency is an fprobe per function, one
 *   registration each, so 16 per call like kmod-kprobe.
 * stacks: optional, for a mode with MODE_CAP_STACKS (attach --stacks): call
 *   fn once per distinct kernel stack counted for hook h, innermost frame
 *   first (ips[0]), with how many calls took it; *dropped gets the calls
 *   whose stack was not kept (table full, capture failed). Returns 0, or
 *   the first negative return of fn, or -errno. The daemon symbolizes.
 * read_begin, read_end: optional, around a pass of .read over an
 *   attachment's hooks (registry.h hook_stats_begin): kmod reads every
 *   hook's counters in a few TRACERD_IOC_COUNTERS_BATCH calls and .read
 *   answers from them until read_end.
 * no_slots: the mode counts outside the BPF maps (kmod: the module's own
 *   counters, read by .read; its stacks by .stacks): its hooks take no
 *   slot of the TRACERD_MAX_SLOTS (slot stays TRACERD_MAX_SLOTS), so a glob
 *   in it is bounded by max_glob_matches and the module, not by the slots.
 * count_tier: an attachment that only counts (spec_count_only, lib/spec.h)
 *   counts in a per-CPU array of its own (bpfutil.h, struct bpf_counts),
 *   one u64 per function: its hooks take no slot either (as no_slots) and
 *   .read answers from that array; the others take slots as usual.
 * job_prepare, job_run, job_finish: optional, for a BACKEND_BATCH_ALL
 *   backend whose attach or detach of a whole attachment is one blocking
 *   call: the registry runs job_run on a worker thread while the loop
 *   serves its clients (registry.c, struct registry_job), for attachments
 *   of REGISTRY_JOB_MIN hooks or more. job_prepare (in the loop) returns
 *   the job, or NULL to run attach or detach as usual; *err is then
 *   attach's error when the attach failed already. job_run touches
 *   nothing but the job; job_finish (in the loop) applies and frees it,
 *   and returns what attach would (a detach job: 0).
 * fds: file descriptors the daemon holds per hooked function ([0]) and
 *   per attachment ([1]), [with the return hook: latency or errors]: the
 *   registry checks RLIMIT_NOFILE against them before attaching
 *   (registry.c:fds_check).
 */
#ifndef TRACERD_BACKEND_H
#define TRACERD_BACKEND_H

#include <limits.h>
#include "../lib/modes.h"
#include "tracerd.h"

/* What a kmod hook's ftrace call site branches to (TRACERD_IOC_SITE). */
struct hook_site {
	const char *path;	/* "direct", "caller", "nop", "unknown" */
	char target[64];	/* the symbol it branches to ("" unknown) */
	char err[96];		/* when site() fails: why */
};

#define BACKEND_BATCH_ALL	UINT_MAX

/* one distinct stack of a hook and its count (backend.stacks); err: the
 * errno its calls returned (--errors --stacks: trace.h, tracerd_stack_key),
 * 0 for the stacks of every call */
typedef int (*stack_visit_fn)(void *ctx, __u64 count, __u32 err, const __u64 *ips, __u32 nr);

struct backend {
	enum tracerd_mode mode;
	unsigned int caps;
	const char *auto_why[2];
	int (*probe)(struct tracerd *d, char *reason, size_t len);
	int (*attach)(struct tracerd *d, struct attachment *a);
	void (*detach)(struct tracerd *d, struct attachment *a);
	int (*read)(struct tracerd *d, struct attachment *a, struct hook *h,
		    struct tracerd_slot_stats *s);
	int (*misses)(struct tracerd *d, struct attachment *a, struct hook *h,
		      __u64 *out, const char **why);
	void (*read_begin)(struct tracerd *d, struct attachment *a);
	void (*read_end)(struct tracerd *d, struct attachment *a);
	/* optional: the kernel path a hook took when the mode has two ("via") */
	const char *(*path)(const struct hook *h);
	void (*fini)(struct tracerd *d);
	const struct backend *variant[MODE_VARIANT_NR];
	const char *(*unavailable)(struct tracerd *d);
	/* a variant whose unavailable() probes it on its own: its base mode's
	 * failed probe does not decide (kmod-kprobe's int3 goes past the
	 * entry where a kprobe at the entry is refused: riscv64 6.12) */
	bool own_probe;
	bool no_slots;
	bool count_tier;
	const char *(*latency_unavailable)(struct tracerd *d);
	const char *(*comm_unavailable)(struct tracerd *d);
	/* the same for MODE_CAP_STACKS (kmod: a module without stack capture) */
	const char *(*stacks_unavailable)(struct tracerd *d);
	int (*site)(struct tracerd *d, const struct attachment *a, const struct hook *h,
		    struct hook_site *out);
	int (*progs)(struct tracerd *d, struct attachment *a, int (*fn)(int prog_fd, void *ctx),
		     void *ctx);
	unsigned int batch;
	unsigned int batch_latency;
	unsigned char fds[2][2];	/* [per function, per attachment][return hook] */
	int (*stacks)(struct tracerd *d, struct attachment *a, struct hook *h,
		      stack_visit_fn fn, void *ctx, __u64 *dropped);
	void *(*job_prepare)(struct tracerd *d, struct attachment *a, bool detach, int *err);
	void (*job_run)(void *job);
	int (*job_finish)(struct tracerd *d, struct attachment *a, void *job);
};

/* Do be's hooks for an attachment of spec go without slots (no_slots, count_tier)? */
static inline bool backend_slotless(const struct backend *be, const struct tracerd_spec *spec)
{
	return be->no_slots || (be->count_tier && spec_count_only(spec));
}

/* hooks from which an attach or detach runs on the worker thread (job_prepare) */
#define REGISTRY_JOB_MIN	512

/* what every BPF function mode does: the shared maps and the ring buffer */
#define BE_CAPS_BPF_FUNCTION	(MODE_CAP_FUNCTION | MODE_CAP_LATENCY | MODE_CAP_COMM | \
				 MODE_CAP_PID | MODE_CAP_RECORD | MODE_CAP_ERRORS | MODE_CAP_BY | \
				 MODE_CAP_STACKS | MODE_CAP_SLOW | MODE_CAP_ARGS)

/* backend_<backend> of every row of TRACERD_MODES (include/tracerd/modes.h) */
#define BACKEND_DECLARE(e, name, be, ...)	extern const struct backend backend_##be;
TRACERD_MODES(BACKEND_DECLARE)
#undef BACKEND_DECLARE

/* the variants (daemon/be_empty.c, be_kmod.c) */
extern const struct backend backend_fentry_empty, backend_kprobe_empty,
	backend_kprobe_int3_empty, backend_kprobe_multi_empty;
extern const struct backend backend_kmod_kprobe_int3, backend_kmod_callops_regs;

/* backend.c: the table of backends. NULL for auto or an unknown mode */
const struct backend *backend_get(enum tracerd_mode m);
/* The backend of mode m's variant v (v NONE: the mode's); NULL: no such variant. */
const struct backend *backend_variant(enum tracerd_mode m, enum mode_variant v);
/* Why mode m's variant v cannot be used here (the mode's probe, then the
 * variant's unavailable()); NULL when it can. */
const char *backend_unavailable(struct tracerd *d, enum tracerd_mode m, enum mode_variant v);
void backends_fini(struct tracerd *d);

/* bpfutil.c: helpers the BPF backends share */
/*
 * Load a clone of a loaded template program, its slot patched into its
 * TRACERD_SLOT_MAGIC immediate and spec's flags and filters baked in as
 * bpf_clone_hook() does (spec NULL: none, the clone reads slot_cfg), with
 * another expected attach type than the template's (a tracing-multi clone
 * of a single-function template: attach_btf_id 0). The prog fd or -errno.
 */
struct bpf_program;
struct tracerd_spec;
int bpf_clone_prog_as(const struct bpf_program *tmpl, unsigned int attach_type, __u32 slot,
		      const struct tracerd_spec *spec, __u32 attach_btf_id,
		      int attach_btf_obj_fd, char *err, size_t errlen);
/* The kernel's recursion-miss count of a program. */
int bpf_prog_misses(int prog_fd, __u64 *out);
/* be_kmod.c: the module's TRACERD_KMOD_* mode and TRACERD_ATTACH_* flags of
 * a kmod mode and variant; -EINVAL when (m, v) is not one */
int kmod_abi_mode(enum tracerd_mode m, enum mode_variant v, __u32 *mode, __u32 *flags);
/* be_kmod.c: TRACERD_IOC_SITES over e[0..n) (addr set), in ioctls of
 * TRACERD_SITES_MAX; -ENODEV (module absent), -EOPNOTSUPP (ABI < 1.4) */
struct tracerd_site_entry;
int kmod_sites(struct tracerd *d, struct tracerd_site_entry *e, size_t n,
	       char *why, size_t len);
/* route libbpf's log through ours: warnings at -v, debug at -vv */
/* be_kmod.c: the kernel config the module reports (TRACERD_FEAT_*); NULL without it */
struct json_object;
struct json_object *kmod_config_json(const struct tracerd *d);
void libbpf_log_setup(int verbose);

#endif
