// SPDX-License-Identifier: GPL-2.0-or-later
/* tracectl: command-line client of tracerd (entry point). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dump.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tracectl [OPTION]...\n"
		"Control the tracerd daemon.\n\n"
		"  -h, --help       show this help and exit\n"
		"  -V, --version    show version and exit\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int c;

	if (argc > 1 && !strcmp(argv[1], "dump"))
		return tracectl_dump(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("tracectl %s\n", TRACERD_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	fprintf(stderr, "tracectl: no commands yet in this version\n");
	return 1;
}
