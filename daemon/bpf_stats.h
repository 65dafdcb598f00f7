/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's run-time statistics of BPF programs (bpf_prog_info's
 * run_cnt and run_time_ns), per attachment: the sum over the programs it
 * owns (struct backend's progs). The kernel counts them only while
 * statistics are enabled, which costs every program run two clock reads,
 * so they are opt-in (config key bpf_stats = on): the daemon then holds
 * the fd of BPF_ENABLE_STATS(BPF_STATS_RUN_TIME), which keeps them on for
 * as long as it is open (kernel.bpf_stats_enabled counts as well).
 */
#ifndef TRACERD_BPF_STATS_H
#define TRACERD_BPF_STATS_H

#include "tracerd.h"

struct bpf_run_stats {
	__u64 runs;		/* run_cnt: every run, filtered calls included */
	__u64 run_ns;		/* run_time_ns */
	unsigned int progs;	/* programs summed */
};

/*
 * Hold or drop the BPF_ENABLE_STATS fd as d->cfg.bpf_stats says (start-up,
 * reload). 0, or -errno when the kernel refuses (d->bpf_stats_why says
 * why; statistics stay off).
 */
int bpf_stats_apply(struct tracerd *d);
void bpf_stats_fini(struct tracerd *d);
/* Are the statistics on? Else *why (may be NULL) says why not. */
bool bpf_stats_on(const struct tracerd *d, const char **why);
/*
 * a's programs' statistics: 0 with *out; -ENODATA when they are off or a
 * has no BPF program of its own (kmod modes; kprobe-session shares one
 * program between attachments), with *why; or -errno.
 */
int bpf_stats_read(struct tracerd *d, struct attachment *a, struct bpf_run_stats *out,
		   const char **why);

#endif
