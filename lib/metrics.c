// SPDX-License-Identifier: GPL-2.0-or-later
/* /metrics.json and Prometheus text from a snapshot; see metrics.h and docs/metrics.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/resource.h>
#include "metrics.h"

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

/* ---------------------------------------------------------------- JSON */

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *ju64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static void jadd_opt(json_object *o, const char *key, const char *reason_key,
		     const struct metrics_opt_u64 *v)
{
	json_object_object_add(o, key, v->known ? ju64(v->value) : NULL);
	json_object_object_add(o, reason_key, v->known ? NULL : jstr(v->reason ? v->reason : "unknown"));
}

static json_object *json_latency(const struct metrics_latency *l)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array(), *b;
	uint64_t count = latency_count(l);
	size_t i;

	json_object_object_add(o, "count", ju64(count));
	json_object_object_add(o, "sum_ns", ju64(l->sum_ns));
	json_object_object_add(o, "min_ns", count ? ju64(l->min_ns) : NULL);
	json_object_object_add(o, "max_ns", count ? ju64(l->max_ns) : NULL);
	for (i = 0; i < TRACERD_HIST_BUCKETS; i++) {
		if (!l->buckets[i])
			continue;
		b = json_object_new_object();
		json_object_object_add(b, "lo_ns", ju64(i ? 1ULL << (i - 1) : 0));
		/* inclusive, as in the protocol's stats: [lo_ns, hi_ns] */
		json_object_object_add(b, "hi_ns", i == TRACERD_HIST_BUCKETS - 1 ? NULL :
				       ju64(i ? (1ULL << i) - 1 : 0));
		json_object_object_add(b, "count", ju64(l->buckets[i]));
		json_object_array_add(arr, b);
	}
	json_object_object_add(o, "buckets", arr);
	return o;
}

static json_object *json_function(const struct metrics_function *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "function", jstr(f->name));
	json_object_object_add(o, "slot", ju64(f->slot));
	json_object_object_add(o, "calls", ju64(f->calls));
	jadd_opt(o, "misses", "misses_reason", &f->misses);
	json_object_object_add(o, "latency", f->latency ? json_latency(f->latency) : NULL);
	return o;
}

static json_object *json_record(const struct metrics_record *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", jstr(r->name));
	json_object_object_add(o, "file", jstr(r->file));
	json_object_object_add(o, "active", json_object_new_boolean(r->active));
	json_object_object_add(o, "error", jstr(r->error));
	json_object_object_add(o, "events", ju64(r->events));
	json_object_object_add(o, "dropped", ju64(r->dropped));
	json_object_object_add(o, "bytes", ju64(r->bytes));
	json_object_object_add(o, "errors", ju64(r->errors));
	json_object_object_add(o, "rotations", ju64(r->rotations));
	return o;
}

static json_object *json_attachment(const struct metrics_attachment *a)
{
	json_object *o = json_object_new_object(), *fns = json_object_new_array();
	struct metrics_opt_u64 misses;
	struct metrics_latency lat;
	uint64_t calls;
	size_t i;

	attachment_totals(a, &calls, &misses);
	json_object_object_add(o, "id", ju64(a->id));
	json_object_object_add(o, "target", jstr(a->target));
	json_object_object_add(o, "mode", jstr(a->mode));
	json_object_object_add(o, "requested_mode", jstr(a->requested_mode));
	json_object_object_add(o, "mode_reason", jstr(a->mode_reason));
	json_object_object_add(o, "latency_enabled", json_object_new_boolean(a->latency));
	json_object_object_add(o, "pid", a->pid ? ju64(a->pid) : NULL);
	json_object_object_add(o, "comm", a->comm && a->comm[0] ? jstr(a->comm) : NULL);
	json_object_object_add(o, "since_unix_ns", ju64(a->since_real_ns));
	json_object_object_add(o, "calls", ju64(calls));
	jadd_opt(o, "misses", "misses_reason", &misses);
	json_object_object_add(o, "latency", attachment_latency(a, &lat) ? json_latency(&lat) : NULL);
	json_object_object_add(o, "overhead_ns_per_call", a->overhead_known ?
			       json_object_new_double(a->overhead_ns_per_call) : NULL);
	json_object_object_add(o, "overhead_cpu_seconds_total", a->overhead_known ?
			       json_object_new_double(a->overhead_cpu_seconds_total) : NULL);
	json_object_object_add(o, "record", a->record ? json_record(a->record) : NULL);
	for (i = 0; i < a->nr_functions; i++)
		json_object_array_add(fns, json_function(&a->functions[i]));
	json_object_object_add(o, "functions", fns);
	return o;
}

static json_object *json_daemon(const struct metrics_snapshot *s)
{
	json_object *o = json_object_new_object(), *feat = json_object_new_object(), *f, *k;
	size_t i;

	json_object_object_add(o, "version", jstr(s->version));
	json_object_object_add(o, "pid", json_object_new_int(s->pid));
	json_object_object_add(o, "hostname", jstr(s->hostname));
	json_object_object_add(o, "kernel", jstr(s->kernel));
	json_object_object_add(o, "arch", jstr(s->arch));
	json_object_object_add(o, "start_time_unix_ns", ju64(s->start_real_ns));
	json_object_object_add(o, "uptime_seconds", json_object_new_double(s->uptime_ns / 1e9));
	for (i = 0; i < s->nr_features; i++) {
		f = json_object_new_object();
		json_object_object_add(f, "available", json_object_new_boolean(s->features[i].available));
		json_object_object_add(f, "reason", s->features[i].available ? NULL :
				       jstr(s->features[i].reason ? s->features[i].reason : "unknown"));
		json_object_object_add(feat, s->features[i].mode, f);
	}
	json_object_object_add(o, "features", feat);
	k = json_object_new_object();
	json_object_object_add(k, "present", json_object_new_boolean(s->kmod_present));
	json_object_object_add(k, "reason", s->kmod_present ? NULL : jstr(s->kmod_reason));
	json_object_object_add(o, "kmod", k);
	return o;
}

json_object *metrics_json(const struct metrics_snapshot *s)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array(), *h, *rb, *dl;
	size_t i;

	if (!o || !arr) {
		json_object_put(o);
		json_object_put(arr);
		return NULL;
	}
	json_object_object_add(o, "schema", json_object_new_string("tracerd-metrics"));
	json_object_object_add(o, "schema_version", json_object_new_int(METRICS_SCHEMA_VERSION));
	json_object_object_add(o, "daemon", json_daemon(s));
	for (i = 0; i < s->nr_attachments; i++)
		json_object_array_add(arr, json_attachment(&s->attachments[i]));
	json_object_object_add(o, "attachments", arr);
	rb = json_object_new_object();
	json_object_object_add(rb, "drops", ju64(s->ringbuf_drops));
	json_object_object_add(rb, "yields", ju64(s->ringbuf_yields));
	json_object_object_add(o, "ringbuf", rb);
	rb = json_object_new_object();
	json_object_object_add(rb, "attach_lines", ju64(s->config_attach_lines));
	json_object_object_add(rb, "attach_failures", ju64(s->config_attach_failures));
	dl = json_object_new_object();
	json_object_object_add(dl, "ok", ju64(s->config_reloads_ok));
	json_object_object_add(dl, "refused", ju64(s->config_reloads_refused));
	json_object_object_add(rb, "reloads", dl);
	json_object_object_add(o, "config", rb);
	h = NULL;
	if (s->http) {
		h = json_object_new_object();
		json_object_object_add(h, "requests", ju64(s->http->requests));
		json_object_object_add(h, "bad_requests", ju64(s->http->bad_requests));
		json_object_object_add(h, "not_found", ju64(s->http->not_found));
		json_object_object_add(h, "bad_method", ju64(s->http->bad_method));
		json_object_object_add(h, "accept_paused", ju64(s->http->accept_paused));
		dl = json_object_new_object();
		json_object_object_add(dl, "request", ju64(s->http->request_deadline_closes));
		json_object_object_add(dl, "reply", ju64(s->http->reply_deadline_closes));
		json_object_object_add(h, "deadline_closes", dl);
		json_object_object_add(h, "held_closes", ju64(s->http->held_closes));
		dl = json_object_new_object();
		json_object_object_add(dl, "prometheus", ju64(s->http->renders[0]));
		json_object_object_add(dl, "json", ju64(s->http->renders[1]));
		json_object_object_add(h, "renders", dl);
		json_object_object_add(h, "held_bytes", ju64(s->http->held_bytes));
		json_object_object_add(h, "open_fds", ju64(s->http->open_fds));
	}
	json_object_object_add(o, "http", h);
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

/* Label escaping into a FILE (values are unbounded: function names, targets). */
static void put_label(FILE *f, const char *name, const char *val, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (; val && *val; val++) {
		if (*val == '\\')
			fputs("\\\\", f);
		else if (*val == '"')
			fputs("\\\"", f);
		else if (*val == '\n')
			fputs("\\n", f);
		else
			fputc(*val, f);
	}
	fputc('"', f);
}

static void put_header(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* ns as exact decimal seconds: 1500 -> 0.0000015 */
static void put_seconds(FILE *f, uint64_t ns)
{
	char frac[16];
	int n;

	n = snprintf(frac, sizeof(frac), "%09" PRIu64, ns % 1000000000);
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(f, "%" PRIu64 "%s%s", ns / 1000000000, n ? "." : "", frac);
}

/* id, target, mode: the labels of every per-attachment series */
static void put_att_labels(FILE *f, const struct metrics_attachment *a)
{
	fprintf(f, "{id=\"%u\"", a->id);
	put_label(f, "target", a->target, false);
	put_label(f, "mode", a->mode, false);
}

static void prom_daemon(FILE *f, const struct metrics_snapshot *s)
{
	size_t i;

	put_header(f, "tracerd_build_info", "gauge", "tracerd version and the kernel it runs on (always 1).");
	fputs("tracerd_build_info{", f);
	put_label(f, "version", s->version, true);
	put_label(f, "kernel", s->kernel, false);
	put_label(f, "arch", s->arch, false);
	fputs("} 1\n", f);
	put_header(f, "tracerd_start_time_seconds", "gauge", "Start time of the daemon, Unix seconds.");
	fputs("tracerd_start_time_seconds ", f);
	put_seconds(f, s->start_real_ns);
	fputc('\n', f);
	put_header(f, "tracerd_feature_available", "gauge",
		   "1 when the attach mode can be used on this kernel (reasons in /metrics.json).");
	for (i = 0; i < s->nr_features; i++) {
		fputs("tracerd_feature_available{", f);
		put_label(f, "mode", s->features[i].mode, true);
		fprintf(f, "} %d\n", s->features[i].available);
	}
	put_header(f, "tracerd_kmod_present", "gauge", "1 when tracerd_kmod.ko is loaded and its ABI matches.");
	fprintf(f, "tracerd_kmod_present %d\n", s->kmod_present);
	put_header(f, "tracerd_attachments", "gauge", "Attachments in place.");
	fprintf(f, "tracerd_attachments %zu\n", s->nr_attachments);
	put_header(f, "tracerd_ringbuf_drops_total", "counter",
		   "Events the BPF programs could not queue to the ring buffer.");
	fprintf(f, "tracerd_ringbuf_drops_total %" PRIu64 "\n", s->ringbuf_drops);
	put_header(f, "tracerd_config_attach_lines", "gauge",
		   "attach lines of the running configuration.");
	fprintf(f, "tracerd_config_attach_lines %u\n", s->config_attach_lines);
	put_header(f, "tracerd_config_attach_failures", "gauge",
		   "Config attach lines whose attach failed at the last start-up or reload.");
	fprintf(f, "tracerd_config_attach_failures %u\n", s->config_attach_failures);
	put_header(f, "tracerd_config_reloads_total", "counter",
		   "Configuration reloads since start, by result (ok: taken; refused: a bad "
		   "file or a listen address that cannot be bound, nothing changed).");
	fprintf(f, "tracerd_config_reloads_total{result=\"ok\"} %u\n", s->config_reloads_ok);
	fprintf(f, "tracerd_config_reloads_total{result=\"refused\"} %u\n",
		s->config_reloads_refused);
	put_header(f, "tracerd_ringbuf_drain_yields_total", "counter",
		   "Ring-buffer drains that yielded to the event loop with events left (budget spent).");
	fprintf(f, "tracerd_ringbuf_drain_yields_total %" PRIu64 "\n", s->ringbuf_yields);
}

static void prom_histogram(FILE *f, const char *name, const struct metrics_attachment *a,
			   const struct metrics_latency *l)
{
	uint64_t cum = 0;
	size_t i;

	/* bucket i holds [2^(i-1), 2^i) ns: le = 2^i - 1 ns; the last is +Inf */
	for (i = 0; i < TRACERD_HIST_BUCKETS; i++) {
		cum += l->buckets[i];
		fprintf(f, "%s_bucket", name);
		put_att_labels(f, a);
		fputs(",le=\"", f);
		if (i == TRACERD_HIST_BUCKETS - 1)
			fputs("+Inf", f);
		else
			put_seconds(f, i ? (1ULL << i) - 1 : 0);
		fprintf(f, "\"} %" PRIu64 "\n", cum);
	}
	fprintf(f, "%s_sum", name);
	put_att_labels(f, a);
	fputs("} ", f);
	put_seconds(f, l->sum_ns);
	fprintf(f, "\n%s_count", name);
	put_att_labels(f, a);
	fprintf(f, "} %" PRIu64 "\n", cum);
}

/* One metric family over all attachments. */
enum att_metric {
	AM_START, AM_FUNCTIONS, AM_CALLS, AM_MISSES, AM_LATENCY, AM_OVH_NS, AM_OVH_CPU,
	AM_REC_EVENTS, AM_REC_DROPPED, AM_REC_BYTES, AM_REC_ERRORS, AM_REC_ACTIVE, AM_NR
};

static const struct {
	const char *name, *type, *help;
} att_metrics[AM_NR] = {
	[AM_START] = { "tracerd_attachment_start_time_seconds", "gauge",
		       "When the attachment was made, Unix seconds (a new id is a new series)." },
	[AM_FUNCTIONS] = { "tracerd_attachment_functions", "gauge", "Functions hooked by the attachment." },
	[AM_CALLS] = { "tracerd_calls_total", "counter", "Calls counted, summed over the attachment's functions." },
	[AM_MISSES] = { "tracerd_misses_total", "counter",
			"Calls seen but not accounted; absent where the kernel does not report misses." },
	[AM_LATENCY] = { "tracerd_latency_seconds", "histogram", "Entry to return time of traced calls." },
	[AM_OVH_NS] = { "tracerd_call_overhead_seconds", "gauge",
			"Measured cost of one traced call; absent until measured." },
	[AM_OVH_CPU] = { "tracerd_overhead_cpu_seconds_total", "counter",
			 "CPU time spent in tracing; absent until measured." },
	[AM_REC_EVENTS] = { "tracerd_record_events_total", "counter", "Events written to the record file." },
	[AM_REC_DROPPED] = { "tracerd_record_dropped_total", "counter",
			     "Events not recorded (recording stopped by an error)." },
	[AM_REC_BYTES] = { "tracerd_record_bytes_total", "counter", "Compressed bytes written." },
	[AM_REC_ERRORS] = { "tracerd_record_errors_total", "counter",
			    "Write errors (a full disk stops recording; tracing goes on)." },
	[AM_REC_ACTIVE] = { "tracerd_record_active", "gauge", "1 while recording, 0 once stopped by an error." },
};

static void prom_att_metric(FILE *f, const struct metrics_snapshot *s, enum att_metric m)
{
	const struct metrics_attachment *a;
	const struct metrics_record *r;
	struct metrics_opt_u64 misses;
	struct metrics_latency lat;
	bool header = false;
	uint64_t calls, v;
	size_t i;

	for (i = 0; i < s->nr_attachments; i++) {
		a = &s->attachments[i];
		r = a->record;
		attachment_totals(a, &calls, &misses);
		if ((m == AM_MISSES && !misses.known) ||
		    ((m == AM_OVH_NS || m == AM_OVH_CPU) && !a->overhead_known) ||
		    (m >= AM_REC_EVENTS && !r) ||
		    (m == AM_LATENCY && !attachment_latency(a, &lat)))
			continue;
		if (!header)
			put_header(f, att_metrics[m].name, att_metrics[m].type, att_metrics[m].help);
		header = true;
		if (m == AM_LATENCY) {
			prom_histogram(f, att_metrics[m].name, a, &lat);
			continue;
		}
		fputs(att_metrics[m].name, f);
		put_att_labels(f, a);
		fputs("} ", f);
		switch (m) {
		case AM_START:
			put_seconds(f, a->since_real_ns);
			fputc('\n', f);
			continue;
		case AM_OVH_NS:
			fprintf(f, "%.9g\n", a->overhead_ns_per_call / 1e9);
			continue;
		case AM_OVH_CPU:
			fprintf(f, "%.17g\n", a->overhead_cpu_seconds_total);
			continue;
		case AM_FUNCTIONS: v = a->nr_functions; break;
		case AM_CALLS: v = calls; break;
		case AM_MISSES: v = misses.value; break;
		case AM_REC_EVENTS: v = r->events; break;
		case AM_REC_DROPPED: v = r->dropped; break;
		case AM_REC_BYTES: v = r->bytes; break;
		case AM_REC_ERRORS: v = r->errors; break;
		case AM_REC_ACTIVE: v = r->active; break;
		default: v = 0; break;
		}
		fprintf(f, "%" PRIu64 "\n", v);
	}
}

/* Per-function series, only for attachments of at most function_series_max functions. */
static void prom_functions(FILE *f, const struct metrics_snapshot *s, bool misses)
{
	unsigned int max = s->function_series_max ? s->function_series_max : METRICS_FUNCTION_SERIES_MAX;
	const char *name = misses ? "tracerd_function_misses_total" : "tracerd_function_calls_total";
	const struct metrics_attachment *a;
	const struct metrics_function *fn;
	bool header = false;
	size_t i, j;

	for (i = 0; i < s->nr_attachments; i++) {
		a = &s->attachments[i];
		if (a->nr_functions > max)
			continue;
		for (j = 0; j < a->nr_functions; j++) {
			fn = &a->functions[j];
			if (misses && !fn->misses.known)
				continue;
			if (!header)
				put_header(f, name, "counter", misses ?
					   "Misses per hooked function (attachments of few functions only)." :
					   "Calls per hooked function (attachments of few functions only).");
			header = true;
			fputs(name, f);
			put_att_labels(f, a);
			put_label(f, "function", fn->name, false);
			fprintf(f, "} %" PRIu64 "\n", misses ? fn->misses.value : fn->calls);
		}
	}
}

static void prom_http(FILE *f, const struct metrics_http *h)
{
	put_header(f, "tracerd_http_requests_total", "counter", "HTTP requests answered, by status code.");
	fprintf(f, "tracerd_http_requests_total{code=\"200\"} %" PRIu64 "\n",
		h->requests - h->bad_requests - h->not_found - h->bad_method);
	fprintf(f, "tracerd_http_requests_total{code=\"400\"} %" PRIu64 "\n", h->bad_requests);
	fprintf(f, "tracerd_http_requests_total{code=\"404\"} %" PRIu64 "\n", h->not_found);
	fprintf(f, "tracerd_http_requests_total{code=\"405\"} %" PRIu64 "\n", h->bad_method);
	put_header(f, "tracerd_http_renders_total", "counter",
		   "Bodies rendered for /metrics and /metrics.json (scrapes within the "
		   "snapshot interval share one), by format.");
	fprintf(f, "tracerd_http_renders_total{format=\"prometheus\"} %" PRIu64 "\n", h->renders[0]);
	fprintf(f, "tracerd_http_renders_total{format=\"json\"} %" PRIu64 "\n", h->renders[1]);
	put_header(f, "tracerd_http_held_closes_total", "counter",
		   "HTTP connections closed, oldest first, because their unread replies held the "
		   "cap on rendered bytes.");
	fprintf(f, "tracerd_http_held_closes_total %" PRIu64 "\n", h->held_closes);
	put_header(f, "tracerd_http_held_bytes", "gauge",
		   "Bytes of rendered bodies held for replies not yet written to their clients.");
	fprintf(f, "tracerd_http_held_bytes %" PRIu64 "\n", h->held_bytes);
	put_header(f, "tracerd_http_accept_paused_total", "counter",
		   "Times the HTTP server stopped accepting at its file descriptor limit.");
	fprintf(f, "tracerd_http_accept_paused_total %" PRIu64 "\n", h->accept_paused);
	put_header(f, "tracerd_http_deadline_closes_total", "counter",
		   "HTTP connections closed past their request or reply deadline, by deadline.");
	fprintf(f, "tracerd_http_deadline_closes_total{deadline=\"request\"} %" PRIu64 "\n",
		h->request_deadline_closes);
	fprintf(f, "tracerd_http_deadline_closes_total{deadline=\"reply\"} %" PRIu64 "\n",
		h->reply_deadline_closes);
	put_header(f, "tracerd_open_fds", "gauge", "Open file descriptors of the daemon.");
	fprintf(f, "tracerd_open_fds %u\n", h->open_fds);
}

int metrics_process_read(struct metrics_process *p)
{
	unsigned long long utime, stime, vsize;
	long long rss;
	long tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	char buf[1024], *c;
	struct rlimit rl;
	struct dirent *e;
	size_t n;
	FILE *f;
	DIR *dir;

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
	dir = opendir("/proc/self/fd");
	if (!dir)
		return -errno;
	while ((e = readdir(dir)))
		p->open_fds += e->d_name[0] != '.';
	closedir(dir);
	p->open_fds -= p->open_fds > 0;	/* the directory's own fd */
	return 0;
}

static void prom_process(FILE *f, const struct metrics_snapshot *s)
{
	const struct metrics_process *p = &s->process;

	put_header(f, "process_cpu_seconds_total", "counter", "User and system CPU time spent, seconds.");
	fprintf(f, "process_cpu_seconds_total %.9g\n", p->cpu_seconds);
	put_header(f, "process_resident_memory_bytes", "gauge", "Resident memory size, bytes.");
	fprintf(f, "process_resident_memory_bytes %" PRIu64 "\n", p->resident_bytes);
	put_header(f, "process_virtual_memory_bytes", "gauge", "Virtual memory size, bytes.");
	fprintf(f, "process_virtual_memory_bytes %" PRIu64 "\n", p->virtual_bytes);
	put_header(f, "process_open_fds", "gauge", "Open file descriptors.");
	fprintf(f, "process_open_fds %u\n", p->open_fds);
	put_header(f, "process_max_fds", "gauge", "Limit of open file descriptors (RLIMIT_NOFILE).");
	fprintf(f, "process_max_fds %" PRIu64 "\n", p->max_fds);
	put_header(f, "process_start_time_seconds", "gauge", "Start time of the process, Unix seconds.");
	fputs("process_start_time_seconds ", f);
	put_seconds(f, s->start_real_ns);
	fputc('\n', f);
}

char *metrics_prometheus(const struct metrics_snapshot *s, size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int m;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	prom_daemon(f, s);
	for (m = 0; m < AM_NR; m++)
		prom_att_metric(f, s, (enum att_metric)m);
	prom_functions(f, s, false);
	prom_functions(f, s, true);
	if (s->http)
		prom_http(f, s->http);
	if (s->process_known)
		prom_process(f, s);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	*len = size;
	return buf;
}
