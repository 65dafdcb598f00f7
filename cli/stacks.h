/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel stacks of a stats reply (attachments made with --stacks), as
 * one model and its renderers: text (bpftrace's @[kstack] look), folded
 * (flamegraph.pl, inferno, speedscope), pprof (cli/stacks_pprof.c) and the
 * flame graph SVG (cli/flame_svg.c, for `tracectl flame` and the report
 * page). The reply is untrusted: every name goes out escaped.
 */
#ifndef TRACECTL_STACKS_H
#define TRACECTL_STACKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

struct stack_frame {
	uint64_t addr, off;
	const char *sym;	/* NULL: the address did not resolve (why says why) */
	const char *module;	/* NULL: vmlinux */
	const char *why;
};

struct stack_row {
	uint64_t count;
	const char *err;	/* --errors --stacks: its calls' errno ("ENOENT"), else NULL */
	size_t nframes;
	struct stack_frame *frames;	/* innermost first */
};

/* one stats row's stacks: an attachment's hooked function, or a merged row */
struct stack_set {
	long long id;		/* -1: merged */
	const char *function, *mode;
	char label[160];	/* its root frame when there are several sets */
	uint64_t depth, distinct, dropped, total;
	size_t nrows;
	struct stack_row *rows;	/* hottest first */
};

struct stacks {
	json_object *reply;	/* holds the strings the frames point to */
	struct stack_set *sets;
	size_t nsets;
	size_t without;		/* stats rows without stacks (attached without --stacks) */
};

/* The stacks of a stats result (its "stats" rows; kept referenced) into s: 0 or -ENOMEM. */
int stacks_from_reply(json_object *result, struct stacks *s);
void stacks_free(struct stacks *s);
/* A frame as text shows it: "func+0x1a [module]", "0xffff... (why)" (terminal-safe). */
const char *stack_frame_text(const struct stack_frame *f, char *buf, size_t len);
/*
 * A frame as folded, pprof and flame graphs name it: the function
 * ("func", "func [module]"; offsets apart, one frame per function) or
 * "0xADDR (why)"; escaped, ';' as ':' so no name can break a folded line.
 */
const char *stack_frame_name(const struct stack_frame *f, char *buf, size_t len);
/* a root-frame name (an attachment's label) made safe the same way */
const char *stack_name_safe(const char *s, char *buf, size_t len);
/* a row's errno as the root frame below its label ("errno:ENOENT"), or NULL */
const char *stack_errno_frame(const struct stack_row *r, char *buf, size_t len);

void stacks_print_text(FILE *f, const struct stacks *s);
/* Folded lines, outermost frame first, identical stacks summed; sets' labels
 * as the root frame when there are several. 0, or -errno of the write. */
int stacks_print_folded(FILE *f, const struct stacks *s);
/* The gzipped pprof profile: 0, -ENOTSUP (built without protobuf-c), -errno. */
extern const bool stacks_pprof_built;
int stacks_write_pprof(FILE *f, const struct stacks *s);
/*
 * The flame graph of s, width pixels wide: a whole SVG document
 * (standalone) or an <svg> element to inline in an HTML page (the report).
 * Frames: one <g class="frame"> each with its <title>, <rect> and <text>;
 * a small script zooms on click.
 */
void flame_svg(FILE *f, const struct stacks *s, const char *title, int width, bool standalone);

#endif
