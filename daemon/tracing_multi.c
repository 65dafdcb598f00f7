// SPDX-License-Identifier: GPL-2.0-or-later
/* Tracing-multi attachments: see tracing_multi.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpf_compat.h"
#include "bpfutil.h"
#include "btfargs.h"
#include "resolve.h"
#include "tracing_multi.h"

/* a->priv: a program clone and its link per BTF object and attach type;
 * a count-tier attachment's counters (counts.fd -1: it has slots) */
struct tmulti {
	size_t n, cap;
	int (*fd)[2];		/* prog, link */
	struct bpf_counts counts;
};

static struct tmulti *tmulti_new(void)
{
	struct tmulti *t = calloc(1, sizeof(*t));

	if (t)
		t->counts.fd = -1;
	return t;
}

/* Close t's links, clones and counters, and free it (NULL-safe). */
static void tmulti_free(struct tmulti *t)
{
	size_t i;

	for (i = 0; t && i < t->n; i++) {
		close(t->fd[i][1]);
		close(t->fd[i][0]);
	}
	if (t) {
		bpf_counts_close(&t->counts);
		free(t->fd);
	}
	free(t);
}

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

/* One BTF object's functions of an attachment: what one link takes (or its halves). */
struct tm_group {
	int btf_fd;		/* a dup of the object's (0: vmlinux), closed with the run */
	__u32 *ids;
	__u64 *cookies;
	size_t *idx;		/* the hooks' indexes */
	size_t n;
};

/* A function the kernel refused on its own: its hook's error. */
struct tm_fail {
	size_t idx;
	int err;
	char *msg;
};

/*
 * One program linked over an attachment's functions (tmulti_run_new): the
 * groups made in the loop, then the clones and links (tmulti_run_exec: in
 * the loop, or on the worker thread, touching nothing but the run and the
 * hooks' names), then applied to the attachment (tmulti_run_apply).
 */
struct tm_run {
	const struct bpf_program *tmpl;
	unsigned int type;
	const char *what;
	struct tracerd_spec spec;
	bool has_spec;		/* else no filter baked in (tmulti_probe) */
	int stats_fd;		/* the count tier's: the template's slot_stats */
	const struct hook *hooks;	/* names only */
	struct tm_group *g;
	size_t ng;
	struct tmulti *t;	/* the links made; the attachment's once applied */
	bool own_t;		/* t made by this run (freed with it unless applied) */
	struct tm_fail *fails;
	size_t nfails, capfails;
	size_t linked;
	int err;		/* a failure not of one function: the attach fails */
	char msg[HOOK_ERR_MAX];
};

/*
 * One clone + link of run's template over ids[0..n) of the BTF object
 * btf_fd, spec's flags and filters baked in (every function of an
 * attachment shares them; the cookie says the slot, or in the count tier
 * the function's index in run->t->counts): no slot_cfg lookup per call,
 * and entry times in task storage, not an LRU hash update and delete per
 * call.
 */
static int tmulti_link(struct tm_run *r, int btf_fd, const __u32 *ids, const __u64 *cookies,
		       size_t n, const char *first, char *err, size_t errlen)
{
	struct tmulti *t = r->t;
	int prog, link, ret;
	char ebuf[96];

	if (t->counts.fd >= 0)
		prog = bpf_clone_count(r->tmpl, r->type, &r->spec, r->stats_fd, t->counts.fd,
				       btf_fd, err, errlen);
	else
		prog = bpf_clone_prog_as(r->tmpl, r->type, TRACERD_SLOT_COOKIE,
					 r->has_spec ? &r->spec : NULL, 0, btf_fd, err, errlen);
	if (prog < 0)
		return prog;
	link = tracing_multi_link(prog, r->type, ids, cookies, (__u32)n);
	if (link < 0) {
		close(prog);
		return set_err(err, errlen, link,
			       "failed to attach %s to %zu function%s ('%s'...): %s", r->what, n,
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

static void tmulti_fail(struct tm_run *r, size_t idx, int err, const char *msg)
{
	struct tm_fail *f = r->fails;

	if (r->nfails == r->capfails) {
		f = realloc(r->fails, (r->capfails + 8) * sizeof(*f));
		if (!f)
			return;	/* the hook stays unattached, without its reason */
		r->fails = f;
		r->capfails += 8;
	}
	r->fails[r->nfails++] = (struct tm_fail){ idx, err, strdup(msg) };
}

/*
 * Link the functions idx[0..n) (ids, cookies alike) in one link or, when the
 * kernel refuses the set with EINVAL or EBUSY, each half on its own: fexit
 * and fsession refuse a __noreturn function (__x64_sys_exit) and take the
 * whole link down with it. A function refused alone keeps the kernel's
 * error (tmulti_fail). Returns how many functions are linked, or -errno
 * when none is (err says why).
 */
static long tmulti_split(struct tm_run *r, int btf_fd, const __u32 *ids, const __u64 *cookies,
			 const size_t *idx, size_t n, char *err, size_t errlen)
{
	long lo, hi;
	int ret;

	ret = tmulti_link(r, btf_fd, ids, cookies, n, r->hooks[idx[0]].name, err, errlen);
	if (!ret)
		return (long)n;
	if (n == 1 || (ret != -EINVAL && ret != -EBUSY)) {
		if (n == 1)
			tmulti_fail(r, idx[0], ret, err);
		return ret;
	}
	lo = tmulti_split(r, btf_fd, ids, cookies, idx, n / 2, err, errlen);
	hi = tmulti_split(r, btf_fd, ids + n / 2, cookies + n / 2, idx + n / 2, n - n / 2, err,
			  errlen);
	if (lo < 0 && hi < 0)
		return hi;
	return (lo > 0 ? lo : 0) + (hi > 0 ? hi : 0);
}

void tmulti_run_free(struct tm_run *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->ng; i++) {
		if (r->g[i].btf_fd > 0)
			close(r->g[i].btf_fd);
		free(r->g[i].ids);
		free(r->g[i].cookies);
		free(r->g[i].idx);
	}
	for (i = 0; i < r->nfails; i++)
		free(r->fails[i].msg);
	free(r->fails);
	free(r->g);
	if (r->own_t)
		tmulti_free(r->t);	/* never applied */
	free(r);
}

/* grouped[i]'s marks (tmulti_run_new) */
enum { TM_FREE, TM_DOUBT, TM_GROUPED };

/*
 * Run r's group for the not yet grouped hooks of the module of hook first
 * that are as sure as it is: the doubtful ones (btf_tramp_refusal) get
 * links of their own, so a refusal among them halves a few, not the
 * module's thousands.
 */
static int tmulti_group(struct tracerd *d, struct tm_run *r, const struct attachment *a,
			size_t first, unsigned char *grouped, bool counts)
{
	const char *mod = a->hooks[first].module;
	const unsigned char kind = grouped[first];
	struct tm_group *g;
	size_t i, n = 0;
	int fd;

#define TM_MEMBER(i) (grouped[i] == kind && !a->hooks[i].err && !strcmp(a->hooks[i].module, mod))
	for (i = first; i < a->nr_hooks; i++)
		if (TM_MEMBER(i))
			n++;
	g = realloc(r->g, (r->ng + 1) * sizeof(*g));
	if (!g)
		return set_err(r->msg, sizeof(r->msg), -ENOMEM, "out of memory");
	r->g = g;
	g = &r->g[r->ng++];
	memset(g, 0, sizeof(*g));
	g->ids = calloc(n, sizeof(*g->ids));
	g->cookies = calloc(n, sizeof(*g->cookies));
	g->idx = calloc(n, sizeof(*g->idx));
	if (!g->ids || !g->cookies || !g->idx)
		return set_err(r->msg, sizeof(r->msg), -ENOMEM, "out of memory");
	for (i = first; i < a->nr_hooks; i++) {
		if (!TM_MEMBER(i))
			continue;
		g->ids[g->n] = (__u32)a->hooks[i].btf_id;
		g->cookies[g->n] = counts ? i : a->hooks[i].slot;
		g->idx[g->n++] = i;
		grouped[i] = TM_GROUPED;
	}
#undef TM_MEMBER
	fd = resolve_module_btf_fd(d, mod);
	if (fd < 0)
		return set_err(r->msg, sizeof(r->msg), fd, "no BTF for module '%s' of '%s'", mod,
			       a->hooks[first].name);
	/* its own copy: the symbol source closes a module's when the modules change */
	g->btf_fd = fd ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : 0;
	if (g->btf_fd < 0)
		return set_err(r->msg, sizeof(r->msg), -errno, "no BTF fd for module '%s': %s",
			       mod, strerror(errno));
	return 0;
}

/*
 * Refuse, without asking the kernel, a's functions its verifier refuses
 * to a trampoline by their BTF (btf_tramp_refusal: variadic, a struct
 * returned, ...): a multi link fails whole on one of them, and finding it
 * by halving costs about 2 log2 n link creates, each waiting for RCU
 * (fentry-multi '*' on 7.2: 276 such functions of 48689 names). The
 * doubtful ones are marked TM_DOUBT in grouped.
 */
static void tmulti_screen(struct tracerd *d, struct attachment *a, unsigned int attach_type,
			  unsigned char *grouped)
{
	bool ret_too = attach_type == TRACERD_TRACE_FEXIT_MULTI ||
		       attach_type == TRACERD_TRACE_FSESSION_MULTI ||
		       attach_type == TRACERD_TRACE_FSESSION;
	const struct btf *btf;
	const char *why;
	char buf[160];
	bool doubt;
	size_t i;

	for (i = 0; i < a->nr_hooks; i++) {
		struct hook *h = &a->hooks[i];

		if (h->err || !(btf = resolve_hook_btf(d, h)))
			continue;	/* no BTF: the kernel says */
		why = btf_tramp_refusal(btf, h->btf_id, ret_too, &doubt, buf, sizeof(buf));
		if (why)
			hook_err(h, -EINVAL, "%s", why);
		else if (doubt)
			grouped[i] = TM_DOUBT;
	}
}

struct tm_run *tmulti_run_new(struct tracerd *d, struct attachment *a,
			      const struct bpf_object *obj, const struct bpf_program *tmpl,
			      unsigned int attach_type, const char *what,
			      const struct tm_run *with, int *err)
{
	bool counts = backend_slotless(a->be, &a->spec);
	struct tm_run *r = calloc(1, sizeof(*r));
	unsigned char *grouped = calloc(a->nr_hooks, sizeof(*grouped));
	struct tmulti *t = with ? with->t : a->priv;
	size_t i;

	*err = -ENOMEM;
	if (!r || !grouped)
		goto fail;
	r->type = attach_type;
	r->what = what;
	r->spec = a->spec;
	r->has_spec = true;
	r->hooks = a->hooks;
	r->tmpl = tmpl;
	if (!t) {
		t = tmulti_new();
		if (!t)
			goto fail;
		r->own_t = true;
	}
	r->t = t;
	if (counts) {
		/* count tier: fast_count's form (the template itself with --comm:
		 * bpf_clone_count's rule), and its counters (one per hook) */
		r->tmpl = bpf_hook_tmpl(obj, tmpl, &a->spec);
		r->stats_fd = obj ? bpf_map__fd(bpf_object__find_map_by_name(obj, "slot_stats"))
				  : -EINVAL;
		if (r->stats_fd < 0) {
			*err = set_err(r->msg, sizeof(r->msg), -EOPNOTSUPP, "%s: no slot_stats map "
				       "to count in", what);
			goto fail;
		}
		if (t->counts.fd < 0 &&
		    (*err = bpf_counts_create(&t->counts, a->nr_hooks, "tracerd_counts", r->msg,
					      sizeof(r->msg))))
			goto fail;
	}
	tmulti_screen(d, a, attach_type, grouped);
	for (i = 0; i < a->nr_hooks; i++) {
		if (grouped[i] == TM_GROUPED || a->hooks[i].err)
			continue;
		*err = tmulti_group(d, r, a, i, grouped, counts);
		if (*err)
			goto fail;
	}
	free(grouped);
	*err = 0;
	return r;
fail:
	if (!a->hooks[0].err)
		hook_err(&a->hooks[0], *err, "%s", r && r->msg[0] ? r->msg : strerror(-*err));
	free(grouped);
	tmulti_run_free(r);
	return NULL;
}

void tmulti_run_exec(struct tm_run *r)
{
	char err[HOOK_ERR_MAX] = "";
	size_t i;
	long got;

	for (i = 0; i < r->ng; i++) {
		struct tm_group *g = &r->g[i];

		if (!g->n)
			continue;
		got = tmulti_split(r, g->btf_fd, g->ids, g->cookies, g->idx, g->n, err,
				   sizeof(err));
		if (got > 0) {
			r->linked += (size_t)got;
			continue;
		}
		r->err = (int)got;
		str_fmt(r->msg, sizeof(r->msg), "%s", err[0] ? err : strerror(-r->err));
		if (r->err != -EINVAL && r->err != -EBUSY)
			return;	/* not one function's fault: the attachment fails */
	}
	if (r->linked)
		r->err = 0;
}

bool tmulti_run_failed(const struct tm_run *r)
{
	return r->err || !r->linked;
}

int tmulti_run_apply(struct attachment *a, struct tm_run *r)
{
	int ret = r->err;
	size_t i;

	if (!a->priv)
		a->priv = r->t;	/* on failure too: detach closes what it holds */
	r->own_t = false;
	for (i = 0; i < r->nfails; i++)
		hook_err(&a->hooks[r->fails[i].idx], r->fails[i].err, "%s",
			 r->fails[i].msg ? r->fails[i].msg : strerror(-r->fails[i].err));
	if (!ret && r->linked) {
		for (i = 0; i < a->nr_hooks; i++)
			a->hooks[i].attached = !a->hooks[i].err;
		/* the count tier's counters are the hooks' indexes of now: the
		 * refused ones leave gaps the registry's compaction closes */
		if (a->priv && ((struct tmulti *)a->priv)->counts.fd >= 0)
			ret = bpf_counts_settle(&((struct tmulti *)a->priv)->counts, a->hooks,
						a->nr_hooks);
	} else {
		if (!ret)
			ret = -ENOENT;
		if (!a->hooks[0].err)
			hook_err(&a->hooks[0], ret, "%s", r->msg[0] ? r->msg : strerror(-ret));
	}
	r->t = NULL;	/* a's */
	tmulti_run_free(r);
	return ret;
}

int tmulti_attach(struct tracerd *d, struct attachment *a, const struct bpf_object *obj,
		  const struct bpf_program *tmpl, unsigned int attach_type, const char *what)
{
	struct tm_run *r;
	int ret;

	r = tmulti_run_new(d, a, obj, tmpl, attach_type, what, NULL, &ret);
	if (!r)
		return ret;
	tmulti_run_exec(r);
	return tmulti_run_apply(a, r);
}

void tmulti_detach(struct tracerd *d, struct attachment *a)
{
	size_t i;

	tmulti_free(a->priv);
	a->priv = NULL;
	for (i = 0; i < a->nr_hooks; i++)
		a->hooks[i].attached = false;
}

struct tmulti *tmulti_take_links(struct attachment *a)
{
	struct tmulti *from = a->priv, *t;

	if (!from || !from->n || !(t = tmulti_new()))
		return NULL;
	*t = *from;		/* the pairs move; the counters stay */
	t->counts.fd = -1;
	t->counts.calls = NULL;
	t->counts.at = NULL;
	from->fd = NULL;
	from->n = from->cap = 0;
	return t;
}


void tmulti_close(struct tmulti *t)
{
	tmulti_free(t);
}

int tmulti_read(struct tracerd *d, struct attachment *a, struct hook *h,
		struct tracerd_slot_stats *s)
{
	const struct tmulti *t = a->priv;

	return bpf_counts_hook_read(d, t ? &t->counts : NULL, a, h, s);
}

void tmulti_read_begin(struct tracerd *d, struct attachment *a)
{
	struct tmulti *t = a->priv;

	if (t)
		bpf_counts_read_begin(&t->counts);
}

void tmulti_read_end(struct tracerd *d, struct attachment *a)
{
	struct tmulti *t = a->priv;

	if (t)
		bpf_counts_read_end(&t->counts);
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
	struct tmulti t = { .counts.fd = -1 };
	struct tm_run r = { .tmpl = tmpl, .type = attach_type, .what = what, .t = &t };
	__u32 id;
	int ret;

	ret = d->vmlinux_btf ? btf__find_by_name_kind(d->vmlinux_btf, d->probe_fn, BTF_KIND_FUNC)
			     : -ENOENT;
	if (ret < 0)
		return set_err(reason, len, ret, "no BTF for '%s'", d->probe_fn);
	id = (__u32)ret;
	ret = tmulti_link(&r, 0, &id, &cookie, 1, d->probe_fn, reason, len);
	if (!ret) {
		close(t.fd[0][1]);
		close(t.fd[0][0]);
	}
	free(t.fd);
	return ret;
}
