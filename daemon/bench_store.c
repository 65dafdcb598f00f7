// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Trigger results kept for the metrics (docs/bench.md, "Stored results"):
 * `tracectl bench trigger` sends the per-call overhead it measured per mode
 * and variant; the daemon writes it with the date and the kernel to
 * state_dir/bench-trigger.json (atomically: temp file + rename), and
 * bench_overhead() answers from it for as long as the kernel is the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "../lib/jsonutil.h"
#include "../lib/log.h"
#include "../lib/metrics.h"
#include "../lib/modes.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bench.h"

#define STORE_SCHEMA	"tracerd-bench-trigger-state/1"


static int store_path(struct tracerd *d, char *buf, size_t len)
{
	if (!d->cfg.state_dir[0])
		return -ENOENT;
	if (snprintf(buf, len, "%s/%s", d->cfg.state_dir, BENCH_TRIGGER_FILE) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* Validate the client's (or the file's) overhead object: {mode: {variant: number}}. */
static bool overhead_valid(json_object *ovh)
{
	if (!json_object_is_type(ovh, json_type_object))
		return false;
	json_object_object_foreach(ovh, mode, vars) {
		if (strlen(mode) > 32 || !json_object_is_type(vars, json_type_object))
			return false;
		json_object_object_foreach(vars, variant, v) {
			if ((strcmp(variant, "count") && strcmp(variant, "latency") &&
			     strcmp(variant, "empty") && strcmp(variant, "stacks") &&
			     strcmp(variant, "args")) ||
			    !(json_object_is_type(v, json_type_double) ||
			      json_object_is_type(v, json_type_int)))
				return false;
		}
	}
	return true;
}

static int write_file(const char *path, const char *text)
{
	char tmp[PATH_MAX + 8];
	size_t len = strlen(text);
	int fd, ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len || fsync(fd))
		ret = errno ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

static int write_json(const char *path, json_object *o)
{
	char *text = json_line(o, JSON_C_TO_STRING_PRETTY, NULL);
	int ret = text ? write_file(path, text) : -ENOMEM;

	free(text);
	return ret;
}

enum proto_code bench_store(struct tracerd *d, json_object *args, json_object **result,
			    char *msg, size_t msglen)
{
	json_object *ovh = NULL, *o;
	char path[PATH_MAX], date[32];
	bool bad = false;
	const char *kernel = proto_arg_str(args, "kernel", &bad);
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	ovh = json_object_object_get(args, "overhead_ns");
	if (bad || !kernel || !overhead_valid(ovh)) {
		str_fmt(msg, msglen, "bench store: needs kernel (string) and overhead_ns "
			"({mode: {count|latency|empty|stacks|args: ns}})");
		return PROTO_E_BAD_REQUEST;
	}
	uname(&u);
	if (strcmp(kernel, u.release)) {
		str_fmt(msg, msglen, "bench store: result from kernel %s, this is %s", kernel,
			u.release);
		return PROTO_E_BAD_REQUEST;
	}
	ret = store_path(d, path, sizeof(path));
	if (!ret && mkdir(d->cfg.state_dir, 0755) && errno != EEXIST)
		ret = -errno;
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	o = json_object_new_object();
	json_object_object_add(o, "schema", json_object_new_string(STORE_SCHEMA));
	json_object_object_add(o, "date", json_object_new_string(date));
	json_object_object_add(o, "kernel", json_object_new_string(u.release));
	json_object_object_add(o, "kernel_build", json_object_new_string(u.version));
	json_object_object_add(o, "overhead_ns", json_object_get(ovh));
	if (!ret)
		ret = write_json(path, o);
	if (ret) {
		json_object_put(o);
		str_fmt(msg, msglen, "bench store: cannot write %s/%s: %s", d->cfg.state_dir,
			BENCH_TRIGGER_FILE, strerror(-ret));
		return PROTO_E_INTERNAL;
	}
	log_notice("bench: trigger results stored in %s", path);
	json_object_object_add(o, "path", json_object_new_string(path));
	*result = o;
	return PROTO_OK;
}

/* The parsed file's kernel is this one; else why not, in why. */
static bool store_matches(json_object *root, const char **why)
{
	const char *schema, *kernel, *build;
	struct utsname u;

	uname(&u);
	if (json_get_str(root, "schema", &schema) || strcmp(schema, STORE_SCHEMA))
		*why = "no \"schema\": \"" STORE_SCHEMA "\"";
	else if (json_get_str(root, "kernel", &kernel) ||
		 json_get_str(root, "kernel_build", &build))
		*why = "\"kernel\" and \"kernel_build\" must be strings";
	else if (!overhead_valid(json_object_object_get(root, "overhead_ns")))
		*why = "\"overhead_ns\" must be {mode: {count|latency|empty|stacks|args: ns}}";
	else if (strcmp(kernel, u.release) || strcmp(build, u.version))
		*why = NULL;	/* another kernel's results: ignored quietly */
	else
		return true;
	return false;
}

/* The state directory and the stored file in it: root's alone (lib/util.h, file_trusted). */
static int store_trusted(struct tracerd *d, const char *path, const struct stat *st,
			 const struct stat *dst, char *err, size_t errlen)
{
	if (file_trusted("state_dir", d->cfg.state_dir, dst, err, errlen))
		return -EPERM;
	return file_trusted("bench store", path, st, err, errlen);
}

/* The stored results, NULL when absent, invalid or from another kernel. */
static json_object *store_load(struct tracerd *d)
{
	char path[PATH_MAX], err[256];
	const char *why = NULL;
	struct stat st, dst;

	if (store_path(d, path, sizeof(path)) || stat(path, &st) || stat(d->cfg.state_dir, &dst))
		goto none;
	/* read back only what no other user could have written (as the config):
	 * asked on every load (two stats), since a chmod may keep the ctime a
	 * write just set (file times tick by the jiffy); logged once per change */
	if (store_trusted(d, path, &st, &dst, err, sizeof(err))) {
		if (!d->store.distrust_logged)
			log_warn("bench: ignoring %s: %s", path, err);
		d->store.distrust_logged = true;
		goto none;
	}
	d->store.distrust_logged = false;
	if (d->store.checked && !strcmp(d->store.path, path) &&
	    d->store.mtime.tv_sec == st.st_mtim.tv_sec &&
	    d->store.mtime.tv_nsec == st.st_mtim.tv_nsec)
		return d->store.root;
	json_object_put(d->store.root);
	d->store.root = json_parse_file(path, 1 << 20, err, sizeof(err));
	d->store.mtime = st.st_mtim;
	d->store.checked = true;
	str_copy(d->store.path, path, sizeof(d->store.path));
	if (!d->store.root)
		why = err;
	else if (store_matches(d->store.root, &why))
		return d->store.root;
	if (why)
		log_warn("bench: ignoring %s: %s", path, why);
	json_object_put(d->store.root);
	d->store.root = NULL;
	return NULL;
none:
	json_object_put(d->store.root);
	d->store.root = NULL;
	d->store.checked = false;
	return NULL;
}

int bench_overhead(struct tracerd *d, enum tracerd_mode mode, bool latency, double *ns)
{
	json_object *root = store_load(d), *ovh, *m;

	if (!root || json_get(root, "overhead_ns", json_type_object, &ovh) ||
	    json_get(ovh, tracerd_mode_name(mode), json_type_object, &m) ||
	    json_get_num(m, latency ? "latency" : "count", ns))
		return -ENOENT;
	return 0;
}

void bench_metrics_overhead(struct tracerd *d, const struct attachment *a,
			    struct metrics_attachment *m)
{
	double ns, calls = 0;
	size_t i;

	if (bench_overhead(d, a->mode, a->spec.latency, &ns))
		return;
	if (ns < 0)	/* below the noise of the run that measured it */
		ns = 0;
	for (i = 0; i < m->nr_functions; i++)
		calls += (double)m->functions[i].calls;
	m->overhead_known = true;
	m->overhead_ns_per_call = ns;
	m->overhead_cpu_seconds_total = calls * ns / 1e9;
}

void bench_store_free(struct tracerd *d)
{
	json_object_put(d->store.root);
	d->store.root = NULL;
	d->store.checked = false;
}
