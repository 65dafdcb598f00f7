// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracectl bench: the result document (docs/bench.md), the statistics
 * (min/median/max over the repetitions), progress on a TTY, and the
 * daemon calls of the suites.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <zlib.h>
#include "../lib/util.h"
#include "bench.h"

double now_s(void)
{
	return now_mono_ns() / 1e9;
}

/* One request on its own connection; errors come back in msg, unprinted. */
int bench_cmd(struct bench *b, const char *cmd, json_object *args, json_object **result,
	      char *msg, size_t msglen)
{
	json_object *req, *rep = NULL, *err;
	char *out = NULL, *line = NULL;
	size_t len;
	int r, fd, ret = -EPROTO;

	*result = NULL;
	b->last_code = PROTO_OK;
	if (!args)
		args = json_object_new_object();
	req = proto_request_new(cmd, args);
	out = proto_serialize(req, &len);
	json_object_put(req);
	/* checks the peer (SO_PEERCRED); --timeout bounds the exchange (cli/client.c) */
	fd = out ? client_connect(b->cli, client_timeout(b->cli, cmd), msg, msglen) : -ENOMEM;
	if (fd < 0) {
		if (fd == -ENOMEM)
			snprintf(msg, msglen, "out of memory");
		/* the socket's permissions are not a daemon that is not running */
		ret = fd == -EACCES || fd == -EPERM ? -EACCES : -ENOTCONN;
		goto cleanup;
	}
	r = client_exchange(fd, out, len, client_timeout(b->cli, cmd), &line);
	if (r == -ETIMEDOUT) {
		snprintf(msg, msglen, "no reply from tracerd within %g s (--timeout S)",
			 client_timeout(b->cli, cmd));
		ret = -ETIMEDOUT;
		goto cleanup;
	}
	if (r && r != -EPROTO) {
		snprintf(msg, msglen, "cannot talk to tracerd: %s", strerror(-(int)r));
		ret = (int)r;
		goto cleanup;
	}
	rep = line ? json_parse_strict(line, strlen(line), NULL, 0) : NULL;
	if (!rep) {
		snprintf(msg, msglen, "no or malformed reply from tracerd");
		goto cleanup;
	}
	if (jbool(rep, "ok")) {
		*result = json_object_get(jget(rep, "result"));
		ret = 0;
	} else {
		err = jget(rep, "error");
		str_fmt(msg, msglen, "%s", jstr(err, "message", "unknown error"));
		b->last_code = proto_code_parse(jstr(err, "code", "internal"));
		ret = -(int)b->last_code;
	}
cleanup:
	json_object_put(rep);
	free(line);
	if (fd >= 0)
		close(fd);
	free(out);
	return ret;
}

int bench_call(struct bench *b, const char *op, json_object *args, json_object **result,
	       char *msg, size_t msglen)
{
	if (!args)
		args = json_object_new_object();
	json_object_object_add(args, "op", json_object_new_string(op));
	return bench_cmd(b, "bench", args, result, msg, msglen);
}

void bench_progress(struct bench *b, const char *fmt, ...)
{
	char line[160];
	va_list ap;

	if (!b->progress)
		return;
	va_start(ap, fmt);
	str_vfmt(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "\r\033[K[bench %s] %s", b->suite, tty_str(line));
	fflush(stderr);
}

static void cpu_model(char *buf, size_t len)
{
	static const char *const keys[] = { "model name", "Model", "cpu model", "uarch" };
	char line[512], *v;
	unsigned int cpu_part = 0, impl = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");
	size_t i;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		v = strchr(line, ':');
		if (!v)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		for (i = 0; i < ARRAY_SIZE(keys); i++)
			if (!strncmp(line, keys[i], strlen(keys[i])) && *v) {
				snprintf(buf, len, "%s", v);
				fclose(f);
				return;
			}
		if (!strncmp(line, "CPU implementer", 15))
			impl = (unsigned int)strtoul(v, NULL, 0);
		if (!strncmp(line, "CPU part", 8))
			cpu_part = (unsigned int)strtoul(v, NULL, 0);
	}
	fclose(f);
	if (impl)	/* arm64 has no model name: implementer and part numbers */
		snprintf(buf, len, "implementer 0x%02x part 0x%03x", impl, cpu_part);
}

/* x86 sets the "hypervisor" CPU flag in a guest (TCG and KVM alike). */
static bool hypervisor(void)
{
	char line[4096];
	bool yes = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	while (f && !yes && fgets(line, sizeof(line), f))
		yes = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
	if (f)
		fclose(f);
	return yes;
}

/* The CONFIG_ options that decide which path a hook takes, and its cost. */
static const char *const config_keys[] = {
	"CONFIG_FUNCTION_TRACER", "CONFIG_DYNAMIC_FTRACE",
	"CONFIG_DYNAMIC_FTRACE_WITH_REGS", "CONFIG_DYNAMIC_FTRACE_WITH_ARGS",
	"CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS", "CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS",
	"CONFIG_FUNCTION_GRAPH_TRACER", "CONFIG_FPROBE", "CONFIG_KPROBES",
	"CONFIG_KPROBES_ON_FTRACE", "CONFIG_KRETPROBES", "CONFIG_BPF_JIT",
	"CONFIG_BPF_JIT_ALWAYS_ON", "CONFIG_X86_KERNEL_IBT", "CONFIG_CALL_DEPTH_TRACKING",
	"CONFIG_MITIGATION_CALL_DEPTH_TRACKING", "CONFIG_RETPOLINE", "CONFIG_MITIGATION_RETPOLINE",
	"CONFIG_RETHUNK", "CONFIG_MITIGATION_RETHUNK", "CONFIG_ARM64_BTI_KERNEL",
	"CONFIG_ARM64_PTR_AUTH_KERNEL", "CONFIG_CFI_CLANG", "CONFIG_PREEMPT",
	"CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT_DYNAMIC", "CONFIG_HZ", "CONFIG_SMP",
	"CONFIG_DEBUG_INFO_BTF", "CONFIG_DEBUG_INFO_BTF_MODULES",
};

/* The relevant options from /proc/config.gz or /boot/config-RELEASE. */
static json_object *kernel_config(const char *release, const char **source)
{
	static char path[300];
	json_object *o;
	char line[512];
	gzFile f;
	size_t i, n;

	*source = "/proc/config.gz";
	f = gzopen(*source, "rb");
	if (!f) {
		snprintf(path, sizeof(path), "/boot/config-%s", release);
		*source = path;
		f = gzopen(path, "rb");	/* reads plain text too */
	}
	if (!f)
		return NULL;
	o = json_object_new_object();
	for (i = 0; i < ARRAY_SIZE(config_keys); i++)
		json_object_object_add(o, config_keys[i], json_object_new_string("n"));
	while (gzgets(f, line, sizeof(line))) {
		line[strcspn(line, "\n")] = '\0';
		for (i = 0; i < ARRAY_SIZE(config_keys); i++) {
			n = strlen(config_keys[i]);
			if (!strncmp(line, config_keys[i], n) && line[n] == '=')
				json_object_object_add(o, config_keys[i],
						       json_object_new_string(line + n + 1));
		}
	}
	gzclose(f);
	return o;
}

/* The module's view when no config file is readable: "y" / "n" per option. */
static json_object *config_from_kmod(json_object *kc)
{
	json_object *o = json_object_new_object();

	if (!json_object_is_type(kc, json_type_object))
		return o;
	json_object_object_foreach(kc, k, v)
		json_object_object_add(o, k, json_object_new_string(
			json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v) ?
			"y" : "n"));
	return o;
}

static json_object *machine_json(struct bench *b)
{
	json_object *m = json_object_new_object();
	char host[256] = "", model[256];
	struct utsname u;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	cpu_model(model, sizeof(model));
	json_object_object_add(m, "hostname", json_object_new_string(host));
	json_object_object_add(m, "cpu_model", json_object_new_string(model));
	json_object_object_add(m, "cpus", json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_object_add(m, "arch", json_object_new_string(u.machine));
	json_object_object_add(m, "kernel", json_object_new_string(u.release));
	json_object_object_add(m, "kernel_build", json_object_new_string(u.version));
	json_object_object_add(m, "hypervisor", json_object_new_boolean(hypervisor()));
	return m;
}

int bench_begin(struct bench *b)
{
	json_object *cfg, *kc;
	const char *src = NULL;
	char date[32], msg[512];
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	ret = bench_call(b, "info", NULL, &b->info, msg, sizeof(msg));
	if (ret == -EACCES)	/* as any command (cli/client.c, connect_daemon) */
		return cli_error(b->cli, EXIT_PERMISSION, "permission_denied",
				 "permission denied on socket %s: tracerd's read_group or "
				 "admin_group grants access", b->cli->socket);
	if (ret && b->last_code != PROTO_OK)	/* the daemon's refusal: its code's exit */
		return cli_error(b->cli, proto_code_exit(b->last_code),
				 proto_code_name(b->last_code), "%s", msg);
	if (ret)
		return cli_error(b->cli, ret == -ENOTCONN ? EXIT_NO_DAEMON : EXIT_FAILURE_,
				 ret == -ENOTCONN ? "no_daemon" : "bench", "%s%s", msg,
				 ret == -ENOTCONN ? " (start it with 'tracerd' first: the daemon "
				 "owns the hooks)" : "");
	b->progress = isatty(STDERR_FILENO);
	uname(&u);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	b->doc = json_object_new_object();
	json_object_object_add(b->doc, "schema", json_object_new_string(BENCH_SCHEMA));
	json_object_object_add(b->doc, "suite", json_object_new_string(b->suite));
	json_object_object_add(b->doc, "date", json_object_new_string(date));
	json_object_object_add(b->doc, "tracerd_version",
			       json_object_new_string(jstr(b->info, "version", TRACERD_VERSION)));
	json_object_object_add(b->doc, "tracectl_version", json_object_new_string(TRACERD_VERSION));
	json_object_object_add(b->doc, "machine", machine_json(b));
	cfg = kernel_config(u.release, &src);
	kc = jget(b->info, "kmod_config");
	if (!cfg && kc) {
		cfg = config_from_kmod(kc);
		src = "tracerd_kmod (TRACERD_IOC_FEATURES)";
	}
	json_object_object_add(b->doc, "kernel_config", cfg);
	json_object_object_add(b->doc, "kernel_config_source", src && cfg ?
			       json_object_new_string(src) : NULL);
	json_object_object_add(b->doc, "modes", json_object_get(jget(b->info, "modes")));
	b->options = json_object_new_object();
	json_object_object_add(b->options, "repetitions", json_object_new_int(b->reps));
	json_object_object_add(b->options, "warmup", json_object_new_int(b->warmup));
	json_object_object_add(b->doc, "options", b->options);
	b->points = json_object_new_array();
	json_object_object_add(b->doc, "points", b->points);
	return 0;
}

json_object *bench_point(struct bench *b, const char *key)
{
	json_object *p = json_object_new_object();

	json_object_object_add(p, "key", json_object_new_string(key));
	json_object_object_add(p, "labels", json_object_new_object());
	json_object_object_add(p, "status", json_object_new_string("ok"));
	json_object_object_add(p, "reason", NULL);
	json_object_object_add(p, "counts", json_object_new_object());
	json_object_object_add(p, "values", json_object_new_object());
	json_object_array_add(b->points, p);
	return p;
}

void point_label(json_object *p, const char *name, const char *value)
{
	json_object_object_add(jget(p, "labels"), name, json_object_new_string(value));
}

void point_label_int(json_object *p, const char *name, long long value)
{
	json_object_object_add(jget(p, "labels"), name, json_object_new_int64(value));
}

void point_status(struct bench *b, json_object *p, const char *status, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_object_add(p, "status", json_object_new_string(status));
	json_object_object_add(p, "reason", json_object_new_string(buf));
	if (!strcmp(status, "error"))
		b->errors++;
	json_object_object_add(p, "values", json_object_new_object());
}

void point_count(json_object *p, const char *name, long long expected, long long counted)
{
	json_object *c = json_object_new_object();

	json_object_object_add(c, "expected", json_object_new_int64(expected));
	json_object_object_add(c, "counted", json_object_new_int64(counted));
	json_object_object_add(jget(p, "counts"), name, c);
}

void series_add(struct series *s, double v)
{
	if (s->n < (int)ARRAY_SIZE(s->v))
		s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double series_median(const struct series *s)
{
	double v[64];

	if (!s->n)
		return NAN;
	memcpy(v, s->v, s->n * sizeof(v[0]));
	qsort(v, s->n, sizeof(v[0]), cmp_double);
	return s->n % 2 ? v[s->n / 2] : (v[s->n / 2 - 1] + v[s->n / 2]) / 2;
}

void point_value(json_object *p, const char *name, const char *unit, const struct series *s)
{
	json_object *o = json_object_new_object(), *samples = json_object_new_array();
	double mn = INFINITY, mx = -INFINITY;
	int i;

	for (i = 0; i < s->n; i++) {
		mn = s->v[i] < mn ? s->v[i] : mn;
		mx = s->v[i] > mx ? s->v[i] : mx;
		json_object_array_add(samples, json_object_new_double(s->v[i]));
	}
	json_object_object_add(o, "unit", json_object_new_string(unit));
	json_object_object_add(o, "min", json_object_new_double(mn));
	json_object_object_add(o, "median", json_object_new_double(series_median(s)));
	json_object_object_add(o, "max", json_object_new_double(mx));
	json_object_object_add(o, "samples", samples);
	json_object_object_add(jget(p, "values"), name, o);
}

json_object *bench_find_point(json_object *doc, const char *key)
{
	json_object *pts = doc ? jget(doc, "points") : NULL;
	size_t i, n = jlen(pts);

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(pts, i);

		if (!strcmp(jstr(p, "key", ""), key))
			return p;
	}
	return NULL;
}

double point_median(json_object *doc, const char *key, const char *value)
{
	json_object *p = bench_find_point(doc, key);

	if (!p || strcmp(jstr(p, "status", ""), "ok"))
		return NAN;
	return point_stat(p, value, "median");
}

double point_stat(json_object *p, const char *value, const char *stat)
{
	json_object *v = jget(jget(p, "values"), value), *s = v ? jget(v, stat) : NULL;

	return s ? jnum(v, stat, NAN) : NAN;
}

int parse_list(const char *s, long long *out, int max)
{
	unsigned long long v;
	char buf[256], *tok, *save = NULL;
	int n = 0;

	if (str_copy(buf, s, sizeof(buf)))
		return -EINVAL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n >= max || parse_u64(tok, &v) || v > (1ULL << 40))
			return -EINVAL;
		out[n++] = (long long)v;
	}
	return n ? n : -EINVAL;
}

int parse_k_list(const char *s, long long *out, int max, bool *all)
{
	char buf[256], *a;

	if (str_copy(buf, s, sizeof(buf)))
		return -EINVAL;
	a = strstr(buf, "all");
	*all = a && !a[3] && (a == buf || a[-1] == ',');
	if (*all)
		a[a == buf ? 0 : -1] = '\0';
	return buf[0] ? parse_list(buf, out, max) : *all ? 0 : -EINVAL;
}

int bench_pick(struct bench *b, const char *what, const char *list, const char *const *known,
	       int nknown, const char **out, int max)
{
	char buf[512], names[512], *tok, *save = NULL;
	size_t off = 0;
	int i, n = 0;

	str_copy(buf, list, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < nknown && strcmp(tok, known[i]); i++)
			;
		if (i < nknown) {
			out[n++] = known[i];
			continue;
		}
		names[0] = '\0';
		for (i = 0; i < nknown; i++)
			off = str_cat(names, sizeof(names), off, "%s%s", i ? ", " : "", known[i]);
		return -cli_error(b->cli, EXIT_USAGE, "usage", "bench %s: unknown %s '%s' (%s)",
				  b->suite, what, tok, names);
	}
	return n;
}

int bench_end(struct bench *b, void (*table)(struct bench *b, FILE *f),
	      int (*svg)(struct bench *b, FILE *f))
{
	char *text;
	FILE *f;
	int ret = 0;

	if (b->progress)
		fprintf(stderr, "\r\033[K");
	text = json_line(b->doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, NULL);
	if (!text)
		return cli_error(b->cli, EXIT_FAILURE_, "internal", "out of memory");
	if (b->out) {
		f = fopen(b->out, "we");
		if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f)) {
			ret = cli_error(b->cli, EXIT_FAILURE_, "io", "cannot write %s: %s", b->out,
					strerror(errno));
			goto cleanup;
		}
	}
	if (b->svg && svg) {
		f = fopen(b->svg, "we");
		if (!f || svg(b, f) || fclose(f)) {
			ret = cli_error(b->cli, EXIT_FAILURE_, "io", "cannot write %s: %s", b->svg,
					strerror(errno));
			goto cleanup;
		}
	}
	if (b->cli->json)
		puts(text);
	else
		table(b, stdout);
	if (b->errors) {
		if (!b->cli->json)
			fprintf(stderr, "tracectl: %d point%s failed (see the table: a hook that "
				"did not count every call makes no number)\n", b->errors,
				b->errors == 1 ? "" : "s");
		ret = EXIT_FAILURE_;
	}
cleanup:
	free(text);
	json_object_put(b->doc);
	json_object_put(b->info);
	return ret;
}
