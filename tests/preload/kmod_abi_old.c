// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod_abi_old.so — LD_PRELOAD shim for the guest tests: the module's
 * TRACERD_IOC_VERSION answer says ABI minor $TRACERD_TEST_ABI_MINOR
 * (default 5), so the daemon treats the loaded module as an older one
 * (43-daemon-auto: a module without the comm filter of ABI 1.6), and
 * with $TRACERD_TEST_MAX_ATTACH set, TRACERD_IOC_FEATURES says that
 * max_attach (55-daemon-attach-all: an ABI 1.8 module's 4096). Only those
 * answers change; every ioctl still goes to the real module.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <tracerd/kmod_abi.h>

int ioctl(int fd, unsigned long req, ...);

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	const char *minor = getenv("TRACERD_TEST_ABI_MINOR");
	const char *max_attach = getenv("TRACERD_TEST_MAX_ATTACH");
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	ret = real(fd, req, arg);
	if (ret == 0 && req == TRACERD_IOC_VERSION)
		((struct tracerd_version *)arg)->abi_minor = minor ? (__u32)atoi(minor) : 5;
	if (ret == 0 && req == TRACERD_IOC_FEATURES && max_attach)
		((struct tracerd_features *)arg)->max_attach = (__u32)atoi(max_attach);
	return ret;
}
