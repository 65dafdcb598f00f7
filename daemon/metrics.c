// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The metrics snapshot: read every attachment's statistics (the same
 * hook_stats() the control protocol's `stats` uses, so both agree) into a
 * struct metrics_snapshot and render it with lib/metrics.c. A view: it
 * reads struct tracerd and the core; the HTTP server's counters come from
 * the server that renders (http.c passes them), the reload counts from
 * reload.c's d->reload, so it calls no edge file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "stacks.h"
#include "../lib/modes.h"
#include "../lib/util.h"
#include "bench.h"
#include "../lib/strutil.h"
#include "bpf_stats.h"
#include "by.h"
#include "metrics.h"
#include "registry.h"
#include "recorder.h"

struct snap_buf {
	struct metrics_snapshot s;
	struct metrics_feature features[TRACERD_MODE_NR + 1];
	struct metrics_attachment *atts;
	struct metrics_function *fns;
	struct metrics_latency *lats;
	struct metrics_record *recs;
	struct metrics_bpf_run *runs;
	struct metrics_errors *errs;	/* [attachment] */
	struct metrics_errno *errnos;	/* TRACERD_ERRNO_SLOTS per attachment with errors */
	struct metrics_by *bys;		/* [attachment] */
	struct metrics_by_key **by_keys;	/* [attachment]: malloc'd, keys malloc'd */
	uint64_t *stack_drops;		/* [attachment]: --stacks' unkept calls */
	size_t nr_atts;
	struct by_scan by_scan;		/* by_keys, read once per snapshot */
	bool by_scanned;
	struct utsname u;
	char host[256];
};

static void snap_features(struct tracerd *d, struct snap_buf *b)
{
	size_t n = 0;
	int m;

	for (m = 1; m < TRACERD_MODE_NR; m++) {
		b->features[n++] = (struct metrics_feature){
			tracerd_mode_name(m), d->features[m].available, d->features[m].reason };
		if (tracerd_mode_is_tracepoint(m))	/* its fallback follows it */
			b->features[n++] = (struct metrics_feature){
				"raw_tp", d->raw_tp.available, d->raw_tp.reason };
	}
	b->s.features = b->features;
	b->s.nr_features = n;
}

/* errors, summed over an attachment's functions, into m's errnos (other last) */
static void snap_errors(const __u64 *sum, struct metrics_errors *e, struct metrics_errno *v)
{
	int i, k;

	e->by_errno = v;
	for (k = 1; k <= TRACERD_ERRNO_SLOTS; k++) {
		i = k % TRACERD_ERRNO_SLOTS;
		if (!sum[i])
			continue;
		v[e->nr++] = (struct metrics_errno){ i, sum[i] };
		e->total += sum[i];
	}
}

static void snap_function(struct tracerd *d, struct attachment *a, struct hook *h,
			  struct metrics_function *f, struct metrics_latency *lat, __u64 *errsum)
{
	struct hook_stats hs;

	memset(f, 0, sizeof(*f));
	f->name = h->name;
	f->slot = h->slot < TRACERD_MAX_SLOTS ? h->slot : METRICS_NO_SLOT;	/* kmod: none */
	f->misses.reason = "statistics unreadable";
	if (hook_stats(d, a, h, &hs))
		return;
	f->calls = hs.s.calls;
	f->slow = hs.s.slow;
	f->misses.known = hs.kernel_misses_known;
	f->misses.value = hs.kernel_misses_known ? hs.kernel_misses + hs.s.misses : 0;
	f->misses.reason = hs.kernel_misses_known ? NULL : hs.misses_why;
	for (int i = 0; hs.errors_known && i < TRACERD_ERRNO_SLOTS; i++)
		errsum[i] += hs.errors.count[i];
	if (!a->spec.latency)
		return;
	lat->sum_ns = hs.s.lat_sum;
	lat->min_ns = hs.s.lat_min;
	lat->max_ns = hs.s.lat_max;
	memcpy(lat->buckets, hs.s.hist, sizeof(lat->buckets));
	f->latency = lat;
}

static void snap_bpf_run(struct tracerd *d, struct attachment *a, struct metrics_attachment *m,
			 struct metrics_bpf_run *r)
{
	struct bpf_run_stats rs;

	if (bpf_stats_read(d, a, &rs, &m->bpf_run_reason))
		return;
	r->count = rs.runs;
	r->time_ns = rs.run_ns;
	r->programs = rs.progs;
	m->bpf_run = r;
}

/*
 * a's --by keys into m (the top by_top of them, and other): the label
 * values terminal-escaped (str_escape: valid UTF-8, a comm's odd bytes as
 * \xNN). Left NULL when the map cannot be read (logged by nobody: the
 * series are absent for that scrape).
 */
static void snap_by(struct tracerd *d, struct snap_buf *b, size_t na, struct attachment *a,
		    struct metrics_attachment *m)
{
	struct metrics_by *mb = &b->bys[na];
	struct metrics_by_key *keys;
	struct by_summary s;
	char buf[32];
	size_t i;

	if (!b->by_scanned && by_scan(d, &b->by_scan))
		return;
	b->by_scanned = true;
	if (by_summarize(d, a, &b->by_scan, d->cfg.by_top, &s))
		return;
	keys = calloc(s.nr + 1, sizeof(*keys));
	if (!keys) {
		by_summary_free(&s);
		return;
	}
	b->by_keys[na] = keys;
	for (i = 0; i < s.nr; i++) {
		keys[i].key = str_escape(by_item_label(&s, &s.items[i], buf, sizeof(buf)));
		if (!keys[i].key)
			break;
		keys[i].calls = s.items[i].v.calls;
		keys[i].timed = s.items[i].v.timed;
		keys[i].lat_sum_ns = s.items[i].v.lat_sum;
	}
	if (i == s.nr) {
		mb->by = spec_by_name(s.by);
		mb->top = keys;
		mb->nr = s.nr;
		mb->keys = s.keys;
		mb->calls = s.calls;
		mb->other.calls = s.other.calls;
		mb->other.timed = s.other.timed;
		mb->other.lat_sum_ns = s.other.lat_sum;
		mb->other_keys = s.other_keys;
		mb->unkept_calls = s.unkept;
		m->by = mb;
	}
	by_summary_free(&s);
}

static int snap_fill(struct tracerd *d, const struct metrics_http *http, struct snap_buf *b)
{
	struct attachment *a;
	size_t na = 0, nf = 0, ne = 0, i;
	__u64 errsum[TRACERD_ERRNO_SLOTS], dropped;

	memset(b, 0, sizeof(*b));
	uname(&b->u);
	gethostname(b->host, sizeof(b->host) - 1);
	b->s.version = TRACERD_VERSION;
	b->s.kernel = b->u.release;
	b->s.arch = b->u.machine;
	b->s.hostname = b->host;
	b->s.pid = getpid();
	b->s.uptime_ns = now_mono_ns() - d->start_mono_ns;
	b->s.start_real_ns = now_real_ns() - b->s.uptime_ns;
	b->s.kmod_present = d->kmod.present;
	b->s.kmod_reason = d->kmod.reason;
	b->s.http = http;
	b->s.ringbuf_drops = recorder_ringbuf_drops(d);
	b->s.process_known = !metrics_process_read(&b->s.process);
	b->s.config_attach_lines = (unsigned int)d->cfg.nr_attach;
	b->s.config_attach_failures = d->reload.attach_failed;	/* reload.c's */
	b->s.config_reloads_ok = d->reload.ok;
	b->s.config_reloads_refused = d->reload.refused;
	b->s.ringbuf_yields = recorder_ringbuf_yields(d);
	b->s.function_top = d->cfg.metrics_function_top;
	snap_features(d, b);
	for (a = d->attachments; a; a = a->next) {
		na++;
		nf += a->nr_hooks;
		ne += a->spec.errors;
	}
	b->atts = calloc(na + 1, sizeof(*b->atts));
	b->recs = calloc(na + 1, sizeof(*b->recs));
	b->runs = calloc(na + 1, sizeof(*b->runs));
	b->errs = calloc(na + 1, sizeof(*b->errs));
	b->errnos = calloc(ne * TRACERD_ERRNO_SLOTS + 1, sizeof(*b->errnos));
	b->bys = calloc(na + 1, sizeof(*b->bys));
	b->by_keys = calloc(na + 1, sizeof(*b->by_keys));
	b->stack_drops = calloc(na + 1, sizeof(*b->stack_drops));
	b->nr_atts = b->by_keys ? na : 0;
	b->fns = calloc(nf + 1, sizeof(*b->fns));
	b->lats = calloc(nf + 1, sizeof(*b->lats));
	if (!b->atts || !b->recs || !b->fns || !b->lats || !b->runs || !b->errs || !b->errnos ||
	    !b->bys || !b->by_keys || !b->stack_drops)
		return -ENOMEM;
	na = nf = ne = 0;
	stacks_read_begin(d);	/* one pass over the stack table for the whole snapshot */
	for (a = d->attachments; a; a = a->next, na++) {
		struct metrics_attachment *m = &b->atts[na];

		m->id = a->id;
		m->target = a->spec.target;
		m->mode = tracerd_mode_name(a->mode);
		m->requested_mode = tracerd_mode_name(a->spec.mode);
		m->mode_reason = a->mode_reason;
		m->latency = a->spec.latency;
		m->pid = a->spec.tgid;
		m->comm = a->spec.comm;
		m->since_real_ns = a->since_real_ns;
		m->slower_ns = a->spec.slower_ns;
		m->functions = &b->fns[nf];
		m->nr_functions = a->nr_hooks;
		memset(errsum, 0, sizeof(errsum));
		hook_stats_begin(d, a);
		for (i = 0; i < a->nr_hooks; i++, nf++)
			snap_function(d, a, &a->hooks[i], &b->fns[nf], &b->lats[nf], errsum);
		hook_stats_end(d, a);
		if (a->spec.errors) {
			snap_errors(errsum, &b->errs[na], &b->errnos[ne++ * TRACERD_ERRNO_SLOTS]);
			m->errors = &b->errs[na];
		}
		if (a->spec.by)
			snap_by(d, b, na, a, m);
		/* unread (the series absent for this scrape) rather than a wrong 0 */
		if (a->spec.stacks && !stacks_dropped(d, a, &dropped)) {
			b->stack_drops[na] = dropped;
			m->stacks_dropped = &b->stack_drops[na];
		}
		bench_metrics_overhead(d, a, m);	/* daemon/bench_store.c */
		snap_bpf_run(d, a, m, &b->runs[na]);
		if (recorder_stats(d, a, &b->recs[na]) == 0)
			m->record = &b->recs[na];
	}
	stacks_read_end(d);
	b->s.attachments = b->atts;
	b->s.nr_attachments = na;
	return 0;
}

static void snap_free(struct snap_buf *b)
{
	free(b->atts);
	free(b->fns);
	free(b->lats);
	free(b->recs);
	free(b->runs);
	free(b->errs);
	free(b->errnos);
	for (size_t i = 0; i < b->nr_atts; i++) {
		for (size_t k = 0; b->by_keys[i] && b->by_keys[i][k].key; k++)
			free((char *)b->by_keys[i][k].key);
		free(b->by_keys[i]);
	}
	free(b->by_keys);
	free(b->bys);
	free(b->stack_drops);
	by_scan_free(&b->by_scan);
}

char *metrics_render_prometheus(struct tracerd *d, const struct metrics_http *http, size_t *len)
{
	struct snap_buf *b = malloc(sizeof(*b));
	char *text = NULL;

	if (b && !snap_fill(d, http, b))
		text = metrics_prometheus(&b->s, len);
	if (b)
		snap_free(b);
	free(b);
	return text;
}

char *metrics_render_json(struct tracerd *d, const struct metrics_http *http, size_t offset,
			  size_t limit, size_t *len)
{
	struct snap_buf *b = malloc(sizeof(*b));
	char *text = NULL;

	if (b && !snap_fill(d, http, b)) {
		b->s.json_offset = offset;
		b->s.json_limit = limit;
		text = metrics_json_text(&b->s, len);
	}
	if (b)
		snap_free(b);
	free(b);
	return text;
}
