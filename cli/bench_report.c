// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench report [--html FILE] RESULT.json...: what a set of bench
 * results found, on one screen (make demo ends with it), and optionally a
 * self-contained HTML page with the plots and the flame graphs of the
 * stacks files beside it. Offline. The results are loaded
 * into one model (bench_model.c, with the seed 000 analysis of
 * bench_seed000.c), which two renderers print: the screen
 * (bench_report_text.c) and the page (bench_report_html.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_model.h"

static int bench_report(struct cli *cli, int argc, char **argv)
{
	struct report r = {};
	const char *html = NULL;
	char *text = NULL;
	size_t len = 0;
	int i, nf = 0, exit = 0, err;
	char **files = calloc((size_t)argc + 1, sizeof(*files));
	FILE *f;

	if (!files)
		return cli_error(cli, EXIT_FAILURE_, "internal", "out of memory");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--html") && i + 1 < argc)
			html = argv[++i];
		else if (!strncmp(argv[i], "--html=", 7))
			html = argv[i] + 7;
		else if (argv[i][0] == '-' && argv[i][1]) {
			exit = cli_error(cli, EXIT_USAGE, "usage",
					 "bench report: unknown option '%s'", argv[i]);
			goto cleanup;
		} else
			files[nf++] = argv[i];
	}
	if (!nf) {
		exit = cli_error(cli, EXIT_USAGE, "usage",
				 "usage: tracectl bench report [--html FILE] RESULT.json...");
		goto cleanup;
	}
	exit = report_load(&r, cli, nf, files);
	if (exit)
		goto cleanup;
	f = open_memstream(&text, &len);
	if (!f) {
		exit = cli_error(cli, EXIT_FAILURE_, "internal", "out of memory");
		goto cleanup;
	}
	report_text(f, &r);
	fclose(f);
	fputs(text, stdout);
	if (html) {
		err = report_html(html, &r);
		if (err)
			exit = cli_error(cli, EXIT_FAILURE_, "io", "cannot write %s: %s", html,
					 strerror(-err));
		else
			printf("\nreport page: %s\n", html);
	}
cleanup:
	report_free(&r);
	free(text);
	free(files);
	return exit;
}

const struct bench_suite bench_suite_report = {
	.name = "report",
	.help = "[--html FILE] RESULT.json...: one screen of what a set of results\n"
		"            found per kernel, conclusions first (make demo ends with it), and a\n"
		"            page with the plots and the flame graph of each stacks-KERNEL.json\n"
		"            in its directory\n",
	.offline = bench_report,
};
