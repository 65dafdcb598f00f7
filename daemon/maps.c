// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The maps every tracerd BPF object shares: per-CPU slot statistics, slot
 * configuration, per-task entry timestamps, error returns by errno
 * (--errors; 4096 slots x 1080 bytes, 4.4 MB of kernel memory), calls per
 * key (--by: by_keys, by_max_keys entries; by_other, 4096 x 24 bytes), calls per kernel
 * stack (--stacks: stack_traces and stack_counts, stack_max_entries entries each, a stack
 * 8 bytes a frame; stack_drops, 4096 x 8 bytes). Created once here; each
 * skeleton points its maps at these fds before load, so a slot means the
 * same hooked function in every mode.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../lib/log.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpfutil.h"
#include "recorder.h"
#include "tracerd.h"

/*
 * Frames a stack keeps: the kernel's perf_event_max_stack (a sysctl
 * bpf_get_stackid honours) when lower than TRACERD_STACK_DEPTH_MAX.
 */
static unsigned int stack_depth_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");
	unsigned int v = TRACERD_STACK_DEPTH_MAX;

	if (f) {
		if (fscanf(f, "%u", &v) != 1 || !v || v > TRACERD_STACK_DEPTH_MAX)
			v = TRACERD_STACK_DEPTH_MAX;
		fclose(f);
	}
	return v;
}

/* --stacks' maps (trace.h): preallocated, so a full one refuses, never allocates */
static int stack_maps_create(struct tracerd *d)
{
	unsigned int n = d->cfg.stack_max_entries ? d->cfg.stack_max_entries :
						     TRACERD_STACK_MAX_ENTRIES_DEFAULT;

	d->stack_depth_max = stack_depth_max();
	d->stack_traces_fd = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "stack_traces",
					    sizeof(__u32), d->stack_depth_max * sizeof(__u64), n,
					    NULL);
	if (d->stack_traces_fd < 0)
		return -errno;
	d->stack_counts_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "stack_counts",
					    sizeof(struct tracerd_stack_key), sizeof(__u64), n,
					    NULL);
	if (d->stack_counts_fd < 0)
		return -errno;
	d->stack_drops_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "stack_drops", sizeof(__u32),
					   sizeof(__u64), TRACERD_MAX_SLOTS, NULL);
	return d->stack_drops_fd < 0 ? -errno : 0;
}

int maps_create(struct tracerd *d)
{
	int err;

	d->stats_fd = d->cfg_fd = d->ts_fd = d->errors_fd = d->by_fd = d->by_other_fd = -1;
	d->stack_traces_fd = d->stack_counts_fd = d->stack_drops_fd = -1;
	d->ncpus = libbpf_num_possible_cpus();
	if (d->ncpus <= 0) {
		log_err("cannot count possible CPUs: %s", strerror(-d->ncpus));
		return d->ncpus ? d->ncpus : -EINVAL;
	}
	d->stats_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "slot_stats", sizeof(__u32),
				     sizeof(struct tracerd_slot_stats), TRACERD_MAX_SLOTS, NULL);
	if (d->stats_fd < 0)
		goto fail;
	d->cfg_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "slot_cfg", sizeof(__u32),
				   sizeof(struct tracerd_slot_cfg), TRACERD_MAX_SLOTS, NULL);
	if (d->cfg_fd < 0)
		goto fail;
	d->ts_fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "entry_ts", sizeof(struct tracerd_ts_key),
				  sizeof(struct tracerd_ts_val), TRACERD_TS_ENTRIES, NULL);
	if (d->ts_fd < 0)
		goto fail;
	d->errors_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "slot_errors", sizeof(__u32),
				      sizeof(struct tracerd_slot_errors), TRACERD_MAX_SLOTS, NULL);
	if (d->errors_fd < 0)
		goto fail;
	/* preallocated: a call of a new key never allocates, and the map
	 * holds exactly by_max_keys keys (a full one refuses with E2BIG) */
	d->by_fd = bpf_map_create(
		BPF_MAP_TYPE_HASH, "by_keys", sizeof(struct tracerd_by_key),
		sizeof(struct tracerd_by_val),
		d->cfg.by_max_keys ? d->cfg.by_max_keys : TRACERD_BY_MAX_KEYS_DEFAULT, NULL);
	if (d->by_fd < 0)
		goto fail;
	d->by_other_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "by_other", sizeof(__u32),
					sizeof(struct tracerd_by_val), TRACERD_MAX_SLOTS, NULL);
	if (d->by_other_fd < 0)
		goto fail;
	if (stack_maps_create(d))
		goto fail;
	return 0;
fail:
	err = -errno;
	log_err("failed to create BPF maps: %s", strerror(errno));
	maps_destroy(d);
	return err;
}

void maps_destroy(struct tracerd *d)
{
	if (d->stats_fd >= 0)
		close(d->stats_fd);
	if (d->cfg_fd >= 0)
		close(d->cfg_fd);
	if (d->ts_fd >= 0)
		close(d->ts_fd);
	if (d->errors_fd >= 0)
		close(d->errors_fd);
	if (d->by_fd >= 0)
		close(d->by_fd);
	if (d->by_other_fd >= 0)
		close(d->by_other_fd);
	if (d->stack_traces_fd >= 0)
		close(d->stack_traces_fd);
	if (d->stack_counts_fd >= 0)
		close(d->stack_counts_fd);
	if (d->stack_drops_fd >= 0)
		close(d->stack_drops_fd);
	d->stats_fd = d->cfg_fd = d->ts_fd = d->errors_fd = d->by_fd = d->by_other_fd = -1;
	d->stack_traces_fd = d->stack_counts_fd = d->stack_drops_fd = -1;
}

int maps_reuse(struct tracerd *d, struct bpf_object *obj)
{
	static const char *const names[] = { "slot_stats",   "slot_cfg",     "entry_ts",
					     "slot_errors",  "by_keys",	     "by_other",
					     "stack_traces", "stack_counts", "stack_drops" };
	int fds[] = { d->stats_fd,	  d->cfg_fd,	       d->ts_fd,
		      d->errors_fd,	  d->by_fd,	       d->by_other_fd,
		      d->stack_traces_fd, d->stack_counts_fd, d->stack_drops_fd };
	struct bpf_map *m;
	char ebuf[96];
	size_t i;
	int err;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		m = bpf_object__find_map_by_name(obj, names[i]);
		if (!m)
			return -ENOENT;
		err = bpf_map__reuse_fd(m, fds[i]);
		if (err) {
			log_err("failed to reuse map '%s': %s", names[i],
				errno_str(err, ebuf, sizeof(ebuf)));
			return err;
		}
	}
	return recorder_reuse_maps(d, obj);
}

/*
 * Zero a slot's per-CPU stats, its errors, its --by other row and its
 * --stacks drops so a reused slot starts from nothing; the errors row says
 * how wide the function's return is (ret64).
 */
static int slot_zero(struct tracerd *d, __u32 slot, bool ret64)
{
	size_t sz = sizeof(struct tracerd_slot_stats) * d->ncpus;
	struct tracerd_slot_errors errs = { .ret64 = ret64 };
	void *zero = calloc(1, sz);
	int err = 0;

	if (!zero)
		return -ENOMEM;
	if (bpf_map_update_elem(d->stats_fd, &slot, zero, BPF_ANY) ||
	    bpf_map_update_elem(d->errors_fd, &slot, &errs, BPF_ANY) ||
	    bpf_map_update_elem(d->by_other_fd, &slot, zero, BPF_ANY) ||
	    bpf_map_update_elem(d->stack_drops_fd, &slot, zero, BPF_ANY))
		err = -errno;
	free(zero);
	return err;
}

int maps_slot_alloc(struct tracerd *d, __u32 *slot, bool ret64)
{
	__u32 i;
	int err;

	maps_sweep(d);	/* no slot comes back with keys of its past */
	for (i = 0; i < TRACERD_MAX_SLOTS; i++) {
		if (d->slot_used[i])
			continue;
		maps_slot_disable(d, i);
		err = slot_zero(d, i, ret64);
		if (err)
			return err;
		d->slot_used[i] = 1;
		d->nr_slots_used++;
		*slot = i;
		return 0;
	}
	return -ENOSPC;
}

/*
 * Delete the --by keys of the slots freed since the last sweep (slot_by
 * 2): their room in by_keys goes back to the others. One pass over the
 * map however many slots an attachment frees.
 */
static void by_sweep(struct tracerd *d)
{
	struct tracerd_by_key k, next, *prev = NULL;
	__u32 i;

	if (!d->by_sweep)
		return;
	/* a deleted key's successor is found from the key before it */
	while (!bpf_map_get_next_key(d->by_fd, prev, &next)) {
		if (next.slot < TRACERD_MAX_SLOTS && d->slot_by[next.slot] == 2) {
			bpf_map_delete_elem(d->by_fd, &next);
			continue;
		}
		k = next;
		prev = &k;
	}
	for (i = 0; i < TRACERD_MAX_SLOTS; i++)
		if (d->slot_by[i] == 2)
			d->slot_by[i] = 0;
	d->by_sweep = false;
}

/* Is stack id used by a count left in stack_counts (ids[], n sorted)? */
static int id_cmp(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

/*
 * The --stacks counts of the slots freed since the last sweep (slot_stacks
 * 2) go, then the stacks no count left uses: stack_traces is shared by
 * every slot (one entry per distinct stack), so a stack another slot
 * counts stays. A program may take a stack id between the two passes and
 * count it after its stack went: the daemon reads such a count as
 * dropped (stacks.c), never as another stack.
 */
static void stacks_sweep(struct tracerd *d)
{
	struct tracerd_stack_key k, next, *prev = NULL;
	__u32 *ids = NULL, *grown, id, nid, *pid = NULL;
	size_t n = 0, cap = 0;
	__u32 i;

	if (!d->stacks_sweep)
		return;
	while (!bpf_map_get_next_key(d->stack_counts_fd, prev, &next)) {
		if (next.slot < TRACERD_MAX_SLOTS && d->slot_stacks[next.slot] == 2) {
			bpf_map_delete_elem(d->stack_counts_fd, &next);
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			grown = realloc(ids, cap * sizeof(*ids));
			if (!grown)
				goto cleanup;	/* the stacks stay: the next sweep tries again */
			ids = grown;
		}
		ids[n++] = next.id;
		k = next;
		prev = &k;
	}
	if (n)
		qsort(ids, n, sizeof(*ids), id_cmp);
	while (!bpf_map_get_next_key(d->stack_traces_fd, pid, &nid)) {
		if (!n || !bsearch(&nid, ids, n, sizeof(*ids), id_cmp)) {
			bpf_map_delete_elem(d->stack_traces_fd, &nid);
			continue;
		}
		id = nid;
		pid = &id;
	}
	for (i = 0; i < TRACERD_MAX_SLOTS; i++)
		if (d->slot_stacks[i] == 2)
			d->slot_stacks[i] = 0;
	d->stacks_sweep = false;
cleanup:
	free(ids);
}

void maps_sweep(struct tracerd *d)
{
	by_sweep(d);
	stacks_sweep(d);
}

void maps_slot_free(struct tracerd *d, __u32 slot)
{
	if (slot >= TRACERD_MAX_SLOTS || !d->slot_used[slot])
		return;
	maps_slot_disable(d, slot);
	if (d->slot_by[slot]) {
		d->slot_by[slot] = 2;	/* its keys go at the next maps_sweep */
		d->by_sweep = true;
	}
	if (d->slot_stacks[slot]) {
		d->slot_stacks[slot] = 2;
		d->stacks_sweep = true;
	}
	d->slot_used[slot] = 0;
	d->nr_slots_used--;
}

void maps_spec_cfg(const struct tracerd_spec *spec, struct tracerd_slot_cfg *cfg)
{
	size_t i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->flags = TRACERD_SLOT_ENABLED;
	if (spec->latency)
		cfg->flags |= TRACERD_SLOT_LATENCY;
	if (spec->tgid) {
		cfg->flags |= TRACERD_SLOT_TGID;
		cfg->tgid = spec->tgid;
	}
	if (spec->comm[0]) {
		cfg->flags |= TRACERD_SLOT_COMM;
		/* zero-padded past the end, as bpf_get_current_comm() pads */
		for (i = 0; i < sizeof(cfg->comm) && spec->comm[i]; i++)
			cfg->comm[i] = spec->comm[i];
	}
	if (spec->record[0])
		cfg->flags |= TRACERD_SLOT_RECORD;
	if (spec->errors)
		cfg->flags |= TRACERD_SLOT_ERRORS;
	if (spec->by == SPEC_BY_PID)
		cfg->flags |= TRACERD_SLOT_BY_PID;
	else if (spec->by == SPEC_BY_COMM)
		cfg->flags |= TRACERD_SLOT_BY_COMM;
	else if (spec->by == SPEC_BY_CGROUP)
		cfg->flags |= TRACERD_SLOT_BY_CGROUP;
	if (spec->stacks)
		cfg->flags |= TRACERD_SLOT_STACKS;
	if (spec->slower_ns) {
		cfg->flags |= TRACERD_SLOT_SLOW;
		cfg->slower_ns = spec->slower_ns;
	}
	if (spec->args)
		cfg->flags |= TRACERD_SLOT_ARGS;
	if (spec->cond[0])
		cfg->flags |= TRACERD_SLOT_IF;
}

int maps_slot_config(struct tracerd *d, __u32 slot, const struct tracerd_spec *spec,
		     const struct hook_args *args)
{
	struct tracerd_slot_cfg cfg;

	maps_spec_cfg(spec, &cfg);
	if (args) {	/* NULL: neither --args nor --if */
		cfg.nargs = args->nargs;
		cfg.strmask = args->strmask;
		cfg.if_idx = args->if_idx;
		cfg.if_op = args->if_op;
		cfg.if_size = args->if_size;
		cfg.if_signed = args->if_signed;
		cfg.if_val = args->if_val;
	}
	if (bpf_map_update_elem(d->cfg_fd, &slot, &cfg, BPF_ANY))
		return -errno;
	d->slot_by[slot] = spec->by != SPEC_BY_NONE;
	d->slot_stacks[slot] = spec->stacks != 0;
	return 0;
}

void maps_slot_disable(struct tracerd *d, __u32 slot)
{
	struct tracerd_slot_cfg cfg = {};

	bpf_map_update_elem(d->cfg_fd, &slot, &cfg, BPF_ANY);
}

int maps_slot_read(struct tracerd *d, __u32 slot, struct tracerd_slot_stats *out)
{
	struct tracerd_slot_stats *v;
	int cpu, b, err = 0;

	memset(out, 0, sizeof(*out));
	v = calloc(d->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(d->stats_fd, &slot, v)) {
		err = -errno;
		goto cleanup;
	}
	for (cpu = 0; cpu < d->ncpus; cpu++) {
		__u64 n = 0;

		/* the programs count samples in the histogram only */
		for (b = 0; b < TRACERD_HIST_BUCKETS; b++)
			n += v[cpu].hist[b];
		out->calls += v[cpu].calls;
		out->misses += v[cpu].misses;
		out->slow += v[cpu].slow;
		if (n) {
			/* lat_min is 0 until the first sample: a 0 ns one is hist[0] */
			__u64 min = v[cpu].hist[0] ? 0 : v[cpu].lat_min;

			if (!out->lat_count || min < out->lat_min)
				out->lat_min = min;
			if (v[cpu].lat_max > out->lat_max)
				out->lat_max = v[cpu].lat_max;
		}
		out->lat_count += n;
		out->lat_sum += v[cpu].lat_sum;
		for (b = 0; b < TRACERD_HIST_BUCKETS; b++)
			out->hist[b] += v[cpu].hist[b];
	}
cleanup:
	free(v);
	return err;
}

int maps_slot_errors(struct tracerd *d, __u32 slot, struct tracerd_slot_errors *out)
{
	if (bpf_map_lookup_elem(d->errors_fd, &slot, out))
		return -errno;
	return 0;
}
