/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /etc/tracerd/tracerd.conf: `key = value` lines, `#` comments, blank
 * lines ignored. Keys and their values are in config.c's key table (one
 * row per key: add a key by adding a row and a field). Unknown keys, bad
 * values and repeated single-valued keys are errors naming the line:
 * "tracerd.conf:7: unknown key 'foo'".
 *
 * Drop-ins: after the main file, every regular file named *.conf in the
 * conf.d directory beside it (/etc/tracerd/conf.d/), in lexical (strcmp)
 * order. A later file overrides the scalar keys of earlier ones; `attach`
 * lines accumulate over all of them. Within one file a key still may not
 * be given twice.
 */
#ifndef TRACERD_LIB_CONFIG_H
#define TRACERD_LIB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include "spec.h"

#define TRACERD_DEFAULT_CONFIG	"/etc/tracerd/tracerd.conf"
#define TRACERD_DEFAULT_SOCKET	"/run/tracerd/tracerd.sock"
#define TRACERD_DEFAULT_LISTEN	"127.0.0.1:9477"
#define TRACERD_SOCKET_PATH_MAX	108	/* sun_path */
#define TRACERD_CONF_D		"conf.d"	/* beside the main file */
#define TRACERD_DROPINS_MAX	1024

/*
 * max_glob_matches: the default takes `attach '*'` (about 50k traceable
 * functions on 6.12) in a mode that takes no slot (kmod: daemon/backend.h
 * no_slots) and fits one module batch (TRACERD_MAX_ATTACH, kmod ABI 1.9);
 * the ceiling is the record reader's slot bound (lib/record.c MAX_SLOT).
 * A glob in a mode that takes a slot per function is bounded by the free
 * slots too (daemon/registry.c slots_fit).
 */
#define TRACERD_GLOB_MATCHES_DEFAULT	262144
#define TRACERD_GLOB_MATCHES_LIMIT	(1U << 20)
/* by_max_keys: the size of the by_keys map (docs/limits.md); by_top: keys shown */
#define TRACERD_BY_MAX_KEYS_DEFAULT	1024
#define TRACERD_BY_MAX_KEYS_LIMIT	65536
#define TRACERD_BY_TOP_DEFAULT		10
#define TRACERD_BY_TOP_LIMIT		1000
/* stack_max_entries: the size of the --stacks tables (docs/limits.md) */
#define TRACERD_STACK_MAX_ENTRIES_DEFAULT	16384
#define TRACERD_STACK_MAX_ENTRIES_LIMIT		262144

struct tracerd_config_attach {
	struct tracerd_spec spec;
	int line;
	const char *file;	/* the file it is in: one of tracerd_config.files */
};

struct tracerd_config {
	char socket[TRACERD_SOCKET_PATH_MAX];
	char read_group[64];		/* "": root only */
	char admin_group[64];		/* "": root only */
	char listen[128];		/* "off" or ADDR:PORT */
	char record_dir[PATH_MAX];
	unsigned long long record_max_bytes;
	unsigned int record_keep;
	char state_dir[PATH_MAX];
	int log_level;
	unsigned int max_glob_matches;
	bool bpf_stats;			/* hold BPF_ENABLE_STATS: programs' run time and count */
	unsigned int by_max_keys;	/* --by keys the kernel keeps, all attachments (start-up) */
	unsigned int by_top;		/* --by keys shown per attachment, the rest as other */
	/* functions of an attachment with their own metrics series (lib/metrics.h) */
	unsigned int metrics_function_top;
	unsigned int stack_max_entries;	/* --stacks: stacks the kernel keeps (start-up) */
	struct tracerd_config_attach *attach;
	size_t nr_attach;
	char **files;			/* the files read, main first, then drop-ins */
	size_t nr_files;
	size_t nr_dropins;		/* of them, from conf.d */
};

void config_init(struct tracerd_config *c);
void config_free(struct tracerd_config *c);
/* Parse text (name is used in messages); 0 or -EINVAL with err filled. */
int config_parse_string(struct tracerd_config *c, const char *text, const char *name,
			char *err, size_t errlen);
/* Parse a file; a missing file is -ENOENT (the caller decides). */
int config_parse_file(struct tracerd_config *c, const char *path, char *err, size_t errlen);
/*
 * The drop-ins of main_path (the *.conf files of its directory's conf.d), parsed into c
 * after the main file: the number read (a missing conf.d: 0), or -errno
 * with err naming the file (and line) or the directory.
 */
int config_parse_dropins(struct tracerd_config *c, const char *main_path, char *err,
			 size_t errlen);
/* conf.d of main_path into buf; -ENAMETOOLONG when it does not fit */
int config_dropin_dir(const char *main_path, char *buf, size_t len);
/* Checks that need the system (group names exist). */
int config_check_system(const struct tracerd_config *c, char *err, size_t errlen);

#endif
