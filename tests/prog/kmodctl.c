// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmodctl — test driver for /dev/tracerd (tracerd_kmod.ko), used by the
 * in-VM tests tests/vm/guest/t/2*-kmod-*.sh. Every subcommand opens its
 * own fd, so the attachments it makes live exactly as long as it runs.
 *
 *   kmodctl features                      print what the module reports
 *   kmodctl stats [--clean]               leak accounting; --clean: exit 1
 *                                         unless only this fd is accounted
 *   kmodctl clean                         stats --clean, and nothing in
 *                                         tracing/enabled_functions nor in
 *                                         debug/kprobes/list; exit 1 if not
 *   kmodctl attach MODE FUNC [opts]       attach (--repeat R times), print
 *                                         one line per attempt; exit with
 *                                         the errno of the last failure
 *   kmodctl count MODE FUNC N [opts]      attach R times (--repeat), make N
 *                                         calls of FUNC from this process,
 *                                         print "hits=.. filtered=.." per
 *                                         attachment; exit 1 on mismatch
 *   kmodctl cycles MODE FUNC C N [opts]   C x (attach, N calls, check, detach)
 *   kmodctl hold SPEC... [--signal-ready FILE]
 *                                         attach each MODE:FUNC, touch FILE,
 *                                         sleep until killed
 *   kmodctl hot FUNC                      call FUNC forever (load generator)
 *   kmodctl detach ID | counters ID | site ID | latency ID
 *                                         on a fresh fd: ENOENT expected
 *   kmodctl ioctl-nr NR                   an unknown ioctl number
 *   kmodctl counters-batch N              TRACERD_IOC_COUNTERS_BATCH of ids 1..N on
 *                                         a fresh fd, print "counters-batch: done=D
 *                                         enoent=E" (the ioctl's errno: its exit)
 *   kmodctl batch-over                    an attach batch of features.max_attach
 *                                         + 1 entries (E2BIG expected, before an
 *                                         entry is read)
 *   kmodctl bench-ops MODE N R I [--save-regs] [--reps K]
 *   kmodctl bench-patch MODE K
 *   kmodctl bench-all MODE [--reserved N]  every traceable function at once
 *   kmodctl site MODE FUNC [MODE2...]     attach MODE on FUNC and print its
 *                                         call site ("site: path=.."), then
 *                                         for each MODE2: attach it on FUNC
 *                                         too, print the site of the first
 *                                         again, detach it, print again
 *   kmodctl table MODE N [REPS]           the relevant x irrelevant table
 *                                         (fastest of REPS runs, default 5)
 *   kmodctl batch MODE LIST [--count FUNC N]... [--drop FUNC] [--hold FILE]
 *                 [--base FUNC N] [--single]
 *                                         TRACERD_IOC_ATTACH_BATCH of every
 *                                         "ADDR NAME" line of LIST (tgid:
 *                                         this process), print "batch:
 *                                         done=D count=C" and "skip NAME
 *                                         ERRNO" per refused entry; --drop:
 *                                         detach FUNC alone; --count: N
 *                                         calls of FUNC, print "hits=..
 *                                         FUNC", exit 1 unless N; then hold
 *                                         (touch FILE, sleep until killed)
 *                                         or DETACH_BATCH all ("detach:
 *                                         done=D"); times: attach_ms,
 *                                         detach_ms, ns_per_call (--base:
 *                                         N untraced calls first);
 *                                         --single: one ATTACH per entry;
 *                                         --comm NAME, --comm-fill N,
 *                                         --reserved2 N: ATTACH_BATCH2
 *
 *   kmodctl stacks MODE FUNC PATH DATA [opts] [--batch] [--hold FILE]
 *                                         attach MODE on FUNC with --stacks D
 *                                         (--batch: as a one-entry
 *                                         ATTACH_BATCH2), write DATA to PATH
 *                                         (a debugfs file of the test
 *                                         module), print "hits=.." and, from
 *                                         TRACERD_IOC_STACKS, "stacks:
 *                                         total=T dropped=D depth=.. slots=.."
 *                                         and one "stack count=C nr=N: SYM+0xOFF
 *                                         ..." per record, innermost first
 *                                         (symbols from /proc/kallsyms);
 *                                         --hold: then touch FILE and sleep
 *                                         until killed
 *   kmodctl stacks-id ID [SIZE] [--reserved N]
 *                                         TRACERD_IOC_STACKS on a fresh fd
 *   sites [--reserved N] ITEM...          one TRACERD_IOC_SITES over ITEMs
 *                                         (FUNC, FUNC+OFF or 0xADDR; more
 *                                         than 64: E2BIG), print "ITEM
 *                                         error=ERRNO" or "ITEM kind=K
 *                                         target=SYM ops=KIND:SYM" per entry
 *
 * MODE: callops, callops-regs (SAVE_REGS), direct, kprobe, kprobe-int3, or
 * a raw number (for bad-input tests). FUNC is resolved in /proc/kallsyms.
 * How calls are made: tracerd_testmod_* through the test module's debugfs
 * (which runs in this process), the getpgid syscall handler by syscalls.
 * Attach options:
 *   --addr HEX|+OFF  address to send (default: FUNC's), +OFF adds to it
 *   --name STR       name to send (default FUNC); --name-fill N: N 'a's
 *                    with no NUL (N = field size)
 *   --tgid N|self    tgid filter (default self for count/cycles, 0 else)
 *   --flags N  --reserved N  --repeat R
 *   --argw N         the argw field (ABI 1.7; default 1 for direct
 *                    --latency, else --reserved's N or 0)
 *   --latency        TRACERD_ATTACH_LATENCY: count also reads each
 *                    attachment's histogram (TRACERD_IOC_LATENCY), prints
 *                    "lat: count=.. sum=.. min=.. max=.. missed=.. hist=.."
 *                    and exits 1 unless count == hist total == N, min <= max
 *                    and nothing missed; without it, LATENCY must say ENODATA
 *   --other M        count: a child process makes M calls too (filtered)
 *   --comm NAME      TRACERD_IOC_ATTACH2 with this comm filter (ABI 1.6);
 *                    --comm-fill N: N 'c's and no NUL when N is 16;
 *                    --comm-tail C: byte 15 of the field is C (a byte
 *                    past the NUL); --reserved2 N: reserved2[0];
 *                    --attach2: ATTACH2 even without those
 *   --as NAME        count: this process's comm (PR_SET_NAME) before its calls
 *   --stacks D       TRACERD_ATTACH_STACKS, stack_depth D (ATTACH2, ABI 1.8);
 *                    --stack-slots N: stack_slots
 *   --other-comm NAME  count: the --other child's comm
 * Exit status: 0 ok, errno of a failed ioctl, 1 mismatch, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <tracerd/kmod_abi.h>

#define TESTMOD_DBG "/sys/kernel/debug/tracerd_testmod"
#define MAX_REPEAT 256

struct opts {
	const char *addr;	/* --addr */
	const char *name;	/* --name */
	int name_fill;		/* --name-fill */
	long long tgid;		/* --tgid, -1 = default */
	unsigned int flags;
	unsigned int reserved;
	long long argw;		/* --argw, -1 = default */
	int repeat;
	long other;
	const char *ready;	/* --signal-ready */
	unsigned int reps;	/* --reps */
	const char *comm;	/* --comm */
	int comm_fill;		/* --comm-fill */
	int comm_tail;		/* --comm-tail */
	unsigned long long reserved2;	/* --reserved2 */
	int attach2;		/* ATTACH2: any of the four, or --attach2 */
	const char *as;		/* --as */
	const char *other_comm;	/* --other-comm */
	unsigned int stack_depth;	/* --stacks */
	unsigned int stack_slots;	/* --stack-slots */
};

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

static int dev_open(void)
{
	int fd = open(TRACERD_DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "kmodctl: open %s: %s\n", TRACERD_DEV_PATH, strerror(errno));
		exit(errno);
	}
	return fd;
}

/* MODE name (or number) to mode and flags; -1 when unknown. */
static int parse_mode(const char *s, unsigned int *flags)
{
	char *end;
	long v;

	if (!strcmp(s, "callops"))
		return TRACERD_KMOD_CALLOPS;
	if (!strcmp(s, "callops-regs")) {
		*flags |= TRACERD_ATTACH_SAVE_REGS;
		return TRACERD_KMOD_CALLOPS;
	}
	if (!strcmp(s, "direct"))
		return TRACERD_KMOD_DIRECT;
	if (!strcmp(s, "kprobe"))
		return TRACERD_KMOD_KPROBE;
	if (!strcmp(s, "kprobe-int3"))
		return TRACERD_KMOD_KPROBE_INT3;
	v = strtol(s, &end, 0);
	if (*s && !*end && v >= 0)
		return (int)v;
	fprintf(stderr, "kmodctl: unknown mode '%s'\n", s);
	exit(2);
}

/*
 * Address of FUNC from /proc/kallsyms (first exact match), 0 if none. The
 * last answer is cached: reading kallsyms is slow under TCG.
 */
static unsigned long long ksym_addr(const char *func)
{
	static char cached_name[256];
	static unsigned long long cached_addr;
	char line[512], name[256], type;
	unsigned long long a, found = 0;
	FILE *f;

	if (cached_addr && !strcmp(cached_name, func))
		return cached_addr;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    !strcmp(name, func)) {
			found = a;
			break;
		}
	}
	fclose(f);
	snprintf(cached_name, sizeof(cached_name), "%s", func);
	cached_addr = found;
	return found;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->tgid = -1;
	o->argw = -1;
	o->repeat = 1;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--save-regs")) {
			o->flags |= TRACERD_ATTACH_SAVE_REGS;
			continue;
		}
		if (!strcmp(a, "--latency")) {
			o->flags |= TRACERD_ATTACH_LATENCY;
			continue;
		}
		if (!strcmp(a, "--attach2")) {
			o->attach2 = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "kmodctl: bad option '%s'\n", a);
			exit(2);
		}
		i++;
		if (!strcmp(a, "--addr"))
			o->addr = v;
		else if (!strcmp(a, "--name"))
			o->name = v;
		else if (!strcmp(a, "--name-fill"))
			o->name_fill = atoi(v);
		else if (!strcmp(a, "--tgid"))
			o->tgid = !strcmp(v, "self") ? getpid() : strtoll(v, NULL, 0);
		else if (!strcmp(a, "--flags"))
			o->flags = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--reserved"))
			o->reserved = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--argw"))
			o->argw = strtoll(v, NULL, 0);
		else if (!strcmp(a, "--repeat"))
			o->repeat = atoi(v);
		else if (!strcmp(a, "--other"))
			o->other = atol(v);
		else if (!strcmp(a, "--signal-ready"))
			o->ready = v;
		else if (!strcmp(a, "--reps"))
			o->reps = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--comm"))
			o->comm = v, o->attach2 = 1;
		else if (!strcmp(a, "--comm-fill"))
			o->comm_fill = atoi(v), o->attach2 = 1;
		else if (!strcmp(a, "--comm-tail"))
			o->comm_tail = v[0], o->attach2 = 1;
		else if (!strcmp(a, "--reserved2"))
			o->reserved2 = strtoull(v, NULL, 0), o->attach2 = 1;
		else if (!strcmp(a, "--as"))
			o->as = v;
		else if (!strcmp(a, "--other-comm"))
			o->other_comm = v;
		else if (!strcmp(a, "--stacks"))
			o->stack_depth = strtoul(v, NULL, 0), o->flags |= TRACERD_ATTACH_STACKS,
			o->attach2 = 1;
		else if (!strcmp(a, "--stack-slots"))
			o->stack_slots = strtoul(v, NULL, 0), o->attach2 = 1;
		else {
			fprintf(stderr, "kmodctl: bad option '%s'\n", a);
			exit(2);
		}
	}
	if (o->repeat < 1 || o->repeat > MAX_REPEAT) {
		fprintf(stderr, "kmodctl: --repeat 1..%d\n", MAX_REPEAT);
		exit(2);
	}
}

/* Fill an attach request for MODE FUNC with the options applied. */
static void make_req(struct tracerd_attach2 *req, const char *mode, const char *func,
		     const struct opts *o, long long def_tgid)
{
	unsigned long long addr = ksym_addr(func);

	memset(req, 0, sizeof(*req));
	req->flags = o->flags;
	req->mode = parse_mode(mode, &req->flags);
	if (o->addr && o->addr[0] == '+')
		addr += strtoull(o->addr + 1, NULL, 0);
	else if (o->addr)
		addr = strtoull(o->addr, NULL, 16);
	else if (!addr) {
		fprintf(stderr, "kmodctl: '%s' not in /proc/kallsyms\n", func);
		exit(2);
	}
	req->addr = addr;
	req->tgid = (__u32)(o->tgid >= 0 ? o->tgid : def_tgid);
	/* argw: --argw, else --reserved, else 1 for kmod-direct latency (the
	 * test functions take their arguments in registers) */
	req->argw = o->argw >= 0 ? (__u32)o->argw : o->reserved ? o->reserved :
		    req->mode == TRACERD_KMOD_DIRECT && (req->flags & TRACERD_ATTACH_LATENCY);
	if (o->name_fill)
		memset(req->name, 'a', o->name_fill < TRACERD_NAME_LEN ? o->name_fill
								  : TRACERD_NAME_LEN);
	else
		snprintf(req->name, sizeof(req->name), "%s", o->name ? o->name : func);
	if (o->comm_fill)
		memset(req->comm, 'c', o->comm_fill < TRACERD_COMM_FILTER_LEN ?
		       o->comm_fill : TRACERD_COMM_FILTER_LEN);
	else if (o->comm)
		memcpy(req->comm, o->comm, strnlen(o->comm, sizeof(req->comm)));	/* no NUL when 16 */
	if (o->comm_tail)
		req->comm[TRACERD_COMM_FILTER_LEN - 1] = (char)o->comm_tail;
	/* --reserved2: the 8 bytes after comm (stack_depth and stack_slots
	 * since ABI 1.8), so a bad value stays one without TRACERD_ATTACH_STACKS */
	if (o->reserved2)
		memcpy(&req->stack_depth, &o->reserved2, sizeof(o->reserved2));
	else
		req->stack_depth = o->stack_depth, req->stack_slots = o->stack_slots;
	req->id = o->attach2;	/* do_attach's: which ioctl */
}

/* Attach req (ATTACH2 when make_req said so); print the outcome; 0 or errno. */
static int do_attach(int fd, struct tracerd_attach2 *req, int verbose)
{
	unsigned long cmd = req->id ? TRACERD_IOC_ATTACH2 : TRACERD_IOC_ATTACH;

	req->id = 0;
	if (ioctl(fd, cmd, req)) {
		int e = errno;

		printf("attach: error %s (%d)\n", errname(e), e);
		return e;
	}
	if (verbose)
		printf("attach: id=%llu probe=+%llu\n", (unsigned long long)req->id,
		       (unsigned long long)(req->probe_addr - req->addr));
	return 0;
}

static int read_counters(int fd, __u64 id, struct tracerd_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	if (ioctl(fd, TRACERD_IOC_COUNTERS, c)) {
		int e = errno;

		printf("counters %llu: error %s\n", (unsigned long long)id, errname(e));
		return e;
	}
	return 0;
}

static int detach(int fd, __u64 id)
{
	struct tracerd_detach d = { .id = id };

	if (ioctl(fd, TRACERD_IOC_DETACH, &d)) {
		int e = errno;

		printf("detach %llu: error %s\n", (unsigned long long)id, errname(e));
		return e;
	}
	return 0;
}

/* Make n calls of func from this process. */
static int make_calls(const char *func, long n)
{
	char path[256], buf[64];
	long i;
	int fd, len;

	if (!strncmp(func, "tracerd_testmod_fn_", 19)) {
		snprintf(path, sizeof(path), TESTMOD_DBG "/call_fn");
		len = snprintf(buf, sizeof(buf), "%ld %ld", strtol(func + 19, NULL, 16), n);
	} else if (!strcmp(func, "tracerd_testmod_target")) {
		snprintf(path, sizeof(path), TESTMOD_DBG "/call");
		len = snprintf(buf, sizeof(buf), "%ld", n);
	} else if (strstr(func, "sys_getpgid")) {
		for (i = 0; i < n; i++)
			syscall(SYS_getpgid, 0);
		return 0;
	} else {
		fprintf(stderr, "kmodctl: do not know how to call '%s'\n", func);
		return 2;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, buf, len) != len) {
		fprintf(stderr, "kmodctl: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

static int cmd_features(void)
{
	struct tracerd_features f;
	int fd = dev_open();

	memset(&f, 0, sizeof(f));
	if (ioctl(fd, TRACERD_IOC_FEATURES, &f))
		return errno;
	printf("flags=0x%llx modes=0x%x attach_flags=0x%x version_code=0x%x\n",
	       (unsigned long long)f.flags, f.modes, f.attach_flags, f.linux_version_code);
	printf("direct_slots=%u name_len=%u max_attach=%u max_calls=%llu\n",
	       f.direct_slots, f.name_len, f.max_attach, (unsigned long long)f.max_calls);
	printf("max_relevant=%u max_irrelevant=%u max_funcs=%u arch=%s release=%s\n",
	       f.max_relevant, f.max_irrelevant, f.max_funcs, f.arch, f.release);
	printf("latency_mask=0x%x fprobe=%d stacks=%d\n", f.latency_modes,
	       !!(f.flags & TRACERD_FEAT_FPROBE), !!(f.flags & TRACERD_FEAT_STACKS));
	printf("direct_calls=%d call_ops=%d with_args=%d with_regs=%d kprobes=%d "
	       "kprobes_on_ftrace=%d ibt=%d call_depth=%d\n",
	       !!(f.flags & TRACERD_FEAT_DIRECT_CALLS), !!(f.flags & TRACERD_FEAT_CALL_OPS),
	       !!(f.flags & TRACERD_FEAT_WITH_ARGS), !!(f.flags & TRACERD_FEAT_WITH_REGS),
	       !!(f.flags & TRACERD_FEAT_KPROBES), !!(f.flags & TRACERD_FEAT_KPROBES_ON_FTRACE),
	       !!(f.flags & TRACERD_FEAT_IBT), !!(f.flags & TRACERD_FEAT_CALL_DEPTH));
	return 0;
}

static int cmd_stats(int clean)
{
	struct tracerd_stats s;
	int fd = dev_open();

	memset(&s, 0, sizeof(s));
	if (ioctl(fd, TRACERD_IOC_STATS, &s))
		return errno;
	close(fd);
	printf("files=%llu attachments=%llu allocs=%llu direct_slots=%llu draining=%llu\n",
	       (unsigned long long)s.files, (unsigned long long)s.attachments,
	       (unsigned long long)s.allocs, (unsigned long long)s.direct_slots,
	       (unsigned long long)s.draining);
	if (clean && (s.files != 1 || s.attachments || s.allocs != 1 || s.direct_slots ||
		      s.draining))
		return 1;
	return 0;
}

/* Print the lines of path (a kernel list that must be empty); their count. */
static int list_lines(const char *path)
{
	char line[512];
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		printf("clean: cannot read %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		printf("clean: %s: %s", path, line);
		n++;
	}
	fclose(f);
	return n;
}

static int cmd_clean(void)
{
	int bad = cmd_stats(1) != 0;

	bad |= list_lines("/sys/kernel/tracing/enabled_functions") != 0;
	bad |= list_lines("/sys/kernel/debug/kprobes/list") != 0;
	if (bad)
		printf("clean: NOT clean\n");
	return bad;
}

static int cmd_attach(int argc, char **argv)
{
	struct tracerd_attach2 req;
	struct opts o;
	int fd, i, err = 0;

	if (argc < 2)
		return 2;
	parse_opts(argc - 2, argv + 2, &o);
	fd = dev_open();
	for (i = 0; i < o.repeat; i++) {
		make_req(&req, argv[0], argv[1], &o, 0);
		err = do_attach(fd, &req, 1) ?: err;
	}
	return err;
}

/*
 * The latency of attachment id after n calls: with TRACERD_ATTACH_LATENCY
 * every call timed once (count == sum of hist == n), min <= max, nothing
 * missed; without it the ioctl says ENODATA. 0, errno, or 1 on mismatch.
 */
static int check_latency(int fd, __u64 id, __u32 flags, long n, int verbose)
{
	struct tracerd_latency l = { .id = id };
	unsigned long long total = 0;
	int b, e;

	if (ioctl(fd, TRACERD_IOC_LATENCY, &l)) {
		e = errno;
		if (!(flags & TRACERD_ATTACH_LATENCY) && e == ENODATA)
			return 0;
		printf("latency %llu: error %s\n", (unsigned long long)id, errname(e));
		return e;
	}
	if (!(flags & TRACERD_ATTACH_LATENCY)) {
		printf("MISMATCH attachment %llu: LATENCY answered without the flag\n",
		       (unsigned long long)id);
		return 1;
	}
	for (b = 0; b < TRACERD_LAT_BUCKETS; b++)
		total += l.hist[b];
	if (verbose)
		printf("lat: count=%llu sum=%llu min=%llu max=%llu missed=%llu hist=%llu\n",
		       (unsigned long long)l.count, (unsigned long long)l.sum_ns,
		       (unsigned long long)l.min_ns, (unsigned long long)l.max_ns,
		       (unsigned long long)l.missed, total);
	if (l.count != (__u64)n || total != l.count || l.min_ns > l.max_ns || l.missed ||
	    l.reserved[0] || l.reserved[1] || l.id != id) {
		printf("MISMATCH attachment %llu: latency count=%llu hist=%llu want %ld, "
		       "min=%llu max=%llu missed=%llu\n", (unsigned long long)id,
		       (unsigned long long)l.count, total, n, (unsigned long long)l.min_ns,
		       (unsigned long long)l.max_ns, (unsigned long long)l.missed);
		return 1;
	}
	return 0;
}

/* Attach R times, make n calls (and m from a child), check every count. */
/*
 * After a count mismatch: what the call site holds now (the patched
 * instruction, where it branches, the CALL_OPS literal's ops) and whether a
 * second round of n calls is counted. A site that reads as ours while a
 * second round still counts nothing is code the CPU did not refetch after
 * the patch (tests/vm/README.md, "Truly parallel CPUs").
 */
static int print_site(int fd, __u64 id, const char *when);
static void ksym_addrs(char **names, int n, unsigned long long *addrs);

/* What func's call site holds now, the CALL_OPS literal's ops included. */
static void print_live_site(int fd, const char *func)
{
	struct tracerd_site_entry e = {};
	struct tracerd_sites req = { .entries = (uint64_t)(uintptr_t)&e, .count = 1 };
	unsigned long long addr = 0;
	char *name = (char *)func;

	ksym_addrs(&name, 1, &addr);
	e.addr = addr;
	if (!addr || ioctl(fd, TRACERD_IOC_SITES, &req) || e.error) {
		printf("live site %s: unreadable (%s)\n", func, addr ? errname(errno) : "no symbol");
		return;
	}
	printf("live site %s: kind=%u insn=%08x target=%s ops=%u:%s call=%s\n", func, e.kind,
	       e.insn, e.target_sym[0] ? e.target_sym : "-", e.ops_kind,
	       e.ops_sym[0] ? e.ops_sym : "-", e.ops_call_sym[0] ? e.ops_call_sym : "-");
}

static void recheck(int fd, __u64 id, const char *func, long n)
{
	struct tracerd_counters a, b;

	print_site(fd, id, "after-mismatch");
	print_live_site(fd, func);
	if (read_counters(fd, id, &a) || make_calls(func, n) || read_counters(fd, id, &b))
		return;
	printf("recheck attachment %llu: a second round of %ld calls counted %llu (filtered %llu)\n",
	       (unsigned long long)id, n, (unsigned long long)(b.hits - a.hits),
	       (unsigned long long)(b.filtered - a.filtered));
}

static int count_once(int fd, const char *mode, const char *func, long n,
		      const struct opts *o, int verbose)
{
	__u64 ids[MAX_REPEAT];
	struct tracerd_attach2 req;
	struct tracerd_counters c;
	int i, err, bad = 0;
	pid_t child = -1;

	for (i = 0; i < o->repeat; i++) {
		make_req(&req, mode, func, o, getpid());
		err = do_attach(fd, &req, verbose);
		if (err)
			return err;
		ids[i] = req.id;
	}
	if (o->as && prctl(PR_SET_NAME, o->as, 0, 0, 0))
		return errno;
	if (o->other > 0) {
		child = fork();
		if (child == 0) {
			if (o->other_comm && prctl(PR_SET_NAME, o->other_comm, 0, 0, 0))
				_exit(3);
			_exit(make_calls(func, o->other));
		}
	}
	err = make_calls(func, n);
	if (child > 0) {
		int st;

		waitpid(child, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			err = err ?: 1;
	}
	for (i = 0; i < o->repeat; i++) {
		err = read_counters(fd, ids[i], &c) ?: err;
		if (verbose)
			printf("hits=%llu filtered=%llu missed=%llu\n",
			       (unsigned long long)c.hits, (unsigned long long)c.filtered,
			       (unsigned long long)c.missed);
		if (c.hits != (__u64)n || c.missed) {
			printf("MISMATCH attachment %llu: hits=%llu want %ld (missed %llu)\n",
			       (unsigned long long)ids[i], (unsigned long long)c.hits, n,
			       (unsigned long long)c.missed);
			bad = 1;
			recheck(fd, ids[i], func, n);
		}
		if (check_latency(fd, ids[i], req.flags, n, verbose))
			bad = 1;
		if (o->other > 0 && c.filtered < (__u64)o->other) {
			printf("MISMATCH attachment %llu: filtered=%llu want >= %ld\n",
			       (unsigned long long)ids[i], (unsigned long long)c.filtered,
			       o->other);
			bad = 1;
		}
		err = detach(fd, ids[i]) ?: err;
	}
	return err ?: bad;
}

static int cmd_count(int argc, char **argv)
{
	struct opts o;

	if (argc < 3)
		return 2;
	parse_opts(argc - 3, argv + 3, &o);
	return count_once(dev_open(), argv[0], argv[1], atol(argv[2]), &o, 1);
}

static int cmd_cycles(int argc, char **argv)
{
	struct opts o;
	long c, cycles;
	int fd, err;

	if (argc < 4)
		return 2;
	parse_opts(argc - 4, argv + 4, &o);
	cycles = atol(argv[2]);
	fd = dev_open();
	for (c = 0; c < cycles; c++) {
		err = count_once(fd, argv[0], argv[1], atol(argv[3]), &o, 0);
		if (err) {
			printf("cycle %ld failed: %d\n", c, err);
			return err;
		}
	}
	printf("cycles=%ld ok\n", cycles);
	return 0;
}

static int cmd_hold(int argc, char **argv)
{
	struct tracerd_attach2 req;
	struct opts o;
	int fd, i, nspec = 0, err;

	while (nspec < argc && strncmp(argv[nspec], "--", 2))
		nspec++;
	parse_opts(argc - nspec, argv + nspec, &o);
	fd = dev_open();
	for (i = 0; i < nspec; i++) {
		char *spec = strdup(argv[i]), *func = strchr(spec, ':');

		if (!func)
			return 2;
		*func++ = '\0';
		make_req(&req, spec, func, &o, 0);
		err = do_attach(fd, &req, 1);
		if (err)
			return err;
		free(spec);
	}
	fflush(stdout);
	if (o.ready)
		close(open(o.ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	for (;;)
		pause();
	return 0;
}

static int cmd_hot(const char *func)
{
	for (;;) {
		if (make_calls(func, 10000))
			return 1;
	}
}

static int print_site(int fd, __u64 id, const char *when);

static int cmd_id(const char *what, const char *id)
{
	int fd = dev_open();
	struct tracerd_counters c;

	if (!strcmp(what, "detach"))
		return detach(fd, strtoull(id, NULL, 0));
	if (!strcmp(what, "site"))
		return print_site(fd, strtoull(id, NULL, 0), "id");
	if (!strcmp(what, "latency")) {
		struct tracerd_latency l = { .id = strtoull(id, NULL, 0) };

		if (ioctl(fd, TRACERD_IOC_LATENCY, &l)) {
			printf("latency: error %s\n", errname(errno));
			return errno;
		}
		return 0;
	}
	return read_counters(fd, strtoull(id, NULL, 0), &c);
}

static int cmd_ioctl_nr(const char *nr)
{
	char buf[256] = { 0 };
	int fd = dev_open();

	if (ioctl(fd, _IOWR(TRACERD_IOC_MAGIC, atoi(nr), char[64]), buf)) {
		printf("ioctl: error %s\n", errname(errno));
		return errno;
	}
	return 0;
}

static int cmd_counters_batch(const char *count)
{
	unsigned int n = (unsigned int)strtoul(count, NULL, 10), i, enoent = 0;
	struct tracerd_counters_entry *e = calloc(n ? n : 1, sizeof(*e));
	struct tracerd_counters_batch b = { .count = n };
	int fd = dev_open();

	if (!e)
		return ENOMEM;
	for (i = 0; i < n; i++)
		e[i].id = i + 1;
	b.entries = (__u64)(uintptr_t)e;
	if (ioctl(fd, TRACERD_IOC_COUNTERS_BATCH, &b)) {
		printf("counters-batch: error %s\n", errname(errno));
		free(e);
		return errno;
	}
	for (i = 0; i < n; i++)
		enoent += e[i].error == -ENOENT;
	printf("counters-batch: done=%u enoent=%u\n", b.done, enoent);
	free(e);
	return 0;
}

static int cmd_batch_over(void)
{
	struct tracerd_features f = { 0 };
	struct tracerd_batch b = { .mode = TRACERD_KMOD_CALLOPS };
	int fd = dev_open();

	if (ioctl(fd, TRACERD_IOC_FEATURES, &f)) {
		printf("features: error %s\n", errname(errno));
		return errno;
	}
	/* the count is checked before the entries: none is ever read */
	b.count = f.max_attach + 1;
	b.entries = 8;
	if (ioctl(fd, TRACERD_IOC_ATTACH_BATCH, &b)) {
		printf("batch-over: count %u: error %s\n", b.count, errname(errno));
		return errno;
	}
	return 0;
}

static int bench_ops(int fd, struct tracerd_bench_ops *b)
{
	if (ioctl(fd, TRACERD_IOC_BENCH_OPS, b)) {
		int e = errno;

		printf("bench-ops: error %s (%d)", errname(e), e);
		if (e == EPROTO)
			printf(" hits=%llu irrelevant_hits=%llu",
			       (unsigned long long)b->hits,
			       (unsigned long long)b->irrelevant_hits);
		printf("\n");
		return e;
	}
	return 0;
}

static int cmd_bench_ops(int argc, char **argv)
{
	struct tracerd_bench_ops b;
	struct opts o;
	int err;

	if (argc < 4)
		return 2;
	parse_opts(argc - 4, argv + 4, &o);
	memset(&b, 0, sizeof(b));
	b.flags = o.flags;
	b.mode = parse_mode(argv[0], &b.flags);
	b.calls = strtoull(argv[1], NULL, 0);
	b.relevant = strtoul(argv[2], NULL, 0);
	b.irrelevant = strtoul(argv[3], NULL, 0);
	b.reps = o.reps;
	b.reserved = o.reserved;
	err = bench_ops(dev_open(), &b);
	if (err)
		return err;
	printf("calls=%llu reps=%u relevant=%u irrelevant=%u total_ns=%llu per_call_ns=%llu "
	       "base_per_call_ns=%llu overhead_ps=%lld hits=%llu irrelevant_hits=%llu\n",
	       (unsigned long long)b.calls, b.reps, b.relevant, b.irrelevant,
	       (unsigned long long)b.total_ns, (unsigned long long)b.per_call_ns,
	       (unsigned long long)b.base_per_call_ns, (long long)b.overhead_ps,
	       (unsigned long long)b.hits, (unsigned long long)b.irrelevant_hits);
	return 0;
}

static int cmd_bench_patch(int argc, char **argv)
{
	struct tracerd_bench_patch b;
	struct opts o;

	if (argc < 2)
		return 2;
	parse_opts(argc - 2, argv + 2, &o);
	memset(&b, 0, sizeof(b));
	b.flags = o.flags;
	b.mode = parse_mode(argv[0], &b.flags);
	b.funcs = strtoul(argv[1], NULL, 0);
	b.reserved = o.reserved;
	if (ioctl(dev_open(), TRACERD_IOC_BENCH_PATCH, &b)) {
		int e = errno;

		printf("bench-patch: error %s (%d) one_hits=%llu sep_hits=%llu\n", errname(e), e,
		       (unsigned long long)b.one_hits, (unsigned long long)b.sep_hits);
		return e;
	}
	printf("funcs=%u one_attach_ns=%llu one_detach_ns=%llu sep_attach_ns=%llu "
	       "sep_detach_ns=%llu one_hits=%llu sep_hits=%llu\n", b.funcs,
	       (unsigned long long)b.one_attach_ns, (unsigned long long)b.one_detach_ns,
	       (unsigned long long)b.sep_attach_ns, (unsigned long long)b.sep_detach_ns,
	       (unsigned long long)b.one_hits, (unsigned long long)b.sep_hits);
	return 0;
}

static int cmd_bench_all(int argc, char **argv)
{
	struct tracerd_bench_all b;
	struct opts o;

	if (argc < 1)
		return 2;
	parse_opts(argc - 1, argv + 1, &o);
	memset(&b, 0, sizeof(b));
	b.flags = o.flags;
	b.mode = parse_mode(argv[0], &b.flags);
	b.reserved[1] = o.reserved;
	if (ioctl(dev_open(), TRACERD_IOC_BENCH_ALL, &b)) {
		int e = errno;

		printf("bench-all: error %s (%d) hits=%llu tracee_hits=%llu\n", errname(e), e,
		       (unsigned long long)b.hits, (unsigned long long)b.tracee_hits);
		return e;
	}
	printf("attach_ns=%llu detach_ns=%llu hits=%llu tracee_hits=%llu\n",
	       (unsigned long long)b.attach_ns, (unsigned long long)b.detach_ns,
	       (unsigned long long)b.hits, (unsigned long long)b.tracee_hits);
	return 0;
}

static const char *site_path_name(__u32 p)
{
	static const char *const names[] = { "nop", "direct", "caller", "unknown" };

	return p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}

/* Print the call site of attachment id: 0 or errno. */
static int print_site(int fd, __u64 id, const char *when)
{
	struct tracerd_site s = { .id = id };

	if (ioctl(fd, TRACERD_IOC_SITE, &s)) {
		int e = errno;

		printf("site %s: error %s (%d)\n", when, errname(e), e);
		return e;
	}
	s.target_sym[sizeof(s.target_sym) - 1] = '\0';
	/* tramp_mb: distance from the site to the trampoline, MiB */
	printf("site %s: path=%s insn=%08x target=%s tramp=%s tramp_mb=%llu\n", when,
	       site_path_name(s.path), s.insn, s.target_sym[0] ? s.target_sym : "-",
	       !s.tramp ? "none" : s.target == s.tramp ? "same" : "other",
	       !s.tramp ? 0ULL : (unsigned long long)(s.tramp > s.site ? s.tramp - s.site
								: s.site - s.tramp) >> 20);
	return 0;
}

static int cmd_site(int argc, char **argv)
{
	struct tracerd_attach2 req, req2;
	struct opts o;
	int fd, err, i;

	if (argc < 2)
		return 2;
	parse_opts(0, NULL, &o);
	fd = dev_open();
	make_req(&req, argv[0], argv[1], &o, 0);
	err = do_attach(fd, &req, 0);
	if (err)
		return err;
	err = print_site(fd, req.id, argv[0]);
	for (i = 2; !err && i < argc; i++) {
		char when[64];

		make_req(&req2, argv[i], argv[1], &o, 0);
		err = do_attach(fd, &req2, 0);
		if (err)
			break;
		snprintf(when, sizeof(when), "%s+%s", argv[0], argv[i]);
		err = print_site(fd, req.id, when);
		if (!err)
			err = detach(fd, req2.id);
		if (!err)
			err = print_site(fd, req.id, argv[0]);
	}
	close(fd);
	return err;
}

/* The table of seed 000 (docs/origins.md): relevant x irrelevant, per-call and overhead. */
static int cmd_table(int argc, char **argv)
{
	static const unsigned int irr[] = { 0, 1, 2, 10, 100, 200 };
	static const unsigned int rel[] = { 1, 2, 10, 100, 200 };
	unsigned int flags = 0, i, reps;
	int mode, fd, err;
	__u64 n;

	if (argc < 2)
		return 2;
	mode = parse_mode(argv[0], &flags);
	n = strtoull(argv[1], NULL, 0);
	reps = argc > 2 ? strtoul(argv[2], NULL, 0) : 5;
	fd = dev_open();
	printf("mode %s, %llu calls per point, fastest of %u runs\n", argv[0],
	       (unsigned long long)n, reps);
	printf("| relevant | irrelevant | total ns | per-call ns | overhead ns | hits |\n");
	printf("|---|---|---|---|---|---|\n");
	for (i = 0; i < 2 * 6 + 5; i++) {
		struct tracerd_bench_ops b = {
			.mode = mode, .flags = flags, .calls = n, .reps = reps,
		};

		if (i < 6) {
			b.irrelevant = irr[i];
		} else if (i < 12) {
			b.relevant = 1;
			b.irrelevant = irr[i - 6];
		} else {
			b.relevant = rel[i - 12];
			if (b.relevant == 1)
				continue;
		}
		if (mode == TRACERD_KMOD_DIRECT && b.relevant > 1)
			continue;
		err = bench_ops(fd, &b);
		if (err)
			return err;
		printf("| %u | %u | %llu | %llu | %.1f | %llu |\n", b.relevant, b.irrelevant,
		       (unsigned long long)b.total_ns, (unsigned long long)b.per_call_ns,
		       b.overhead_ps / 1000.0, (unsigned long long)b.hits);
		fflush(stdout);
	}
	return 0;
}

/* The batch's entries: one per "ADDR NAME" line of path. */
static struct tracerd_batch_entry *batch_read(const char *path, unsigned int *n)
{
	struct tracerd_batch_entry *e = NULL;
	char line[512], name[TRACERD_NAME_LEN];
	unsigned long long addr;
	unsigned int cap = 0;
	FILE *f = fopen(path, "r");

	*n = 0;
	if (!f) {
		fprintf(stderr, "kmodctl: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %127s", &addr, name) != 2)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			e = realloc(e, cap * sizeof(*e));
			if (!e)
				exit(12);
		}
		memset(&e[*n], 0, sizeof(*e));
		e[*n].addr = addr;
		snprintf(e[*n].name, sizeof(e[*n].name), "%s", name);
		(*n)++;
	}
	fclose(f);
	return e;
}

static const struct tracerd_batch_entry *batch_find(const struct tracerd_batch_entry *e,
						    unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(e[i].name, name))
			return &e[i];
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* --count FUNC N: N calls of an attached member count exactly N. */
static int batch_count(int fd, const struct tracerd_batch_entry *e, unsigned int n,
		       const char *func, long calls)
{
	const struct tracerd_batch_entry *m = batch_find(e, n, func);
	struct tracerd_counters c;
	double t0;
	int err;

	if (!m || !m->id) {
		printf("count %s: not attached\n", func);
		return 1;
	}
	t0 = now_ns();
	err = make_calls(func, calls);
	if (err)
		return err;
	t0 = now_ns() - t0;
	err = read_counters(fd, m->id, &c);
	if (err)
		return err;
	printf("hits=%llu filtered=%llu %s ns_per_call=%.0f\n", (unsigned long long)c.hits,
	       (unsigned long long)c.filtered, func, t0 / calls);
	return c.hits == (__u64)calls ? 0 : 1;
}

/* --single: the old shape, one TRACERD_IOC_ATTACH per entry. */
static void batch_single(int fd, struct tracerd_batch *b, struct tracerd_batch_entry *e)
{
	struct tracerd_attach at;
	unsigned int i;

	b->done = 0;
	for (i = 0; i < b->count; i++) {
		memset(&at, 0, sizeof(at));
		at.addr = e[i].addr;
		at.mode = b->mode;
		at.flags = b->flags;
		at.tgid = b->tgid;
		memcpy(at.name, e[i].name, sizeof(at.name));
		e[i].error = ioctl(fd, TRACERD_IOC_ATTACH, &at) ? -errno : 0;
		e[i].id = e[i].error ? 0 : at.id;
		b->done += !e[i].error;
	}
}

static int cmd_batch(int argc, char **argv)
{
	struct tracerd_batch2 b = {};
	struct tracerd_batch db;
	struct tracerd_batch_entry *e;
	const struct tracerd_batch_entry *d;
	const char *hold = NULL;
	unsigned int flags = 0, n, i;
	int fd, err, ret = 0, single = 0, batch2 = 0;
	double t0;

	if (argc < 2)
		return 2;
	b.mode = parse_mode(argv[0], &flags);
	b.flags = flags;
	b.tgid = getpid();
	e = batch_read(argv[1], &n);
	b.entries = (unsigned long)e;
	b.count = n;
	fd = dev_open();
	for (i = 2; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--single")) {
			single = 1;
		} else if (!strcmp(argv[i], "--comm") && i + 1 < (unsigned int)argc) {
			memcpy(b.comm, argv[i + 1], strnlen(argv[i + 1], sizeof(b.comm)));
			batch2 = 1;
			i++;
		} else if (!strcmp(argv[i], "--comm-fill") && i + 1 < (unsigned int)argc) {
			memset(b.comm, 'c', strtoul(argv[++i], NULL, 0) % (sizeof(b.comm) + 1));
			batch2 = 1;
		} else if (!strcmp(argv[i], "--reserved2") && i + 1 < (unsigned int)argc) {
			unsigned long long r = strtoull(argv[++i], NULL, 0);

			memcpy(&b.stack_depth, &r, sizeof(r));	/* as make_req's */
			batch2 = 1;
		} else if (!strcmp(argv[i], "--base") && i + 2 < (unsigned int)argc) {
			long calls = strtol(argv[i + 2], NULL, 0);

			t0 = now_ns();
			if (make_calls(argv[i + 1], calls))
				return 1;
			printf("base %s ns_per_call=%.0f\n", argv[i + 1], (now_ns() - t0) / calls);
			i += 2;
		}
	}
	t0 = now_ns();
	if (single) {
		memcpy(&db, &b, sizeof(db));
		batch_single(fd, &db, e);
	} else if (ioctl(fd, batch2 ? TRACERD_IOC_ATTACH_BATCH2 : TRACERD_IOC_ATTACH_BATCH, &b)) {
		err = errno;
		printf("batch: error %s\n", errname(err));
		return err;
	}
	printf("batch: done=%u count=%u attach_ms=%.1f\n", b.done, n, (now_ns() - t0) / 1e6);
	for (i = 0; i < n; i++)
		if (e[i].error)
			printf("skip %s %s\n", e[i].name, errname(-e[i].error));
	for (i = 2; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--count") && i + 2 < (unsigned int)argc) {
			ret |= batch_count(fd, e, n, argv[i + 1], strtol(argv[i + 2], NULL, 0));
			i += 2;
		} else if (!strcmp(argv[i], "--drop") && i + 1 < (unsigned int)argc) {
			d = batch_find(e, n, argv[++i]);
			err = d && d->id ? detach(fd, d->id) : ENOENT;
			printf("drop %s: %s\n", argv[i], err ? errname(err) : "ok");
			ret |= err;
		} else if (!strcmp(argv[i], "--hold") && i + 1 < (unsigned int)argc) {
			hold = argv[++i];
		} else if (!strcmp(argv[i], "--base")) {
			i += 2;
		} else if (!strcmp(argv[i], "--comm") || !strcmp(argv[i], "--comm-fill") ||
			   !strcmp(argv[i], "--reserved2")) {
			i++;
		} else if (strcmp(argv[i], "--single")) {
			return 2;
		}
	}
	if (hold) {
		close(open(hold, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
		for (;;)
			pause();
	}
	t0 = now_ns();
	if (single) {
		b.done = 0;
		for (i = 0; i < n; i++)
			b.done += e[i].id && !detach(fd, e[i].id);
	} else {
		db = (struct tracerd_batch){ .entries = (unsigned long)e, .count = n };
		if (ioctl(fd, TRACERD_IOC_DETACH_BATCH, &db)) {
			err = errno;
			printf("detach: error %s\n", errname(err));
			return err;
		}
		b.done = db.done;
	}
	printf("detach: done=%u detach_ms=%.1f\n", b.done, (now_ns() - t0) / 1e6);
	free(e);
	return ret;
}

/* Addresses of n names in one pass over /proc/kallsyms (0: not there). */
static void ksym_addrs(char **names, int n, unsigned long long *addrs)
{
	char line[512], name[256], type;
	unsigned long long a;
	int i, left = n;
	FILE *f = fopen("/proc/kallsyms", "r");

	for (i = 0; i < n; i++)
		addrs[i] = 0;
	while (f && left && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		for (i = 0; i < n; i++)
			if (!addrs[i] && !strcmp(names[i], name)) {
				addrs[i] = a;
				left--;
			}
	}
	if (f)
		fclose(f);
}

/* TRACERD_IOC_SITES over argv's items, in one call (the ioctl's bounds). */
static int cmd_sites(int argc, char **argv)
{
	struct tracerd_site_entry *e;
	struct tracerd_sites req = {};
	int fd, i, n = 0, first = 0;

	if (argc >= 2 && !strcmp(argv[0], "--reserved")) {
		req.reserved = strtoull(argv[1], NULL, 0);
		first = 2;
	}
	if (argc <= first)
		return 2;
	e = calloc(argc, sizeof(*e));
	if (!e)
		return ENOMEM;
	{
		char **names = calloc(argc, sizeof(*names));
		unsigned long long *addrs = calloc(argc, sizeof(*addrs));
		unsigned long long *offs = calloc(argc, sizeof(*offs));
		int k = 0;

		if (!names || !addrs || !offs) {
			free(e);
			return ENOMEM;
		}
		for (i = first; i < argc; i++, k++) {
			char *plus;

			names[k] = strdup(argv[i]);
			if (!names[k])
				return ENOMEM;
			plus = strchr(names[k], '+');
			if (plus) {
				*plus++ = '\0';
				offs[k] = strtoull(plus, NULL, 0);
			}
		}
		ksym_addrs(names, k, addrs);
		for (i = 0; i < k; i++, n++) {
			if (!strncmp(names[i], "0x", 2)) {
				e[n].addr = strtoull(names[i], NULL, 16);
			} else if (!addrs[i]) {
				fprintf(stderr, "kmodctl: '%s' not in /proc/kallsyms\n", names[i]);
				return 2;
			} else {
				e[n].addr = addrs[i];
			}
			e[n].addr += offs[i];
			free(names[i]);
		}
		free(names);
		free(addrs);
		free(offs);
	}
	req.entries = (uint64_t)(uintptr_t)e;
	req.count = n;
	fd = dev_open();
	if (ioctl(fd, TRACERD_IOC_SITES, &req)) {
		int err = errno;

		fprintf(stderr, "kmodctl: sites: %s\n", strerror(err));
		free(e);
		close(fd);
		return err;
	}
	for (i = 0; i < n; i++) {
		if (e[i].error)
			printf("%s error=%d\n", argv[first + i], -e[i].error);
		else
			printf("%s kind=%u target=%s insn=0x%08x ops=%u:%s call=%s\n",
			       argv[first + i], e[i].kind,
			       e[i].target_sym[0] ? e[i].target_sym : "-", e[i].insn, e[i].ops_kind,
			       e[i].ops_sym[0] ? e[i].ops_sym : "-",
			       e[i].ops_call_sym[0] ? e[i].ops_call_sym : "-");
	}
	printf("sites: done=%u count=%u\n", req.done, req.count);
	free(e);
	close(fd);
	return 0;
}

/* /proc/kallsyms' text symbols, sorted by address, to name stack frames. */
struct ksym {
	unsigned long long addr;
	char name[128];
};

static int ksym_cmp(const void *x, const void *y)
{
	const struct ksym *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static struct ksym *ksyms_load(size_t *n)
{
	char line[512], name[256], type;
	unsigned long long a;
	struct ksym *k = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 ||
		    (type != 't' && type != 'T'))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 65536;
			k = realloc(k, cap * sizeof(*k));
			if (!k)
				exit(1);
		}
		k[*n].addr = a;
		snprintf(k[*n].name, sizeof(k[*n].name), "%.127s", name);
		(*n)++;
	}
	fclose(f);
	qsort(k, *n, sizeof(*k), ksym_cmp);
	return k;
}

/* "name+0xoff" of ip (the greatest symbol not above it), or "0xADDR". */
static void ksym_name(const struct ksym *k, size_t n, unsigned long long ip, char *out,
		      size_t len)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	if (!n || k[lo].addr > ip)
		snprintf(out, len, "0x%llx", ip);
	else
		snprintf(out, len, "%s+0x%llx", k[lo].name, ip - k[lo].addr);
}

/* TRACERD_IOC_STACKS of id, printed; 0 or errno. */
static int print_stacks(int fd, __u64 id)
{
	struct tracerd_stacks s = { .id = id };
	struct ksym *k;
	size_t nk;
	char *buf, *p;
	__u32 i, j;
	int e;

	/* size 0: ENOSPC and the size needed, unless the table is empty */
	e = ioctl(fd, TRACERD_IOC_STACKS, &s) ? errno : 0;

	if (e && e != ENOSPC) {
		printf("stacks: error %s (%d)\n", errname(e), e);
		return e;
	}
	if ((e == ENOSPC) != (s.total > 0) || s.stacks || (s.total > 0) != (s.need > 0)) {
		printf("stacks: size 0 said total=%u stacks=%u need=%llu\n", s.total, s.stacks,
		       (unsigned long long)s.need);
		return 1;
	}
	buf = malloc(s.need ? s.need : 1);
	if (!buf)
		return ENOMEM;
	s.buf = (unsigned long)buf;
	s.size = s.need;
	if (ioctl(fd, TRACERD_IOC_STACKS, &s)) {
		e = errno;
		printf("stacks: error %s (%d)\n", errname(e), e);
		return e;
	}
	printf("stacks: total=%u dropped=%llu depth=%u slots=%u\n", s.total,
	       (unsigned long long)s.dropped, s.depth, s.slots);
	k = ksyms_load(&nk);
	for (i = 0, p = buf; i < s.stacks; i++) {
		struct tracerd_stack_rec r;
		const __u64 *ips = (const __u64 *)(p + sizeof(r));

		memcpy(&r, p, sizeof(r));
		printf("stack count=%llu nr=%u:", (unsigned long long)r.count, r.nr);
		for (j = 0; j < r.nr; j++) {
			char name[160];

			ksym_name(k, nk, ips[j], name, sizeof(name));
			printf(" %s", name);
		}
		printf("\n");
		p += sizeof(r) + r.nr * sizeof(__u64);
	}
	free(k);
	free(buf);
	return 0;
}

/* Attach req as a one-entry ATTACH_BATCH2; 0 or errno (the entry's). */
static int attach_batch1(int fd, struct tracerd_attach2 *req)
{
	struct tracerd_batch_entry e = { .addr = req->addr, .argw = req->argw };
	struct tracerd_batch2 b = {
		.entries = (unsigned long)&e, .count = 1, .mode = req->mode,
		.flags = req->flags, .tgid = req->tgid,
		.stack_depth = req->stack_depth, .stack_slots = req->stack_slots,
	};

	memcpy(e.name, req->name, sizeof(e.name));
	memcpy(b.comm, req->comm, sizeof(b.comm));
	if (ioctl(fd, TRACERD_IOC_ATTACH_BATCH2, &b) || e.error) {
		int err = e.error ? -e.error : errno;

		printf("attach: error %s (%d)\n", errname(err), err);
		return err;
	}
	req->id = e.id;
	printf("attach: id=%llu (batch)\n", (unsigned long long)e.id);
	return 0;
}

static int cmd_stacks(int argc, char **argv)
{
	struct tracerd_attach2 req;
	struct tracerd_counters c;
	const char *hold = NULL;
	int fd, i, err, batch = 0, len, wfd;
	struct opts o;

	if (argc < 4)
		return 2;
	for (i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--batch")) {
			batch = 1;
			memmove(&argv[i], &argv[i + 1], (argc - i - 1) * sizeof(*argv));
			argc--, i--;
		} else if (!strcmp(argv[i], "--hold") && i + 1 < argc) {
			hold = argv[i + 1];
			memmove(&argv[i], &argv[i + 2], (argc - i - 2) * sizeof(*argv));
			argc -= 2, i--;
		}
	}
	parse_opts(argc - 4, argv + 4, &o);
	make_req(&req, argv[0], argv[1], &o, 0);
	fd = dev_open();
	err = batch ? attach_batch1(fd, &req) : do_attach(fd, &req, 1);
	if (err)
		return err;
	len = (int)strlen(argv[3]);
	wfd = open(argv[2], O_WRONLY | O_CLOEXEC);
	if (wfd < 0 || write(wfd, argv[3], len) != len) {
		fprintf(stderr, "kmodctl: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	close(wfd);
	err = read_counters(fd, req.id, &c);
	if (err)
		return err;
	printf("hits=%llu filtered=%llu missed=%llu\n", (unsigned long long)c.hits,
	       (unsigned long long)c.filtered, (unsigned long long)c.missed);
	err = print_stacks(fd, req.id);
	if (err || !hold)
		return err;
	close(open(hold, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	for (;;)
		pause();
	return 0;
}

/* TRACERD_IOC_STACKS of ID on a fresh fd, SIZE bytes of buffer (errors). */
static int cmd_stacks_id(int argc, char **argv)
{
	struct tracerd_stacks s = {};
	char buf[64];
	int fd = dev_open();

	s.id = strtoull(argv[0], NULL, 0);
	if (argc > 1)
		s.size = strtoull(argv[1], NULL, 0);
	if (argc > 3 && !strcmp(argv[2], "--reserved"))
		s.reserved[0] = strtoull(argv[3], NULL, 0);
	s.buf = (unsigned long)buf;
	if (ioctl(fd, TRACERD_IOC_STACKS, &s)) {
		int e = errno;

		printf("stacks: error %s (%d)\n", errname(e), e);
		return e;
	}
	printf("stacks: total=%u\n", s.total);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int rest = argc - 2;
	char **av = argv + 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "features"))
		return cmd_features();
	if (!strcmp(cmd, "stats"))
		return cmd_stats(rest > 0 && !strcmp(av[0], "--clean"));
	if (!strcmp(cmd, "clean"))
		return cmd_clean();
	if (!strcmp(cmd, "attach"))
		return cmd_attach(rest, av);
	if (!strcmp(cmd, "count"))
		return cmd_count(rest, av);
	if (!strcmp(cmd, "cycles"))
		return cmd_cycles(rest, av);
	if (!strcmp(cmd, "hold"))
		return cmd_hold(rest, av);
	if (!strcmp(cmd, "hot") && rest == 1)
		return cmd_hot(av[0]);
	if ((!strcmp(cmd, "detach") || !strcmp(cmd, "counters") || !strcmp(cmd, "site") ||
	     !strcmp(cmd, "latency")) && rest == 1)
		return cmd_id(cmd, av[0]);
	if (!strcmp(cmd, "ioctl-nr") && rest == 1)
		return cmd_ioctl_nr(av[0]);
	if (!strcmp(cmd, "counters-batch") && rest == 1)
		return cmd_counters_batch(av[0]);
	if (!strcmp(cmd, "batch-over") && rest == 0)
		return cmd_batch_over();
	if (!strcmp(cmd, "bench-ops"))
		return cmd_bench_ops(rest, av);
	if (!strcmp(cmd, "bench-patch"))
		return cmd_bench_patch(rest, av);
	if (!strcmp(cmd, "bench-all"))
		return cmd_bench_all(rest, av);
	if (!strcmp(cmd, "site"))
		return cmd_site(rest, av);
	if (!strcmp(cmd, "table"))
		return cmd_table(rest, av);
	if (!strcmp(cmd, "batch"))
		return cmd_batch(rest, av);
	if (!strcmp(cmd, "sites"))
		return cmd_sites(rest, av);
	if (!strcmp(cmd, "stacks"))
		return cmd_stacks(rest, av);
	if (!strcmp(cmd, "stacks-id") && rest >= 1)
		return cmd_stacks_id(rest, av);
	fprintf(stderr, "usage: see the head of tests/prog/kmodctl.c\n");
	return 2;
}
