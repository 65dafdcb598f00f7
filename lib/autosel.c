// SPDX-License-Identifier: GPL-2.0-or-later
/* The auto decision table; see autosel.h and docs/auto.md. */
#include <string.h>
#include "autosel.h"
#include "modes.h"
#include "util.h"

/* row 2: one function — the module's ftrace_ops callback when it is
 * loaded (a native call, no BPF program: issue #16 measured 88 ns against
 * fentry's 461), else fentry, the cheapest BPF hook per call */
static const enum tracerd_mode row_one[] = {
	TRACERD_MODE_KMOD_CALLOPS, TRACERD_MODE_FENTRY, TRACERD_MODE_KPROBE,
	TRACERD_MODE_KPROBE_MULTI,
};
/* row 3: many functions — one kernel update hooks them all: the
 * module's one ftrace_ops over every address when it is loaded (a native
 * callback; 1132 functions attached in 0.62 s, detached in 0.44 s, on
 * 6.12 TCG against kprobe.multi's 0.72 s and 0.36 s; inside the glob
 * +220 ns per call on 7.2 against fentry.multi's +693 and kprobe.multi's
 * +1139), else one link:
 * fentry.multi (trampolines) where the kernel has it, else kprobe.multi
 * (fprobe) */
static const enum tracerd_mode row_many[] = {
	TRACERD_MODE_KMOD_CALLOPS, TRACERD_MODE_FENTRY_MULTI, TRACERD_MODE_KPROBE_MULTI,
	TRACERD_MODE_FENTRY, TRACERD_MODE_KPROBE,
};
/* row 9: one function, latency — the module's native return hooks where
 * it has them (fprobe, else kretprobe: no BPF program, no map; 6.12 TCG,
 * bench trigger --peers: +1403 and +1700 ns per call against fentry's
 * +2725), else fentry/fexit, the cheapest BPF latency counted in
 * instructions (2026-12-03, --icount: 816 per call on 6.12 against
 * kprobe.session's 1223; 558 on 7.2 against fsession's 573 and
 * kprobe.session's 1356), then the session programs (one program, the
 * per-call cookie) */
static const enum tracerd_mode row_one_lat[] = {
	TRACERD_MODE_KMOD_CALLOPS, TRACERD_MODE_KMOD_KPROBE,	TRACERD_MODE_FENTRY,
	TRACERD_MODE_FSESSION,	   TRACERD_MODE_KPROBE_SESSION, TRACERD_MODE_KPROBE,
	TRACERD_MODE_KPROBE_MULTI,
};
/* row 10: many functions, latency — one session link for them all */
static const enum tracerd_mode row_many_lat[] = {
	TRACERD_MODE_FSESSION, TRACERD_MODE_KPROBE_SESSION, TRACERD_MODE_FENTRY_MULTI,
	TRACERD_MODE_KPROBE_MULTI, TRACERD_MODE_FENTRY,
	TRACERD_MODE_KPROBE, TRACERD_MODE_KMOD_CALLOPS,
};
/* row 1: tracepoints */
static const enum tracerd_mode row_tp[] = { TRACERD_MODE_TP_BTF };

size_t auto_select(const struct auto_request *r, enum tracerd_mode out[TRACERD_MODE_NR],
		   enum auto_skip skip[TRACERD_MODE_NR], enum tracerd_mode *order, size_t *nr_order)
{
	const enum tracerd_mode *row;
	size_t i, n = 0, len;
	char buf[64];

	for (i = 0; i < TRACERD_MODE_NR; i++)
		skip[i] = AUTO_NOT_CONSIDERED;
	if (r->tracepoint) {
		row = row_tp;
		len = ARRAY_SIZE(row_tp);
	} else if (r->nr_functions > 1 && r->latency) {
		row = row_many_lat;
		len = ARRAY_SIZE(row_many_lat);
	} else if (r->nr_functions > 1) {
		row = row_many;
		len = ARRAY_SIZE(row_many);
	} else if (r->latency) {
		row = row_one_lat;
		len = ARRAY_SIZE(row_one_lat);
	} else {
		row = row_one;
		len = ARRAY_SIZE(row_one);
	}
	for (i = 0; i < len; i++) {
		enum tracerd_mode m = row[i];

		if (order)
			order[i] = m;
		if (!r->available[m])
			skip[m] = AUTO_SKIP_UNAVAILABLE;
		else if ((r->caps[m] & MODE_CAP_DIRECT_CALL) && r->nr_functions == 1 &&
			 r->direct_call_taken)
			skip[m] = AUTO_SKIP_DIRECT_CALL;	/* row 4 */
		else if (mode_caps_missing(r->caps[m], r->latency, r->comm, r->record, r->errors,
					   r->by, r->stacks, r->slow, r->args, r->args_ret, buf,
					   sizeof(buf))[0])
			skip[m] = AUTO_SKIP_OPTIONS;		/* row 7 */
		else
			skip[m] = AUTO_CANDIDATE;
		if (skip[m] == AUTO_CANDIDATE)
			out[n++] = m;
	}
	if (nr_order)
		*nr_order = len;
	return n;
}
