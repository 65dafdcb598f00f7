// SPDX-License-Identifier: GPL-2.0
/*
 * tracerd_kmod: native attach paths (ftrace direct calls, per-function
 * ftrace_ops, kprobes) and in-kernel benchmarks for tracerd.
 *
 * This file holds the misc device and the ioctl dispatcher. The ABI is
 * include/tracerd/kmod_abi.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include <tracerd/kmod_abi.h>

#define TRACERD_KMOD_VERSION "0.1.0"

static long tracerd_ioc_version(void __user *arg)
{
	struct tracerd_version v;

	memset(&v, 0, sizeof(v));
	v.abi_major = TRACERD_ABI_MAJOR;
	v.abi_minor = TRACERD_ABI_MINOR;
	strscpy(v.module_version, TRACERD_KMOD_VERSION, sizeof(v.module_version));
	if (copy_to_user(arg, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

static long tracerd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case TRACERD_IOC_VERSION:
		return tracerd_ioc_version(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations tracerd_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= tracerd_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice tracerd_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= TRACERD_DEV_NAME,
	.fops	= &tracerd_fops,
	.mode	= 0600,
};

static int __init tracerd_init(void)
{
	int ret;

	ret = misc_register(&tracerd_misc);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", TRACERD_DEV_NAME, ret);
		return ret;
	}
	pr_info("loaded, ABI %d.%d\n", TRACERD_ABI_MAJOR, TRACERD_ABI_MINOR);
	return 0;
}

static void __exit tracerd_exit(void)
{
	misc_deregister(&tracerd_misc);
	pr_info("unloaded\n");
}

module_init(tracerd_init);
module_exit(tracerd_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tracerd native attach paths and hook benchmarks");
MODULE_VERSION(TRACERD_KMOD_VERSION);
