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

struct fn_walk {
	struct tracerd *d;
	struct direct_set direct;
	json_object *arr;
	size_t total, limit;
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

static int function_add(void *arg, const struct fn_info *f)
{
	struct fn_walk *w = arg;
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
	json_object_array_add(w->arr, o);
	return 0;
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

static enum proto_code list_tracepoints(struct tracerd *d, const char *glob, struct fn_walk *w,
					char *msg, size_t msglen)
{
	char **cats, **evs, path[300], full[300];
	size_t nc, ne, i, j;

	cats = list_dir("events", &nc, msg, msglen);
	if (!cats)
		return PROTO_E_UNAVAILABLE;
	for (i = 0; i < nc; i++) {
		snprintf(path, sizeof(path), "events/%s", cats[i]);
		evs = list_dir(path, &ne, msg, msglen);
		for (j = 0; evs && j < ne; j++) {
			snprintf(full, sizeof(full), "%s/%s", cats[i], evs[j]);
			if (!sym_glob_match(glob, full) || w->total++ >= w->limit)
				continue;
			json_object_array_add(w->arr, tracepoint_json(d, cats[i], evs[j]));
		}
		names_free(evs, ne);
	}
	names_free(cats, nc);
	msg[0] = '\0';
	return PROTO_OK;
}

enum proto_code cmd_functions(struct tracerd *d, json_object *args, json_object **result,
			      char *msg, size_t msglen)
{
	struct fn_walk w = { .d = d };
	enum proto_code code;
	const char *glob;
	int err;

	code = proto_glob_limit_args(args, "functions", FUNCTIONS_MAX, &glob, &w.limit, msg,
				     msglen);
	if (code)
		return code;
	w.arr = json_object_new_array();
	if (glob && spec_is_tracepoint(glob)) {
		code = list_tracepoints(d, glob + 3, &w, msg, msglen);
	} else {
		direct_set_load(&w.direct);
		err = resolve_each_function(d, glob, function_add, &w);
		direct_set_free(&w.direct);
		if (err) {
			str_fmt(msg, msglen, "cannot list kernel functions (no "
				"available_filter_functions, kallsyms or BTF)");
			code = proto_code_errno(err);
		}
	}
	if (code) {
		json_object_put(w.arr);
		return code;
	}
	*result = json_object_new_object();
	json_object_object_add(*result, "functions", w.arr);
	json_object_object_add(*result, "total", json_object_new_int64((long long)w.total));
	if (!glob || !spec_is_tracepoint(glob))
		json_object_object_add(*result, "unavailable", unavailable_json(d));
	json_object_object_add(*result, "truncated", json_object_new_boolean(w.total > w.limit));
	return PROTO_OK;
}
