/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * Attach modes: the vocabulary of DESIGN.md ("The three attach paths").
 * The numeric values travel nowhere (the protocol and config use the
 * names), but keep them stable anyway: tables are indexed by them.
 * Names live in lib/modes.c (tracerd_mode_name / tracerd_mode_parse).
 */
#ifndef TRACERD_MODES_H
#define TRACERD_MODES_H

enum tracerd_mode {
	TRACERD_MODE_AUTO = 0,
	TRACERD_MODE_FENTRY,		/* BPF fentry/fexit (direct call) */
	TRACERD_MODE_KPROBE,		/* BPF kprobe/kretprobe at +0 */
	TRACERD_MODE_KPROBE_INT3,	/* BPF kprobe past the entry (int3) */
	TRACERD_MODE_KPROBE_MULTI,	/* BPF kprobe.multi (fprobe) */
	TRACERD_MODE_TP_BTF,		/* BPF tp_btf, raw_tp fallback */
	TRACERD_MODE_KMOD_CALLOPS,	/* kmod ftrace_ops callback */
	TRACERD_MODE_KMOD_DIRECT,	/* kmod ftrace direct call */
	TRACERD_MODE_KMOD_KPROBE,	/* kmod register_kprobe */
	TRACERD_MODE_NR,
};

#endif /* TRACERD_MODES_H */
