// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod backends: kmod-callops, kmod-direct, kmod-kprobe through
 * /dev/tracerd (tracerd_kmod.ko). The daemon resolves each function to its
 * address and hands address + name to the module; attachments belong to
 * the open fd, so the kernel detaches everything when tracerd dies.
 *
 * The attach ioctls are not part of the committed ABI yet
 * (include/tracerd/kmod_abi.h has TRACERD_IOC_VERSION only): until they
 * are, the modes report why they are unavailable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <tracerd/kmod_abi.h>
#include "../lib/log.h"
#include "../lib/util.h"
#include "backend.h"

/* Open /dev/tracerd and check the ABI; fills d->kmod. */
static int kmod_open(struct tracerd *d)
{
	struct kmod_info *k = &d->kmod;
	struct tracerd_version v = {};
	char ebuf[96];
	int ret;

	if (k->fd >= 0)
		return 0;
	k->present = false;
	k->fd = open(TRACERD_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (k->fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			snprintf(k->reason, sizeof(k->reason),
				 "kmod: %s not present (tracerd_kmod.ko not loaded)", TRACERD_DEV_PATH);
		else
			snprintf(k->reason, sizeof(k->reason), "kmod: cannot open %s: %s",
				 TRACERD_DEV_PATH, errno_str(ret, ebuf, sizeof(ebuf)));
		return ret;
	}
	if (ioctl(k->fd, TRACERD_IOC_VERSION, &v)) {
		ret = -errno;
		snprintf(k->reason, sizeof(k->reason), "kmod: version ioctl failed: %s",
			 errno_str(ret, ebuf, sizeof(ebuf)));
		goto fail;
	}
	k->abi_major = v.abi_major;
	k->abi_minor = v.abi_minor;
	v.module_version[sizeof(v.module_version) - 1] = '\0';
	str_copy(k->module_version, v.module_version, sizeof(k->module_version));
	if (v.abi_major != TRACERD_ABI_MAJOR) {
		ret = -EPROTO;
		snprintf(k->reason, sizeof(k->reason),
			 "kmod: module speaks ABI %u.%u, tracerd needs %u.x: install matching versions",
			 v.abi_major, v.abi_minor, TRACERD_ABI_MAJOR);
		goto fail;
	}
	k->present = true;
	k->reason[0] = '\0';
	return 0;
fail:
	close(k->fd);
	k->fd = -1;
	return ret;
}

static int kmod_probe(struct tracerd *d, char *reason, size_t len)
{
	int ret = kmod_open(d);

	if (ret)
		return set_err(reason, len, ret, "%s", d->kmod.reason);
	return set_err(reason, len, -EOPNOTSUPP,
		       "kmod: module ABI %u.%u has no attach commands yet",
		       d->kmod.abi_major, d->kmod.abi_minor);
}

static int kmod_attach(struct tracerd *d, struct attachment *a)
{
	char reason[256];
	int ret = kmod_probe(d, reason, sizeof(reason));

	return set_err(a->hooks[0].err, sizeof(a->hooks[0].err), ret, "%s", reason);
}

static void kmod_detach(struct tracerd *d, struct attachment *a)
{
}

static int kmod_misses(struct tracerd *d, struct attachment *a, struct hook *h,
		       __u64 *out, const char **why)
{
	*why = "not attached";
	return -ENODATA;
}

static void kmod_fini(struct tracerd *d)
{
	if (d->kmod.fd >= 0)
		close(d->kmod.fd);
	d->kmod.fd = -1;
}

#define KMOD_BACKEND(var, m, fini_fn)		\
	const struct backend var = {		\
		.mode = m,			\
		.probe = kmod_probe,		\
		.attach = kmod_attach,		\
		.detach = kmod_detach,		\
		.misses = kmod_misses,		\
		.fini = fini_fn,		\
	}

KMOD_BACKEND(backend_kmod_callops, TRACERD_MODE_KMOD_CALLOPS, kmod_fini);
KMOD_BACKEND(backend_kmod_direct, TRACERD_MODE_KMOD_DIRECT, NULL);
KMOD_BACKEND(backend_kmod_kprobe, TRACERD_MODE_KMOD_KPROBE, NULL);
