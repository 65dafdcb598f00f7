// SPDX-License-Identifier: GPL-2.0-or-later
/* Target resolution; see resolve.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "../lib/log.h"
#include "../lib/symfilter.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "resolve.h"

struct sym {
	char *name;
	char *module;	/* NULL for vmlinux */
	__u64 addr;
	__u32 count;	/* how many functions share this name */
};

struct symtab {
	struct sym *syms;
	size_t n, cap;
};

struct btf_index {
	struct btf *btf;	/* not owned for vmlinux */
	const char **names;
	__s32 *ids;
	size_t n;
};

struct mod_btf {
	char name[64];
	int fd;
	struct btf *btf;
	struct btf_index idx;
};

struct resolve_cache {
	struct symtab *ftrace;	/* NULL: available_filter_functions unreadable */
	char *modules_sig;	/* /proc/modules when ftrace was read */
	struct btf_index vmlinux;
};

struct resolver {
	struct tracerd *d;
	struct resolve_cache *c;
	struct symtab *kallsyms;	/* loaded on demand */
	struct mod_btf *mods;
	size_t nr_mods;
};

static int sym_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sym *)a)->name, ((const struct sym *)b)->name);
}

static void symtab_free(struct symtab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->syms[i].name);
		free(t->syms[i].module);
	}
	free(t->syms);
	free(t);
}

static int symtab_add(struct symtab *t, const char *name, const char *module, __u64 addr)
{
	struct sym *s;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 65536;

		s = realloc(t->syms, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->syms = s;
		t->cap = cap;
	}
	s = &t->syms[t->n];
	s->name = strdup(name);
	s->module = module ? strdup(module) : NULL;
	s->addr = addr;
	s->count = 1;
	if (!s->name || (module && !s->module))
		return -ENOMEM;
	t->n++;
	return 0;
}

/* Sort, then fold duplicates into one entry with count. */
static void symtab_finish(struct symtab *t)
{
	size_t i, j;

	qsort(t->syms, t->n, sizeof(*t->syms), sym_cmp);
	for (i = 0, j = 0; i < t->n; i++) {
		if (j && !strcmp(t->syms[j - 1].name, t->syms[i].name)) {
			t->syms[j - 1].count++;
			free(t->syms[i].name);
			free(t->syms[i].module);
			continue;
		}
		t->syms[j++] = t->syms[i];
	}
	t->n = j;
}

static const struct sym *symtab_find(const struct symtab *t, const char *name)
{
	struct sym key = { .name = (char *)name };

	if (!t)
		return NULL;
	return bsearch(&key, t->syms, t->n, sizeof(*t->syms), sym_cmp);
}

/* "name" or "name [module]" lines; NULL when not readable. */
static struct symtab *load_ftrace_functions(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	struct symtab *t = NULL;
	char line[512], name[256], mod[128];
	FILE *f = NULL;
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(paths) && !f; i++)
		f = fopen(paths[i], "re");
	if (!f)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto fail;
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%255s [%127[^]]]", name, mod);
		if (n < 1 || !strncmp(name, "__ftrace_invalid_address", 24))
			continue;
		if (symtab_add(t, name, n == 2 ? mod : NULL, 0))
			goto fail;
	}
	fclose(f);
	symtab_finish(t);
	return t;
fail:
	fclose(f);
	symtab_free(t);
	return NULL;
}

static struct symtab *load_kallsyms(void)
{
	struct symtab *t = calloc(1, sizeof(*t));
	char line[512], name[256], mod[128], type;
	unsigned long long addr;
	FILE *f;
	int n;

	if (!t)
		return NULL;
	f = fopen("/proc/kallsyms", "re");
	if (!f) {
		free(t);
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod);
		if (n < 3 || (type != 't' && type != 'T'))
			continue;
		if (symtab_add(t, name, n == 4 ? mod : NULL, addr))
			break;
	}
	fclose(f);
	symtab_finish(t);
	return t;
}

static char *read_small_file(const char *path)
{
	char *buf = NULL;
	size_t cap = 0, len = 0, n;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *b = realloc(buf, cap + 65536);

			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* ---------------------------------------------------------------- BTF */

static int idx_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void btf_index_free(struct btf_index *x)
{
	free(x->names);
	free(x->ids);
	memset(x, 0, sizeof(*x));
}

/* Index FUNC names of btf (types from start_id on): sorted, then bsearch. */
static int btf_index_build(struct btf_index *x, struct btf *btf, __u32 start_id)
{
	__u32 i, n = btf__type_cnt(btf);
	struct { const char *name; __s32 id; } *tmp;
	size_t k = 0;

	memset(x, 0, sizeof(*x));
	x->btf = btf;
	tmp = calloc(n, sizeof(*tmp));
	x->names = calloc(n, sizeof(*x->names));
	x->ids = calloc(n, sizeof(*x->ids));
	if (!tmp || !x->names || !x->ids) {
		free(tmp);
		btf_index_free(x);
		return -ENOMEM;
	}
	for (i = start_id; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		if (!btf_is_func(t))
			continue;
		tmp[k].name = btf__name_by_offset(btf, t->name_off);
		tmp[k].id = (__s32)i;
		k++;
	}
	qsort(tmp, k, sizeof(*tmp), idx_cmp);	/* name is the first member */
	for (i = 0; i < k; i++) {
		x->names[i] = tmp[i].name;
		x->ids[i] = tmp[i].id;
	}
	x->n = k;
	free(tmp);
	return 0;
}

static __s32 btf_index_find(const struct btf_index *x, const char *name)
{
	const char **p;

	if (!x->n)
		return 0;
	p = bsearch(&name, x->names, x->n, sizeof(*x->names), idx_cmp);
	return p ? x->ids[p - x->names] : 0;
}

int resolve_init(struct tracerd *d)
{
	struct resolve_cache *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	d->resolve_cache = c;
	d->vmlinux_btf = btf__load_vmlinux_btf();
	if (!d->vmlinux_btf) {
		err = -errno;
		log_warn("no vmlinux BTF: %s (fentry and tp_btf will not work)", strerror(-err));
		return 0;
	}
	return btf_index_build(&c->vmlinux, d->vmlinux_btf, 1);
}

void resolve_fini(struct tracerd *d)
{
	struct resolve_cache *c = d->resolve_cache;

	if (c) {
		symtab_free(c->ftrace);
		free(c->modules_sig);
		btf_index_free(&c->vmlinux);
		free(c);
	}
	d->resolve_cache = NULL;
	btf__free(d->vmlinux_btf);
	d->vmlinux_btf = NULL;
}

/* Module BTF (and its fd, which program loads need), cached per resolver. */
static struct mod_btf *module_btf(struct resolver *r, const char *module)
{
	char name[64];
	struct bpf_btf_info info;
	struct mod_btf *m;
	__u32 id = 0, len;
	size_t i;
	int fd;

	for (i = 0; i < r->nr_mods; i++)
		if (!strcmp(r->mods[i].name, module))
			return r->mods[i].fd >= 0 ? &r->mods[i] : NULL;
	m = realloc(r->mods, (r->nr_mods + 1) * sizeof(*m));
	if (!m || !r->d->vmlinux_btf)
		return NULL;
	r->mods = m;
	m = &r->mods[r->nr_mods++];
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	str_copy(m->name, module, sizeof(m->name));
	while (!bpf_btf_get_next_id(id, &id)) {
		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || strcmp(name, module)) {
			close(fd);
			continue;
		}
		m->btf = btf__load_from_kernel_by_id_split(id, r->d->vmlinux_btf);
		if (!m->btf || btf_index_build(&m->idx, m->btf, btf__type_cnt(r->d->vmlinux_btf))) {
			close(fd);
			return NULL;
		}
		m->fd = fd;
		return m;
	}
	return NULL;
}

struct resolver *resolver_new(struct tracerd *d)
{
	struct resolver *r = calloc(1, sizeof(*r));
	struct resolve_cache *c = d->resolve_cache;
	char *sig;

	if (!r)
		return NULL;
	r->d = d;
	r->c = c;
	/* re-read the traceable functions when the set of modules changed */
	sig = read_small_file("/proc/modules");
	if (!c->ftrace || !sig || !c->modules_sig || strcmp(sig, c->modules_sig)) {
		symtab_free(c->ftrace);
		c->ftrace = load_ftrace_functions();
		free(c->modules_sig);
		c->modules_sig = sig;
	} else {
		free(sig);
	}
	return r;
}

void resolver_free(struct resolver *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_mods; i++) {
		if (r->mods[i].fd >= 0)
			close(r->mods[i].fd);
		btf_index_free(&r->mods[i].idx);
		btf__free(r->mods[i].btf);
	}
	free(r->mods);
	symtab_free(r->kallsyms);
	free(r);
}

static const struct symtab *kallsyms(struct resolver *r)
{
	if (!r->kallsyms)
		r->kallsyms = load_kallsyms();
	return r->kallsyms;
}

/* ---------------------------------------------------------------- functions */

/* Why name cannot be hooked (message), for an exact name not in the list. */
static enum proto_code explain_missing(struct resolver *r, const char *name, char *msg, size_t len)
{
	const struct sym *k = symtab_find(kallsyms(r), name);
	bool in_btf = btf_index_find(&r->c->vmlinux, name) > 0;

	if (k && r->c->ftrace) {
		str_fmt(msg, len, "function '%s' is not traceable (notrace or not in "
			"available_filter_functions)", name);
		return PROTO_E_NOT_FOUND;
	}
	if (!k && in_btf) {
		str_fmt(msg, len, "function '%s' is inlined (in BTF, but no symbol in kallsyms)", name);
		return PROTO_E_NOT_FOUND;
	}
	str_fmt(msg, len, "unknown function '%s' (no such symbol in the kernel)", name);
	return PROTO_E_NOT_FOUND;
}

/* Fill hook h for function s (from the ftrace list or kallsyms). */
static void fill_hook(struct resolver *r, struct hook *h, const char *name, const char *module,
		      bool need_addr)
{
	const struct sym *k;
	struct mod_btf *m;

	memset(h, 0, sizeof(*h));
	h->prog_fd[0] = h->prog_fd[1] = h->link_fd[0] = h->link_fd[1] = -1;
	h->slot = TRACERD_MAX_SLOTS;	/* none yet */
	str_copy(h->name, name, sizeof(h->name));
	if (module)
		str_copy(h->module, module, sizeof(h->module));
	if (module) {
		m = module_btf(r, module);
		if (m) {
			h->btf_id = btf_index_find(&m->idx, name);
			h->btf_obj_fd = m->fd;
		}
	} else {
		h->btf_id = btf_index_find(&r->c->vmlinux, name);
	}
	if (need_addr) {
		k = symtab_find(kallsyms(r), name);
		h->addr = k ? k->addr : 0;
	}
}

static void add_skipped(json_object *skipped, const char *name, const char *why)
{
	json_object *o;

	if (!skipped || json_object_array_length(skipped) >= 1000)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "function", json_object_new_string(name));
	json_object_object_add(o, "reason", json_object_new_string(why));
	json_object_array_add(skipped, o);
}

/* Can s be hooked? NULL when yes, else the reason. */
static const char *glob_skip_reason(const struct sym *s, char *buf, size_t len)
{
	const char *pat = sym_denied(s->name);

	if (pat) {
		str_fmt(buf, len, "denylisted ('%s'): tracerd's own hooks run through it", pat);
		return buf;
	}
	if (sym_module_denied(s->module))
		return "function of tracerd's own module";
	if (s->count > 1) {
		snprintf(buf, len, "ambiguous: %u functions share this name", s->count);
		return buf;
	}
	return NULL;
}

static enum proto_code resolve_glob(struct resolver *r, const struct tracerd_spec *spec,
				    bool need_addr, struct hook **hooks, size_t *nr,
				    json_object *skipped, char *msg, size_t msglen)
{
	const struct symtab *t = r->c->ftrace ? r->c->ftrace : kallsyms(r);
	unsigned int max = r->d->cfg.max_glob_matches;
	size_t i, n = 0, matched = 0;
	struct hook *hs;
	char buf[160];

	if (!t) {
		str_fmt(msg, msglen, "cannot list kernel functions (no available_filter_functions, "
			"no /proc/kallsyms)");
		return PROTO_E_INTERNAL;
	}
	for (i = 0; i < t->n; i++)
		if (sym_glob_match(spec->target, t->syms[i].name) &&
		    !glob_skip_reason(&t->syms[i], buf, sizeof(buf)))
			matched++;
	if (!matched) {
		str_fmt(msg, msglen, "glob '%s' matches no traceable function", spec->target);
		return PROTO_E_NOT_FOUND;
	}
	if (matched > max) {
		str_fmt(msg, msglen, "glob '%s' matches %zu functions, more than max_glob_matches (%u)",
			spec->target, matched, max);
		return PROTO_E_LIMIT;
	}
	hs = calloc(matched, sizeof(*hs));
	if (!hs) {
		str_fmt(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	for (i = 0; i < t->n; i++) {
		const struct sym *s = &t->syms[i];
		const char *why;

		if (!sym_glob_match(spec->target, s->name))
			continue;
		why = glob_skip_reason(s, buf, sizeof(buf));
		if (why) {
			add_skipped(skipped, s->name, why);
			continue;
		}
		fill_hook(r, &hs[n++], s->name, s->module, need_addr);
	}
	*hooks = hs;
	*nr = n;
	return PROTO_OK;
}

static enum proto_code resolve_function(struct resolver *r, const struct tracerd_spec *spec,
					bool need_addr, struct hook **hooks, size_t *nr,
					char *msg, size_t msglen)
{
	const char *name = spec->target, *pat = sym_denied(name);
	const struct sym *s;
	struct hook *h;

	if (pat) {
		str_fmt(msg, msglen, "function '%s' is denylisted ('%s'): tracerd's own hooks run "
			"through it", name, pat);
		return PROTO_E_BAD_REQUEST;
	}
	s = symtab_find(r->c->ftrace ? r->c->ftrace : kallsyms(r), name);
	if (!s)
		return explain_missing(r, name, msg, msglen);
	if (sym_module_denied(s->module)) {
		str_fmt(msg, msglen, "function '%s' belongs to tracerd's own module", name);
		return PROTO_E_BAD_REQUEST;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		str_fmt(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	fill_hook(r, h, name, s->module, need_addr);
	*hooks = h;
	*nr = 1;
	return PROTO_OK;
}

static enum proto_code resolve_tracepoint(struct resolver *r, const struct tracerd_spec *spec,
					  struct hook **hooks, size_t *nr, char *msg, size_t msglen)
{
	const char *cat = spec->target + 3, *name = strchr(cat, '/') + 1;
	char path[512], tname[192];
	struct hook *h;
	__s32 id = 0;
	bool tracefs = !access("/sys/kernel/tracing/events", F_OK);

	if (r->d->vmlinux_btf) {
		snprintf(tname, sizeof(tname), "btf_trace_%s", name);
		id = btf__find_by_name_kind(r->d->vmlinux_btf, tname, BTF_KIND_TYPEDEF);
		if (id < 0)
			id = 0;
	}
	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%.*s/%s",
		 (int)(name - 1 - cat), cat, name);
	if (tracefs && access(path, F_OK)) {
		str_fmt(msg, msglen, "unknown tracepoint '%s' (not in /sys/kernel/tracing/events)",
			spec->target);
		return PROTO_E_NOT_FOUND;
	}
	if (!tracefs && !id) {
		str_fmt(msg, msglen, "unknown tracepoint '%s' (no btf_trace_%s in the kernel's BTF)",
			spec->target, name);
		return PROTO_E_NOT_FOUND;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		str_fmt(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	h->prog_fd[0] = h->prog_fd[1] = h->link_fd[0] = h->link_fd[1] = -1;
	h->slot = TRACERD_MAX_SLOTS;	/* none yet */
	str_copy(h->name, name, sizeof(h->name));
	h->btf_id = id;
	*hooks = h;
	*nr = 1;
	return PROTO_OK;
}

enum proto_code resolve_target(struct resolver *r, const struct tracerd_spec *spec,
			       bool need_addr, struct hook **hooks, size_t *nr,
			       json_object *skipped, char *msg, size_t msglen)
{
	*hooks = NULL;
	*nr = 0;
	if (spec_is_tracepoint(spec->target))
		return resolve_tracepoint(r, spec, hooks, nr, msg, msglen);
	if (spec_is_glob(spec->target))
		return resolve_glob(r, spec, need_addr, hooks, nr, skipped, msg, msglen);
	return resolve_function(r, spec, need_addr, hooks, nr, msg, msglen);
}
