// SPDX-License-Identifier: GPL-2.0-or-later
/* Numbers on tracectl's command line, through lib/util.h's parse_dec. */
#include <ctype.h>
#include <string.h>
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

json_object *jobj(json_object *o, const char *key)
{
	json_object *v;

	return json_get(o, key, json_type_object, &v) ? NULL : v;
}

json_object *jarr(json_object *o, const char *key)
{
	json_object *v;

	return json_get(o, key, json_type_array, &v) ? NULL : v;
}

size_t jlen(json_object *arr)
{
	return json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
}

double jnum(json_object *o, const char *key, double def)
{
	double v;

	return json_get_num(o, key, &v) ? def : v;
}

int cli_attachment_id(struct cli *cli, const char *s, unsigned long long *id)
{
	const char *p = s;
	int ret;

	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p) && *p != '+' && *p != '-')
		return 1;	/* a function, glob or tp: target */
	ret = cli_number(cli, "attachment id", s, 1, 0xffffffffULL, id);
	return ret ? -ret : 0;
}

bool cli_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}
