// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every row of the auto decision table (docs/auto.md) with the feature
 * sets of the test kernels: 7.2 (everything), 6.12 (no fsession or
 * fentry.multi), 6.1 (no kprobe.multi, no kprobe.session), this host
 * (tp-btf only), and a kernel with only the module; the *_bpf sets are
 * the same kernels without the module loaded.
 */
#include "../../lib/autosel.h"
#include "../../lib/modes.h"
#include "test.h"

static bool all[TRACERD_MODE_NR], k612[TRACERD_MODE_NR], k61[TRACERD_MODE_NR], host[TRACERD_MODE_NR],
	    kmod_only[TRACERD_MODE_NR], all_bpf[TRACERD_MODE_NR], k612_bpf[TRACERD_MODE_NR],
	    k61_bpf[TRACERD_MODE_NR];

/* the backends' caps (daemon/be_*.c), as the registry hands them over
 * (kmod-callops and kmod-kprobe: latency where the module has it) */
#define BPF_FN	(MODE_CAP_FUNCTION | MODE_CAP_LATENCY | MODE_CAP_COMM | MODE_CAP_PID | \
		 MODE_CAP_RECORD | MODE_CAP_ERRORS | MODE_CAP_BY | MODE_CAP_STACKS)
#define KMOD_FN	(MODE_CAP_FUNCTION | MODE_CAP_PID | MODE_CAP_COMM | MODE_CAP_NEEDS_ADDR)
static const unsigned int caps[TRACERD_MODE_NR] = {
	[TRACERD_MODE_FENTRY] = BPF_FN | MODE_CAP_DIRECT_CALL | MODE_CAP_NEEDS_BTF,
	[TRACERD_MODE_KPROBE] = BPF_FN,
	[TRACERD_MODE_KPROBE_INT3] = BPF_FN,
	[TRACERD_MODE_KPROBE_MULTI] = BPF_FN | MODE_CAP_MULTI,
	[TRACERD_MODE_TP_BTF] = MODE_CAP_TRACEPOINT | MODE_CAP_COMM | MODE_CAP_PID | MODE_CAP_RECORD |
				MODE_CAP_BY | MODE_CAP_STACKS,
	[TRACERD_MODE_KMOD_CALLOPS] = KMOD_FN | MODE_CAP_LATENCY,
	[TRACERD_MODE_KMOD_DIRECT] = KMOD_FN | MODE_CAP_DIRECT_CALL | MODE_CAP_DIRECT_EXCL,
	[TRACERD_MODE_KMOD_KPROBE] = KMOD_FN | MODE_CAP_LATENCY,
	[TRACERD_MODE_KPROBE_SESSION] = BPF_FN | MODE_CAP_MULTI,
	[TRACERD_MODE_FSESSION] = BPF_FN | MODE_CAP_MULTI | MODE_CAP_DIRECT_CALL | MODE_CAP_NEEDS_BTF,
	[TRACERD_MODE_FENTRY_MULTI] = BPF_FN | MODE_CAP_MULTI | MODE_CAP_DIRECT_CALL | MODE_CAP_NEEDS_BTF,
};
/* the same with a module that has no fprobe (6.1, arm64 6.12): no latency
 * in kmod-callops */
static unsigned int caps_nofprobe[TRACERD_MODE_NR];
/* the same with a module older than ABI 1.6: no comm filter in the kmod
 * modes (the registry drops MODE_CAP_COMM on comm_unavailable) */
static unsigned int caps_nocomm[TRACERD_MODE_NR];

static void profiles(void)
{
	int m;

	for (m = 1; m < TRACERD_MODE_NR; m++) {
		all[m] = true;
		k612[m] = m != TRACERD_MODE_FSESSION && m != TRACERD_MODE_FENTRY_MULTI;
		k61[m] = m != TRACERD_MODE_KPROBE_MULTI && m != TRACERD_MODE_KPROBE_SESSION &&
			 k612[m];
		host[m] = m == TRACERD_MODE_TP_BTF;
		kmod_only[m] = tracerd_mode_is_kmod(m) || m == TRACERD_MODE_TP_BTF;
		all_bpf[m] = all[m] && !tracerd_mode_is_kmod(m);
		k612_bpf[m] = k612[m] && !tracerd_mode_is_kmod(m);
		k61_bpf[m] = k61[m] && !tracerd_mode_is_kmod(m);
		caps_nofprobe[m] = caps[m];
		caps_nocomm[m] = tracerd_mode_is_kmod(m) ? caps[m] & ~MODE_CAP_COMM : caps[m];
	}
	caps_nofprobe[TRACERD_MODE_KMOD_CALLOPS] &= ~MODE_CAP_LATENCY;
}

/* first candidate, or -1 */
static int pick(const bool *avail, bool tp, size_t n, bool direct, bool latency)
{
	struct auto_request r = { .tracepoint = tp, .nr_functions = n, .available = avail,
				  .direct_call_taken = direct, .latency = latency, .caps = caps };
	enum tracerd_mode out[TRACERD_MODE_NR];
	enum auto_skip skip[TRACERD_MODE_NR];

	return auto_select(&r, out, skip, NULL, NULL) ? (int)out[0] : -1;
}

TEST(row1_tracepoint)
{
	profiles();
	ASSERT_EQ(pick(all, true, 1, false, false), TRACERD_MODE_TP_BTF, "6.12");
	ASSERT_EQ(pick(k61, true, 1, false, false), TRACERD_MODE_TP_BTF, "6.1");
	ASSERT_EQ(pick(host, true, 1, false, false), TRACERD_MODE_TP_BTF, "host");
}

TEST(row2_one_function)
{
	profiles();
	/* the module loaded: its native callback */
	ASSERT_EQ(pick(all, false, 1, false, false), TRACERD_MODE_KMOD_CALLOPS, "7.2 module");
	ASSERT_EQ(pick(k61, false, 1, false, false), TRACERD_MODE_KMOD_CALLOPS, "6.1 module");
	ASSERT_EQ(pick(all_bpf, false, 1, false, false), TRACERD_MODE_FENTRY, "7.2");
	ASSERT_EQ(pick(k61_bpf, false, 1, false, false), TRACERD_MODE_FENTRY, "6.1");
	ASSERT_EQ(pick(host, false, 1, false, false), -1, "host: nothing");
}

TEST(row3_many_functions)
{
	profiles();
	/* the module loaded: its one ftrace_ops over every address */
	ASSERT_EQ(pick(all, false, 100, false, false), TRACERD_MODE_KMOD_CALLOPS, "7.2 module");
	ASSERT_EQ(pick(k61, false, 100, false, false), TRACERD_MODE_KMOD_CALLOPS, "6.1 module");
	ASSERT_EQ(pick(all_bpf, false, 100, false, false), TRACERD_MODE_FENTRY_MULTI, "7.2");
	ASSERT_EQ(pick(k612_bpf, false, 100, false, false), TRACERD_MODE_KPROBE_MULTI, "6.12");
	/* row 6: no kprobe.multi on 6.1 */
	ASSERT_EQ(pick(k61_bpf, false, 100, false, false), TRACERD_MODE_FENTRY, "6.1");
	ASSERT_EQ(pick(kmod_only, false, 100, false, false), TRACERD_MODE_KMOD_CALLOPS, "module only");
}

TEST(row4_direct_call_taken)
{
	struct auto_request r = { .nr_functions = 1, .direct_call_taken = true, .caps = caps };
	enum tracerd_mode out[TRACERD_MODE_NR];
	enum auto_skip skip[TRACERD_MODE_NR];

	profiles();
	r.available = all_bpf;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 2, "candidates");
	ASSERT_EQ(out[0], TRACERD_MODE_KPROBE, "6.12: kprobe");
	ASSERT_EQ(skip[TRACERD_MODE_FENTRY], AUTO_SKIP_DIRECT_CALL, "why");
	ASSERT_EQ(pick(k61_bpf, false, 1, true, false), TRACERD_MODE_KPROBE, "6.1: kprobe");
	/* the module's callback shares the function's ftrace site */
	ASSERT_EQ(pick(k61, false, 1, true, false), TRACERD_MODE_KMOD_CALLOPS, "6.1 module");
	/* a glob is not affected: fentry failing on one function is row 5 */
	ASSERT_EQ(pick(k61_bpf, false, 100, true, false), TRACERD_MODE_FENTRY, "6.1 glob");
}

TEST(row5_order_for_fallback)
{
	struct auto_request r = { .nr_functions = 1, .caps = caps };
	enum tracerd_mode out[TRACERD_MODE_NR];
	enum auto_skip skip[TRACERD_MODE_NR];

	profiles();
	r.available = all;
	/* the registry tries these in turn when the kernel refuses one */
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 4, "count");
	ASSERT_EQ(out[0], TRACERD_MODE_KMOD_CALLOPS, "the module first");
	ASSERT_EQ(out[1], TRACERD_MODE_FENTRY, "then fentry");
	ASSERT_EQ(out[2], TRACERD_MODE_KPROBE, "after fentry");
	ASSERT_EQ(out[3], TRACERD_MODE_KPROBE_MULTI, "then kprobe-multi");
	ASSERT_EQ(skip[TRACERD_MODE_KMOD_DIRECT], AUTO_NOT_CONSIDERED, "never direct");
}

TEST(row7_kmod_only)
{
	struct auto_request r = { .nr_functions = 1, .latency = true, .caps = caps };
	enum tracerd_mode out[TRACERD_MODE_NR];
	enum auto_skip skip[TRACERD_MODE_NR];

	profiles();
	ASSERT_EQ(pick(kmod_only, false, 1, false, false), TRACERD_MODE_KMOD_CALLOPS, "module");
	ASSERT_EQ(pick(kmod_only, false, 50, false, false), TRACERD_MODE_KMOD_CALLOPS, "glob");
	r.available = kmod_only;
	/* latency: the module's fprobe, else its kretprobe */
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 2, "latency: the module");
	ASSERT_EQ(out[0], TRACERD_MODE_KMOD_CALLOPS, "latency: fprobe");
	ASSERT_EQ(out[1], TRACERD_MODE_KMOD_KPROBE, "latency: then kretprobe");
	ASSERT_EQ(skip[TRACERD_MODE_FENTRY], AUTO_SKIP_UNAVAILABLE, "fentry why");
	r.caps = caps_nofprobe;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 1, "latency, no fprobe");
	ASSERT_EQ(out[0], TRACERD_MODE_KMOD_KPROBE, "latency, no fprobe: kretprobe");
	ASSERT_EQ(skip[TRACERD_MODE_KMOD_CALLOPS], AUTO_SKIP_OPTIONS, "why");
	/* a module without fprobe next to BPF (6.1): its kretprobe first */
	r.available = k61;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 3, "6.1 module, latency");
	ASSERT_EQ(out[0], TRACERD_MODE_KMOD_KPROBE, "6.1 module, latency: kretprobe");
	ASSERT_EQ(out[1], TRACERD_MODE_FENTRY, "6.1 module, latency: then fentry");
	r.available = kmod_only;
	/* comm: the module filters by comm (ABI 1.6): its callback first */
	r.caps = caps;
	r.latency = false;
	r.comm = true;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 1, "comm: the module");
	ASSERT_EQ(out[0], TRACERD_MODE_KMOD_CALLOPS, "comm: kmod-callops");
	r.available = all;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 4, "comm: module and BPF");
	ASSERT_EQ(out[0], TRACERD_MODE_KMOD_CALLOPS, "comm: kmod-callops before fentry");
	ASSERT_EQ(out[1], TRACERD_MODE_FENTRY, "comm: then fentry");
	r.latency = true;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL) >= 2, 1, "comm, latency");
	ASSERT_EQ(out[0], TRACERD_MODE_KMOD_CALLOPS, "comm, latency: the module's fprobe");
	ASSERT_EQ(out[1], TRACERD_MODE_KMOD_KPROBE, "comm, latency: then its kretprobe");
	r.latency = false;
	/* a module older than ABI 1.6 has none: the BPF modes */
	r.caps = caps_nocomm;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 3, "comm, old module: BPF");
	ASSERT_EQ(out[0], TRACERD_MODE_FENTRY, "comm, old module: fentry");
	ASSERT_EQ(skip[TRACERD_MODE_KMOD_CALLOPS], AUTO_SKIP_OPTIONS, "comm, old module why");
	r.available = kmod_only;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 0, "comm, old module alone: none");
	r.caps = caps;
	r.comm = false;
	/* the module has no ring buffer: --record is an option it cannot honour */
	r.latency = false;
	r.record = true;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 0, "record: none");
	ASSERT_EQ(skip[TRACERD_MODE_KMOD_CALLOPS], AUTO_SKIP_OPTIONS, "record why");
	r.available = all;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 3, "record: the BPF modes");
	ASSERT_EQ(out[0], TRACERD_MODE_FENTRY, "record: fentry");
	ASSERT_EQ(skip[TRACERD_MODE_KMOD_CALLOPS], AUTO_SKIP_OPTIONS, "record: not the module");
	/* nor has it the return value --errors needs */
	r.record = false;
	r.errors = true;
	r.available = kmod_only;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 0, "errors: none");
	ASSERT_EQ(skip[TRACERD_MODE_KMOD_CALLOPS], AUTO_SKIP_OPTIONS, "errors why");
	r.available = k61;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 2, "errors on 6.1: fentry, kprobe");
	ASSERT_EQ(out[0], TRACERD_MODE_FENTRY, "errors: fentry");
	ASSERT_EQ(out[1], TRACERD_MODE_KPROBE, "errors: then kprobe");
	/* nor keys: --by never picks a kmod mode */
	r.errors = false;
	r.by = true;
	r.available = kmod_only;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 0, "by: none");
	ASSERT_EQ(skip[TRACERD_MODE_KMOD_CALLOPS], AUTO_SKIP_OPTIONS, "by why");
	r.available = all;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 3, "by: the BPF modes");
	ASSERT_EQ(out[0], TRACERD_MODE_FENTRY, "by: fentry");
	ASSERT_EQ(skip[TRACERD_MODE_KMOD_CALLOPS], AUTO_SKIP_OPTIONS, "by: not the module");
	/* --stacks: only the modes with MODE_CAP_STACKS (a module without
	 * its stack capture: the registry takes the cap off, as here) */
	r.by = false;
	r.stacks = true;
	r.available = kmod_only;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 0, "stacks: none");
	ASSERT_EQ(skip[TRACERD_MODE_KMOD_CALLOPS], AUTO_SKIP_OPTIONS, "stacks why");
	r.available = all;
	ASSERT_EQ(auto_select(&r, out, skip, NULL, NULL), 3, "stacks: the BPF modes");
	ASSERT_EQ(out[0], TRACERD_MODE_FENTRY, "stacks: fentry");
	ASSERT_EQ(skip[TRACERD_MODE_KMOD_CALLOPS], AUTO_SKIP_OPTIONS, "stacks: not the module");
}


TEST(row9_one_function_latency)
{
	profiles();
	/* the module loaded: its fprobe (kmod-callops) */
	ASSERT_EQ(pick(all, false, 1, false, true), TRACERD_MODE_KMOD_CALLOPS, "7.2 module");
	/* else fentry/fexit, the cheapest BPF latency (docs/auto.md) */
	ASSERT_EQ(pick(all_bpf, false, 1, false, true), TRACERD_MODE_FENTRY, "7.2");
	ASSERT_EQ(pick(k612_bpf, false, 1, false, true), TRACERD_MODE_FENTRY, "6.12");
	ASSERT_EQ(pick(k61_bpf, false, 1, false, true), TRACERD_MODE_FENTRY, "6.1");
	/* the function's direct call is taken: no trampoline (row 4), so
	 * neither fentry nor fsession: the kprobe session */
	ASSERT_EQ(pick(all_bpf, false, 1, true, true), TRACERD_MODE_KPROBE_SESSION, "7.2 direct");
	ASSERT_EQ(pick(k61_bpf, false, 1, true, true), TRACERD_MODE_KPROBE, "6.1 direct: no sessions");
	/* fentry refused (no fentry): fsession where the kernel has it */
	bool nofentry[TRACERD_MODE_NR];
	int m;

	for (m = 0; m < TRACERD_MODE_NR; m++)
		nofentry[m] = all_bpf[m] && m != TRACERD_MODE_FENTRY;
	ASSERT_EQ(pick(nofentry, false, 1, false, true), TRACERD_MODE_FSESSION, "7.2 without fentry");
	ASSERT_EQ(pick(host, false, 1, false, true), -1, "host: nothing");
	/* without latency a session buys nothing: row 2 */
	ASSERT_EQ(pick(k612_bpf, false, 1, false, false), TRACERD_MODE_FENTRY, "6.12 count");
}

TEST(row10_many_functions_latency)
{
	profiles();
	ASSERT_EQ(pick(all, false, 100, false, true), TRACERD_MODE_FSESSION, "7.2");
	ASSERT_EQ(pick(k612, false, 100, false, true), TRACERD_MODE_KPROBE_SESSION, "6.12");
	ASSERT_EQ(pick(k61, false, 100, false, true), TRACERD_MODE_FENTRY, "6.1");
	/* no session mode left: one link still beats one per function */
	bool nosess[TRACERD_MODE_NR];
	int m;

	for (m = 0; m < TRACERD_MODE_NR; m++)
		nosess[m] = all[m] && m != TRACERD_MODE_FSESSION && m != TRACERD_MODE_KPROBE_SESSION;
	ASSERT_EQ(pick(nosess, false, 100, false, true), TRACERD_MODE_FENTRY_MULTI, "7.2 sessions off");
	/* module only: its fprobe per function (kmod-callops, last of the row) */
	ASSERT_EQ(pick(kmod_only, false, 100, false, true), TRACERD_MODE_KMOD_CALLOPS,
		  "module only: its latency");
}

TEST_MAIN()
