// SPDX-License-Identifier: GPL-2.0-or-later
/* Mode names: the one table both tracerd and tracectl use. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "modes.h"

#define MODE_NAME(e, name, backend)	[TRACERD_MODE_##e] = name,

static const char *const mode_names[TRACERD_MODE_NR] = {
	[TRACERD_MODE_AUTO] = "auto",
	TRACERD_MODES(MODE_NAME)
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

bool tracerd_mode_is_kmod(enum tracerd_mode m)
{
	return m == TRACERD_MODE_KMOD_CALLOPS || m == TRACERD_MODE_KMOD_DIRECT ||
	       m == TRACERD_MODE_KMOD_KPROBE;
}

bool tracerd_mode_is_function(enum tracerd_mode m)
{
	return m != TRACERD_MODE_TP_BTF && m != TRACERD_MODE_AUTO &&
	       (unsigned int)m < TRACERD_MODE_NR;
}

const char *mode_caps_missing(unsigned int caps, bool latency, bool comm, bool record,
			      bool errors, bool by, char *buf, size_t len)
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
		snprintf(buf + off, len - off, "%sby keys", off ? ", " : "");
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
