// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracerd-ref MODE FUNCTION PID: one of the reference programs of
 * bpf/ref.bpf.c on FUNCTION for process PID, the baseline `tracectl bench
 * trigger --peers` measures tracerd against. Not part of tracerd: the
 * smallest libbpf program that does the job, written as a kernel engineer
 * would. Prints "ready" once attached; on SIGINT, SIGTERM or end of stdin,
 * prints "calls N returns M" (summed over CPUs) and exits.
 *   MODE: fentry-count, fentry-latency, kprobe-count, kprobe-latency,
 *         kprobe-multi-count; fentry-count-plain (a plain ++ instead of
 *         the atomic add: what the atomic costs, not preempt-safe);
 *         fentry-stacks, kprobe-stacks (calls counted per kernel stack,
 *         bpftrace's `@[kstack] = count()`: "calls" is their sum);
 *         fentry-args, kprobe-args (each call's first argument read from
 *         a ring buffer: the end line adds "events E dropped D")
 * Exit: 0 ok, 1 error, 2 usage, 3 this kernel refuses the mode (the
 * reason on stderr).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "ref.skel.h"

#define REF_BUCKETS	64

struct ref_counts {
	__u64 calls, returns;
	__u64 hist[REF_BUCKETS];
	__u64 dropped;
};

struct ref_event {
	__u64 ts, pid_tgid, arg0;
};

static unsigned long long events;	/* args: read from the ring */

static int on_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	if (size >= sizeof(struct ref_event))
		events++;
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN && getenv("TRACERD_REF_VERBOSE") ? vfprintf(stderr, fmt, ap) : 0;
}

/* Switch on the programs MODE needs; their attach targets. */
static int pick(struct ref_bpf *s, const char *mode, const char *fn, struct bpf_program **p,
		int *np)
{
	*np = 0;
	if (!strcmp(mode, "fentry-count")) {
		p[(*np)++] = s->progs.ref_fentry_count;
	} else if (!strcmp(mode, "fentry-count-plain")) {
		p[(*np)++] = s->progs.ref_fentry_count_plain;
	} else if (!strcmp(mode, "fentry-latency")) {
		p[(*np)++] = s->progs.ref_fentry_enter;
		p[(*np)++] = s->progs.ref_fexit_leave;
	} else if (!strcmp(mode, "kprobe-count")) {
		p[(*np)++] = s->progs.ref_kprobe_count;
	} else if (!strcmp(mode, "kprobe-latency")) {
		p[(*np)++] = s->progs.ref_kprobe_enter;
		p[(*np)++] = s->progs.ref_kretprobe_leave;
	} else if (!strcmp(mode, "kprobe-multi-count")) {
		p[(*np)++] = s->progs.ref_kmulti_count;
	} else if (!strcmp(mode, "fentry-stacks")) {
		p[(*np)++] = s->progs.ref_fentry_stacks;
	} else if (!strcmp(mode, "kprobe-stacks")) {
		p[(*np)++] = s->progs.ref_kprobe_stacks;
	} else if (!strcmp(mode, "fentry-args")) {
		p[(*np)++] = s->progs.ref_fentry_args;
	} else if (!strcmp(mode, "kprobe-args")) {
		p[(*np)++] = s->progs.ref_kprobe_args;
	} else {
		return -EINVAL;
	}
	for (int i = 0; i < *np; i++) {
		bpf_program__set_autoload(p[i], true);
		if (!strncmp(mode, "fentry", 6) &&
		    bpf_program__set_attach_target(p[i], 0, fn))
			return -errno;
	}
	return 0;
}

static struct bpf_link *attach_one(struct bpf_program *p, const char *mode, const char *fn)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, mo, .syms = &fn, .cnt = 1);

	if (!strncmp(mode, "fentry", 6))
		return bpf_program__attach(p);
	if (!strcmp(mode, "kprobe-multi-count"))
		return bpf_program__attach_kprobe_multi_opts(p, NULL, &mo);
	return bpf_program__attach_kprobe(p, strstr(bpf_program__name(p), "kretprobe") != NULL,
					  fn);
}

/* The stacks modes' calls: the counts of every stack, added to sum's */
static int stack_calls(struct ref_bpf *s, struct ref_counts *sum)
{
	int fd = bpf_map__fd(s->maps.stack_counts);
	__u32 key, next, *prev = NULL;
	__u64 n;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (bpf_map_lookup_elem(fd, &next, &n))
			return -errno;
		sum->calls += n;
		key = next;
		prev = &key;
	}
	return errno == ENOENT ? 0 : -errno;
}

static int read_counts(struct ref_bpf *s, struct ref_counts *sum)
{
	int ncpu = libbpf_num_possible_cpus(), i, b;
	struct ref_counts *v;
	__u32 zero = 0;

	if (ncpu <= 0)
		return -EINVAL;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->maps.counts), &zero, v)) {
		free(v);
		return -errno;
	}
	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < ncpu; i++) {
		sum->calls += v[i].calls;
		sum->returns += v[i].returns;
		sum->dropped += v[i].dropped;
		for (b = 0; b < REF_BUCKETS; b++)
			sum->hist[b] += v[i].hist[b];
	}
	free(v);
	return stack_calls(s, sum);
}

static int refused(int err)
{
	return err == -EPERM || err == -EOPNOTSUPP || err == -524 /* ENOTSUPP */ || err == -EINVAL ||
	       err == -ENOENT || err == -ESRCH || err == -EACCES;
}

int main(int argc, char **argv)
{
	struct bpf_link *links[2] = {};
	struct bpf_program *progs[2];
	struct sigaction sa = { .sa_handler = on_signal };
	struct pollfd pfd[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
				 { .fd = -1, .events = POLLIN } };
	struct ring_buffer *rb = NULL;
	bool args = strstr(argc > 1 ? argv[1] : "", "-args") != NULL;
	struct ref_counts c;
	struct ref_bpf *s;
	char buf[64], *end;
	long pid;
	int np, i, err, ret = 1;

	if (argc != 4) {
		fprintf(stderr, "usage: tracerd-ref MODE FUNCTION PID\n");
		return 2;
	}
	pid = strtol(argv[3], &end, 10);
	if (*end || pid <= 0 || argv[3][0] == '0') {
		fprintf(stderr, "tracerd-ref: bad pid '%s'\n", argv[3]);
		return 2;
	}
	libbpf_set_print(quiet);
	s = ref_bpf__open();
	if (!s) {
		fprintf(stderr, "tracerd-ref: open: %s\n", strerror(errno));
		return 1;
	}
	s->rodata->target_tgid = (__u32)pid;
	err = pick(s, argv[1], argv[2], progs, &np);
	if (err == -EINVAL && np == 0) {
		fprintf(stderr, "tracerd-ref: unknown mode '%s'\n", argv[1]);
		ret = 2;
		goto cleanup;
	}
	err = err ? err : ref_bpf__load(s);
	if (err) {
		fprintf(stderr, "tracerd-ref: %s on '%s': load refused: %s\n", argv[1], argv[2],
			strerror(-err));
		ret = refused(err) ? 3 : 1;
		goto cleanup;
	}
	for (i = 0; i < np; i++) {
		links[i] = attach_one(progs[i], argv[1], argv[2]);
		if (!links[i]) {
			err = -errno;
			fprintf(stderr, "tracerd-ref: %s on '%s': attach refused: %s\n", argv[1],
				argv[2], strerror(-err));
			ret = refused(err) ? 3 : 1;
			goto cleanup;
		}
	}
	if (args) {	/* the args programs' reader: an epoll fd beside stdin */
		rb = ring_buffer__new(bpf_map__fd(s->maps.ref_events), on_event, NULL, NULL);
		if (!rb) {
			fprintf(stderr, "tracerd-ref: ring buffer: %s\n", strerror(errno));
			goto cleanup;
		}
		pfd[1].fd = ring_buffer__epoll_fd(rb);
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	while (!stop) {	/* until a signal or the end of stdin */
		if (poll(pfd, args ? 2 : 1, 1000) <= 0)
			continue;
		if (pfd[0].revents && read(STDIN_FILENO, buf, sizeof(buf)) <= 0)
			break;
		if (pfd[1].revents && ring_buffer__consume(rb) < 0)
			break;
	}
	for (i = 0; i < 2; i++) {	/* no more events: the rest of the ring read */
		bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
	if (rb)
		ring_buffer__consume(rb);
	err = read_counts(s, &c);
	if (err) {
		fprintf(stderr, "tracerd-ref: reading counts: %s\n", strerror(-err));
		goto cleanup;
	}
	if (args)
		printf("calls %llu returns %llu events %llu dropped %llu\n",
		       (unsigned long long)c.calls, (unsigned long long)c.returns, events,
		       (unsigned long long)c.dropped);
	else
		printf("calls %llu returns %llu\n", (unsigned long long)c.calls,
		       (unsigned long long)c.returns);
	fflush(stdout);
	ret = 0;
cleanup:
	for (i = 0; i < 2; i++)
		bpf_link__destroy(links[i]);
	ring_buffer__free(rb);
	ref_bpf__destroy(s);
	return ret;
}
