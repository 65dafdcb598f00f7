// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Recordings; see recorder.h and docs/metrics.md ("Record files").
 * One record_writer per record NAME, shared by the attachments recording
 * to it; a slot -> writer table routes each ring-buffer event. The ring
 * buffer's epoll fd is an EV_READ|EV_PERSIST event of the daemon's loop,
 * and a 1 s timer drives the time-based flush and notices a deleted file.
 *
 * Wakeups are batched (bpf/hook.bpf.h, ringbuf_wakeup): the BPF programs
 * wake the consumer only when the ring holds TRACERD_RINGBUF_WAKEUP bytes,
 * so a RINGBUF_POLL_MS timer drains whatever stays below that.
 * A writer stopped by an error (full disk, file or record_dir deleted) is
 * logged once and counted, tracing goes on, and the next attachment that
 * joins the recording starts a new file (or is refused with the reason).
 *
 * The drain is budgeted: libbpf's ring_buffer__consume() runs until the
 * ring is empty, which under a flood kept the loop from control and HTTP
 * for seconds. on_event() returns RINGBUF_YIELD once a callback has spent
 * its budget; libbpf 1.1 (src/ringbuf.c, ringbuf_process_ring) then stores
 * the consumer position past that sample, which was handled, and returns
 * the error, so nothing is lost. A zero-delay timer resumes the drain on
 * the next loop iteration, after the loop has polled its other fds.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <event2/event.h>
#include "../lib/log.h"
#include "../lib/modes.h"
#include "../lib/record.h"
#include "../lib/spec.h"
#include "../lib/util.h"
#include "args.h"
#include "recorder.h"
#include "resolve.h"
#include "stacks.h"

struct rec_file {
	struct rec_file *next;
	char name[TRACERD_RECORD_NAME_MAX];
	struct record_writer *w;
	unsigned int refs;
	bool error_logged;
	char error[128];
	uint64_t truncations_logged;	/* cuts under the writer already logged */
};

struct rec_att {
	struct rec_att *next;
	struct attachment *a;
	struct rec_file *f;
	uint64_t drops_written;		/* ring-buffer drops already in the file */
};

#define RINGBUF_YIELD		(-EAGAIN)	/* on_event: budget spent */
#define RINGBUF_BUDGET_EVENTS	4096		/* per callback */
#define RINGBUF_BUDGET_NS	(5ULL * 1000 * 1000)
#define RINGBUF_DRAIN_EVENTS	65536		/* at detach: > what the ring holds */
#define RINGBUF_CLOCK_EVENTS	64		/* a power of 2: deadline checks ~ every 10 us */
/* Drain period without a wakeup: at 2 M events/s the ring gains 2.9 MiB
 * in 20 ms, below its 4 MiB; the producers' wakeup comes at 256 KiB. */
#define RINGBUF_POLL_MS		20
static const struct timeval poll_period = { 0, RINGBUF_POLL_MS * 1000 };

struct recorder {
	struct tracerd *d;
	int events_fd, drops_fd;
	struct ring_buffer *rb;
	struct event *rb_ev, *tick, *more, *poll;
	unsigned int budget;		/* events this callback may still take */
	unsigned int taken;		/* events taken, mod 2^32 */
	uint64_t now_ns;		/* the clock, read every RINGBUF_CLOCK_EVENTS */
	uint64_t deadline_ns;		/* ... until this time (0: none) */
	uint64_t yields;		/* drains cut short by the budget */
	struct rec_file *files;
	struct rec_att *atts;
	struct rec_file *by_slot[TRACERD_MAX_SLOTS];
	__u8 depth_by_slot[TRACERD_MAX_SLOTS];	/* --stacks of its attachment: frames kept */
	uint64_t retired_drops;		/* drops of slots no longer recording */
	uint64_t unrouted;		/* events of slots without a writer */
	/* symbolizing the top frames of slow calls' stacks: one kallsyms
	 * re-read per drain at most, however many frames do not resolve */
	struct frames_sync sync;
};

int recorder_init(struct tracerd *d)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	/* RLIMIT_FSIZE reached: write() fails with EFBIG (the recording stops,
	 * saying so) instead of SIGXFSZ killing the daemon */
	signal(SIGXFSZ, SIG_IGN);
	r->d = d;
	r->drops_fd = -1;
	r->events_fd =
		bpf_map_create(BPF_MAP_TYPE_RINGBUF, "events", 0, 0, TRACERD_RINGBUF_BYTES, NULL);
	if (r->events_fd >= 0)
		r->drops_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "rec_drops", sizeof(__u32),
					     sizeof(__u64), TRACERD_MAX_SLOTS, NULL);
	if (r->events_fd < 0 || r->drops_fd < 0) {
		int err = -errno;

		log_err("failed to create the recording maps: %s", strerror(errno));
		if (r->events_fd >= 0)
			close(r->events_fd);
		free(r);
		return err;
	}
	d->rec = r;
	return 0;
}

int recorder_reuse_maps(struct tracerd *d, struct bpf_object *obj)
{
	static const char *const names[] = { "events", "rec_drops" };
	int fds[] = { d->rec->events_fd, d->rec->drops_fd };
	struct bpf_map *m;
	size_t i;
	int err;

	for (i = 0; i < 2; i++) {
		m = bpf_object__find_map_by_name(obj, names[i]);
		if (!m)
			continue;	/* an object that does not record */
		err = bpf_map__reuse_fd(m, fds[i]);
		if (err) {
			log_err("failed to reuse map '%s': %s", names[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

static void stop_reason(struct rec_file *f, const struct record_writer_stats *st)
{
	if (st->error == -ENOENT)
		snprintf(f->error, sizeof(f->error),
			 "record file no longer at its path (deleted or moved, or record_dir "
			 "removed or replaced)");
	else
		snprintf(f->error, sizeof(f->error), "write failed: %s", strerror(-st->error));
}

static void file_check(struct rec_file *f)
{
	struct record_writer_stats st;

	record_writer__stats(f->w, &st);
	if (st.truncations > f->truncations_logged) {
		log_warn("recording '%s' (%s) was cut short under the writer (copytruncate?): a "
			 "new segment starts at its beginning (%llu so far)", f->name,
			 record_writer__path(f->w), (unsigned long long)st.truncations);
		f->truncations_logged = st.truncations;
	}
	if (!st.stopped || f->error_logged)
		return;
	stop_reason(f, &st);
	log_err("recording '%s' stopped (%s): %s; tracing goes on", f->name,
		record_writer__path(f->w), f->error);
	f->error_logged = true;
}

/*
 * A slow call with its stack (record.h, tracerd_event_stack): the frames
 * of the traced code, tracerd's own on top left out and the rest cut to
 * the attachment's depth, as stats shows them (stacks.c). A symbol
 * lookup per frame on top is affordable; a re-read of kallsyms (a frame
 * that does not resolve) happens once per drain (r->sync), not per event:
 * --slower-than 1ns makes every call slow.
 */
static int write_stack(struct recorder *r, struct rec_file *f, const void *data, size_t size)
{
	const struct tracerd_event_stack *e = data;
	__u32 nr = e->nr, skip, depth;

	if (size < sizeof(*e) || nr > TRACERD_EVENT_STACK_MAX)
		nr = 0;	/* a short sample: the event, no frames */
	skip = stacks_own_frames(r->d, &r->sync, e->ips, nr);
	nr -= skip;
	depth = r->depth_by_slot[e->ev.slot];
	if (depth && nr > depth)
		nr = depth;
	return record_writer__write_stack(f->w, &e->ev, e->ips + skip, nr, r->now_ns);
}

/*
 * Name h's slot in w and, with --args, say how its arguments read (the
 * PROTO record, from its BTF now: dump runs after the daemon is gone).
 */
static void define_hook(struct tracerd *d, struct record_writer *w, const struct attachment *a,
			const struct hook *h)
{
	bool tp = spec_is_tracepoint(a->spec.target);
	char *proto;

	record_writer__define_target(w, h->slot, a->mode, a->id, tp ? a->spec.target : h->name);
	if (!a->spec.args)
		return;
	proto = args_proto_json(resolve_hook_btf(d, h), h->args ? h->args->btf_id : 0, tp);
	if (!proto || record_writer__define_args(w, h->slot, proto))
		log_warn("recording '%s': the arguments of '%s' are recorded without their "
			 "names (no BTF prototype now)", a->spec.record, h->name);
	free(proto);
}

/*
 * A call with its arguments (--args): the whole event, or one without its
 * string area when it has no string (TRACERD_EVENT_ARGS_NOSTR: the writer
 * reads str only for strmask's bits); a shorter sample is recorded plain.
 */
static int write_args(struct recorder *r, struct rec_file *f, const void *data, size_t size)
{
	const struct tracerd_event_args *a = data;

	if (size < sizeof(*a) && (size < TRACERD_EVENT_ARGS_NOSTR || a->strmask))
		return record_writer__write(f->w, data, r->now_ns);
	return record_writer__write_args(f->w, data, r->now_ns);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;
	const struct tracerd_event *ev = data;
	struct rec_file *f;

	/* the clock once per RINGBUF_CLOCK_EVENTS events: read per event, it was
	 * the consumer's largest cost (bench record, perf: 18 % in clock_gettime) */
	if (!(++r->taken & (RINGBUF_CLOCK_EVENTS - 1)))
		r->now_ns = now_mono_ns();
	if (size < sizeof(*ev) || ev->slot >= TRACERD_MAX_SLOTS || !(f = r->by_slot[ev->slot]))
		r->unrouted++;
	else if ((ev->flags & TRACERD_EV_STACK) ? write_stack(r, f, data, size) :
		 (ev->flags & TRACERD_EV_ARGS) ? write_args(r, f, data, size) :
						 record_writer__write(f->w, ev, r->now_ns))
		file_check(f);
	/* this sample is consumed either way: libbpf stores the position past it */
	if (!--r->budget || (r->deadline_ns && r->now_ns >= r->deadline_ns))
		return RINGBUF_YIELD;
	return 0;
}

/* Drain up to events (and until deadline_ns, if not 0); true if events remain. */
static bool drain(struct recorder *r, unsigned int events, uint64_t deadline_ns)
{
	int n;

	r->budget = events;
	r->deadline_ns = deadline_ns;
	r->now_ns = now_mono_ns();
	r->sync = (struct frames_sync){ 0 };
	n = ring_buffer__consume(r->rb);
	if (n == RINGBUF_YIELD)
		return true;
	if (n < 0)
		log_warn("ring buffer: %s", strerror(-n));
	return false;
}

static void on_ringbuf(evutil_socket_t fd, short what, void *arg)
{
	struct recorder *r = arg;
	struct timeval now = { 0, 0 };

	if (drain(r, RINGBUF_BUDGET_EVENTS, now_mono_ns() + RINGBUF_BUDGET_NS)) {
		r->yields++;
		evtimer_add(r->more, &now);	/* after the loop polled the others */
	}
}

static uint64_t slot_drops(struct tracerd *d, __u32 slot, bool zero);

/* Note ring-buffer drops of an attachment's functions in its file (LOST). */
static void lost_sync(struct tracerd *d, struct rec_att *ra)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < ra->a->nr_hooks; i++)
		sum += slot_drops(d, ra->a->hooks[i].slot, false);
	if (sum > ra->drops_written && !record_writer__lost(ra->f->w, sum - ra->drops_written))
		ra->drops_written = sum;
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct recorder *r = arg;
	uint64_t now = now_mono_ns();
	struct rec_file *f;
	struct rec_att *ra;

	for (ra = r->atts; ra; ra = ra->next)
		lost_sync(r->d, ra);
	for (f = r->files; f; f = f->next) {
		record_writer__tick(f->w, now);
		file_check(f);	/* a stop, or a cut (also seen at a flush) */
	}
}

/* The consumer and its loop events, made when the first recording starts. */
static int loop_start(struct tracerd *d)
{
	struct recorder *r = d->rec;
	struct timeval sec = { 1, 0 };
	int err;

	if (r->rb)
		return 0;
	r->rb = ring_buffer__new(r->events_fd, on_event, r, NULL);
	if (!r->rb)
		return -errno;
	r->rb_ev = event_new(d->base, ring_buffer__epoll_fd(r->rb), EV_READ | EV_PERSIST,
			     on_ringbuf, r);
	r->tick = event_new(d->base, -1, EV_PERSIST, on_tick, r);
	r->more = evtimer_new(d->base, on_ringbuf, r);
	r->poll = event_new(d->base, -1, EV_PERSIST, on_ringbuf, r);
	if (!r->rb_ev || !r->tick || !r->more || !r->poll || event_add(r->rb_ev, NULL) ||
	    event_add(r->tick, &sec)) {
		err = -ENOMEM;
		recorder_loop_stop(d);
		return err;
	}
	return 0;
}

void recorder_loop_stop(struct tracerd *d)
{
	struct recorder *r = d->rec;

	if (!r)
		return;
	if (r->rb_ev)
		event_free(r->rb_ev);
	if (r->tick)
		event_free(r->tick);
	if (r->more)
		event_free(r->more);
	if (r->poll)
		event_free(r->poll);
	r->rb_ev = r->tick = r->more = r->poll = NULL;
}

/* A writer for record NAME under record_dir (made if missing, mode 0750). */
static int writer_new(struct tracerd *d, const char *name, struct record_writer **w,
		      char *msg, size_t msglen)
{
	struct record_opts o = {
		.dir = d->cfg.record_dir, .name = name, .max_bytes = d->cfg.record_max_bytes,
		.keep = d->cfg.record_keep,
	};

	if (mkdir(d->cfg.record_dir, 0750) && errno != EEXIST)
		return set_err(msg, msglen, -errno, "record_dir '%s': %s", d->cfg.record_dir,
			       strerror(errno));
	return record_writer__new(&o, w, msg, msglen);
}

/*
 * A new attachment joins a stopped recording: start a new file (the old one
 * is kept as NAME.trec.1) declaring the attachments still on it, or refuse
 * the attachment with both reasons.
 */
static int file_restart(struct tracerd *d, struct rec_file *f, char *msg, size_t msglen)
{
	struct record_writer_stats st;
	struct record_writer *w;
	struct rec_att *ra;
	char why[256];
	size_t i;
	int err;

	record_writer__stats(f->w, &st);
	if (!st.stopped)
		return 0;
	file_check(f);
	err = writer_new(d, f->name, &w, why, sizeof(why));
	if (err)
		return set_err(msg, msglen, err,
			       "recording '%s' stopped (%s) and cannot restart: %s", f->name,
			       f->error, why);
	log_notice("recording '%s' restarted in %s (it had stopped: %s)", f->name,
		   record_writer__path(w), f->error);
	record_writer__free(f->w);
	f->w = w;
	f->error[0] = '\0';
	f->error_logged = false;
	for (ra = d->rec->atts; ra; ra = ra->next) {
		if (ra->f != f)
			continue;
		for (i = 0; i < ra->a->nr_hooks; i++)
			define_hook(d, w, ra->a, &ra->a->hooks[i]);
	}
	return 0;
}

static struct rec_file *file_get(struct tracerd *d, const char *name, char *msg, size_t msglen)
{
	struct recorder *r = d->rec;
	struct rec_file *f;

	for (f = r->files; f; f = f->next)
		if (!strcmp(f->name, name)) {
			if (file_restart(d, f, msg, msglen))
				return NULL;
			f->refs++;
			return f;
		}
	f = calloc(1, sizeof(*f));
	if (!f) {
		set_err(msg, msglen, 0, "out of memory");
		return NULL;
	}
	if (writer_new(d, name, &f->w, msg, msglen)) {
		free(f);
		return NULL;
	}
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->refs = 1;
	f->next = r->files;
	r->files = f;
	log_notice("recording '%s' to %s", name, record_writer__path(f->w));
	return f;
}

static void file_put(struct recorder *r, struct rec_file *f)
{
	struct rec_file **pp;

	if (--f->refs)
		return;
	for (pp = &r->files; *pp; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	record_writer__free(f->w);
	free(f);
}

static uint64_t slot_drops(struct tracerd *d, __u32 slot, bool zero)
{
	__u64 *v = calloc(d->ncpus, sizeof(*v)), sum = 0;
	int cpu;

	if (!v)
		return 0;
	if (!bpf_map_lookup_elem(d->rec->drops_fd, &slot, v))
		for (cpu = 0; cpu < d->ncpus; cpu++)
			sum += v[cpu];
	if (zero) {
		memset(v, 0, d->ncpus * sizeof(*v));
		bpf_map_update_elem(d->rec->drops_fd, &slot, v, BPF_ANY);
	}
	free(v);
	return sum;
}

int recorder_attach(struct tracerd *d, struct attachment *a, char *msg, size_t msglen)
{
	struct recorder *r = d->rec;
	struct rec_att *ra;
	size_t i;
	int err;

	if (!a->spec.record[0])
		return 0;
	err = spec_check_record_name(a->spec.record, msg, msglen);
	if (err)
		return err;
	err = loop_start(d);
	if (err)
		return set_err(msg, msglen, err, "ring buffer consumer: %s", strerror(-err));
	ra = calloc(1, sizeof(*ra));
	if (!ra)
		return set_err(msg, msglen, -ENOMEM, "out of memory");
	ra->a = a;
	ra->f = file_get(d, a->spec.record, msg, msglen);
	if (!ra->f) {
		free(ra);
		return -EIO;
	}
	for (i = 0; i < a->nr_hooks; i++) {
		struct hook *h = &a->hooks[i];

		slot_drops(d, h->slot, true);
		define_hook(d, ra->f->w, a, h);
		r->by_slot[h->slot] = ra->f;
		r->depth_by_slot[h->slot] = (__u8)a->spec.stacks;
	}
	ra->next = r->atts;
	r->atts = ra;
	/* the drain period runs while something records (an idle daemon
	 * sleeps); started by the first recording that really joined, so a
	 * refused one (record_dir read-only, full) leaves no timer behind */
	if (!ra->next)
		event_add(r->poll, &poll_period);
	return 0;
}

void recorder_detach(struct tracerd *d, struct attachment *a)
{
	struct recorder *r = d->rec;
	struct rec_att **pp, *ra;
	size_t i;

	if (!r)
		return;
	for (pp = &r->atts; *pp; pp = &(*pp)->next)
		if ((*pp)->a == a)
			break;
	ra = *pp;
	if (!ra)
		return;
	*pp = ra->next;
	if (r->rb)	/* what is queued still goes to the file: all of it fits the budget */
		drain(r, RINGBUF_DRAIN_EVENTS, 0);
	lost_sync(d, ra);
	for (i = 0; i < a->nr_hooks; i++) {
		__u32 slot = a->hooks[i].slot;

		r->retired_drops += slot_drops(d, slot, true);
		/* later files do not declare it (#12: 3000 cycles filled them) */
		record_writer__forget_target(ra->f->w, slot);
		if (slot < TRACERD_MAX_SLOTS)
			r->by_slot[slot] = NULL;
	}
	file_put(r, ra->f);
	free(ra);
	if (!r->atts && r->poll)
		event_del(r->poll);
}

int recorder_stats(struct tracerd *d, struct attachment *a, struct metrics_record *out)
{
	struct record_writer_stats st;
	struct rec_att *ra;
	size_t i;

	if (!d->rec)
		return -ENOENT;
	for (ra = d->rec->atts; ra && ra->a != a; ra = ra->next)
		;
	if (!ra)
		return -ENOENT;
	record_writer__stats(ra->f->w, &st);
	memset(out, 0, sizeof(*out));
	out->name = ra->f->name;
	out->file = record_writer__path(ra->f->w);
	out->active = !st.stopped;
	out->error = st.stopped ? ra->f->error : NULL;
	if (st.stopped && !ra->f->error[0])
		stop_reason(ra->f, &st);
	out->events = st.events;
	out->dropped = st.dropped;
	for (i = 0; i < a->nr_hooks; i++)
		out->dropped += slot_drops(d, a->hooks[i].slot, false);
	out->bytes = st.bytes;
	out->errors = st.write_errors;
	out->rotations = st.rotations;
	out->truncations = st.truncations;
	return 0;
}

json_object *recorder_json(struct tracerd *d, struct attachment *a)
{
	struct metrics_record m;
	json_object *o;

	if (recorder_stats(d, a, &m))
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(m.name));
	json_object_object_add(o, "file", json_object_new_string(m.file));
	json_object_object_add(o, "active", json_object_new_boolean(m.active));
	json_object_object_add(o, "error", m.error ? json_object_new_string(m.error) : NULL);
	json_object_object_add(o, "events", json_object_new_uint64(m.events));
	json_object_object_add(o, "dropped", json_object_new_uint64(m.dropped));
	json_object_object_add(o, "bytes", json_object_new_uint64(m.bytes));
	return o;
}

uint64_t recorder_ringbuf_yields(struct tracerd *d)
{
	return d->rec ? d->rec->yields : 0;
}

uint64_t recorder_ringbuf_drops(struct tracerd *d)
{
	struct rec_att *ra;
	uint64_t sum;
	size_t i;

	if (!d->rec)
		return 0;
	sum = d->rec->retired_drops;
	for (ra = d->rec->atts; ra; ra = ra->next)
		for (i = 0; i < ra->a->nr_hooks; i++)
			sum += slot_drops(d, ra->a->hooks[i].slot, false);
	return sum;
}

void recorder_fini(struct tracerd *d)
{
	struct recorder *r = d->rec;

	if (!r)
		return;
	while (r->atts)
		recorder_detach(d, r->atts->a);
	recorder_loop_stop(d);
	ring_buffer__free(r->rb);
	close(r->events_fd);
	close(r->drops_fd);
	free(r);
	d->rec = NULL;
}
