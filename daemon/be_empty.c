// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Variant "empty" of the BPF function modes (fentry, kprobe, kprobe-int3,
 * kprobe-multi): the smallest program that still counts exactly
 * (bpf/bench.bpf.c: a tgid compare and a per-CPU increment), so `tracectl
 * bench trigger` can show the cost of a hook apart from tracerd's own
 * program body. Each hook loads its own copy, the attachment's pid in its
 * rodata, and counts into its own map; no slot maps, no latency, no comm.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../lib/modes.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpfutil.h"
#include "bench.skel.h"

/* hook->priv: the hook's own object and link */
struct empty_hook {
	struct bench_bpf *skel;
	struct bpf_link *link;
};

static void empty_hook_free(struct tracerd *d, struct attachment *a, struct hook *h)
{
	struct empty_hook *e = h->priv;

	if (e) {
		bpf_link__destroy(e->link);
		bench_bpf__destroy(e->skel);
		free(e);
	}
	h->priv = NULL;
	h->attached = false;
}

/* The program of the mode, the only one loaded. */
static struct bpf_program *empty_prog(struct bench_bpf *skel, enum tracerd_mode m)
{
	switch (m) {
	case TRACERD_MODE_FENTRY:
		return skel->progs.bench_fentry;
	case TRACERD_MODE_KPROBE_MULTI:
		return skel->progs.bench_kprobe_multi;
	default:
		return skel->progs.bench_kprobe;
	}
}

static struct bpf_link *empty_link(struct bpf_program *prog, enum tracerd_mode m,
				   const char *name)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, mopts, .syms = &name, .cnt = 1);
	LIBBPF_OPTS(bpf_kprobe_opts, kopts);
	struct bpf_link *l;

	switch (m) {
	case TRACERD_MODE_FENTRY:
		return bpf_program__attach_trace(prog);
	case TRACERD_MODE_KPROBE_MULTI:
		return bpf_program__attach_kprobe_multi_opts(prog, NULL, &mopts);
	case TRACERD_MODE_KPROBE_INT3:
		/* past the fentry call: +5, +9 behind ENDBR (the kernel says EILSEQ);
		 * riscv64: +8, past the auipc/jalr pair (be_kprobe.c) */
#ifdef __riscv
		kopts.offset = 8;
		return bpf_program__attach_kprobe_opts(prog, name, &kopts);
#endif
		kopts.offset = 5;
		l = bpf_program__attach_kprobe_opts(prog, name, &kopts);
		if (l || errno != EILSEQ)
			return l;
		kopts.offset = 9;
		return bpf_program__attach_kprobe_opts(prog, name, &kopts);
	default:
		return bpf_program__attach_kprobe_opts(prog, name, &kopts);
	}
}

static int empty_attach_hook(struct tracerd *d, struct attachment *a, struct hook *h)
{
	struct empty_hook *e = calloc(1, sizeof(*e));
	struct bpf_program *prog;
	char ebuf[96];
	int ret;

	if (!e)
		return hook_err(h, -ENOMEM, "out of memory");
	h->priv = e;
	if (!a->spec.tgid)	/* it counts one process: bench's */
		return hook_err(h, -EINVAL, "the empty program needs a pid");
	e->skel = bench_bpf__open();
	if (!e->skel) {
		ret = -errno;
		return hook_err(h, ret, "cannot open the bench BPF object: %s",
				errno_str(ret, ebuf, sizeof(ebuf)));
	}
	e->skel->rodata->bench_tgid = a->spec.tgid;
	prog = empty_prog(e->skel, a->mode);
	bpf_program__set_autoload(prog, true);
	if (a->mode == TRACERD_MODE_FENTRY &&
	    bpf_program__set_attach_target(prog, 0, h->name))
		return hook_err(h, -ENOENT, "no BTF function '%s'", h->name);
	ret = bench_bpf__load(e->skel);
	if (ret)
		return hook_err(h, ret,
				"failed to load the empty %s program: %s",
				tracerd_mode_name(a->mode), errno_str(ret, ebuf, sizeof(ebuf)));
	e->link = empty_link(prog, a->mode, h->name);
	if (!e->link) {
		ret = -errno;
		return hook_err(h, ret, "failed to attach the empty %s program "
				"to '%s': %s", tracerd_mode_name(a->mode), h->name,
				errno_str(ret, ebuf, sizeof(ebuf)));
	}
	return 0;
}

static int empty_attach(struct tracerd *d, struct attachment *a)
{
	return hooks_attach(d, a, empty_attach_hook, empty_hook_free);
}

static void empty_detach(struct tracerd *d, struct attachment *a)
{
	size_t i;

	for (i = 0; i < a->nr_hooks; i++)
		empty_hook_free(d, a, &a->hooks[i]);
}

/* The hook's count: its per-CPU counter summed. */
static int empty_read(struct tracerd *d, struct attachment *a, struct hook *h,
		      struct tracerd_slot_stats *s)
{
	struct empty_hook *e = h->priv;
	int n = libbpf_num_possible_cpus();
	__u32 key = 0;

	memset(s, 0, sizeof(*s));
	if (!e || !e->skel)
		return -ENOENT;
	if (n <= 0)
		return n ? n : -EINVAL;
	__u64 v[n];

	if (bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.bench_hits), &key, v))
		return -errno;
	while (n--)
		s->calls += v[n];
	return 0;
}

#define EMPTY_BACKEND(var, m, caps_)		\
	const struct backend var = {		\
		.mode = m,			\
		.caps = MODE_CAP_FUNCTION | MODE_CAP_PID | (caps_), \
		.attach = empty_attach,		\
		.detach = empty_detach,		\
		.read = empty_read,		\
		/* a skeleton per hook: program, maps, BTF, link */ \
		.fds = { { 6, 6 }, { 0, 0 } },	\
	}

EMPTY_BACKEND(backend_fentry_empty, TRACERD_MODE_FENTRY, MODE_CAP_NEEDS_BTF);
EMPTY_BACKEND(backend_kprobe_empty, TRACERD_MODE_KPROBE, 0);
EMPTY_BACKEND(backend_kprobe_int3_empty, TRACERD_MODE_KPROBE_INT3, 0);
EMPTY_BACKEND(backend_kprobe_multi_empty, TRACERD_MODE_KPROBE_MULTI, 0);
