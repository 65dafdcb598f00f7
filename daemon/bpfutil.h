/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the per-hook BPF backends (be_fentry.c, be_kprobe.c, be_tp.c) share
 * beyond backend.h: loading a skeleton once, the per-hook attach and
 * detach loops, a probe's trial attach and a hook's program misses. The
 * helpers declared in backend.h (bpf_clone_prog_as, bpf_prog_misses, ...) live
 * in bpfutil.c as well.
 */
#ifndef TRACERD_BPFUTIL_H
#define TRACERD_BPFUTIL_H

#include "backend.h"

struct bpf_object;
struct bpf_link;

/*
 * A bpftool skeleton and how to load it. The four functions are the
 * skeleton's own, seen through void pointers: BPF_SKEL_ADAPTERS(x_bpf)
 * defines them once per skeleton, BPF_SKEL_FNS(x_bpf) fills them in.
 */
struct bpf_skel {
	void *(*open)(void);
	struct bpf_object *(*obj)(void *skel);
	int (*load)(void *skel);
	void (*destroy)(void *skel);
	const char *name;		/* "failed to open <name> BPF object" */
	const char *const *progs;	/* programs to load (NULL-terminated); the rest stay off */
	const char *aim;		/* non-NULL: progs attach to the target, a <aim>
					 * ("no BTF for <aim> '<target>'") */
	const char *what;		/* "failed to load <what>[ for '<target>']" */
	bool maps_err_is_load_err;	/* a failure to share maps reads as a load failure */
	/* non-zero: the progs' expected attach type, for one their section
	 * cannot name to every libbpf (bpf_compat.h) */
	unsigned int attach_type;
	/* the object's build without the kernel's BTF (Makefile, BPF_NOBTF;
	 * daemon/bpf_nobtf.c), NULL if none: opened in its place when this
	 * one does not load, the same programs and maps */
	const void *(*nobtf_elf)(size_t *sz);
	void *(*open_elf)(const void *elf, size_t sz);
};

#define BPF_SKEL_ADAPTERS(sk)								\
	static void *sk##_skel_open(void) { return sk##__open(); }			\
	static struct bpf_object *sk##_skel_obj(void *s) { return ((struct sk *)s)->obj; } \
	static int sk##_skel_load(void *s) { return sk##__load(s); }			\
	static void sk##_skel_destroy(void *s) { sk##__destroy(s); }			\
	static void *sk##_skel_open_elf(const void *elf, size_t sz)			\
	{										\
		struct sk *s = calloc(1, sizeof(*s));					\
		int e;									\
											\
		if (!s)									\
			return NULL;							\
		e = sk##__create_skeleton(s);						\
		if (!e) {								\
			s->skeleton->data = (void *)elf;				\
			s->skeleton->data_sz = sz;					\
			e = bpf_object__open_skeleton(s->skeleton, NULL);		\
		}									\
		if (e) {								\
			sk##__destroy(s);						\
			errno = -e;							\
			return NULL;							\
		}									\
		return s;								\
	}

#define BPF_SKEL_FNS(sk)								\
	.open = sk##_skel_open, .obj = sk##_skel_obj, .load = sk##_skel_load,		\
	.destroy = sk##_skel_destroy, .open_elf = sk##_skel_open_elf

/* in a struct bpf_skel of an object in BPF_NOBTF: its other build */
#define BPF_SKEL_NOBTF(sk)	.nobtf_elf = sk##_nobtf_elf

const void *kprobe_bpf_nobtf_elf(size_t *sz);
const void *kprobe_multi_bpf_nobtf_elf(size_t *sz);
const void *kprobe_session_bpf_nobtf_elf(size_t *sz);
const void *kprobe_session_v0_bpf_nobtf_elf(size_t *sz);
const void *tp_bpf_nobtf_elf(size_t *sz);

/*
 * Open sk, turn on its programs (aimed at target if sk->aim), share the
 * daemon's maps and load it into *pskel; nothing to do when *pskel is set.
 * target may be NULL when sk->aim is. 0, or -errno with err set and
 * nothing left open.
 */
int bpf_skel_load(struct tracerd *d, const struct bpf_skel *sk, const char *target,
		  void **pskel, char *err, size_t errlen);
/* net.core.bpf_jit_enable (0: the interpreter runs BPF programs), -1 unreadable. */
int bpf_jit_enabled(void);
/*
 * With the JIT off: obj's programs to load made loadable by the
 * interpreter (no helper only the JIT inlines). Between open and load.
 */
int bpf_obj_for_interpreter(struct bpf_object *obj);
/* With the JIT off, say so after err (why a load failed). */
void bpf_jit_explain(char *err, size_t errlen);
/* Destroy *pskel (NULL-safe) and clear it. */
void bpf_skel_free(const struct bpf_skel *sk, void **pskel);

/*
 * A clone with spec's flags and filters baked in (the immediates
 * of bpf/hook.bpf.h: no config lookup per call), entry times in task
 * storage where the kernel allows it for the program's type. spec NULL:
 * the slot only (the clone reads slot_cfg). The prog fd or -errno.
 */
/* tmpl, or its specialised form in obj for spec (NAME_count, NAME_lat) */
const struct bpf_program *bpf_hook_tmpl(const struct bpf_object *obj,
					const struct bpf_program *tmpl,
					const struct tracerd_spec *spec);
int bpf_clone_hook(const struct bpf_program *tmpl, __u32 slot, const struct tracerd_spec *spec,
		   __u32 attach_btf_id, int attach_btf_obj_fd, char *err, size_t errlen);
/* maps.c: the slot config (slot_cfg, a clone's immediates) of spec */
void maps_spec_cfg(const struct tracerd_spec *spec, struct tracerd_slot_cfg *cfg);

/* What a per-hook BPF backend keeps in hook->priv. */
struct bpf_hook {
	int prog_fd[2];		/* cloned programs: entry, return (-1: none) */
	int link_fd[2];		/* raw links of those programs (-1: none) */
	struct bpf_link *link[2];	/* libbpf links (kprobe) */
	bool via_raw_tp;	/* tp-btf fell back to raw_tp */
	bool via_perf;		/* tp-btf fell back to a classic tracepoint (perf event) */
};

/* h->priv as a new bpf_hook (no fds yet); NULL when out of memory. */
struct bpf_hook *bpf_hook_new(struct hook *h);
/* Close b's programs and links (NULL-safe). */
void bpf_hook_close(struct bpf_hook *b);
/* Close and free h->priv: an unattached hook. */
void bpf_hook_free(struct tracerd *d, struct attachment *a, struct hook *h);

/*
 * The per-hook attach loop: one() hooks h (0, or -errno with h->err set),
 * putting what it holds in h->priv; undo() frees that of a hook that
 * failed, which stays unattached (the registry skips it), as does one
 * that comes with h->err set (the registry's needs check). 0 when at
 * least one hook is attached, else the first -errno.
 */
int hooks_attach(struct tracerd *d, struct attachment *a,
		 int (*one)(struct tracerd *d, struct attachment *a, struct hook *h),
		 void (*undo)(struct tracerd *d, struct attachment *a, struct hook *h));
/* The per-hook BPF attach: hooks_attach() with bpf_hook_free() as undo. */
int bpf_hooks_attach(struct tracerd *d, struct attachment *a,
		     int (*one)(struct tracerd *d, struct attachment *a, struct hook *h));
/* The per-hook BPF detach: a backend's detach as it is. */
void bpf_hooks_detach(struct tracerd *d, struct attachment *a);

/*
 * A probe's trial attach: l is what a bpf_program__attach*() returned
 * (NULL: errno says why). Destroys l; 0, or -errno with reason set to
 * "attach to <kind>'<target>' refused: ..." (kind "" or "tracepoint ").
 */
int bpf_probe_link(struct bpf_link *l, const char *kind, const char *target,
		   char *reason, size_t len);

/*
 * The recursion misses of h's cloned programs, summed into *out: how many
 * programs were read (0: none loaded), or -errno.
 */
int hook_prog_misses(const struct hook *h, __u64 *out);

/* backend.h's progs of a per-hook BPF backend: the clones in each hook's bpf_hook. */
int bpf_hooks_progs(struct tracerd *d, struct attachment *a, int (*fn)(int prog_fd, void *ctx),
		    void *ctx);

/*
 * A clone of tmpl for a count-tier attachment (backend.h, count_tier): its
 * slot immediate TRACERD_SLOT_COOKIE (a function's cookie is its index in
 * the attachment), spec's filters baked in, and its references to the
 * object's slot_stats (map fd stats_fd, bpf_map__fd of the object's map)
 * pointed at calls_fd, a struct bpf_counts' map. tmpl must touch no member
 * but calls (offset 0) for spec's flags: bpf/hook.bpf.h's fast_count, or
 * hook_entry with ENABLED, TGID and COMM only. attach_btf_obj_fd: the BTF
 * object a tracing program is loaded against (0: vmlinux; kprobes: 0).
 * The prog fd or -errno.
 */
int bpf_clone_count(const struct bpf_program *tmpl, unsigned int attach_type,
		    const struct tracerd_spec *spec, int stats_fd, int calls_fd,
		    int attach_btf_obj_fd, char *err, size_t errlen);

/*
 * A count-tier attachment's counters: a BPF_MAP_TYPE_PERCPU_ARRAY of n u64
 * (fd), and a pass's copy of them summed over the CPUs (calls, valid while
 * cached: bpf_counts_read_begin .. _end, filled by chunked
 * bpf_map_lookup_batch).
 */
struct bpf_counts {
	int fd;
	size_t n;
	__u64 *calls;
	bool cached;
	/* the counter of the attachment's i-th hook once it is compacted
	 * (bpf_counts_settle); NULL: the i-th */
	__u32 *at;
	size_t nat;
};

/* c's map for n functions (c->fd -1 on failure): 0 or -errno with err set. */
int bpf_counts_create(struct bpf_counts *c, size_t n, const char *name, char *err,
		      size_t errlen);
/* Close c's map and free its copy (NULL-safe; c->fd -1 after). */
void bpf_counts_close(struct bpf_counts *c);
/*
 * The counters were given by the hooks' indexes hooks[0..n) at attach; the
 * registry then keeps the attached ones only, in order (hooks_compact).
 * Note which counter each kept hook reads, once what is attached is known.
 * -ENOMEM (the reads then fail: no count is misread).
 */
int bpf_counts_settle(struct bpf_counts *c, const struct hook *hooks, size_t n);
/* Read every counter once for a pass of bpf_counts_read; _end drops the copy. */
void bpf_counts_read_begin(struct bpf_counts *c);
void bpf_counts_read_end(struct bpf_counts *c);
/* Function i's calls: from the pass's copy, else one lookup. 0 or -errno. */
int bpf_counts_read(const struct bpf_counts *c, size_t i, __u64 *out);
/* backend.h's read for a backend with a count tier: hook h of a from c
 * (a's counters: NULL or fd -1 when it has slots), else from h's slot */
int bpf_counts_hook_read(struct tracerd *d, const struct bpf_counts *c,
			 const struct attachment *a, const struct hook *h,
			 struct tracerd_slot_stats *s);

/*
 * A BPF batch backend's job (backend.h, job_*; kprobe-multi's, and the
 * form kprobe-session's and fentry-multi's would take): the links an
 * attach of a whole attachment creates, or the link fds its detach closes,
 * on the registry's worker thread. The backend builds it in the loop
 * (bpf_job_new: its clones loaded, each create's arguments ready), hands
 * bpf_job_run as job_run, and applies it in job_finish. bpf_job_run
 * touches nothing but the job and what the creates' arguments point at,
 * which the loop leaves as it is while the job runs (the hooks' names).
 * A detach's close of a link is its unhooking: the kernel releases the
 * link on the closing thread (the fprobe unregistered, seconds for every
 * function).
 */
struct bpf_job_link {
	/* attach: the link of prog_fd made with arg (the backend's): fd or -errno */
	int (*create)(int prog_fd, const void *arg);
	int prog_fd;
	const void *arg;
	/* attach: the link's fd after the run, or -errno (-ECANCELED: not tried,
	 * an earlier create failed: the kernel takes all or none); detach: the
	 * fd to close, -1 once closed */
	int fd;
	__u64 ns;	/* how long its call took */
};

struct bpf_job {
	bool detach;
	void *ctx;	/* the backend's (what its job_finish applies) */
	size_t nr;
	struct bpf_job_link link[];
};

/* A job of nr links (fds -1, to fill in), NULL when out of memory. */
struct bpf_job *bpf_job_new(size_t nr, bool detach, void *ctx);
/* backend.h's job_run for a struct bpf_job: the creates in order (stopping
 * at the first failure), or the closes. */
void bpf_job_run(void *job);
/* The index of the first create that failed, nr when none did. */
size_t bpf_job_failed(const struct bpf_job *j);
/* The time of j's calls, summed, in ms. */
unsigned long long bpf_job_ms(const struct bpf_job *j);

static inline struct bpf_hook *bpf_hook(const struct hook *h)
{
	return h->priv;
}

#endif
