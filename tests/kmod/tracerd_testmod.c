// SPDX-License-Identifier: GPL-2.0
/*
 * tracerd_testmod: test-only module with stable, traceable targets for
 * tracerd's tests and benchmarks (like the kernel's bpf_testmod).
 *
 * Targets are __noipa (not only noinline): GCC would otherwise drop calls
 * whose result is unused, merge identical bodies (ICF), or clone them.
 *
 * debugfs interface, /sys/kernel/debug/tracerd_testmod/:
 *   call       write "N"       call tracerd_testmod_target() N times
 *   call_fn    write "I N"     call generated function I (0..1023) N times
 *   call_all   write "N"       call every generated function N times
 *   sleep_us   write "US"      call tracerd_testmod_sleep(US) once (sleeps)
 *   warn       write "1"       trigger a WARN (harness self-test)
 *   nr_fns     read            number of generated functions
 *
 * Symbols for tracerd_kmod's bad-input tests: tracerd_testmod_notrace (a
 * function ftrace knows nothing of) and tracerd_testmod_data (read-only
 * data, not code).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#ifndef __noipa
#define __noipa __attribute__((__noipa__))
#endif

int tracerd_testmod_target(int x);
int tracerd_testmod_sleep(unsigned int us);

/* The main target: cheap, with an argument and a return value. */
__noipa int tracerd_testmod_target(int x)
{
	return x + 1;
}
EXPORT_SYMBOL_GPL(tracerd_testmod_target);

/* A function without an ftrace call site: hooks needing one must refuse it. */
static notrace __noipa __used int tracerd_testmod_notrace(int x)
{
	return x + 2;
}

/* Data, not code: every hook mode must refuse it. */
static const u8 tracerd_testmod_data[16] __used;

/* A target that takes a known minimum time (latency lower-bound tests). */
__noipa int tracerd_testmod_sleep(unsigned int us)
{
	usleep_range(us, us + us / 10 + 1);
	return (int)us;
}

/* 1024 distinct targets, tracerd_testmod_fn_000 .. tracerd_testmod_fn_3ff. */
#define TM_FN(n) int tracerd_testmod_fn_##n(int x);			\
	__noipa int tracerd_testmod_fn_##n(int x) { return x ^ 0x##n; }
#define TM_D1(p) TM_FN(p##0) TM_FN(p##1) TM_FN(p##2) TM_FN(p##3) \
		 TM_FN(p##4) TM_FN(p##5) TM_FN(p##6) TM_FN(p##7) \
		 TM_FN(p##8) TM_FN(p##9) TM_FN(p##a) TM_FN(p##b) \
		 TM_FN(p##c) TM_FN(p##d) TM_FN(p##e) TM_FN(p##f)
#define TM_D2(p) TM_D1(p##0) TM_D1(p##1) TM_D1(p##2) TM_D1(p##3) \
		 TM_D1(p##4) TM_D1(p##5) TM_D1(p##6) TM_D1(p##7) \
		 TM_D1(p##8) TM_D1(p##9) TM_D1(p##a) TM_D1(p##b) \
		 TM_D1(p##c) TM_D1(p##d) TM_D1(p##e) TM_D1(p##f)
TM_D2(0) TM_D2(1) TM_D2(2) TM_D2(3)

#undef TM_FN
#define TM_FN(n) tracerd_testmod_fn_##n,
static int (*const tm_fns[])(int) = { TM_D2(0) TM_D2(1) TM_D2(2) TM_D2(3) };
#define TM_NR_FNS ARRAY_SIZE(tm_fns)

/* Sink so the compiler keeps every call. */
static volatile int tm_sink;

#define TM_MAX_CALLS 100000000UL

static int tm_parse_ulong(const char __user *ubuf, size_t len, unsigned long *v)
{
	char buf[32];

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	return kstrtoul(strim(buf), 0, v);
}

static void tm_call_loop(int (*fn)(int), unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		tm_sink += fn((int)i);
		if ((i & 0xffff) == 0xffff)
			cond_resched();
	}
}

static ssize_t tm_call_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	unsigned long n;
	int ret = tm_parse_ulong(ubuf, len, &n);

	if (ret)
		return ret;
	if (n > TM_MAX_CALLS)
		return -E2BIG;
	tm_call_loop(tracerd_testmod_target, n);
	return len;
}

static ssize_t tm_call_fn_write(struct file *f, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[48];
	unsigned long idx, n;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%lu %lu", &idx, &n) != 2)
		return -EINVAL;
	if (idx >= TM_NR_FNS)
		return -ERANGE;
	if (n > TM_MAX_CALLS)
		return -E2BIG;
	tm_call_loop(tm_fns[idx], n);
	return len;
}

static ssize_t tm_call_all_write(struct file *f, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	unsigned long n, i;
	int ret = tm_parse_ulong(ubuf, len, &n);

	if (ret)
		return ret;
	if (n > TM_MAX_CALLS / TM_NR_FNS)
		return -E2BIG;
	for (i = 0; i < TM_NR_FNS; i++)
		tm_call_loop(tm_fns[i], n);
	return len;
}

static ssize_t tm_sleep_write(struct file *f, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	unsigned long us;
	int ret = tm_parse_ulong(ubuf, len, &us);

	if (ret)
		return ret;
	if (us > 1000000)
		return -E2BIG;
	tm_sink += tracerd_testmod_sleep(us);
	return len;
}

static ssize_t tm_warn_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	WARN(1, "tracerd_testmod: WARN requested through debugfs (harness self-test)\n");
	return len;
}

static ssize_t tm_nr_fns_read(struct file *f, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char buf[16];
	int n = scnprintf(buf, sizeof(buf), "%zu\n", TM_NR_FNS);

	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

#define TM_FOPS(name, op, fn)					\
	static const struct file_operations name = {		\
		.owner = THIS_MODULE, .op = fn,			\
		.llseek = noop_llseek }
TM_FOPS(tm_call_fops, write, tm_call_write);
TM_FOPS(tm_call_fn_fops, write, tm_call_fn_write);
TM_FOPS(tm_call_all_fops, write, tm_call_all_write);
TM_FOPS(tm_sleep_fops, write, tm_sleep_write);
TM_FOPS(tm_warn_fops, write, tm_warn_write);
TM_FOPS(tm_nr_fns_fops, read, tm_nr_fns_read);

static struct dentry *tm_dir;

static int __init tm_init(void)
{
	tm_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(tm_dir))
		return PTR_ERR(tm_dir);
	debugfs_create_file("call", 0200, tm_dir, NULL, &tm_call_fops);
	debugfs_create_file("call_fn", 0200, tm_dir, NULL, &tm_call_fn_fops);
	debugfs_create_file("call_all", 0200, tm_dir, NULL, &tm_call_all_fops);
	debugfs_create_file("sleep_us", 0200, tm_dir, NULL, &tm_sleep_fops);
	debugfs_create_file("warn", 0200, tm_dir, NULL, &tm_warn_fops);
	debugfs_create_file("nr_fns", 0400, tm_dir, NULL, &tm_nr_fns_fops);
	return 0;
}

static void __exit tm_exit(void)
{
	debugfs_remove(tm_dir);
}

module_init(tm_init);
module_exit(tm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tracerd test-only module: traceable targets");
