/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Metrics rendering: pure functions from a snapshot of the daemon's state
 * to /metrics.json (schema: docs/metrics.md, docs/metrics.schema.json) and
 * to the Prometheus text exposition format (/metrics). The daemon fills a
 * struct metrics_snapshot (daemon/metrics.c); nothing here reads the
 * kernel, so tests drive these with made-up snapshots.
 */
#ifndef TRACERD_LIB_METRICS_H
#define TRACERD_LIB_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include <tracerd/trace.h>

#define METRICS_SCHEMA_VERSION		1
/*
 * Per attachment, the functions with the most calls that get their own
 * series in /metrics and their own entry in /metrics.json (a page of
 * them there), the rest summed as one (function="__other__",
 * functions_other): config metrics_function_top, 1 to
 * METRICS_FUNCTION_TOP_LIMIT.
 */
#define METRICS_FUNCTION_TOP_DEFAULT	100
#define METRICS_FUNCTION_TOP_LIMIT	100000
#define METRICS_OTHER_FUNCTION		"__other__"

struct metrics_latency {
	uint64_t sum_ns, min_ns, max_ns;
	uint64_t buckets[TRACERD_HIST_BUCKETS];	/* log2, see tracerd_hist_bucket */
};

/* A value that is an integer or unknown (null, with a reason). */
struct metrics_opt_u64 {
	bool known;
	uint64_t value;
	const char *reason;		/* when !known */
};

/* a function counted outside the BPF slots (kmod): its "slot" is null */
#define METRICS_NO_SLOT	UINT32_MAX

struct metrics_function {
	const char *name;
	uint32_t slot;			/* METRICS_NO_SLOT: none */
	uint64_t calls;
	struct metrics_opt_u64 misses;
	const struct metrics_latency *latency;	/* NULL: not timed */
	uint64_t slow;			/* --slower-than: calls slower than it */
};

struct metrics_record {
	const char *name;
	const char *file;		/* current file path */
	bool active;			/* false: stopped by an error */
	const char *error;		/* why it stopped, or NULL */
	uint64_t events, dropped, bytes, errors, rotations, truncations;
};

/* The kernel's run-time statistics of the attachment's BPF programs (BPF_ENABLE_STATS). */
struct metrics_bpf_run {
	uint64_t count, time_ns;
	unsigned int programs;
};

/* Calls that returned < 0 (attach --errors), by errno: the non-zero ones. */
struct metrics_errno {
	int err;			/* 1.. ; 0: any other (past the table) */
	uint64_t count;
};

struct metrics_errors {
	uint64_t total;
	const struct metrics_errno *by_errno;	/* ascending errno, other (0) last */
	size_t nr;
};

/* attach --by: calls per key, the top ones (by_top) and the rest as other. */
struct metrics_by_key {
	const char *key;		/* the pid, comm or cgroup (path, else id) as text */
	uint64_t calls, timed, lat_sum_ns;	/* timed, lat_sum_ns: latency attachments */
};

struct metrics_by {
	const char *by;			/* "pid", "comm" or "cgroup": the label's name */
	const struct metrics_by_key *top;	/* calls descending */
	size_t nr;
	uint64_t keys;			/* the attachment's keys the kernel keeps */
	uint64_t calls;			/* all of them: top and other */
	struct metrics_by_key other;	/* key unused: the keys past the top, and unkept */
	uint64_t other_keys;		/* kept keys folded into other */
	uint64_t unkept_calls;		/* calls of keys the kernel had no room for */
};

struct metrics_attachment {
	unsigned int id;
	const char *target, *mode, *requested_mode, *mode_reason;
	bool latency;
	uint32_t pid;			/* 0: any */
	const char *comm;		/* "" or NULL: any */
	uint64_t since_real_ns;
	const struct metrics_function *functions;
	size_t nr_functions;
	const struct metrics_record *record;	/* NULL: not recording */
	/* What tracing costs right now; unknown until measured (bench). */
	bool overhead_known;
	double overhead_ns_per_call, overhead_cpu_seconds_total;
	const struct metrics_bpf_run *bpf_run;	/* NULL: unknown, bpf_run_reason says why */
	const char *bpf_run_reason;
	const struct metrics_errors *errors;	/* NULL: not counting errors */
	const struct metrics_by *by;		/* NULL: not made with --by */
	/* attach --stacks: calls whose stack was not kept (a full table) */
	const uint64_t *stacks_dropped;		/* NULL: not made with --stacks, or unread */
	/* attach --slower-than: its threshold (0: not made with it); the slow
	 * calls are its functions' slow, summed */
	uint64_t slower_ns;
};

struct metrics_feature {
	const char *mode;
	bool available;
	const char *reason;
};

struct metrics_http {
	uint64_t requests, bad_requests, not_found, bad_method;
	uint64_t accept_paused;		/* times accepting paused (fd limit) */
	/* connections closed past HTTP_REQUEST_DEADLINE_S / HTTP_REPLY_DEADLINE_S */
	uint64_t request_deadline_closes, reply_deadline_closes;
	uint64_t held_closes;		/* closed: their unread replies held the cap */
	uint64_t renders[2];		/* bodies rendered: [0] /metrics, [1] /metrics.json */
	uint64_t held_bytes;		/* rendered bytes held for unfinished replies */
	unsigned int open_fds;		/* the daemon's open file descriptors */
};

/* The daemon process, as Prometheus' client libraries export it (process_*). */
struct metrics_process {
	double cpu_seconds;		/* user + system */
	uint64_t resident_bytes, virtual_bytes;
	unsigned int open_fds;
	uint64_t max_fds;		/* RLIMIT_NOFILE soft limit */
};

struct metrics_snapshot {
	const char *version, *kernel, *arch, *hostname;
	int pid;
	uint64_t start_real_ns;
	uint64_t uptime_ns;
	const struct metrics_feature *features;
	size_t nr_features;
	bool kmod_present;
	const char *kmod_reason;	/* when absent */
	const struct metrics_attachment *attachments;
	size_t nr_attachments;
	uint64_t ringbuf_drops;		/* events the BPF side could not queue */
	/* the config's `attach =` lines, and those whose attach failed at the
	 * last start-up or reload */
	unsigned int config_attach_lines, config_attach_failures;
	unsigned int config_reloads_ok, config_reloads_refused;	/* since start */
	uint64_t ringbuf_yields;	/* drains cut short by the per-callback budget */
	const struct metrics_http *http;	/* NULL: not served over HTTP */
	unsigned int function_top;	/* 0: METRICS_FUNCTION_TOP_DEFAULT */
	/* /metrics.json?offset=K&limit=L: each attachment's functions K..K+L-1 by
	 * calls; json_limit 0: function_top of them from json_offset */
	size_t json_offset, json_limit;
	bool process_known;		/* process filled (metrics_process_read) */
	struct metrics_process process;
};

/*
 * The functions of a, ranked by calls (most first, equal calls in their
 * order in a): the indices of ranks offset..offset+limit-1 in p->idx (n
 * of them), and the sum of all the others (other_n functions). 0 or
 * -ENOMEM; free with metrics_fn_page_free.
 */
struct metrics_fn_page {
	size_t *idx;
	size_t n;
	size_t other_n;
	uint64_t other_calls;
	struct metrics_opt_u64 other_misses;	/* unknown when any of the others' is */
};
int metrics_fn_page(const struct metrics_attachment *a, size_t offset, size_t limit,
		    struct metrics_fn_page *p);
void metrics_fn_page_free(struct metrics_fn_page *p);

/*
 * /metrics.json text, one line (no newline), valid UTF-8: what json_line()
 * writes for the document with JSON_C_TO_STRING_PLAIN |
 * JSON_C_TO_STRING_NOSLASHESCAPE; malloc'd, *len set; NULL on ENOMEM.
 */
char *metrics_json_text(const struct metrics_snapshot *s, size_t *len);
/* The same document parsed (new object; caller puts), or NULL on ENOMEM. */
json_object *metrics_json(const struct metrics_snapshot *s);
/* Prometheus text exposition 0.0.4; malloc'd, *len set; NULL on ENOMEM. */
char *metrics_prometheus(const struct metrics_snapshot *s, size_t *len);
/* The calling process's CPU time, memory and fds (/proc/self); 0 or -errno. */
int metrics_process_read(struct metrics_process *p);
/* "ENOENT" for 2, "other" for 0, the number when the C library has no name. */
const char *metrics_errno_name(int err, char *buf, size_t size);
/* Escape a Prometheus label value into buf (\\, \", \n); -E2BIG if it does not fit. */
int metrics_escape_label(const char *in, char *buf, size_t size);

#endif
