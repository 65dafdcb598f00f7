// SPDX-License-Identifier: GPL-2.0-or-later
/* Mode names: the one table both tracerd and tracectl use. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "modes.h"

#define MODE_NAME(e, name, ...)	[TRACERD_MODE_##e] = name,

static const char *const mode_names[TRACERD_MODE_NR] = {
	[TRACERD_MODE_AUTO] = "auto",
	TRACERD_MODES(MODE_NAME)
};

/* the row's KIND, TARGET and PATH; auto's row is all NONE (0) */
#define MODE_CLASS(e, name, backend, kind, target, path)			\
	[TRACERD_MODE_##e] = { TRACERD_MODE_KIND_##kind, TRACERD_MODE_TARGET_##target,	\
			       TRACERD_MODE_PATH_##path },

static const struct {
	enum tracerd_mode_kind kind;
	enum tracerd_mode_target target;
	enum tracerd_mode_path path;
} mode_class[TRACERD_MODE_NR] = {
	TRACERD_MODES(MODE_CLASS)
};

const char *tracerd_mode_name(enum tracerd_mode m)
{
	if ((unsigned int)m >= TRACERD_MODE_NR)
		return "unknown";
	return mode_names[m];
}

int tracerd_mode_parse(const char *name)
{
	int i;

	for (i = 0; i < TRACERD_MODE_NR; i++)
		if (!strcmp(name, mode_names[i]))
			return i;
	return -EINVAL;
}

enum tracerd_mode_kind tracerd_mode_kind(enum tracerd_mode m)
{
	return (unsigned int)m < TRACERD_MODE_NR ? mode_class[m].kind : TRACERD_MODE_KIND_NONE;
}

enum tracerd_mode_target tracerd_mode_target(enum tracerd_mode m)
{
	return (unsigned int)m < TRACERD_MODE_NR ? mode_class[m].target : TRACERD_MODE_TARGET_NONE;
}

enum tracerd_mode_path tracerd_mode_path(enum tracerd_mode m)
{
	return (unsigned int)m < TRACERD_MODE_NR ? mode_class[m].path : TRACERD_MODE_PATH_NONE;
}

const char *tracerd_mode_path_name(enum tracerd_mode m)
{
	static const char *const names[TRACERD_MODE_PATH_NR] = {
		[TRACERD_MODE_PATH_NONE] = "",
		[TRACERD_MODE_PATH_KPROBE] = "kprobe",
		[TRACERD_MODE_PATH_INDIRECT] = "indirect",
		[TRACERD_MODE_PATH_DIRECT_CALL] = "direct-call",
		[TRACERD_MODE_PATH_TRACEPOINT] = "tracepoint",
	};

	return names[tracerd_mode_path(m)];
}

bool tracerd_mode_is_kmod(enum tracerd_mode m)
{
	return tracerd_mode_kind(m) == TRACERD_MODE_KIND_KMOD;
}

bool tracerd_mode_is_function(enum tracerd_mode m)
{
	return tracerd_mode_target(m) == TRACERD_MODE_TARGET_FUNCTION;
}

bool tracerd_mode_is_tracepoint(enum tracerd_mode m)
{
	return tracerd_mode_target(m) == TRACERD_MODE_TARGET_TRACEPOINT;
}

const char *mode_caps_missing(unsigned int caps, bool latency, bool comm, bool record,
			      bool errors, bool by, bool stacks, bool slow, bool args, bool args_ret,
			      char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (latency && !(caps & MODE_CAP_LATENCY))
		off += snprintf(buf + off, len - off, "latency");
	if (comm && !(caps & MODE_CAP_COMM) && off < len)
		off += snprintf(buf + off, len - off, "%scomm", off ? ", " : "");
	if (record && !(caps & MODE_CAP_RECORD) && off < len)
		off += snprintf(buf + off, len - off, "%srecord", off ? ", " : "");
	if (errors && !(caps & MODE_CAP_ERRORS) && off < len)
		off += snprintf(buf + off, len - off, "%serror counting", off ? ", " : "");
	if (by && !(caps & MODE_CAP_BY) && off < len)
		off += snprintf(buf + off, len - off, "%sby keys", off ? ", " : "");
	if (stacks && !(caps & MODE_CAP_STACKS) && off < len)
		off += snprintf(buf + off, len - off, "%sstacks", off ? ", " : "");
	if (slow && !(caps & MODE_CAP_SLOW) && off < len)
		off += snprintf(buf + off, len - off, "%sslow-call recording", off ? ", " : "");
	if (args && !(caps & MODE_CAP_ARGS) && off < len)
		off += snprintf(buf + off, len - off, "%sarguments", off ? ", " : "");
	if (args_ret && !(caps & MODE_CAP_ARGS_RET) && off < len)
		snprintf(buf + off, len - off, "%sarguments at the return (--args with --latency)",
			 off ? ", " : "");
	return buf;
}

const char *mode_variant_name(enum mode_variant v)
{
	static const char *const names[MODE_VARIANT_NR] = {
		[MODE_VARIANT_NONE] = "",
		[MODE_VARIANT_EMPTY] = "empty",
		[MODE_VARIANT_INT3] = "int3",
		[MODE_VARIANT_SAVE_REGS] = "save_regs",
	};

	return (unsigned int)v < MODE_VARIANT_NR ? names[v] : "unknown";
}
