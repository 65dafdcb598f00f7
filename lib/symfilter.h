/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Function-name matching: globs (fnmatch(3) syntax: * ? [...]) and the
 * denylist of functions tracerd must never hook because its own hooks
 * (BPF programs, map operations, ftrace/kprobe/fprobe machinery, clocks,
 * locks, RCU) or its own syscalls run through them: tracing them could
 * recurse or skew every other measurement.
 */
#ifndef TRACERD_LIB_SYMFILTER_H
#define TRACERD_LIB_SYMFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool sym_glob_match(const char *pattern, const char *name);
/* The denylist pattern that name matches, or NULL when it may be hooked. */
const char *sym_denied(const char *name);
/* The denylist itself, its patterns in order (n of them): for tests. */
const char *const *sym_denylist(size_t *n);
/* Modules whose functions are never hooked (tracerd's own module). */
bool sym_module_denied(const char *module);

/*
 * One line of /proc/kallsyms, split in place: "ADDR TYPE NAME[\t[MODULE]]".
 * Returns true for a function symbol: text ('t', 'T') or weak ('w', 'W':
 * COND_SYSCALL stubs and other weak definitions are functions too), with
 * *name, *module (NULL for vmlinux) pointing into line and *addr set.
 */
bool sym_kallsyms_line(char *line, uint64_t *addr, char **name, char **module);

#endif
