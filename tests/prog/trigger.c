// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trigger: make the kernel run a traced path an exact number of times, in
 * this process (tests filter on its tgid: `sh -c 'tracectl attach ...
 * --pid $$ && exec trigger getpgid N'`).
 *   trigger getpgid N     N getpgid(0) syscalls
 *   trigger rename N      N prctl(PR_SET_NAME) (tracepoint task:task_rename)
 *   trigger esrch N       N getpgid(0), then N getpgid(INT_MAX): N ESRCH errors
 *   trigger ebadf N       N close(-1): N EBADF errors
 *   trigger sleep20 N     N nanosleep() of 20 ms (slow calls: --slower-than)
 *   trigger sleep0 N      N nanosleep() of 0 ns (fast ones)
 *   trigger renameto NAME...  one prctl(PR_SET_NAME, NAME) per NAME, in order,
 *                         then back to "trigger" (--args: the strings a test chose)
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <time.h>
#include <sys/syscall.h>

/* n nanosleep syscalls of ns each */
static int naps(unsigned long n, long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
	unsigned long i;

	for (i = 0; i < n; i++)
		if (syscall(SYS_nanosleep, &ts, NULL))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n, i;
	char *end;

	if (argc >= 3 && !strcmp(argv[1], "renameto")) {
		for (i = 2; i < (unsigned long)argc; i++)
			prctl(PR_SET_NAME, argv[i]);
		prctl(PR_SET_NAME, "trigger");
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: trigger getpgid|rename|esrch|ebadf|sleep20|sleep0 N, "
			"trigger renameto NAME...\n");
		return 2;
	}
	n = strtoul(argv[2], &end, 0);
	if (*end) {
		fprintf(stderr, "trigger: bad count '%s'\n", argv[2]);
		return 2;
	}
	if (!strcmp(argv[1], "getpgid")) {
		for (i = 0; i < n; i++)
			syscall(SYS_getpgid, 0);
	} else if (!strcmp(argv[1], "esrch")) {
		for (i = 0; i < n; i++)
			syscall(SYS_getpgid, 0);
		for (i = 0; i < n; i++)
			if (syscall(SYS_getpgid, INT_MAX) != -1)
				return 1;	/* no such process: the test's premise */
	} else if (!strcmp(argv[1], "ebadf")) {
		for (i = 0; i < n; i++)
			if (syscall(SYS_close, -1) != -1)
				return 1;
	} else if (!strcmp(argv[1], "sleep20")) {
		return naps(n, 20 * 1000 * 1000);
	} else if (!strcmp(argv[1], "sleep0")) {
		return naps(n, 0);
	} else if (!strcmp(argv[1], "rename")) {
		for (i = 0; i < n; i++)
			prctl(PR_SET_NAME, "trigger");
	} else {
		fprintf(stderr, "trigger: unknown action '%s'\n", argv[1]);
		return 2;
	}
	return 0;
}
