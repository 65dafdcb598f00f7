/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * tracerd_kmod ioctl ABI: /dev/tracerd.
 *
 * The single source of truth for everything that crosses the user/kernel
 * boundary between tracerd and tracerd_kmod.ko. Fixed-width types only,
 * natural alignment, explicit reserved fields; pointers travel as __u64.
 * Rules: never reuse a retired ioctl number; a changed struct gets a new
 * number; bump TRACERD_ABI_MAJOR on any incompatible change, MINOR when
 * adding commands. The daemon calls TRACERD_IOC_VERSION right after open()
 * and refuses a module whose major differs.
 *
 * Opening /dev/tracerd and every ioctl need CAP_SYS_ADMIN of the caller
 * (-EPERM otherwise, whatever the node's mode or who opened it). Every
 * attachment belongs to the open file that made it: close() (or the death
 * of the holder) detaches all of them, and the module cannot be unloaded
 * while a file is open.
 *
 * Errors. Every ioctl returns 0 or -1 with errno set; each errno below has
 * exactly one meaning per command, so a caller can tell the cases apart:
 *
 *   all commands
 *     ENOTTY        unknown ioctl command
 *     EFAULT        the argument pointer cannot be read or written
 *     EINVAL        malformed request: unknown mode, a mode the command does
 *                   not take, unknown flag bit, a flag the mode does not take, non-zero reserved field, address
 *                   0, tgid above PID_MAX_LIMIT, N or K of 0; argw other
 *                   than 0 outside kmod-direct latency, 0 in it; ATTACH2,
 *                   ATTACH_BATCH2: comm not NUL-terminated within
 *                   TRACERD_COMM_FILTER_LEN bytes, or a non-zero byte
 *                   after its NUL
 *   TRACERD_IOC_ATTACH, TRACERD_IOC_ATTACH2
 *     ENAMETOOLONG  name not NUL-terminated within TRACERD_NAME_LEN bytes
 *     EILSEQ        name empty or holding a character outside
 *                   [A-Za-z0-9_.$] (glob characters * ? [ ] ! among them:
 *                   the module never resolves names, see below)
 *     ENXIO         no kernel symbol at addr (unknown address)
 *     ESRCH         the symbol at addr is not `name`, or addr is not its start
 *     EADDRNOTAVAIL addr is a function the mode cannot hook: callops and
 *                   direct: ftrace has no call site there (notrace, data,
 *                   ...); kprobe: the kernel refuses a kprobe there;
 *                   kprobe-int3: no ftrace call site to step over (x86: 5
 *                   bytes, riscv64: 8); direct + LATENCY: a function
 *                   that never returns (do_exit, ...)
 *     EOPNOTSUPP    the mode or flag does not exist on this kernel/arch
 *                   (see TRACERD_IOC_FEATURES: modes, flags); direct +
 *                   LATENCY: the function has arguments on the stack
 *                   (argw above 1)
 *     EBUSY         direct: the function already carries a direct call
 *                   (another kmod-direct attachment, or a BPF fentry/fexit
 *                   trampoline)
 *     ENOSPC        TRACERD_MAX_ATTACH attachments on this file, or every
 *                   direct trampoline slot is in use
 *     ENOMEM        out of memory
 *   TRACERD_IOC_DETACH, TRACERD_IOC_COUNTERS, TRACERD_IOC_SITE,
 *   TRACERD_IOC_LATENCY
 *     ENOENT        no attachment with that id on this file
 *   TRACERD_IOC_LATENCY
 *     ENODATA       the attachment does not time calls (no
 *                   TRACERD_ATTACH_LATENCY)
 *   TRACERD_IOC_ATTACH2, TRACERD_IOC_ATTACH_BATCH2 (ABI 1.8)
 *     EINVAL        with TRACERD_ATTACH_STACKS: stack_depth 0 or above
 *                   TRACERD_STACK_MAX_DEPTH, stack_slots above
 *                   TRACERD_STACK_SLOTS, or the mode is kmod-direct;
 *                   without it: stack_depth or stack_slots non-zero
 *     EOPNOTSUPP    TRACERD_ATTACH_STACKS on a kernel without
 *                   CONFIG_STACKTRACE
 *     ENOSPC        the stack table would take the module's stack tables
 *                   past TRACERD_STACK_MEM_MAX bytes (each is stack_slots
 *                   x (24 + 8 x stack_depth) bytes: ask fewer slots or
 *                   frames, or stacks on fewer functions)
 *   TRACERD_IOC_STACKS: see struct tracerd_stacks
 *   TRACERD_IOC_ATTACH_BATCH, TRACERD_IOC_ATTACH_BATCH2,
 *   TRACERD_IOC_DETACH_BATCH (the call as a whole)
 *     EINVAL        bad header: mode/flags/tgid/comm as for ATTACH2, count 0,
 *                   non-zero reserved
 *     E2BIG         count above TRACERD_MAX_ATTACH
 *     EOPNOTSUPP    the mode does not exist on this kernel/arch
 *     ENOMEM        out of memory before any entry was tried
 *     EFAULT        the entries cannot be read or written back (nothing of
 *                   this call stays attached)
 *   per entry (tracerd_batch_entry.error), the ATTACH / DETACH errnos, and
 *     EEXIST        attach: the same address appears earlier in the batch
 *   TRACERD_IOC_SITE
 *     EADDRNOTAVAIL the function's ftrace call site cannot be read
 *   TRACERD_IOC_SITES (the call as a whole)
 *     EINVAL        count 0, non-zero reserved
 *     E2BIG         count above TRACERD_SITES_MAX
 *     EFAULT        the entries cannot be read or written back
 *   per entry (tracerd_site_entry.error)
 *     EINVAL        address 0, non-zero reserved
 *     ENXIO         no kernel symbol at addr
 *     ESRCH         addr is not the start of its symbol
 *     EADDRNOTAVAIL ftrace has no call site in that function (notrace,
 *                   data, init text gone, ...), or its text cannot be read
 *   TRACERD_IOC_BENCH_OPS, TRACERD_IOC_BENCH_PATCH, TRACERD_IOC_BENCH_ALL
 *     E2BIG         N, R, I, K or reps above its limit (direct: R above 1)
 *     EINTR         a signal arrived while waiting for another benchmark,
 *                   or the caller was killed during the call loop
 *     EPROTO        the hook counts disagree with N x R x reps (ops), K (patch)
 *                   or 1 (all: the module's tracee, called once):
 *                   the point is an error, not a number (results are still
 *                   copied out for diagnosis)
 *     and the attach errors above, for the module's own tracee functions
 *     (e.g. EBUSY when a direct call already sits on one of them).
 *
 * Names. The daemon resolves names (BTF, /proc/kallsyms) and passes the
 * address together with the name; the module checks that they agree with
 * kallsyms (ENXIO, ESRCH) and never looks a name up itself.
 *
 * argw (ABI 1.7; tracerd_attach's and tracerd_batch_entry's field that
 * was `reserved`, must be 0 otherwise). kmod-direct with
 * TRACERD_ATTACH_LATENCY times a call by calling the function from its
 * trampoline (x86_64, arm64), with the argument registers as they came: a
 * function whose arguments are partly on the stack would find them
 * elsewhere. The caller says how the arguments travel, from the
 * function's BTF: argw = 1 + the 8-byte stack words they take. Only
 * argw 1 (every argument in a register) is taken. A timed call's return
 * runs through the module, so a detached attachment whose calls are still
 * running (a task asleep in the function) stays, and holds the module
 * loaded, until they have returned (TRACERD_IOC_STATS: draining; rmmod
 * says the module is in use meanwhile).
 *
 * tgid. 0 counts every task; otherwise only tasks whose thread-group id
 * (in the initial pid namespace) equals tgid are counted as hits, the
 * others as `filtered`.
 *
 * comm (ABI 1.6: ATTACH2, ATTACH_BATCH2). "" counts every task; otherwise
 * only tasks whose comm (current->comm, at most 15 bytes) is exactly comm
 * are counted as hits, the others as `filtered` (never as missed); with
 * tgid both must match. Latency: a filtered call is not timed. ATTACH and
 * ATTACH_BATCH are ATTACH2 and ATTACH_BATCH2 with comm "": their layouts
 * are the new ones' prefixes, and a module of ABI >= 1.6 takes both. A
 * module older than 1.6 answers ENOTTY to the new numbers: the daemon
 * checks abi_minor >= 6 before it asks for a comm filter.
 */
#ifndef TRACERD_KMOD_ABI_H
#define TRACERD_KMOD_ABI_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/ioctl.h>
#else
#include <linux/types.h>
#include <sys/ioctl.h>
#endif

#define TRACERD_DEV_NAME	"tracerd"
#define TRACERD_DEV_PATH	"/dev/tracerd"
#define TRACERD_IOC_MAGIC	'x'

#define TRACERD_ABI_MAJOR	1
#define TRACERD_ABI_MINOR	9	/* 1.2: SITE, BENCH_ALL; 1.3: ATTACH_BATCH, DETACH_BATCH;
					 * 1.4: SITES;
					 * 1.5: ATTACH_LATENCY, LATENCY, features.latency_modes;
					 * 1.6: ATTACH2, ATTACH_BATCH2 (comm filter);
					 * 1.7: kmod-direct LATENCY (argw), stats.draining;
					 * 1.8: ATTACH_STACKS (stack_depth, stack_slots),
					 *      STACKS, FEAT_STACKS;
					 * 1.9: TRACERD_MAX_ATTACH 4096 -> 262144,
					 *      COUNTERS_BATCH */

/* Attach modes (docs/kernel-facts.md, "The attach paths"). 0 is never valid. */
enum tracerd_kmod_mode {
	TRACERD_KMOD_CALLOPS	= 1,	/* kmod-callops: ftrace_ops C callback */
	TRACERD_KMOD_DIRECT	= 2,	/* kmod-direct: ftrace direct call to asm */
	TRACERD_KMOD_KPROBE	= 3,	/* kmod-kprobe: kprobe at the entry */
	TRACERD_KMOD_KPROBE_INT3 = 4,	/* kprobe past the ftrace site (x86 +5/+9, riscv64 +8) */
};
#define TRACERD_KMOD_MODE_MAX	4

/* Attach flags. */
#define TRACERD_ATTACH_SAVE_REGS (1U << 0)	/* callops: FTRACE_OPS_FL_SAVE_REGS */
/*
 * Time every call entry -> return into a per-CPU log2 histogram
 * (TRACERD_IOC_LATENCY). kmod-kprobe: a kretprobe (entry_handler, the
 * entry time in the instance data); kmod-callops: an fprobe of its own
 * (rethook before 6.14, the function-graph tracer from 6.14), kernels >=
 * 6.5 with CONFIG_FPROBE only. Which modes take it here:
 * tracerd_features.latency_modes. kprobe-int3 and save_regs: EINVAL (a
 * return hook sits at the entry, through its own ops); kmod-direct:
 * EOPNOTSUPP (its return would need a shadow stack in the trampoline: not
 * built).
 */
#define TRACERD_ATTACH_LATENCY	(1U << 1)
/*
 * ABI 1.8: count the distinct kernel stacks the calls were made from
 * (TRACERD_IOC_STACKS), ATTACH2 / ATTACH_BATCH2 only (their stack_depth
 * and stack_slots say how deep and how many). kmod-callops (its callback,
 * a batch's too, and its fprobe with LATENCY), kmod-kprobe and
 * kprobe-int3 (the pre handler, the kretprobe's entry handler); kmod-direct:
 * EINVAL (its trampoline is asm: a C call per hit would undo what the mode
 * is for). Only counted calls (past the tgid and comm filters) are
 * captured. Where the module has it: TRACERD_FEAT_STACKS, attach_flags.
 */
#define TRACERD_ATTACH_STACKS	(1U << 2)
#define TRACERD_ATTACH_FLAGS	(TRACERD_ATTACH_SAVE_REGS | TRACERD_ATTACH_LATENCY | \
				 TRACERD_ATTACH_STACKS)

/* Histogram buckets of TRACERD_IOC_LATENCY: log2 ns, the layout of the BPF
 * side's (tracerd/trace.h TRACERD_HIST_BUCKETS, tracerd_hist_bucket()):
 * 0 ns -> 0, [2^(i-1), 2^i) ns -> i, the last bucket open-ended. */
#define TRACERD_LAT_BUCKETS	40

/* Limits (also reported by TRACERD_IOC_FEATURES). */
#define TRACERD_NAME_LEN		128	/* bytes, NUL included */
#define TRACERD_COMM_FILTER_LEN		16	/* bytes, NUL included: TASK_COMM_LEN */
/*
 * Live attachments per file, and entries per batch: ABI 1.9 raised it from
 * 4096 to 2^18 so that one batch (one ftrace_ops) takes every traceable
 * function of a kernel (about 50k on 6.12, 130k with modules); a module
 * says its own in features.max_attach, which a daemon must honour.
 */
#define TRACERD_MAX_ATTACH		262144
#define TRACERD_BENCH_MAX_CALLS		100000000ULL	/* N */
#define TRACERD_BENCH_MAX_RELEVANT	200	/* R (direct: 1) */
#define TRACERD_BENCH_MAX_IRRELEVANT	1000	/* I */
#define TRACERD_BENCH_MAX_FUNCS		1024	/* K */
#define TRACERD_BENCH_MAX_REPS		100	/* ops: timed runs per loop */
#define TRACERD_STACK_MAX_DEPTH		127	/* frames kept per stack */
#define TRACERD_STACK_SLOTS		1024	/* distinct stacks per attachment (most) */
#define TRACERD_STACK_MEM_MAX		(64ULL << 20)	/* bytes of every stack table
							 * together (module-wide) */

/* TRACERD_IOC_VERSION: what the module speaks. */
struct tracerd_version {
	__u32 abi_major;	/* out: TRACERD_ABI_MAJOR of the module */
	__u32 abi_minor;	/* out: TRACERD_ABI_MINOR of the module */
	char module_version[32];	/* out: NUL-terminated module version */
};

/* TRACERD_IOC_FEATURES flags: kernel configuration the module was built for */
#define TRACERD_FEAT_DYNAMIC_FTRACE	(1ULL << 0)
#define TRACERD_FEAT_DIRECT_CALLS	(1ULL << 1)	/* ..._WITH_DIRECT_CALLS */
#define TRACERD_FEAT_CALL_OPS		(1ULL << 2)	/* ..._WITH_CALL_OPS */
#define TRACERD_FEAT_WITH_ARGS		(1ULL << 3)	/* ..._WITH_ARGS */
#define TRACERD_FEAT_WITH_REGS		(1ULL << 4)	/* ..._WITH_REGS */
#define TRACERD_FEAT_KPROBES		(1ULL << 5)
#define TRACERD_FEAT_KPROBES_ON_FTRACE	(1ULL << 6)
#define TRACERD_FEAT_IBT		(1ULL << 7)	/* X86_KERNEL_IBT */
#define TRACERD_FEAT_CALL_DEPTH		(1ULL << 8)	/* call depth tracking built */
#define TRACERD_FEAT_FPROBE		(1ULL << 9)
#define TRACERD_FEAT_DIRECT_API_OPS	(1ULL << 10)	/* register_ftrace_direct(ops, addr) */
#define TRACERD_FEAT_STACKS		(1ULL << 11)	/* ABI 1.8: TRACERD_ATTACH_STACKS works
							 * (CONFIG_STACKTRACE) */

/* TRACERD_IOC_FEATURES: what this kernel and module can do. */
struct tracerd_features {
	__u64 flags;		/* out: TRACERD_FEAT_* */
	__u32 modes;		/* out: bit (1 << mode) set when the mode works here */
	__u32 attach_flags;	/* out: TRACERD_ATTACH_* flags usable here */
	__u32 linux_version_code;	/* out: LINUX_VERSION_CODE built against */
	__u32 direct_slots;	/* out: direct trampolines (live direct attachments) */
	__u32 name_len;		/* out: TRACERD_NAME_LEN */
	__u32 max_attach;	/* out: TRACERD_MAX_ATTACH */
	__u64 max_calls;	/* out: TRACERD_BENCH_MAX_CALLS */
	__u32 max_relevant;	/* out: TRACERD_BENCH_MAX_RELEVANT */
	__u32 max_irrelevant;	/* out: TRACERD_BENCH_MAX_IRRELEVANT */
	__u32 max_funcs;	/* out: TRACERD_BENCH_MAX_FUNCS */
	__u32 latency_modes;	/* out: bit (1 << mode) where TRACERD_ATTACH_LATENCY
				 * works here (ABI < 1.5: reserved, 0) */
	char arch[16];		/* out: "x86_64", "arm64", ... */
	char release[64];	/* out: running kernel's uname -r */
};

/* TRACERD_IOC_ATTACH: hook one function; the attachment belongs to the fd. */
struct tracerd_attach {
	__u64 addr;		/* in: function entry address */
	__u32 mode;		/* in: enum tracerd_kmod_mode */
	__u32 flags;		/* in: TRACERD_ATTACH_* */
	__u32 tgid;		/* in: 0 = every task, else this thread group only */
	__u32 argw;		/* in: 0; kmod-direct + LATENCY (ABI 1.7): 1 + the
				 * 8-byte words of the function's arguments
				 * passed on the stack (its BTF): see below */
	__u64 id;		/* out: attachment id, >= 1, unique per fd */
	__u64 probe_addr;	/* out: where the hook sits (kprobe-int3: addr+5/+9) */
	char name[TRACERD_NAME_LEN];	/* in: the function's name, NUL-terminated */
};

/*
 * TRACERD_IOC_ATTACH2 (ABI 1.6): TRACERD_IOC_ATTACH with a comm filter;
 * the first 168 bytes are struct tracerd_attach's.
 */
struct tracerd_attach2 {
	__u64 addr;		/* in: function entry address */
	__u32 mode;		/* in: enum tracerd_kmod_mode */
	__u32 flags;		/* in: TRACERD_ATTACH_* */
	__u32 tgid;		/* in: 0 = every task, else this thread group only */
	__u32 argw;		/* in: 0; kmod-direct + LATENCY (ABI 1.7): 1 + the
				 * 8-byte words of the function's arguments
				 * passed on the stack (its BTF): see below */
	__u64 id;		/* out: attachment id, >= 1, unique per fd */
	__u64 probe_addr;	/* out: where the hook sits (kprobe-int3: addr+5/+9) */
	char name[TRACERD_NAME_LEN];	/* in: the function's name, NUL-terminated */
	char comm[TRACERD_COMM_FILTER_LEN];	/* in: "" = every task, else this
						 * comm only; NUL-terminated and
						 * NUL-padded */
	__u32 stack_depth;	/* in (ABI 1.8): TRACERD_ATTACH_STACKS: frames kept,
				 * 1..TRACERD_STACK_MAX_DEPTH; else 0 */
	__u32 stack_slots;	/* in (ABI 1.8): TRACERD_ATTACH_STACKS: distinct
				 * stacks kept, 0 (TRACERD_STACK_SLOTS) or
				 * 1..TRACERD_STACK_SLOTS; else 0 */
	__u64 reserved2;	/* in: must be 0 */
};

/* TRACERD_IOC_DETACH: remove one attachment of this fd. */
struct tracerd_detach {
	__u64 id;		/* in: id from TRACERD_IOC_ATTACH */
};

/* TRACERD_IOC_COUNTERS: an attachment's per-CPU counters, summed. */
struct tracerd_counters {
	__u64 id;		/* in: id from TRACERD_IOC_ATTACH */
	__u64 hits;		/* out: calls counted (passed the tgid filter) */
	__u64 filtered;		/* out: calls skipped by the tgid filter */
	__u64 missed;		/* out: kprobe modes: kprobe nmissed; else 0 */
	__u64 addr;		/* out: function address */
	__u64 probe_addr;	/* out: hook address */
	__u32 mode;		/* out */
	__u32 flags;		/* out */
	__u32 tgid;		/* out */
	__u32 reserved;		/* out: 0 */
};

/*
 * TRACERD_IOC_COUNTERS_BATCH (ABI 1.9): the counters of up to
 * TRACERD_COUNTERS_BATCH_MAX attachments of this fd in one call (a
 * daemon's stats read of attach '*' was one COUNTERS ioctl per function:
 * 50k syscalls). Each entry's id in; its counters, as TRACERD_IOC_COUNTERS
 * sums them, or error ENOENT (no attachment with that id on this fd) out.
 * The call as a whole: EINVAL count 0 or reserved non-zero, E2BIG count
 * above the limit, EFAULT the entries cannot be read or written back.
 */
#define TRACERD_COUNTERS_BATCH_MAX	4096

struct tracerd_counters_entry {
	__u64 id;		/* in: id from an attach */
	__u64 hits;		/* out: as tracerd_counters' */
	__u64 filtered;		/* out */
	__u64 missed;		/* out */
	__s32 error;		/* out: 0 or -ENOENT */
	__u32 reserved;		/* out: 0 */
};

struct tracerd_counters_batch {
	__u64 entries;		/* in: user pointer to `count` entries */
	__u32 count;		/* in: 1..TRACERD_COUNTERS_BATCH_MAX */
	__u32 done;		/* out: entries read (error 0) */
	__u64 reserved;		/* in: must be 0 */
};

/*
 * TRACERD_IOC_STATS: leak accounting, module-wide. At rest, with only the
 * caller's fd open: files == 1, attachments == 0, allocs == 1 (that fd's
 * state), direct_slots == 0.
 */
struct tracerd_stats {
	__u64 files;		/* out: open /dev/tracerd files */
	__u64 attachments;	/* out: live attachments, every file and bench */
	__u64 allocs;		/* out: live allocations made by the module */
	__u64 direct_slots;	/* out: direct trampoline slots in use */
	__u64 draining;		/* out: detached kmod-direct latency attachments
				 * whose timed calls have not all returned
				 * (ABI 1.7; counted in attachments too) */
	__u64 reserved[3];	/* out: 0 */
};

/*
 * TRACERD_IOC_BENCH_OPS: call the module's own tracee N times with R
 * relevant attachments on it and I irrelevant ones on I other functions of
 * the module, all in `mode`; time the same loop with nothing attached first.
 * Each loop runs `reps` times (0 counts as 1) and the fastest run is kept,
 * which filters out preemption and, in a VM, host noise. ns figures are
 * wall-clock (ktime) and include the loop itself; the loop yields every 64k
 * calls. Benchmarks are serialized module-wide.
 */
struct tracerd_bench_ops {
	__u32 mode;		/* in: enum tracerd_kmod_mode */
	__u32 flags;		/* in: TRACERD_ATTACH_* */
	__u64 calls;		/* in: N, 1..TRACERD_BENCH_MAX_CALLS */
	__u32 relevant;		/* in: R, 0..TRACERD_BENCH_MAX_RELEVANT (direct: 1) */
	__u32 irrelevant;	/* in: I, 0..TRACERD_BENCH_MAX_IRRELEVANT */
	__u64 total_ns;		/* out: N calls with the tracers attached */
	__u64 per_call_ns;	/* out: total_ns / N */
	__u64 base_total_ns;	/* out: N calls with nothing attached */
	__u64 base_per_call_ns;	/* out: base_total_ns / N */
	__s64 overhead_ps;	/* out: per-call difference, picoseconds */
	__u64 hits;		/* out: relevant hook calls, must be N * R * reps */
	__u64 irrelevant_hits;	/* out: irrelevant hook calls, must be 0 */
	__u64 attach_ns;	/* out: time to attach R + I */
	__u64 detach_ns;	/* out: time to detach them */
	__u32 reps;		/* in: timed runs per loop, 0..TRACERD_BENCH_MAX_REPS */
	__u32 reserved;		/* in: must be 0 */
};

/*
 * TRACERD_IOC_BENCH_PATCH: attach then detach K distinct functions of the
 * module, (a) as one hook covering all K (callops/direct: one ftrace_ops
 * whose filter holds K addresses, set by ftrace_set_filter_ips, what
 * enabling a tracer does; kprobe modes: one register_kprobes() batch) and
 * (b) as K separate attachments. Between attach and detach each function
 * is called once, so both hit counts must equal K. TRACERD_ATTACH_LATENCY
 * is not taken here nor by BENCH_ALL (EINVAL); BENCH_OPS takes it.
 * TRACERD_ATTACH_STACKS is taken by no benchmark (EINVAL: no depth).
 */
struct tracerd_bench_patch {
	__u32 mode;		/* in: enum tracerd_kmod_mode */
	__u32 flags;		/* in: TRACERD_ATTACH_* */
	__u32 funcs;		/* in: K, 1..TRACERD_BENCH_MAX_FUNCS */
	__u32 reserved;		/* in: must be 0 */
	__u64 one_attach_ns;	/* out: (a) register, filter included */
	__u64 one_detach_ns;	/* out: (a) unregister and free */
	__u64 sep_attach_ns;	/* out: (b) K registrations */
	__u64 sep_detach_ns;	/* out: (b) K unregistrations */
	__u64 one_hits;		/* out: (a) hook calls, must equal K */
	__u64 sep_hits;		/* out: (b) hook calls, must equal K */
};

/*
 * TRACERD_IOC_SITE: what the ftrace call site of an attachment's function
 * branches to right now (it changes as other tracers come and go on the
 * same function). The site is the patched call instruction: x86_64 the
 * 5-byte call at +0 (+4 behind ENDBR), arm64 the BL after `mov x9, x30`.
 *
 *   TRACERD_SITE_NOP     no branch: the site is not patched (e.g. a kprobe
 *                        mode that does not go through ftrace)
 *   TRACERD_SITE_DIRECT  a branch straight to this attachment's own direct
 *                        trampoline (kmod-direct only)
 *   TRACERD_SITE_CALLER  a branch to code shared through ftrace: the common
 *                        caller (ftrace_caller, ftrace_regs_caller) or an
 *                        ftrace ops trampoline, which then reaches the hook;
 *                        for kmod-direct this is the indirect direct-call
 *                        path (arm64: the trampoline is out of BL range, or
 *                        another tracer shares the function)
 *   TRACERD_SITE_UNKNOWN an instruction this module does not decode
 */
enum tracerd_site_path {
	TRACERD_SITE_NOP	= 0,
	TRACERD_SITE_DIRECT	= 1,
	TRACERD_SITE_CALLER	= 2,
	TRACERD_SITE_UNKNOWN	= 3,
};

struct tracerd_site {
	__u64 id;		/* in: id from TRACERD_IOC_ATTACH */
	__u64 site;		/* out: address of the call instruction */
	__u64 target;		/* out: where it branches, 0 for NOP/UNKNOWN */
	__u64 tramp;		/* out: kmod-direct: this attachment's trampoline */
	__u32 path;		/* out: enum tracerd_site_path */
	__u32 insn;		/* out: first 4 bytes at site, little endian */
	__u64 reserved[2];	/* out: 0 */
	char target_sym[64];	/* out: "%ps" of target ("" when none) */
};

/*
 * TRACERD_IOC_BENCH_ALL: attach one kmod-callops ftrace_ops with an empty
 * filter (every function ftrace can trace, what `echo function >
 * current_tracer` patches), call the module's tracee once, and detach; time
 * both. `hits` counts every traced call made while attached (any task, any
 * function); `tracee_hits` the tracee's, which must be 1. The number of
 * functions patched is the length of tracing/available_filter_functions,
 * read by the caller. Serialized with the other benchmarks.
 */
struct tracerd_bench_all {
	__u32 mode;		/* in: TRACERD_KMOD_CALLOPS (the only one) */
	__u32 flags;		/* in: TRACERD_ATTACH_* */
	__u64 attach_ns;	/* out: register_ftrace_function() */
	__u64 detach_ns;	/* out: unregister_ftrace_function() */
	__u64 hits;		/* out: traced calls while attached */
	__u64 tracee_hits;	/* out: of them the tracee's, must be 1 */
	__u64 reserved[3];	/* in: must be 0 */
};

/*
 * TRACERD_IOC_ATTACH_BATCH: attach many functions in one kernel update, all
 * with the header's mode, flags and tgid. callops: one ftrace_ops whose
 * filter holds every address, its callback finding the function's
 * attachment by ip; direct: one direct ops routing every address to one
 * trampoline slot, which finds the attachment by its return address;
 * kprobe modes: one kprobe each. Every entry still gets an id of its own
 * (DETACH, COUNTERS, SITE take it) or its errno in `error`; the others stay
 * attached (partial success). `done` counts the attached entries. When
 * the one registration fails, every entry carries its errno.
 *
 * A member of a callops/direct batch detached on its own stops counting at
 * once; callops unhooks its function at once, direct when the batch's last
 * member is detached (direct calls of one ops cannot shrink before 7.x's
 * batch API, which modules cannot call). Its memory and accounting
 * (STATS) go with the batch's last member.
 *
 * TRACERD_IOC_DETACH_BATCH: detach the entries' ids (only `id` is read,
 * `error` written: 0 or ENOENT); a whole batch goes in one update. mode,
 * flags and tgid of the header must be 0.
 */
struct tracerd_batch_entry {
	__u64 addr;		/* attach in: function entry address */
	__u64 id;		/* attach out (0 on error); detach in */
	__u64 probe_addr;	/* attach out: where the hook sits */
	__s32 error;		/* out: 0 or -errno of this entry */
	__u32 argw;		/* in: as tracerd_attach2's (0 before ABI 1.7) */
	char name[TRACERD_NAME_LEN];	/* attach in: NUL-terminated */
};

struct tracerd_batch {
	__u64 entries;		/* in: user pointer to `count` entries */
	__u32 count;		/* in: 1..TRACERD_MAX_ATTACH */
	__u32 mode;		/* in: attach: enum tracerd_kmod_mode; detach: 0 */
	__u32 flags;		/* in: attach: TRACERD_ATTACH_*; detach: 0 */
	__u32 tgid;		/* in: attach: as TRACERD_IOC_ATTACH; detach: 0 */
	__u32 done;		/* out: entries attached / detached */
	__u32 reserved;		/* in: must be 0 */
};

/*
 * TRACERD_IOC_ATTACH_BATCH2 (ABI 1.6): TRACERD_IOC_ATTACH_BATCH with the
 * comm filter of TRACERD_IOC_ATTACH2 for every entry; the first 32 bytes
 * are struct tracerd_batch's, the entries are the same.
 */
struct tracerd_batch2 {
	__u64 entries;		/* in: user pointer to `count` entries */
	__u32 count;		/* in: 1..TRACERD_MAX_ATTACH */
	__u32 mode;		/* in: enum tracerd_kmod_mode */
	__u32 flags;		/* in: TRACERD_ATTACH_* */
	__u32 tgid;		/* in: as TRACERD_IOC_ATTACH */
	__u32 done;		/* out: entries attached */
	__u32 reserved;		/* in: must be 0 */
	char comm[TRACERD_COMM_FILTER_LEN];	/* in: as TRACERD_IOC_ATTACH2 */
	__u32 stack_depth;	/* in: as TRACERD_IOC_ATTACH2, for every entry */
	__u32 stack_slots;	/* in: as TRACERD_IOC_ATTACH2, each entry its own table */
	__u64 reserved2;	/* in: must be 0 */
};

/*
 * TRACERD_IOC_SITES: what the ftrace call site of any traceable function
 * holds now, attached by anyone or by no one, up to TRACERD_SITES_MAX
 * functions per call. An address is read only once kallsyms says it starts
 * a symbol and ftrace says that function has a call site (the module
 * never reads memory named by the caller otherwise), and every read is a
 * nofault one. Entries are independent: each gets its own `error`; `done`
 * counts the entries decoded.
 *
 * kind, from what the site branches to (target, target_sym = "%ps"):
 *   NOP       no branch: nothing uses ftrace on the function
 *   CALLER    the common caller: ftrace_caller / ftrace_regs_caller
 *             (arm64 CALL_OPS: it then calls the literal's ops)
 *   OPS_TRAMP an ftrace ops trampoline that %ps names ftrace_trampoline
 *             (x86_64's per-ops dynamic trampolines are unnamed on 6.x:
 *             OTHER here; the daemon tells them by enabled_functions'
 *             "tramp: ADDR")
 *   TRACERD   a direct trampoline of this module (kmod-direct)
 *   BPF       a BPF trampoline (fentry/fexit/fmod_ret: bpf_trampoline_*)
 *   OTHER     a branch anywhere else (another module's direct trampoline)
 *   UNKNOWN   an instruction this module does not decode
 *
 * ops (arm64 with DYNAMIC_FTRACE_WITH_CALL_OPS only, else 0): the 8-byte
 * literal before the function, the ftrace_ops ftrace_caller hands the call
 * to; ops_kind says whose: ftrace_list_ops (several ops share the
 * function: the list walker), ftrace_nop_ops (none), an ops of this module,
 * another one (ops_sym "%ps" of it, ops_call_sym of its direct call, or of
 * its callback when it has none).
 */
enum tracerd_site_kind {
	TRACERD_SITEK_NOP	= 0,
	TRACERD_SITEK_CALLER	= 1,
	TRACERD_SITEK_OPS_TRAMP	= 2,
	TRACERD_SITEK_TRACERD	= 3,
	TRACERD_SITEK_BPF	= 4,
	TRACERD_SITEK_OTHER	= 5,
	TRACERD_SITEK_UNKNOWN	= 6,
};

enum tracerd_site_ops_kind {
	TRACERD_SITEOPS_NONE	= 0,	/* no literal on this kernel/arch */
	TRACERD_SITEOPS_LIST	= 1,	/* ftrace_list_ops */
	TRACERD_SITEOPS_NOP	= 2,	/* ftrace_nop_ops */
	TRACERD_SITEOPS_TRACERD	= 3,	/* an ops of this module */
	TRACERD_SITEOPS_OTHER	= 4,
};

#define TRACERD_SITES_MAX	64	/* entries per TRACERD_IOC_SITES */

struct tracerd_site_entry {
	__u64 addr;		/* in: the function's start */
	__u64 site;		/* out: address of the patched instruction */
	__u64 target;		/* out: where it branches, 0 for NOP/UNKNOWN */
	__u64 ops;		/* out: arm64 CALL_OPS literal, else 0 */
	__u64 ops_call;		/* out: that ops' direct call, else its func */
	__u32 kind;		/* out: enum tracerd_site_kind */
	__u32 insn;		/* out: first 4 bytes at site, little endian */
	__u32 ops_kind;		/* out: enum tracerd_site_ops_kind */
	__s32 error;		/* out: 0 or -errno of this entry */
	__u64 reserved;		/* in: must be 0 */
	char target_sym[64];	/* out: "%ps" of target ("" when none) */
	char ops_sym[64];	/* out: "%ps" of ops ("" when none) */
	char ops_call_sym[64];	/* out: "%ps" of ops_call ("" when none) */
};

struct tracerd_sites {
	__u64 entries;		/* in: user pointer to `count` entries */
	__u32 count;		/* in: 1..TRACERD_SITES_MAX */
	__u32 done;		/* out: entries decoded (error 0) */
	__u64 reserved;		/* in: must be 0 */
};

/*
 * TRACERD_IOC_LATENCY: the latency histogram of an attachment made with
 * TRACERD_ATTACH_LATENCY, summed over CPUs (min and max combined). Each
 * sample is one call timed entry -> return with ktime_get_mono_fast_ns()
 * (the clock of bpf_ktime_get_ns()); a call is in `count` once it returned.
 * Errors: ENOENT no attachment with that id on this file; ENODATA the
 * attachment was made without TRACERD_ATTACH_LATENCY.
 */
struct tracerd_latency {
	__u64 id;		/* in: id from TRACERD_IOC_ATTACH */
	__u64 count;		/* out: timed calls, the sum of hist */
	__u64 sum_ns;		/* out: sum of their durations */
	__u64 min_ns;		/* out: 0 when count is 0 */
	__u64 max_ns;		/* out */
	__u64 missed;		/* out: calls the kernel did not time (kretprobe
				 * or fprobe nmissed: no free return instance,
				 * recursion) */
	__u64 reserved[2];	/* out: 0 */
	__u64 hist[TRACERD_LAT_BUCKETS];	/* out */
};

/*
 * TRACERD_IOC_STACKS (ABI 1.8): the distinct kernel stacks an attachment
 * made with TRACERD_ATTACH_STACKS counted, copied to buf as records, each
 * a struct tracerd_stack_rec followed by nr __u64 return addresses,
 * innermost first: the first is inside the traced function (its ftrace
 * call's return, or the probed instruction), then its caller, and so on
 * (the module's own frames, ftrace's and kprobes' are left out; where a
 * kprobe finds the caller's return address in a link register, arm64 and
 * riscv64, the module adds it as the second).
 * A stack is counted in its slot with an atomic add, any context; the
 * calls whose stack was not kept are `dropped`: the table full (a new
 * stack found no free slot among the 64 its hash probes), the slot of a
 * new stack being filled on another CPU at that moment, a capture nested
 * in another on the same CPU (an interrupt), or an unwind that did not
 * reach the traced function. Errors: ENOENT no attachment with that id on
 * this file; ENODATA made without TRACERD_ATTACH_STACKS; EINVAL non-zero
 * reserved; ENOSPC buf holds not every record (those that fit are
 * written, `stacks` says how many, `total` how many there are: call
 * again with size >= `need`); EFAULT buf cannot be written.
 */
struct tracerd_stack_rec {
	__u64 count;		/* calls made from this stack */
	__u32 nr;		/* return addresses that follow, 1..stack_depth */
	__u32 reserved;		/* 0 */
	/* __u64 ips[nr]; */
};

struct tracerd_stacks {
	__u64 id;		/* in: id from TRACERD_IOC_ATTACH2 */
	__u64 buf;		/* in: user pointer to size bytes */
	__u64 size;		/* in: bytes at buf (0: ask for total and need) */
	__u64 need;		/* out: bytes every record takes */
	__u64 dropped;		/* out: calls whose stack was not kept */
	__u32 stacks;		/* out: records written */
	__u32 total;		/* out: distinct stacks in the table */
	__u32 depth;		/* out: the attachment's stack_depth */
	__u32 slots;		/* out: its table's slots */
	__u64 reserved[2];	/* in: must be 0 */
};

#define TRACERD_IOC_VERSION	_IOR(TRACERD_IOC_MAGIC, 1, struct tracerd_version)
#define TRACERD_IOC_FEATURES	_IOR(TRACERD_IOC_MAGIC, 2, struct tracerd_features)
#define TRACERD_IOC_ATTACH	_IOWR(TRACERD_IOC_MAGIC, 3, struct tracerd_attach)
#define TRACERD_IOC_DETACH	_IOW(TRACERD_IOC_MAGIC, 4, struct tracerd_detach)
#define TRACERD_IOC_COUNTERS	_IOWR(TRACERD_IOC_MAGIC, 5, struct tracerd_counters)
#define TRACERD_IOC_STATS	_IOR(TRACERD_IOC_MAGIC, 6, struct tracerd_stats)
#define TRACERD_IOC_BENCH_OPS	_IOWR(TRACERD_IOC_MAGIC, 7, struct tracerd_bench_ops)
#define TRACERD_IOC_BENCH_PATCH	_IOWR(TRACERD_IOC_MAGIC, 8, struct tracerd_bench_patch)
#define TRACERD_IOC_SITE	_IOWR(TRACERD_IOC_MAGIC, 9, struct tracerd_site)
#define TRACERD_IOC_BENCH_ALL	_IOWR(TRACERD_IOC_MAGIC, 10, struct tracerd_bench_all)
#define TRACERD_IOC_ATTACH_BATCH _IOWR(TRACERD_IOC_MAGIC, 11, struct tracerd_batch)
#define TRACERD_IOC_DETACH_BATCH _IOWR(TRACERD_IOC_MAGIC, 12, struct tracerd_batch)
#define TRACERD_IOC_SITES	_IOWR(TRACERD_IOC_MAGIC, 13, struct tracerd_sites)
#define TRACERD_IOC_LATENCY	_IOWR(TRACERD_IOC_MAGIC, 14, struct tracerd_latency)
#define TRACERD_IOC_ATTACH2	_IOWR(TRACERD_IOC_MAGIC, 15, struct tracerd_attach2)
#define TRACERD_IOC_ATTACH_BATCH2 _IOWR(TRACERD_IOC_MAGIC, 16, struct tracerd_batch2)
#define TRACERD_IOC_STACKS	_IOWR(TRACERD_IOC_MAGIC, 17, struct tracerd_stacks)
#define TRACERD_IOC_COUNTERS_BATCH _IOWR(TRACERD_IOC_MAGIC, 18, struct tracerd_counters_batch)

#ifndef __cplusplus
_Static_assert(sizeof(struct tracerd_version) == 40, "tracerd_version ABI size");
_Static_assert(sizeof(struct tracerd_features) == 136, "tracerd_features ABI size");
_Static_assert(sizeof(struct tracerd_attach) == 168, "tracerd_attach ABI size");
_Static_assert(sizeof(struct tracerd_attach2) == 200, "tracerd_attach2 ABI size");
_Static_assert(sizeof(struct tracerd_batch2) == 64, "tracerd_batch2 ABI size");
_Static_assert(sizeof(struct tracerd_detach) == 8, "tracerd_detach ABI size");
_Static_assert(sizeof(struct tracerd_counters) == 64, "tracerd_counters ABI size");
_Static_assert(sizeof(struct tracerd_stats) == 64, "tracerd_stats ABI size");
_Static_assert(sizeof(struct tracerd_bench_ops) == 104, "tracerd_bench_ops ABI size");
_Static_assert(sizeof(struct tracerd_bench_patch) == 64, "tracerd_bench_patch ABI size");
_Static_assert(sizeof(struct tracerd_site) == 120, "tracerd_site ABI size");
_Static_assert(sizeof(struct tracerd_bench_all) == 64, "tracerd_bench_all ABI size");
_Static_assert(sizeof(struct tracerd_batch_entry) == 160, "tracerd_batch_entry ABI size");
_Static_assert(sizeof(struct tracerd_batch) == 32, "tracerd_batch ABI size");
_Static_assert(sizeof(struct tracerd_site_entry) == 256, "tracerd_site_entry ABI size");
_Static_assert(sizeof(struct tracerd_sites) == 24, "tracerd_sites ABI size");
_Static_assert(sizeof(struct tracerd_stack_rec) == 16, "tracerd_stack_rec ABI size");
_Static_assert(sizeof(struct tracerd_stacks) == 72, "tracerd_stacks ABI size");
_Static_assert(sizeof(struct tracerd_latency) == 64 + 8 * TRACERD_LAT_BUCKETS,
	       "tracerd_latency ABI size");
#endif

#endif /* TRACERD_KMOD_ABI_H */
