// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The `sites` command (tracectl sites --live [GLOB]): what the ftrace call
 * site of each matching traceable function holds now, read through the
 * module (TRACERD_IOC_SITES, batches of 64), next to what tracefs'
 * enabled_functions says uses the function. Functions come from the
 * daemon's one symbol source (resolve_each_function): those in
 * available_filter_functions with a kallsyms address. At most `limit`
 * (SITES_MAX) per request, so one request is a bounded amount of work for
 * the event loop: 64 ioctls of 64 functions at most.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracerd/kmod_abi.h>
#include "../lib/spec.h"
#include "../lib/strutil.h"
#include "../lib/symfilter.h"
#include "../lib/util.h"
#include "backend.h"
#include "commands.h"
#include "resolve.h"
#include "tracefs.h"

#define SITES_MAX	4096	/* functions in one reply */

/* enabled_functions: each function's line without its name, sorted by name */
struct enabled {
	char *name;
	char *tail;	/* "(1) R  D  tramp: ... direct-->..." continuations joined by ' ' */
};

struct enabled_set {
	struct enabled *v;
	size_t n;
};

static int enabled_cmp(const void *a, const void *b)
{
	return strcmp(((const struct enabled *)a)->name, ((const struct enabled *)b)->name);
}

static char *trim(char *s)
{
	size_t n;
	char *t;

	for (t = s; *t; t++)	/* 6.x puts a tab before "tramp:" */
		if (*t == '\t')
			*t = ' ';

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* append " more" to *tail */
static void tail_append(char **tail, const char *more)
{
	size_t a = strlen(*tail), b = strlen(more);
	char *t = realloc(*tail, a + b + 2);

	if (!t)
		return;
	t[a] = ' ';
	memcpy(t + a + 1, more, b + 1);
	*tail = t;
}

static void enabled_load(struct enabled_set *s)
{
	char why[256], line[1024];
	struct enabled *v;
	FILE *f;
	int fd = tracefs_open("enabled_functions", why, sizeof(why));

	memset(s, 0, sizeof(*s));
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f && fd >= 0)
		close(fd);
	while (f && fgets(line, sizeof(line), f)) {
		char *name = line, *rest;

		if (line[0] == '\t' || line[0] == ' ') {	/* continuation of the last one */
			if (s->n)
				tail_append(&s->v[s->n - 1].tail, trim(line));
			continue;
		}
		rest = line + strcspn(line, " \t\n");
		if (*rest)
			*rest++ = '\0';
		rest = trim(rest);
		if (rest[0] == '[')	/* "[module]" belongs to the name */
			rest = trim(rest + strcspn(rest, "]") + (strchr(rest, ']') ? 1 : 0));
		if (!name[0] || !(v = realloc(s->v, (s->n + 1) * sizeof(*v))))
			continue;
		s->v = v;
		v[s->n].name = strdup(name);
		v[s->n].tail = strdup(rest);
		if (!v[s->n].name || !v[s->n].tail) {
			free(v[s->n].name);
			free(v[s->n].tail);
			continue;
		}
		s->n++;
	}
	if (f)
		fclose(f);
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), enabled_cmp);
}

static const char *enabled_tail(const struct enabled_set *s, const char *name)
{
	struct enabled key = { .name = (char *)name }, *e;

	if (!s->n)
		return NULL;
	e = bsearch(&key, s->v, s->n, sizeof(*s->v), enabled_cmp);
	return e ? e->tail : NULL;
}

static void enabled_free(struct enabled_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].tail);
	}
	free(s->v);
}

/* the matching traceable functions with an address, at most limit of them */
struct site_walk {
	char **names;
	char **mods;
	struct tracerd_site_entry *e;
	size_t n, total, limit;
	int err;
};

static int site_add(void *arg, const struct fn_info *f)
{
	struct site_walk *w = arg;
	size_t i = w->n;

	if (!f->traceable || !f->addr)
		return 0;
	if (w->total++ >= w->limit)
		return 0;
	w->names[i] = strdup(f->name);
	w->mods[i] = f->module ? strdup(f->module) : NULL;
	if (!w->names[i] || (f->module && !w->mods[i])) {
		free(w->names[i]);
		w->err = -ENOMEM;
		return 1;
	}
	memset(&w->e[i], 0, sizeof(w->e[i]));
	w->e[i].addr = f->addr;
	w->n++;
	return 0;
}

static const char *site_kind_name(__u32 k)
{
	static const char *const names[] = {
		[TRACERD_SITEK_NOP] = "nop",
		[TRACERD_SITEK_CALLER] = "caller",
		[TRACERD_SITEK_OPS_TRAMP] = "ops_trampoline",
		[TRACERD_SITEK_TRACERD] = "tracerd_trampoline",
		[TRACERD_SITEK_BPF] = "bpf_trampoline",
		[TRACERD_SITEK_OTHER] = "other",
		[TRACERD_SITEK_UNKNOWN] = "unknown",
	};

	return k < ARRAY_SIZE(names) ? names[k] : "unknown";
}

static const char *site_ops_kind_name(__u32 k)
{
	static const char *const names[] = {
		[TRACERD_SITEOPS_NONE] = "none",
		[TRACERD_SITEOPS_LIST] = "list",
		[TRACERD_SITEOPS_NOP] = "nop",
		[TRACERD_SITEOPS_TRACERD] = "tracerd",
		[TRACERD_SITEOPS_OTHER] = "other",
	};

	return k < ARRAY_SIZE(names) ? names[k] : "other";
}

static json_object *hex_json(__u64 v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, (uint64_t)v);
	return json_object_new_string(buf);
}

static json_object *str_or_null(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

/*
 * x86_64's per-ops trampolines have no name %ps resolves: the module calls
 * such a branch `other`. enabled_functions names the function's ops
 * trampoline ("tramp: 0xADDR (FUNC)"): when that is where the site goes,
 * it is the ops trampoline, of that callback.
 */
static void ops_tramp_refine(struct tracerd_site_entry *e, const char *enabled)
{
	char needle[48], func[41];
	const char *p;
	size_t n;

	if (e->kind != TRACERD_SITEK_OTHER || !enabled)
		return;
	snprintf(needle, sizeof(needle), "tramp: 0x%" PRIx64 " (", (uint64_t)e->target);
	p = strstr(enabled, needle);
	if (!p)
		return;
	p += strlen(needle);
	n = strcspn(p, "+)");
	snprintf(func, sizeof(func), "%.*s", (int)(n < sizeof(func) ? n : sizeof(func) - 1), p);
	e->kind = TRACERD_SITEK_OPS_TRAMP;
	snprintf(e->target_sym, sizeof(e->target_sym), "ftrace_trampoline (%.40s)", func);
}

static json_object *site_json(const char *name, const char *module,
			      struct tracerd_site_entry *e, const char *enabled)
{
	json_object *o = json_object_new_object(), *ops = NULL;
	char ebuf[96];

	ops_tramp_refine(e, enabled);

	e->target_sym[sizeof(e->target_sym) - 1] = '\0';
	e->ops_sym[sizeof(e->ops_sym) - 1] = '\0';
	e->ops_call_sym[sizeof(e->ops_call_sym) - 1] = '\0';
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "module", str_or_null(module));
	json_object_object_add(o, "addr", hex_json(e->addr));
	json_object_object_add(o, "enabled", json_object_new_boolean(enabled != NULL));
	json_object_object_add(o, "enabled_with", enabled ? json_object_new_string(enabled) : NULL);
	if (e->error) {
		json_object_object_add(o, "kind", NULL);
		json_object_object_add(o, "error", json_object_new_string(
			errno_str(e->error, ebuf, sizeof(ebuf))));
		return o;
	}
	json_object_object_add(o, "kind", json_object_new_string(site_kind_name(e->kind)));
	json_object_object_add(o, "site", hex_json(e->site));
	json_object_object_add(o, "insn", hex_json(e->insn));
	json_object_object_add(o, "target", e->target ? hex_json(e->target) : NULL);
	json_object_object_add(o, "target_sym", str_or_null(e->target_sym));
	if (e->ops) {
		ops = json_object_new_object();
		json_object_object_add(ops, "addr", hex_json(e->ops));
		json_object_object_add(ops, "kind", json_object_new_string(
			site_ops_kind_name(e->ops_kind)));
		/* an allocated ops has no symbol: %ps printed its address */
		json_object_object_add(ops, "sym", strncmp(e->ops_sym, "0x", 2) ?
				       str_or_null(e->ops_sym) : NULL);
		json_object_object_add(ops, "call", e->ops_call ? hex_json(e->ops_call) : NULL);
		json_object_object_add(ops, "call_sym", str_or_null(e->ops_call_sym));
	}
	json_object_object_add(o, "ops", ops);
	json_object_object_add(o, "error", NULL);
	return o;
}

static void walk_free(struct site_walk *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		free(w->names[i]);
		free(w->mods[i]);
	}
	free(w->names);
	free(w->mods);
	free(w->e);
}

enum proto_code cmd_sites(struct tracerd *d, json_object *args, json_object **result,
			  char *msg, size_t msglen)
{
	struct site_walk w = {};
	struct enabled_set en;
	enum proto_code code;
	const char *glob;
	json_object *arr;
	char why[256];
	size_t i;
	int err;

	code = proto_glob_limit_args(args, "sites", SITES_MAX, &glob, &w.limit, msg, msglen);
	if (code)
		return code;
	if (glob && (spec_is_tracepoint(glob) || spec_check_target(glob, why, sizeof(why)))) {
		str_fmt(msg, msglen, "sites: bad glob: %s", spec_is_tracepoint(glob) ?
			"a tracepoint has no ftrace call site" : why);
		return PROTO_E_BAD_REQUEST;
	}
	/* the module first: without it there is nothing to read the sites with */
	err = kmod_sites(d, NULL, 0, why, sizeof(why));
	if (err) {
		str_fmt(msg, msglen, "sites: reading live call sites needs tracerd_kmod: %s", why);
		return proto_code_errno(err);
	}
	w.names = calloc(w.limit, sizeof(*w.names));
	w.mods = calloc(w.limit, sizeof(*w.mods));
	w.e = calloc(w.limit, sizeof(*w.e));
	if (!w.names || !w.mods || !w.e) {
		walk_free(&w);
		str_fmt(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	err = resolve_each_function(d, glob, site_add, &w);
	if (w.err || err < 0) {
		walk_free(&w);
		str_fmt(msg, msglen, w.err ? "out of memory" : "cannot list kernel functions (no "
			"available_filter_functions, kallsyms or BTF)");
		return proto_code_errno(w.err ? w.err : err);
	}
	if (!w.total) {
		walk_free(&w);
		str_fmt(msg, msglen, "sites: no traceable function (available_filter_functions, "
			"with a kallsyms address) matches '%s'", glob ? glob : "*");
		return PROTO_E_NOT_FOUND;
	}
	err = kmod_sites(d, w.e, w.n, why, sizeof(why));
	if (err) {
		walk_free(&w);
		str_fmt(msg, msglen, "sites: %s", why);
		return proto_code_errno(err);
	}
	enabled_load(&en);
	arr = json_object_new_array();
	for (i = 0; i < w.n; i++)
		json_object_array_add(arr, site_json(w.names[i], w.mods[i], &w.e[i],
						     enabled_tail(&en, w.names[i])));
	enabled_free(&en);
	walk_free(&w);
	*result = json_object_new_object();
	json_object_object_add(*result, "sites", arr);
	json_object_object_add(*result, "total", json_object_new_int64((long long)w.total));
	json_object_object_add(*result, "truncated", json_object_new_boolean(w.total > w.limit));
	return PROTO_OK;
}
