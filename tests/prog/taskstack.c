// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * taskstack — drive bpf/taskstack.bpf.c (bpf/hook.bpf.h's per-task stack
 * of entry times, and the BPF build of the histogram bucket) through
 * BPF_PROG_TEST_RUN on the running kernel and check every answer:
 *   nested calls return in order, each with its own entry time;
 *   a call that returns out of order finds its entry below the top, and
 *   the hole it leaves takes no room from calls made after it;
 *   a return with no entry gets none;
 *   the ring wraps at 16 open calls: the oldest goes untimed, as a miss;
 *   the bucket of BPF agrees with the C one on edge values.
 * Prints "ok: ..." per check; exit 0 all passed, 1 a check failed, 77 the
 * kernel refused to load or run the program (the reason on stderr).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <tracerd/trace.h>
#include "taskstack.skel.h"

enum { TS_PUSH, TS_POP, TS_BUCKET };

static struct taskstack_bpf *skel;
static int failed;

static int quiet(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	return lvl == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

static __u64 op(__u64 what, __u64 v)
{
	__u64 args[2] = { what, v };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args));

	skel->bss->result = ~0ULL;
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.taskstack_op), &o)) {
		fprintf(stderr, "taskstack: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
		exit(77);
	}
	return skel->bss->result;
}

static void push(__u64 slot) { op(TS_PUSH, slot); }
static __u64 pop(__u64 slot) { return op(TS_POP, slot); }

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failed = 1;
}

static __u64 misses(__u32 slot)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct tracerd_slot_stats *v = calloc(ncpu, sizeof(*v));
	__u64 sum = 0;

	if (!v || bpf_map_lookup_elem(bpf_map__fd(skel->maps.slot_stats), &slot, v)) {
		fprintf(stderr, "taskstack: slot_stats: %s\n", strerror(errno));
		exit(1);
	}
	for (i = 0; i < ncpu; i++)
		sum += v[i].misses;
	free(v);
	return sum;
}

int main(void)
{
	static const __u64 vals[] = { 0, 1, 2, 3, 4, 7, 8, 255, 256, 1023, 1024, 65535, 65536,
				      (1ULL << 32) - 1, 1ULL << 32, (1ULL << 37), (1ULL << 38) - 1,
				      1ULL << 38, 1ULL << 39, 1ULL << 63, ~0ULL };
	__u64 a, b, c, t[17];
	size_t i;
	int err;

	libbpf_set_print(quiet);
	skel = taskstack_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "taskstack: cannot load bpf/taskstack.bpf.c: %s\n", strerror(errno));
		return 77;
	}

	check(pop(1) == 0, "a return with no entry gets none");

	push(1);
	a = pop(1);
	check(a != 0 && pop(1) == 0, "one call: its entry time, once");

	push(1);
	push(2);
	b = pop(2);
	a = pop(1);
	check(a && b && a <= b && pop(1) == 0 && pop(2) == 0,
	      "nested calls return in order, each with its own entry time");

	push(1);
	push(2);
	a = pop(1);	/* below the top */
	b = pop(2);
	check(a && b && a <= b, "a call returning out of order finds its entry below the top");
	check(pop(1) == 0 && pop(2) == 0, "and nothing is left behind");

	push(1);
	push(2);
	push(3);
	b = pop(2);	/* below 3: leaves a hole */
	push(4);	/* above 3: must not take its entry */
	push(5);
	check(pop(5) && pop(4) && (c = pop(3)) && (a = pop(1)) && a <= b && b <= c,
	      "the middle of three calls returns first; two more calls above it");
	for (i = 1, err = 0; i <= 5; i++)
		err |= misses(i) != 0 || pop(i) != 0;
	check(!err, "no entry overwritten, none left behind");
	for (i = 0; i < 16; i++)
		push(6);
	for (i = 0, err = 0; i < 16; i++)
		err |= pop(6) == 0;
	check(!err && misses(6) == 0 && pop(6) == 0,
	      "holes take no room: 16 open calls after them, all timed");

	err = misses(5) != 0;
	for (i = 0; i < 17; i++)
		push(5);
	check(!err && misses(5) == 1, "the 17th open call overwrites the oldest: one miss");
	for (i = 0; i < 17; i++)
		t[i] = pop(5);
	for (err = 0, i = 0; i < 16; i++)
		err |= !t[i] || (i && t[i] > t[i - 1]);
	check(!err && t[16] == 0, "16 calls timed, latest first; the overwritten one not");

	for (err = 0, i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		__u64 got = op(TS_BUCKET, vals[i]);

		if (got != tracerd_hist_bucket(vals[i])) {
			fprintf(stderr, "bucket(%llu): BPF %llu, C %llu\n",
				(unsigned long long)vals[i], (unsigned long long)got,
				(unsigned long long)tracerd_hist_bucket(vals[i]));
			err = 1;
		}
	}
	check(!err, "the BPF histogram bucket agrees with the C one");

	taskstack_bpf__destroy(skel);
	return failed;
}
