// SPDX-License-Identifier: GPL-2.0-or-later
/* Tracing-multi attachments: see tracing_multi.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpf_compat.h"
#include "resolve.h"
#include "tracing_multi.h"

/* a->priv: a program clone and its link per BTF object and attach type */
struct tmulti {
	size_t n, cap;
	int (*fd)[2];		/* prog, link */
};

static int tmulti_push(struct tmulti *t, int prog, int link)
{
	void *p;

	if (t->n == t->cap) {
		p = realloc(t->fd, (t->cap + 4) * sizeof(*t->fd));
		if (!p)
			return -ENOMEM;
		t->fd = p;
		t->cap += 4;
	}
	t->fd[t->n][0] = prog;
	t->fd[t->n][1] = link;
	t->n++;
	return 0;
}

/*
 * One clone + link of tmpl over ids[0..n) of the BTF object btf_fd, spec's
 * flags and filters baked in (every function of an attachment shares them;
 * the cookie says the slot): no slot_cfg lookup per call, and entry times
 * in task storage, not an LRU hash update and delete per call.
 */
static int tmulti_link(struct tmulti *t, const struct bpf_program *tmpl, unsigned int type,
		       const struct tracerd_spec *spec, int btf_fd, const __u32 *ids,
		       const __u64 *cookies, size_t n, const char *what, const char *first,
		       char *err, size_t errlen)
{
	int prog, link, ret;
	char ebuf[96];

	prog = bpf_clone_prog_as(tmpl, type, TRACERD_SLOT_COOKIE, spec, 0, btf_fd, err, errlen);
	if (prog < 0)
		return prog;
	link = tracing_multi_link(prog, type, ids, cookies, (__u32)n);
	if (link < 0) {
		close(prog);
		return set_err(err, errlen, link,
			       "failed to attach %s to %zu function%s ('%s'...): %s", what, n,
			       n == 1 ? "" : "s", first, errno_str(link, ebuf, sizeof(ebuf)));
	}
	ret = tmulti_push(t, prog, link);
	if (ret) {
		close(link);
		close(prog);
		return set_err(err, errlen, ret, "out of memory");
	}
	return 0;
}

/*
 * Link the functions idx[0..n) (ids, cookies alike) in one link or, when the
 * kernel refuses the set with EINVAL or EBUSY, each half on its own: fexit
 * and fsession refuse a __noreturn function (__x64_sys_exit) and take the
 * whole link down with it. A function refused alone keeps the kernel's
 * error (its hook is skipped). Returns how many functions are linked, or
 * -errno when none is (err says why).
 */
static long tmulti_split(struct attachment *a, const struct bpf_program *tmpl, unsigned int type,
			 int btf_fd, __u32 *ids, __u64 *cookies, const size_t *idx, size_t n,
			 const char *what, char *err, size_t errlen)
{
	struct hook *h = &a->hooks[idx[0]];
	long lo, hi;
	int ret;

	ret = tmulti_link(a->priv, tmpl, type, &a->spec, btf_fd, ids, cookies, n, what, h->name,
			  err, errlen);
	if (!ret)
		return (long)n;
	if (n == 1 || (ret != -EINVAL && ret != -EBUSY)) {
		if (n == 1)
			hook_err(h, ret, "%s", err);
		return ret;
	}
	lo = tmulti_split(a, tmpl, type, btf_fd, ids, cookies, idx, n / 2, what, err, errlen);
	hi = tmulti_split(a, tmpl, type, btf_fd, ids + n / 2, cookies + n / 2, idx + n / 2,
			  n - n / 2, what, err, errlen);
	if (lo < 0 && hi < 0)
		return hi;
	return (lo > 0 ? lo : 0) + (hi > 0 ? hi : 0);
}

/* Link the not yet done hooks of the module of hook first: how many linked, or -errno. */
static long tmulti_group(struct tracerd *d, struct attachment *a, size_t first, bool *done,
			 __u32 *ids, __u64 *cookies, size_t *idx, const struct bpf_program *tmpl,
			 unsigned int type, const char *what, char *err, size_t errlen)
{
	const char *mod = a->hooks[first].module;
	size_t i, n = 0;
	int btf_fd;

	for (i = first; i < a->nr_hooks; i++) {
		if (done[i] || a->hooks[i].err || strcmp(a->hooks[i].module, mod))
			continue;
		ids[n] = (__u32)a->hooks[i].btf_id;
		cookies[n] = a->hooks[i].slot;
		idx[n++] = i;
		done[i] = true;
	}
	btf_fd = resolve_module_btf_fd(d, mod);
	if (btf_fd < 0)
		return set_err(err, errlen, btf_fd, "no BTF for module '%s' of '%s'", mod,
			       a->hooks[first].name);
	return tmulti_split(a, tmpl, type, btf_fd, ids, cookies, idx, n, what, err, errlen);
}

int tmulti_attach(struct tracerd *d, struct attachment *a, const struct bpf_program *tmpl,
		  unsigned int attach_type, const char *what)
{
	bool *done = calloc(a->nr_hooks, sizeof(*done));
	__u32 *ids = calloc(a->nr_hooks, sizeof(*ids));
	__u64 *cookies = calloc(a->nr_hooks, sizeof(*cookies));
	size_t *idx = calloc(a->nr_hooks, sizeof(*idx));
	char err[HOOK_ERR_MAX] = "";
	size_t i, linked = 0;
	long got;
	int ret = -ENOENT;

	if (!a->priv)
		a->priv = calloc(1, sizeof(struct tmulti));
	if (!done || !ids || !cookies || !idx || !a->priv) {
		ret = hook_err(&a->hooks[0], -ENOMEM, "out of memory");
		goto cleanup;
	}
	for (i = 0; i < a->nr_hooks; i++) {
		if (done[i] || a->hooks[i].err)
			continue;
		got = tmulti_group(d, a, i, done, ids, cookies, idx, tmpl, attach_type, what, err,
				   sizeof(err));
		if (got > 0) {
			linked += (size_t)got;
			continue;
		}
		ret = (int)got;
		if (ret != -EINVAL && ret != -EBUSY)
			break;	/* not one function's fault: the attachment fails */
	}
	if (linked && i == a->nr_hooks) {
		for (i = 0; i < a->nr_hooks; i++)
			a->hooks[i].attached = !a->hooks[i].err;
		ret = 0;
	} else if (!a->hooks[0].err) {
		hook_err(&a->hooks[0], ret, "%s", err[0] ? err : strerror(-ret));
	}
cleanup:
	free(done);
	free(ids);
	free(cookies);
	free(idx);
	return ret;
}

void tmulti_detach(struct tracerd *d, struct attachment *a)
{
	struct tmulti *t = a->priv;
	size_t i;

	for (i = 0; t && i < t->n; i++) {
		close(t->fd[i][1]);
		close(t->fd[i][0]);
	}
	if (t)
		free(t->fd);
	free(t);
	a->priv = NULL;
	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].attached = false;
}

int tmulti_progs(struct tracerd *d, struct attachment *a, int (*fn)(int prog_fd, void *ctx),
		 void *ctx)
{
	const struct tmulti *t = a->priv;
	int ret, sum = 0;
	size_t i;

	for (i = 0; t && i < t->n; i++) {
		ret = fn(t->fd[i][0], ctx);
		if (ret < 0)
			return ret;
		sum += ret;
	}
	return sum;
}

int tmulti_probe(struct tracerd *d, const struct bpf_program *tmpl, unsigned int attach_type,
		 const char *what, char *reason, size_t len)
{
	__u64 cookie = TRACERD_MAX_SLOTS;	/* out of range: does nothing */
	struct tmulti t = {};
	__u32 id;
	int ret;

	ret = d->vmlinux_btf ? btf__find_by_name_kind(d->vmlinux_btf, d->probe_fn, BTF_KIND_FUNC)
			     : -ENOENT;
	if (ret < 0)
		return set_err(reason, len, ret, "no BTF for '%s'", d->probe_fn);
	id = (__u32)ret;
	ret = tmulti_link(&t, tmpl, attach_type, NULL, 0, &id, &cookie, 1, what, d->probe_fn,
			  reason, len);
	if (!ret) {
		close(t.fd[0][1]);
		close(t.fd[0][0]);
	}
	free(t.fd);
	return ret;
}
