// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fentry-multi backend (7.x): one fentry program attached to many
 * functions in one link (BPF_TRACE_FENTRY_MULTI), and one fexit program
 * in a second for latency (_FEXIT_MULTI); a link per BTF object the
 * functions live in (tracing_multi.c). All or nothing, as kprobe-multi,
 * but through BPF trampolines (direct calls) instead of fprobe.
 */
#include <errno.h>
#include <bpf/libbpf.h>
#include "stacks.h"
#include "../lib/util.h"
#include "bpf_compat.h"
#include "bpfutil.h"
#include "tracing_multi.h"
#include "fentry_multi.skel.h"

BPF_SKEL_ADAPTERS(fentry_multi_bpf)

static const struct bpf_skel fmulti_skel = {
	BPF_SKEL_FNS(fentry_multi_bpf),
	.name = "fentry.multi",
	.progs = (const char *const[]){ "fmulti_entry", "fmulti_return", "fmulti_entry_count",
					NULL },
	.aim = "function",
	.what = "fentry.multi templates",
};

static struct fentry_multi_bpf *fmulti_load(struct tracerd *d, char *err, size_t errlen)
{
	void **skel = &d->be_state[TRACERD_MODE_FENTRY_MULTI];

	if (!tracing_multi_kernel(d->vmlinux_btf)) {
		set_err(err, errlen, -EOPNOTSUPP,
			"kernel without fentry.multi (BPF_TRACE_FENTRY_MULTI, "
			"Linux 7.x): no bpf_multi_func in its BTF");
		return NULL;
	}
	if (bpf_skel_load(d, &fmulti_skel, d->probe_fn, skel, err, errlen))
		return NULL;
	return *skel;
}

/*
 * An attach or a detach as a job (backend.h): an attach's runs made in the
 * loop (tracing_multi.h: the groups by BTF object, the count tier's
 * counters), their clones and links made by fmulti_job_run (on the
 * registry's worker thread for REGISTRY_JOB_MIN functions or more: attach
 * '*' is tens of thousands of functions; in place for fewer), applied by
 * fmulti_job_finish; a detach's links closed by fmulti_job_run.
 */
struct fmulti_job {
	/* an attach's: the return half first ([0], latency only): the kernel
	 * refuses fexit on a __noreturn function (tracing_multi.c skips it),
	 * and its entry must then not be linked either (its slot is freed with
	 * the skipped hook); then the entry half */
	struct tm_run *run[2];
	struct tmulti *links;	/* a detach's */
};

static void fmulti_job_run(void *job)
{
	struct fmulti_job *j = job;
	int i;

	if (j->links) {
		tmulti_close(j->links);
		j->links = NULL;
		return;
	}
	for (i = 0; i < 2; i++) {
		if (!j->run[i])
			continue;
		tmulti_run_exec(j->run[i]);
		if (tmulti_run_failed(j->run[i]))
			break;	/* the entry half is not linked either */
	}
}

static void fmulti_job_free(struct fmulti_job *j)
{
	tmulti_run_free(j->run[1]);	/* the entry half borrows the return half's links */
	tmulti_run_free(j->run[0]);
	tmulti_close(j->links);
	free(j);
}

/* a's attach job; NULL with a->hooks[0].err set (the error returned in *err) */
static struct fmulti_job *fmulti_attach_job(struct tracerd *d, struct attachment *a, int *err)
{
	char msg[HOOK_ERR_MAX] = "";
	struct fentry_multi_bpf *skel = fmulti_load(d, msg, sizeof(msg));
	struct fmulti_job *j;

	if (!skel) {
		*err = hook_err_msg(&a->hooks[0], -EOPNOTSUPP, msg);
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		*err = hook_err(&a->hooks[0], -ENOMEM, "out of memory");
		return NULL;
	}
	if (spec_returns(&a->spec)) {
		j->run[0] = tmulti_run_new(d, a, skel->obj, skel->progs.fmulti_return,
					   TRACERD_TRACE_FEXIT_MULTI, "fexit.multi", NULL, err);
		if (!j->run[0])
			goto fail;
	}
	/* the entry half's links join the return half's */
	j->run[1] = tmulti_run_new(d, a, skel->obj, skel->progs.fmulti_entry,
				   TRACERD_TRACE_FENTRY_MULTI, "fentry.multi", j->run[0], err);
	if (j->run[1])
		return j;
fail:
	fmulti_job_free(j);
	return NULL;
}

/* Apply an attach job that ran: attach's return (its runs freed, j too). */
static int fmulti_attach_finish(struct attachment *a, struct fmulti_job *j)
{
	int ret = tmulti_run_apply(a, j->run[0] ? j->run[0] : j->run[1]);

	if (j->run[0]) {
		j->run[0] = NULL;
		if (!ret)
			ret = tmulti_run_apply(a, j->run[1]);
		else
			tmulti_run_free(j->run[1]);
	}
	j->run[1] = NULL;
	fmulti_job_free(j);
	return ret;
}

static int fmulti_attach(struct tracerd *d, struct attachment *a)
{
	struct fmulti_job *j;
	int ret;

	j = fmulti_attach_job(d, a, &ret);
	if (!j)
		return ret;
	fmulti_job_run(j);
	return fmulti_attach_finish(a, j);
}

/* backend.h, job_prepare: the job of an attach, or of a detach (NULL: no
 * links, or out of memory: the detach closes them in the loop) */
static void *fmulti_job_prepare(struct tracerd *d, struct attachment *a, bool detach, int *err)
{
	struct fmulti_job *j;

	*err = 0;
	if (!detach)
		return fmulti_attach_job(d, a, err);
	j = calloc(1, sizeof(*j));
	if (j)
		j->links = tmulti_take_links(a);
	if (j && j->links)
		return j;
	free(j);
	return NULL;
}

static int fmulti_job_finish(struct tracerd *d, struct attachment *a, void *job)
{
	struct fmulti_job *j = job;

	(void)d;
	if (j->run[1])
		return fmulti_attach_finish(a, j);
	fmulti_job_free(j);	/* a detach's: its links closed; the counters go with a */
	return 0;
}

static int fmulti_misses(struct tracerd *d, struct attachment *a, struct hook *h,
			 __u64 *out, const char **why)
{
	*why = "fentry.multi misses are counted per program, shared by the functions of a link";
	return -ENODATA;
}

static void fmulti_fini(struct tracerd *d)
{
	bpf_skel_free(&fmulti_skel, &d->be_state[TRACERD_MODE_FENTRY_MULTI]);
}

/* A mode the kernel refuses keeps nothing open (fds are few: 85-limits). */
static int fmulti_probe(struct tracerd *d, char *reason, size_t len)
{
	struct fentry_multi_bpf *skel = fmulti_load(d, reason, len);
	int ret;

	if (!skel)
		return -EOPNOTSUPP;
	ret = tmulti_probe(d, skel->progs.fmulti_entry, TRACERD_TRACE_FENTRY_MULTI,
			   "fentry.multi", reason, len);
	if (ret)
		fmulti_fini(d);
	return ret;
}

const struct backend backend_fentry_multi = {
	.mode = TRACERD_MODE_FENTRY_MULTI,
	.stacks = bpf_stacks,
	.caps = BE_CAPS_BPF_FUNCTION | MODE_CAP_MULTI | MODE_CAP_DIRECT_CALL | MODE_CAP_NEEDS_BTF |
		MODE_CAP_ARGS_RET,
	.auto_why = {NULL,
		     "many functions: one fentry.multi link per BTF object attaches them all, "
		     "through trampolines (cheaper per call than kprobe.multi)"},
	.probe = fmulti_probe,
	.attach = fmulti_attach,
	.detach = tmulti_detach,
	.job_prepare = fmulti_job_prepare,
	.job_run = fmulti_job_run,
	.job_finish = fmulti_job_finish,
	.read = tmulti_read,
	.read_begin = tmulti_read_begin,
	.read_end = tmulti_read_end,
	.misses = fmulti_misses,
	.fini = fmulti_fini,
	.progs = tmulti_progs,
	.batch = BACKEND_BATCH_ALL, /* one link pair per BTF object */
	.count_tier = true,
	/* entry and exit programs and links, vmlinux and a module; the count
	 * tier's counters (which has no exit) */
	.fds = {{0, 0}, {9, 8}},
};
