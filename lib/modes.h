/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Mode names <-> enum tracerd_mode, and what the mode's row says of it. */
#ifndef TRACERD_LIB_MODES_H
#define TRACERD_LIB_MODES_H

#include <stdbool.h>
#include <stddef.h>
#include <tracerd/modes.h>

const char *tracerd_mode_name(enum tracerd_mode m);
/* name -> mode, or -EINVAL */
int tracerd_mode_parse(const char *name);
/* The columns of the mode's row (include/tracerd/modes.h); NONE for auto
 * and out-of-range values. */
enum tracerd_mode_kind tracerd_mode_kind(enum tracerd_mode m);
enum tracerd_mode_target tracerd_mode_target(enum tracerd_mode m);
enum tracerd_mode_path tracerd_mode_path(enum tracerd_mode m);
/* "kprobe", "indirect", "direct-call", "session", "tracepoint" ("" for auto) */
const char *tracerd_mode_path_name(enum tracerd_mode m);
/* provided by the module (KIND KMOD)? */
bool tracerd_mode_is_kmod(enum tracerd_mode m);
/* does the mode hook kernel functions (TARGET FUNCTION)? */
bool tracerd_mode_is_function(enum tracerd_mode m);
/* does the mode hook tracepoints (TARGET TRACEPOINT)? */
bool tracerd_mode_is_tracepoint(enum tracerd_mode m);

/*
 * What a mode supports (struct backend's caps, daemon/backend.h): a
 * request is checked against them before anything is done to the kernel,
 * and auto (lib/autosel.c) reads the same bits.
 */
enum mode_cap {
	MODE_CAP_FUNCTION	= 1U << 0,	/* hooks kernel functions */
	MODE_CAP_TRACEPOINT	= 1U << 1,	/* hooks tracepoints */
	MODE_CAP_LATENCY	= 1U << 2,	/* times entry -> return */
	MODE_CAP_COMM		= 1U << 3,	/* comm filter */
	MODE_CAP_PID		= 1U << 4,	/* tgid filter */
	MODE_CAP_RECORD		= 1U << 5,	/* events into the ring buffer */
	MODE_CAP_MULTI		= 1U << 6,	/* many functions in one link */
	MODE_CAP_DIRECT_CALL	= 1U << 7,	/* rides the function's ftrace direct call */
	MODE_CAP_DIRECT_EXCL	= 1U << 8,	/* owns that direct call: one per function */
	MODE_CAP_NEEDS_BTF	= 1U << 9,	/* a function without BTF cannot be hooked */
	MODE_CAP_NEEDS_ADDR	= 1U << 10,	/* needs the kallsyms address */
	MODE_CAP_ERRORS		= 1U << 11,	/* sees the return value: --errors */
	MODE_CAP_BY		= 1U << 12,	/* calls per pid, comm or cgroup: --by */
	MODE_CAP_STACKS		= 1U << 13,	/* calls per kernel stack: --stacks */
	MODE_CAP_SLOW		= 1U << 14,	/* records only slow calls: --slower-than */
	MODE_CAP_ARGS		= 1U << 15,	/* sees the arguments at the entry: --args, --if */
	MODE_CAP_ARGS_RET	= 1U << 16,	/* ... and at the return: --args --latency */
};
/* The options of a request a mode with caps cannot honour, as words
 * ("latency, comm"), into buf; "" when it can honour them all. */
const char *mode_caps_missing(unsigned int caps, bool latency, bool comm, bool record,
			      bool errors, bool by, bool stacks, bool slow, bool args, bool args_ret,
			      char *buf, size_t len);

/*
 * Variants of a mode: another way the same backend hooks, declared by the
 * backend (struct backend's variant[], daemon/backend.h) and checked with
 * the request. Only `tracectl bench` asks for them today.
 */
enum mode_variant {
	MODE_VARIANT_NONE = 0,
	MODE_VARIANT_EMPTY,	/* BPF: the least program that still counts (bpf/bench.bpf.c) */
	MODE_VARIANT_INT3,	/* kmod-kprobe past the ftrace call site: a real int3 */
	MODE_VARIANT_SAVE_REGS,	/* kmod-callops with FTRACE_OPS_FL_SAVE_REGS */
	MODE_VARIANT_NR,
};
/* "empty", "int3", "save_regs" ("" for none) */
const char *mode_variant_name(enum mode_variant v);

#endif
