// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The backends: one per row of the mode table (include/tracerd/modes.h),
 * looked up by mode and variant, and whether one can be used here (the
 * probe's verdict, kept by probe.c in d->features, then its own check).
 */
#include "backend.h"

/* the one table of modes (include/tracerd/modes.h): a row, a backend */
#define BACKEND_ROW(e, name, be, ...)	[TRACERD_MODE_##e] = &backend_##be,

static const struct backend *const backends[TRACERD_MODE_NR] = {
	TRACERD_MODES(BACKEND_ROW)
};

const struct backend *backend_get(enum tracerd_mode m)
{
	if ((unsigned int)m >= TRACERD_MODE_NR)
		return NULL;
	return backends[m];
}

const struct backend *backend_variant(enum tracerd_mode m, enum mode_variant v)
{
	const struct backend *be = backend_get(m);

	if (!be || !v)
		return be;
	return (unsigned int)v < MODE_VARIANT_NR ? be->variant[v] : NULL;
}

const char *backend_unavailable(struct tracerd *d, enum tracerd_mode m, enum mode_variant v)
{
	const struct backend *vb = backend_variant(m, v);

	if (!vb)
		return "no such mode or variant";
	if (!d->features[m].available && !(v && vb->own_probe))
		return d->features[m].reason[0] ? d->features[m].reason :
			"not available on this kernel";
	return vb->unavailable ? vb->unavailable(d) : NULL;
}

void backends_fini(struct tracerd *d)
{
	int m;

	for (m = 0; m < TRACERD_MODE_NR; m++)
		if (backends[m] && backends[m]->fini)
			backends[m]->fini(d);
}
