// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The config's attachments, at start-up and on reload (SIGHUP, `tracectl
 * reload`, `systemctl reload tracerd`).
 *
 * Each `attach =` line of the running config remembers the attachment it
 * made (struct reload_line). A reload parses the new file completely first,
 * then binds a changed `listen` (the old listener stays until the new one
 * is bound); with an error in either, nothing changes and the reload is
 * refused. Then the attachments are reconciled:
 *   - an attachment made by an old line equal to a new line is kept (its
 *     id, counts and metric series), and now belongs to the new line;
 *   - an attachment made by an old line equal to no new line is detached;
 *   - a new line without an attachment is attached (so a line that failed
 *     before is retried), unless an attachment made with tracectl is equal
 *     to it: that one is left to tracectl, the line is satisfied.
 * Attachments made with tracectl are never detached by a reload. A line
 * whose attach fails is logged, counted (tracerd_config_attach_failures,
 * `tracectl status`) and shown in systemd's STATUS=.
 * log_level, listen, bpf_stats and the record_* keys apply at once (record_* to new
 * recordings), by_top to the next stats and scrape; socket, read_group,
 * admin_group and by_max_keys (the size of a BPF map) need a restart.
 * The state (the lines, the reload counts) is d->reload (tracerd.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include <event2/event.h>
#include "bpf_stats.h"
#include "control.h"
#include "http.h"
#include "notify.h"
#include "registry.h"
#include "reload.h"

/* what became of one `attach =` line of the running config */
struct reload_line {
	unsigned int id;	/* the attachment it made and owns, 0: none */
	bool failed;
	char *error;		/* why it failed (malloc'd; NULL on ENOMEM) */
};

static struct attachment *find_id(struct tracerd *d, unsigned int id)
{
	return id ? registry_find(d, id) : NULL;
}

static struct attachment *find_spec(struct tracerd *d, const struct tracerd_spec *s)
{
	struct attachment *a;

	for (a = d->attachments; a; a = a->next)
		if (spec_equal(&a->spec, s))
			return a;
	return NULL;
}

/* "line 3" (one file), "line 2 of /etc/tracerd/conf.d/10-x.conf" (with drop-ins) */
static const char *line_where(const struct tracerd_config *c,
			      const struct tracerd_config_attach *l,
			      char *buf, size_t len)
{
	if (l->file && c->nr_dropins)	/* several files: name it */
		snprintf(buf, len, "line %d of %s", l->line, l->file);
	else
		snprintf(buf, len, "line %d", l->line);
	return buf;
}

/* Attach the lines that own no attachment; returns how many attached. */
static unsigned int attach_lines(struct tracerd *d, const struct tracerd_config *c,
				 struct reload_line *st, const char *why)
{
	const struct tracerd_config_attach *l;
	struct attachment *a;
	unsigned int n = 0;
	char msg[1024], where[PATH_MAX + 32];
	size_t i;

	for (i = 0; i < c->nr_attach; i++) {
		l = &c->attach[i];
		if (st[i].id)
			continue;
		a = find_spec(d, &l->spec);
		if (a) {
			log_info("%sconfig %s: '%s' is attachment %u already, made with "
				 "tracectl: left to it",
				 why, line_where(c, l, where, sizeof(where)), l->spec.target,
				 a->id);
			continue;
		}
		if (registry_attach(d, &l->spec, &a, NULL, msg, sizeof(msg))) {
			log_err("%sconfig %s: attach '%s' failed: %s", why,
				line_where(c, l, where, sizeof(where)), l->spec.target, msg);
			st[i].failed = true;
			free(st[i].error);
			st[i].error = strdup(msg);
		} else {
			st[i].id = a->id;
			n++;
		}
	}
	return n;
}

/*
 * Hand the old lines' attachments to equal new lines; the ids of the rest
 * (to detach, in steps) into ids (room for old->nr_attach). How many.
 */
static size_t carry_over(struct tracerd *d, const struct tracerd_config *old,
			 const struct tracerd_config *new, struct reload_line *st, unsigned int *ids)
{
	struct reload_line *cfg_lines = d->reload.lines;
	size_t i, j, n = 0;

	for (i = 0; cfg_lines && i < old->nr_attach; i++) {
		if (!find_id(d, cfg_lines[i].id))
			continue;	/* failed, or detached with tracectl since */
		for (j = 0; j < new->nr_attach; j++)
			if (!st[j].id && spec_equal(&old->attach[i].spec, &new->attach[j].spec))
				break;
		if (j < new->nr_attach)
			st[j].id = cfg_lines[i].id;
		else
			ids[n++] = cfg_lines[i].id;
	}
	return n;
}

static void lines_free(struct reload_line *st, size_t n)
{
	size_t i;

	for (i = 0; st && i < n; i++)
		free(st[i].error);
	free(st);
}

static unsigned int count_failed(const struct reload_line *st, size_t n)
{
	unsigned int f = 0;
	size_t i;

	for (i = 0; i < n; i++)
		f += st[i].failed;
	return f;
}

void reload_attach_startup(struct tracerd *d)
{
	struct reload_state *rs = &d->reload;

	lines_free(rs->lines, 0);	/* none before start-up */
	rs->lines = calloc(d->cfg.nr_attach + 1, sizeof(*rs->lines));
	if (!rs->lines) {
		log_err("config: out of memory for the attach lines");
		return;
	}
	attach_lines(d, &d->cfg, rs->lines, "");
	rs->attach_failed = count_failed(rs->lines, d->cfg.nr_attach);
	if (rs->attach_failed)
		log_warn("config: %u of %zu attach lines failed", rs->attach_failed,
			 d->cfg.nr_attach);
	notify_status(d);
}

static json_object *reloads_json(const struct reload_state *rs)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "ok", json_object_new_int64(rs->ok));
	json_object_object_add(o, "refused", json_object_new_int64(rs->refused));
	json_object_object_add(o, "last", rs->ok + rs->refused ?
			       json_object_new_string(rs->last_refused ? "refused" : "ok") : NULL);
	json_object_object_add(o, "last_error", rs->last_refusal[0] ?
			       json_object_new_string(rs->last_refusal) : NULL);
	return o;
}

json_object *reload_state_json(const struct tracerd *d)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array(), *f, *files;
	const struct reload_line *cfg_lines = d->reload.lines;
	size_t i;

	for (i = 0; cfg_lines && i < d->cfg.nr_attach; i++) {
		if (!cfg_lines[i].failed)
			continue;
		f = json_object_new_object();
		json_object_object_add(f, "line", json_object_new_int(d->cfg.attach[i].line));
		json_object_object_add(f, "file", d->cfg.attach[i].file ?
				       json_object_new_string(d->cfg.attach[i].file) : NULL);
		json_object_object_add(f, "target",
				       json_object_new_string(d->cfg.attach[i].spec.target));
		json_object_object_add(f, "error", json_object_new_string(cfg_lines[i].error ?
						cfg_lines[i].error : "out of memory"));
		json_object_array_add(arr, f);
	}
	json_object_object_add(o, "attach_lines", json_object_new_int64((int64_t)d->cfg.nr_attach));
	files = json_object_new_array();
	for (i = 0; i < d->cfg.nr_files; i++)
		json_object_array_add(files, json_object_new_string(d->cfg.files[i]));
	json_object_object_add(o, "files", files);
	json_object_object_add(o, "attach_failed", json_object_new_int(d->reload.attach_failed));
	json_object_object_add(o, "failures", arr);
	json_object_object_add(o, "reloads", reloads_json(&d->reload));
	json_object_object_add(o, "applying", reload_applying_json(d));
	return o;
}


/*
 * A changed listen address: bind the new one before letting go of the old
 * one. Where both cannot be bound at once (EADDRINUSE: e.g. the same port
 * on another address), stop the old one, try the new, and take the old one back on
 * failure. 0, or -errno with the running listener still in place.
 */
static int move_listener(struct tracerd *d, const char *listen, char *err, size_t errlen)
{
	struct http_server *h = NULL;
	int ret = http_start(d, listen, &h);

	if (ret == -EADDRINUSE && d->http) {
		http_stop(d->http);
		d->http = NULL;
		ret = http_start(d, listen, &h);
		if (ret && http_start(d, d->cfg.listen, &d->http))
			log_err("reload: cannot listen on '%s' again: metrics off", d->cfg.listen);
	}
	if (ret) {
		snprintf(err, errlen, "cannot listen on '%s': %s", listen, strerror(-ret));
		return ret;
	}
	http_stop(d->http);
	d->http = h;
	log_notice("reload: listen %s -> %s", d->cfg.listen, listen);
	return 0;
}

static int read_new(const struct reload_opts *o, struct tracerd_config *new, char *err,
		    size_t errlen)
{
	int ret;

	config_init(new);
	ret = config_parse_file(new, o->path, err, errlen);
	if (ret == -ENOENT && !o->path_given)
		ret = 0;
	if (!ret)
		ret = config_parse_dropins(new, o->path, err, errlen);
	if (ret > 0)
		ret = 0;	/* how many drop-ins */
	if (!ret && o->listen && str_copy(new->listen, o->listen, sizeof(new->listen))) {
		snprintf(err, errlen, "--listen '%s' too long", o->listen);
		ret = -EINVAL;
	}
	/* --socket as at start (checked then): the new file's socket is not the one in use */
	if (!ret && o->socket)
		str_copy(new->socket, o->socket, sizeof(new->socket));
	if (!ret)
		ret = config_check_system(new, err, errlen);
	return ret;
}

static void apply_keys(struct tracerd *d, struct tracerd_config *new, int verbose)
{
	if (strcmp(new->socket, d->cfg.socket) || strcmp(new->read_group, d->cfg.read_group) ||
	    strcmp(new->admin_group, d->cfg.admin_group) || new->by_max_keys != d->cfg.by_max_keys ||
	    new->stack_max_entries != d->cfg.stack_max_entries)
		log_warn("reload: socket, read_group, admin_group, by_max_keys and "
			 "stack_max_entries changes need a restart");
	new->by_max_keys = d->cfg.by_max_keys;
	new->stack_max_entries = d->cfg.stack_max_entries;
	strcpy(new->socket, d->cfg.socket);
	strcpy(new->read_group, d->cfg.read_group);
	strcpy(new->admin_group, d->cfg.admin_group);
	if (!verbose)
		tlog_set_level(new->log_level);
}

/*
 * A reload being applied, in steps (issue #33 class 1: 2000 new lines held
 * the loop 2.7 s): the detaches, then the new lines' attaches, started a
 * few per turn of the loop (RELOAD_BUDGET_NS, at most RELOAD_INFLIGHT of
 * them not yet ended) and carried out by the registry's steps, so the loop
 * answers between them. d->cfg and d->reload.lines are the new ones from
 * the start (status shows the lines done so far: "applying"); the reply,
 * the summary line and READY=1 come when the last one has ended. A reload
 * asked for meanwhile runs after it (its requesters wait for that one).
 */
#define RELOAD_INFLIGHT	8
#define RELOAD_BUDGET_NS	(5ULL * 1000 * 1000)

struct reload_waiter {
	reload_done_fn done;
	void *ctx;
	struct reload_waiter *next;
};

struct reload_run {
	struct reload_result r;
	unsigned int *detach;	/* the attachments of old lines no new line has */
	size_t nr_detach, di;	/* how many, the next to start */
	size_t ai;		/* the next new line to attach */
	unsigned int inflight;	/* started, not ended */
	struct reload_waiter *waiters;
	struct event *step;
};

/* the attach of line i of the running reload */
struct line_op {
	struct tracerd *d;
	size_t i;
};

static void run_schedule(struct tracerd *d)
{
	static const struct timeval now = { 0, 0 };
	struct reload_run *run = d->reload.run;

	if (run && run->step && !evtimer_pending(run->step, NULL))
		evtimer_add(run->step, &now);
}

static void line_detached(struct tracerd *d, void *ctx, int err, struct attachment *a,
			  const struct skip_list *skipped, const char *msg)
{
	struct reload_run *run = ctx;

	run->inflight--;
	run_schedule(d);
}

static void line_attached(struct tracerd *d, void *ctx, int err, struct attachment *a,
			  const struct skip_list *skipped, const char *msg)
{
	struct line_op *op = ctx;
	struct reload_run *run = d->reload.run;
	struct reload_line *l = &d->reload.lines[op->i];
	char where[PATH_MAX + 32];

	if (err) {
		log_err("reload: config %s: attach '%s' failed: %s",
			line_where(&d->cfg, &d->cfg.attach[op->i], where, sizeof(where)),
			d->cfg.attach[op->i].spec.target, msg);
		l->failed = true;
		free(l->error);
		l->error = strdup(msg);
	} else {
		l->id = a->id;
		run->r.attached++;
	}
	free(op);
	run->inflight--;
	run_schedule(d);
}

/* Start line i's attach (its outcome: line_attached); false when it ended at once. */
static bool line_start(struct tracerd *d, size_t i)
{
	const struct tracerd_config_attach *l = &d->cfg.attach[i];
	struct reload_line *st = &d->reload.lines[i];
	struct line_op *op;
	struct attachment *a;
	char msg[1024], where[PATH_MAX + 32];
	int err;

	if (st->id)
		return false;	/* kept from the old config */
	a = find_spec(d, &l->spec);
	if (a) {
		log_info("reload: config %s: '%s' is attachment %u already, made with "
			 "tracectl: left to it", line_where(&d->cfg, l, where, sizeof(where)),
			 l->spec.target, a->id);
		return false;
	}
	op = calloc(1, sizeof(*op));
	if (!op) {
		err = set_err(msg, sizeof(msg), -ENOMEM, "out of memory");
	} else {
		*op = (struct line_op){ d, i };
		err = registry_attach_start(d, &l->spec, line_attached, op, &a, msg, sizeof(msg));
	}
	if (!err)
		return true;
	free(op);
	log_err("reload: config %s: attach '%s' failed: %s",
		line_where(&d->cfg, l, where, sizeof(where)), l->spec.target, msg);
	st->failed = true;
	free(st->error);
	st->error = strdup(msg);
	return false;
}

static void run_free(struct tracerd *d, struct reload_run *run)
{
	if (run->step)
		event_free(run->step);
	free(run->detach);
	free(run);
}

/* Tell each waiter (err: the reload was refused, msg why) and free them. */
static void waiters_answer(struct tracerd *d, struct reload_waiter *w, int err,
			   const struct reload_result *r, const char *msg)
{
	struct reload_waiter *next;

	for (; w; w = next) {
		next = w->next;
		if (w->done)
			w->done(d, w->ctx, err, r, msg);
		free(w);
	}
}

static int reload_begin(struct tracerd *d, const struct reload_opts *o,
			struct reload_waiter *waiters, char *err, size_t errlen);

/* The last line ended: the summary, READY=1, the replies; then a reload asked meanwhile. */
static void run_finish(struct tracerd *d)
{
	struct reload_state *rs = &d->reload;
	struct reload_run *run = rs->run;
	struct reload_waiter *next = rs->queued;
	char err[512];

	rs->attach_failed = run->r.failed = count_failed(rs->lines, d->cfg.nr_attach);
	log_notice("reload: %u attached, %u detached, %u failed, %u attachments now",
		   run->r.attached, run->r.detached, run->r.failed, registry_count(d));
	notify_send(d, "READY=1");
	notify_status(d);
	rs->run = NULL;
	waiters_answer(d, run->waiters, 0, &run->r, "");
	run_free(d, run);
	if (!rs->again)
		return;
	rs->again = false;
	rs->queued = NULL;
	if (reload_begin(d, &rs->opts, next, err, sizeof(err)))
		waiters_answer(d, next, -EINVAL, NULL, err);
}

static void run_step(evutil_socket_t fd, short what, void *arg)
{
	struct tracerd *d = arg;
	struct reload_run *run = d->reload.run;
	uint64_t end = now_mono_ns() + RELOAD_BUDGET_NS;
	struct attachment *a;

	while (run->inflight < RELOAD_INFLIGHT && now_mono_ns() < end) {
		if (run->di < run->nr_detach) {
			a = find_id(d, run->detach[run->di++]);
			if (a && !registry_detach_start(d, a, line_detached, run)) {
				run->r.detached++;
				run->inflight++;
			}
		} else if (run->inflight) {
			return;		/* the detaches end first: they free slots and fds */
		} else if (run->ai < d->cfg.nr_attach) {
			run->inflight += line_start(d, run->ai++);
		} else {
			run_finish(d);
			return;
		}
	}
	if (run->inflight < RELOAD_INFLIGHT)
		run_schedule(d);
}

/* Read the new config and start applying it (0), or refuse it (-errno, err). */
static int reload_begin(struct tracerd *d, const struct reload_opts *o,
			struct reload_waiter *waiters, char *err, size_t errlen)
{
	struct reload_state *rs = &d->reload;
	struct tracerd_config new, old;
	struct reload_line *st = NULL;
	struct reload_run *run = NULL;
	int ret;

	notify_send(d, "RELOADING=1");
	ret = read_new(o, &new, err, errlen);
	if (!ret) {
		st = calloc(new.nr_attach + 1, sizeof(*st));
		run = calloc(1, sizeof(*run));
		if (run)
			run->detach = calloc(d->cfg.nr_attach + 1, sizeof(*run->detach));
		if (run && d->base)
			run->step = evtimer_new(d->base, run_step, d);
		ret = st && run && run->detach && run->step ? 0 : -ENOMEM;
		if (ret)
			snprintf(err, errlen, "out of memory");
	}
	if (!ret && strcmp(new.listen, d->cfg.listen))
		ret = move_listener(d, new.listen, err, errlen);
	rs->last_refused = ret != 0;
	if (ret) {
		log_err("reload refused, keeping the running configuration: %s", err);
		rs->refused++;
		snprintf(rs->last_refusal, sizeof(rs->last_refusal), "%s", err);
		lines_free(st, new.nr_attach);
		config_free(&new);
		if (run)
			run_free(d, run);
		notify_send(d, "READY=1");
		notify_status(d);
		return ret;
	}
	rs->ok++;
	apply_keys(d, &new, o->verbose);
	old = d->cfg;
	d->cfg = new;		/* new recordings use the new record_* keys */
	d->cfg_gen++;
	bpf_stats_apply(d);	/* bpf_stats: refused, logged and said by stats */
	run->nr_detach = carry_over(d, &old, &new, st, run->detach);
	lines_free(rs->lines, old.nr_attach);
	rs->lines = st;
	config_free(&old);
	run->waiters = waiters;
	rs->run = run;
	run_schedule(d);
	return 0;
}

int reload_config(struct tracerd *d, const struct reload_opts *o, reload_done_fn done, void *ctx,
		  char *err, size_t errlen)
{
	struct reload_state *rs = &d->reload;
	struct reload_waiter *w = calloc(1, sizeof(*w)), **pp;
	int ret;

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->done = done;
	w->ctx = ctx;
	if (rs->run) {	/* after the one being applied, with the files as they are then */
		log_notice("reload: queued behind the one being applied (%zu of %zu lines)",
			   rs->run->ai, d->cfg.nr_attach);
		for (pp = &rs->queued; *pp; pp = &(*pp)->next)
			;
		*pp = w;
		rs->again = true;
		return 0;
	}
	ret = reload_begin(d, o, w, err, errlen);
	if (ret)
		free(w);
	return ret;
}

json_object *reload_applying_json(const struct tracerd *d)
{
	const struct reload_run *run = d->reload.run;
	json_object *o;

	if (!run)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "detached", json_object_new_int64((int64_t)run->r.detached));
	json_object_object_add(o, "to_detach", json_object_new_int64((int64_t)run->nr_detach));
	json_object_object_add(o, "lines_done", json_object_new_int64((int64_t)run->ai));
	json_object_object_add(o, "lines", json_object_new_int64((int64_t)d->cfg.nr_attach));
	json_object_object_add(o, "queued", json_object_new_boolean(d->reload.again));
	return o;
}

void reload_loop_stop(struct tracerd *d)
{
	struct reload_state *rs = &d->reload;

	if (rs->run && rs->run->step) {
		event_free(rs->run->step);
		rs->run->step = NULL;
	}
}

/* reload_config's end, for a client waiting on `reload` (ctx: its control_wait) */
static void reload_answer(struct tracerd *d, void *ctx, int err, const struct reload_result *r,
			  const char *msg)
{
	json_object *o;

	char why[600];

	if (err) {
		snprintf(why, sizeof(why), "reload refused, the running configuration stays: %s",
			 msg);
		control_answer(ctx, err == -ECANCELED ? PROTO_E_INTERNAL : PROTO_E_BAD_REQUEST,
			       NULL, why);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "attached", json_object_new_int(r->attached));
	json_object_object_add(o, "detached", json_object_new_int(r->detached));
	json_object_object_add(o, "failed", json_object_new_int(r->failed));
	json_object_object_add(o, "attachments", json_object_new_int(registry_count(d)));
	json_object_object_add(o, "config", reload_state_json(d));
	control_answer(ctx, PROTO_OK, o, "");
}

/* The control command `reload`: the reload's outcome (when applied), or why it was refused. */
enum proto_code cmd_reload(struct tracerd *d, json_object *args, json_object **result,
			   char *msg, size_t msglen)
{
	struct control_wait *w;
	char err[512];

	json_object_object_foreach(args, key, val) {
		(void)val;
		snprintf(msg, msglen, "reload: unknown argument '%s' (it takes none)", key);
		return PROTO_E_BAD_REQUEST;
	}
	log_notice("reload requested over the control socket: %s", d->reload.opts.path);
	w = control_wait(d);
	if (!w) {
		snprintf(msg, msglen, "out of memory");
		return PROTO_E_INTERNAL;
	}
	if (reload_config(d, &d->reload.opts, reload_answer, w, err, sizeof(err))) {
		snprintf(msg, msglen, "reload refused, the running configuration stays: %s", err);
		control_answer(w, PROTO_E_BAD_REQUEST, NULL, msg);
	}
	return PROTO_OK;
}

void reload_state_free(struct tracerd *d)
{
	struct reload_state *rs = &d->reload;

	/* stopping: the attaches and detaches in progress ended (registry_detach_all) */
	if (rs->run) {
		waiters_answer(d, rs->run->waiters, -ECANCELED, NULL, "the daemon is stopping");
		run_free(d, rs->run);
		rs->run = NULL;
	}
	waiters_answer(d, rs->queued, -ECANCELED, NULL, "the daemon is stopping");
	rs->queued = NULL;
	lines_free(d->reload.lines, d->cfg.nr_attach);
	d->reload.lines = NULL;
	d->reload.attach_failed = 0;
}
