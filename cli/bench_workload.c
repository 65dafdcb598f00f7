// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench workload: a real workload's throughput with one function
 * (vfs_write by default) traced per mode — seed 004 §1 (docs/origins.md). Two loads run in a
 * worker process (so only its writes are counted, not tracectl's own
 * socket writes): dd-style 512-byte writes to /dev/null (MB/s), and a
 * hackbench-style load (threads, groups of senders writing 100-byte
 * messages to every receiver's pipe; seconds). The worker waits on
 * process-shared semaphores (futexes, no write()), so the hook must count
 * exactly the writes of the load, or the point is an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "../lib/util.h"
#include "bench.h"

enum job { JOB_DD, JOB_HACKBENCH, JOB_EXIT };

struct worker {
	sem_t go, done;
	enum job job;
	long long writes;	/* dd: N */
	int groups, senders, loops;
	double secs;
	int err;
};

struct wl_opts {
	unsigned long long writes;
	int groups, senders, loops;
	const char *function;
	const char *modes[16];
	int nmodes;
};

struct hb_thread {
	pthread_t th;
	int fd;			/* receiver: read end; sender: unused */
	int *wfds;		/* sender: the group's receivers' write ends */
	int n, loops;
};

static void *hb_sender(void *arg)
{
	struct hb_thread *t = arg;
	char msg[100] = { 0 };
	int l, r;

	for (l = 0; l < t->loops; l++)
		for (r = 0; r < t->n; r++)
			if (write(t->wfds[r], msg, sizeof(msg)) != sizeof(msg))
				return (void *)1;
	return NULL;
}

static void *hb_receiver(void *arg)
{
	struct hb_thread *t = arg;
	long long left = (long long)t->n * t->loops * 100;
	char buf[4096];
	ssize_t r;

	while (left > 0) {
		r = read(t->fd, buf, sizeof(buf) < (size_t)left ? sizeof(buf) : (size_t)left);
		if (r <= 0)
			return (void *)1;
		left -= r;
	}
	return NULL;
}

/* One hackbench-style run (threads): seconds, or a negative value on error. */
static double hackbench(int groups, int senders, int loops)
{
	int n = groups * senders, i, g, fds[2], *wfds = calloc(n, sizeof(int));
	struct hb_thread *rx = calloc(n, sizeof(*rx)), *tx = calloc(n, sizeof(*tx));
	double t0, dt = -1;

	if (!wfds || !rx || !tx)
		goto out;
	for (i = 0; i < n; i++) {
		if (pipe(fds))
			goto out;
		rx[i].fd = fds[0];
		wfds[i] = fds[1];
	}
	t0 = now_s();
	for (i = 0; i < n; i++) {
		g = i / senders;
		rx[i].n = senders;
		rx[i].loops = loops;
		pthread_create(&rx[i].th, NULL, hb_receiver, &rx[i]);
		tx[i].wfds = wfds + g * senders;
		tx[i].n = senders;
		tx[i].loops = loops;
		pthread_create(&tx[i].th, NULL, hb_sender, &tx[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(tx[i].th, NULL);
		pthread_join(rx[i].th, NULL);
	}
	dt = now_s() - t0;
	for (i = 0; i < n; i++) {
		close(rx[i].fd);
		close(wfds[i]);
	}
out:
	free(wfds);
	free(rx);
	free(tx);
	return dt;
}

static void worker_main(struct worker *w)
{
	char buf[512] = { 0 };
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	long long i;
	double t0;

	for (;;) {
		sem_wait(&w->go);
		if (w->job == JOB_EXIT)
			_exit(0);
		w->err = 0;
		if (w->job == JOB_DD) {
			t0 = now_s();
			for (i = 0; i < w->writes; i++)
				if (write(fd, buf, sizeof(buf)) != sizeof(buf))
					w->err = 1;
			w->secs = now_s() - t0;
		} else {
			w->secs = hackbench(w->groups, w->senders, w->loops);
			w->err = w->secs < 0;
		}
		sem_post(&w->done);
	}
}

static pid_t worker_start(struct worker **wp)
{
	struct worker *w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;

	if (w == MAP_FAILED)
		return -errno;
	memset(w, 0, sizeof(*w));
	sem_init(&w->go, 1, 0);
	sem_init(&w->done, 1, 0);
	pid = fork();
	if (pid == 0)
		worker_main(w);
	*wp = w;
	return pid;
}

static void worker_stop(struct worker *w, pid_t pid)
{
	w->job = JOB_EXIT;
	sem_post(&w->go);
	waitpid(pid, NULL, 0);
	munmap(w, sizeof(*w));
}

static double worker_run(struct worker *w, enum job job)
{
	w->job = job;
	sem_post(&w->go);
	sem_wait(&w->done);
	return w->err ? -1 : w->secs;
}

static int read_count(struct bench *b, long long handle, long long *calls, char *msg, size_t len)
{
	json_object *args = json_object_new_object(), *r;
	int ret;

	json_object_object_add(args, "handle", json_object_new_int64(handle));
	ret = bench_call(b, "read", args, &r, msg, len);
	if (!ret)
		*calls = jint(r, "calls", -1);
	json_object_put(r);
	return ret;
}

/* One load under one mode (handle 0: nothing attached). */
static void wl_point(struct bench *b, const struct wl_opts *o, struct worker *w,
		     const char *mode, enum job job, long long handle, const char *why,
		     double *base)
{
	long long expect = job == JOB_DD ? (long long)o->writes :
		(long long)o->groups * o->senders * o->senders * o->loops, c0 = 0, c1 = 0;
	struct series mbs = {}, sec = {}, ns = {}, ovh = {};
	char key[64], msg[512];
	json_object *p;
	double dt;
	int i;

	snprintf(key, sizeof(key), "%s/%s", mode, job == JOB_DD ? "dd" : "hackbench");
	p = bench_point(b, key);
	point_label(p, "mode", mode);
	point_label(p, "load", job == JOB_DD ? "dd" : "hackbench");
	if (why) {
		point_status(b, p, handle < 0 ? "unavailable" : "error", "%s", why);
		return;
	}
	for (i = -b->warmup; i < b->reps; i++) {
		bench_progress(b, "%s: %s", key, i < 0 ? "warm-up" : "measuring");
		if (handle && read_count(b, handle, &c0, msg, sizeof(msg)))
			goto fail;
		dt = worker_run(w, job);
		if (dt < 0) {
			point_status(b, p, "error", "the load failed (write or pipe error)");
			return;
		}
		if (handle && read_count(b, handle, &c1, msg, sizeof(msg)))
			goto fail;
		if (handle && c1 - c0 != expect) {
			point_count(p, "writes", expect, c1 - c0);
			point_status(b, p, "error", "the hook counted %lld of %lld writes", c1 - c0,
				     expect);
			return;
		}
		if (i < 0)
			continue;
		series_add(&sec, dt);
		series_add(&ns, dt * 1e9 / expect);
		if (job == JOB_DD)
			series_add(&mbs, expect * 512.0 / dt / 1e6);
	}
	if (!handle)
		*base = series_median(&ns);
	else
		for (i = 0; i < ns.n; i++)
			series_add(&ovh, ns.v[i] - *base);
	if (handle)
		point_count(p, "writes", expect * b->reps, expect * b->reps);
	point_value(p, "seconds", "s", &sec);
	if (job == JOB_DD)
		point_value(p, "mb_per_s", "MB/s", &mbs);
	point_value(p, job == JOB_DD ? "ns_per_write" : "ns_per_message", "ns", &ns);
	if (ovh.n && !isnan(*base))
		point_value(p, "overhead_ns", "ns", &ovh);
	return;
fail:
	point_status(b, p, "error", "%s", msg);
}

static void wl_mode(struct bench *b, const struct wl_opts *o, struct worker *w, pid_t pid,
		    const char *mode, double *base)
{
	json_object *args = json_object_new_object(), *r = NULL;
	char msg[512];
	long long h;
	int ret, j;

	json_object_object_add(args, "mode", json_object_new_string(mode));
	json_object_object_add(args, "variant", json_object_new_string("count"));
	json_object_object_add(args, "target", json_object_new_string(o->function));
	json_object_object_add(args, "pid", json_object_new_int(pid));
	ret = bench_call(b, "hook", args, &r, msg, sizeof(msg));
	h = ret ? (ret == -(int)PROTO_E_UNAVAILABLE ? -1 : 0) : jint(r, "handle", 0);
	json_object_put(r);
	for (j = 0; j < 2; j++)
		wl_point(b, o, w, mode, j ? JOB_HACKBENCH : JOB_DD, h, ret ? msg : NULL, &base[j]);
	if (ret)
		return;
	args = json_object_new_object();
	json_object_object_add(args, "handle", json_object_new_int64(h));
	bench_call(b, "unhook", args, &r, msg, sizeof(msg));
	json_object_put(r);
}

static int wl_svg(struct bench *b, FILE *f)
{
	return svg_point_bars(b, f, "workload: overhead per operation, by mode",
			      "overhead_ns", "overhead, ns per write or message (median)");
}

static void wl_table(struct bench *b, FILE *f)
{
	size_t i, n = jlen(b->points);
	json_object *o = b->options;
	char c1[64], c2[64];

	fprintf(f, "workload: %s traced; dd: %lld x write(512 B) to /dev/null; hackbench: %lld "
		"group(s) x %lld senders x %lld receivers x %lld loops (threads, pipes); %d runs "
		"after %d warm-up, median [min - max]\n", jtty(o, "function", "?"),
		jint(o, "writes", 0), jint(o, "groups", 0), jint(o, "senders", 0),
		jint(o, "senders", 0), jint(o, "loops", 0), b->reps, b->warmup);
	fprintf(f, "%-18s %-10s %-28s %-28s %s\n", "MODE", "LOAD", "MB/s | seconds", "ns/write",
		"overhead ns/write");
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(b->points, i), *l = jget(p, "labels");
		bool dd = !strcmp(jstr(l, "load", ""), "dd");
		const char *v = dd ? "mb_per_s" : "seconds",
			   *w = dd ? "ns_per_write" : "ns_per_message";

		fprintf(f, "%-18s %-10s ", jtty(l, "mode", "?"), jtty(l, "load", "?"));
		if (strcmp(jstr(p, "status", ""), "ok")) {
			fprintf(f, "%s: %s\n", jtty(p, "status", "?"), jtty(p, "reason", ""));
			continue;
		}
		snprintf(c1, sizeof(c1), dd ? "%.1f [%.1f - %.1f]" : "%.4f [%.4f - %.4f]",
			 point_stat(p, v, "median"), point_stat(p, v, "min"),
			 point_stat(p, v, "max"));
		snprintf(c2, sizeof(c2), "%.0f [%.0f - %.0f]", point_stat(p, w, "median"),
			 point_stat(p, w, "min"), point_stat(p, w, "max"));
		fprintf(f, "%-28s %-28s ", c1, c2);
		if (isnan(point_stat(p, "overhead_ns", "median")))
			fprintf(f, "-\n");
		else
			fprintf(f, "%+.0f\n", point_stat(p, "overhead_ns", "median"));
	}
}

static int wl_opt(struct bench *b, int c, const char *arg, void *ctx)
{
	const char *known[BENCH_MAX_HOOKS];
	struct wl_opts *o = ctx;
	unsigned long long v;
	int *iv;

	switch (c) {
	case 'n':
		if (cli_number(b->cli, "-n (writes)", arg, 1, 1000000000ULL, &v))
			return EXIT_USAGE;
		o->writes = v;
		return 0;
	case 'f':
		o->function = arg;
		return 0;
	case 'g':
	case 's':
	case 'l':
		iv = c == 'g' ? &o->groups : c == 's' ? &o->senders : &o->loops;
		if (cli_number(b->cli, c == 'g' ? "--groups" : c == 's' ? "--senders" : "--loops",
			       arg, 1, c == 'l' ? 100000 : 64, &v))
			return EXIT_USAGE;
		*iv = (int)v;
		return 0;
	case 'm':
		o->nmodes = bench_pick(b, "mode", arg, known,
				       bench_hooks(known, BENCH_HOOKS_NO_REGS), o->modes, 16);
		return o->nmodes < 0 ? -o->nmodes : 0;
	default:
		return BENCH_OPT_COMMON;
	}
}

static int wl_opts(struct bench *b, int argc, char **argv, struct wl_opts *o)
{
	static const struct option opts[] = {
		BENCH_COMMON_OPTS,
		{ "writes", required_argument, NULL, 'n' },
		{ "function", required_argument, NULL, 'f' },
		{ "groups", required_argument, NULL, 'g' },
		{ "senders", required_argument, NULL, 's' },
		{ "loops", required_argument, NULL, 'l' },
		{ "modes", required_argument, NULL, 'm' },
		{ 0 }
	};
	int ret = bench_getopt(b, argc, argv, "n:f:g:l:", opts, wl_opt, o);

	if (ret)
		return ret;
	if (!o->writes)
		o->writes = b->profile_ci ? 20000 : 1000000;
	if (!o->groups)
		o->groups = b->profile_ci ? 1 : 2;
	if (!o->senders)
		o->senders = b->profile_ci ? 4 : 10;
	if (!o->loops)
		o->loops = b->profile_ci ? 10 : 100;
	return 0;
}

static int bench_workload(struct bench *b, int argc, char **argv)
{
	struct wl_opts o = { .function = "vfs_write" };
	json_object *modes;
	struct worker *w = NULL;
	double base[2] = { NAN, NAN };
	pid_t pid;
	int i, ret;

	/* every hook of the bench but kmod-callops+regs, which the daemon's hook takes as
	 * a save_regs flag the workload does not pass */
	o.nmodes = bench_hooks(o.modes, BENCH_HOOKS_NO_REGS);
	ret = wl_opts(b, argc, argv, &o);
	if (!ret)
		ret = bench_begin(b);
	if (ret)
		return ret;
	modes = json_object_new_array();
	for (i = 0; i < o.nmodes; i++)
		json_object_array_add(modes, json_object_new_string(o.modes[i]));
	json_object_object_add(b->options, "function", json_object_new_string(o.function));
	json_object_object_add(b->options, "writes", json_object_new_int64((long long)o.writes));
	json_object_object_add(b->options, "groups", json_object_new_int(o.groups));
	json_object_object_add(b->options, "senders", json_object_new_int(o.senders));
	json_object_object_add(b->options, "loops", json_object_new_int(o.loops));
	json_object_object_add(b->options, "modes", modes);
	pid = worker_start(&w);
	if (pid < 0) {
		json_object_put(b->doc);
		json_object_put(b->info);
		return cli_error(b->cli, EXIT_FAILURE_, "internal", "cannot start the worker: %s",
				 strerror(-pid));
	}
	w->writes = (long long)o.writes;
	w->groups = o.groups;
	w->senders = o.senders;
	w->loops = o.loops;
	wl_point(b, &o, w, "none", JOB_DD, 0, NULL, &base[0]);
	wl_point(b, &o, w, "none", JOB_HACKBENCH, 0, NULL, &base[1]);
	for (i = 0; i < o.nmodes; i++)
		wl_mode(b, &o, w, pid, o.modes[i], base);
	worker_stop(w, pid);
	return bench_end(b, wl_table, wl_svg);
}

const struct bench_suite bench_suite_workload = {
	.name = "workload",
	.help = "dd-style writes and a hackbench-style load with a function traced\n"
		"              -n, --writes=N         writes of the dd job\n"
		"              -f, --function=F       the traced function (default vfs_write)\n"
		"              -g, --groups=G         message groups; --senders=S per group\n"
		"              -l, --loops=L          messages per sender and receiver\n"
		"                  --modes=LIST       modes\n",
	.run = bench_workload,
	.table = wl_table,
	.svg = wl_svg,
	.in_report = true,
};
