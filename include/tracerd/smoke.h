/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counter slots shared by bpf/smoke.bpf.c and its loader tests/prog/bpf_smoke.c. */
#ifndef TRACERD_SMOKE_H
#define TRACERD_SMOKE_H

enum smoke_slot {
	SMOKE_ENTRY = 0,	/* fentry, kprobe, tp_btf sys_enter */
	SMOKE_EXIT = 1,		/* fexit, kretprobe */
	SMOKE_NR_SLOTS,
};

#endif
