// SPDX-License-Identifier: GPL-2.0-or-later
/* Glob matching and the hook denylist; see symfilter.h. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "symfilter.h"
#include "util.h"

static const char *const denylist[] = {
	/* BPF runtime: programs, helpers, trampolines, maps, the syscall */
	"bpf_*", "__bpf_*", "___bpf_*", "*_sys_bpf", "__sys_bpf",
	"array_map_*", "percpu_array_*", "htab_*", "__htab_*", "pcpu_freelist_*",
	"__pcpu_freelist_*", "pcpu_init_value", "prealloc_lru_pop", "__bpf_lru_*",
	/* hook machinery */
	"ftrace_*", "__ftrace_*", "arch_ftrace_*", "fprobe_*", "__fprobe_*",
	"rethook_*", "arch_rethook_*", "kprobe_*", "__kprobe_*", "kretprobe_*",
	"__kretprobe_*", "arch_kprobe*", "opt_pre_handler", "perf_trace_buf_*",
	"trace_call_bpf", "perf_*", "__perf_*", "tracerd_kmod_*",
	/* what every hook runs through: clocks, locks, RCU, preemption */
	"ktime_get*", "__ktime_get*", "sched_clock*", "native_sched_clock",
	"local_clock*", "read_tsc", "kvm_clock_*", "pvclock_*",
	"_raw_spin_*", "__raw_spin_*", "queued_spin_*", "native_queued_spin_*",
	"__pv_queued_spin_*", "lock_acquire*", "lock_release", "lock_is_held*",
	"__rcu_read_lock", "__rcu_read_unlock", "rcu_read_lock*", "rcu_read_unlock*",
	"rcu_is_watching", "migrate_disable", "migrate_enable", "preempt_count_*",
	"__preempt_count_*", "debug_smp_processor_id", "__this_cpu_preempt_check",
	"trace_hardirqs_*", "memcpy", "memset", "__memcpy", "__memset",
};

/*
 * fnmatch(3) with no flags, with the shapes nearly every pattern has
 * (the denylist's, a user's 'prefix*' or '*') compared directly: an
 * exact name, 'prefix*', '*suffix'. The denylist is tried on every name
 * a glob matches, twice: on the ~45k traceable functions of 6.12 that was
 * most of an `attach '*'`'s resolve under TCG (1.07 s of CPU; 0.42 s with
 * this and sym_denied's first-character test; issue #34's own-CPU bound).
 */
bool sym_glob_match(const char *pattern, const char *name)
{
	const char *meta = strpbrk(pattern, "*?[\\");
	size_t plen, nlen;

	if (!meta)
		return !strcmp(pattern, name);
	if (*meta == '*' && !meta[1])
		return !strncmp(pattern, name, (size_t)(meta - pattern));
	if (meta == pattern && *meta == '*' && !strpbrk(pattern + 1, "*?[\\")) {
		plen = strlen(pattern + 1);
		nlen = strlen(name);
		return nlen >= plen && !strcmp(name + nlen - plen, pattern + 1);
	}
	return fnmatch(pattern, name, 0) == 0;
}

/* Can pattern match a name whose first character is c? (no when it starts
 * with another plain character) */
static bool may_start(const char *pattern, char c)
{
	char f = pattern[0];

	return f == c || f == '*' || f == '?' || f == '[' || f == '\\';
}

/*
 * The denylist is tried on every name a glob matches (twice): only its
 * patterns that may match the name's first character are matched, in the
 * list's order (121363 kallsyms names twice: 0.151 s -> 0.039 s here).
 */
const char *sym_denied(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(denylist); i++)
		if (may_start(denylist[i], name[0]) && sym_glob_match(denylist[i], name))
			return denylist[i];
	return NULL;
}

bool sym_module_denied(const char *module)
{
	return module && !strcmp(module, "tracerd_kmod");
}

bool sym_kallsyms_line(char *line, uint64_t *addr, char **name, char **module)
{
	char *end, *p, type;

	*addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ')
		return false;
	type = end[1];
	if (!type || end[2] != ' ' || !strchr("tTwW", type))
		return false;
	*name = end + 3;
	p = *name + strcspn(*name, " \t\n");
	*module = NULL;
	if (*p == '\t' && p[1] == '[') {
		*module = p + 2;
		(*module)[strcspn(*module, "]\n")] = '\0';
	}
	*p = '\0';
	return **name != '\0';
}
