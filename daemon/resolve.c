// SPDX-License-Identifier: GPL-2.0-or-later
/* Target resolution; see resolve.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <event2/event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "args.h"
#include "btfargs.h"
#include "../lib/log.h"
#include "../lib/skiplist.h"
#include "../lib/symfilter.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "resolve.h"
#include "tracefs.h"
#include "worker.h"

struct sym {
	const char *name;	/* into the table's text */
	const char *module;	/* NULL for vmlinux */
	__u64 addr;
	__u32 count;	/* how many functions share this name */
};

/* A sorted symbol list parsed in place from one file's text. */
struct symtab {
	char *text;
	struct sym *syms;
	size_t n, cap;
	size_t lines;		/* non-empty lines read, kept or not */
};

struct btf_index {
	struct btf *btf;	/* not owned for vmlinux */
	const char **names;
	__s32 *ids;
	size_t n;
};

struct mod_btf {
	char name[64];
	int fd;			/* -1: the module has no BTF */
	struct btf *btf;
	struct btf_index idx;
};

/* One function (or call site) of a name kallsyms has several of. */
struct dup {
	const char *name;	/* the kallsyms table's copy of it */
	__u64 addr;
};

/* A resolve on the worker thread (resolve_target_start): asked, then answered. */
struct resolve_req {
	struct tracerd_spec spec;
	enum spec_kind kind;
	bool need_addr;
	unsigned int max_glob;	/* max_glob_matches when it was asked */
	resolve_done_fn done;
	void *ctx;
	bool forgotten;		/* resolve_forget: the answer is dropped */
	int err;
	struct hook *hooks;
	size_t nr;
	struct skip_list skipped;
	char msg[1024];
	struct resolve_req *next;
};

/*
 * The one symbol source: what ftrace can hook, the kallsyms function
 * symbols (addresses, weak ones included), vmlinux and module BTF. Read
 * once; everything read from modules is dropped when /proc/modules
 * changes, so a module BTF fd never outlives its module's entry here.
 */
struct symsrc {
	char *modules_sig;	/* /proc/modules when the tables were read */
	struct symtab *ftrace;	/* NULL: available_filter_functions unreadable */
	struct symtab *kallsyms;	/* loaded on first need */
	struct symtab *by_addr;		/* kallsyms in address order, nothing folded
					 * (resolve_frame); loaded on first need */
	/* the names kallsyms has several functions of (dups_read: first need,
	 * with kallsyms; dropped with it): each copy's address, and each call
	 * site available_filter_functions_addrs (Linux 6.5; have_sites) lists
	 * for such a name, by name (pointers into kallsyms' text), then address */
	struct dup *dup_syms, *dup_sites;
	size_t nr_dup_syms, nr_dup_sites;
	bool dups_read, have_sites;
	struct btf_index vmlinux;
	struct mod_btf *mods;
	size_t nr_mods;
	/* every module name a hook was given (hook->module points here): kept
	 * until resolve_fini, one copy each, not one per hook */
	char **modnames;
	size_t nr_modnames;
	/* Held by whoever reads or fills the tables: the loop through the
	 * resolve_* calls, the worker thread for a whole resolve_target_start
	 * (recursive: a listing's row callback may ask again). */
	pthread_mutex_t lock;
	struct resolve_req *running;	/* on the worker thread */
	struct resolve_req *queue;	/* asked meanwhile, in order */
	pthread_t th;
	bool threaded;			/* else running ran in the loop */
	int efd;			/* the thread's "done" */
	struct event *ev;
};

static void dups_free(struct symsrc *c);

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	/* names point into the file's text: the first line wins a tie */
	return c ? c : (x->name > y->name) - (x->name < y->name);
}

static void symtab_free(struct symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->text);
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
	t->syms[t->n++] = (struct sym){ .name = name, .module = module, .addr = addr, .count = 1 };
	return 0;
}

/* By name (pointers into one table's text), then address. */
static int dup_cmp(const void *a, const void *b)
{
	const struct dup *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Append {name, addr} to *v (*n of them); false when out of memory. */
static bool dup_add(struct dup **v, size_t *n, const char *name, __u64 addr)
{
	struct dup *nv;

	if ((*n & (*n - 1)) == 0) {	/* 0, 1, 2, 4, ...: grow to twice */
		nv = realloc(*v, (*n ? *n * 2 : 1) * sizeof(**v));
		if (!nv)
			return false;
		*v = nv;
	}
	(*v)[(*n)++] = (struct dup){ .name = name, .addr = addr };
	return true;
}

/*
 * Sort, then fold duplicates into one entry (the first) with count; dups
 * (NULL: not wanted) gets every function of a folded name, named by the
 * entry that stays (kallsyms: struct symsrc's dup_syms).
 */
static void symtab_finish_dups(struct symtab *t, struct dup **dups, size_t *ndups)
{
	size_t i, j;

	qsort(t->syms, t->n, sizeof(*t->syms), sym_cmp);
	for (i = 0, j = 0; i < t->n; i++) {
		if (j && !strcmp(t->syms[j - 1].name, t->syms[i].name)) {
			if (dups && t->syms[j - 1].count == 1)
				dup_add(dups, ndups, t->syms[j - 1].name, t->syms[j - 1].addr);
			if (dups)
				dup_add(dups, ndups, t->syms[j - 1].name, t->syms[i].addr);
			t->syms[j - 1].count++;
			continue;
		}
		t->syms[j++] = t->syms[i];
	}
	t->n = j;
}

static void symtab_finish(struct symtab *t)
{
	symtab_finish_dups(t, NULL, NULL);
}

static const struct sym *symtab_find(const struct symtab *t, const char *name)
{
	struct sym key = { .name = name };
	size_t lo = 0, hi;

	if (!t)
		return NULL;
	/* lower bound by name alone (sym_cmp also orders by position) */
	for (hi = t->n; lo < hi;) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(t->syms[mid].name, key.name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && !strcmp(t->syms[lo].name, name) ? &t->syms[lo] : NULL;
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

/*
 * Read path and parse each line with parse (false: skip the line) into a
 * sorted table; NULL when unreadable or out of memory.
 */
static struct symtab *symtab_read(const char *path,
				  bool (*parse)(char *line, __u64 *addr, char **name, char **mod))
{
	struct symtab *t = calloc(1, sizeof(*t));
	char *line, *next, *name, *mod;
	__u64 addr;

	if (!t || !(t->text = read_small_file(path)))
		goto fail;
	for (line = t->text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		t->lines += *line != '\0';
		if (parse(line, &addr, &name, &mod) && symtab_add(t, name, mod, addr))
			goto fail;
	}
	return t;
fail:
	symtab_free(t);
	return NULL;
}

/* symtab_read, in name order, each name once (with its count) */
static struct symtab *symtab_load(const char *path,
				  bool (*parse)(char *line, __u64 *addr, char **name, char **mod))
{
	struct symtab *t = symtab_read(path, parse);

	if (t)
		symtab_finish(t);
	return t;
}

/* "name" or "name [module]" (available_filter_functions) */
static bool ftrace_line(char *line, __u64 *addr, char **name, char **mod)
{
	char *p = line + strcspn(line, " ");

	*addr = 0;
	*name = line;
	*mod = NULL;
	if (*p == ' ' && p[1] == '[') {
		*mod = p + 2;
		(*mod)[strcspn(*mod, "]")] = '\0';
	}
	*p = '\0';
	return *line && strncmp(line, "__ftrace_invalid_address", 24);
}

/* "addr name" or "addr name [module]" (available_filter_functions_addrs) */
static bool ftrace_addrs_line(char *line, __u64 *addr, char **name, char **mod)
{
	char *end;
	__u64 none;
	unsigned long long a = strtoull(line, &end, 16);

	if (end == line || *end != ' ')
		return false;
	*addr = a;
	return ftrace_line(end + 1, &none, name, mod);
}

static bool kallsyms_line(char *line, __u64 *addr, char **name, char **mod)
{
	uint64_t a;
	bool ok = sym_kallsyms_line(line, &a, name, mod);

	*addr = a;
	return ok;
}

static struct symtab *load_ftrace_functions(void)
{
	struct symtab *t = symtab_load("/sys/kernel/tracing/available_filter_functions",
				       ftrace_line);
	char why[256], path[64];
	int fd;

	if (!t)
		t = symtab_load("/sys/kernel/debug/tracing/available_filter_functions",
				ftrace_line);
	if (t)
		return t;
	/* tracefs mounted elsewhere, or not at all (daemon/tracefs.c's private mount) */
	fd = tracefs_open("available_filter_functions", why, sizeof(why));
	if (fd < 0)
		return NULL;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	t = symtab_load(path, ftrace_line);
	close(fd);
	return t;
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

/*
 * Index FUNC names of btf (types from start_id on): sorted, then bsearch.
 * Sized by the FUNCs counted first: a module's split BTF counts vmlinux's
 * types too (~170k on 6.12), and arrays of that size per module took 2 MB each.
 */
static int btf_index_build(struct btf_index *x, struct btf *btf, __u32 start_id)
{
	__u32 i, n = btf__type_cnt(btf);
	struct { const char *name; __s32 id; } *tmp;
	size_t k = 0, funcs = 0;

	memset(x, 0, sizeof(*x));
	x->btf = btf;
	for (i = start_id; i < n; i++)
		funcs += btf_is_func(btf__type_by_id(btf, i));
	funcs = funcs ? funcs : 1;
	tmp = calloc(funcs, sizeof(*tmp));
	x->names = calloc(funcs, sizeof(*x->names));
	x->ids = calloc(funcs, sizeof(*x->ids));
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

static void mods_free(struct symsrc *c)
{
	size_t i;

	for (i = 0; i < c->nr_mods; i++) {
		if (c->mods[i].fd >= 0)
			close(c->mods[i].fd);
		btf_index_free(&c->mods[i].idx);
		btf__free(c->mods[i].btf);
	}
	free(c->mods);
	c->mods = NULL;
	c->nr_mods = 0;
}

int resolve_init(struct tracerd *d)
{
	struct symsrc *c = calloc(1, sizeof(*c));
	pthread_mutexattr_t attr;
	int err;

	if (!c)
		return -ENOMEM;
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&c->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	/* the worker thread's "done", made at start: counted among the fds an
	 * idle daemon holds (the start-up headroom, daemon/fds.h), not taken
	 * from a first attach's */
	c->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
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
	struct symsrc *c = d->resolve_cache;

	if (c) {
		struct resolve_req *r;

		/* registry_loop_stop answered every asker: none is left to tell */
		for (r = c->queue; r; r = r->next)
			r->forgotten = true;
		if (c->running)
			c->running->forgotten = true;
		resolve_stop(d);
		if (c->efd >= 0)
			close(c->efd);
		symtab_free(c->ftrace);
		symtab_free(c->kallsyms);
		symtab_free(c->by_addr);
		dups_free(c);
		mods_free(c);
		free(c->modules_sig);
		btf_index_free(&c->vmlinux);
		while (c->nr_modnames)
			free(c->modnames[--c->nr_modnames]);
		free(c->modnames);
		pthread_mutex_destroy(&c->lock);
		free(c);
	}
	d->resolve_cache = NULL;
	btf__free(d->vmlinux_btf);
	d->vmlinux_btf = NULL;
}

/*
 * The symbol source, current: when the set of modules changed since the
 * tables were read (a cheap read of /proc/modules), drop what came from
 * modules (all of ftrace's and kallsyms' lists, module BTF) and re-read
 * the ftrace list; kallsyms is re-read on its next use.
 */
static struct symsrc *symsrc(struct tracerd *d)
{
	struct symsrc *c = d->resolve_cache;
	char *sig = read_small_file("/proc/modules");

	if (!sig)	/* no modules (CONFIG_MODULES=n): none come or go */
		sig = strdup("");

	/* kept while the modules stay: also without an ftrace list or a
	 * /proc/modules (this host's kernel), where kallsyms was read again per
	 * call (~0.4 s each, a listing in steps: per step) */
	if (sig && c->modules_sig && !strcmp(sig, c->modules_sig)) {
		free(sig);
		return c;
	}
	symtab_free(c->ftrace);
	symtab_free(c->kallsyms);
	c->kallsyms = NULL;
	symtab_free(c->by_addr);
	c->by_addr = NULL;
	dups_free(c);
	mods_free(c);
	c->ftrace = load_ftrace_functions();
	free(c->modules_sig);
	c->modules_sig = sig;
	return c;
}

/* The tables, held until cache_unlock: the loop waits here while a
 * resolve runs on the worker thread (resolve_target_start). */
static struct symsrc *cache_lock(struct tracerd *d)
{
	struct symsrc *c = d->resolve_cache;

	pthread_mutex_lock(&c->lock);
	return c;
}

static void cache_unlock(struct symsrc *c)
{
	pthread_mutex_unlock(&c->lock);
}

/* kallsyms by name, folded, read on first need with the functions of the
 * names it has several of (dup_syms, sorted by name then address) */
static const struct symtab *kallsyms(struct symsrc *c)
{
	if (!c->kallsyms) {
		c->kallsyms = symtab_read("/proc/kallsyms", kallsyms_line);
		if (c->kallsyms) {
			symtab_finish_dups(c->kallsyms, &c->dup_syms, &c->nr_dup_syms);
			qsort(c->dup_syms, c->nr_dup_syms, sizeof(*c->dup_syms), dup_cmp);
		}
	}
	return c->kallsyms;
}

static int addr_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/*
 * Where module's memory starts and how big it is (/proc/modules: "name
 * size refcount deps state address"); false for a name it does not list
 * (unloaded, or no module: "bpf", "__builtin__ftrace" in kallsyms).
 */
static bool module_range(const char *modules, const char *module, __u64 *base, __u64 *size)
{
	size_t len = strlen(module);
	const char *line;
	unsigned long long sz, a;

	for (line = modules; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, module, len) || line[len] != ' ')
			continue;
		if (sscanf(line + len, " %llu %*s %*s %*s %llx", &sz, &a) != 2)
			return false;
		*base = a;
		*size = sz;
		return true;
	}
	return false;
}

/*
 * Is addr inside the function s, the last symbol at or below it? kallsyms
 * gives no sizes: yes when the next symbol up is of the same object (the
 * kernel's or one module's), else when a loaded module's memory holds it.
 * An address past the last symbol of the kernel or of a module gone
 * since is no function's: the frame of a module unloaded since the call.
 * The pseudo-modules ("bpf": JITed programs and trampolines) have no range:
 * their last symbol takes what is within BPF_PSEUDO_SPAN of it.
 */
#define BPF_PSEUDO_SPAN	(64 * 1024)
/* the kernel's other pseudo-modules ("__builtin__kprobes": a kprobe's
 * instruction page, "__builtin__ftrace": an ftrace trampoline) name one
 * page each: what lies past it (a module unloaded since, whose memory
 * they now border) is not theirs */
#define BUILTIN_PSEUDO_SPAN	4096

static bool frame_in(const struct symsrc *c, const struct symtab *t, size_t i, __u64 addr)
{
	const struct sym *s = &t->syms[i], *next = NULL;
	__u64 base, size;

	for (i++; i < t->n && !next; i++)
		if (t->syms[i].addr > s->addr)
			next = &t->syms[i];
	if (next && addr < next->addr &&
	    (next->module == s->module ||
	     (next->module && s->module && !strcmp(next->module, s->module))))
		return true;
	if (!s->module)
		return false;
	if (c->modules_sig && module_range(c->modules_sig, s->module, &base, &size))
		return addr >= base && addr - base < size;
	if (!strncmp(s->module, "__builtin__", 11))
		return addr - s->addr < BUILTIN_PSEUDO_SPAN;
	return addr - s->addr < BPF_PSEUDO_SPAN;
}

static int frames_sync(struct tracerd *d, bool reread)
{
	struct symsrc *c = symsrc(d);

	if (reread) {
		symtab_free(c->by_addr);
		c->by_addr = NULL;
	}
	if (!c->by_addr) {
		c->by_addr = symtab_read("/proc/kallsyms", kallsyms_line);
		if (c->by_addr)
			qsort(c->by_addr->syms, c->by_addr->n, sizeof(struct sym), addr_cmp);
	}
	return c->by_addr ? 0 : -EIO;
}

int resolve_frames_sync(struct tracerd *d, bool reread)
{
	struct symsrc *c = cache_lock(d);
	int ret = frames_sync(d, reread);

	cache_unlock(c);
	return ret;
}

/*
 * The call sites available_filter_functions_addrs (Linux 6.5) lists for
 * the names kallsyms has several functions of, into *v, sorted; false
 * when the file cannot be read. Only those are kept, not the whole file.
 */
static bool dups_scan(struct symsrc *c, struct dup **v, size_t *n)
{
	FILE *f = fopen("/sys/kernel/tracing/available_filter_functions_addrs", "re");
	size_t lcap = 0;
	char *line = NULL, *name, *mod;
	const struct sym *k;
	__u64 addr;

	*v = NULL;
	*n = 0;
	if (!f)
		return false;
	while (getline(&line, &lcap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!ftrace_addrs_line(line, &addr, &name, &mod))
			continue;
		k = symtab_find(c->kallsyms, name);
		if (!k || k->count < 2)
			continue;
		if (!dup_add(v, n, k->name, addr))
			break;
	}
	free(line);
	fclose(f);
	qsort(*v, *n, sizeof(**v), dup_cmp);
	return true;
}

static void dups_free(struct symsrc *c)
{
	free(c->dup_syms);
	free(c->dup_sites);
	c->dup_syms = c->dup_sites = NULL;
	c->nr_dup_syms = c->nr_dup_sites = 0;
	c->dups_read = c->have_sites = false;
}

/* The run of v[0..n) named name (a kallsyms table pointer): *first, count */
static size_t dups_of(const struct dup *v, size_t n, const char *name, size_t *first)
{
	size_t lo = 0, hi = n, end;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].name < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < n && v[end].name == name; end++)
		;
	*first = lo;
	return end - lo;
}

/*
 * The start of k's one traceable function when kallsyms has several of its
 * name (static functions of different files: t_start, p_next, ..., of
 * which ftrace lists one): the copy at or below the call site that
 * available_filter_functions_addrs (Linux 6.5) lists for the name; 0 when
 * that file lists the name more than once, or not at all. The module
 * hooks by address, and the first of kallsyms' copies (k->addr) is often
 * one ftrace refuses: a batch holding such an address is refused whole by
 * the kernel and armed again in halves (11 of them cost 42732 functions'
 * attach 8-12 s instead of 6, and their detach 10-11 s instead of 5: 6.12
 * TCG). Without the file (before 6.5) k->addr, as before: the right one,
 * or one the module refuses.
 */
static __u64 traceable_copy(struct symsrc *c, const struct sym *k)
{
	size_t i, first, n;
	__u64 site, best = 0;

	if (!c->dups_read) {
		c->dups_read = true;
		c->have_sites = dups_scan(c, &c->dup_sites, &c->nr_dup_sites);
	}
	if (!c->have_sites)
		return k->addr;
	if (dups_of(c->dup_sites, c->nr_dup_sites, k->name, &first) != 1)
		return 0;
	site = c->dup_sites[first].addr;
	/* copies of one name do not overlap: the last at or below the site
	 * holds it */
	n = dups_of(c->dup_syms, c->nr_dup_syms, k->name, &first);
	for (i = first; i < first + n && c->dup_syms[i].addr <= site; i++)
		best = c->dup_syms[i].addr;
	return best;
}

static int frame_find(struct tracerd *d, __u64 addr, struct frame_sym *out)
{
	struct symsrc *c = d->resolve_cache;
	const struct symtab *t = c->by_addr;
	size_t lo = 0, hi;

	memset(out, 0, sizeof(*out));
	if (!t)
		return -EIO;
	/* the first symbol above addr; the one before it is the candidate */
	for (hi = t->n; lo < hi;) {
		size_t mid = (lo + hi) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !t->syms[lo - 1].addr || !frame_in(c, t, lo - 1, addr))
		return -ENOENT;
	out->name = t->syms[lo - 1].name;
	out->module = t->syms[lo - 1].module;
	out->off = addr - t->syms[lo - 1].addr;
	return 0;
}

int resolve_frame(struct tracerd *d, __u64 addr, struct frame_sym *out)
{
	struct symsrc *c = cache_lock(d);
	int ret = frame_find(d, addr, out);

	cache_unlock(c);
	return ret;
}

/* Load module's BTF (and its fd, which program loads need) into m. */
static void module_btf_load(struct tracerd *d, struct mod_btf *m)
{
	char name[64];
	struct bpf_btf_info info;
	__u32 id = 0, len;
	int fd;

	while (!bpf_btf_get_next_id(id, &id)) {
		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || strcmp(name, m->name)) {
			close(fd);
			continue;
		}
		m->btf = btf__load_from_kernel_by_id_split(id, d->vmlinux_btf);
		if (!m->btf || btf_index_build(&m->idx, m->btf, btf__type_cnt(d->vmlinux_btf))) {
			close(fd);
			return;
		}
		m->fd = fd;
		return;
	}
}

/* A module's BTF, cached until the set of modules changes; NULL: none. */
static struct mod_btf *module_btf(struct tracerd *d, struct symsrc *c, const char *module)
{
	struct mod_btf *m;
	size_t i;

	for (i = 0; i < c->nr_mods; i++)
		if (!strcmp(c->mods[i].name, module))
			return c->mods[i].fd >= 0 ? &c->mods[i] : NULL;
	m = realloc(c->mods, (c->nr_mods + 1) * sizeof(*m));
	if (!m || !d->vmlinux_btf)
		return NULL;
	c->mods = m;
	m = &c->mods[c->nr_mods++];
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	str_copy(m->name, module, sizeof(m->name));
	module_btf_load(d, m);
	return m->fd >= 0 ? m : NULL;
}

int resolve_module_btf_fd(struct tracerd *d, const char *module)
{
	struct symsrc *c;
	struct mod_btf *m;

	if (!module[0])
		return 0;
	c = cache_lock(d);
	m = module_btf(d, c, module);
	cache_unlock(c);
	return m ? m->fd : -ENOENT;
}

const struct btf *resolve_hook_btf(struct tracerd *d, const struct hook *h)
{
	struct symsrc *c;
	struct mod_btf *m;

	if (!h->module[0])
		return d->vmlinux_btf;
	c = cache_lock(d);
	m = module_btf(d, c, h->module);
	cache_unlock(c);
	return m ? m->btf : NULL;
}

__u64 resolve_addr(struct tracerd *d, const char *name)
{
	struct symsrc *c = cache_lock(d);
	const struct sym *k = symtab_find(kallsyms(symsrc(d)), name);
	__u64 addr = k ? k->addr : 0;

	cache_unlock(c);
	return addr;
}

long long resolve_nr_traceable(struct tracerd *d)
{
	struct symsrc *c = cache_lock(d);
	const struct symtab *t = symsrc(d)->ftrace;
	/* every line: ftrace's records, __ftrace_invalid_address ones included */
	long long n = t ? (long long)t->lines : -1;

	cache_unlock(c);
	return n;
}

/* ---------------------------------------------------------------- functions */

/* Why name cannot be hooked (message), for an exact name not in the list. */
static int explain_missing(struct symsrc *c, const char *name, char *msg, size_t len)
{
	const struct sym *k = symtab_find(kallsyms(c), name);
	bool in_btf = btf_index_find(&c->vmlinux, name) > 0;

	if (k && c->ftrace) {
		str_fmt(msg, len, "function '%s' is not traceable (notrace or not in "
			 "available_filter_functions)", name);
		return -ENOENT;
	}
	if (!k && in_btf) {
		str_fmt(msg, len, "function '%s' is inlined (in BTF, but no symbol in kallsyms)",
			name);
		return -ENOENT;
	}
	str_fmt(msg, len, "unknown function '%s' (no such symbol in the kernel)", name);
	return -ENOENT;
}

/* What a function returns, by its BTF (func_ret). */
enum func_ret {
	FUNC_RET_UNKNOWN,	/* no BTF for it */
	FUNC_RET_VOID,
	FUNC_RET_OTHER,		/* a struct, a union, a float... */
	FUNC_RET_VALUE,		/* an integer, an enum or a pointer, *size bytes */
};

/* What FUNC id of btf returns; *size: its width in bytes for FUNC_RET_VALUE. */
static enum func_ret func_ret(const struct btf *btf, __s32 id, __u32 *size)
{
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	size_t psz;
	int i;

	*size = 0;
	t = t && btf_is_func(t) ? btf__type_by_id(btf, t->type) : NULL;	/* its FUNC_PROTO */
	if (!t || !btf_is_func_proto(t))
		return FUNC_RET_UNKNOWN;
	id = t->type;
	for (i = 0; i < 16 && id; i++) {	/* through typedefs and qualifiers */
		t = btf__type_by_id(btf, id);
		if (!t)
			return FUNC_RET_UNKNOWN;
		if (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t)) {
			*size = t->size;
			return FUNC_RET_VALUE;
		}
		if (btf_is_ptr(t)) {
			psz = btf__pointer_size(btf);
			*size = psz ? psz : sizeof(void *);
			return FUNC_RET_VALUE;
		}
		if (!btf_is_mod(t) && !btf_is_typedef(t))
			return FUNC_RET_OTHER;
		id = t->type;
	}
	return id ? FUNC_RET_UNKNOWN : FUNC_RET_VOID;
}

/* module's one copy (struct symsrc's modnames); NULL: out of memory */
static const char *module_intern(struct symsrc *c, const char *module)
{
	char **v;
	size_t i;

	for (i = c->nr_modnames; i-- > 0;)	/* the last one added first: a glob's run */
		if (!strcmp(c->modnames[i], module))
			return c->modnames[i];
	v = realloc(c->modnames, (c->nr_modnames + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->modnames = v;
	v[c->nr_modnames] = strdup(module);
	return v[c->nr_modnames] ? v[c->nr_modnames++] : NULL;
}

/*
 * Make h (of a block from hooks_new) function name of module (NULL:
 * vmlinux), its strings in strs, nothing else set yet; -ENOMEM.
 */
static int hook_init(struct symsrc *c, struct hook_strs *strs, struct hook *h, const char *name,
		     const char *module)
{
	struct hook_args *args = h->args;

	*h = (struct hook){ .slot = TRACERD_MAX_SLOTS, .module = "", .args = args };
	if (args)
		memset(args, 0, sizeof(*args));
	h->name = hook_str(strs, name);
	if (module)
		h->module = module_intern(c, module);
	return h->name && h->module ? 0 : -ENOMEM;
}

/* Fill hook h (hook_init) for its function; its BTF, NULL without */
static const struct btf *fill_hook(struct tracerd *d, struct symsrc *c, struct hook *h,
				   bool need_addr)
{
	const char *name = h->name, *module = h->module[0] ? h->module : NULL;
	const struct btf *btf;
	const struct sym *k;
	struct mod_btf *m;
	__u32 size;

	if (module) {
		m = module_btf(d, c, module);
		if (m)
			h->btf_id = btf_index_find(&m->idx, name);
		btf = m ? m->btf : NULL;
	} else {
		h->btf_id = btf_index_find(&c->vmlinux, name);
		btf = c->vmlinux.btf;
	}
	/* no BTF (a module built without): 32 bits, an int's errors only */
	h->ret64 = btf && func_ret(btf, h->btf_id, &size) == FUNC_RET_VALUE && size == 8;
	h->argw = btf ? btf_func_argw(btf, h->btf_id) : 0;
	if (need_addr) {
		k = symtab_find(kallsyms(c), name);
		h->addr = !k ? 0 : k->count == 1 ? k->addr : traceable_copy(c, k);
	}
	return btf;
}

/* --args or --if: the hooks carry their arguments (hooks_new's args) */
static bool spec_reads_args(const struct tracerd_spec *spec)
{
	return spec->args || spec->cond[0];
}

/* --args, --if: h's arguments by FUNC id of btf; 0, or the reason in why (args.c) */
static int args_resolve_hook(const struct btf *btf, __s32 id, struct hook *h, bool tracepoint,
			     const struct tracerd_spec *spec, char *why, size_t whylen)
{
	if (!spec_reads_args(spec))
		return 0;
	return args_resolve(btf, id, tracepoint, spec, h->args, why, whylen);
}

static int hook_args_check(const struct btf *btf, struct hook *h, const struct tracerd_spec *spec,
			   char *why, size_t whylen)
{
	return args_resolve_hook(btf, h->btf_id, h, false, spec, why, whylen);
}

/* Why name has no address for a mode that hooks by address (fill_hook) */
static void addr_skip_reason(struct symsrc *c, const char *name, char *buf, size_t len)
{
	const struct sym *k = symtab_find(kallsyms(c), name);

	if (!k)
		str_fmt(buf, len, "no address: not in /proc/kallsyms");
	else
		str_fmt(buf, len, "ambiguous address: %u functions of this name in kallsyms, "
			"and available_filter_functions_addrs does not single out one",
			k->count);
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

/*
 * --errors counts calls whose return value is -1..-4095 (trace.h,
 * tracerd_slot_errors): int, long and ERR_PTR returns. A vmlinux function
 * whose BTF says it returns void (or a struct) has no such value and is
 * refused. NULL when it returns an integer, an enum or a pointer, or when
 * BTF does not say (module functions: counted as asked).
 */
static const char *errors_skip_reason(const struct tracerd *d, const char *name, const char *module)
{
	const struct btf *btf = d->vmlinux_btf;
	__u32 size;

	if (!btf || module)
		return NULL;
	switch (func_ret(btf, btf__find_by_name_kind(btf, name, BTF_KIND_FUNC), &size)) {
	case FUNC_RET_VOID:
		return "returns void: --errors counts int, long and ERR_PTR returns";
	case FUNC_RET_OTHER:
		return "returns no integer nor pointer (its BTF): --errors counts int, "
		       "long and ERR_PTR returns";
	default:
		return NULL;
	}
}

/* bench trigger --kernel-funcs: its K other functions leave out the hot one */
static bool hot_left_out(const struct tracerd *d, const struct tracerd_spec *spec, const char *name)
{
	return spec->glob_skip_hot && !strcmp(name, d->probe_fn);
}

static int resolve_glob(struct tracerd *d, struct symsrc *c, const struct tracerd_spec *spec,
				    bool need_addr, unsigned int max, struct hook **hooks, size_t *nr,
				    struct skip_list *skipped, char *msg, size_t msglen)
{
	const struct symtab *t = c->ftrace ? c->ftrace : kallsyms(c);
	size_t i, n = 0, matched = 0, bytes = 0, end;
	struct hook_strs strs;
	const struct btf *btf;
	struct hook *hs;
	char buf[160];

	if (!t) {
		str_fmt(msg, msglen, "cannot list kernel functions (no available_filter_functions, "
			 "no /proc/kallsyms)");
		return -EIO;
	}
	/* bench's first-N of a glob (glob_limit): the names past the N-th
	 * match are neither tried nor skipped, nor scanned */
	for (i = 0; i < t->n && (!spec->glob_limit || matched < spec->glob_limit); i++) {
		if (sym_glob_match(spec->target, t->syms[i].name) &&
		    !glob_skip_reason(&t->syms[i], buf, sizeof(buf)) &&
		    !hot_left_out(d, spec, t->syms[i].name)) {
			matched++;
			bytes += strlen(t->syms[i].name) + 1;
		}
	}
	end = i;	/* glob_add_hot: no name past it but the trigger function */
	if (spec->glob_add_hot) {
		matched++;
		bytes += strlen(d->probe_fn) + 1;
	}
	if (!matched) {
		str_fmt(msg, msglen, "glob '%s' matches no traceable function", spec->target);
		return -ENOENT;
	}
	if (matched > max) {
		str_fmt(msg, msglen, "glob '%s' matches %zu functions, more than max_glob_matches "
			"(%u; raise it in tracerd.conf, up to %u)", spec->target, matched, max,
			TRACERD_GLOB_MATCHES_LIMIT);
		return -E2BIG;
	}
	hs = hooks_new(matched, bytes, spec_reads_args(spec), &strs);
	if (!hs)
		return set_err(msg, msglen, -ENOMEM, "out of memory");
	for (i = 0; i < t->n && (!spec->glob_limit || n < matched); i++) {
		const struct sym *s = &t->syms[i];
		bool hot = spec->glob_add_hot && !strcmp(s->name, d->probe_fn);
		const char *why;

		if (!hot && (!sym_glob_match(spec->target, s->name) ||
			     (spec->glob_add_hot && i >= end)))
			continue;
		why = hot ? NULL : glob_skip_reason(s, buf, sizeof(buf));
		if (!why && !hot && hot_left_out(d, spec, s->name))
			why = "the trigger function: bench's hot one, hooked apart";
		if (!why && spec->errors)
			why = errors_skip_reason(d, s->name, s->module);
		if (why) {
			skip_list_add(skipped, s->name, why);
			continue;
		}
		if (hook_init(c, &strs, &hs[n], s->name, s->module)) {
			hooks_free(hs, n);
			return set_err(msg, msglen, -ENOMEM, "out of memory");
		}
		btf = fill_hook(d, c, &hs[n], need_addr);
		if (need_addr && !hs[n].addr) {
			addr_skip_reason(c, s->name, buf, sizeof(buf));
			skip_list_add(skipped, s->name, buf);
			continue;
		}
		if (hook_args_check(btf, &hs[n], spec, buf, sizeof(buf))) {
			skip_list_add(skipped, s->name, buf);
			continue;
		}
		n++;
	}
	if (!n) {
		hooks_free(hs, n);
		if (spec_reads_args(spec))
			str_fmt(msg, msglen, "glob '%s': none of the %zu functions it matches "
				"can give its arguments (--args, --if: see the skipped reasons)",
				spec->target, matched);
		else
			str_fmt(msg, msglen,
				"glob '%s': none of the %zu functions it matches returns "
				"a value (--errors counts int, long and ERR_PTR returns)",
				spec->target, matched);
		return -ENOENT;
	}
	*hooks = hs;
	*nr = n;
	return 0;
}

/* A block of one hook (hooks_new) for name of module (NULL: vmlinux); NULL: out of memory */
static struct hook *hook_one(struct symsrc *c, const struct tracerd_spec *spec, const char *name,
			     const char *module)
{
	struct hook_strs strs;
	struct hook *h = hooks_new(1, strlen(name) + 1, spec_reads_args(spec), &strs);

	if (h && hook_init(c, &strs, h, name, module)) {
		hooks_free(h, 1);
		h = NULL;
	}
	return h;
}

static int resolve_function(struct tracerd *d, struct symsrc *c, const struct tracerd_spec *spec,
					bool need_addr, struct hook **hooks, size_t *nr,
					char *msg, size_t msglen)
{
	const char *name = spec->target, *pat = sym_denied(name), *why;
	char why_args[200];
	const struct sym *s;
	struct hook *h;
	int ret;

	if (pat) {
		str_fmt(msg, msglen, "function '%s' is denylisted ('%s'): tracerd's own hooks run "
			 "through it", name, pat);
		return -EINVAL;
	}
	s = symtab_find(c->ftrace ? c->ftrace : kallsyms(c), name);
	if (!s)
		return explain_missing(c, name, msg, msglen);
	if (sym_module_denied(s->module)) {
		str_fmt(msg, msglen, "function '%s' belongs to tracerd's own module", name);
		return -EINVAL;
	}
	if (spec->errors && (why = errors_skip_reason(d, name, s->module))) {
		str_fmt(msg, msglen, "function '%s' %s", name, why);
		return -EINVAL;
	}
	h = hook_one(c, spec, name, s->module);
	if (!h)
		return set_err(msg, msglen, -ENOMEM, "out of memory");
	ret = hook_args_check(fill_hook(d, c, h, need_addr), h, spec, why_args, sizeof(why_args));
	if (!ret && need_addr && !h->addr) {
		addr_skip_reason(c, name, why_args, sizeof(why_args));
		ret = -EINVAL;
	}
	if (ret) {
		hooks_free(h, 1);
		str_fmt(msg, msglen, "function '%s' %s", name, why_args);
		return -EINVAL;
	}
	*hooks = h;
	*nr = 1;
	return 0;
}

static int resolve_tracepoint(struct tracerd *d, struct symsrc *c, const struct tracerd_spec *spec,
					  struct hook **hooks, size_t *nr, char *msg, size_t msglen)
{
	const char *name = strchr(spec->target, '/') + 1;
	char tname[192], why[200];
	struct hook *h;
	__s32 id = 0;
	int ret;

	ret = tracefs_check_tracepoint(spec->target, msg, msglen);
	if (ret)
		return ret;
	if (d->vmlinux_btf) {
		snprintf(tname, sizeof(tname), "btf_trace_%s", name);
		id = btf__find_by_name_kind(d->vmlinux_btf, tname, BTF_KIND_TYPEDEF);
		if (id < 0)
			id = 0;
	}
	h = hook_one(c, spec, name, NULL);
	if (!h)
		return set_err(msg, msglen, -ENOMEM, "out of memory");
	h->btf_id = id;
	/* the arguments' names: the probe's BTF (args.c) */
	if (d->vmlinux_btf && spec_reads_args(spec)) {
		snprintf(tname, sizeof(tname), "__bpf_trace_%s", name);
		id = btf__find_by_name_kind(d->vmlinux_btf, tname, BTF_KIND_FUNC);
	}
	ret = args_resolve_hook(d->vmlinux_btf, id, h, true, spec, why, sizeof(why));
	if (ret) {
		hooks_free(h, 1);
		str_fmt(msg, msglen, "tracepoint '%s' %s", spec->target, why);
		return -EINVAL;
	}
	*hooks = h;
	*nr = 1;
	return 0;
}

/* resolve_target's work, the tables held (c->lock); max: max_glob_matches */
static int target_resolve(struct tracerd *d, const struct tracerd_spec *spec, enum spec_kind kind,
			  bool need_addr, unsigned int max, struct hook **hooks, size_t *nr,
			  struct skip_list *skipped, char *msg, size_t msglen)
{
	struct symsrc *c = symsrc(d);

	*hooks = NULL;
	*nr = 0;
	if (spec_kind_is_tracepoint(kind))
		return resolve_tracepoint(d, c, spec, hooks, nr, msg, msglen);
	if (kind == SPEC_KIND_GLOB)
		return resolve_glob(d, c, spec, need_addr, max, hooks, nr, skipped, msg, msglen);
	return resolve_function(d, c, spec, need_addr, hooks, nr, msg, msglen);
}

int resolve_target(struct tracerd *d, const struct tracerd_spec *spec, enum spec_kind kind,
		   bool need_addr, struct hook **hooks, size_t *nr,
		   struct skip_list *skipped, char *msg, size_t msglen)
{
	struct symsrc *c = cache_lock(d);
	int err = target_resolve(d, spec, kind, need_addr, d->cfg.max_glob_matches, hooks, nr,
				 skipped, msg, msglen);

	cache_unlock(c);
	return err;
}

/*
 * Whether resolving a target of kind would read nothing but the tables in
 * memory (a name looked up: microseconds) rather than scan every function
 * (a glob) or read the kernel's lists (a first use, a module come or gone,
 * kallsyms' first need): then it may run in the loop. Never while a
 * resolve runs on the worker thread (it holds the tables).
 */
bool resolve_quick(struct tracerd *d, enum spec_kind kind, bool need_addr)
{
	struct symsrc *c = d->resolve_cache;
	char *sig;
	bool quick;

	if (c->running || kind == SPEC_KIND_GLOB)
		return false;
	/* a tracepoint reads no table but the source's (re)load, which any
	 * resolve does first (symsrc) */
	if (!c->modules_sig || (need_addr && !c->kallsyms && !spec_kind_is_tracepoint(kind)))
		return false;
	sig = read_small_file("/proc/modules");
	quick = !strcmp(sig ? sig : "", c->modules_sig);
	free(sig);
	return quick;
}

bool resolve_busy(const struct tracerd *d)
{
	const struct symsrc *c = d->resolve_cache;

	return c && c->running;
}

static void req_free(struct resolve_req *r)
{
	hooks_free(r->hooks, r->nr);
	skip_list_free(&r->skipped);
	free(r);
}

static void *resolve_thread(void *arg)
{
	struct tracerd *d = arg;
	struct symsrc *c = d->resolve_cache;
	struct resolve_req *r = c->running;

	pthread_mutex_lock(&c->lock);
	r->err = target_resolve(d, &r->spec, r->kind, r->need_addr, r->max_glob, &r->hooks,
				&r->nr, &r->skipped, r->msg, sizeof(r->msg));
	pthread_mutex_unlock(&c->lock);
	worker_done(c->efd, "resolve");
	return NULL;
}

/* Run r on the worker thread (or in place when no thread can be made). */
static void req_run(struct tracerd *d, struct symsrc *c, struct resolve_req *r)
{
	c->running = r;
	c->threaded = worker_start(&c->th, resolve_thread, d);
	if (!c->threaded) {
		log_warn("resolve: no worker thread for '%s': in the loop", r->spec.target);
		resolve_thread(d);	/* its answer comes from the loop all the same */
	}
}

/* r's asker is answered (unless it forgot it), r freed */
static void req_answer(struct tracerd *d, struct resolve_req *r)
{
	if (!r->forgotten) {
		r->done(d, r->ctx, r->err, r->hooks, r->nr, &r->skipped, r->msg);
		r->hooks = NULL;	/* the asker's now */
		r->nr = 0;
		memset(&r->skipped, 0, sizeof(r->skipped));
	}
	req_free(r);
}

/* The running resolve's thread is done: joined, no longer running. */
static struct resolve_req *req_join(struct symsrc *c)
{
	struct resolve_req *r = c->running;

	if (c->threaded)
		pthread_join(c->th, NULL);
	c->running = NULL;
	return r;
}

/* The running resolve ended: the next one starts, then its asker is answered. */
static void req_reap(struct tracerd *d, struct symsrc *c)
{
	struct resolve_req *r = req_join(c);

	if (c->queue) {
		struct resolve_req *q = c->queue;

		c->queue = q->next;
		req_run(d, c, q);
	}
	req_answer(d, r);
}

/* r ends unresolved: the daemon stops */
static void req_cancel(struct tracerd *d, struct resolve_req *r)
{
	hooks_free(r->hooks, r->nr);
	r->hooks = NULL;
	r->nr = 0;
	r->err = -ECANCELED;
	str_fmt(r->msg, sizeof(r->msg), "tracerd is stopping: '%s' was not attached",
		r->spec.target);
	req_answer(d, r);
}

static void resolve_done_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tracerd *d = arg;
	struct symsrc *c = d->resolve_cache;
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_warn("resolve: eventfd read: %s", strerror(errno));
	if (c->running)
		req_reap(d, c);
}

int resolve_target_start(struct tracerd *d, const struct tracerd_spec *spec, enum spec_kind kind,
			 bool need_addr, resolve_done_fn done, void *ctx)
{
	struct symsrc *c = d->resolve_cache;
	struct resolve_req *r, **pp;

	if (!d->base || c->efd < 0)
		return -EINVAL;	/* the caller resolves in place */
	if (!c->ev) {
		c->ev = event_new(d->base, c->efd, EV_READ | EV_PERSIST, resolve_done_cb, d);
		if (!c->ev || event_add(c->ev, NULL)) {
			if (c->ev)
				event_free(c->ev);
			c->ev = NULL;
			return -ENOMEM;
		}
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->spec = *spec;
	r->kind = kind;
	r->need_addr = need_addr;
	r->max_glob = d->cfg.max_glob_matches;
	r->done = done;
	r->ctx = ctx;
	if (c->running) {
		for (pp = &c->queue; *pp; pp = &(*pp)->next)
			;
		*pp = r;
	} else {
		req_run(d, c, r);
	}
	return 0;
}

void resolve_forget(struct tracerd *d, void *ctx)
{
	struct symsrc *c = d->resolve_cache;
	struct resolve_req **pp, *r;

	if (!c)
		return;
	if (c->running && c->running->ctx == ctx)
		c->running->forgotten = true;
	for (pp = &c->queue; *pp;) {
		r = *pp;
		if (r->ctx == ctx) {
			*pp = r->next;
			req_free(r);
		} else {
			pp = &r->next;
		}
	}
}

void resolve_stop(struct tracerd *d)
{
	struct symsrc *c = d->resolve_cache;
	struct resolve_req *r, *q;

	if (!c)
		return;
	q = c->queue;
	c->queue = NULL;
	if (c->running)
		req_cancel(d, req_join(c));
	while ((r = q)) {
		q = r->next;
		req_cancel(d, r);
	}
	if (c->ev)
		event_free(c->ev);
	c->ev = NULL;
}

/* ---------------------------------------------------------------- listing */

/* the smallest of three names (NULL: that list is done) */
static const char *min_name(const char *a, const char *b, const char *c)
{
	const char *m = a;

	if (b && (!m || strcmp(b, m) < 0))
		m = b;
	if (c && (!m || strcmp(c, m) < 0))
		m = c;
	return m;
}

static void fn_info_fill(struct tracerd *d, struct symsrc *c, struct fn_info *f,
			 const struct sym *ft, const struct sym *ks, bool vmlinux_btf)
{
	const struct sym *s = ft ? ft : ks;
	struct mod_btf *m;
	const char *why;

	f->module = s ? s->module : NULL;
	f->ftrace_list = c->ftrace != NULL;
	f->traceable = c->ftrace ? ft != NULL : ks != NULL;
	f->in_kallsyms = ks != NULL;
	f->addr = ks ? ks->addr : 0;
	f->count = s ? s->count : 1;
	f->btf = vmlinux_btf && !f->module;
	if (f->module && (m = module_btf(d, c, f->module)))
		f->btf = btf_index_find(&m->idx, f->name) > 0;
	if (s) {	/* ambiguity is no refusal: an exact name hooks the first */
		struct sym one = *s;

		one.count = 1;
		why = glob_skip_reason(&one, f->denied, sizeof(f->denied));
	} else {
		why = NULL;
	}
	if (why && why != f->denied)
		str_copy(f->denied, why, sizeof(f->denied));
}

/* The first of t's n names (sorted) not before name. */
static size_t names_from(const char *const *names, size_t n, const char *name)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(names[mid], name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The same for a symbol table (sorted by name). */
static size_t syms_from(const struct symtab *t, const char *name)
{
	size_t lo = 0, hi = t ? t->n : 0, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(t->syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The walk resumes by name, not by index: the tables may be read again
 * between two steps (a module came or went), and a name still sorts where
 * it did. The names equal to cur->name that were visited are skipped.
 */
static int functions_step(struct tracerd *d, const char *glob, struct fn_cursor *cur,
			  size_t max, int (*fn)(void *arg, const struct fn_info *f), void *arg)
{
	struct symsrc *c = symsrc(d);
	const struct symtab *ft = c->ftrace, *ks = kallsyms(c);
	const struct btf_index *bx = &c->vmlinux;
	size_t i = syms_from(ft, cur->name), j = syms_from(ks, cur->name),
	       k = names_from(bx->names, bx->n, cur->name), skip = cur->seen, visits = 0;
	struct fn_info f;
	int ret;

	if (!ft && !ks && !bx->n)
		return -EIO;
	while (visits < max) {
		const char *a = ft && i < ft->n ? ft->syms[i].name : NULL;
		const char *b = ks && j < ks->n ? ks->syms[j].name : NULL;
		const char *x = k < bx->n ? bx->names[k] : NULL;
		const char *name = min_name(a, b, x);
		const struct sym *fs = NULL, *kss = NULL;
		bool in_btf = false;

		if (!name)
			return 0;
		if (a && !strcmp(a, name))
			fs = &ft->syms[i++];
		if (b && !strcmp(b, name))
			kss = &ks->syms[j++];
		while (x && k < bx->n && !strcmp(bx->names[k], name)) {	/* static FUNCs repeat */
			in_btf = true;
			k++;
		}
		if (skip && !strcmp(name, cur->name)) {	/* visited in an earlier step */
			skip--;
			continue;
		}
		skip = 0;
		visits++;
		if (!strcmp(name, cur->name)) {
			cur->seen++;
		} else {
			str_copy(cur->name, name, sizeof(cur->name));
			cur->seen = 1;
		}
		if (glob && !sym_glob_match(glob, name))
			continue;
		memset(&f, 0, sizeof(f));
		f.name = name;
		fn_info_fill(d, c, &f, fs, kss, in_btf);
		ret = fn(arg, &f);
		if (ret)
			return ret;
	}
	return 1;
}

int resolve_functions_step(struct tracerd *d, const char *glob, struct fn_cursor *cur,
			   size_t max, int (*fn)(void *arg, const struct fn_info *f), void *arg)
{
	struct symsrc *c = cache_lock(d);
	int ret = functions_step(d, glob, cur, max, fn, arg);

	cache_unlock(c);
	return ret;
}

int resolve_each_function(struct tracerd *d, const char *glob,
			  int (*fn)(void *arg, const struct fn_info *f), void *arg)
{
	struct fn_cursor cur = { "", 0 };
	int ret = resolve_functions_step(d, glob, &cur, SIZE_MAX, fn, arg);

	return ret == 1 ? 0 : ret;
}
