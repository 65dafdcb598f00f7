// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stacks of a stats reply (docs/protocol.md, stats with "stacks") as
 * one model, and its text and folded renderers. Strings stay in the json-c
 * tree the model keeps a reference to.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/strutil.h"
#include "stacks.h"
#include "tracectl.h"

static uint64_t frame_addr(json_object *fr)
{
	json_object *a = jget(fr, "addr");

	if (json_object_is_type(a, json_type_int))
		return (uint64_t)json_object_get_int64(a);
	return json_object_is_type(a, json_type_string) ?
		       strtoull(json_object_get_string(a), NULL, 16) : 0;
}

static const char *str_or_null(json_object *o, const char *key)
{
	json_object *v = jget(o, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int row_parse(struct stack_row *r, json_object *jr)
{
	json_object *frames = jarr(jr, "frames"), *fr;
	size_t i;

	r->count = (uint64_t)jint(jr, "count", 0);
	r->err = str_or_null(jr, "errno");
	r->nframes = jlen(frames);
	r->frames = calloc(r->nframes + 1, sizeof(*r->frames));
	if (!r->frames)
		return -ENOMEM;
	for (i = 0; i < r->nframes; i++) {
		fr = json_object_array_get_idx(frames, i);
		r->frames[i].addr = frame_addr(fr);
		r->frames[i].sym = str_or_null(fr, "sym");
		r->frames[i].off = (uint64_t)jint(fr, "off", 0);
		r->frames[i].module = str_or_null(fr, "module");
		r->frames[i].why = str_or_null(fr, "why");
	}
	return 0;
}

static int set_parse(struct stack_set *set, json_object *row, json_object *st)
{
	json_object *rows = jarr(st, "rows");
	size_t i;

	set->id = json_object_is_type(jget(row, "id"), json_type_int) ? jint(row, "id", 0) : -1;
	set->function = jstr(row, "function", "?");
	set->mode = jstr(row, "mode", "merged");
	set->depth = (uint64_t)jint(st, "depth", 0);
	set->distinct = (uint64_t)jint(st, "distinct", 0);
	set->dropped = (uint64_t)jint(st, "dropped", 0);
	set->total = (uint64_t)jint(st, "total", 0);
	set->nrows = jlen(rows);
	set->rows = calloc(set->nrows + 1, sizeof(*set->rows));
	if (!set->rows)
		return -ENOMEM;
	for (i = 0; i < set->nrows; i++)
		if (row_parse(&set->rows[i], json_object_array_get_idx(rows, i)))
			return -ENOMEM;
	return 0;
}

/* The root frame of each set: its function, with the attachment id when
 * two sets trace the same function (two attachments, two modes). */
static void set_labels(struct stacks *s)
{
	size_t i, k;

	for (i = 0; i < s->nsets; i++) {
		bool twice = false;

		for (k = 0; k < s->nsets; k++)
			twice |= k != i && !strcmp(s->sets[k].function, s->sets[i].function);
		if (twice && s->sets[i].id >= 0)
			str_fmt(s->sets[i].label, sizeof(s->sets[i].label), "%s #%lld",
				s->sets[i].function, s->sets[i].id);
		else
			str_fmt(s->sets[i].label, sizeof(s->sets[i].label), "%s",
				s->sets[i].function);
	}
}

int stacks_from_reply(json_object *result, struct stacks *s)
{
	json_object *arr = jarr(result, "stats"), *row;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->reply = json_object_get(result);
	s->sets = calloc(jlen(arr) + 1, sizeof(*s->sets));
	if (!s->sets)
		return -ENOMEM;
	for (i = 0; i < jlen(arr); i++) {
		row = json_object_array_get_idx(arr, i);
		if (!jobj(row, "stacks")) {
			s->without++;
			continue;
		}
		if (set_parse(&s->sets[s->nsets++], row, jobj(row, "stacks")))
			return -ENOMEM;
	}
	set_labels(s);
	return 0;
}

void stacks_free(struct stacks *s)
{
	size_t i, k;

	for (i = 0; s->sets && i < s->nsets; i++) {
		for (k = 0; s->sets[i].rows && k < s->sets[i].nrows; k++)
			free(s->sets[i].rows[k].frames);
		free(s->sets[i].rows);
	}
	free(s->sets);
	json_object_put(s->reply);
	memset(s, 0, sizeof(*s));
}

const char *stack_frame_text(const struct stack_frame *f, char *buf, size_t len)
{
	size_t n;

	if (!f->sym)
		n = (size_t)snprintf(buf, len, "0x%llx (%s)", (unsigned long long)f->addr,
				     tty_str(f->why ? f->why : "unresolved"));
	else
		n = (size_t)snprintf(buf, len, "%s+0x%llx", tty_str(f->sym),
				     (unsigned long long)f->off);
	if (f->module && n < len)
		snprintf(buf + n, len - n, " [%s]", tty_str(f->module));
	return buf;
}

/* ';' separates a folded line's frames: a name keeps none */
static const char *no_semicolons(char *buf)
{
	char *p;

	for (p = buf; *p; p++)
		if (*p == ';')
			*p = ':';
	return buf;
}

const char *stack_name_safe(const char *s, char *buf, size_t len)
{
	str_fmt(buf, len, "%s", tty_str(s));
	return no_semicolons(buf);
}

const char *stack_frame_name(const struct stack_frame *f, char *buf, size_t len)
{
	char raw[512];
	size_t n;

	if (!f->sym)
		n = (size_t)snprintf(raw, sizeof(raw), "0x%llx (%s)", (unsigned long long)f->addr,
				     tty_str(f->why ? f->why : "unresolved"));
	else
		n = (size_t)snprintf(raw, sizeof(raw), "%s", tty_str(f->sym));
	if (f->module && n < sizeof(raw))
		snprintf(raw + n, sizeof(raw) - n, " [%s]", tty_str(f->module));
	/* raw is escaped already (no control byte left): only ';' to replace */
	str_fmt(buf, len, "%s", raw);
	return no_semicolons(buf);
}

static double pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

static void set_print_text(FILE *f, const struct stack_set *set)
{
	char id[24], fr[640];
	size_t i, k;

	snprintf(id, sizeof(id), set->id < 0 ? "*" : "%lld", set->id);
	fprintf(f, "\n%s %s (%s): %llu calls in %llu distinct stacks (depth %llu)", id,
		tty_str(set->function), set->id < 0 ? "merged" : tty_str(set->mode),
		(unsigned long long)set->total,
		(unsigned long long)set->distinct, (unsigned long long)set->depth);
	if (set->nrows < set->distinct)
		fprintf(f, ", the %zu hottest", set->nrows);
	fputc('\n', f);
	for (i = 0; i < set->nrows; i++) {
		const struct stack_row *r = &set->rows[i];

		if (r->err)	/* --errors --stacks: the stacks of the calls that failed so */
			fprintf(f, "@[errno %s,\n", stack_name_safe(r->err, fr, sizeof(fr)));
		else
			fprintf(f, "@[\n");
		for (k = 0; k < r->nframes; k++)
			fprintf(f, "    %s\n", stack_frame_text(&r->frames[k], fr, sizeof(fr)));
		if (!r->nframes)
			fprintf(f, "    (no frames)\n");
		fprintf(f, "]: %llu (%.1f%%)\n", (unsigned long long)r->count,
			pct(r->count, set->total));
	}
	if (set->dropped)
		fprintf(f, "%llu calls whose stack was not kept (table full or a hash collision)\n",
			(unsigned long long)set->dropped);	/* docs/limits.md */
	else
		fprintf(f, "every call's stack was kept (none dropped)\n");
}

void stacks_print_text(FILE *f, const struct stacks *s)
{
	size_t i;

	for (i = 0; i < s->nsets; i++)
		set_print_text(f, &s->sets[i]);
}

const char *stack_errno_frame(const struct stack_row *r, char *buf, size_t len)
{
	char safe[64];

	if (!r->err)
		return NULL;
	snprintf(buf, len, "errno:%s", stack_name_safe(r->err, safe, sizeof(safe)));
	return buf;
}

/* one folded line: "root;[errno:E;]outer;...;inner" (frames reversed) */
static char *folded_line(const struct stack_set *set, const struct stack_row *r, bool root)
{
	char name[640], *line = NULL;
	size_t len = 0, k;
	FILE *m = open_memstream(&line, &len);

	if (!m)
		return NULL;
	if (root)
		fputs(stack_name_safe(set->label, name, sizeof(name)), m);
	if (stack_errno_frame(r, name, sizeof(name))) {
		fprintf(m, "%s%s", root ? ";" : "", name);
		root = true;	/* the frames follow a root */
	}
	for (k = r->nframes; k-- > 0;)
		fprintf(m, "%s%s", root || k + 1 < r->nframes ? ";" : "",
			stack_frame_name(&r->frames[k], name, sizeof(name)));
	if (fclose(m)) {
		free(line);
		return NULL;
	}
	return line;
}

struct folded {
	char *line;
	uint64_t count;
};

static int folded_cmp(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->line, y->line);
}

/* every stack's line, identical lines summed (offsets apart, two stacks can
 * name the same functions), hottest first */
static ssize_t folded_lines(const struct stacks *s, struct folded **out)
{
	size_t i, k, j, n = 0, cap = 0;
	struct folded *v = NULL;
	bool root = s->nsets > 1;

	for (i = 0; i < s->nsets; i++)
		cap += s->sets[i].nrows;
	v = calloc(cap + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < s->nsets; i++)
		for (k = 0; k < s->sets[i].nrows; k++) {
			char *line = folded_line(&s->sets[i], &s->sets[i].rows[k], root);

			if (!line)
				goto nomem;
			for (j = 0; j < n && strcmp(v[j].line, line); j++)
				;
			if (j < n)
				free(line);
			else
				v[n++].line = line;
			v[j].count += s->sets[i].rows[k].count;
		}
	qsort(v, n, sizeof(*v), folded_cmp);
	*out = v;
	return (ssize_t)n;
nomem:
	while (n--)
		free(v[n].line);
	free(v);
	return -ENOMEM;
}

int stacks_print_folded(FILE *f, const struct stacks *s)
{
	struct folded *v;
	ssize_t n = folded_lines(s, &v), i;

	if (n < 0)
		return (int)n;
	for (i = 0; i < n; i++) {
		if (v[i].line[0])
			fprintf(f, "%s %llu\n", v[i].line, (unsigned long long)v[i].count);
		free(v[i].line);
	}
	free(v);
	return ferror(f) ? -EIO : 0;
}
