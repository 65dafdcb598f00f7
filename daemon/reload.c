// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Configuration reload (SIGHUP, `systemctl reload tracerd`). The new file
 * is parsed completely first; with an error the running configuration
 * stays. Attachments are reconciled with the `attach =` lines:
 *   - an attachment whose spec equals a line of the old file but of no
 *     line of the new one is detached;
 *   - a line of the new file that no attachment matches is attached (so a
 *     line that failed before is retried);
 *   - everything else keeps its id and counts (and its metric series).
 * Attachments made with tracectl match no config line and are left alone.
 * log_level, listen and the record_* keys apply at once (record_* to new
 * recordings); socket, read_group and admin_group need a restart.
 */
#include <errno.h>
#include <string.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include "registry.h"
#include "service.h"

struct reload_opts tracerd_reload_opts;

static bool in_config(const struct tracerd_config *c, const struct tracerd_spec *s)
{
	size_t i;

	for (i = 0; i < c->nr_attach; i++)
		if (spec_equal(&c->attach[i].spec, s))
			return true;
	return false;
}

static unsigned int reconcile_detach(struct tracerd *d, const struct tracerd_config *old,
				     const struct tracerd_config *new)
{
	struct attachment *a;
	unsigned int n = 0;
	bool again = true;

	while (again) {	/* registry_detach changes the list: restart the walk */
		again = false;
		for (a = d->attachments; a; a = a->next) {
			if (!in_config(old, &a->spec) || in_config(new, &a->spec))
				continue;
			registry_detach(d, a);
			n++;
			again = true;
			break;
		}
	}
	return n;
}

static unsigned int reconcile_attach(struct tracerd *d, const struct tracerd_config *new,
				     unsigned int *failed)
{
	const struct tracerd_config_attach *c;
	struct attachment *a;
	unsigned int n = 0;
	char msg[1024];
	size_t i;

	for (i = 0; i < new->nr_attach; i++) {
		c = &new->attach[i];
		for (a = d->attachments; a; a = a->next)
			if (spec_equal(&a->spec, &c->spec))
				break;
		if (a)
			continue;
		if (registry_attach(d, &c->spec, &a, NULL, msg, sizeof(msg))) {
			log_err("reload: config line %d: attach '%s' failed: %s", c->line,
				c->spec.target, msg);
			(*failed)++;
		} else {
			n++;
		}
	}
	return n;
}

static void apply_keys(struct tracerd *d, struct tracerd_config *new, int verbose)
{
	struct http_server *h = NULL;

	if (strcmp(new->socket, d->cfg.socket) || strcmp(new->read_group, d->cfg.read_group) ||
	    strcmp(new->admin_group, d->cfg.admin_group))
		log_warn("reload: socket, read_group and admin_group changes need a restart");
	strcpy(new->socket, d->cfg.socket);
	strcpy(new->read_group, d->cfg.read_group);
	strcpy(new->admin_group, d->cfg.admin_group);
	if (!verbose)
		tlog_set_level(new->log_level);
	if (strcmp(new->listen, d->cfg.listen)) {
		http_stop(d->http);
		d->http = NULL;
		if (http_start(d, new->listen, &h))
			log_err("reload: metrics server not restarted on '%s'", new->listen);
		d->http = h;
		log_notice("reload: listen %s -> %s", d->cfg.listen, new->listen);
	}
}

int config_reload(struct tracerd *d, const struct reload_opts *o)
{
	struct tracerd_config new, old;
	unsigned int attached, detached, failed = 0;
	char err[512];
	int ret;

	notify_send("RELOADING=1");
	config_init(&new);
	ret = config_parse_file(&new, o->path, err, sizeof(err));
	if (ret == -ENOENT && !o->path_given)
		ret = 0;
	if (!ret && o->listen && str_copy(new.listen, o->listen, sizeof(new.listen)))
		ret = -EINVAL;
	if (!ret)
		ret = config_check_system(&new, err, sizeof(err));
	if (ret) {
		log_err("reload refused, keeping the running configuration: %s", err);
		config_free(&new);
		notify_send("READY=1");
		return ret;
	}
	apply_keys(d, &new, o->verbose);
	old = d->cfg;
	d->cfg = new;		/* new recordings use the new record_* keys */
	detached = reconcile_detach(d, &old, &new);
	attached = reconcile_attach(d, &new, &failed);
	config_free(&old);
	log_notice("reload: %u attached, %u detached, %u failed, %u attachments now", attached,
		   detached, failed, registry_count(d));
	notify_send("READY=1");
	return 0;
}
