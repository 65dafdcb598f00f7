// SPDX-License-Identifier: GPL-2.0-or-later
/* Attach specification parsing and validation; see spec.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "modes.h"
#include "proto.h"
#include "spec.h"
#include "util.h"

bool spec_is_tracepoint(const char *target)
{
	return !strncmp(target, "tp:", 3);
}

bool spec_is_syscall_pair(const char *target)
{
	return !strncmp(target, SPEC_SYSCALL_ENTER, strlen(SPEC_SYSCALL_ENTER)) &&
	       target[strlen(SPEC_SYSCALL_ENTER)];
}

bool spec_is_glob(const char *target)
{
	return strpbrk(target, "*?[") != NULL;
}

static bool ident_char(int c)
{
	return isalnum(c) || c == '_';
}

static int check_tracepoint(const char *t, char *err, size_t errlen)
{
	const char *slash = strchr(t, '/'), *p;

	if (!slash || slash == t || !slash[1] || strchr(slash + 1, '/'))
		return set_err(err, errlen, -EINVAL,
			       "tracepoint '%s' is not of the form tp:CATEGORY/NAME", t - 3);
	for (p = t; *p; p++)
		if (p != slash && !ident_char((unsigned char)*p))
			return set_err(err, errlen, -EINVAL,
				       "tracepoint '%s' has an invalid character '%c'", t - 3, *p);
	return 0;
}

int spec_check_target(const char *target, char *err, size_t errlen)
{
	const char *p;

	if (!target[0])
		return set_err(err, errlen, -EINVAL, "empty target");
	if (strlen(target) >= TRACERD_TARGET_MAX)
		return set_err(err, errlen, -EINVAL, "target longer than %d bytes",
			       TRACERD_TARGET_MAX - 1);
	if (spec_is_tracepoint(target))
		return check_tracepoint(target + 3, err, errlen);
	for (p = target; *p; p++) {
		if (ident_char((unsigned char)*p) || strchr(".*?[]!-", *p))
			continue;
		return set_err(err, errlen, -EINVAL,
			       "function '%s' has an invalid character '%c'", target, *p);
	}
	return 0;
}

int spec_check_record_name(const char *name, char *err, size_t errlen)
{
	const char *p;

	if (!name[0] || name[0] == '.' || strlen(name) >= TRACERD_RECORD_NAME_MAX)
		return set_err(err, errlen, -EINVAL, "invalid record name '%s'", name);
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			return set_err(err, errlen, -EINVAL,
				       "invalid record name '%s': only [A-Za-z0-9._-] allowed",
				       name);
	return 0;
}

static const char *const by_names[SPEC_BY_NR] = {
	[SPEC_BY_PID] = "pid", [SPEC_BY_COMM] = "comm", [SPEC_BY_CGROUP] = "cgroup",
};

const char *spec_by_name(enum spec_by by)
{
	return (unsigned int)by < SPEC_BY_NR ? by_names[by] : NULL;
}

int spec_by_parse(const char *name)
{
	int i;

	for (i = 1; i < SPEC_BY_NR; i++)
		if (!strcmp(name, by_names[i]))
			return i;
	return -EINVAL;
}

enum spec_kind spec_kind(const char *target)
{
	if (spec_is_tracepoint(target))
		return spec_is_syscall_pair(target) ? SPEC_KIND_SYSCALL_PAIR : SPEC_KIND_TRACEPOINT;
	return spec_is_glob(target) ? SPEC_KIND_GLOB : SPEC_KIND_FUNCTION;
}

unsigned int spec_needs(const struct tracerd_spec *spec, enum spec_kind kind)
{
	unsigned int needs = spec_kind_is_tracepoint(kind) ? MODE_CAP_TRACEPOINT :
							     MODE_CAP_FUNCTION;

	if (spec->latency)
		needs |= MODE_CAP_LATENCY;
	if (spec->errors)
		needs |= MODE_CAP_ERRORS;
	if (spec->comm[0])
		needs |= MODE_CAP_COMM;
	if (spec->tgid)
		needs |= MODE_CAP_PID;
	if (spec->record[0])
		needs |= MODE_CAP_RECORD;
	if (spec->by)
		needs |= MODE_CAP_BY;
	if (spec->stacks)
		needs |= MODE_CAP_STACKS;
	if (spec->slower_ns)
		needs |= MODE_CAP_SLOW;
	if (spec->args || spec->cond[0])
		needs |= MODE_CAP_ARGS;
	if (spec->args && spec->latency)	/* recorded at the return */
		needs |= MODE_CAP_ARGS_RET;
	return needs;
}

int spec_validate(const struct tracerd_spec *spec, char *err, size_t errlen)
{
	int err_;

	err_ = spec_check_target(spec->target, err, errlen);
	if (err_)
		return err_;
	if ((unsigned int)spec->mode >= TRACERD_MODE_NR)
		return set_err(err, errlen, -EINVAL, "invalid mode");
	if ((unsigned int)spec->by >= SPEC_BY_NR)
		return set_err(err, errlen, -EINVAL, "invalid by key");
	if (spec->stacks > TRACERD_STACK_DEPTH_MAX)
		return set_err(err, errlen, -EINVAL, "invalid stack depth");
	if ((unsigned int)spec->variant >= MODE_VARIANT_NR ||
	    (unsigned int)spec->owner > SPEC_OWNER_BENCH)
		return set_err(err, errlen, -EINVAL, "invalid variant or owner");
	if (spec->slower_ns && !spec->latency)
		return set_err(err, errlen, -EINVAL, "--slower-than needs --latency: a call's "
			       "duration is its entry -> return time");
	/* refused rather than a default recording: where slow calls go is said */
	if (spec->slower_ns && !spec->record[0])
		return set_err(err, errlen, -EINVAL, "--slower-than needs --record NAME: slow "
			       "calls are recorded");
	if (spec->slower_ns > SPEC_SLOWER_MAX_NS)
		return set_err(err, errlen, -EINVAL, "invalid --slower-than: 1 ns to 3600 s");
	/* refused rather than read and dropped: the arguments go into the recording */
	if (spec->args && !spec->record[0])
		return set_err(err, errlen, -EINVAL, "--args needs --record NAME: the arguments "
			       "are recorded with each call");
	if (spec->args && spec->slower_ns && spec->stacks)
		return set_err(err, errlen, -EINVAL, "--args with --slower-than --stacks: a slow "
			       "call's record holds its stack or its arguments, not both");
	/* --errors counts at the return, where a return probe no longer sees the arguments */
	if (spec->cond[0] && spec->errors)
		return set_err(err, errlen, -EINVAL, "--if with --errors: error returns are "
			       "counted at the return, where the arguments are not seen");
	if (spec->record[0])
		return spec_check_record_name(spec->record, err, errlen);
	return 0;
}

int spec_check_kind(const struct tracerd_spec *spec, enum spec_kind kind, char *err,
		    size_t errlen)
{
	bool tp = spec_kind_is_tracepoint(kind);

	if (tp && tracerd_mode_is_function(spec->mode))
		return set_err(err, errlen, -EINVAL,
			       "tracepoint '%s' needs mode tp-btf (or auto), not %s",
			       spec->target, tracerd_mode_name(spec->mode));
	if (kind == SPEC_KIND_TRACEPOINT && spec->latency)
		return set_err(
			err, errlen, -EINVAL,
			"tracepoint '%s' has no return to time: latency "
			"needs a function or a tp:syscalls/sys_enter_NAME (timed to sys_exit_NAME)",
			spec->target);
	if (tp && spec->errors)
		return set_err(err, errlen, -EINVAL,
			       "tracepoint '%s' has no return value: errors "
			       "needs a function (an fentry, kprobe or session mode)",
			       spec->target);
	if (!tp && spec->mode != TRACERD_MODE_AUTO && !tracerd_mode_is_function(spec->mode))
		return set_err(err, errlen, -EINVAL,
			       "mode tp-btf needs a tracepoint target tp:CATEGORY/NAME, not '%s'",
			       spec->target);
	if (spec->by && tracerd_mode_is_kmod(spec->mode))
		return set_err(err, errlen, -EINVAL, "mode %s has no --by keys (the module counts "
			       "calls per function only): use a BPF mode (fentry, kprobe, "
			       "kprobe-multi, ...) or auto", tracerd_mode_name(spec->mode));
	if (spec->variant && spec->mode == TRACERD_MODE_AUTO)
		return set_err(err, errlen, -EINVAL, "variant %s needs an explicit mode, not auto",
			       mode_variant_name(spec->variant));
	return 0;
}

/*
 * One setter per valued field, shared by the config line and the JSON
 * request: the same value gets the same check and the same message
 * whichever form carried it.
 */
static int set_mode(struct tracerd_spec *spec, const char *val, char *err, size_t errlen)
{
	int m = tracerd_mode_parse(val);

	if (m < 0)
		return set_err(err, errlen, -EINVAL, "unknown mode '%s'", val);
	spec->mode = m;
	return 0;
}

static int set_by(struct tracerd_spec *spec, const char *val, char *err, size_t errlen)
{
	int m = spec_by_parse(val);

	if (m < 0)
		return set_err(err, errlen, -EINVAL, "unknown by key '%s' (pid, comm or cgroup)",
			       val);
	if (spec->by)
		return set_err(err, errlen, -EINVAL, "one by key per attachment");
	spec->by = m;
	return 0;
}

/* val: the stack depth in frames as written (a config word, the JSON number printed) */
static int set_stacks(struct tracerd_spec *spec, const char *val, char *err, size_t errlen)
{
	unsigned long long v;
	char why[96];

	if (parse_dec(val, 1, TRACERD_STACK_DEPTH_MAX, &v, why, sizeof(why)))
		return set_err(err, errlen, -EINVAL, "invalid stack depth '%s': %s (frames, "
			       "1 to %d)", val, why, TRACERD_STACK_DEPTH_MAX);
	spec->stacks = (__u32)v;
	return 0;
}

int spec_parse_duration(const char *s, __u64 *ns, char *err, size_t errlen)
{
	static const struct {
		const char *unit;
		unsigned long long ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };
	unsigned long long v = 0;
	const char *p = s;
	size_t i;

	for (; *p >= '0' && *p <= '9'; p++)	/* held past any bound: no overflow */
		v = v > SPEC_SLOWER_MAX_NS ? v : v * 10 + (unsigned long long)(*p - '0');
	if (p == s)
		return set_err(err, errlen, -EINVAL, "invalid duration '%s': an integer and a "
			       "unit (ns, us, ms, s), e.g. 10us", s);
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(p, units[i].unit))
			continue;
		if (!v || v > SPEC_SLOWER_MAX_NS / units[i].ns)
			return set_err(err, errlen, -EINVAL, "invalid duration '%s': 1 ns to "
				       "3600 s", s);
		*ns = v * units[i].ns;
		return 0;
	}
	return set_err(err, errlen, -EINVAL, "invalid duration '%s': the unit is ns, us, ms or "
		       "s (e.g. 10us)", s);
}

static int set_slower(struct tracerd_spec *spec, const char *val, char *err, size_t errlen)
{
	return spec_parse_duration(val, &spec->slower_ns, err, errlen);
}

#define SPEC_PID_MAX	0x3fffffffULL

/* val: the pid as written (a config word, or the JSON number printed) */
static int set_pid(struct tracerd_spec *spec, const char *val, char *err, size_t errlen)
{
	unsigned long long v;
	char why[96];

	if (parse_dec(val, 1, SPEC_PID_MAX, &v, why, sizeof(why)))
		return set_err(err, errlen, -EINVAL, "invalid pid '%s': %s", val, why);
	spec->tgid = (__u32)v;
	return 0;
}

static int set_comm(struct tracerd_spec *spec, const char *val, char *err, size_t errlen)
{
	if (!val[0] || str_copy(spec->comm, val, sizeof(spec->comm)))
		return set_err(err, errlen, -EINVAL, "invalid comm '%s' (1-15 bytes)", val);
	return 0;
}

static const char *const if_ops[] = {
	[TRACERD_IF_EQ] = "==", [TRACERD_IF_NE] = "!=", [TRACERD_IF_LE] = "<=",
	[TRACERD_IF_GE] = ">=", [TRACERD_IF_LT] = "<",	[TRACERD_IF_GT] = ">",
};

const char *spec_if_op_name(int op)
{
	return op > 0 && (size_t)op < ARRAY_SIZE(if_ops) ? if_ops[op] : "?";
}

static bool is_ident(char c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

int spec_if_parse(const char *text, struct spec_if *out, char *err, size_t errlen)
{
	const char *p = text, *name, *val;
	size_t n, i, best = 0;

	memset(out, 0, sizeof(*out));
	while (*p == ' ' || *p == '\t')
		p++;
	for (name = p; is_ident(*p, p == name); p++)
		;
	n = (size_t)(p - name);
	if (!n || n >= sizeof(out->name))
		return set_err(err, errlen, -EINVAL, "invalid --if '%s': NAME OP VALUE, NAME an "
			       "argument's name, OP one of == != < <= > >=, e.g. 'count>=4096'",
			       text);
	memcpy(out->name, name, n);
	while (*p == ' ' || *p == '\t')
		p++;
	/* the longest operator that matches ("<=" before "<") */
	for (i = 1; i < ARRAY_SIZE(if_ops); i++)
		if (!strncmp(p, if_ops[i], strlen(if_ops[i])) &&
		    (!best || strlen(if_ops[i]) > strlen(if_ops[best])))
			best = i;
	if (!best)
		return set_err(err, errlen, -EINVAL, "invalid --if '%s': the operator is one of "
			       "== != < <= > >=", text);
	out->op = (int)best;
	p += strlen(if_ops[best]);
	while (*p == ' ' || *p == '\t')
		p++;
	val = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	n = (size_t)(p - val);
	while (*p == ' ' || *p == '\t')
		p++;
	if (!n || *p || n >= sizeof(out->value))
		return set_err(err, errlen, -EINVAL, "invalid --if '%s': one value after the "
			       "operator (an integer or an enumerator's name)", text);
	memcpy(out->value, val, n);
	for (i = 0; i < n; i++)
		if (!is_ident(val[i], false) && !strchr("-+xX", val[i]))
			return set_err(err, errlen, -EINVAL, "invalid --if value '%s': an "
				       "integer or an enumerator's name", out->value);
	return 0;
}

/* stored without blanks, so a config line holds it as one word */
static int set_if(struct tracerd_spec *spec, const char *val, char *err, size_t errlen)
{
	struct spec_if c;
	int ret = spec_if_parse(val, &c, err, errlen);

	if (ret)
		return ret;
	if ((size_t)snprintf(spec->cond, sizeof(spec->cond), "%s%s%s", c.name,
			     spec_if_op_name(c.op), c.value) >= sizeof(spec->cond))
		return set_err(err, errlen, -EINVAL, "--if longer than %d bytes", SPEC_IF_MAX - 1);
	return 0;
}

static int set_record(struct tracerd_spec *spec, const char *val, char *err, size_t errlen)
{
	if (spec_check_record_name(val, err, errlen))
		return -EINVAL;
	strcpy(spec->record, val);
	return 0;
}

static const struct spec_setter {
	const char *name;
	int (*set)(struct tracerd_spec *spec, const char *val, char *err, size_t errlen);
} setters[] = {
	{ "mode", set_mode },	{ "by", set_by },     { "stacks", set_stacks },
	{ "pid", set_pid },	{ "comm", set_comm }, { "record", set_record },
	{ "slower_than", set_slower }, { "if", set_if },
};

static int parse_option(const char *opt, struct tracerd_spec *spec, char *err, size_t errlen)
{
	const char *val = strchr(opt, '=');
	size_t i;

	if (!strcmp(opt, "latency")) {
		spec->latency = true;
		return 0;
	}
	if (!strcmp(opt, "errors")) {
		spec->errors = true;
		return 0;
	}
	if (!strcmp(opt, "args")) {
		spec->args = true;
		return 0;
	}
	if (!strcmp(opt, "partial")) {
		spec->partial = true;
		return 0;
	}
	if (!strcmp(opt, "stacks")) {	/* stacks=DEPTH: its setter, below */
		spec->stacks = TRACERD_STACK_DEPTH_DEFAULT;
		return 0;
	}
	for (i = 0; val && i < ARRAY_SIZE(setters); i++)
		if (strlen(setters[i].name) == (size_t)(val - opt) &&
		    !strncmp(opt, setters[i].name, val - opt))
			return setters[i].set(spec, val + 1, err, errlen);
	return set_err(err, errlen, -EINVAL, "unknown attach option '%s'", opt);
}

int spec_parse_line(const char *line, struct tracerd_spec *spec, char *err, size_t errlen)
{
	char buf[1024], *tok, *save = NULL;
	int ret;

	memset(spec, 0, sizeof(*spec));
	if (strlen(line) >= sizeof(buf))
		return set_err(err, errlen, -EINVAL, "attach line too long");
	strcpy(buf, line);
	tok = strtok_r(buf, " \t", &save);
	if (!tok)
		return set_err(err, errlen, -EINVAL, "attach needs a target");
	if (strlen(tok) >= sizeof(spec->target))
		return set_err(err, errlen, -EINVAL, "target longer than %d bytes",
			       TRACERD_TARGET_MAX - 1);
	strcpy(spec->target, tok);
	while ((tok = strtok_r(NULL, " \t", &save))) {
		ret = parse_option(tok, spec, err, errlen);
		if (ret)
			return ret;
	}
	ret = spec_validate(spec, err, errlen);
	if (!ret)	/* the config is refused at load, before any attach */
		ret = spec_check_kind(spec, spec_kind(spec->target), err, errlen);
	return ret;
}

int spec_from_json(json_object *args, struct tracerd_spec *spec, char *err, size_t errlen)
{
	const char *target, *val[ARRAY_SIZE(setters)];
	char pid_text[24], stacks_text[24];
	long long pid, stacks;
	bool bad = false;
	size_t i;
	int ret;

	memset(spec, 0, sizeof(*spec));
	target = proto_arg_str(args, "target", &bad);
	for (i = 0; i < ARRAY_SIZE(setters); i++)	/* pid, stacks: JSON numbers, below */
		val[i] = setters[i].set == set_pid || setters[i].set == set_stacks ?
				 NULL : proto_arg_str(args, setters[i].name, &bad);
	pid = proto_arg_int(args, "pid", 0, &bad);
	stacks = proto_arg_int(args, "stacks", 0, &bad);
	spec->latency = proto_arg_bool(args, "latency", &bad);
	spec->errors = proto_arg_bool(args, "errors", &bad);
	spec->partial = proto_arg_bool(args, "partial", &bad);
	spec->args = proto_arg_bool(args, "args", &bad);
	if (bad)
		return set_err(err, errlen, -EINVAL, "attach: an argument has the wrong JSON type");
	if (!target || str_copy(spec->target, target, sizeof(spec->target)))
		return set_err(err, errlen, -EINVAL, "attach: \"target\" missing or longer than %d "
			       "bytes", TRACERD_TARGET_MAX - 1);
	/* pid 0 is no filter, stacks 0 no stacks, as the option left out of a config line */
	snprintf(pid_text, sizeof(pid_text), "%lld", pid);
	snprintf(stacks_text, sizeof(stacks_text), "%lld", stacks);
	for (i = 0; i < ARRAY_SIZE(setters); i++) {
		if (setters[i].set == set_pid)
			val[i] = pid ? pid_text : NULL;
		if (setters[i].set == set_stacks)
			val[i] = stacks ? stacks_text : NULL;
		ret = val[i] ? setters[i].set(spec, val[i], err, errlen) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

bool spec_same_hooks(const struct tracerd_spec *a, const struct tracerd_spec *b)
{
	return !strcmp(a->target, b->target) && a->mode == b->mode && a->latency == b->latency &&
	       a->errors == b->errors && a->by == b->by && a->stacks == b->stacks &&
	       a->slower_ns == b->slower_ns && a->args == b->args && !strcmp(a->cond, b->cond) &&
	       a->tgid == b->tgid &&
	       !strcmp(a->comm, b->comm) && a->variant == b->variant && a->owner == b->owner;
}

bool spec_equal(const struct tracerd_spec *a, const struct tracerd_spec *b)
{
	return spec_same_hooks(a, b) && !strcmp(a->record, b->record);
}
