/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * Attach modes: the vocabulary of docs/kernel-facts.md ("The attach paths").
 * The numeric values travel nowhere (the protocol and config use the
 * names), but keep them stable anyway: tables are indexed by them and a
 * record file names its targets' modes by number. Add a mode at the end.
 *
 * TRACERD_MODES is the one table of modes. Each row,
 *	X(ENUM, "name", backend, KIND, TARGET, PATH)
 * gives the enum value TRACERD_MODE_<ENUM>, the name (lib/modes.c), the
 * daemon's `backend_<backend>` (daemon/be_*.c), who provides the hook
 * (KIND: BPF, loaded by the daemon, or KMOD, the module), what it hooks
 * (TARGET: FUNCTION or TRACEPOINT) and the path the kernel takes to it
 * (PATH: KPROBE, INDIRECT (an ftrace_ops callback), DIRECT_CALL (the
 * function's one ftrace direct call), SESSION (entry and return in one
 * program) or TRACEPOINT). lib/modes.c answers "is it a function mode, a
 * kmod mode, which path" from these columns, and tests/host/docs-sync.py
 * checks the mode lists of the docs against this table. A user of the
 * table names the columns it needs and ends with `...`, so a column added
 * later costs it nothing. A new mode is one row here, its backend file,
 * its BPF program and its row of auto (ARCHITECTURE.md).
 */
#ifndef TRACERD_MODES_H
#define TRACERD_MODES_H

#define TRACERD_MODES(X)									  \
	X(FENTRY, "fentry", fentry, BPF, FUNCTION, DIRECT_CALL) /* fentry/fexit */		  \
	X(KPROBE, "kprobe", kprobe, BPF, FUNCTION, KPROBE) /* kprobe at +0 */			  \
	X(KPROBE_INT3, "kprobe-int3", kprobe_int3, BPF, FUNCTION, KPROBE) /* past the entry */	  \
	X(KPROBE_MULTI, "kprobe-multi", kprobe_multi, BPF, FUNCTION, INDIRECT) /* fprobe */	  \
	X(TP_BTF, "tp-btf", tp, BPF, TRACEPOINT, TRACEPOINT) /* raw_tp fallback */		  \
	X(KMOD_CALLOPS, "kmod-callops", kmod_callops, KMOD, FUNCTION, INDIRECT) /* ftrace_ops */  \
	X(KMOD_DIRECT, "kmod-direct", kmod_direct, KMOD, FUNCTION, DIRECT_CALL)			  \
	X(KMOD_KPROBE, "kmod-kprobe", kmod_kprobe, KMOD, FUNCTION, KPROBE) /* register_kprobe */  \
	X(KPROBE_SESSION, "kprobe-session", kprobe_session, BPF, FUNCTION, INDIRECT) /* 6.10+ */ \
	X(FSESSION, "fsession", fsession, BPF, FUNCTION, DIRECT_CALL) /* 7.x */		  \
	X(FENTRY_MULTI, "fentry-multi", fentry_multi, BPF, FUNCTION, DIRECT_CALL) /* 7.x */

/* the columns KIND, TARGET and PATH of a row */
enum tracerd_mode_kind {
	TRACERD_MODE_KIND_NONE = 0,	/* auto */
	TRACERD_MODE_KIND_BPF,
	TRACERD_MODE_KIND_KMOD,
};

enum tracerd_mode_target {
	TRACERD_MODE_TARGET_NONE = 0,	/* auto */
	TRACERD_MODE_TARGET_FUNCTION,
	TRACERD_MODE_TARGET_TRACEPOINT,
};

enum tracerd_mode_path {
	TRACERD_MODE_PATH_NONE = 0,	/* auto */
	TRACERD_MODE_PATH_KPROBE,
	TRACERD_MODE_PATH_INDIRECT,
	TRACERD_MODE_PATH_DIRECT_CALL,
	TRACERD_MODE_PATH_TRACEPOINT,
	TRACERD_MODE_PATH_NR,
};

#define TRACERD_MODE_ENUM_(e, ...)	TRACERD_MODE_##e,

enum tracerd_mode {
	TRACERD_MODE_AUTO = 0,		/* "auto": chosen per request (lib/autosel.c) */
	TRACERD_MODES(TRACERD_MODE_ENUM_)
	TRACERD_MODE_NR,
};

#undef TRACERD_MODE_ENUM_

#endif /* TRACERD_MODES_H */
