// SPDX-License-Identifier: GPL-2.0-or-later
/* Attach specs, mode names, globs, the denylist and histogram buckets. */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>
#include <json-c/json.h>
#include "../../lib/modes.h"
#include "../../lib/spec.h"
#include "../../lib/symfilter.h"
#include "../../lib/util.h"
#include <tracerd/trace.h>
#include "test.h"

TEST(mode_names_round_trip)
{
	int m;

	for (m = 0; m < TRACERD_MODE_NR; m++)
		ASSERT_EQ(tracerd_mode_parse(tracerd_mode_name(m)), m, tracerd_mode_name(m));
	ASSERT_ERR(tracerd_mode_parse("fexit"), "unknown");
	ASSERT_STREQ(tracerd_mode_name(TRACERD_MODE_KPROBE_MULTI), "kprobe-multi", "name");
}

TEST(spec_line)
{
	struct tracerd_spec s;
	char err[256] = "";

	ASSERT_OK(spec_parse_line("tcp_* mode=kprobe-multi latency", &s, err, sizeof(err)), err);
	ASSERT_STREQ(s.target, "tcp_*", "target");
	ASSERT_TRUE(spec_is_glob(s.target), "glob");
	ASSERT_EQ(s.mode, TRACERD_MODE_KPROBE_MULTI, "mode");
	ASSERT_TRUE(s.latency, "latency");
	ASSERT_OK(spec_parse_line("tp:sched/sched_switch", &s, err, sizeof(err)), err);
	ASSERT_TRUE(spec_is_tracepoint(s.target), "tp");
	ASSERT_FALSE(spec_is_glob(s.target), "tp not glob");
	ASSERT_OK(spec_parse_line("foo.isra.0 pid=7", &s, err, sizeof(err)), err);
	ASSERT_EQ(s.tgid, 7, "pid");
	ASSERT_ERR(spec_parse_line("vfs_read mode=tp-btf", &s, err, sizeof(err)), "tp-btf on function");
	ASSERT_ERR(spec_parse_line("tp:a/b/c", &s, err, sizeof(err)), "tp with two slashes");
	ASSERT_OK(spec_parse_line("do_faccessat errors", &s, err, sizeof(err)), err);
	ASSERT_TRUE(s.errors && !s.latency, "errors");
	ASSERT_TRUE(spec_returns(&s), "errors needs the return hook");
	ASSERT_ERR(spec_parse_line("tp:task/task_rename errors", &s, err, sizeof(err)), "tp errors");
	ASSERT_STREQ(err, "tracepoint 'tp:task/task_rename' has no return value: errors needs a "
		     "function (an fentry, kprobe or session mode)", "tp errors message");
}

TEST(caps_missing_errors)
{
	char buf[96];

	ASSERT_STREQ(mode_caps_missing(MODE_CAP_FUNCTION | MODE_CAP_PID, false, false, false, true, false, false, false,
				       false, false, buf, sizeof(buf)), "error counting", "kmod: errors");
	ASSERT_STREQ(mode_caps_missing(MODE_CAP_FUNCTION, true, false, true, true, false, false, false, false, false, buf, sizeof(buf)),
		     "latency, record, error counting", "three missing");
	ASSERT_STREQ(mode_caps_missing(MODE_CAP_FUNCTION | MODE_CAP_ERRORS, false, false, false, true, false, false, false,
				       false, false, buf, sizeof(buf)), "", "a BPF function mode has it");
}

TEST(caps_missing_stacks)
{
	char buf[96];

	ASSERT_STREQ(mode_caps_missing(MODE_CAP_FUNCTION | MODE_CAP_PID, false, false, false, false,
				       false, true, false, false, false, buf, sizeof(buf)), "stacks", "kmod: stacks");
	ASSERT_STREQ(mode_caps_missing(MODE_CAP_FUNCTION, false, false, false, false, true, true, false, false, false, buf,
				       sizeof(buf)), "by keys, stacks", "two missing");
	ASSERT_STREQ(mode_caps_missing(MODE_CAP_FUNCTION | MODE_CAP_STACKS, false, false, false, false,
				       false, true, false, false, false, buf, sizeof(buf)), "", "a BPF mode has it");
}

TEST(caps_missing_by)
{
	char buf[96];

	ASSERT_STREQ(mode_caps_missing(MODE_CAP_FUNCTION | MODE_CAP_PID, false, false, false, false, true, false, false,
				       false, false, buf, sizeof(buf)), "by keys", "kmod: by");
	ASSERT_STREQ(mode_caps_missing(MODE_CAP_FUNCTION, false, false, false, true, true, false, false, false, false, buf, sizeof(buf)),
		     "error counting, by keys", "two missing");
	ASSERT_STREQ(mode_caps_missing(MODE_CAP_FUNCTION | MODE_CAP_BY, false, false, false, false, true, false, false,
				       false, false, buf, sizeof(buf)), "", "a BPF mode has it");
}

TEST(by_names)
{
	struct tracerd_spec a, b;
	char err[256] = "";

	ASSERT_EQ(spec_by_parse("pid"), SPEC_BY_PID, "pid");
	ASSERT_EQ(spec_by_parse("comm"), SPEC_BY_COMM, "comm");
	ASSERT_EQ(spec_by_parse("cgroup"), SPEC_BY_CGROUP, "cgroup");
	ASSERT_EQ(spec_by_parse("none"), -EINVAL, "none is not a key");
	ASSERT_EQ(spec_by_parse("PID"), -EINVAL, "case matters");
	ASSERT_STREQ(spec_by_name(SPEC_BY_COMM), "comm", "name");
	ASSERT_TRUE(spec_by_name(SPEC_BY_NONE) == NULL, "none: NULL");
	ASSERT_OK(spec_parse_line("vfs_read by=pid", &a, err, sizeof(err)), err);
	ASSERT_OK(spec_parse_line("vfs_read by=comm", &b, err, sizeof(err)), err);
	ASSERT_FALSE(spec_same_hooks(&a, &b), "another by key: other hooks");
	ASSERT_OK(spec_parse_line("tp:task/task_rename by=cgroup", &b, err, sizeof(err)), err);
	ASSERT_EQ(b.by, SPEC_BY_CGROUP, "tracepoints count by key too");
	a.mode = TRACERD_MODE_KMOD_DIRECT;
	ASSERT_OK(spec_validate(&a, err, sizeof(err)), "syntax only: by keys are the kind check's");
	ASSERT_EQ(spec_check_kind(&a, spec_kind(a.target), err, sizeof(err)), -EINVAL,
		  "kmod refused");
	ASSERT_STREQ(err, "mode kmod-direct has no --by keys (the module counts calls per function "
		     "only): use a BPF mode (fentry, kprobe, kprobe-multi, ...) or auto", "kmod message");
}

TEST(spec_kind_needs)
{
	struct tracerd_spec s;
	char err[256] = "";

	ASSERT_EQ(spec_kind("vfs_read"), SPEC_KIND_FUNCTION, "function");
	ASSERT_EQ(spec_kind("vfs_*"), SPEC_KIND_GLOB, "glob");
	ASSERT_EQ(spec_kind("tp:sched/sched_switch"), SPEC_KIND_TRACEPOINT, "tracepoint");
	ASSERT_EQ(spec_kind("tp:syscalls/sys_enter_getpgid"), SPEC_KIND_SYSCALL_PAIR, "pair");
	ASSERT_TRUE(spec_kind_is_tracepoint(SPEC_KIND_SYSCALL_PAIR), "a pair is a tracepoint");
	ASSERT_OK(spec_parse_line("vfs_read latency pid=3 comm=sh record=r by=pid", &s, err,
				  sizeof(err)), err);
	ASSERT_EQ(spec_needs(&s, spec_kind(s.target)), MODE_CAP_FUNCTION | MODE_CAP_LATENCY |
		  MODE_CAP_PID | MODE_CAP_COMM | MODE_CAP_RECORD | MODE_CAP_BY, "needs");
	memset(&s, 0, sizeof(s));
	strcpy(s.target, "tp:task/task_rename");
	ASSERT_EQ(spec_needs(&s, spec_kind(s.target)), MODE_CAP_TRACEPOINT, "tracepoint needs");
	/* a tracepoint with a function mode is the kind check's, not the syntax's */
	s.mode = TRACERD_MODE_FENTRY;
	ASSERT_OK(spec_validate(&s, err, sizeof(err)), err);
	ASSERT_ERR(spec_check_kind(&s, spec_kind(s.target), err, sizeof(err)), "fentry on a tp");
	ASSERT_STREQ(err, "tracepoint 'tp:task/task_rename' needs mode tp-btf (or auto), not "
		     "fentry", "message");
}

/* Decode a JSON request's attach arguments; err ("" when it decoded). */
static int from_json(const char *text, struct tracerd_spec *s, char *err, size_t errlen)
{
	json_object *o = json_tokener_parse(text);
	int ret;

	err[0] = '\0';
	if (!o)
		return -999;
	ret = spec_from_json(o, s, err, errlen);
	json_object_put(o);
	return ret;
}

TEST(spec_json)
{
	struct tracerd_spec s, l;
	char err[256], lerr[256];

	ASSERT_OK(from_json("{\"target\":\"tcp_*\",\"mode\":\"kprobe-multi\",\"latency\":true,"
			    "\"pid\":7,\"comm\":\"sh\",\"record\":\"r1\",\"by\":\"comm\","
			    "\"errors\":true,\"partial\":true}", &s, err, sizeof(err)), err);
	ASSERT_OK(spec_parse_line("tcp_* mode=kprobe-multi latency pid=7 comm=sh record=r1 "
				  "by=comm errors partial", &l, lerr, sizeof(lerr)), lerr);
	ASSERT_TRUE(spec_equal(&s, &l), "the JSON and the line decode to the same spec");
	ASSERT_TRUE(s.partial && l.partial, "partial");
	ASSERT_OK(from_json("{\"target\":\"vfs_read\",\"pid\":0}", &s, err, sizeof(err)), err);
	ASSERT_EQ(s.tgid, 0, "pid 0: any process");
	ASSERT_EQ(from_json("{\"target\":\"vfs_read\",\"pid\":\"7\"}", &s, err, sizeof(err)),
		  -EINVAL, "pid as a string");
	ASSERT_STREQ(err, "attach: an argument has the wrong JSON type", "type message");
	ASSERT_EQ(from_json("{\"mode\":\"fentry\"}", &s, err, sizeof(err)), -EINVAL, "no target");
	ASSERT_STREQ(err, "attach: \"target\" missing or longer than 255 bytes", "target message");
}

TEST(spec_stacks)
{
	struct tracerd_spec s, l;
	char err[256], lerr[256];

	ASSERT_OK(spec_parse_line("vfs_read stacks", &l, lerr, sizeof(lerr)), lerr);
	ASSERT_EQ(l.stacks, TRACERD_STACK_DEPTH_DEFAULT, "stacks alone: the default depth");
	ASSERT_OK(from_json("{\"target\":\"vfs_read\",\"stacks\":32}", &s, err, sizeof(err)),
		  err);
	ASSERT_TRUE(spec_equal(&s, &l), "the JSON and the line decode to the same spec");
	ASSERT_EQ(spec_needs(&s, SPEC_KIND_FUNCTION), MODE_CAP_FUNCTION | MODE_CAP_STACKS,
		  "needs MODE_CAP_STACKS");
	ASSERT_OK(spec_parse_line("vfs_read stacks=127", &l, lerr, sizeof(lerr)), lerr);
	ASSERT_EQ(l.stacks, 127, "the deepest");
	ASSERT_OK(spec_parse_line("vfs_read stacks=1", &l, lerr, sizeof(lerr)), lerr);
	ASSERT_EQ(l.stacks, 1, "one frame");
	ASSERT_FALSE(spec_same_hooks(&s, &l), "another depth: other hooks");
	ASSERT_OK(from_json("{\"target\":\"vfs_read\",\"stacks\":0}", &s, err, sizeof(err)),
		  err);
	ASSERT_EQ(s.stacks, 0, "stacks 0: none, as the option left out");
	ASSERT_EQ(spec_parse_line("vfs_read stacks=0", &l, lerr, sizeof(lerr)), -EINVAL,
		  "stacks=0 in a line");
	ASSERT_STREQ(lerr, "invalid stack depth '0': out of range 1..127 (frames, 1 to 127)",
		     "stacks=0 message");
	ASSERT_EQ(spec_parse_line("vfs_read stacks=", &l, lerr, sizeof(lerr)), -EINVAL,
		  "stacks= empty");
	ASSERT_EQ(spec_parse_line("vfs_read stacks=3x", &l, lerr, sizeof(lerr)), -EINVAL,
		  "stacks=3x");
	ASSERT_EQ(from_json("{\"target\":\"vfs_read\",\"stacks\":true}", &s, err,
			    sizeof(err)), -EINVAL, "stacks as a boolean");
	ASSERT_STREQ(err, "attach: an argument has the wrong JSON type", "type message");
}

/*
 * --slower-than: one setter for the line and the JSON (10us, 2ms, 1s,
 * 500ns in ns), a capability of its own, and refused without latency or
 * without a recording, with the reason.
 */
TEST(spec_slower_than)
{
	static const struct {
		const char *text;
		__u64 ns;
	} ok[] = { { "10us", 10000 }, { "2ms", 2000000 }, { "1s", 1000000000 },
		   { "500ns", 500 }, { "3600s", 3600000000000ULL }, { "1ns", 1 } };
	struct tracerd_spec s, l;
	char err[256], lerr[256], line[128];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(line, sizeof(line), "vfs_read latency record=r slower_than=%s",
			 ok[i].text);
		ASSERT_OK(spec_parse_line(line, &l, lerr, sizeof(lerr)), lerr);
		ASSERT_EQ(l.slower_ns, ok[i].ns, ok[i].text);
	}
	ASSERT_OK(spec_parse_line("vfs_read latency record=r slower_than=5ms", &l, lerr,
				  sizeof(lerr)), lerr);
	ASSERT_OK(from_json("{\"target\":\"vfs_read\",\"latency\":true,\"record\":\"r\","
			    "\"slower_than\":\"5ms\"}", &s, err, sizeof(err)), err);
	ASSERT_TRUE(spec_equal(&s, &l), "the JSON and the line decode to the same spec");
	ASSERT_OK(spec_validate(&s, err, sizeof(err)), err);
	ASSERT_EQ(spec_needs(&s, SPEC_KIND_FUNCTION),
		  MODE_CAP_FUNCTION | MODE_CAP_LATENCY | MODE_CAP_RECORD | MODE_CAP_SLOW,
		  "needs MODE_CAP_SLOW");
	ASSERT_OK(spec_parse_line("vfs_read latency record=r slower_than=6ms", &l, lerr,
				  sizeof(lerr)), lerr);
	ASSERT_FALSE(spec_same_hooks(&s, &l), "another threshold: other hooks");
	ASSERT_EQ(spec_parse_line("vfs_read record=r slower_than=5ms", &l, lerr, sizeof(lerr)),
		  -EINVAL, "without latency");
	ASSERT_STREQ(lerr, "--slower-than needs --latency: a call's duration is its entry -> "
		     "return time", "without latency: message");
	ASSERT_EQ(spec_parse_line("vfs_read latency slower_than=5ms", &l, lerr, sizeof(lerr)),
		  -EINVAL, "without record");
	ASSERT_STREQ(lerr, "--slower-than needs --record NAME: slow calls are recorded",
		     "without record: message");
	ASSERT_OK(from_json("{\"target\":\"vfs_read\",\"latency\":true,\"slower_than\":\"5ms\"}",
			    &s, err, sizeof(err)), err);
	ASSERT_EQ(spec_validate(&s, err, sizeof(err)), -EINVAL, "JSON without record");
	ASSERT_STREQ(err, "--slower-than needs --record NAME: slow calls are recorded",
		     "JSON without record: the same message");
	ASSERT_EQ(from_json("{\"target\":\"vfs_read\",\"slower_than\":5}", &s, err,
			    sizeof(err)), -EINVAL, "a number, not a duration");
	ASSERT_STREQ(mode_caps_missing(MODE_CAP_FUNCTION | MODE_CAP_LATENCY, false, false, false,
				       false, false, false, true, false, false, err,
				       sizeof(err)),
		     "slow-call recording", "kmod: no slow calls");
}

/* --args and --if: the syntax here (the names and values: the daemon, by BTF) */
TEST(spec_args_if)
{
	static const struct {
		const char *text, *norm;
		int op;
	} ok[] = {
		{ "count>=4096", "count>=4096", TRACERD_IF_GE },
		{ " count >= 4096 ", "count>=4096", TRACERD_IF_GE },
		{ "mode==TRACERD_A", "mode==TRACERD_A", TRACERD_IF_EQ },
		{ "x<-1", "x<-1", TRACERD_IF_LT },	/* "<", then the value -1 */
		{ "x<=0x10", "x<=0x10", TRACERD_IF_LE },
		{ "x!=3", "x!=3", TRACERD_IF_NE },
		{ "x>3", "x>3", TRACERD_IF_GT },
	};
	static const char *const bad[] = { "", "count", "count>=", ">=5", "1x==3", "count=5",
					   "count>=4 5", "count>=4;rm", "count=>5" };
	struct tracerd_spec s, l;
	struct spec_if c;
	char err[256], lerr[256], line[256];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ASSERT_OK(spec_if_parse(ok[i].text, &c, err, sizeof(err)), err);
		ASSERT_EQ(c.op, ok[i].op, ok[i].text);
		ASSERT_OK(from_json("{\"target\":\"vfs_read\"}", &s, err, sizeof(err)), err);
		snprintf(line, sizeof(line), "{\"target\":\"vfs_read\",\"if\":\"%s\"}", ok[i].text);
		ASSERT_OK(from_json(line, &s, err, sizeof(err)), err);
		ASSERT_STREQ(s.cond, ok[i].norm, "stored without blanks");
		snprintf(line, sizeof(line), "vfs_read if=%s", ok[i].norm);
		ASSERT_OK(spec_parse_line(line, &l, lerr, sizeof(lerr)), lerr);
		ASSERT_TRUE(spec_equal(&s, &l), "the JSON and the line decode to the same spec");
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(spec_if_parse(bad[i], &c, err, sizeof(err)), -EINVAL, bad[i]);
	ASSERT_OK(spec_parse_line("vfs_read args record=r", &l, lerr, sizeof(lerr)), lerr);
	ASSERT_EQ(spec_needs(&l, SPEC_KIND_FUNCTION),
		  MODE_CAP_FUNCTION | MODE_CAP_RECORD | MODE_CAP_ARGS, "--args: MODE_CAP_ARGS");
	ASSERT_OK(spec_parse_line("vfs_read args latency record=r", &l, lerr, sizeof(lerr)), lerr);
	ASSERT_EQ(spec_needs(&l, SPEC_KIND_FUNCTION),
		  MODE_CAP_FUNCTION | MODE_CAP_RECORD | MODE_CAP_LATENCY | MODE_CAP_ARGS |
		  MODE_CAP_ARGS_RET, "--args --latency: MODE_CAP_ARGS_RET too");
	ASSERT_OK(spec_parse_line("vfs_read if=count>=1", &l, lerr, sizeof(lerr)), lerr);
	ASSERT_EQ(spec_needs(&l, SPEC_KIND_FUNCTION), MODE_CAP_FUNCTION | MODE_CAP_ARGS,
		  "--if without --args: MODE_CAP_ARGS");
	ASSERT_EQ(spec_parse_line("vfs_read args", &l, lerr, sizeof(lerr)), -EINVAL,
		  "--args without --record");
	ASSERT_STREQ(lerr, "--args needs --record NAME: the arguments are recorded with each "
		     "call", "message");
	ASSERT_EQ(spec_parse_line("vfs_read if=count>=1 errors", &l, lerr, sizeof(lerr)),
		  -EINVAL, "--if with --errors");
	ASSERT_EQ(spec_parse_line("vfs_read args latency stacks record=r slower_than=1ms", &l,
				  lerr, sizeof(lerr)), -EINVAL, "--args --slower-than --stacks");
	ASSERT_EQ(spec_parse_line("vfs_read if=count", &l, lerr, sizeof(lerr)), -EINVAL,
		  "config: a bad --if");
	ASSERT_OK(spec_parse_line("vfs_read if=count>=2", &s, err, sizeof(err)), err);
	ASSERT_OK(spec_parse_line("vfs_read if=count>=1", &l, lerr, sizeof(lerr)), lerr);
	ASSERT_FALSE(spec_same_hooks(&s, &l), "another --if: other hooks");
}

/* A bad value: the same error and message from a JSON request and a config line. */
TEST(spec_json_same_errors)
{
	static const struct {
		const char *json, *line, *msg;
	} cases[] = {
		{ "\"mode\":\"bogus\"", "mode=bogus", "unknown mode 'bogus'" },
		{ "\"by\":\"tid\"", "by=tid", "unknown by key 'tid' (pid, comm or cgroup)" },
		{ "\"pid\":1073741824", "pid=1073741824",
		  "invalid pid '1073741824': out of range 1..1073741823" },
		{ "\"pid\":-1", "pid=-1", "invalid pid '-1': a sign is not allowed" },
		{ "\"comm\":\"0123456789abcdef\"", "comm=0123456789abcdef",
		  "invalid comm '0123456789abcdef' (1-15 bytes)" },
		{ "\"comm\":\"\"", "comm=", "invalid comm '' (1-15 bytes)" },
		{ "\"record\":\"../x\"", "record=../x", "invalid record name '../x'" },
		{ "\"record\":\"a/b\"", "record=a/b",
		  "invalid record name 'a/b': only [A-Za-z0-9._-] allowed" },
		{ "\"stacks\":128", "stacks=128",
		  "invalid stack depth '128': out of range 1..127 (frames, 1 to 127)" },
		{ "\"stacks\":-3", "stacks=-3",
		  "invalid stack depth '-3': a sign is not allowed (frames, 1 to 127)" },
		{ "\"slower_than\":\"10\"", "slower_than=10",
		  "invalid duration '10': the unit is ns, us, ms or s (e.g. 10us)" },
		{ "\"slower_than\":\"ms\"", "slower_than=ms",
		  "invalid duration 'ms': an integer and a unit (ns, us, ms, s), e.g. 10us" },
		{ "\"slower_than\":\"0us\"", "slower_than=0us",
		  "invalid duration '0us': 1 ns to 3600 s" },
		{ "\"slower_than\":\"3601s\"", "slower_than=3601s",
		  "invalid duration '3601s': 1 ns to 3600 s" },
		{ "\"slower_than\":\"99999999999999999999999s\"",
		  "slower_than=99999999999999999999999s",
		  "invalid duration '99999999999999999999999s': 1 ns to 3600 s" },
		{ "\"slower_than\":\"-5ms\"", "slower_than=-5ms",
		  "invalid duration '-5ms': an integer and a unit (ns, us, ms, s), e.g. 10us" },
		{ "\"slower_than\":\"5msx\"", "slower_than=5msx",
		  "invalid duration '5msx': the unit is ns, us, ms or s (e.g. 10us)" },
	};
	struct tracerd_spec s;
	char json[256], line[256], err[256], lerr[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(json, sizeof(json), "{\"target\":\"vfs_read\",%s}", cases[i].json);
		snprintf(line, sizeof(line), "vfs_read %s", cases[i].line);
		ASSERT_EQ(from_json(json, &s, err, sizeof(err)), -EINVAL, cases[i].json);
		ASSERT_EQ(spec_parse_line(line, &s, lerr, sizeof(lerr)), -EINVAL, cases[i].line);
		ASSERT_STREQ(err, cases[i].msg, cases[i].json);
		ASSERT_STREQ(lerr, cases[i].msg, cases[i].line);
	}
}

/* issue #20: weak (W/w) symbols are functions the kmod modes must find */
TEST(kallsyms_lines)
{
	char l1[] = "ffffffff81001000 T vfs_read\n", l2[] = "ffffffff81002000 W __x64_sys_quotactl\n",
	     l3[] = "ffffffffc0001000 t tracerd_testmod_target\t[tracerd_testmod]\n",
	     l4[] = "ffffffff82000000 D jiffies\n", l5[] = "ffffffff81003000 w weak_fn\n",
	     l6[] = "garbage\n";
	char *name, *mod;
	uint64_t addr;

	ASSERT_TRUE(sym_kallsyms_line(l1, &addr, &name, &mod), "T");
	ASSERT_STREQ(name, "vfs_read", "T name");
	ASSERT_EQ(addr, 0xffffffff81001000ULL, "T addr");
	ASSERT_TRUE(mod == NULL, "vmlinux");
	ASSERT_TRUE(sym_kallsyms_line(l2, &addr, &name, &mod), "W");
	ASSERT_STREQ(name, "__x64_sys_quotactl", "W name");
	ASSERT_TRUE(sym_kallsyms_line(l3, &addr, &name, &mod), "module t");
	ASSERT_STREQ(name, "tracerd_testmod_target", "module name");
	ASSERT_STREQ(mod, "tracerd_testmod", "module");
	ASSERT_FALSE(sym_kallsyms_line(l4, &addr, &name, &mod), "data");
	ASSERT_TRUE(sym_kallsyms_line(l5, &addr, &name, &mod), "w");
	ASSERT_FALSE(sym_kallsyms_line(l6, &addr, &name, &mod), "garbage");
}

TEST(globs)
{
	ASSERT_TRUE(sym_glob_match("vfs_*", "vfs_read"), "vfs_*");
	ASSERT_FALSE(sym_glob_match("vfs_*", "do_vfs_read"), "anchored");
	ASSERT_TRUE(sym_glob_match("tracerd_testmod_fn_0*", "tracerd_testmod_fn_0ff"), "testmod");
	ASSERT_FALSE(sym_glob_match("tracerd_testmod_fn_0*", "tracerd_testmod_fn_100"), "testmod 100");
	ASSERT_TRUE(sym_glob_match("fn_[ab]?", "fn_a1"), "class");
}

/* sym_glob_match's direct compares (exact, 'prefix*', '*suffix') answer
 * as fnmatch(3) with no flags does, and so do the shapes it leaves to it */
TEST(globs_as_fnmatch)
{
	static const char *const pats[] = {
		"*", "vfs_read", "vfs_*", "*_sys_bpf", "*sys*", "v?s_*", "[a-v]fs_*",
		"vfs_\\*", "\\*", "*.", ".*", "", "__x64_sys_*", "*read", "vfs_read*",
	};
	static const char *const names[] = {
		"vfs_read", "vfs_", "vfs", "do_vfs_read", "__x64_sys_bpf", "_sys_bpf",
		"sys_bpf", "vfs_*", "*", ".", "a.b", "", "__x64_sys_getpgid", "xread",
		"read", "vfs_readv",
	};
	char what[96];
	size_t i, j;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		for (j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
			snprintf(what, sizeof(what), "'%s' on '%s'", pats[i], names[j]);
			ASSERT_EQ(sym_glob_match(pats[i], names[j]),
				  fnmatch(pats[i], names[j], 0) == 0, what);
		}
}

TEST(denylist)
{
	ASSERT_OK_PTR(sym_denied("bpf_prog_run"), "bpf_*");
	ASSERT_OK_PTR(sym_denied("htab_map_update_elem"), "htab");
	ASSERT_OK_PTR(sym_denied("__x64_sys_bpf"), "sys_bpf");
	ASSERT_OK_PTR(sym_denied("ktime_get_mono_fast_ns"), "clock");
	ASSERT_OK_PTR(sym_denied("_raw_spin_lock_irqsave"), "lock");
	ASSERT_OK_PTR(sym_denied("ftrace_ops_list_func"), "ftrace");
	ASSERT_TRUE(sym_denied("vfs_read") == NULL, "vfs_read allowed");
	ASSERT_TRUE(sym_denied("__x64_sys_getpgid") == NULL, "getpgid allowed");
	ASSERT_TRUE(sym_denied("tracerd_testmod_target") == NULL, "testmod allowed");
	ASSERT_TRUE(sym_module_denied("tracerd_kmod"), "kmod module");
	ASSERT_FALSE(sym_module_denied("tracerd_testmod"), "testmod module");
}

/*
 * sym_denied's compiled list answers as fnmatch over the list in order
 * would: the first pattern that matches (the reason names it), on names
 * made of every pattern (its plain parts, with a prefix and a suffix)
 * and on others.
 */
TEST(denylist_compiled)
{
	static const char *const extra[] = { "", "b", "bpf", "bpf_", "_sys_bpf", "x_sys_bpf",
		"bpf_sys_bpf", "__bpf_sys_bpf", "memcpy", "memcpy2", "__memcpy", "vfs_read",
		"ktime_get", "__x64_sys_bpf", "preempt_count_add", "rcu_read_lock_held" };
	const char *const *list, *want, *got;
	char name[128], what[300], core[100];
	size_t n, i, j, k;

	list = sym_denylist(&n);
	ASSERT_TRUE(n > 10, "the list");
	for (i = 0; i < n + ARRAY_SIZE(extra); i++) {
		if (i < n) {	/* the pattern's plain characters */
			for (j = k = 0; list[i][j] && k < sizeof(core) - 1; j++)
				if (!strchr("*?[]\\", list[i][j]))
					core[k++] = list[i][j];
			core[k] = '\0';
		} else {
			snprintf(core, sizeof(core), "%s", extra[i - n]);
		}
		for (j = 0; j < 4; j++) {
			snprintf(name, sizeof(name), "%s%s%s", j & 1 ? "x_" : "", core,
				 j & 2 ? "_y" : "");
			want = NULL;
			for (k = 0; k < n && !want; k++)
				if (!fnmatch(list[k], name, 0))
					want = list[k];
			got = sym_denied(name);
			snprintf(what, sizeof(what), "'%s': want %s, got %s", name,
				 want ? want : "none", got ? got : "none");
			ASSERT_TRUE(got == want, what);
		}
	}
}

TEST(hist_buckets)
{
	ASSERT_EQ(tracerd_hist_bucket(0), 0, "0");
	ASSERT_EQ(tracerd_hist_bucket(1), 1, "1");
	ASSERT_EQ(tracerd_hist_bucket(2), 2, "2");
	ASSERT_EQ(tracerd_hist_bucket(3), 2, "3");
	ASSERT_EQ(tracerd_hist_bucket(4), 3, "4");
	ASSERT_EQ(tracerd_hist_bucket(1023), 10, "1023");
	ASSERT_EQ(tracerd_hist_bucket(1024), 11, "1024");
	ASSERT_EQ(tracerd_hist_bucket(1ULL << 37), 38, "2^37");
	ASSERT_EQ(tracerd_hist_bucket(1ULL << 38), 39, "2^38 last");
	ASSERT_EQ(tracerd_hist_bucket(~0ULL), TRACERD_HIST_BUCKETS - 1, "max");
}

TEST_MAIN()
