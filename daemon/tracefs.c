// SPDX-License-Identifier: GPL-2.0-or-later
/* tracefs: the mounted one or a private detached mount; see tracefs.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include "../lib/strutil.h"
#include "../lib/util.h"
#include "bpfutil.h"
#include "tracefs.h"

/* The tracefs this process found (a mount is process-wide, found once:
 * for every caller: a fact of the process, not daemon state) */
static int tracefs_fd = -1;
static char tracefs_at[256];

/* a directory that holds tracefs's "events": its fd, else -1 */
static int open_root(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0 && faccessat(fd, "events", F_OK, 0)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		str_copy(tracefs_at, dir, sizeof(tracefs_at));
	return fd;
}

/* the first tracefs in /proc/mounts (mount points with spaces are skipped) */
static int open_mounted(void)
{
	char line[1024], dir[512], type[64];
	FILE *f = fopen("/proc/mounts", "re");
	int fd = -1;

	while (f && fd < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %511s %63s", dir, type) == 2 && !strcmp(type, "tracefs"))
			fd = open_root(dir);
	if (f)
		fclose(f);
	return fd;
}

/* a tracefs mount attached nowhere: only this fd reaches it */
static int open_private(char *why, size_t len)
{
	char ebuf[96];
	int fs, mnt, ret;

	fs = fsopen("tracefs", FSOPEN_CLOEXEC);
	if (fs < 0) {
		ret = -errno;
		return set_err(why, len, ret, "no tracefs: none mounted (/sys/kernel/tracing, "
			       "/proc/mounts) and a private one cannot be made: fsopen: %s",
			       errno_str(ret, ebuf, sizeof(ebuf)));
	}
	mnt = -1;
	if (!fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOSUID |
			      MOUNT_ATTR_NODEV | MOUNT_ATTR_RDONLY);
	ret = mnt < 0 ? -errno : 0;
	close(fs);
	if (ret)
		return set_err(why, len, ret, "no tracefs: none mounted (/sys/kernel/tracing, "
			       "/proc/mounts) and a private mount failed: %s",
			       errno_str(ret, ebuf, sizeof(ebuf)));
	str_copy(tracefs_at, "a private tracefs mount", sizeof(tracefs_at));
	return mnt;
}

int tracefs_root(char *why, size_t len)
{
	int fd;

	if (tracefs_fd >= 0)
		return tracefs_fd;
	fd = open_root("/sys/kernel/tracing");
	if (fd < 0)
		fd = open_mounted();
	if (fd < 0)
		fd = open_root("/sys/kernel/debug/tracing");
	if (fd < 0)
		fd = open_private(why, len);
	if (fd >= 0)
		tracefs_fd = fd;
	return fd;
}

const char *tracefs_where(void)
{
	return tracefs_at[0] ? tracefs_at : "no tracefs";
}

int tracefs_open(const char *path, char *why, size_t len)
{
	int root = tracefs_root(why, len), fd, ret;
	char ebuf[96];

	if (root < 0)
		return root;
	fd = openat(root, path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	ret = -errno;
	return set_err(why, len, ret, "cannot open tracefs %s (in %s): %s", path, tracefs_where(),
		       errno_str(ret, ebuf, sizeof(ebuf)));
}

int tracefs_event_exists(const char *cat, const char *name, char *why, size_t len)
{
	int root = tracefs_root(why, len);
	char path[512];

	if (root < 0)
		return root;
	snprintf(path, sizeof(path), "events/%s%s%s", cat, name ? "/" : "", name ? name : "");
	return !faccessat(root, path, F_OK, 0);
}

int tracefs_event_id(const char *cat, const char *name, char *why, size_t len)
{
	char path[512], buf[32];
	unsigned long long id;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "events/%s/%s/id", cat, name);
	fd = tracefs_open(path, why, len);
	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (parse_u64(buf, &id) || id > 0x7fffffff)
		return set_err(why, len, -EINVAL, "tracefs %s is not an id: '%s'", path, buf);
	return (int)id;
}

int tracefs_check_tracepoint(const char *target, char *msg, size_t len)
{
	const char *slash = strchr(target, '/');
	char cat[128], why[256];
	int ret;

	snprintf(cat, sizeof(cat), "%.*s", slash ? (int)(slash - target - 3) : 0, target + 3);
	why[0] = '\0';
	ret = tracefs_event_exists(cat, NULL, why, sizeof(why));
	if (ret < 0)
		return set_err(msg, len, -ENOENT, "cannot check tracepoint '%s': %s", target, why);
	if (!ret)
		return set_err(msg, len, -ENOENT, "unknown tracepoint category '%s' in '%s' "
			       "(no events/%s in %s)", cat, target, cat, tracefs_where());
	if (!tracefs_event_exists(cat, slash + 1, why, sizeof(why)))
		return set_err(msg, len, -ENOENT, "unknown tracepoint '%s' (no events/%s/%s in %s)",
			       target, cat, slash + 1, tracefs_where());
	return 0;
}
