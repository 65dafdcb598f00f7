// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * attach --by pid|comm|cgroup: the calls of an attachment per key, read
 * from the BPF maps by_keys (one row per slot and key, by_max_keys rows
 * for all attachments) and by_other (per slot: the calls of keys the map
 * had no room for). An attachment's keys are merged over its functions,
 * ordered by calls, and cut to the top N: the rest is folded into
 * "other", so the keys shown plus other are all the calls, exactly.
 * A cgroup key is the cgroup v2 id; its path is the directory under the
 * cgroup2 mount whose inode number is that id (kernfs: the same number).
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <bpf/bpf.h>
#include "by.h"
#include "registry.h"
#include "tracerd.h"

#define CGROUP2_MAGIC	0x63677270

int by_scan(struct tracerd *d, struct by_scan *s)
{
	struct tracerd_by_key k, *prev = NULL, *nk;
	struct tracerd_by_val v, *nv;
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	while (!bpf_map_get_next_key(d->by_fd, prev, &k)) {
		if (bpf_map_lookup_elem(d->by_fd, &k, &v)) {
			if (errno == ENOENT) {	/* deleted since: go on from it */
				s->next_key = k;
				prev = &s->next_key;
				continue;
			}
			by_scan_free(s);
			return -errno;
		}
		if (s->n == cap) {
			cap = cap ? cap * 2 : 64;
			nk = realloc(s->k, cap * sizeof(*nk));
			if (nk)
				s->k = nk;
			nv = realloc(s->v, cap * sizeof(*nv));
			if (nv)
				s->v = nv;
			if (!nk || !nv) {
				by_scan_free(s);
				return -ENOMEM;
			}
		}
		s->k[s->n] = k;
		s->v[s->n++] = v;
		s->next_key = k;
		prev = &s->next_key;
	}
	return 0;
}

void by_scan_free(struct by_scan *s)
{
	free(s->k);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* keys in a stable order: id, then comm (the slot is 0 in an item) */
static int key_cmp(const struct tracerd_by_key *a, const struct tracerd_by_key *b)
{
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return memcmp(a->comm, b->comm, sizeof(a->comm));
}

static int item_key_cmp(const void *pa, const void *pb)
{
	return key_cmp(&((const struct by_item *)pa)->k, &((const struct by_item *)pb)->k);
}

/* calls descending, then the key */
static int item_calls_cmp(const void *pa, const void *pb)
{
	const struct by_item *a = pa, *b = pb;

	if (a->v.calls != b->v.calls)
		return a->v.calls > b->v.calls ? -1 : 1;
	return key_cmp(&a->k, &b->k);
}

static void val_add(struct tracerd_by_val *into, const struct tracerd_by_val *v)
{
	into->calls += v->calls;
	into->timed += v->timed;
	into->lat_sum += v->lat_sum;
}

#define CG_RETRY_S	10	/* s: a miss and the mount are looked up again after this */

/*
 * The mount of the cgroup v2 hierarchy (bpf_get_current_cgroup_id's), or
 * NULL; looked up again once CG_RETRY_S seconds old (a summary per scrape
 * would otherwise statfs it each time).
 */
static const char *cgroup2_root(time_t now)
{
	static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	static const char *root;
	static time_t looked;
	static bool known;
	struct statfs sf;
	size_t i;

	if (known && now - looked < CG_RETRY_S)
		return root;
	root = NULL;
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]) && !root; i++)
		if (!statfs(roots[i], &sf) && (unsigned long)sf.f_type == CGROUP2_MAGIC)
			root = roots[i];
	known = true;
	looked = now;
	return root;
}

/* nftw has no context argument: the walk's state (one walk at a time) */
static struct {
	struct by_item *items;
	size_t n, left, root_len;
} cg_walk;

static int cg_visit(const char *path, const struct stat *st, int type, struct FTW *f)
{
	size_t i;

	(void)f;
	if (type != FTW_D)
		return 0;
	for (i = 0; i < cg_walk.n; i++) {
		if (cg_walk.items[i].cgroup || (__u64)st->st_ino != cg_walk.items[i].k.id)
			continue;
		cg_walk.items[i].cgroup =
			strdup(path[cg_walk.root_len] ? path + cg_walk.root_len : "/");
		if (cg_walk.items[i].cgroup && !--cg_walk.left)
			return 1;	/* all found */
	}
	return 0;
}

/*
 * The ids' paths, remembered between summaries: every /metrics render and
 * every stats of a --by cgroup attachment asks for the same few ids, and
 * a walk of the whole tree per ask is I/O on the event loop. A cgroup id
 * is never reused and cgroup2 refuses renames, but a cgroup can be
 * removed, so a path is used only while the directory at it still has the
 * id as its inode (one stat). The tree is walked only for an id not seen before, one whose
 * path went stale, or one not found CG_RETRY_S seconds ago or more.
 */
#define CG_CACHE_MAX	4096	/* 4 attachments with by_top at its limit (1000) */
/* (a file static: cgroup ids name the same paths for every user of this
 * process, and cg_visit, nftw's callback without a context, fills it) */
struct cg_entry {
	__u64 id;
	char *path;		/* NULL: not found at `tried` */
	time_t tried;
};
static struct {
	struct cg_entry *e;
	size_t n;
} cg_cache;

static struct cg_entry *cg_find(__u64 id)
{
	size_t i;

	for (i = 0; i < cg_cache.n; i++)
		if (cg_cache.e[i].id == id)
			return &cg_cache.e[i];
	return NULL;
}

static void cg_remember(__u64 id, const char *path, time_t now)
{
	struct cg_entry *e = cg_find(id);
	size_t i;

	if (!e) {
		if (!cg_cache.e)
			cg_cache.e = calloc(CG_CACHE_MAX, sizeof(*cg_cache.e));
		if (!cg_cache.e)
			return;
		if (cg_cache.n == CG_CACHE_MAX) {	/* full: start again */
			for (i = 0; i < cg_cache.n; i++)
				free(cg_cache.e[i].path);
			cg_cache.n = 0;
		}
		e = &cg_cache.e[cg_cache.n++];
		e->id = id;
		e->path = NULL;
	}
	free(e->path);
	e->path = path ? strdup(path) : NULL;
	e->tried = now;
}

/* the remembered path of id if the directory there still is id, else NULL */
static const char *cg_cached(const char *root, __u64 id, time_t now, bool *retry)
{
	struct cg_entry *e = cg_find(id);
	char full[PATH_MAX];
	struct stat st;

	*retry = true;
	if (!e)
		return NULL;
	if (!e->path) {
		*retry = now - e->tried >= CG_RETRY_S;
		return NULL;
	}
	if (snprintf(full, sizeof(full), "%s%s", root, strcmp(e->path, "/") ? e->path : "") >=
	    (int)sizeof(full))
		return NULL;
	if (stat(full, &st) || (__u64)st.st_ino != id)
		return NULL;
	*retry = false;
	return e->path;
}

/* Paths of the items' cgroup ids; those not found (gone, no cgroup2 mount) stay NULL. */
static void cgroup_paths(struct by_item *items, size_t n)
{
	const char *root, *p;
	struct timespec ts;
	time_t now;
	size_t i, left = 0;
	bool walk = false, retry, *looked;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec;
	root = cgroup2_root(now);
	if (!root || !n)
		return;
	/* looked[i]: item i is not from the cache (a miss to retry now, or no
	 * entry): what the walk finds or not is remembered for it */
	looked = calloc(n, sizeof(*looked));
	if (!looked)
		return;
	for (i = 0; i < n; i++) {
		p = cg_cached(root, items[i].k.id, now, &retry);
		if (p)
			items[i].cgroup = strdup(p);
		left += !items[i].cgroup;
		looked[i] = !items[i].cgroup && retry;
		walk |= looked[i];
	}
	if (walk) {
		cg_walk.items = items;
		cg_walk.n = n;
		cg_walk.left = left;
		cg_walk.root_len = strlen(root);
		nftw(root, cg_visit, 16, FTW_PHYS | FTW_MOUNT);
		cg_walk.items = NULL;
		for (i = 0; i < n; i++)
			if (looked[i])
				cg_remember(items[i].k.id, items[i].cgroup, now);
	}
	free(looked);
}

int by_summarize(struct tracerd *d, const struct attachment *a, const struct by_scan *scan,
		 unsigned int top, struct by_summary *s)
{
	unsigned char *in = calloc(TRACERD_MAX_SLOTS, 1);
	struct tracerd_by_val v;
	size_t i, j, n = 0;

	memset(s, 0, sizeof(*s));
	s->by = a->spec.by;
	if (!in)
		return -ENOMEM;
	for (i = 0; i < a->nr_hooks; i++) {
		if (a->hooks[i].slot >= TRACERD_MAX_SLOTS)
			continue;
		in[a->hooks[i].slot] = 1;
		/* the calls whose key found no room: counted, not kept */
		if (!bpf_map_lookup_elem(d->by_other_fd, &a->hooks[i].slot, &v)) {
			val_add(&s->other, &v);
			s->unkept += v.calls;
		}
	}
	for (i = 0; i < scan->n; i++)
		n += scan->k[i].slot < TRACERD_MAX_SLOTS && in[scan->k[i].slot];
	s->items = calloc(n + 1, sizeof(*s->items));
	if (!s->items) {
		free(in);
		return -ENOMEM;
	}
	for (i = 0; i < scan->n; i++) {
		if (scan->k[i].slot >= TRACERD_MAX_SLOTS || !in[scan->k[i].slot])
			continue;
		s->items[s->nr].k = scan->k[i];
		s->items[s->nr].k.slot = 0;	/* merged over the functions */
		s->items[s->nr++].v = scan->v[i];
	}
	free(in);
	/* one item per key over the attachment's functions */
	qsort(s->items, s->nr, sizeof(*s->items), item_key_cmp);
	for (i = j = 0; i < s->nr; i++) {
		if (j && !key_cmp(&s->items[j - 1].k, &s->items[i].k))
			val_add(&s->items[j - 1].v, &s->items[i].v);
		else
			s->items[j++] = s->items[i];
	}
	s->keys = j;
	qsort(s->items, j, sizeof(*s->items), item_calls_cmp);
	s->nr = j < top ? j : top;
	for (i = s->nr; i < j; i++)
		val_add(&s->other, &s->items[i].v);
	s->other_keys = j - s->nr;
	for (i = 0; i < j; i++)
		s->calls += s->items[i].v.calls;
	s->calls += s->unkept;
	if (s->by == SPEC_BY_CGROUP)
		cgroup_paths(s->items, s->nr);
	return 0;
}

void by_summary_free(struct by_summary *s)
{
	size_t i;

	for (i = 0; s->items && i < s->nr; i++)
		free(s->items[i].cgroup);
	free(s->items);
	memset(s, 0, sizeof(*s));
}

const char *by_item_label(const struct by_summary *s, const struct by_item *it, char *buf,
			  size_t len)
{
	switch (s->by) {
	case SPEC_BY_COMM:
		snprintf(buf, len, "%.*s", (int)sizeof(it->k.comm), it->k.comm);
		return buf;
	case SPEC_BY_CGROUP:
		if (it->cgroup)
			return it->cgroup;
		snprintf(buf, len, "%llu", (unsigned long long)it->k.id);
		return buf;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)it->k.id);
		return buf;
	}
}

static json_object *val_json(json_object *o, const struct tracerd_by_val *v, bool latency)
{
	json_object_object_add(o, "calls", json_object_new_int64((int64_t)v->calls));
	json_object_object_add(o, "timed",
			       latency ? json_object_new_int64((int64_t)v->timed) : NULL);
	json_object_object_add(o, "lat_sum_ns",
			       latency ? json_object_new_int64((int64_t)v->lat_sum) : NULL);
	return o;
}

json_object *by_json(const struct by_summary *s, bool latency)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array(), *x;
	char buf[32];
	size_t i;

	json_object_object_add(o, "key", json_object_new_string(spec_by_name(s->by)));
	json_object_object_add(o, "calls", json_object_new_int64((int64_t)s->calls));
	json_object_object_add(o, "keys", json_object_new_int64((int64_t)s->keys));
	for (i = 0; i < s->nr; i++) {
		const struct by_item *it = &s->items[i];

		x = json_object_new_object();
		json_object_object_add(x, "key", json_object_new_string(
			by_item_label(s, it, buf, sizeof(buf))));
		if (s->by == SPEC_BY_PID)
			json_object_object_add(x, "pid", json_object_new_int64((int64_t)it->k.id));
		if (s->by == SPEC_BY_COMM)
			json_object_object_add(x, "comm", json_object_new_string(buf));
		if (s->by == SPEC_BY_CGROUP) {
			json_object_object_add(x, "cgroup_id",
					       json_object_new_int64((int64_t)it->k.id));
			json_object_object_add(x, "cgroup", it->cgroup ?
					       json_object_new_string(it->cgroup) : NULL);
		}
		json_object_array_add(arr, val_json(x, &it->v, latency));
	}
	json_object_object_add(o, "top", arr);
	x = val_json(json_object_new_object(), &s->other, latency);
	json_object_object_add(x, "keys", json_object_new_int64((int64_t)s->other_keys));
	json_object_object_add(x, "unkept_calls", json_object_new_int64((int64_t)s->unkept));
	json_object_object_add(o, "other", x);
	return o;
}
