/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * Attach modes: the vocabulary of DESIGN.md ("The three attach paths").
 * The numeric values travel nowhere (the protocol and config use the
 * names), but keep them stable anyway: tables are indexed by them and a
 * record file names its targets' modes by number. Add a mode at the end.
 *
 * TRACERD_MODES is the one table of modes: X(ENUM, "name", backend) per
 * row gives the enum value TRACERD_MODE_<ENUM>, the name (lib/modes.c)
 * and the daemon's `backend_<backend>` (daemon/probe.c, from
 * daemon/be_*.c). A new mode is its backend file and one row here.
 */
#ifndef TRACERD_MODES_H
#define TRACERD_MODES_H

#define TRACERD_MODES(X)						\
	X(FENTRY, "fentry", fentry)		/* BPF fentry/fexit (direct call) */	\
	X(KPROBE, "kprobe", kprobe)		/* BPF kprobe/kretprobe at +0 */	\
	X(KPROBE_INT3, "kprobe-int3", kprobe_int3)	/* BPF kprobe past the entry */	\
	X(KPROBE_MULTI, "kprobe-multi", kprobe_multi)	/* BPF kprobe.multi (fprobe) */	\
	X(TP_BTF, "tp-btf", tp)			/* BPF tp_btf, raw_tp fallback */	\
	X(KMOD_CALLOPS, "kmod-callops", kmod_callops)	/* kmod ftrace_ops callback */	\
	X(KMOD_DIRECT, "kmod-direct", kmod_direct)	/* kmod ftrace direct call */	\
	X(KMOD_KPROBE, "kmod-kprobe", kmod_kprobe)	/* kmod register_kprobe */	\
	X(KPROBE_SESSION, "kprobe-session", kprobe_session)	/* BPF kprobe.session (6.10+) */	\
	X(FSESSION, "fsession", fsession)	/* BPF fsession (7.x): fentry+fexit in one */	\
	X(FENTRY_MULTI, "fentry-multi", fentry_multi)	/* BPF fentry.multi (7.x): one link, many */

#define TRACERD_MODE_ENUM_(e, name, backend)	TRACERD_MODE_##e,

enum tracerd_mode {
	TRACERD_MODE_AUTO = 0,		/* "auto": chosen per request (lib/autosel.c) */
	TRACERD_MODES(TRACERD_MODE_ENUM_)
	TRACERD_MODE_NR,
};

#undef TRACERD_MODE_ENUM_

#endif /* TRACERD_MODES_H */
