/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Target resolution: a function name, a glob of them, or a tracepoint
 * turned into hooks with what each mode needs (module, kallsyms address,
 * BTF id). The one symbol source of the daemon: available_filter_functions
 * (what ftrace can hook), BTF (vmlinux and modules), /proc/kallsyms
 * (addresses, weak symbols included, and to explain why a name is not
 * traceable), read once and re-read when /proc/modules changes. Globs
 * honour max_glob_matches and the denylist (lib/symfilter.c).
 */
#ifndef TRACERD_RESOLVE_H
#define TRACERD_RESOLVE_H

#include "tracerd.h"

/*
 * Resolve spec->target into *hooks (calloc'ed, n in *nr). Glob matches
 * that are not hooked are appended to skipped (may be NULL).
 * kind: spec_kind(spec->target), asked once by the caller's request.
 * need_addr: kallsyms addresses are needed (kmod modes).
 * 0, or -errno with msg filled: -ENOENT no such target, -EINVAL denied,
 * -E2BIG more than max_glob_matches, -ENOMEM, -EIO no function list.
 */
int resolve_target(struct tracerd *d, const struct tracerd_spec *spec, enum spec_kind kind,
		   bool need_addr, struct hook **hooks, size_t *nr, struct skip_list *skipped,
		   char *msg, size_t msglen);

/*
 * resolve_target on the worker thread, so the loop answers its clients
 * while a glob is matched against every function or the kernel's lists
 * are read (issue #34: 0.4-1.6 s under TCG for '*'). done is called from
 * the loop with what resolve_target gives (hooks and skipped become its
 * own; msg is valid during the call). One runs at a time, the others wait
 * in order; meanwhile the resolve_* calls of the loop wait for it (they
 * share the tables). 0, or -errno (no loop, no eventfd, out of memory:
 * call resolve_target).
 */
typedef void (*resolve_done_fn)(struct tracerd *d, void *ctx, int err, struct hook *hooks,
				size_t nr, struct skip_list *skipped, const char *msg);
int resolve_target_start(struct tracerd *d, const struct tracerd_spec *spec, enum spec_kind kind,
			 bool need_addr, resolve_done_fn done, void *ctx);
/* The resolve asked with ctx is not answered: dropped when queued, its
 * answer dropped when it runs (it cannot be cut short). */
void resolve_forget(struct tracerd *d, void *ctx);
/* A resolve runs on the worker thread (resolve_* calls would wait for it). */
bool resolve_busy(const struct tracerd *d);
/* A resolve of kind takes no reading nor scan (resolve_target may run in
 * the loop): a name or tracepoint looked up in tables already read, and
 * none runs on the worker thread. */
bool resolve_quick(struct tracerd *d, enum spec_kind kind, bool need_addr);
/* The loop stops: the running resolve waited for, it and every one asked
 * answered -ECANCELED ("tracerd is stopping"). */
void resolve_stop(struct tracerd *d);

/* The kallsyms address of function name, 0 when unknown. */
__u64 resolve_addr(struct tracerd *d, const char *name);
/* The BTF object fd of module ("" : 0, vmlinux), owned by the symbol
 * source: valid until the next resolve_* call; -ENOENT without one. */
int resolve_module_btf_fd(struct tracerd *d, const char *module);
/* The BTF h's btf_id is of (vmlinux, or its module's), owned by the symbol
 * source: valid until the next resolve_* call; NULL without one. */
const struct btf *resolve_hook_btf(struct tracerd *d, const struct hook *h);
/* How many records ftrace has (lines of available_filter_functions), or -1. */
long long resolve_nr_traceable(struct tracerd *d);

/* One function of the symbol source, as `tracectl functions` lists it. */
struct fn_info {
	const char *name;
	const char *module;	/* NULL: vmlinux */
	bool traceable;		/* in available_filter_functions (kallsyms without it) */
	bool in_kallsyms;	/* a function symbol (absent: inlined, or BTF only) */
	bool ftrace_list;	/* the kernel has available_filter_functions */
	bool btf;		/* a BTF FUNC (vmlinux, or its module's BTF) */
	__u64 addr;		/* kallsyms address, 0 unknown */
	unsigned int count;	/* functions of this name (> 1: a glob skips it) */
	char denied[160];	/* why tracerd never hooks it (denylist); "" when it may */
};
/*
 * Call fn for each function whose name matches glob (NULL: all), in name
 * order, over the union of ftrace's list, kallsyms' function symbols and
 * vmlinux BTF FUNCs, so notrace and inlined ones show too. Stops when fn
 * returns nonzero (returned); 0 after the last, -EIO with nothing to list.
 */
int resolve_each_function(struct tracerd *d, const char *glob,
			  int (*fn)(void *arg, const struct fn_info *f), void *arg);
/* Where a walk in steps stands: after the seen visits of name ("": at the start). */
struct fn_cursor {
	char name[512];		/* KSYM_NAME_LEN */
	size_t seen;
};
/*
 * resolve_each_function in steps of at most max names visited (matching
 * glob or not), from cur, which it moves on: 1 when more are left, 0 after
 * the last, -EIO with nothing to list, or fn's nonzero return.
 */
int resolve_functions_step(struct tracerd *d, const char *glob, struct fn_cursor *cur,
			   size_t max, int (*fn)(void *arg, const struct fn_info *f), void *arg);

/* A kernel address as a function and an offset (a --stacks frame). */
struct frame_sym {
	const char *name;	/* owned by the symbol source: valid until the next
				 * resolve_* call */
	const char *module;	/* NULL: vmlinux; "bpf" for a BPF program or trampoline */
	__u64 off;
};
/*
 * kallsyms in address order for resolve_frame: read on first need, again
 * when /proc/modules changed or reread (a BPF program loaded since has its
 * symbol only in a fresh read). 0 or -EIO.
 */
int resolve_frames_sync(struct tracerd *d, bool reread);
/*
 * The function addr is in, from the table resolve_frames_sync read. 0,
 * -ENOENT (no function holds it: a module unloaded since, or not kernel
 * text), -EIO (no table).
 */
int resolve_frame(struct tracerd *d, __u64 addr, struct frame_sym *out);

/* vmlinux FUNC name index, built once at start. */
int resolve_init(struct tracerd *d);
void resolve_fini(struct tracerd *d);

#endif
