// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl flame [ID|TARGET] [-o FILE.svg] [--top N] [--merge]: the flame
 * graph of the stacks of attachments made with --stacks (cli/flame_svg.c);
 * and the part `stats --stacks --format` shares with it: ask the daemon
 * for the stacks, refuse a reply without any, write the rendering to
 * stdout or, through a temporary file renamed at the end, to -o FILE (a
 * failed write leaves FILE as it was).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "../lib/config.h"
#include "../lib/strutil.h"
#include "stacks.h"
#include "tracectl.h"

#define FLAME_WIDTH	1200

const char *const stacks_format_names[] = {
	[STACKS_TEXT] = "text", [STACKS_FOLDED] = "folded", [STACKS_PPROF] = "pprof",
	[STACKS_SVG] = "svg",
};

int stacks_check_output(struct cli *cli, const struct cmd_entry *cmd, enum stacks_format fmt,
			const char *out)
{
	if (cli->json && fmt != STACKS_TEXT)
		return cli_usage(cli, cmd, "--json prints the daemon's JSON: not with --format %s "
				 "or flame", stacks_format_names[fmt]);
	if (!out && isatty(STDOUT_FILENO) && (fmt == STACKS_PPROF || fmt == STACKS_SVG))
		return cli_usage(cli, cmd, "%s is not for a terminal: -o FILE, or redirect stdout",
				 fmt == STACKS_PPROF ? "a gzipped pprof profile" : "an SVG");
	return 0;
}

/* "ID FUNCTION", or "FUNCTION (merged)": a stats row in a message (escaped) */
static const char *row_name(json_object *row, char *buf, size_t len)
{
	if (json_object_is_type(jget(row, "id"), json_type_int))
		str_fmt(buf, len, "%lld %s", jint(row, "id", 0), jtty(row, "function", "?"));
	else
		str_fmt(buf, len, "%s (merged)", jtty(row, "function", "?"));
	return buf;
}

/* The rows without stacks: that they have none and how to get them, or
 * why the daemon could not read them (stacks null, stacks_error). */
void stacks_note_without(json_object *result, FILE *f, const char *prefix)
{
	json_object *arr = jarr(result, "stats"), *row;
	char name[200];
	size_t i;

	for (i = 0; i < jlen(arr); i++) {
		row = json_object_array_get_idx(arr, i);
		if (jobj(row, "stacks"))
			continue;
		row_name(row, name, sizeof(name));
		if (jstr(row, "stacks_error", NULL))
			fprintf(f, "%s%s: its stacks could not be read: %s\n", prefix, name,
				jtty(row, "stacks_error", "?"));
		else if (json_object_is_type(jget(row, "id"), json_type_int))
			fprintf(f, "%s%s: no stacks (attached without --stacks: detach it and "
				"attach again with --stacks)\n", prefix, name);
		else
			fprintf(f, "%s%s: no stacks (none of its attachments was made with "
				"--stacks)\n", prefix, name);
	}
}

int stacks_require(struct cli *cli, const struct stacks *s, json_object *result)
{
	json_object *arr = jarr(result, "stats"), *row;
	char name[200];

	if (s->nsets)
		return 0;
	if (!jlen(arr))
		return cli_error(cli, EXIT_NOT_FOUND, "not_found", "no attachment to show");
	row = json_object_array_get_idx(arr, 0);
	row_name(row, name, sizeof(name));
	if (jstr(row, "stacks_error", NULL))
		return cli_error(cli, EXIT_FAILURE_, "error",
				 "%s: its stacks could not be read: %s", name,
				 jtty(row, "stacks_error", "?"));
	return cli_error(cli, EXIT_NOT_FOUND, "not_found",
			 "%s has no stacks: it was attached without --stacks (tracectl attach "
			 "TARGET --stacks[=DEPTH] counts them)", name);
}

static int render(FILE *f, const struct stacks *s, enum stacks_format fmt, const char *title)
{
	switch (fmt) {
	case STACKS_FOLDED:
		return stacks_print_folded(f, s);
	case STACKS_PPROF:
		return stacks_write_pprof(f, s);
	case STACKS_SVG:
		flame_svg(f, s, title, FLAME_WIDTH, true);
		return ferror(f) ? -EIO : 0;
	default:
		stacks_print_text(f, s);
		return ferror(f) ? -EIO : 0;
	}
}

/* "vfs_read: kernel stacks, 1200 calls" (several: "3 attachments: ...") */
static void flame_title(const struct stacks *s, char *buf, size_t len)
{
	uint64_t total = 0, dropped = 0;
	size_t i, k, n;

	for (i = 0; i < s->nsets; i++) {
		dropped += s->sets[i].dropped;
		for (k = 0; k < s->sets[i].nrows; k++)
			total += s->sets[i].rows[k].count;
	}
	if (s->nsets == 1)
		n = str_cat(buf, len, 0, "%s: kernel stacks, %llu calls", tty_str(s->sets[0].label),
			    (unsigned long long)total);
	else
		n = str_cat(buf, len, 0, "%zu attachments: kernel stacks, %llu calls", s->nsets,
			    (unsigned long long)total);
	if (dropped)	/* never silent: the calls the graph cannot show */
		str_cat(buf, len, n, " (and %llu whose stack was not kept: no room)",
			(unsigned long long)dropped);
}

const char stacks_no_pprof[] =
	"this tracectl was built without protobuf-c, so without --format pprof "
	"(build it with libprotobuf-c-dev and protobuf-c-compiler installed: make deps)";

/* rendering of s into path: written to a temporary file beside it (mkstemp) and renamed over it */
static int write_file(struct cli *cli, const char *path, const struct stacks *s,
		      enum stacks_format fmt, const char *title)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 8);
	mode_t mask = umask(0);
	FILE *f = NULL;
	int fd, ret;

	umask(mask);
	if (!tmp)
		return cli_error(cli, EXIT_FAILURE_, "error", "out of memory");
	memcpy(tmp, path, n);
	tmp[n] = '.';			/* mkstemp(3)'s template: six X's it replaces */
	memset(tmp + n + 1, 'X', 6);
	tmp[n + 7] = '\0';
	fd = mkstemp(tmp);	/* 0600: given the mode a new file of path would have */
	if (fd < 0 || fchmod(fd, 0666 & ~mask) || !(f = fdopen(fd, "w"))) {
		ret = cli_error(cli, EXIT_FAILURE_, "error", "cannot write %s: %s", tty_str(path),
				strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return ret;
	}
	ret = render(f, s, fmt, title);
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		ret = ret == -ENOTSUP ?
			      cli_error(cli, EXIT_FAILURE_, "error", "%s", stacks_no_pprof) :
			      cli_error(cli, EXIT_FAILURE_, "error", "cannot write %s: %s",
					tty_str(path), strerror(-ret));
	}
	free(tmp);
	return ret;
}

int stacks_command(struct cli *cli, json_object *args, enum stacks_format fmt, const char *out)
{
	struct stacks s;
	json_object *r;
	char title[256];
	int ret;

	if (fmt == STACKS_PPROF && !stacks_pprof_built)
		return cli_error(cli, EXIT_FAILURE_, "error", "%s", stacks_no_pprof);
	json_object_object_add(args, "stacks", json_object_new_boolean(1));
	ret = client_call(cli, "stats", json_object_get(args), &r);
	if (ret)
		return ret;
	if (stacks_from_reply(r, &s)) {
		json_object_put(r);
		return cli_error(cli, EXIT_FAILURE_, "error", "out of memory");
	}
	ret = stacks_require(cli, &s, r);
	if (!ret) {
		stacks_note_without(r, stderr, "note: ");
		flame_title(&s, title, sizeof(title));
		if (out)
			ret = write_file(cli, out, &s, fmt, title);
		else if ((ret = render(stdout, &s, fmt, title)) || fflush(stdout))
			ret = cli_error(cli, EXIT_FAILURE_, "error", "cannot write the output: %s",
					strerror(ret ? -ret : errno));
	}
	stacks_free(&s);
	json_object_put(r);
	return ret;
}

static int flame_exec(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, 't' },
		{ "merge", no_argument, NULL, 'M' },
		{ 0 }
	};
	json_object *args = json_object_new_object();
	unsigned long long v;
	const char *out = NULL;
	int c, ret = 0, k;

	optind = 0;
	opterr = 0;
	while (!ret && (c = getopt_long(argc, argv, "o:t:M", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'M':
			json_object_object_add(args, "merge", json_object_new_boolean(1));
			break;
		case 't':
			ret = cli_number(cli, "--top", optarg, 1, TRACERD_BY_TOP_LIMIT, &v);
			if (!ret)
				json_object_object_add(args, "top",
						       json_object_new_int64((long long)v));
			break;
		default:
			ret = cli_usage(cli, &cmd_flame, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!ret && argc - optind > 1)
		ret = cli_usage(cli, &cmd_flame, "at most one ID or TARGET");
	if (!ret && out && !*out)
		ret = cli_usage(cli, &cmd_flame, "-o needs a file name");
	if (!ret)
		ret = stacks_check_output(cli, &cmd_flame, STACKS_SVG, out);
	if (!ret && optind < argc) {
		k = cli_attachment_id(cli, argv[optind], &v);
		if (k < 0)
			ret = -k;
		else
			json_object_object_add(args, k ? "target" : "id",
					       k ? json_object_new_string(argv[optind]) :
						   json_object_new_int64((long long)v));
	}
	if (!ret)
		ret = stacks_command(cli, args, STACKS_SVG, out);
	json_object_put(args);
	return ret;
}

const struct cmd_entry cmd_flame = {
	.name = "flame",
	.args = "[ID|TARGET] [-o FILE.svg] [--top N] [--merge]",
	.summary = "flame graph (SVG) of the kernel stacks attachments count",
	.exec = flame_exec,
	.help = "  ID|TARGET        one attachment, or every hooked function of that target;\n"
		"                   with several, each one's function is the frame above\n"
		"                   the root (with its id when two trace the same function)\n"
		"  -o, --output=FILE\n"
		"                   write the SVG to FILE (replaced whole, or left as it\n"
		"                   was on error); without it stdout, never a terminal\n"
		"  -t, --top=N      the N hottest stacks per function (1 to 1000)\n"
		"  -M, --merge      one tree per function across attachments\n"
		"The SVG is self-contained: frames as wide as their calls, the root at the\n"
		"bottom, names on hover; a click zooms on a frame, 'Reset zoom' or the root\n"
		"resets. An attachment counts stacks when made with attach's stacks\n"
		"option (tracectl attach --help).\n",
};
