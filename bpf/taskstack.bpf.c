// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test object (tests/prog/taskstack.c, tests/host/11-bpf-taskstack.sh):
 * bpf/hook.bpf.h's per-task stack of entry times and its histogram bucket,
 * compiled as the daemon's programs are, driven one operation at a time by
 * BPF_PROG_TEST_RUN on a raw_tp program (args: op, value). Not loaded by
 * tracerd.
 */
#include "hook.bpf.h"

enum { TS_PUSH, TS_POP, TS_BUCKET };

__u64 result;

SEC("raw_tp")
int taskstack_op(unsigned long long *ctx)
{
	__u64 op = ctx[0], v = ctx[1];

	if (op == TS_PUSH)
		task_push(v & (TRACERD_MAX_SLOTS - 1));
	else if (op == TS_POP)
		result = task_pop(v & (TRACERD_MAX_SLOTS - 1));
	else if (op == TS_BUCKET)
		result = tracerd_hist_bucket(v);
	return 0;
}
