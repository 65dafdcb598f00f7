// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The registry (daemon/registry.c) on the host, with fake backends: the
 * request check, auto's choice, the plan against the attach, skipped hooks
 * and slots. The kernel side the registry calls (backends, maps, resolve,
 * the recorder) is faked here at link time (the edges it tells go through
 * struct tracerd's callbacks, left NULL): nothing
 * below touches BPF, the module or /proc.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "../../daemon/backend.h"
#include "../../daemon/recorder.h"
#include "../../daemon/registry.h"
#include "../../daemon/resolve.h"
#include "../../lib/log.h"
#include "test.h"

/* ---------------------------------------------------------------- fakes */

/* A hook of a fake backend attaches unless its function is named "refuse*". */
static int fake_attach(struct tracerd *d, struct attachment *a)
{
	size_t i, ok = 0;

	for (i = 0; i < a->nr_hooks; i++) {
		struct hook *h = &a->hooks[i];

		if (h->err)
			continue;
		if (!strncmp(h->name, "refuse", 6)) {
			hook_err(h, -EPERM, "the fake kernel refused '%s'", h->name);
			continue;
		}
		h->attached = true;
		ok++;
	}
	return ok ? 0 : -EPERM;
}

static void fake_detach(struct tracerd *d, struct attachment *a)
{
	size_t i;

	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].attached = false;
}

/* fentry without latency: the capability refusal has a backend to refuse */
static const struct backend fake_fentry = {
	.mode = TRACERD_MODE_FENTRY,
	.caps = MODE_CAP_FUNCTION | MODE_CAP_PID | MODE_CAP_COMM | MODE_CAP_RECORD |
		MODE_CAP_ERRORS | MODE_CAP_BY | MODE_CAP_NEEDS_BTF,
	.auto_why = { "fake: fentry for one function", NULL },
	.attach = fake_attach,
	.detach = fake_detach,
};
static const struct backend fake_kprobe = {
	.mode = TRACERD_MODE_KPROBE,
	.caps = BE_CAPS_BPF_FUNCTION,
	.attach = fake_attach,
	.detach = fake_detach,
};
static const struct backend fake_tp = {
	.mode = TRACERD_MODE_TP_BTF,
	.caps = MODE_CAP_TRACEPOINT | MODE_CAP_PID | MODE_CAP_COMM,
	.attach = fake_attach,
	.detach = fake_detach,
};
/* a mode this fake kernel lacks (its probe failed) unless multi_here; an
 * attachment that only counts takes no slot in it (count tier) */
static const struct backend fake_kprobe_multi = {
	.mode = TRACERD_MODE_KPROBE_MULTI,
	.caps = BE_CAPS_BPF_FUNCTION | MODE_CAP_MULTI,
	.batch = BACKEND_BATCH_ALL,
	.count_tier = true,
	.attach = fake_attach,
	.detach = fake_detach,
};
/* a kmod mode: counts in the module, takes no slot (daemon/be_kmod.c) */
static const struct backend fake_kmod_callops = {
	.mode = TRACERD_MODE_KMOD_CALLOPS,
	.caps = MODE_CAP_FUNCTION | MODE_CAP_PID | MODE_CAP_COMM | MODE_CAP_NEEDS_ADDR,
	.batch = BACKEND_BATCH_ALL,
	.no_slots = true,
	.attach = fake_attach,
	.detach = fake_detach,
};
static const struct backend *const fakes[TRACERD_MODE_NR] = {
	[TRACERD_MODE_KMOD_CALLOPS] = &fake_kmod_callops,
	[TRACERD_MODE_FENTRY] = &fake_fentry,
	[TRACERD_MODE_KPROBE] = &fake_kprobe,
	[TRACERD_MODE_TP_BTF] = &fake_tp,
	[TRACERD_MODE_KPROBE_MULTI] = &fake_kprobe_multi,
};

const struct backend *backend_get(enum tracerd_mode m)
{
	return (unsigned int)m < TRACERD_MODE_NR ? fakes[m] : NULL;
}

const struct backend *backend_variant(enum tracerd_mode m, enum mode_variant v)
{
	return v ? NULL : backend_get(m);
}

const char *backend_unavailable(struct tracerd *d, enum tracerd_mode m, enum mode_variant v)
{
	return NULL;
}

/* Slots: the bookkeeping of daemon/maps.c without its maps. */
int maps_slot_alloc(struct tracerd *d, __u32 *slot, bool ret64)
{
	__u32 i;

	for (i = 0; i < TRACERD_MAX_SLOTS; i++) {
		if (!d->slot_used[i]) {
			d->slot_used[i] = 1;
			d->nr_slots_used++;
			*slot = i;
			return 0;
		}
	}
	return -ENOSPC;
}

void maps_slot_free(struct tracerd *d, __u32 slot)
{
	if (slot >= TRACERD_MAX_SLOTS || !d->slot_used[slot])
		return;
	d->slot_used[slot] = 0;
	d->nr_slots_used--;
}

void maps_sweep(struct tracerd *d)
{
}

int maps_slot_config(struct tracerd *d, __u32 slot, const struct tracerd_spec *spec,
		     const struct hook_args *args)
{
	return 0;
}

int maps_slot_read(struct tracerd *d, __u32 slot, struct tracerd_slot_stats *out)
{
	memset(out, 0, sizeof(*out));
	return 0;
}

int maps_slot_errors(struct tracerd *d, __u32 slot, struct tracerd_slot_errors *out)
{
	memset(out, 0, sizeof(*out));
	return 0;
}

/* n hooks (hooks_new, as resolve.c makes them): names[i], with BTF id ids[i] */
static int hooks_make(struct hook **hooks, size_t *nr, size_t n, const char *const *names,
		      const __s32 *ids)
{
	struct hook_strs strs;
	size_t i, bytes = 0;
	struct hook *v;

	for (i = 0; i < n; i++)
		bytes += strlen(names[i]) + 1;
	v = hooks_new(n, bytes, false, &strs);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		v[i].name = hook_str(&strs, names[i]);
		v[i].btf_id = ids[i];
		v[i].addr = 0x1000 + i;
	}
	*hooks = v;
	*nr = n;
	return 0;
}

static int hook_one(struct hook **hooks, size_t *nr, const char *name, __s32 btf_id)
{
	return hooks_make(hooks, nr, 1, &name, &btf_id);
}

/*
 * The fake kernel's functions: "glob*" matches glob_a (BTF), glob_b (no
 * BTF) and glob_c (BTF); "big*" matches BIG_GLOB functions with BTF, more
 * than the slots; "nobtf" has no BTF; "missing" does not exist; every
 * other name is one function with BTF; tp:CAT/NAME is NAME.
 */
#define BIG_GLOB	(TRACERD_MAX_SLOTS + 10)
int resolve_target(struct tracerd *d, const struct tracerd_spec *spec, enum spec_kind kind,
		   bool need_addr, struct hook **hooks, size_t *nr, struct skip_list *skipped,
		   char *msg, size_t msglen)
{
	static const char *const glob[] = { "glob_a", "glob_b", "glob_c" };
	static const __s32 glob_ids[] = { 11, 0, 13 };

	*hooks = NULL;
	*nr = 0;
	if (spec_kind_is_tracepoint(kind))
		return hook_one(hooks, nr, strchr(spec->target, '/') + 1, 7);
	if (kind == SPEC_KIND_GLOB && !strncmp(spec->target, "big", 3)) {
		static char names[BIG_GLOB][16];
		static const char *ptrs[BIG_GLOB];
		static __s32 ids[BIG_GLOB];
		size_t i;

		for (i = 0; i < BIG_GLOB; i++) {
			snprintf(names[i], sizeof(names[i]), "big_%zu", i);
			ptrs[i] = names[i];
			ids[i] = 5;
		}
		return hooks_make(hooks, nr, BIG_GLOB, ptrs, ids);
	}
	if (kind == SPEC_KIND_GLOB)
		return hooks_make(hooks, nr, 3, glob, glob_ids);
	if (!strcmp(spec->target, "missing"))
		return snprintf(msg, msglen, "no function 'missing'"), -ENOENT;
	return hook_one(hooks, nr, spec->target, strcmp(spec->target, "nobtf") ? 5 : 0);
}

/* no loop here (d.base NULL): every resolve is resolve_target's, in place */
bool resolve_quick(struct tracerd *d, enum spec_kind kind, bool need_addr)
{
	return true;
}

bool resolve_busy(const struct tracerd *d)
{
	return false;
}

int resolve_target_start(struct tracerd *d, const struct tracerd_spec *spec, enum spec_kind kind,
			 bool need_addr, resolve_done_fn done, void *ctx)
{
	return -EINVAL;
}

void resolve_forget(struct tracerd *d, void *ctx)
{
}

void resolve_stop(struct tracerd *d)
{
}

int recorder_attach(struct tracerd *d, struct attachment *a, char *msg, size_t msglen)
{
	return 0;
}

void recorder_detach(struct tracerd *d, struct attachment *a)
{
}

/* ---------------------------------------------------------------- tests */

/* daemon_new: is the module here (kmod-callops available)? */
static bool kmod_here;
/* daemon_new: is kprobe-multi available? */
static bool multi_here;

static struct tracerd *daemon_new(void)
{
	static struct tracerd d;
	int m;

	tlog_set_level(TLOG_WARNING);	/* no "attached N" lines between the results */
	registry_detach_all(&d, NULL);
	memset(&d, 0, sizeof(d));
	d.stack_depth_max = TRACERD_STACK_DEPTH_MAX;	/* maps.c reads the sysctl */
	for (m = 1; m < TRACERD_MODE_NR; m++) {
		d.features[m].available = fakes[m] &&
					  (m != TRACERD_MODE_KPROBE_MULTI || multi_here) &&
					  (m != TRACERD_MODE_KMOD_CALLOPS || kmod_here);
		snprintf(d.features[m].reason, sizeof(d.features[m].reason), "%s",
			 d.features[m].available ? "" : "not here");
	}
	return &d;
}

static struct tracerd_spec spec_of(const char *line)
{
	struct tracerd_spec s;
	char err[256];

	if (spec_parse_line(line, &s, err, sizeof(err)))
		fprintf(stderr, "  spec '%s': %s\n", line, err);
	return s;
}

static int attach(struct tracerd *d, const char *line, struct attachment **a,
		  struct skip_list *skipped, char *msg, size_t msglen)
{
	struct tracerd_spec s = spec_of(line);

	msg[0] = '\0';
	return registry_attach(d, &s, a, skipped, msg, msglen);
}

TEST(attach_detach_frees_slots)
{
	struct tracerd *d = daemon_new();
	struct attachment *a;
	char msg[1024];

	if (!ASSERT_OK(attach(d, "glob* mode=kprobe", &a, NULL, msg, sizeof(msg)), msg))
		return;
	ASSERT_EQ(a->mode, TRACERD_MODE_KPROBE, "mode");
	ASSERT_TRUE(a->be == &fake_kprobe, "the backend is set on the attachment");
	ASSERT_EQ(a->nr_hooks, 3, "hooks");
	ASSERT_EQ(d->nr_slots_used, 3, "one slot per hook");
	ASSERT_EQ(registry_count(d), 1, "one attachment");
	ASSERT_TRUE(registry_find(d, a->id) == a, "found by id");
	registry_detach(d, a);
	ASSERT_EQ(d->nr_slots_used, 0, "detach frees the slots");
	ASSERT_EQ(registry_count(d), 0, "none left");
}

TEST(duplicate_is_eexist)
{
	struct tracerd *d = daemon_new();
	struct attachment *a, *b;
	char msg[1024];

	if (!ASSERT_OK(attach(d, "vfs_read mode=kprobe", &a, NULL, msg, sizeof(msg)), msg))
		return;
	ASSERT_EQ(attach(d, "vfs_read mode=kprobe", &b, NULL, msg, sizeof(msg)), -EEXIST,
		  "the same hooks twice");
	ASSERT_STREQ(msg, "'vfs_read' is already attached the same way (attachment 1)", "message");
	ASSERT_EQ(d->nr_slots_used, 1, "the refused one took no slot");
	ASSERT_OK(attach(d, "vfs_read mode=kprobe pid=9", &b, NULL, msg, sizeof(msg)),
		  "another filter: other hooks");
}

TEST(capability_refused)
{
	struct tracerd *d = daemon_new();
	struct attachment *a;
	char msg[1024];

	ASSERT_EQ(attach(d, "vfs_read mode=fentry latency", &a, NULL, msg, sizeof(msg)), -EINVAL,
		  "fentry without MODE_CAP_LATENCY");
	ASSERT_STREQ(msg, "mode fentry has no latency", "message");
	ASSERT_EQ(attach(d, "tp:sched/sched_switch mode=tp-btf by=pid", &a, NULL, msg,
			 sizeof(msg)), -EINVAL, "tp without MODE_CAP_BY");
	ASSERT_STREQ(msg, "mode tp-btf has no by keys", "by message");
	ASSERT_EQ(attach(d, "vfs_read mode=fentry stacks", &a, NULL, msg, sizeof(msg)), -EINVAL,
		  "fentry without MODE_CAP_STACKS");
	ASSERT_STREQ(msg, "mode fentry has no stacks", "stacks message");
	ASSERT_EQ(d->nr_slots_used, 0, "no slot for the refused --stacks");
	ASSERT_OK(attach(d, "vfs_read mode=kprobe stacks=16", &a, NULL, msg, sizeof(msg)),
		  "kprobe has MODE_CAP_STACKS");
	ASSERT_EQ(a->spec.stacks, 16, "its depth");
	d->stack_depth_max = 8;	/* kernel.perf_event_max_stack = 8 */
	ASSERT_EQ(attach(d, "vfs_write mode=kprobe stacks=16", &a, NULL, msg, sizeof(msg)),
		  -EINVAL, "deeper than the kernel keeps");
	ASSERT_STREQ(msg, "stack depth 16: this kernel keeps 8 frames at most "
		     "(kernel.perf_event_max_stack)", "depth message");
	registry_detach_all(d, NULL);
	ASSERT_EQ(attach(d, "vfs_read mode=kprobe-multi", &a, NULL, msg, sizeof(msg)),
		  -EOPNOTSUPP, "a mode this kernel lacks");
	ASSERT_STREQ(msg, "mode kprobe-multi is not available on this kernel: not here", "why");
	ASSERT_EQ(d->nr_slots_used, 0, "no slot taken");
}

TEST(kind_checked_once_in_request)
{
	struct tracerd *d = daemon_new();
	struct tracerd_spec s = spec_of("tp:sched/sched_switch");
	struct attachment *a;
	char msg[1024];

	s.mode = TRACERD_MODE_KPROBE;	/* what a JSON request may carry */
	ASSERT_EQ(registry_attach(d, &s, &a, NULL, msg, sizeof(msg)), -EINVAL, "kprobe on a tp");
	ASSERT_STREQ(msg, "tracepoint 'tp:sched/sched_switch' needs mode tp-btf (or auto), not "
		     "kprobe", "message");
	if (ASSERT_OK(attach(d, "tp:sched/sched_switch", &a, NULL, msg, sizeof(msg)), msg))
		ASSERT_EQ(a->mode, TRACERD_MODE_TP_BTF, "auto on a tracepoint");
}

TEST(auto_candidates)
{
	struct tracerd *d = daemon_new();
	struct attachment *a;
	char msg[1024];

	if (ASSERT_OK(attach(d, "vfs_read", &a, NULL, msg, sizeof(msg)), msg)) {
		ASSERT_EQ(a->mode, TRACERD_MODE_FENTRY, "one function: fentry first");
		ASSERT_STREQ(a->mode_reason, "auto: fake: fentry for one function; not "
			     "kmod-callops: not here", "its reason, then the modes passed over");
	}
	if (ASSERT_OK(attach(d, "nobtf", &a, NULL, msg, sizeof(msg)), msg)) {
		ASSERT_EQ(a->mode, TRACERD_MODE_KPROBE, "no BTF: the next candidate");
		ASSERT_TRUE(strstr(a->mode_reason, "; not fentry: no BTF for function 'nobtf' "
				   "(fentry needs it)") != NULL, a->mode_reason);
	}
	if (ASSERT_OK(attach(d, "vfs_write latency", &a, NULL, msg, sizeof(msg)), msg))
		ASSERT_EQ(a->mode, TRACERD_MODE_KPROBE, "latency: fentry lacks it here");
	ASSERT_EQ(attach(d, "refuse_me", &a, NULL, msg, sizeof(msg)), -EREMOTEIO,
		  "every candidate refused by the kernel");
	ASSERT_STREQ(msg, "no mode could hook 'refuse_me'; not kmod-callops: not here; not "
		     "fentry: the fake kernel refused 'refuse_me'; not kprobe: the fake kernel "
		     "refused 'refuse_me'", "every mode tried, and why not");
}

TEST(skipped_hooks)
{
	struct tracerd *d = daemon_new();
	struct skip_list sk = {};
	struct attachment *a;
	char msg[1024];

	if (!ASSERT_OK(attach(d, "glob* mode=fentry", &a, &sk, msg, sizeof(msg)), msg))
		return;
	ASSERT_EQ(a->nr_hooks, 2, "the two with BTF");
	ASSERT_STREQ(a->hooks[0].name, "glob_a", "first");
	ASSERT_STREQ(a->hooks[1].name, "glob_c", "second");
	if (ASSERT_EQ(sk.n, 1, "one skipped")) {
		ASSERT_STREQ(sk.v[0].function, "glob_b", "skipped");
		ASSERT_STREQ(sk.v[0].reason, "no BTF for function 'glob_b' (fentry needs it)",
			     "why");
	}
	ASSERT_EQ(d->nr_slots_used, 2, "the skipped hook's slot is freed");
	skip_list_free(&sk);
	ASSERT_EQ(attach(d, "nobtf mode=fentry", &a, NULL, msg, sizeof(msg)), -ENOENT,
		  "nothing to hook");
	ASSERT_STREQ(msg, "no BTF for function 'nobtf' (fentry needs it)", "the hook's reason");
}

/*
 * Issue #34: a kmod hook takes no slot, so a glob of more functions than
 * the slots attaches in kmod-callops; a mode that takes a slot per
 * function is refused it, naming the count, before the kernel is asked.
 */
TEST(kmod_takes_no_slot)
{
	struct tracerd *d;
	struct attachment *a, *b;
	char msg[1024];

	kmod_here = true;
	d = daemon_new();
	kmod_here = false;
	ASSERT_EQ(attach(d, "big* mode=kprobe", &a, NULL, msg, sizeof(msg)), -ENOSPC,
		  "more functions than slots in a mode that takes one each");
	ASSERT_STREQ(msg, "mode kprobe takes a slot per function: 4106 functions, 4096 of the "
		     "4096 slots (TRACERD_MAX_SLOTS, shared by all attachments) free; hook "
		     "fewer functions, only count them in kprobe-multi (without --latency, "
		     "--errors, --by, --stacks, --record, --args, --if: it takes none then), "
		     "or use a kmod mode (kmod-callops, kmod-direct, kmod-kprobe: they take "
		     "none)", "the count in the message");
	ASSERT_EQ(d->nr_slots_used, 0, "the refused glob took no slot");
	if (!ASSERT_OK(attach(d, "big* mode=kmod-callops", &a, NULL, msg, sizeof(msg)), msg))
		return;
	ASSERT_EQ(a->nr_hooks, BIG_GLOB, "every function hooked");
	ASSERT_EQ(d->nr_slots_used, 0, "kmod hooks take no slot");
	ASSERT_EQ(a->hooks[BIG_GLOB - 1].slot, TRACERD_MAX_SLOTS, "a hook without a slot");
	if (ASSERT_OK(attach(d, "vfs_read mode=kprobe", &b, NULL, msg, sizeof(msg)), msg))
		ASSERT_EQ(b->hooks[0].slot, 0, "the slots are all free beside it");
	if (ASSERT_OK(attach(d, "big*", &b, NULL, msg, sizeof(msg)), msg)) {
		ASSERT_EQ(b->mode, TRACERD_MODE_KMOD_CALLOPS, "auto: the mode that takes no slot");
		ASSERT_EQ(d->nr_slots_used, 1, "no slot more");
	}
	registry_detach_all(d, NULL);
	ASSERT_EQ(d->nr_slots_used, 0, "all given back");
}

/*
 * Issue #34 step 4: a kprobe-multi attachment that only counts (--pid and
 * --comm at most) counts in a map of its own and takes no slot, past the
 * 4096; one that needs more (--latency) takes a slot per function and is
 * refused past the free slots, naming them.
 */
TEST(count_tier_takes_no_slot)
{
	struct tracerd *d;
	struct attachment *a, *b;
	struct plan p;
	struct tracerd_spec s;
	char msg[1024];

	multi_here = true;
	d = daemon_new();
	multi_here = false;
	s = spec_of("big* mode=kprobe-multi");
	if (ASSERT_OK(registry_plan(d, &s, &p, msg, sizeof(msg)), msg))
		registry_plan_free(&p);
	if (!ASSERT_OK(attach(d, "big* mode=kprobe-multi", &a, NULL, msg, sizeof(msg)), msg))
		return;
	ASSERT_EQ(a->nr_hooks, BIG_GLOB, "every function hooked");
	ASSERT_EQ(d->nr_slots_used, 0, "a count-only kprobe-multi hook takes no slot");
	ASSERT_EQ(a->hooks[0].slot, TRACERD_MAX_SLOTS, "a hook without a slot");
	if (ASSERT_OK(attach(d, "big* mode=kprobe-multi pid=7 comm=sh", &b, NULL, msg,
			     sizeof(msg)), msg))
		ASSERT_EQ(d->nr_slots_used, 0, "filters keep it in the count tier");
	ASSERT_EQ(attach(d, "big* mode=kprobe-multi latency", &b, NULL, msg, sizeof(msg)),
		  -ENOSPC, "latency needs a slot per function");
	ASSERT_TRUE(strstr(msg, "mode kprobe-multi takes a slot per function: 4106 functions, "
			   "4096 of the 4096 slots") != NULL, msg);
	ASSERT_EQ(attach(d, "big* mode=kprobe-multi errors", &b, NULL, msg, sizeof(msg)),
		  -ENOSPC, "errors needs a slot per function");
	ASSERT_EQ(d->nr_slots_used, 0, "the refused globs took no slot");
	if (ASSERT_OK(attach(d, "glob* mode=kprobe-multi latency", &b, NULL, msg, sizeof(msg)),
		      msg))
		ASSERT_EQ(d->nr_slots_used, 3, "latency: a slot per function (glob_a .. glob_c)");
	registry_detach_all(d, NULL);
	ASSERT_EQ(d->nr_slots_used, 0, "all given back");
}

/* --dry-run's plan and the attach: the same mode, the same hooks. */
static void plan_is_attach(const char *line)
{
	struct tracerd *d = daemon_new();
	struct tracerd_spec s = spec_of(line);
	struct attachment *a;
	struct plan p;
	char msg[1024], amsg[1024];
	size_t i, j;
	int perr, aerr;

	perr = registry_plan(d, &s, &p, msg, sizeof(msg));
	ASSERT_EQ(d->nr_slots_used, 0, "a plan takes no slot");
	aerr = registry_attach(d, &s, &a, NULL, amsg, sizeof(amsg));
	if (!ASSERT_EQ(perr, aerr, line))
		goto out;
	if (perr) {
		ASSERT_STREQ(msg, amsg, line);
		return;
	}
	ASSERT_EQ(p.cand[p.chosen], a->mode, line);
	ASSERT_TRUE(p.be == a->be, line);
	ASSERT_STREQ(p.mode_reason, a->mode_reason, line);
	for (i = 0, j = 0; i < p.nr_hooks; i++) {
		if (p.hooks[i].err)
			continue;
		if (ASSERT_TRUE(j < a->nr_hooks, line))
			ASSERT_STREQ(p.hooks[i].name, a->hooks[j].name, line);
		j++;
	}
	ASSERT_EQ(j, a->nr_hooks, line);
out:
	if (!perr)
		registry_plan_free(&p);
}

TEST(plan_equals_attach)
{
	plan_is_attach("vfs_read");
	plan_is_attach("nobtf");
	plan_is_attach("glob*");
	plan_is_attach("glob* mode=fentry");
	plan_is_attach("glob* latency");
	plan_is_attach("tp:sched/sched_switch");
	plan_is_attach("nobtf mode=fentry");
	plan_is_attach("missing");
	plan_is_attach("vfs_read mode=fentry latency");
	plan_is_attach("big* mode=kprobe");
	plan_is_attach("big* mode=fentry");
}

TEST_MAIN()
