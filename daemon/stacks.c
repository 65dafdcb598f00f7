// SPDX-License-Identifier: GPL-2.0-or-later
/* --stacks: reading, cutting, merging and sorting the stacks of hooks; see stacks.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "stacks.h"

/* one row of stack_counts */
struct count_row {
	struct tracerd_stack_key key;
	__u64 val;
};

/*
 * stack_counts as read in one pass, sorted by slot so that a hook's rows
 * are one binary search away (a glob's thousands of hooks each scanning
 * every row was quadratic).
 */
struct stack_counts {
	struct count_row *rows;
	size_t n;
	int err;		/* the pass failed: every hook's read fails with it */
};

static void counts_free(struct stack_counts *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

static int row_cmp(const void *a, const void *b)
{
	const struct tracerd_stack_key *x = &((const struct count_row *)a)->key;
	const struct tracerd_stack_key *y = &((const struct count_row *)b)->key;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->err > y->err) - (x->err < y->err);
}

/*
 * All of stack_counts (every slot's): a few batched syscalls, not one
 * per row; the map holds stack_max_entries rows at most. Counted in
 * d->stack_table_reads (status), which tests read to see one pass per
 * request, however many hooks it covers.
 */
static int counts_read(struct tracerd *d, struct stack_counts *c)
{
	size_t cap = d->cfg.stack_max_entries ? d->cfg.stack_max_entries :
						TRACERD_STACK_MAX_ENTRIES_DEFAULT;
	struct tracerd_stack_key *keys = calloc(cap, sizeof(*keys));
	__u64 *vals = calloc(cap, sizeof(*vals));
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 batch, count;
	size_t n = 0, i;
	void *in = NULL;
	int err = 0;

	memset(c, 0, sizeof(*c));
	d->stack_table_reads++;
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	while (n < cap) {
		count = cap - n;
		err = bpf_map_lookup_batch(d->stack_counts_fd, in, &batch, keys + n, vals + n,
					   &count, &opts);
		n += count;
		if (err == -ENOENT)	/* the last batch */
			err = 0;
		if (err || !count)
			break;
		in = &batch;
	}
	c->rows = err ? NULL : malloc((n + 1) * sizeof(*c->rows));
	if (!err && !c->rows)
		err = -ENOMEM;
	for (i = 0; !err && i < n; i++)
		c->rows[i] = (struct count_row){ keys[i], vals[i] };
	if (!err) {
		c->n = n;
		qsort(c->rows, n, sizeof(*c->rows), row_cmp);
	}
out:
	free(keys);
	free(vals);
	return err;
}

/* the first row of slot in c (c->n: none) */
static size_t counts_find(const struct stack_counts *c, __u32 slot)
{
	size_t lo = 0, hi = c->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->rows[mid].key.slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void stacks_read_begin(struct tracerd *d)
{
	if (!d->stack_read)
		d->stack_read = calloc(1, sizeof(*d->stack_read));
	if (d->stack_read)
		d->stack_read->err = 1;	/* unread: the first hook that needs it reads */
}

void stacks_read_end(struct tracerd *d)
{
	if (!d->stack_read)
		return;
	counts_free(d->stack_read);
	free(d->stack_read);
	d->stack_read = NULL;
}

/* The counts to read a hook's rows from: the request's (read once) or *own's. */
static int counts_get(struct tracerd *d, struct stack_counts *own,
		      const struct stack_counts **out)
{
	struct stack_counts *r = d->stack_read;
	int err;

	if (!r) {
		err = counts_read(d, own);
		*out = own;
		return err;
	}
	if (r->err == 1) {
		err = counts_read(d, r);
		r->err = err;
	}
	*out = r;
	return r->err;
}

int bpf_stacks(struct tracerd *d, struct attachment *a, struct hook *h, stack_visit_fn fn,
	       void *ctx, __u64 *dropped)
{
	__u64 *ips = calloc(d->stack_depth_max, sizeof(*ips));
	struct stack_counts own = { 0 };
	const struct stack_counts *c;
	__u32 nr;
	size_t i;
	int err;

	(void)a;
	*dropped = 0;
	if (!ips)
		return -ENOMEM;
	err = bpf_map_lookup_elem(d->stack_drops_fd, &h->slot, dropped) ? -errno : 0;
	if (!err)
		err = counts_get(d, &own, &c);
	if (err) {
		free(ips);
		return err;
	}
	for (i = counts_find(c, h->slot); i < c->n && c->rows[i].key.slot == h->slot && !err; i++) {
		/* its stack went (a sweep between the program's two lookups,
		 * maps.c): the calls are counted, their stack is not kept */
		if (bpf_map_lookup_elem(d->stack_traces_fd, &c->rows[i].key.id, ips)) {
			*dropped += c->rows[i].val;
			continue;
		}
		for (nr = 0; nr < d->stack_depth_max && ips[nr]; nr++)
			;
		err = fn(ctx, c->rows[i].val, c->rows[i].key.err, ips, nr);
	}
	counts_free(&own);
	free(ips);
	return err;
}

struct add_ctx {
	struct tracerd *d;
	struct stack_set *set;
	__u32 depth;
};

int stacks_frame(struct tracerd *d, struct frames_sync *fs, __u64 ip, struct frame_sym *out)
{
	int err = -EIO;

	if (!fs->synced)
		fs->synced = !resolve_frames_sync(d, false);
	if (fs->synced)
		err = resolve_frame(d, ip, out);
	if (err == -ENOENT && !fs->reread) {
		fs->reread = true;
		if (!resolve_frames_sync(d, true))
			err = resolve_frame(d, ip, out);
	}
	return err;
}

/*
 * Is ip in a BPF program or trampoline (kallsyms' pseudo-module "bpf")?
 * Those frames are tracerd's own (its program, a subprogram, the fentry
 * trampoline that called it), different in every attachment: they would
 * keep the same call path of two attachments apart.
 */
static bool frame_is_bpf(struct tracerd *d, struct frames_sync *sync, __u64 ip)
{
	struct frame_sym fs;

	return !stacks_frame(d, sync, ip, &fs) && fs.module && !strcmp(fs.module, "bpf");
}

__u32 stacks_own_frames(struct tracerd *d, struct frames_sync *sync, const __u64 *ips, __u32 nr)
{
	__u32 k = 0;

	while (k < nr && frame_is_bpf(d, sync, ips[k]))
		k++;
	return k;
}

static int add_row(void *p, __u64 count, __u32 err, const __u64 *ips, __u32 nr)
{
	struct add_ctx *x = p;
	struct stack_set *set = x->set;
	struct stack_row *r;
	__u32 skip;

	skip = stacks_own_frames(x->d, &set->sync, ips, nr);
	ips += skip;
	nr -= skip;
	if (nr > x->depth)
		nr = x->depth;
	if (set->n == set->cap) {
		size_t cap = set->cap ? 2 * set->cap : 64;

		r = realloc(set->rows, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		set->rows = r;
		set->cap = cap;
	}
	r = &set->rows[set->n];
	r->ips = malloc((nr ? nr : 1) * sizeof(*r->ips));
	if (!r->ips)
		return -ENOMEM;
	memcpy(r->ips, ips, nr * sizeof(*r->ips));
	r->nr = nr;
	r->count = count;
	r->err = err;
	set->n++;
	set->total += count;
	return 0;
}

int stacks_add(struct tracerd *d, struct attachment *a, struct hook *h, struct stack_set *set)
{
	struct add_ctx x = { .d = d, .set = set, .depth = a->spec.stacks };
	__u64 dropped = 0;
	int err;

	if (!a->spec.stacks)
		return 0;
	if (!a->be || !a->be->stacks)
		return -EOPNOTSUPP;
	err = a->be->stacks(d, a, h, add_row, &x, &dropped);
	if (err)
		return err;
	set->dropped += dropped;
	if (a->spec.stacks > set->depth)
		set->depth = a->spec.stacks;
	return 0;
}

static int visit_none(void *ctx, __u64 count, __u32 err, const __u64 *ips, __u32 nr)
{
	(void)ctx, (void)count, (void)err, (void)ips, (void)nr;
	return 0;
}

int stacks_dropped(struct tracerd *d, struct attachment *a, __u64 *dropped)
{
	__u64 n;
	size_t i;
	int err;

	*dropped = 0;
	if (!a->be || !a->be->stacks)
		return -EOPNOTSUPP;
	for (i = 0; i < a->nr_hooks; i++) {
		if (!a->hooks[i].attached)
			continue;
		err = a->be->stacks(d, a, &a->hooks[i], visit_none, NULL, &n);
		if (err)
			return err;
		*dropped += n;
	}
	return 0;
}

/* errno, then frames (the same stack of the same errno side by side), for merging */
static int frames_cmp(const void *a, const void *b)
{
	const struct stack_row *x = a, *y = b;
	__u32 i;

	if (x->err != y->err)
		return x->err < y->err ? -1 : 1;
	for (i = 0; i < x->nr && i < y->nr; i++)
		if (x->ips[i] != y->ips[i])
			return x->ips[i] < y->ips[i] ? -1 : 1;
	return (x->nr > y->nr) - (x->nr < y->nr);
}

/* hottest first; equal counts in frame order, so a reply is the same each time */
static int count_cmp(const void *a, const void *b)
{
	const struct stack_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return frames_cmp(a, b);
}

void stacks_finish(struct stack_set *set)
{
	size_t i, j;

	if (!set->n)
		return;
	qsort(set->rows, set->n, sizeof(*set->rows), frames_cmp);
	for (i = 1, j = 0; i < set->n; i++) {
		if (!frames_cmp(&set->rows[j], &set->rows[i])) {
			set->rows[j].count += set->rows[i].count;
			free(set->rows[i].ips);
			continue;
		}
		set->rows[++j] = set->rows[i];
	}
	set->n = j + 1;
	qsort(set->rows, set->n, sizeof(*set->rows), count_cmp);
}

void stacks_free(struct stack_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		free(set->rows[i].ips);
	free(set->rows);
	memset(set, 0, sizeof(*set));
}
