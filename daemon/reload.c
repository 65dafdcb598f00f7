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
#include "bpf_stats.h"
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

/* Hand the old lines' attachments to equal new lines; detach the rest. */
static unsigned int carry_over(struct tracerd *d, const struct tracerd_config *old,
			       const struct tracerd_config *new, struct reload_line *st)
{
	struct reload_line *cfg_lines = d->reload.lines;
	struct attachment *a;
	unsigned int n = 0;
	size_t i, j;

	for (i = 0; cfg_lines && i < old->nr_attach; i++) {
		a = find_id(d, cfg_lines[i].id);
		if (!a)
			continue;	/* failed, or detached with tracectl since */
		for (j = 0; j < new->nr_attach; j++)
			if (!st[j].id && spec_equal(&old->attach[i].spec, &new->attach[j].spec))
				break;
		if (j < new->nr_attach) {
			st[j].id = cfg_lines[i].id;
			continue;
		}
		registry_detach(d, a);
		n++;
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
	return o;
}

void reload_state_free(struct tracerd *d)
{
	lines_free(d->reload.lines, d->cfg.nr_attach);
	d->reload.lines = NULL;
	d->reload.attach_failed = 0;
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

int reload_config(struct tracerd *d, const struct reload_opts *o, struct reload_result *r,
		  char *err, size_t errlen)
{
	struct reload_state *rs = &d->reload;
	struct tracerd_config new, old;
	struct reload_line *st = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	notify_send(d, "RELOADING=1");
	ret = read_new(o, &new, err, errlen);
	if (!ret) {
		st = calloc(new.nr_attach + 1, sizeof(*st));
		ret = st ? 0 : -ENOMEM;
		if (!st)
			snprintf(err, errlen, "out of memory");
	}
	if (!ret && strcmp(new.listen, d->cfg.listen))
		ret = move_listener(d, new.listen, err, errlen);
	rs->last_refused = ret != 0;
	if (ret) {
		log_err("reload refused, keeping the running configuration: %s", err);
		rs->refused++;
		snprintf(rs->last_refusal, sizeof(rs->last_refusal), "%s", err);
		goto cleanup;
	}
	rs->ok++;
	apply_keys(d, &new, o->verbose);
	old = d->cfg;
	d->cfg = new;		/* new recordings use the new record_* keys */
	d->cfg_gen++;
	bpf_stats_apply(d);	/* bpf_stats: refused, logged and said by stats */
	r->detached = carry_over(d, &old, &new, st);
	r->attached = attach_lines(d, &new, st, "reload: ");
	lines_free(rs->lines, old.nr_attach);
	rs->lines = st;
	st = NULL;
	rs->attach_failed = r->failed = count_failed(rs->lines, new.nr_attach);
	config_free(&old);
	log_notice("reload: %u attached, %u detached, %u failed, %u attachments now", r->attached,
		   r->detached, r->failed, registry_count(d));
cleanup:
	if (ret) {
		lines_free(st, new.nr_attach);
		config_free(&new);
	}
	notify_send(d, "READY=1");
	notify_status(d);
	return ret;
}

/* The control command `reload`: the reload's outcome, or why it was refused. */
enum proto_code cmd_reload(struct tracerd *d, json_object *args, json_object **result,
			   char *msg, size_t msglen)
{
	struct reload_result r;
	char err[512];
	json_object *o;

	json_object_object_foreach(args, key, val) {
		(void)val;
		snprintf(msg, msglen, "reload: unknown argument '%s' (it takes none)", key);
		return PROTO_E_BAD_REQUEST;
	}
	log_notice("reload requested over the control socket: %s", d->reload.opts.path);
	if (reload_config(d, &d->reload.opts, &r, err, sizeof(err))) {
		snprintf(msg, msglen, "reload refused, the running configuration stays: %s", err);
		return PROTO_E_BAD_REQUEST;
	}
	o = json_object_new_object();
	json_object_object_add(o, "attached", json_object_new_int(r.attached));
	json_object_object_add(o, "detached", json_object_new_int(r.detached));
	json_object_object_add(o, "failed", json_object_new_int(r.failed));
	json_object_object_add(o, "attachments", json_object_new_int(registry_count(d)));
	json_object_object_add(o, "config", reload_state_json(d));
	*result = o;
	return PROTO_OK;
}
