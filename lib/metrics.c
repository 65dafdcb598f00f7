// SPDX-License-Identifier: GPL-2.0-or-later
/* /metrics.json and Prometheus text from a snapshot; see metrics.h and docs/metrics.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "metrics.h"
#include "strutil.h"
#include "util.h"

/* ---------------------------------------------------------------- shared */

/* Sum of the functions' histograms; false when none of them is timed. */
static bool attachment_latency(const struct metrics_attachment *a, struct metrics_latency *out)
{
	bool any = false;
	size_t i, b;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < a->nr_functions; i++) {
		const struct metrics_latency *l = a->functions[i].latency;
		uint64_t n = 0;

		if (!l)
			continue;
		for (b = 0; b < TRACERD_HIST_BUCKETS; b++) {
			out->buckets[b] += l->buckets[b];
			n += l->buckets[b];
		}
		out->sum_ns += l->sum_ns;
		if (n && (!any || l->min_ns < out->min_ns))
			out->min_ns = l->min_ns;
		if (l->max_ns > out->max_ns)
			out->max_ns = l->max_ns;
		any = true;
	}
	return any;
}

static uint64_t latency_count(const struct metrics_latency *l)
{
	uint64_t n = 0;
	size_t b;

	for (b = 0; b < TRACERD_HIST_BUCKETS; b++)
		n += l->buckets[b];
	return n;
}

static void attachment_totals(const struct metrics_attachment *a, uint64_t *calls,
			      struct metrics_opt_u64 *misses)
{
	size_t i;

	*calls = 0;
	*misses = (struct metrics_opt_u64){ .known = true };
	for (i = 0; i < a->nr_functions; i++) {
		*calls += a->functions[i].calls;
		if (!a->functions[i].misses.known) {
			misses->known = false;
			misses->reason = a->functions[i].misses.reason;
		}
		misses->value += a->functions[i].misses.value;
	}
	if (!misses->known)
		misses->value = 0;
}

/*
 * Both formats are written into one growing buffer (struct mbuf), numbers
 * by hand: /metrics for a thousand timed attachments is ~40000 lines and
 * /metrics.json ~200000 values, and stdio's per-call cost (fprintf, fputc
 * per label byte), json-c's object per value and its serialization, then
 * json_sanitize's copy of the whole text were most of the time spent.
 */
struct mbuf {
	char *p;
	size_t len, cap;
	bool fail;		/* an allocation failed: the text is incomplete */
};

/* room for n more bytes and a NUL; NULL once an allocation failed */
static char *mb_room(struct mbuf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->fail)
		return NULL;
	if (b->cap - b->len > n)
		return b->p + b->len;
	for (cap = b->cap ? b->cap : 4096; cap - b->len <= n; cap *= 2)
		if (cap > SIZE_MAX / 4) {
			b->fail = true;
			return NULL;
		}
	p = realloc(b->p, cap);
	if (!p) {
		b->fail = true;
		return NULL;
	}
	b->p = p;
	b->cap = cap;
	return b->p + b->len;
}

static void mb_put(struct mbuf *b, const char *s, size_t n)
{
	char *o = mb_room(b, n);

	if (!o)
		return;
	memcpy(o, s, n);
	b->len += n;
}

#define mb_lit(b, s) mb_put((b), "" s, sizeof(s) - 1)

static void mb_puts(struct mbuf *b, const char *s)
{
	mb_put(b, s, strlen(s));
}

static void mb_putc(struct mbuf *b, char c)
{
	char *o = mb_room(b, 1);

	if (o) {
		*o = c;
		b->len++;
	}
}

/* v in decimal, as "%" PRIu64 */
static void mb_u64(struct mbuf *b, uint64_t v)
{
	char tmp[20];
	size_t n = sizeof(tmp);

	do {
		tmp[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	mb_put(b, tmp + n, sizeof(tmp) - n);
}

/* the rare formats (doubles) through snprintf */
__attribute__((format(printf, 2, 3)))
static void mb_printf(struct mbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->fail = true;
		return;
	}
	mb_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* ---------------------------------------------------------------- JSON */

/*
 * The text is what json_line(o, JSON_C_TO_STRING_PLAIN |
 * JSON_C_TO_STRING_NOSLASHESCAPE) makes of a json-c tree of the document:
 * members in the order json-c would keep them, its escapes then
 * json_sanitize's (json_quote), its number formats (doubles through json-c
 * itself), null for a missing string.
 */
static void js_str(struct mbuf *b, const char *str)
{
	size_t n;
	char *o;

	if (!str) {
		mb_lit(b, "null");
		return;
	}
	n = strlen(str);
	if (n > (SIZE_MAX - 3) / 6) {
		b->fail = true;
		return;
	}
	o = mb_room(b, 6 * n + 3);
	if (o)
		b->len += json_quote(o, str, n);
}

/* "key": keys are literals here, or feature mode names (quoted as strings) */
static void js_key(struct mbuf *b, const char *key, bool first)
{
	if (!first)
		mb_putc(b, ',');
	js_str(b, key);
	mb_putc(b, ':');
}

#define js_lkey(b, lit) mb_lit((b), "\"" lit "\":")
#define js_nkey(b, lit) mb_lit((b), ",\"" lit "\":")

static void js_bool(struct mbuf *b, bool v)
{
	if (v)
		mb_lit(b, "true");
	else
		mb_lit(b, "false");
}

static void js_opt_u64(struct mbuf *b, bool known, uint64_t v)
{
	if (known)
		mb_u64(b, v);
	else
		mb_lit(b, "null");
}

static void js_double(struct mbuf *b, double v)
{
	json_object *o = json_object_new_double(v);
	size_t n = 0;
	const char *t = o ? json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &n) : NULL;

	if (t)
		mb_put(b, t, n);
	else
		b->fail = true;
	json_object_put(o);
}

/* misses and misses_reason, after other members */
static void js_opt(struct mbuf *b, const struct metrics_opt_u64 *v)
{
	js_nkey(b, "misses");
	js_opt_u64(b, v->known, v->value);
	js_nkey(b, "misses_reason");
	js_str(b, v->known ? NULL : v->reason ? v->reason : "unknown");
}

static void js_latency(struct mbuf *b, const struct metrics_latency *l)
{
	uint64_t count = latency_count(l);
	bool first = true;
	size_t i;

	mb_lit(b, "{\"count\":");
	mb_u64(b, count);
	js_nkey(b, "sum_ns");
	mb_u64(b, l->sum_ns);
	js_nkey(b, "min_ns");
	js_opt_u64(b, count, l->min_ns);
	js_nkey(b, "max_ns");
	js_opt_u64(b, count, l->max_ns);
	js_nkey(b, "buckets");
	mb_putc(b, '[');
	for (i = 0; i < TRACERD_HIST_BUCKETS; i++) {
		if (!l->buckets[i])
			continue;
		if (!first)
			mb_putc(b, ',');
		first = false;
		mb_lit(b, "{\"lo_ns\":");
		mb_u64(b, i ? 1ULL << (i - 1) : 0);
		/* inclusive, as in the protocol's stats: [lo_ns, hi_ns] */
		js_nkey(b, "hi_ns");
		js_opt_u64(b, i != TRACERD_HIST_BUCKETS - 1, i ? (1ULL << i) - 1 : 0);
		js_nkey(b, "count");
		mb_u64(b, l->buckets[i]);
		mb_putc(b, '}');
	}
	mb_lit(b, "]}");
}

/* --slower-than: the slow calls of an attachment's functions */
static uint64_t attachment_slow(const struct metrics_attachment *a)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < a->nr_functions; i++)
		n += a->functions[i].slow;
	return n;
}

/* A function's rank key: most calls first, equal calls in snapshot order. */
struct fn_rank {
	uint64_t calls;
	size_t idx;
};

static bool rank_before(const struct fn_rank *x, const struct fn_rank *y)
{
	return x->calls != y->calls ? x->calls > y->calls : x->idx < y->idx;
}

static int rank_cmp(const void *a, const void *b)
{
	return rank_before(a, b) ? -1 : rank_before(b, a) ? 1 : 0;
}

static void rank_swap(struct fn_rank *v, size_t i, size_t j)
{
	struct fn_rank t = v[i];

	v[i] = v[j];
	v[j] = t;
}

/* v[0..k) the k first in rank order (unsorted), by quickselect: linear on average */
static void rank_select(struct fn_rank *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n, i, st, mid;

	while (hi - lo > 1 && k > lo && k < hi) {
		mid = lo + (hi - lo) / 2;
		/* median of three to the end, as the pivot */
		if (rank_before(&v[mid], &v[lo]))
			rank_swap(v, mid, lo);
		if (rank_before(&v[hi - 1], &v[lo]))
			rank_swap(v, hi - 1, lo);
		if (rank_before(&v[mid], &v[hi - 1]))
			rank_swap(v, mid, hi - 1);
		for (i = st = lo; i < hi - 1; i++)
			if (rank_before(&v[i], &v[hi - 1]))
				rank_swap(v, i, st++);
		rank_swap(v, st, hi - 1);
		if (st < k)
			lo = st + 1;
		else
			hi = st;
	}
}

int metrics_fn_page(const struct metrics_attachment *a, size_t offset, size_t limit,
		    struct metrics_fn_page *p)
{
	size_t n = a->nr_functions, i, end;
	struct fn_rank *v;

	memset(p, 0, sizeof(*p));
	p->other_misses.known = true;
	v = malloc((n + 1) * sizeof(*v));
	p->idx = malloc((limit < n ? limit : n) * sizeof(*p->idx) + 1);
	if (!v || !p->idx) {
		free(v);
		free(p->idx);
		p->idx = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		v[i] = (struct fn_rank){ a->functions[i].calls, i };
	offset = offset < n ? offset : n;
	end = limit < n - offset ? offset + limit : n;
	rank_select(v, n, end);		/* the page and those before it: v[0..end) */
	rank_select(v, end, offset);	/* those before it: v[0..offset) */
	qsort(v + offset, end - offset, sizeof(*v), rank_cmp);
	for (i = offset; i < end; i++)
		p->idx[p->n++] = v[i].idx;
	for (i = 0; i < n; i++) {
		const struct metrics_function *f;

		if (i == offset)
			i = end;	/* the page is not the rest */
		if (i >= n)
			break;
		f = &a->functions[v[i].idx];
		p->other_n++;
		p->other_calls += f->calls;
		p->other_misses.value += f->misses.value;
		if (!f->misses.known) {
			p->other_misses.known = false;
			p->other_misses.reason = f->misses.reason;
		}
	}
	if (!p->other_misses.known)
		p->other_misses.value = 0;
	free(v);
	return 0;
}

void metrics_fn_page_free(struct metrics_fn_page *p)
{
	free(p->idx);
	memset(p, 0, sizeof(*p));
}

static void js_function(struct mbuf *b, const struct metrics_function *f)
{
	mb_lit(b, "{\"function\":");
	js_str(b, f->name);
	js_nkey(b, "slot");
	if (f->slot == METRICS_NO_SLOT)
		mb_lit(b, "null");
	else
		mb_u64(b, f->slot);
	js_nkey(b, "calls");
	mb_u64(b, f->calls);
	js_opt(b, &f->misses);
	js_nkey(b, "latency");
	if (f->latency)
		js_latency(b, f->latency);
	else
		mb_lit(b, "null");
	mb_putc(b, '}');
}

static void js_record(struct mbuf *b, const struct metrics_record *r)
{
	mb_lit(b, "{\"name\":");
	js_str(b, r->name);
	js_nkey(b, "file");
	js_str(b, r->file);
	js_nkey(b, "active");
	js_bool(b, r->active);
	js_nkey(b, "error");
	js_str(b, r->error);
	js_nkey(b, "events");
	mb_u64(b, r->events);
	js_nkey(b, "dropped");
	mb_u64(b, r->dropped);
	js_nkey(b, "bytes");
	mb_u64(b, r->bytes);
	js_nkey(b, "errors");
	mb_u64(b, r->errors);
	js_nkey(b, "rotations");
	mb_u64(b, r->rotations);
	js_nkey(b, "truncations");
	mb_u64(b, r->truncations);
	mb_putc(b, '}');
}

const char *metrics_errno_name(int err, char *buf, size_t size)
{
	const char *n = err > 0 ? strerrorname_np(err) : NULL;

	if (!err)
		return "other";
	if (n)
		return n;
	snprintf(buf, size, "%d", err);
	return buf;
}

static void js_bpf_run(struct mbuf *b, const struct metrics_attachment *a)
{
	js_nkey(b, "bpf_run");
	if (a->bpf_run) {
		mb_lit(b, "{\"count\":");
		mb_u64(b, a->bpf_run->count);
		js_nkey(b, "time_ns");
		mb_u64(b, a->bpf_run->time_ns);
		js_nkey(b, "programs");
		mb_u64(b, a->bpf_run->programs);
		mb_putc(b, '}');
	} else {
		mb_lit(b, "null");
	}
	js_nkey(b, "bpf_run_reason");
	js_str(b, a->bpf_run ? NULL : a->bpf_run_reason);
}

static void js_errors(struct mbuf *b, const struct metrics_errors *e)
{
	char nbuf[16];
	size_t i;

	mb_lit(b, "{\"total\":");
	mb_u64(b, e->total);
	js_nkey(b, "by_errno");
	mb_putc(b, '[');
	for (i = 0; i < e->nr; i++) {
		if (i)
			mb_putc(b, ',');
		mb_lit(b, "{\"errno\":");
		if (e->by_errno[i].err)
			mb_u64(b, (uint64_t)e->by_errno[i].err);
		else
			mb_lit(b, "null");
		js_nkey(b, "name");
		js_str(b, metrics_errno_name(e->by_errno[i].err, nbuf, sizeof(nbuf)));
		js_nkey(b, "count");
		mb_u64(b, e->by_errno[i].count);
		mb_putc(b, '}');
	}
	mb_lit(b, "]}");
}

static void js_by_val(struct mbuf *b, const struct metrics_by_key *k, bool latency)
{
	mb_lit(b, "\"calls\":");
	mb_u64(b, k->calls);
	js_nkey(b, "timed");
	js_opt_u64(b, latency, k->timed);
	js_nkey(b, "lat_sum_ns");
	js_opt_u64(b, latency, k->lat_sum_ns);
}

static void js_by(struct mbuf *b, const struct metrics_by *by, bool latency)
{
	size_t i;

	mb_lit(b, "{\"key\":");
	js_str(b, by->by);
	js_nkey(b, "keys");
	mb_u64(b, by->keys);
	js_nkey(b, "calls");
	mb_u64(b, by->calls);
	js_nkey(b, "top");
	mb_putc(b, '[');
	for (i = 0; i < by->nr; i++) {
		if (i)
			mb_putc(b, ',');
		mb_lit(b, "{\"key\":");
		js_str(b, by->top[i].key);
		mb_putc(b, ',');
		js_by_val(b, &by->top[i], latency);
		mb_putc(b, '}');
	}
	mb_putc(b, ']');
	js_nkey(b, "other");
	mb_putc(b, '{');
	js_by_val(b, &by->other, latency);
	js_nkey(b, "keys");
	mb_u64(b, by->other_keys);
	js_nkey(b, "unkept_calls");
	mb_u64(b, by->unkept_calls);
	mb_lit(b, "}}");
}

/* the page's functions of each attachment: offset, and how many (function_top by default) */
static void json_page(const struct metrics_snapshot *s, size_t *offset, size_t *limit)
{
	*offset = s->json_offset;
	*limit = s->json_limit ? s->json_limit :
		 s->function_top ? s->function_top : METRICS_FUNCTION_TOP_DEFAULT;
}

/* "functions" (a page of them, most calls first), "functions_total", "functions_other" */
static void js_functions(struct mbuf *b, const struct metrics_snapshot *s,
			 const struct metrics_attachment *a)
{
	struct metrics_fn_page p;
	size_t offset, limit, i;

	json_page(s, &offset, &limit);
	if (metrics_fn_page(a, offset, limit, &p)) {
		b->fail = true;
		return;
	}
	js_nkey(b, "functions_total");
	mb_u64(b, a->nr_functions);
	js_nkey(b, "functions_other");
	if (p.other_n) {
		mb_lit(b, "{\"functions\":");
		mb_u64(b, p.other_n);
		js_nkey(b, "calls");
		mb_u64(b, p.other_calls);
		js_opt(b, &p.other_misses);
		mb_putc(b, '}');
	} else {
		mb_lit(b, "null");
	}
	js_nkey(b, "functions");
	mb_putc(b, '[');
	for (i = 0; i < p.n; i++) {
		if (i)
			mb_putc(b, ',');
		js_function(b, &a->functions[p.idx[i]]);
	}
	mb_lit(b, "]}");
	metrics_fn_page_free(&p);
}

static void js_attachment(struct mbuf *b, const struct metrics_snapshot *s,
			  const struct metrics_attachment *a)
{
	struct metrics_opt_u64 misses;
	struct metrics_latency lat;
	uint64_t calls;

	attachment_totals(a, &calls, &misses);
	mb_lit(b, "{\"id\":");
	mb_u64(b, a->id);
	js_nkey(b, "target");
	js_str(b, a->target);
	js_nkey(b, "mode");
	js_str(b, a->mode);
	js_nkey(b, "requested_mode");
	js_str(b, a->requested_mode);
	js_nkey(b, "mode_reason");
	js_str(b, a->mode_reason);
	js_nkey(b, "latency_enabled");
	js_bool(b, a->latency);
	js_nkey(b, "pid");
	js_opt_u64(b, a->pid, a->pid);
	js_nkey(b, "comm");
	js_str(b, a->comm && a->comm[0] ? a->comm : NULL);
	js_nkey(b, "since_unix_ns");
	mb_u64(b, a->since_real_ns);
	js_nkey(b, "calls");
	mb_u64(b, calls);
	js_opt(b, &misses);
	js_nkey(b, "latency");
	if (attachment_latency(a, &lat))
		js_latency(b, &lat);
	else
		mb_lit(b, "null");
	js_nkey(b, "overhead_ns_per_call");
	if (a->overhead_known)
		js_double(b, a->overhead_ns_per_call);
	else
		mb_lit(b, "null");
	js_nkey(b, "overhead_cpu_seconds_total");
	if (a->overhead_known)
		js_double(b, a->overhead_cpu_seconds_total);
	else
		mb_lit(b, "null");
	js_bpf_run(b, a);
	js_nkey(b, "errors");
	if (a->errors)
		js_errors(b, a->errors);
	else
		mb_lit(b, "null");
	js_nkey(b, "by");
	if (a->by)
		js_by(b, a->by, a->latency);
	else
		mb_lit(b, "null");
	js_nkey(b, "stacks_dropped");
	js_opt_u64(b, a->stacks_dropped != NULL, a->stacks_dropped ? *a->stacks_dropped : 0);
	js_nkey(b, "slow_calls");
	js_opt_u64(b, a->slower_ns != 0, attachment_slow(a));
	js_nkey(b, "record");
	if (a->record)
		js_record(b, a->record);
	else
		mb_lit(b, "null");
	js_functions(b, s, a);
}

static bool same_mode(const struct metrics_feature *x, const struct metrics_feature *y)
{
	return !strcmp(x->mode ? x->mode : "", y->mode ? y->mode : "");
}

static void js_daemon(struct mbuf *b, const struct metrics_snapshot *s)
{
	const struct metrics_feature *f;
	bool first = true;
	size_t i, j;

	mb_lit(b, "{\"version\":");
	js_str(b, s->version);
	js_nkey(b, "pid");
	mb_printf(b, "%d", s->pid);
	js_nkey(b, "hostname");
	js_str(b, s->hostname);
	js_nkey(b, "kernel");
	js_str(b, s->kernel);
	js_nkey(b, "arch");
	js_str(b, s->arch);
	js_nkey(b, "start_time_unix_ns");
	mb_u64(b, s->start_real_ns);
	js_nkey(b, "uptime_seconds");
	js_double(b, s->uptime_ns / 1e9);
	js_nkey(b, "features");
	mb_putc(b, '{');
	/* an object member added twice keeps its first place and its last value */
	for (i = 0; i < s->nr_features; i++) {
		for (j = 0; j < i && !same_mode(&s->features[j], &s->features[i]); j++)
			;
		if (j < i)
			continue;
		for (f = &s->features[i], j = i + 1; j < s->nr_features; j++)
			if (same_mode(&s->features[j], &s->features[i]))
				f = &s->features[j];
		js_key(b, f->mode ? f->mode : "", first);
		first = false;
		mb_lit(b, "{\"available\":");
		js_bool(b, f->available);
		js_nkey(b, "reason");
		js_str(b, f->available ? NULL : f->reason ? f->reason : "unknown");
		mb_putc(b, '}');
	}
	mb_putc(b, '}');
	js_nkey(b, "kmod");
	mb_lit(b, "{\"present\":");
	js_bool(b, s->kmod_present);
	js_nkey(b, "reason");
	js_str(b, s->kmod_present ? NULL : s->kmod_reason);
	mb_lit(b, "}}");
}

static void js_http(struct mbuf *b, const struct metrics_http *h)
{
	mb_lit(b, "{\"requests\":");
	mb_u64(b, h->requests);
	js_nkey(b, "bad_requests");
	mb_u64(b, h->bad_requests);
	js_nkey(b, "not_found");
	mb_u64(b, h->not_found);
	js_nkey(b, "bad_method");
	mb_u64(b, h->bad_method);
	js_nkey(b, "accept_paused");
	mb_u64(b, h->accept_paused);
	js_nkey(b, "deadline_closes");
	mb_lit(b, "{\"request\":");
	mb_u64(b, h->request_deadline_closes);
	js_nkey(b, "reply");
	mb_u64(b, h->reply_deadline_closes);
	mb_putc(b, '}');
	js_nkey(b, "held_closes");
	mb_u64(b, h->held_closes);
	js_nkey(b, "renders");
	mb_lit(b, "{\"prometheus\":");
	mb_u64(b, h->renders[0]);
	js_nkey(b, "json");
	mb_u64(b, h->renders[1]);
	mb_putc(b, '}');
	js_nkey(b, "held_bytes");
	mb_u64(b, h->held_bytes);
	js_nkey(b, "open_fds");
	mb_u64(b, h->open_fds);
	mb_putc(b, '}');
}

char *metrics_json_text(const struct metrics_snapshot *s, size_t *len)
{
	struct mbuf b = { 0 };
	size_t i;

	/* about 3.5 KiB per timed attachment of one function */
	mb_room(&b, 16384 + s->nr_attachments * 2048);
	mb_lit(&b, "{\"schema\":\"tracerd-metrics\",\"schema_version\":");
	mb_u64(&b, METRICS_SCHEMA_VERSION);
	js_nkey(&b, "daemon");
	js_daemon(&b, s);
	js_nkey(&b, "attachments");
	mb_putc(&b, '[');
	for (i = 0; i < s->nr_attachments; i++) {
		if (i)
			mb_putc(&b, ',');
		js_attachment(&b, s, &s->attachments[i]);
	}
	mb_putc(&b, ']');
	js_nkey(&b, "ringbuf");
	mb_lit(&b, "{\"drops\":");
	mb_u64(&b, s->ringbuf_drops);
	js_nkey(&b, "yields");
	mb_u64(&b, s->ringbuf_yields);
	mb_putc(&b, '}');
	js_nkey(&b, "config");
	mb_lit(&b, "{\"attach_lines\":");
	mb_u64(&b, s->config_attach_lines);
	js_nkey(&b, "attach_failures");
	mb_u64(&b, s->config_attach_failures);
	js_nkey(&b, "reloads");
	mb_lit(&b, "{\"ok\":");
	mb_u64(&b, s->config_reloads_ok);
	js_nkey(&b, "refused");
	mb_u64(&b, s->config_reloads_refused);
	mb_lit(&b, "}}");
	js_nkey(&b, "http");
	if (s->http)
		js_http(&b, s->http);
	else
		mb_lit(&b, "null");
	mb_putc(&b, '}');
	if (!mb_room(&b, 0)) {
		free(b.p);
		return NULL;
	}
	b.p[b.len] = '\0';
	*len = b.len;
	return b.p;
}

json_object *metrics_json(const struct metrics_snapshot *s)
{
	size_t len;
	char *text = metrics_json_text(s, &len);
	json_object *o = text ? json_tokener_parse(text) : NULL;

	free(text);
	return o;
}

/* ---------------------------------------------------------------- Prometheus */

int metrics_escape_label(const char *in, char *buf, size_t size)
{
	size_t n = 0;

	for (; *in; in++) {
		const char *rep = NULL;
		char c[2] = { *in, 0 };

		if (*in == '\\')
			rep = "\\\\";
		else if (*in == '"')
			rep = "\\\"";
		else if (*in == '\n')
			rep = "\\n";
		else
			rep = c;
		if (n + strlen(rep) + 1 > size)
			return -E2BIG;
		memcpy(buf + n, rep, strlen(rep));
		n += strlen(rep);
	}
	if (!size)
		return -E2BIG;
	buf[n] = '\0';
	return 0;
}

/* a label value, escaped (\\, \", \n); values are unbounded: function names, targets */
static void mb_label_value(struct mbuf *b, const char *val)
{
	size_t n;

	while (val && *val) {
		n = strcspn(val, "\\\"\n");
		mb_put(b, val, n);
		val += n;
		if (!*val)
			break;
		if (*val == '\\')
			mb_lit(b, "\\\\");
		else if (*val == '"')
			mb_lit(b, "\\\"");
		else
			mb_lit(b, "\\n");
		val++;
	}
}

static void put_label(struct mbuf *b, const char *name, const char *val, bool first)
{
	if (!first)
		mb_putc(b, ',');
	mb_puts(b, name);
	mb_lit(b, "=\"");
	mb_label_value(b, val);
	mb_putc(b, '"');
}

static void put_header(struct mbuf *b, const char *name, const char *type, const char *help)
{
	mb_lit(b, "# HELP ");
	mb_puts(b, name);
	mb_putc(b, ' ');
	mb_puts(b, help);
	mb_lit(b, "\n# TYPE ");
	mb_puts(b, name);
	mb_putc(b, ' ');
	mb_puts(b, type);
	mb_putc(b, '\n');
}

/* ns as exact decimal seconds: 1500 -> 0.0000015 */
static void put_seconds(struct mbuf *b, uint64_t ns)
{
	uint64_t frac = ns % 1000000000;
	char digits[10];
	int n = 9;

	mb_u64(b, ns / 1000000000);
	if (!frac)
		return;
	while (frac % 10 == 0) {
		frac /= 10;
		n--;
	}
	digits[0] = '.';
	for (int i = n; i > 0; i--) {
		digits[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	mb_put(b, digits, (size_t)n + 1);
}

/*
 * id, target, mode: the labels of every per-attachment series, without the
 * closing brace ({id="1",target="vfs_*",mode="fentry"), written once per
 * render for all attachments (labels.p + off[i], off[i + 1] - off[i] bytes)
 */
struct att_labels {
	struct mbuf text;
	size_t *off;
};

static int att_labels_make(struct att_labels *l, const struct metrics_snapshot *s)
{
	size_t i;

	memset(l, 0, sizeof(*l));
	l->off = calloc(s->nr_attachments + 1, sizeof(*l->off));
	if (!l->off)
		return -ENOMEM;
	for (i = 0; i < s->nr_attachments; i++) {
		const struct metrics_attachment *a = &s->attachments[i];

		l->off[i] = l->text.len;
		mb_lit(&l->text, "{id=\"");
		mb_u64(&l->text, a->id);
		mb_putc(&l->text, '"');
		put_label(&l->text, "target", a->target, false);
		put_label(&l->text, "mode", a->mode, false);
	}
	l->off[i] = l->text.len;
	return l->text.fail ? -ENOMEM : 0;
}

static void att_labels_free(struct att_labels *l)
{
	free(l->text.p);
	free(l->off);
}

static void put_att_labels(struct mbuf *b, const struct att_labels *l, size_t i)
{
	mb_put(b, l->text.p + l->off[i], l->off[i + 1] - l->off[i]);
}

static void prom_daemon(struct mbuf *b, const struct metrics_snapshot *s)
{
	size_t i;

	put_header(b, "tracerd_build_info", "gauge",
		   "tracerd version and the kernel it runs on (always 1).");
	mb_lit(b, "tracerd_build_info{");
	put_label(b, "version", s->version, true);
	put_label(b, "kernel", s->kernel, false);
	put_label(b, "arch", s->arch, false);
	mb_lit(b, "} 1\n");
	put_header(b, "tracerd_start_time_seconds", "gauge",
		   "Start time of the daemon, Unix seconds.");
	mb_lit(b, "tracerd_start_time_seconds ");
	put_seconds(b, s->start_real_ns);
	mb_putc(b, '\n');
	put_header(b, "tracerd_feature_available", "gauge",
		   "1 when the attach mode can be used on this kernel (reasons in /metrics.json).");
	for (i = 0; i < s->nr_features; i++) {
		mb_lit(b, "tracerd_feature_available{");
		put_label(b, "mode", s->features[i].mode, true);
		mb_lit(b, "} ");
		mb_putc(b, s->features[i].available ? '1' : '0');
		mb_putc(b, '\n');
	}
	put_header(b, "tracerd_kmod_present", "gauge",
		   "1 when tracerd_kmod.ko is loaded and its ABI matches.");
	mb_lit(b, "tracerd_kmod_present ");
	mb_putc(b, s->kmod_present ? '1' : '0');
	mb_putc(b, '\n');
	put_header(b, "tracerd_attachments", "gauge", "Attachments in place.");
	mb_lit(b, "tracerd_attachments ");
	mb_u64(b, s->nr_attachments);
	mb_putc(b, '\n');
	put_header(b, "tracerd_ringbuf_drops_total", "counter",
		   "Events the BPF programs could not queue to the ring buffer.");
	mb_lit(b, "tracerd_ringbuf_drops_total ");
	mb_u64(b, s->ringbuf_drops);
	mb_putc(b, '\n');
	put_header(b, "tracerd_config_attach_lines", "gauge",
		   "attach lines of the running configuration.");
	mb_lit(b, "tracerd_config_attach_lines ");
	mb_u64(b, s->config_attach_lines);
	mb_putc(b, '\n');
	put_header(b, "tracerd_config_attach_failures", "gauge",
		   "Config attach lines whose attach failed at the last start-up or reload.");
	mb_lit(b, "tracerd_config_attach_failures ");
	mb_u64(b, s->config_attach_failures);
	mb_putc(b, '\n');
	put_header(b, "tracerd_config_reloads_total", "counter",
		   "Configuration reloads since start, by result (ok: taken; refused: a bad "
		   "file or a listen address that cannot be bound, nothing changed).");
	mb_lit(b, "tracerd_config_reloads_total{result=\"ok\"} ");
	mb_u64(b, s->config_reloads_ok);
	mb_lit(b, "\ntracerd_config_reloads_total{result=\"refused\"} ");
	mb_u64(b, s->config_reloads_refused);
	mb_putc(b, '\n');
	put_header(b, "tracerd_ringbuf_drain_yields_total", "counter",
		   "Ring-buffer drains that yielded to the event loop with events left (budget "
		   "spent).");
	mb_lit(b, "tracerd_ringbuf_drain_yields_total ");
	mb_u64(b, s->ringbuf_yields);
	mb_putc(b, '\n');
}

/* the le label values of the histogram buckets (the last one is +Inf) */
struct le_table {
	char text[TRACERD_HIST_BUCKETS][24];
	size_t len[TRACERD_HIST_BUCKETS];
};

static void le_table_make(struct le_table *t)
{
	struct mbuf b = { 0 };
	size_t i;

	/* bucket i holds [2^(i-1), 2^i) ns: le = 2^i - 1 ns; the last is +Inf */
	for (i = 0; i < TRACERD_HIST_BUCKETS; i++) {
		char *p = t->text[i];

		if (i == TRACERD_HIST_BUCKETS - 1) {
			memcpy(p, "+Inf", 5);
		} else {
			b.len = 0;
			put_seconds(&b, i ? (1ULL << i) - 1 : 0);
			if (b.fail || b.len >= sizeof(t->text[i]))	/* at most 13 bytes */
				b.len = 0;
			memcpy(p, b.p, b.len);
			p[b.len] = '\0';
		}
		t->len[i] = strlen(p);
	}
	free(b.p);
}

static void prom_histogram(struct mbuf *b, const char *name, const struct att_labels *labels,
			   size_t att, const struct le_table *le, const struct metrics_latency *l)
{
	size_t nlen = strlen(name);
	uint64_t cum = 0;
	size_t i;

	for (i = 0; i < TRACERD_HIST_BUCKETS; i++) {
		cum += l->buckets[i];
		mb_put(b, name, nlen);
		mb_lit(b, "_bucket");
		put_att_labels(b, labels, att);
		mb_lit(b, ",le=\"");
		mb_put(b, le->text[i], le->len[i]);
		mb_lit(b, "\"} ");
		mb_u64(b, cum);
		mb_putc(b, '\n');
	}
	mb_put(b, name, nlen);
	mb_lit(b, "_sum");
	put_att_labels(b, labels, att);
	mb_lit(b, "} ");
	put_seconds(b, l->sum_ns);
	mb_putc(b, '\n');
	mb_put(b, name, nlen);
	mb_lit(b, "_count");
	put_att_labels(b, labels, att);
	mb_lit(b, "} ");
	mb_u64(b, cum);
	mb_putc(b, '\n');
}

/* An attachment's error counts: one series per errno seen (and other). */
static void prom_errors(struct mbuf *b, const char *name, const struct att_labels *labels,
			size_t att, const struct metrics_errors *e)
{
	char nbuf[16];
	size_t i;

	for (i = 0; i < e->nr; i++) {
		mb_puts(b, name);
		put_att_labels(b, labels, att);
		put_label(b, "errno", metrics_errno_name(e->by_errno[i].err, nbuf, sizeof(nbuf)),
			  false);
		mb_lit(b, "} ");
		mb_u64(b, e->by_errno[i].count);
		mb_putc(b, '\n');
	}
}

/*
 * An attachment's --by series: one per top key, the key under the label
 * named by the key's kind (pid, comm, cgroup); other without it.
 * what: 0 calls, 1 the latency summary (_sum, _count).
 */
static void prom_by(struct mbuf *b, const char *name, const struct att_labels *labels,
		    size_t att, const struct metrics_by *by, int what)
{
	size_t i;

	for (i = 0; i <= by->nr; i++) {
		const struct metrics_by_key *k = i < by->nr ? &by->top[i] : &by->other;

		if (i == by->nr && !what)
			break;	/* other's calls: a family of their own */
		mb_puts(b, name);
		if (what)
			mb_lit(b, "_sum");
		put_att_labels(b, labels, att);
		if (i < by->nr)
			put_label(b, by->by, k->key, false);
		mb_lit(b, "} ");
		if (!what) {
			mb_u64(b, k->calls);
			mb_putc(b, '\n');
			continue;
		}
		put_seconds(b, k->lat_sum_ns);
		mb_putc(b, '\n');
		mb_puts(b, name);
		mb_lit(b, "_count");
		put_att_labels(b, labels, att);
		if (i < by->nr)
			put_label(b, by->by, k->key, false);
		mb_lit(b, "} ");
		mb_u64(b, k->timed);
		mb_putc(b, '\n');
	}
}

/* One metric family over all attachments. */
enum att_metric {
	AM_START, AM_FUNCTIONS, AM_CALLS, AM_MISSES, AM_LATENCY, AM_OVH_NS, AM_OVH_CPU,
	AM_BPF_RUNS, AM_BPF_SECONDS, AM_ERRORS, AM_BY_CALLS, AM_BY_OTHER, AM_BY_UNKEPT, AM_BY_KEYS,
	AM_BY_LATENCY, AM_STACKS_DROPPED, AM_SLOW_CALLS, AM_REC_EVENTS, AM_REC_DROPPED,
	AM_REC_BYTES, AM_REC_ERRORS, AM_REC_ACTIVE,
	AM_NR
};

static const struct {
	const char *name, *type, *help;
} att_metrics[AM_NR] = {
	[AM_START] = { "tracerd_attachment_start_time_seconds", "gauge",
		       "When the attachment was made, Unix seconds (a new id is a new series)." },
	[AM_FUNCTIONS] = { "tracerd_attachment_functions", "gauge",
			   "Functions hooked by the attachment." },
	[AM_CALLS] = { "tracerd_calls_total", "counter",
		       "Calls counted, summed over the attachment's functions." },
	[AM_MISSES] = { "tracerd_misses_total", "counter",
			"Calls seen but not accounted; absent where the kernel does not report "
			"misses." },
	[AM_LATENCY] = { "tracerd_latency_seconds", "histogram",
			 "Entry to return time of traced calls." },
	[AM_OVH_NS] = { "tracerd_call_overhead_seconds", "gauge",
			"Measured cost of one traced call; absent until measured." },
	[AM_OVH_CPU] = { "tracerd_overhead_cpu_seconds_total", "counter",
			 "CPU time spent in tracing; absent until measured." },
	[AM_BPF_RUNS] = { "tracerd_bpf_runs_total", "counter",
			  "Runs of the attachment's BPF programs, as the kernel counts them "
			  "(filtered calls included); absent unless bpf_stats = on." },
	[AM_BPF_SECONDS] = { "tracerd_bpf_run_seconds_total", "counter",
			     "Time the kernel measured in the attachment's BPF programs; absent "
			     "unless bpf_stats = on." },
	[AM_ERRORS] = { "tracerd_function_errors_total", "counter",
			"Calls that returned an error (< 0), by errno (other: past the table); "
			"attachments made with --errors only." },
	[AM_BY_CALLS] = { "tracerd_by_calls_total", "counter",
			  "Calls per key (label pid, comm or cgroup) of an attachment made with "
			  "--by: its by_top keys with the most calls." },
	[AM_BY_OTHER] = { "tracerd_by_other_calls_total", "counter",
			  "Calls of an attachment made with --by not in its top keys' series: the "
			  "other keys and the unkept ones." },
	[AM_BY_UNKEPT] = { "tracerd_by_unkept_calls_total", "counter",
			   "Calls of --by keys the kernel had no room for (by_max_keys): in "
			   "tracerd_by_other_calls_total." },
	[AM_BY_KEYS] = { "tracerd_by_keys", "gauge",
			 "Keys the kernel keeps for an attachment made with --by." },
	[AM_BY_LATENCY] = { "tracerd_by_latency_seconds", "summary",
			    "Entry to return time per --by key (latency attachments); the series "
			    "without a key label: other." },
	[AM_STACKS_DROPPED] = { "tracerd_stacks_dropped_total", "counter",
				"Calls of an attachment made with --stacks whose stack was not "
				"kept (the stack tables full: stack_max_entries)." },
	[AM_SLOW_CALLS] = { "tracerd_slow_calls_total", "counter",
			    "Calls of an attachment made with --slower-than that took longer "
			    "than it (each one recorded)." },
	[AM_REC_EVENTS] = { "tracerd_record_events_total", "counter",
			    "Events written to the record file." },
	[AM_REC_DROPPED] = { "tracerd_record_dropped_total", "counter",
			     "Events not recorded (recording stopped by an error)." },
	[AM_REC_BYTES] = { "tracerd_record_bytes_total", "counter", "Compressed bytes written." },
	[AM_REC_ERRORS] = { "tracerd_record_errors_total", "counter",
			    "Write errors (a full disk stops recording; tracing goes on)." },
	[AM_REC_ACTIVE] = { "tracerd_record_active", "gauge",
			    "1 while recording, 0 once stopped by an error." },
};

/*
 * An attachment's sums over its functions, made once per render: each
 * family summing them again walked a 50k-function glob 22 times.
 */
struct att_sums {
	uint64_t calls, slow;
	struct metrics_opt_u64 misses;
	struct metrics_latency lat;
	bool timed;
};

static void att_sums_make(const struct metrics_attachment *a, struct att_sums *t)
{
	attachment_totals(a, &t->calls, &t->misses);
	t->timed = attachment_latency(a, &t->lat);
	t->slow = attachment_slow(a);
}

static void prom_att_metric(struct mbuf *b, const struct metrics_snapshot *s,
			    const struct att_labels *labels, const struct le_table *le,
			    const struct att_sums *sums, enum att_metric m)
{
	const struct metrics_attachment *a;
	const struct metrics_record *r;
	struct metrics_opt_u64 misses;
	const struct metrics_latency *lat;
	bool header = false;
	uint64_t calls, v;
	size_t i;

	for (i = 0; i < s->nr_attachments; i++) {
		a = &s->attachments[i];
		r = a->record;
		calls = sums[i].calls;
		misses = sums[i].misses;
		lat = &sums[i].lat;
		if ((m == AM_MISSES && !misses.known) ||
		    ((m == AM_OVH_NS || m == AM_OVH_CPU) && !a->overhead_known) ||
		    ((m == AM_BPF_RUNS || m == AM_BPF_SECONDS) && !a->bpf_run) ||
		    (m == AM_ERRORS && !a->errors) ||
		    (m >= AM_BY_CALLS && m <= AM_BY_LATENCY && !a->by) ||
		    (m == AM_BY_LATENCY && !a->latency) ||
		    (m == AM_STACKS_DROPPED && !a->stacks_dropped) ||
		    (m == AM_SLOW_CALLS && !a->slower_ns) ||
		    (m >= AM_REC_EVENTS && !r) ||
		    (m == AM_LATENCY && !sums[i].timed))
			continue;
		if (!header)
			put_header(b, att_metrics[m].name, att_metrics[m].type,
				   att_metrics[m].help);
		header = true;
		if (m == AM_LATENCY) {
			prom_histogram(b, att_metrics[m].name, labels, i, le, lat);
			continue;
		}
		if (m == AM_ERRORS) {
			prom_errors(b, att_metrics[m].name, labels, i, a->errors);
			continue;
		}
		if (m == AM_BY_CALLS || m == AM_BY_LATENCY) {
			prom_by(b, att_metrics[m].name, labels, i, a->by, m == AM_BY_LATENCY);
			continue;
		}
		mb_puts(b, att_metrics[m].name);
		put_att_labels(b, labels, i);
		mb_lit(b, "} ");
		switch (m) {
		case AM_START:
			put_seconds(b, a->since_real_ns);
			mb_putc(b, '\n');
			continue;
		case AM_OVH_NS:
			mb_printf(b, "%.9g\n", a->overhead_ns_per_call / 1e9);
			continue;
		case AM_OVH_CPU:
			mb_printf(b, "%.17g\n", a->overhead_cpu_seconds_total);
			continue;
		case AM_BPF_SECONDS:
			put_seconds(b, a->bpf_run->time_ns);
			mb_putc(b, '\n');
			continue;
		case AM_BPF_RUNS: v = a->bpf_run->count; break;
		case AM_FUNCTIONS: v = a->nr_functions; break;
		case AM_CALLS: v = calls; break;
		case AM_MISSES: v = misses.value; break;
		case AM_BY_OTHER: v = a->by->other.calls; break;
		case AM_BY_UNKEPT: v = a->by->unkept_calls; break;
		case AM_BY_KEYS: v = a->by->keys; break;
		case AM_STACKS_DROPPED: v = *a->stacks_dropped; break;
		case AM_SLOW_CALLS: v = sums[i].slow; break;
		case AM_REC_EVENTS: v = r->events; break;
		case AM_REC_DROPPED: v = r->dropped; break;
		case AM_REC_BYTES: v = r->bytes; break;
		case AM_REC_ERRORS: v = r->errors; break;
		case AM_REC_ACTIVE: v = r->active; break;
		default: v = 0; break;
		}
		mb_u64(b, v);
		mb_putc(b, '\n');
	}
}

/* One per-function sample: name{attachment labels,function="F"} v */
static void prom_fn_sample(struct mbuf *b, const char *name, const struct att_labels *labels,
			   size_t att, const char *fn, uint64_t v)
{
	mb_puts(b, name);
	put_att_labels(b, labels, att);
	put_label(b, "function", fn, false);
	mb_lit(b, "} ");
	mb_u64(b, v);
	mb_putc(b, '\n');
}

/*
 * Per-function series: each attachment's function_top functions with the
 * most calls, and when it has more, one series function="__other__"
 * summing the rest, so a sum over function is the attachment's total
 * (misses: __other__ only when every one of the rest is known). pages:
 * each attachment's (metrics_fn_page), made by the caller.
 */
static void prom_functions(struct mbuf *b, const struct metrics_snapshot *s,
			   const struct att_labels *labels, const struct metrics_fn_page *pages,
			   bool misses)
{
	const char *name =
		misses ? "tracerd_function_misses_total" : "tracerd_function_calls_total";
	const struct metrics_attachment *a;
	const struct metrics_function *fn;
	const struct metrics_fn_page *p;
	bool header = false;
	size_t i, j;

	for (i = 0; i < s->nr_attachments; i++) {
		a = &s->attachments[i];
		p = &pages[i];
		for (j = 0; j <= p->n; j++) {
			fn = j < p->n ? &a->functions[p->idx[j]] : NULL;
			if (!fn && (!p->other_n || (misses && !p->other_misses.known)))
				break;
			if (fn && misses && !fn->misses.known)
				continue;
			if (!header)
				put_header(b, name, "counter",
					   misses ? "Misses per hooked function: an attachment's "
						    "metrics_function_top busiest, the rest as "
						    "function=\"__other__\"."
						  : "Calls per hooked function: an attachment's "
						    "metrics_function_top busiest, the rest as "
						    "function=\"__other__\".");
			header = true;
			if (fn)
				prom_fn_sample(b, name, labels, i, fn->name,
					       misses ? fn->misses.value : fn->calls);
			else
				prom_fn_sample(b, name, labels, i, METRICS_OTHER_FUNCTION,
					       misses ? p->other_misses.value : p->other_calls);
		}
	}
}

/* "NAME{LABEL=\"VALUE\"} v\n" */
static void put_sample(struct mbuf *b, const char *name_labels, uint64_t v)
{
	mb_puts(b, name_labels);
	mb_putc(b, ' ');
	mb_u64(b, v);
	mb_putc(b, '\n');
}

static void prom_http(struct mbuf *b, const struct metrics_http *h)
{
	put_header(b, "tracerd_http_requests_total", "counter",
		   "HTTP requests answered, by status code.");
	put_sample(b, "tracerd_http_requests_total{code=\"200\"}",
		   h->requests - h->bad_requests - h->not_found - h->bad_method);
	put_sample(b, "tracerd_http_requests_total{code=\"400\"}", h->bad_requests);
	put_sample(b, "tracerd_http_requests_total{code=\"404\"}", h->not_found);
	put_sample(b, "tracerd_http_requests_total{code=\"405\"}", h->bad_method);
	put_header(b, "tracerd_http_renders_total", "counter",
		   "Bodies rendered for /metrics and /metrics.json (scrapes within the "
		   "snapshot interval share one), by format.");
	put_sample(b, "tracerd_http_renders_total{format=\"prometheus\"}", h->renders[0]);
	put_sample(b, "tracerd_http_renders_total{format=\"json\"}", h->renders[1]);
	put_header(b, "tracerd_http_held_closes_total", "counter",
		   "HTTP connections closed, oldest first, because their unread replies held the "
		   "cap on rendered bytes.");
	put_sample(b, "tracerd_http_held_closes_total", h->held_closes);
	put_header(b, "tracerd_http_held_bytes", "gauge",
		   "Bytes of rendered bodies held for replies not yet written to their clients.");
	put_sample(b, "tracerd_http_held_bytes", h->held_bytes);
	put_header(b, "tracerd_http_accept_paused_total", "counter",
		   "Times the HTTP server stopped accepting at its file descriptor limit.");
	put_sample(b, "tracerd_http_accept_paused_total", h->accept_paused);
	put_header(b, "tracerd_http_deadline_closes_total", "counter",
		   "HTTP connections closed past their request or reply deadline, by deadline.");
	put_sample(b, "tracerd_http_deadline_closes_total{deadline=\"request\"}",
		   h->request_deadline_closes);
	put_sample(b, "tracerd_http_deadline_closes_total{deadline=\"reply\"}",
		   h->reply_deadline_closes);
	put_header(b, "tracerd_open_fds", "gauge", "Open file descriptors of the daemon.");
	put_sample(b, "tracerd_open_fds", h->open_fds);
}

int metrics_process_read(struct metrics_process *p)
{
	unsigned long long utime, stime, vsize;
	long long rss;
	long tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	char buf[1024], *c;
	struct rlimit rl;
	size_t n;
	long fds;
	FILE *f;

	memset(p, 0, sizeof(*p));
	f = fopen("/proc/self/stat", "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	c = strrchr(buf, ')');	/* comm may hold spaces and parentheses */
	/* after comm: state(3) ... utime(14) stime(15) ... vsize(23) rss(24) */
	if (!c || tck <= 0 || page <= 0 ||
	    sscanf(c + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d "
		   "%*d %*d %*d %*d %*u %llu %lld", &utime, &stime, &vsize, &rss) != 4)
		return -EINVAL;
	p->cpu_seconds = (double)(utime + stime) / (double)tck;
	p->virtual_bytes = vsize;
	p->resident_bytes = rss > 0 ? (uint64_t)rss * (uint64_t)page : 0;
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		p->max_fds = rl.rlim_cur;
	fds = open_fd_count();
	if (fds < 0)
		return (int)fds;
	p->open_fds = (unsigned int)fds;
	return 0;
}

static void prom_process(struct mbuf *b, const struct metrics_snapshot *s)
{
	const struct metrics_process *p = &s->process;

	put_header(b, "process_cpu_seconds_total", "counter",
		   "User and system CPU time spent, seconds.");
	mb_printf(b, "process_cpu_seconds_total %.9g\n", p->cpu_seconds);
	put_header(b, "process_resident_memory_bytes", "gauge", "Resident memory size, bytes.");
	put_sample(b, "process_resident_memory_bytes", p->resident_bytes);
	put_header(b, "process_virtual_memory_bytes", "gauge", "Virtual memory size, bytes.");
	put_sample(b, "process_virtual_memory_bytes", p->virtual_bytes);
	put_header(b, "process_open_fds", "gauge", "Open file descriptors.");
	put_sample(b, "process_open_fds", p->open_fds);
	put_header(b, "process_max_fds", "gauge",
		   "Limit of open file descriptors (RLIMIT_NOFILE).");
	put_sample(b, "process_max_fds", p->max_fds);
	put_header(b, "process_start_time_seconds", "gauge",
		   "Start time of the process, Unix seconds.");
	mb_lit(b, "process_start_time_seconds ");
	put_seconds(b, s->start_real_ns);
	mb_putc(b, '\n');
}

char *metrics_prometheus(const struct metrics_snapshot *s, size_t *len)
{
	struct metrics_fn_page *pages = calloc(s->nr_attachments + 1, sizeof(*pages));
	struct att_sums *sums = calloc(s->nr_attachments + 1, sizeof(*sums));
	size_t top = s->function_top ? s->function_top : METRICS_FUNCTION_TOP_DEFAULT, i;
	struct mbuf b = { 0 };
	struct att_labels labels;
	struct le_table le;
	int m;

	if (!sums || att_labels_make(&labels, s)) {
		if (sums)
			att_labels_free(&labels);
		free(pages);
		free(sums);
		return NULL;
	}
	for (i = 0; i < s->nr_attachments; i++)
		att_sums_make(&s->attachments[i], &sums[i]);
	le_table_make(&le);
	/* about 4.5 KiB per timed attachment: one growth at most, usually none */
	mb_room(&b, 16384 + s->nr_attachments * 4608);
	prom_daemon(&b, s);
	for (m = 0; m < AM_NR; m++)
		prom_att_metric(&b, s, &labels, &le, sums, (enum att_metric)m);
	for (i = 0; pages && i < s->nr_attachments; i++)
		if (metrics_fn_page(&s->attachments[i], 0, top, &pages[i]))
			break;
	if (!pages || i < s->nr_attachments) {
		b.fail = true;
	} else {
		prom_functions(&b, s, &labels, pages, false);
		prom_functions(&b, s, &labels, pages, true);
	}
	for (i = 0; pages && i < s->nr_attachments; i++)
		metrics_fn_page_free(&pages[i]);
	free(pages);
	free(sums);
	if (s->http)
		prom_http(&b, s->http);
	if (s->process_known)
		prom_process(&b, s);
	att_labels_free(&labels);
	if (!mb_room(&b, 0)) {
		free(b.p);
		return NULL;
	}
	b.p[b.len] = '\0';
	*len = b.len;
	return b.p;
}
