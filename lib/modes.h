/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Mode names (DESIGN.md vocabulary) <-> enum tracerd_mode. */
#ifndef TRACERD_LIB_MODES_H
#define TRACERD_LIB_MODES_H

#include <stdbool.h>
#include <tracerd/modes.h>

const char *tracerd_mode_name(enum tracerd_mode m);
/* name -> mode, or -EINVAL */
int tracerd_mode_parse(const char *name);
bool tracerd_mode_is_kmod(enum tracerd_mode m);
/* does the mode hook kernel functions (as opposed to tracepoints)? */
bool tracerd_mode_is_function(enum tracerd_mode m);

#endif
