// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: tracerd.conf text (lib/config.c, and through `attach =`
 * lines lib/spec.c). The input is NUL-terminated first, as config_parse_file
 * does after refusing embedded NULs. Invariants: a failure always says
 * which line; every parsed attach line validates again.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../../lib/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracerd_config c;
	char err[1024] = "", *text;
	size_t i;
	int ret;

	if (size > (1 << 20))
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	config_init(&c);
	ret = config_parse_string(&c, text, "fuzz.conf", err, sizeof(err));
	if (ret && strncmp(err, "fuzz.conf:", 10) && ret != -ENOMEM)
		abort();
	for (i = 0; i < c.nr_attach; i++) {
		if (c.attach[i].line < 1 || spec_validate(&c.attach[i].spec, err, sizeof(err)))
			abort();
	}
	if (!ret && (strnlen(c.socket, sizeof(c.socket)) == sizeof(c.socket) ||
		     strnlen(c.listen, sizeof(c.listen)) == sizeof(c.listen)))
		abort();
	config_free(&c);
	free(text);
	return 0;
}
