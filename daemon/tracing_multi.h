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

struct bpf_program;

/*
 * Clone tmpl as attach_type per BTF object of a's hooks and link it; what
 * names it in errors ("fentry.multi"). Hooks that come with h->err set
 * (no BTF) stay unattached. Adds to the links a->priv holds (a second
 * program of the same attachment, e.g. fexit.multi, adds its own): 0 when
 * some function is linked (the others have their hook's err set), or
 * -errno with a->hooks[0].err set.
 */
int tmulti_attach(struct tracerd *d, struct attachment *a, const struct bpf_program *tmpl,
		  unsigned int attach_type, const char *what);
/* Close every link and clone of a (a->priv), NULL-safe. */
void tmulti_detach(struct tracerd *d, struct attachment *a);
/* backend.h's progs: the clone of each link in a->priv */
int tmulti_progs(struct tracerd *d, struct attachment *a, int (*fn)(int prog_fd, void *ctx),
		 void *ctx);
/* A probe: tmpl linked as attach_type on d->probe_fn, then closed. */
int tmulti_probe(struct tracerd *d, const struct bpf_program *tmpl, unsigned int attach_type,
		 const char *what, char *reason, size_t len);

#endif
