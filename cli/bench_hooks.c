// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hooks the bench compares, one list for every suite and the report.
 * A row is a mode of the one mode table (TRACERD_MODES, named by its enum:
 * a mode renamed or dropped there fails the build here) or one of its
 * variants (enum mode_variant), which the bench names "kmod-kprobe-int3"
 * and "kmod-callops+regs". The rows are in the order the suites measure
 * them; the report groups them by hook path (hook_path()). A mode of the
 * table without a row is still measured when --modes names it (bench
 * trigger), it is only left out of the default comparison.
 */
#include <stdio.h>
#include <string.h>
#include "../lib/modes.h"
#include "../lib/util.h"
#include "bench.h"

static const struct {
	enum tracerd_mode mode;
	enum mode_variant variant;
} hooks[] = {
	{ TRACERD_MODE_KPROBE, MODE_VARIANT_NONE },
	{ TRACERD_MODE_KPROBE_INT3, MODE_VARIANT_NONE },
	{ TRACERD_MODE_KPROBE_MULTI, MODE_VARIANT_NONE },
	{ TRACERD_MODE_FENTRY, MODE_VARIANT_NONE },
	{ TRACERD_MODE_KMOD_CALLOPS, MODE_VARIANT_NONE },
	{ TRACERD_MODE_KMOD_CALLOPS, MODE_VARIANT_SAVE_REGS },
	{ TRACERD_MODE_KMOD_DIRECT, MODE_VARIANT_NONE },
	{ TRACERD_MODE_KMOD_KPROBE, MODE_VARIANT_NONE },
	{ TRACERD_MODE_KMOD_KPROBE, MODE_VARIANT_INT3 },
};
_Static_assert(ARRAY_SIZE(hooks) <= BENCH_MAX_HOOKS, "BENCH_MAX_HOOKS too small");

/* The report's hook paths, in the order it shows them. */
static const char *const paths[] = { "kprobe", "kprobe (int3)", "indirect", "direct call" };

/*
 * The hook path a mode rides, the way the report groups them: the mode
 * row's PATH column (include/tracerd/modes.h), with the kprobe past the
 * ftrace call site (int3) a group of its own.
 */
static const char *hook_path(enum tracerd_mode m, enum mode_variant v)
{
	if (m == TRACERD_MODE_KPROBE_INT3 || v == MODE_VARIANT_INT3)
		return paths[1];
	switch (tracerd_mode_path(m)) {
	case TRACERD_MODE_PATH_KPROBE:
		return paths[0];
	case TRACERD_MODE_PATH_DIRECT_CALL:
		return paths[3];
	default:
		return paths[2];
	}
}

/* The bench's name of row i: the mode's table name, its variant's suffix. */
static const char *hook_name(size_t i)
{
	static char names[ARRAY_SIZE(hooks)][40];
	const char *suffix = hooks[i].variant == MODE_VARIANT_SAVE_REGS ? "+regs" :
			     hooks[i].variant == MODE_VARIANT_INT3 ? "-int3" : "";

	if (!names[i][0])
		snprintf(names[i], sizeof(names[i]), "%s%s", tracerd_mode_name(hooks[i].mode),
			 suffix);
	return names[i];
}

static bool hook_wanted(size_t i, unsigned int which)
{
	bool kmod = tracerd_mode_is_kmod(hooks[i].mode);

	if ((which & BENCH_HOOKS_KMOD) && !kmod)
		return false;
	if ((which & BENCH_HOOKS_NO_REGS) && hooks[i].variant == MODE_VARIANT_SAVE_REGS)
		return false;
	return true;
}

int bench_hooks(const char **out, unsigned int which)
{
	size_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(hooks); i++)
		if (hook_wanted(i, which))
			out[n++] = hook_name(i);
	return n;
}

static int hook_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hooks); i++)
		if (!strcmp(name, hook_name(i)))
			return (int)i;
	return -1;
}

bool bench_hook_listed(const char *name)
{
	return hook_find(name) >= 0;
}

bool bench_hook_is_kmod(const char *name)
{
	int i = hook_find(name);

	return i >= 0 && tracerd_mode_is_kmod(hooks[i].mode);
}

bool bench_hook_counts_only(const char *name)
{
	int i = hook_find(name);

	return i >= 0 && tracerd_mode_is_kmod(hooks[i].mode) &&
	       hooks[i].variant != MODE_VARIANT_NONE;
}

int bench_hook_paths(const char **path, const char **mode)
{
	size_t p, i;
	int n = 0;

	for (p = 0; p < ARRAY_SIZE(paths); p++)
		for (i = 0; i < ARRAY_SIZE(hooks); i++)
			if (hook_path(hooks[i].mode, hooks[i].variant) == paths[p]) {
				path[n] = paths[p];
				mode[n++] = hook_name(i);
			}
	return n;
}
