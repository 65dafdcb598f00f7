// SPDX-License-Identifier: GPL-2.0-or-later
/* Numbers on tracectl's command line, through lib/util.h's parse_dec. */
#include <ctype.h>
#include "../lib/util.h"
#include "tracectl.h"

int cli_number(struct cli *cli, const char *what, const char *s, unsigned long long min,
	       unsigned long long max, unsigned long long *out)
{
	char err[128];

	if (!parse_dec(s, min, max, out, err, sizeof(err)))
		return 0;
	return cli_error(cli, EXIT_USAGE, "usage", "%s '%s': %s", what, s, err);
}

int cli_attachment_id(struct cli *cli, const char *s, unsigned long long *id)
{
	int ret;

	if (!isdigit((unsigned char)s[0]) && s[0] != '+' && s[0] != '-')
		return 1;	/* a function, glob or tp: target */
	ret = cli_number(cli, "attachment id", s, 1, 0xffffffffULL, id);
	return ret ? -ret : 0;
}
