// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench record: recording throughput (issue #16, target 5). T
 * writer threads of tracectl (named "trec-bench") make the traced path
 * run as fast as they can: prctl(PR_SET_NAME) for the task_rename
 * tracepoint (the default target, which the host can load), getpgid(0)
 * for any other target (a function: in a guest). The daemon records every
 * call of theirs (--comm trec-bench) into record_dir/NAME.trec; per
 * repetition the suite waits until the daemon has accounted for every call
 * (recorded + dropped = calls: nothing lost silently) and reports events/s
 * made and recorded, the drop rate, compressed bytes per recorded event and
 * the daemon's CPU time per event (/proc/PID/stat). A hook that counted
 * other than the calls made, or counts that never balance, make the point
 * an error. At the end the attachment is detached (the file is finished)
 * and the file is read back: it must hold exactly the recorded events.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "../lib/record.h"
#include "../lib/util.h"
#include "bench.h"

#define REC_COMM	"trec-bench"
#define REC_TARGET	"tp:task/task_rename"
#define BALANCE_S	30.0	/* the daemon has this long to account for every call */

struct rec_opts {
	unsigned long long events;	/* -n: calls per repetition (all threads) */
	double seconds;			/* -d: instead, calls for this long */
	int threads;
	const char *target;
	const char *name;
	bool rename;			/* the loop: prctl (task_rename) or getpgid */
	bool args;			/* --args: each call recorded with its arguments */
};

struct rec_writer {
	pthread_t th;
	struct rec_run *run;
	unsigned long long quota;	/* -n: this thread's share */
	unsigned long long made;	/* calls made in the last repetition */
};

struct rec_run {
	pthread_barrier_t go, done;
	atomic_bool stop;		/* -d: time is up */
	atomic_bool quit;
	bool rename;
	bool timed;
};

static void *writer_fn(void *arg)
{
	struct rec_writer *w = arg;
	struct rec_run *r = w->run;
	unsigned long long i;

	for (;;) {
		pthread_barrier_wait(&r->go);
		if (atomic_load(&r->quit))
			return NULL;
		i = 0;
		if (r->timed) {
			while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
				if (r->rename)
					prctl(PR_SET_NAME, REC_COMM);
				else
					syscall(SYS_getpgid, 0);
				i++;
			}
		} else if (r->rename) {
			for (; i < w->quota; i++)
				prctl(PR_SET_NAME, REC_COMM);
		} else {
			for (; i < w->quota; i++)
				syscall(SYS_getpgid, 0);
		}
		w->made = i;
		pthread_barrier_wait(&r->done);
	}
}

/* The daemon's CPU time (user + system), ns; -1 when unreadable. */
static long long proc_cpu_ns(long long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%lld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may hold spaces */
	/* after ")": state (3) ... utime (14), stime (15) */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return (long long)((ut + st) * (1e9 / sysconf(_SC_CLK_TCK)));
}

struct rec_counts {
	long long calls, recorded, dropped, bytes;
	char file[512];
};

/* The hook's calls (stats) and the recording's counts (list). */
static int read_counts(struct bench *b, long long id, struct rec_counts *c, char *msg, size_t len)
{
	json_object *args = json_object_new_object(), *r = NULL, *atts, *a, *rec;
	size_t i, n;
	int ret;

	json_object_object_add(args, "id", json_object_new_int64(id));
	ret = bench_cmd(b, "stats", args, &r, msg, len);
	if (ret)
		return ret;
	c->calls = jint(json_object_array_get_idx(jarr(r, "stats"), 0), "calls", -1);
	json_object_put(r);
	ret = bench_cmd(b, "list", NULL, &r, msg, len);
	if (ret)
		return ret;
	atts = jarr(r, "attachments");
	n = jlen(atts);
	ret = -ENOENT;
	for (i = 0; i < n; i++) {
		a = json_object_array_get_idx(atts, i);
		rec = jobj(a, "recording");
		if (jint(a, "id", 0) != id || !rec)
			continue;
		c->recorded = jint(rec, "events", -1);
		c->dropped = jint(rec, "dropped", -1);
		c->bytes = jint(rec, "bytes", -1);
		str_copy(c->file, jstr(rec, "file", ""), sizeof(c->file));
		if (jstr(rec, "error", NULL)) {
			snprintf(msg, len, "the recording stopped: %s", jstr(rec, "error", ""));
			ret = -EIO;
		} else {
			ret = 0;
		}
		break;
	}
	if (ret == -ENOENT)
		snprintf(msg, len, "attachment %lld is gone or does not record", id);
	json_object_put(r);
	if (!ret && (c->calls < 0 || c->recorded < 0 || c->dropped < 0)) {
		snprintf(msg, len, "the daemon's stats or list lack calls, events or dropped");
		ret = -EPROTO;
	}
	return ret;
}

/* Poll until recorded + dropped = calls (the ring drained): 0, or -ETIMEDOUT. */
static int wait_balanced(struct bench *b, long long id, struct rec_counts *c, char *msg,
			 size_t len)
{
	double t0 = now_s();
	int ret;

	for (;;) {
		ret = read_counts(b, id, c, msg, len);
		if (ret)
			return ret;
		if (c->recorded + c->dropped == c->calls)
			return 0;
		if (now_s() - t0 > BALANCE_S) {
			snprintf(msg, len,
				 "recorded %lld + dropped %lld != calls %lld after %.0f s",
				 c->recorded, c->dropped, c->calls, BALANCE_S);
			return -ETIMEDOUT;
		}
		usleep(20000);
	}
}

#define ROT_MAX	64	/* rotated files looked at: NAME.trec.1 .. .64 */

/* The inodes of NAME's files before the run: those are not the run's. */
static void old_files(const char *path, ino_t *ino)
{
	char rot[600];
	struct stat st;
	int k;

	for (k = 0; k <= ROT_MAX; k++) {
		snprintf(rot, sizeof(rot), k ? "%s.%d" : "%s", path, k);
		ino[k] = stat(rot, &st) ? 0 : st.st_ino;
	}
}

static bool is_old(const ino_t *old, ino_t ino)
{
	int k;

	for (k = 0; k <= ROT_MAX; k++)
		if (old[k] && old[k] == ino)
			return true;
	return false;
}

/* Events in the run's files (the current one and what rotation kept); -1: unreadable. */
static long long file_events(const char *path, const ino_t *old, char *msg, size_t len)
{
	struct record_reader *r;
	struct record_item it;
	struct stat st;
	long long n = 0;
	char rot[600];
	const char *why;
	int k, ret;

	for (k = ROT_MAX; k >= 0; k--) {
		snprintf(rot, sizeof(rot), k ? "%s.%d" : "%s", path, k);
		if (stat(rot, &st)) {
			if (!k) {
				str_fmt(msg, len, "cannot read the record file %s: %s", path,
					 strerror(errno));
				return -1;
			}
			continue;
		}
		if (is_old(old, st.st_ino))
			continue;
		ret = record_reader__open(rot, &r, msg, len);
		if (ret)
			return -1;
		while ((ret = record_reader__next(r, &it)) > 0)
			if (it.type == TRACERD_REC_EVENT)
				n++;
		if (ret < 0 || record_reader__end(r, &why) != RECORD_END_CLEAN) {
			str_fmt(msg, len, "%s does not read cleanly: %s", rot,
				 ret < 0 ? strerror(-ret) : why ? why : "not finished");
			record_reader__free(r);
			return -1;
		}
		record_reader__free(r);
	}
	return n;
}

static long long rec_attach(struct bench *b, const struct rec_opts *o, char *msg, size_t len)
{
	json_object *args = json_object_new_object(), *r = NULL;
	long long id;
	int ret;

	json_object_object_add(args, "target", json_object_new_string(o->target));
	json_object_object_add(args, "comm", json_object_new_string(REC_COMM));
	json_object_object_add(args, "record", json_object_new_string(o->name));
	if (o->args)
		json_object_object_add(args, "args", json_object_new_boolean(1));
	ret = bench_cmd(b, "attach", args, &r, msg, len);
	if (ret)
		return ret;
	id = jint(jobj(r, "attachment"), "id", 0);
	json_object_put(r);
	if (id <= 0) {
		snprintf(msg, len, "attach answered without an attachment id");
		return -EPROTO;
	}
	return id;
}

static void rec_detach(struct bench *b, long long id)
{
	json_object *args = json_object_new_object(), *r = NULL;
	char msg[256];

	json_object_object_add(args, "id", json_object_new_int64(id));
	bench_cmd(b, "detach", args, &r, msg, sizeof(msg));
	json_object_put(r);
}

static void rec_point(struct bench *b, const struct rec_opts *o, struct rec_run *run,
		      struct rec_writer *w, long long dpid)
{
	struct series made = {}, rec = {}, drop = {}, bpe = {}, cpu = {};
	struct rec_counts c0, c1, total = {};
	long long id, ncalls = 0, fev, cpu0, cpu1;
	ino_t old[ROT_MAX + 1];
	char key[128], msg[512];
	json_object *p;
	double t0, dt;
	int i, t;

	snprintf(key, sizeof(key), "%s/%d%s", o->target, o->threads, o->args ? "/args" : "");
	p = bench_point(b, key);
	point_label(p, "mode", o->target);
	point_label_int(p, "threads", o->threads);
	point_label(p, "variant", o->args ? "args" : "count");
	id = rec_attach(b, o, msg, sizeof(msg));
	if (id < 0) {
		point_status(b, p, id == -(int)PROTO_E_UNAVAILABLE ? "unavailable" : "error",
			     "attach %s --comm %s --record %s: %s", o->target, REC_COMM, o->name,
			     msg);
		return;
	}
	if (read_counts(b, id, &c0, msg, sizeof(msg)))
		goto fail;
	/* the attach moved the files of an earlier run aside: NAME.trec.1, ... */
	old_files(c0.file, old);
	old[0] = 0;
	total = c0;
	for (i = -b->warmup; i < b->reps; i++) {
		bench_progress(b, "%s: %s", key, i < 0 ? "warm-up" : "measuring");
		cpu0 = proc_cpu_ns(dpid);
		atomic_store(&run->stop, false);
		t0 = now_s();
		pthread_barrier_wait(&run->go);
		if (run->timed) {
			usleep((useconds_t)(o->seconds * 1e6));
			atomic_store(&run->stop, true);
		}
		pthread_barrier_wait(&run->done);
		dt = now_s() - t0;
		for (t = 0; t < o->threads; t++)
			ncalls += (long long)w[t].made;
		if (wait_balanced(b, id, &c1, msg, sizeof(msg)))
			goto fail;
		cpu1 = proc_cpu_ns(dpid);
		if (c1.calls - c0.calls != ncalls) {
			point_count(p, "calls", ncalls, c1.calls - c0.calls);
			point_status(b, p, "error", "the hook counted %lld calls of %lld made",
				     c1.calls - c0.calls, ncalls);
			goto out;
		}
		if (i >= 0) {
			long long n = c1.calls - total.calls, r = c1.recorded - total.recorded;

			series_add(&made, n / dt);
			series_add(&rec, r / dt);
			series_add(&drop, n ? 100.0 * (c1.dropped - total.dropped) / n : 0);
			if (r > 0 && c1.bytes >= 0)
				series_add(&bpe, (double)(c1.bytes - total.bytes) / r);
			if (cpu0 >= 0 && cpu1 >= 0 && n)
				series_add(&cpu, (double)(cpu1 - cpu0) / n);
		}
		total = c1;
	}
	rec_detach(b, id);
	id = 0;
	point_count(p, "calls", ncalls, total.calls - c0.calls);
	point_count(p, "events", total.calls - c0.calls,
		    total.recorded - c0.recorded + total.dropped - c0.dropped);
	/* the file ends at detach; it holds exactly the recorded events */
	fev = file_events(total.file, old, msg, sizeof(msg));
	if (fev < 0) {
		point_status(b, p, "error", "%s", msg);
		return;
	}
	point_count(p, "file", total.recorded - c0.recorded, fev);
	if (fev != total.recorded - c0.recorded) {
		point_status(b, p, "error", "%s and its rotated files hold %lld events of the %lld "
			     "recorded (record_keep too small for the run?)", total.file, fev,
			     total.recorded - c0.recorded);
		return;
	}
	point_value(p, "made_per_s", "events/s", &made);
	point_value(p, "recorded_per_s", "events/s", &rec);
	point_value(p, "dropped_pct", "%", &drop);
	if (bpe.n)
		point_value(p, "bytes_per_event", "B", &bpe);
	if (cpu.n)
		point_value(p, "daemon_cpu_ns_per_event", "ns", &cpu);
	return;
fail:
	point_status(b, p, "error", "%s", msg);
out:
	if (id > 0)
		rec_detach(b, id);
}

static int record_svg(struct bench *b, FILE *f)
{
	return svg_point_bars(b, f, "record: events recorded per second", "recorded_per_s",
			      "events/s recorded (median)");
}

static void record_table(struct bench *b, FILE *f)
{
	size_t i, n = jlen(b->points);
	json_object *o = b->options;

	if (jint(o, "calls", 0))
		fprintf(f, "record: %lld calls per run", jint(o, "calls", 0));
	else
		fprintf(f, "record: calls for %.1f s per run", jnum(o, "seconds", 0));
	fprintf(f, " by %lld writer thread(s), recorded as '%s'; %d runs after %d warm-up, "
		"median [min - max]\n", jint(o, "producers", 0), jtty(o, "record", "?"), b->reps,
		b->warmup);
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *c = jobj(p, "counts");
		static const char *const v[][2] = {
			{"made_per_s", "events/s made"},
			{"recorded_per_s", "events/s recorded"},
			{"dropped_pct", "% dropped"},
			{"bytes_per_event", "bytes/event on disk"},
			{"daemon_cpu_ns_per_event", "daemon CPU ns/event"},
		};
		size_t k;

		fprintf(f, "%s (%lld threads): ", jtty(jobj(p, "labels"), "mode", "?"),
			jint(jobj(p, "labels"), "threads", 0));
		if (strcmp(jstr(p, "status", ""), "ok")) {
			fprintf(f, "%s: %s\n", jtty(p, "status", "?"), jtty(p, "reason", ""));
			continue;
		}
		fprintf(f, "calls %lld = recorded + dropped; file holds %lld events\n",
			jint(jobj(c, "calls"), "counted", 0), jint(jobj(c, "file"), "counted", 0));
		for (k = 0; k < ARRAY_SIZE(v); k++) {
			double m = point_stat(p, v[k][0], "median");

			if (isnan(m))
				continue;
			fprintf(f, "  %-22s %12.2f [%.2f - %.2f]\n", v[k][1], m,
				point_stat(p, v[k][0], "min"), point_stat(p, v[k][0], "max"));
		}
	}
}

static int rec_opt(struct bench *b, int c, const char *arg, void *ctx)
{
	struct rec_opts *o = ctx;
	unsigned long long v;
	char *end;

	switch (c) {
	case 'n':
		if (cli_number(b->cli, "-n (calls)", arg, 1, 1000000000ULL, &v))
			return EXIT_USAGE;
		o->events = v;
		return 0;
	case 'd':
		errno = 0;
		o->seconds = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->seconds >= 0.01 && o->seconds <= 3600))
			return cli_error(b->cli, EXIT_USAGE, "usage", "bench record: -d (seconds) "
					 "'%s' is not a number from 0.01 to 3600", arg);
		return 0;
	case 'p':
		if (cli_number(b->cli, "-p (writer threads)", arg, 1, 64, &v))
			return EXIT_USAGE;
		o->threads = (int)v;
		return 0;
	case 't':
		o->target = arg;
		return 0;
	case 'N':
		o->name = arg;
		return 0;
	case 'A':
		o->args = true;
		return 0;
	default:
		return BENCH_OPT_COMMON;
	}
}

static int bench_record(struct bench *b, int argc, char **argv)
{
	static const struct option opts[] = {
		BENCH_COMMON_OPTS,
		{ "calls", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "producers", required_argument, NULL, 'p' },
		{ "target", required_argument, NULL, 't' },
		{ "name", required_argument, NULL, 'N' },
		{ "args", no_argument, NULL, 'A' },
		{ 0 }
	};
	struct rec_opts o = { .threads = 2, .target = REC_TARGET, .name = "bench-record" };
	struct rec_writer *w;
	struct rec_run run = {};
	json_object *st = NULL;
	long long dpid;
	char msg[512];
	int ret, t;

	ret = bench_getopt(b, argc, argv, "n:d:p:t:", opts, rec_opt, &o);
	if (ret)
		return ret;
	if (o.events && o.seconds > 0)
		return cli_error(b->cli, EXIT_USAGE, "usage", "bench record: -n and -d exclude "
				 "each other");
	if (!o.events && !(o.seconds > 0))
		o.events = b->profile_ci ? 20000 : 2000000;
	if (o.events && o.events < (unsigned long long)o.threads)
		return cli_error(b->cli, EXIT_USAGE, "usage", "bench record: -n %llu is fewer "
				 "than the %d writer threads", o.events, o.threads);
	o.rename = !strcmp(o.target, REC_TARGET);
	ret = bench_begin(b);
	if (ret)
		return ret;
	if (bench_cmd(b, "status", NULL, &st, msg, sizeof(msg))) {
		json_object_put(b->doc);
		json_object_put(b->info);
		return cli_error(b->cli, EXIT_FAILURE_, "bench", "status: %s", msg);
	}
	dpid = jint(st, "pid", -1);
	json_object_put(st);
	if (o.events)
		json_object_object_add(b->options, "calls",
				       json_object_new_int64((long long)o.events));
	else
		json_object_object_add(b->options, "seconds", json_object_new_double(o.seconds));
	json_object_object_add(b->options, "producers", json_object_new_int(o.threads));
	json_object_object_add(b->options, "function", json_object_new_string(o.target));
	json_object_object_add(b->options, "record", json_object_new_string(o.name));
	json_object_object_add(b->options, "args", json_object_new_boolean(o.args));

	w = calloc(o.threads, sizeof(*w));
	if (!w) {
		json_object_put(b->doc);
		json_object_put(b->info);
		return cli_error(b->cli, EXIT_FAILURE_, "internal", "out of memory");
	}
	run.rename = o.rename;
	run.timed = !o.events;
	pthread_barrier_init(&run.go, NULL, o.threads + 1);
	pthread_barrier_init(&run.done, NULL, o.threads + 1);
	for (t = 0; t < o.threads; t++) {
		w[t].run = &run;
		w[t].quota = o.events / o.threads + ((unsigned long long)t < o.events % o.threads);
		pthread_create(&w[t].th, NULL, writer_fn, &w[t]);
		/* named before the attach: that first rename is not a traced call */
		pthread_setname_np(w[t].th, REC_COMM);
	}
	rec_point(b, &o, &run, w, dpid);
	atomic_store(&run.quit, true);
	pthread_barrier_wait(&run.go);
	for (t = 0; t < o.threads; t++)
		pthread_join(w[t].th, NULL);
	pthread_barrier_destroy(&run.go);
	pthread_barrier_destroy(&run.done);
	free(w);
	return bench_end(b, record_table, record_svg);
}

const struct bench_suite bench_suite_record = {
	.name = "record",
	.help = "writer threads make traced calls as fast as they can, recorded\n"
		"            through the daemon: events/s made and recorded, % dropped, bytes\n"
		"            per event on disk, daemon CPU ns per event; recorded + dropped must\n"
		"            equal the calls, and the file hold the recorded events\n"
		"              -n, --calls=N          calls per run, all threads (default "
		"2000000)\n"
		"              -d, --duration=S       instead, calls for S seconds per run\n"
		"              -p, --producers=T      writer threads (1..64, default 2)\n"
		"              -t, --target=T         traced target (default tp:task/task_rename,\n"
		"                                     prctl(PR_SET_NAME); else getpgid(0) calls)\n"
		"                  --name=NAME        the recording (default bench-record)\n"
		"                  --args             each call recorded with its arguments\n"
		"                                     (attach --args: what they cost)\n",
	.run = bench_record,
	.table = record_table,
	.svg = record_svg,
	.in_report = false,
};
