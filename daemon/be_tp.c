// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tp-btf backend: tracepoints through BPF tp_btf (BTF-typed raw
 * tracepoint), falling back to a plain raw_tp program when the kernel has
 * no btf_trace_ type for the tracepoint or refuses tp_btf. Each hook is a
 * clone of a template program with its slot patched in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include "backend.h"
#include "tp.skel.h"

#define TP_PROBE_TARGET "task_rename"

struct tp_state {
	struct tp_bpf *btf_skel;	/* tp_btf_hit loaded */
	struct tp_bpf *raw_skel;	/* raw_tp_hit loaded */
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
	struct tp_bpf **pskel, *skel;
	struct bpf_program *prog;
	char ebuf[96];
	int ret;

	if (!st)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	pskel = btf ? &st->btf_skel : &st->raw_skel;
	if (*pskel)
		return 0;
	skel = tp_bpf__open();
	if (!skel) {
		ret = -errno;
		return set_err(err, errlen, ret, "failed to open tp BPF object: %s",
			       errno_str(ret, ebuf, sizeof(ebuf)));
	}
	prog = btf ? skel->progs.tp_btf_hit : skel->progs.raw_tp_hit;
	bpf_program__set_autoload(prog, true);
	if (btf) {
		ret = bpf_program__set_attach_target(prog, 0, target);
		if (ret) {
			set_err(err, errlen, ret, "no BTF for tracepoint '%s': %s", target,
				errno_str(ret, ebuf, sizeof(ebuf)));
			goto cleanup;
		}
	}
	ret = maps_reuse(d, skel->obj);
	if (ret) {
		set_err(err, errlen, ret, "failed to share maps: %s", errno_str(ret, ebuf, sizeof(ebuf)));
		goto cleanup;
	}
	ret = tp_bpf__load(skel);
	if (ret) {
		set_err(err, errlen, ret, "failed to load %s program for '%s': %s",
			btf ? "tp_btf" : "raw_tp", target, errno_str(ret, ebuf, sizeof(ebuf)));
		goto cleanup;
	}
	*pskel = skel;
	return 0;
cleanup:
	tp_bpf__destroy(skel);
	return ret;
}

static int tp_attach_one(struct tracerd *d, struct hook *h, bool btf, char *err, size_t errlen)
{
	struct tp_state *st = tp_state(d);
	struct bpf_program *tmpl;
	char ebuf[96];
	int ret, fd;

	ret = tp_load(d, btf, h->name, err, errlen);
	if (ret)
		return ret;
	tmpl = btf ? st->btf_skel->progs.tp_btf_hit : st->raw_skel->progs.raw_tp_hit;
	fd = bpf_clone_prog(tmpl, h->slot, btf ? (__u32)h->btf_id : 0, h->btf_obj_fd, err, errlen);
	if (fd < 0)
		return fd;
	h->prog_fd[0] = fd;
	fd = bpf_raw_tracepoint_open(btf ? NULL : h->name, fd);
	if (fd < 0) {
		ret = -errno;
		close(h->prog_fd[0]);
		h->prog_fd[0] = -1;
		return set_err(err, errlen, ret, "failed to attach %s to tracepoint '%s': %s",
			       btf ? "tp_btf" : "raw_tp", h->name, errno_str(ret, ebuf, sizeof(ebuf)));
	}
	h->link_fd[0] = fd;
	h->via_raw_tp = !btf;
	h->attached = true;
	return 0;
}

static int tp_attach(struct tracerd *d, struct attachment *a)
{
	int first = 0, ret, n = 0;
	char err2[sizeof(a->hooks[0].err)];
	size_t i;

	for (i = 0; i < a->nr_hooks; i++) {
		struct hook *h = &a->hooks[i];

		ret = -ENOENT;
		h->err[0] = '\0';
		if (h->btf_id > 0 && d->features[TRACERD_MODE_TP_BTF].available)
			ret = tp_attach_one(d, h, true, h->err, sizeof(h->err));
		if (ret && d->raw_tp.available) {
			ret = tp_attach_one(d, h, false, err2, sizeof(err2));
			if (ret && !h->err[0])
				strcpy(h->err, err2);
			else if (!ret) {
				log_info("tracepoint '%s': using raw_tp (%s)", h->name,
					 h->err[0] ? h->err : "no btf_trace_ type");
				h->err[0] = '\0';
			}
		}
		if (ret && !h->err[0])
			set_err(h->err, sizeof(h->err), ret, "neither tp_btf nor raw_tp available");
		if (ret && !first)
			first = ret;
		n += !ret;
	}
	return n ? 0 : (first ? first : -ENOENT);
}

static void tp_detach(struct tracerd *d, struct attachment *a)
{
	size_t i;

	for (i = 0; i < a->nr_hooks; i++)
		hook_close_fds(&a->hooks[i]);
}

static int tp_misses(struct tracerd *d, struct attachment *a, struct hook *h,
		     __u64 *out, const char **why)
{
	if (h->prog_fd[0] < 0 || bpf_prog_misses(h->prog_fd[0], out)) {
		*why = "program not loaded";
		return -ENODATA;
	}
	return 0;
}

/* Probe tp_btf and raw_tp separately: load and really attach, then detach. */
static int tp_probe(struct tracerd *d, char *reason, size_t len)
{
	struct tp_state *st;
	struct bpf_link *l;
	char ebuf[96];
	int ret;

	ret = tp_load(d, false, TP_PROBE_TARGET, d->raw_tp.reason, sizeof(d->raw_tp.reason));
	if (!ret) {
		st = tp_state(d);
		l = bpf_program__attach_raw_tracepoint(st->raw_skel->progs.raw_tp_hit, TP_PROBE_TARGET);
		if (!l) {
			ret = -errno;
			set_err(d->raw_tp.reason, sizeof(d->raw_tp.reason), ret,
				"attach to tracepoint '%s' refused: %s", TP_PROBE_TARGET,
				errno_str(ret, ebuf, sizeof(ebuf)));
		}
		bpf_link__destroy(l);
	}
	d->raw_tp.available = !ret;
	if (!ret)
		d->raw_tp.reason[0] = '\0';

	ret = tp_load(d, true, TP_PROBE_TARGET, reason, len);
	if (ret)
		return ret;
	st = tp_state(d);
	l = bpf_program__attach(st->btf_skel->progs.tp_btf_hit);
	if (!l) {
		ret = -errno;
		return set_err(reason, len, ret, "attach to tracepoint '%s' refused: %s",
			       TP_PROBE_TARGET, errno_str(ret, ebuf, sizeof(ebuf)));
	}
	bpf_link__destroy(l);
	return 0;
}

static void tp_fini(struct tracerd *d)
{
	struct tp_state *st = d->be_state[TRACERD_MODE_TP_BTF];

	if (!st)
		return;
	tp_bpf__destroy(st->btf_skel);
	tp_bpf__destroy(st->raw_skel);
	free(st);
	d->be_state[TRACERD_MODE_TP_BTF] = NULL;
}

const struct backend backend_tp = {
	.mode = TRACERD_MODE_TP_BTF,
	.probe = tp_probe,
	.attach = tp_attach,
	.detach = tp_detach,
	.misses = tp_misses,
	.fini = tp_fini,
};
