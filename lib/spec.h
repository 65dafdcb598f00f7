/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Attach specifications: what a user asks tracerd to trace, the same
 * whether it comes from a config `attach =` line or a control request.
 *   TARGET [mode=M] [latency] [errors] [by=pid|comm|cgroup] [stacks[=DEPTH]] [pid=N]
 *          [comm=NAME] [record=NAME] [slower_than=DURATION] [args] [if=NAME OP VALUE]
 * TARGET is a kernel function name, a glob of them ("vfs_*"), or a
 * tracepoint "tp:CATEGORY/NAME".
 */
#ifndef TRACERD_LIB_SPEC_H
#define TRACERD_LIB_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <json-c/json.h>
#include <tracerd/modes.h>
#include <tracerd/trace.h>
#include "modes.h"

#define TRACERD_TARGET_MAX	256
#define TRACERD_RECORD_NAME_MAX	64

/*
 * Who an attachment belongs to. `tracectl bench` attaches through the
 * registry like any client, but its attachments are its own: they never
 * count as duplicates of a user's (nor a user's of theirs), and bench's
 * `unhook all` removes only them (docs/bench.md, "Protocol").
 */
enum spec_owner {
	SPEC_OWNER_USER = 0,	/* tracectl attach, the config */
	SPEC_OWNER_BENCH,	/* the bench command's hooks */
};

/* --by: the key calls are counted under (one per attachment) */
enum spec_by {
	SPEC_BY_NONE = 0,
	SPEC_BY_PID,
	SPEC_BY_COMM,
	SPEC_BY_CGROUP,
	SPEC_BY_NR,
};
/* "pid", "comm", "cgroup"; NULL for SPEC_BY_NONE */
const char *spec_by_name(enum spec_by by);
/* the spec_by of a name, or -EINVAL ("none" is not a name) */
int spec_by_parse(const char *name);

/*
 * --if's comparison: one argument (by its BTF name), one operator, one
 * value (an integer, decimal or 0x hex, or an enumerator's name); the
 * daemon checks the name and the value against the function's BTF.
 */
#define SPEC_IF_MAX	96
struct spec_if {
	char name[64];
	int op;				/* enum tracerd_if_op (tracerd/trace.h) */
	char value[SPEC_IF_MAX];
};
/* "count>=4096", "count >= 4096": 0, or -EINVAL with the reason in err */
int spec_if_parse(const char *text, struct spec_if *out, char *err, size_t errlen);
/* The operator's text ("==" ...) */
const char *spec_if_op_name(int op);

struct tracerd_spec {
	char target[TRACERD_TARGET_MAX];
	enum tracerd_mode mode;
	bool latency;
	bool errors;			/* count error returns by errno (needs a return hook) */
	enum spec_by by;		/* calls per pid, comm or cgroup (--by) */
	__u32 stacks;			/* calls per kernel stack of up to this many frames
					 * (--stacks), 1..TRACERD_STACK_DEPTH_MAX; 0: off */
	__u64 slower_ns;		/* --slower-than: record only the calls slower than
					 * this (needs latency and record); 0: off */
	bool args;			/* --args: recorded calls carry their arguments
					 * (needs record) */
	char cond[SPEC_IF_MAX];		/* --if: "NAME OP VALUE" without blanks (spec_if_parse);
					 * "": every call */
	bool partial;			/* hook what the fds allow, skip the rest */
	__u32 tgid;			/* 0: any process */
	char comm[TRACERD_COMM_LEN];	/* "": any command */
	char record[TRACERD_RECORD_NAME_MAX];	/* "": not recorded */
	enum mode_variant variant;	/* lib/modes.h; NONE unless bench asks */
	enum spec_owner owner;		/* who asked: bench's attachments are its own */
	__u32 glob_limit;		/* a glob hooks its first N matches that can be
					 * hooked (bench attach --kernel-funcs); 0: all */
	bool glob_skip_hot;		/* a glob passes over the trigger function (the
					 * others of bench trigger --kernel-funcs) */
	bool glob_add_hot;		/* and hooks it besides its N (--with-hot) */
};

/* Does spec need the function's return hook (latency, errors)? */
static inline bool spec_returns(const struct tracerd_spec *spec)
{
	return spec->latency || spec->errors;
}

/*
 * Does spec only count calls (filters --pid, --comm at most)? Such an
 * attachment in a mode with a count tier (struct backend's count_tier)
 * counts in a map of its own and takes no global slot.
 */
static inline bool spec_count_only(const struct tracerd_spec *spec)
{
	return !spec_returns(spec) && spec->by == SPEC_BY_NONE && !spec->stacks &&
	       !spec->slower_ns && !spec->args && !spec->cond[0] && !spec->record[0];
}

/* --slower-than's bounds: 1 ns to an hour */
#define SPEC_SLOWER_MAX_NS	(3600ULL * 1000 * 1000 * 1000)
/*
 * A duration, an integer and its unit ("10us", "2ms", "1s", "500ns") in
 * ns: 0, or -EINVAL with the reason in err.
 */
int spec_parse_duration(const char *s, __u64 *ns, char *err, size_t errlen);

/* Validate a target string; 0 or -EINVAL with a reason in err. */
int spec_check_target(const char *target, char *err, size_t errlen);
/* Is the target a tracepoint ("tp:cat/name")? */
bool spec_is_tracepoint(const char *target);
/* Does the (function) target contain glob characters? */
bool spec_is_glob(const char *target);
/*
 * tp:syscalls/sys_enter_NAME: a tracepoint latency can time, from it to
 * tp:syscalls/sys_exit_NAME of the same thread.
 */
#define SPEC_SYSCALL_ENTER	"tp:syscalls/sys_enter_"
#define SPEC_SYSCALL_EXIT	"sys_exit_"
bool spec_is_syscall_pair(const char *target);
/* Record names: [A-Za-z0-9._-], not starting with '.', no '/'. */
int spec_check_record_name(const char *name, char *err, size_t errlen);
/*
 * What a target is, asked once per request (spec_kind) and carried with it
 * (daemon/registry.c's struct request) rather than asked again.
 */
enum spec_kind {
	SPEC_KIND_FUNCTION,	/* one kernel function */
	SPEC_KIND_GLOB,		/* functions matching a glob */
	SPEC_KIND_TRACEPOINT,	/* tp:CATEGORY/NAME */
	SPEC_KIND_SYSCALL_PAIR,	/* tp:syscalls/sys_enter_NAME: latency to sys_exit_NAME */
};
enum spec_kind spec_kind(const char *target);
static inline bool spec_kind_is_tracepoint(enum spec_kind k)
{
	return k == SPEC_KIND_TRACEPOINT || k == SPEC_KIND_SYSCALL_PAIR;
}
/* The MODE_CAP_* a mode needs to honour spec (target kind and options). */
unsigned int spec_needs(const struct tracerd_spec *spec, enum spec_kind kind);
/*
 * The decoders, one per form; both zero *spec first and decode each valued
 * option (mode, by, stacks, pid, comm, record) through the same setter, so a bad
 * value gets the same -EINVAL and message in both.
 * spec_parse_line: the config form "TARGET [opt...]", then spec_validate and
 * spec_check_kind (a config is refused when it is loaded).
 * spec_from_json: a control request's attach arguments (docs/protocol.md;
 * unknown keys are the caller's: proto_args_check); validated by the
 * registry, as every request is.
 */
int spec_parse_line(const char *line, struct tracerd_spec *spec, char *err, size_t errlen);
int spec_from_json(json_object *args, struct tracerd_spec *spec, char *err, size_t errlen);
/* Same target, mode, variant, latency, errors, by, stacks, pid, comm and owner: the same
 * hooks (record aside). */
bool spec_same_hooks(const struct tracerd_spec *a, const struct tracerd_spec *b);
/* Every field equal, record included. */
bool spec_equal(const struct tracerd_spec *a, const struct tracerd_spec *b);
/* Syntax only: the target's, the enums' ranges, the record name. */
int spec_validate(const struct tracerd_spec *spec, char *err, size_t errlen);
/*
 * What the target's kind rules out whatever the kernel (a tracepoint has no
 * return: no errors, latency only for a syscall pair) and what the mode
 * table says of the mode's family (a function mode on a tracepoint, tp-btf
 * on a function, --by on a kmod mode, a variant of auto). What a mode's
 * backend lacks is the registry's check (needs & ~caps).
 */
int spec_check_kind(const struct tracerd_spec *spec, enum spec_kind kind, char *err,
		    size_t errlen);

#endif
