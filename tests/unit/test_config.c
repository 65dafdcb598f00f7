// SPDX-License-Identifier: GPL-2.0-or-later
/* tracerd.conf parser: every key, line-numbered errors, attach lines. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "../../lib/config.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "test.h"

static int parse(struct tracerd_config *c, const char *text, char *err, size_t len)
{
	config_init(c);
	return config_parse_string(c, text, "t.conf", err, len);
}

TEST(empty_config_gives_defaults)
{
	struct tracerd_config c;
	char err[256] = "";

	ASSERT_OK(parse(&c, "", err, sizeof(err)), err);
	ASSERT_STREQ(c.socket, TRACERD_DEFAULT_SOCKET, "socket");
	ASSERT_STREQ(c.listen, "127.0.0.1:9477", "listen");
	ASSERT_EQ(c.max_glob_matches, 262144, "max_glob_matches: attach '*' in a kmod mode");
	ASSERT_FALSE(c.bpf_stats, "bpf_stats off by default");
	ASSERT_EQ(c.by_max_keys, 1024, "by_max_keys default");
	ASSERT_EQ(c.by_top, 10, "by_top default");
	ASSERT_EQ(c.metrics_function_top, 100, "metrics_function_top default");
	ASSERT_EQ(c.stack_max_entries, 16384, "stack_max_entries default");
	ASSERT_EQ(c.nr_attach, 0, "attach");
	config_free(&c);
}

/* max_glob_matches past the 4096 BPF slots: a kmod glob takes none (issue #34) */
TEST(max_glob_matches_past_the_slots)
{
	struct tracerd_config c;
	char err[256] = "";

	ASSERT_OK(parse(&c, "max_glob_matches = 1048576\n", err, sizeof(err)), err);
	ASSERT_EQ(c.max_glob_matches, 1048576, "the ceiling, the record reader's slot bound");
	config_free(&c);
	ASSERT_OK(parse(&c, "max_glob_matches = 4097\n", err, sizeof(err)), err);
	ASSERT_EQ(c.max_glob_matches, 4097, "more than TRACERD_MAX_SLOTS");
	config_free(&c);
}

TEST(all_keys)
{
	struct tracerd_config c;
	char err[256] = "";
	const char *text =
		"# comment\n"
		"socket = /tmp/x.sock\n"
		"read_group = adm\n"
		"admin_group = root   # trailing comment\n"
		"listen = off\n"
		"record_dir = /var/tmp/rec\n"
		"record_max_bytes = 16M\n"
		"record_keep = 3\n"
		"state_dir = /var/tmp/st\n"
		"log_level = debug\n"
		"max_glob_matches = 200\n"
		"bpf_stats = on\n"
		"by_max_keys = 8\n"
		"by_top = 3\n"
		"metrics_function_top = 7\n"
		"attach = vfs_read mode=fentry latency pid=42\n"
		"attach = tp:sched/sched_switch comm=bash record=sw by=cgroup\n";

	ASSERT_OK(parse(&c, text, err, sizeof(err)), err);
	ASSERT_STREQ(c.socket, "/tmp/x.sock", "socket");
	ASSERT_STREQ(c.read_group, "adm", "read_group");
	ASSERT_STREQ(c.admin_group, "root", "admin_group");
	ASSERT_STREQ(c.listen, "off", "listen");
	ASSERT_EQ(c.record_max_bytes, 16 << 20, "record_max_bytes");
	ASSERT_EQ(c.record_keep, 3, "record_keep");
	ASSERT_EQ(c.log_level, TLOG_DEBUG, "log_level");
	ASSERT_EQ(c.max_glob_matches, 200, "max_glob_matches");
	ASSERT_TRUE(c.bpf_stats, "bpf_stats = on");
	ASSERT_EQ(c.by_max_keys, 8, "by_max_keys");
	ASSERT_EQ(c.by_top, 3, "by_top");
	ASSERT_EQ(c.metrics_function_top, 7, "metrics_function_top");
	ASSERT_EQ(c.attach[0].spec.by, SPEC_BY_NONE, "by 0");
	ASSERT_EQ(c.attach[1].spec.by, SPEC_BY_CGROUP, "by 1");
	ASSERT_EQ(c.nr_attach, 2, "nr_attach");
	ASSERT_STREQ(c.attach[0].spec.target, "vfs_read", "target 0");
	ASSERT_EQ(c.attach[0].spec.mode, TRACERD_MODE_FENTRY, "mode 0");
	ASSERT_TRUE(c.attach[0].spec.latency, "latency 0");
	ASSERT_EQ(c.attach[0].spec.tgid, 42, "pid 0");
	ASSERT_EQ(c.attach[0].line, 16, "line 0");
	ASSERT_STREQ(c.attach[1].spec.comm, "bash", "comm 1");
	ASSERT_STREQ(c.attach[1].spec.record, "sw", "record 1");
	ASSERT_EQ(c.attach[1].line, 17, "line 1");
	config_free(&c);
}

/* Each bad line, with the error it must produce (line number included). */
static const struct {
	const char *text;
	const char *err;
} bad[] = {
	{ "foo = 1\n", "t.conf:1: unknown key 'foo'" },
	{ "\n\nsocket\n", "t.conf:3: expected 'key = value', got 'socket'" },
	{ "socket = relative.sock\n", "t.conf:1: 'relative.sock' is not an absolute path" },
	{ "socket = /a\nsocket = /b\n", "t.conf:2: key 'socket' given twice" },
	{ "listen = 127.0.0.1\n", "t.conf:1: listen '127.0.0.1' is not 'off' or ADDR:PORT" },
	{ "listen = 127.0.0.1:70000\n", "t.conf:1: listen '127.0.0.1:70000': port '70000': out of range 1..65535" },
	{ "listen = 127.0.0.1:09477\n", "t.conf:1: listen '127.0.0.1:09477': port '09477': a leading 0 is not allowed (decimal only, never octal)" },
	{ "listen = 127.0.0.1:0x2505\n", "t.conf:1: listen '127.0.0.1:0x2505': port '0x2505': hexadecimal is not allowed (decimal only)" },
	{ "listen = 127.0.0.1:\n", "t.conf:1: listen '127.0.0.1:': port '': empty number" },
	{ "listen = []:9477\n", "t.conf:1: listen '[]:9477': empty [IPv6] address" },
	{ "listen = 127.1:9477\n", "t.conf:1: listen '127.1:9477': '127.1' is not an IPv4 address (A.B.C.D), an [IPv6] address or localhost" },
	{ "listen = example.com:9477\n", "t.conf:1: listen 'example.com:9477': 'example.com' is not an IPv4 address (A.B.C.D), an [IPv6] address or localhost" },
	{ "listen = [::ffff:127.0.0.1]\n", "t.conf:1: listen '[::ffff:127.0.0.1]': no port after the [IPv6] address ([ADDR6]:PORT)" },
	{ "listen = ::1:9477\n", "t.conf:1: listen '::1:9477': an IPv6 address goes in brackets: [ADDR6]:PORT" },
	{ "listen = [::1\n", "t.conf:1: listen '[::1': unterminated [IPv6] address" },
	{ "record_keep = 010\n", "t.conf:1: record_keep '010': a leading 0 is not allowed (decimal only, never octal)" },
	{ "max_glob_matches = 99999999999999999999\n", "t.conf:1: max_glob_matches '99999999999999999999': out of range 1..1048576" },
	{ "max_glob_matches = 1048577\n", "t.conf:1: max_glob_matches '1048577': out of range 1..1048576" },
	{ "attach = vfs_read pid=010\n", "t.conf:1: invalid pid '010': a leading 0 is not allowed (decimal only, never octal)" },
	{ "socket = /a/b #c\nsocket = /x\n", "t.conf:2: key 'socket' given twice" },
	{ "log_level = loud\n", "t.conf:1: log_level 'loud' is not one of err, warning, notice, info, debug" },
	{ "bpf_stats = yes\n", "t.conf:1: bpf_stats 'yes' is not on or off" },
	{ "by_max_keys = 0\n", "t.conf:1: by_max_keys '0': out of range 1..65536" },
	{ "by_max_keys = 65537\n", "t.conf:1: by_max_keys '65537': out of range 1..65536" },
	{ "by_max_keys = 0x10\n", "t.conf:1: by_max_keys '0x10': hexadecimal is not allowed (decimal only)" },
	{ "by_top = 1001\n", "t.conf:1: by_top '1001': out of range 1..1000" },
	{ "metrics_function_top = 0\n", "t.conf:1: metrics_function_top '0': out of range 1..100000" },
	{ "metrics_function_top = 100001\n", "t.conf:1: metrics_function_top '100001': out of range 1..100000" },
	{ "by_top = 05\n", "t.conf:1: by_top '05': a leading 0 is not allowed (decimal only, never octal)" },
	{ "attach = vfs_read by=tid\n", "t.conf:1: unknown by key 'tid' (pid, comm or cgroup)" },
	{ "stack_max_entries = 0\n", "t.conf:1: stack_max_entries '0': out of range 1..262144" },
	{ "stack_max_entries = 262145\n", "t.conf:1: stack_max_entries '262145': out of range 1..262144" },
	{ "attach = vfs_read stacks=0\n", "t.conf:1: invalid stack depth '0': out of range 1..127 (frames, 1 to 127)" },
	{ "attach = vfs_read by=pid by=comm\n", "t.conf:1: one by key per attachment" },
	{ "attach = vfs_read mode=kmod-kprobe by=pid\n", "t.conf:1: mode kmod-kprobe has no --by keys (the module counts calls per function only): use a BPF mode (fentry, kprobe, kprobe-multi, ...) or auto" },
	{ "attach = tp:sched/sched_switch errors\n", "t.conf:1: tracepoint 'tp:sched/sched_switch' has no return value: errors needs a function (an fentry, kprobe or session mode)" },
	{ "max_glob_matches = 0\n", "t.conf:1: max_glob_matches '0': out of range 1..1048576" },
	{ "record_max_bytes = 12X\n", "t.conf:1: record_max_bytes '12X' is not a size >= 4096 (K/M/G suffixes allowed)" },
	{ "record_keep = -1\n", "t.conf:1: record_keep '-1': a sign is not allowed" },
	{ "read_group = a b\n", "t.conf:1: invalid group name 'a b'" },
	{ "attach =\n", "t.conf:1: key 'attach' has an empty value" },
	{ "attach = vfs_read mode=bogus\n", "t.conf:1: unknown mode 'bogus'" },
	{ "attach = vfs_read pid=0\n", "t.conf:1: invalid pid '0': out of range 1..1073741823" },
	{ "attach = vfs_read fast\n", "t.conf:1: unknown attach option 'fast'" },
	{ "attach = vfs_read record=../x\n", "t.conf:1: invalid record name '../x'" },
	{ "attach = vfs_read record=a/b\n", "t.conf:1: invalid record name 'a/b': only [A-Za-z0-9._-] allowed" },
	{ "attach = tp:sched\n", "t.conf:1: tracepoint 'tp:sched' is not of the form tp:CATEGORY/NAME" },
	{ "attach = tp:a/b mode=fentry\n", "t.conf:1: tracepoint 'tp:a/b' needs mode tp-btf (or auto), not fentry" },
	{ "attach = tp:a/b latency\n", "t.conf:1: tracepoint 'tp:a/b' has no return to time: latency needs a function or a tp:syscalls/sys_enter_NAME (timed to sys_exit_NAME)" },
	{ "attach = vfs;rm\n", "t.conf:1: function 'vfs;rm' has an invalid character ';'" },
	{ "attach = vfs_read comm=0123456789abcdef\n", "t.conf:1: invalid comm '0123456789abcdef' (1-15 bytes)" },
};

TEST(bad_lines)
{
	struct tracerd_config c;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ASSERT_ERR(parse(&c, bad[i].text, err, sizeof(err)), bad[i].text);
		ASSERT_STREQ(err, bad[i].err, bad[i].text);
		config_free(&c);
	}
}

/* '#' starts a comment first on a line or after a blank, not inside a value. */
TEST(hash_in_values)
{
	struct tracerd_config c;
	char err[256] = "";

	ASSERT_OK(parse(&c, "  # indented comment\n"
			    "record_dir = /srv/trace#1\n"
			    "state_dir = /srv/st#2 # a comment\n"
			    "socket = /run/t.sock\t# after a tab\n"
			    "attach = tp:sched/sched_switch comm=a#b\n", err, sizeof(err)), err);
	ASSERT_STREQ(c.record_dir, "/srv/trace#1", "record_dir keeps #");
	ASSERT_STREQ(c.state_dir, "/srv/st#2", "state_dir: comment after a blank");
	ASSERT_STREQ(c.socket, "/run/t.sock", "socket: comment after a tab");
	if (ASSERT_EQ(c.nr_attach, 1, "attach"))
		ASSERT_STREQ(c.attach[0].spec.comm, "a#b", "comm keeps #");
	config_free(&c);
}

/* Not a regular file: refused at once, never read (a FIFO would block). */
TEST(not_regular_file)
{
	char dir[] = "/tmp/tracerd-conf.XXXXXX", fifo[64], err[256];
	struct tracerd_config c;

	if (!ASSERT_OK_PTR(mkdtemp(dir), "mkdtemp"))
		return;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ASSERT_OK(mkfifo(fifo, 0600), "mkfifo");
	config_init(&c);
	ASSERT_EQ(config_parse_file(&c, fifo, err, sizeof(err)), -EINVAL, "FIFO");
	ASSERT_TRUE(strstr(err, "a FIFO, not a regular file") != NULL, err);
	ASSERT_EQ(config_parse_file(&c, dir, err, sizeof(err)), -EINVAL, "directory");
	ASSERT_TRUE(strstr(err, "a directory") != NULL, err);
	ASSERT_EQ(config_parse_file(&c, "/dev/null", err, sizeof(err)), -EINVAL, "device");
	ASSERT_TRUE(strstr(err, "a device") != NULL, err);
	config_free(&c);
	unlink(fifo);
	rmdir(dir);
}

TEST(missing_file)
{
	struct tracerd_config c;
	char err[256];

	config_init(&c);
	ASSERT_EQ(config_parse_file(&c, "/nonexistent/tracerd.conf", err, sizeof(err)), -2, "ENOENT");
	config_free(&c);
}

/* write text to dir/name */
static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!ASSERT_OK_PTR(f, path))
		return;
	fputs(text, f);
	fclose(f);
}

/*
 * conf.d: *.conf files in lexical order after the main file; later files
 * override scalars, attach lines accumulate and remember their file;
 * other names, dot files and a directory named *.conf are ignored.
 */
TEST(dropins)
{
	char dir[] = "/tmp/tracerd-conf.XXXXXX", main_conf[64], cd[64], sub[96], err[512] = "";
	struct tracerd_config c;

	if (!ASSERT_OK_PTR(mkdtemp(dir), "mkdtemp"))
		return;
	snprintf(main_conf, sizeof(main_conf), "%s/tracerd.conf", dir);
	snprintf(cd, sizeof(cd), "%s/conf.d", dir);
	snprintf(sub, sizeof(sub), "%s/dir.conf", cd);
	put(dir, "tracerd.conf", "max_glob_matches = 10\nlog_level = info\nattach = vfs_read\n");
	config_init(&c);
	/* no conf.d yet: nothing more, not an error */
	ASSERT_OK(config_parse_file(&c, main_conf, err, sizeof(err)), err);
	ASSERT_EQ(config_parse_dropins(&c, main_conf, err, sizeof(err)), 0, "no conf.d");
	config_free(&c);

	ASSERT_OK(mkdir(cd, 0755), "mkdir conf.d");
	ASSERT_OK(mkdir(sub, 0755), "mkdir dir.conf");
	put(cd, "20-b.conf", "max_glob_matches = 30\n\nattach = vfs_write\n");
	put(cd, "10-a.conf", "max_glob_matches = 20\nlisten = off\n");
	put(cd, "30-c.conf.disabled", "bogus = 1\n");
	put(cd, ".40-hidden.conf", "bogus = 1\n");
	put(cd, "README", "bogus = 1\n");
	config_init(&c);
	ASSERT_OK(config_parse_file(&c, main_conf, err, sizeof(err)), err);
	ASSERT_EQ(config_parse_dropins(&c, main_conf, err, sizeof(err)), 2, err);
	ASSERT_EQ(c.nr_dropins, 2, "nr_dropins");
	ASSERT_EQ(c.max_glob_matches, 30, "the last file's value");
	ASSERT_STREQ(c.listen, "off", "a drop-in's key");
	ASSERT_EQ(c.log_level, TLOG_INFO, "the main file's key, not overridden");
	if (ASSERT_EQ(c.nr_attach, 2, "attach lines accumulate")) {
		ASSERT_STREQ(c.attach[0].file, main_conf, "file 0");
		ASSERT_EQ(c.attach[0].line, 3, "line 0");
		ASSERT_STREQ(c.attach[1].spec.target, "vfs_write", "target 1");
		ASSERT_TRUE(strstr(c.attach[1].file, "/conf.d/20-b.conf") != NULL, c.attach[1].file);
		ASSERT_EQ(c.attach[1].line, 3, "line 1");
	}
	if (ASSERT_EQ(c.nr_files, 3, "files read"))
		ASSERT_TRUE(strstr(c.files[1], "10-a.conf") != NULL, "lexical order");
	config_free(&c);

	/* an error names the drop-in and its line; a key twice in one file still is one */
	put(cd, "15-bad.conf", "# c\nmax_glob_matches = 0\n");
	config_init(&c);
	ASSERT_EQ(config_parse_dropins(&c, main_conf, err, sizeof(err)), -EINVAL, "bad drop-in");
	ASSERT_TRUE(strstr(err, "/conf.d/15-bad.conf:2: max_glob_matches '0'") != NULL, err);
	config_free(&c);
	put(cd, "15-bad.conf", "listen = off\nlisten = 127.0.0.1:1\n");
	config_init(&c);
	ASSERT_EQ(config_parse_dropins(&c, main_conf, err, sizeof(err)), -EINVAL, "twice");
	ASSERT_TRUE(strstr(err, "15-bad.conf:2: key 'listen' given twice") != NULL, err);
	config_free(&c);
	snprintf(sub, sizeof(sub), "%s/15-bad.conf", cd);
	unlink(sub);

	/* a *.conf that cannot be read (a dangling symlink) is an error naming it */
	snprintf(sub, sizeof(sub), "%s/50-gone.conf", cd);
	ASSERT_OK(symlink("/nonexistent/x.conf", sub), "symlink");
	config_init(&c);
	ASSERT_EQ(config_parse_dropins(&c, main_conf, err, sizeof(err)), -ENOENT, "dangling");
	ASSERT_TRUE(strstr(err, "50-gone.conf") != NULL, err);
	config_free(&c);
	unlink(sub);
	/* a symlink to /dev/null (not a regular file) masks a name: ignored */
	ASSERT_OK(symlink("/dev/null", sub), "symlink /dev/null");
	config_init(&c);
	ASSERT_EQ(config_parse_dropins(&c, main_conf, err, sizeof(err)), 2, err);
	config_free(&c);

	ASSERT_OK(config_dropin_dir("tracerd.conf", sub, sizeof(sub)), "relative");
	ASSERT_STREQ(sub, "conf.d", "relative name: ./conf.d");
	ASSERT_OK(config_dropin_dir("/etc/tracerd/tracerd.conf", sub, sizeof(sub)), "absolute");
	ASSERT_STREQ(sub, "/etc/tracerd/conf.d", "beside the main file");
	ASSERT_EQ(config_dropin_dir("/etc/tracerd/tracerd.conf", sub, 8), -ENAMETOOLONG, "short");
	snprintf(sub, sizeof(sub), "rm -rf %s", dir);
	ASSERT_OK(system(sub), "cleanup");
}

/* config_parse_file into a fresh config; its return, err filled */
static int parse_one(const char *path, char *err, size_t errlen)
{
	struct tracerd_config c;
	int ret;

	config_init(&c);
	ret = config_parse_file(&c, path, err, errlen);
	config_free(&c);
	return ret;
}

/*
 * sshd's StrictModes: a config file, its directory or conf.d that another
 * user owns or can write is refused with -EPERM, naming it and the fix; a
 * sticky world-writable directory (/tmp) is not another's to replace in.
 */
TEST(trust)
{
	char dir[] = "/tmp/tracerd-trust.XXXXXX", f[96], cd[96], dropin[128], other[96],
		link[96], err[512] = "";
	struct tracerd_config c;

	umask(022);
	if (!ASSERT_OK_PTR(mkdtemp(dir), "mkdtemp"))
		return;
	ASSERT_OK(chmod(dir, 0755), "chmod dir");
	snprintf(f, sizeof(f), "%s/tracerd.conf", dir);
	put(dir, "tracerd.conf", "log_level = info\n");
	ASSERT_OK(parse_one(f, err, sizeof(err)), err);

	ASSERT_OK(chmod(f, 0664), "chmod 0664");
	ASSERT_EQ(parse_one(f, err, sizeof(err)), -EPERM, "group-writable file");
	ASSERT_TRUE(strstr(err, "writable by its group") && strstr(err, "chmod go-w"), err);
	ASSERT_OK(chmod(f, 0646), "chmod 0646");
	ASSERT_EQ(parse_one(f, err, sizeof(err)), -EPERM, "world-writable file");
	ASSERT_TRUE(strstr(err, "writable by others") && strstr(err, "tracerd.conf"), err);
	ASSERT_OK(chmod(f, 0644), "chmod 0644");

	ASSERT_OK(chmod(dir, 0777), "chmod dir 0777");
	ASSERT_EQ(parse_one(f, err, sizeof(err)), -EPERM, "world-writable directory");
	ASSERT_TRUE(strstr(err, "config directory") && strstr(err, dir), err);
	ASSERT_OK(chmod(dir, 01777), "chmod dir 01777");
	ASSERT_OK(parse_one(f, err, sizeof(err)), err);	/* sticky, as /tmp */
	ASSERT_OK(chmod(dir, 0755), "chmod dir 0755");

	/* conf.d and a drop-in in it */
	snprintf(cd, sizeof(cd), "%s/conf.d", dir);
	ASSERT_OK(mkdir(cd, 0755), "mkdir conf.d");
	put(cd, "10-a.conf", "max_glob_matches = 10\n");
	snprintf(dropin, sizeof(dropin), "%s/10-a.conf", cd);
	config_init(&c);
	ASSERT_EQ(config_parse_dropins(&c, f, err, sizeof(err)), 1, err);
	config_free(&c);
	ASSERT_OK(chmod(cd, 0757), "chmod conf.d 0757");
	config_init(&c);
	ASSERT_EQ(config_parse_dropins(&c, f, err, sizeof(err)), -EPERM, "writable conf.d");
	ASSERT_TRUE(strstr(err, "drop-in directory") && strstr(err, cd), err);
	config_free(&c);
	ASSERT_OK(chmod(cd, 0755), "chmod conf.d 0755");
	ASSERT_OK(chmod(dropin, 0666), "chmod drop-in 0666");
	config_init(&c);
	ASSERT_EQ(config_parse_dropins(&c, f, err, sizeof(err)), -EPERM, "writable drop-in");
	ASSERT_TRUE(strstr(err, "10-a.conf") != NULL, err);
	config_free(&c);
	ASSERT_OK(chmod(dropin, 0644), "chmod drop-in 0644");

	/* a symlink from a trusted directory to a file in a writable one */
	snprintf(other, sizeof(other), "%s/open", dir);
	ASSERT_OK(mkdir(other, 0777), "mkdir open");
	ASSERT_OK(chmod(other, 0777), "chmod open");
	put(other, "x.conf", "log_level = info\n");
	snprintf(link, sizeof(link), "%s/link.conf", dir);
	snprintf(dropin, sizeof(dropin), "%s/x.conf", other);
	ASSERT_OK(symlink(dropin, link), "symlink");
	ASSERT_EQ(parse_one(link, err, sizeof(err)), -EPERM, "symlink into a writable directory");
	ASSERT_TRUE(strstr(err, other) != NULL, err);

	/* another user's file (root only can give one away) */
	if (geteuid() == 0) {
		ASSERT_OK(chown(f, 65534, (gid_t)-1), "chown nobody");
		ASSERT_EQ(parse_one(f, err, sizeof(err)), -EPERM, "another user's file");
		ASSERT_TRUE(strstr(err, "owned by uid 65534") && strstr(err, "chown root"), err);
		ASSERT_OK(chown(f, 0, (gid_t)-1), "chown root");
		ASSERT_OK(chown(cd, 65534, (gid_t)-1), "chown conf.d nobody");
		config_init(&c);
		ASSERT_EQ(config_parse_dropins(&c, f, err, sizeof(err)), -EPERM, "another's conf.d");
		config_free(&c);
	}
	snprintf(link, sizeof(link), "rm -rf %s", dir);
	ASSERT_OK(system(link), "cleanup");
}

/* lib/util.c listen_parse: the forms, their loopback-ness, what is refused */
TEST(listen_forms)
{
	static const struct {
		const char *s;
		int ret;
		const char *host;
		bool loopback;
	} cases[] = {
		{ "127.0.0.1:9477", 0, "127.0.0.1", true },
		{ "127.8.9.10:1", 0, "127.8.9.10", true },
		{ "0.0.0.0:9477", 0, "0.0.0.0", false },
		{ "192.0.2.1:80", 0, "192.0.2.1", false },
		{ "[::1]:9477", 0, "::1", true },
		{ "[::ffff:127.0.0.1]:9477", 0, "::ffff:127.0.0.1", true },
		{ "[::ffff:10.0.0.1]:9477", 0, "::ffff:10.0.0.1", false },
		{ "[::]:9477", 0, "::", false },
		{ "localhost:9477", 0, "localhost", true },
		{ "off #x", -EINVAL, NULL, false },	/* a comment is the config's, not the value's */
		{ "127.0.0.1:1 ", -EINVAL, NULL, false },
		{ "127.1:9477", -EINVAL, NULL, false },
		{ "[]:9477", -EINVAL, NULL, false },
		{ "[::1]9477", -EINVAL, NULL, false },
		{ ":9477", -EINVAL, NULL, false },
	};
	struct listen_addr a;
	char err[256];
	size_t i;

	ASSERT_OK(listen_parse("off", 1, &a, err, sizeof(err)), err);
	ASSERT_TRUE(a.off, "off");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ASSERT_EQ(listen_parse(cases[i].s, 1, &a, err, sizeof(err)), cases[i].ret, cases[i].s);
		if (cases[i].ret)
			continue;
		ASSERT_STREQ(a.host, cases[i].host, cases[i].s);
		ASSERT_EQ(a.loopback, cases[i].loopback, cases[i].s);
	}
	ASSERT_OK(listen_parse("127.0.0.1:0", 0, &a, err, sizeof(err)), "port 0 when asked for");
	ASSERT_EQ(listen_parse("127.0.0.1:0", 1, &a, err, sizeof(err)), -EINVAL, "port 0 refused");
}

/* 1 MiB of config is the most: one byte more is refused, however the buffer grew */
TEST(size_limit)
{
	char dir[] = "/tmp/tracerd-size.XXXXXX", path[64], err[256];
	size_t n;
	FILE *f;

	umask(022);
	if (!ASSERT_OK_PTR(mkdtemp(dir), "mkdtemp"))
		return;
	ASSERT_OK(chmod(dir, 0755), "chmod");
	snprintf(path, sizeof(path), "%s/big.conf", dir);
	for (n = (1 << 20); n <= (1 << 20) + 1; n++) {
		f = fopen(path, "w");
		if (!ASSERT_OK_PTR(f, path))
			break;
		fputs("# ", f);
		for (size_t k = 2; k < n - 1; k++)
			fputc('x', f);
		fputc('\n', f);
		fclose(f);
		ASSERT_EQ(parse_one(path, err, sizeof(err)), n == (1 << 20) ? 0 : -EFBIG, err);
	}
	ASSERT_TRUE(strstr(err, "larger than 1 MiB") != NULL, err);
	unlink(path);
	rmdir(dir);
}

TEST_MAIN()
