/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracerd's state: one struct tracerd owned by main(), shared by the
 * control server, the registry of attachments and the backends. Single
 * threaded (one libevent loop), so no locking anywhere.
 */
#ifndef TRACERD_DAEMON_H
#define TRACERD_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <linux/types.h>
#include <tracerd/modes.h>
#include <tracerd/trace.h>
#include "../lib/config.h"
#include "../lib/skiplist.h"
#include "../lib/spec.h"
#include "args.h"

struct event_base;
struct control;
struct bpf_link;
struct btf;
struct http_server;
struct recorder;
struct backend;

/* One feature probed at start: can this mode be used here, and if not why. */
struct feature {
	bool available;
	char reason[256];
};

struct kmod_info {
	bool present;
	int fd;			/* /dev/tracerd, -1 when absent */
	__u32 abi_major, abi_minor;
	char module_version[32];
	__u64 feat_flags;	/* TRACERD_FEAT_*: the kernel config it was built for */
	/* what the open module said it can do (TRACERD_IOC_FEATURES): bits of
	 * TRACERD_KMOD_* modes, TRACERD_ATTACH_* flags, modes it can time */
	__u32 feat_modes, feat_attach_flags, feat_latency_modes;
	/* features.max_attach: live attachments per fd and entries per batch
	 * (4096 before ABI 1.9, 262144 from it) */
	__u32 max_attach;
	char reason[256];
	/* kmod-kprobe's int3 variant probed on its own (when kmod-kprobe's
	 * probe failed): 0 not yet, 1 it attached, -1 refused (int3_reason) */
	int int3_probe;
	char int3_reason[256];
};

/*
 * One hooked function (or tracepoint) of an attachment: the resolved
 * target (resolve.c), its stats slot, and the part its backend owns.
 * Kept small, one per function of attach '*' (issue #34: at most 256 B
 * of RSS per function): its strings live in the block of its hooks
 * (hooks_new), its refusal is allocated only when there is one (hook_err).
 */
struct hook {
	const char *name;	/* in its hooks' block (hooks_new), or static */
	const char *module;	/* "" for vmlinux, else interned (resolve.c) */
	char *err;		/* why it could not be attached (hook_err), NULL: no refusal */
	struct hook_args *args;	/* --args, --if: what its slot reads (args.c); NULL
				 * without them */
	union {
		void *priv;	/* a BPF backend's: allocated by its attach, freed by its
				 * detach (NULL while not hooked) */
		__u64 kmod_id;	/* a kmod backend's: the module's attachment id, 0: none */
	};
	__u64 addr;		/* kallsyms address (0 unknown) */
	__s32 btf_id;		/* FUNC (or btf_trace_ typedef) id, 0 unknown */
	__u32 argw;		/* 1 + the stack words of its arguments, by BTF and
				 * the arch's convention (btfargs.c), 0 unknown */
	__u32 slot;
	bool ret64;		/* its BTF says it returns 8 bytes (--errors: an error
				 * is then -4095..-1 in all 64 bits, not the low 32) */
	bool attached;
};

/*
 * hook.c. A block of n hooks (zeroed, slot "none yet"), with room for
 * strbytes of their strings (hook_str) and, with args, each hook's
 * hook_args (h->args set); one free (hooks_free) for all. NULL: no memory.
 */
struct hook_strs {
	char *next, *end;	/* the block's string room left */
};
struct hook *hooks_new(size_t n, size_t strbytes, bool args, struct hook_strs *strs);
/* A copy of s in the room hooks_new left; NULL when it does not fit. */
const char *hook_str(struct hook_strs *strs, const char *s);
/* Free what the n hooks own (their err) and the block hooks_new made. */
void hooks_free(struct hook *hooks, size_t n);
/*
 * Set h->err (replacing one) to the message, at most HOOK_ERR_MAX bytes
 * (str_fmt); returns ret, as set_err. hook_err_clear: no refusal.
 */
#define HOOK_ERR_MAX	512
int hook_err(struct hook *h, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void hook_err_clear(struct hook *h);
/* A refusal a callee wrote into msg (char[HOOK_ERR_MAX]): h's when ret < 0 and msg is not empty. */
int hook_err_msg(struct hook *h, int ret, const char *msg);

/* Where an attachment is: hooking and unhooking run in steps in the event loop. */
enum attachment_state {
	ATTACHMENT_ATTACHED,
	ATTACHMENT_ATTACHING,
	ATTACHMENT_DETACHING,
};

struct attach_op;

/* reload.c's options, as main() was started with (a reload reads the same files) */
struct reload_opts {
	const char *path;	/* config file */
	bool path_given;	/* else a missing file means defaults */
	const char *listen;	/* --listen override, or NULL */
	const char *socket;	/* --socket override, or NULL */
	int verbose;		/* -v given: log_level does not apply */
};

/* reload.c's state: the running config's attach lines and the reloads since start */
struct reload_line;
struct reload_run;
struct reload_waiter;
struct reload_state {
	struct reload_opts opts;	/* filled by main() */
	struct reload_line *lines;	/* one per cfg.attach[] line (reload.c) */
	unsigned int attach_failed;	/* lines whose attach failed at the last start-up or
					 * reload (notify.c's STATUS=, metrics.c) */
	unsigned int ok, refused;	/* reloads taken and refused */
	bool last_refused;
	char last_refusal[512];		/* why the last refused one was */
	struct reload_run *run;		/* the reload being applied, in steps */
	struct reload_waiter *queued;	/* who waits for the reload after it, */
	bool again;			/* asked for while run was applied */
};

/* notify.c's state: STATUS= and the watchdog (notify_loop_start .. _stop) */
struct notify_state {
	struct event *status_ev;	/* a STATUS= due */
	uint64_t status_sent_ns;
	char status_last[384];
	struct event *wd_ev;		/* WATCHDOG=1 every wd_usec / 2 */
	uint64_t wd_usec;		/* the manager's interval; 0: no watchdog */
	uint64_t wd_next_ns;		/* when watchdog_kick sends the next one */
	unsigned int wd_holds;
	unsigned long long dropped;	/* notifications dropped, the manager's queue full */
	unsigned long long dropped_full; /* of those, since it was last found full */
	bool full;			/* the last send found the queue full */
	bool warned;			/* another send error logged (once) */
};

struct attachment {
	struct attachment *next;
	unsigned int id;
	struct tracerd_spec spec;
	enum tracerd_mode mode;		/* the mode used (never auto) */
	const struct backend *be;	/* its backend (the variant's): set with mode */
	char mode_reason[320];		/* why that mode */
	uint64_t since_real_ns;
	struct hook *hooks;
	size_t nr_hooks;
	void *priv;			/* the backend's, like hook->priv */
	enum attachment_state state;
	size_t nr_total, nr_done;	/* attaching/detaching: hooks to do, done */
	struct attach_op *op;		/* registry.c: the work in progress, NULL when settled */
	int kfd;			/* kmod: the module fd its hooks live on, opened for
					 * it (be_kmod.c, kmod_job_prepare); 0: d->kmod.fd */
};

/* bench_store.c: the stored bench results, parsed once per change of the file */
struct bench_store_cache {
	struct json_object *root;
	struct timespec mtime;
	bool checked;	/* root is what the file at mtime gave (maybe NULL) */
	bool distrust_logged;	/* the file or state_dir was another's: said once */
	char path[4096];
};

struct tracerd {
	struct tracerd_config cfg;
	struct bench_store_cache store;
	struct event_base *base;
	struct control *ctl;
	uint64_t start_mono_ns;
	int ncpus;

	struct feature features[TRACERD_MODE_NR];	/* [AUTO] unused */
	struct feature raw_tp;
	struct kmod_info kmod;
	char probe_fn[128];		/* the function probes attach to */

	int stats_fd, cfg_fd, ts_fd, errors_fd;	/* shared maps (daemon/maps.c) */
	int by_fd, by_other_fd;		/* --by: by_keys, by_other (maps.c, by.c) */
	unsigned char slot_used[TRACERD_MAX_SLOTS];
	unsigned char slot_by[TRACERD_MAX_SLOTS];	/* 1: the slot counts --by keys,
							 * 2: freed, keys not swept yet */
	bool by_sweep;			/* some slot_by is 2 */
	/* --stacks: stack_traces, stack_counts, stack_drops (maps.c, stacks.c) */
	int stack_traces_fd, stack_counts_fd, stack_drops_fd;
	unsigned int stack_depth_max;	/* frames stack_traces keeps: 127 or the kernel's
					 * perf_event_max_stack */
	unsigned char slot_stacks[TRACERD_MAX_SLOTS];	/* as slot_by, for stack_counts */
	bool stacks_sweep;		/* some slot_stacks is 2 */
	/* one request's copy of stack_counts (stacks_read_begin/end, stacks.c): every
	 * hook's rows from one pass of the map, not a pass per hook; NULL: none held */
	struct stack_counts *stack_read;
	unsigned long long stack_table_reads;	/* passes over stack_counts (status) */
	unsigned int nr_slots_used;

	struct attachment *attachments;	/* in id order: the attached ones */
	struct attachment *changing;	/* attaching or detaching (registry.c), in id order */
	struct event *registry_step;	/* runs their steps between other events */
	struct registry_job *job;	/* registry.c: the one attach or detach call
					 * running on a worker thread, NULL when none */
	unsigned int next_id;

	struct http_server *http;	/* http.c; NULL: listen = off */
	size_t http_held_bytes;		/* http.c: bytes of rendered bodies held for clients,
					 * of every server (a reply may outlive its server) */
	struct recorder *rec;		/* record.c: recordings and the ring buffer */

	int bpf_stats_fd;		/* BPF_ENABLE_STATS held (bpf_stats.c), -1: off */
	unsigned int cfg_gen;		/* +1 per applied reload (http.c: a body
					 * rendered before it is stale) */
	char bpf_stats_why[200];	/* why off */

	struct btf *vmlinux_btf;
	void *be_state[TRACERD_MODE_NR];	/* backend private state */
	void *resolve_cache;		/* resolve.c */

	struct reload_state reload;	/* reload.c */
	struct notify_state notify;	/* notify.c */

	/*
	 * The edges the core tells, set by main() (NULL: nobody listens): the
	 * core (registry.c) calls no edge file, so none of them calls it back
	 * through a circle. Called through the helpers below.
	 */
	void (*on_attachments_changed)(struct tracerd *d);	/* notify.c: STATUS= */
	void (*on_progress)(struct tracerd *d);	/* long work between its steps:
						 * notify.c's watchdog */
};

/* attachments came, went or progressed: tell the edge main() set, if any */
static inline void tracerd_attachments_changed(struct tracerd *d)
{
	if (d->on_attachments_changed)
		d->on_attachments_changed(d);
}

/* long work holding the loop made progress (between its steps) */
static inline void tracerd_progress(struct tracerd *d)
{
	if (d->on_progress)
		d->on_progress(d);
}

/* maps.c: the nine maps every BPF object shares */
int maps_create(struct tracerd *d);
void maps_destroy(struct tracerd *d);
/* A free slot, zeroed; ret64: its function returns 64 bits (tracerd_slot_errors). */
int maps_slot_alloc(struct tracerd *d, __u32 *slot, bool ret64);
void maps_slot_free(struct tracerd *d, __u32 slot);
/*
 * Delete the --by keys and the --stacks counts of the slots freed since the
 * last sweep (one pass of each map), and the stacks no count uses any more.
 */
void maps_sweep(struct tracerd *d);
/* args: NULL without --args and --if */
int maps_slot_config(struct tracerd *d, __u32 slot, const struct tracerd_spec *spec,
		     const struct hook_args *args);
void maps_slot_disable(struct tracerd *d, __u32 slot);
/* Sum of the per-CPU stats of a slot. */
int maps_slot_read(struct tracerd *d, __u32 slot, struct tracerd_slot_stats *out);
/* A slot's error returns by errno (--errors). */
int maps_slot_errors(struct tracerd *d, __u32 slot, struct tracerd_slot_errors *out);
/* Point a BPF object's maps at the shared ones (before load). */
struct bpf_object;
int maps_reuse(struct tracerd *d, struct bpf_object *obj);

/* probe.c: feature probing */
void probe_features(struct tracerd *d);

#endif
