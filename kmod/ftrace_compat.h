/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API drift, in one place. Version checks live here and nowhere
 * else in tracerd_kmod; the rest of the module calls the tracerd_*()
 * wrappers below. Usable from C and from the arch .S files.
 *
 * Known drift:
 * - Direct calls: before v6.4, a multi-function direct call is
 *   register_ftrace_direct_multi(ops, addr) and
 *   unregister_ftrace_direct_multi(ops, addr), which leaves the ops filter
 *   to the caller. From v6.4 the same thing is register_ftrace_direct(ops,
 *   addr) and unregister_ftrace_direct(ops, addr, free_filters); we pass
 *   free_filters = false and free the filter ourselves, so one code path
 *   frees it exactly once on every kernel (passing true *and* calling
 *   ftrace_free_filter() is a double free, seen as a slub BUG on 6.12).
 * - x86 call depth tracking (v6.2+): a direct trampoline must account for
 *   the call that reached it (CALL_DEPTH_ACCOUNT); older kernels have no
 *   such macro, so an empty one stands in.
 * - Jump-entered direct calls (CONFIG_DYNAMIC_FTRACE_WITH_JMP, 7.x): a
 *   direct address with bit 0 set (ftrace_jmp_set()) is reached by a jmp,
 *   with the traced function's return address already popped; BPF uses it
 *   for fexit trampolines, which call the function themselves. Our
 *   trampolines return into the function, so they must be entered by a
 *   call: tracerd_register_direct() refuses a jump-entered address
 *   (-EINVAL) where the kernel has the notion, and the trampolines are
 *   aligned so that bit 0 is never set.
 * - 7.x also has update_ftrace_direct_add/del/mod(ops, hash): direct
 *   calls of one ops added and removed in batches, each entry with its own
 *   address. Modules cannot use them: neither they nor alloc_ftrace_hash()
 *   and add_ftrace_hash_entry_direct() are exported (7.2's Module.symvers;
 *   BPF is their only user). A kmod-direct batch is therefore one ops over
 *   many functions with ONE trampoline, registered with the (ops, addr)
 *   calls above on every kernel, the trampoline finding the function by
 *   its return address.
 * - fprobe (kmod-callops latency): entry_handler/exit_handler with an
 *   entry_data of entry_data_size bytes exist from v6.2, the entry
 *   handler returns int (non-zero: no exit call) from v6.4, and both take
 *   the return address (ret_ip) from v6.5: (fp, entry_ip, ret_ip, regs,
 *   entry_data). regs is a struct pt_regs * up to v6.13 (fprobe on
 *   rethook, FTRACE_OPS_FL_SAVE_REGS) and a struct ftrace_regs * from v6.14
 *   (fprobe on the function-graph tracer). We use the v6.5+ shape only:
 *   older kernels refuse callops latency (TRACERD_HAVE_FPROBE_LAT 0,
 *   EOPNOTSUPP, not in latency_modes). Neither unregister waits for a
 *   running exit handler (6.12: rethook_free() clears the handler, the
 *   trampoline calls it with preemption off; 7.x: fprobe_return() checks
 *   the fprobe is still registered with preemption off), so the module
 *   calls synchronize_rcu() after unregister_fprobe() before freeing.
 */
#ifndef TRACERD_FTRACE_COMPAT_H
#define TRACERD_FTRACE_COMPAT_H

#include <linux/version.h>

#ifdef __ASSEMBLY__

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
.macro CALL_DEPTH_ACCOUNT
.endm
#endif

#else /* !__ASSEMBLY__ */

#include <linux/fprobe.h>
#include <linux/ftrace.h>

/*
 * Not from v6.14, where fprobe rides on the function-graph tracer: on
 * Debian's 7.2 (x86_64) 29-kmod-latency made the ORC unwinder print
 * "WARNING: stack going in the wrong direction? at return_to_handler"
 * while hooked calls were in flight and their holder was killed. Until
 * that is understood, callops latency stays off there (kmod-kprobe's
 * kretprobe times calls on every kernel).
 */
#if IS_ENABLED(CONFIG_FPROBE) && LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0)
#define TRACERD_HAVE_FPROBE_LAT 1
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
typedef struct ftrace_regs tracerd_fprobe_regs_t;
#else
typedef struct pt_regs tracerd_fprobe_regs_t;
#endif
#else
#define TRACERD_HAVE_FPROBE_LAT 0
typedef struct pt_regs tracerd_fprobe_regs_t;
#endif

/* The kernel version this module was built against (FEATURES ioctl). */
#define TRACERD_BUILT_FOR_VERSION	LINUX_VERSION_CODE

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define TRACERD_DIRECT_API_OPS 1
#else
#define TRACERD_DIRECT_API_OPS 0
#endif

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#define TRACERD_HAVE_DIRECT 1

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_JMP
#define tracerd_direct_is_jmp(addr)	ftrace_is_jmp(addr)
#else
#define tracerd_direct_is_jmp(addr)	false
#endif

/*
 * Route every address in ops' filter to the trampoline at addr, which is
 * entered by a call (see jump-entered direct calls above).
 */
static inline int tracerd_register_direct(struct ftrace_ops *ops,
					  unsigned long addr)
{
	if (tracerd_direct_is_jmp(addr))
		return -EINVAL;
#if TRACERD_DIRECT_API_OPS
	return register_ftrace_direct(ops, addr);
#else
	return register_ftrace_direct_multi(ops, addr);
#endif
}

/* Undo tracerd_register_direct(); the filter is freed by the caller. */
static inline int tracerd_unregister_direct(struct ftrace_ops *ops,
					    unsigned long addr)
{
#if TRACERD_DIRECT_API_OPS
	return unregister_ftrace_direct(ops, addr, false);
#else
	return unregister_ftrace_direct_multi(ops, addr);
#endif
}

#else /* !CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS */
#define TRACERD_HAVE_DIRECT 0

static inline int tracerd_register_direct(struct ftrace_ops *ops,
					  unsigned long addr)
{
	return -EOPNOTSUPP;
}

static inline int tracerd_unregister_direct(struct ftrace_ops *ops,
					    unsigned long addr)
{
	return -EOPNOTSUPP;
}
#endif /* CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS */

#endif /* __ASSEMBLY__ */
#endif /* TRACERD_FTRACE_COMPAT_H */
