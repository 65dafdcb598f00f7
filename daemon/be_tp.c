// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tp-btf backend: tracepoints through BPF tp_btf (BTF-typed raw
 * tracepoint), falling back to a plain raw_tp program when the kernel has
 * no btf_trace_ type for the tracepoint or refuses tp_btf, and to a
 * classic tracepoint program (a perf event of the tracefs id, linked with
 * BPF_PERF_EVENT) for events that are no raw tracepoint of their own: the
 * syscalls category (sys_enter_NAME is an ftrace event over the one
 * sys_enter raw tracepoint). A fallback, not a mode of its own: the
 * target (tp:CAT/NAME), the options and what is counted are the same,
 * only the kernel path differs, and it shows as the hook's "via".
 * tp:syscalls/sys_enter_NAME with latency is hooked classic at both ends:
 * sys_enter_NAME enters, sys_exit_NAME returns (lib/spec.h).
 * Each hook is a clone of a template program with its slot patched in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "stacks.h"
#include "../lib/log.h"
#include "../lib/spec.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpfutil.h"
#include "tracefs.h"
#include "tp.skel.h"

#define TP_PROBE_TARGET "task_rename"

struct tp_state {
	void *btf_skel;		/* struct tp_bpf, tp_btf_hit loaded */
	void *raw_skel;		/* struct tp_bpf, raw_tp_hit loaded */
	void *classic_skel;	/* struct tp_bpf, tp_classic_hit/return loaded */
	bool btf_refused;	/* the probe's tp_btf failed: raw_tp only */
};

BPF_SKEL_ADAPTERS(tp_bpf)

static const struct bpf_skel tp_btf_skel = {
	BPF_SKEL_FNS(tp_bpf),
	BPF_SKEL_NOBTF(tp_bpf),
	.name = "tp",
	.progs = (const char *const[]){ "tp_btf_hit", NULL },
	.aim = "tracepoint",
	.what = "tp_btf program",
};

static const struct bpf_skel tp_raw_skel = {
	BPF_SKEL_FNS(tp_bpf),
	BPF_SKEL_NOBTF(tp_bpf),
	.name = "tp",
	.progs = (const char *const[]){ "raw_tp_hit", NULL },
	.what = "raw_tp program",
};

static const struct bpf_skel tp_classic_skel = {
	BPF_SKEL_FNS(tp_bpf),
	BPF_SKEL_NOBTF(tp_bpf),
	.name = "tp",
	.progs = (const char *const[]){ "tp_classic_hit", "tp_classic_return", NULL },
	.what = "tracepoint program",
};

static struct tp_state *tp_state(struct tracerd *d)
{
	if (!d->be_state[TRACERD_MODE_TP_BTF])
		d->be_state[TRACERD_MODE_TP_BTF] = calloc(1, sizeof(struct tp_state));
	return d->be_state[TRACERD_MODE_TP_BTF];
}

/* Load the template: tp_btf (against target) or raw_tp. */
static int tp_load(struct tracerd *d, bool btf, const char *target, char *err, size_t errlen)
{
	struct tp_state *st = tp_state(d);

	if (!st)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	return btf ? bpf_skel_load(d, &tp_btf_skel, target, &st->btf_skel, err, errlen) :
		     bpf_skel_load(d, &tp_raw_skel, target, &st->raw_skel, err, errlen);
}

static int tp_attach_one(struct tracerd *d, struct attachment *a, struct hook *h, bool btf,
			 char *err, size_t errlen)
{
	struct tp_state *st = tp_state(d);
	struct bpf_hook *b = bpf_hook(h);
	struct bpf_program *tmpl;
	struct tp_bpf *skel;
	char ebuf[96];
	int ret, fd;

	ret = tp_load(d, btf, h->name, err, errlen);
	if (ret)
		return ret;
	skel = btf ? st->btf_skel : st->raw_skel;
	tmpl = btf ? skel->progs.tp_btf_hit : skel->progs.raw_tp_hit;
	fd = bpf_clone_hook(tmpl, h->slot, &a->spec, btf ? (__u32)h->btf_id : 0, 0, err, errlen);
	if (fd < 0)
		return fd;
	b->prog_fd[0] = fd;
	fd = bpf_raw_tracepoint_open(btf ? NULL : h->name, fd);
	if (fd < 0) {
		ret = -errno;
		close(b->prog_fd[0]);
		b->prog_fd[0] = -1;
		return set_err(err, errlen, ret, "failed to attach %s to tracepoint '%s': %s",
			       btf ? "tp_btf" : "raw_tp", h->name,
			       errno_str(ret, ebuf, sizeof(ebuf)));
	}
	b->link_fd[0] = fd;
	b->via_raw_tp = !btf;
	return 0;
}

/* A BPF_PERF_EVENT link of prog_fd to the tracefs event CAT/NAME: the link fd or -errno. */
static int perf_tp_link(int prog_fd, const char *cat, const char *name, char *err, size_t errlen)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
		.wakeup_events = 1,
	};
	char ebuf[96];
	int id, pfd, fd, ret;

	id = tracefs_event_id(cat, name, err, errlen);
	if (id < 0)
		return id;
	attr.config = (__u64)id;
	/* one event (cpu 0) is enough: the program runs wherever the tracepoint fires */
	pfd = (int)syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		ret = -errno;
		return set_err(err, errlen, ret, "perf_event_open of tracepoint %s/%s (id %d): %s",
			       cat, name, id, errno_str(ret, ebuf, sizeof(ebuf)));
	}
	fd = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, NULL);
	ret = fd < 0 ? -errno : 0;
	close(pfd);	/* the link holds the event */
	if (ret)
		return set_err(err, errlen, ret, "failed to link a tracepoint program to %s/%s: %s",
			       cat, name, errno_str(ret, ebuf, sizeof(ebuf)));
	return fd;
}

/* Clone tmpl for h's slot and link it to CAT/NAME into b->prog_fd[i], link_fd[i]. */
static int classic_one(struct attachment *a, struct hook *h, struct bpf_program *tmpl, int i,
		       const char *cat, const char *name, char *err, size_t errlen)
{
	struct bpf_hook *b = bpf_hook(h);
	int fd;

	fd = bpf_clone_hook(tmpl, h->slot, &a->spec, 0, 0, err, errlen);
	if (fd < 0)
		return fd;
	b->prog_fd[i] = fd;
	fd = perf_tp_link(fd, cat, name, err, errlen);
	if (fd < 0) {
		close(b->prog_fd[i]);
		b->prog_fd[i] = -1;
		return fd;
	}
	b->link_fd[i] = fd;
	return 0;
}

/* The classic path: h at tracefs event CAT/NAME; a syscall pair timed at sys_exit_NAME too. */
static int tp_attach_classic(struct tracerd *d, struct attachment *a, struct hook *h,
			     char *err, size_t errlen)
{
	const char *target = a->spec.target, *slash = strchr(target, '/');
	struct tp_state *st = tp_state(d);
	char cat[128], exit_name[sizeof(a->spec.target) + 8];
	struct tp_bpf *skel;
	int ret;

	ret = bpf_skel_load(d, &tp_classic_skel, NULL, &st->classic_skel, err, errlen);
	if (ret)
		return ret;
	skel = st->classic_skel;
	snprintf(cat, sizeof(cat), "%.*s", (int)(slash - target - 3), target + 3);
	ret = classic_one(a, h, skel->progs.tp_classic_hit, 0, cat, h->name, err, errlen);
	if (ret || !a->spec.latency)
		goto out;
	/* sys_enter_NAME -> sys_exit_NAME (spec_check_kind: latency only for those) */
	snprintf(exit_name, sizeof(exit_name), SPEC_SYSCALL_EXIT "%s",
		 h->name + strlen("sys_enter_"));
	ret = classic_one(a, h, skel->progs.tp_classic_return, 1, cat, exit_name, err, errlen);
out:
	bpf_hook(h)->via_perf = !ret;
	return ret;
}

/*
 * tp_btf when the tracepoint has a btf_trace_ type and tp_btf works, else
 * raw_tp, else a classic tracepoint; a timed syscall pair is classic only.
 * The first path's error is the one reported when none works.
 */
static int tp_attach_hook(struct tracerd *d, struct attachment *a, struct hook *h)
{
	char err[HOOK_ERR_MAX] = "", err2[HOOK_ERR_MAX];
	const char *via = NULL;
	int ret = -ENOENT;

	if (!bpf_hook_new(h))
		return hook_err(h, -ENOMEM, "out of memory");
	if (!a->spec.latency && h->btf_id > 0 && !tp_state(d)->btf_refused)
		ret = tp_attach_one(d, a, h, true, err, sizeof(err));
	if (ret && !a->spec.latency && d->raw_tp.available) {
		ret = tp_attach_one(d, a, h, false, err2, sizeof(err2));
		via = "raw_tp";
		if (ret && !err[0])
			strcpy(err, err2);
	}
	/* a classic tracepoint's record is not the tracepoint's arguments */
	if (ret && (a->spec.args || a->spec.cond[0]))
		return hook_err_msg(h, ret, err);
	if (ret) {
		ret = tp_attach_classic(d, a, h, err2, sizeof(err2));
		via = "a classic tracepoint (perf event)";
		if (ret && (!err[0] || a->spec.latency))
			strcpy(err, err2);
	}
	if (!ret && via)
		log_info("tracepoint '%s': using %s (%s)", h->name, via,
			 err[0] ? err : "no btf_trace_ type");
	if (ret && !err[0])
		str_fmt(err, sizeof(err), "neither tp_btf, raw_tp nor a classic tracepoint "
			"could attach");
	return hook_err_msg(h, ret, err);
}

/* no hook at all is -ENOENT, as if none had attached */
static int tp_attach(struct tracerd *d, struct attachment *a)
{
	int ret = bpf_hooks_attach(d, a, tp_attach_hook);

	return a->nr_hooks ? ret : -ENOENT;
}

static int tp_misses(struct tracerd *d, struct attachment *a, struct hook *h,
		     __u64 *out, const char **why)
{
	if (hook_prog_misses(h, out) <= 0) {
		*why = "program not loaded";
		return -ENODATA;
	}
	return 0;
}

/* Really load and attach (then detach) a tp_btf program. */
static int tp_probe_btf(struct tracerd *d, char *reason, size_t len)
{
	struct tp_bpf *skel;
	int ret;

	ret = tp_load(d, true, TP_PROBE_TARGET, reason, len);
	if (ret)
		return ret;
	skel = tp_state(d)->btf_skel;
	return bpf_probe_link(bpf_program__attach(skel->progs.tp_btf_hit), "tracepoint ",
			      TP_PROBE_TARGET, reason, len);
}

/*
 * Probe tp_btf and raw_tp separately. The mode is available when either
 * works: tp_btf refused (no BTF, or a limit hit while loading it) leaves
 * raw_tp for every tracepoint, and the reason stays as the note why.
 */
static int tp_probe(struct tracerd *d, char *reason, size_t len)
{
	struct tp_bpf *skel;
	int ret;

	if (!tp_state(d))
		return set_err(reason, len, -ENOMEM, "out of memory");
	ret = tp_load(d, false, TP_PROBE_TARGET, d->raw_tp.reason, sizeof(d->raw_tp.reason));
	if (!ret) {
		skel = tp_state(d)->raw_skel;
		ret = bpf_probe_link(bpf_program__attach_raw_tracepoint(skel->progs.raw_tp_hit,
									TP_PROBE_TARGET),
				     "tracepoint ", TP_PROBE_TARGET, d->raw_tp.reason,
				     sizeof(d->raw_tp.reason));
	}
	d->raw_tp.available = !ret;
	if (!ret)
		d->raw_tp.reason[0] = '\0';

	ret = tp_probe_btf(d, reason, len);
	tp_state(d)->btf_refused = ret != 0;
	if (!ret || !d->raw_tp.available)
		return ret;
	log_notice("tp-btf: tp_btf refused (%s): tracepoints attach through raw_tp", reason);
	return 0;
}

static const char *tp_path(const struct hook *h)
{
	if (bpf_hook(h) && bpf_hook(h)->via_perf)
		return "tracepoint";
	return bpf_hook(h) && bpf_hook(h)->via_raw_tp ? "raw_tp" : "tp_btf";
}

static void tp_fini(struct tracerd *d)
{
	struct tp_state *st = d->be_state[TRACERD_MODE_TP_BTF];

	if (!st)
		return;
	bpf_skel_free(&tp_btf_skel, &st->btf_skel);
	bpf_skel_free(&tp_raw_skel, &st->raw_skel);
	bpf_skel_free(&tp_classic_skel, &st->classic_skel);
	free(st);
	d->be_state[TRACERD_MODE_TP_BTF] = NULL;
}

const struct backend backend_tp = {
	.mode = TRACERD_MODE_TP_BTF,
	.stacks = bpf_stacks,
	/* latency: tp:syscalls/sys_enter_NAME pairs only (lib/spec.c) */
	.caps = MODE_CAP_TRACEPOINT | MODE_CAP_COMM | MODE_CAP_PID | MODE_CAP_RECORD |
		MODE_CAP_LATENCY | MODE_CAP_BY | MODE_CAP_STACKS | MODE_CAP_SLOW | MODE_CAP_ARGS,
	.auto_why = { "tracepoints are hooked by tp_btf (raw_tp, classic fallbacks)",
		      "tracepoints are hooked by tp_btf (raw_tp, classic fallbacks)" },
	.probe = tp_probe,
	.attach = tp_attach,
	.detach = bpf_hooks_detach,
	.progs = bpf_hooks_progs,
	.misses = tp_misses,
	.path = tp_path,
	.fini = tp_fini,
	.fds = { { 2, 2 }, { 0, 0 } },	/* a program and its link */
};
