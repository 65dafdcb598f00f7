// SPDX-License-Identifier: GPL-2.0-or-later
/* tracerd.conf parser; see config.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include "metrics.h"
#include "config.h"
#include "log.h"
#include "util.h"

typedef int (*config_setter)(struct tracerd_config *c, const char *val, char *err, size_t errlen);

static int set_path(char *dst, size_t size, const char *val, char *err, size_t errlen)
{
	if (val[0] != '/')
		return set_err(err, errlen, -EINVAL, "'%s' is not an absolute path", val);
	if (str_copy(dst, val, size))
		return set_err(err, errlen, -EINVAL, "path '%s' is too long (max %zu)", val,
			       size - 1);
	return 0;
}

static int set_socket(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	return set_path(c->socket, sizeof(c->socket), val, err, errlen);
}

static int set_group(char *dst, size_t size, const char *val, char *err, size_t errlen)
{
	const char *p;

	for (p = val; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-.$", *p))
			return set_err(err, errlen, -EINVAL, "invalid group name '%s'", val);
	if (str_copy(dst, val, size))
		return set_err(err, errlen, -EINVAL, "group name '%s' is too long", val);
	return 0;
}

static int set_read_group(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	return set_group(c->read_group, sizeof(c->read_group), val, err, errlen);
}

static int set_admin_group(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	return set_group(c->admin_group, sizeof(c->admin_group), val, err, errlen);
}

/* "off", "ADDR:PORT" or "[ADDR6]:PORT" with PORT 1..65535 (lib/util.h, listen_parse) */
static int set_listen(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	struct listen_addr a;
	int ret = listen_parse(val, 1, &a, err, errlen);

	if (ret)
		return ret;
	if (str_copy(c->listen, val, sizeof(c->listen)))
		return set_err(err, errlen, -EINVAL, "listen '%s' is too long", val);
	return 0;
}

static int set_record_dir(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	return set_path(c->record_dir, sizeof(c->record_dir), val, err, errlen);
}

static int set_state_dir(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	return set_path(c->state_dir, sizeof(c->state_dir), val, err, errlen);
}

static int set_record_max_bytes(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	if (parse_size(val, &c->record_max_bytes) || c->record_max_bytes < 4096)
		return set_err(
			err, errlen, -EINVAL,
			"record_max_bytes '%s' is not a size >= 4096 (K/M/G suffixes allowed)",
			val);
	return 0;
}

static int set_record_keep(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	unsigned long long v;
	char why[96];

	if (parse_dec(val, 1, 10000, &v, why, sizeof(why)))
		return set_err(err, errlen, -EINVAL, "record_keep '%s': %s", val, why);
	c->record_keep = (unsigned int)v;
	return 0;
}

static int set_log_level(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	int l = tlog_level_parse(val);

	if (l < 0)
		return set_err(err, errlen, -EINVAL,
			       "log_level '%s' is not one of err, warning, notice, info, debug",
			       val);
	c->log_level = l;
	return 0;
}

/* KEY's value: a decimal in 1..max (the one strict parser) */
static int set_count(const char *key, unsigned int *field, unsigned long long max,
		     const char *val, char *err, size_t errlen)
{
	unsigned long long v;
	char why[96];

	if (parse_dec(val, 1, max, &v, why, sizeof(why)))
		return set_err(err, errlen, -EINVAL, "%s '%s': %s", key, val, why);
	*field = (unsigned int)v;
	return 0;
}

static int set_max_glob_matches(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	return set_count("max_glob_matches", &c->max_glob_matches, TRACERD_GLOB_MATCHES_LIMIT, val,
			 err, errlen);
}

static int set_by_max_keys(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	return set_count("by_max_keys", &c->by_max_keys, TRACERD_BY_MAX_KEYS_LIMIT, val, err,
			 errlen);
}

static int set_by_top(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	return set_count("by_top", &c->by_top, TRACERD_BY_TOP_LIMIT, val, err, errlen);
}

static int set_metrics_function_top(struct tracerd_config *c, const char *val, char *err,
				    size_t errlen)
{
	return set_count("metrics_function_top", &c->metrics_function_top,
			 METRICS_FUNCTION_TOP_LIMIT, val, err, errlen);
}

static int set_stack_max_entries(struct tracerd_config *c, const char *val, char *err,
				 size_t errlen)
{
	return set_count("stack_max_entries", &c->stack_max_entries,
			 TRACERD_STACK_MAX_ENTRIES_LIMIT, val, err, errlen);
}

static int set_bpf_stats(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	if (strcmp(val, "on") && strcmp(val, "off"))
		return set_err(err, errlen, -EINVAL, "bpf_stats '%s' is not on or off", val);
	c->bpf_stats = !strcmp(val, "on");
	return 0;
}

static int add_attach(struct tracerd_config *c, const char *val, char *err, size_t errlen)
{
	struct tracerd_config_attach *a;

	/* room doubles (at 8, 16, 32, ...): one realloc per line copied the
	 * whole array each time, quadratic in the config's attach lines (4000
	 * lines: 10 s under ASan, where realloc cannot grow in place) */
	if (c->nr_attach >= 8 && !(c->nr_attach & (c->nr_attach - 1))) {
		a = realloc(c->attach, 2 * c->nr_attach * sizeof(*a));
		if (!a)
			return set_err(err, errlen, -ENOMEM, "out of memory");
		c->attach = a;
	} else if (!c->attach) {
		c->attach = malloc(8 * sizeof(*a));
		if (!c->attach)
			return set_err(err, errlen, -ENOMEM, "out of memory");
	}
	a = &c->attach[c->nr_attach];
	a->line = 0;	/* set by the caller once parsed */
	if (spec_parse_line(val, &a->spec, err, errlen))
		return -EINVAL;
	c->nr_attach++;
	return 0;
}

static const struct config_key {
	const char *name;
	config_setter set;
	bool repeatable;
} config_keys[] = {
	{ "socket", set_socket, false },
	{ "read_group", set_read_group, false },
	{ "admin_group", set_admin_group, false },
	{ "listen", set_listen, false },
	{ "record_dir", set_record_dir, false },
	{ "record_max_bytes", set_record_max_bytes, false },
	{ "record_keep", set_record_keep, false },
	{ "state_dir", set_state_dir, false },
	{ "log_level", set_log_level, false },
	{ "max_glob_matches", set_max_glob_matches, false },
	{ "bpf_stats", set_bpf_stats, false },
	{ "by_max_keys", set_by_max_keys, false },
	{ "by_top", set_by_top, false },
	{ "metrics_function_top", set_metrics_function_top, false },
	{ "stack_max_entries", set_stack_max_entries, false },
	{ "attach", add_attach, true },
};

void config_init(struct tracerd_config *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->socket, TRACERD_DEFAULT_SOCKET);
	strcpy(c->listen, TRACERD_DEFAULT_LISTEN);
	strcpy(c->record_dir, "/var/lib/tracerd/records");
	strcpy(c->state_dir, "/var/lib/tracerd");
	c->record_max_bytes = 64ULL << 20;
	c->record_keep = 4;
	c->log_level = TLOG_NOTICE;
	c->max_glob_matches = TRACERD_GLOB_MATCHES_DEFAULT;	/* docs/limits.md, "Big globs" */
	c->by_max_keys = TRACERD_BY_MAX_KEYS_DEFAULT;
	c->by_top = TRACERD_BY_TOP_DEFAULT;
	c->metrics_function_top = METRICS_FUNCTION_TOP_DEFAULT;
	c->stack_max_entries = TRACERD_STACK_MAX_ENTRIES_DEFAULT;
}

void config_free(struct tracerd_config *c)
{
	size_t i;

	free(c->attach);
	c->attach = NULL;
	c->nr_attach = 0;
	for (i = 0; i < c->nr_files; i++)
		free(c->files[i]);
	free(c->files);
	c->files = NULL;
	c->nr_files = c->nr_dropins = 0;
}

/* name as one of c->files (added once); NULL when out of memory */
static const char *file_name(struct tracerd_config *c, const char *name)
{
	char **f, *dup;
	size_t i;

	for (i = 0; i < c->nr_files; i++)
		if (!strcmp(c->files[i], name))
			return c->files[i];
	dup = strdup(name);
	f = dup ? realloc(c->files, (c->nr_files + 1) * sizeof(*f)) : NULL;
	if (!f) {
		free(dup);
		return NULL;
	}
	c->files = f;
	c->files[c->nr_files++] = dup;
	return dup;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * Where a comment starts: a '#' first on the line (after blanks) or after
 * a blank; a '#' inside a value ("/srv/trace#1") is part of it.
 */
static char *comment_start(char *line)
{
	char *p;

	for (p = line; *p; p++)
		if (*p == '#' && (p == line || p[-1] == ' ' || p[-1] == '\t'))
			return p;
	return NULL;
}

/* One line: 0 (also for blank/comment), or -EINVAL with err filled. */
static int parse_line(struct tracerd_config *c, char *line, unsigned int *seen,
		      char *err, size_t errlen)
{
	char *key, *val, *eq, *hash;
	size_t i;

	hash = comment_start(line);
	if (hash)
		*hash = '\0';
	key = trim(line);
	if (!key[0])
		return 0;
	eq = strchr(key, '=');
	if (!eq)
		return set_err(err, errlen, -EINVAL, "expected 'key = value', got '%s'", key);
	*eq = '\0';
	key = trim(key);
	val = trim(eq + 1);
	for (i = 0; i < ARRAY_SIZE(config_keys); i++) {
		if (strcmp(key, config_keys[i].name))
			continue;
		if (!val[0])
			return set_err(err, errlen, -EINVAL, "key '%s' has an empty value", key);
		if (!config_keys[i].repeatable && (*seen & (1U << i)))
			return set_err(err, errlen, -EINVAL, "key '%s' given twice", key);
		*seen |= 1U << i;
		return config_keys[i].set(c, val, err, errlen);
	}
	return set_err(err, errlen, -EINVAL, "unknown key '%s'", key);
}

int config_parse_string(struct tracerd_config *c, const char *text, const char *name,
			char *err, size_t errlen)
{
	char *copy, *line, *next, msg[512];
	const char *file = file_name(c, name);
	unsigned int seen = 0;
	int lineno = 0, ret = 0;

	copy = file ? strdup(text) : NULL;
	if (!copy)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		msg[0] = '\0';
		ret = parse_line(c, line, &seen, msg, sizeof(msg));
		if (ret) {
			set_err(err, errlen, ret, "%s:%d: %s", name, lineno, msg);
			goto cleanup;
		}
		if (c->nr_attach && !c->attach[c->nr_attach - 1].line) {
			c->attach[c->nr_attach - 1].line = lineno;
			c->attach[c->nr_attach - 1].file = file;
		}
	}
cleanup:
	free(copy);
	return ret;
}

/* The directory part of path into dir ("." for a bare name). */
static int dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return str_copy(dir, ".", len);
	if (slash == path)
		return str_copy(dir, "/", len);
	return snprintf(dir, len, "%.*s", (int)(slash - path), path) >= (int)len ? -ENAMETOOLONG
										  : 0;
}

/*
 * The directories holding a config file, as named and (a symlink) where it
 * really is: whoever can write one can put another file in its place (or
 * a conf.d beside it), so they are held to the file's rule (lib/util.h,
 * file_trusted).
 */
static int dir_trusted(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX], *real = realpath(path, NULL);
	const char *p[2] = { path, real };
	struct stat st;
	int i, ret = 0;

	for (i = 0; !ret && i < 2 && p[i]; i++) {
		if (dir_of(p[i], dir, sizeof(dir)))
			ret = set_err(err, errlen, -ENAMETOOLONG, "config path '%s' is too long",
				      path);
		else if (stat(dir, &st))
			ret = set_err(err, errlen, -errno, "cannot stat '%s': %s", dir,
				      strerror(errno));
		else
			ret = file_trusted("config directory", dir, &st, err, errlen);
	}
	free(real);
	return ret;
}

/*
 * A regular file only: a FIFO, device or directory is refused without
 * blocking; and one only root can change, in a directory only root can
 * change (sshd's StrictModes).
 */
static int config_open(const char *path, FILE **out, char *err, size_t errlen)
{
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return set_err(err, errlen, -errno, "cannot open config '%s': %s", path,
			       strerror(errno));
	if (fstat(fd, &st)) {
		ret = set_err(err, errlen, -errno, "cannot stat config '%s': %s", path,
			      strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = set_err(err, errlen, -EINVAL, "config '%s' is %s, not a regular file", path,
			      S_ISDIR(st.st_mode)    ? "a directory"
			      : S_ISFIFO(st.st_mode) ? "a FIFO"
			      : S_ISSOCK(st.st_mode) ? "a socket"
						     : "a device");
		goto fail;
	}
	ret = file_trusted("config", path, &st, err, errlen);
	if (!ret)
		ret = dir_trusted(path, err, errlen);
	if (ret)
		goto fail;
	*out = fdopen(fd, "r");
	if (*out)
		return 0;
	ret = set_err(err, errlen, -errno, "cannot read config '%s': %s", path, strerror(errno));
fail:
	close(fd);
	return ret;
}

#define CONFIG_MAX_BYTES	(1 << 20)	/* a config file, main or drop-in */

int config_parse_file(struct tracerd_config *c, const char *path, char *err, size_t errlen)
{
	FILE *f;
	char *text = NULL;
	size_t cap = 0, len = 0, n;
	int ret;

	ret = config_open(path, &f, err, errlen);
	if (ret)
		return ret;
	for (;;) {
		if (len > CONFIG_MAX_BYTES) {	/* checked on what was read, not on the buffer */
			ret = set_err(err, errlen, -EFBIG, "config '%s' is larger than 1 MiB (%d "
				      "bytes)", path, CONFIG_MAX_BYTES);
			goto cleanup;
		}
		if (cap - len < 4096) {
			char *t;

			cap = cap ? cap * 2 : 8192;
			t = realloc(text, cap);
			if (!t) {
				ret = set_err(err, errlen, -ENOMEM, "out of memory");
				goto cleanup;
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		ret = set_err(err, errlen, -EIO, "cannot read config '%s'", path);
		goto cleanup;
	}
	text[len] = '\0';
	if (strlen(text) != len) {
		ret = set_err(err, errlen, -EINVAL, "config '%s' contains a NUL byte", path);
		goto cleanup;
	}
	ret = config_parse_string(c, text, path, err, errlen);
cleanup:
	free(text);
	fclose(f);
	return ret;
}

int config_dropin_dir(const char *main_path, char *buf, size_t len)
{
	const char *slash = strrchr(main_path, '/');
	int n;

	if (!slash)	/* a relative name: the current directory's */
		n = snprintf(buf, len, "%s", TRACERD_CONF_D);
	else
		n = snprintf(buf, len, "%.*s/%s", (int)(slash - main_path), main_path,
			     TRACERD_CONF_D);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool dropin_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && !strcmp(name + n - 5, ".conf");
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the *.conf names in dir, sorted; -errno with err filled */
static int dropin_names(const char *dir, char ***out, size_t *nr, char *err, size_t errlen)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	struct stat st;
	char **v = NULL, **t;
	size_t n = 0;
	int ret = 0;

	*out = NULL;
	*nr = 0;
	if (!dp)
		return errno == ENOENT ? 0 : set_err(err, errlen, -errno,
			"cannot read the drop-in directory '%s': %s", dir, strerror(errno));
	if (fstat(dirfd(dp), &st))
		ret = set_err(err, errlen, -errno, "cannot stat the drop-in directory '%s': %s",
			      dir, strerror(errno));
	else
		ret = file_trusted("drop-in directory", dir, &st, err, errlen);
	if (ret) {
		closedir(dp);
		return ret;
	}
	errno = 0;
	while ((e = readdir(dp))) {
		if (!dropin_name(e->d_name))
			continue;
		if (n == TRACERD_DROPINS_MAX) {
			ret = set_err(err, errlen, -E2BIG, "more than %d drop-ins in '%s'",
				      TRACERD_DROPINS_MAX, dir);
			break;
		}
		t = realloc(v, (n + 1) * sizeof(*v));
		if (!t || !(t[n] = strdup(e->d_name))) {
			v = t ? t : v;
			ret = set_err(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		v = t;
		n++;
		errno = 0;
	}
	if (!ret && errno)
		ret = set_err(err, errlen, -errno, "cannot read the drop-in directory '%s': %s",
			      dir, strerror(errno));
	closedir(dp);
	if (ret) {
		while (n)
			free(v[--n]);
		free(v);
		return ret;
	}
	if (n)
		qsort(v, n, sizeof(*v), name_cmp);
	*out = v;
	*nr = n;
	return 0;
}

int config_parse_dropins(struct tracerd_config *c, const char *main_path, char *err,
			 size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 2], **names;
	size_t n, i;
	struct stat st;
	int ret, read = 0;

	if (config_dropin_dir(main_path, dir, sizeof(dir)))
		return set_err(err, errlen, -ENAMETOOLONG, "config path '%s' is too long",
			       main_path);
	ret = dropin_names(dir, &names, &n, err, errlen);
	for (i = 0; !ret && i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		/* only regular files (a symlink to one too); a directory or FIFO named *.conf is
		 * not one */
		if (stat(path, &st))
			ret = set_err(err, errlen, -errno, "cannot read drop-in '%s': %s", path,
				      strerror(errno));
		else if (S_ISREG(st.st_mode) && !(ret = config_parse_file(c, path, err, errlen)))
			read++;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (ret)
		return ret;
	c->nr_dropins = (size_t)read;
	return read;
}

int config_check_system(const struct tracerd_config *c, char *err, size_t errlen)
{
	if (c->read_group[0] && !getgrnam(c->read_group))
		return set_err(err, errlen, -ENOENT, "read_group '%s' does not exist",
			       c->read_group);
	if (c->admin_group[0] && !getgrnam(c->admin_group))
		return set_err(err, errlen, -ENOENT, "admin_group '%s' does not exist",
			       c->admin_group);
	return 0;
}
