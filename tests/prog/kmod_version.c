// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kmod_version [DEV] — open /dev/tracerd, ask TRACERD_IOC_VERSION, print
 * 'abi=MAJOR.MINOR module=VERSION', check an unknown ioctl gets ENOTTY.
 * Exit 0 when the module speaks the ABI major this build was compiled
 * against, 1 otherwise (the message says what differs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <tracerd/kmod_abi.h>

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : TRACERD_DEV_PATH;
	struct tracerd_version v;
	int fd, ret = 1;

	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kmod_version: cannot open %s: %s\n", dev, strerror(errno));
		return 1;
	}
	memset(&v, 0xff, sizeof(v));
	if (ioctl(fd, TRACERD_IOC_VERSION, &v)) {
		fprintf(stderr, "kmod_version: TRACERD_IOC_VERSION: %s\n", strerror(errno));
		goto out;
	}
	v.module_version[sizeof(v.module_version) - 1] = '\0';
	printf("abi=%u.%u module=%s\n", v.abi_major, v.abi_minor, v.module_version);
	if (v.abi_major != TRACERD_ABI_MAJOR) {
		fprintf(stderr, "kmod_version: module ABI %u, this build expects %u\n",
			v.abi_major, TRACERD_ABI_MAJOR);
		goto out;
	}
	/* an ioctl number the module does not know must be -ENOTTY */
	if (ioctl(fd, _IO(TRACERD_IOC_MAGIC, 0xff), 0) != -1 || errno != ENOTTY) {
		fprintf(stderr, "kmod_version: unknown ioctl did not fail with ENOTTY\n");
		goto out;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}
