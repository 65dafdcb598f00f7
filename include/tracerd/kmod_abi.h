/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * tracerd_kmod ioctl ABI: /dev/tracerd.
 *
 * The single source of truth for everything that crosses the user/kernel
 * boundary between tracerd and tracerd_kmod.ko. Fixed-width types only,
 * natural alignment, explicit reserved fields; pointers travel as __u64.
 * Rules: never reuse a retired ioctl number; a changed struct gets a new
 * number; bump TRACERD_ABI_MAJOR on any incompatible change, MINOR when
 * adding commands. The daemon calls TRACERD_IOC_VERSION right after open()
 * and refuses a module whose major differs.
 */
#ifndef TRACERD_KMOD_ABI_H
#define TRACERD_KMOD_ABI_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/ioctl.h>
#else
#include <linux/types.h>
#include <sys/ioctl.h>
#endif

#define TRACERD_DEV_NAME	"tracerd"
#define TRACERD_DEV_PATH	"/dev/tracerd"
#define TRACERD_IOC_MAGIC	'x'

#define TRACERD_ABI_MAJOR	1
#define TRACERD_ABI_MINOR	0

/* TRACERD_IOC_VERSION: what the module speaks. */
struct tracerd_version {
	__u32 abi_major;	/* out: TRACERD_ABI_MAJOR of the module */
	__u32 abi_minor;	/* out: TRACERD_ABI_MINOR of the module */
	char module_version[32];	/* out: NUL-terminated module version */
};

#define TRACERD_IOC_VERSION	_IOR(TRACERD_IOC_MAGIC, 1, struct tracerd_version)

#ifndef __cplusplus
_Static_assert(sizeof(struct tracerd_version) == 40, "tracerd_version ABI size");
#endif

#endif /* TRACERD_KMOD_ABI_H */
