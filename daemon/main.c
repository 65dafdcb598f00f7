// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracerd: kernel function tracing daemon. One libevent loop owns the BPF
 * objects, the kmod fd, the control socket and the signals. SIGTERM and
 * SIGINT stop it cleanly: every link and kmod attachment is released.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event2/event.h>
#include "../lib/log.h"
#include "../lib/modes.h"
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "backend.h"
#include "control.h"
#include "bpf_stats.h"
#include "bench.h"
#include "fds.h"
#include "http.h"
#include "notify.h"
#include "registry.h"
#include "recorder.h"
#include "reload.h"
#include "resolve.h"

#define STOP_EXTEND_USEC (10ULL * 1000 * 1000) /* asked for each second detaching at stop */

struct options {
	const char *config;
	const char *socket;
	const char *listen;
	bool config_given;
	bool check_config;
	int verbose;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tracerd [OPTION]...\n"
		"Kernel function tracing daemon.\n\n"
		"  -c, --config=FILE    configuration file (default %s),\n"
		"                       then the *.conf drop-ins of conf.d beside it\n"
		"  -s, --socket=PATH    control socket (overrides the config's 'socket')\n"
		"  -l, --listen=ADDR:PORT|off  HTTP metrics address (overrides 'listen')\n"
		"      --check-config   validate the configuration and exit\n"
		"  -v, --verbose        more logging (repeat for libbpf's log)\n"
		"  -h, --help           show this help and exit\n"
		"  -V, --version        show version and exit\n",
		TRACERD_DEFAULT_CONFIG);
}

/*
 * Large blocks from mmap, whatever was freed before: the big buffers are
 * transient (libbpf's own copy of the kernel's BTF, ~6 MB, for every
 * object it loads at start; rendered /metrics.json bodies) and go back to
 * the kernel when freed. With glibc's default, the first such free raises
 * the mmap threshold to its size, the next ones come from the heap, and
 * the long-lived blocks allocated after them pin that heap: an idle daemon
 * kept ~11 MB it had freed at start (RSS 21.8 MB, now about 10).
 */
static void malloc_setup(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);	/* glibc's initial value, now fixed */
#endif
}

/* 0 to continue, 1 to exit successfully, -1 on a usage error */
static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "listen", required_argument, NULL, 'l' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int c;

	o->config = TRACERD_DEFAULT_CONFIG;
	while ((c = getopt_long(argc, argv, "c:s:l:vhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			o->config_given = true;
			break;
		case 's':
			o->socket = optarg;
			break;
		case 'l':
			o->listen = optarg;
			break;
		case 'C':
			o->check_config = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("tracerd %s\n", TRACERD_VERSION);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tracerd: unexpected argument '%s'\n", tty_str(argv[optind]));
		usage(stderr);
		return -1;
	}
	return 0;
}

/*
 * Read the config, then its drop-ins (conf.d beside it); a missing default
 * config means built-in defaults (the drop-ins still apply).
 */
static int load_config(struct tracerd *d, const struct options *o)
{
	char err[512];
	int ret;

	config_init(&d->cfg);
	ret = config_parse_file(&d->cfg, o->config, err, sizeof(err));
	if (ret == -ENOENT && !o->config_given) {
		log_info("no %s: using defaults", o->config);
		ret = 0;
	}
	if (!ret)
		ret = config_parse_dropins(&d->cfg, o->config, err, sizeof(err));
	if (ret < 0) {
		log_err("%s", err);
		return ret;
	}
	if (o->socket && (o->socket[0] != '/' ||
			  str_copy(d->cfg.socket, o->socket, sizeof(d->cfg.socket)))) {
		log_err("--socket '%s': not an absolute path shorter than %d bytes", o->socket,
			TRACERD_SOCKET_PATH_MAX);
		return -EINVAL;
	}
	if (o->listen) {	/* the config key's rule, on the value as given (lib/util.h) */
		struct listen_addr a;

		ret = listen_parse(o->listen, 1, &a, err, sizeof(err));
		if (!ret && str_copy(d->cfg.listen, o->listen, sizeof(d->cfg.listen)))
			ret = set_err(err, sizeof(err), -EINVAL, "'%s' is too long", o->listen);
		if (ret) {
			log_err("--listen: %s", err);
			return ret;
		}
	}
	ret = config_check_system(&d->cfg, err, sizeof(err));
	if (ret)
		log_err("%s: %s", o->config, err);
	return ret;
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct tracerd *d = arg;
	char err[512];	/* logged by reload_config */

	if (sig == SIGHUP) {
		log_notice("SIGHUP: reloading %s", d->reload.opts.path);
		reload_config(d, &d->reload.opts, NULL, NULL, err, sizeof(err));
		return;
	}
	log_notice("%s: shutting down", strsignal((int)sig));
	notify_send(d, "STOPPING=1");
	event_base_loopexit(d->base, NULL);
}

/*
 * Detaching at stop takes a while (fentry: tens of ms per function under
 * emulation): ask systemd for more time, a few seconds at a time, while
 * hooks are left, so TimeoutStopSec= bounds a stuck stop, not a long one.
 * A stop cut short by SIGKILL leaves nothing either: the kernel closes our
 * BPF links and the module's fd, which detach the rest.
 */
static void stop_progress(struct tracerd *d, size_t left)
{
	char buf[80];

	notify_extend_timeout(d, STOP_EXTEND_USEC);
	if (!left)
		return;
	snprintf(buf, sizeof(buf), "STATUS=stopping: %zu hook%s left to detach", left,
		 left == 1 ? "" : "s");
	notify_send(d, buf);
	log_info("%s", buf + strlen("STATUS="));
}

static int run(struct tracerd *d)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct event *ev[3] = {};
	sigset_t block, old;
	char err[512];
	size_t i;
	int ret;

	d->base = event_base_new();
	if (!d->base)
		return -ENOMEM;
	for (i = 0; i < 3; i++) {
		ev[i] = evsignal_new(d->base, sigs[i], on_signal, d);
		if (!ev[i] || event_add(ev[i], NULL)) {
			ret = -ENOMEM;
			goto cleanup;
		}
	}
	ret = control_start(d, tracerd_commands);
	if (ret)
		goto cleanup;
	/* without metrics the daemon still traces: the error is logged */
	http_start(d, d->cfg.listen, &d->http);
	reload_attach_startup(d);	/* failures are logged and counted; it runs on */
	ret = fds_check_ready(err, sizeof(err));	/* a daemon that could take no client */
	if (ret) {
		log_err("%s", err);
		goto cleanup;
	}
	log_notice("tracerd %s ready (pid %d)", TRACERD_VERSION, getpid());
	notify_send(d, "READY=1");
	ret = notify_loop_start(d);
	if (ret)
		goto cleanup;
	ret = event_base_dispatch(d->base) < 0 ? -EIO : 0;
cleanup:
	http_stop(d->http);
	d->http = NULL;
	notify_loop_stop(d);
	recorder_loop_stop(d);
	control_stop(d);
	registry_loop_stop(d);
	reload_loop_stop(d);
	/* the stop, once begun, ends: freeing the events gives the signals back
	 * their default action (a second SIGTERM or SIGINT killed the daemon
	 * half-way through its detaches, a SIGHUP too), so they are blocked
	 * from before the events go until they are ignored: one that came in
	 * between (a flood of them did, under ASan) is then discarded */
	sigemptyset(&block);
	for (i = 0; i < 3; i++)
		sigaddset(&block, sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	for (i = 0; i < 3; i++)
		if (ev[i])
			event_free(ev[i]);
	for (i = 0; i < 3; i++)
		signal(sigs[i], SIG_IGN);
	sigprocmask(SIG_SETMASK, &old, NULL);
	event_base_free(d->base);
	d->base = NULL;
	return ret;
}

int main(int argc, char **argv)
{
	struct tracerd d = { .kmod.fd = -1, .stats_fd = -1, .cfg_fd = -1, .ts_fd = -1,
			    .errors_fd = -1, .by_fd = -1, .by_other_fd = -1,
			    .bpf_stats_fd = -1 };
	struct options o = {};
	char err[512];
	int ret;

	fds_std_open();	/* before anything opens a file */
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : 2;
	malloc_setup();
	tlog_init("tracerd", TLOG_NOTICE);
	ret = load_config(&d, &o);
	if (ret) {	/* what was read before the refused line (ASan's leak check) */
		config_free(&d.cfg);
		return 1;
	}
	if (o.check_config) {
		char dir[PATH_MAX] = "";

		if (d.cfg.nr_dropins)
			config_dropin_dir(o.config, dir, sizeof(dir));
		printf("%s: OK (%zu attach line%s", tty_str(o.config), d.cfg.nr_attach,
		       d.cfg.nr_attach == 1 ? "" : "s");
		if (d.cfg.nr_dropins)
			printf("; %zu drop-in%s in %s", d.cfg.nr_dropins,
			       d.cfg.nr_dropins == 1 ? "" : "s", tty_str(dir));
		printf(")\n");
		config_free(&d.cfg);
		return 0;
	}
	tlog_set_level(o.verbose ? TLOG_DEBUG : d.cfg.log_level);
	libbpf_log_setup(o.verbose);
	signal(SIGPIPE, SIG_IGN);
	fds_raise_limit();
	if (fds_check_start(err, sizeof(err))) {
		log_err("%s", err);
		config_free(&d.cfg);
		return 1;
	}
	d.reload.opts = (struct reload_opts){ o.config, o.config_given, o.listen, o.socket,
					      o.verbose };
	/* the core tells the edges through these: it calls none of them */
	d.on_attachments_changed = notify_status_changed;
	d.on_progress = watchdog_kick;
	d.start_mono_ns = now_mono_ns();
	ret = maps_create(&d);
	if (!ret)
		ret = recorder_init(&d);
	if (!ret)
		ret = resolve_init(&d);
	if (ret)
		goto cleanup;
	probe_features(&d);
	bpf_stats_apply(&d);	/* refused: logged, statistics say why they are off */
	ret = run(&d);
cleanup:
	registry_detach_all(&d, stop_progress);
	reload_state_free(&d);
	bench_store_free(&d);
	recorder_fini(&d);
	backends_fini(&d);
	bpf_stats_fini(&d);
	resolve_fini(&d);
	maps_destroy(&d);
	config_free(&d.cfg);
	log_notice("stopped");
	return ret ? 1 : 0;
}
