// SPDX-License-Identifier: GPL-2.0-or-later
/* tracerd: kernel function tracing daemon (entry point). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tracerd [OPTION]...\n"
		"Kernel function tracing daemon.\n\n"
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

	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("tracerd %s\n", TRACERD_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	fprintf(stderr, "tracerd: the daemon is not built yet in this version\n");
	return 1;
}
