// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl dump: print record files (offline, no daemon needed).
 *
 *   tracectl dump [--format FMT | --json] [--follow] [--target GLOB] [--pid N] FILE...
 *
 * Formats: text (default): one line per event (time, cpu, pid/tid, comm,
 * target, duration, return value), notes as "#" lines; json (--json): one
 * JSON object per event per line and nothing else on stdout; chrome: one
 * Chrome trace event JSON object ({"traceEvents": [...]}: "X" events for
 * timed calls, "i" for entry-only ones, "M" events naming processes and
 * threads by comm) for Perfetto's UI and chrome://tracing; csv: a header
 * row, then one row per event (RFC 4180 quoting, CRLF line ends). Strings
 * from the kernel or a user (comm, target) are escaped by lib/strutil.c in
 * text and csv (str_escape: nothing a terminal acts on, nothing lost) and
 * made valid UTF-8 by json_line in json and chrome. A slow call recorded
 * with its stack (attach --slower-than --stacks, format 4) has its frames
 * as kernel addresses, innermost first: text a "#N 0x..." line each below
 * the event, json and chrome's args "stack" (an array of hex strings, json
 * null without one), csv its stack column (joined by ';').
 *
 * A call recorded with its arguments (attach --args, format 5) reads by
 * its slot's PROTO record: text prints it as a call,
 * "vfs_read(file=0xffff..., buf=0x7ffd..., count=4096) = 4096 (12.4 us)"
 * (integers in decimal, enums by name, pointers in hex, strings quoted,
 * escaped and '"' as \x22, a string that filled its buffer followed by
 * "...", one that faulted as its address and "<fault>"), in the target
 * column; json and chrome's args carry "args", an object of name: value
 * (a number, an enumerator's name, "0x..." for a pointer, a string, or
 * {"fault": "0x..."}: json null without arguments) and json
 * "args_truncated", the names of the strings cut (null when none); csv
 * its last column, name=value joined by ';' as text writes them. Without
 * a PROTO (a file cut before it) the values are named arg0, arg1... in hex.
 *
 * Only records of verified blocks are printed (format 2,
 * include/tracerd/record.h). A file without an end of stream that stops
 * at a flush point (still being written) reads without a warning (text:
 * a "#" note); exit 0. A file cut short inside a block, or with corrupt
 * data (zero-filled, bit-flipped): the records before the bad block are
 * printed, then an error saying where (record, event, offsets) and why;
 * exit 1.
 *
 * --follow (like tail -F): the files before the last are printed as
 * usual, then the last is read on as the daemon appends to it (records
 * show at its flush points; a block still being written is waited for)
 * and, when it is rotated (a new file at its path), the new file from its
 * start. SIGINT or SIGTERM ends it: the output is completed (chrome: the
 * closing brackets), exit 0. Corrupt data still ends it with exit 1.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <json-c/json.h>
#include "../lib/jsonutil.h"
#include "../lib/record.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "dump.h"

#define FOLLOW_POLL_MS		200	/* --follow: how often the file is looked at */
#define FOLLOW_OPEN_TRIES	50	/* a new file at the path that does not open: 10 s */
#define JSON_FLAGS		(JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

enum dump_format { DUMP_TEXT, DUMP_JSON, DUMP_CHROME, DUMP_CSV };

static const char *const dump_formats[] = {
	[DUMP_TEXT] = "text", [DUMP_JSON] = "json", [DUMP_CHROME] = "chrome", [DUMP_CSV] = "csv",
};

#define DUMP_FORMAT_LIST	"text, json, chrome, csv"
#define CSV_HEADER		"ts_ns,realtime_ns,cpu,pid,tid,comm,slot,target,duration_ns," \
				"ret,stack,args"

/* chrome: the comm each process (by tgid) or thread (by tid) was last named by */
struct name_ent {
	uint32_t id;
	bool used;
	char comm[TRACERD_EVENT_COMM_LEN + 1];
};

struct name_tab {
	struct name_ent *e;
	size_t cap, used;	/* cap: 0 or a power of two */
};

struct dump_opts {
	enum dump_format fmt;
	bool follow;
	const char *target;	/* fnmatch pattern, or NULL */
	long long pid;		/* tgid or tid; -1: any */
	/* chrome output */
	uint64_t shown;		/* traceEvents written: a comma before the next */
	uint64_t lost;		/* LOST records' counts, in "otherData" */
	bool have_clock;
	int64_t real_minus_mono;	/* of the first file */
	struct name_tab procs, threads;
};

static volatile sig_atomic_t dump_stop;

static void dump_usage(FILE *f)
{
	fprintf(f,
		"Usage: tracectl dump [OPTION]... FILE...\n"
		"Print events from tracerd record files (NAME.trec, NAME.trec.N).\n\n"
		"      --format FMT      output format: text (default), json, chrome (Chrome\n"
		"                        trace event JSON for Perfetto and chrome://tracing),\n"
		"                        csv (a header row, RFC 4180 quoting)\n"
		"  -j, --json            the same as --format json: one JSON object per event\n"
		"                        per line\n"
		"  -f, --follow          after the files before it, keep reading the last FILE\n"
		"                        as it grows and through its rotation, until SIGINT or\n"
		"                        SIGTERM (exit 0)\n"
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

static void event_comm(const struct tracerd_event *ev, char comm[TRACERD_EVENT_COMM_LEN + 1])
{
	memcpy(comm, ev->comm, TRACERD_EVENT_COMM_LEN);
	comm[TRACERD_EVENT_COMM_LEN] = '\0';
}

/* A slow call's stack (--slower-than --stacks): its frames as hex strings, innermost first */
static json_object *stack_json(const struct record_item *it)
{
	json_object *a;
	char buf[24];
	uint32_t i;

	if (!it->ips)
		return NULL;
	a = json_object_new_array();
	for (i = 0; i < it->nr_ips; i++) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, (uint64_t)it->ips[i]);
		json_object_array_add(a, json_object_new_string(buf));
	}
	return a;
}

/* ---------------------------------------------------------- arguments */

/* Argument i of an --args event as its PROTO says (record.h) */
struct arg_view {
	char name[64];
	const char *kind;	/* "int", "uint", "enum", "ptr", "str"; "?" unknown */
	int size;
	bool sign;		/* an enum's */
	json_object *names;	/* an enum's: value -> name */
};

static void arg_view(const struct record_item *it, int i, struct arg_view *v)
{
	json_object *e = it->proto ? json_object_array_get_idx(it->proto, (size_t)i) : NULL, *x;

	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "arg%d", i);
	v->kind = "?";
	v->size = 8;
	if (!e || !json_object_is_type(e, json_type_object))
		return;
	if (json_object_object_get_ex(e, "name", &x) && json_object_is_type(x, json_type_string))
		snprintf(v->name, sizeof(v->name), "%s", json_object_get_string(x));
	if (json_object_object_get_ex(e, "kind", &x) && json_object_is_type(x, json_type_string))
		v->kind = json_object_get_string(x);
	if (json_object_object_get_ex(e, "size", &x) && json_object_get_int(x) >= 1 &&
	    json_object_get_int(x) <= 8)
		v->size = json_object_get_int(x);
	if (json_object_object_get_ex(e, "signed", &x))
		v->sign = json_object_get_boolean(x);
	if (json_object_object_get_ex(e, "enum", &x) && json_object_is_type(x, json_type_object))
		v->names = x;
}

/* v cut to size bytes, sign-extended or not */
static int64_t arg_signed(uint64_t v, int size)
{
	int sh = 64 - 8 * size;

	return sh > 0 && sh < 64 ? (int64_t)(v << sh) >> sh : (int64_t)v;
}

static uint64_t arg_unsigned(uint64_t v, int size)
{
	return size >= 8 ? v : v & ((1ULL << (8 * size)) - 1);
}

/* An enum value's name from the PROTO, or NULL */
static const char *arg_enum_name(const struct arg_view *v, uint64_t raw)
{
	json_object *x;
	char key[24];

	if (!v->names)
		return NULL;
	if (v->sign)
		snprintf(key, sizeof(key), "%" PRId64, arg_signed(raw, v->size));
	else
		snprintf(key, sizeof(key), "%" PRIu64, arg_unsigned(raw, v->size));
	return json_object_object_get_ex(v->names, key, &x) ? json_object_get_string(x) : NULL;
}

/*
 * Argument i as text and csv show it, into buf: nothing a terminal acts
 * on (a string is tty_str's escape with its '"' as \x22; a name from the
 * file is escaped too).
 */
static void arg_text(const struct record_item *it, int i, char *buf, size_t len)
{
	const struct tracerd_event_args *a = it->args;
	uint64_t raw = a->args[i];
	struct arg_view v;
	const char *en, *e;
	size_t off;

	arg_view(it, i, &v);
	off = (size_t)snprintf(buf, len, "%s=", tty_str(v.name));
	if (off >= len)
		return;
	if (a->strmask & (1U << i)) {
		if (a->faultmask & (1U << i)) {
			snprintf(buf + off, len - off, "0x%" PRIx64 " <fault>", raw);
			return;
		}
		buf[off++] = '"';
		for (e = tty_str(a->str[i]); *e && off + 8 < len; e++) {
			if (*e == '"')
				off += (size_t)snprintf(buf + off, len - off, "\\x22");
			else
				buf[off++] = *e;
		}
		snprintf(buf + off, len - off, "\"%s", (a->truncmask & (1U << i)) ? "..." : "");
	} else if (!strcmp(v.kind, "int")) {
		snprintf(buf + off, len - off, "%" PRId64, arg_signed(raw, v.size));
	} else if (!strcmp(v.kind, "uint")) {
		snprintf(buf + off, len - off, "%" PRIu64, arg_unsigned(raw, v.size));
	} else if (!strcmp(v.kind, "enum") && (en = arg_enum_name(&v, raw))) {
		snprintf(buf + off, len - off, "%s", tty_str(en));
	} else if (!strcmp(v.kind, "enum") && v.sign) {
		snprintf(buf + off, len - off, "%" PRId64, arg_signed(raw, v.size));
	} else if (!strcmp(v.kind, "enum")) {
		snprintf(buf + off, len - off, "%" PRIu64, arg_unsigned(raw, v.size));
	} else {
		snprintf(buf + off, len - off, "0x%" PRIx64, raw);
	}
}

/* The arguments as text shows them, joined by sep, into buf */
static void args_text(const struct record_item *it, const char *sep, char *buf, size_t len)
{
	char one[4 * TRACERD_EVENT_STR_LEN + 96];
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < it->args->nr && off < len; i++) {
		arg_text(it, i, one, sizeof(one));
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? sep : "", one);
	}
}

/* Argument i as json and chrome carry it */
static json_object *arg_json(const struct record_item *it, int i, const struct arg_view *v)
{
	const struct tracerd_event_args *a = it->args;
	uint64_t raw = a->args[i];
	const char *en;
	json_object *o;
	char hex[24];

	snprintf(hex, sizeof(hex), "0x%" PRIx64, raw);
	if (a->strmask & (1U << i)) {
		if (!(a->faultmask & (1U << i)))
			return json_object_new_string(a->str[i]);
		o = json_object_new_object();
		json_object_object_add(o, "fault", json_object_new_string(hex));
		return o;
	}
	if (!strcmp(v->kind, "int"))
		return json_object_new_int64(arg_signed(raw, v->size));
	if (!strcmp(v->kind, "uint"))
		return json_object_new_uint64(arg_unsigned(raw, v->size));
	if (!strcmp(v->kind, "enum")) {
		en = arg_enum_name(v, raw);
		if (en)
			return json_object_new_string(en);
		return v->sign ? json_object_new_int64(arg_signed(raw, v->size)) :
				 json_object_new_uint64(arg_unsigned(raw, v->size));
	}
	return json_object_new_string(hex);
}

/* The "args" object, or NULL without arguments */
static json_object *args_json(const struct record_item *it)
{
	struct arg_view v;
	json_object *o;
	int i;

	if (!it->args)
		return NULL;
	o = json_object_new_object();
	for (i = 0; i < it->args->nr; i++) {
		arg_view(it, i, &v);
		json_object_object_add(o, v.name, arg_json(it, i, &v));
	}
	return o;
}

/* The names of the strings that filled their buffer, or NULL */
static json_object *args_truncated_json(const struct record_item *it)
{
	unsigned int cut;
	struct arg_view v;
	json_object *a;
	int i;

	cut = it->args ? it->args->truncmask & it->args->strmask & ~it->args->faultmask : 0;
	if (!cut)
		return NULL;
	a = json_object_new_array();
	for (i = 0; i < it->args->nr; i++) {
		if (!(cut & (1U << i)))
			continue;
		arg_view(it, i, &v);
		json_object_array_add(a, json_object_new_string(v.name));
	}
	return a;
}

static void print_json_event(const struct record_item *it, uint64_t real_ns)
{
	const struct tracerd_event *ev = it->ev;
	json_object *o = json_object_new_object();
	char comm[TRACERD_EVENT_COMM_LEN + 1];

	event_comm(ev, comm);
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
	json_object_object_add(o, "stack", stack_json(it));
	json_object_object_add(o, "args", args_json(it));
	json_object_object_add(o, "args_truncated", args_truncated_json(it));
	json_print(stdout, o, JSON_FLAGS);
	json_object_put(o);
}

/* A call with its arguments: "NAME(ARGS) = RET (DUR us)", in place of target, duration, ret */
static void print_text_call(const struct record_item *it, const char *when, const char *cpu,
			    const char *comm)
{
	const struct tracerd_event *ev = it->ev;
	char args[TRACERD_EVENT_ARGS_MAX * (4 * TRACERD_EVENT_STR_LEN + 96)];
	const char *t = it->target ? it->target : "?", *name = strrchr(t, '/');

	args_text(it, ", ", args, sizeof(args));
	/* a tracepoint's call is named by its event, a function's by itself */
	printf("%s %3s %7u %7u %-16s %s(%s)", when, cpu, ev->pid, ev->tid, tty_str(comm),
	       tty_str(name ? name + 1 : t), args);
	if (ev->flags & TRACERD_EV_RET)
		printf(" = %" PRId64, (int64_t)ev->ret);
	if (ev->flags & TRACERD_EV_DURATION)
		printf(" (%.1f us)", (double)ev->duration_ns / 1000.0);
	putchar('\n');
}

static void print_text_event(const struct record_item *it, uint64_t real_ns)
{
	const struct tracerd_event *ev = it->ev;
	char when[64], cpu[16] = "-", dur[32] = "-", ret[32] = "-";
	char comm[TRACERD_EVENT_COMM_LEN + 1];
	uint32_t i;

	fmt_time(when, sizeof(when), real_ns);
	event_comm(ev, comm);
	if (ev->cpu != TRACERD_CPU_UNKNOWN)
		snprintf(cpu, sizeof(cpu), "%u", ev->cpu);
	if (ev->flags & TRACERD_EV_DURATION)
		snprintf(dur, sizeof(dur), "%" PRIu64, (uint64_t)ev->duration_ns);
	if (ev->flags & TRACERD_EV_RET)
		snprintf(ret, sizeof(ret), "%" PRId64, (int64_t)ev->ret);
	if (it->args) {
		print_text_call(it, when, cpu, comm);
		return;
	}
	printf("%s %3s %7u %7u %-16s %-28s %12s %s\n", when, cpu, ev->pid, ev->tid,
	       tty_str(comm), tty_str(it->target ? it->target : "?"), dur, ret);
	/* a slow call's stack: a frame a line below it, innermost first */
	for (i = 0; it->ips && i < it->nr_ips; i++)
		printf("    #%-3u 0x%" PRIx64 "\n", i, (uint64_t)it->ips[i]);
}

/* ------------------------------------------------------------------ csv */

/*
 * One field: the string escaped as everywhere else in tracectl (\n, \t,
 * \\, \xNN, \uNNNN: lib/strutil.c), then quoted when it holds a comma, a
 * quote, CR or LF (RFC 4180), quotes doubled. NULL: an empty field.
 * A field a spreadsheet would run as a formula (its first byte =, +, -, @)
 * starts with that byte as \xNN instead: a task names itself, so its comm
 * is the user's input, and the escape is undone as exactly as the others.
 */
static bool csv_formula_start(const char *e)
{
	return e[0] && strchr("=+-@", e[0]);
}

static void csv_str(const char *s, bool last)
{
	const char *e, *p;
	bool quote;

	if (s) {
		e = tty_str(s);
		quote = strpbrk(e, ",\"\r\n") != NULL;
		if (quote)
			putchar('"');
		p = e;
		if (csv_formula_start(p))
			printf("\\x%02x", (unsigned char)*p++);
		for (; *p; p++) {
			if (*p == '"')
				putchar('"');
			putchar(*p);
		}
		if (quote)
			putchar('"');
	}
	fputs(last ? "\r\n" : ",", stdout);
}

/* The args column: name=value joined by ';' as text writes them, then quoted as any field */
static void print_csv_args(const struct record_item *it)
{
	char args[TRACERD_EVENT_ARGS_MAX * (4 * TRACERD_EVENT_STR_LEN + 96)];
	bool quote;
	const char *p;

	if (!it->args)
		return;
	args_text(it, ";", args, sizeof(args));
	/* already escaped: quoted as RFC 4180 wants, a formula's first byte as \xNN */
	quote = strpbrk(args, ",\"\r\n") != NULL;
	if (quote)
		putchar('"');
	p = args;
	if (csv_formula_start(p))
		printf("\\x%02x", (unsigned char)*p++);
	for (; *p; p++) {
		if (*p == '"')
			putchar('"');
		putchar(*p);
	}
	if (quote)
		putchar('"');
}

static void print_csv_event(const struct record_item *it, uint64_t real_ns)
{
	const struct tracerd_event *ev = it->ev;
	char comm[TRACERD_EVENT_COMM_LEN + 1];
	uint32_t i;

	event_comm(ev, comm);
	printf("%" PRIu64 ",%" PRIu64 ",", (uint64_t)ev->ts_ns, real_ns);
	if (ev->cpu != TRACERD_CPU_UNKNOWN)	/* else empty, as null is */
		printf("%u", ev->cpu);
	printf(",%u,%u,", ev->pid, ev->tid);
	csv_str(comm, false);
	printf("%u,", ev->slot);
	csv_str(it->target, false);
	if (ev->flags & TRACERD_EV_DURATION)
		printf("%" PRIu64, (uint64_t)ev->duration_ns);
	putchar(',');
	if (ev->flags & TRACERD_EV_RET)
		printf("%" PRId64, (int64_t)ev->ret);
	putchar(',');
	/* a slow call's stack: its frames, innermost first, joined by ';' */
	for (i = 0; it->ips && i < it->nr_ips; i++)
		printf("%s0x%" PRIx64, i ? ";" : "", (uint64_t)it->ips[i]);
	putchar(',');
	print_csv_args(it);
	fputs("\r\n", stdout);
}

/* --------------------------------------------------------------- chrome */

/* 1: id is new or named otherwise now (comm stored), 0: known as comm, -ENOMEM. */
static int name_note(struct name_tab *t, uint32_t id, const char *comm)
{
	struct name_ent *e, *old;
	size_t i, n;

	if ((t->used + 1) * 2 > t->cap) {
		n = t->cap ? t->cap * 2 : 256;
		e = calloc(n, sizeof(*e));
		if (!e)
			return -ENOMEM;
		old = t->e;
		for (i = 0; i < t->cap; i++) {
			size_t j = (old[i].id * 2654435761U) & (n - 1);

			if (!old[i].used)
				continue;
			while (e[j].used)
				j = (j + 1) & (n - 1);
			e[j] = old[i];
		}
		free(old);
		t->e = e;
		t->cap = n;
	}
	for (i = (id * 2654435761U) & (t->cap - 1); t->e[i].used; i = (i + 1) & (t->cap - 1)) {
		if (t->e[i].id != id)
			continue;
		if (!strcmp(t->e[i].comm, comm))
			return 0;
		snprintf(t->e[i].comm, sizeof(t->e[i].comm), "%s", comm);
		return 1;
	}
	t->e[i].used = true;
	t->e[i].id = id;
	snprintf(t->e[i].comm, sizeof(t->e[i].comm), "%s", comm);
	t->used++;
	return 1;
}

static void name_tab_free(struct name_tab *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

/* One member of "traceEvents" (o consumed). */
static int chrome_emit(struct dump_opts *d, json_object *o)
{
	char *s = o ? json_line(o, JSON_FLAGS, NULL) : NULL;

	json_object_put(o);
	if (!s)
		return -ENOMEM;
	printf("%s\n%s", d->shown++ ? "," : "", s);
	free(s);
	return 0;
}

/* Nanoseconds as microseconds, exactly: "123.456". */
static json_object *chrome_us(uint64_t ns)
{
	char s[32];

	snprintf(s, sizeof(s), "%" PRIu64 ".%03u", ns / 1000, (unsigned int)(ns % 1000));
	return json_object_new_double_s((double)ns / 1000.0, s);
}

/* A "process_name" or "thread_name" metadata event. */
static int chrome_name(struct dump_opts *d, const char *what, uint32_t pid, uint32_t tid,
		       const char *comm)
{
	json_object *o = json_object_new_object(), *args = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(what));
	json_object_object_add(o, "ph", json_object_new_string("M"));
	json_object_object_add(o, "pid", json_object_new_int64(pid));
	if (!strcmp(what, "thread_name"))
		json_object_object_add(o, "tid", json_object_new_int64(tid));
	json_object_object_add(args, "name", json_object_new_string(comm));
	json_object_object_add(o, "args", args);
	return chrome_emit(d, o);
}

static int print_chrome_event(struct dump_opts *d, const struct record_item *it)
{
	const struct tracerd_event *ev = it->ev;
	json_object *o, *args;
	char comm[TRACERD_EVENT_COMM_LEN + 1], name[32];
	int n, err;

	event_comm(ev, comm);
	/* a thread's comm names its process when it is the main thread */
	if (ev->pid == ev->tid) {
		n = name_note(&d->procs, ev->pid, comm);
		if (n < 0)
			return n;
		if (n && (err = chrome_name(d, "process_name", ev->pid, ev->tid, comm)))
			return err;
	}
	n = name_note(&d->threads, ev->tid, comm);
	if (n < 0)
		return n;
	if (n && (err = chrome_name(d, "thread_name", ev->pid, ev->tid, comm)))
		return err;

	o = json_object_new_object();
	args = json_object_new_object();
	snprintf(name, sizeof(name), "slot %u", ev->slot);
	json_object_object_add(o, "name", json_object_new_string(it->target ? it->target : name));
	json_object_object_add(o, "cat", json_object_new_string("tracerd"));
	json_object_object_add(o, "ph", json_object_new_string(ev->flags & TRACERD_EV_DURATION ?
									"X" : "i"));
	json_object_object_add(o, "ts", chrome_us(ev->ts_ns));
	if (ev->flags & TRACERD_EV_DURATION)
		json_object_object_add(o, "dur", chrome_us(ev->duration_ns));
	else
		json_object_object_add(o, "s", json_object_new_string("t"));
	json_object_object_add(o, "pid", json_object_new_int64(ev->pid));
	json_object_object_add(o, "tid", json_object_new_int64(ev->tid));
	json_object_object_add(args, "comm", json_object_new_string(comm));
	if (ev->cpu != TRACERD_CPU_UNKNOWN)
		json_object_object_add(args, "cpu", json_object_new_int64(ev->cpu));
	json_object_object_add(args, "slot", json_object_new_int64(ev->slot));
	if (ev->flags & TRACERD_EV_RET)
		json_object_object_add(args, "ret", json_object_new_int64(ev->ret));
	if (it->ips)
		json_object_object_add(args, "stack", stack_json(it));
	if (it->args)
		json_object_object_add(args, "args", args_json(it));
	json_object_object_add(o, "args", args);
	return chrome_emit(d, o);
}

/* ------------------------------------------------------- the formats */

static void dump_begin(struct dump_opts *d)
{
	if (d->fmt == DUMP_CHROME)
		fputs("{\"traceEvents\":[", stdout);
	else if (d->fmt == DUMP_CSV)
		fputs(CSV_HEADER "\r\n", stdout);
}

static void dump_finish(struct dump_opts *d)
{
	json_object *o;
	char *s;

	if (d->fmt != DUMP_CHROME)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "source", json_object_new_string("tracectl dump"));
	json_object_object_add(o, "clock", json_object_new_string("monotonic"));
	if (d->have_clock)
		json_object_object_add(o, "realtime_minus_monotonic_ns",
				       json_object_new_int64(d->real_minus_mono));
	json_object_object_add(o, "lost_events", json_object_new_uint64(d->lost));
	s = json_line(o, JSON_FLAGS, NULL);
	printf("\n],\"displayTimeUnit\":\"ns\",\"otherData\":%s}\n", s ? s : "{}");
	free(s);
	json_object_put(o);
	name_tab_free(&d->procs);
	name_tab_free(&d->threads);
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

	if (o->fmt != DUMP_JSON) {
		fflush(stdout);
		fprintf(stderr, "tracectl: dump: %s\n", tty_str(msg));
		return;
	}
	e = json_object_new_object();
	err = json_object_new_object();
	json_object_object_add(err, "code", json_object_new_string("dump_failed"));
	json_object_object_add(err, "message", json_object_new_string(msg));
	json_object_object_add(e, "error", err);
	json_print(stdout, e, JSON_FLAGS);
	json_object_put(e);
}

/* A file opened: text prints its "# PATH: meta" line; chrome keeps its clock pair. */
static void dump_opened(struct dump_opts *o, const char *path, struct record_reader *r)
{
	if (o->fmt == DUMP_TEXT) {
		printf("# %s: ", tty_str(path));
		json_print(stdout, record_reader__meta(r), JSON_FLAGS);
	}
	if (o->fmt == DUMP_CHROME && !o->have_clock) {
		o->have_clock = true;
		o->real_minus_mono = (int64_t)record_reader__realtime(r, 0);
	}
}

/* Print what the reader has now; *events counts the events read. 0 or -errno. */
static int dump_drain(struct dump_opts *o, struct record_reader *r, uint64_t *events)
{
	struct record_item it;
	uint64_t real_ns;
	int ret = 0, err;

	while (!dump_stop && (ret = record_reader__next(r, &it)) == 1) {
		if (it.type == TRACERD_REC_LOST) {
			if (o->fmt == DUMP_TEXT)
				printf("# lost %" PRIu64 " events\n", it.lost);
			o->lost += it.lost;
		}
		if (it.type != TRACERD_REC_EVENT)
			continue;
		(*events)++;
		if (!dump_match(o, &it))
			continue;
		real_ns = record_reader__realtime(r, it.ev->ts_ns);
		switch (o->fmt) {
		case DUMP_JSON:
			print_json_event(&it, real_ns);
			break;
		case DUMP_CHROME:
			err = print_chrome_event(o, &it);
			if (err)
				return err;
			break;
		case DUMP_CSV:
			print_csv_event(&it, real_ns);
			break;
		default:
			print_text_event(&it, real_ns);
		}
	}
	return dump_stop ? 0 : ret;
}

/*
 * After a drain: 0 when the read may end here (clean or open end; with
 * follow also a block cut short: still being written), 1 after an error
 * message (read error, cut short, corrupt).
 */
static int dump_ended(struct dump_opts *o, const char *path, struct record_reader *r, int ret,
		      uint64_t events, bool follow)
{
	enum record_end end;
	const char *why;
	char msg[1024];

	if (ret < 0) {
		str_fmt(msg, sizeof(msg), "%s: read error: %s", path, strerror(-ret));
		dump_error(o, msg);
		return 1;
	}
	end = record_reader__end(r, &why);
	if (end == RECORD_END_OPEN && o->fmt == DUMP_TEXT && !follow)
		printf("# %s: %s\n", tty_str(path), tty_str(why));
	if (end == RECORD_END_CORRUPT || (end == RECORD_END_TRUNCATED && !follow)) {
		str_fmt(msg, sizeof(msg), "%s: %s: %s; %" PRIu64 " events read",
			path, end == RECORD_END_CORRUPT ? "corrupt" : "cut short", why ? why : "",
			events);
		dump_error(o, msg);
		return 1;
	}
	return 0;
}

/* One file: 0 (clean or open end), 1 (unreadable, cut short or corrupt). */
static int dump_file(struct dump_opts *o, const char *path)
{
	struct record_reader *r;
	uint64_t events = 0;
	char msg[1024];
	int ret;

	if (record_reader__open(path, &r, msg, sizeof(msg))) {
		dump_error(o, msg);
		return 1;
	}
	dump_opened(o, path, r);
	ret = dump_drain(o, r, &events);
	ret = dump_ended(o, path, r, ret, events, false);
	record_reader__free(r);
	return ret;
}

/* --------------------------------------------------------------- follow */

static void dump_on_signal(int sig)
{
	(void)sig;
	dump_stop = 1;
}

/* Sleep one poll interval; true when a signal asked to stop. */
static bool follow_sleep(void)
{
	struct timespec ts = { 0, FOLLOW_POLL_MS * 1000000L };

	if (!dump_stop)
		nanosleep(&ts, NULL);
	return dump_stop;
}

/* Open the file at path, *st its identity (the same before and after the open). */
static int follow_open(struct dump_opts *o, const char *path, struct record_reader **r,
		       struct stat *st, char *msg, size_t msglen)
{
	struct stat after;
	int err, i;

	for (i = 0;; i++) {
		if (stat(path, st))
			return set_err(msg, msglen, -errno, "%s: %s", path, strerror(errno));
		err = record_reader__open(path, r, msg, msglen);
		if (err)
			return err;
		if (!stat(path, &after) && after.st_dev == st->st_dev && after.st_ino == st->st_ino)
			break;
		record_reader__free(*r);	/* replaced meanwhile: open the newer one */
		*r = NULL;
		if (i == 3)
			return set_err(msg, msglen, -EAGAIN, "%s: replaced while opening", path);
	}
	dump_opened(o, path, *r);
	return 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* K when the file f is now PATH.K (rotated), 0 when it is none of them. */
static unsigned int rotated_index(const char *path, const struct stat *f)
{
	char p[PATH_MAX];
	struct stat st;
	unsigned int k;

	for (k = 1; k <= 100000; k++) {
		if (str_fmt(p, sizeof(p), "%s.%u", path, k) || stat(p, &st))
			return 0;
		if (same_file(&st, f))
			return k;
	}
	return 0;
}

/*
 * The file read so far (old) is finished or replaced: open the one written
 * after it. Rotation renamed old to PATH.K; PATH.K-1 ... PATH.1 came after
 * it (several rotations between two looks), then PATH. The index is looked
 * up again after the open: a rotation meanwhile shifted the names, so try
 * again. 0, or -errno with msg set.
 */
static int follow_next(struct dump_opts *o, const char *path, const struct stat *old,
		       struct record_reader **r, struct stat *cur, char *msg, size_t msglen)
{
	char p[PATH_MAX];
	unsigned int k, i;
	int err = -EAGAIN;

	for (i = 0; i < 4; i++) {
		k = rotated_index(path, old);
		if (k > 1)
			str_fmt(p, sizeof(p), "%s.%u", path, k - 1);
		else
			str_fmt(p, sizeof(p), "%s", path);
		err = record_reader__open(p, r, msg, msglen);
		if (err)
			return err;
		if (!stat(p, cur) && rotated_index(path, old) == k) {
			dump_opened(o, p, *r);
			return 0;
		}
		record_reader__free(*r);
		*r = NULL;
	}
	return set_err(msg, msglen, err, "%s: rotated again and again while opening", path);
}

/*
 * The last FILE with --follow: read what is there, then poll: the file
 * grew (read on), or it is no longer the file at its path (rotated: read
 * the rest of it, then the files written after it, the one at the path
 * last, each from its start). 0 when stopped by a signal, 1 after an
 * error message.
 */
static int follow_file(struct dump_opts *o, const char *path)
{
	struct record_reader *r;
	struct stat cur, st, old;
	uint64_t events = 0;
	char msg[1024];
	bool clean, replaced;
	off_t size;
	int ret, tries;

	if (follow_open(o, path, &r, &cur, msg, sizeof(msg))) {
		dump_error(o, msg);
		return 1;
	}
	size = cur.st_size;
	for (;;) {
		ret = dump_drain(o, r, &events);
		if (dump_ended(o, path, r, ret, events, true)) {
			record_reader__free(r);
			return 1;
		}
		clean = record_reader__end(r, NULL) == RECORD_END_CLEAN;
		fflush(stdout);
		replaced = false;
		for (;;) {
			if (!stat(path, &st)) {
				if (!same_file(&st, &cur)) {
					replaced = true;
					break;
				}
				if (!clean && st.st_size != size) {
					size = st.st_size;
					break;
				}
			}	/* else: between the rename and the new file, or gone */
			if (follow_sleep())
				break;
		}
		if (dump_stop)
			break;
		if (!replaced) {
			record_reader__resume(r);
			continue;
		}
		/* what the old file got before it was rotated */
		if (!clean && !record_reader__resume(r)) {
			ret = dump_drain(o, r, &events);
			if (dump_ended(o, path, r, ret, events, true)) {
				record_reader__free(r);
				return 1;
			}
		}
		record_reader__free(r);
		r = NULL;
		old = cur;	/* text: the next file's "# NAME: meta" line says which */
		/* a new file's header is written in one piece: retry a while, quietly */
		for (tries = 0; tries < FOLLOW_OPEN_TRIES; tries++) {
			if (!follow_next(o, path, &old, &r, &cur, msg, sizeof(msg)))
				break;
			if (follow_sleep())
				return 0;
		}
		if (!r) {
			dump_error(o, msg);
			return 1;
		}
		size = cur.st_size;
		events = 0;
	}
	record_reader__free(r);
	return 0;
}

static int parse_format(const char *s, enum dump_format *out)
{
	size_t i;

	for (i = 0; i < sizeof(dump_formats) / sizeof(dump_formats[0]); i++)
		if (!strcmp(s, dump_formats[i])) {
			*out = (enum dump_format)i;
			return 0;
		}
	return -1;
}

int tracectl_dump(int argc, char **argv)
{
	enum { OPT_FORMAT = 0x100 };
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "follow", no_argument, NULL, 'f' },
		{ "target", required_argument, NULL, 't' },
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct dump_opts o = { .pid = -1 };
	struct sigaction sa = { .sa_handler = dump_on_signal, .sa_flags = SA_RESTART };
	enum dump_format fmt = DUMP_TEXT;
	bool json = false, have_fmt = false;
	unsigned long long v;
	char why[96];
	int c, i, ret = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jft:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case OPT_FORMAT:
			if (parse_format(optarg, &fmt)) {
				fprintf(stderr,
					"tracectl: dump: unknown format '%s' (formats: %s)\n",
					tty_str(optarg), DUMP_FORMAT_LIST);
				return 2;
			}
			have_fmt = true;
			break;
		case 'f':
			o.follow = true;
			break;
		case 't':
			o.target = optarg;
			break;
		case 'p':
			if (parse_dec(optarg, 0, UINT32_MAX, &v, why, sizeof(why))) {
				fprintf(stderr, "tracectl: dump: invalid pid '%s': %s\n",
					tty_str(optarg), why);
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
	if (json && have_fmt && fmt != DUMP_JSON) {
		fprintf(stderr, "tracectl: dump: --json and --format %s conflict\n",
			dump_formats[fmt]);
		return 2;
	}
	o.fmt = json ? DUMP_JSON : fmt;
	if (optind >= argc) {
		dump_usage(stderr);
		return 2;
	}
	if (o.follow) {
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	dump_begin(&o);
	for (i = optind; i < argc && !dump_stop; i++) {
		if (o.follow && i == argc - 1)
			ret |= follow_file(&o, argv[i]);
		else
			ret |= dump_file(&o, argv[i]);
	}
	dump_finish(&o);
	fflush(stdout);
	return ret;
}
