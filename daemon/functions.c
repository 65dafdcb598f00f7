// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The `functions` command (tracectl functions [GLOB], as bpftrace -l):
 * what this kernel lets tracerd hook and in which modes. Functions come
 * from the daemon's one symbol source (resolve_each_function: ftrace's
 * list, kallsyms, BTF); each mode's needs are its backend's caps
 * (NEEDS_BTF, NEEDS_ADDR, DIRECT_EXCL); the modes that do not work here
 * at all (the feature probe) are listed once, in "unavailable". A function that already carries a
 * direct call (enabled_functions' D flag) has no room for a mode that owns one. Tracepoints (GLOB
 * tp:CATEGORY/NAME) come from tracefs: with a btf_trace_ type they are hooked by tp_btf, else by
 * raw_tp or as a classic tracepoint (daemon/be_tp.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "../lib/spec.h"
#include "../lib/strutil.h"
#include "../lib/symfilter.h"
#include "backend.h"
#include "commands.h"
#include "control.h"
#include "resolve.h"
#include "tracefs.h"

#define FUNCTIONS_MAX	100000	/* entries in one reply (64 MiB at most) */

/* enabled_functions' names carrying a direct call (flag D), sorted */
struct direct_set {
	char **names;
	size_t n;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "name [mod] (N) R I D O M \ttramp: ..." (continuation lines start with a tab) */
static bool direct_line(char *line)
{
	char *open = strchr(line, '('), *close = open ? strchr(open, ')') : NULL;
	size_t flags = close ? strcspn(close + 1, "\t") : 0;

	if (line[0] == '\t' || !close || !memchr(close + 1, 'D', flags))
		return false;
	line[strcspn(line, " ")] = '\0';
	return true;
}

static void direct_set_load(struct direct_set *s)
{
	char why[256], line[1024];
	FILE *f;
	char **v;
	int fd = tracefs_open("enabled_functions", why, sizeof(why));

	memset(s, 0, sizeof(*s));
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f && fd >= 0)
		close(fd);
	while (f && fgets(line, sizeof(line), f)) {
		if (!direct_line(line) || !(v = realloc(s->names, (s->n + 1) * sizeof(*v))))
			continue;
		s->names = v;
		if ((s->names[s->n] = strdup(line)))
			s->n++;
	}
	if (f)
		fclose(f);
	if (s->n)
		qsort(s->names, s->n, sizeof(*s->names), name_cmp);
}

static bool direct_set_has(const struct direct_set *s, const char *name)
{
	return s->n && bsearch(&name, s->names, s->n, sizeof(*s->names), name_cmp);
}

static void direct_set_free(struct direct_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
}

/*
 * One listing in progress (control_stream): the rows are made a step at a
 * time, each written out as it is made, never the whole reply at once.
 */
struct fn_stream {
	struct tracerd *d;
	char *glob;		/* NULL: all */
	bool tracepoints;	/* glob was tp:CATEGORY/NAME (glob: past "tp:") */
	struct direct_set direct;
	struct fn_cursor cur;	/* functions: the walk's position */
	char **cats;		/* tracepoints: the categories, */
	size_t nc, ci;		/* how many, the next one */
	size_t total, limit, rows;
	struct evbuffer *out;	/* during a step */
	int err;		/* a row could not be written */
};

/* Why f cannot be hooked in any mode ("" when it can in some). */
static const char *function_reason(const struct fn_info *f)
{
	if (f->denied[0])
		return f->denied;
	if (f->traceable)
		return "";
	if (f->in_kallsyms)
		return "notrace (not in available_filter_functions)";
	if (f->btf)
		return "inlined (in BTF, no symbol in kallsyms)";
	return "not a function symbol";
}

/* Why mode be cannot hook f ("" when it can): what f lacks, not what the kernel does. */
static const char *mode_reason(const struct backend *be, const struct fn_info *f, bool direct)
{
	if ((be->caps & MODE_CAP_NEEDS_BTF) && !f->btf)
		return "no BTF for it";
	if ((be->caps & MODE_CAP_NEEDS_ADDR) && !f->addr)
		return "no kallsyms address";
	if ((be->caps & MODE_CAP_DIRECT_EXCL) && direct)
		return "it already carries a direct call (enabled_functions: D)";
	return "";
}

/* the function modes this kernel lacks, once per reply: {mode: why} */
static json_object *unavailable_json(struct tracerd *d)
{
	json_object *o = json_object_new_object();
	int m;

	for (m = 1; m < TRACERD_MODE_NR; m++) {
		const struct backend *be = backend_get(m);

		if (be && (be->caps & MODE_CAP_FUNCTION) && !d->features[m].available)
			json_object_object_add(o, tracerd_mode_name(m),
					       json_object_new_string(d->features[m].reason));
	}
	return o;
}

/* The row of o, a ',' before all but the first, to the step's output. */
static int row_write(struct fn_stream *w, json_object *o)
{
	size_t len;
	char *s = proto_stream_item(o, !w->rows, &len);
	int err = s && !evbuffer_add(w->out, s, len) ? 0 : -ENOMEM;

	free(s);
	json_object_put(o);
	w->rows++;
	return w->err = err;
}

static int function_add(void *arg, const struct fn_info *f)
{
	struct fn_stream *w = arg;
	const char *why = function_reason(f);
	bool direct = direct_set_has(&w->direct, f->name);
	json_object *o, *modes, *refused;
	int m;

	if (w->total++ >= w->limit)
		return 0;
	o = json_object_new_object();
	modes = json_object_new_array();
	refused = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(f->name));
	json_object_object_add(o, "module", f->module ? json_object_new_string(f->module) : NULL);
	json_object_object_add(o, "traceable", json_object_new_boolean(f->traceable));
	json_object_object_add(o, "btf", json_object_new_boolean(f->btf));
	json_object_object_add(o, "kallsyms", json_object_new_boolean(f->in_kallsyms));
	json_object_object_add(o, "direct_call", json_object_new_boolean(direct));
	json_object_object_add(o, "count", json_object_new_int((int)f->count));
	json_object_object_add(o, "reason", why[0] ? json_object_new_string(why) : NULL);
	for (m = 1; m < TRACERD_MODE_NR && !why[0]; m++) {
		const struct backend *be = backend_get(m);
		const char *r;

		if (!be || !(be->caps & MODE_CAP_FUNCTION) || !w->d->features[m].available)
			continue;
		r = mode_reason(be, f, direct);
		if (r[0])
			json_object_object_add(refused, tracerd_mode_name(m),
					       json_object_new_string(r));
		else
			json_object_array_add(modes, json_object_new_string(tracerd_mode_name(m)));
	}
	json_object_object_add(o, "modes", modes);
	json_object_object_add(o, "refused", refused);
	return row_write(w, o);
}

/* The tracepoint CAT/NAME as a functions entry: its kernel path. */
static json_object *tracepoint_json(struct tracerd *d, const char *cat, const char *name)
{
	json_object *o = json_object_new_object(), *modes = json_object_new_array();
	char full[300], tname[192];
	bool btf = false;
	int m;
	const char *path;

	snprintf(full, sizeof(full), "tp:%s/%s", cat, name);
	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	if (d->vmlinux_btf)
		btf = btf__find_by_name_kind(d->vmlinux_btf, tname, BTF_KIND_TYPEDEF) > 0;
	if (!strcmp(cat, "syscalls"))
		path = "tracepoint";	/* ftrace events over the one sys_enter/sys_exit */
	else
		path = btf ? "tp_btf" : "raw_tp or tracepoint";
	json_object_object_add(o, "name", json_object_new_string(full));
	json_object_object_add(o, "btf", json_object_new_boolean(btf));
	json_object_object_add(o, "via", json_object_new_string(path));
	json_object_object_add(o, "latency", json_object_new_boolean(spec_is_syscall_pair(full)));
	for (m = 1; m < TRACERD_MODE_NR; m++)
		if (tracerd_mode_is_tracepoint(m) && d->features[m].available)
			json_object_array_add(modes, json_object_new_string(tracerd_mode_name(m)));
	json_object_object_add(o, "modes", modes);
	return o;
}

/* Sorted subdirectory names of tracefs dir (events, events/CAT); NULL when unreadable. */
static char **list_dir(const char *dir, size_t *n, char *msg, size_t msglen)
{
	int fd = tracefs_open(dir, msg, msglen);
	DIR *dp = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	char **v = NULL, **t;

	*n = 0;
	if (!dp) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((e = readdir(dp))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.' ||
		    !(t = realloc(v, (*n + 1) * sizeof(*v))))
			continue;
		v = t;
		if ((v[*n] = strdup(e->d_name)))
			(*n)++;
	}
	closedir(dp);
	if (*n)
		qsort(v, *n, sizeof(*v), name_cmp);
	return v ? v : calloc(1, sizeof(*v));
}

static void names_free(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

/* The events of the next category that match, as rows. */
static void tracepoints_step(struct fn_stream *w)
{
	const char *cat = w->cats[w->ci++];
	char msg[256], path[300], full[300];
	size_t ne, j;
	char **evs;

	snprintf(path, sizeof(path), "events/%s", cat);
	evs = list_dir(path, &ne, msg, sizeof(msg));
	for (j = 0; evs && j < ne && !w->err; j++) {
		snprintf(full, sizeof(full), "%s/%s", cat, evs[j]);
		if (!sym_glob_match(w->glob, full) || w->total++ >= w->limit)
			continue;
		row_write(w, tracepoint_json(w->d, cat, evs[j]));
	}
	names_free(evs, ne);
}

/* {"total", "unavailable" (functions only), "truncated"}: what follows the rows */
static json_object *tail_json(struct fn_stream *w)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "total", json_object_new_int64((long long)w->total));
	if (!w->tracepoints)
		json_object_object_add(o, "unavailable", unavailable_json(w->d));
	json_object_object_add(o, "truncated", json_object_new_boolean(w->total > w->limit));
	return o;
}

/* Names visited per step: ~1 ms of rows here (control_stream shares the turn's budget). */
#define FUNCTIONS_STEP	64

static int functions_step(struct tracerd *d, void *ctx, struct evbuffer *out)
{
	struct fn_stream *w = ctx;
	json_object *tail;
	size_t len;
	char *s;
	int ret = 1;

	w->out = out;
	if (w->tracepoints) {
		if (w->ci < w->nc)
			tracepoints_step(w);
		ret = w->ci < w->nc;
	} else {
		ret = resolve_functions_step(d, w->glob, &w->cur, FUNCTIONS_STEP, function_add, w);
	}
	if (w->err || ret < 0)
		return w->err ? w->err : ret;
	if (ret)
		return 1;
	tail = tail_json(w);
	s = proto_stream_tail(tail, &len);
	json_object_put(tail);
	ret = s && !evbuffer_add(out, s, len) ? 0 : -ENOMEM;
	free(s);
	return ret;
}

static void functions_free(void *ctx)
{
	struct fn_stream *w = ctx;

	direct_set_free(&w->direct);
	names_free(w->cats, w->nc);
	free(w->glob);
	free(w);
}

static const struct control_stream_ops functions_ops = { functions_step, functions_free };

static int no_row(void *arg, const struct fn_info *f)
{
	return 0;
}

/* What a listing needs before its first row: its errors come as a reply, not a cut stream. */
static enum proto_code functions_begin(struct tracerd *d, struct fn_stream *w, char *msg,
				       size_t msglen)
{
	int err;

	if (w->tracepoints) {
		w->cats = list_dir("events", &w->nc, msg, msglen);
		if (!w->cats)
			return PROTO_E_UNAVAILABLE;
		msg[0] = '\0';
		return PROTO_OK;
	}
	err = resolve_functions_step(d, NULL, &w->cur, 0, no_row, NULL);	/* a source? */
	if (err < 0) {
		str_fmt(msg, msglen, "cannot list kernel functions (no "
			"available_filter_functions, kallsyms or BTF)");
		return proto_code_errno(err);
	}
	direct_set_load(&w->direct);
	return PROTO_OK;
}

enum proto_code cmd_functions(struct tracerd *d, json_object *args, json_object **result,
			      char *msg, size_t msglen)
{
	struct fn_stream *w = calloc(1, sizeof(*w));
	enum proto_code code;
	const char *glob;
	int err;

	if (!w) {
		str_fmt(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	w->d = d;
	code = proto_glob_limit_args(args, "functions", FUNCTIONS_MAX, &glob, &w->limit, msg,
				     msglen);
	if (!code && glob) {
		w->tracepoints = spec_is_tracepoint(glob);
		w->glob = strdup(glob + (w->tracepoints ? 3 : 0));
		if (!w->glob) {
			str_fmt(msg, msglen, "out of memory");
			code = PROTO_E_INTERNAL;
		}
	}
	if (!code)
		code = functions_begin(d, w, msg, msglen);
	if (!code) {
		err = control_stream(d, "functions", &functions_ops, w, msg, msglen);
		if (!err)
			return PROTO_OK;	/* the reply is on its way */
		code = err == -EBUSY ? PROTO_E_LIMIT : proto_code_errno(err);
	}
	functions_free(w);
	return code;
}
