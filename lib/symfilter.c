// SPDX-License-Identifier: GPL-2.0-or-later
/* Glob matching and the hook denylist; see symfilter.h. */
#include <fnmatch.h>
#include <pthread.h>
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

/*
 * The denylist compiled once (deny_compile): each pattern's shape, and
 * per first character the patterns that start with it, in the list's
 * order; those that start with a wildcard in a list of their own. A name
 * is then compared with a few patterns by length and memcmp: no strpbrk
 * per pattern and name (an `attach '*'`'s resolve tries the list on every
 * name twice: that was 40 % of its CPU on this host, 2026-12-07).
 */
enum deny_shape { DENY_EXACT, DENY_PREFIX, DENY_SUFFIX, DENY_GLOB };

#define DENY_N ARRAY_SIZE(denylist)

static struct {
	unsigned char shape[DENY_N];
	unsigned short len[DENY_N];	/* the plain part's */
	unsigned char by_first[256][DENY_N + 1];	/* indexes + 1, 0-ended */
	unsigned char wild[DENY_N + 1];
} deny;
static pthread_once_t deny_once = PTHREAD_ONCE_INIT;

_Static_assert(ARRAY_SIZE(denylist) < 255, "denylist indexes are bytes");

static void deny_compile(void)
{
	size_t i, nw = 0, nf[256] = { 0 };

	for (i = 0; i < DENY_N; i++) {
		const char *p = denylist[i], *meta = strpbrk(p, "*?[\\");
		unsigned char f = (unsigned char)p[0];

		if (!meta) {
			deny.shape[i] = DENY_EXACT;
			deny.len[i] = (unsigned short)strlen(p);
		} else if (*meta == '*' && !meta[1]) {
			deny.shape[i] = DENY_PREFIX;
			deny.len[i] = (unsigned short)(meta - p);
		} else if (meta == p && *meta == '*' && !strpbrk(p + 1, "*?[\\")) {
			deny.shape[i] = DENY_SUFFIX;
			deny.len[i] = (unsigned short)strlen(p + 1);
		} else {
			deny.shape[i] = DENY_GLOB;
		}
		if (f == '*' || f == '?' || f == '[' || f == '\\')
			deny.wild[nw++] = (unsigned char)(i + 1);
		else
			deny.by_first[f][nf[f]++] = (unsigned char)(i + 1);
	}
}

static bool deny_match(size_t i, const char *name, size_t *nlen)
{
	size_t len = deny.len[i];

	switch (deny.shape[i]) {
	case DENY_EXACT:
		return !strcmp(denylist[i], name);
	case DENY_PREFIX:
		return !strncmp(denylist[i], name, len);
	case DENY_SUFFIX:
		if (*nlen == (size_t)-1)
			*nlen = strlen(name);
		return *nlen >= len && !memcmp(name + *nlen - len, denylist[i] + 1, len);
	default:
		return fnmatch(denylist[i], name, 0) == 0;
	}
}

/* The first pattern of the list (its order) that name matches. */
const char *sym_denied(const char *name)
{
	const unsigned char *f, *w;
	size_t nlen = (size_t)-1, best = DENY_N;

	pthread_once(&deny_once, deny_compile);
	for (f = deny.by_first[(unsigned char)name[0]]; *f; f++)
		if (deny_match(*f - 1u, name, &nlen)) {
			best = *f - 1u;
			break;
		}
	for (w = deny.wild; *w && *w - 1u < best; w++)
		if (deny_match(*w - 1u, name, &nlen)) {
			best = *w - 1u;
			break;
		}
	return best < DENY_N ? denylist[best] : NULL;
}

const char *const *sym_denylist(size_t *n)
{
	*n = DENY_N;
	return denylist;
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
