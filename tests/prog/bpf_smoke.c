// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bpf_smoke MODE FUNC N — load bpf/smoke.bpf.c, attach MODE to FUNC for
 * this process only, make N getpgid() syscalls, print what was counted:
 *   entry=E exit=X
 * MODE: fentry (fentry+fexit), kprobe (kprobe+kretprobe), tp (tp_btf
 * sys_enter filtered to getpgid; FUNC is ignored). Exit 0 when loading and
 * attaching worked (the caller checks the numbers), 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <tracerd/smoke.h>
#include "smoke.skel.h"

static int print_libbpf(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	if (lvl == LIBBPF_DEBUG && !getenv("SMOKE_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int read_slot(struct smoke_bpf *skel, __u32 slot, unsigned long long *sum)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	__u64 *vals;

	if (ncpu < 0)
		return ncpu;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.counts), &slot, vals)) {
		free(vals);
		return -errno;
	}
	*sum = 0;
	for (i = 0; i < ncpu; i++)
		*sum += vals[i];
	free(vals);
	return 0;
}

static int attach(struct smoke_bpf *skel, const char *mode, const char *func)
{
	struct bpf_link *l1 = NULL, *l2 = NULL;

	/* kept in skel->links so smoke_bpf__destroy() releases them */
	if (!strcmp(mode, "fentry")) {
		l1 = skel->links.smoke_fentry = bpf_program__attach(skel->progs.smoke_fentry);
		l2 = l1 ? skel->links.smoke_fexit = bpf_program__attach(skel->progs.smoke_fexit) : NULL;
	} else if (!strcmp(mode, "kprobe")) {
		l1 = skel->links.smoke_kprobe =
			bpf_program__attach_kprobe(skel->progs.smoke_kprobe, false, func);
		l2 = l1 ? skel->links.smoke_kretprobe =
			bpf_program__attach_kprobe(skel->progs.smoke_kretprobe, true, func) : NULL;
	} else {
		l1 = skel->links.smoke_sys_enter = bpf_program__attach(skel->progs.smoke_sys_enter);
		l2 = l1;
	}
	if (!l1 || !l2) {
		int err = -errno;

		fprintf(stderr, "bpf_smoke: failed to attach %s to '%s': %s\n",
			mode, func, strerror(-err));
		return err;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct smoke_bpf *skel = NULL;
	unsigned long long entry = 0, exit_ = 0;
	const char *mode, *func;
	long n, i;
	int err = 1;

	if (argc != 4) {
		fprintf(stderr, "usage: bpf_smoke fentry|kprobe|tp FUNC N\n");
		return 2;
	}
	mode = argv[1];
	func = argv[2];
	n = strtol(argv[3], NULL, 0);
	if (strcmp(mode, "fentry") && strcmp(mode, "kprobe") && strcmp(mode, "tp")) {
		fprintf(stderr, "bpf_smoke: unknown mode '%s'\n", mode);
		return 2;
	}
	libbpf_set_print(print_libbpf);
	skel = smoke_bpf__open();
	if (!skel) {
		fprintf(stderr, "bpf_smoke: open: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->target_tgid = getpid();
	skel->rodata->target_syscall_nr = SYS_getpgid;
	if (!strcmp(mode, "fentry")) {
		bpf_program__set_autoload(skel->progs.smoke_fentry, true);
		bpf_program__set_autoload(skel->progs.smoke_fexit, true);
		bpf_program__set_attach_target(skel->progs.smoke_fentry, 0, func);
		bpf_program__set_attach_target(skel->progs.smoke_fexit, 0, func);
	} else if (!strcmp(mode, "kprobe")) {
		bpf_program__set_autoload(skel->progs.smoke_kprobe, true);
		bpf_program__set_autoload(skel->progs.smoke_kretprobe, true);
	} else {
		bpf_program__set_autoload(skel->progs.smoke_sys_enter, true);
	}
	if (smoke_bpf__load(skel)) {
		fprintf(stderr, "bpf_smoke: failed to load %s programs for '%s': %s\n",
			mode, func, strerror(errno));
		goto cleanup;
	}
	if (attach(skel, mode, func))
		goto cleanup;
	for (i = 0; i < n; i++)
		syscall(SYS_getpgid, 0);
	if (read_slot(skel, SMOKE_ENTRY, &entry) || read_slot(skel, SMOKE_EXIT, &exit_)) {
		fprintf(stderr, "bpf_smoke: cannot read counters\n");
		goto cleanup;
	}
	printf("entry=%llu exit=%llu\n", entry, exit_);
	err = 0;
cleanup:
	smoke_bpf__destroy(skel);
	return err;
}
