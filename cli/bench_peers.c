// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench trigger --peers: the same getpgid loop with a peer tracer on the
 * trigger function instead of tracerd, in the same run: the project's
 * reference programs (tracerd-ref: the minimal libbpf program, labelled
 * "reference") and bpftrace (Debian's, when installed). A peer runs as a
 * child process filtered to this process; it says when it is attached, the
 * loops run, and its own count at exit must equal the calls made, as
 * tracerd's do. See docs/bench.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../lib/util.h"
#include "bench.h"

#define PEER_READY_MS	180000	/* bpftrace compiles its script first: slow under TCG */
#define PEER_EXIT_MS	180000
#define PEER_BT_RB_PAGES	"1024"	/* 4 MiB of 4 KiB pages, per CPU */

static const struct peer_def {
	const char *mode, *variant, *kind;
	const char *ref_mode;	/* tracerd-ref MODE, or NULL */
	const char *bt_entry;	/* bpftrace entry probe type, or NULL */
} peer_defs[] = {
	{ "ref-fentry", "count", "reference", "fentry-count", NULL },
	{ "ref-fentry", "latency", "reference", "fentry-latency", NULL },
	{ "ref-kprobe", "count", "reference", "kprobe-count", NULL },
	{ "ref-kprobe", "latency", "reference", "kprobe-latency", NULL },
	{ "ref-kprobe-multi", "count", "reference", "kprobe-multi-count", NULL },
	{ "bpftrace-kfunc", "count", "bpftrace", NULL, "kfunc" },
	{ "bpftrace-kfunc", "latency", "bpftrace", NULL, "kfunc" },
	{ "bpftrace-kprobe", "count", "bpftrace", NULL, "kprobe" },
	{ "bpftrace-kprobe", "latency", "bpftrace", NULL, "kprobe" },
	/* stacks: `@[kstack] = count()`, by hand and as bpftrace's one-liner */
	{ "ref-fentry", "stacks", "reference", "fentry-stacks", NULL },
	{ "ref-kprobe", "stacks", "reference", "kprobe-stacks", NULL },
	{ "bpftrace-kfunc", "stacks", "bpftrace", NULL, "kfunc" },
	{ "bpftrace-kprobe", "stacks", "bpftrace", NULL, "kprobe" },
	/* args: each call's first argument to user space, by hand (a ring
	 * buffer and its reader) and as bpftrace's printf one-liner */
	{ "ref-fentry", "args", "reference", "fentry-args", NULL },
	{ "ref-kprobe", "args", "reference", "kprobe-args", NULL },
	{ "bpftrace-kfunc", "args", "bpftrace", NULL, "kfunc" },
	{ "bpftrace-kprobe", "args", "bpftrace", NULL, "kprobe" },
};

struct peer_proc {
	pid_t pid;
	int out, in, err;	/* its stdout, stdin, stderr (ours: read, write, read) */
	char buf[16384];
	size_t len;
	/* the args variant: bpftrace prints a line per call, read while the
	 * loop runs (a full pipe would stop it) and counted, not kept */
	pthread_t reader;
	bool reading;
	long long lines, lost;
	int exit_ms;		/* reap's bound; 0: PEER_EXIT_MS */
};

/* tracerd-ref: $TRACERD_REF, beside tracectl, or the installed one. */
static const char *ref_path(char *buf, size_t len)
{
	static const char *const installed[] = { "/usr/lib/tracerd/tracerd-ref",
						 "/usr/local/lib/tracerd/tracerd-ref" };
	char exe[PATH_MAX];
	ssize_t n;
	size_t i;

	if (getenv("TRACERD_REF"))
		return getenv("TRACERD_REF");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		snprintf(buf, len, "%.*s/tracerd-ref", (int)(len > 13 ? len - 13 : 0), exe);
		if (!access(buf, X_OK))
			return buf;
	}
	for (i = 0; i < sizeof(installed) / sizeof(installed[0]); i++)
		if (!access(installed[i], X_OK))
			return installed[i];
	return NULL;
}

static int spawn(char *const argv[], struct peer_proc *pp)
{
	int o[2], i[2], e[2];

	if (pipe2(o, O_CLOEXEC))
		return -errno;
	if (pipe2(i, O_CLOEXEC) || pipe2(e, O_CLOEXEC)) {
		close(o[0]);
		close(o[1]);
		return -errno;
	}
	pp->pid = fork();
	if (pp->pid < 0)
		return -errno;
	if (!pp->pid) {
		sigset_t none;

		/* a shell's background job starts with SIGINT ignored, and exec keeps
		 * that: bpftrace must see the SIGINT that makes it print its maps */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(i[0], STDIN_FILENO);
		dup2(o[1], STDOUT_FILENO);
		dup2(e[1], STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(o[1]);
	close(i[0]);
	close(e[1]);
	pp->out = o[0];
	pp->in = i[1];
	pp->err = e[0];
	pp->len = 0;
	pp->reading = false;
	pp->lines = pp->lost = 0;
	pp->exit_ms = 0;
	return 0;
}

/* Read what the peer printed so far (or until EOF when wait_eof). */
static bool drain(struct peer_proc *pp, int timeout_ms)
{
	struct pollfd p = { .fd = pp->out, .events = POLLIN };
	bool eof = false;
	ssize_t n;

	while (pp->len < sizeof(pp->buf) - 1 && poll(&p, 1, timeout_ms) > 0) {
		n = read(pp->out, pp->buf + pp->len, sizeof(pp->buf) - 1 - pp->len);
		if (n <= 0) {
			eof = n == 0 || errno != EINTR;
			break;
		}
		pp->len += (size_t)n;
		timeout_ms = 0;
	}
	pp->buf[pp->len] = '\0';
	return eof;
}

/* The peer's stderr, first line, for a message. */
static void first_err(struct peer_proc *pp, char *msg, size_t len)
{
	char e[512];
	ssize_t n = read(pp->err, e, sizeof(e) - 1);

	e[n > 0 ? n : 0] = '\0';
	e[strcspn(e, "\n")] = '\0';
	snprintf(msg, len, "%s", e[0] ? e : "no message");
}

/* "Lost N events" lines bpftrace printed in s (it says so when its
 * buffer overflowed), added to *lost */
static void count_lost(const char *s, long long *lost)
{
	const char *p;

	for (p = strstr(s, "Lost "); p; p = strstr(p + 1, "Lost ")) {
		char *end;
		long long n = strtoll(p + 5, &end, 10);

		if (end != p + 5 && !strncmp(end, " events", 7))
			*lost += n;
	}
}

/* One line of the args variant's output: a value (hex digits) is counted;
 * anything else is kept in buf for stop_peer (maps, "Lost N events"). */
static void reader_line(struct peer_proc *pp, const char *l, size_t n)
{
	size_t i;

	for (i = 0; i < n && strchr("0123456789abcdef", l[i]); i++)
		;
	if (n && i == n) {
		__atomic_add_fetch(&pp->lines, 1, __ATOMIC_RELAXED);
		return;
	}
	if (n < 512) {	/* bpftrace's "Lost N events", as it goes */
		char z[512];
		long long lost = 0;

		memcpy(z, l, n);
		z[n] = '\0';
		count_lost(z, &lost);
		__atomic_add_fetch(&pp->lost, lost, __ATOMIC_RELAXED);
	}
	if (pp->len + n + 1 < sizeof(pp->buf)) {
		memcpy(pp->buf + pp->len, l, n);
		pp->len += n;
		pp->buf[pp->len++] = '\n';
		pp->buf[pp->len] = '\0';
	}
}

/* The args variant's reader: the peer's stdout to its end (its exit). */
static void *reader_fn(void *arg)
{
	struct peer_proc *pp = arg;
	char chunk[8192], line[512];
	size_t ll = 0;
	ssize_t n, i;

	while ((n = read(pp->out, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR))
		for (i = 0; i < n; i++) {
			if (chunk[i] != '\n') {
				if (ll < sizeof(line))
					line[ll++] = chunk[i];
				continue;
			}
			reader_line(pp, line, ll);
			ll = 0;
		}
	if (ll)
		reader_line(pp, line, ll);
	return NULL;
}

/*
 * Wait for the peer's exit, SIGKILL past PEER_EXIT_MS: a peer never hangs
 * the run (bpftrace's exit detaches its programs: a BPF trampoline's goes
 * through RCU tasks, seconds under TCG). -ETIMEDOUT when it was killed.
 */
static int reap(struct peer_proc *pp)
{
	int st = 0, ms;
	bool killed = false;

	close(pp->in);
	for (ms = 0; waitpid(pp->pid, &st, WNOHANG) == 0; ms += 50) {
		if (ms == (pp->exit_ms ? pp->exit_ms : PEER_EXIT_MS)) {
			kill(pp->pid, SIGKILL);
			killed = true;
		}
		poll(NULL, 0, 50);
	}
	if (pp->reading) {	/* its stdout ended with it */
		pthread_join(pp->reader, NULL);
		pp->reading = false;
	}
	if (killed) {
		close(pp->out);
		close(pp->err);
		return -ETIMEDOUT;
	}
	close(pp->out);
	close(pp->err);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Wait for "ready" (up to ready_ms); bpftrace's comes from a getppid probe we keep poking. */
static int wait_ready(struct peer_proc *pp, bool poke, int ready_ms, char *msg, size_t len)
{
	int waited, rc;

	for (waited = 0; waited < ready_ms; waited += 20) {
		if (poke)
			syscall(SYS_getppid);
		drain(pp, 20);
		if (strstr(pp->buf, "ready\n"))
			return 0;
		if (waitpid(pp->pid, &rc, WNOHANG) == pp->pid) {
			first_err(pp, msg, len);
			close(pp->in);
			close(pp->out);
			close(pp->err);
			return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
		}
	}
	snprintf(msg, len, "not attached after %d s", ready_ms / 1000);
	kill(pp->pid, SIGKILL);
	reap(pp);
	return -ETIMEDOUT;
}

static long long field(const char *buf, const char *name)
{
	const char *p = strstr(buf, name);

	return p ? strtoll(p + strlen(name), NULL, 10) : -1;
}

/* The sum of the counts bpftrace printed for a map keyed by stack: its
 * entries end in "]: N" lines. -1 when it printed none. */
static long long stack_sum(const char *buf)
{
	long long sum = -1;
	const char *p;

	for (p = strstr(buf, "\n]: "); p; p = strstr(p + 1, "\n]: "))
		sum = (sum < 0 ? 0 : sum) + strtoll(p + 4, NULL, 10);
	return sum;
}

/*
 * The bpftrace script of peer d on fn: count: @c; latency: @c, and @r with
 * the histogram at return; stacks: @k[kstack], the calls its counts' sum;
 * args: the first argument printed per call (kprobe: arg0; kfunc: by its
 * BTF name, args.NAME, or args->NAME before bpftrace 0.20 when old_syntax),
 * and @c: bpftrace loses printed events when its perf buffers fill, and
 * does not report every loss, so the exact count is the map's.
 */
static int bt_script(const struct peer_def *d, const char *fn, const char *arg0, bool old_syntax,
		     const char *pid, char *script, size_t len)
{
	bool lat = !strcmp(d->variant, "latency"), stk = !strcmp(d->variant, "stacks");
	bool args = !strcmp(d->variant, "args");
	const char *bt = d->bt_entry;
	char action[160];
	int n;

	if (args && !strcmp(bt, "kfunc"))
		snprintf(action, sizeof(action), "@c = count(); printf(\"%%lx\\n\", (uint64)args%s%s);",
			 old_syntax ? "->" : ".", arg0);
	else if (args)
		snprintf(action, sizeof(action), "@c = count(); printf(\"%%lx\\n\", arg0);");
	else
		snprintf(action, sizeof(action), "%s%s",
			 stk ? "@k[kstack] = count();" : "@c = count();",
			 lat ? " @s[tid] = nsecs;" : "");
	n = snprintf(script, len,
		     "%s:%s /pid == %s/ { %s }\n"
		     "tracepoint:syscalls:sys_enter_getppid /pid == %s/ "
		     "{ if (@ready == 0) { printf(\"ready\\n\"); @ready = 1; } }\n",
		     bt, fn, pid, action, pid);
	if (lat && n > 0 && (size_t)n < len)
		n += snprintf(script + n, len - (size_t)n,
			      "%s:%s /@s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); "
			      "@r = count(); }\n",
			      !strcmp(bt, "kfunc") ? "kretfunc" : "kretprobe", fn);
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

static int start_peer(const struct peer_def *d, const char *fn, const char *arg0,
		      struct peer_proc *pp, char *msg, size_t len)
{
	char pid[16], script[1024], rp[PATH_MAX], *argv[6];
	const char *ref = NULL;
	bool args = !strcmp(d->variant, "args");
	int ret, attempt;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (args && d->bt_entry && !strcmp(d->bt_entry, "kfunc") && !arg0) {
		snprintf(msg, len, "the trigger function's BTF names no argument");
		return 3;
	}
	for (attempt = 0; attempt < 2; attempt++) {
		if (d->ref_mode) {
			ref = ref_path(rp, sizeof(rp));
			if (!ref) {
				snprintf(msg, len,
					 "tracerd-ref not found (beside tracectl, /usr/lib/tracerd, "
					 "or $TRACERD_REF)");
				return 3;
			}
			argv[0] = (char *)ref;
			argv[1] = (char *)d->ref_mode;
			argv[2] = (char *)fn;
			argv[3] = pid;
			argv[4] = NULL;
		} else {
			if (bt_script(d, fn, arg0, attempt == 1, pid, script, sizeof(script))) {
				snprintf(msg, len, "the bpftrace script is too long");
				return 1;
			}
			argv[0] = "bpftrace";
			argv[1] = "-B";
			argv[2] = "line";
			argv[3] = "-e";
			argv[4] = script;
			argv[5] = NULL;
		}
		/* args: bpftrace's perf buffers as large as tracerd's ring (4 MiB,
		 * include/tracerd/record.h) instead of its 64 pages per CPU */
		if (args && !d->ref_mode)
			setenv("BPFTRACE_PERF_RB_PAGES", PEER_BT_RB_PAGES, 1);
		ret = spawn(argv, pp);
		if (args && !d->ref_mode)
			unsetenv("BPFTRACE_PERF_RB_PAGES");
		if (ret) {
			snprintf(msg, len, "cannot start %s: %s", argv[0], strerror(-ret));
			return 1;
		}
		ret = wait_ready(pp, !d->ref_mode, PEER_READY_MS, msg, len);
		if (ret == 127)
			snprintf(msg, len, "%s not installed%s", argv[0], d->ref_mode ? "" :
				 " (Debian package bpftrace)");
		/* args.NAME is bpftrace 0.20's; an older one refuses it: try args->NAME */
		if (ret <= 0 || ret == 127 || !args || d->ref_mode || strcmp(d->bt_entry, "kfunc"))
			break;
	}
	if (!ret && args && !d->ref_mode) {
		pp->len = 0;
		pp->buf[0] = '\0';
		ret = pthread_create(&pp->reader, NULL, reader_fn, pp);
		if (ret) {
			snprintf(msg, len, "cannot read bpftrace's output: %s", strerror(ret));
			kill(pp->pid, SIGKILL);
			reap(pp);
			return 1;
		}
		pp->reading = true;
	}
	return ret;
}

/* Stop the peer and read its counts; 0 or -errno with msg. */
/*
 * The args variant: bpftrace formats each event in user space, far behind
 * the loop under emulation, and drops what its perf buffers still hold
 * when SIGINT stops it: wait until it has printed (or reported lost)
 * every call, or made no progress for PEER_IDLE_MS.
 */
#define PEER_IDLE_MS	15000

static void wait_printed(struct peer_proc *pp, long long want)
{
	long long seen = -1, now;
	int idle = 0;

	while (idle < PEER_IDLE_MS) {
		now = __atomic_load_n(&pp->lines, __ATOMIC_RELAXED) +
		      __atomic_load_n(&pp->lost, __ATOMIC_RELAXED);
		if (now >= want)
			return;
		idle = now == seen ? idle + 50 : 0;
		seen = now;
		poll(NULL, 0, 50);
	}
}

static int stop_peer(const struct peer_def *d, struct peer_proc *pp, long long want,
		     long long *calls, long long *returns, long long *events, long long *dropped,
		     char *msg, size_t len)
{
	int rc, ms;

	if (pp->reading)
		wait_printed(pp, want);
	if (!d->ref_mode)
		kill(pp->pid, SIGINT);	/* bpftrace prints its maps on SIGINT */
	close(pp->in);
	pp->in = open("/dev/null", O_RDONLY | O_CLOEXEC);	/* reap closes it */
	/* what it prints at its exit, to the end of its output: bpftrace's maps
	 * come seconds after SIGINT under emulation, more on a loaded host
	 * (reap bounds the wait: PEER_EXIT_MS, then SIGKILL) */
	for (ms = 0; !pp->reading && pp->len < sizeof(pp->buf) - 1 && ms < PEER_EXIT_MS;
	     ms += 200)
		if (drain(pp, 200))
			break;
	rc = reap(pp);
	if (rc == -ETIMEDOUT) {
		snprintf(msg, len, "%s did not exit within %d s of %s: killed",
			 d->ref_mode ? "tracerd-ref" : "bpftrace", PEER_EXIT_MS / 1000,
			 d->ref_mode ? "its stdin's end" : "SIGINT");
		return -EIO;
	}
	if (rc) {
		snprintf(msg, len, "%s exited with status %d",
			 d->ref_mode ? "tracerd-ref" : "bpftrace", rc);
		return -EIO;
	}
	if (d->ref_mode) {
		*calls = field(pp->buf, "calls ");
		*returns = field(pp->buf, "returns ");
		*events = field(pp->buf, "events ");
		*dropped = field(pp->buf, "dropped ");
	} else if (!strcmp(d->variant, "args")) {
		/* @c exact; a line per call printed, the rest lost (bpftrace
		 * says "Lost N events" for some of them, not always all) */
		*calls = field(pp->buf, "\n@c: ");
		if (*calls < 0)
			*calls = field(pp->buf, "@c: ");
		*events = pp->lines;
		*dropped = *calls >= pp->lines ? *calls - pp->lines : -1;
	} else if (!strcmp(d->variant, "stacks")) {
		*calls = stack_sum(pp->buf);
	} else {
		*calls = field(pp->buf, "\n@c: ");
		*returns = field(pp->buf, "\n@r: ");
	}
	return 0;
}

void trigger_peers(struct bench *b, const struct peer_loop *loop, const char *const *variants,
		   int nvariants)
{
	const char *fn = jstr(b->info, "trigger_function", "?");
	json_object *targs = jget(b->info, "trigger_args");
	const char *arg0 = jlen(targs) ? json_object_get_string(
		json_object_array_get_idx(targs, 0)) : NULL;
	long long calls, rets, events, dropped, want;
	struct peer_proc pp;
	char key[64], msg[512];
	double base_ns;
	size_t i;
	int v, ret;

	for (i = 0; i < sizeof(peer_defs) / sizeof(peer_defs[0]); i++) {
		const struct peer_def *d = &peer_defs[i];
		bool lat = !strcmp(d->variant, "latency"), args = !strcmp(d->variant, "args");
		json_object *p;

		for (v = 0; v < nvariants && strcmp(variants[v], d->variant); v++)
			;
		if (v == nvariants)
			continue;
		snprintf(key, sizeof(key), "%s/%s", d->mode, d->variant);
		p = bench_point(b, key);
		point_label(p, "mode", d->mode);
		point_label(p, "variant", d->variant);
		point_label(p, "peer", d->kind);
		base_ns =
			loop->base(b, loop->opts, p); /* before it attaches: it would count these */
		bench_progress(b, "%s: starting the peer", key);
		ret = start_peer(d, fn, arg0, &pp, msg, sizeof(msg));
		if (ret) {
			point_status(b, p,
				     ret == 3 || ret == 127 || ret == 1 ? "unavailable" : "error",
				     "%s", msg);
			continue;
		}
		want = loop->run(b, loop->opts, p, lat, base_ns);
		calls = rets = events = dropped = -1;
		if (stop_peer(d, &pp, want, &calls, &rets, &events, &dropped, msg, sizeof(msg))) {
			point_status(b, p, "error", "%s", msg);
			continue;
		}
		if (calls != want || (lat && rets != want) ||
		    (args && (events < 0 || dropped < 0 || events + dropped != calls))) {
			char more[96] = "";

			if (lat)
				snprintf(more, sizeof(more), " and %lld returns", rets);
			else if (args)
				snprintf(more, sizeof(more), " (%lld recorded + %lld dropped)", events,
					 dropped);
			point_status(b, p, "error", "the peer counted %lld calls%s of %lld made",
				     calls, more, want);
			point_count(p, "calls", want, calls);
			if (args)
				point_count(p, "events", want, events + dropped);
			continue;
		}
		point_count(p, "calls", want, calls);
		if (lat)
			point_count(p, "returns", want, rets);
		if (args) {	/* as tracerd's args variant: recorded + dropped = calls */
			struct series drop = {};

			point_count(p, "events", want, events + dropped);
			series_add(&drop, want ? 100.0 * (double)dropped / (double)want : 0);
			point_value(p, "dropped_pct", "%", &drop);
		}
	}
}

/*
 * bench attach --peers: bpftrace's `kprobe:GLOB` (kprobe.multi: one link of
 * every function the glob lists) with a count, the way bench trigger runs
 * it: attached when its getppid probe, attached with the rest, prints
 * "ready" (its start and its compile included: bpftrace does not say when
 * its attach began), detached when it exits after SIGINT. Its default
 * probe limit (512 in 0.17) is raised past the kernel's functions.
 */
#define PEER_ATTACH_ALL_MS	1800000	/* every function, under TCG */

long long ftrace_enabled(void)
{
	static const char *const paths[] = { "/sys/kernel/tracing/enabled_functions",
					     "/sys/kernel/debug/tracing/enabled_functions" };
	char line[512];
	long long n = -1;
	bool start = true;	/* line holds the start of a line */
	size_t i;
	FILE *f;

	/* a function a line; the lines under it (its ops, a direct call's
	 * trampoline) begin with blanks */
	for (i = 0; i < ARRAY_SIZE(paths) && n < 0; i++) {
		f = fopen(paths[i], "re");
		if (!f)
			continue;
		for (n = 0; fgets(line, sizeof(line), f); start = strchr(line, '\n') != NULL)
			n += start && line[0] != ' ' && line[0] != '\t' && line[0] != '\n';
		fclose(f);
	}
	return n;
}

int attach_peer_bpftrace(const char *glob, double *attach_ms, double *detach_ms,
			 long long *probes, long long *funcs, char *msg, size_t len)
{
	char pid[16], script[512], *argv[] = { "bpftrace", "-B", "line", "-e", script, NULL };
	struct peer_proc pp;
	const char *at;
	uint64_t t0, t1;
	int ret;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(script, sizeof(script),
		 "kprobe:%s { @c = count(); }\n"
		 "tracepoint:syscalls:sys_enter_getppid /pid == %s/ "
		 "{ if (@ready == 0) { printf(\"ready\\n\"); @ready = 1; } }\n", glob, pid);
	setenv("BPFTRACE_MAX_PROBES", "1048576", 1);
	setenv("BPFTRACE_MAX_BPF_PROGS", "1048576", 1);
	t0 = now_mono_ns();
	ret = spawn(argv, &pp);
	unsetenv("BPFTRACE_MAX_PROBES");
	unsetenv("BPFTRACE_MAX_BPF_PROGS");
	if (ret) {
		snprintf(msg, len, "cannot start bpftrace: %s", strerror(-ret));
		return 1;
	}
	ret = wait_ready(&pp, true, PEER_ATTACH_ALL_MS, msg, len);
	if (ret == 127)
		snprintf(msg, len, "bpftrace not installed (Debian package bpftrace)");
	if (ret)
		return ret;
	t1 = now_mono_ns();
	*attach_ms = (double)(t1 - t0) / 1e6;
	/* "Attaching N probes..." (bpftrace's stdout, before it attaches) */
	at = strstr(pp.buf, "Attaching ");
	*probes = at ? strtoll(at + 10, NULL, 10) : -1;
	/* the functions it hooked: its kprobe.multi link is one probe to it */
	*funcs = ftrace_enabled();
	/* its exit detaches every probe while each still runs its program:
	 * minutes under TCG */
	pp.exit_ms = PEER_ATTACH_ALL_MS;
	kill(pp.pid, SIGINT);
	ret = reap(&pp);
	*detach_ms = (double)(now_mono_ns() - t1) / 1e6;
	if (ret == -ETIMEDOUT)
		snprintf(msg, len, "attached %lld probes in %.1f s, then did not exit within %d s "
			 "of SIGINT: killed", *probes, *attach_ms / 1e3, PEER_ATTACH_ALL_MS / 1000);
	else if (ret)
		snprintf(msg, len, "attached %lld probes in %.1f s, then exited with status %d",
			 *probes, *attach_ms / 1e3, ret);
	return ret ? 1 : 0;
}

/* Which peers hook the way a tracerd mode does. */
static const struct {
	const char *mode, *peers[2];
	bool if_measured;	/* a row only where the mode was measured */
} peer_of[] = {
	{ "fentry", { "ref-fentry", "bpftrace-kfunc" }, false },
	{ "kprobe", { "ref-kprobe", "bpftrace-kprobe" }, false },
	{ "kprobe-multi", { "ref-kprobe-multi", NULL }, false },
	/* the session forms hook the same places, entry and return in one
	 * program (kprobe.session; fsession: fentry and fexit) */
	{ "kprobe-session", { "ref-kprobe", "bpftrace-kprobe" }, true },
	{ "fentry-multi", { "ref-fentry", "bpftrace-kfunc" }, true },
	{ "fsession", { "ref-fentry", "bpftrace-kfunc" }, true },
	/* the module's native hooks: its ftrace_ops (latency: fprobe), its
	 * direct call (latency: the trampoline calls the function), its
	 * kprobe (latency: kretprobe) */
	{ "kmod-callops", { "ref-fentry", "bpftrace-kfunc" }, false },
	{ "kmod-direct", { "ref-fentry", "bpftrace-kfunc" }, false },
	{ "kmod-kprobe", { "ref-kprobe", "bpftrace-kprobe" }, false },
};

bool peer_pair(size_t i, const char **mode, const char *const **peers, bool *if_measured)
{
	if (i >= sizeof(peer_of) / sizeof(peer_of[0]))
		return false;
	*mode = peer_of[i].mode;
	*peers = peer_of[i].peers;
	*if_measured = peer_of[i].if_measured;
	return true;
}

/* The median overhead of mode/variant in doc, NAN unless measured. */
double peer_overhead(json_object *doc, const char *mode, const char *variant)
{
	char key[96];

	snprintf(key, sizeof(key), "%s/%s", mode, variant);
	return point_median(doc, key, "overhead_ns");
}

/*
 * tracerd against its peers: per tracerd mode and variant, its overhead
 * and each peer's with the ratio tracerd / peer (< 1: tracerd is cheaper).
 * Writes nothing when the run had no peers; label (a kernel) heads it.
 */
void peers_table(json_object *doc, FILE *f, const char *label)
{
	static const char *const variants[] = { "count", "latency", "stacks", "args" };
	char cell[64];
	bool header = false;
	size_t m, v, k;

	for (m = 0; m < sizeof(peer_of) / sizeof(peer_of[0]); m++)
		for (v = 0; v < ARRAY_SIZE(variants); v++) {
			double t = peer_overhead(doc, peer_of[m].mode, variants[v]);
			bool any = false;

			for (k = 0; k < 2 && peer_of[m].peers[k]; k++)
				any |= !isnan(peer_overhead(doc, peer_of[m].peers[k], variants[v]));
			if (!any || (peer_of[m].if_measured && isnan(t)))
				continue;
			/* the module's modes record no arguments: no row */
			if (!strcmp(variants[v], "args") && !strncmp(peer_of[m].mode, "kmod-", 5))
				continue;
			if (!header)
				fprintf(f,
					"%s%s%stracerd against its peers on the same loop "
					"(overhead "
					"ns; tracerd / peer, < 1: tracerd cheaper)\n",
					label ? "\n" : "", label ? label : "", label ? ": " : "");
			header = true;
			snprintf(cell, sizeof(cell), "%s %s", peer_of[m].mode, variants[v]);
			if (isnan(t))
				fprintf(f, "  %-22s tracerd      -", cell);
			else
				fprintf(f, "  %-22s tracerd %6.0f", cell, t);
			for (k = 0; k < 2 && peer_of[m].peers[k]; k++) {
				double p = peer_overhead(doc, peer_of[m].peers[k], variants[v]);

				if (isnan(p))
					fprintf(f, "   %s -", peer_of[m].peers[k]);
				else if (isnan(t) || p <= 0 || t <= 0)
					fprintf(f, "   %s %.0f", peer_of[m].peers[k], p);
				else
					fprintf(f, "   %s %.0f (%.2f)", peer_of[m].peers[k], p,
						t / p);
			}
			fputc('\n', f);
		}
}
