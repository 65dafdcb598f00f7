// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The `stats` command (docs/protocol.md, stats): every matching hook's
 * statistics read once, the rows sorted by calls (most first) and paged
 * (offset, limit), the page rendered as JSON. A page of more than
 * STATS_STEP rows is streamed (control_stream): rendered STATS_STEP rows
 * a step, re-reading each row's hooks then, so a glob of 50k functions
 * never builds its whole reply in one turn of the event loop. What the
 * sort needs (calls, attachment id, hook index) is all a row keeps
 * between steps: an attachment detached meanwhile loses its rows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/metrics.h"
#include "../lib/modes.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "backend.h"
#include "bpf_stats.h"
#include "by.h"
#include "commands.h"
#include "control.h"
#include "registry.h"
#include "stacks.h"

/* Rows rendered per step of a streamed reply (and the most a reply renders at once). */
#define STATS_STEP	128

static json_object *latency_json(const struct tracerd_slot_stats *s)
{
	json_object *o = json_object_new_object(), *b = json_object_new_array(), *e;
	int i;

	json_object_object_add(o, "count", json_object_new_int64(s->lat_count));
	json_object_object_add(o, "sum_ns", json_object_new_int64(s->lat_sum));
	json_object_object_add(o, "min_ns",
			       s->lat_count ? json_object_new_int64(s->lat_min) : NULL);
	json_object_object_add(o, "max_ns",
			       s->lat_count ? json_object_new_int64(s->lat_max) : NULL);
	for (i = 0; i < TRACERD_HIST_BUCKETS; i++) {
		if (!s->hist[i])
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "lo_ns", json_object_new_int64(i ? 1ULL << (i - 1) : 0));
		json_object_object_add(e, "hi_ns", i == TRACERD_HIST_BUCKETS - 1 ? NULL :
				       json_object_new_int64(i ? (1ULL << i) - 1 : 0));
		json_object_object_add(e, "count", json_object_new_int64(s->hist[i]));
		json_object_array_add(b, e);
	}
	json_object_object_add(o, "buckets", b);
	return o;
}

/* {total, by_errno: [{errno (null: other), name, count}]}: the errnos seen, other last */
static json_object *errors_json(const struct tracerd_slot_errors *e)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array(), *x;
	__u64 total = 0;
	char nbuf[16];
	int i, k;

	for (k = 1; k <= TRACERD_ERRNO_SLOTS; k++) {
		i = k % TRACERD_ERRNO_SLOTS;	/* 1..133, then 0 (other) */
		if (!e->count[i])
			continue;
		total += e->count[i];
		x = json_object_new_object();
		json_object_object_add(x, "errno", i ? json_object_new_int(i) : NULL);
		json_object_object_add(
			x, "name",
			json_object_new_string(metrics_errno_name(i, nbuf, sizeof(nbuf))));
		json_object_object_add(x, "count", json_object_new_int64((int64_t)e->count[i]));
		json_object_array_add(arr, x);
	}
	json_object_object_add(o, "total", json_object_new_int64((int64_t)total));
	json_object_object_add(o, "by_errno", arr);
	return o;
}

/* a reply's frames are symbolized through one frames_sync (stacks.h) */
struct frames_ctx {
	struct tracerd *d;
	struct frames_sync sync;
};

static json_object *frame_json(struct frames_ctx *fc, __u64 addr)
{
	json_object *o = json_object_new_object();
	struct frame_sym fs;
	char buf[24];
	int err = stacks_frame(fc->d, &fc->sync, addr, &fs);

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	json_object_object_add(o, "addr", json_object_new_string(buf));
	if (err) {
		json_object_object_add(o, "sym", NULL);
		json_object_object_add(o, "why", json_object_new_string(
			err == -ENOENT ? "unloaded or unknown: no kernel function holds this "
					 "address (a module unloaded since?)" :
					 "no symbol table (/proc/kallsyms unreadable)"));
		return o;
	}
	json_object_object_add(o, "sym", json_object_new_string(fs.name));
	json_object_object_add(o, "off", json_object_new_int64((int64_t)fs.off));
	if (fs.module)
		json_object_object_add(o, "module", json_object_new_string(fs.module));
	return o;
}

/*
 * --stacks of a stats row: {depth, distinct, dropped, total} and, when
 * the request asked for them, rows (top: at most that many, 0: all),
 * hottest first, frames innermost first (docs/protocol.md, stats).
 */
static json_object *stacks_json(struct frames_ctx *fc, const struct stack_set *set, bool rows,
				unsigned int top)
{
	json_object *o = json_object_new_object(), *arr, *r, *frames;
	size_t i, n = top && top < set->n ? top : set->n;
	char nbuf[16];
	__u32 k;

	json_object_object_add(o, "depth", json_object_new_int64(set->depth));
	json_object_object_add(o, "distinct", json_object_new_int64((int64_t)set->n));
	json_object_object_add(o, "dropped", json_object_new_int64((int64_t)set->dropped));
	json_object_object_add(o, "total", json_object_new_int64((int64_t)set->total));
	if (!rows)
		return o;
	arr = json_object_new_array();
	for (i = 0; i < n; i++) {
		r = json_object_new_object();
		frames = json_object_new_array();
		json_object_object_add(r, "count",
				       json_object_new_int64((int64_t)set->rows[i].count));
		if (set->rows[i].err)	/* --errors --stacks: the failing calls' errno */
			json_object_object_add(r, "errno", json_object_new_string(
				metrics_errno_name((int)set->rows[i].err, nbuf, sizeof(nbuf))));
		for (k = 0; k < set->rows[i].nr; k++)
			json_object_array_add(frames, frame_json(fc, set->rows[i].ips[k]));
		json_object_object_add(r, "frames", frames);
		json_object_array_add(arr, r);
	}
	json_object_object_add(o, "rows", arr);
	return o;
}

static json_object *hook_stats_json(const struct hook_stats *hs, bool latency)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "calls", json_object_new_int64(hs->s.calls));
	if (hs->kernel_misses_known) {
		json_object_object_add(o, "misses",
				       json_object_new_int64(hs->kernel_misses + hs->s.misses));
		json_object_object_add(o, "misses_reason", NULL);
	} else {
		json_object_object_add(o, "misses", NULL);
		json_object_object_add(o, "misses_reason", json_object_new_string(hs->misses_why));
	}
	json_object_object_add(o, "bpf_misses", json_object_new_int64(hs->s.misses));
	json_object_object_add(o, "latency", latency ? latency_json(&hs->s) : NULL);
	json_object_object_add(o, "errors", hs->errors_known ? errors_json(&hs->errors) : NULL);
	return o;
}

#define F(n, t) { n, json_type_##t }
static const struct proto_field stats_fields[] = {
	F("id", int), F("target", string), F("merge", boolean), F("top", int),
	F("stacks", boolean), F("limit", int), F("offset", int), {}
};
#undef F

static bool stats_match(const struct attachment *a, const struct hook *h, unsigned int id,
			const char *target)
{
	if (id && a->id != id)
		return false;
	if (target && strcmp(a->spec.target, target) && strcmp(h->name, target))
		return false;
	return true;
}

/* What a stats request asks of --stacks: rows or only the counts, and how many rows. */
struct stats_stacks {
	bool rows;
	unsigned int top;	/* 0: all */
	struct frames_ctx fc;
};

/* a stats row's "stacks" (set finished here), or "stacks_error" when unread */
static void stats_stacks_add(json_object *o, struct stats_stacks *ss, struct stack_set *set,
			     int err)
{
	char ebuf[96];

	if (err) {
		json_object_object_add(o, "stacks", NULL);
		json_object_object_add(o, "stacks_error", json_object_new_string(
			errno_str(err, ebuf, sizeof(ebuf))));
		return;
	}
	stacks_finish(set);
	json_object_object_add(o, "stacks", stacks_json(&ss->fc, set, ss->rows, ss->top));
}

/* an attachment's --by keys: its top ones and other (daemon/by.c); NULL on error */
static json_object *stats_by_json(struct tracerd *d, const struct attachment *a,
				  struct by_scan *scan, bool *scanned, unsigned int top)
{
	struct by_summary s;
	json_object *o;

	if (!*scanned && by_scan(d, scan))
		return NULL;
	*scanned = true;
	if (by_summarize(d, a, scan, top, &s))
		return NULL;
	o = by_json(&s, a->spec.latency);
	by_summary_free(&s);
	return o;
}

/*
 * One hook that matched: what the sort needs, how to find it again, and
 * what the pass read (keys_collect). A hook whose row says no more than
 * its calls and misses (key_whole) is rendered from these: its row shows
 * the counts it was sorted by, and the rows of attach '*' cost no read
 * each (a lookup or an ioctl per row: 42743 of them took 38-65 s).
 */
struct stats_key {
	__u64 calls, bpf_misses, kernel_misses;
	const char *name;	/* the hook's: valid while the request is handled (the sort) */
	const char *misses_why;	/* hook_stats': a string of the code */
	unsigned int id;	/* its attachment */
	unsigned int hook;	/* its index in the attachment's hooks */
	bool kernel_misses_known;
	bool whole;		/* the row is these values: not read again */
};

/* A row of the reply: one hook, or (merge) keys[first..first + n) of one function. */
struct stats_row {
	__u64 calls;
	const char *name;	/* as in stats_key */
	unsigned int id, hook;	/* the first key's */
	size_t first, n;
};

/* A request being answered: its rows sorted, [next, end) still to render. */
struct stats_req {
	struct tracerd *d;
	bool merge;
	struct stats_stacks ss;
	struct stats_key *keys;
	struct stats_row *rows;
	size_t nkeys, nrows, next, end, written;
	bool streamed;		/* control_stream took it: freed when the stream ends */
	json_object *tail;	/* total, offset, limit, sort, bpf_stats, attachments */
	char *text;		/* a whole row's (whole_row_text) */
	size_t text_cap;
};

/* most calls first; equal calls in attachment and hook order (a reply is stable) */
static int row_cmp(const void *x, const void *y)
{
	const struct stats_row *a = x, *b = y;

	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->hook > b->hook) - (a->hook < b->hook);
}

/* merge: the keys of one function side by side, in attachment and hook order */
static int key_name_cmp(const void *x, const void *y)
{
	const struct stats_key *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->hook > b->hook) - (a->hook < b->hook);
}

/* merged rows: one function's calls over attachments; equal calls by name */
static int merged_cmp(const void *x, const void *y)
{
	const struct stats_row *a = x, *b = y;

	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The rows of req's keys (one per key, or one per function name), sorted. 0 or -ENOMEM. */
static int rows_make(struct stats_req *r)
{
	struct stats_row *row;
	size_t i;

	r->rows = calloc(r->nkeys + 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	if (r->merge)
		qsort(r->keys, r->nkeys, sizeof(*r->keys), key_name_cmp);
	for (i = 0; i < r->nkeys; i++) {
		if (r->merge && r->nrows && !strcmp(r->rows[r->nrows - 1].name, r->keys[i].name)) {
			row = &r->rows[r->nrows - 1];
			row->calls += r->keys[i].calls;
			row->n++;
			continue;
		}
		row = &r->rows[r->nrows++];
		*row = (struct stats_row){ r->keys[i].calls, r->keys[i].name, r->keys[i].id,
					   r->keys[i].hook, i, 1 };
	}
	qsort(r->rows, r->nrows, sizeof(*r->rows), r->merge ? merged_cmp : row_cmp);
	return 0;
}

/* The attached attachment id's hook: NULL once it went (detached since the sort). */
static struct hook *key_hook(struct tracerd *d, unsigned int id, unsigned int hook,
			     struct attachment **a)
{
	*a = registry_find(d, id);
	if (!*a || (*a)->state != ATTACHMENT_ATTACHED || hook >= (*a)->nr_hooks)
		return NULL;
	return &(*a)->hooks[hook];
}

/*
 * Whether a's rows are whole with the calls and misses of the pass: no
 * latency, errors, slow calls or stacks to render (hook_row_json).
 */
static bool key_whole(const struct attachment *a)
{
	return !a->spec.latency && !a->spec.errors && !a->spec.slower_ns && !a->spec.stacks;
}

/* k's hook (NULL once it went) and its statistics: the pass's when whole, else read now */
static struct hook *key_stats(struct tracerd *d, const struct stats_key *k,
			      struct attachment **a, struct hook_stats *hs)
{
	struct hook *h = key_hook(d, k->id, k->hook, a);

	if (!h)
		return NULL;
	if (!k->whole)
		return hook_stats(d, *a, h, hs) ? NULL : h;
	memset(hs, 0, sizeof(*hs));	/* merged_row_json sums it with others */
	hs->s.calls = k->calls;
	hs->s.misses = k->bpf_misses;
	hs->kernel_misses_known = k->kernel_misses_known;
	hs->kernel_misses = k->kernel_misses;
	hs->misses_why = k->misses_why;
	return h;
}

/* One hook's row (not merged); NULL when it went or its statistics are unreadable. */
static json_object *hook_row_json(struct stats_req *r, const struct stats_row *row)
{
	struct tracerd *d = r->d;
	struct stack_set set = { 0 };
	struct hook_stats hs;
	struct attachment *a;
	struct hook *h;
	json_object *o;

	h = key_stats(d, &r->keys[row->first], &a, &hs);
	if (!h)
		return NULL;
	o = hook_stats_json(&hs, a->spec.latency);
	/* --slower-than: the calls slower than it (recorded), else null */
	json_object_object_add(o, "slow", a->spec.slower_ns ?
			       json_object_new_int64((int64_t)hs.s.slow) : NULL);
	if (a->spec.stacks) {
		/* one frames_sync for the whole reply: kallsyms read again at
		 * most once for it, not once per row with an unknown frame */
		int err;

		set.sync = r->ss.fc.sync;
		err = stacks_add(d, a, h, &set);
		r->ss.fc.sync = set.sync;
		stats_stacks_add(o, &r->ss, &set, err);
		stacks_free(&set);
	}
	json_object_object_add(o, "id", json_object_new_int64(a->id));
	json_object_object_add(o, "target", json_object_new_string(a->spec.target));
	json_object_object_add(o, "function", json_object_new_string(h->name));
	json_object_object_add(o, "mode", json_object_new_string(tracerd_mode_name(a->mode)));
	if (backend_get(a->mode)->path)
		json_object_object_add(o, "via",
				       json_object_new_string(backend_get(a->mode)->path(h)));
	return o;
}

/* r's text buffer with room for n bytes: NULL on ENOMEM */
static char *text_room(struct stats_req *r, size_t n)
{
	char *t;

	if (n <= r->text_cap)
		return r->text;
	t = realloc(r->text, n);
	if (!t)
		return NULL;
	r->text_cap = n;
	return r->text = t;
}

/* s as a JSON string at t (null for NULL; room: 6 * strlen + 3): its length */
static size_t text_str(char *t, const char *s)
{
	if (!s) {
		memcpy(t, "null", 4);
		return 4;
	}
	return json_quote(t, s, strlen(s));
}

/*
 * A whole row (key_whole, not merged) as the text json_line makes of
 * hook_row_json's object: its members in that order, json_quote's
 * escapes, json-c's integers. A reply of 42743 rows spent 7 s of TCG in
 * building and printing json-c trees. The text in r->text, its length in
 * *len: 0, -ENOENT when its hook went, -ENOMEM.
 */
static int whole_row_text(struct stats_req *r, const struct stats_key *k, size_t *len)
{
	struct attachment *a;
	struct hook *h = key_hook(r->d, k->id, k->hook, &a);
	const struct backend *be;
	const char *str[5];
	size_t need = 256, i, o;
	char *t;

	if (!h)
		return -ENOENT;
	be = backend_get(a->mode);
	str[0] = k->kernel_misses_known ? NULL : k->misses_why;
	str[1] = a->spec.target;
	str[2] = h->name;
	str[3] = tracerd_mode_name(a->mode);
	str[4] = be->path ? be->path(h) : NULL;
	for (i = 0; i < 5; i++)
		need += str[i] ? 6 * strlen(str[i]) + 3 : 0;
	t = text_room(r, need);
	if (!t)
		return -ENOMEM;
	o = (size_t)sprintf(t, "{\"calls\":%lld,\"misses\":", (long long)k->calls);
	if (k->kernel_misses_known)
		o += (size_t)sprintf(t + o, "%lld", (long long)(k->kernel_misses + k->bpf_misses));
	else
		o += (size_t)sprintf(t + o, "null");
	o += (size_t)sprintf(t + o, ",\"misses_reason\":");
	o += text_str(t + o, str[0]);
	o += (size_t)sprintf(t + o, ",\"bpf_misses\":%lld,\"latency\":null,\"errors\":null,"
			     "\"slow\":null,\"id\":%lld,\"target\":", (long long)k->bpf_misses,
			     (long long)a->id);
	o += text_str(t + o, str[1]);
	o += (size_t)sprintf(t + o, ",\"function\":");
	o += text_str(t + o, str[2]);
	o += (size_t)sprintf(t + o, ",\"mode\":");
	o += text_str(t + o, str[3]);
	if (be->path) {
		o += (size_t)sprintf(t + o, ",\"via\":");
		o += text_str(t + o, str[4]);
	}
	t[o++] = '}';
	t[o] = '\0';
	*len = o;
	return 0;
}

/* A function's row summed over its hooks (merge); NULL when all of them went. */
static json_object *merged_row_json(struct stats_req *r, const struct stats_row *row)
{
	struct tracerd *d = r->d;
	struct stack_set set = { .sync = r->ss.fc.sync };	/* the reply's (hook_row_json) */
	struct hook_stats hs, acc;
	const char *name = NULL;
	struct attachment *a;
	struct hook *h;
	int stack_err = 1;	/* 1: no --stacks attachment in the row */
	bool lat = false;
	json_object *o;
	size_t k;

	for (k = row->first; k < row->first + row->n; k++) {
		h = key_stats(d, &r->keys[k], &a, &hs);
		if (!h)
			continue;
		if (!name)
			acc = hs;
		else
			hook_stats_merge(&acc, &hs);
		name = h->name;
		lat |= a->spec.latency;
		/* the first error of the row's hooks stays */
		if (a->spec.stacks && stack_err == 1)
			stack_err = 0;
		if (a->spec.stacks && !stack_err)
			stack_err = stacks_add(d, a, h, &set);
	}
	r->ss.fc.sync = set.sync;
	if (!name)
		return NULL;
	o = hook_stats_json(&acc, lat);
	/* merged: the slow calls of its attachments with --slower-than */
	json_object_object_add(o, "slow", json_object_new_int64((int64_t)acc.s.slow));
	json_object_object_add(o, "function", json_object_new_string(name));
	if (stack_err != 1)	/* the stacks of the same frames, merged */
		stats_stacks_add(o, &r->ss, &set, stack_err);
	stacks_free(&set);
	return o;
}

/* Rows [next, next + n) of the page as JSON, into arr or (arr NULL) out's text. */
static int rows_render(struct stats_req *r, size_t n, json_object *arr, struct evbuffer *out)
{
	json_object *o;
	size_t len;
	char *s;
	int err = 0;

	stacks_read_begin(r->d);	/* one pass over the stack table for these rows */
	for (; n && r->next < r->end && !err; n--) {
		const struct stats_row *row = &r->rows[r->next++];

		if (!arr && !r->merge && r->keys[row->first].whole) {
			err = whole_row_text(r, &r->keys[row->first], &len);
			if (err == -ENOENT) {
				err = 0;	/* detached since the sort */
				continue;
			}
			if (!err && ((r->written && evbuffer_add(out, ",", 1)) ||
				     evbuffer_add(out, r->text, len)))
				err = -ENOMEM;
			r->written++;
			continue;
		}
		o = r->merge ? merged_row_json(r, row) : hook_row_json(r, row);
		if (!o)
			continue;
		if (arr) {
			json_object_array_add(arr, o);
			continue;
		}
		s = proto_stream_item(o, !r->written, &len);
		err = s && !evbuffer_add(out, s, len) ? 0 : -ENOMEM;
		free(s);
		json_object_put(o);
		r->written++;
	}
	stacks_read_end(r->d);
	return err;
}

static void stats_req_free(void *ctx)
{
	struct stats_req *r = ctx;

	free(r->keys);
	free(r->rows);
	free(r->text);
	json_object_put(r->tail);
	free(r);
}

static int stats_step(struct tracerd *d, void *ctx, struct evbuffer *out)
{
	struct stats_req *r = ctx;
	size_t len;
	char *s;
	int err;

	(void)d;
	err = rows_render(r, STATS_STEP, NULL, out);
	if (err)
		return err;
	if (r->next < r->end)
		return 1;
	s = proto_stream_tail(r->tail, &len);
	err = s && !evbuffer_add(out, s, len) ? 0 : -ENOMEM;
	free(s);
	return err;
}

static const struct control_stream_ops stats_ops = { stats_step, stats_req_free };

/* a's matching hooks' statistics summed: the attachment's line of the reply */
static void attachment_totals_add(json_object *o, const struct hook_stats *sum, bool latency)
{
	json_object *h = hook_stats_json(sum, latency);

	json_object_object_add(o, "calls", json_object_new_int64((int64_t)sum->s.calls));
	json_object_object_add(o, "misses", json_object_get(json_object_object_get(h, "misses")));
	json_object_object_add(o, "latency", json_object_get(json_object_object_get(h, "latency")));
	json_object_put(h);
}

/*
 * The per-attachment part of a stats reply: the matching hooks' calls,
 * misses and latency summed, the BPF programs' run statistics, and the
 * --by keys (top of them) of those made with --by.
 */
static json_object *attachment_json_stats(struct tracerd *d, struct attachment *a,
					  const struct hook_stats *sum, unsigned int nrows,
					  struct by_scan *scan, bool *scanned, unsigned int top)
{
	json_object *o = json_object_new_object(), *r = NULL;
	struct bpf_run_stats rs;
	const char *why = NULL;

	json_object_object_add(o, "id", json_object_new_int64(a->id));
	json_object_object_add(o, "target", json_object_new_string(a->spec.target));
	json_object_object_add(o, "mode", json_object_new_string(tracerd_mode_name(a->mode)));
	json_object_object_add(o, "rows", json_object_new_int64(nrows));
	attachment_totals_add(o, sum, a->spec.latency);
	if (!bpf_stats_read(d, a, &rs, &why)) {
		r = json_object_new_object();
		json_object_object_add(r, "count", json_object_new_int64((int64_t)rs.runs));
		json_object_object_add(r, "time_ns", json_object_new_int64((int64_t)rs.run_ns));
		json_object_object_add(r, "programs", json_object_new_int64(rs.progs));
	}
	json_object_object_add(o, "bpf_run", r);
	json_object_object_add(o, "bpf_run_reason", why ? json_object_new_string(why) : NULL);
	json_object_object_add(o, "by",
			       a->spec.by ? stats_by_json(d, a, scan, scanned, top) : NULL);
	return o;
}

/* One key per matching hook (its calls read now), and each attachment's line. */
static int keys_collect(struct stats_req *r, unsigned int id, const char *target,
			unsigned int top, json_object *atts)
{
	struct tracerd *d = r->d;
	struct by_scan scan = { 0 };
	struct hook_stats hs, sum;
	struct stats_key *k;
	struct attachment *a;
	bool scanned = false, whole;
	size_t total = 0, i;
	unsigned int n;

	for (a = d->attachments; a; a = a->next)
		total += a->nr_hooks;
	r->keys = calloc(total + 1, sizeof(*r->keys));
	if (!r->keys)
		return -ENOMEM;
	for (a = d->attachments; a; a = a->next) {
		if (id && a->id != id)
			continue;
		whole = key_whole(a);
		hook_stats_begin(d, a);
		for (i = 0, n = 0; i < a->nr_hooks; i++) {
			if (!stats_match(a, &a->hooks[i], id, target) ||
			    hook_stats(d, a, &a->hooks[i], &hs))
				continue;
			if (!n++)
				sum = hs;
			else
				hook_stats_merge(&sum, &hs);
			k = &r->keys[r->nkeys++];
			*k = (struct stats_key){
				.calls = hs.s.calls, .bpf_misses = hs.s.misses,
				.kernel_misses = hs.kernel_misses, .name = a->hooks[i].name,
				.misses_why = hs.misses_why, .id = a->id, .hook = (unsigned int)i,
				.kernel_misses_known = hs.kernel_misses_known, .whole = whole };
		}
		hook_stats_end(d, a);
		if (n)
			json_object_array_add(atts, attachment_json_stats(d, a, &sum, n, &scan,
									  &scanned, top));
	}
	by_scan_free(&scan);
	return 0;
}

/* total, offset, limit, sort, bpf_stats, attachments: what follows the rows */
static json_object *tail_json(struct tracerd *d, struct stats_req *r, size_t offset,
			      long long limit, json_object *atts)
{
	json_object *o = json_object_new_object(), *b = json_object_new_object();
	const char *why;

	json_object_object_add(o, "total", json_object_new_int64((int64_t)r->nrows));
	json_object_object_add(o, "offset", json_object_new_int64((int64_t)offset));
	json_object_object_add(o, "limit", limit < 0 ? NULL : json_object_new_int64(limit));
	json_object_object_add(o, "sort", json_object_new_string("calls"));
	json_object_object_add(b, "enabled", json_object_new_boolean(bpf_stats_on(d, &why)));
	json_object_object_add(b, "reason", why ? json_object_new_string(why) : NULL);
	json_object_object_add(o, "bpf_stats", b);
	json_object_object_add(o, "attachments", atts);
	return o;
}

/* The page as one reply ({stats: [...], tail...}), for pages of STATS_STEP rows at most. */
static json_object *reply_whole(struct stats_req *r)
{
	json_object *res = json_object_new_object(), *arr = json_object_new_array();

	rows_render(r, r->end - r->next, arr, NULL);
	json_object_object_add(res, "stats", arr);
	json_object_object_foreach(r->tail, key, val)
		json_object_object_add(res, key, json_object_get(val));
	return res;
}

/* stats filtered by id (0: any) and target (NULL: any); merged per function; paged */
static enum proto_code stats_view(struct stats_req *r, unsigned int id, const char *target,
				  unsigned int top, size_t offset, long long limit,
				  json_object **result, char *msg, size_t msglen)
{
	json_object *atts = json_object_new_array();
	int err;

	err = keys_collect(r, id, target, top, atts);
	if (!err)
		err = rows_make(r);
	if (err) {
		json_object_put(atts);
		str_fmt(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	if ((id || target) && !r->nrows) {
		json_object_put(atts);
		if (target)
			snprintf(msg, msglen, "no attachment or function matches '%s'", target);
		else
			snprintf(msg, msglen, "no attachment %u", id);
		return PROTO_E_NOT_FOUND;
	}
	r->tail = tail_json(r->d, r, offset, limit, atts);
	r->next = offset < r->nrows ? offset : r->nrows;
	r->end = limit < 0 || (size_t)limit > r->nrows - r->next ? r->nrows : r->next + limit;
	if (r->end - r->next <= STATS_STEP) {
		*result = reply_whole(r);
		return PROTO_OK;
	}
	err = control_stream(r->d, "stats", &stats_ops, r, msg, msglen);
	r->streamed = !err;
	if (!err)
		return PROTO_OK;	/* the reply is on its way; r is the stream's */
	if (err != -EBUSY)
		return proto_code_errno(err);
	*result = reply_whole(r);	/* no stream free: one reply, as before streams */
	return PROTO_OK;
}

enum proto_code cmd_stats(struct tracerd *d, json_object *args, json_object **result, char *msg,
			  size_t msglen)
{
	bool bad = false, merge = proto_arg_bool(args, "merge", &bad);
	const char *target = proto_arg_str(args, "target", &bad);
	long long id = proto_arg_int(args, "id", 0, &bad);
	long long top = proto_arg_int(args, "top", d->cfg.by_top, &bad);
	long long limit = proto_arg_int(args, "limit", -1, &bad);
	long long offset = proto_arg_int(args, "offset", 0, &bad);
	struct stats_req *r;
	enum proto_code code;

	if (proto_args_check(args, "stats", stats_fields, msg, msglen))
		return PROTO_E_BAD_REQUEST;
	if (bad || id < 0 || id > 0xffffffffLL || top < 1 || top > TRACERD_BY_TOP_LIMIT ||
	    (json_object_object_get_ex(args, "limit", NULL) && (limit < 0 || limit > INT32_MAX)) ||
	    offset < 0 || offset > INT32_MAX) {
		str_fmt(msg, msglen, "stats: invalid arguments (id: integer, target: string, "
			"merge: bool, top: 1 to %d, limit and offset: 0 to %d)",
			TRACERD_BY_TOP_LIMIT, INT32_MAX);
		return PROTO_E_BAD_REQUEST;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		str_fmt(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	r->d = d;
	r->merge = merge;
	r->ss = (struct stats_stacks){ .rows = proto_arg_bool(args, "stacks", &bad), .fc.d = d };
	/* the stack rows: all of them unless the request says how many */
	r->ss.top = json_object_object_get_ex(args, "top", NULL) ? (unsigned int)top : 0;
	code = stats_view(r, (unsigned int)id, target, (unsigned int)top, (size_t)offset, limit,
			  result, msg, msglen);
	if (!r->streamed)
		stats_req_free(r);
	return code;
}
