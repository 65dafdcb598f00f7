/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracing-multi attachments (7.x: BPF_TRACE_FENTRY_MULTI, _FEXIT_MULTI,
 * _FSESSION_MULTI): one trampoline program for many functions. A program
 * is loaded against one BTF object, so an attachment gets one clone of a
 * template and one link per BTF object its functions live in (vmlinux,
 * each module); each function's link cookie is its slot (the clones carry
 * TRACERD_SLOT_COOKIE). The kernel attaches a link's functions all or
 * none: a set it refuses with EINVAL or EBUSY is tried again in halves, so
 * that only the functions it refuses alone are skipped (fexit and fsession
 * on a __noreturn function). Used by be_fsession.c, be_fentry_multi.c.
 */
#ifndef TRACERD_TRACING_MULTI_H
#define TRACERD_TRACING_MULTI_H

#include "backend.h"

struct bpf_object;
struct bpf_program;

/*
 * Clone tmpl (of obj) as attach_type per BTF object of a's hooks and link
 * it; what names it in errors ("fentry.multi"). An attachment in the count
 * tier (backend.h; a backend with count_tier) takes tmpl's "_count" form
 * of obj (bpfutil.h bpf_hook_tmpl) and counters of its own, each
 * function's cookie its index in them. Hooks that come with h->err set
 * (no BTF) stay unattached. Adds to the links a->priv holds (a second
 * program of the same attachment, e.g. fexit.multi, adds its own): 0 when
 * some function is linked (the others have their hook's err set), or
 * -errno with a->hooks[0].err set.
 */
int tmulti_attach(struct tracerd *d, struct attachment *a, const struct bpf_object *obj,
		  const struct bpf_program *tmpl, unsigned int attach_type, const char *what);
/*
 * tmulti_attach in three parts, for a backend's job (backend.h): the run of
 * tmpl over a's hooks made in the loop (the groups by BTF object, their
 * fds, in the count tier its counters; NULL with *err and a->hooks[0].err
 * set), its clones and links made by tmulti_run_exec (on the worker
 * thread: it touches nothing but the run and the hooks' names), applied to
 * a by tmulti_run_apply (tmulti_attach's return; frees the run), or freed
 * unapplied by tmulti_run_free. with: a run of the same attachment made
 * before, not applied yet, whose links this one adds to (NULL: a->priv's,
 * or new ones).
 */
struct tm_run;
struct tm_run *tmulti_run_new(struct tracerd *d, struct attachment *a,
			      const struct bpf_object *obj, const struct bpf_program *tmpl,
			      unsigned int attach_type, const char *what,
			      const struct tm_run *with, int *err);
void tmulti_run_exec(struct tm_run *r);
/* r ran and linked nothing, or failed as a whole */
bool tmulti_run_failed(const struct tm_run *r);
int tmulti_run_apply(struct attachment *a, struct tm_run *r);
void tmulti_run_free(struct tm_run *r);
/* Close every link and clone of a (a->priv), NULL-safe. */
void tmulti_detach(struct tracerd *d, struct attachment *a);
/* A detach's job: a's links and clones moved out of it (its counters stay
 * until tmulti_detach; NULL: none, or out of memory), closed by tmulti_close. */
struct tmulti;
struct tmulti *tmulti_take_links(struct attachment *a);
void tmulti_close(struct tmulti *t);

/* backend.h's read, read_begin, read_end: the count tier's counters, else the slots */
int tmulti_read(struct tracerd *d, struct attachment *a, struct hook *h,
		struct tracerd_slot_stats *s);
void tmulti_read_begin(struct tracerd *d, struct attachment *a);
void tmulti_read_end(struct tracerd *d, struct attachment *a);
/* backend.h's progs: the clone of each link in a->priv */
int tmulti_progs(struct tracerd *d, struct attachment *a, int (*fn)(int prog_fd, void *ctx),
		 void *ctx);
/* A probe: tmpl linked as attach_type on d->probe_fn, then closed. */
int tmulti_probe(struct tracerd *d, const struct bpf_program *tmpl, unsigned int attach_type,
		 const char *what, char *reason, size_t len);

#endif
