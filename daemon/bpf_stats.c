// SPDX-License-Identifier: GPL-2.0-or-later
/* BPF program run-time statistics per attachment: see bpf_stats.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "../lib/log.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "backend.h"
#include "bpf_stats.h"
#include "registry.h"

int bpf_stats_apply(struct tracerd *d)
{
	char ebuf[96];
	int fd;

	if (!d->cfg.bpf_stats) {
		if (d->bpf_stats_fd >= 0) {
			close(d->bpf_stats_fd);
			log_info("BPF run-time statistics off");
		}
		d->bpf_stats_fd = -1;
		snprintf(d->bpf_stats_why, sizeof(d->bpf_stats_why),
			 "BPF run-time statistics are off (config: bpf_stats = on)");
		return 0;
	}
	if (d->bpf_stats_fd >= 0)
		return 0;
	fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0) {
		fd = -errno;
		snprintf(d->bpf_stats_why, sizeof(d->bpf_stats_why),
			 "BPF run-time statistics unavailable: the kernel refused "
			 "BPF_ENABLE_STATS: %s",
			 errno_str(fd, ebuf, sizeof(ebuf)));
		log_warn("%s", d->bpf_stats_why);
		return fd;
	}
	d->bpf_stats_fd = fd;
	d->bpf_stats_why[0] = '\0';
	log_info("BPF run-time statistics on");
	return 0;
}

void bpf_stats_fini(struct tracerd *d)
{
	if (d->bpf_stats_fd >= 0)
		close(d->bpf_stats_fd);
	d->bpf_stats_fd = -1;
}

bool bpf_stats_on(const struct tracerd *d, const char **why)
{
	if (why)
		*why = d->bpf_stats_fd >= 0 ? NULL : d->bpf_stats_why;
	return d->bpf_stats_fd >= 0;
}

/* one program into the sum: 1 (a program read), or -errno */
static int prog_add(int prog_fd, void *ctx)
{
	struct bpf_run_stats *s = ctx;
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	s->runs += info.run_cnt;
	s->run_ns += info.run_time_ns;
	return 1;
}

int bpf_stats_read(struct tracerd *d, struct attachment *a, struct bpf_run_stats *out,
		   const char **why)
{
	const struct backend *be = a->be;	/* the variant's, set once at attach */
	int n;

	memset(out, 0, sizeof(*out));
	if (!bpf_stats_on(d, why))
		return -ENODATA;
	if (!be || !be->progs) {
		*why = tracerd_mode_is_kmod(a->mode) ?
		       "a kmod mode runs no BPF program" :
		       "the mode's BPF program is shared with other attachments";
		return -ENODATA;
	}
	n = be->progs(d, a, prog_add, out);
	if (n < 0) {
		*why = "cannot read the programs' info";
		return n;
	}
	if (!n) {
		*why = "no BPF program attached";
		return -ENODATA;
	}
	out->progs = (unsigned int)n;
	return 0;
}
