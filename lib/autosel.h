/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The `auto` decision table (docs/auto.md) as a pure function, so every
 * row is unit-tested with the feature sets of each kernel
 * (tests/unit/test_autosel.c) as well as in the VM. daemon/registry.c
 * turns the skip codes into reasons and tries the candidates in order.
 */
#ifndef TRACERD_LIB_AUTOSEL_H
#define TRACERD_LIB_AUTOSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <tracerd/modes.h>

struct auto_request {
	bool tracepoint;		/* tp:CATEGORY/NAME */
	size_t nr_functions;		/* resolved functions */
	bool direct_call_taken;		/* the one function's direct call is owned
					 * (a MODE_CAP_DIRECT_EXCL attachment) */
	bool latency, comm, record, errors, by, stacks, slow;	/* options asked for */
	bool args, args_ret;		/* --args or --if; --args with --latency */
	const bool *available;		/* [TRACERD_MODE_NR]: feature probes */
	const unsigned int *caps;	/* [TRACERD_MODE_NR]: MODE_CAP_* (lib/modes.h) */
};

enum auto_skip {
	AUTO_CANDIDATE = 0,
	AUTO_SKIP_UNAVAILABLE,		/* the probe failed: its reason applies */
	AUTO_SKIP_DIRECT_CALL,		/* rides a direct call another mode owns */
	AUTO_SKIP_OPTIONS,		/* cannot honour latency, comm, record, errors, by
					 * or stacks */
	AUTO_NOT_CONSIDERED,		/* not in this row's list */
};

/*
 * Candidates, cheapest first, into out[] (returns how many); skip[m] says
 * why mode m is not a candidate (AUTO_NOT_CONSIDERED when the row does
 * not list it). considered[] (may be NULL) receives the row's order.
 */
size_t auto_select(const struct auto_request *r, enum tracerd_mode out[TRACERD_MODE_NR],
		   enum auto_skip skip[TRACERD_MODE_NR], enum tracerd_mode *order,
		   size_t *nr_order);

#endif
