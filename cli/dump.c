// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl dump: print record files (offline, no daemon needed).
 *
 *   tracectl dump [--json] [--target GLOB] [--pid N] FILE...
 *
 * Text: one line per event (time, cpu, pid/tid, comm, target, duration,
 * return value); --json: one JSON object per event per line and nothing
 * else on stdout. Only records of verified blocks are printed (format 2,
 * include/tracerd/record.h). A file without an end of stream that stops
 * at a flush point (still being written) reads without a warning (text:
 * a "#" note); exit 0. A file cut short inside a block, or with corrupt
 * data (zero-filled, bit-flipped): the records before the bad block are
 * printed, then an error saying where (record, event, offsets) and why;
 * exit 1.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "../lib/jsonutil.h"
#include "../lib/record.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "dump.h"

struct dump_opts {
	bool json;
	const char *target;	/* fnmatch pattern, or NULL */
	long long pid;		/* tgid or tid; -1: any */
};

static void dump_usage(FILE *f)
{
	fprintf(f,
		"Usage: tracectl dump [OPTION]... FILE...\n"
		"Print events from tracerd record files (NAME.trec, NAME.trec.N).\n\n"
		"  -j, --json            one JSON object per event per line\n"
		"  -t, --target GLOB     only events whose target matches GLOB\n"
		"  -p, --pid PID         only events of process or thread PID\n"
		"  -h, --help            show this help and exit\n");
}

static void fmt_time(char *buf, size_t len, uint64_t real_ns)
{
	time_t s = (time_t)(real_ns / 1000000000ULL);
	struct tm tm;
	size_t n;

	gmtime_r(&s, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%09" PRIu64 "Z", real_ns % 1000000000);
}

static void print_json_event(const struct record_item *it, uint64_t real_ns)
{
	const struct tracerd_event *ev = it->ev;
	json_object *o = json_object_new_object();
	char comm[TRACERD_EVENT_COMM_LEN + 1];

	memcpy(comm, ev->comm, sizeof(ev->comm));
	comm[sizeof(ev->comm)] = '\0';
	json_object_object_add(o, "ts_ns", json_object_new_uint64(ev->ts_ns));
	json_object_object_add(o, "realtime_ns", json_object_new_uint64(real_ns));
	json_object_object_add(o, "cpu", ev->cpu == TRACERD_CPU_UNKNOWN ? NULL :
			       json_object_new_int64(ev->cpu));
	json_object_object_add(o, "pid", json_object_new_int64(ev->pid));
	json_object_object_add(o, "tid", json_object_new_int64(ev->tid));
	json_object_object_add(o, "comm", json_object_new_string(comm));
	json_object_object_add(o, "slot", json_object_new_int64(ev->slot));
	json_object_object_add(o, "target", it->target ? json_object_new_string(it->target) : NULL);
	json_object_object_add(o, "duration_ns", ev->flags & TRACERD_EV_DURATION ?
			       json_object_new_uint64(ev->duration_ns) : NULL);
	json_object_object_add(o, "ret", ev->flags & TRACERD_EV_RET ?
			       json_object_new_int64(ev->ret) : NULL);
	json_print(stdout, o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(o);
}

static void print_text_event(const struct record_item *it, uint64_t real_ns)
{
	const struct tracerd_event *ev = it->ev;
	char when[64], cpu[16] = "-", dur[32] = "-", ret[32] = "-", comm[sizeof(ev->comm) + 1];

	fmt_time(when, sizeof(when), real_ns);
	memcpy(comm, ev->comm, sizeof(ev->comm));
	comm[sizeof(ev->comm)] = '\0';
	if (ev->cpu != TRACERD_CPU_UNKNOWN)
		snprintf(cpu, sizeof(cpu), "%u", ev->cpu);
	if (ev->flags & TRACERD_EV_DURATION)
		snprintf(dur, sizeof(dur), "%" PRIu64, (uint64_t)ev->duration_ns);
	if (ev->flags & TRACERD_EV_RET)
		snprintf(ret, sizeof(ret), "%" PRId64, (int64_t)ev->ret);
	printf("%s %3s %7u %7u %-16s %-28s %12s %s\n", when, cpu, ev->pid, ev->tid,
	       tty_str(comm), tty_str(it->target ? it->target : "?"), dur, ret);
}

static bool dump_match(const struct dump_opts *o, const struct record_item *it)
{
	if (o->pid >= 0 && it->ev->pid != o->pid && it->ev->tid != o->pid)
		return false;
	if (o->target && (!it->target || fnmatch(o->target, it->target, 0)))
		return false;
	return true;
}

static void dump_error(const struct dump_opts *o, const char *msg)
{
	json_object *e, *err;

	if (!o->json) {
		fprintf(stderr, "tracectl: dump: %s\n", tty_str(msg));
		return;
	}
	e = json_object_new_object();
	err = json_object_new_object();
	json_object_object_add(err, "code", json_object_new_string("dump_failed"));
	json_object_object_add(err, "message", json_object_new_string(msg));
	json_object_object_add(e, "error", err);
	json_print(stdout, e, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(e);
}

/* One file: 0 (clean or open end), 1 (unreadable, cut short or corrupt). */
static int dump_file(const struct dump_opts *o, const char *path)
{
	struct record_reader *r;
	struct record_item it;
	enum record_end end;
	const char *why;
	uint64_t events = 0;
	char msg[1024], why_copy[512];
	int ret;

	if (record_reader__open(path, &r, msg, sizeof(msg))) {
		dump_error(o, msg);
		return 1;
	}
	if (!o->json) {
		printf("# %s: ", tty_str(path));
		json_print(stdout, record_reader__meta(r), JSON_C_TO_STRING_PLAIN |
			   JSON_C_TO_STRING_NOSLASHESCAPE);
	}
	while ((ret = record_reader__next(r, &it)) == 1) {
		if (it.type == TRACERD_REC_LOST && !o->json)
			printf("# lost %" PRIu64 " events\n", it.lost);
		if (it.type != TRACERD_REC_EVENT)
			continue;
		events++;
		if (!dump_match(o, &it))
			continue;
		if (o->json)
			print_json_event(&it, record_reader__realtime(r, it.ev->ts_ns));
		else
			print_text_event(&it, record_reader__realtime(r, it.ev->ts_ns));
	}
	end = record_reader__end(r, &why);
	snprintf(why_copy, sizeof(why_copy), "%s", why ? why : "");
	why = why_copy;	/* why points into r */
	record_reader__free(r);
	if (ret < 0) {
		str_fmt(msg, sizeof(msg), "%s: read error: %s", path, strerror(-ret));
		dump_error(o, msg);
		return 1;
	}
	if (end == RECORD_END_OPEN && !o->json)
		printf("# %s: %s\n", tty_str(path), tty_str(why));
	if (end == RECORD_END_TRUNCATED || end == RECORD_END_CORRUPT) {
		str_fmt(msg, sizeof(msg), "%s: %s: %s; %" PRIu64 " events read",
			 path, end == RECORD_END_CORRUPT ? "corrupt" : "cut short", why, events);
		dump_error(o, msg);
		return 1;
	}
	return 0;
}

int tracectl_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "target", required_argument, NULL, 't' },
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct dump_opts o = { .pid = -1 };
	unsigned long long v;
	char why[96];
	int c, i, ret = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jt:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = true;
			break;
		case 't':
			o.target = optarg;
			break;
		case 'p':
			if (parse_dec(optarg, 0, UINT32_MAX, &v, why, sizeof(why))) {
				fprintf(stderr, "tracectl: dump: invalid pid '%s': %s\n", tty_str(optarg),
					why);
				return 2;
			}
			o.pid = (long long)v;
			break;
		case 'h':
			dump_usage(stdout);
			return 0;
		default:
			dump_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		dump_usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++)
		ret |= dump_file(&o, argv[i]);
	return ret;
}
