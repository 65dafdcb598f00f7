// SPDX-License-Identifier: GPL-2.0-or-later
/* The fd budget (daemon/fds.c): where the HTTP server stops accepting. */
#include <sys/resource.h>
#include "../../daemon/fds.h"
#include "test.h"

/* fds_http_limit under a soft RLIMIT_NOFILE of soft (the hard one kept) */
static unsigned int limit_at(rlim_t soft, bool *ok)
{
	struct rlimit old, rl;
	unsigned int n;

	*ok = !getrlimit(RLIMIT_NOFILE, &old) && soft <= old.rlim_max;
	if (!*ok)
		return 0;
	rl = (struct rlimit){ soft, old.rlim_max };
	*ok = !setrlimit(RLIMIT_NOFILE, &rl);
	n = fds_http_limit();
	setrlimit(RLIMIT_NOFILE, &old);
	return n;
}

TEST(fds_http_limit)
{
	unsigned int n;
	bool ok;

	n = limit_at(1024, &ok);
	if (ok)
		ASSERT_EQ(n, 1024 - FDS_RESERVE_HTTP, "1024 less the HTTP reserve");
	n = limit_at(2 * FDS_RESERVE_HTTP, &ok);
	if (ok)	/* a limit too small to keep the reserve back: the reserve itself */
		ASSERT_EQ(n, FDS_RESERVE_HTTP, "small limit");
	n = limit_at(FDS_HTTP_LIMIT_MAX + 1000, &ok);
	if (ok)
		ASSERT_EQ(n, FDS_HTTP_LIMIT_MAX - FDS_RESERVE_HTTP, "capped");
}

TEST_MAIN()
