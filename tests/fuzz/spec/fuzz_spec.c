// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: attach targets and globs (lib/spec.c, lib/symfilter.c).
 * The input is split at the first NUL: a config-style attach line (parsed
 * with spec_parse_line, its target checked with spec_check_target) and a
 * function name matched against it as a glob and against the denylist.
 * Invariant: a line that parses also validates, and its target checks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../../lib/spec.h"
#include "../../../lib/symfilter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracerd_spec spec;
	char err[512], *buf, *name;
	size_t n;

	if (size > 4096)
		return 0;
	buf = malloc(size + 2);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = '\0';
	n = strlen(buf);
	name = buf + n + (n < size);

	spec_check_target(buf, err, sizeof(err));
	spec_check_record_name(buf, err, sizeof(err));
	spec_is_glob(buf);
	if (!spec_parse_line(buf, &spec, err, sizeof(err))) {
		if (spec_validate(&spec, err, sizeof(err)) ||
		    spec_check_target(spec.target, err, sizeof(err)))
			abort();
		/* the target is what the daemon would resolve: glob it, bounded */
		if (!spec_is_tracepoint(spec.target) && strlen(name) < 256) {
			sym_glob_match(spec.target, name);
			sym_denied(name);
		}
	}
	sym_module_denied(name);
	free(buf);
	return 0;
}
